//! What the one-call rankings (`scan.rs`) test each match against before
//! scoring it: the time window (`window.rs`) and the sources asked for,
//! both on packed blocks, so a filtered search walks the matches as an
//! unfiltered one does instead of joining each to its chunk row.
//!
//! The sources come from the `memory_chunk_narrow_sources` blocks
//! (`blocks::SOURCES`); a row they do not hold is read from
//! `memory_chunks`, so a stale block costs speed, never a different result.

use rusqlite::ffi;

use super::auxiliary::KeyedLookup;
use super::block_reader::BlockReader;
use super::blocks::{SOURCES, UNKNOWN};
use super::window::Window;
use crate::kinds::SourceType;

/// The sources as the rankings' SQL argument: bit `source_slot(s)` set for
/// each source asked for; 0 for every source.
pub fn source_mask(sources: &[SourceType]) -> i64 {
    sources
        .iter()
        .fold(0, |m, &s| m | 1 << super::blocks::source_slot(s))
}

/// The tests of one query.
pub struct Filter {
    pub window: Option<Window>,
    sources: Option<Sources>,
}

struct Sources {
    mask: i64,
    blocks: BlockReader,
    /// `source_type` of one chunk, for the rows the blocks do not hold.
    source_type: KeyedLookup,
}

impl Filter {
    /// The filter of a window (None: every date) and a [`source_mask`] (0:
    /// every source); None when it lets every row through.
    ///
    /// # Safety
    /// `db` is a live connection that outlives the filter.
    pub unsafe fn new(db: *mut ffi::sqlite3, window: Option<Window>, mask: i64) -> Option<Filter> {
        let sources = (mask != 0).then(|| Sources {
            mask,
            // SAFETY: as promised by our caller.
            blocks: unsafe { BlockReader::open(db, &SOURCES) },
            source_type: unsafe {
                KeyedLookup::new(
                    db,
                    "SELECT source_type FROM memory_chunk_rows WHERE id = ?1",
                )
            },
        });
        (window.is_some() || sources.is_some()).then_some(Filter { window, sources })
    }

    /// Whether row `rowid` passes the window and the sources.
    pub fn passes(&mut self, rowid: i64) -> bool {
        self.sources.as_mut().is_none_or(|s| s.pass(rowid))
            && self.window.as_mut().is_none_or(|w| w.inside(rowid))
    }
}

impl Sources {
    fn pass(&mut self, rowid: i64) -> bool {
        let slot = self.blocks.get(rowid).unwrap_or_else(|| {
            let read = self.source_type.row(rowid, |stmt| {
                // SAFETY: `stmt` is on the chunk's row.
                let text = unsafe {
                    let p = ffi::sqlite3_column_text(stmt, 0);
                    let n = ffi::sqlite3_column_bytes(stmt, 0) as usize;
                    (!p.is_null()).then(|| std::slice::from_raw_parts(p, n).to_vec())
                };
                text.and_then(|t| SourceType::parse(std::str::from_utf8(&t).ok()?))
            });
            read.flatten().map_or(UNKNOWN, super::blocks::source_slot)
        });
        // No such chunk, or a source this build does not know: not asked for.
        slot != UNKNOWN && self.mask & (1 << slot) != 0
    }
}
