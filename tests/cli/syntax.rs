//! The query syntax and CJK words, end to end: what a user of notmuch, mu
//! or Gmail types finds what they mean, and a Japanese or Chinese word is
//! found inside longer text.

use serde_json::Value;

use crate::util::{TestEnv, shared_data};

/// (message id, sender, subject, body) -> an mbox file, indexed.
fn indexed(env: &TestEnv, messages: &[(&str, &str, &str, &str)]) {
    let messages: Vec<(String, &str)> = messages
        .iter()
        .map(|(id, from, subject, body)| {
            let headers = format!("Message-ID: <{id}>\nFrom: {from}\nSubject: {subject}\n");
            (headers, *body)
        })
        .collect();
    index_messages(env, &messages);
}

/// (headers, body) -> an mbox file of messages dated 2026-11-30, indexed.
pub fn index_messages(env: &TestEnv, messages: &[(String, &str)]) {
    let mut s = String::new();
    for (headers, body) in messages {
        s.push_str(&format!(
            "From x@example.com Thu Jan  1 00:00:00 2026\n\
             Date: Mon, 30 Nov 2026 12:00:00 +0000\n{headers}\n{body}\n\n"
        ));
    }
    let path = env.write("m.mbox", s);
    env.cmd(["index-mbox"]).arg(path).assert().success();
}

/// The message ids `search ARGS --json` returns, sorted.
pub fn found(env: &TestEnv, args: &[&str]) -> Vec<String> {
    let out = env
        .cmd(["search", "--no-log", "--json"])
        .args(args)
        .output()
        .unwrap();
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let hits: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut ids: Vec<String> = hits
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["source_id"].as_str().unwrap().to_string())
        .collect();
    ids.sort();
    ids
}

fn mail(env: &TestEnv) {
    indexed(
        env,
        &[
            (
                "java@x",
                "Alice <alice@acme.com>",
                "Languages",
                "Java is for kiddies, he said.",
            ),
            (
                "kids@x",
                "Bob <bob@x.org>",
                "Kiddies",
                "The kiddies think java is great.",
            ),
            (
                "rock@x",
                "Bob <bob@x.org>",
                "Space",
                "The asteroids passed by the moon.",
            ),
            (
                "spam@x",
                "Spammer <win@spam.biz>",
                "Invoice",
                "Your invoice: win money now, spam.",
            ),
            (
                "bill@x",
                "Alice <alice@acme.com>",
                "Invoice",
                "The invoice for March is attached.",
            ),
        ],
    );
}

#[test]
fn the_issue_s_query_finds_the_phrase_and_the_prefix() {
    let env = TestEnv::new();
    mail(&env);
    // It ran as `java OR kiddies OR asteroid`: "kids@x" matched too.
    assert_eq!(
        found(&env, &[r#""java is for kiddies" OR asteroid*"#]),
        ["java@x", "rock@x"]
    );
    assert_eq!(found(&env, &["java", "is", "for", "kiddies"]).len(), 2);
}

#[test]
fn fields_and_exclusions_narrow_the_search() {
    let env = TestEnv::new();
    mail(&env);
    assert_eq!(found(&env, &["from:alice"]), ["bill@x", "java@x"]);
    assert_eq!(found(&env, &["from:alice", "invoice"]), ["bill@x"]);
    assert_eq!(found(&env, &["subject:invoice"]), ["bill@x", "spam@x"]);
    // OR binds loosest, as in notmuch and mu (Gmail differs): group it.
    assert_eq!(
        found(&env, &["from:acme.com OR from:x.org", "java"]),
        ["bill@x", "java@x", "kids@x"]
    );
    assert_eq!(
        found(&env, &["(from:acme.com OR from:x.org)", "java"]),
        ["java@x", "kids@x"]
    );
    // `-word` inside one quoted argument, and after `--`.
    assert_eq!(found(&env, &["invoice -spam"]), ["bill@x"]);
    assert_eq!(found(&env, &["--", "-spam", "invoice"]), ["bill@x"]);
    assert_eq!(found(&env, &["invoice NOT from:spammer"]), ["bill@x"]);
    assert_eq!(
        found(&env, &["source:receipt invoice"]),
        Vec::<String>::new()
    );
}

#[test]
fn stray_syntax_is_searched_as_text() {
    let env = TestEnv::new();
    mail(&env);
    for q in [
        r#""asteroids"#,
        "(asteroids",
        "asteroids AND",
        "OR asteroids",
        "asteroids)",
    ] {
        assert_eq!(found(&env, &[q]), ["rock@x"], "{q}");
    }
}

#[test]
fn explain_prints_the_query_as_read() {
    let env = TestEnv::new();
    mail(&env);
    let out = env
        .cmd([
            "search",
            "--no-log",
            "--explain",
            "from:alice (invoice OR java*) -march",
            "to:bob",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        stdout.contains(
            r#"query: (from:"alice" AND ("invoice" OR "java"*) AND to:"bob") NOT "march""#
        ),
        "{stdout}"
    );
    // These messages have no To header: `to:` cannot find them, and says so.
    assert!(
        stdout.contains("note: to: cannot find 5 e-mails with no recipients stored"),
        "{stdout}"
    );
    assert!(
        stdout.contains(r#"fts5 query: ({sender} : "alice""#),
        "{stdout}"
    );
}

#[test]
fn a_japanese_word_inside_a_longer_subject_is_found() {
    let env = TestEnv::new();
    indexed(
        &env,
        &[
            (
                "ja@x",
                "Neko <neko@example.jp>",
                "Domino ディレクトリには見つかりません。",
                "本文",
            ),
            (
                "zh@x",
                "Li <li@example.cn>",
                "免費無限次任打中港長途電話",
                "正文",
            ),
            (
                "other@x",
                "Neko <neko@example.jp>",
                "ディスクの容量",
                "本文",
            ),
        ],
    );
    assert_eq!(found(&env, &["ディレクトリ"]), ["ja@x"]);
    assert_eq!(found(&env, &["見つかりません"]), ["ja@x"]);
    assert_eq!(found(&env, &["長途電話"]), ["zh@x"]);
    assert_eq!(found(&env, &["subject:ディス*"]), ["other@x"]);
    assert_eq!(found(&env, &["ディ"]), ["ja@x", "other@x"]);
    assert_eq!(found(&env, &["電話帳"]), Vec::<String>::new());
}

/// The issue's example, on the real ISO-2022-JP bounce in the shared data.
#[test]
#[cfg_attr(shared_data_absent, ignore = "../shared/data is absent")]
fn the_real_japanese_bounce_is_found_by_a_word_of_its_subject() {
    let data = shared_data();
    let env = TestEnv::new();
    let indexed = env
        .cmd(["index-mbox"])
        .arg(data.join("email/sisimai_bounces.mbox"))
        .output()
        .unwrap();
    assert!(matches!(indexed.status.code(), Some(0 | 3)), "{indexed:?}");
    let out = env
        .cmd(["search", "--no-log", "--json", "ディレクトリ"])
        .output()
        .unwrap();
    let hits: Value = serde_json::from_slice(&out.stdout).unwrap();
    let subjects: Vec<&str> = hits
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|h| h["subject"].as_str())
        .collect();
    assert!(
        subjects
            .iter()
            .any(|s| s.contains("Domino ディレクトリには見つかりません")),
        "{subjects:?}"
    );
}

/// A database indexed before CJK words were found is re-indexed once when
/// a new alfred-mem opens it, and then finds them.
#[test]
fn a_database_from_before_cjk_words_is_reindexed_on_open() {
    let env = TestEnv::new();
    indexed(
        &env,
        &[(
            "ja@x",
            "Neko <neko@example.jp>",
            "Domino ディレクトリには見つかりません。",
            "本文",
        )],
    );
    // The full-text index as version 5 made it: one token per CJK run.
    crate::util::undo_since_0008(&env.sqlite());
    env.sqlite()
        .execute_batch(
            "DROP TABLE memory_fts;
             CREATE VIRTUAL TABLE memory_fts USING fts5 (
                 text, subject, sender, vendor, title,
                 content = 'memory_chunks', content_rowid = 'id',
                 tokenize = 'porter unicode61 remove_diacritics 2');
             INSERT INTO memory_fts (memory_fts) VALUES ('rebuild');
             DELETE FROM memory_fts_lengths;
             DROP INDEX memory_sources_dated_by;
             ALTER TABLE memory_sources DROP COLUMN fingerprint;
             ALTER TABLE memory_sources DROP COLUMN dated_by;
             DROP TABLE ingest_files; DROP TABLE maildir_folders; DROP TABLE maildir_messages;
             PRAGMA user_version = 5;",
        )
        .unwrap();
    assert_eq!(env.fts_hits("\"ディレクトリ\""), 0);
    assert_eq!(found(&env, &["ディレクトリ"]), ["ja@x"]);
    assert_eq!(
        env.count("SELECT user_version FROM pragma_user_version"),
        17
    );
    assert_eq!(env.fts_hits("\"ディレクトリ\""), 1);
}
