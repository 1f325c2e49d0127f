//! Facts: evergreen chunks the user teaches (`remember`), retracts (`forget`)
//! and audits (`facts`). A fact is a `fact` chunk, searched with everything
//! else, plus a `memory_facts` row saying how it was learned and whether it was
//! retracted. Retraction keeps the row (memory is append-only); only `--purge`
//! rewrites text, replacing it with [`TOMBSTONE`] for a secret remembered by
//! mistake.

use std::collections::BTreeSet;

use anyhow::{Result, bail};
use rusqlite::{Connection, OptionalExtension, Row, TransactionBehavior, params};

use super::Store;
use super::records::insert_chunk;
use crate::ingest::record::{ChunkDraft, Meta, sha256_hex};
use crate::kinds::{FactMethod, SourceType};
use crate::rank::normalise_query;
use crate::rank::strength::confidence_at;

/// What a purged fact's text becomes, in the table and in the full-text index.
pub const TOMBSTONE: &str = "[purged]";

/// One fact as `facts` shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct Fact {
    pub id: i64,
    pub text: String,
    pub method: FactMethod,
    pub created_at: i64,
    pub retracted_at: Option<i64>,
    pub purged_at: Option<i64>,
    /// For a dream fact, the chunk it was promoted from.
    pub promoted_from: Option<SourceChunk>,
    /// Confidence now, in (0, 1]: a dream fact's decays with a 60-day
    /// half-life stretched by recalls (`rank::strength`); a user fact's is 1.
    pub confidence: f64,
    /// The most confidence it ever held (for the one second chance).
    pub peak_confidence: f64,
    /// Pinned facts never fade; facts taught with `remember` are pinned.
    pub pinned: bool,
    /// Genuine recalls of the fact (`show`, MCP `memory_get`/`memory_search`).
    pub recalls: u64,
    pub last_recalled_at: Option<i64>,
    /// When `dream` gave it its one second chance, if it did.
    pub reprieved_at: Option<i64>,
    /// `forgotten` (`forget`), `faded` (retired by `dream`) or `merged`
    /// (consolidated by `dream` into [`Fact::merged_into`]).
    pub retracted_reason: Option<String>,
    /// The fact this one was merged into, when `retracted_reason` is `merged`.
    pub merged_into: Option<i64>,
}

/// The chunk a dream fact was promoted from.
#[derive(Debug, Clone, PartialEq)]
pub struct SourceChunk {
    pub id: i64,
    pub source_type: SourceType,
    pub source_id: String,
    pub dated_at: Option<i64>,
}

/// The result of `remember`: the fact, and whether this call created it.
#[derive(Debug, Clone, PartialEq)]
pub struct Remembered {
    pub fact: Fact,
    pub created: bool,
}

/// What `forget --match TEXT` may act on. It forgets only when exactly one
/// active fact matches; otherwise it changes nothing and the user (or agent)
/// picks an id from the candidates.
#[derive(Debug, Clone, PartialEq)]
pub enum FactMatch {
    NoMatch,
    One(Box<Fact>),
    Several(Vec<Fact>),
}

/// Every fact query selects these columns, so [`fact_from_row`] reads them all.
const FACT_COLUMNS: &str = "c.id, c.text, f.method, c.created_at, f.retracted_at, f.purged_at,
     s.id, s.source_type, s.source_id, s.dated_at,
     f.confidence, f.confidence_at, f.peak_confidence, f.pinned, f.reprieved_at,
     f.retracted_reason,
     (SELECT count(*) FROM memory_recalls r WHERE r.chunk_id = c.id),
     (SELECT max(at) FROM memory_recalls r WHERE r.chunk_id = c.id),
     f.merged_into
     FROM memory_facts f
     JOIN memory_chunk_rows c ON c.id = f.chunk_id
     LEFT JOIN memory_chunk_rows s ON s.id = f.promoted_from";

/// Reads a row of [`FACT_COLUMNS`], with its confidence as of `now`.
fn fact_from_row(r: &Row<'_>, now: i64) -> rusqlite::Result<Fact> {
    let source_id: Option<i64> = r.get(6)?;
    let promoted_from = match source_id {
        Some(id) => Some(SourceChunk {
            id,
            source_type: r.get(7)?,
            source_id: r.get(8)?,
            dated_at: r.get(9)?,
        }),
        None => None,
    };
    let base: Option<f64> = r.get(10)?;
    let base_at: Option<i64> = r.get(11)?;
    let recalls = r.get::<_, i64>(16)? as u64;
    let base = base.unwrap_or(1.0);
    let confidence = match base_at {
        Some(t0) => confidence_at(base, t0, now, recalls),
        None => base,
    };
    Ok(Fact {
        id: r.get(0)?,
        text: r.get(1)?,
        method: r.get(2)?,
        created_at: r.get(3)?,
        retracted_at: r.get(4)?,
        purged_at: r.get(5)?,
        promoted_from,
        confidence,
        peak_confidence: r.get::<_, Option<f64>>(12)?.unwrap_or(base),
        pinned: r.get(13)?,
        reprieved_at: r.get(14)?,
        retracted_reason: r.get(15)?,
        recalls,
        last_recalled_at: r.get(17)?,
        merged_into: r.get(18)?,
    })
}

/// The identity of a user fact: the same normalisation as search queries
/// (trimmed, whitespace collapsed, lowercased), so "Jane is allergic" and
/// " jane  is ALLERGIC" are one fact. The first spelling is the one stored.
pub fn user_fact_source_id(text: &str) -> String {
    format!("fact:{}", sha256_hex(normalise_query(text).as_bytes()))
}

/// Appends a fact chunk and its `memory_facts` row; returns the chunk id.
pub(crate) fn insert_fact(
    conn: &Connection,
    text: &str,
    source_id: &str,
    learned: Learned,
    now: i64,
) -> Result<i64> {
    let draft = ChunkDraft {
        text: text.to_string(),
        dated_at: now, // ignored: facts are stored with dated_at NULL
        message_ids: vec![],
    };
    let id = insert_chunk(
        conn,
        SourceType::Fact,
        source_id,
        0,
        &draft,
        &Meta::default(),
        None,
        now,
    )?;
    // (0, 1]: a score of 0 would be a fact born faded.
    let clamp = |c: f64| {
        if c.is_finite() {
            c.clamp(f64::MIN_POSITIVE, 1.0)
        } else {
            1.0
        }
    };
    let (method, promoted_from, confidence, confidence_at, pinned, routine_key) = match learned {
        Learned::User => (FactMethod::User, None, 1.0, None, true, None),
        Learned::Dream { from, confidence } => (
            FactMethod::Dream,
            Some(from),
            clamp(confidence),
            Some(now),
            false,
            None,
        ),
        Learned::Routine { key, confidence } => (
            FactMethod::Routine,
            None,
            clamp(confidence),
            Some(now),
            false,
            Some(key),
        ),
    };
    conn.prepare_cached(
        "INSERT INTO memory_facts
           (chunk_id, method, promoted_from, confidence, confidence_at, peak_confidence, pinned,
            routine_key)
         VALUES (?1, ?2, ?3, ?4, ?5, ?4, ?6, ?7)",
    )?
    .execute(params![
        id,
        method,
        promoted_from,
        confidence,
        confidence_at,
        pinned,
        routine_key
    ])?;
    Ok(id)
}

/// How a fact is learned.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Learned<'a> {
    /// Taught with `remember`: pinned, confidence 1.
    User,
    /// Promoted by `dream` from chunk `from`; starts at its promotion score.
    Dream { from: i64, confidence: f64 },
    /// Mined by `dream` from the recall log: the habit's key (weekday, band,
    /// focus), so it is learned once while active.
    Routine { key: &'a str, confidence: f64 },
}

pub(crate) fn fact_by_id(conn: &Connection, id: i64, now: i64) -> Result<Fact> {
    let sql = format!("SELECT {FACT_COLUMNS} WHERE c.id = ?1");
    conn.query_row(&sql, [id], |r| fact_from_row(r, now))
        .optional()?
        .ok_or_else(|| anyhow::anyhow!("fact {id} is missing from the database"))
}

impl Store {
    /// Stores `text` as a fact learned from the user, or returns the active
    /// fact with the same normalised text. A retracted fact does not count:
    /// remembering it again is a new decision, so it makes a new fact.
    pub fn remember(&mut self, text: &str, now: i64) -> Result<Remembered> {
        let text = text.trim();
        if text.is_empty() {
            bail!("nothing to remember: the text is empty");
        }
        let source_id = user_fact_source_id(text);
        // IMMEDIATE so two `remember`s of the same text cannot both insert.
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let existing: Option<i64> = tx
            .query_row(
                "SELECT c.id FROM memory_chunk_rows c JOIN memory_facts f ON f.chunk_id = c.id
                 WHERE c.source_type = 'fact' AND c.source_id = ?1 AND f.retracted_at IS NULL
                 ORDER BY c.id LIMIT 1",
                [&source_id],
                |r| r.get(0),
            )
            .optional()?;
        let (id, created) = match existing {
            Some(id) => (id, false),
            None => (
                insert_fact(&tx, text, &source_id, Learned::User, now)?,
                true,
            ),
        };
        let fact = fact_by_id(&tx, id, now)?;
        super::commit_writes(tx)?;
        Ok(Remembered { fact, created })
    }

    /// Every fact, oldest first, with its confidence at `now`; retracted
    /// and purged ones only when `all`.
    pub fn facts(&self, all: bool, now: i64) -> Result<Vec<Fact>> {
        let sql = format!("SELECT {FACT_COLUMNS} WHERE ?1 OR f.retracted_at IS NULL ORDER BY c.id");
        let mut stmt = self.conn.prepare(&sql)?;
        let rows = stmt.query_map([all], |r| fact_from_row(r, now))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Active facts containing every word of `text` (after the same
    /// tokenising and stopword rules as search), best match first. Search
    /// itself needs only some words to match; picking a fact to forget must be
    /// stricter, so the words are joined with AND.
    pub fn find_active_facts(&self, text: &str, now: i64) -> Result<Vec<Fact>> {
        let Some(query) = crate::search::fts_query::build(text) else {
            return Ok(vec![]);
        };
        // Terms are plain alphanumeric runs; quoting keeps them literal anyway.
        let expr = query
            .terms
            .iter()
            .map(|t| format!("\"{}\"", t.replace('"', "\"\"")))
            .collect::<Vec<_>>()
            .join(" AND ");
        let sql = format!(
            "SELECT {FACT_COLUMNS}
             JOIN memory_fts ON memory_fts.rowid = c.id
             WHERE memory_fts MATCH ?1 AND f.retracted_at IS NULL
             ORDER BY bm25(memory_fts), c.id"
        );
        let mut stmt = self.conn.prepare(&sql)?;
        let rows = stmt.query_map([expr], |r| fact_from_row(r, now))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// The exactly-one rule of `forget --match`, over [`Store::find_active_facts`].
    pub fn match_active_fact(&self, text: &str, now: i64) -> Result<FactMatch> {
        let mut found = self.find_active_facts(text, now)?;
        Ok(match found.len() {
            0 => FactMatch::NoMatch,
            1 => FactMatch::One(Box::new(found.remove(0))),
            _ => FactMatch::Several(found),
        })
    }

    /// Retracts the facts `ids` (and with `purge`, erases their text), all or
    /// nothing: an unknown id, a chunk that is not a fact, or a fact already in
    /// the requested state is an error that changes nothing. Returns the
    /// facts as they are afterwards.
    pub fn forget(&mut self, ids: &[i64], purge: bool, now: i64) -> Result<Vec<Fact>> {
        let ids: BTreeSet<i64> = ids.iter().copied().collect();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        for &id in &ids {
            check_forgettable(&tx, id, purge)?;
        }
        if purge {
            // FTS5 otherwise keeps deleted tokens in old index segments until
            // they happen to be merged; secure-delete removes them at once.
            tx.execute(
                "INSERT INTO memory_fts (memory_fts, rank) VALUES ('secure-delete', 1)",
                [],
            )?;
        }
        let mut out = Vec::with_capacity(ids.len());
        for &id in &ids {
            if purge {
                purge_text(&tx, id)?;
                tx.execute(
                    "UPDATE memory_facts SET purged_at = ?2, retracted_at = coalesce(retracted_at, ?2),
                            retracted_reason = coalesce(retracted_reason, 'forgotten')
                     WHERE chunk_id = ?1",
                    params![id, now],
                )?;
            } else {
                tx.execute(
                    "UPDATE memory_facts SET retracted_at = ?2, retracted_reason = 'forgotten'
                     WHERE chunk_id = ?1",
                    params![id, now],
                )?;
            }
            out.push(fact_by_id(&tx, id, now)?);
        }
        tx.commit()?;
        if purge {
            self.rewrite_file()?;
        }
        Ok(out)
    }

    /// Pins (or unpins) the active fact `id`: a pinned fact never fades.
    /// Unpinned, a dream fact fades at the next dream once its confidence is
    /// below the line (pinning only exempted it); a taught fact, which had no
    /// curve, starts decaying from `now` at confidence 1. Returns the fact.
    pub fn set_pinned(&mut self, id: i64, pinned: bool, now: i64) -> Result<Fact> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let row: Option<(String, Option<i64>)> = tx
            .query_row(
                "SELECT c.source_type, f.retracted_at
                 FROM memory_chunk_rows c LEFT JOIN memory_facts f ON f.chunk_id = c.id
                 WHERE c.id = ?1",
                [id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?;
        match row {
            None => bail!("no fact with id {id}"),
            Some((st, _)) if st != "fact" => {
                bail!(
                    "chunk {id} is not a fact (its source type is {st}); only facts can be pinned"
                )
            }
            Some((_, Some(_))) => bail!("fact {id} is retracted; remember its text again instead"),
            Some(_) => {}
        }
        tx.execute(
            "UPDATE memory_facts SET pinned = ?2,
                    confidence_at = CASE WHEN ?2 THEN confidence_at
                                         ELSE coalesce(confidence_at, ?3) END
             WHERE chunk_id = ?1",
            params![id, pinned, now],
        )?;
        let fact = fact_by_id(&tx, id, now)?;
        tx.commit()?;
        Ok(fact)
    }

    /// Rewrites the whole file so no stale copy of purged text survives.
    ///
    /// Erasing rows is not enough: SQLite and FTS5 leave old cell contents in
    /// the unused space of pages and in free pages (an FTS5 merge months ago
    /// may have left a copy of every term), and the WAL keeps pre-change
    /// pages. VACUUM rebuilds every page from live rows and truncates the file;
    /// the TRUNCATE checkpoint then copies the rebuilt pages home and empties
    /// the WAL. This costs a full copy of the database, which is acceptable
    /// for a deliberate, rare `--purge`.
    pub(super) fn rewrite_file(&self) -> Result<()> {
        let Some(path) = self.path() else {
            return Ok(());
        };
        let failed = |e: &dyn std::fmt::Display| {
            anyhow::anyhow!(
                "the text is erased from memory, but rewriting the database file failed ({e}), \
                 so old copies may remain in its free space; when it is free, run: sqlite3 {} VACUUM",
                path.display()
            )
        };
        // The store keeps temporary tables in memory; VACUUM's scratch copy is
        // as big as the database, so it goes to a temporary file instead.
        self.conn
            .pragma_update(None, "temp_store", "FILE")
            .and_then(|_| self.conn.execute_batch("VACUUM"))
            .map_err(|e| failed(&e))?;
        let busy: i64 = self
            .conn
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| r.get(0))
            .map_err(|e| failed(&e))?;
        if busy != 0 {
            return Err(failed(&"another process is reading the database"));
        }
        Ok(())
    }
}

/// Errors name the id and say what to do instead.
fn check_forgettable(conn: &Connection, id: i64, purge: bool) -> Result<()> {
    let row: Option<(SourceType, Option<i64>, Option<i64>)> = conn
        .query_row(
            "SELECT c.source_type, f.retracted_at, f.purged_at
             FROM memory_chunk_rows c LEFT JOIN memory_facts f ON f.chunk_id = c.id
             WHERE c.id = ?1",
            [id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .optional()?;
    match row {
        None => bail!("no fact with id {id}; nothing was forgotten"),
        Some((st, _, _)) if st != SourceType::Fact => {
            bail!("chunk {id} is not a fact (its source type is {st}); only facts can be forgotten")
        }
        Some((_, _, Some(_))) => bail!("fact {id} is already purged; nothing was forgotten"),
        Some((_, Some(_), None)) if !purge => bail!(
            "fact {id} is already forgotten; nothing was changed (add --purge to erase its text)"
        ),
        Some(_) => Ok(()),
    }
}

/// Erases a fact's text ([`erase_chunk_text`]). The source id held a hash of
/// the text, which for a short secret is as good as the text, so it goes too.
fn purge_text(conn: &Connection, id: i64) -> Result<()> {
    erase_chunk_text(conn, id)?;
    conn.execute(
        "UPDATE memory_chunk_rows SET source_id = 'fact:purged' WHERE id = ?1",
        [id],
    )?;
    Ok(())
}

/// Removes a chunk's entry from the full-text index (an external-content
/// 'delete' must be given exactly the values that were indexed), replaces
/// its text with the tombstone and its labels (subject, sender, vendor,
/// title, recipients) with nothing, and indexes the tombstone so that the
/// index and the table still agree. The caller turns FTS5 secure-delete on
/// first, and erases the chunks whose labels come from this one
/// (`labels_from`) before it.
pub(super) fn erase_chunk_text(conn: &Connection, id: i64) -> Result<()> {
    conn.execute(
        "INSERT INTO memory_fts
           (memory_fts, rowid, text, subject, sender, vendor, title, recipients)
         SELECT 'delete', id, text, subject, sender, vendor, title, recipients
         FROM memory_chunks WHERE id = ?1",
        [id],
    )?;
    conn.execute(
        "UPDATE memory_chunk_rows SET text = ?2, subject = NULL, sender = NULL, vendor = NULL,
                title = NULL, recipients = NULL, labels_from = NULL
         WHERE id = ?1",
        params![id, TOMBSTONE],
    )?;
    conn.execute(
        "INSERT INTO memory_fts (rowid, text, subject, sender, vendor, title, recipients)
         SELECT id, text, subject, sender, vendor, title, recipients
         FROM memory_chunks WHERE id = ?1",
        [id],
    )?;
    super::fts::refresh_length(conn, id)?;
    super::vectors::forget_vector(conn, id)
}

#[cfg(test)]
#[path = "facts_tests.rs"]
mod tests;
