//! The links as dream tends them (issue 16): every changing link to decay
//! or prune, and the links of one chunk to move when its fact is merged
//! (`store/night.rs`). Forming and reading links is `store/links.rs`.

use anyhow::Result;
use rusqlite::params;

use super::dream::DreamTx;
use super::links::{LinkState, record_state};
use crate::rank::association::strength_at;

/// A changing link seen from one of its ends.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinkOf {
    pub state: LinkState,
    pub formed_at: i64,
    /// The other end.
    pub other: i64,
}

impl LinkState {
    /// Its strength at `now`, decayed since it was written down.
    pub fn now(&self, now: i64) -> f64 {
        strength_at(self.kind, self.strength, self.strength_at, now)
    }
}

impl DreamTx<'_> {
    /// Every live `co_recall` and `semantic` link, oldest first.
    pub fn changing_links(&self) -> Result<Vec<LinkState>> {
        let mut stmt = self.tx.prepare(
            "SELECT id, kind, strength, strength_at, reinforced_at FROM memory_links
             WHERE kind <> 'thread' AND pruned_at IS NULL ORDER BY id",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok(LinkState {
                id: r.get(0)?,
                kind: r.get(1)?,
                strength: r.get(2)?,
                strength_at: r.get(3)?,
                reinforced_at: r.get(4)?,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// The live `co_recall` and `semantic` links of chunk `id`.
    pub fn changing_links_of(&self, id: i64) -> Result<Vec<LinkOf>> {
        let mut stmt = self.tx.prepare_cached(
            "SELECT id, kind, strength, strength_at, reinforced_at, formed_at,
                    CASE WHEN low = ?1 THEN high ELSE low END
             FROM memory_links
             WHERE (low = ?1 OR high = ?1) AND kind <> 'thread' AND pruned_at IS NULL",
        )?;
        let rows = stmt.query_map(params![id], |r| {
            Ok(LinkOf {
                state: LinkState {
                    id: r.get(0)?,
                    kind: r.get(1)?,
                    strength: r.get(2)?,
                    strength_at: r.get(3)?,
                    reinforced_at: r.get(4)?,
                },
                formed_at: r.get(5)?,
                other: r.get(6)?,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Writes down a link's decayed strength at `now`.
    pub fn decay_link(&self, id: i64, strength: f64, now: i64) -> Result<()> {
        self.tx
            .prepare_cached(
                "UPDATE memory_links SET strength = ?2, strength_at = ?3 WHERE id = ?1",
            )?
            .execute(params![id, strength, now])?;
        record_state(&self.tx, id, now)
    }

    /// Prunes a faded link: strength 0 from `now`; the row and its history
    /// stay.
    pub fn prune_link(&self, id: i64, now: i64) -> Result<()> {
        self.tx
            .prepare_cached(
                "UPDATE memory_links SET strength = 0, strength_at = ?2, pruned_at = ?2
                 WHERE id = ?1",
            )?
            .execute(params![id, now])?;
        record_state(&self.tx, id, now)
    }
}
