//! The SQL of the dream's night shift (issue 17): the facts consolidation and
//! the contradiction check compare, merging one fact into another, the
//! recall log routine mining reads, routine facts, and contradiction
//! candidates. The decisions live in `crate::dream`; this file only reads
//! and writes inside the dream's one transaction.

use std::collections::{HashMap, HashSet};

use anyhow::Result;
use rusqlite::{OptionalExtension, params};

use super::dream::DreamTx;
use super::facts::{Learned, insert_fact};
use super::links;
use super::vectors::blob_to_vector;
use crate::kinds::{FactMethod, SourceType};
use crate::rank::association;

/// An active fact as the night shift compares it.
#[derive(Debug, Clone, PartialEq)]
pub struct ActiveFact {
    pub id: i64,
    pub text: String,
    pub method: FactMethod,
    pub created_at: i64,
    /// For a routine fact, the habit it names.
    pub routine_key: Option<String>,
}

/// What routine mining needs to know about a recalled chunk: where it came
/// from and the words that name it.
#[derive(Debug, Clone, PartialEq)]
pub struct ChunkLabel {
    pub id: i64,
    pub source_type: SourceType,
    pub source_id: String,
    pub subject: Option<String>,
    pub vendor: Option<String>,
    pub title: Option<String>,
    /// The text, read for facts only (a fact has no subject or title).
    pub fact_text: Option<String>,
}

impl DreamTx<'_> {
    /// Every active fact, oldest first.
    pub fn active_facts(&self) -> Result<Vec<ActiveFact>> {
        let mut stmt = self.tx.prepare(
            "SELECT c.id, c.text, f.method, c.created_at, f.routine_key
             FROM memory_facts f JOIN memory_chunk_rows c ON c.id = f.chunk_id
             WHERE f.retracted_at IS NULL ORDER BY c.id",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok(ActiveFact {
                id: r.get(0)?,
                text: r.get(1)?,
                method: r.get(2)?,
                created_at: r.get(3)?,
                routine_key: r.get(4)?,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Merges fact `loser` into fact `survivor`: the loser is retracted with
    /// reason `merged` and `merged_into` set, and its history moves to the
    /// survivor. Everything a merge moves is moved here, in one place: today
    /// the genuine recalls (`memory_recalls`); links to other memories, when
    /// there are links, belong here too. Open contradictions of the loser
    /// close by themselves (an open pair needs both facts active).
    pub fn merge_fact(&self, loser: i64, survivor: i64, now: i64) -> Result<()> {
        self.tx
            .prepare_cached(
                "UPDATE memory_facts SET retracted_at = ?3, retracted_reason = 'merged',
                        merged_into = ?2
                 WHERE chunk_id = ?1 AND retracted_at IS NULL",
            )?
            .execute(params![loser, survivor, now])?;
        self.tx
            .prepare_cached("UPDATE memory_recalls SET chunk_id = ?2 WHERE chunk_id = ?1")?
            .execute(params![loser, survivor])?;
        self.move_links(loser, survivor, now)
    }

    /// The live `co_recall` and `semantic` links of `loser` pass to
    /// `survivor`: each partner keeps a link of the same kind with the
    /// survivor at the stronger of the two (both decayed to `now`), with the
    /// older formation and the later reinforcement; the loser's links are
    /// pruned, their history kept. (Facts have no `thread` links.)
    fn move_links(&self, loser: i64, survivor: i64, now: i64) -> Result<()> {
        for link in self.changing_links_of(loser)? {
            let (id, other) = (link.state.id, link.other);
            if other != survivor {
                let s = link.state.now(now);
                let (low, high) = links::ordered(other, survivor);
                let kind = link.state.kind;
                let existing: Option<(i64, f64, i64, bool, i64)> = self
                    .tx
                    .prepare_cached(
                        "SELECT id, strength, strength_at, pruned_at IS NOT NULL, reinforced_at
                         FROM memory_links WHERE low = ?1 AND high = ?2 AND kind = ?3",
                    )?
                    .query_row(params![low, high, kind], |r| {
                        Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
                    })
                    .optional()?;
                let moved = match existing {
                    None => {
                        self.tx
                            .prepare_cached(
                                "INSERT INTO memory_links (low, high, kind, formed_at, strength,
                                   strength_at, reinforced_at)
                                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                            )?
                            .execute(params![
                                low,
                                high,
                                kind,
                                link.formed_at,
                                s,
                                now,
                                link.state.reinforced_at
                            ])?;
                        self.tx.last_insert_rowid()
                    }
                    Some((to, strength, since, pruned, reinforced)) => {
                        let theirs = if pruned {
                            0.0
                        } else {
                            association::strength_at(kind, strength, since, now)
                        };
                        self.tx
                            .prepare_cached(
                                "UPDATE memory_links SET strength = ?2, strength_at = ?3,
                                   formed_at = min(formed_at, ?4), reinforced_at = ?5,
                                   pruned_at = NULL
                                 WHERE id = ?1",
                            )?
                            .execute(params![
                                to,
                                theirs.max(s),
                                now,
                                link.formed_at,
                                reinforced.max(link.state.reinforced_at)
                            ])?;
                        to
                    }
                };
                links::record_state(&self.tx, moved, now)?;
            }
            self.prune_link(id, now)?;
        }
        Ok(())
    }

    /// (chunk, time) of every genuine recall in `[from, to]`.
    pub fn genuine_recalls(&self, from: i64, to: i64) -> Result<Vec<(i64, i64)>> {
        let mut stmt = self
            .tx
            .prepare("SELECT chunk_id, at FROM memory_recalls WHERE at >= ?1 AND at <= ?2")?;
        let rows = stmt.query_map(params![from, to], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Where chunk `id` came from and what names it; None if it is gone.
    pub fn chunk_label(&self, id: i64) -> Result<Option<ChunkLabel>> {
        Ok(self
            .tx
            .prepare_cached(
                "SELECT id, source_type, source_id, subject, vendor, title,
                        CASE WHEN source_type = 'fact' THEN text END
                 FROM memory_chunks WHERE id = ?1",
            )?
            .query_row([id], |r| {
                Ok(ChunkLabel {
                    id: r.get(0)?,
                    source_type: r.get(1)?,
                    source_id: r.get(2)?,
                    subject: r.get(3)?,
                    vendor: r.get(4)?,
                    title: r.get(5)?,
                    fact_text: r.get(6)?,
                })
            })
            .optional()?)
    }

    /// Appends a routine fact; returns its id.
    pub fn insert_routine(&self, text: &str, key: &str, confidence: f64, now: i64) -> Result<i64> {
        let source_id = format!("routine:{key}");
        insert_fact(
            &self.tx,
            text,
            &source_id,
            Learned::Routine { key, confidence },
            now,
        )
    }

    /// A routine seen again: its confidence restarts at `confidence` from `now`.
    pub fn renew_routine(&self, id: i64, confidence: f64, now: i64) -> Result<()> {
        self.tx.execute(
            "UPDATE memory_facts SET confidence = ?2, confidence_at = ?3,
                    peak_confidence = max(coalesce(peak_confidence, 0), ?2)
             WHERE chunk_id = ?1",
            params![id, confidence, now],
        )?;
        Ok(())
    }

    /// Every pair ever flagged (open, compatible or closed), smaller id first:
    /// a pair is flagged once.
    pub fn flagged_pairs(&self) -> Result<HashSet<(i64, i64)>> {
        let mut stmt = self
            .tx
            .prepare("SELECT fact_a, fact_b FROM fact_conflicts")?;
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Records a contradiction candidate (ids in any order).
    pub fn insert_conflict(&self, a: i64, b: i64, reason: &str, now: i64) -> Result<()> {
        let (a, b) = (a.min(b), a.max(b));
        self.tx
            .prepare_cached(
                "INSERT OR IGNORE INTO fact_conflicts (fact_a, fact_b, reason, found_at)
                 VALUES (?1, ?2, ?3, ?4)",
            )?
            .execute(params![a, b, reason, now])?;
        Ok(())
    }

    /// The vector of every active fact that has one from model `model_id`
    /// (L2-normalised, so a dot product is the cosine).
    pub fn fact_vectors(&self, model_id: i64) -> Result<HashMap<i64, Vec<f32>>> {
        let mut stmt = self.tx.prepare(
            "SELECT f.chunk_id, e.vector FROM memory_facts f
             JOIN chunk_text_hashes h ON h.chunk_id = f.chunk_id
             JOIN embeddings e ON e.text_hash = h.text_hash AND e.model_id = ?1
             WHERE f.retracted_at IS NULL",
        )?;
        let rows = stmt.query_map([model_id], |r| {
            Ok((r.get(0)?, blob_to_vector(&r.get::<_, Vec<u8>>(1)?)))
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    pub fn get_meta(&self, key: &str) -> Result<Option<String>> {
        Ok(self
            .tx
            .query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0))
            .optional()?)
    }
}
