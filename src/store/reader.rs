//! A second read-only store on the same file, for work a search can do on
//! the other core at the same time as its own (the vector side of a hybrid
//! search beside the full-text side: `search::sides`). A [`Reader`] is the
//! recipe, and can be sent to another thread; the store it opens lives there.

use std::path::PathBuf;

use rusqlite::{Connection, OpenFlags};

use super::Store;
use super::vector_index::VectorSearch;

/// How to open another read-only store on this store's file.
#[derive(Debug, Clone)]
pub struct Reader {
    path: PathBuf,
    vectors: VectorSearch,
}

impl Store {
    /// The recipe for a second reader of this store's file; None for an
    /// in-memory store, or on a machine with one core (nothing to gain).
    pub fn reader(&self) -> Option<Reader> {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        if cores < 2 {
            return None;
        }
        Some(Reader {
            path: self.path()?.to_path_buf(),
            vectors: self.vector_search(),
        })
    }
}

impl Reader {
    /// Open it: read-only, no migrations (the store that made the recipe
    /// ran them). None when it cannot be opened or read (a file opened
    /// immutable in a read-only folder has no -shm for a second reader):
    /// then the caller does the work on its own store.
    pub fn open(&self) -> Option<Store> {
        Some(Store {
            conn: self.connection()?,
            path: Some(self.path.clone()),
            fts: Default::default(),
            vectors: self.vectors,
        })
    }

    /// A bare read-only connection to the file, with the full-text
    /// functions registered: for this store, and for the full-text
    /// ranking's second core (`fts::split`). None when it cannot be opened
    /// or read (a file this process opened immutable, in a read-only
    /// folder, has no -shm for it).
    pub(super) fn connection(&self) -> Option<Connection> {
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(&self.path, flags).ok()?;
        conn.busy_timeout(super::BUSY_TIMEOUT).ok()?;
        super::plan_without_bindings(&conn).ok()?;
        super::fts::register(&conn).ok()?;
        conn.query_row("SELECT count(*) FROM sqlite_master", [], |r| {
            r.get::<_, i64>(0)
        })
        .ok()?;
        Some(conn)
    }
}
