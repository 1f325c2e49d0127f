//! `memory_fts_lengths`: every full-text row's length in tokens, packed 1,024
//! rows to a blob, for `alfred_bm25()` (see `bm25`).
//!
//! FTS5 keeps the same numbers in `memory_fts_docsize`, one row per chunk.
//! These blocks are a copy, brought up to date by every writer before it
//! commits ([`catch_up`], and [`refresh`] for the one row a purge re-indexes).
//! A length the blocks do not hold is read from FTS5 again, so a stale or
//! missing block costs speed, never a different score.

use anyhow::Result;
use rusqlite::{Connection, OptionalExtension, params};

/// Rows per block: 2 KiB of lengths, about one database page.
const BLOCK_ROWS: i64 = 1024;

/// A slot whose length is not known (no full-text row, or 65,535 tokens or
/// more): the reader asks FTS5.
pub const UNKNOWN: u16 = 0;

/// The block and the slot in it of full-text row `rowid` (not negative).
pub fn position(rowid: i64) -> (i64, usize) {
    (rowid / BLOCK_ROWS, (rowid % BLOCK_ROWS) as usize)
}

/// The lengths of a stored block (little-endian u16 per slot).
pub fn decode(bytes: &[u8]) -> Vec<u16> {
    bytes
        .chunks_exact(2)
        .map(|b| u16::from_le_bytes([b[0], b[1]]))
        .collect()
}

fn encode(lengths: &[u16]) -> Vec<u8> {
    lengths.iter().flat_map(|l| l.to_le_bytes()).collect()
}

/// A row's total length from FTS5's docsize blob: one varint per column.
fn docsize_total(sz: &[u8]) -> u16 {
    let mut total: u64 = 0;
    let mut value: u64 = 0;
    for &byte in sz {
        value = (value << 7) | u64::from(byte & 0x7f);
        if byte & 0x80 == 0 {
            total += value;
            value = 0;
        }
    }
    u16::try_from(total)
        .ok()
        .filter(|&t| t != u16::MAX)
        .unwrap_or(UNKNOWN)
}

/// Copy the lengths of every full-text row added since the last call into
/// the blocks. Run inside the writer's transaction, before it commits.
pub fn catch_up(conn: &Connection) -> Result<()> {
    let last: Option<(i64, Vec<u8>)> = conn
        .query_row(
            "SELECT block, lengths FROM memory_fts_lengths ORDER BY block DESC LIMIT 1",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?;
    let (mut block, mut lengths) = match last {
        Some((block, bytes)) => (block, decode(&bytes)),
        None => (0, Vec::new()),
    };
    let first_new = block * BLOCK_ROWS + lengths.len() as i64;
    let mut read =
        conn.prepare_cached("SELECT id, sz FROM memory_fts_docsize WHERE id >= ?1 ORDER BY id")?;
    let mut rows = read.query([first_new])?;
    let mut changed = false;
    while let Some(row) = rows.next()? {
        let id: i64 = row.get(0)?;
        if id < 0 {
            continue;
        }
        let (b, slot) = position(id);
        if b != block {
            if changed {
                store(conn, block, &lengths)?;
            }
            block = b;
            lengths = load(conn, b)?;
        }
        if lengths.len() <= slot {
            lengths.resize(slot + 1, UNKNOWN);
        }
        lengths[slot] = docsize_total(row.get_ref(1)?.as_blob()?);
        changed = true;
    }
    if changed {
        store(conn, block, &lengths)?;
    }
    Ok(())
}

/// Re-read the length of `rowid`, whose full-text row was replaced in place
/// (a purged fact's tombstone).
pub fn refresh(conn: &Connection, rowid: i64) -> Result<()> {
    if rowid < 0 {
        return Ok(());
    }
    let (block, slot) = position(rowid);
    let mut lengths = load(conn, block)?;
    if lengths.len() <= slot {
        // Not copied yet: the next catch_up reads it.
        return Ok(());
    }
    let sz: Option<Vec<u8>> = conn
        .query_row(
            "SELECT sz FROM memory_fts_docsize WHERE id = ?1",
            [rowid],
            |r| r.get(0),
        )
        .optional()?;
    lengths[slot] = sz.map_or(UNKNOWN, |sz| docsize_total(&sz));
    store(conn, block, &lengths)
}

fn load(conn: &Connection, block: i64) -> Result<Vec<u16>> {
    let bytes: Option<Vec<u8>> = conn
        .prepare_cached("SELECT lengths FROM memory_fts_lengths WHERE block = ?1")?
        .query_row([block], |r| r.get(0))
        .optional()?;
    Ok(bytes.map(|b| decode(&b)).unwrap_or_default())
}

fn store(conn: &Connection, block: i64, lengths: &[u16]) -> Result<()> {
    conn.prepare_cached(
        "INSERT INTO memory_fts_lengths (block, lengths) VALUES (?1, ?2)
         ON CONFLICT (block) DO UPDATE SET lengths = excluded.lengths",
    )?
    .execute(params![block, encode(lengths)])?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn docsize_varints_add_up_per_row() {
        // Five columns: 3, 0, 200 (two bytes: 0x81 0x48), 1, 0.
        assert_eq!(docsize_total(&[3, 0, 0x81, 0x48, 1, 0]), 204);
        assert_eq!(docsize_total(&[]), 0);
        // 70,000 tokens do not fit a slot: asked of FTS5 instead.
        assert_eq!(docsize_total(&[0x84, 0xa2, 0x70]), UNKNOWN);
    }

    #[test]
    fn blocks_round_trip() {
        let l = vec![0, 1, 65534, 7];
        assert_eq!(decode(&encode(&l)), l);
        assert_eq!(position(1023), (0, 1023));
        assert_eq!(position(1024), (1, 0));
    }
}
