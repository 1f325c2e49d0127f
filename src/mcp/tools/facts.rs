//! `memory_remember` and `memory_list_facts`: the `remember` and `facts`
//! commands for an agent (`memory_forget` is in `forget.rs`).

use anyhow::Result;
use serde::Deserialize;
use serde_json::{Value, json};

use super::ToolOutput;
use crate::kinds::FactMethod;
use crate::mcp::Session;
use crate::output::facts::{fact_json, human_lines, remembered_json};
use crate::sanitize::one_line;

/// The schema of one fact as `facts --json` prints it.
pub(super) fn fact_schema() -> Value {
    let time = json!({"type": "string", "description": "RFC 3339 UTC."});
    let maybe_time = json!({"type": ["string", "null"], "description": "RFC 3339 UTC, or null."});
    json!({
        "type": "object",
        "properties": {
            "id": {"type": "integer", "description": "The fact's id, for memory_forget."},
            "text": {"type": "string"},
            "method": {
                "type": "string",
                "enum": FactMethod::NAMES,
                "description": "user: taught by the user or an agent; dream: learned from \
    what kept being recalled; routine: a habit learned from when things are looked up.",
            },
            "created_at": time,
            "retracted_at": maybe_time,
            "purged_at": maybe_time,
            "promoted_from": {
                "type": ["object", "null"],
                "description": "For a dream fact, the item it was learned from.",
                "properties": {
                    "id": {"type": "integer"},
                    "source_type": {"type": "string"},
                    "source_id": {"type": "string"},
                    "dated_at": {"type": ["string", "null"]},
                },
            },
            "confidence": {
                "type": "number",
                "description": "In (0, 1]. A dream fact's fades unless recalled; a user fact's is 1.",
            },
            "pinned": {"type": "boolean", "description": "A pinned fact never fades."},
            "recalls": {"type": "integer", "description": "Times it was read in full."},
            "last_recalled_at": maybe_time,
            "reprieved_at": maybe_time,
            "retracted_reason": {
                "type": ["string", "null"],
                "description": "forgotten (retracted on request), faded (unused too long) \
    or merged (said the same as the fact in merged_into).",
            },
            "merged_into": {"type": ["integer", "null"]},
        },
        "required": ["id", "text", "method", "created_at", "retracted_at", "promoted_from"],
    })
}

// ---- memory_remember --------------------------------------------------------

pub fn remember_definition() -> Value {
    json!({
        "name": "memory_remember",
        "title": "Remember a fact",
        "description": "Store a lasting fact about the user in their memory, where it never \
    fades and is found by memory_search from then on. Use it when the user tells you something \
    durable about themselves, their people or their preferences (\"I'm allergic to shellfish\", \
    \"Jane Tan is my Acme contact\"), or asks you to remember something. Write one \
    self-contained statement in plain words, naming people in full, as it should read months \
    from now. Remembering the same text again returns the existing fact.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "text": {
                    "type": "string",
                    "minLength": 1,
                    "description": "The fact, as one self-contained statement.",
                },
            },
            "required": ["text"],
            "additionalProperties": false,
        },
        "outputSchema": {
            "type": "object",
            "properties": {
                "id": {"type": "integer"},
                "text": {"type": "string"},
                "method": {"type": "string", "enum": FactMethod::NAMES},
                "created_at": {"type": "string"},
            },
            "required": ["id", "text", "method", "created_at"],
        },
        "annotations": {
            "title": "Remember a fact",
            "readOnlyHint": false,
            "destructiveHint": false,
            "idempotentHint": true,
            "openWorldHint": false,
        },
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RememberArgs {
    text: String,
}

pub fn remember(session: &mut Session, args: RememberArgs) -> Result<ToolOutput> {
    let now = session.config.now_per_call().timestamp();
    let r = session.store.remember(&args.text, now)?;
    let f = &r.fact;
    let text = if r.created {
        format!("Remembered as fact {}: {}", f.id, one_line(&f.text))
    } else {
        format!("Already remembered as fact {}: {}", f.id, one_line(&f.text))
    };
    Ok(ToolOutput::ok(text, remembered_json(f)))
}

// ---- memory_list_facts ------------------------------------------------------

pub fn list_definition() -> Value {
    json!({
        "name": "memory_list_facts",
        "title": "List remembered facts",
        "description": "List every fact in the user's memory, oldest first: its id, text, \
    whether the user taught it (method user) or it was learned from what kept being recalled \
    (method dream, with the item it came from), and when. Use it when the user asks what you \
    know or remember about them, to audit the memory, or to find a fact's id for memory_forget. \
    With include_retracted, forgotten facts are listed too, with when they were forgotten.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "include_retracted": {
                    "type": "boolean",
                    "default": false,
                    "description": "Also list facts that were forgotten.",
                },
            },
            "additionalProperties": false,
        },
        "outputSchema": {
            "type": "object",
            "properties": {"facts": {"type": "array", "items": fact_schema()}},
            "required": ["facts"],
        },
        "annotations": {
            "title": "List remembered facts",
            "readOnlyHint": true,
            "openWorldHint": false,
        },
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListArgs {
    #[serde(default)]
    include_retracted: Option<bool>,
}

pub fn list(session: &mut Session, args: ListArgs) -> Result<ToolOutput> {
    let all = args.include_retracted.unwrap_or(false);
    let facts = session
        .store
        .facts(all, session.config.now_per_call().timestamp())?;
    let text = if facts.is_empty() {
        "No facts are remembered yet.".to_string()
    } else {
        format!(
            "{} fact{}, oldest first (id, method, captured, text):\n{}",
            facts.len(),
            if facts.len() == 1 { "" } else { "s" },
            human_lines(&facts)
        )
    };
    Ok(ToolOutput::ok(
        text,
        json!({"facts": facts.iter().map(fact_json).collect::<Vec<_>>()}),
    ))
}
