//! The plumbing shared by alfred-mem's FTS5 auxiliary functions
//! (`alfred_bm25()` in `bm25.rs`, `alfred_bm25_scan()` and
//! `alfred_bm25_planned()` in `scan.rs`,
//! `alfred_dated_in()` in `window.rs`, and
//! `alfred_fts_sizes()` here): registering them on a connection, the
//! per-query data FTS5 keeps for each, and the one-row lookups they run on
//! the raw connection handle. An auxiliary function is FTS5's public way in:
//! it is handed the matching row and asks FTS5's API about it.

use std::ffi::{CString, c_int, c_void};
use std::ptr;

use anyhow::{Result, bail};
use rusqlite::ffi;
use rusqlite::{Connection, OptionalExtension, ToSql};

/// An FTS5 auxiliary function as the C API calls it.
pub type Fts5Function = unsafe extern "C" fn(
    *const ffi::Fts5ExtensionApi,
    *mut ffi::Fts5Context,
    *mut ffi::sqlite3_context,
    c_int,
    *mut *mut ffi::sqlite3_value,
);

/// Make alfred-mem's auxiliary functions and its tokenizer available on
/// `conn`. Cheap: one statement.
pub fn register(conn: &Connection) -> Result<()> {
    // SAFETY: the handle belongs to `conn`, which outlives the functions:
    // FTS5 drops them when the connection closes. The user data is the same
    // handle, used only while a statement of this connection runs.
    unsafe {
        let db = conn.handle();
        let api = fts5_api(db)?;
        let create = (*api)
            .xCreateFunction
            .expect("fts5_api has xCreateFunction");
        for (name, function) in [
            (c"alfred_bm25", super::bm25::bm25 as Fts5Function),
            (c"alfred_bm25_scan", super::scan::bm25_scan),
            (c"alfred_bm25_planned", super::scan::bm25_planned),
            (c"alfred_dated_in", super::window::dated_in),
            (c"alfred_fts_sizes", sizes),
        ] {
            let rc = create(api, name.as_ptr(), db.cast(), Some(function), None);
            if rc != ffi::SQLITE_OK {
                bail!("could not register {name:?}: SQLite error {rc}");
            }
        }
        super::tokenizer::register(api)?;
    }
    Ok(())
}

/// The connection's `fts5_api`, as the FTS5 documentation says to get it.
unsafe fn fts5_api(db: *mut ffi::sqlite3) -> Result<*mut ffi::fts5_api> {
    let mut api: *mut ffi::fts5_api = ptr::null_mut();
    let mut stmt = ptr::null_mut();
    // SAFETY: plain use of the C API on a live connection; the pointer bound
    // is written by SQLite during the step and read after it.
    unsafe {
        let rc = ffi::sqlite3_prepare_v2(
            db,
            c"SELECT fts5(?1)".as_ptr(),
            -1,
            &mut stmt,
            ptr::null_mut(),
        );
        if rc != ffi::SQLITE_OK {
            bail!("FTS5 is not available: SQLite error {rc}");
        }
        ffi::sqlite3_bind_pointer(
            stmt,
            1,
            (&mut api as *mut *mut ffi::fts5_api).cast(),
            c"fts5_api_ptr".as_ptr(),
            None,
        );
        ffi::sqlite3_step(stmt);
        ffi::sqlite3_finalize(stmt);
    }
    if api.is_null() {
        bail!("FTS5 did not hand out its API");
    }
    Ok(api)
}

/// FTS5's own answers about one row, through its public API: the index's
/// row count (`xRowCount`) and total tokens (`xColumnTotalSize`), and the
/// row's tokens (`xColumnSize`), all columns. The self-check compares them
/// with what the private records say (`check.rs`); the plain engine takes
/// the row count from here.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sizes {
    pub rows: i64,
    pub tokens: i64,
    pub row_tokens: i64,
}

/// The [`Sizes`] of the first row of `memory_fts` where `filter` (with
/// `?1` bound to `param`); None when no row passes.
pub fn sizes_where(conn: &Connection, filter: &str, param: impl ToSql) -> Result<Option<Sizes>> {
    let sql = format!("SELECT alfred_fts_sizes(memory_fts) FROM memory_fts WHERE {filter} LIMIT 1");
    let blob: Option<Vec<u8>> = conn
        .prepare_cached(&sql)?
        .query_row([param], |r| r.get(0))
        .optional()?;
    Ok(blob.map(|b| Sizes::from_blob(&b)))
}

impl Sizes {
    /// What `alfred_fts_sizes()` returned; a short blob reads as zeros.
    pub fn from_blob(b: &[u8]) -> Sizes {
        let at = |i: usize| {
            b.get(8 * i..8 * i + 8)
                .map_or(0, |v| i64::from_le_bytes(v.try_into().expect("8 bytes")))
        };
        Sizes {
            rows: at(0),
            tokens: at(1),
            row_tokens: at(2),
        }
    }
}

/// `alfred_fts_sizes(memory_fts)`: the row's [`Sizes`] as three
/// little-endian i64s.
unsafe extern "C" fn sizes(
    api: *const ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    ctx: *mut ffi::sqlite3_context,
    _n_val: c_int,
    _ap_val: *mut *mut ffi::sqlite3_value,
) {
    // SAFETY: FTS5 calls this with a valid API and context; the result blob
    // is copied by SQLite (SQLITE_TRANSIENT) before `out` is dropped.
    unsafe {
        let api = &*api;
        let (mut rows, mut tokens, mut row_tokens) = (0i64, 0i64, 0 as c_int);
        let asked = check((api.xRowCount.unwrap())(fts, &mut rows))
            .and_then(|()| check((api.xColumnTotalSize.unwrap())(fts, -1, &mut tokens)))
            .and_then(|()| check((api.xColumnSize.unwrap())(fts, -1, &mut row_tokens)));
        if let Err(rc) = asked {
            ffi::sqlite3_result_error_code(ctx, rc);
            return;
        }
        let out: Vec<u8> = [rows, tokens, i64::from(row_tokens)]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        ffi::sqlite3_result_blob(
            ctx,
            out.as_ptr().cast(),
            out.len() as c_int,
            ffi::SQLITE_TRANSIENT(),
        );
    }
}

/// `Err(rc)` unless `rc` is SQLITE_OK.
pub fn check(rc: c_int) -> Result<(), c_int> {
    if rc == ffi::SQLITE_OK {
        Ok(())
    } else {
        Err(rc)
    }
}

unsafe extern "C" fn drop_boxed<T>(p: *mut c_void) {
    // SAFETY: `p` is the Box leaked in `aux_data::<T>`, dropped once by FTS5.
    drop(unsafe { Box::from_raw(p.cast::<T>()) });
}

/// The calling function's data for the current query: made by `make` (given
/// the connection handle) on its first row, kept by FTS5 until the query
/// ends and then dropped.
///
/// # Safety
/// `api` and `fts` are what FTS5 passed to the calling auxiliary function,
/// and that function always asks for the same `T`.
pub unsafe fn aux_data<'a, T>(
    api: &ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    make: impl FnOnce(*mut ffi::sqlite3) -> Result<T, c_int>,
) -> Result<&'a mut T, c_int> {
    // SAFETY: FTS5 API calls with the context it gave us; the pointer is the
    // Box of a `T` set here, alive until FTS5 calls `drop_boxed`.
    unsafe {
        let existing = (api.xGetAuxdata.unwrap())(fts, 0).cast::<T>();
        if !existing.is_null() {
            return Ok(&mut *existing);
        }
        let db = (api.xUserData.unwrap())(fts).cast::<ffi::sqlite3>();
        let data = Box::into_raw(Box::new(make(db)?));
        // On failure FTS5 has already called the destructor.
        check((api.xSetAuxdata.unwrap())(
            fts,
            data.cast(),
            Some(drop_boxed::<T>),
        ))?;
        Ok(&mut *data)
    }
}

/// A one-row lookup by an integer key (`... WHERE key = ?1`) on a raw
/// connection handle.
pub struct KeyedLookup {
    stmt: LazyStatement,
}

impl KeyedLookup {
    /// # Safety
    /// `db` is a live connection that outlives the lookup.
    pub unsafe fn new(db: *mut ffi::sqlite3, sql: &str) -> KeyedLookup {
        KeyedLookup {
            // SAFETY: as promised by our caller.
            stmt: unsafe { LazyStatement::new(db, sql) },
        }
    }

    /// `read` on the row for `key`, or None when there is none.
    pub fn row<T>(
        &mut self,
        key: i64,
        read: impl FnOnce(*mut ffi::sqlite3_stmt) -> T,
    ) -> Option<T> {
        let stmt = self.stmt.get()?;
        // SAFETY: plain use of the C API on our own statement, reset after
        // each use.
        unsafe {
            ffi::sqlite3_bind_int64(stmt, 1, key);
            let out = (ffi::sqlite3_step(stmt) == ffi::SQLITE_ROW).then(|| read(stmt));
            ffi::sqlite3_reset(stmt);
            out
        }
    }
}

/// A statement on a raw connection handle (inside an auxiliary function
/// only that is at hand): prepared on first use, finalized on drop.
pub struct LazyStatement {
    db: *mut ffi::sqlite3,
    sql: CString,
    stmt: *mut ffi::sqlite3_stmt,
    /// The statement could not be prepared (say, a table an old schema
    /// lacks): every use finds nothing, without trying again.
    failed: bool,
}

impl LazyStatement {
    /// # Safety
    /// `db` is a live connection that outlives the statement.
    pub unsafe fn new(db: *mut ffi::sqlite3, sql: &str) -> LazyStatement {
        LazyStatement {
            db,
            sql: CString::new(sql).expect("no NUL in our SQL"),
            stmt: ptr::null_mut(),
            failed: false,
        }
    }

    /// The prepared statement; None when it cannot be prepared.
    pub fn get(&mut self) -> Option<*mut ffi::sqlite3_stmt> {
        if self.stmt.is_null() && !self.failed {
            // SAFETY: plain use of the C API on the live connection.
            unsafe {
                let rc = ffi::sqlite3_prepare_v2(
                    self.db,
                    self.sql.as_ptr(),
                    -1,
                    &mut self.stmt,
                    ptr::null_mut(),
                );
                if rc != ffi::SQLITE_OK {
                    ffi::sqlite3_finalize(self.stmt);
                    self.stmt = ptr::null_mut();
                    self.failed = true;
                }
            }
        }
        (!self.stmt.is_null()).then_some(self.stmt)
    }
}

impl Drop for LazyStatement {
    fn drop(&mut self) {
        // SAFETY: our own statement, finalized once (null is a no-op).
        unsafe { ffi::sqlite3_finalize(self.stmt) };
    }
}
