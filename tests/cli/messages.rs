//! Saying what happened: what a person is told when a command cannot do
//! what was asked, said once and naming the way out.

use std::process::Stdio;

use crate::util::TestEnv;

fn run(mut cmd: assert_cmd::Command) -> (Option<i32>, String, String) {
    let out = cmd.output().unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code(), text(&out.stdout), text(&out.stderr))
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
