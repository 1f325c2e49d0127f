//! MCP resources: what a client can attach to a conversation by URI, with
//! no tool call. The facts list, each remembered fact, and any chunk a
//! search returned, all as the JSON the matching command prints:
//!
//! - `alfred-mem://facts`: every active fact (`facts --json`);
//! - `alfred-mem://fact/{id}`: one fact, retracted or not (one `facts --json` item);
//! - `alfred-mem://chunk/{id}`: one visible chunk (a `search --json` hit without a score).
//!
//! `resources/list` names the facts list and each active fact; chunks are
//! too many to list and are reached through the template.

use serde_json::{Map, Value, json};

use super::Session;
use super::protocol::{RpcError, code};
use crate::kinds::SourceType;
use crate::output::facts::{fact_json, facts_json};
use crate::output::rfc3339;
use crate::sanitize::one_line;

const FACTS_URI: &str = "alfred-mem://facts";
const FACT_PREFIX: &str = "alfred-mem://fact/";
const CHUNK_PREFIX: &str = "alfred-mem://chunk/";
const JSON: &str = "application/json";

/// MCP's code for a resource that does not exist.
const RESOURCE_NOT_FOUND: i64 = -32002;

pub fn list(session: &Session) -> Result<Value, RpcError> {
    let facts = session
        .store
        .facts(false, session.config.now_per_call().timestamp())
        .map_err(internal)?;
    let mut resources = vec![json!({
        "uri": FACTS_URI,
        "name": "facts",
        "title": "Remembered facts",
        "description": "Every fact the user or an agent taught, or that was learned from \
    what kept being recalled; as JSON, oldest first.",
        "mimeType": JSON,
    })];
    resources.extend(facts.iter().map(|f| {
        json!({
            "uri": format!("{FACT_PREFIX}{}", f.id),
            "name": format!("fact-{}", f.id),
            "title": title(&f.text),
            "mimeType": JSON,
        })
    }));
    Ok(json!({"resources": resources}))
}

pub fn templates() -> Value {
    json!({"resourceTemplates": [
        {
            "uriTemplate": format!("{FACT_PREFIX}{{id}}"),
            "name": "fact",
            "title": "A remembered fact",
            "description": "One fact by its id, with how it was learned and whether it was \
    forgotten.",
            "mimeType": JSON,
        },
        {
            "uriTemplate": format!("{CHUNK_PREFIX}{{id}}"),
            "name": "chunk",
            "title": "A passage of memory",
            "description": "One passage (of an email, a receipt, a conversation or a fact) by \
    the id memory_search gave it.",
            "mimeType": JSON,
        },
    ]})
}

pub fn read(session: &Session, params: &Map<String, Value>) -> Result<Value, RpcError> {
    let Some(uri) = params.get("uri").and_then(Value::as_str) else {
        return Err(RpcError::invalid_params(
            "resources/read needs a \"uri\" string",
        ));
    };
    let not_found = || {
        RpcError::new(
            RESOURCE_NOT_FOUND,
            format!(
                "no resource {:?}; call resources/list or use {FACT_PREFIX}ID or {CHUNK_PREFIX}ID",
                one_line(uri)
            ),
        )
    };
    let id_after = |prefix: &str| uri.strip_prefix(prefix).and_then(|s| s.parse::<i64>().ok());
    let body = if uri == FACTS_URI {
        facts_json(
            &session
                .store
                .facts(false, session.config.now_per_call().timestamp())
                .map_err(internal)?,
        )
    } else if let Some(id) = id_after(FACT_PREFIX) {
        let facts = session
            .store
            .facts(true, session.config.now_per_call().timestamp())
            .map_err(internal)?;
        let fact = facts.iter().find(|f| f.id == id).ok_or_else(not_found)?;
        fact_json(fact)
    } else if let Some(id) = id_after(CHUNK_PREFIX) {
        let found = session
            .store
            .candidates_by_id(&[id], None)
            .map_err(internal)?;
        let c = found.first().ok_or_else(not_found)?;
        let mut v = json!({
            "id": c.id,
            "source_type": c.source_type,
            "source_id": c.source_id,
            "dated_at": c.dated_at.map(rfc3339),
            "text": c.text,
        });
        let labels = [
            ("subject", &c.meta.subject),
            ("from", &c.meta.sender),
            ("vendor", &c.meta.vendor),
            ("title", &c.meta.title),
        ];
        for (key, value) in labels {
            if let Some(value) = value {
                v[key] = json!(value);
            }
        }
        if c.source_type == SourceType::Conversation {
            v["message_ids"] = json!(c.message_ids);
        }
        v
    } else {
        return Err(not_found());
    };
    Ok(json!({"contents": [{"uri": uri, "mimeType": JSON, "text": body.to_string()}]}))
}

/// A fact's first words, as a short title for a list.
fn title(text: &str) -> String {
    let line = one_line(text);
    match line.char_indices().nth(60) {
        Some((i, _)) => format!("{}…", &line[..i]),
        None => line,
    }
}

fn internal(e: anyhow::Error) -> RpcError {
    RpcError::new(code::INTERNAL_ERROR, format!("{e:#}"))
}
