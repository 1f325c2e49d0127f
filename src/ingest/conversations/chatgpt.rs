//! ChatGPT's data export (`conversations.json`): each conversation is a tree of
//! message nodes in `mapping`. We keep the branch the user last saw — the path
//! from `current_node` up to the root — or, without one, the path that always
//! follows the newest child. Walks are bounded so a damaged tree cannot hang us.

use std::collections::HashSet;

use serde_json::{Map, Value};

use super::{Conversation, Message, fallback_id, id_text, str_field};
use crate::dates::written::parse_datetime_loose;

/// Placeholder for pictures, which are objects among the text parts.
const IMAGE_PLACEHOLDER: &str = "[image]";
const UNKNOWN_ROLE: &str = "unknown";

pub(super) fn read(obj: &Map<String, Value>) -> Result<Conversation, String> {
    let Some(Value::Object(mapping)) = obj.get("mapping") else {
        return Err("\"mapping\" is not an object".into());
    };
    let current = obj.get("current_node").and_then(Value::as_str);
    let mut messages = Vec::new();
    for node_id in linearise(mapping, current) {
        let Some(msg) = mapping
            .get(node_id)
            .and_then(|n| n.get("message"))
            .and_then(Value::as_object)
        else {
            continue;
        };
        let hidden = msg
            .get("metadata")
            .and_then(|m| m.get("is_visually_hidden_from_conversation"))
            .and_then(Value::as_bool)
            .unwrap_or(false);
        if hidden {
            continue;
        }
        let role = msg
            .get("author")
            .and_then(|a| a.get("role"))
            .and_then(Value::as_str)
            .filter(|r| !r.is_empty())
            .unwrap_or(UNKNOWN_ROLE);
        messages.push(Message {
            id: id_text(msg.get("id")).unwrap_or_else(|| node_id.to_string()),
            speaker: Some(role.to_string()),
            text: msg.get("content").map(content_text).unwrap_or_default(),
            at: msg
                .get("create_time")
                .and_then(|t| parse_datetime_loose(t, false)),
        });
    }
    let title = str_field(obj, "title");
    let create_time = obj.get("create_time").unwrap_or(&Value::Null);
    let source_id = id_text(obj.get("conversation_id"))
        .or_else(|| id_text(obj.get("id")))
        .unwrap_or_else(|| fallback_id(title.as_deref(), create_time));
    Ok(Conversation {
        source_id,
        title,
        date: parse_datetime_loose(create_time, false),
        messages,
        warning: None,
    })
}

fn parent_of(node: &Value) -> Option<&str> {
    node.get("parent").and_then(Value::as_str)
}

/// Node ids from the root to the leaf of the branch to keep. Every walk visits a
/// node at most once, so cycles and dangling links end it instead of looping.
fn linearise<'a>(mapping: &'a Map<String, Value>, current: Option<&'a str>) -> Vec<&'a str> {
    let mut seen = HashSet::new();
    let mut path = Vec::new();
    if let Some(cur) = current.filter(|c| mapping.contains_key(*c)) {
        let mut at = Some(cur);
        while let Some(id) = at {
            let Some((key, node)) = mapping.get_key_value(id) else {
                break;
            };
            if !seen.insert(key.as_str()) {
                break;
            }
            path.push(key.as_str());
            at = parent_of(node);
        }
        path.reverse();
        return path;
    }
    // A true root has no parent; a node whose parent is missing will do otherwise.
    let root = mapping
        .iter()
        .find(|(_, n)| parent_of(n).is_none())
        .or_else(|| {
            mapping
                .iter()
                .find(|(_, n)| parent_of(n).is_some_and(|p| !mapping.contains_key(p)))
        });
    let mut at = root.map(|(k, _)| k.as_str());
    while let Some(id) = at {
        if !seen.insert(id) {
            break;
        }
        path.push(id);
        at = mapping
            .get(id)
            .and_then(|n| n.get("children"))
            .and_then(Value::as_array)
            .and_then(|children| {
                children
                    .iter()
                    .rev()
                    .filter_map(Value::as_str)
                    .find_map(|c| mapping.get_key_value(c).map(|(k, _)| k.as_str()))
                    .filter(|c| !seen.contains(c))
            });
    }
    path
}

/// Text parts joined by newlines; pictures become a placeholder, other
/// non-text parts are dropped.
fn content_text(content: &Value) -> String {
    let parts = match content.get("parts").and_then(Value::as_array) {
        Some(parts) => parts
            .iter()
            .filter_map(|p| match p {
                Value::String(s) => Some(s.trim().to_string()),
                Value::Object(o) => {
                    let kind = o.get("content_type").and_then(Value::as_str).unwrap_or("");
                    if kind.contains("image") || o.contains_key("asset_pointer") {
                        Some(IMAGE_PLACEHOLDER.to_string())
                    } else {
                        o.get("text")
                            .and_then(Value::as_str)
                            .map(|t| t.trim().to_string())
                    }
                }
                _ => None,
            })
            .filter(|s| !s.is_empty())
            .collect(),
        None => content
            .get("text")
            .and_then(Value::as_str)
            .map(|t| vec![t.trim().to_string()])
            .unwrap_or_default(),
    };
    parts.join("\n")
}
