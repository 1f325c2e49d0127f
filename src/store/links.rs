//! The links between chunks (migration 0010, issue 16): formed when chunks
//! are written together (`thread`), read together (`co_recall`) or mean the
//! same (`semantic`); reinforced by recall, decayed and pruned by dream.
//! Each link is one row holding its current state; every state of a
//! changing link is also appended to `memory_link_history`, so `--as-of`
//! sees the links as they stood. The maths is `rank::association`.

use std::collections::HashMap;

use anyhow::Result;
use rusqlite::{Connection, OptionalExtension, params};

use super::Store;
use super::search::Candidate;
use crate::kinds::LinkKind;
use crate::rank::association::{THREAD_STRENGTH, changes, partners, reinforced, strength_at};

/// One link as it stood at an instant.
#[derive(Debug, Clone, PartialEq)]
pub struct Link {
    pub low: i64,
    pub high: i64,
    pub kind: LinkKind,
    pub formed_at: i64,
    /// At the instant asked for (decayed since its last change).
    pub strength: f64,
    pub reinforced_at: i64,
}

impl Link {
    /// The end of the link that is not `id`.
    pub fn other(&self, id: i64) -> i64 {
        if self.low == id { self.high } else { self.low }
    }
}

/// A changing link's stored state, for dream.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinkState {
    pub id: i64,
    pub kind: LinkKind,
    /// The strength at `strength_at`.
    pub strength: f64,
    pub strength_at: i64,
    pub reinforced_at: i64,
}

pub(super) fn ordered(a: i64, b: i64) -> (i64, i64) {
    (a.min(b), a.max(b))
}

impl Store {
    /// The links touching any of `ids`, as they stood at `as_of` (from the
    /// history), or now; pruned links are left out. A link between two of
    /// `ids` comes once.
    pub fn links_touching(&self, ids: &[i64], as_of: Option<i64>, now: i64) -> Result<Vec<Link>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let json = serde_json::to_string(ids)?;
        let mut stmt = self.conn.prepare_cached(
            "SELECT id, low, high, kind, formed_at, strength, strength_at, reinforced_at,
                    pruned_at IS NOT NULL
             FROM memory_links WHERE low IN (SELECT value FROM json_each(?1))
             UNION
             SELECT id, low, high, kind, formed_at, strength, strength_at, reinforced_at,
                    pruned_at IS NOT NULL
             FROM memory_links WHERE high IN (SELECT value FROM json_each(?1))",
        )?;
        type Row = (i64, Link, i64, bool);
        let rows: Vec<Row> = stmt
            .query_map([json], |r| {
                Ok((
                    r.get(0)?,
                    Link {
                        low: r.get(1)?,
                        high: r.get(2)?,
                        kind: r.get(3)?,
                        formed_at: r.get(4)?,
                        strength: r.get(5)?,
                        reinforced_at: r.get(7)?,
                    },
                    r.get(6)?,
                    r.get(8)?,
                ))
            })?
            .collect::<rusqlite::Result<_>>()?;
        let mut out = Vec::with_capacity(rows.len());
        for (id, mut link, since, pruned) in rows {
            match as_of {
                None if pruned => continue,
                None => link.strength = strength_at(link.kind, link.strength, since, now),
                Some(t) if link.formed_at > t => continue,
                Some(_) if !changes(link.kind) => {}
                Some(t) => {
                    let Some((s, at, reinforced_at)) = state_at(&self.conn, id, t)? else {
                        continue;
                    };
                    if s <= 0.0 {
                        continue;
                    }
                    link.strength = strength_at(link.kind, s, at, t);
                    link.reinforced_at = reinforced_at;
                }
            }
            out.push(link);
        }
        Ok(out)
    }

    /// Links `chunk` to each of `(other, strength)` by meaning, at `at`,
    /// unless they are linked so already (a pruned link forms again).
    /// Returns how many links formed.
    pub fn link_semantic(&self, chunk: i64, near: &[(i64, f64)], at: i64) -> Result<usize> {
        let tx = self.conn.unchecked_transaction()?;
        let mut formed = 0;
        for &(other, strength) in near {
            if other == chunk {
                continue;
            }
            let (low, high) = ordered(chunk, other);
            let live: Option<bool> = tx
                .prepare_cached(
                    "SELECT pruned_at IS NULL FROM memory_links
                     WHERE low = ?1 AND high = ?2 AND kind = 'semantic'",
                )?
                .query_row(params![low, high], |r| r.get(0))
                .optional()?;
            if live != Some(true) {
                set_strength(&tx, low, high, LinkKind::Semantic, at, |_| strength)?;
                formed += 1;
            }
        }
        tx.commit()?;
        Ok(formed)
    }
}

/// A changing link's last recorded state at or before `t`: (strength, from,
/// reinforced at).
fn state_at(conn: &Connection, id: i64, t: i64) -> Result<Option<(f64, i64, i64)>> {
    Ok(conn
        .prepare_cached(
            "SELECT strength, at, reinforced_at FROM memory_link_history
             WHERE link_id = ?1 AND at <= ?2 ORDER BY at DESC LIMIT 1",
        )?
        .query_row(params![id, t], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .optional()?)
}

/// Threads `a` and `b` (two parts of one source, or a reply and the message
/// it answers) from `at`, unless they are already.
pub(super) fn link_thread(conn: &Connection, a: i64, b: i64, at: i64) -> Result<()> {
    if a == b {
        return Ok(());
    }
    let (low, high) = ordered(a, b);
    conn.prepare_cached(
        "INSERT OR IGNORE INTO memory_links
           (low, high, kind, formed_at, strength, strength_at, reinforced_at)
         VALUES (?1, ?2, 'thread', ?3, ?4, ?3, ?3)",
    )?
    .execute(params![low, high, at, THREAD_STRENGTH])?;
    Ok(())
}

/// Sets the link of `kind` between `low` and `high` to `f(its strength at
/// at)` (0 for a link not yet formed or pruned), reinforced at `at`, and
/// appends the new state to the history.
fn set_strength(
    conn: &Connection,
    low: i64,
    high: i64,
    kind: LinkKind,
    at: i64,
    f: impl Fn(f64) -> f64,
) -> Result<()> {
    let row: Option<(i64, f64, i64, bool)> = conn
        .prepare_cached(
            "SELECT id, strength, strength_at, pruned_at IS NOT NULL FROM memory_links
             WHERE low = ?1 AND high = ?2 AND kind = ?3",
        )?
        .query_row(params![low, high, kind], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
        })
        .optional()?;
    let id = match row {
        None => {
            conn.prepare_cached(
                "INSERT INTO memory_links
                   (low, high, kind, formed_at, strength, strength_at, reinforced_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?4, ?4)",
            )?
            .execute(params![low, high, kind, at, f(0.0)])?;
            conn.last_insert_rowid()
        }
        Some((id, s, since, pruned)) => {
            let now = if pruned {
                0.0
            } else {
                strength_at(kind, s, since, at)
            };
            conn.prepare_cached(
                "UPDATE memory_links SET strength = ?2, strength_at = ?3, reinforced_at = ?3,
                   pruned_at = NULL
                 WHERE id = ?1",
            )?
            .execute(params![id, f(now), at])?;
            id
        }
    };
    record_state(conn, id, at)
}

/// Appends a link's current state to its history (one row per instant: a
/// second change in the same second replaces the first).
pub(super) fn record_state(conn: &Connection, id: i64, at: i64) -> Result<()> {
    conn.prepare_cached(
        "INSERT OR REPLACE INTO memory_link_history (link_id, at, strength, reinforced_at)
         SELECT id, ?2, strength, reinforced_at FROM memory_links WHERE id = ?1",
    )?
    .execute(params![id, at])?;
    Ok(())
}

/// Hebbian bonding: `ids`, recalled together at `at` in this order, each
/// bond with their strongest partners among them (`rank::association::
/// partners`, at most eight each): the `co_recall` link of each pair gains
/// 0.1 up to 1.0, and a `semantic` link between them is renewed the same
/// way (it decays unless reinforced by a co-recall).
pub(super) fn bond(conn: &Connection, ids: &[i64], at: i64) -> Result<()> {
    if ids.len() < 2 {
        return Ok(());
    }
    let json = serde_json::to_string(ids)?;
    let mut existing: HashMap<(i64, i64, LinkKind), f64> = HashMap::new();
    {
        let mut stmt = conn.prepare_cached(
            "SELECT low, high, kind, strength, strength_at FROM memory_links
             WHERE kind <> 'thread' AND pruned_at IS NULL
               AND low IN (SELECT value FROM json_each(?1))
               AND high IN (SELECT value FROM json_each(?1))",
        )?;
        let rows = stmt.query_map([json], |r| {
            let kind: LinkKind = r.get(2)?;
            Ok((
                (r.get(0)?, r.get(1)?, kind),
                strength_at(kind, r.get(3)?, r.get(4)?, at),
            ))
        })?;
        for row in rows {
            let (key, s) = row?;
            existing.insert(key, s);
        }
    }
    let strength = |i: usize, j: usize| {
        let (low, high) = ordered(ids[i], ids[j]);
        existing
            .get(&(low, high, LinkKind::CoRecall))
            .copied()
            .unwrap_or(0.0)
    };
    for (i, j) in partners(&strength, ids.len()) {
        let (low, high) = ordered(ids[i], ids[j]);
        set_strength(conn, low, high, LinkKind::CoRecall, at, reinforced)?;
        if existing.contains_key(&(low, high, LinkKind::Semantic)) {
            set_strength(conn, low, high, LinkKind::Semantic, at, reinforced)?;
        }
    }
    Ok(())
}

/// The first current chunk of an e-mail: run once or twice for every
/// message an import writes.
const FIRST_CHUNK_OF_EMAIL: &str = "SELECT id FROM memory_chunk_rows
     WHERE source_type = 'email' AND source_id = ?1 AND superseded_at IS NULL
     ORDER BY seq LIMIT 1";

/// The first current chunk of e-mail `source_id`, if it is stored.
fn first_chunk_of_email(conn: &Connection, source_id: &str) -> Result<Option<i64>> {
    Ok(conn
        .prepare_cached(FIRST_CHUNK_OF_EMAIL)?
        .query_row([source_id], |r| r.get(0))
        .optional()?)
}

/// Records that e-mail `reply` answers `parent` (when it names one) and
/// threads `reply` with its parent and with every stored reply to it, in
/// whichever order they arrived: their first chunks are linked.
pub(super) fn link_replies(
    conn: &Connection,
    reply: &str,
    parent: Option<&str>,
    at: i64,
) -> Result<()> {
    if let Some(parent) = parent.filter(|p| *p != reply) {
        conn.prepare_cached("INSERT OR IGNORE INTO email_replies (parent, reply) VALUES (?1, ?2)")?
            .execute(params![parent, reply])?;
    }
    let children: Vec<String> = conn
        .prepare_cached("SELECT reply FROM email_replies WHERE parent = ?1")?
        .query_map([reply], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    if parent.is_none() && children.is_empty() {
        return Ok(());
    }
    let Some(own) = first_chunk_of_email(conn, reply)? else {
        return Ok(());
    };
    for other in parent.into_iter().map(str::to_string).chain(children) {
        if let Some(theirs) = first_chunk_of_email(conn, &other)? {
            link_thread(conn, own, theirs, at)?;
        }
    }
    Ok(())
}

impl Store {
    /// The live links of chunk `id` now, strongest first, each with the
    /// other chunk (when it is still visible: a superseded or retracted
    /// chunk's links are left out). None when there is no chunk `id`.
    pub fn related(&self, id: i64, now: i64) -> Result<Option<Vec<(Link, Candidate)>>> {
        let exists: bool = self
            .conn
            .prepare_cached("SELECT EXISTS (SELECT 1 FROM memory_chunk_rows WHERE id = ?1)")?
            .query_row([id], |r| r.get(0))?;
        if !exists {
            return Ok(None);
        }
        let mut links = self.links_touching(&[id], None, now)?;
        links.sort_by(|a, b| {
            b.strength
                .total_cmp(&a.strength)
                .then(a.other(id).cmp(&b.other(id)))
        });
        let others: Vec<i64> = links.iter().map(|l| l.other(id)).collect();
        let mut chunks: HashMap<i64, Candidate> = self
            .candidates_by_id(&others, None)?
            .into_iter()
            .map(|c| (c.id, c))
            .collect();
        Ok(Some(
            links
                .into_iter()
                .filter_map(|l| {
                    let c = chunks.remove(&l.other(id));
                    c.map(|c| (l, c))
                })
                .collect(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use rusqlite::StatementStatus;

    use super::*;
    use crate::store::Store;

    /// The lookup the import runs for every message is compiled once per
    /// connection, not again each time it comes back from the statement
    /// cache with a new message's ID (`store::plan_without_bindings`).
    #[test]
    fn the_first_chunk_lookup_is_compiled_once() {
        let store = Store::open_in_memory().unwrap();
        for id in ["a@x", "b@x", "c@x", "d@x"] {
            assert_eq!(first_chunk_of_email(&store.conn, id).unwrap(), None);
        }
        let stmt = store.conn.prepare_cached(FIRST_CHUNK_OF_EMAIL).unwrap();
        assert_eq!(stmt.get_status(StatementStatus::RePrepare), 0);
    }
}
