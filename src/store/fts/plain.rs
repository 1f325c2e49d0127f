//! The plain engine: FTS5's own `bm25()` in one query joined to the chunk
//! rows and filtered there, reading nothing that FTS5 keeps private. It is
//! the fallback where the fast engine's self-check fails, the engine of
//! `ALFRED_MEM_FTS=plain`, and the oracle the fast engine is tested against.
//!
//! It ranks exactly as the fast engine. The one rule the fast engine adds
//! to FTS5 (`plan.rs`: beside rarer words, a word in half the rows or more
//! counts zero instead of FTS5's 1e-6) is applied here by leaving such words
//! out of the `MATCH`: FTS5 then scores every remaining row with the same
//! IDFs, float for float, as a zero term adds exactly nothing. When fewer
//! rows than asked match the other words, the rows that match only the
//! common ones follow with score 0, oldest first, where the fast engine's
//! ties put them. Only public interfaces are used: each word's rows are
//! counted with `count(*)`, the index's rows by FTS5's `xRowCount`.

use std::collections::HashSet;

use anyhow::Result;
use rusqlite::Connection;

use super::Ranked;
use super::auxiliary::sizes_where;
use super::plan::{count_rows, join, kept};
use super::statement::{Score, filtered};
use crate::store::Store;
use crate::store::search::{Candidate, CandidateQuery};

pub fn candidates(store: &Store, q: &CandidateQuery) -> Result<Vec<Candidate>> {
    let ranked = ranked(&store.conn, q)?;
    // Every ranked row passed the filters already; this only loads them.
    store.visible_rows(&ranked, q.as_of)
}

/// The best `q.limit` rows passing the query's filters, by FTS5's bm25.
pub fn ranked(conn: &Connection, q: &CandidateQuery) -> Result<Ranked> {
    let n = q.limit;
    if let Some(expr) = q.structured {
        // FTS5's bm25 as it is: no word is left out of a structured query.
        return filtered(conn, q, expr, Score::Fts5, n, ..);
    }
    let full = q.phrases.join(" OR ");
    let Some(rare) = without_common_words(conn, q.phrases)? else {
        return filtered(conn, q, &full, Score::Fts5, n, ..);
    };
    let mut ranked = filtered(conn, q, &rare, Score::Fts5, n, ..)?;
    if ranked.len() < n {
        let have: HashSet<i64> = ranked.iter().map(|r| r.0).collect();
        let zeros = filtered(conn, q, &full, Score::Zero, n, ..)?;
        let more = n - ranked.len();
        // -0.0: what the fast engine's -(0 + 0 + ...) gives these rows.
        let zeros = zeros.into_iter().filter(|r| !have.contains(&r.0));
        ranked.extend(zeros.map(|(id, _)| (id, -0.0)).take(more));
    }
    Ok(ranked)
}

/// The expression without the words in half the rows or more, when the
/// query has such words and others; None when it leaves nothing out.
fn without_common_words(conn: &Connection, phrases: &[String]) -> Result<Option<String>> {
    if phrases.len() < 2 {
        return Ok(None);
    }
    let Some(dfs) = count_rows(conn, phrases) else {
        return Ok(None);
    };
    // Any phrase in a row gives that row, and FTS5's row count with it.
    let Some(found) = dfs.iter().position(|&df| df > 0) else {
        return Ok(None);
    };
    let Some(sizes) = sizes_where(conn, "memory_fts MATCH ?1", &phrases[found])? else {
        return Ok(None);
    };
    let keep = kept(sizes.rows, &dfs);
    Ok((keep.len() < phrases.len()).then(|| join(phrases, &keep)))
}
