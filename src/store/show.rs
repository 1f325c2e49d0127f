//! What `show` reads: a chunk and the whole source it came from (every
//! chunk of the same version of that e-mail, receipt or conversation, in
//! order), or a fact with its history. Read as memory stood at an instant
//! (`--as-of`) or now.

use anyhow::Result;
use rusqlite::{OptionalExtension, params};

use super::Store;
use super::facts::{Fact, fact_by_id};
use super::search::{
    CANDIDATE_COLUMNS, CANDIDATE_FROM, Candidate, RECIPIENTS_COLUMN, candidate_row,
};
use crate::kinds::SourceType;

/// A chunk and its source.
#[derive(Debug, Clone)]
pub enum SourceView {
    /// An e-mail, receipt or conversation: the chunk asked for, and every
    /// chunk of the same version of its source in order (itself included).
    Document {
        chunk: Candidate,
        parts: Vec<Candidate>,
        /// An e-mail's To, when it was indexed with it.
        recipients: Option<String>,
    },
    /// A fact is its own source; its history is in the [`Fact`].
    Fact { chunk: Candidate, fact: Box<Fact> },
}

impl SourceView {
    pub fn chunk(&self) -> &Candidate {
        match self {
            SourceView::Document { chunk, .. } | SourceView::Fact { chunk, .. } => chunk,
        }
    }
}

impl Store {
    /// The source of chunk `id`, or None when there is no such chunk (or it
    /// did not exist yet at `as_of`, or is a purged fact). `now` is when a
    /// fact's confidence is read.
    pub fn source_of(&self, id: i64, as_of: Option<i64>, now: i64) -> Result<Option<SourceView>> {
        let sql = format!(
            "SELECT c.id, 0.0, {CANDIDATE_COLUMNS}, c.created_at, {RECIPIENTS_COLUMN}
             FROM {CANDIDATE_FROM} LEFT JOIN memory_facts f ON f.chunk_id = c.id
             WHERE c.id = ?1 AND f.purged_at IS NULL AND c.created_at <= coalesce(?2, c.created_at)"
        );
        let found = self
            .conn
            .query_row(&sql, params![id, as_of], |r| {
                Ok((candidate_row(r)?, r.get::<_, i64>(11)?, r.get(12)?))
            })
            .optional()?;
        let Some((chunk, created_at, recipients)) = found else {
            return Ok(None);
        };
        if chunk.source_type == SourceType::Fact {
            let fact = fact_by_id(&self.conn, id, as_of.unwrap_or(now))?;
            return Ok(Some(SourceView::Fact {
                chunk,
                fact: Box::new(fact),
            }));
        }
        // One index run writes every chunk of a source version at once, with
        // one created_at: that is what tells this version from a later one.
        // `+` keeps the planner off `memory_chunks_created`: since 0016 both
        // it and the source index match one column, and SQLite 3.54 chose
        // created_at, which every chunk of one import shares (show: 3.9 ->
        // 347 ms at 100k messages).
        let sql = format!(
            "SELECT c.id, 0.0, {CANDIDATE_COLUMNS}
             FROM {CANDIDATE_FROM}
             WHERE c.source_type = ?1 AND c.source_id = ?2 AND +c.created_at = ?3
             ORDER BY c.seq, c.id"
        );
        let mut stmt = self.conn.prepare_cached(&sql)?;
        let parts = stmt
            .query_map(
                params![chunk.source_type, chunk.source_id, created_at],
                candidate_row,
            )?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(Some(SourceView::Document {
            chunk,
            parts,
            recipients,
        }))
    }
}
