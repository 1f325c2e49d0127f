//! The common currency of ingestion: every source (mbox, receipts, conversations)
//! turns raw input into `Record`s, one `Result` per input record, so that one bad
//! record is reported by position and the run goes on.

use sha2::{Digest, Sha256};

/// A record's kind; ingesters name it with the rest of their vocabulary
/// from here.
pub use crate::kinds::SourceType;

/// Display metadata a search result needs; which fields apply depends on the source.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Meta {
    /// Email subject.
    pub subject: Option<String>,
    /// Email sender, as `Name <address>` or the bare address.
    pub sender: Option<String>,
    /// Receipt vendor.
    pub vendor: Option<String>,
    /// Conversation title.
    pub title: Option<String>,
    /// Email recipients (To), as `Name <address>, ...`. Kept for `show`;
    /// not searched, and not part of [`content_hash`], so a memory indexed
    /// before it was kept still sees its mail as unchanged.
    pub recipients: Option<String>,
}

/// One chunk as produced by an ingester, before it has an id in the store.
#[derive(Clone, Debug, PartialEq)]
pub struct ChunkDraft {
    pub text: String,
    /// Unix seconds, UTC. Only facts are evergreen, and facts are not ingested.
    pub dated_at: i64,
    /// Conversation message ids this chunk covers (empty for other sources).
    pub message_ids: Vec<String>,
}

/// One logical item (a message, a receipt, a conversation) ready to store.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    pub source_type: SourceType,
    pub source_id: String,
    /// sha256 hex of the canonical content (text, dates, metadata): equal hashes
    /// mean re-indexing is a no-op.
    pub content_hash: String,
    pub meta: Meta,
    pub chunks: Vec<ChunkDraft>,
    /// Something the user should hear about although the record was indexed
    /// (for example "no Date header, using the import time").
    pub warning: Option<String>,
}

impl Record {
    /// An email of one chunk per text, all dated `dated_at`, with its content
    /// hash: what tests and benchmarks build by the thousand.
    pub fn email<T: AsRef<str>>(source_id: &str, meta: Meta, texts: &[T], dated_at: i64) -> Record {
        let chunks: Vec<ChunkDraft> = texts
            .iter()
            .map(|t| ChunkDraft {
                text: t.as_ref().to_string(),
                dated_at,
                message_ids: vec![],
            })
            .collect();
        Record {
            source_type: SourceType::Email,
            source_id: source_id.to_string(),
            content_hash: content_hash(&meta, &chunks),
            meta,
            chunks,
            warning: None,
        }
    }
}

/// A record that could not be read; the run reports it and goes on.
#[derive(Clone, Debug, PartialEq)]
pub struct Rejection {
    /// Byte offset of the record in its file.
    pub offset: u64,
    /// Short, lowercase; for JSON inputs it starts with `record N: ` (0-based index).
    pub reason: String,
}

pub type Parsed = Result<Record, Rejection>;

/// The whole file could not be read as the expected format (for example it is not JSON).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{reason}")]
pub struct FileError {
    /// Byte offset where reading failed, when known.
    pub offset: Option<u64>,
    /// Short and lowercase, with line and column when the parser knows them.
    pub reason: String,
}

/// sha256 of `bytes` as lowercase hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// Hash of a record's canonical content: every part that a reader of the chunk
/// could see, separated so that moving text between parts changes the hash.
pub fn content_hash(meta: &Meta, chunks: &[ChunkDraft]) -> String {
    let mut h = Sha256::new();
    for field in [&meta.subject, &meta.sender, &meta.vendor, &meta.title] {
        h.update(field.as_deref().unwrap_or("\u{0}").as_bytes());
        h.update([0x1f]);
    }
    for c in chunks {
        h.update(c.text.as_bytes());
        h.update([0x1e]);
        h.update(c.dated_at.to_le_bytes());
        for id in &c.message_ids {
            h.update(id.as_bytes());
            h.update([0x1f]);
        }
        h.update([0x1d]);
    }
    hex::encode(h.finalize())
}
