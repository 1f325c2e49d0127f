//! The bm25 top-n of one search: the `alfred_bm25()` statements, the
//! fallback to the whole expression when the words left out are needed
//! (`fts_plan`), and the split of a large ranking across both cores.
//!
//! FTS5 scores every row that matches, so a common word costs time in
//! proportion to the database. The rows are split by rowid into two halves,
//! each ranked on its own connection and thread, and the two top-n lists
//! merged: the top n of the whole is among the top n of its halves, and
//! both halves score with the same IDFs and average length (given by the
//! plan, not counted per connection), so the merge is exact. Ties are broken
//! by rowid, oldest first (what FTS5's own ordering did), in every statement, so the halves and the whole
//! agree on them too.

use std::cell::{RefCell, RefMut};
use std::thread;

use anyhow::Result;
use rusqlite::types::Value;
use rusqlite::{Connection, OpenFlags};

use super::Store;
use super::bm25::{self, Keep};
use super::fts_aux;
use super::fts_plan::{self, Plan, Scoring, Single};
use super::search::{BM25_WEIGHTS, CandidateQuery, push_source_filter, push_visibility};
use super::window;

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

/// rowid and bm25 of ranked rows, best first.
pub type Ranked = Vec<(i64, f64)>;

/// Best first: the most negative bm25, then the lowest rowid, as FTS5's
/// `ORDER BY rank, rowid` and `alfred_bm25`'s heap order rows.
pub(super) fn rank_order(a: &(i64, f64), b: &(i64, f64)) -> std::cmp::Ordering {
    a.1.total_cmp(&b.1).then(a.0.cmp(&b.0))
}

impl Store {
    /// The best `n` matches of the query: of the full-text index alone, or,
    /// `filtered`, of the rows passing its window, source and visibility
    /// filters.
    pub(super) fn ranked(
        &self,
        q: &CandidateQuery,
        filtered: bool,
        plan: Option<&Plan>,
        n: usize,
    ) -> Result<Ranked> {
        let Some(plan) = plan else {
            // IDFs counted by FTS5 on each connection: not split.
            let scoring = Scoring {
                expr: q.phrases.join(" OR "),
                idf: Vec::new(),
            };
            return Ok(top(&self.conn, q, filtered, &scoring, n, ..)?.0);
        };
        let (ranked, _) = self.split_top(q, filtered, plan.first(), plan.work, n)?;
        // Rows matching only the words left out score 0: needed only when
        // the others match too few rows.
        if ranked.len() < n && plan.reduced.is_some() {
            return Ok(self.split_top(q, filtered, &plan.full, i64::MAX, n)?.0);
        }
        Ok(ranked)
    }

    /// A one-word ranking (not `filtered`) without counting the word's rows
    /// first: see `fts_plan::Single`. None when scaling by the IDF could
    /// make two rows at the cut tie (then count first, as for other queries).
    pub(super) fn ranked_single(
        &self,
        q: &CandidateQuery,
        single: &Single,
        n: usize,
    ) -> Result<Option<Ranked>> {
        let (mut ranked, df) = self.split_top(q, false, &single.scoring, single.estimate, n + 1)?;
        let idf = single.idf(df as i64);
        // alfred_bm25 returned -(0 + 1 × x) = -x; FTS5's value is
        // -(0 + idf × x). Rows with equal x stay in rowid order; two
        // different x that round to one score at the cut would not.
        let scale = |b: f64| -(idf * -b);
        if ranked.len() > n {
            let (last, next) = (ranked[n - 1].1, ranked[n].1);
            if last != next && scale(last) == scale(next) {
                return Ok(None);
            }
            ranked.truncate(n);
        }
        for row in &mut ranked {
            row.1 = scale(row.1);
        }
        ranked.sort_by(rank_order);
        Ok(Some(ranked))
    }

    /// The best `n` rows of the whole index and how many matched (as
    /// `top`), split by rowid across two connections when `work` is large.
    fn split_top(
        &self,
        q: &CandidateQuery,
        filtered: bool,
        scoring: &Scoring,
        work: i64,
        n: usize,
    ) -> Result<(Ranked, u64)> {
        let second = (work >= SPLIT_MIN_ROWS)
            .then(|| self.second_reader())
            .flatten();
        let Some(mut second) = second else {
            return top(&self.conn, q, filtered, scoring, n, ..);
        };
        let second: &mut Connection = &mut second;
        let mid = fts_plan::last_rowid(&self.conn)? / 2 + 1;
        let (older, newer) = thread::scope(|s| {
            let newer = s.spawn(move || top(second, q, filtered, scoring, n, mid..));
            let older = top(&self.conn, q, filtered, scoring, n, ..mid);
            (
                older,
                newer
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            )
        });
        let (mut all, visited_older) = older?;
        let (newer, visited_newer) = newer?;
        all.extend(newer);
        all.sort_by(rank_order);
        all.truncate(n);
        Ok((all, visited_older + visited_newer))
    }

    /// The query's plan (`fts_plan::plan`), its words counted on both cores
    /// when there are several and the index is large.
    pub(super) fn plan(&self, phrases: &[String]) -> Result<Option<Plan>> {
        let large = phrases.len() > 1 && fts_plan::totals(&self.conn)?.0 >= PARALLEL_COUNT_MIN_ROWS;
        let mut second = large.then(|| self.second_reader()).flatten();
        fts_plan::plan(&self.conn, second.as_deref_mut(), phrases)
    }

    /// Another read-only connection to the same file, for the second core,
    /// opened once; None for an in-memory or immutable store, or on one core.
    pub(super) fn second_reader(&self) -> Option<RefMut<'_, Connection>> {
        let cell = self.second.get_or_init(|| {
            if thread::available_parallelism().map_or(1, |n| n.get()) < 2 {
                return None;
            }
            let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
            let conn = Connection::open_with_flags(self.path()?, flags).ok()?;
            fts_aux::register(&conn).ok()?;
            // A file this process opened immutable (a read-only folder) opens
            // here but cannot be read without its -shm: then no split.
            conn.query_row("SELECT count(*) FROM sqlite_master", [], |r| {
                r.get::<_, i64>(0)
            })
            .ok()?;
            Some(RefCell::new(conn))
        });
        cell.as_ref()?.try_borrow_mut().ok()
    }
}

/// The best `n` rows with rowids in `range` on one connection, and how
/// many rows matched in `range` (meaningful when not `filtered`: every match
/// is then scored, or tested against the window).
fn top(
    conn: &Connection,
    q: &CandidateQuery,
    filtered: bool,
    scoring: &Scoring,
    n: usize,
    range: impl std::ops::RangeBounds<i64>,
) -> Result<(Ranked, u64)> {
    use std::ops::Bound;
    let lo = match range.start_bound() {
        Bound::Included(&v) => v,
        _ => i64::MIN,
    };
    let hi = match range.end_bound() {
        Bound::Excluded(&v) => v,
        _ => i64::MAX,
    };
    // memory_fts.rowid is the chunk id; FTS5 seeks a rowid range itself.
    let mut sql = if filtered {
        format!(
            "SELECT memory_fts.rowid, alfred_bm25(memory_fts, {BM25_WEIGHTS}, ?2) AS b
             FROM memory_fts"
        )
    } else {
        "SELECT count(*) FROM memory_fts".to_string()
    };
    let mut params: Vec<Value> = vec![
        Value::Text(scoring.expr.clone()),
        Value::Blob(scoring.idf.clone()),
        Value::Integer(lo),
        Value::Integer(hi),
    ];
    if filtered {
        sql.push_str(
            " JOIN memory_chunks d INDEXED BY memory_chunks_visibility ON d.id = memory_fts.rowid
              LEFT JOIN memory_facts f ON f.chunk_id = d.id",
        );
    }
    sql.push_str(" WHERE memory_fts MATCH ?1 AND memory_fts.rowid >= ?3 AND memory_fts.rowid < ?4");
    if filtered {
        sql.push_str(
            " AND (d.dated_at IS NULL OR (d.dated_at >= ?5 AND d.dated_at < ?6))
              AND f.purged_at IS NULL",
        );
        params.push(Value::Integer(q.after.unwrap_or(i64::MIN)));
        params.push(Value::Integer(q.before.unwrap_or(i64::MAX)));
        push_visibility(&mut sql, &mut params, q.as_of, "d");
        push_source_filter(&mut sql, &mut params, q.sources, "d");
    } else {
        // Unfiltered, alfred_bm25 keeps the best rows itself (`Keep`) as it
        // scores them, in a condition that is never true (bm25 <= 0): no
        // sorter, and no rows handed back one by one. A window is tested
        // first, on packed dates (CASE fixes the order); visibility is
        // checked on the winners afterwards (`Store::candidates`).
        let score = format!("alfred_bm25(memory_fts, {BM25_WEIGHTS}, ?2) > 0");
        if q.after.is_some() || q.before.is_some() {
            sql.push_str(&format!(
                " AND CASE WHEN alfred_dated_in(memory_fts, ?5, ?6) THEN {score} ELSE 0 END"
            ));
            params.push(Value::Integer(q.after.unwrap_or(i64::MIN)));
            params.push(Value::Integer(q.before.unwrap_or(i64::MAX)));
        } else {
            sql.push_str(&format!(" AND {score}"));
        }
    }
    let windowed = !filtered && (q.after.is_some() || q.before.is_some());
    let take = || {
        if windowed {
            window::take_tested()
        } else {
            bm25::take_scored()
        }
    };
    if !filtered {
        let mut stmt = conn.prepare_cached(&sql)?;
        take();
        Keep::start(n);
        let run = stmt.query_row(rusqlite::params_from_iter(params), |_| Ok(()));
        let ranked = Keep::finish();
        run?;
        return Ok((ranked, take()));
    }
    sql.push_str(&format!(
        " ORDER BY b, memory_fts.rowid LIMIT ?{}",
        params.len() + 1
    ));
    params.push(Value::Integer(n as i64));
    let mut stmt = conn.prepare_cached(&sql)?;
    let rows = stmt.query_map(rusqlite::params_from_iter(params), |r| {
        Ok((r.get(0)?, r.get(1)?))
    })?;
    Ok((rows.collect::<Result<_, _>>()?, 0))
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
        assert!(store.second_reader().is_some());
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
            let plan = store.plan(&phrases).unwrap().unwrap();
            // Counted on two connections (several words) or one: the same.
            let serial = fts_plan::plan(&store.conn, None, &phrases)
                .unwrap()
                .unwrap();
            assert_eq!(plan.full, serial.full, "{expr}");
            let filtered = window.is_some();
            let (split, _) = store
                .split_top(&q, filtered, plan.first(), i64::MAX, n)
                .unwrap();
            let (whole, _) = top(&store.conn, &q, filtered, plan.first(), n, ..).unwrap();
            assert_eq!(split.len(), n, "{expr}");
            assert_eq!(split, whole, "{expr}");
        }
    }
}
