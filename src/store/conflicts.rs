//! Contradiction candidates as people and agents see them: the open pairs
//! (`facts --conflicts`, MCP `memory_list_conflicts`) and marking a pair
//! compatible (`facts --compatible A B`). `dream` finds them
//! (`store/night.rs` writes them).

use anyhow::{Result, bail};
use rusqlite::{OptionalExtension, TransactionBehavior, params};

use super::Store;
use super::facts::{Fact, fact_by_id};

/// One open contradiction candidate.
#[derive(Debug, Clone, PartialEq)]
pub struct Conflict {
    pub facts: [Fact; 2],
    pub reason: String,
    pub found_at: i64,
}

/// A pair is open while both facts are active and nobody said it is fine.
const OPEN: &str = "k.compatible_at IS NULL
     AND EXISTS (SELECT 1 FROM memory_facts f WHERE f.chunk_id = k.fact_a AND f.retracted_at IS NULL)
     AND EXISTS (SELECT 1 FROM memory_facts f WHERE f.chunk_id = k.fact_b AND f.retracted_at IS NULL)";

impl Store {
    /// Every open contradiction candidate, oldest first, its facts as of `now`.
    pub fn open_conflicts(&self, now: i64) -> Result<Vec<Conflict>> {
        let sql = format!(
            "SELECT k.fact_a, k.fact_b, k.reason, k.found_at FROM fact_conflicts k
             WHERE {OPEN} ORDER BY k.id"
        );
        let mut stmt = self.conn.prepare(&sql)?;
        let rows: Vec<(i64, i64, String, i64)> = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?
            .collect::<rusqlite::Result<_>>()?;
        rows.into_iter()
            .map(|(a, b, reason, found_at)| {
                Ok(Conflict {
                    facts: [
                        fact_by_id(&self.conn, a, now)?,
                        fact_by_id(&self.conn, b, now)?,
                    ],
                    reason,
                    found_at,
                })
            })
            .collect()
    }

    /// Marks the open pair (`a`, `b`) compatible: both facts stay, and the
    /// pair is never flagged again. An error when no such pair is open.
    pub fn mark_compatible(&mut self, a: i64, b: i64, now: i64) -> Result<()> {
        let (a, b) = (a.min(b), a.max(b));
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let sql = format!(
            "SELECT k.id FROM fact_conflicts k WHERE k.fact_a = ?1 AND k.fact_b = ?2 AND {OPEN}"
        );
        let id: Option<i64> = tx.query_row(&sql, params![a, b], |r| r.get(0)).optional()?;
        let Some(id) = id else {
            bail!(
                "facts {a} and {b} are not an open conflict; list the open ones with: alfred-mem facts --conflicts"
            );
        };
        tx.execute(
            "UPDATE fact_conflicts SET compatible_at = ?2 WHERE id = ?1",
            params![id, now],
        )?;
        super::commit_writes(tx)
    }
}
