//! The only place that opens SQLite or holds SQL. `Store::open` is the one way
//! in: private file modes, pragmas, migrations. The submodules group the SQL by
//! what it serves: writing records, searching, facts, the recall log, status.

pub mod dream;
pub mod facts;
mod migrate;
pub mod recall;
pub mod records;
pub mod search;
pub mod status;
pub mod vectors;

use std::fs::{self, OpenOptions};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result};
use rusqlite::{Connection, OptionalExtension, params};

/// How long a writer waits for another process's transaction before failing.
/// Long enough to ride out an index batch commit or a dream run.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

pub struct Store {
    pub(crate) conn: Connection,
    path: Option<PathBuf>,
}

impl Store {
    /// Open (creating if needed) the database at `path`. The folder is created
    /// 0700 and the file 0600 before SQLite touches it, so the -wal and -shm
    /// files SQLite derives from it are private too: this is somebody's mail.
    pub fn open(path: &Path) -> Result<Store> {
        prepare_private_file(path)?;
        let conn = Connection::open(path)
            .with_context(|| format!("could not open database: {}", path.display()))?;
        let mut store = Store {
            conn,
            path: Some(path.to_path_buf()),
        };
        store
            .init()
            .with_context(|| format!("could not open database: {}", path.display()))?;
        Ok(store)
    }

    /// A private in-memory store, for unit tests.
    pub fn open_in_memory() -> Result<Store> {
        let mut store = Store {
            conn: Connection::open_in_memory()?,
            path: None,
        };
        store.init()?;
        Ok(store)
    }

    fn init(&mut self) -> Result<()> {
        self.conn.busy_timeout(BUSY_TIMEOUT)?;
        // WAL lets searches run while an import writes; NORMAL is durable
        // across application crashes, which is what kill -9 tests exercise.
        let mode: String = self
            .conn
            .query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))?;
        if self.path.is_some() && !mode.eq_ignore_ascii_case("wal") {
            anyhow::bail!("could not switch to WAL mode (got {mode}); is the folder read-only?");
        }
        self.conn.execute_batch(
            "PRAGMA synchronous = NORMAL;
             PRAGMA foreign_keys = ON;
             PRAGMA temp_store = MEMORY;
             PRAGMA cache_size = -32000;",
        )?;
        migrate::migrate(&mut self.conn)?;
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
/// do not exist yet; tighten the file's mode if it does.
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
            if meta.permissions().mode() & 0o077 != 0 {
                // Best effort: a file we do not own keeps its mode, and SQLite
                // will still report any real access problem.
                let _ = fs::set_permissions(path, fs::Permissions::from_mode(0o600));
            }
            Ok(())
        }
        Err(e) => Err(e).with_context(|| format!("could not create database: {}", path.display())),
    }
}
