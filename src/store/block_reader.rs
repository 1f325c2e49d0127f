//! Reading packed blocks (`blocks`) from inside an FTS5 auxiliary function,
//! where only the raw connection handle is at hand: one prepared statement,
//! and each block decoded once per query.

use std::ffi::CString;
use std::ptr;

use rusqlite::ffi;

use super::blocks::{self, Column, UNKNOWN};

pub struct BlockReader {
    /// Null when the database has no such table: every value is unknown.
    stmt: *mut ffi::sqlite3_stmt,
    width: usize,
    /// Blocks by number: None until read, then the stored bytes (empty when
    /// the table has no such block), decoded slot by slot as asked.
    blocks: Vec<Option<Vec<u8>>>,
}

impl BlockReader {
    /// # Safety
    /// `db` is a live connection that outlives the reader.
    pub unsafe fn open(db: *mut ffi::sqlite3, col: &Column) -> BlockReader {
        let sql = CString::new(format!("SELECT packed FROM {} WHERE block = ?1", col.table))
            .expect("no NUL in a table name");
        let mut stmt = ptr::null_mut();
        // SAFETY: plain use of the C API on a live connection.
        let rc =
            unsafe { ffi::sqlite3_prepare_v2(db, sql.as_ptr(), -1, &mut stmt, ptr::null_mut()) };
        if rc != ffi::SQLITE_OK {
            stmt = ptr::null_mut();
        }
        BlockReader {
            stmt,
            width: col.width,
            blocks: Vec::new(),
        }
    }

    /// Row `rowid`'s value, or None when the blocks do not know it.
    pub fn get(&mut self, rowid: i64) -> Option<u32> {
        if self.stmt.is_null() || rowid < 0 {
            return None;
        }
        let (block, slot) = blocks::position(rowid);
        let b = usize::try_from(block).ok()?;
        if self.blocks.len() <= b {
            self.blocks.resize(b + 1, None);
        }
        let stmt = self.stmt;
        let bytes = self.blocks[b].get_or_insert_with(|| read(stmt, block));
        let at = slot * self.width;
        let v = blocks::slot_at(bytes.get(at..at + self.width)?);
        (v != UNKNOWN).then_some(v)
    }
}

impl Drop for BlockReader {
    fn drop(&mut self) {
        // SAFETY: our own statement, finalized once (null is a no-op).
        unsafe { ffi::sqlite3_finalize(self.stmt) };
    }
}

fn read(stmt: *mut ffi::sqlite3_stmt, block: i64) -> Vec<u8> {
    // SAFETY: plain use of the C API on a statement we own; the blob is
    // copied out before the statement is reset.
    unsafe {
        ffi::sqlite3_bind_int64(stmt, 1, block);
        let out = if ffi::sqlite3_step(stmt) == ffi::SQLITE_ROW {
            let p = ffi::sqlite3_column_blob(stmt, 0).cast::<u8>();
            let n = ffi::sqlite3_column_bytes(stmt, 0) as usize;
            if p.is_null() {
                Vec::new()
            } else {
                std::slice::from_raw_parts(p, n).to_vec()
            }
        } else {
            Vec::new()
        };
        ffi::sqlite3_reset(stmt);
        out
    }
}
