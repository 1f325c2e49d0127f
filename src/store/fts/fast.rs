//! The fast engine's candidate query: rank the full-text matches alone,
//! then look up and filter only the winners.
//!
//! Joining every match to its chunk row is most of the cost of a common
//! word, and almost every match is visible (superseded chunks and retracted
//! facts are rare). So the matches are ranked by [`statement::best`] (a
//! window and sources tested on packed dates and sources, `filter.rs`), the
//! best of them checked for visibility, and more read if too many were
//! invisible. With a source filter on a structured query (`AND`, `NOT`),
//! or when too many are invisible, the filtered statement ranks the rows
//! that pass instead. One word is ranked first and its rows counted on the
//! way; several are counted first (their IDFs weigh them against each
//! other), on the same walk below ten million rows. Each path selects exactly
//! the rows of the plain engine (`tests.rs`, `scan_tests.rs`).

use anyhow::Result;

use super::plan::{self, Plan, Scoring, Single};
use super::split::{map_for_walks, plan_query, split_top, stop_mapping, top};
use super::{Ranked, rank_order};
use super::{formats, statement};
use crate::store::Store;
use crate::store::search::{Candidate, CandidateQuery};

/// First guess at how many bm25-ranked rows to rank for `limit` visible
/// ones: superseded chunks and retracted facts are rare, so a quarter more
/// (and 16) almost always holds enough; when it does not, the loop in
/// [`candidates`] ranks four times as many.
///
/// Why not more: the walks prune against the `want`-th best score, so a
/// deeper first guess costs every search. Twice the limit made the 100k
/// median 9.2-9.6 ms against 7.9-8.0 ms (docs/PERFORMANCE.md, "eighth
/// session"); the rows selected are the same either way.
fn first_want(limit: usize) -> usize {
    limit + limit / 4 + 16
}

/// Rows read by the ranking-only query before giving up on it and letting
/// SQLite join and filter every match instead.
const MAX_FTS_ONLY_ROWS: usize = 4096;

pub fn candidates(store: &Store, q: &CandidateQuery) -> Result<Vec<Candidate>> {
    map_for_walks(&store.conn);
    if !q.sources.is_empty() && q.structured.is_some() {
        let plan = plan_query(store, q.phrases, q.structured)?;
        return joined(store, q, plan.as_ref());
    }
    let single = match (q.phrases, q.structured) {
        ([phrase], None) => plan::single(&store.conn, phrase)?,
        _ => None,
    };
    let mut plan: Option<Option<Plan>> = None;
    let mut want = first_want(q.limit);
    loop {
        // Again after a round that found too few visible rows.
        map_for_walks(&store.conn);
        let fast = match &single {
            Some(single) => ranked_single(store, q, single, want)?,
            None => None,
        };
        let ranked = match fast {
            Some(ranked) => ranked,
            None if walk_plans(store, q)? => statement::planned(&store.conn, q, q.phrases, want)?,
            None => {
                let plan = plan.get_or_insert(plan_query(store, q.phrases, q.structured)?);
                ranked(store, q, false, plan.as_ref(), want)?
            }
        };
        let exhausted = ranked.len() < want;
        // The winners' rows are scattered: read them, and everything the
        // search reads after, without faulting in 64 KB around each.
        stop_mapping(&store.conn);
        let visible = store.first_visible_rows(&ranked, q.as_of, q.limit)?;
        if visible.len() >= q.limit || exhausted {
            return Ok(visible);
        }
        if want >= MAX_FTS_ONLY_ROWS {
            let plan = plan.get_or_insert(plan_query(store, q.phrases, q.structured)?);
            return joined(store, q, plan.as_ref());
        }
        want *= 4;
    }
}

/// Full-text rows from which a query of several words is counted first
/// (`plan_query`, on both cores from `split.rs`'s 1,000,000 rows) and its
/// ranking split across both cores, instead of planned and ranked in one
/// walk on one core. Since the walk steps over common words' rows that
/// cannot reach the top (`prune.rs`), the one walk is the faster at 3.3
/// million rows (1M messages: 49.0 against 59.7 ms median, 139.6 against
/// 162.4 ms p95 over the 200 generated queries, docs/PERFORMANCE.md); the
/// split stays for archives three times that, where it was not measured.
/// Even two words too common to prune (`passport itinerary`) took 97-101
/// ms walked once against 193-194 ms counted and split at 1M. Tests walk
/// every size.
const WALK_PLAN_MAX_ROWS: i64 = if cfg!(test) { i64::MAX } else { 10_000_000 };

/// Whether a query of several words is planned and ranked in one walk
/// (`statement::planned`) instead of counted by one statement per word and
/// then ranked: for words joined by `OR`, below [`WALK_PLAN_MAX_ROWS`].
fn walk_plans(store: &Store, q: &CandidateQuery) -> Result<bool> {
    Ok(q.structured.is_none()
        && q.phrases.len() > 1
        && formats::totals(&store.conn)?.rows < WALK_PLAN_MAX_ROWS)
}

/// Filter every full-text match against the window, source and
/// visibility, rank the survivors, then read the rows of the best ones.
pub fn joined(store: &Store, q: &CandidateQuery, plan: Option<&Plan>) -> Result<Vec<Candidate>> {
    map_for_walks(&store.conn);
    let ranked = ranked(store, q, true, plan, q.limit)?;
    stop_mapping(&store.conn);
    // Every ranked row passed the filters already; this only loads them.
    store.visible_rows(&ranked, q.as_of)
}

/// The best `n` matches of the query: of the full-text index alone, or,
/// `filtered`, of the rows passing its window, source and visibility
/// filters.
pub(super) fn ranked(
    store: &Store,
    q: &CandidateQuery,
    filtered: bool,
    plan: Option<&Plan>,
    n: usize,
) -> Result<Ranked> {
    let Some(plan) = plan else {
        // IDFs counted by FTS5 on each connection: not split.
        let scoring = Scoring {
            expr: q.expr(),
            idf: Vec::new(),
        };
        return Ok(top(&store.conn, q, filtered, &scoring, n, ..)?.0);
    };
    let (ranked, _) = split_top(store, q, filtered, plan.first(), plan.work, n)?;
    // Rows matching only the words left out score 0: needed only when
    // the others match too few rows.
    if ranked.len() < n && plan.reduced.is_some() {
        return Ok(split_top(store, q, filtered, &plan.full, i64::MAX, n)?.0);
    }
    Ok(ranked)
}

/// A one-word ranking (not filtered) without counting the word's rows
/// first: see `plan::Single`. None when scaling by the IDF could make two
/// rows at the cut tie (then count first, as for other queries).
fn ranked_single(
    store: &Store,
    q: &CandidateQuery,
    single: &Single,
    n: usize,
) -> Result<Option<Ranked>> {
    let (mut ranked, df) = split_top(store, q, false, &single.scoring, single.estimate, n + 1)?;
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
