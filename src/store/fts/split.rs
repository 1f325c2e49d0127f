//! Splitting a large ranking across both cores.
//!
//! FTS5 scores every row that matches, so a common word costs time in
//! proportion to the database. The rows are split by rowid into two halves,
//! each ranked on its own connection and thread, and the two top-n lists
//! merged: the top n of the whole is among the top n of its halves, and
//! both halves score with the same IDFs and average length (given by the
//! plan, not counted per connection), so the merge is exact. Ties are broken
//! by rowid, oldest first (what FTS5's own ordering did), in every
//! statement, so the halves and the whole agree on them too. A query of
//! several words on a large index also counts its words on both cores.

use std::cell::{RefCell, RefMut};
use std::thread;

use anyhow::Result;
use rusqlite::Connection;

use super::plan::{self, Plan, Scoring};
use super::statement::{self, Score};
use super::{Ranked, formats, rank_order};
use crate::store::Store;
use crate::store::search::CandidateQuery;

/// Matching rows (the plan's count) from which a ranking is split in two.
/// Measured on the generated corpora: at 1M messages a 250,000-row word
/// ranks in 47 ms split against 57 ms whole; at 100k a 71,000-row word
/// takes 15.6 ms split against 14.9 ms whole (the second connection starts
/// with an empty page cache). Tests split everything.
const SPLIT_MIN_ROWS: i64 = if cfg!(test) { 1 } else { 150_000 };

/// Full-text rows from which a query of several words counts them on both
/// cores: at 3.3 million rows (1M messages) counting two words in 250,000
/// rows each takes 15 ms on one; at a third of that, a second connection
/// costs about what it saves.
const PARALLEL_COUNT_MIN_ROWS: i64 = if cfg!(test) { 1 } else { 1_000_000 };

/// The best `n` rows of `scoring` and how many matched, as [`top`], split
/// by rowid across two connections when `work` (rows to score) is large.
pub fn split_top(
    store: &Store,
    q: &CandidateQuery,
    filtered: bool,
    scoring: &Scoring,
    work: i64,
    n: usize,
) -> Result<(Ranked, u64)> {
    let second = (work >= SPLIT_MIN_ROWS)
        .then(|| second_reader(store))
        .flatten();
    let Some(mut second) = second else {
        return top(&store.conn, q, filtered, scoring, n, ..);
    };
    let second: &mut Connection = &mut second;
    let mid = plan::last_rowid(&store.conn)? / 2 + 1;
    let (older, newer) = thread::scope(|s| {
        let newer = s.spawn(move || top(second, q, filtered, scoring, n, mid..));
        let older = top(&store.conn, q, filtered, scoring, n, ..mid);
        (
            older,
            newer
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
        )
    });
    let (mut all, counted_older) = older?;
    let (newer, counted_newer) = newer?;
    all.extend(newer);
    all.sort_by(rank_order);
    all.truncate(n);
    Ok((all, counted_older + counted_newer))
}

/// The best `n` rows with rowids in `range` on one connection: of the
/// full-text index alone ([`statement::best`], with how many rows it
/// counted), or, `filtered`, of the rows passing the query's window, source
/// and visibility filters ([`statement::filtered`], counting nothing).
pub fn top(
    conn: &Connection,
    q: &CandidateQuery,
    filtered: bool,
    scoring: &Scoring,
    n: usize,
    range: impl std::ops::RangeBounds<i64>,
) -> Result<(Ranked, u64)> {
    if filtered {
        let score = Score::Ours(&scoring.idf);
        let ranked = statement::filtered(conn, q, &scoring.expr, score, n, range)?;
        Ok((ranked, 0))
    } else {
        statement::best(conn, q, scoring, n, range)
    }
}

/// The query's plan (`plan::plan`), its words counted on both cores when
/// there are several and the index is large.
pub fn plan_query(
    store: &Store,
    phrases: &[String],
    structured: Option<&str>,
) -> Result<Option<Plan>> {
    let large = phrases.len() > 1 && formats::totals(&store.conn)?.rows >= PARALLEL_COUNT_MIN_ROWS;
    let mut second = large.then(|| second_reader(store)).flatten();
    plan::plan(&store.conn, second.as_deref_mut(), phrases, structured)
}

/// Upper bound of the memory map a search reads its doclists and blocks
/// through (SQLite maps at most the file's size).
const SEARCH_MMAP_BYTES: i64 = 1 << 40;

/// Read the file through a memory map from here on: a common word reads
/// thousands of pages (doclist leaves, packed blocks), and each read() is a
/// system call, a copy and a page-cache slot of its own (perf at 1M: the
/// block lookups and SQLite's page allocations were a fifth of a search).
/// Mapped pages are the kernel's page cache, shared and not copied. Best
/// effort: a failure leaves ordinary reads.
pub fn map_for_reading(conn: &Connection) {
    let _ = conn.query_row(
        &format!("PRAGMA mmap_size = {SEARCH_MMAP_BYTES}"),
        [],
        |_| Ok(()),
    );
}

/// [`map_for_reading`] for the full-text walks, whose reads are scattered:
/// with the map advised as read at random where the device would read
/// megabytes around each missing page (`read_around`).
pub fn map_for_walks(conn: &Connection) {
    map_for_reading(conn);
    super::read_around::fit(conn);
}

/// Back to ordinary reads (and the mapped pages out of the process), for
/// scattered reads that would fault in 64 KB around every row they touch.
pub fn stop_mapping(conn: &Connection) {
    let _ = conn.query_row("PRAGMA mmap_size = 0", [], |_| Ok(()));
}

/// Another read-only connection to the same file, for the second core,
/// opened once (`Store::reader`), read through the memory map; None for an
/// in-memory or immutable store, or on one core.
pub fn second_reader(store: &Store) -> Option<RefMut<'_, Connection>> {
    let cell = store.fts.second.get_or_init(|| {
        let conn = store.reader()?.connection()?;
        map_for_walks(&conn);
        Some(RefCell::new(conn))
    });
    cell.as_ref()?.try_borrow_mut().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::record::{Meta, Record};

    /// On a file (so a second connection can open it), the split ranking
    /// equals the ranking on one connection, for the plain and the
    /// filtered statement, including ties (many rows score alike here).
    #[test]
    fn split_in_two_ranks_as_one_connection_does() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("m.db")).unwrap();
        let b = store.begin_batch(1).unwrap();
        for i in 0..3000 {
            let text = format!("acme {} report {}", "filler ".repeat(i % 7), i % 11);
            let rec = Record::email(&format!("m{i}"), Meta::default(), &[text], i as i64 * 100);
            b.write(&rec).unwrap();
        }
        b.commit().unwrap();
        assert!(second_reader(&store).is_some());
        for (expr, n, window) in [
            ("\"acme\"", 50, None),
            ("\"report\" OR \"7\"", 200, None),
            ("\"filler\" OR \"3\"", 40, Some((50_000, 200_000))),
        ] {
            let phrases: Vec<String> = expr.split(" OR ").map(str::to_string).collect();
            let q = CandidateQuery {
                after: window.map(|w| w.0),
                before: window.map(|w| w.1),
                ..CandidateQuery::words(&phrases, n)
            };
            let plan = plan_query(&store, &phrases, None).unwrap().unwrap();
            // Counted on two connections (several words) or one: the same.
            let serial = plan::plan(&store.conn, None, &phrases, None)
                .unwrap()
                .unwrap();
            assert_eq!(plan.full, serial.full, "{expr}");
            let filtered = window.is_some();
            let (split, _) = split_top(&store, &q, filtered, plan.first(), i64::MAX, n).unwrap();
            let (whole, _) = top(&store.conn, &q, filtered, plan.first(), n, ..).unwrap();
            assert_eq!(split.len(), n, "{expr}");
            assert_eq!(split, whole, "{expr}");
        }
    }
}
