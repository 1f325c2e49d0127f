//! `search` end to end: the forgetting curve, time windows, MMR, the recall
//! log, and hostile queries, over small mailboxes written by the tests.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

const NOW: &str = "2026-03-01T12:00:00Z";

struct Env {
    _dir: tempfile::TempDir,
    db: PathBuf,
    root: PathBuf,
}

impl Env {
    fn new() -> Env {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        Env {
            db: root.join("memory.db"),
            root,
            _dir: dir,
        }
    }

    fn cmd(&self) -> Command {
        let mut c = Command::cargo_bin("alfred-mem").unwrap();
        c.arg("--db").arg(&self.db).env("ALFRED_MEM_NOW", NOW);
        c.env_remove("ALFRED_MEM_HALF_LIFE");
        c
    }

    fn mbox(&self, name: &str, messages: &[(&str, &str, &str, &str)]) -> PathBuf {
        let path = self.root.join(name);
        std::fs::write(&path, mbox(messages)).unwrap();
        path
    }

    fn index(&self, path: &Path) {
        self.cmd().arg("index-mbox").arg(path).assert().success();
    }

    fn search_json(&self, args: &[&str]) -> Vec<Value> {
        let out = self
            .cmd()
            .arg("search")
            .args(args)
            .arg("--json")
            .output()
            .unwrap();
        assert!(
            out.status.code() == Some(0) || out.status.code() == Some(1),
            "search failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice::<Value>(&out.stdout)
            .unwrap()
            .as_array()
            .unwrap()
            .clone()
    }

    fn recall_rows(&self) -> i64 {
        let conn = rusqlite::Connection::open(&self.db).unwrap();
        conn.query_row("SELECT count(*) FROM recall_events", [], |r| r.get(0))
            .unwrap()
    }
}

/// (message id, RFC 2822 date, subject, body) -> an mboxrd file.
fn mbox(messages: &[(&str, &str, &str, &str)]) -> String {
    let mut s = String::new();
    for (id, date, subject, body) in messages {
        s.push_str(&format!(
            "From sender@example.com {}\nMessage-ID: <{id}>\nDate: {date}\nFrom: Sender <sender@example.com>\nSubject: {subject}\n\n{body}\n\n",
            crate::util::envelope_time(date)
        ));
    }
    s
}

fn ids(hits: &[Value]) -> Vec<String> {
    hits.iter()
        .map(|h| h["source_id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn an_equally_relevant_email_from_60_days_ago_scores_a_quarter() {
    let env = Env::new();
    let body = "The zebrafish aquarium needs a new filter before the weekend.";
    let f = env.mbox(
        "m.mbox",
        &[
            (
                "today@x",
                "Sun, 1 Mar 2026 12:00:00 +0000",
                "Aquarium",
                body,
            ),
            ("old@x", "Fri, 1 Jan 2026 12:00:00 +0000", "Aquarium", body),
        ],
    );
    env.index(&f);
    let hits = env.search_json(&["zebrafish", "filter", "--no-log"]);
    assert_eq!(ids(&hits), ["today@x", "old@x"]);
    let (today, old) = (
        hits[0]["score"].as_f64().unwrap(),
        hits[1]["score"].as_f64().unwrap(),
    );
    assert!(
        (old / today - 0.25).abs() < 0.01,
        "today {today}, 60 days ago {old}"
    );
}

#[test]
fn half_life_zero_turns_decay_off() {
    let env = Env::new();
    let body = "The zebrafish aquarium needs a new filter before the weekend.";
    let f = env.mbox(
        "m.mbox",
        &[("old@x", "Fri, 1 Jan 2026 12:00:00 +0000", "Aquarium", body)],
    );
    env.index(&f);
    let hits = env.search_json(&["zebrafish", "--no-log", "--half-life", "0"]);
    assert_eq!(hits[0]["score"].as_f64().unwrap(), 1.0);
}

#[test]
fn a_january_window_returns_only_january_items_and_facts() {
    let env = Env::new();
    let f = env.mbox(
        "m.mbox",
        &[
            (
                "dec@x",
                "Wed, 31 Dec 2025 23:30:00 +0000",
                "Acme in December",
                "Acme sent the December draft of the contract renewal.",
            ),
            (
                "jan1@x",
                "Thu, 1 Jan 2026 00:00:00 +0000",
                "Acme in January",
                "Acme opened the contract renewal on new year's day.",
            ),
            (
                "jan31@x",
                "Sat, 31 Jan 2026 23:59:59 +0000",
                "Acme signed",
                "Acme signed the contract renewal at the last minute.",
            ),
            (
                "feb@x",
                "Sun, 1 Feb 2026 00:00:00 +0000",
                "Acme in February",
                "Acme invoiced the contract renewal in February.",
            ),
        ],
    );
    env.index(&f);
    env.cmd()
        .args(["remember", "Jane", "Tan", "is", "my", "Acme", "contact"])
        .assert()
        .success();
    let hits = env.search_json(&[
        "acme",
        "--after",
        "2026-01-01T00:00:00Z",
        "--before",
        "2026-02-01T00:00:00Z",
        "--no-log",
    ]);
    let mut got = ids(&hits);
    got.sort();
    assert_eq!(got.len(), 3, "{got:?}");
    assert_eq!(&got[1..], ["jan1@x", "jan31@x"]);
    assert!(
        got[0].starts_with("fact"),
        "the fact passes the window: {got:?}"
    );
    assert!(hits.iter().any(|h| h["dated_at"].is_null()));
}

#[test]
fn three_near_duplicates_do_not_fill_the_top_three() {
    let env = Env::new();
    let f = env.mbox(
        "m.mbox",
        &[
            (
                "a@x",
                "Mon, 23 Feb 2026 09:00:00 +0000",
                "Please approve the Q3 marketing budget",
                "Please approve the Q3 marketing budget of RM 86,000 in the finance portal today.",
            ),
            (
                "b@x",
                "Tue, 24 Feb 2026 09:00:00 +0000",
                "Reminder: Please approve the Q3 marketing budget",
                "Please approve the Q3 marketing budget of RM 86,000 in the finance portal today.",
            ),
            (
                "c@x",
                "Wed, 25 Feb 2026 09:00:00 +0000",
                "Please approve the Q3 marketing budget (final reminder)",
                "Please approve the Q3 marketing budget of RM 86,000 in the finance portal today.",
            ),
            (
                "d@x",
                "Mon, 23 Feb 2026 10:00:00 +0000",
                "Marketing budget alert",
                "Marketing budget alert: Q3 dining spend is over the limit for the team.",
            ),
            (
                "e@x",
                "Mon, 23 Feb 2026 11:00:00 +0000",
                "Budget meeting notes",
                "Budget meeting notes: marketing, engineering and operations for Q3 planning.",
            ),
        ],
    );
    env.index(&f);
    let hits = env.search_json(&[
        "approve",
        "Q3",
        "marketing",
        "budget",
        "--limit",
        "3",
        "--no-log",
    ]);
    let got = ids(&hits);
    let copies = got
        .iter()
        .filter(|id| ["a@x", "b@x", "c@x"].contains(&id.as_str()))
        .count();
    assert_eq!(
        copies, 1,
        "one copy of the reminder, then other news: {got:?}"
    );
}

#[test]
fn the_recall_log_gains_one_row_per_hit_and_none_with_no_log() {
    let env = Env::new();
    let f = env.mbox(
        "m.mbox",
        &[
            (
                "a@x",
                "Mon, 23 Feb 2026 09:00:00 +0000",
                "Dentist",
                "The dentist moved the appointment to Thursday afternoon at three.",
            ),
            (
                "b@x",
                "Tue, 24 Feb 2026 09:00:00 +0000",
                "Dentist bill",
                "The dentist bill for the filling is RM 250, payable at the counter.",
            ),
            (
                "c@x",
                "Tue, 24 Feb 2026 10:00:00 +0000",
                "Unrelated",
                "Nothing about teeth here at all, only gardening and tomatoes.",
            ),
        ],
    );
    env.index(&f);
    assert_eq!(env.search_json(&["dentist", "--no-log"]).len(), 2);
    assert_eq!(env.recall_rows(), 0);
    let hits = env.search_json(&["dentist"]);
    assert_eq!(hits.len(), 2);
    assert_eq!(env.recall_rows(), 2);
    env.search_json(&["dentist", "--limit", "1"]);
    assert_eq!(env.recall_rows(), 3);
    env.search_json(&["xylophone"]);
    assert_eq!(env.recall_rows(), 3);
}

#[test]
fn search_exit_status_follows_grep() {
    let env = Env::new();
    let f = env.mbox(
        "m.mbox",
        &[(
            "a@x",
            "Mon, 23 Feb 2026 09:00:00 +0000",
            "Dentist",
            "The dentist moved the appointment to Thursday.",
        )],
    );
    env.index(&f);
    env.cmd().args(["search", "dentist"]).assert().code(0);
    env.cmd().args(["search", "xylophone"]).assert().code(1);
    env.cmd().args(["search", "  "]).assert().code(2);
    env.cmd()
        .args(["search", "x", "--after", "the day after never"])
        .assert()
        .code(2);
    env.cmd()
        .args(["search", "x", "--source", "sms"])
        .assert()
        .code(2);
}

#[test]
fn hostile_queries_never_fail() {
    let env = Env::new();
    let f = env.mbox(
        "m.mbox",
        &[(
            "a@x",
            "Mon, 23 Feb 2026 09:00:00 +0000",
            "Acme contract",
            "The Acme contract renewal is due NOT later than Friday (AND maybe sooner).",
        )],
    );
    env.index(&f);
    let long = "acme ".repeat(1000);
    let queries: Vec<&str> = vec![
        "\"",
        "\"\"",
        "'",
        "foo AND",
        "AND",
        "OR",
        "NOT",
        "NOT acme",
        "acme NOT",
        "a OR OR b",
        "-acme",
        "--",
        "*",
        "acme*",
        "*acme",
        ":",
        "text:acme",
        "subject:",
        "acme:contract",
        "(",
        ")",
        "((acme)",
        "NEAR(acme contract)",
        "NEAR/3",
        "^acme",
        "acme^",
        "{acme}",
        "[acme]",
        "acme + contract",
        "'; DROP TABLE memory_chunks; --",
        "\" OR 1=1 --",
        "Robert'); DROP TABLE students;--",
        "acme\u{7f}contract",
        "acme\n\tcontract\r",
        "😀",
        "🏳️‍🌈 acme",
        "契約",
        "عقد acme",
        "\u{202E}acme",
        "Ünïcödé çontract",
        "%",
        "_",
        "\\",
        "acme\\",
        "$(rm -rf /)",
        "`id`",
        long.as_str(),
        "a",
        "I",
    ];
    assert!(queries.len() >= 30);
    for q in queries {
        let code = env
            .cmd()
            .args(["search", "--no-log", "--"])
            .arg(q)
            .output()
            .unwrap()
            .status
            .code();
        assert!(
            matches!(code, Some(0) | Some(1)),
            "query {q:?} exited {code:?}"
        );
    }
}

#[test]
fn human_output_strips_terminal_escapes_and_json_keeps_text() {
    let env = Env::new();
    let f = env.mbox(
        "m.mbox",
        &[(
            "evil@x",
            "Mon, 23 Feb 2026 09:00:00 +0000",
            "Invoice \u{1b}[2J\u{1b}]0;pwned\u{7}",
            "Invoice attached \u{1b}]52;c;SGVsbG8=\u{7} please pay \u{202E}today\u{1b}[31m now.",
        )],
    );
    env.index(&f);
    let out = env
        .cmd()
        .args(["search", "invoice", "--no-log"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("Invoice"));
    for bad in ['\u{1b}', '\u{7}', '\u{202E}', '\u{9b}'] {
        assert!(!text.contains(bad), "{bad:?} reached the output: {text:?}");
    }
    let hits = env.search_json(&["invoice", "--no-log"]);
    assert!(
        hits[0]["text"]
            .as_str()
            .unwrap()
            .contains("\u{1b}]52;c;SGVsbG8=\u{7}")
    );
}

#[test]
fn as_of_answers_from_memory_as_it_stood_then() {
    let env = Env::new();
    let at = |now: &str, args: &[&str]| {
        let mut c = env.cmd();
        c.env("ALFRED_MEM_NOW", now).args(args);
        c
    };
    // 1 Feb: learn a fact and index a mail. 1 Mar: forget the fact, learn another.
    let f = env.mbox(
        "m.mbox",
        &[(
            "pump@x",
            "Sat, 31 Jan 2026 12:00:00 +0000",
            "Heat pump",
            "The heat pump service is booked for the second week of February.",
        )],
    );
    at("2026-02-01T00:00:00Z", &["index-mbox", f.to_str().unwrap()])
        .assert()
        .success();
    let out = at(
        "2026-02-01T00:00:00Z",
        &["remember", "--json", "The heat pump brand is Daikin"],
    )
    .output()
    .unwrap();
    let old_fact: Value = serde_json::from_slice(&out.stdout).unwrap();
    let old_id = old_fact["id"].as_i64().unwrap().to_string();
    at("2026-03-01T00:00:00Z", &["forget", &old_id])
        .assert()
        .success();
    at(
        "2026-03-01T00:00:00Z",
        &["remember", "The heat pump brand is Mitsubishi"],
    )
    .assert()
    .success();

    let texts = |args: &[&str]| -> Vec<String> {
        let out = at("2026-03-02T00:00:00Z", args).output().unwrap();
        crate::util::hit_texts(&out.stdout)
    };
    let now = texts(&[
        "search", "heat", "pump", "brand", "--source", "fact", "--json", "--no-log",
    ]);
    assert_eq!(now, ["The heat pump brand is Mitsubishi"]);
    let then = texts(&[
        "search",
        "heat",
        "pump",
        "brand",
        "--source",
        "fact",
        "--json",
        "--as-of",
        "2026-02-15T00:00:00Z",
    ]);
    assert_eq!(
        then,
        ["The heat pump brand is Daikin"],
        "the retracted fact is visible again, the later one is not"
    );

    // Ages are measured in memory as it stood then: the mail was the newest
    // thing it held, so it had not decayed (ages run from the newest event,
    // not the clock: issue 15, section 5).
    let out = at(
        "2026-03-02T00:00:00Z",
        &[
            "search",
            "heat",
            "pump",
            "service",
            "--source",
            "email",
            "--json",
            "--explain",
            "--as-of",
            "2026-02-01T12:00:00Z",
        ],
    )
    .output()
    .unwrap();
    let hits: Value = serde_json::from_slice(&out.stdout).unwrap();
    let decay = hits[0]["explain"]["decay"].as_f64().unwrap();
    assert!((decay - 1.0).abs() < 1e-9, "decay {decay}");
    assert_eq!(env.recall_rows(), 0, "as-of searches are never logged");
}

/// A database from before the packed row blocks (schema version 3) is
/// upgraded on first use, and searches it exactly as a new one: same hits,
/// same scores, with and without a window.
#[test]
fn a_version_3_database_is_upgraded_and_ranks_the_same() {
    let env = Env::new();
    // A version-3 database has no recipients (kept since 0008, indexed since
    // 0009), and `undo_since_0008` below takes their column out: compare with the
    // same mail without them.
    let mail = std::fs::read(crate::util::sample("mail.mbox")).unwrap();
    let unaddressed: Vec<u8> = mail
        .split_inclusive(|&b| b == b'\n')
        .filter(|l| !l.starts_with(b"To:"))
        .flatten()
        .copied()
        .collect();
    let path = env.root.join("unaddressed.mbox");
    std::fs::write(&path, unaddressed).unwrap();
    env.index(&path);
    env.cmd()
        .args(["remember", "Acme", "renewal", "owner", "is", "Jane"])
        .assert()
        .success();
    let queries: [&[&str]; 3] = [
        &["acme", "renewal", "--no-log"],
        &["invoice", "--no-log"],
        &[
            "acme",
            "--after",
            "2026-01-01",
            "--before",
            "2026-02-01",
            "--no-log",
        ],
    ];
    let before: Vec<Vec<Value>> = queries.iter().map(|q| env.search_json(q)).collect();
    {
        let conn = rusqlite::Connection::open(&env.db).unwrap();
        // Versions 5, 7 and 8 go too, so that 0004 to 0008 all run again.
        crate::util::undo_since_0008(&conn);
        conn.execute_batch(
            "DROP TABLE memory_fts_lengths; DROP TABLE memory_chunk_dates;
             DROP INDEX memory_sources_dated_by;
             ALTER TABLE memory_sources DROP COLUMN fingerprint;
             ALTER TABLE memory_sources DROP COLUMN dated_by;
             DROP TABLE ingest_files; DROP TABLE maildir_folders; DROP TABLE maildir_messages;
             DROP TABLE conversation_messages; PRAGMA user_version = 3;",
        )
        .unwrap();
    }
    let after: Vec<Vec<Value>> = queries.iter().map(|q| env.search_json(q)).collect();
    assert!(before.iter().all(|hits| !hits.is_empty()));
    assert_eq!(before, after);
    let conn = rusqlite::Connection::open(&env.db).unwrap();
    let (version, blocks): (i64, i64) = conn
        .query_row(
            "SELECT (SELECT user_version FROM pragma_user_version),
                    (SELECT count(*) FROM memory_chunk_dates)
                    + (SELECT count(*) FROM memory_chunk_narrow_sources)",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    // Upgraded to the latest version (0006 re-indexes the words too, 0007 adds the archive
    // tables, 0008 living memory's, 0009 indexes the recipients, 0010 the links, 0011 the
    // night shift's, 0012 the creation index, 0013 the vector index, 0014 the packed
    // sources, 0015 the labels once per version, 0016 the leaner indexes, 0017 lengths and
    // sources a byte a row), with a block of dates and one of sources.
    assert_eq!((version, blocks), (17, 2));
}

/// A spam of eight paragraphs all about the offer, and one real letter.
fn spam_and_letter(env: &Env) {
    let para = |i: usize| {
        format!("Paragraph {i}: the lottery offer is waiting, claim the lottery prize money now.")
    };
    let spam: Vec<String> = (0..8).map(para).collect();
    let f = env.mbox(
        "m.mbox",
        &[
            (
                "spam@x",
                "Sun, 1 Mar 2026 10:00:00 +0000",
                "Lottery",
                &spam.join("\n\n"),
            ),
            (
                "letter@x",
                "Sun, 1 Mar 2026 09:00:00 +0000",
                "Question",
                "Did you ever win the lottery? Asking for my aunt, who plays every week.",
            ),
        ],
    );
    env.index(&f);
}

#[test]
fn one_long_email_no_longer_fills_the_list() {
    let env = Env::new();
    spam_and_letter(&env);
    let hits = env.search_json(&["lottery", "prize", "--no-log"]);
    assert_eq!(ids(&hits), ["spam@x", "letter@x"]);
    assert_eq!(hits[0]["more_chunks"], 7);
    assert_eq!(hits[1]["more_chunks"], 0);

    let all = env.search_json(&["lottery", "prize", "--no-log", "--all-chunks"]);
    assert_eq!(all.len(), 9);
    assert!(all.iter().all(|h| h.get("more_chunks").is_none()));
    assert_eq!(all.iter().filter(|h| h["source_id"] == "spam@x").count(), 8);
}

#[test]
fn a_pipe_is_told_how_many_more_chunks_of_a_message_matched() {
    let env = Env::new();
    spam_and_letter(&env);
    let out = env
        .cmd()
        .args(["search", "--no-log", "lottery", "prize"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(lines[0].ends_with(" (+7 more matching chunks)"), "{text}");
    assert!(!lines[1].contains("more matching"), "{text}");
}

#[test]
fn collapsing_long_messages_still_fills_the_limit() {
    // Twenty messages of six matching paragraphs: 120 chunks, and the 50
    // candidates a limit of 12 fetches make only 8 or 9 messages.
    let env = Env::new();
    let bodies: Vec<String> = (0..20)
        .map(|m| {
            (0..6)
                .map(|p| {
                    format!("Report {m} part {p}: the quarterly figures for the harbour project.")
                })
                .collect::<Vec<_>>()
                .join("\n\n")
        })
        .collect();
    let ids: Vec<String> = (0..20).map(|m| format!("r{m}@x")).collect();
    let messages: Vec<(&str, &str, &str, &str)> = (0..20)
        .map(|m| {
            (
                ids[m].as_str(),
                "Sun, 1 Mar 2026 10:00:00 +0000",
                "Report",
                bodies[m].as_str(),
            )
        })
        .collect();
    let f = env.mbox("m.mbox", &messages);
    env.index(&f);
    let hits = env.search_json(&["harbour", "--no-log", "-n", "12"]);
    assert_eq!(hits.len(), 12);
    let distinct: std::collections::HashSet<&str> = hits
        .iter()
        .map(|h| h["source_id"].as_str().unwrap())
        .collect();
    assert_eq!(distinct.len(), 12);
}
