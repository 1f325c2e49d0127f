//! `remember`, `forget` and `facts` end to end: teaching, deduplication,
//! retraction that keeps history, `--match`, and `--purge` leaving no trace
//! of the text in the database file or its write-ahead log.

use std::path::PathBuf;

use assert_cmd::Command;
use serde_json::Value;

pub const NOW: &str = "2026-03-01T12:00:00Z";

/// A temporary database and the binary pointed at it.
pub struct Env {
    _dir: tempfile::TempDir,
    pub db: PathBuf,
    pub root: PathBuf,
}

impl Env {
    pub fn new() -> Env {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        Env {
            db: root.join("memory.db"),
            root,
            _dir: dir,
        }
    }

    /// The binary at `now` (RFC 3339).
    pub fn at(&self, now: &str) -> Command {
        let mut c = Command::cargo_bin("alfred-mem").unwrap();
        c.arg("--db").arg(&self.db).env("ALFRED_MEM_NOW", now);
        c.env_remove("ALFRED_MEM_HALF_LIFE");
        c
    }

    pub fn cmd(&self) -> Command {
        self.at(NOW)
    }

    /// Runs the binary with `args` at `now`, expects exit 0 (or 1 for a
    /// search without hits) and parses stdout as JSON.
    pub fn json_at(&self, now: &str, args: &[&str]) -> Value {
        let out = self.at(now).args(args).output().unwrap();
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "{args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    }

    pub fn json(&self, args: &[&str]) -> Value {
        self.json_at(NOW, args)
    }

    pub fn count(&self, sql: &str) -> i64 {
        let conn = rusqlite::Connection::open(&self.db).unwrap();
        conn.query_row(sql, [], |r| r.get(0)).unwrap()
    }

    pub fn remember(&self, text: &str) -> i64 {
        self.json(&["remember", text, "--json"])["id"]
            .as_i64()
            .unwrap()
    }
}

fn texts(facts: &Value) -> Vec<&str> {
    facts
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["text"].as_str().unwrap())
        .collect()
}

#[test]
fn remember_joins_words_and_prints_the_id() {
    let env = Env::new();
    env.cmd()
        .args(["remember", "I", "am", "allergic", "to", "shellfish"])
        .assert()
        .success()
        .stdout("remembered fact 1\n");
    let f = env.json(&["remember", "--json", "Ama's birthday is on 14 March."]);
    assert_eq!(f["id"], 2);
    assert_eq!(f["text"], "Ama's birthday is on 14 March.");
    assert_eq!(f["method"], "user");
    assert_eq!(f["created_at"], NOW);
}

#[test]
fn remembering_the_same_text_again_returns_the_existing_id() {
    let env = Env::new();
    let id = env.remember("Jane Tan is my contact at Acme");
    let again = env.remember("  jane tan is my   contact at ACME ");
    assert_eq!(again, id);
    assert_eq!(env.count("SELECT count(*) FROM memory_facts"), 1);
}

#[test]
fn remember_reads_stdin_when_given_no_words() {
    let env = Env::new();
    env.cmd()
        .arg("remember")
        .write_stdin("My TNB electricity account number is 1234.\n")
        .assert()
        .success()
        .stdout("remembered fact 1\n");
    let facts = env.json(&["facts", "--json"]);
    assert_eq!(
        texts(&facts),
        ["My TNB electricity account number is 1234."]
    );
}

#[test]
fn empty_text_is_a_usage_error_that_stores_nothing() {
    let env = Env::new();
    for stdin in ["", "  \n\t\n"] {
        env.cmd()
            .arg("remember")
            .write_stdin(stdin)
            .assert()
            .code(2)
            .stderr(predicates::str::contains("nothing to remember"));
    }
    env.cmd().args(["remember", " "]).assert().code(2);
    assert!(
        !env.db.exists(),
        "a refused fact must not even create the database"
    );
}

#[test]
fn a_fact_is_evergreen_in_search() {
    let env = Env::new();
    let id = env.remember("Kofi Mensah leads the Orion project");
    let hits = env.json_at(
        "2030-01-01T00:00:00Z",
        &[
            "search",
            "who leads orion",
            "--json",
            "--explain",
            "--no-log",
        ],
    );
    assert_eq!(hits[0]["id"], id);
    assert_eq!(hits[0]["source_type"], "fact");
    assert_eq!(hits[0]["dated_at"], Value::Null);
    assert_eq!(hits[0]["explain"]["decay"], 1.0);
}

#[test]
fn forget_removes_a_fact_from_search_and_facts_but_all_keeps_it() {
    let env = Env::new();
    let keep = env.remember("Ama's birthday is on 14 March");
    let gone = env.remember("I am allergic to shellfish");
    env.cmd()
        .args(["forget", &gone.to_string()])
        .assert()
        .success()
        .stdout(format!("forgot fact {gone}: I am allergic to shellfish\n"));
    let hits = env.json(&["search", "shellfish allergy", "--json", "--no-log"]);
    assert_eq!(hits, Value::Array(vec![]));
    let active = env.json(&["facts", "--json"]);
    assert_eq!(active.as_array().unwrap().len(), 1);
    assert_eq!(active[0]["id"], keep);
    let all = env.json(&["facts", "--all", "--json"]);
    assert_eq!(all[1]["id"], gone);
    assert_eq!(all[1]["text"], "I am allergic to shellfish");
    assert_eq!(all[1]["retracted_at"], "2026-03-01T12:00:00Z");
    env.cmd()
        .args(["facts", "--all"])
        .assert()
        .stdout(predicates::str::contains("forgotten 2026-03-01"));
}

#[test]
fn forget_with_an_unknown_id_exits_2_and_changes_nothing() {
    let env = Env::new();
    let id = env.remember("I am allergic to shellfish");
    env.cmd()
        .args(["forget", &id.to_string(), "42"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("no fact with id 42"));
    env.cmd().args(["forget", "nope"]).assert().code(2);
    env.cmd().arg("forget").assert().code(2);
    assert_eq!(
        env.count("SELECT count(*) FROM memory_facts WHERE retracted_at IS NULL"),
        1
    );
}

#[test]
fn forget_match_forgets_only_a_single_match() {
    let env = Env::new();
    let jane = env.remember("Jane Tan is my contact at Acme");
    env.remember("Jane likes oolong tea");
    env.cmd()
        .args(["forget", "--match", "jane"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("2 active facts match"))
        .stderr(predicates::str::contains("Jane likes oolong tea"));
    env.cmd()
        .args(["forget", "--match", "dentist appointment"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("no active fact matches"));
    assert_eq!(
        env.count("SELECT count(*) FROM memory_facts WHERE retracted_at IS NULL"),
        2
    );
    let out = env.json(&["forget", "--match", "Jane at Acme", "--json"]);
    assert_eq!(out[0]["id"], jane);
    assert_eq!(
        texts(&env.json(&["facts", "--json"])),
        ["Jane likes oolong tea"]
    );
}

#[test]
fn purge_leaves_no_trace_of_the_text_in_the_database_file() {
    let env = Env::new();
    let secret = "my bank PIN is quokkamango";
    let id = env.remember(secret);
    env.remember("Ama's birthday is on 14 March");
    // Make the secret travel: recalled by search, surrounded by later writes.
    env.json(&["search", "quokkamango", "--json"]);
    for i in 0..200 {
        env.remember(&format!(
            "filler fact number {i} about nothing in particular"
        ));
    }
    // An idle second connection keeps the WAL file alive after the binary
    // exits, so this checks the purge's own checkpoint, not the one SQLite
    // does when the last connection closes.
    let _reader = rusqlite::Connection::open(&env.db).unwrap();
    env.cmd()
        .args(["forget", "--purge", &id.to_string()])
        .assert()
        .success()
        .stdout(format!("purged fact {id}\n"));
    for suffix in ["", "-wal"] {
        let mut path = env.db.clone().into_os_string();
        path.push(suffix);
        let bytes = std::fs::read(&path).unwrap_or_default();
        for needle in ["quokkamango", secret] {
            assert!(
                !bytes.windows(needle.len()).any(|w| w == needle.as_bytes()),
                "{needle:?} is still in memory.db{suffix}"
            );
        }
    }
    let all = env.json(&["facts", "--all", "--json"]);
    assert_eq!(all[0]["text"], "[purged]");
    assert_eq!(all[0]["purged_at"], "2026-03-01T12:00:00Z");
    let hits = env.json(&["search", "quokkamango", "--json", "--no-log"]);
    assert_eq!(hits, Value::Array(vec![]));
    assert_eq!(env.count("SELECT count(*) FROM memory_facts"), 202);
}
