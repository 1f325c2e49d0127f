//! Writing ingested records: append-only, content-hashed, in batches.
//!
//! A record whose (source_type, source_id) is stored with the same content hash
//! is unchanged and costs one indexed lookup. A changed record marks its old
//! chunks superseded and appends new ones; nothing is updated in place. Its
//! leading chunks that did not change (a conversation that grew at its end)
//! are kept as they are, so an append rewrites only the tail.

use anyhow::Result;
use rusqlite::{OptionalExtension, Transaction, params};

use super::content_hash::{Read as ReadHash, Stored as StoredHash};
use super::search::{CANDIDATE_FROM, LABEL_COLUMNS, RECIPIENTS_COLUMN};
use super::{Store, links};
use crate::ingest::record::{ChunkDraft, Meta, Record};
use crate::kinds::SourceType;

/// What happened to one record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WriteOutcome {
    /// New, or changed since the last run (old chunks superseded).
    Indexed { chunks: usize },
    /// Stored before with the same content hash: nothing written.
    Unchanged,
}

/// A write transaction for a batch of records; dropping it without `commit`
/// rolls the batch back, so a crash loses at most the current batch.
pub struct Batch<'a> {
    pub(super) tx: Transaction<'a>,
    pub(super) now: i64,
}

impl Store {
    pub fn begin_batch(&mut self, now: i64) -> Result<Batch<'_>> {
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        Ok(Batch { tx, now })
    }
}

/// What tells an e-mail apart from other messages with its Message-ID
/// (`ingest::mbox::identity`), and where its date came from.
#[derive(Clone, Copy, Debug)]
pub struct EmailIdentity<'a> {
    pub fingerprint: i64,
    /// `DatedBy::stored_name`: `None` when dated by its own `Date:`.
    pub dated_by: Option<&'static str>,
    /// For a message without a Message-ID, the id earlier versions gave it.
    pub legacy_id: Option<&'a str>,
    /// The Message-ID it answers (`In-Reply-To`, or the last of
    /// `References`): the two are threaded (`links`).
    pub replies_to: Option<&'a str>,
}

/// One stored e-mail sharing a Message-ID with the one being written.
struct Variant {
    id: i64,
    source_id: String,
    content_hash: String,
    fingerprint: Option<i64>,
}

/// The id of a second, different message with Message-ID `base`.
pub fn variant_id(base: &str, fingerprint: i64) -> String {
    format!("{base}#{:016x}", fingerprint as u64)
}

fn is_variant_of(source_id: &str, base: &str) -> bool {
    source_id == base
        || source_id.strip_prefix(base).is_some_and(|rest| {
            rest.len() == 17
                && rest.starts_with('#')
                && rest[1..].bytes().all(|b| b.is_ascii_hexdigit())
        })
}

impl Batch<'_> {
    pub fn write(&self, rec: &Record) -> Result<WriteOutcome> {
        let st = rec.source_type.as_str();
        let existing: Option<(i64, String)> = self
            .tx
            .prepare_cached(
                "SELECT id, content_hash FROM memory_sources WHERE source_type = ?1 AND source_id = ?2",
            )?
            .query_row(params![st, rec.source_id], |r| {
                Ok((r.get(0)?, r.get::<_, ReadHash>(1)?.0))
            })
            .optional()?;
        match existing {
            Some((_, hash)) if hash == rec.content_hash => Ok(WriteOutcome::Unchanged),
            Some((id, _)) => {
                let kept = self.supersede(rec, id, &rec.source_id, None)?;
                self.insert_chunks(rec, &rec.source_id, kept)
            }
            None => {
                self.insert_source(rec, &rec.source_id, None)?;
                self.insert_chunks(rec, &rec.source_id, 0)
            }
        }
    }

    /// Write an e-mail. Messages sharing its Message-ID are its variants:
    /// one with the same content makes it unchanged; one with the same
    /// fingerprint is this message as an older version read it (its chunks
    /// are superseded); a row from before fingerprints were kept is claimed
    /// the same way. Otherwise it is a different message and is stored
    /// beside them, as `<Message-ID>#<fingerprint>`: nothing is dropped for
    /// sharing an ID.
    pub fn write_email(&self, rec: &Record, ident: &EmailIdentity<'_>) -> Result<WriteOutcome> {
        let outcome = self.write_email_rows(rec, ident)?;
        // Also for an unchanged message: mail indexed before replies were
        // kept gains its threads when its mailbox is indexed again.
        links::link_replies(&self.tx, &rec.source_id, ident.replies_to, self.now)?;
        Ok(outcome)
    }

    fn write_email_rows(&self, rec: &Record, ident: &EmailIdentity<'_>) -> Result<WriteOutcome> {
        let variants = self.email_variants(&rec.source_id, ident.legacy_id)?;
        if variants.iter().any(|v| v.content_hash == rec.content_hash) {
            return Ok(WriteOutcome::Unchanged);
        }
        let same = variants
            .iter()
            .find(|v| v.fingerprint == Some(ident.fingerprint))
            .or_else(|| variants.iter().find(|v| v.fingerprint.is_none()));
        let (source_id, kept) = match same {
            Some(v) => (
                v.source_id.clone(),
                self.supersede(rec, v.id, &v.source_id, Some(ident))?,
            ),
            None => {
                let source_id = if variants.is_empty() {
                    rec.source_id.clone()
                } else {
                    variant_id(&rec.source_id, ident.fingerprint)
                };
                self.insert_source(rec, &source_id, Some(ident))?;
                (source_id, 0)
            }
        };
        self.insert_chunks(rec, &source_id, kept)
    }

    /// The stored e-mails with Message-ID `base` (itself and `base#...`),
    /// and the row named `legacy_id`.
    fn email_variants(&self, base: &str, legacy_id: Option<&str>) -> Result<Vec<Variant>> {
        // One index range: `base` and everything after it up to `base$`
        // (`#` < `$`), filtered to the exact variant form below.
        let mut stmt = self.tx.prepare_cached(
            "SELECT id, source_id, content_hash, fingerprint FROM memory_sources
             WHERE source_type = 'email' AND source_id >= ?1 AND source_id < ?2",
        )?;
        let row = |r: &rusqlite::Row<'_>| {
            Ok(Variant {
                id: r.get(0)?,
                source_id: r.get(1)?,
                content_hash: r.get::<_, ReadHash>(2)?.0,
                fingerprint: r.get(3)?,
            })
        };
        let mut out = Vec::new();
        for v in stmt.query_map(params![base, format!("{base}$")], row)? {
            let v = v?;
            if is_variant_of(&v.source_id, base) {
                out.push(v);
            }
        }
        if let Some(legacy) = legacy_id {
            let mut stmt = self.tx.prepare_cached(
                "SELECT id, source_id, content_hash, fingerprint FROM memory_sources
                 WHERE source_type = 'email' AND source_id = ?1",
            )?;
            for v in stmt.query_map(params![legacy], row)? {
                out.push(v?);
            }
        }
        Ok(out)
    }

    fn insert_source(
        &self,
        rec: &Record,
        source_id: &str,
        ident: Option<&EmailIdentity<'_>>,
    ) -> Result<()> {
        self.tx
            .prepare_cached(
                "INSERT INTO memory_sources
                   (source_type, source_id, content_hash, first_indexed_at, last_indexed_at,
                    fingerprint, dated_by)
                 VALUES (?1, ?2, ?3, ?4, ?4, ?5, ?6)",
            )?
            .execute(params![
                rec.source_type.as_str(),
                source_id,
                StoredHash(&rec.content_hash),
                self.now,
                ident.map(|i| i.fingerprint),
                ident.and_then(|i| i.dated_by),
            ])?;
        Ok(())
    }

    /// Mark the stored chunks of `source_id` superseded, but for the leading
    /// ones `rec` shares with it ([`Self::kept_prefix`]), and give its source
    /// row the new content hash (and identity, for an e-mail). Returns how
    /// many chunks were kept.
    fn supersede(
        &self,
        rec: &Record,
        id: i64,
        source_id: &str,
        ident: Option<&EmailIdentity<'_>>,
    ) -> Result<usize> {
        let kept = self.kept_prefix(rec, source_id)?;
        self.tx
            .prepare_cached(
                "UPDATE memory_chunk_rows SET superseded_at = ?3
                 WHERE source_type = ?1 AND source_id = ?2 AND superseded_at IS NULL
                   AND seq >= ?4",
            )?
            .execute(params![
                rec.source_type.as_str(),
                source_id,
                self.now,
                kept as i64
            ])?;
        self.tx
            .prepare_cached(
                "UPDATE memory_sources SET content_hash = ?2, last_indexed_at = ?3,
                   fingerprint = coalesce(?4, fingerprint), dated_by = ?5
                 WHERE id = ?1",
            )?
            .execute(params![
                id,
                StoredHash(&rec.content_hash),
                self.now,
                ident.map(|i| i.fingerprint),
                ident.and_then(|i| i.dated_by),
            ])?;
        Ok(kept)
    }

    /// How many of `rec`'s chunks, from the first, the store already holds
    /// as current chunks of `source_id`, at the same places, with the same
    /// text, date, message ids and labels. Those need not be written again:
    /// appending to a conversation re-chunks only its tail. Every label
    /// counts, the recipients too (they are not in the content hash): the
    /// chunks appended after the kept ones borrow the kept ones' labels, and
    /// FTS5 must have indexed the labels they show.
    fn kept_prefix(&self, rec: &Record, source_id: &str) -> Result<usize> {
        let mut stmt = self.tx.prepare_cached(&format!(
            "SELECT c.seq, c.text, c.dated_at, c.message_ids, {LABEL_COLUMNS}, {RECIPIENTS_COLUMN}
             FROM {CANDIDATE_FROM}
             WHERE c.source_type = ?1 AND c.source_id = ?2 AND c.superseded_at IS NULL
             ORDER BY c.seq"
        ))?;
        let mut rows = stmt.query(params![rec.source_type.as_str(), source_id])?;
        let m = &rec.meta;
        let mut kept = 0;
        while let Some(row) = rows.next()? {
            let Some(chunk) = rec.chunks.get(kept) else {
                break;
            };
            let ids = (!chunk.message_ids.is_empty())
                .then(|| serde_json::to_string(&chunk.message_ids))
                .transpose()?;
            let same = row.get::<_, i64>(0)? == kept as i64
                && row.get::<_, String>(1)? == chunk.text
                && row.get::<_, Option<i64>>(2)? == Some(chunk.dated_at)
                && row.get::<_, Option<String>>(3)? == ids
                && row.get::<_, Option<String>>(4)? == m.subject
                && row.get::<_, Option<String>>(5)? == m.sender
                && row.get::<_, Option<String>>(6)? == m.vendor
                && row.get::<_, Option<String>>(7)? == m.title
                && row.get::<_, Option<String>>(8)? == m.recipients;
            if !same {
                break;
            }
            kept += 1;
        }
        Ok(kept)
    }

    /// Append `rec`'s chunks after the `kept` leading ones, each threaded
    /// to the one before it. The version's first chunk holds the labels;
    /// the others point at it (`labels_from`). The kept chunks' labels equal
    /// `rec`'s ([`Self::kept_prefix`]), so appended chunks point where the
    /// last kept one does.
    fn insert_chunks(&self, rec: &Record, source_id: &str, kept: usize) -> Result<WriteOutcome> {
        let (mut previous, mut holder): (Option<i64>, Option<i64>) = match kept {
            0 => (None, None),
            _ => self
                .tx
                .prepare_cached(
                    "SELECT id, coalesce(labels_from, id) FROM memory_chunk_rows
                     WHERE source_type = ?1 AND source_id = ?2 AND seq = ?3
                       AND superseded_at IS NULL",
                )?
                .query_row(
                    params![rec.source_type.as_str(), source_id, kept as i64 - 1],
                    |r| Ok((Some(r.get(0)?), Some(r.get(1)?))),
                )
                .optional()?
                .unwrap_or((None, None)),
        };
        for (seq, chunk) in rec.chunks.iter().enumerate().skip(kept) {
            let id = insert_chunk(
                &self.tx,
                rec.source_type,
                source_id,
                seq,
                chunk,
                &rec.meta,
                holder,
                self.now,
            )?;
            if let Some(p) = previous {
                links::link_thread(&self.tx, p, id, self.now)?;
            }
            previous = Some(id);
            holder.get_or_insert(id);
        }
        Ok(WriteOutcome::Indexed {
            chunks: rec.chunks.len() - kept,
        })
    }

    pub fn set_meta(&self, key: &str, value: &str) -> Result<()> {
        super::put_meta(&self.tx, key, value)
    }

    pub fn commit(self) -> Result<()> {
        super::commit_writes(self.tx)
    }
}

/// Append one chunk and its full-text entry; returns the chunk id. With
/// `labels_from`, the id of a chunk of the same version that holds `meta`'s
/// labels, the row stores none of its own (migration 0015) and the view
/// `memory_chunks` reads them from there; the full-text index is given them
/// all the same, so every column is searched and scored as before.
#[allow(clippy::too_many_arguments)]
pub(crate) fn insert_chunk(
    tx: &rusqlite::Connection,
    source_type: SourceType,
    source_id: &str,
    seq: usize,
    chunk: &ChunkDraft,
    meta: &Meta,
    labels_from: Option<i64>,
    now: i64,
) -> Result<i64> {
    let message_ids = if chunk.message_ids.is_empty() {
        None
    } else {
        Some(serde_json::to_string(&chunk.message_ids)?)
    };
    let dated_at = (source_type != SourceType::Fact).then_some(chunk.dated_at);
    fn own(label: &Option<String>, labels_from: Option<i64>) -> Option<&str> {
        labels_from.is_none().then_some(label.as_deref()).flatten()
    }
    tx.prepare_cached(
        "INSERT INTO memory_chunk_rows
           (source_type, source_id, seq, text, dated_at, created_at,
            subject, sender, vendor, title, message_ids, recipients, labels_from)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
    )?
    .execute(params![
        source_type,
        source_id,
        seq as i64,
        chunk.text,
        dated_at,
        now,
        own(&meta.subject, labels_from),
        own(&meta.sender, labels_from),
        own(&meta.vendor, labels_from),
        own(&meta.title, labels_from),
        message_ids,
        own(&meta.recipients, labels_from),
        labels_from,
    ])?;
    let id = tx.last_insert_rowid();
    tx.prepare_cached(
        "INSERT INTO memory_fts (rowid, text, subject, sender, vendor, title, recipients)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?
    .execute(params![
        id,
        chunk.text,
        meta.subject,
        meta.sender,
        meta.vendor,
        meta.title,
        meta.recipients,
    ])?;
    Ok(id)
}

#[cfg(test)]
#[path = "records_tests.rs"]
mod tests;
