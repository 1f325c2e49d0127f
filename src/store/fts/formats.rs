//! Readers of the two FTS5 records that SQLite keeps private, the only
//! places where the fast engine depends on how FTS5 stores its index:
//!
//! - the docsize record (`memory_fts_docsize.sz`): one varint per column,
//!   the row's length in tokens in each. The writers copy the totals into the
//!   packed `memory_fts_narrow_lengths` blocks (`blocks.rs`), so that
//!   `alfred_bm25()` does not look up every matching row.
//! - the averages record (row 1 of `memory_fts_data`): the row count, then
//!   each column's total tokens. A search reads it once (`plan.rs`) to give
//!   every phrase's IDF and the average row length to `alfred_bm25()`,
//!   counted once instead of by every connection that scores a part.
//!
//! Both have read alike in every SQLite alfred-mem has met, but neither is a
//! promised interface: `check.rs` compares these readers with FTS5's own
//! answers before the first fast search, and search falls back to the plain
//! engine where they disagree.

use anyhow::Result;
use rusqlite::{Connection, OptionalExtension};

/// `id, sz` of the docsize records from id ?1 on, in id order.
pub const DOCSIZES_FROM: &str = "SELECT id, sz FROM memory_fts_docsize WHERE id >= ?1 ORDER BY id";

/// A row's length in tokens, all columns, from its docsize record.
pub fn docsize_tokens(sz: &[u8]) -> u64 {
    varints(sz).iter().fold(0u64, |t, &v| t.saturating_add(v))
}

/// Row `rowid`'s length in tokens from its docsize record; None when there
/// is no record.
pub fn row_tokens(conn: &Connection, rowid: i64) -> Result<Option<u64>> {
    let sz: Option<Vec<u8>> = conn
        .prepare_cached("SELECT sz FROM memory_fts_docsize WHERE id = ?1")?
        .query_row([rowid], |r| r.get(0))
        .optional()?;
    Ok(sz.map(|sz| docsize_tokens(&sz)))
}

/// FTS5's row count and total tokens, all columns, as its `xRowCount` and
/// `xColumnTotalSize` give them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Totals {
    pub rows: i64,
    pub tokens: i64,
}

impl Totals {
    /// The average row length, as FTS5's bm25 computes it.
    pub fn avgdl(&self) -> f64 {
        self.tokens as f64 / self.rows as f64
    }
}

/// The averages record: zeros when there is none (an empty index).
pub fn totals(conn: &Connection) -> Result<Totals> {
    let record: Option<Vec<u8>> = conn
        .prepare_cached("SELECT block FROM memory_fts_data WHERE id = 1")?
        .query_row([], |r| r.get(0))
        .optional()?;
    let values = record.map(|r| varints(&r)).unwrap_or_default();
    Ok(Totals {
        rows: values.first().copied().unwrap_or(0) as i64,
        tokens: values.iter().skip(1).map(|&v| v as i64).sum(),
    })
}

/// A run of SQLite varints.
fn varints(mut bytes: &[u8]) -> Vec<u64> {
    let mut out = Vec::new();
    while !bytes.is_empty() {
        let (v, used) = sqlite_varint(bytes);
        out.push(v);
        bytes = &bytes[used..];
    }
    out
}

/// SQLite's varint: big-endian 7-bit groups, the ninth byte whole. Returns
/// the value and the bytes it used.
fn sqlite_varint(bytes: &[u8]) -> (u64, usize) {
    let mut v: u64 = 0;
    for (i, &b) in bytes.iter().take(9).enumerate() {
        if i == 8 {
            return ((v << 8) | u64::from(b), 9);
        }
        v = (v << 7) | u64::from(b & 0x7f);
        if b & 0x80 == 0 {
            return (v, i + 1);
        }
    }
    (v, bytes.len().min(9))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_in_a_row() {
        assert_eq!(varints(&[5]), [5]);
        assert_eq!(varints(&[0x81, 0x00, 7]), [128, 7]);
        assert_eq!(varints(&[0x94, 0x8f, 0x47, 0]), [329_671, 0]);
        assert!(varints(&[]).is_empty());
    }

    #[test]
    fn docsize_varints_add_up_per_row() {
        // Five columns: 3, 0, 200 (two bytes: 0x81 0x48), 1, 0.
        assert_eq!(docsize_tokens(&[3, 0, 0x81, 0x48, 1, 0]), 204);
        assert_eq!(docsize_tokens(&[]), 0);
        assert_eq!(docsize_tokens(&[0x84, 0xa2, 0x70]), 70_000);
    }
}
