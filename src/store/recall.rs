//! The two recall logs. `recall_events`: one row per returned search hit,
//! *exposure*, which the dream job reads to learn what keeps coming up and
//! prunes after its window. `memory_recalls`: one row per *genuine* recall
//! (a chunk read whole: `show`, MCP `memory_get` and `memory_search`), kept
//! for good; it strengthens the chunk (`rank::strength`) and nudges a dream
//! fact's confidence up.

use std::collections::{HashMap, HashSet};

use anyhow::Result;
use rusqlite::{Connection, OptionalExtension, Transaction, TransactionBehavior, params};

use super::Store;
use crate::rank::strength::{Recalls, confidence_after_recall, confidence_at};

/// How a chunk was genuinely recalled, as `memory_recalls.via` spells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecallVia {
    /// `alfred-mem show`.
    Show,
    /// MCP `memory_get`.
    McpGet,
    /// MCP `memory_search`, which hands the agent the full text of each hit.
    McpSearch,
}

impl RecallVia {
    pub fn as_str(self) -> &'static str {
        match self {
            RecallVia::Show => "show",
            RecallVia::McpGet => "mcp_get",
            RecallVia::McpSearch => "mcp_search",
        }
    }
}

/// One search hit as the exposure log keeps it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Exposure {
    pub chunk_id: i64,
    /// Relevance × decay, as ranked.
    pub score: f64,
    /// Relevance before decay: what dream promotes on.
    pub relevance: f64,
}

/// `(chunk id, score)`: a hit that did not decay, its score its relevance.
impl From<(i64, f64)> for Exposure {
    fn from((chunk_id, score): (i64, f64)) -> Exposure {
        Exposure {
            chunk_id,
            score,
            relevance: score,
        }
    }
}

impl Store {
    /// Log one exposure per hit, all under one query hash and time, in one
    /// transaction.
    pub fn log_recall<E: Into<Exposure> + Copy>(
        &self,
        hits: &[E],
        query_hash: &str,
        at: i64,
    ) -> Result<()> {
        if hits.is_empty() {
            return Ok(());
        }
        let tx = self.conn.unchecked_transaction()?;
        {
            let mut stmt = tx.prepare_cached(
                "INSERT INTO recall_events (chunk_id, query_hash, score, relevance, recalled_at)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
            )?;
            for h in hits.iter().map(|&h| h.into()) {
                stmt.execute(params![h.chunk_id, query_hash, h.score, h.relevance, at])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// Records a genuine recall of each of `chunk_ids` (duplicates once) at
    /// `at`, as one call: they share a `call_id`, "recalled together".
    /// A dream fact among them gains confidence, and they bond with each
    /// other (`links::bond`, in the order given: a search's best first).
    /// Returns the call id.
    pub fn record_recalls(&self, chunk_ids: &[i64], via: RecallVia, at: i64) -> Result<i64> {
        let mut seen = HashSet::new();
        let ids: Vec<i64> = chunk_ids
            .iter()
            .copied()
            .filter(|&id| seen.insert(id))
            .collect();
        // IMMEDIATE: a second writer must not take the same call id
        // between our read and our insert.
        let tx = Transaction::new_unchecked(&self.conn, TransactionBehavior::Immediate)?;
        let call_id: i64 = tx.query_row(
            "SELECT coalesce(max(call_id), 0) + 1 FROM memory_recalls",
            [],
            |r| r.get(0),
        )?;
        for &id in &ids {
            strengthen_fact(&tx, id, at)?;
            tx.prepare_cached(
                "INSERT INTO memory_recalls (chunk_id, at, via, call_id) VALUES (?1, ?2, ?3, ?4)",
            )?
            .execute(params![id, at, via.as_str(), call_id])?;
        }
        super::links::bond(&tx, &ids, at)?;
        tx.commit()?;
        Ok(call_id)
    }

    /// The genuine recalls of each of `ids` up to `until` (inclusive); ids
    /// never recalled are absent.
    pub fn recalls_of(&self, ids: &[i64], until: i64) -> Result<HashMap<i64, Recalls>> {
        recalls_of(&self.conn, ids, until)
    }

    /// The newest instant memory holds at `reference`: the latest date of a
    /// chunk created by then and dated no later, or the latest genuine
    /// recall by then. The forgetting curve measures ages from it, so moving
    /// "now" past everything changes no ranking (`search`).
    pub fn newest_event(&self, reference: i64) -> Result<Option<i64>> {
        let dated = newest_dated(&self.conn, reference)?;
        let recalled: Option<i64> = self
            .conn
            .prepare_cached("SELECT max(at) FROM memory_recalls WHERE at <= ?1")?
            .query_row([reference], |r| r.get(0))?;
        Ok(dated.max(recalled))
    }
}

/// Rows of the newest-dated chunks read for one created by `reference`
/// before the chunks created by then are read from their index instead.
const NEWEST_DATED_STEPS: i64 = 64;

/// The latest date of a chunk created by `reference` and dated no later.
/// Usually every chunk was created by then, and it is one seek in
/// `memory_chunks_dated`; otherwise the newest-dated chunks are tried first,
/// then the chunks created by then, from `memory_chunks_created` alone, so
/// a reference time older than an import does not read every chunk row
/// dated after it.
fn newest_dated(conn: &Connection, reference: i64) -> Result<Option<i64>> {
    let newest_created: Option<i64> = conn
        .prepare_cached("SELECT max(created_at) FROM memory_chunk_rows")?
        .query_row([], |r| r.get(0))?;
    let Some(newest_created) = newest_created else {
        return Ok(None);
    };
    if newest_created <= reference {
        return Ok(conn
            .prepare_cached(
                "SELECT dated_at FROM memory_chunk_rows WHERE dated_at <= ?1
                 ORDER BY dated_at DESC LIMIT 1",
            )?
            .query_row([reference], |r| r.get(0))
            .optional()?);
    }
    let (first, read): (Option<i64>, i64) = conn
        .prepare_cached(
            "SELECT max(CASE WHEN created_at <= ?1 THEN dated_at END), count(*)
             FROM (SELECT dated_at, created_at FROM memory_chunk_rows
                   WHERE dated_at <= ?1 ORDER BY dated_at DESC LIMIT ?2)",
        )?
        .query_row(params![reference, NEWEST_DATED_STEPS], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })?;
    if first.is_some() || read < NEWEST_DATED_STEPS {
        return Ok(first);
    }
    Ok(conn
        .prepare_cached(
            "SELECT max(dated_at) FROM memory_chunk_rows INDEXED BY memory_chunks_created
             WHERE created_at <= ?1 AND dated_at <= ?1",
        )?
        .query_row([reference], |r| r.get(0))?)
}

pub(super) fn recalls_of(
    conn: &Connection,
    ids: &[i64],
    until: i64,
) -> Result<HashMap<i64, Recalls>> {
    if ids.is_empty() {
        return Ok(HashMap::new());
    }
    let ids = serde_json::to_string(ids)?;
    let mut stmt = conn.prepare_cached(
        "SELECT chunk_id, count(*), max(at) FROM memory_recalls
         WHERE chunk_id IN (SELECT value FROM json_each(?1)) AND at <= ?2
         GROUP BY chunk_id",
    )?;
    let rows = stmt.query_map(params![ids, until], |r| {
        Ok((
            r.get::<_, i64>(0)?,
            Recalls {
                count: r.get::<_, i64>(1)? as u64,
                last: r.get(2)?,
            },
        ))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// If `id` is an active dream fact, its confidence at `at` plus one recall's
/// step, from `at`. The stretch counts the recalls before this one.
fn strengthen_fact(conn: &Connection, id: i64, at: i64) -> Result<()> {
    let row: Option<(f64, i64, f64)> = conn
        .prepare_cached(
            "SELECT confidence, confidence_at, coalesce(peak_confidence, confidence)
             FROM memory_facts
             WHERE chunk_id = ?1 AND retracted_at IS NULL
               AND confidence IS NOT NULL AND confidence_at IS NOT NULL",
        )?
        .query_row([id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .optional()?;
    let Some((c0, t0, peak)) = row else {
        return Ok(());
    };
    let before = recalls_of(conn, &[id], at)?.get(&id).map_or(0, |r| r.count);
    let c = confidence_after_recall(confidence_at(c0, t0, at, before));
    conn.prepare_cached(
        "UPDATE memory_facts SET confidence = ?2, confidence_at = ?3, peak_confidence = ?4
         WHERE chunk_id = ?1",
    )?
    .execute(params![id, c, at.max(t0), peak.max(c)])?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fast path answers what the plain query answers, whatever the
    /// reference time and however creation and dates interleave.
    #[test]
    fn newest_dated_equals_the_plain_query() {
        let store = Store::open_in_memory().unwrap();
        let conn = &store.conn;
        let mut next = 7u64;
        let mut rand = |n: i64| {
            next = next
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (next >> 33) as i64 % n
        };
        // Batches imported at times 1000, 2000, ..., each dated over 0..5000,
        // so a reference time cuts both the dates and the creations.
        for i in 0..600 {
            let created = 1000 * (1 + i / 100);
            let dated = if i % 50 == 0 { None } else { Some(rand(5000)) };
            let source = if dated.is_none() { "fact" } else { "email" };
            conn.execute(
                "INSERT INTO memory_chunk_rows (source_type, source_id, seq, text, dated_at, created_at)
                 VALUES (?1, ?2, 0, 'x', ?3, ?4)",
                params![source, i.to_string(), dated, created],
            )
            .unwrap();
        }
        for reference in (-500..8000).step_by(250) {
            let plain: Option<i64> = conn
                .query_row(
                    "SELECT max(dated_at) FROM memory_chunk_rows
                     WHERE dated_at <= ?1 AND created_at <= ?1",
                    [reference],
                    |r| r.get(0),
                )
                .unwrap();
            assert_eq!(
                newest_dated(conn, reference).unwrap(),
                plain,
                "at {reference}"
            );
        }
        assert_eq!(
            newest_dated(&Store::open_in_memory().unwrap().conn, 0).unwrap(),
            None
        );
    }
}
