//! In-process embedding speed of a BERT model folder (issue 8's target:
//! 150 chunks/s on this 2-core machine), by text length, batch size and
//! threads. The texts are drawn from a fixed seed over a fixed word list, so
//! runs compare; the token counts are printed beside the figures.
//!
//! Usage: cargo bench --bench embed -- MODEL_FOLDER [SECONDS_PER_CASE]
//!
//! With `--corpus DB [CHUNKS [ROUNDS]]`: the texts are CHUNKS (default 640)
//! chunks of an indexed database, evenly spaced by id (the generated
//! corpus's mix of e-mail, receipts and conversations), embedded as `embed`
//! does (batches of 32), by each path in turn: f32 on one thread and two,
//! i16 products on one and two. ROUNDS (default 3) alternate the paths, so
//! a busy machine slows all of them alike; then each path's vectors against
//! f32's (cosine, min and mean).

use std::path::Path;
use std::time::Instant;

use alfred_mem::embed::bert::BertEmbedder;
use alfred_mem::embed::{Embedder, embedding_text};
use alfred_mem::kinds::SourceType;
use alfred_mem::lcg::Lcg;

const WORDS: &[&str] = &[
    "the", "budget", "meeting", "moved", "to", "thursday", "and", "we", "agreed", "on", "a", "new",
    "plan", "for", "spending", "in", "q3", "please", "send", "invoice", "by", "friday", "thanks",
    "flight", "hotel", "booked", "dinner", "with", "anna", "tomorrow", "evening", "project",
    "deadline", "review", "notes", "attached", "kind", "regards", "call", "me",
];

fn texts(n: usize, words: usize, seed: u64) -> Vec<String> {
    let mut r = Lcg(seed);
    (0..n)
        .map(|_| {
            (0..words)
                .map(|_| *r.pick(WORDS))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let Some(folder) = args.first() else {
        eprintln!("usage: cargo bench --bench embed -- MODEL_FOLDER [SECONDS_PER_CASE]");
        std::process::exit(2);
    };
    if args.get(1).map(String::as_str) == Some("--corpus") {
        corpus(folder, &args[2..]);
        return;
    }
    let seconds: f64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(5.0);
    let started = Instant::now();
    let mut m = BertEmbedder::open(Path::new(folder)).expect("load the model");
    println!(
        "model load: {:.1} ms",
        started.elapsed().as_secs_f64() * 1e3
    );
    println!("words/text  batch  threads  chunks/s");
    for words in [20, 60, 200] {
        for (batch, threads) in [(1, 1), (32, 1), (32, 2), (64, 2)] {
            m = m.with_threads(threads);
            let pool = texts(4096, words, 7 + words as u64);
            let (mut done, t0) = (0, Instant::now());
            while t0.elapsed().as_secs_f64() < seconds {
                let b: Vec<&str> = pool[done % 4000..done % 4000 + batch]
                    .iter()
                    .map(String::as_str)
                    .collect();
                m.embed(&b).expect("embed");
                done += batch;
            }
            let rate = done as f64 / t0.elapsed().as_secs_f64();
            println!("{words:>10}  {batch:>5}  {threads:>7}  {rate:>8.1}");
        }
    }
    // What the fast products (bf16 tiles, or i16 without them) cost in
    // precision: the same texts through the
    // f32 pass (`without_amx`), compared vector by vector.
    println!("words/text  cosine fast products vs f32 (min, mean over 256 texts)");
    let mut exact = BertEmbedder::open(Path::new(folder))
        .expect("load the model")
        .without_amx()
        .with_int16(false);
    for words in [20, 60, 200] {
        let pool = texts(256, words, 99 + words as u64);
        let b: Vec<&str> = pool.iter().map(String::as_str).collect();
        let (fast, slow) = (m.embed(&b).expect("embed"), exact.embed(&b).expect("embed"));
        let cos: Vec<f32> = fast
            .iter()
            .zip(&slow)
            .map(|(a, b)| a.iter().zip(b).map(|(x, y)| x * y).sum())
            .collect();
        let min = cos.iter().copied().fold(f32::INFINITY, f32::min);
        let mean = cos.iter().sum::<f32>() / cos.len() as f32;
        println!("{words:>10}  {min:.6}, {mean:.6}");
    }
}

/// Evenly spaced chunks of the database at `db`, as `embed` would send them.
fn corpus_texts(db: &str, n: usize) -> Vec<String> {
    let conn =
        rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .expect("open the database");
    let rows: Vec<(SourceType, String)> = conn
        .prepare(
            "SELECT source_type, text FROM memory_chunks WHERE superseded_at IS NULL ORDER BY id",
        )
        .expect("query chunks")
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .expect("query chunks")
        .map(|r| r.expect("a chunk"))
        .collect();
    let step = (rows.len() / n.max(1)).max(1);
    rows.iter()
        .step_by(step)
        .take(n)
        .map(|(s, t)| embedding_text(*s, t).into_owned())
        .collect()
}

fn corpus(folder: &str, args: &[String]) {
    let db = args.first().expect("--corpus DB");
    let n: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(640);
    let rounds: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(3);
    let texts = corpus_texts(db, n);
    let open = |int16: bool, threads: usize| {
        BertEmbedder::open(Path::new(folder))
            .expect("load the model")
            .without_amx()
            .with_int16(int16)
            .with_threads(threads)
    };
    let counter = open(false, 1);
    let tokens: usize = texts.iter().map(|t| counter.token_count(t)).sum();
    println!(
        "{} chunks, {} tokens ({:.0} per chunk)",
        texts.len(),
        tokens,
        tokens as f64 / texts.len() as f64
    );
    let paths: [(&str, bool, usize); 4] = [
        ("f32, 1 thread", false, 1),
        ("f32, 2 threads", false, 2),
        ("int16, 1 thread", true, 1),
        ("int16, 2 threads", true, 2),
    ];
    let mut models: Vec<BertEmbedder> = paths.iter().map(|&(_, q, th)| open(q, th)).collect();
    let mut vectors: Vec<Vec<Vec<f32>>> = vec![Vec::new(); paths.len()];
    let mut rates: Vec<Vec<f64>> = vec![Vec::new(); paths.len()];
    for round in 0..rounds {
        let order: Vec<usize> = if round % 2 == 0 {
            (0..paths.len()).collect()
        } else {
            (0..paths.len()).rev().collect()
        };
        for p in order {
            let t0 = Instant::now();
            let mut out = Vec::with_capacity(texts.len());
            for batch in texts.chunks(32) {
                let b: Vec<&str> = batch.iter().map(String::as_str).collect();
                out.extend(models[p].embed(&b).expect("embed"));
            }
            rates[p].push(texts.len() as f64 / t0.elapsed().as_secs_f64());
            vectors[p] = out;
        }
    }
    println!("path              chunks/s per round         best   cosine vs f32 (min, mean)");
    for (p, (name, _, _)) in paths.iter().enumerate() {
        let cos: Vec<f32> = vectors[p]
            .iter()
            .zip(&vectors[0])
            .map(|(a, b)| a.iter().zip(b).map(|(x, y)| x * y).sum())
            .collect();
        let min = cos.iter().copied().fold(f32::INFINITY, f32::min);
        let mean = cos.iter().sum::<f32>() / cos.len() as f32;
        let per_round: Vec<String> = rates[p].iter().map(|r| format!("{r:.1}")).collect();
        let best = rates[p].iter().copied().fold(0.0, f64::max);
        println!(
            "{name:<17} {:<26} {best:>6.1}   {min:.6}, {mean:.6}",
            per_round.join(" ")
        );
    }
}
