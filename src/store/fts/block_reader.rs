//! Reading packed blocks (`blocks`) from inside an FTS5 auxiliary function,
//! where only the raw connection handle is at hand: one lookup statement,
//! and each block read once per query.

use rusqlite::ffi;

use super::auxiliary::KeyedLookup;
use super::blocks::{self, Column};

pub struct BlockReader {
    /// Finds nothing when the database has no such table: every value is
    /// then unknown.
    lookup: KeyedLookup,
    col: &'static Column,
    /// Blocks by number: None until read, then the stored bytes (empty when
    /// the table has no such block), decoded slot by slot as asked.
    blocks: Vec<Option<Vec<u8>>>,
}

impl BlockReader {
    /// # Safety
    /// `db` is a live connection that outlives the reader.
    pub unsafe fn open(db: *mut ffi::sqlite3, col: &'static Column) -> BlockReader {
        let sql = format!("SELECT packed FROM {} WHERE block = ?1", col.table);
        BlockReader {
            // SAFETY: as promised by our caller.
            lookup: unsafe { KeyedLookup::new(db, &sql) },
            col,
            blocks: Vec::new(),
        }
    }

    /// Row `rowid`'s value, or None when the blocks do not know it.
    pub fn get(&mut self, rowid: i64) -> Option<u32> {
        if rowid < 0 {
            return None;
        }
        let (block, slot) = blocks::position(rowid);
        let b = usize::try_from(block).ok()?;
        if self.blocks.len() <= b {
            self.blocks.resize(b + 1, None);
        }
        let lookup = &mut self.lookup;
        let bytes =
            self.blocks[b].get_or_insert_with(|| lookup.row(block, blob).unwrap_or_default());
        blocks::value_in(bytes, self.col, slot)
    }
}

/// The first column's blob, copied out before the statement moves on.
fn blob(stmt: *mut ffi::sqlite3_stmt) -> Vec<u8> {
    // SAFETY: `stmt` is on a row; the blob is valid until the next step or
    // reset, and copied before.
    unsafe {
        let p = ffi::sqlite3_column_blob(stmt, 0).cast::<u8>();
        let n = ffi::sqlite3_column_bytes(stmt, 0) as usize;
        if p.is_null() {
            Vec::new()
        } else {
            std::slice::from_raw_parts(p, n).to_vec()
        }
    }
}
