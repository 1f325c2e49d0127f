//! `memory_list_conflicts`: the `facts --conflicts` command for an agent,
//! the contradiction candidates dream found, for the user to settle.

use anyhow::Result;
use serde::Deserialize;
use serde_json::{Value, json};

use super::ToolOutput;
use super::facts::fact_schema;
use crate::mcp::Session;
use crate::output::conflicts::{conflict_json, listing};

pub fn definition() -> Value {
    json!({
        "name": "memory_list_conflicts",
        "title": "List conflicting facts",
        "description": "List the pairs of facts in the user's memory that seem to contradict \
    each other (two phone numbers for one person, two home towns), found overnight. Show them \
    to the user and ask which is right: forget the wrong one with memory_forget. If both are \
    true, the user can run `alfred-mem facts --compatible A B`.",
        "inputSchema": {
            "type": "object",
            "properties": {},
            "additionalProperties": false,
        },
        "outputSchema": {
            "type": "object",
            "properties": {"conflicts": {"type": "array", "items": {
                "type": "object",
                "properties": {
                    "facts": {"type": "array", "items": fact_schema()},
                    "reason": {"type": "string"},
                    "found_at": {"type": "string", "description": "RFC 3339 UTC."},
                },
                "required": ["facts", "reason", "found_at"],
            }}},
            "required": ["conflicts"],
        },
        "annotations": {
            "title": "List conflicting facts",
            "readOnlyHint": true,
            "openWorldHint": false,
        },
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Args {}

pub fn call(session: &mut Session, _args: Args) -> Result<ToolOutput> {
    let conflicts = session
        .store
        .open_conflicts(session.config.now_per_call().timestamp())?;
    Ok(ToolOutput::ok(
        listing(&conflicts),
        json!({"conflicts": conflicts.iter().map(conflict_json).collect::<Vec<_>>()}),
    ))
}
