//! Writing ingested records: append-only, content-hashed, in batches.
//!
//! A record whose (source_type, source_id) is stored with the same content hash
//! is unchanged and costs one indexed lookup. A changed record marks its old
//! chunks superseded and appends new ones; nothing is updated in place. Its
//! leading chunks that did not change (a conversation that grew at its end)
//! are kept as they are, so an append rewrites only the tail.

use anyhow::Result;
use rusqlite::{OptionalExtension, Transaction, params};

use super::Store;
use crate::ingest::record::{ChunkDraft, Meta, Record, SourceType};

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
    now: i64,
}

impl Store {
    pub fn begin_batch(&mut self, now: i64) -> Result<Batch<'_>> {
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        Ok(Batch { tx, now })
    }
}

impl Batch<'_> {
    pub fn write(&self, rec: &Record) -> Result<WriteOutcome> {
        let st = rec.source_type.as_str();
        // Leading chunks that a changed record shares with the stored one
        // (a conversation that grew at its end) stay as they are.
        let mut kept = 0;
        let existing: Option<(i64, String)> = self
            .tx
            .prepare_cached(
                "SELECT id, content_hash FROM memory_sources WHERE source_type = ?1 AND source_id = ?2",
            )?
            .query_row(params![st, rec.source_id], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()?;
        match existing {
            Some((_, hash)) if hash == rec.content_hash => return Ok(WriteOutcome::Unchanged),
            Some((id, _)) => {
                kept = self.kept_prefix(rec)?;
                self.tx
                    .prepare_cached(
                        "UPDATE memory_chunks SET superseded_at = ?3
                         WHERE source_type = ?1 AND source_id = ?2 AND superseded_at IS NULL
                           AND seq >= ?4",
                    )?
                    .execute(params![st, rec.source_id, self.now, kept as i64])?;
                self.tx
                    .prepare_cached(
                        "UPDATE memory_sources SET content_hash = ?2, last_indexed_at = ?3 WHERE id = ?1",
                    )?
                    .execute(params![id, rec.content_hash, self.now])?;
            }
            None => {
                self.tx
                    .prepare_cached(
                        "INSERT INTO memory_sources
                           (source_type, source_id, content_hash, first_indexed_at, last_indexed_at)
                         VALUES (?1, ?2, ?3, ?4, ?4)",
                    )?
                    .execute(params![st, rec.source_id, rec.content_hash, self.now])?;
            }
        }
        for (seq, chunk) in rec.chunks.iter().enumerate().skip(kept) {
            insert_chunk(
                &self.tx,
                rec.source_type,
                &rec.source_id,
                seq,
                chunk,
                &rec.meta,
                self.now,
            )?;
        }
        Ok(WriteOutcome::Indexed {
            chunks: rec.chunks.len() - kept,
        })
    }

    /// How many of `rec`'s chunks, from the first, the store already holds
    /// as current chunks of the same source, at the same places, with the
    /// same text, date, message ids and labels. Those need not be written
    /// again: appending to a conversation re-chunks only its tail.
    fn kept_prefix(&self, rec: &Record) -> Result<usize> {
        let mut stmt = self.tx.prepare_cached(
            "SELECT seq, text, dated_at, message_ids, subject, sender, vendor, title
             FROM memory_chunks
             WHERE source_type = ?1 AND source_id = ?2 AND superseded_at IS NULL
             ORDER BY seq",
        )?;
        let mut rows = stmt.query(params![rec.source_type.as_str(), rec.source_id])?;
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
                && row.get::<_, Option<String>>(7)? == m.title;
            if !same {
                break;
            }
            kept += 1;
        }
        Ok(kept)
    }

    pub fn set_meta(&self, key: &str, value: &str) -> Result<()> {
        self.tx.execute(
            "INSERT INTO meta (key, value) VALUES (?1, ?2)
             ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            params![key, value],
        )?;
        Ok(())
    }

    pub fn commit(self) -> Result<()> {
        super::fts::catch_up(&self.tx)?;
        self.tx.commit()?;
        Ok(())
    }
}

/// Append one chunk and its full-text entry; returns the chunk id.
pub(crate) fn insert_chunk(
    tx: &rusqlite::Connection,
    source_type: SourceType,
    source_id: &str,
    seq: usize,
    chunk: &ChunkDraft,
    meta: &Meta,
    now: i64,
) -> Result<i64> {
    let message_ids = if chunk.message_ids.is_empty() {
        None
    } else {
        Some(serde_json::to_string(&chunk.message_ids)?)
    };
    let dated_at = (source_type != SourceType::Fact).then_some(chunk.dated_at);
    tx.prepare_cached(
        "INSERT INTO memory_chunks
           (source_type, source_id, seq, text, dated_at, created_at,
            subject, sender, vendor, title, message_ids, recipients)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
    )?
    .execute(params![
        source_type.as_str(),
        source_id,
        seq as i64,
        chunk.text,
        dated_at,
        now,
        meta.subject,
        meta.sender,
        meta.vendor,
        meta.title,
        message_ids,
        meta.recipients,
    ])?;
    let id = tx.last_insert_rowid();
    tx.prepare_cached(
        "INSERT INTO memory_fts (rowid, text, subject, sender, vendor, title)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?
    .execute(params![
        id,
        chunk.text,
        meta.subject,
        meta.sender,
        meta.vendor,
        meta.title
    ])?;
    Ok(id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::record::content_hash;

    fn rec(id: &str, text: &str) -> Record {
        let meta = Meta {
            subject: Some("s".into()),
            ..Meta::default()
        };
        let chunks = vec![ChunkDraft {
            text: text.into(),
            dated_at: 1_700_000_000,
            message_ids: vec![],
        }];
        Record {
            source_type: SourceType::Email,
            source_id: id.into(),
            content_hash: content_hash(&meta, &chunks),
            meta,
            chunks,
            warning: None,
        }
    }

    fn count(store: &Store, sql: &str) -> i64 {
        store.conn.query_row(sql, [], |r| r.get(0)).unwrap()
    }

    #[test]
    fn same_content_twice_is_unchanged_and_adds_no_rows() {
        let mut store = Store::open_in_memory().unwrap();
        let b = store.begin_batch(1).unwrap();
        assert_eq!(
            b.write(&rec("a", "hello")).unwrap(),
            WriteOutcome::Indexed { chunks: 1 }
        );
        b.commit().unwrap();
        let b = store.begin_batch(2).unwrap();
        assert_eq!(
            b.write(&rec("a", "hello")).unwrap(),
            WriteOutcome::Unchanged
        );
        b.commit().unwrap();
        assert_eq!(count(&store, "SELECT count(*) FROM memory_chunks"), 1);
    }

    #[test]
    fn a_record_that_grew_at_its_end_rewrites_only_its_tail() {
        let grown = |texts: &[&str]| {
            let mut r = rec("a", texts[0]);
            r.chunks = texts
                .iter()
                .map(|t| ChunkDraft {
                    text: t.to_string(),
                    dated_at: 1_700_000_000,
                    message_ids: vec![],
                })
                .collect();
            r.content_hash = content_hash(&r.meta, &r.chunks);
            r
        };
        let mut store = Store::open_in_memory().unwrap();
        let b = store.begin_batch(1).unwrap();
        b.write(&grown(&["one", "two"])).unwrap();
        assert_eq!(
            b.write(&grown(&["one", "two and more", "three"])).unwrap(),
            WriteOutcome::Indexed { chunks: 2 }
        );
        b.commit().unwrap();
        assert_eq!(count(&store, "SELECT count(*) FROM memory_chunks"), 4);
        assert_eq!(
            count(
                &store,
                "SELECT count(*) FROM memory_chunks WHERE superseded_at IS NULL AND id = 1"
            ),
            1,
            "the first chunk was kept"
        );
    }

    #[test]
    fn changed_content_supersedes_and_appends() {
        let mut store = Store::open_in_memory().unwrap();
        let b = store.begin_batch(1).unwrap();
        b.write(&rec("a", "hello")).unwrap();
        b.write(&rec("a", "hello again")).unwrap();
        b.commit().unwrap();
        assert_eq!(count(&store, "SELECT count(*) FROM memory_chunks"), 2);
        assert_eq!(
            count(
                &store,
                "SELECT count(*) FROM memory_chunks WHERE superseded_at IS NULL"
            ),
            1
        );
        assert_eq!(count(&store, "SELECT count(*) FROM memory_sources"), 1);
    }
}
