//! Faults from outside: a full disk and a read-only database. Each must end
//! in one clear line on stderr naming the database and a non-zero exit,
//! never a panic, and leave the database intact with what was committed.
//!
//! The full disk is a file size limit (`ulimit -f`) in the child, which
//! works without privileges; a real full tmpfs is tried too when the tests
//! may mount one. Read-only needs a user whom file modes bind: when the
//! tests run as root, the child runs as `nobody`.

use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Command;

use crate::crash::{
    MESSAGES, assert_intact, assert_no_duplicates, chunk_texts, figures, generated_mbox,
    generated_mbox_of,
};
use crate::util::TestEnv;

/// Messages indexed before the fault: what must survive it.
const BEFORE: usize = 300;

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// `cmd` limited to writing files of `bytes` (`ulimit -f`). SIGXFSZ is
/// ignored, so a write past the limit fails with EFBIG, as on a full disk,
/// instead of killing the process.
pub fn limit_file_size(cmd: &mut Command, bytes: u64) {
    let limit = libc::rlimit {
        rlim_cur: bytes as libc::rlim_t,
        rlim_max: bytes as libc::rlim_t,
    };
    // SAFETY: the closure only makes async-signal-safe calls.
    unsafe {
        cmd.pre_exec(move || {
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// Index `BEFORE` messages, then the whole mailbox with `limit` applied;
/// returns the failed run's stderr after checking what it left behind.
fn import_until_full(env: &TestEnv, limit: impl FnOnce(&mut Command)) -> String {
    let first = env.write("first.mbox", generated_mbox_of(BEFORE));
    env.cmd(["index-mbox"]).arg(&first).assert().success();
    let before = chunk_texts(env);

    let all = env.write("all.mbox", generated_mbox());
    let mut cmd = env.std_cmd(["index-mbox"]);
    cmd.arg(&all);
    limit(&mut cmd);
    let out = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "stderr: {stderr}");
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");

    assert_intact(env);
    assert_no_duplicates(env);
    let after = chunk_texts(env);
    let kept = before.iter().filter(|c| after.contains(c)).count();
    assert_eq!(kept, before.len(), "what was committed before is kept");
    stderr
}

/// A re-run with room again completes the import.
fn rerun_completes(env: &TestEnv) {
    let all = env.path("all.mbox");
    env.cmd(["index-mbox"]).arg(&all).assert().success();
    assert_intact(env);
    assert_eq!(figures(env)[0], MESSAGES as i64);
}

#[test]
fn a_file_size_limit_stops_an_import_with_one_line_and_keeps_the_database() {
    let env = TestEnv::new();
    let stderr = import_until_full(&env, |cmd| {
        let db_bytes = std::fs::metadata(env.db()).unwrap().len();
        limit_file_size(cmd, db_bytes + (256 << 10));
    });
    assert_eq!(stderr, could_not_write(env.db()));
    rerun_completes(&env);
}

/// The one line a write stopped by a full disk or a file size limit gives.
pub fn could_not_write(db: &Path) -> String {
    format!(
        "alfred-mem: could not write {} (disk full, or a file size limit?); \
         what was saved before is kept\n",
        db.display()
    )
}

/// Unmounts the tmpfs when the test ends, whatever happens.
struct Mounted<'a>(&'a Path);

impl Drop for Mounted<'_> {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.0).status();
    }
}

#[test]
fn a_full_tmpfs_stops_an_import_with_disk_full_and_keeps_the_database() {
    let env = TestEnv::new();
    let mount_point = env.db().parent().unwrap();
    std::fs::create_dir_all(mount_point).unwrap();
    let mounted = is_root()
        && Command::new("mount")
            .args(["-t", "tmpfs", "-o", "size=2m,mode=0700", "tmpfs"])
            .arg(mount_point)
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
    if !mounted {
        eprintln!("skipped: cannot mount a tmpfs here (needs root and CAP_SYS_ADMIN)");
        return;
    }
    let _unmount = Mounted(mount_point);
    let stderr = import_until_full(&env, |_| {});
    assert_eq!(
        stderr,
        format!(
            "alfred-mem: disk full writing {}; what was saved before is kept\n",
            env.db().display()
        )
    );
}

/// `env.bare_std_cmd()` as a user whom file modes bind: `nobody` when the
/// tests run as root (root writes to read-only files), else the caller.
/// The temp folder is opened up so that user can reach it.
fn bound_by_modes(env: &TestEnv) -> Command {
    let mut cmd = env.bare_std_cmd();
    if is_root() {
        set_mode(env.root(), 0o755);
        cmd.uid(65534).gid(65534);
    }
    cmd
}

fn set_mode(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// Hand `path` to the user `bound_by_modes` runs as.
fn give_away(path: &Path) {
    if is_root() {
        std::os::unix::fs::chown(path, Some(65534), Some(65534)).unwrap();
    }
}

fn run(mut cmd: Command) -> (Option<i32>, String, String) {
    let out = cmd.output().unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code(), text(&out.stdout), text(&out.stderr))
}

#[test]
fn a_read_only_database_refuses_writes_by_name_and_still_answers_searches() {
    let env = TestEnv::new();
    let mbox = env.write("first.mbox", generated_mbox_of(BEFORE));
    set_mode(&mbox, 0o644);
    env.cmd(["index-mbox"]).arg(&mbox).assert().success();
    let before = (figures(&env), chunk_texts(&env));
    let data = env.db().parent().unwrap();
    give_away(data);
    give_away(env.db());
    set_mode(env.db(), 0o400);

    let db = env.db().display().to_string();
    let read_only = format!("alfred-mem: database is read-only: {db}\n");
    for args in [
        &["index-mbox", mbox.to_str().unwrap()][..],
        &["remember", "the spare key is under the blue pot"],
        &["dream"],
    ] {
        let mut cmd = bound_by_modes(&env);
        cmd.arg("--db").arg(env.db()).args(args);
        let (code, _, stderr) = run(cmd);
        assert_eq!(
            (code, stderr.as_str()),
            (Some(2), read_only.as_str()),
            "{args:?}"
        );
    }

    // Recall still works; only the recall log cannot be written, and the
    // user is told so. Twice: the second run meets the -shm the first left.
    let not_logged =
        format!("alfred-mem: database is read-only, this recall was not logged: {db}\n");
    for _ in 0..2 {
        let mut cmd = bound_by_modes(&env);
        cmd.arg("--db")
            .arg(env.db())
            .args(["search", "acme", "--json"]);
        let (code, stdout, stderr) = run(cmd);
        assert_eq!((code, stderr.as_str()), (Some(0), not_logged.as_str()));
        let hits: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        assert!(!hits.as_array().unwrap().is_empty(), "{stdout}");
    }
    for args in [&["search", "acme", "--no-log"][..], &["status"], &["facts"]] {
        let mut cmd = bound_by_modes(&env);
        cmd.arg("--db").arg(env.db()).args(args);
        let (code, _, stderr) = run(cmd);
        assert_eq!((code, stderr.as_str()), (Some(0), ""), "{args:?}");
    }
    // An agent is told too: the MCP tool result carries the note.
    let mut cmd = bound_by_modes(&env);
    cmd.arg("--db").arg(env.db()).arg("mcp");
    let reply = mcp_search_once(cmd, "acme");
    assert_ne!(reply["result"]["isError"], true, "{reply}");
    // The prose block, after the block holding the structured content.
    let text = reply["result"]["content"][1]["text"].as_str().unwrap();
    assert!(text.contains("result"), "{text}");
    assert!(text.contains("this recall was not logged"), "{text}");

    assert_intact(&env);
    assert_eq!((figures(&env), chunk_texts(&env)), before);
    assert_eq!(env.count("SELECT count(*) FROM recall_events"), 0);
}

/// Regression: an import into a read-only database read every input record
/// before the first write failed. The writers now fail at once, while
/// their stdin is still open and nothing has been read from it.
#[test]
fn a_read_only_database_is_refused_before_any_input_is_read() {
    use std::process::Stdio;
    use std::time::{Duration, Instant};

    let env = TestEnv::new();
    env.cmd(["remember", "the spare key is under the blue pot"])
        .assert()
        .success();
    give_away(env.db().parent().unwrap());
    give_away(env.db());
    set_mode(env.db(), 0o400);
    let read_only = format!(
        "alfred-mem: database is read-only: {}\n",
        env.db().display()
    );
    for args in [
        &["index-mbox", "-"][..],
        &["index-conversations", "-"],
        &["remember"],
    ] {
        let mut cmd = bound_by_modes(&env);
        cmd.arg("--db").arg(env.db()).args(args);
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        // Generous: a failure here means it waits for input, not slowness.
        let deadline = Instant::now() + Duration::from_secs(60);
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if Instant::now() > deadline {
                child.kill().unwrap();
                panic!("{args:?} waited for its input before checking the database");
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        drop(stdin);
        let mut stderr = String::new();
        std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
        assert_eq!(
            (status.code(), stderr.as_str()),
            (Some(2), read_only.as_str()),
            "{args:?}"
        );
    }
}

/// Start `cmd` (an `mcp` server), initialise it, call `memory_search` once,
/// close its stdin and return the reply to the call.
fn mcp_search_once(mut cmd: Command, query: &str) -> serde_json::Value {
    use std::io::Write;
    let requests = [
        serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "faults", "version": "1"}}}),
        serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "memory_search", "arguments": {"query": query}}}),
    ];
    let mut child = cmd
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for r in &requests {
        writeln!(stdin, "{r}").unwrap();
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|v| v["id"] == 2)
        .expect("a reply to the tools/call")
}

#[test]
fn a_read_only_folder_without_a_database_is_an_error_naming_it() {
    let env = TestEnv::new();
    let locked = env.path("locked");
    std::fs::create_dir(&locked).unwrap();
    set_mode(&locked, 0o555);
    let mbox = env.write("first.mbox", generated_mbox_of(10));
    set_mode(&mbox, 0o644);

    for (db, what) in [
        (locked.join("memory.db"), "could not create database"),
        (
            locked.join("sub").join("memory.db"),
            "could not create folder",
        ),
    ] {
        let with = |args: &[&str]| {
            let mut cmd = bound_by_modes(&env);
            cmd.arg("--db").arg(&db).args(args);
            run(cmd)
        };
        // Commands that add to the memory try to create it.
        for args in [
            &["index-mbox", mbox.to_str().unwrap()][..],
            &["remember", "the spare key is under the blue pot"],
        ] {
            let (code, _, stderr) = with(args);
            assert_eq!(code, Some(2), "{args:?}: {stderr}");
            assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
            assert!(
                stderr.starts_with(&format!("alfred-mem: {what}: {}", locked.display()))
                    && stderr.contains("Permission denied"),
                "{args:?}: {stderr}"
            );
        }
        // The others never would: there is no memory there yet.
        let missing = format!(
            "alfred-mem: no memory at {} yet: index something first\n",
            db.display()
        );
        for args in [&["search", "acme"][..], &["status"], &["dream"]] {
            let (code, _, stderr) = with(args);
            assert_eq!(
                (code, stderr.as_str()),
                (Some(2), missing.as_str()),
                "{args:?}"
            );
        }
    }
    assert_eq!(std::fs::read_dir(&locked).unwrap().count(), 0);
}

#[test]
fn a_database_in_a_read_only_folder_answers_searches_and_refuses_writes() {
    let env = TestEnv::new();
    // Characters that mean something in a `file:` URI, to check the path
    // survives the read-only fallback.
    let folder = env.path("backup #1? 100%");
    let db = folder.join("memory.db");
    let mbox = env.write("first.mbox", generated_mbox_of(BEFORE));
    set_mode(&mbox, 0o644);
    env.bare_cmd()
        .arg("--db")
        .arg(&db)
        .arg("index-mbox")
        .arg(&mbox)
        .assert()
        .success();
    give_away(&folder);
    give_away(&db);
    set_mode(&folder, 0o500);
    let with = |args: &[&str]| {
        let mut cmd = bound_by_modes(&env);
        cmd.arg("--db").arg(&db).args(args);
        run(cmd)
    };

    let (code, stdout, stderr) = with(&["search", "acme", "--json"]);
    let not_logged = format!(
        "alfred-mem: database is read-only, this recall was not logged: {}\n",
        db.display()
    );
    assert_eq!((code, stderr.as_str()), (Some(0), not_logged.as_str()));
    let hits: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert!(!hits.as_array().unwrap().is_empty(), "{stdout}");
    assert_eq!(with(&["status"]).0, Some(0));
    let (code, _, stderr) = with(&["remember", "the spare key is under the blue pot"]);
    let read_only = format!("alfred-mem: database is read-only: {}\n", db.display());
    assert_eq!((code, stderr.as_str()), (Some(2), read_only.as_str()));
    assert_eq!(
        std::fs::read_dir(&folder).unwrap().count(),
        1,
        "no -wal, no -shm"
    );
    set_mode(&folder, 0o700);
}
