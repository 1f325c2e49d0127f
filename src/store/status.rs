//! Counts and dates for `alfred-mem status`.

use std::path::Path;

use anyhow::Result;
use serde::Serialize;

use super::{Store, with_suffix};
use crate::kinds::SourceType;

#[derive(Debug, Serialize)]
pub struct SourceCounts {
    pub source_type: SourceType,
    pub current: u64,
    pub superseded: u64,
}

#[derive(Debug, Serialize)]
pub struct StatusFigures {
    pub chunks: Vec<SourceCounts>,
    pub facts_active: u64,
    pub facts_retracted: u64,
    pub oldest: Option<i64>,
    pub newest: Option<i64>,
    pub recall_events: u64,
    /// E-mails whose `Date:` was missing or implausible, dated by a
    /// `Received:` header, their envelope or the import time instead.
    pub dated_by_fallback: u64,
}

impl Store {
    /// The database and its WAL together: what the memory costs on disk
    /// (0 for an in-memory store).
    pub fn bytes_on_disk(&self) -> u64 {
        let Some(path) = self.path() else {
            return 0;
        };
        let len = |p: &Path| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
        len(path) + len(&with_suffix(path, "-wal"))
    }

    pub fn status_figures(&self) -> Result<StatusFigures> {
        let mut chunks = Vec::new();
        {
            let mut stmt = self.conn.prepare(
                "SELECT source_type,
                        sum(superseded_at IS NULL),
                        sum(superseded_at IS NOT NULL)
                 FROM memory_chunk_rows WHERE source_type != 'fact'
                 GROUP BY source_type ORDER BY source_type",
            )?;
            let rows = stmt.query_map([], |r| {
                Ok(SourceCounts {
                    source_type: r.get(0)?,
                    current: r.get::<_, i64>(1)? as u64,
                    superseded: r.get::<_, i64>(2)? as u64,
                })
            })?;
            for row in rows {
                chunks.push(row?);
            }
        }
        let (facts_active, facts_retracted): (i64, i64) = self.conn.query_row(
            "SELECT coalesce(sum(retracted_at IS NULL), 0), coalesce(sum(retracted_at IS NOT NULL), 0)
             FROM memory_facts",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?;
        let (oldest, newest) = self.conn.query_row(
            "SELECT min(dated_at), max(dated_at) FROM memory_chunk_rows
             WHERE superseded_at IS NULL AND dated_at IS NOT NULL",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?;
        let recall_events: i64 =
            self.conn
                .query_row("SELECT count(*) FROM recall_events", [], |r| r.get(0))?;
        // Counted from the partial index on dated_by, which holds only these.
        let dated_by_fallback: i64 = self.conn.query_row(
            "SELECT count(*) FROM memory_sources WHERE dated_by IS NOT NULL",
            [],
            |r| r.get(0),
        )?;
        Ok(StatusFigures {
            chunks,
            facts_active: facts_active as u64,
            facts_retracted: facts_retracted as u64,
            oldest,
            newest,
            recall_events: recall_events as u64,
            dated_by_fallback: dated_by_fallback as u64,
        })
    }
}
