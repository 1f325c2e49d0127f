//! Our own conversation format:
//! `{"id", "title"?, "date"?, "messages": [{"id"?, "role"|"speaker", "content"|"text", "at"?}]}`.
//! `content` may also be a list of strings or of `{"type": "text", "text"}` parts,
//! as chat APIs produce.

use serde_json::{Map, Value};

use super::{Conversation, Message, id_text, str_field};
use crate::dates::written::parse_datetime_loose;

/// Our exports write day-first dates when they write ambiguous ones at all.
const MONTH_FIRST: bool = false;

pub(super) fn read(obj: &Map<String, Value>) -> Result<Conversation, String> {
    let source_id = id_text(obj.get("id")).ok_or("missing id")?;
    let Some(Value::Array(raw_messages)) = obj.get("messages") else {
        return Err("\"messages\" is not a list".into());
    };
    let mut unreadable_times = 0;
    let mut date = None;
    if let Some(v) = obj.get("date").filter(|v| !v.is_null()) {
        date = parse_datetime_loose(v, MONTH_FIRST);
        unreadable_times += usize::from(date.is_none());
    }
    let mut messages = Vec::new();
    for (index, m) in raw_messages.iter().enumerate() {
        let Some(m) = m.as_object() else { continue };
        let at = match m.get("at").filter(|v| !v.is_null()) {
            Some(v) => {
                let at = parse_datetime_loose(v, MONTH_FIRST);
                unreadable_times += usize::from(at.is_none());
                at
            }
            None => None,
        };
        messages.push(Message {
            id: id_text(m.get("id")).unwrap_or_else(|| index.to_string()),
            speaker: str_field(m, "speaker").or_else(|| str_field(m, "role")),
            text: m
                .get("content")
                .or_else(|| m.get("text"))
                .map(content_text)
                .unwrap_or_default(),
            at,
        });
    }
    Ok(Conversation {
        source_id,
        title: str_field(obj, "title"),
        date,
        messages,
        warning: (unreadable_times > 0)
            .then(|| format!("{unreadable_times} unreadable date(s) ignored")),
    })
}

/// Message text from a string, a list of strings / text parts, or one text part.
pub(super) fn content_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.trim().to_string(),
        Value::Array(parts) => parts
            .iter()
            .map(content_text)
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join("\n"),
        Value::Object(part) => {
            let is_text = part.get("type").is_none_or(|t| t.as_str() == Some("text"));
            match part.get("text") {
                Some(Value::String(t)) if is_text => t.trim().to_string(),
                _ => String::new(),
            }
        }
        _ => String::new(),
    }
}
