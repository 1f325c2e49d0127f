//! `memory_remember` and `memory_list_facts`: the `remember` and `facts`
//! commands for an agent (`memory_forget` is in `forget.rs`).

use anyhow::Result;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::ToolOutput;
use super::derived::{input_schema, output_schema};
use crate::mcp::Session;
use crate::output::facts::{JsonFact, JsonRemembered, human_lines, remembered_json};
use crate::sanitize::one_line;

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
        "inputSchema": input_schema::<RememberArgs>(),
        "outputSchema": output_schema::<JsonRemembered>(),
        "annotations": {
            "title": "Remember a fact",
            "readOnlyHint": false,
            "destructiveHint": false,
            "idempotentHint": true,
            "openWorldHint": false,
        },
    })
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RememberArgs {
    /// The fact, as one self-contained statement.
    #[schemars(length(min = 1))]
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
        "inputSchema": input_schema::<ListArgs>(),
        "outputSchema": output_schema::<ListAnswer>(),
        "annotations": {
            "title": "List remembered facts",
            "readOnlyHint": true,
            "openWorldHint": false,
        },
    })
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListArgs {
    /// Also list facts that were forgotten.
    #[serde(default)]
    include_retracted: bool,
}

/// The `structuredContent` of `memory_list_facts`: `facts --json`.
#[derive(Serialize, JsonSchema)]
struct ListAnswer<'a> {
    facts: Vec<JsonFact<'a>>,
}

pub fn list(session: &mut Session, args: ListArgs) -> Result<ToolOutput> {
    let all = args.include_retracted;
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
        serde_json::to_value(ListAnswer {
            facts: facts.iter().map(JsonFact::new).collect(),
        })?,
    ))
}
