//! The SQL behind `alfred-mem dream` (the recall log is read in
//! `recall_log.rs`): promote chunks into facts, fade them, prune old
//! events. The decisions live in `crate::dream`; this file only reads and
//! writes inside one transaction.

use anyhow::{Context, Result};
use rusqlite::{Transaction, TransactionBehavior, params};

use super::Store;
use super::facts::{Learned, insert_fact};

/// Recall history of one chunk inside the scoring window.
#[derive(Debug, Clone, PartialEq)]
pub struct RecallAggregate {
    pub chunk_id: i64,
    pub recall_count: u64,
    pub unique_queries: u64,
    /// The best undecayed relevance it was listed with (the decayed score
    /// for events logged before relevance was); NULL (NaN) counts as 0.
    pub max_score: f64,
    pub last_recalled_at: i64,
    /// The fact this chunk was already promoted into, retracted or not.
    pub promoted_as: Option<i64>,
}

/// A dream fact that may fade: its stored confidence and what earns it a
/// second chance.
#[derive(Debug, Clone, PartialEq)]
pub struct LivingFact {
    pub id: i64,
    /// The confidence at `confidence_at`.
    pub confidence: f64,
    pub confidence_at: i64,
    pub peak_confidence: f64,
    pub reprieved: bool,
    pub recalls: u64,
}

/// The dream's one transaction. Dropping it without [`DreamTx::commit`]
/// rolls everything back, which is how `--dry-run` and errors leave no trace.
pub struct DreamTx<'a> {
    pub(super) tx: Transaction<'a>,
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
    /// (id, text) of every active fact, for the near-duplicate check.
    pub fn active_fact_texts(&self) -> Result<Vec<(i64, String)>> {
        let mut stmt = self.tx.prepare(
            "SELECT c.id, c.text FROM memory_facts f JOIN memory_chunk_rows c ON c.id = f.chunk_id
             WHERE f.retracted_at IS NULL ORDER BY c.id",
        )?;
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    pub fn chunk_text(&self, id: i64) -> Result<String> {
        Ok(self
            .tx
            .prepare_cached("SELECT text FROM memory_chunk_rows WHERE id = ?1")?
            .query_row([id], |r| r.get(0))?)
    }

    /// Appends a dream fact with the chunk's text, linked to the chunk;
    /// returns the fact id. The unique index on `promoted_from` makes a
    /// second promotion of the same chunk an error rather than a duplicate.
    /// The fact starts with confidence `confidence` (its promotion score).
    pub fn promote(&self, chunk_id: i64, text: &str, confidence: f64, now: i64) -> Result<i64> {
        let source_id = format!("dream:{chunk_id}");
        let learned = Learned::Dream {
            from: chunk_id,
            confidence,
        };
        insert_fact(&self.tx, text, &source_id, learned, now)
    }

    /// Every active dream or routine fact that is not pinned, with what its fading
    /// depends on, oldest first.
    pub fn fading_candidates(&self) -> Result<Vec<LivingFact>> {
        let mut stmt = self.tx.prepare(
            "SELECT f.chunk_id, f.confidence, f.confidence_at,
                    coalesce(f.peak_confidence, f.confidence), f.reprieved_at IS NOT NULL,
                    (SELECT count(*) FROM memory_recalls r WHERE r.chunk_id = f.chunk_id)
             FROM memory_facts f
             WHERE f.method IN ('dream', 'routine') AND f.retracted_at IS NULL AND NOT f.pinned
               AND f.confidence IS NOT NULL AND f.confidence_at IS NOT NULL
             ORDER BY f.chunk_id",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok(LivingFact {
                id: r.get(0)?,
                confidence: r.get(1)?,
                confidence_at: r.get(2)?,
                peak_confidence: r.get(3)?,
                reprieved: r.get(4)?,
                recalls: r.get::<_, i64>(5)? as u64,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// The one second chance: confidence restarts at `confidence` from
    /// `now`, and the reprieve is recorded.
    pub fn reprieve(&self, id: i64, confidence: f64, now: i64) -> Result<()> {
        self.tx.execute(
            "UPDATE memory_facts SET confidence = ?2, confidence_at = ?3, reprieved_at = ?3
             WHERE chunk_id = ?1",
            params![id, confidence, now],
        )?;
        Ok(())
    }

    /// Retires a faded fact: retracted (kept, as `forget` keeps it) with
    /// reason `faded`.
    pub fn fade(&self, id: i64, now: i64) -> Result<()> {
        self.tx.execute(
            "UPDATE memory_facts SET retracted_at = ?2, retracted_reason = 'faded'
             WHERE chunk_id = ?1 AND retracted_at IS NULL",
            params![id, now],
        )?;
        Ok(())
    }

    /// Deletes the recall events older than `before`; returns how many.
    /// (A dry run counts them in `read_recall_log`.)
    pub fn prune_events_before(&self, before: i64) -> Result<u64> {
        Ok(self
            .tx
            .execute("DELETE FROM recall_events WHERE recalled_at < ?1", [before])?
            as u64)
    }

    pub fn set_meta(&self, key: &str, value: &str) -> Result<()> {
        super::put_meta(&self.tx, key, value)
    }

    pub fn commit(self) -> Result<()> {
        super::commit_writes(self.tx)
    }
}
