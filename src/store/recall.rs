//! The recall log: one row per returned search hit. The dream job reads it
//! to learn what keeps being recalled, and prunes it after its window.

use anyhow::Result;
use rusqlite::params;

use super::Store;

impl Store {
    /// Log one recall event per (chunk id, final score), all under one query
    /// hash and time, in one transaction.
    pub fn log_recall(
        &self,
        chunk_ids_scores: &[(i64, f64)],
        query_hash: &str,
        at: i64,
    ) -> Result<()> {
        if chunk_ids_scores.is_empty() {
            return Ok(());
        }
        let tx = self.conn.unchecked_transaction()?;
        {
            let mut stmt = tx.prepare_cached(
                "INSERT INTO recall_events (chunk_id, query_hash, score, recalled_at)
                 VALUES (?1, ?2, ?3, ?4)",
            )?;
            for (id, score) in chunk_ids_scores {
                stmt.execute(params![id, query_hash, score, at])?;
            }
        }
        tx.commit()?;
        Ok(())
    }
}
