//! How a command opens the database: [`Store::open_for`], the one door, with
//! what it needs decided before it reads any input: whether a missing
//! database may be created, and whether it must be writable. A typo in
//! `--db` on a command that only reads must not leave a new empty memory
//! (and its folders) behind, and an import into a read-only memory must fail
//! before it reads a single message, not after the last one.

use std::path::{Path, PathBuf};

use anyhow::Result;
use rusqlite::{MAIN_DB, ffi};

use super::Store;
use crate::config::Config;

/// How a command uses the database (the table is in the README, "Where the
/// memory lives").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Read what is there (a search also logs its recall when it can): the
    /// database must exist; a read-only one is fine.
    Read,
    /// Change what is there (forget, dream, embed, model off): the database
    /// must exist and be writable.
    Change,
    /// Add something new (index-*, remember, model use): a missing database
    /// is created; it must be writable.
    Add,
    /// Serve the memory to an agent (mcp): a missing database is created,
    /// as an agent may remember a fact before anything is indexed; a
    /// read-only one still answers searches.
    Serve,
}

impl Access {
    fn creates(self) -> bool {
        matches!(self, Access::Add | Access::Serve)
    }

    fn writes(self) -> bool {
        matches!(self, Access::Change | Access::Add)
    }
}

/// The database file does not exist, and the command only reads or changes
/// what is already remembered.
#[derive(Debug, thiserror::Error)]
#[error("no memory at {} yet: index something first", .0.display())]
pub struct NoMemory(pub PathBuf);

impl Store {
    /// The configured database, opened as `access` allows, ranking
    /// full-text matches with the configured engine (`Config::fts`). Every
    /// command opens the store here, so none can leave a setting behind.
    pub fn open_for(config: &Config, access: Access) -> Result<Store> {
        let mut store = Store::open_as(&config.db_path, access)?;
        store.fts.choose(config.fts);
        store.choose_vector_search(config.vectors);
        Ok(store)
    }

    /// Open the database at `path` as `access` allows: create it only for
    /// [`Access::Add`] and [`Access::Serve`], and for a writer check now
    /// that it can be written.
    pub fn open_as(path: &Path, access: Access) -> Result<Store> {
        let store = Store::open_with(path, access.creates())?;
        if access.writes() {
            store.check_writable()?;
        }
        Ok(store)
    }

    /// Fail now, as the first write would, if the database cannot be
    /// written. SQLite opens a write-protected file read-only without a
    /// word, so that is asked first; `BEGIN IMMEDIATE` then takes the write
    /// lock as a write would (waiting for another writer as one would) and
    /// meets any other refusal, such as a -wal or -shm that cannot be
    /// written. Nothing is written: the transaction is rolled back at once.
    fn check_writable(&self) -> Result<()> {
        if self.conn.is_readonly(MAIN_DB)? {
            // The error SQLite gives a write, so `failure::explain` words
            // it ("database is read-only: PATH") like any other.
            let e = ffi::Error::new(ffi::SQLITE_READONLY);
            return Err(rusqlite::Error::SqliteFailure(e, None).into());
        }
        self.conn.execute_batch("BEGIN IMMEDIATE; ROLLBACK;")?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::failure::{WriteFailure, write_failure};

    #[test]
    fn reading_or_changing_a_missing_database_creates_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("typo").join("memory.db");
        for access in [Access::Read, Access::Change] {
            let e = Store::open_as(&db, access).err().expect("an error");
            assert!(e.downcast_ref::<NoMemory>().is_some(), "{e:#}");
            assert_eq!(
                e.to_string(),
                format!("no memory at {} yet: index something first", db.display())
            );
        }
        assert!(!dir.path().join("typo").exists());
        Store::open_as(&db, Access::Add).unwrap();
        assert!(db.exists());
        Store::open_as(&db, Access::Read).unwrap();
        Store::open_as(&db, Access::Change).unwrap();
    }

    /// What each kind of access asks of the database.
    #[test]
    fn only_adding_and_serving_create_and_only_adding_and_changing_write() {
        let table = [
            (Access::Read, false, false),
            (Access::Change, false, true),
            (Access::Add, true, true),
            (Access::Serve, true, false),
        ];
        for (access, creates, writes) in table {
            assert_eq!(
                (access.creates(), access.writes()),
                (creates, writes),
                "{access:?}"
            );
        }
    }

    #[test]
    fn a_command_opens_the_configured_database_with_the_configured_engine() {
        let dir = tempfile::tempdir().unwrap();
        let mut config = Config::resolve(Some(dir.path().join("memory.db"))).unwrap();
        config.fts = crate::store::FtsEngine::Plain;
        let store = Store::open_for(&config, Access::Serve).unwrap();
        assert_eq!(store.path(), Some(config.db_path.as_path()));
        assert_eq!(
            store.fts.engine(&store.conn),
            crate::store::FtsEngine::Plain
        );
    }

    #[test]
    fn a_read_only_database_is_refused_at_open_for_writing_only() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("memory.db");
        drop(Store::open(&db).unwrap());
        // A read-only connection stands in for a file the user cannot
        // write (tests may run as root, whom file modes do not bind).
        let conn =
            rusqlite::Connection::open_with_flags(&db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
                .unwrap();
        let store = Store {
            conn,
            path: Some(db.clone()),
            fts: Default::default(),
            vectors: Default::default(),
        };
        let e = store.check_writable().unwrap_err();
        assert_eq!(write_failure(&e), Some(WriteFailure::ReadOnly), "{e:#}");
    }
}
