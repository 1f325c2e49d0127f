//! The Claude.ai data export (`conversations.json`): an array of
//! `{"uuid", "name", "created_at", "chat_messages": [{"uuid", "sender",
//! "text", "content": [{"type", "text"}], "created_at", "attachments",
//! "files"}]}`. Messages are already in order, one branch. The text is taken
//! from the `content` blocks of type `text` (the flat `text` field is the
//! fallback for older exports); thinking, tool calls and tool results are
//! left out as the chat window folds them away. Attached files are named.

use serde_json::{Map, Value};

use super::{Conversation, Message, fallback_id, id_text, str_field};
use crate::dates::written::parse_datetime_loose;

/// Claude writes RFC 3339 times; this only matters for other shapes.
const MONTH_FIRST: bool = false;

pub(super) fn read(obj: &Map<String, Value>) -> Result<Conversation, String> {
    let Some(Value::Array(raw_messages)) = obj.get("chat_messages") else {
        return Err("\"chat_messages\" is not a list".into());
    };
    let mut messages = Vec::new();
    for (index, m) in raw_messages.iter().enumerate() {
        let Some(m) = m.as_object() else { continue };
        messages.push(Message {
            id: id_text(m.get("uuid")).unwrap_or_else(|| index.to_string()),
            speaker: str_field(m, "sender"),
            text: message_text(m),
            at: m
                .get("created_at")
                .and_then(|t| parse_datetime_loose(t, MONTH_FIRST)),
        });
    }
    let title = str_field(obj, "name");
    let created = obj.get("created_at").unwrap_or(&Value::Null);
    let source_id =
        id_text(obj.get("uuid")).unwrap_or_else(|| fallback_id(title.as_deref(), created));
    Ok(Conversation {
        source_id,
        title,
        date: parse_datetime_loose(created, MONTH_FIRST),
        messages,
        warning: None,
    })
}

/// The text blocks joined by newlines (else the flat `text`), then one
/// `[attachment: name]` line per attached or uploaded file.
fn message_text(m: &Map<String, Value>) -> String {
    let blocks: Vec<&str> = m
        .get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|b| b.get("text").and_then(Value::as_str))
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .collect();
    let mut lines: Vec<String> = if blocks.is_empty() {
        str_field(m, "text").into_iter().collect()
    } else {
        blocks.into_iter().map(str::to_string).collect()
    };
    for key in ["attachments", "files"] {
        let names = m
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|f| f.as_object().and_then(|f| str_field(f, "file_name")));
        lines.extend(names.map(|n| format!("[attachment: {n}]")));
    }
    lines.join("\n")
}
