//! The only place that opens SQLite or holds SQL. `Store::open` is the one way
//! in: private file modes, pragmas, migrations. The submodules group the SQL by
//! what it serves: writing records, searching, facts, the recall log, status.

mod block_reader;
mod blocks;
mod bm25;
pub mod dream;
pub mod facts;
pub mod failure;
mod fts_aux;
mod fts_plan;
mod fts_rank;
pub mod ingest_state;
mod migrate;
pub mod recall;
pub mod records;
pub mod search;
pub mod status;
pub mod vectors;
mod window;

use std::fs::{self, OpenOptions};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use rusqlite::{Connection, OpenFlags, OptionalExtension, params};

use failure::WriteFailure;

/// How long a writer waits for another process's transaction before failing.
/// Long enough to ride out an index batch commit or a dream run.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// How often a waiting writer looks at the lock again. SQLite's own busy
/// handler backs off to 100 ms between looks, and an import with batches
/// queued leaves the lock free for only microseconds between them, so a
/// `remember` could miss every gap until the import ran out of work and
/// fail after [`BUSY_TIMEOUT`]. Looking this often, it finds the pause the
/// importer leaves after each commit (`ingest::run::LOCK_PAUSE`).
pub const BUSY_POLL: Duration = Duration::from_millis(1);

pub struct Store {
    pub(crate) conn: Connection,
    path: Option<PathBuf>,
    /// A second read-only connection for the other core, opened the first
    /// time a search is large enough to split (`fts_rank`); None inside
    /// when it cannot be opened.
    second: std::cell::OnceCell<Option<std::cell::RefCell<Connection>>>,
}

impl Store {
    /// Open (creating if needed) the database at `path`. The folder is created
    /// 0700 and the file 0600 before SQLite touches it, so the -wal and -shm
    /// files SQLite derives from it are private too: this is somebody's mail.
    pub fn open(path: &Path) -> Result<Store> {
        prepare_private_file(path)?;
        Store::open_read_write(path).or_else(|e| {
            // In a read-only folder SQLite cannot create the -wal and -shm
            // that even a reader of a WAL database needs. No writer can
            // create them either, so the file cannot change while we read
            // it: open it immutable, and writes fail as read-only.
            let read_only = failure::write_failure(&e) == Some(WriteFailure::ReadOnly);
            if read_only && !with_suffix(path, "-wal").exists() {
                Store::open_immutable(path).map_err(|_| e)
            } else {
                Err(e)
            }
        })
    }

    fn open_read_write(path: &Path) -> Result<Store> {
        let conn = Connection::open(path)
            .with_context(|| format!("could not open database: {}", path.display()))?;
        let mut store = Store {
            conn,
            path: Some(path.to_path_buf()),
            second: Default::default(),
        };
        store
            .init(true)
            .with_context(|| format!("could not open database: {}", path.display()))?;
        Ok(store)
    }

    fn open_immutable(path: &Path) -> Result<Store> {
        // An absolute path gets an empty authority (`file:///...`), so a
        // path starting `//` is not read as a host name.
        let authority = if path.is_absolute() { "//" } else { "" };
        let uri = format!("file:{authority}{}?immutable=1", uri_path(path));
        let conn = Connection::open_with_flags(
            uri,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI,
        )?;
        let mut store = Store {
            conn,
            path: Some(path.to_path_buf()),
            second: Default::default(),
        };
        store.init(false)?;
        Ok(store)
    }

    /// A private in-memory store, for unit tests.
    pub fn open_in_memory() -> Result<Store> {
        let mut store = Store {
            conn: Connection::open_in_memory()?,
            path: None,
            second: Default::default(),
        };
        store.init(true)?;
        Ok(store)
    }

    /// Pragmas and migrations; `wal` is false only for an immutable file,
    /// which has no journal to switch.
    fn init(&mut self, wal: bool) -> Result<()> {
        let mut waiting_since = Instant::now();
        self.conn.busy_handler(Some(move |attempt: i32| {
            if attempt == 0 {
                waiting_since = Instant::now();
            }
            let wait = waiting_since.elapsed() < BUSY_TIMEOUT;
            if wait {
                std::thread::sleep(BUSY_POLL);
            }
            wait
        }))?;
        // WAL lets searches run while an import writes; NORMAL is durable
        // across application crashes, which is what kill -9 tests exercise.
        if wal {
            let mode = self.switch_to_wal()?;
            if self.path.is_some() && !mode.eq_ignore_ascii_case("wal") {
                anyhow::bail!(
                    "could not switch to WAL mode (got {mode}); is the folder read-only?"
                );
            }
        }
        self.conn.execute_batch(
            "PRAGMA synchronous = NORMAL;
             PRAGMA foreign_keys = ON;
             PRAGMA temp_store = MEMORY;
             PRAGMA cache_size = -32000;",
        )?;
        migrate::migrate(&mut self.conn)?;
        fts_aux::register(&self.conn)?;
        Ok(())
    }

    /// `PRAGMA journal_mode = WAL`, waiting as long as the busy handler
    /// would. On a new file the switch needs every other connection gone,
    /// and SQLite answers SQLITE_BUSY at once there without asking the busy
    /// handler: two commands opening a new database together (a first
    /// import and a cron job) made one fail with "database is locked".
    fn switch_to_wal(&self) -> Result<String> {
        let started = Instant::now();
        loop {
            match self
                .conn
                .query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))
            {
                Err(rusqlite::Error::SqliteFailure(e, _))
                    if e.code == rusqlite::ErrorCode::DatabaseBusy
                        && started.elapsed() < BUSY_TIMEOUT =>
                {
                    std::thread::sleep(BUSY_POLL);
                }
                mode => return Ok(mode?),
            }
        }
    }

    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    pub fn get_meta(&self, key: &str) -> Result<Option<String>> {
        Ok(self
            .conn
            .query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0))
            .optional()?)
    }

    pub fn set_meta(&self, key: &str, value: &str) -> Result<()> {
        self.conn.execute(
            "INSERT INTO meta (key, value) VALUES (?1, ?2)
             ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            params![key, value],
        )?;
        Ok(())
    }
}

/// Create the parent folder (0700) and an empty database file (0600) if they
/// do not exist yet; tighten the modes of the file and its -wal and -shm if
/// it does.
fn prepare_private_file(path: &Path) -> Result<()> {
    if let Some(dir) = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty() && !d.exists())
    {
        fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .with_context(|| format!("could not create folder: {}", dir.display()))?;
    }
    match OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
    {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            let meta = fs::metadata(path)
                .with_context(|| format!("could not read database: {}", path.display()))?;
            if meta.is_dir() {
                anyhow::bail!("database path is a folder: {}", path.display());
            }
            // SQLite gives a new -wal or -shm the database file's mode, but
            // keeps the mode of one that exists: one restored from a backup
            // under a loose umask, or left while the file itself was looser
            // (kill -9 leaves them). Tighten all three.
            for suffix in ["", "-wal", "-shm"] {
                make_private(&with_suffix(path, suffix));
            }
            Ok(())
        }
        Err(e) => Err(e).with_context(|| format!("could not create database: {}", path.display())),
    }
}

/// Best effort: a file we do not own keeps its mode, and SQLite will still
/// report any real access problem.
fn make_private(file: &Path) {
    if let Ok(meta) = fs::metadata(file)
        && meta.permissions().mode() & 0o077 != 0
    {
        let _ = fs::set_permissions(file, fs::Permissions::from_mode(0o600));
    }
}

/// `db` with `suffix` appended to its file name: `memory.db-wal`.
fn with_suffix(db: &Path, suffix: &str) -> PathBuf {
    let mut name = db.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// `path` for a `file:` URI: bytes other than unreserved ones percent-encoded,
/// so a `?`, `#` or `%` in a folder name stays part of the path.
fn uri_path(path: &Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    let mut out = String::new();
    for &b in path.as_os_str().as_bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}
