//! `memory_remember`, `memory_forget` and `memory_list_facts`: the
//! `remember`, `forget` and `facts` commands for an agent. There is no
//! purge here on purpose: erasing history is for the person, at a terminal.

use anyhow::{Result, bail};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::{ToolOutput, input_schema, output_schema};
use crate::mcp::Session;
use crate::output::agent;
use crate::output::facts::{JsonFact, JsonRemembered};
use crate::sanitize::one_line;
use crate::store::facts::FactMatch;

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
    let structured = serde_json::to_value(JsonRemembered::new(&r.fact))?;
    Ok(ToolOutput::ok(agent::remembered(&r), structured))
}

// ---- memory_forget ----------------------------------------------------------

pub fn forget_definition() -> Value {
    json!({
        "name": "memory_forget",
        "title": "Forget a fact",
        "description": "Retract a fact from the user's memory when they say it is wrong, \
    outdated, or should be forgotten. Give exactly one of id or match. id is a fact's id from \
    memory_list_facts (or a fact hit of memory_search). match is words from the fact: it is \
    forgotten only if exactly one active fact contains all of them; if none or several do, \
    nothing changes and the candidates are returned so you can call again with the right id. \
    A forgotten fact no longer appears in searches or in the list of facts, but it stays in \
    the history (memory_list_facts with include_retracted). To correct a fact, forget the old \
    one and remember the new one.",
        "inputSchema": input_schema::<ForgetArgs>(),
        "outputSchema": output_schema::<Forgotten>(),
        "annotations": {
            "title": "Forget a fact",
            "readOnlyHint": false,
            "destructiveHint": true,
            "idempotentHint": false,
            "openWorldHint": false,
        },
    })
}

/// Exactly one of `id` and `match`. A schema cannot say so without a
/// top-level `oneOf`, which some clients refuse, so it is checked while
/// parsing and answered like any other argument that does not fit.
#[derive(Deserialize, JsonSchema)]
#[serde(try_from = "RawForgetArgs")]
pub enum ForgetArgs {
    Id(i64),
    Match(String),
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct RawForgetArgs {
    /// The fact's id.
    id: Option<i64>,
    /// Words the fact contains, when you do not have its id.
    #[serde(rename = "match")]
    #[schemars(length(min = 1))]
    matching: Option<String>,
}

/// `memory_forget`'s `structuredContent`.
#[derive(Serialize, JsonSchema)]
struct Forgotten<'a> {
    /// The facts retracted by this call (empty if none).
    forgotten: Vec<JsonFact<'a>>,
    /// When match fit several facts: those facts, none forgotten.
    candidates: Vec<JsonFact<'a>>,
}

impl TryFrom<RawForgetArgs> for ForgetArgs {
    type Error = &'static str;

    fn try_from(raw: RawForgetArgs) -> Result<ForgetArgs, &'static str> {
        match (raw.id, raw.matching) {
            (Some(id), None) => Ok(ForgetArgs::Id(id)),
            (None, Some(text)) => Ok(ForgetArgs::Match(text)),
            _ => Err("give exactly one of id or match"),
        }
    }
}

pub fn forget(session: &mut Session, args: ForgetArgs) -> Result<ToolOutput> {
    let id = match args {
        ForgetArgs::Id(id) => id,
        ForgetArgs::Match(text) => match session.store.match_active_fact(&text)? {
            FactMatch::One(fact) => fact.id,
            FactMatch::NoMatch => bail!(
                "no active fact contains all the words of {:?}; nothing was forgotten. \
Call memory_list_facts to see the facts and their ids.",
                one_line(&text)
            ),
            FactMatch::Several(many) => {
                let candidates = Forgotten {
                    forgotten: Vec::new(),
                    candidates: many.iter().map(JsonFact::new).collect(),
                };
                return Ok(ToolOutput {
                    text: agent::several_match(&text, &many),
                    structured: Some(serde_json::to_value(candidates)?),
                    is_error: true,
                });
            }
        },
    };
    let now = session.config.now_per_call().timestamp();
    let facts = session.store.forget(&[id], false, now)?;
    let forgotten = Forgotten {
        forgotten: facts.iter().map(JsonFact::new).collect(),
        candidates: Vec::new(),
    };
    Ok(ToolOutput::ok(
        agent::forgotten(&facts),
        serde_json::to_value(forgotten)?,
    ))
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
        "outputSchema": output_schema::<Listed>(),
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
    #[schemars(extend("default" = false))]
    include_retracted: Option<bool>,
}

/// `memory_list_facts`'s `structuredContent`.
#[derive(Serialize, JsonSchema)]
struct Listed<'a> {
    facts: Vec<JsonFact<'a>>,
}

pub fn list(session: &mut Session, args: ListArgs) -> Result<ToolOutput> {
    let all = args.include_retracted.unwrap_or(false);
    let facts = session.store.facts(all)?;
    let listed = Listed {
        facts: facts.iter().map(JsonFact::new).collect(),
    };
    Ok(ToolOutput::ok(
        agent::facts(&facts),
        serde_json::to_value(listed)?,
    ))
}
