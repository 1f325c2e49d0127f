//! The vector index (issue 23) through the real binary: it agrees with the
//! exact scan (`ALFRED_MEM_VECTORS=exact`, the oracle) inside windows and
//! source filters, follows every write and forget, and survives kill -9.
//! `ALFRED_MEM_VECTORS=index` builds and uses it at any size; by default it
//! is built from 20,000 embedded chunks.

use std::time::Duration;

use alfred_mem::lcg::Lcg;
use serde_json::Value;

use crate::crash::{WORDS, generated_mbox_of};
use crate::fake_embedder::FakeEmbedder;
use crate::util::TestEnv;

const VECTORS: &str = "ALFRED_MEM_VECTORS";

/// The crash tests' words and these: more topics for the vectors.
const MORE_WORDS: [&str; 16] = [
    "garden",
    "piano",
    "lesson",
    "football",
    "recipe",
    "bakery",
    "museum",
    "ticket",
    "laptop",
    "battery",
    "insurance",
    "mortgage",
    "vacation",
    "birthday",
    "wedding",
    "concert",
];

fn word(rng: &mut Lcg) -> &'static str {
    let n = WORDS.len() + MORE_WORDS.len();
    let i = rng.below(n as u64) as usize;
    WORDS
        .get(i)
        .copied()
        .unwrap_or_else(|| MORE_WORDS[i - WORDS.len()])
}

/// Conversations (our JSON Lines format) of seeded words, a day apart from
/// 1 January 2026: another source beside the generated mail.
fn conversations(n: usize, seed: u64) -> String {
    let mut rng = Lcg(seed);
    (0..n)
        .map(|i| {
            let text: Vec<&str> = (0..10).map(|_| word(&mut rng)).collect();
            serde_json::json!({
                "id": format!("c{seed}-{i}"),
                "date": format!("2026-{:02}-{:02}T10:00:00Z", 1 + i % 3, 1 + i % 28),
                "messages": [{"id": "m", "speaker": "Ann", "text": text.join(" ")}],
            })
            .to_string()
                + "\n"
        })
        .collect()
}

/// 400 mails and 300 conversations, embedded, with an index.
fn corpus(env: &TestEnv, server: &FakeEmbedder) {
    let mbox = env.write("mail.mbox", generated_mbox_of(400));
    env.cmd(["index-mbox", mbox.to_str().unwrap()])
        .assert()
        .success();
    let chats = env.write("chats.jsonl", conversations(300, 1));
    env.cmd(["index-conversations", chats.to_str().unwrap()])
        .assert()
        .success();
    env.json(["model", "use", &server.url, "--name", "hashed"], 0);
    env.cmd(["embed"]).env(VECTORS, "index").assert().success();
    assert_in_step(env);
}

/// Every chunk with a vector has exactly one posting in the index.
fn assert_in_step(env: &TestEnv) {
    let embedded = env.count("SELECT count(*) FROM chunk_text_hashes");
    assert!(embedded > 0);
    assert_eq!(
        env.count("SELECT count(*) FROM vector_postings"),
        embedded,
        "the index holds every embedded chunk once"
    );
    assert_eq!(
        env.count(
            "SELECT count(*) FROM vector_postings p
             LEFT JOIN chunk_text_hashes h ON h.chunk_id = p.chunk_id
             WHERE h.chunk_id IS NULL"
        ),
        0,
        "and nothing else"
    );
}

/// The hits of a `--semantic` search under `mode`: (id, source, date).
fn hits(env: &TestEnv, mode: &str, args: &[&str]) -> Vec<(i64, String, String)> {
    let out = env
        .cmd([
            "search",
            "--no-log",
            "--semantic",
            "--json",
            "--limit",
            "10",
        ])
        .args(args)
        .env(VECTORS, mode)
        .output()
        .unwrap();
    assert!(out.status.code() == Some(0) || out.status.code() == Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Array(vec![]));
    v.as_array()
        .unwrap()
        .iter()
        .map(|h| {
            (
                h["id"].as_i64().unwrap(),
                h["source_type"].as_str().unwrap().to_string(),
                h["dated_at"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

/// The share of `exact`'s hits that `index` found too.
fn overlap(index: &[(i64, String, String)], exact: &[(i64, String, String)]) -> f64 {
    let found = index.iter().filter(|h| exact.contains(h)).count();
    found as f64 / exact.len().max(1) as f64
}

/// The index finds (nearly) what the exact scan finds. Not always the same
/// order: the cosines are normalised over the candidates, so one candidate
/// more or less in the vector top-K moves near-ties.
fn assert_agrees(env: &TestEnv, q: &str) {
    let (index, exact) = (hits(env, "index", &[q]), hits(env, "exact", &[q]));
    assert_eq!(index.len(), exact.len(), "{q}");
    assert!(overlap(&index, &exact) >= 0.8, "{q}: {index:?} / {exact:?}");
}

fn queries() -> Vec<String> {
    let mut rng = Lcg(42);
    (0..12)
        .map(|_| (0..3).map(|_| word(&mut rng)).collect::<Vec<_>>().join(" "))
        .collect()
}

#[test]
fn the_index_agrees_with_the_exact_scan_in_windows_and_sources() {
    let server = FakeEmbedder::start_hashed(Duration::ZERO);
    let env = TestEnv::new();
    corpus(&env, &server);
    assert!(env.count("SELECT count(*) FROM vector_lists") > 1);
    let filters: [&[&str]; 4] = [
        &[],
        &["--after", "2026-01-10", "--before", "2026-02-20"],
        &["--source", "conversation"],
        &["--source", "email", "--after", "2026-01-05"],
    ];
    let (mut found, mut wanted) = (0.0, 0.0);
    for filter in filters {
        for q in queries() {
            let mut args = vec![q.as_str()];
            args.extend_from_slice(filter);
            let exact = hits(&env, "exact", &args);
            let index = hits(&env, "index", &args);
            assert!(!exact.is_empty(), "{args:?}");
            assert_eq!(index.len(), exact.len(), "no fewer hits: {args:?}");
            for (_, source, date) in &index {
                if filter.contains(&"conversation") {
                    assert_eq!(source, "conversation", "{args:?}");
                }
                if filter.contains(&"email") {
                    assert_eq!(source, "email", "{args:?}");
                }
                if filter.contains(&"2026-01-10") {
                    assert!(
                        date.as_str() >= "2026-01-10" && date.as_str() < "2026-02-20",
                        "{args:?}: {date}"
                    );
                }
            }
            wanted += exact.len() as f64;
            found += overlap(&index, &exact) * exact.len() as f64;
        }
    }
    let recall = found / wanted;
    assert!(
        recall >= 0.95,
        "the index's hits agree with the exact scan's: {recall:.3}"
    );
    // The default (`auto`) uses the index that exists, with the same answers.
    let q = &queries()[0];
    assert_eq!(hits(&env, "auto", &[q]), hits(&env, "index", &[q]));
}

#[test]
fn the_index_follows_new_chunks_and_forgets_purged_ones() {
    let server = FakeEmbedder::start_hashed(Duration::ZERO);
    let env = TestEnv::new();
    corpus(&env, &server);
    // `remember` embeds and files the new fact at once.
    let out = env
        .cmd(["remember", "zanzibar quokka marmalade"])
        .env(VECTORS, "index")
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_in_step(&env);
    let found = hits(&env, "index", &["zanzibar quokka marmalade"]);
    assert_eq!(found[0].1, "fact", "{found:?}");
    let fact = found[0].0;
    // So does an import of new conversations.
    let chats = env.write("more.jsonl", conversations(50, 2));
    env.cmd(["index-conversations", chats.to_str().unwrap()])
        .env(VECTORS, "index")
        .assert()
        .success();
    assert_in_step(&env);
    assert_agrees(&env, &queries()[1]);
    // A purged fact leaves the index with its vector.
    let facts = env.json(["facts"], 0);
    let id = facts[0]["id"].as_i64().unwrap();
    env.cmd(["forget", "--purge", &id.to_string()])
        .env(VECTORS, "index")
        .assert()
        .success();
    assert_in_step(&env);
    assert_eq!(
        env.count(&format!(
            "SELECT count(*) FROM vector_postings WHERE chunk_id = {fact}"
        )),
        0
    );
    let after = hits(&env, "index", &["zanzibar quokka marmalade"]);
    assert!(after.iter().all(|h| h.0 != fact), "{after:?}");
}

#[test]
fn kill_9_during_embed_leaves_an_index_that_agrees_with_the_exact_scan() {
    let env = TestEnv::new();
    let server = FakeEmbedder::start_hashed(Duration::from_millis(100));
    corpus(&env, &server);
    // More chunks, indexed with the model off, then embedded slowly and
    // killed after some batches are committed.
    env.cmd(["model", "off"]).assert().success();
    let chats = env.write("more.jsonl", conversations(300, 3));
    env.cmd(["index-conversations", chats.to_str().unwrap()])
        .assert()
        .success();
    env.json(["model", "use", &server.url, "--name", "hashed"], 0);
    let before = env.count("SELECT count(*) FROM chunk_text_hashes");
    let mut child = env
        .std_cmd(["embed"])
        .env(VECTORS, "index")
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while env.count("SELECT count(*) FROM chunk_text_hashes") < before + 64
        && std::time::Instant::now() < deadline
    {
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let done = env.count("SELECT count(*) FROM chunk_text_hashes");
    assert!(
        done > before && done < before + 300,
        "killed mid-run: {done}"
    );
    assert_in_step(&env);
    for q in queries().iter().take(4) {
        assert_agrees(&env, q);
    }
    env.cmd(["embed"]).env(VECTORS, "index").assert().success();
    assert_in_step(&env);
    assert_eq!(
        env.count("SELECT count(*) FROM chunk_text_hashes"),
        before + 300
    );
}

#[test]
fn the_exact_switch_and_a_bad_value() {
    let server = FakeEmbedder::start_hashed(Duration::ZERO);
    let env = TestEnv::new();
    corpus(&env, &server);
    let q = &queries()[2];
    assert!(!hits(&env, "exact", &[q]).is_empty());
    env.cmd(["search", "--no-log", q])
        .env(VECTORS, "hnsw")
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "invalid ALFRED_MEM_VECTORS: expected `auto`, `exact` or `index`, not \"hnsw\"",
        ));
    // `exact` never builds an index, and `auto` does not below its size.
    let env = TestEnv::new();
    let chats = env.write("chats.jsonl", conversations(100, 4));
    env.cmd(["index-conversations", chats.to_str().unwrap()])
        .assert()
        .success();
    env.json(["model", "use", &server.url, "--name", "hashed"], 0);
    env.cmd(["embed"]).env(VECTORS, "exact").assert().success();
    env.cmd(["embed"]).assert().success();
    assert_eq!(env.count("SELECT count(*) FROM vector_indexes"), 0);
    assert!(!hits(&env, "auto", &[q]).is_empty());
}

/// The semantic links of the chunks an import adds: (low, high, strength).
fn semantic_links(env: &TestEnv) -> Vec<(i64, i64, String)> {
    let conn = env.sqlite();
    let mut stmt = conn
        .prepare(
            "SELECT low, high, printf('%.3f', strength) FROM memory_links
             WHERE kind = 'semantic' ORDER BY low, high",
        )
        .unwrap();
    stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

/// New chunks are linked by meaning through the index (each one a probe,
/// not a scan of every vector) to the neighbours the exact scan links them
/// to: two copies of one memory take the same import, one under each.
#[test]
fn new_chunks_link_by_meaning_through_the_index_as_the_scan_does() {
    let server = FakeEmbedder::start_hashed(Duration::ZERO);
    let (exact, index) = (TestEnv::new(), TestEnv::new());
    let mut before = Vec::new();
    for env in [&exact, &index] {
        corpus(env, &server);
        before.push(semantic_links(env));
    }
    assert_eq!(before[0], before[1], "the same memory twice");
    for (env, mode) in [(&exact, "exact"), (&index, "index")] {
        let chats = env.write("more.jsonl", conversations(60, 3));
        env.cmd(["index-conversations", chats.to_str().unwrap()])
            .env(VECTORS, mode)
            .assert()
            .success();
    }
    let new = |env: &TestEnv, before: &[(i64, i64, String)]| -> Vec<(i64, i64, String)> {
        semantic_links(env)
            .into_iter()
            .filter(|l| !before.contains(l))
            .collect()
    };
    let (by_scan, by_index) = (new(&exact, &before[0]), new(&index, &before[1]));
    assert!(
        by_scan.len() >= 20,
        "the import links by meaning: {by_scan:?}"
    );
    let shared = by_index.iter().filter(|l| by_scan.contains(l)).count();
    assert!(
        shared as f64 >= 0.95 * by_scan.len() as f64 && by_index.len() <= by_scan.len(),
        "{shared} of {} scan links, {} index links",
        by_scan.len(),
        by_index.len()
    );
}
