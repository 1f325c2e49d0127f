//! `memory_get`: the `show` command for an agent. Ids in, the whole source
//! of each chunk out; reading is a genuine recall, as `show` records it.

use anyhow::{Result, bail};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::ToolOutput;
use super::derived::{input_schema, output_schema};
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
        "inputSchema": input_schema::<GetArgs>(),
        "outputSchema": output_schema::<GetAnswer>(),
        "annotations": {
            "title": "Read items from memory",
            // The recall it records is bookkeeping, as for memory_search.
            "readOnlyHint": true,
            "openWorldHint": false,
        },
    })
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetArgs {
    /// Item ids, as memory_search returns them.
    #[schemars(length(min = 1, max = MAX_IDS))]
    ids: Vec<i64>,
    /// For a conversation: messages shown before and after the match.
    #[serde(default = "default_context")]
    context: usize,
}

fn default_context() -> usize {
    DEFAULT_CONTEXT
}

/// The `structuredContent` of `memory_get`: `show --json`'s items.
#[derive(Serialize, JsonSchema)]
struct GetAnswer {
    /// Each item read, as `show --json` prints it.
    items: Vec<serde_json::Map<String, Value>>,
}

pub fn call(session: &mut Session, args: GetArgs) -> Result<ToolOutput> {
    let now = session.config.now_per_call().timestamp();
    let context = args.context;
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
    let Value::Array(items) = show::json(&shown) else {
        bail!("show::json is an array");
    };
    let items = items
        .into_iter()
        .filter_map(|item| match item {
            Value::Object(m) => Some(m),
            _ => None,
        })
        .collect();
    Ok(ToolOutput::ok(
        text,
        serde_json::to_value(GetAnswer { items })?,
    ))
}
