//! Saying what happened: a search that finds nothing says so to a person
//! watching, a missing database is named and never created by a command
//! that does not add to it, an ambiguous date names the fix, `forget` alone
//! names `--match`, and an error says its cause once.

use std::process::Stdio;

use crate::util::{TestEnv, fixture};

fn run(mut cmd: assert_cmd::Command) -> (Option<i32>, String, String) {
    let out = cmd.output().unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code(), text(&out.stdout), text(&out.stderr))
}

fn indexed() -> TestEnv {
    let env = TestEnv::new();
    env.cmd(["index-mbox"])
        .arg(fixture("three.mbox"))
        .assert()
        .success();
    env
}

/// Regression: a search that found nothing printed nothing on a terminal.
#[test]
fn no_match_is_said_to_a_person_and_stdout_stays_results_only() {
    let env = indexed();
    // In a pipe, as grep: nothing on stdout (`[]` with --json), exit 1,
    // and no chatter on stderr for the script to filter.
    let (code, stdout, stderr) = run(env.cmd(["search", "zebra"]));
    assert_eq!((code, stdout.as_str(), stderr.as_str()), (Some(1), "", ""));
    let (code, stdout, stderr) = run(env.cmd(["search", "--json", "zebra"]));
    assert_eq!(
        (code, stdout.as_str(), stderr.as_str()),
        (Some(1), "[]\n", "")
    );

    // On a terminal: one line on stderr, still exit 1.
    let (code, shown) = env.on_a_terminal(&["search", "zebra"], None);
    assert_eq!(
        (code, shown.as_str()),
        (Some(1), "alfred-mem: no matches for \"zebra\"\r\n")
    );
    let (code, shown) = env.on_a_terminal(&["search", "?!"], None);
    assert_eq!(
        (code, shown.as_str()),
        (
            Some(1),
            "alfred-mem: nothing to search for in \"?!\": it has no searchable word\r\n"
        )
    );
    // stdout to a file, stderr on the terminal (`search --json ... > f`):
    // the file holds the JSON document alone, the note names the filters.
    let file = env.path("hits.json");
    let args = [
        "search", "--json", "--after", "2026", "--source", "email", "zebra",
    ];
    let (code, shown) = env.on_a_terminal(&args, Some(&file));
    assert_eq!(
        (code, shown.as_str()),
        (
            Some(1),
            "alfred-mem: no matches for \"zebra\" with --after, --source\r\n"
        )
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "[]\n");
}

/// Regression: a `--db` typo on a command that only reads created the
/// folders and an empty database, then exited 1 as if nothing matched.
#[test]
fn a_missing_database_is_named_and_nothing_is_created() {
    let env = TestEnv::new();
    let missing = format!(
        "alfred-mem: no memory at {} yet: index something first\n",
        env.db().display()
    );
    for args in [
        &["search", "acme"][..],
        &["facts"],
        &["status"],
        &["model", "status"],
        &["model", "off"],
        &["embed"],
        &["forget", "1"],
        &["forget", "--match", "acme"],
        &["dream"],
        &["dream", "--dry-run"],
    ] {
        let (code, stdout, stderr) = run(env.cmd(args));
        assert_eq!(
            (code, stdout.as_str(), stderr.as_str()),
            (Some(2), "", missing.as_str()),
            "{args:?}"
        );
    }
    assert!(!env.db().parent().unwrap().exists(), "a folder was created");

    // The default path too: nothing appears under HOME.
    let (code, _, stderr) = run({
        let mut c = env.bare_cmd();
        c.args(["search", "acme"]);
        c
    });
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("no memory at") && stderr.contains("/.local/share/alfred-mem/memory.db")
    );
    assert!(
        !env.path("home").exists(),
        "something was created under HOME"
    );

    // Adding to the memory creates it.
    env.cmd(["remember", "the spare key is under the blue pot"])
        .assert()
        .success();
    assert!(env.db().exists());
    env.cmd(["status"]).assert().success();
}

/// The MCP server creates a missing database (an agent may remember before
/// anything is indexed) and says that it did, so a typo shows in the log.
#[test]
fn the_mcp_server_names_a_memory_it_creates() {
    let env = TestEnv::new();
    let serve = || {
        let out = env.std_cmd(["mcp"]).stdin(Stdio::null()).output().unwrap();
        assert_eq!(out.status.code(), Some(0));
        String::from_utf8(out.stderr).unwrap()
    };
    let first = serve();
    assert!(first.contains("(a new, empty memory)"), "{first}");
    assert!(env.db().exists());
    let again = serve();
    assert!(!again.contains("new"), "{again}");
}

/// Regression: `--after "3 weeks"` meant three weeks in the future.
#[test]
fn an_ambiguous_date_is_an_error_that_names_the_fix() {
    let env = indexed();
    for flag in ["--after", "--before", "--as-of"] {
        let (code, stdout, stderr) = run(env.cmd(["search", flag, "3 weeks", "acme"]));
        let want = format!(
            "alfred-mem: {flag}: \"3 weeks\" is ambiguous: did you mean \"3 weeks ago\" (or \"in 3 weeks\")?\n"
        );
        assert_eq!(
            (code, stdout.as_str(), stderr.as_str()),
            (Some(2), "", want.as_str())
        );
    }
    // Said with its direction, each reading works: the Acme quote is from
    // January, which "50 weeks ago" reaches and "in 3 weeks" does not.
    let hits = env.json(["search", "--after", "50 weeks ago", "acme"], 0);
    assert!(!hits.as_array().unwrap().is_empty());
    env.cmd(["search", "--after", "in 3 weeks", "acme"])
        .assert()
        .code(1);
}

/// Regression: `forget` alone showed a usage with ids only.
#[test]
fn forget_without_arguments_names_match() {
    let env = TestEnv::new();
    let (code, _, stderr) = run(env.cmd(["forget"]));
    assert_eq!(code, Some(2));
    assert!(
        stderr.contains("alfred-mem forget [OPTIONS] <ID>...")
            && stderr.contains("alfred-mem forget [OPTIONS] --match <TEXT>"),
        "{stderr}"
    );
    assert!(!env.db().exists());
}

/// Regression: "file is not a database: Error code 26: file is not a
/// database".
#[test]
fn an_error_says_its_cause_once() {
    let env = TestEnv::new();
    let notes = env.write("notes.txt", "these are my notes, not a database\n");
    let want = format!(
        "alfred-mem: could not open database: {}: file is not a database\n",
        notes.display()
    );
    for args in [
        &["status"][..],
        &["search", "acme"],
        &["remember", "a fact"],
    ] {
        let (code, _, stderr) = run({
            let mut c = env.bare_cmd();
            c.arg("--db").arg(&notes).args(args);
            c
        });
        assert_eq!(
            (code, stderr.as_str()),
            (Some(2), want.as_str()),
            "{args:?}"
        );
    }
    assert_eq!(
        std::fs::read_to_string(&notes).unwrap(),
        "these are my notes, not a database\n"
    );
}
