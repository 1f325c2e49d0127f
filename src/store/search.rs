//! The candidate query: FTS5 top-K by bm25 among chunks visible at an instant
//! and inside the time window, ranked by the full-text engine (`fts`). Here
//! are the query, the candidate it returns, and the visibility and source
//! filters that the engine and vector search share. The filters apply before
//! ranking, not after it; evergreen facts always pass the window.

use std::collections::HashSet;

use anyhow::Result;
use rusqlite::types::Value;

use super::{Store, fts};
use crate::ingest::record::Meta;
use crate::kinds::SourceType;

/// What to fetch. Times are unix seconds; the window is half-open [after, before).
#[derive(Debug, Clone)]
pub struct CandidateQuery<'a> {
    /// FTS5's phrases in its phrase order (`FtsQuery::phrases`); joined
    /// with OR they are the `MATCH` expression, unless `structured` is given.
    pub phrases: &'a [String],
    /// The `MATCH` expression, when it is not `phrases` joined with OR (it
    /// requires or excludes something: `FtsQuery::structured`).
    pub structured: Option<&'a str>,
    pub after: Option<i64>,
    pub before: Option<i64>,
    /// Only these source types (empty: all).
    pub sources: &'a [SourceType],
    /// Show memory as it stood at this instant (None: the present).
    pub as_of: Option<i64>,
    pub limit: usize,
}

impl CandidateQuery<'_> {
    /// The `MATCH` expression.
    pub fn expr(&self) -> String {
        match self.structured {
            Some(expr) => expr.to_string(),
            None => self.phrases.join(" OR "),
        }
    }
}

#[cfg(test)]
impl<'a> CandidateQuery<'a> {
    /// The query over every source at the present, no window: tests set
    /// what differs with `..CandidateQuery::words(..)`.
    pub(super) fn words(phrases: &'a [String], limit: usize) -> Self {
        CandidateQuery {
            phrases,
            structured: None,
            after: None,
            before: None,
            sources: &[],
            as_of: None,
            limit,
        }
    }
}

/// A chunk as search sees it.
#[derive(Debug, Clone)]
pub struct Candidate {
    pub id: i64,
    /// FTS5 bm25: negative, more negative is more relevant.
    pub bm25: f64,
    pub source_type: SourceType,
    pub source_id: String,
    pub text: String,
    pub dated_at: Option<i64>,
    /// Subject, sender, vendor or title, as the source has them.
    pub meta: Meta,
    pub message_ids: Vec<String>,
}

impl Store {
    /// E-mail messages held now with no recipients stored: indexed before
    /// recipients were kept (migration 0008), or sent with no `To`. `to:`
    /// cannot find them (`search --explain` says how many).
    pub fn emails_without_recipients(&self) -> Result<i64> {
        Ok(self.conn.query_row(
            "SELECT count(*) FROM memory_chunks
             WHERE source_type = 'email' AND seq = 0 AND superseded_at IS NULL
               AND recipients IS NULL",
            [],
            |r| r.get(0),
        )?)
    }

    /// The top `q.limit` visible chunks by bm25, in bm25 order (ties: the
    /// older chunk first), as the full-text engine ranks them (`fts`).
    pub fn candidates(&self, q: &CandidateQuery) -> Result<Vec<Candidate>> {
        fts::candidates(self, q)
    }

    /// Those of `ids` whose full-text entry matches `expr`.
    pub fn matching(&self, expr: &str, ids: &[i64]) -> Result<HashSet<i64>> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT 1 FROM memory_fts WHERE memory_fts MATCH ?1 AND rowid = ?2")?;
        let mut out = HashSet::new();
        for &id in ids {
            if stmt.exists(rusqlite::params![expr, id])? {
                out.insert(id);
            }
        }
        Ok(out)
    }

    /// The visible chunks among `ids`, in that order, with bm25 0 (for
    /// candidates found by meaning rather than by words).
    pub fn candidates_by_id(&self, ids: &[i64], as_of: Option<i64>) -> Result<Vec<Candidate>> {
        let ranked: Vec<(i64, f64)> = ids.iter().map(|&id| (id, 0.0)).collect();
        self.visible_rows(&ranked, as_of)
    }

    /// The visible chunks among `ids` (in no particular order) dated inside
    /// [after, before) (evergreen facts always pass) and of `sources` (none:
    /// all): what a search may add by association.
    pub fn candidates_in_window(
        &self,
        ids: &[i64],
        as_of: Option<i64>,
        after: Option<i64>,
        before: Option<i64>,
        sources: &[SourceType],
    ) -> Result<Vec<Candidate>> {
        let ids = serde_json::to_string(ids)?;
        let mut sql = format!(
            "SELECT c.id, 0.0, {CANDIDATE_COLUMNS}
             FROM {CANDIDATE_FROM}
             LEFT JOIN memory_facts f ON f.chunk_id = c.id
             WHERE c.id IN (SELECT value FROM json_each(?1)) AND f.purged_at IS NULL
               AND (c.dated_at IS NULL OR (c.dated_at >= ?2 AND c.dated_at < ?3))"
        );
        let mut params: Vec<Value> = vec![
            Value::Text(ids),
            Value::Integer(after.unwrap_or(i64::MIN)),
            Value::Integer(before.unwrap_or(i64::MAX)),
        ];
        push_visibility(&mut sql, &mut params, as_of, "c");
        push_source_filter(&mut sql, &mut params, sources, "c");
        let mut stmt = self.conn.prepare_cached(&sql)?;
        let rows = stmt.query_map(rusqlite::params_from_iter(params), candidate_row)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The first `limit` rows of `ranked` visible now (or at `as_of`), in
    /// `ranked` order: [`Store::visible_rows`] of the first `limit`, then of
    /// the next ones for as many as were not visible, and so on.
    ///
    /// Why: the ranking ranks more than the limit in case some winners are
    /// superseded or retracted, which they almost never are. Each row read
    /// is a scattered page read into a fresh process's cache: reading all
    /// of twice the limit was a tenth of a 100k search (docs/PERFORMANCE.md,
    /// "eighth session"). The rows returned are the same.
    pub(super) fn first_visible_rows(
        &self,
        ranked: &[(i64, f64)],
        as_of: Option<i64>,
        limit: usize,
    ) -> Result<Vec<Candidate>> {
        let mut found = Vec::with_capacity(limit.min(ranked.len()));
        let mut rest = ranked;
        while found.len() < limit && !rest.is_empty() {
            let (next, after) = rest.split_at((limit - found.len()).min(rest.len()));
            found.extend(self.visible_rows(next, as_of)?);
            rest = after;
        }
        Ok(found)
    }

    /// The rows of `ranked` visible now (or at `as_of`), in `ranked` order,
    /// with their bm25 from `ranked`.
    pub(super) fn visible_rows(
        &self,
        ranked: &[(i64, f64)],
        as_of: Option<i64>,
    ) -> Result<Vec<Candidate>> {
        let ids = serde_json::to_string(&ranked.iter().map(|r| r.0).collect::<Vec<_>>())?;
        let mut sql = format!(
            "SELECT c.id, 0.0, {CANDIDATE_COLUMNS}
             FROM {CANDIDATE_FROM}
             LEFT JOIN memory_facts f ON f.chunk_id = c.id
             WHERE c.id IN (SELECT value FROM json_each(?1)) AND f.purged_at IS NULL"
        );
        let mut params: Vec<Value> = vec![Value::Text(ids)];
        push_visibility(&mut sql, &mut params, as_of, "c");
        let mut stmt = self.conn.prepare_cached(&sql)?;
        let mut found: std::collections::HashMap<i64, Candidate> = stmt
            .query_map(rusqlite::params_from_iter(params), candidate_row)?
            .map(|r| r.map(|c| (c.id, c)))
            .collect::<Result<_, _>>()?;
        Ok(ranked
            .iter()
            .filter_map(|&(id, bm25)| {
                found.remove(&id).map(|mut c| {
                    c.bm25 = bm25;
                    c
                })
            })
            .collect())
    }
}

/// What every candidate query reads from: the chunk rows `c`, each with
/// the chunk that holds its labels, `l` (migration 0015; no row when `c`
/// holds its own). One lookup a row: the view `memory_chunks` makes one a
/// label, which at 100k messages made searches ~0.7 ms slower at the median.
pub(super) const CANDIDATE_FROM: &str =
    "memory_chunk_rows c LEFT JOIN memory_chunk_rows l ON l.id = c.labels_from";

/// Subject, sender, vendor and title over [`CANDIDATE_FROM`]: the row's
/// own, or its holder's (a row that borrows its labels holds none itself).
/// A macro so that [`CANDIDATE_COLUMNS`] can be one literal.
macro_rules! label_columns {
    () => {
        "coalesce(c.subject, l.subject), coalesce(c.sender, l.sender), \
         coalesce(c.vendor, l.vendor), coalesce(c.title, l.title)"
    };
}
pub(super) const LABEL_COLUMNS: &str = label_columns!();

/// The recipients over [`CANDIDATE_FROM`], as [`LABEL_COLUMNS`] reads the rest.
pub(super) const RECIPIENTS_COLUMN: &str = "coalesce(c.recipients, l.recipients)";

/// The chunk columns after `id, bm25` in every candidate query (over
/// [`CANDIDATE_FROM`]).
pub(super) const CANDIDATE_COLUMNS: &str = concat!(
    "c.source_type, c.source_id, c.text, c.dated_at, ",
    label_columns!(),
    ", c.message_ids"
);

/// Visible now: current chunks and unretracted facts. Visible at `as_of`:
/// created by then, and not yet superseded or retracted then.
/// `c` is the alias of memory_chunks in the query; facts are `f`.
pub(super) fn push_visibility(
    sql: &mut String,
    params: &mut Vec<Value>,
    as_of: Option<i64>,
    c: &str,
) {
    match as_of {
        None => sql.push_str(&format!(
            " AND {c}.superseded_at IS NULL AND f.retracted_at IS NULL"
        )),
        Some(t) => {
            let n = params.len() + 1;
            sql.push_str(&format!(
                " AND {c}.created_at <= ?{n}
                  AND ({c}.superseded_at IS NULL OR {c}.superseded_at > ?{n})
                  AND (f.retracted_at IS NULL OR f.retracted_at > ?{n})"
            ));
            params.push(Value::Integer(t));
        }
    }
}

/// Only chunks of the given `sources` (none given: all). `c` is the alias of
/// memory_chunks in the query.
pub(super) fn push_source_filter(
    sql: &mut String,
    params: &mut Vec<Value>,
    sources: &[SourceType],
    c: &str,
) {
    if sources.is_empty() {
        return;
    }
    let first = params.len() + 1;
    let marks: Vec<String> = (first..first + sources.len())
        .map(|i| format!("?{i}"))
        .collect();
    sql.push_str(&format!(" AND {c}.source_type IN ({})", marks.join(", ")));
    params.extend(sources.iter().map(|s| Value::Text(s.as_str().into())));
}

pub(super) fn candidate_row(r: &rusqlite::Row) -> rusqlite::Result<Candidate> {
    let ids: Option<String> = r.get(10)?;
    Ok(Candidate {
        id: r.get(0)?,
        bm25: r.get(1)?,
        source_type: r.get(2)?,
        source_id: r.get(3)?,
        text: r.get(4)?,
        dated_at: r.get(5)?,
        meta: Meta {
            subject: r.get(6)?,
            sender: r.get(7)?,
            vendor: r.get(8)?,
            title: r.get(9)?,
            recipients: None,
        },
        message_ids: ids
            .and_then(|s| serde_json::from_str(&s).ok())
            .unwrap_or_default(),
    })
}
