//! A conversation taken in as it happens: messages appended to a
//! conversation id, turn by turn, by an agent (`memory_add_messages`) or a
//! shell (`index-conversations --append`). The whole conversation is then
//! chunked exactly as `index-conversations` chunks a file holding it (same
//! windows, message ids and dates), and the store writes only the chunks
//! that changed, which are those of the tail.
//!
//! Appending is idempotent: a message whose id is already kept, or which
//! has no id and the same speaker, text (and time, if given) as one kept,
//! is not stored twice.

use std::collections::HashSet;

use anyhow::{Result, bail};
use serde::Serialize;
use serde_json::{Map, Value};

use super::{Conversation, DEFAULT_MAX_CHUNK_CHARS, Message, build_record, ours, str_field};
use crate::dates::written::parse_datetime_loose;
use crate::ingest::record::sha256_hex;
use crate::sanitize::one_line;
use crate::store::Store;
use crate::store::conversations::{ConversationState, LoggedMessage};

/// Our formats write day-first dates when they write ambiguous ones at all.
const MONTH_FIRST: bool = false;

/// One message to append, as read from JSON.
#[derive(Debug, Clone, PartialEq)]
pub struct NewMessage {
    id: Option<String>,
    speaker: Option<String>,
    text: String,
    /// Unix seconds; None: the time of the append.
    at: Option<i64>,
}

/// What an append did: the MCP tool's structured result and
/// `index-conversations --append --json`.
#[derive(Debug, Serialize, PartialEq, Eq, schemars::JsonSchema)]
pub struct Appended {
    pub conversation_id: String,
    /// Whether this append created the conversation.
    pub created: bool,
    pub messages_added: usize,
    /// Messages already kept (by id, or by content), not stored again.
    pub duplicates: usize,
    /// Messages with no text, not stored.
    pub empty: usize,
    pub chunks_written: usize,
    /// The conversation's messages after the append.
    pub messages_total: usize,
}

/// Reads one message: `{id?, role|speaker, content|text, at?}` (the shape
/// of a message in our conversation files).
pub fn read_message(m: &Map<String, Value>) -> Result<NewMessage, String> {
    let text = m
        .get("content")
        .or_else(|| m.get("text"))
        .ok_or("a message needs \"content\" (or \"text\")")?;
    let at = match m.get("at").filter(|v| !v.is_null()) {
        Some(v) => Some(parse_datetime_loose(v, MONTH_FIRST).ok_or_else(|| {
            format!(
                "\"at\": {} is not a date (RFC 3339, YYYY-MM-DD HH:MM, or unix seconds)",
                one_line(&v.to_string())
            )
        })?),
        None => None,
    };
    Ok(NewMessage {
        id: super::id_text(m.get("id")),
        speaker: str_field(m, "speaker").or_else(|| str_field(m, "role")),
        text: ours::content_text(text),
        at,
    })
}

/// Appends `new` to the conversation `id` (creating it, titled `title`),
/// all or nothing. `now` dates messages that carry no time.
pub fn append(
    store: &mut Store,
    id: &str,
    title: Option<&str>,
    new: Vec<NewMessage>,
    now: i64,
) -> Result<Appended> {
    let id = id.trim();
    if id.is_empty() {
        bail!("a conversation id cannot be empty");
    }
    let (kept, kept_title, created) = match store.conversation_state(id)? {
        ConversationState::New => (Vec::new(), None, true),
        ConversationState::Logged { messages, title } => (messages, title, false),
        ConversationState::FromFile => bail!(
            "conversation {:?} was indexed from a file, so it is not kept message by message; \
add the messages to that file and index it again, or use another conversation id",
            one_line(id)
        ),
        ConversationState::Forgotten => bail!(
            "conversation {:?} was forgotten; use another conversation id",
            one_line(id)
        ),
    };
    let mut seen: HashSet<String> = kept.iter().map(|m| m.id.clone()).collect();
    let mut outcome = Appended {
        conversation_id: id.to_string(),
        created,
        messages_added: 0,
        duplicates: 0,
        empty: 0,
        chunks_written: 0,
        messages_total: kept.len(),
    };
    let mut added = Vec::new();
    for m in new {
        if m.text.trim().is_empty() {
            outcome.empty += 1;
            continue;
        }
        let message_id = m.id.clone().unwrap_or_else(|| content_id(&m));
        if !seen.insert(message_id.clone()) {
            outcome.duplicates += 1;
            continue;
        }
        added.push(LoggedMessage {
            id: message_id,
            speaker: m.speaker,
            text: m.text,
            at: m.at.unwrap_or(now),
        });
    }
    if added.is_empty() {
        return Ok(outcome);
    }
    let messages: Vec<Message> = kept
        .iter()
        .chain(&added)
        .map(|m| Message {
            id: m.id.clone(),
            speaker: m.speaker.clone(),
            text: m.text.clone(),
            at: Some(m.at),
        })
        .collect();
    let conversation = Conversation {
        source_id: id.to_string(),
        title: kept_title.or_else(|| {
            title
                .map(str::trim)
                .filter(|t| !t.is_empty())
                .map(String::from)
        }),
        date: None,
        messages,
        warning: None,
    };
    let rec = build_record(conversation, DEFAULT_MAX_CHUNK_CHARS).map_err(anyhow::Error::msg)?;
    outcome.chunks_written = store.append_conversation(&rec, kept.len(), &added, now)?;
    outcome.messages_added = added.len();
    outcome.messages_total += added.len();
    Ok(outcome)
}

/// The id of a message that came without one: a hash of who said what (and
/// when, if the caller said), so that sending it again is recognised.
fn content_id(m: &NewMessage) -> String {
    let key = format!(
        "{}\u{1f}{}\u{1f}{}",
        m.speaker.as_deref().unwrap_or(""),
        m.text,
        m.at.map(|t| t.to_string()).unwrap_or_default()
    );
    format!("sha256:{}", &sha256_hex(key.as_bytes())[..32])
}
