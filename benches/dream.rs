//! How long `alfred-mem dream` takes over a large recall log (issue 6's
//! target: 1,000,000 events scored in under 3 s; issue 17's: the whole night,
//! 1,000,000 events and 10,000 facts, in under 10 s). The data come from a
//! fixed seed so two runs, two machines and two versions can be compared.
//!
//! Usage: cargo bench --bench dream [-- EVENTS [CHUNKS [FACTS]]]   (default 1000000 100000 10000)
//!
//! It builds one database: CHUNKS email chunks (in 500 threads), FACTS
//! taught facts (claims about 300 people, free text about 40 projects, a
//! few repeated wordings: work for consolidation and the contradiction
//! check), then EVENTS recall events as searches would log them (a query
//! returns the same ten chunks every time, popular queries are asked more
//! often, times spread over 70 days so that some fall outside the 30-day
//! scoring window and some outside the 56 days the log is kept). Then it
//! times the whole `alfred-mem dream` process, `--dry-run` and real, each on
//! a fresh copy of that database, and prints medians.
//!
//! With `DREAM_BENCH_DB=PATH` the base database is kept at PATH (built there
//! when missing, reused when present), so a profiler or an older binary can
//! be run on copies of the same data.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use alfred_mem::ingest::record::{ChunkDraft, Meta, Record, SourceType, content_hash};
use alfred_mem::lcg::Lcg;
use alfred_mem::rank::query_hash;
use alfred_mem::store::Store;

const SEED: u64 = 42;
const NOW: i64 = 1_780_000_000;
const DAY: i64 = 86_400;
const HITS_PER_SEARCH: u64 = 10;
const DISTINCT_QUERIES: u64 = 20_000;
const RUNS: usize = 5;

fn main() {
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let events = args.first().copied().unwrap_or(1_000_000);
    let chunks = args.get(1).copied().unwrap_or(100_000);
    let facts = args.get(2).copied().unwrap_or(10_000);
    let dir = tempfile::tempdir().expect("tempdir");
    let base = match std::env::var_os("DREAM_BENCH_DB") {
        Some(p) => std::path::PathBuf::from(p),
        None => dir.path().join("base.db"),
    };
    if base.exists() {
        println!("reusing {}", base.display());
    } else {
        let t0 = Instant::now();
        build(&base, events, chunks, facts);
        println!(
            "built {events} events over {chunks} chunks and {facts} facts in {:.1} s",
            t0.elapsed().as_secs_f64()
        );
    }
    for (label, extra) in [("dream --dry-run", Some("--dry-run")), ("dream", None)] {
        let mut times = Vec::new();
        let mut last = String::new();
        for run in 0..RUNS {
            let db = dir.path().join(format!("run{run}.db"));
            std::fs::copy(&base, &db).expect("copy");
            let mut cmd = Command::new(env!("CARGO_BIN_EXE_alfred-mem"));
            cmd.arg("--db").arg(&db).arg("dream").args(extra);
            cmd.env("ALFRED_MEM_NOW", "2026-05-28T20:26:40Z"); // NOW
            let t = Instant::now();
            let out = cmd.output().expect("run alfred-mem");
            times.push(t.elapsed().as_secs_f64());
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            last = String::from_utf8_lossy(&out.stdout)
                .lines()
                .last()
                .unwrap_or("")
                .to_string();
            std::fs::remove_file(&db).ok();
        }
        times.sort_by(f64::total_cmp);
        println!(
            "{label:<16} median {:.3} s  min {:.3} s  max {:.3} s  ({RUNS} runs)  {last}",
            times[RUNS / 2],
            times[0],
            times[RUNS - 1]
        );
    }
}

fn build(path: &Path, events: u64, chunks: u64, facts: u64) {
    let mut store = Store::open(path).expect("open");
    let mut rng = Lcg(SEED);
    let words = [
        "acme", "renewal", "invoice", "orion", "dentist", "parcel", "rent", "budget",
    ];
    for start in (0..chunks).step_by(10_000) {
        let batch = store.begin_batch(NOW - 60 * DAY).expect("batch");
        for i in start..(start + 10_000).min(chunks) {
            let w = |r: &mut Lcg| *r.pick(&words);
            let text = format!(
                "Message {i} about {} and {} for {} (ref {})",
                w(&mut rng),
                w(&mut rng),
                w(&mut rng),
                rng.below(100_000)
            );
            let meta = Meta {
                subject: Some(format!("Thread {}", i % 500)),
                ..Meta::default()
            };
            let drafts = vec![ChunkDraft {
                text,
                dated_at: NOW - rng.below(365) as i64 * DAY,
                message_ids: vec![],
            }];
            batch
                .write(&Record {
                    source_type: SourceType::Email,
                    source_id: format!("m{i}@bench"),
                    content_hash: content_hash(&meta, &drafts),
                    meta,
                    chunks: drafts,
                    warning: None,
                })
                .expect("write");
        }
        batch.commit().expect("commit");
    }
    let cities = [
        "Accra",
        "Kumasi",
        "Ipoh",
        "Penang",
        "Melbourne",
        "Seremban",
        "Bangsar",
    ];
    for i in 0..facts {
        let person = format!("Person{}", rng.below(300));
        let text = match i % 5 {
            0 => format!(
                "{person}'s phone number is 01{}",
                10_000_000 + rng.below(89_999_999)
            ),
            1 => format!("{person} lives in {}", rng.pick(&cities)),
            2 => format!("{person} works at Company{}", rng.below(50)),
            3 => format!(
                "The Project{} review is on {} March in {}",
                rng.below(40),
                1 + rng.below(28),
                rng.pick(&cities)
            ),
            _ => format!(
                "Note {i}: {person} prefers {} over {}",
                words[i as usize % 8],
                words[(i as usize + 3) % 8]
            ),
        };
        store.remember(&text, NOW - 50 * DAY).expect("remember");
    }
    drop(store);
    // The events go in through SQL in one transaction: logging them one
    // search at a time through the store would only time the generator.
    let mut conn = rusqlite::Connection::open(path).expect("reopen");
    let tx = conn.transaction().expect("tx");
    {
        let mut ins = tx
            .prepare(
                "INSERT INTO recall_events (chunk_id, query_hash, score, recalled_at)
                 VALUES (?1, ?2, ?3, ?4)",
            )
            .expect("prepare");
        let hashes: Vec<String> = (0..DISTINCT_QUERIES)
            .map(|q| query_hash(&format!("query {q}")))
            .collect();
        for _ in 0..events / HITS_PER_SEARCH {
            // Cubing a uniform number skews toward popular (low) queries.
            let q = (rng.unit().powi(3) * DISTINCT_QUERIES as f64) as u64;
            let at = NOW - (rng.unit() * 70.0 * DAY as f64) as i64;
            for hit in 0..HITS_PER_SEARCH {
                let chunk = 1 + (q * 7919 + hit * 104_729) % chunks;
                let score = 1.0 / (1 + hit) as f64;
                ins.execute(rusqlite::params![
                    chunk as i64,
                    hashes[q as usize],
                    score,
                    at
                ])
                .expect("insert");
            }
        }
    }
    tx.commit().expect("commit");
}
