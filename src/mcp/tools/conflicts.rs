//! `memory_list_conflicts`: the `facts --conflicts` command for an agent,
//! the contradiction candidates dream found, for the user to settle.

use anyhow::Result;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::ToolOutput;
use super::derived::{input_schema, output_schema};
use crate::mcp::Session;
use crate::output::conflicts::{JsonConflict, listing};

pub fn definition() -> Value {
    json!({
        "name": "memory_list_conflicts",
        "title": "List conflicting facts",
        "description": "List the pairs of facts in the user's memory that seem to contradict \
    each other (two phone numbers for one person, two home towns), found overnight. Show them \
    to the user and ask which is right: forget the wrong one with memory_forget. If both are \
    true, the user can run `alfred-mem facts --compatible A B`.",
        "inputSchema": input_schema::<Args>(),
        "outputSchema": output_schema::<Answer>(),
        "annotations": {
            "title": "List conflicting facts",
            "readOnlyHint": true,
            "openWorldHint": false,
        },
    })
}

/// No arguments.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {}

/// The `structuredContent`: `facts --conflicts --json`, in an object.
#[derive(Serialize, JsonSchema)]
struct Answer<'a> {
    conflicts: Vec<JsonConflict<'a>>,
}

pub fn call(session: &mut Session, _args: Args) -> Result<ToolOutput> {
    let conflicts = session
        .store
        .open_conflicts(session.config.now_per_call().timestamp())?;
    Ok(ToolOutput::ok(
        listing(&conflicts),
        serde_json::to_value(Answer {
            conflicts: conflicts.iter().map(JsonConflict::new).collect(),
        })?,
    ))
}
