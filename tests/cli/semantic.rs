//! Semantic recall through the real binary, against the fake embeddings
//! server of `fake_embedder` (no model needed).

use std::time::Duration;

use serde_json::Value;

use crate::fake_embedder::FakeEmbedder;
use crate::util::{TestEnv, mbox_message};

/// Conversations (our JSON Lines format), one message each, a day apart.
fn conversations(texts: &[&str]) -> String {
    texts
        .iter()
        .enumerate()
        .map(|(i, t)| {
            serde_json::json!({
                "id": format!("c{i}"),
                "date": format!("2026-11-{:02}T10:00:00Z", 1 + i % 28),
                "messages": [{"id": format!("m{i}"), "speaker": "Ann", "text": t}],
            })
            .to_string()
                + "\n"
        })
        .collect()
}

const TEXTS: &[&str] = &[
    "We looked at the Q3 spending plan and the expenses",
    "Booked the flight to Lisbon and a hotel near the airport",
    "Pizza for dinner at the new restaurant on Friday",
    "The garden needs watering twice a week",
];

pub fn indexed(env: &TestEnv) {
    let file = env.write("chats.jsonl", conversations(TEXTS));
    env.cmd(["index-conversations", file.to_str().unwrap()])
        .assert()
        .success();
}

#[test]
fn without_a_model_status_says_semantic_recall_is_off() {
    let env = TestEnv::new();
    indexed(&env);
    let out = env.cmd(["status"]).assert().success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(text.contains("semantic   off"), "{text}");
    let v = env.json(["model", "status"], 0);
    assert_eq!(v, serde_json::json!({"enabled": false}));
    env.cmd(["embed"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("no model configured"));
}

#[test]
fn model_use_embed_and_status_with_an_endpoint() {
    let server = FakeEmbedder::start(Duration::ZERO);
    let env = TestEnv::new();
    indexed(&env);
    let v = env.json(["model", "use", &server.url, "--name", "fake"], 0);
    assert_eq!(v["enabled"], true);
    assert_eq!(v["dimension"], 4);
    assert_eq!(v["missing"], 4);
    let v = env.json(["embed"], 0);
    assert_eq!(
        (v["chunks"].as_u64(), v["embedded"].as_u64()),
        (Some(4), Some(4))
    );
    let before = server.texts();
    let v = env.json(["embed"], 0);
    assert_eq!(v["chunks"], 0, "nothing is embedded twice");
    assert_eq!(server.texts(), before);
    let status = env.json(["status"], 0);
    assert_eq!(status["semantic"]["embedded"], 4);
    assert_eq!(
        status["semantic"]["model"],
        format!("http:fake@{}", server.url)
    );
    let out = env.cmd(["status"]).assert().success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(text.contains("semantic   on"), "{text}");
    // Off keeps the vectors; on again needs no re-embedding.
    env.json(["model", "off"], 0);
    assert!(env.json(["status"], 0).get("semantic").is_none());
    let v = env.json(["model", "use", &server.url, "--name", "fake"], 0);
    assert_eq!(v["missing"], 0);
}

#[test]
fn index_commands_embed_new_chunks_once_a_model_is_configured() {
    let server = FakeEmbedder::start(Duration::ZERO);
    let env = TestEnv::new();
    env.json(["model", "use", &server.url, "--name", "fake"], 0);
    indexed(&env);
    env.cmd(["remember", "my budget is tight"])
        .assert()
        .success();
    let v = env.json(["model", "status"], 0);
    assert_eq!(
        (v["embedded"].as_u64(), v["missing"].as_u64()),
        (Some(5), Some(0))
    );
}

/// An import embeds what it wrote and nothing else: chunks that were there
/// before without a vector (indexed before `model use`) are `embed`'s job,
/// because finding them walks the whole archive; `model status` counts them.
#[test]
fn an_import_embeds_what_it_wrote_and_leaves_older_chunks_to_embed() {
    let server = FakeEmbedder::start(Duration::ZERO);
    let env = TestEnv::new();
    indexed(&env);
    env.json(["model", "use", &server.url, "--name", "fake"], 0);
    let mail = env.write(
        "new.mbox",
        mbox_message(
            "<n1@x>",
            "Mon, 02 Mar 2026 10:00:00 +0000",
            "Boat",
            "The boat is moored at pier nine.",
        ),
    );
    env.cmd(["index-mbox", mail.to_str().unwrap()])
        .assert()
        .success();
    let v = env.json(["model", "status"], 0);
    assert_eq!(
        (v["embedded"].as_u64(), v["missing"].as_u64()),
        (Some(1), Some(4)),
        "the new mail has a vector; the four older chunks wait for `embed`"
    );
    assert_eq!(env.json(["embed"], 0)["chunks"], 4);
    let v = env.json(["model", "status"], 0);
    assert_eq!(v["missing"], 0);
}

#[test]
fn a_failing_endpoint_leaves_indexing_intact_with_a_warning() {
    let server = FakeEmbedder::start(Duration::ZERO);
    let env = TestEnv::new();
    env.json(["model", "use", &server.url, "--name", "fake"], 0);
    server
        .failing
        .store(true, std::sync::atomic::Ordering::SeqCst);
    let file = env.write("chats.jsonl", conversations(TEXTS));
    env.cmd(["index-conversations", file.to_str().unwrap()])
        .assert()
        .success()
        .stderr(predicates::str::contains("indexed but not embedded"))
        .stderr(predicates::str::contains("500"));
    env.cmd(["embed"]).assert().code(2);
    server
        .failing
        .store(false, std::sync::atomic::Ordering::SeqCst);
    assert_eq!(env.json(["embed"], 0)["chunks"], 4);
}

#[test]
fn model_use_with_an_unreachable_endpoint_changes_nothing() {
    let server = FakeEmbedder::start(Duration::ZERO);
    let env = TestEnv::new();
    env.json(["model", "use", &server.url, "--name", "fake"], 0);
    // A closed port, as if the server went away.
    let dead = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let dead_url = format!("http://{}/v1", dead.local_addr().unwrap());
    drop(dead);
    let err = env
        .cmd(["model", "use", &dead_url, "--name", "fake"])
        .assert()
        .code(2);
    let msg = String::from_utf8_lossy(&err.get_output().stderr).to_string();
    assert!(msg.contains("could not connect"), "{msg}");
    indexed(&env);
    let v = env.json(["model", "status"], 0);
    assert_eq!(v["embedded"], 4, "the first model is still the one in use");
}

#[test]
fn the_key_comes_from_the_named_variable_and_a_url_needs_a_name() {
    let server = FakeEmbedder::start(Duration::ZERO);
    let env = TestEnv::new();
    env.cmd(["model", "use", &server.url])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("--name"));
    env.cmd([
        "model",
        "use",
        &server.url,
        "--name",
        "f",
        "--key-env",
        "MY_KEY",
    ])
    .assert()
    .code(2)
    .stderr(predicates::str::contains("MY_KEY"));
    env.cmd([
        "model",
        "use",
        &server.url,
        "--name",
        "f",
        "--key-env",
        "MY_KEY",
    ])
    .env("MY_KEY", "sekrit")
    .assert()
    .success();
    assert_eq!(server.auth.lock().unwrap().as_slice(), ["Bearer sekrit"]);
    let stored: Value = env.json(["model", "status"], 0);
    assert!(
        !stored.to_string().contains("sekrit"),
        "the key is never stored"
    );
}

#[test]
fn embed_resumes_after_kill_9() {
    let server = FakeEmbedder::start(Duration::from_millis(150));
    let env = TestEnv::new();
    let texts: Vec<String> = (0..150)
        .map(|i| format!("note number {i} about money"))
        .collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let file = env.write("many.jsonl", conversations(&refs));
    env.cmd(["index-conversations", file.to_str().unwrap()])
        .assert()
        .success();
    env.json(["model", "use", &server.url, "--name", "fake"], 0);
    let mut child = env.std_cmd(["embed"]).spawn().unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        let v = env.json(["model", "status"], 0);
        if v["embedded"].as_u64().unwrap() >= 32 || std::time::Instant::now() > deadline {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let done = env.json(["model", "status"], 0)["embedded"]
        .as_u64()
        .unwrap();
    assert!((32..150).contains(&done), "killed mid-run: {done}");
    let v = env.json(["embed"], 0);
    assert_eq!(v["chunks"].as_u64().unwrap(), 150 - done);
    let s = env.json(["model", "status"], 0);
    assert_eq!(
        (s["embedded"].as_u64(), s["missing"].as_u64()),
        (Some(150), Some(0))
    );
}

fn with_model(env: &TestEnv, server: &FakeEmbedder) {
    indexed(env);
    env.json(["model", "use", &server.url, "--name", "fake"], 0);
    env.json(["embed"], 0);
}

#[test]
fn hybrid_search_finds_a_chunk_that_shares_no_word_with_the_query() {
    let server = FakeEmbedder::start(Duration::ZERO);
    let env = TestEnv::new();
    with_model(&env, &server);
    env.cmd(["search", "--no-log", "--lexical", "budgets"])
        .assert()
        .code(1);
    let text = |v: &Value| v.as_str().unwrap().to_string();
    let hits = env.json(["search", "--no-log", "budgets"], 0);
    assert!(text(&hits[0]["text"]).ends_with(TEXTS[0]), "{hits}");
    let semantic = env.json(["search", "--no-log", "--semantic", "budgets"], 0);
    assert!(text(&semantic[0]["text"]).ends_with(TEXTS[0]));
    // A word match still counts: "flight" is found by both sides.
    let hits = env.json(["search", "--no-log", "flight", "--explain"], 0);
    let e = &hits[0]["explain"];
    assert!(text(&hits[0]["text"]).ends_with(TEXTS[1]));
    assert_eq!(
        (e["text_relevance"].as_f64(), e["vector_relevance"].as_f64()),
        (Some(1.0), Some(1.0))
    );
    assert!(e["cosine"].as_f64().unwrap() > 0.9);
    let lexical = env.json(
        ["search", "--no-log", "flight", "--explain", "--lexical"],
        0,
    );
    assert!(lexical[0]["explain"].get("cosine").is_none());
}

/// What the query excludes or requires holds for what the vectors find;
/// its optional words do not (meaning stands in for them).
#[test]
fn the_vector_side_keeps_to_what_the_query_syntax_requires_and_excludes() {
    let server = FakeEmbedder::start(Duration::ZERO);
    let env = TestEnv::new();
    with_model(&env, &server);
    let found = |args: &[&str]| {
        let out = env
            .cmd(["search", "--no-log", "--json"])
            .args(args)
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    // TEXTS[0] shares no word with "budgets" and is found by meaning ...
    assert!(found(&["budgets -garden"]).contains("spending plan"));
    // ... but not when it holds a word the query excludes,
    assert!(!found(&["budgets -plan"]).contains("spending plan"));
    // or lacks a word the query requires.
    assert!(!found(&["budgets AND lisbon"]).contains("spending plan"));
}

#[test]
fn the_vector_side_keeps_to_the_time_window_and_sources() {
    let server = FakeEmbedder::start(Duration::ZERO);
    let env = TestEnv::new();
    with_model(&env, &server);
    // TEXTS[0] is dated 2026-11-01.
    let hits = env.json(
        ["search", "--no-log", "budgets", "--after", "2026-11-02"],
        0,
    );
    assert!(
        !hits.to_string().contains("spending"),
        "the best match by meaning is outside the window: {hits}"
    );
    env.cmd(["remember", "the budget for groceries is 300"])
        .assert()
        .success();
    let hits = env.json(
        [
            "search",
            "--no-log",
            "--semantic",
            "money",
            "--after",
            "2026-11-02",
        ],
        0,
    );
    assert_eq!(
        hits[0]["source_type"], "fact",
        "facts always pass the window"
    );
    let hits = env.json(
        ["search", "--no-log", "money", "--source", "conversation"],
        0,
    );
    assert!(
        hits.as_array()
            .unwrap()
            .iter()
            .all(|h| h["source_type"] == "conversation")
    );
}

#[test]
fn explain_names_both_sides_and_semantic_needs_a_model() {
    let server = FakeEmbedder::start(Duration::ZERO);
    let env = TestEnv::new();
    indexed(&env);
    env.cmd(["search", "--no-log", "--semantic", "budgets"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("no model configured"));
    env.cmd(["search", "--lexical", "--semantic", "x"])
        .assert()
        .code(2);
    env.json(["model", "use", &server.url, "--name", "fake"], 0);
    env.json(["embed"], 0);
    let out = env
        .cmd(["search", "--no-log", "--explain", "plan"])
        .assert()
        .success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(text.contains("top 50 by cosine with http:fake@"), "{text}");
    assert!(text.contains("(text 1.000 + vector"), "{text}");
}

#[test]
fn a_model_folder_runs_in_process() {
    let env = TestEnv::new();
    indexed(&env);
    let folder = env.path("tiny-bert");
    std::fs::create_dir_all(&folder).unwrap();
    alfred_mem::embed::bert::tiny::write_tiny_model(&folder);
    let dir = folder.to_str().unwrap();
    env.cmd(["model", "use", dir, "--name", "x"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("for endpoints"));
    let v = env.json(["model", "use", dir], 0);
    assert_eq!(v["dimension"], 8);
    assert!(
        v["model"].as_str().unwrap().starts_with("bert:tiny-bert:"),
        "{v}"
    );
    assert_eq!(env.json(["embed"], 0)["chunks"], 4);
    let hits = env.json(["search", "--no-log", "--semantic", "budget plan"], 0);
    assert!(!hits.as_array().unwrap().is_empty());
    // Other weights in the same folder are another model: refused, not mixed.
    std::fs::write(
        folder.join("config.json"),
        std::fs::read_to_string(folder.join("config.json"))
            .unwrap()
            .replace("1e-12", "1e-6"),
    )
    .unwrap();
    env.cmd(["search", "--no-log", "--semantic", "plan"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("changed since `model use`"));
    // Without --semantic the search goes on with the words, and says why.
    let out = env
        .cmd(["search", "--no-log", "--json", "plan"])
        .assert()
        .success();
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(
        stderr.contains("warning: semantic recall is unavailable"),
        "{stderr}"
    );
    let hits: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert!(hits[0]["text"].as_str().unwrap().contains("plan"));
}
