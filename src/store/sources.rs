//! Forgetting a whole source: an e-mail, a receipt or a conversation the
//! person regrets indexing (`forget --source TYPE:ID`, MCP `memory_forget`
//! with `source`). As for facts, forgetting takes its chunks out of search
//! and keeps them in the history (`search --as-of` still sees them), and
//! `--purge` erases their text, with the FTS5 entries, vectors and
//! conversation messages, and rewrites the file. Facts that the dream
//! promoted from the source are facts in their own right and stay.
//!
//! The source's row in `memory_sources` stays, with its content hash: indexing
//! the same mailbox again finds the message unchanged and leaves it forgotten.
//! A changed copy of it is new content and is indexed.

use anyhow::{Result, bail};
use rusqlite::{OptionalExtension, TransactionBehavior, params};

use super::Store;
use super::facts::erase_chunk_text;
use crate::ingest::record::SourceType;
use crate::sanitize::one_line;

/// A source named as `TYPE:ID`, as `forget --source` and `search --json`
/// (`source_type`, `source_id`) spell it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceRef {
    pub source_type: SourceType,
    pub source_id: String,
}

impl std::str::FromStr for SourceRef {
    type Err = String;

    fn from_str(s: &str) -> Result<SourceRef, String> {
        let (kind, id) = s.split_once(':').ok_or_else(|| {
            format!(
                "{:?} is not TYPE:ID (email:MESSAGE-ID, receipt:ID or conversation:ID)",
                one_line(s)
            )
        })?;
        let source_type = match SourceType::parse(kind.trim()) {
            Some(SourceType::Fact) => {
                return Err(
                    "facts are forgotten by their id (or by match), not as a source".into(),
                );
            }
            Some(t) => t,
            None => {
                return Err(format!(
                    "unknown source type {:?}; use email, receipt or conversation",
                    one_line(kind)
                ));
            }
        };
        let source_id = id.trim();
        if source_id.is_empty() {
            return Err(format!("{:?} names no id after the colon", one_line(s)));
        }
        Ok(SourceRef {
            source_type,
            source_id: source_id.to_string(),
        })
    }
}

/// What forgetting one source did.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct ForgottenSource {
    pub source_type: SourceType,
    pub source_id: String,
    /// Chunks taken out of search by this call.
    pub chunks: usize,
    /// Whether the text was erased.
    pub purged: bool,
}

impl Store {
    /// Forgets the `sources` (with `purge`, erases their text), all or
    /// nothing: a source that is not in memory, or already forgotten when
    /// not purging, is an error that changes nothing.
    pub fn forget_sources(
        &mut self,
        sources: &[SourceRef],
        purge: bool,
        now: i64,
    ) -> Result<Vec<ForgottenSource>> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        if purge {
            // As for facts: deleted tokens must not linger in FTS5 segments.
            tx.execute(
                "INSERT INTO memory_fts (memory_fts, rank) VALUES ('secure-delete', 1)",
                [],
            )?;
        }
        let mut out = Vec::with_capacity(sources.len());
        for s in sources {
            let st = s.source_type.as_str();
            let what = format!("{st} {:?}", one_line(&s.source_id));
            let known: Option<i64> = tx
                .query_row(
                    "SELECT id FROM memory_sources WHERE source_type = ?1 AND source_id = ?2",
                    params![st, s.source_id],
                    |r| r.get(0),
                )
                .optional()?;
            if known.is_none() {
                bail!("no {what} in memory; nothing was forgotten");
            }
            let current: usize = tx.query_row(
                "SELECT count(*) FROM memory_chunk_rows
                 WHERE source_type = ?1 AND source_id = ?2 AND superseded_at IS NULL",
                params![st, s.source_id],
                |r| r.get::<_, i64>(0),
            )? as usize;
            if current == 0 && !purge {
                bail!(
                    "{what} is already forgotten; nothing was changed (add --purge to erase its text)"
                );
            }
            tx.execute(
                "UPDATE memory_chunk_rows SET superseded_at = ?3
                 WHERE source_type = ?1 AND source_id = ?2 AND superseded_at IS NULL",
                params![st, s.source_id, now],
            )?;
            if purge {
                // Newest first: a chunk's labels come from an older chunk
                // of its version (`labels_from`), which must still hold them
                // when the newer one's full-text entry is deleted.
                let ids: Vec<i64> = tx
                    .prepare(
                        "SELECT id FROM memory_chunk_rows WHERE source_type = ?1 AND source_id = ?2
                         ORDER BY id DESC",
                    )?
                    .query_map(params![st, s.source_id], |r| r.get(0))?
                    .collect::<rusqlite::Result<_>>()?;
                for id in ids {
                    erase_chunk_text(&tx, id)?;
                }
                if s.source_type == SourceType::Conversation {
                    tx.execute(
                        "DELETE FROM conversation_messages WHERE conversation = ?1",
                        [&s.source_id],
                    )?;
                }
            }
            out.push(ForgottenSource {
                source_type: s.source_type,
                source_id: s.source_id.clone(),
                chunks: current,
                purged: purge,
            });
        }
        super::fts::catch_up(&tx)?;
        tx.commit()?;
        if purge {
            self.rewrite_file()?;
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_are_named_type_colon_id() {
        let ok: SourceRef = "email:<a@b>".parse().unwrap();
        assert_eq!(
            (ok.source_type, ok.source_id.as_str()),
            (SourceType::Email, "<a@b>")
        );
        let ok: SourceRef = "conversation: chat:42".parse().unwrap();
        assert_eq!(ok.source_id, "chat:42", "only the first colon splits");
        for (bad, says) in [
            ("nocolon", "is not TYPE:ID"),
            ("mail:x", "unknown source type"),
            ("fact:3", "facts are forgotten by their id"),
            ("email:  ", "names no id"),
        ] {
            let e = bad.parse::<SourceRef>().unwrap_err();
            assert!(e.contains(says), "{bad}: {e}");
        }
    }
}
