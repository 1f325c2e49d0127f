//! `to:` end to end: who an e-mail was to is searched as `from:` searches
//! who sent it, and mail indexed before recipients were kept is said to be
//! out of its reach, not silently missed.

use serde_json::Value;

use crate::syntax::{found, index_messages};
use crate::util::TestEnv;

/// (message id, from, to, subject, body) -> an mbox file, indexed; no `To`
/// header where `to` is empty.
fn indexed(env: &TestEnv, messages: &[(&str, &str, &str, &str, &str)]) {
    let messages: Vec<(String, &str)> = messages
        .iter()
        .map(|(id, from, to, subject, body)| {
            let to = if to.is_empty() {
                String::new()
            } else {
                format!("To: {to}\n")
            };
            let headers = format!("Message-ID: <{id}>\nFrom: {from}\n{to}Subject: {subject}\n");
            (headers, *body)
        })
        .collect();
    index_messages(env, &messages);
}

const ALICE: &str = "Alice Smith <alice@acme.com>";
const BOB: &str = "Bob Lee <bob@x.org>";

fn mail(env: &TestEnv) {
    indexed(
        env,
        &[
            ("to-alice@x", BOB, ALICE, "Budget", "The budget for March."),
            (
                "from-alice@x",
                ALICE,
                BOB,
                "Budget reply",
                "Budget looks fine.",
            ),
            (
                "to-both@x",
                "Carol <carol@y.net>",
                "Alice Smith <alice@acme.com>, Bob Lee <bob@x.org>",
                "Party",
                "Party on Friday.",
            ),
            ("no-to@x", BOB, "", "Notes", "Budget notes to self."),
        ],
    );
}

#[test]
fn to_finds_mail_addressed_to_someone_not_mail_from_them() {
    let env = TestEnv::new();
    mail(&env);
    assert_eq!(found(&env, &["to:alice"]), ["to-alice@x", "to-both@x"]);
    assert_eq!(found(&env, &["from:alice"]), ["from-alice@x"]);
    // By address, by full name, by domain; in any case.
    assert_eq!(
        found(&env, &["to:alice@acme.com"]),
        ["to-alice@x", "to-both@x"]
    );
    assert_eq!(
        found(&env, &["to:\"Alice Smith\""]),
        ["to-alice@x", "to-both@x"]
    );
    assert_eq!(found(&env, &["to:ACME.com"]), ["to-alice@x", "to-both@x"]);
    assert_eq!(found(&env, &["to:ali*"]), ["to-alice@x", "to-both@x"]);
    // With words: mail to Alice, the one that says budget first (the word is
    // optional beside a field, as with from:).
    let with_word = found(&env, &["to:alice budget"]);
    assert!(
        with_word.contains(&"to-alice@x".to_string()),
        "{with_word:?}"
    );
    assert!(
        with_word.iter().all(|id| id.starts_with("to-")),
        "{with_word:?}"
    );
    assert_eq!(found(&env, &["to:alice AND budget"]), ["to-alice@x"]);
    // Excluded: budget mail not to Alice.
    assert_eq!(
        found(&env, &["budget -to:alice"]),
        ["from-alice@x", "no-to@x"]
    );
    assert_eq!(
        found(&env, &["budget NOT to:bob"]),
        ["no-to@x", "to-alice@x"]
    );
    assert_eq!(found(&env, &["to:alice OR from:alice"]).len(), 3);
    assert_eq!(found(&env, &["to:nobody"]), Vec::<String>::new());
}

#[test]
fn explain_reads_to_as_the_recipients_and_counts_mail_without_them() {
    let env = TestEnv::new();
    mail(&env);
    let out = env
        .cmd(["search", "--no-log", "--explain", "to:alice budget"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("query: to:\"alice\""), "{text}");
    assert!(text.contains("{recipients} : \"alice\""), "{text}");
    assert!(!text.contains("not indexed"), "{text}");
    // The message with no To header is the one `to:` cannot find.
    assert!(
        text.contains("note: to: cannot find 1 e-mail with no recipients stored"),
        "{text}"
    );
    let out = env
        .cmd(["search", "--no-log", "--explain", "from:alice"])
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&out.stdout).contains("to: cannot find"));
}

/// Mail indexed before recipients were kept has none: `to:` misses it and
/// says so, and indexing the same mailbox again does not fill them (the
/// mail is unchanged, so it is not read again); a fresh database does.
#[test]
fn mail_indexed_before_recipients_were_kept_is_named_not_found() {
    let env = TestEnv::new();
    mail(&env);
    env.sqlite()
        .execute_batch(
            "UPDATE memory_chunk_rows SET recipients = NULL;
             INSERT INTO memory_fts (memory_fts) VALUES ('rebuild');",
        )
        .unwrap();
    assert_eq!(found(&env, &["to:alice"]), Vec::<String>::new());
    let out = env
        .cmd(["search", "--no-log", "--explain", "to:alice"])
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("to: cannot find 4 e-mails"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    env.cmd(["index-mbox"])
        .arg(env.path("m.mbox"))
        .assert()
        .success();
    assert_eq!(found(&env, &["to:alice"]), Vec::<String>::new());
    let fresh = env.path("fresh.db");
    env.cmd(["index-mbox"])
        .arg("--db")
        .arg(&fresh)
        .arg(env.path("m.mbox"))
        .assert()
        .success();
    let out = env
        .cmd(["search", "--no-log", "--json", "to:alice"])
        .arg("--db")
        .arg(&fresh)
        .output()
        .unwrap();
    let hits: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(hits.as_array().unwrap().len(), 2);
}

/// Forgetting a message with `--purge` erases its recipients with its text.
#[test]
fn a_purged_message_loses_its_recipients() {
    let env = TestEnv::new();
    mail(&env);
    env.cmd(["forget", "--purge", "--source", "email:to-alice@x"])
        .assert()
        .success();
    assert_eq!(found(&env, &["to:alice"]), ["to-both@x"]);
    assert_eq!(
        env.count("SELECT count(*) FROM memory_chunks WHERE source_id = 'to-alice@x' AND recipients IS NOT NULL"),
        0
    );
    assert_eq!(env.fts_hits("{recipients} : \"alice\""), 1);
}
