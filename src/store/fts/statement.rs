//! The statements that rank full-text matches on one connection, over a
//! range of rowids (`split.rs` gives each core one half):
//!
//! - [`best`], the fast engine's ranking before visibility: the best rows
//!   are kept in the statement's [`Scope`], so SQLite neither sorts nor
//!   hands back a row; visibility is checked afterwards, on the winners
//!   only (`fast.rs`). Words joined by `OR` are walked in one call
//!   (`scan`, `scan.rs`), the window and sources tested on packed blocks;
//!   a structured expression is stepped row by row (`row_by_row`), with
//!   `alfred_bm25()` inside a condition that is never true (bm25 <= 0) and
//!   a window tested first on packed dates. [`planned`] also counts the
//!   words on its walk.
//! - [`filtered`]: every match joined to its chunk row (through the
//!   covering index `memory_chunks_visibility`, so no text is read) and fact,
//!   filtered by window, source and visibility, then sorted. Both engines
//!   use it, each with its own [`Score`].
//!
//! Ties go to the lower rowid in all of them, as FTS5's own `ORDER BY rank`
//! did.

use std::ops::{Bound, RangeBounds};

use anyhow::Result;
use rusqlite::types::Value;
use rusqlite::{Connection, OptionalExtension};

use super::filter::source_mask;
use super::formats;
use super::plan::{self, Scoring};
use super::scope::{Scope, Tally};
use super::{BM25_WEIGHTS, Ranked};
use crate::store::search::{CandidateQuery, push_source_filter, push_visibility};

/// How [`filtered`] scores a row.
#[derive(Debug, Clone, Copy)]
pub enum Score<'a> {
    /// `alfred_bm25()` with these IDFs (`Scoring::idf`; empty: counted by
    /// FTS5 as its own bm25 does).
    Ours(&'a [u8]),
    /// FTS5's `bm25()`.
    Fts5,
    /// Every row 0: the rows in rowid order.
    Zero,
}

impl Score<'_> {
    fn sql(&self) -> String {
        match self {
            Score::Ours(_) => format!("alfred_bm25(memory_fts, {BM25_WEIGHTS}, ?2)"),
            Score::Fts5 => format!("bm25(memory_fts, {BM25_WEIGHTS})"),
            Score::Zero => "0.0".to_string(),
        }
    }

    fn idf(&self) -> Vec<u8> {
        match self {
            Score::Ours(idf) => idf.to_vec(),
            _ => Vec::new(),
        }
    }
}

/// The best `n` matches of `scoring` with rowids in `range`, unfiltered
/// but for the window, and how many rows were counted on the way: for one
/// phrase, every match (scored, or tested against the window when there
/// is one); for several, a walk may leave out rows of common words that
/// cannot reach the top (`prune.rs`), so only a one-phrase count is a
/// document frequency.
pub fn best(
    conn: &Connection,
    q: &CandidateQuery,
    scoring: &Scoring,
    n: usize,
    range: impl RangeBounds<i64>,
) -> Result<(Ranked, u64)> {
    if q.structured.is_none() && scoring.phrases() >= 1 {
        scan(conn, q, scoring, n, range)
    } else if !q.sources.is_empty() {
        // Row by row knows no sources: the joined statement does (and
        // checks visibility too, which the caller does again).
        let ranked = filtered(conn, q, &scoring.expr, Score::Ours(&scoring.idf), n, range)?;
        Ok((ranked, 0))
    } else {
        row_by_row(conn, q, scoring, n, range)
    }
}

/// [`best`] by a statement that steps every match: `alfred_bm25()` (and
/// the window test) called by SQLite row by row.
pub(super) fn row_by_row(
    conn: &Connection,
    q: &CandidateQuery,
    scoring: &Scoring,
    n: usize,
    range: impl RangeBounds<i64>,
) -> Result<(Ranked, u64)> {
    let (mut sql, mut params) = matching(
        "SELECT count(*) FROM memory_fts",
        &scoring.expr,
        scoring.idf.clone(),
        range,
    );
    let score = format!("alfred_bm25(memory_fts, {BM25_WEIGHTS}, ?2) > 0");
    let windowed = q.after.is_some() || q.before.is_some();
    if windowed {
        // CASE fixes the order: the window first, then the score.
        sql.push_str(&format!(
            " AND CASE WHEN alfred_dated_in(memory_fts, ?5, ?6) THEN {score} ELSE 0 END"
        ));
        params.push(Value::Integer(q.after.unwrap_or(i64::MIN)));
        params.push(Value::Integer(q.before.unwrap_or(i64::MAX)));
    } else {
        sql.push_str(&format!(" AND {score}"));
    }
    let mut stmt = conn.prepare_cached(&sql)?;
    let scope = Scope::enter(n);
    stmt.query_row(rusqlite::params_from_iter(params), |_| Ok(()))?;
    let tally = scope.finish();
    let counted = if windowed { tally.tested } else { tally.scored };
    Ok((tally.kept, counted))
}

/// [`best`] for phrases joined by `OR`: `alfred_bm25_scan()` walks each
/// phrase's rows in one call on the first match, testing the window and
/// scoring into the scope exactly as `alfred_dated_in()` and
/// `alfred_bm25()` would row by row.
pub(super) fn scan(
    conn: &Connection,
    q: &CandidateQuery,
    scoring: &Scoring,
    n: usize,
    range: impl RangeBounds<i64>,
) -> Result<(Ranked, u64)> {
    // ?1 to ?4: the expression, the IDFs, the rowid range.
    let (_, mut params) = matching("", &scoring.expr, scoring.idf.clone(), range);
    params.push(q.after.map_or(Value::Null, Value::Integer));
    params.push(q.before.map_or(Value::Null, Value::Integer));
    params.push(Value::Integer(source_mask(q.sources)));
    let tally = one_call(conn, "alfred_bm25_scan", params, n)?;
    let filtered = q.after.is_some() || q.before.is_some() || !q.sources.is_empty();
    let counted = if filtered { tally.tested } else { tally.scored };
    Ok((tally.kept, counted))
}

/// The best `n` rows of `phrases` joined by `OR`, planned and ranked in
/// one walk of each phrase (`alfred_bm25_planned()`): the rows
/// `plan::plan` and [`best`] on its expressions select (`fast::ranked`),
/// without a statement counting each phrase first.
pub fn planned(
    conn: &Connection,
    q: &CandidateQuery,
    phrases: &[String],
    n: usize,
) -> Result<Ranked> {
    let totals = formats::totals(conn)?;
    let params = vec![
        Value::Text(phrases.join(" OR ")),
        Value::Blob(plan::encode(totals.avgdl(), &vec![1.0; phrases.len()])),
        Value::Integer(totals.rows),
        Value::Integer(n as i64),
        q.after.map_or(Value::Null, Value::Integer),
        q.before.map_or(Value::Null, Value::Integer),
        Value::Integer(source_mask(q.sources)),
    ];
    Ok(one_call(conn, "alfred_bm25_planned", params, n)?.kept)
}

/// Run `function(memory_fts, weights, ?2 .. ?7)` on the first row
/// matching ?1 (`params`), in a scope keeping the best `n` rows: the
/// function ranks every match in that one call. No row: nothing matches,
/// and nothing was scored.
fn one_call(conn: &Connection, function: &str, params: Vec<Value>, n: usize) -> Result<Tally> {
    let sql = format!(
        "SELECT {function}(memory_fts, {BM25_WEIGHTS}, ?2, ?3, ?4, ?5, ?6, ?7) FROM memory_fts
         WHERE memory_fts MATCH ?1 LIMIT 1"
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    let scope = Scope::enter(n);
    stmt.query_row(rusqlite::params_from_iter(params), |_| Ok(()))
        .optional()?;
    Ok(scope.finish())
}

/// The best `n` rows with rowids in `range` that match `expr` and pass the
/// query's window, source and visibility filters, scored by `score`.
pub fn filtered(
    conn: &Connection,
    q: &CandidateQuery,
    expr: &str,
    score: Score,
    n: usize,
    range: impl RangeBounds<i64>,
) -> Result<Ranked> {
    let (mut sql, mut params) = matching(
        &format!(
            "SELECT memory_fts.rowid, {} AS b FROM memory_fts
             JOIN memory_chunk_rows d INDEXED BY memory_chunks_visibility ON d.id = memory_fts.rowid
             LEFT JOIN memory_facts f ON f.chunk_id = d.id",
            score.sql()
        ),
        expr,
        score.idf(),
        range,
    );
    sql.push_str(
        " AND (d.dated_at IS NULL OR (d.dated_at >= ?5 AND d.dated_at < ?6))
          AND f.purged_at IS NULL",
    );
    params.push(Value::Integer(q.after.unwrap_or(i64::MIN)));
    params.push(Value::Integer(q.before.unwrap_or(i64::MAX)));
    push_visibility(&mut sql, &mut params, q.as_of, "d");
    push_source_filter(&mut sql, &mut params, q.sources, "d");
    sql.push_str(&format!(
        " ORDER BY b, memory_fts.rowid LIMIT ?{}",
        params.len() + 1
    ));
    params.push(Value::Integer(n as i64));
    let mut stmt = conn.prepare_cached(&sql)?;
    let rows = stmt.query_map(rusqlite::params_from_iter(params), |r| {
        Ok((r.get(0)?, r.get(1)?))
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// `select` with the condition that its rows match `expr` (?1) and have
/// rowids in `range` (?3, ?4), and its first four parameters, `idf` ?2.
fn matching(
    select: &str,
    expr: &str,
    idf: Vec<u8>,
    range: impl RangeBounds<i64>,
) -> (String, Vec<Value>) {
    let lo = match range.start_bound() {
        Bound::Included(&v) => v,
        _ => i64::MIN,
    };
    let hi = match range.end_bound() {
        Bound::Excluded(&v) => v,
        _ => i64::MAX,
    };
    // memory_fts.rowid is the chunk id; FTS5 seeks a rowid range itself.
    let sql = format!(
        "{select} WHERE memory_fts MATCH ?1 AND memory_fts.rowid >= ?3 AND memory_fts.rowid < ?4"
    );
    let params = vec![
        Value::Text(expr.to_string()),
        Value::Blob(idf),
        Value::Integer(lo),
        Value::Integer(hi),
    ];
    (sql, params)
}
