//! The memory is somebody's mail: the folder is 0700 and the database, its
//! -wal and its -shm are 0600, even under a permissive umask and even when
//! loose files were already there (a backup restored with `cp`). The modes
//! are read while the binary holds the database open, since SQLite removes
//! -wal and -shm when the last connection closes.

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use crate::crash::{generated_mbox, generated_mbox_of};

/// Messages in the restored database; the import then adds to them.
const RESTORED: usize = 10;
use crate::util::TestEnv;

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .permissions()
        .mode()
        & 0o777
}

fn with_suffix(db: &Path, suffix: &str) -> PathBuf {
    let mut p = db.as_os_str().to_owned();
    p.push(suffix);
    PathBuf::from(p)
}

/// `index-mbox -` under umask 000, fed the generated mailbox with stdin left
/// open, once a batch is committed: the importer holds the database open,
/// waiting for the end of its input.
fn importing_under_umask_000(env: &TestEnv, already: i64) -> (Child, std::process::ChildStdin) {
    let mbox = generated_mbox();
    let mut cmd = env.std_cmd(["index-mbox", "-"]);
    // SAFETY: umask is async-signal-safe and cannot fail.
    unsafe {
        cmd.pre_exec(|| {
            libc::umask(0);
            Ok(())
        });
    }
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(&mbox).unwrap();
    let deadline = Instant::now() + Duration::from_secs(120);
    while sources(env) <= already {
        assert!(Instant::now() < deadline, "no batch was committed");
        std::thread::sleep(Duration::from_millis(10));
    }
    (child, stdin)
}

fn sources(env: &TestEnv) -> i64 {
    if !env.db().exists() {
        return 0;
    }
    rusqlite::Connection::open_with_flags(env.db(), rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
        .and_then(|c| c.query_row("SELECT count(*) FROM memory_sources", [], |r| r.get(0)))
        .unwrap_or(0)
}

fn assert_private(env: &TestEnv, when: &str) {
    let db = env.db();
    assert_eq!(mode(db.parent().unwrap()), 0o700, "folder, {when}");
    for suffix in ["", "-wal", "-shm"] {
        let file = with_suffix(db, suffix);
        if suffix.is_empty() || file.exists() {
            assert_eq!(mode(&file), 0o600, "{}, {when}", file.display());
        }
    }
}

#[test]
fn folder_database_wal_and_shm_are_private_under_umask_000() {
    let env = TestEnv::new();
    let (mut child, stdin) = importing_under_umask_000(&env, 0);
    for suffix in ["-wal", "-shm"] {
        assert!(
            with_suffix(env.db(), suffix).exists(),
            "{suffix} mid-import"
        );
    }
    assert_private(&env, "mid-import");
    drop(stdin);
    assert!(child.wait().unwrap().success());
    assert_private(&env, "after index");

    let mut search = env.std_cmd(["search", "acme"]);
    // SAFETY: as above.
    unsafe {
        search.pre_exec(|| {
            libc::umask(0);
            Ok(())
        });
    }
    assert!(search.status().unwrap().success());
    assert_private(&env, "after search");
}

/// A database restored with its -wal and -shm under umask 022 (0644): the
/// next run makes all three private before SQLite reads them.
#[test]
fn loose_wal_and_shm_left_beside_the_database_are_made_private() {
    let source = TestEnv::new();
    let mbox = source.write("gen.mbox", generated_mbox_of(RESTORED));
    source.cmd(["index-mbox"]).arg(&mbox).assert().success();
    let env = TestEnv::new();
    let data = env.db().parent().unwrap();
    std::fs::create_dir(data).unwrap();
    std::fs::set_permissions(data, std::fs::Permissions::from_mode(0o700)).unwrap();
    {
        // Copy the three files while a connection holds them open, as a
        // backup of a live database would.
        let live = source.sqlite();
        live.execute("INSERT INTO meta (key, value) VALUES ('backup', 'x')", [])
            .unwrap();
        for suffix in ["", "-wal", "-shm"] {
            let to = with_suffix(env.db(), suffix);
            std::fs::copy(with_suffix(source.db(), suffix), &to).unwrap();
            std::fs::set_permissions(&to, std::fs::Permissions::from_mode(0o644)).unwrap();
        }
    }
    let (mut child, stdin) = importing_under_umask_000(&env, RESTORED as i64);
    assert_private(&env, "restored, mid-import");
    drop(stdin);
    assert!(child.wait().unwrap().success());
}
