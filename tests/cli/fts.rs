//! `ALFRED_MEM_FTS` through the real binary: the plain engine (FTS5's own
//! bm25()) ranks exactly as the default fast one on generated queries, with
//! and without windows; a database whose FTS5 records do not read as the
//! fast engine expects is searched with the plain engine, and says so once;
//! any other value is an error.

use crate::util::{TestEnv, mbox_message};

/// Words from common to rare: message `i` holds word `w` at position `j`
/// where `(i * 7 + j * 13) % 100` squared falls in `w`'s band, so the first
/// words are in most messages and the last in a few.
const VOCAB: [&str; 24] = [
    "invoice",
    "meeting",
    "project",
    "harbour",
    "budget",
    "garden",
    "ticket",
    "report",
    "dentist",
    "quarterly",
    "violin",
    "parcel",
    "mortgage",
    "festival",
    "glacier",
    "orchid",
    "lantern",
    "passport",
    "saffron",
    "tundra",
    "walnut",
    "zephyr",
    "quokka",
    "obsidian",
];

const MONTHS: [&str; 11] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov",
];

fn word(i: usize, j: usize) -> &'static str {
    let x = (i * 7 + j * 13 + i / 5) % 100;
    VOCAB[(x * x / 400).min(VOCAB.len() - 1)]
}

/// 400 messages over eleven months, 5 to 40 words each, and two facts.
fn corpus() -> TestEnv {
    let env = TestEnv::new();
    let mut mbox = String::new();
    for i in 0..400 {
        let body: Vec<&str> = (0..5 + i % 36).map(|j| word(i, j)).collect();
        let subject = format!("{} {}", word(i, 50), word(i, 51));
        let date = format!(
            "{} {} 2026 {:02}:00:00 +0000",
            1 + i % 28,
            MONTHS[i % 11],
            i % 24
        );
        mbox.push_str(&mbox_message(
            &format!("m{i}@fts.example"),
            &date,
            &subject,
            &body.join(" "),
        ));
    }
    let file = env.write("mail.mbox", mbox);
    env.cmd(["index-mbox"]).arg(&file).assert().success();
    for fact in ["the budget meeting is on Fridays", "the orchid needs water"] {
        env.cmd(["remember", fact]).assert().success();
    }
    env
}

/// `search ARGS --json --no-log` with `ALFRED_MEM_FTS` set to `engine`
/// (None: unset): (stdout, stderr).
fn search(env: &TestEnv, engine: Option<&str>, args: &[String]) -> (String, String) {
    let mut cmd = env.cmd(["search", "--json", "--no-log"]);
    cmd.args(args);
    if let Some(engine) = engine {
        cmd.env("ALFRED_MEM_FTS", engine);
    }
    let out = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{args:?}: {stderr}"
    );
    (String::from_utf8(out.stdout).unwrap(), stderr)
}

/// One to three words, a limit, and every second query in a window.
fn queries() -> Vec<Vec<String>> {
    (0..24)
        .map(|q| {
            let mut args: Vec<String> = Vec::new();
            for k in 0..1 + q % 3 {
                let w = VOCAB[(q * 5 + k * 11 + k * q) % VOCAB.len()].to_string();
                if !args.contains(&w) {
                    args.push(w);
                }
            }
            args.extend(["--limit".into(), [5, 10, 40][q % 3].to_string()]);
            if q % 2 == 1 {
                let from = q % 9;
                let window = [
                    "--after",
                    &format!("2026-{:02}-01", 1 + from),
                    "--before",
                    &format!("2026-{:02}-15", 3 + from),
                ]
                .map(String::from);
                args.extend(window);
            }
            args
        })
        .collect()
}

#[test]
fn the_plain_engine_ranks_exactly_as_the_default_on_generated_queries() {
    let env = corpus();
    let (mut windowed, mut found) = (0, 0);
    for args in queries() {
        let (default, _) = search(&env, None, &args);
        let (plain, _) = search(&env, Some("plain"), &args);
        let (fast, _) = search(&env, Some("fast"), &args);
        assert_eq!(default, plain, "{args:?}");
        assert_eq!(default, fast, "{args:?}");
        windowed += usize::from(args.iter().any(|a| a == "--after"));
        found += usize::from(default.trim() != "[]");
    }
    assert_eq!(windowed, 12);
    assert!(found >= 20, "only {found} of 24 queries found anything");
}

/// A future SQLite whose averages record holds one more field than this one
/// (FTS5 reads only the fields it knows; the fast engine would add it in).
#[test]
fn records_that_do_not_read_as_expected_fall_back_to_plain_and_say_so_once() {
    let env = corpus();
    let args: Vec<String> = ["invoice", "orchid", "--limit", "40"]
        .map(String::from)
        .into();
    let (healthy, quiet) = search(&env, None, &args);
    assert_eq!(quiet, "");
    env.sqlite()
        .execute(
            "UPDATE memory_fts_data SET block = CAST(block || x'05' AS BLOB) WHERE id = 1",
            [],
        )
        .unwrap();
    let (fallen_back, said) = search(&env, None, &args);
    assert_eq!(fallen_back, healthy);
    assert_eq!(said.matches("warning").count(), 1, "{said}");
    assert!(
        said.contains("FTS5's private records do not read as expected (the averages record reads"),
        "{said}"
    );
    let (plain, quiet) = search(&env, Some("plain"), &args);
    assert_eq!((plain, quiet.as_str()), (healthy, ""));
}

#[test]
fn an_unknown_engine_is_an_error() {
    let env = TestEnv::new();
    env.cmd(["search", "anything"])
        .env("ALFRED_MEM_FTS", "fastest")
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "invalid ALFRED_MEM_FTS: expected `fast` or `plain`, not \"fastest\"",
        ));
}

/// Messages of several paragraphs group alike under both engines: the same
/// message hits, the same chunk standing for each, the same counts.
#[test]
fn both_engines_group_long_messages_alike() {
    let env = TestEnv::new();
    let mut mbox = String::new();
    for i in 0..60 {
        let paragraphs: Vec<String> = (0..1 + i % 5)
            .map(|p| {
                let words: Vec<&str> = (0..12).map(|j| word(i, p * 12 + j)).collect();
                format!("Part {p} of note {i}: {}.", words.join(" "))
            })
            .collect();
        let date = format!("{} {} 2026 10:00:00 +0000", 1 + i % 28, MONTHS[i % 11]);
        mbox.push_str(&mbox_message(
            &format!("n{i}@fts.example"),
            &date,
            "Notes",
            &paragraphs.join("\n\n"),
        ));
    }
    let file = env.write("mail.mbox", mbox);
    env.cmd(["index-mbox"]).arg(&file).assert().success();
    let mut grouped = 0;
    for args in queries() {
        for all in [false, true] {
            let mut args = args.clone();
            if all {
                args.push("--all-chunks".into());
            }
            let (plain, _) = search(&env, Some("plain"), &args);
            let (fast, _) = search(&env, Some("fast"), &args);
            assert_eq!(plain, fast, "{args:?}");
            let hits: serde_json::Value = serde_json::from_str(&fast).unwrap();
            let more = hits.as_array().unwrap().iter();
            grouped += more.filter(|h| h["more_chunks"].as_u64() > Some(0)).count();
        }
    }
    assert!(grouped > 0, "no query matched two chunks of one message");
}
