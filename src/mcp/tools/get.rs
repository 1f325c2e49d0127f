//! `memory_get`: the `show` command for an agent. Ids in, the whole source
//! of each chunk out; reading is a genuine recall, as `show` records it.

use anyhow::{Result, bail};
use serde::Deserialize;
use serde_json::{Value, json};

use super::ToolOutput;
use crate::mcp::Session;
use crate::output::show::{self, Shown};
use crate::search::recall_genuinely;
use crate::show::whole;
use crate::store::recall::RecallVia;

/// Messages each side of a conversation chunk when the call names none.
const DEFAULT_CONTEXT: usize = 2;

/// The most ids one call may read.
const MAX_IDS: usize = 100;

pub fn definition() -> Value {
    json!({
        "name": "memory_get",
        "title": "Read items from memory",
        "description": "Read the whole item behind memory_search results, by their ids: the \
    full e-mail (every part, the matching part marked), the full receipt, the conversation \
    messages around the match, or a fact with its history. Use it when a search result is \
    relevant but cut short, or you need what surrounds it. Reading an item tells the memory it \
    was useful, so it fades more slowly.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "ids": {
                    "type": "array",
                    "items": {"type": "integer"},
                    "minItems": 1,
                    "maxItems": MAX_IDS,
                    "description": "Item ids, as memory_search returns them.",
                },
                "context": {
                    "type": "integer",
                    "minimum": 0,
                    "default": DEFAULT_CONTEXT,
                    "description": "For a conversation: messages shown before and after the match.",
                },
            },
            "required": ["ids"],
            "additionalProperties": false,
        },
        "outputSchema": {
            "type": "object",
            "properties": {"items": {"type": "array", "items": {"type": "object"}}},
            "required": ["items"],
        },
        "annotations": {
            "title": "Read items from memory",
            // The recall it records is bookkeeping, as for memory_search.
            "readOnlyHint": true,
            "openWorldHint": false,
        },
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GetArgs {
    ids: Vec<i64>,
    context: Option<usize>,
}

pub fn call(session: &mut Session, args: GetArgs) -> Result<ToolOutput> {
    if args.ids.is_empty() || args.ids.len() > MAX_IDS {
        bail!("ids must hold 1 to {MAX_IDS} item ids from memory_search");
    }
    let now = session.config.now_per_call().timestamp();
    let context = args.context.unwrap_or(DEFAULT_CONTEXT);
    let mut shown = Vec::with_capacity(args.ids.len());
    for &id in &args.ids {
        let Some(view) = session.store.source_of(id, None, now)? else {
            bail!("no item with id {id}; nothing was read. Use the ids memory_search returns.");
        };
        let whole = whole(&view, context);
        shown.push(Shown { view, whole });
    }
    let mut text = show::human(&shown, false);
    if !recall_genuinely(&session.store, &args.ids, RecallVia::McpGet, now)? {
        text.push_str(
            "\nNote: the memory database is read-only, so this reading was not recorded.\n",
        );
    }
    Ok(ToolOutput::ok(text, json!({"items": show::json(&shown)})))
}
