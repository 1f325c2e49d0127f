//! The order `embed` gives chunks their vectors, most useful first (see
//! `embed::queue`): the queries behind each part of it. Every query returns
//! only chunks that still need a vector from the model (current text, not
//! purged, no vector for their text), so a stopped run resumes where it
//! stopped and nothing is embedded twice.

use anyhow::Result;
use rusqlite::{Row, params};

use super::Store;
use super::vectors::{PENDING_FILTER, PendingChunk};

/// The chunks without a vector for `?1`, with whatever else the caller's
/// `WHERE` and `ORDER BY` add.
fn pending_sql(condition: &str, order: &str) -> String {
    format!(
        "SELECT c.id, c.source_type, c.text, c.dated_at FROM memory_chunk_rows c
         LEFT JOIN memory_facts f ON f.chunk_id = c.id
         LEFT JOIN chunk_text_hashes h ON h.chunk_id = c.id
         LEFT JOIN embeddings e ON e.model_id = ?1 AND e.text_hash = h.text_hash
         WHERE {condition} AND {PENDING_FILTER} AND e.id IS NULL
         ORDER BY {order}"
    )
}

fn pending_row(r: &Row) -> rusqlite::Result<PendingChunk> {
    Ok(PendingChunk {
        id: r.get(0)?,
        source_type: r.get(1)?,
        text: r.get(2)?,
    })
}

impl Store {
    /// Every chunk ever recalled (read with `show` or over MCP, or returned
    /// by a logged search), most recently recalled first; embedded or not.
    pub fn recalled_chunk_ids(&self) -> Result<Vec<i64>> {
        let mut stmt = self.conn.prepare(
            "SELECT chunk_id FROM (
                 SELECT chunk_id, at FROM memory_recalls
                 UNION ALL
                 SELECT chunk_id, recalled_at FROM recall_events
             )
             GROUP BY chunk_id ORDER BY MAX(at) DESC, chunk_id DESC",
        )?;
        let ids = stmt.query_map([], |r| r.get(0))?;
        Ok(ids.collect::<Result<_, _>>()?)
    }

    /// Those of `ids` that still need a vector for the model, in the order
    /// of `ids`.
    pub fn pending_among(&self, model_id: i64, ids: &[i64]) -> Result<Vec<PendingChunk>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let list = serde_json::to_string(ids)?;
        let mut stmt = self.conn.prepare_cached(&pending_sql(
            "c.id IN (SELECT value FROM json_each(?2))",
            "c.id",
        ))?;
        let rows = stmt.query_map(params![model_id, list], pending_row)?;
        let mut found: Vec<PendingChunk> = rows.collect::<Result<_, _>>()?;
        found.sort_by_key(|c| ids.iter().position(|&i| i == c.id));
        Ok(found)
    }

    /// Up to `limit` evergreen chunks (facts) below id `before` that need a
    /// vector, newest first.
    pub fn pending_facts(
        &self,
        model_id: i64,
        before: i64,
        limit: usize,
    ) -> Result<Vec<PendingChunk>> {
        let mut stmt = self.conn.prepare_cached(&pending_sql(
            "c.dated_at IS NULL AND c.id < ?2",
            "c.id DESC LIMIT ?3",
        ))?;
        let rows = stmt.query_map(params![model_id, before, limit as i64], pending_row)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Up to `limit` dated chunks that need a vector, with their dates, newest
    /// first, strictly
    /// after the cursor `(dated_at, id)` in that order (the index on
    /// `dated_at` walks it; the cursor keeps a long run linear).
    pub fn pending_by_date(
        &self,
        model_id: i64,
        before: (i64, i64),
        limit: usize,
    ) -> Result<Vec<(i64, PendingChunk)>> {
        let mut stmt = self.conn.prepare_cached(&pending_sql(
            "c.dated_at IS NOT NULL AND (c.dated_at, c.id) < (?2, ?3)",
            "c.dated_at DESC, c.id DESC LIMIT ?4",
        ))?;
        let rows = stmt.query_map(params![model_id, before.0, before.1, limit as i64], |r| {
            Ok((r.get(3)?, pending_row(r)?))
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// How many chunks with an id above `after_id` still need a vector
    /// from the model: what a command that wrote them leaves to embed.
    pub fn pending_count_after(&self, model_id: i64, after_id: i64) -> Result<u64> {
        let sql = format!(
            "SELECT count(*) FROM ({})",
            pending_sql("c.id > ?2", "c.id")
        );
        Ok(self
            .conn
            .prepare_cached(&sql)?
            .query_row(params![model_id, after_id], |r| r.get::<_, i64>(0))? as u64)
    }

    /// The newest chunk id (0 for an empty store): a command notes it
    /// before writing, so that what it wrote is what lies above it.
    pub fn last_chunk_id(&self) -> Result<i64> {
        super::fts::last_rowid(&self.conn)
    }
}
