//! `memory_related`: the `related` command for an agent. A chunk id in, its
//! links out, strongest first.

use anyhow::{Result, bail};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::ToolOutput;
use super::derived::{input_schema, output_schema};
use crate::mcp::Session;
use crate::output::related;

pub fn definition() -> Value {
    json!({
        "name": "memory_related",
        "title": "List an item's associations",
        "description": "List what an item in memory is linked to, strongest first: the other \
    parts and replies of its e-mail thread or conversation (thread), items read together with it \
    (co_recall, stronger the more often), and items alike in meaning (semantic). Each link has \
    the other item's id, the kind, a strength from 0 to 1, when it formed and was last \
    reinforced, and a one-line summary. Use memory_get to read a linked item.",
        "inputSchema": input_schema::<RelatedArgs>(),
        "outputSchema": output_schema::<RelatedAnswer>(),
        "annotations": {
            "title": "List an item's associations",
            "readOnlyHint": true,
            "openWorldHint": false,
        },
    })
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RelatedArgs {
    /// An item id, as memory_search returns it.
    id: i64,
}

/// The `structuredContent` of `memory_related`: `related --json`'s links.
#[derive(Serialize, JsonSchema)]
struct RelatedAnswer {
    /// Each link, strongest first, as `related --json` prints it.
    links: Vec<serde_json::Map<String, Value>>,
}

pub fn call(session: &mut Session, args: RelatedArgs) -> Result<ToolOutput> {
    let now = session.config.now_per_call().timestamp();
    let Some(links) = session.store.related(args.id, now)? else {
        bail!(
            "no item with id {}. Use the ids memory_search returns.",
            args.id
        );
    };
    let text = related::human(args.id, &links);
    Ok(ToolOutput::ok(
        text,
        json!({"links": related::json(args.id, &links)}),
    ))
}
