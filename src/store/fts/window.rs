//! `alfred_dated_in(memory_fts, after, before)`: the time-window test as an
//! FTS5 auxiliary function, so a windowed search filters full-text matches
//! on their date without joining each one to its chunk row.
//!
//! 1 when the row's chunk is dated in the half-open window [after, before),
//! or has no date (an evergreen fact: facts always pass the window); else 0.
//! The packed `memory_chunk_dates` blocks (`blocks::DATES`) give each
//! row's UTC day: a day wholly inside or outside the window decides it, and
//! a row on a day the window starts or ends within (or one the blocks do
//! not hold) is read from `memory_chunks` to the second. Windows given as
//! dates in UTC start and end at midnight, so they never look anything up.
//! Every row tested is counted in the statement's [`scope`]: in a windowed
//! one-word ranking that count is the word's document frequency.

use std::ffi::c_int;

use rusqlite::ffi;

use super::auxiliary::{KeyedLookup, aux_data};
use super::block_reader::BlockReader;
use super::blocks::{DATES, EVERGREEN};
use super::scope;

/// The window test of one query: [after, before) in unix seconds.
pub(super) struct Window {
    after: i64,
    before: i64,
    dates: BlockReader,
    /// `dated_at` of one chunk, for the rows the day does not decide.
    dated_at: KeyedLookup,
}

impl Window {
    /// # Safety
    /// `db` is a live connection that outlives the window.
    pub(super) unsafe fn open(db: *mut ffi::sqlite3, after: i64, before: i64) -> Window {
        // SAFETY: as promised by our caller.
        unsafe {
            Window {
                after,
                before,
                dates: BlockReader::open(db, &DATES),
                dated_at: KeyedLookup::new(
                    db,
                    "SELECT dated_at FROM memory_chunk_rows WHERE id = ?1",
                ),
            }
        }
    }

    /// Whether chunk `rowid` is dated in the window or has no date.
    pub(super) fn inside(&mut self, rowid: i64) -> bool {
        let (after, before) = (self.after, self.before);
        let by_day = self.dates.get(rowid).and_then(|d| {
            if d == EVERGREEN {
                Some(true)
            } else {
                day_in_window(i64::from(d), after, before)
            }
        });
        by_day.unwrap_or_else(|| self.row_inside(rowid))
    }

    /// [`Window::inside`] read from the chunk's row to the second; false
    /// when there is no such chunk.
    fn row_inside(&mut self, rowid: i64) -> bool {
        let date = self.dated_at.row(rowid, |stmt| {
            // SAFETY: `stmt` is on the chunk's row.
            unsafe {
                (ffi::sqlite3_column_type(stmt, 0) != ffi::SQLITE_NULL)
                    .then(|| ffi::sqlite3_column_int64(stmt, 0))
            }
        });
        match date {
            None => false,
            Some(None) => true,
            Some(Some(t)) => self.after <= t && t < self.before,
        }
    }
}

/// Whether every second of UTC day `d` is inside [after, before) (Some(true)),
/// none is (Some(false)), or the window starts or ends within it (None).
fn day_in_window(d: i64, after: i64, before: i64) -> Option<bool> {
    let (start, end) = (d * 86_400, d * 86_400 + 86_400);
    if after <= start && end <= before {
        Some(true)
    } else if end <= after || before <= start {
        Some(false)
    } else {
        None
    }
}

/// An optional bound argument: `none` for NULL.
///
/// # Safety
/// `v` is a live argument value.
pub(super) unsafe fn bound(v: *mut ffi::sqlite3_value, none: i64) -> i64 {
    // SAFETY: as promised by our caller.
    unsafe {
        if ffi::sqlite3_value_type(v) == ffi::SQLITE_NULL {
            none
        } else {
            ffi::sqlite3_value_int64(v)
        }
    }
}

pub unsafe extern "C" fn dated_in(
    api: *const ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    ctx: *mut ffi::sqlite3_context,
    n_val: c_int,
    ap_val: *mut *mut ffi::sqlite3_value,
) {
    // SAFETY (whole function): FTS5 calls this with a valid API, context and
    // `n_val` argument values; the Window lives until the query ends.
    unsafe {
        let api = &*api;
        if n_val != 2 {
            ffi::sqlite3_result_error_code(ctx, ffi::SQLITE_MISUSE);
            return;
        }
        let (after, before) = (bound(*ap_val, i64::MIN), bound(*ap_val.add(1), i64::MAX));
        let window = match aux_data(api, fts, |db| Ok(Window::open(db, after, before))) {
            Ok(window) => window,
            Err(rc) => {
                ffi::sqlite3_result_error_code(ctx, rc);
                return;
            }
        };
        scope::tested();
        let inside = window.inside((api.xRowid.unwrap())(fts));
        ffi::sqlite3_result_int(ctx, c_int::from(inside));
    }
}

#[cfg(test)]
mod tests {
    use super::super::blocks;
    use super::day_in_window;
    use crate::ingest::record::{ChunkDraft, Meta};
    use crate::kinds::SourceType;
    use crate::store::Store;
    use crate::store::records::insert_chunk;

    /// For every row: (what alfred_dated_in says, what memory_chunks says).
    fn both(conn: &rusqlite::Connection, after: i64, before: i64) -> Vec<(i64, i64)> {
        conn.prepare(
            "SELECT alfred_dated_in(memory_fts, ?1, ?2),
                    (c.dated_at IS NULL OR (c.dated_at >= ?1 AND c.dated_at < ?2))
             FROM memory_fts JOIN memory_chunk_rows c ON c.id = memory_fts.rowid
             WHERE memory_fts MATCH 'acme'",
        )
        .unwrap()
        .query_map([after, before], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
    }

    #[test]
    fn whole_days_decide_and_cut_days_are_looked_up() {
        let day = 19_000;
        let midnight = day * 86_400;
        for (after, before, want) in [
            (midnight, midnight + 86_400, Some(true)),
            (i64::MIN, i64::MAX, Some(true)),
            (midnight - 5, midnight + 86_400, Some(true)),
            (midnight + 86_400, i64::MAX, Some(false)),
            (i64::MIN, midnight, Some(false)),
            (midnight + 1, i64::MAX, None),
            (i64::MIN, midnight + 86_399, None),
        ] {
            assert_eq!(day_in_window(day, after, before), want, "{after}..{before}");
        }
    }

    #[test]
    fn the_window_test_agrees_with_the_chunk_rows() {
        let mut store = Store::open_in_memory().unwrap();
        store.remember("acme is evergreen", 1).unwrap();
        let tx = store.conn.transaction().unwrap();
        // Dates before 1970, in its first days, around now (several rows a
        // day, so windows cut days in two) and past day 65,535: the first,
        // second and last kinds are looked up in memory_chunks.
        for (i, date) in [-86_400, 5, 1_700_000_000, 1_700_030_000, 1 << 33]
            .into_iter()
            .cycle()
            .take(3000)
            .enumerate()
        {
            let chunk = ChunkDraft {
                text: format!("acme note {i}"),
                dated_at: date + i as i64,
                message_ids: vec![],
            };
            insert_chunk(
                &tx,
                SourceType::Email,
                &format!("m{i}"),
                0,
                &chunk,
                &Meta::default(),
                None,
                1,
            )
            .unwrap();
        }
        let windows = [
            (i64::MIN, i64::MAX),
            (0, 1_700_000_050),
            (1_700_000_000, 1_700_000_101),
            (1_700_000_500, 1_700_050_000),
            (1_699_900_000, 1_700_100_000),
            (-100_000, 0),
            (1 << 33, i64::MAX),
        ];
        // Before the writer copies the new dates (all looked up), and after.
        for copied in [false, true] {
            if copied {
                blocks::catch_up(&tx).unwrap();
            }
            for (after, before) in windows {
                let rows = both(&tx, after, before);
                assert_eq!(rows.len(), 3001);
                for (ours, truth) in rows {
                    assert_eq!(ours, truth, "window {after}..{before}, copied {copied}");
                }
            }
        }
    }
}
