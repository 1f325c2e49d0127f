//! `embed` gives the most useful chunks their vectors first (recalled, then
//! facts, then newest first), and `embed --budget` stops at its budget with
//! everything so far kept; the next run goes on with the rest, search works
//! in between, and `status` says what is left. Against the fake endpoint of
//! `fake_embedder`, which records what it was sent, in order.

use std::time::Duration;

use chrono::{TimeZone, Utc};

use crate::fake_embedder::FakeEmbedder;
use crate::util::TestEnv;

/// `n` conversations of one message each, `note I wordIx`, an hour apart
/// from 2025-01-01: note n-1 is the newest.
fn notes(env: &TestEnv, n: usize) {
    let start = Utc.with_ymd_and_hms(2025, 1, 1, 0, 0, 0).unwrap();
    let lines: String = (0..n)
        .map(|i| {
            let date = start + chrono::Duration::hours(i as i64);
            serde_json::json!({
                "id": format!("c{i}"),
                "date": date.to_rfc3339(),
                "messages": [{"id": format!("m{i}"), "speaker": "Ann",
                              "text": format!("note {i} word{i}x")}],
            })
            .to_string()
                + "\n"
        })
        .collect();
    let file = env.write("notes.jsonl", lines);
    env.cmd(["index-conversations", file.to_str().unwrap()])
        .assert()
        .success();
}

/// The chunk id of note `i`.
fn note_id(env: &TestEnv, i: usize) -> i64 {
    env.sqlite()
        .query_row(
            "SELECT id FROM memory_chunks WHERE text LIKE ?1",
            [format!("%note {i} word{i}x%")],
            |r| r.get(0),
        )
        .unwrap()
}

/// The ids the query `sql` returns.
fn ids(env: &TestEnv, sql: &str) -> Vec<i64> {
    let conn = env.sqlite();
    let mut stmt = conn.prepare(sql).unwrap();
    let rows = stmt.query_map([], |r| r.get(0)).unwrap();
    rows.map(Result::unwrap).collect()
}

/// What the endpoint was asked to embed, notes and facts only (not the
/// probe `model use` sends).
fn sent(server: &FakeEmbedder) -> Vec<String> {
    let seen = server.seen.lock().unwrap();
    seen.iter()
        .filter(|t| t.starts_with("note ") || t.contains("wifi"))
        .map(|t| t.split(" word").next().unwrap().to_string())
        .collect()
}

#[test]
fn recalled_chunks_then_facts_then_the_newest_are_embedded_first() {
    let server = FakeEmbedder::start(Duration::ZERO);
    let env = TestEnv::new();
    notes(&env, 40);
    env.cmd(["remember", "the wifi password is on the fridge"])
        .assert()
        .success();
    // Read note 3, then note 7 an hour later, then a search that returns
    // only note 20 (logged as a recall) later still.
    env.cmd(["show", "--json", &note_id(&env, 3).to_string()])
        .assert()
        .success();
    env.cmd(["show", "--json", &note_id(&env, 7).to_string()])
        .env("ALFRED_MEM_NOW", "2026-12-02T13:00:00Z")
        .assert()
        .success();
    env.cmd(["search", "word20x"])
        .env("ALFRED_MEM_NOW", "2026-12-02T14:00:00Z")
        .assert()
        .success();
    env.json(["model", "use", &server.url, "--name", "fake"], 0);
    let v = env.json(["embed"], 0);
    assert_eq!(v["chunks"], 41);
    assert_eq!(v["budget_reached"], false);
    let mut want: Vec<String> = ["note 20", "note 7", "note 3"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    want.push("the wifi password is on the fridge".into());
    want.extend(
        (0..40)
            .rev()
            .filter(|i| ![3, 7, 20].contains(i))
            .map(|i| format!("note {i}")),
    );
    assert_eq!(sent(&server), want);
}

#[test]
fn a_budget_stops_the_run_and_the_next_run_goes_on_with_the_rest() {
    // 400 chunks, 13 batches of 32, each answered after 200 ms: at most
    // ten fit in the two seconds.
    let server = FakeEmbedder::start(Duration::from_millis(200));
    let env = TestEnv::new();
    notes(&env, 400);
    env.json(["model", "use", &server.url, "--name", "fake"], 0);
    let first = env.json(["embed", "--budget", "2s"], 0);
    assert_eq!(first["budget_reached"], true, "{first}");
    let done = first["chunks"].as_u64().unwrap();
    assert!((32..400).contains(&done), "{first}");

    // What was embedded is the newest `done` notes, nothing else.
    let newest = ids(
        &env,
        "SELECT id FROM memory_chunks ORDER BY dated_at DESC, id DESC",
    );
    let mut embedded = ids(
        &env,
        "SELECT chunk_id FROM chunk_text_hashes h JOIN embeddings e ON e.text_hash = h.text_hash",
    );
    let mut want = newest[..done as usize].to_vec();
    embedded.sort_unstable();
    want.sort_unstable();
    assert_eq!(embedded, want);

    // Status says what is left, and how many runs of this budget it takes
    // at the measured rate.
    let s = env.json(["status"], 0);
    assert_eq!(s["semantic"]["missing"], 400 - done);
    let estimate = &s["semantic"]["estimate"];
    assert_eq!(estimate["budget_seconds"], 2, "{s}");
    assert!(estimate["nights"].as_u64().unwrap() >= 1, "{s}");
    assert!(estimate["chunks_per_s"].as_f64().unwrap() > 0.0, "{s}");
    let human = env.cmd(["status"]).assert().success();
    let text = String::from_utf8_lossy(&human.get_output().stdout).to_string();
    assert!(
        text.contains("to embed   ") && text.contains("of its --budget 2 s"),
        "{text}"
    );

    // Search works on the partial vectors: an old note, not embedded yet,
    // is found by its words.
    let out = env.cmd(["search", "word5x"]).assert().success();
    assert!(String::from_utf8_lossy(&out.get_output().stdout).contains("note 5 word5x"));

    let second = env.json(["embed"], 0);
    assert_eq!(second["chunks"].as_u64().unwrap(), 400 - done);
    assert_eq!(second["budget_reached"], false);
    let s = env.json(["status"], 0);
    assert_eq!(s["semantic"]["missing"], 0);
}

#[test]
fn a_bad_budget_is_refused_before_anything_runs() {
    let env = TestEnv::new();
    notes(&env, 2);
    for (budget, says) in [
        ("10", "10 needs a unit (s, m or h)"),
        ("3x", "unknown unit 'x'"),
        ("0s", "must be longer than zero"),
        ("", "no duration given"),
        ("1000h", "too long"),
    ] {
        env.cmd(["embed", "--budget", budget])
            .assert()
            .code(2)
            .stderr(predicates::str::contains(says));
    }
}
