//! `remember`, `forget` and `facts` end to end: teaching, deduplication,
//! retraction that keeps history, `--match`, and `--purge` leaving no trace
//! of the text in the database file or its write-ahead log.

use assert_cmd::Command;
use serde_json::Value;

use crate::util::{NOW, TestEnv};

/// The binary at another "now" (RFC 3339), to move across days.
pub fn at<I, S>(env: &TestEnv, now: &str, args: I) -> Command
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    let mut c = env.cmd(args);
    c.env("ALFRED_MEM_NOW", now);
    c
}

/// `at` with `--json` appended; expects exit `code` and parses stdout.
pub fn json_at(env: &TestEnv, now: &str, args: &[&str], code: i32) -> Value {
    let out = at(env, now, args).arg("--json").assert().code(code);
    serde_json::from_slice(&out.get_output().stdout).unwrap()
}

fn remember(env: &TestEnv, text: &str) -> i64 {
    env.json(["remember", text], 0)["id"].as_i64().unwrap()
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
    let env = TestEnv::new();
    env.cmd(["remember", "I", "am", "allergic", "to", "shellfish"])
        .assert()
        .success()
        .stdout("remembered fact 1\n");
    let f = env.json(["remember", "Ama's birthday is on 14 March."], 0);
    assert_eq!(f["id"], 2);
    assert_eq!(f["text"], "Ama's birthday is on 14 March.");
    assert_eq!(f["method"], "user");
    assert_eq!(f["created_at"], NOW);
}

#[test]
fn remembering_the_same_text_again_returns_the_existing_id() {
    let env = TestEnv::new();
    let id = remember(&env, "Jane Tan is my contact at Acme");
    let again = remember(&env, "  jane tan is my   contact at ACME ");
    assert_eq!(again, id);
    assert_eq!(env.count("SELECT count(*) FROM memory_facts"), 1);
}

#[test]
fn remember_reads_stdin_when_given_no_words() {
    let env = TestEnv::new();
    env.cmd(["remember"])
        .write_stdin("My TNB electricity account number is 1234.\n")
        .assert()
        .success()
        .stdout("remembered fact 1\n");
    let facts = env.json(["facts"], 0);
    assert_eq!(
        texts(&facts),
        ["My TNB electricity account number is 1234."]
    );
}

#[test]
fn empty_text_is_a_usage_error_that_stores_nothing() {
    let env = TestEnv::new();
    for stdin in ["", "  \n\t\n"] {
        env.cmd(["remember"])
            .write_stdin(stdin)
            .assert()
            .code(2)
            .stderr(predicates::str::contains("nothing to remember"));
    }
    env.cmd(["remember", " "]).assert().code(2);
    assert!(
        !env.db().exists(),
        "a refused fact must not even create the database"
    );
}

#[test]
fn a_fact_is_evergreen_in_search() {
    let env = TestEnv::new();
    let id = remember(&env, "Kofi Mensah leads the Orion project");
    let hits = json_at(
        &env,
        "2030-01-01T00:00:00Z",
        &["search", "who leads orion", "--explain", "--no-log"],
        0,
    );
    assert_eq!(hits[0]["id"], id);
    assert_eq!(hits[0]["source_type"], "fact");
    assert_eq!(hits[0]["dated_at"], Value::Null);
    assert_eq!(hits[0]["explain"]["decay"], 1.0);
}

#[test]
fn forget_removes_a_fact_from_search_and_facts_but_all_keeps_it() {
    let env = TestEnv::new();
    let keep = remember(&env, "Ama's birthday is on 14 March");
    let gone = remember(&env, "I am allergic to shellfish");
    env.cmd(["forget", &gone.to_string()])
        .assert()
        .success()
        .stdout(format!("forgot fact {gone}: I am allergic to shellfish\n"));
    let hits = env.json(["search", "shellfish allergy", "--no-log"], 1);
    assert_eq!(hits, Value::Array(vec![]));
    let active = env.json(["facts"], 0);
    assert_eq!(active.as_array().unwrap().len(), 1);
    assert_eq!(active[0]["id"], keep);
    let all = env.json(["facts", "--all"], 0);
    assert_eq!(all[1]["id"], gone);
    assert_eq!(all[1]["text"], "I am allergic to shellfish");
    assert_eq!(all[1]["retracted_at"], NOW);
    env.cmd(["facts", "--all"])
        .assert()
        .stdout(predicates::str::contains("forgotten 2026-12-02"));
}

#[test]
fn forget_with_an_unknown_id_exits_2_and_changes_nothing() {
    let env = TestEnv::new();
    let id = remember(&env, "I am allergic to shellfish");
    env.cmd(["forget", &id.to_string(), "42"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("no fact with id 42"));
    env.cmd(["forget", "nope"]).assert().code(2);
    env.cmd(["forget"]).assert().code(2);
    assert_eq!(
        env.count("SELECT count(*) FROM memory_facts WHERE retracted_at IS NULL"),
        1
    );
}

#[test]
fn forget_match_forgets_only_a_single_match() {
    let env = TestEnv::new();
    let jane = remember(&env, "Jane Tan is my contact at Acme");
    remember(&env, "Jane likes oolong tea");
    env.cmd(["forget", "--match", "jane"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("2 active facts match"))
        .stderr(predicates::str::contains("Jane likes oolong tea"));
    env.cmd(["forget", "--match", "dentist appointment"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("no active fact matches"));
    assert_eq!(
        env.count("SELECT count(*) FROM memory_facts WHERE retracted_at IS NULL"),
        2
    );
    let out = env.json(["forget", "--match", "Jane at Acme"], 0);
    assert_eq!(out[0]["id"], jane);
    assert_eq!(texts(&env.json(["facts"], 0)), ["Jane likes oolong tea"]);
}

#[test]
fn purge_leaves_no_trace_of_the_text_in_the_database_file() {
    let env = TestEnv::new();
    let secret = "my bank PIN is quokkamango";
    let id = remember(&env, secret);
    remember(&env, "Ama's birthday is on 14 March");
    // Make the secret travel: recalled by search, surrounded by later writes.
    env.json(["search", "quokkamango"], 0);
    for i in 0..200 {
        remember(
            &env,
            &format!("filler fact number {i} about nothing in particular"),
        );
    }
    // An idle second connection keeps the WAL file alive after the binary
    // exits, so this checks the purge's own checkpoint, not the one SQLite
    // does when the last connection closes.
    let _reader = rusqlite::Connection::open(env.db()).unwrap();
    env.cmd(["forget", "--purge", &id.to_string()])
        .assert()
        .success()
        .stdout(format!("purged fact {id}\n"));
    for suffix in ["", "-wal"] {
        let mut path = env.db().to_path_buf().into_os_string();
        path.push(suffix);
        let bytes = std::fs::read(&path).unwrap_or_default();
        for needle in ["quokkamango", secret] {
            assert!(
                !bytes.windows(needle.len()).any(|w| w == needle.as_bytes()),
                "{needle:?} is still in memory.db{suffix}"
            );
        }
    }
    let all = env.json(["facts", "--all"], 0);
    assert_eq!(all[0]["text"], "[purged]");
    assert_eq!(all[0]["purged_at"], NOW);
    let hits = env.json(["search", "quokkamango", "--no-log"], 1);
    assert_eq!(hits, Value::Array(vec![]));
    assert_eq!(env.count("SELECT count(*) FROM memory_facts"), 202);
}
