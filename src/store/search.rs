//! The candidate query: FTS5 top-K by bm25 among chunks visible at an instant
//! and inside the time window. The window and visibility filters are SQL, so
//! they apply before ranking, not after it; evergreen facts always pass the
//! window.

use anyhow::Result;
use rusqlite::types::Value;

use super::Store;
use crate::ingest::record::SourceType;

/// What to fetch. Times are unix seconds; the window is half-open [after, before).
#[derive(Debug, Clone)]
pub struct CandidateQuery<'a> {
    pub match_expr: &'a str,
    pub after: Option<i64>,
    pub before: Option<i64>,
    /// Only these source types (empty: all).
    pub sources: &'a [SourceType],
    /// Show memory as it stood at this instant (None: the present).
    pub as_of: Option<i64>,
    pub limit: usize,
}

/// A chunk as search sees it.
#[derive(Debug, Clone)]
pub struct Candidate {
    pub id: i64,
    /// FTS5 bm25: negative, more negative is more relevant.
    pub bm25: f64,
    pub source_type: String,
    pub source_id: String,
    pub text: String,
    pub dated_at: Option<i64>,
    pub subject: Option<String>,
    pub sender: Option<String>,
    pub vendor: Option<String>,
    pub title: Option<String>,
    pub message_ids: Vec<String>,
}

/// bm25 column weights for (text, subject, sender, vendor, title). The
/// who/what columns repeat on every chunk of a source, so at full weight
/// every paragraph of one email would rank alike on a subject match.
const BM25_WEIGHTS: &str = "1.0, 0.5, 0.5, 0.5, 0.5";

impl Store {
    pub fn candidates(&self, q: &CandidateQuery) -> Result<Vec<Candidate>> {
        let mut sql = format!(
            "SELECT c.id, bm25(memory_fts, {BM25_WEIGHTS}) AS b, c.source_type, c.source_id, c.text,
                    c.dated_at, c.subject, c.sender, c.vendor, c.title, c.message_ids
             FROM memory_fts
             JOIN memory_chunks c ON c.id = memory_fts.rowid
             LEFT JOIN memory_facts f ON f.chunk_id = c.id
             WHERE memory_fts MATCH ?1
               AND (c.dated_at IS NULL OR (c.dated_at >= ?2 AND c.dated_at < ?3))
               AND f.purged_at IS NULL"
        );
        let mut params: Vec<Value> = vec![
            Value::Text(q.match_expr.to_string()),
            Value::Integer(q.after.unwrap_or(i64::MIN)),
            Value::Integer(q.before.unwrap_or(i64::MAX)),
        ];
        match q.as_of {
            None => sql.push_str(" AND c.superseded_at IS NULL AND f.retracted_at IS NULL"),
            Some(t) => {
                sql.push_str(
                    " AND c.created_at <= ?4
                      AND (c.superseded_at IS NULL OR c.superseded_at > ?4)
                      AND (f.retracted_at IS NULL OR f.retracted_at > ?4)",
                );
                params.push(Value::Integer(t));
            }
        }
        if !q.sources.is_empty() {
            let first = params.len() + 1;
            let marks: Vec<String> = (first..first + q.sources.len())
                .map(|i| format!("?{i}"))
                .collect();
            sql.push_str(&format!(" AND c.source_type IN ({})", marks.join(", ")));
            params.extend(q.sources.iter().map(|s| Value::Text(s.as_str().into())));
        }
        sql.push_str(&format!(" ORDER BY b LIMIT ?{}", params.len() + 1));
        params.push(Value::Integer(q.limit as i64));

        let mut stmt = self.conn.prepare_cached(&sql)?;
        let rows = stmt.query_map(rusqlite::params_from_iter(params), |r| {
            let ids: Option<String> = r.get(10)?;
            Ok(Candidate {
                id: r.get(0)?,
                bm25: r.get(1)?,
                source_type: r.get(2)?,
                source_id: r.get(3)?,
                text: r.get(4)?,
                dated_at: r.get(5)?,
                subject: r.get(6)?,
                sender: r.get(7)?,
                vendor: r.get(8)?,
                title: r.get(9)?,
                message_ids: ids
                    .and_then(|s| serde_json::from_str(&s).ok())
                    .unwrap_or_default(),
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}
