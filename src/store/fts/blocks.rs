//! Per-row numbers the full-text ranking needs for every matching row,
//! packed 1,024 rows to a blob so that a query reads a few blobs instead of
//! looking up one row per match:
//!
//! - [`LENGTHS`]: each full-text row's length in tokens, for
//!   `alfred_bm25()`. FTS5 keeps the same numbers in `memory_fts_docsize`.
//!   A block starts with the width of its slots: 1 byte when every length
//!   in it is under 256 (nearly every chunk), else 2 (migration 0017).
//!   A common word's walk reads every block, which a cold search reads from
//!   the disk page by page: at 1M messages 8.8 MB of u16 blocks, 2.2 MB of
//!   them the slack of pages that held three 2 KB blobs (docs/PERFORMANCE.md,
//!   "eighth session").
//! - [`DATES`]: each chunk's day (u16 days since 1970-01-01 UTC), for
//!   `alfred_dated_in()`, the time-window test: a day strictly inside or
//!   outside the window decides it; a row on the window's first or last
//!   day is looked up to the second.
//! - [`SOURCES`]: each chunk's source type ([`source_slot`]), for the
//!   source filter of the one-call rankings (`filter.rs`); a byte a row
//!   after the block's width byte, like the lengths (migration 0017).
//!
//! The blocks are a copy, brought up to date by every writer before it
//! commits ([`catch_up`], and [`refresh_length`] for the one row a purge
//! re-indexes). A value the blocks do not hold ([`UNKNOWN`]) is read from
//! its source again, so a stale or missing block costs speed, never a
//! different result.

use anyhow::Result;
use rusqlite::types::ValueRef;
use rusqlite::{Connection, OptionalExtension, params};

use super::formats;
use crate::kinds::SourceType;

/// Rows per block.
pub const BLOCK_ROWS: i64 = 1024;

/// A slot whose value is not known: the reader asks the source table.
pub const UNKNOWN: u32 = 0;

/// In [`DATES`]: no date, an evergreen fact (passes every window).
pub const EVERGREEN: u32 = 1;

/// One packed column: where it is stored and where it is copied from.
pub struct Column {
    pub table: &'static str,
    /// Bytes per slot (2 or 4), little-endian; for a column that
    /// [`narrows`](Column::narrows), the widest a block may use.
    pub width: usize,
    /// Whether each block begins with one byte, the width of its slots: 1
    /// when every slot fits a byte, else `width`.
    pub narrows: bool,
    /// `id, value` of the rows from id ?1 on, in id order.
    source: &'static str,
    /// The slot for a source value ([`UNKNOWN`] when it does not fit).
    slot: fn(ValueRef) -> u32,
}

pub const LENGTHS: Column = Column {
    table: "memory_fts_narrow_lengths",
    width: 2,
    narrows: true,
    source: formats::DOCSIZES_FROM,
    slot: |v| {
        v.as_blob()
            .map_or(UNKNOWN, |sz| length_slot(formats::docsize_tokens(sz)))
    },
};

// DATES and SOURCES read the view `memory_chunks`, not `memory_chunk_rows`:
// migrations before 0015 (0004, 0014) run them when only the table of that
// name exists.
pub const DATES: Column = Column {
    table: "memory_chunk_dates",
    width: 2,
    narrows: false,
    source: "SELECT id, dated_at FROM memory_chunks WHERE id >= ?1 ORDER BY id",
    slot: |v| match v {
        ValueRef::Null => EVERGREEN,
        ValueRef::Integer(t) => u16::try_from(day(t))
            .ok()
            .map(u32::from)
            .filter(|&d| d > EVERGREEN)
            .unwrap_or(UNKNOWN),
        _ => UNKNOWN,
    },
};

pub const SOURCES: Column = Column {
    table: "memory_chunk_narrow_sources",
    width: 2,
    narrows: true,
    source: "SELECT id, source_type FROM memory_chunks WHERE id >= ?1 ORDER BY id",
    slot: |v| {
        v.as_str()
            .ok()
            .and_then(SourceType::parse)
            .map_or(UNKNOWN, source_slot)
    },
};

/// A source type's slot in [`SOURCES`]: 1 + its place in `SourceType::ALL`.
pub fn source_slot(s: SourceType) -> u32 {
    let at = SourceType::ALL.iter().position(|&t| t == s);
    at.map_or(UNKNOWN, |i| i as u32 + 1)
}

/// The UTC day of unix time `t`, counted from 1970-01-01 (day 0).
pub fn day(t: i64) -> i64 {
    t.div_euclid(86_400)
}

/// The block and the slot in it of row `rowid` (not negative).
#[inline]
pub fn position(rowid: i64) -> (i64, usize) {
    (rowid / BLOCK_ROWS, (rowid % BLOCK_ROWS) as usize)
}

/// The width of a stored block's slots and the bytes that hold them; None
/// for a narrowing block without its width byte.
#[inline]
fn layout<'a>(packed: &'a [u8], col: &Column) -> Option<(usize, &'a [u8])> {
    if col.narrows {
        let (&width, slots) = packed.split_first()?;
        Some((usize::from(width), slots))
    } else {
        Some((col.width, packed))
    }
}

/// The slots of a stored block of `col`. A width other than 1, 2 or 4
/// reads as no slots, so they are read from the source again.
pub fn decode(bytes: &[u8], col: &Column) -> Vec<u32> {
    match layout(bytes, col) {
        Some((width @ (1 | 2 | 4), slots)) => slots.chunks_exact(width).map(slot_at).collect(),
        _ => Vec::new(),
    }
}

/// One slot from its little-endian bytes (1, 2 or 4 of them).
#[inline]
pub fn slot_at(b: &[u8]) -> u32 {
    match *b {
        [v] => u32::from(v),
        [lo, hi] => u32::from(u16::from_le_bytes([lo, hi])),
        [a, b, c, d] => u32::from_le_bytes([a, b, c, d]),
        _ => UNKNOWN,
    }
}

fn encode(slots: &[u32], col: &Column) -> Vec<u8> {
    let narrow = col.narrows && slots.iter().all(|&s| s <= u32::from(u8::MAX));
    let width = if narrow { 1 } else { col.width };
    let head = col.narrows.then_some(width as u8);
    head.into_iter()
        .chain(
            slots
                .iter()
                .flat_map(|s| s.to_le_bytes().into_iter().take(width)),
        )
        .collect()
}

/// The slot for a row of `tokens` tokens: [`UNKNOWN`] from 65,535 on, which
/// a u16 slot cannot hold.
fn length_slot(tokens: u64) -> u32 {
    u32::try_from(tokens)
        .ok()
        .filter(|&t| t < u32::from(u16::MAX))
        .unwrap_or(UNKNOWN)
}

/// Copy every row added since the last call into the blocks of every
/// column. Run inside the writer's transaction, before it commits.
pub fn catch_up(conn: &Connection) -> Result<()> {
    for col in [&LENGTHS, &DATES, &SOURCES] {
        // A migration before the column's own (0004, 0014) has no table.
        let present = conn
            .prepare_cached("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1")?
            .exists([col.table])?;
        if present {
            catch_up_column(conn, col)?;
        }
    }
    Ok(())
}

fn catch_up_column(conn: &Connection, col: &Column) -> Result<()> {
    let last: Option<(i64, Vec<u8>)> = conn
        .query_row(
            &format!(
                "SELECT block, packed FROM {} ORDER BY block DESC LIMIT 1",
                col.table
            ),
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?;
    let (mut block, mut slots) = match last {
        Some((block, bytes)) => (block, decode(&bytes, col)),
        None => (0, Vec::new()),
    };
    let first_new = block * BLOCK_ROWS + slots.len() as i64;
    let mut read = conn.prepare_cached(col.source)?;
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
                store(conn, col, block, &slots)?;
            }
            block = b;
            slots = load(conn, col, b)?;
        }
        if slots.len() <= slot {
            slots.resize(slot + 1, UNKNOWN);
        }
        slots[slot] = (col.slot)(row.get_ref(1)?);
        changed = true;
    }
    if changed {
        store(conn, col, block, &slots)?;
    }
    Ok(())
}

/// Re-read the length of `rowid`, whose full-text row was replaced in place
/// (a purged fact's tombstone).
pub fn refresh_length(conn: &Connection, rowid: i64) -> Result<()> {
    if rowid < 0 {
        return Ok(());
    }
    let (block, slot) = position(rowid);
    let mut slots = load(conn, &LENGTHS, block)?;
    if slots.len() <= slot {
        // Not copied yet: the next catch_up reads it.
        return Ok(());
    }
    slots[slot] = formats::row_tokens(conn, rowid)?.map_or(UNKNOWN, length_slot);
    store(conn, &LENGTHS, block, &slots)
}

/// The value in `slot` of `packed`, a stored block of `col`; None when the
/// block does not know it.
#[inline]
pub fn value_in(packed: &[u8], col: &Column, slot: usize) -> Option<u32> {
    let (width, slots) = layout(packed, col)?;
    let at = slot * width;
    let v = slot_at(slots.get(at..at + width)?);
    (v != UNKNOWN).then_some(v)
}

fn load(conn: &Connection, col: &Column, block: i64) -> Result<Vec<u32>> {
    let bytes: Option<Vec<u8>> = conn
        .prepare_cached(&format!(
            "SELECT packed FROM {} WHERE block = ?1",
            col.table
        ))?
        .query_row([block], |r| r.get(0))
        .optional()?;
    Ok(bytes.map(|b| decode(&b, col)).unwrap_or_default())
}

fn store(conn: &Connection, col: &Column, block: i64, slots: &[u32]) -> Result<()> {
    conn.prepare_cached(&format!(
        "INSERT INTO {} (block, packed) VALUES (?1, ?2)
         ON CONFLICT (block) DO UPDATE SET packed = excluded.packed",
        col.table
    ))?
    .execute(params![block, encode(slots, col)])?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_from_docsize_records() {
        // Five columns: 3, 0, 200 (two bytes: 0x81 0x48), 1, 0.
        assert_eq!(
            (LENGTHS.slot)(ValueRef::Blob(&[3, 0, 0x81, 0x48, 1, 0])),
            204
        );
        assert_eq!((LENGTHS.slot)(ValueRef::Blob(&[])), 0);
        // 70,000 tokens do not fit a u16 slot: asked of FTS5 instead.
        assert_eq!((LENGTHS.slot)(ValueRef::Blob(&[0x84, 0xa2, 0x70])), UNKNOWN);
        assert_eq!((LENGTHS.slot)(ValueRef::Null), UNKNOWN);
    }

    #[test]
    fn blocks_round_trip() {
        let d = vec![0, 1, 19_675, 65_535];
        assert_eq!(decode(&encode(&d, &DATES), &DATES), d);
        assert_eq!(encode(&d, &DATES).len(), 8);
        let wide = Column { width: 4, ..DATES };
        let w = vec![0, 1, 1_700_000_000, u32::MAX];
        assert_eq!(decode(&encode(&w, &wide), &wide), w);
        assert_eq!(position(1023), (0, 1023));
        assert_eq!(position(1024), (1, 0));
    }

    /// A block of lengths is one byte a row while every length in it fits
    /// a byte, and two from the first that does not; each reads back.
    #[test]
    fn length_blocks_narrow_to_a_byte_where_they_can() {
        let short = vec![0, 1, 80, 255];
        let packed = encode(&short, &LENGTHS);
        assert_eq!(packed, [1, 0, 1, 80, 255]);
        assert_eq!(decode(&packed, &LENGTHS), short);
        let long = vec![3, 256, 65_534];
        let packed = encode(&long, &LENGTHS);
        assert_eq!(packed, [2, 3, 0, 0, 1, 0xfe, 0xff]);
        assert_eq!(decode(&packed, &LENGTHS), long);
        for (slot, want) in [(0, Some(3)), (1, Some(256)), (2, Some(65_534)), (3, None)] {
            assert_eq!(value_in(&packed, &LENGTHS, slot), want);
        }
        assert_eq!(value_in(&[1, 0, 9], &LENGTHS, 0), None);
        assert_eq!(value_in(&[1, 0, 9], &LENGTHS, 1), Some(9));
        // No width byte, or a width no block is written with: nothing known.
        assert_eq!(value_in(&[], &LENGTHS, 0), None);
        assert_eq!(decode(&[3, 1, 2, 3], &LENGTHS), Vec::<u32>::new());
        assert_eq!(value_in(&[3, 1, 2, 3], &LENGTHS, 0), None);
    }

    #[test]
    fn sources_are_numbered_and_unknown_ones_looked_up() {
        assert_eq!((SOURCES.slot)(ValueRef::Text(b"email")), 1);
        assert_eq!((SOURCES.slot)(ValueRef::Text(b"fact")), 4);
        assert_eq!((SOURCES.slot)(ValueRef::Text(b"fax")), UNKNOWN);
        assert_eq!((SOURCES.slot)(ValueRef::Null), UNKNOWN);
        let slots: Vec<u32> = SourceType::ALL.iter().map(|&s| source_slot(s)).collect();
        assert_eq!(slots, [1, 2, 3, 4]);
    }

    #[test]
    fn dates_are_days_and_days_out_of_range_are_looked_up() {
        assert_eq!((DATES.slot)(ValueRef::Null), EVERGREEN);
        // 2023-11-14T22:13:20Z is day 19,675.
        assert_eq!((DATES.slot)(ValueRef::Integer(1_700_000_000)), 19_675);
        assert_eq!((DATES.slot)(ValueRef::Integer(-1)), UNKNOWN);
        // Days 0 and 1 are the sentinels; day 65,536 is past u16.
        assert_eq!((DATES.slot)(ValueRef::Integer(86_400)), UNKNOWN);
        assert_eq!((DATES.slot)(ValueRef::Integer(65_536 * 86_400)), UNKNOWN);
        assert_eq!(day(-1), -1);
    }
}
