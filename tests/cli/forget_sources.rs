//! `forget --source TYPE:ID [--purge]` (issue 22 item 2): a whole e-mail,
//! receipt or conversation leaves search, stays in the history, and with
//! `--purge` leaves no trace of its text in the database file.

use serde_json::{Value, json};

use crate::util::{TestEnv, mbox_message, sample};

fn index_two_mails(env: &TestEnv) {
    let mbox = [
        mbox_message(
            "regret@x",
            "Tue, 24 Feb 2026 09:00:00 +0000",
            "Wombatfiesta invitation",
            "Come to the wombatfiesta on Friday; bring the secret quokkamango recipe.",
        ),
        mbox_message(
            "keep@x",
            "Wed, 25 Feb 2026 09:00:00 +0000",
            "Wombat news",
            "The wombat sanctuary opens on Monday.",
        ),
    ]
    .concat();
    let path = env.write("mail.mbox", mbox);
    env.cmd(["index-mbox"]).arg(path).assert().success();
}

fn source_ids(hits: &Value) -> Vec<String> {
    hits.as_array()
        .unwrap()
        .iter()
        .map(|h| h["source_id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_forgotten_email_leaves_search_but_not_history_and_stays_forgotten() {
    let env = TestEnv::new();
    index_two_mails(&env);
    // Forgotten a day after it was indexed, so that the day between shows it.
    let out: Value = serde_json::from_slice(
        &env.cmd(["forget", "--source", "email:regret@x", "--json"])
            .env("ALFRED_MEM_NOW", "2026-12-04T12:00:00Z")
            .assert()
            .success()
            .get_output()
            .stdout,
    )
    .unwrap();
    assert_eq!(
        out,
        json!([{"source_type": "email", "source_id": "regret@x", "chunks": 1, "purged": false}])
    );
    let hits = env.json(["search", "wombat", "--no-log"], 0);
    assert_eq!(source_ids(&hits), ["keep@x"]);
    // History is kept: memory as it stood before still has it.
    let then = env.json(
        [
            "search",
            "wombatfiesta",
            "--as-of",
            "2026-12-03",
            "--no-log",
        ],
        0,
    );
    assert_eq!(source_ids(&then), ["regret@x"]);

    // Indexing the same mailbox again does not bring it back.
    env.cmd(["index-mbox"])
        .arg(env.path("mail.mbox"))
        .assert()
        .success();
    assert_eq!(
        source_ids(&env.json(["search", "wombat", "--no-log"], 0)),
        ["keep@x"]
    );

    env.cmd(["forget", "--source", "email:regret@x"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("already forgotten"));
    env.cmd(["forget", "--source", "email:nobody@x"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("no email \"nobody@x\" in memory"));
    env.cmd(["forget", "--source", "mail:regret@x"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("--source: unknown source type"));
}

#[test]
fn receipts_and_conversations_are_forgotten_by_their_ids() {
    let env = TestEnv::new();
    env.cmd(["index-receipts"])
        .arg(sample("receipts.json"))
        .assert()
        .success();
    env.cmd(["index-conversations"])
        .arg(sample("conversations.jsonl"))
        .assert()
        .success();
    let before = env.count("SELECT count(*) FROM memory_chunks WHERE superseded_at IS NULL");
    env.cmd([
        "forget",
        "--source",
        "receipt:tnb-2025-11",
        "--source",
        "conversation:conv-orion-go-no-go",
    ])
    .assert()
    .success()
    .stdout(predicates::str::contains(
        "forgot receipt tnb-2025-11: 1 chunk out of search",
    ));
    let gone = env.count(
        "SELECT count(*) FROM memory_chunks WHERE superseded_at IS NOT NULL
         AND source_id IN ('tnb-2025-11', 'conv-orion-go-no-go')",
    );
    assert!(gone >= 2, "{gone}");
    assert_eq!(
        env.count("SELECT count(*) FROM memory_chunks WHERE superseded_at IS NULL"),
        before - gone
    );
    // All or nothing: one unknown source, and nothing changes.
    env.cmd([
        "forget",
        "--source",
        "receipt:tnb-2026-01",
        "--source",
        "receipt:nope",
    ])
    .assert()
    .code(2);
    assert_eq!(
        env.count("SELECT count(*) FROM memory_chunks WHERE source_id = 'tnb-2026-01' AND superseded_at IS NULL"),
        1
    );
}

#[test]
fn a_purged_email_leaves_no_trace_of_its_text_in_the_database_file() {
    let env = TestEnv::new();
    index_two_mails(&env);
    env.json(["search", "quokkamango"], 0);
    let _reader = rusqlite::Connection::open(env.db()).unwrap();
    env.cmd(["forget", "--purge", "--source", "email:regret@x"])
        .assert()
        .success()
        .stdout("purged email regret@x: 1 chunk out of search, text erased\n");
    for suffix in ["", "-wal"] {
        let mut path = env.db().to_path_buf().into_os_string();
        path.push(suffix);
        let bytes = std::fs::read(&path).unwrap_or_default();
        for needle in ["quokkamango", "Wombatfiesta", "wombatfiesta"] {
            assert!(
                !bytes.windows(needle.len()).any(|w| w == needle.as_bytes()),
                "{needle:?} is still in memory.db{suffix}"
            );
        }
    }
    let hits = env.json(["search", "wombat", "--no-log"], 0);
    assert_eq!(source_ids(&hits), ["keep@x"]);
    // Purging what is already forgotten is allowed: that is how a person
    // erases something an agent forgot for them.
    let out = env.json(["forget", "--purge", "--source", "email:regret@x"], 0);
    assert_eq!(out[0]["chunks"], 0);
}

#[test]
fn a_purged_live_conversation_loses_its_messages_too() {
    let env = TestEnv::new();
    env.cmd(["index-conversations", "--append", "chat-1"])
        .write_stdin("{\"role\": \"user\", \"content\": \"the quokkamango code is 4471\"}\n")
        .assert()
        .success();
    env.cmd(["forget", "--purge", "--source", "conversation:chat-1"])
        .assert()
        .success();
    assert_eq!(env.count("SELECT count(*) FROM conversation_messages"), 0);
    let bytes = std::fs::read(env.db()).unwrap();
    assert!(!bytes.windows(11).any(|w| w == b"quokkamango"));
    // And an agent cannot write into it again under the same id.
    env.cmd(["index-conversations", "--append", "chat-1"])
        .write_stdin("{\"role\": \"user\", \"content\": \"hello\"}\n")
        .assert()
        .code(2)
        .stderr(predicates::str::contains("was forgotten"));
}
