//! Reading packed blocks (`blocks`) from inside an FTS5 auxiliary function,
//! where only the raw connection handle is at hand.
//!
//! The rows of a match come in rowid order, and so do the blocks they ask
//! for: the reader keeps one statement walking the table in block order
//! (`block >= ?1 ORDER BY block`) and steps it forward to the block asked
//! for, reading the slot where the statement stands. A walk of a common
//! word touches every block once, in order; a b-tree seek and a copy per
//! block cost a tenth of a ranking at 1M messages (perf). A block behind
//! the statement (the next phrase's walk) or past its end begins it again
//! there.

use std::ptr;

use rusqlite::ffi;

use super::auxiliary::LazyStatement;
use super::blocks::{self, Column};

pub struct BlockReader {
    /// The walk in block order; when it cannot be prepared (say, a table
    /// an old schema lacks), every value is unknown.
    stmt: LazyStatement,
    /// Where the statement stands: the block of its row, or None past the
    /// last block (or before the first step).
    on: Option<i64>,
    /// The walk has begun (the statement is bound and stepped).
    walking: bool,
    /// The blob of the row the statement stands on (empty: none), taken
    /// once per block, not once per row.
    packed: (*const u8, usize),
    col: &'static Column,
}

impl BlockReader {
    /// # Safety
    /// `db` is a live connection that outlives the reader.
    pub unsafe fn open(db: *mut ffi::sqlite3, col: &'static Column) -> BlockReader {
        let sql = format!(
            "SELECT block, packed FROM {} WHERE block >= ?1 ORDER BY block",
            col.table
        );
        BlockReader {
            // SAFETY: as promised by our caller.
            stmt: unsafe { LazyStatement::new(db, &sql) },
            on: None,
            walking: false,
            packed: (ptr::NonNull::dangling().as_ptr(), 0),
            col,
        }
    }

    /// Row `rowid`'s value, or None when the blocks do not know it.
    pub fn get(&mut self, rowid: i64) -> Option<u32> {
        if rowid < 0 {
            return None;
        }
        let (block, slot) = blocks::position(rowid);
        // Behind the statement, or past its end: begin again at the block.
        if !self.walking || self.on.is_none_or(|on| block < on) {
            self.begin(block)?;
        }
        while self.on.is_some_and(|on| on < block) {
            self.step();
        }
        if self.on != Some(block) {
            // Between blocks the table holds: no such block.
            return None;
        }
        // SAFETY: the statement stands on this block's row, where `step`
        // took the blob; it stays valid until the next step or reset, which
        // only `step` and `begin` do, and both take it again.
        let packed = unsafe { std::slice::from_raw_parts(self.packed.0, self.packed.1) };
        blocks::value_in(packed, self.col, slot)
    }

    /// Start the walk at `block`.
    fn begin(&mut self, block: i64) -> Option<()> {
        let stmt = self.stmt.get()?;
        // SAFETY: plain use of the C API on our own statement.
        unsafe {
            ffi::sqlite3_reset(stmt);
            ffi::sqlite3_bind_int64(stmt, 1, block);
        }
        self.walking = true;
        self.step();
        Some(())
    }

    /// Move the statement to its next row, and take its blob.
    fn step(&mut self) {
        self.packed = (ptr::NonNull::dangling().as_ptr(), 0);
        self.on = self.stmt.get().and_then(|stmt| {
            // SAFETY: our own prepared statement, on a row when read.
            unsafe {
                if ffi::sqlite3_step(stmt) != ffi::SQLITE_ROW {
                    return None;
                }
                let p = ffi::sqlite3_column_blob(stmt, 1).cast::<u8>();
                if !p.is_null() {
                    self.packed = (p, ffi::sqlite3_column_bytes(stmt, 1) as usize);
                }
                Some(ffi::sqlite3_column_int64(stmt, 0))
            }
        });
    }
}
