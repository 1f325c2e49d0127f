//! `memory_forget`: the `forget` command for an agent. There is no purge
//! here on purpose: erasing history is for the person, at a terminal.

use anyhow::{Result, bail};
use serde::Deserialize;
use serde_json::{Value, json};

use super::ToolOutput;
use super::facts::fact_schema;
use crate::mcp::Session;
use crate::output::facts::{fact_json, human_lines};
use crate::sanitize::one_line;
use crate::store::facts::FactMatch;

pub fn definition() -> Value {
    json!({
        "name": "memory_forget",
        "title": "Forget facts",
        "description": "Retract facts from the user's memory when they say they are wrong, \
    outdated, or should be forgotten. Give exactly one of id, ids or match. id (or ids, for \
    several at once) is a fact's id from memory_list_facts or a fact hit of memory_search; a \
    list is all or nothing: if any id is not an active fact, nothing changes. match is words \
    from the fact: it is forgotten only if exactly one active fact contains all of them; if \
    none or several do, nothing changes and the candidates are returned so you can call again \
    with the right id. A forgotten fact no longer appears in searches or in the list of \
    facts, but it stays in the history (memory_list_facts with include_retracted). To correct \
    a fact, forget the old one and remember the new one.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "id": {"type": "integer", "description": "The fact's id."},
                "ids": {
                    "type": "array",
                    "items": {"type": "integer"},
                    "minItems": 1,
                    "maxItems": MAX_IDS,
                    "description": "Several facts' ids, forgotten together or not at all.",
                },
                "match": {
                    "type": "string",
                    "minLength": 1,
                    "description": "Words the fact contains, when you do not have its id.",
                },
            },
            "additionalProperties": false,
        },
        "outputSchema": {
            "type": "object",
            "properties": {
                "forgotten": {
                    "type": "array",
                    "items": fact_schema(),
                    "description": "The facts retracted by this call (empty if none).",
                },
                "candidates": {
                    "type": "array",
                    "items": fact_schema(),
                    "description": "When match fit several facts: those facts, none forgotten.",
                },
            },
            "required": ["forgotten", "candidates"],
        },
        "annotations": {
            "title": "Forget facts",
            "readOnlyHint": false,
            "destructiveHint": true,
            "idempotentHint": false,
            "openWorldHint": false,
        },
    })
}

/// The most ids one call takes: a model listing more is likely confused.
const MAX_IDS: usize = 1000;

/// Exactly one of `id`, `ids` and `match`. A schema cannot say so without a
/// top-level `oneOf`, which some clients refuse, so it is checked while
/// parsing and answered like any other argument that does not fit.
#[derive(Deserialize)]
#[serde(try_from = "RawForgetArgs")]
pub enum ForgetArgs {
    Ids(Vec<i64>),
    Match(String),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawForgetArgs {
    id: Option<i64>,
    ids: Option<Vec<i64>>,
    #[serde(rename = "match")]
    matching: Option<String>,
}

impl TryFrom<RawForgetArgs> for ForgetArgs {
    type Error = &'static str;

    fn try_from(raw: RawForgetArgs) -> Result<ForgetArgs, &'static str> {
        match (raw.id, raw.ids, raw.matching) {
            (Some(id), None, None) => Ok(ForgetArgs::Ids(vec![id])),
            (None, Some(ids), None) => Ok(ForgetArgs::Ids(ids)),
            (None, None, Some(text)) => Ok(ForgetArgs::Match(text)),
            _ => Err("give exactly one of id, ids or match"),
        }
    }
}

pub fn call(session: &mut Session, args: ForgetArgs) -> Result<ToolOutput> {
    let ids = match args {
        ForgetArgs::Ids(ids) => ids,
        ForgetArgs::Match(text) => match session.store.match_active_fact(&text)? {
            FactMatch::One(fact) => vec![fact.id],
            FactMatch::NoMatch => bail!(
                "no active fact contains all the words of {:?}; nothing was forgotten. \
Call memory_list_facts to see the facts and their ids.",
                one_line(&text)
            ),
            FactMatch::Several(many) => return Ok(several(&text, &many)),
        },
    };
    let now = session.config.now_per_call().timestamp();
    let forgotten = session.store.forget(&ids, false, now)?;
    let text = forgotten
        .iter()
        .map(|f| format!("Forgot fact {}: {}\n", f.id, one_line(&f.text)))
        .collect();
    Ok(ToolOutput::ok(
        text,
        json!({
            "forgotten": forgotten.iter().map(fact_json).collect::<Vec<_>>(),
            "candidates": [],
        }),
    ))
}

/// `match` fit several facts: nothing is forgotten, and the model is shown
/// the candidates to pick an id from.
fn several(text: &str, many: &[crate::store::facts::Fact]) -> ToolOutput {
    ToolOutput {
        text: format!(
            "{} active facts match {:?}; nothing was forgotten. Call memory_forget \
again with the id of the one to forget:\n{}",
            many.len(),
            one_line(text),
            human_lines(many)
        ),
        structured: Some(json!({
            "forgotten": [],
            "candidates": many.iter().map(fact_json).collect::<Vec<_>>(),
        })),
        is_error: true,
    }
}
