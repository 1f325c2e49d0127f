//! The SQL behind `alfred-mem dream`: aggregate the recall log per chunk,
//! promote chunks into facts, prune old events. The decisions live in
//! `crate::dream`; this file only reads and writes inside one transaction.

use anyhow::{Context, Result};
use rusqlite::{Transaction, TransactionBehavior, params};

use super::Store;
use super::facts::insert_fact;
use crate::kinds::FactMethod;

/// Recall history of one chunk inside the scoring window, straight from SQL.
#[derive(Debug, Clone, PartialEq)]
pub struct RecallAggregate {
    pub chunk_id: i64,
    pub recall_count: u64,
    pub unique_queries: u64,
    /// NULL scores (SQLite stores NaN as NULL) count as 0.
    pub max_score: f64,
    pub last_recalled_at: i64,
    /// The fact this chunk was already promoted into, retracted or not.
    pub promoted_as: Option<i64>,
}

/// The dream's one transaction. Dropping it without [`DreamTx::commit`]
/// rolls everything back, which is how `--dry-run` and errors leave no trace.
pub struct DreamTx<'a> {
    tx: Transaction<'a>,
}

impl Store {
    /// Begins the dream. A real run takes the write lock up front
    /// (IMMEDIATE), so a second `dream` started at the same time waits for
    /// the first (up to the busy timeout) and then sees its promotions; it
    /// can never read the log before the first run commits. A dry run only
    /// reads, so it takes no lock and blocks nobody.
    pub fn begin_dream(&mut self, dry_run: bool) -> Result<DreamTx<'_>> {
        let behavior = if dry_run {
            TransactionBehavior::Deferred
        } else {
            TransactionBehavior::Immediate
        };
        let tx = self
            .conn
            .transaction_with_behavior(behavior)
            .context("could not start the dream: another process kept the database busy")?;
        Ok(DreamTx { tx })
    }
}

impl DreamTx<'_> {
    /// Per chunk recalled in `[from, to]`: counts, best score, last recall.
    /// Only current, dated chunks are candidates (facts are already facts,
    /// superseded chunks are no longer what the source says).
    pub fn recall_aggregates(&self, from: i64, to: i64) -> Result<Vec<RecallAggregate>> {
        let mut stmt = self.tx.prepare(
            "SELECT a.chunk_id, a.n, a.queries, a.best, a.last, f.chunk_id
             FROM (SELECT chunk_id, count(*) AS n, count(DISTINCT query_hash) AS queries,
                          max(score) AS best, max(recalled_at) AS last
                   FROM recall_events
                   WHERE recalled_at >= ?1 AND recalled_at <= ?2
                   GROUP BY chunk_id) AS a
             JOIN memory_chunks c ON c.id = a.chunk_id
             LEFT JOIN memory_facts f ON f.promoted_from = a.chunk_id
             WHERE c.superseded_at IS NULL AND c.dated_at IS NOT NULL",
        )?;
        let rows = stmt.query_map(params![from, to], |r| {
            Ok(RecallAggregate {
                chunk_id: r.get(0)?,
                recall_count: r.get::<_, i64>(1)? as u64,
                unique_queries: r.get::<_, i64>(2)? as u64,
                max_score: r.get::<_, Option<f64>>(3)?.unwrap_or(0.0),
                last_recalled_at: r.get(4)?,
                promoted_as: r.get(5)?,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// (id, text) of every active fact, for the near-duplicate check.
    pub fn active_fact_texts(&self) -> Result<Vec<(i64, String)>> {
        let mut stmt = self.tx.prepare(
            "SELECT c.id, c.text FROM memory_facts f JOIN memory_chunks c ON c.id = f.chunk_id
             WHERE f.retracted_at IS NULL ORDER BY c.id",
        )?;
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    pub fn chunk_text(&self, id: i64) -> Result<String> {
        Ok(self
            .tx
            .prepare_cached("SELECT text FROM memory_chunks WHERE id = ?1")?
            .query_row([id], |r| r.get(0))?)
    }

    /// Appends a dream fact with the chunk's text, linked to the chunk;
    /// returns the fact id. The unique index on `promoted_from` makes a
    /// second promotion of the same chunk an error rather than a duplicate.
    pub fn promote(&self, chunk_id: i64, text: &str, now: i64) -> Result<i64> {
        let source_id = format!("dream:{chunk_id}");
        insert_fact(
            &self.tx,
            text,
            &source_id,
            FactMethod::Dream,
            Some(chunk_id),
            now,
        )
    }

    /// Recall events older than `before`: deleted, or with `dry_run` only counted.
    pub fn prune_events_before(&self, before: i64, dry_run: bool) -> Result<u64> {
        let n = if dry_run {
            self.tx.query_row(
                "SELECT count(*) FROM recall_events WHERE recalled_at < ?1",
                [before],
                |r| r.get::<_, i64>(0),
            )? as u64
        } else {
            self.tx
                .execute("DELETE FROM recall_events WHERE recalled_at < ?1", [before])?
                as u64
        };
        Ok(n)
    }

    pub fn set_meta(&self, key: &str, value: &str) -> Result<()> {
        super::put_meta(&self.tx, key, value)
    }

    pub fn commit(self) -> Result<()> {
        super::commit_writes(self.tx)
    }
}
