//! The message log of conversations written turn by turn (migration 0005):
//! what an append needs to re-chunk a conversation's tail exactly as a
//! whole-file import would chunk it. The chunks themselves are written by
//! `records`, which keeps the unchanged leading chunks of a source.

use anyhow::Result;
use rusqlite::{OptionalExtension, params};

use super::Store;
use super::records::WriteOutcome;
use crate::ingest::record::Record;

/// One message as the log keeps it. `at` is unix seconds, UTC.
#[derive(Debug, Clone, PartialEq)]
pub struct LoggedMessage {
    pub id: String,
    pub speaker: Option<String>,
    pub text: String,
    pub at: i64,
}

/// What the memory holds under a conversation id, for an append.
#[derive(Debug, PartialEq)]
pub enum ConversationState {
    /// Nothing yet: the append creates it.
    New,
    /// Written turn by turn before: its messages in order, and its title.
    Logged {
        messages: Vec<LoggedMessage>,
        title: Option<String>,
    },
    /// Indexed from a file, so its messages are not kept one by one.
    FromFile,
    /// Forgotten (`forget --source`): it stays out of search.
    Forgotten,
}

impl Store {
    pub fn conversation_state(&self, id: &str) -> Result<ConversationState> {
        let known: Option<i64> = self
            .conn
            .query_row(
                "SELECT id FROM memory_sources WHERE source_type = 'conversation' AND source_id = ?1",
                [id],
                |r| r.get(0),
            )
            .optional()?;
        if known.is_none() {
            return Ok(ConversationState::New);
        }
        let current: Option<Option<String>> = self
            .conn
            .query_row(
                "SELECT title FROM memory_chunks
                 WHERE source_type = 'conversation' AND source_id = ?1 AND superseded_at IS NULL
                 ORDER BY seq LIMIT 1",
                [id],
                |r| r.get(0),
            )
            .optional()?;
        let Some(title) = current else {
            return Ok(ConversationState::Forgotten);
        };
        let mut stmt = self.conn.prepare_cached(
            "SELECT message_id, speaker, text, at FROM conversation_messages
             WHERE conversation = ?1 ORDER BY seq",
        )?;
        let messages = stmt
            .query_map([id], |r| {
                Ok(LoggedMessage {
                    id: r.get(0)?,
                    speaker: r.get(1)?,
                    text: r.get(2)?,
                    at: r.get(3)?,
                })
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(if messages.is_empty() {
            ConversationState::FromFile
        } else {
            ConversationState::Logged { messages, title }
        })
    }

    /// Logs `new` after the `logged` messages already kept for the
    /// conversation `rec` holds, and writes `rec` (the whole conversation,
    /// re-chunked), in one transaction. Returns the chunks written.
    pub fn append_conversation(
        &mut self,
        rec: &Record,
        logged: usize,
        new: &[LoggedMessage],
        now: i64,
    ) -> Result<usize> {
        let batch = self.begin_batch(now)?;
        {
            let mut insert = batch.tx.prepare_cached(
                "INSERT INTO conversation_messages (conversation, seq, message_id, speaker, text, at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?;
            for (i, m) in new.iter().enumerate() {
                insert.execute(params![
                    rec.source_id,
                    (logged + i) as i64,
                    m.id,
                    m.speaker,
                    m.text,
                    m.at
                ])?;
            }
        }
        let written = match batch.write(rec)? {
            WriteOutcome::Indexed { chunks } => chunks,
            WriteOutcome::Unchanged => 0,
        };
        batch.set_meta("last_index_at", &now.to_string())?;
        batch.commit()?;
        Ok(written)
    }
}
