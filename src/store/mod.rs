//! The only place that opens SQLite or holds SQL. One function opens the file
//! (private file modes, pragmas, migrations); commands reach it through
//! `Store::open_for`, which decides by `Access` whether a missing database
//! is created and whether writability is checked first, and gives the store
//! the configured full-text engine. The submodules group the
//! SQL by what it serves: writing records, searching, facts, the recall log,
//! status.

mod access;
pub mod conflicts;
mod content_hash;
pub mod conversations;
pub mod dream;
pub mod embed_queue;
pub mod facts;
pub mod failure;
mod fts;
#[cfg(test)]
pub(crate) use fts::TOKENIZE;
/// Makes the full-text index usable on a connection the store did not open
/// (tests, tools): its tokenizer and functions live in this binary.
pub use fts::register as register_fts;
pub mod ingest_state;
pub mod link_care;
pub mod links;
mod migrate;
pub mod night;
pub mod reader;
pub mod recall;
pub mod recall_log;
pub mod records;
pub mod search;
pub mod show;
pub mod sources;
pub mod status;
mod vector_build;
pub mod vector_index;
pub mod vector_probe;
pub mod vectors;

use std::fs::{self, OpenOptions};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use rusqlite::{Connection, OpenFlags, OptionalExtension, Transaction, params};

pub use access::Access;
use failure::WriteFailure;
pub use fts::FtsEngine;

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

/// The write-ahead log's checkpoint threshold while an import runs, in
/// bytes (divided by the file's page size). SQLite's default (1000 pages)
/// copied the log home after nearly every batch, rewriting the same b-tree
/// and index pages batch after batch; at 64 MB those are copied once per
/// several batches. `index-mbox` of 100k messages: 13.1 s -> 12.1 s
/// (docs/PERFORMANCE.md, 2026-12-06, when this was 16,384 pages of 4 KB).
pub const IMPORT_CHECKPOINT_BYTES: u32 = 64 << 20;

/// The page size of a new database. A chunk row is about 450 bytes, so a
/// 4 KB page left a tenth of itself unused at its end; at 8 KB a fresh
/// 100k-message database is 299.6 -> 292.9 MB, with searches as fast
/// (docs/PERFORMANCE.md, 2026-12-07, seventh session). A file that has
/// pages keeps its size: SQLite changes it only by VACUUM, and never in WAL
/// mode.
const PAGE_SIZE: u32 = 8192;

/// Prepared statements kept per connection. rusqlite keeps 16; one import
/// batch cycles through more than that (sources, chunks, FTS5, links,
/// replies, file state), so each was compiled again for every message.
const STATEMENT_CACHE: usize = 64;

/// Turn on SQLite's query planner stability guarantee: a statement's plan
/// is chosen without looking at the values bound to it.
///
/// Why: without it, the planner peeks at a parameter compared with `=` (is
/// it the integer 0 or 1?) whenever it weighs a loop that does not use that
/// comparison, and marks the statement to be compiled again when that
/// parameter's binding is cleared. rusqlite clears the bindings of every
/// statement it puts back in its cache, so such a statement was compiled
/// again on every use: the import's lookup of a message's first chunk,
/// once per message, 3 % of a 100k import (docs/PERFORMANCE.md, "eighth
/// session"). No query here binds a LIKE pattern, and the file has no
/// `ANALYZE` statistics, so that peek is all the guarantee turns off.
fn plan_without_bindings(conn: &Connection) -> rusqlite::Result<()> {
    conn.set_db_config(
        rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG,
        true,
    )?;
    Ok(())
}

/// SQLite's own threshold, restored when the import ends.
const DEFAULT_CHECKPOINT_PAGES: u32 = 1000;

pub struct Store {
    pub(crate) conn: Connection,
    path: Option<PathBuf>,
    /// The full-text engine's choice and connections.
    fts: fts::Fts,
    /// Exact scan or index for vector search (`ALFRED_MEM_VECTORS`).
    vectors: vector_index::VectorSearch,
}

impl Store {
    /// Open (creating if needed) the database at `path`. The folder is created
    /// 0700 and the file 0600 before SQLite touches it, so the -wal and -shm
    /// files SQLite derives from it are private too: this is somebody's mail.
    /// Commands open it through [`Store::open_for`], which says whether a
    /// missing database may be created.
    pub fn open(path: &Path) -> Result<Store> {
        Store::open_with(path, true)
    }

    /// `open`, except that with `create` false a missing database is an
    /// error and nothing (no folder, no file) is created.
    fn open_with(path: &Path, create: bool) -> Result<Store> {
        prepare_private_file(path, create)?;
        Store::open_read_write(path, create).or_else(|e| {
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

    fn open_read_write(path: &Path, create: bool) -> Result<Store> {
        let mut flags = OpenFlags::default();
        if !create {
            flags.remove(OpenFlags::SQLITE_OPEN_CREATE);
        }
        let conn = Connection::open_with_flags(path, flags)
            .with_context(|| format!("could not open database: {}", path.display()))?;
        let mut store = Store {
            conn,
            path: Some(path.to_path_buf()),
            fts: Default::default(),
            vectors: Default::default(),
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
            fts: Default::default(),
            vectors: Default::default(),
        };
        store.init(false)?;
        Ok(store)
    }

    /// A private in-memory store, for unit tests.
    pub fn open_in_memory() -> Result<Store> {
        let mut store = Store {
            conn: Connection::open_in_memory()?,
            path: None,
            fts: Default::default(),
            vectors: Default::default(),
        };
        store.init(true)?;
        Ok(store)
    }

    /// Pragmas and migrations; `wal` is false only for an immutable file,
    /// which has no journal to switch.
    fn init(&mut self, wal: bool) -> Result<()> {
        self.conn
            .set_prepared_statement_cache_capacity(STATEMENT_CACHE);
        plan_without_bindings(&self.conn)?;
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
            // Before the switch: a new file takes its page size from its
            // first write, which the switch to WAL is.
            self.conn
                .execute_batch(&format!("PRAGMA page_size = {PAGE_SIZE}"))?;
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
             PRAGMA temp_store = FILE;
             PRAGMA cache_size = -32000;",
        )?;
        // The migrations build the full-text index with its tokenizer.
        fts::register(&self.conn)?;
        // Their sorts (CREATE INDEX over every chunk: 0012 at 1M messages
        // peaked at 197 MB with them in memory) spill to temporary files.
        migrate::migrate(&mut self.conn)?;
        self.conn.execute_batch("PRAGMA temp_store = MEMORY;")?;
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

    /// Checkpoint the log less often while a bulk import writes
    /// ([`IMPORT_CHECKPOINT_BYTES`]), or, with `bulk` false, go back to the
    /// default and copy what the log holds home now (passively: readers
    /// are not waited for), so the log does not stay large.
    pub fn set_bulk_writes(&self, bulk: bool) -> Result<()> {
        let pages = if bulk {
            let page_size: u32 = self.conn.query_row("PRAGMA page_size", [], |r| r.get(0))?;
            IMPORT_CHECKPOINT_BYTES / page_size.max(512)
        } else {
            DEFAULT_CHECKPOINT_PAGES
        };
        self.conn
            .execute_batch(&format!("PRAGMA wal_autocheckpoint = {pages}"))?;
        if !bulk && self.path.is_some() {
            self.conn
                .query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()))?;
        }
        Ok(())
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

    /// A meta value written as unix seconds (`last_index_at`,
    /// `last_dream_at`); None when it is absent or not a number.
    pub fn meta_time(&self, key: &str) -> Result<Option<i64>> {
        Ok(self.get_meta(key)?.and_then(|v| v.parse().ok()))
    }

    pub fn set_meta(&self, key: &str, value: &str) -> Result<()> {
        put_meta(&self.conn, key, value)
    }
}

/// Set a meta value, on the store or inside a writer's transaction (an
/// import batch, a dream run).
fn put_meta(conn: &Connection, key: &str, value: &str) -> Result<()> {
    conn.execute(
        "INSERT INTO meta (key, value) VALUES (?1, ?2)
         ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        params![key, value],
    )?;
    Ok(())
}

/// Commit a writer's transaction, the full-text engine's packed blocks
/// brought up to date first (`fts::catch_up`), so that they are never seen
/// behind the rows.
fn commit_writes(tx: Transaction) -> Result<()> {
    fts::catch_up(&tx)?;
    tx.commit()?;
    Ok(())
}

/// Create the parent folder (0700) and an empty database file (0600) if they
/// do not exist yet and `create` allows it; tighten the modes of the file and
/// its -wal and -shm if it does exist.
fn prepare_private_file(path: &Path, create: bool) -> Result<()> {
    if create && create_private_file(path)? {
        return Ok(());
    }
    let meta = match fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && !create => {
            return Err(access::NoMemory(path.to_path_buf()).into());
        }
        meta => meta.with_context(|| format!("could not read database: {}", path.display()))?,
    };
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

/// Create the folder and the empty file; false if the file already existed.
fn create_private_file(path: &Path) -> Result<bool> {
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
        Ok(_) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
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
