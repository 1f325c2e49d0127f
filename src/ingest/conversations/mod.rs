//! Chat conversations from JSON exports: our own simple format and the
//! ChatGPT and Claude.ai data exports (their `conversations.json`, whether
//! named directly, in the unzipped folder or inside the downloaded .zip),
//! told apart per record by their fields. Messages are rendered
//! as `speaker: text` lines and cut into overlapping windows of three, packed
//! into chunks at message boundaries, so a search hit points at the messages
//! it came from and carries their date.

pub mod append;
mod chatgpt;
mod chunking;
mod claude;
pub mod export;
mod ours;

use super::json_input::{JsonElement, parse_all};
use super::record::{
    FileError, Meta, Parsed, Record, Rejection, SourceType, content_hash, sha256_hex,
};

/// Largest chunk, in characters: a window of long messages is split at message
/// boundaries to stay under it.
pub const DEFAULT_MAX_CHUNK_CHARS: usize = 1200;
/// The field that marks a ChatGPT export conversation (its message tree).
const CHATGPT_KEY: &str = "mapping";
/// The field that marks a Claude.ai export conversation.
const CLAUDE_KEY: &str = "chat_messages";
/// How many keys of an unrecognised record the rejection lists.
const MAX_KEYS_SHOWN: usize = 8;

/// One message, as read from either format, before chunking.
#[derive(Clone, Debug, PartialEq)]
struct Message {
    id: String,
    /// Who said it: the speaker's name, else the role (user, assistant, …).
    speaker: Option<String>,
    text: String,
    /// Unix seconds, UTC.
    at: Option<i64>,
}

impl Message {
    fn line(&self) -> String {
        match &self.speaker {
            Some(s) => format!("{s}: {}", self.text),
            None => self.text.clone(),
        }
    }
}

/// A conversation as read from either format.
#[derive(Debug, Default)]
struct Conversation {
    source_id: String,
    title: Option<String>,
    /// The conversation's own date (`date` / `create_time`), unix seconds.
    date: Option<i64>,
    messages: Vec<Message>,
    warning: Option<String>,
}

/// Parses a conversations file into one `Parsed` per conversation. Chunks hold
/// at most `max_chunk_chars` characters unless a single message is longer.
pub fn parse_conversations(input: &[u8], max_chunk_chars: usize) -> Result<Vec<Parsed>, FileError> {
    parse_all(input, |el| parse_conversation(el, max_chunk_chars))
}

/// One conversation record, in whichever format its fields say it is.
pub fn parse_conversation(
    el: &JsonElement<'_>,
    max_chunk_chars: usize,
) -> Result<Record, Rejection> {
    let obj = el.value();
    let conv = if obj.contains_key(CHATGPT_KEY) {
        chatgpt::read(&obj)
    } else if obj.contains_key(CLAUDE_KEY) {
        claude::read(&obj)
    } else if obj.contains_key("messages") {
        ours::read(&obj)
    } else {
        let keys: Vec<&str> = obj
            .keys()
            .map(String::as_str)
            .take(MAX_KEYS_SHOWN)
            .collect();
        Err(format!(
            "not a conversation (expected \"messages\", a chatgpt \"mapping\" or claude \"chat_messages\"; found keys: {})",
            keys.join(", ")
        ))
    };
    let conv = conv.map_err(|reason| el.reject(reason))?;
    build_record(conv, max_chunk_chars).map_err(|reason| el.reject(reason))
}

fn build_record(conv: Conversation, max_chunk_chars: usize) -> Result<Record, String> {
    let messages: Vec<Message> = conv
        .messages
        .into_iter()
        .filter(|m| !m.text.trim().is_empty())
        .collect();
    if messages.is_empty() {
        return Err("no messages".into());
    }
    let fallback = conv
        .date
        .or_else(|| messages.iter().filter_map(|m| m.at).min())
        .ok_or("no date (set \"date\" on the conversation or \"at\" on its messages)")?;
    let chunks = chunking::windows(&messages, max_chunk_chars, fallback);
    let meta = Meta {
        title: conv.title,
        ..Meta::default()
    };
    Ok(Record {
        source_type: SourceType::Conversation,
        source_id: conv.source_id,
        content_hash: content_hash(&meta, &chunks),
        meta,
        chunks,
        warning: conv.warning,
    })
}

/// A non-empty trimmed string, or a number as text: the shapes ids come in.
fn id_text(v: Option<&serde_json::Value>) -> Option<String> {
    match v? {
        serde_json::Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_string()),
        serde_json::Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// The id of an export conversation that has none: a hash of its title and
/// creation time, stable across re-imports of the same export.
fn fallback_id(title: Option<&str>, created: &serde_json::Value) -> String {
    let key = format!("{}\u{1f}{created}", title.unwrap_or(""));
    format!("sha256:{}", sha256_hex(key.as_bytes()))
}

/// A non-empty trimmed string field.
fn str_field(obj: &serde_json::Map<String, serde_json::Value>, key: &str) -> Option<String> {
    let s = obj.get(key)?.as_str()?.trim();
    (!s.is_empty()).then(|| s.to_string())
}

#[cfg(test)]
mod tests;
