//! `memory_forget`: the `forget` command for an agent, for facts and for
//! whole sources (an e-mail, a receipt, a conversation). There is no purge
//! here on purpose: erasing history is for the person, at a terminal. Nor is
//! there a way to forget everything, or every source of a kind, in one call:
//! an agent that misreads a request (or obeys text planted in an e-mail)
//! must not be able to wipe a person's memory. It names what it forgets, one
//! item at a time, and the person can still see it all with `--as-of`.

use anyhow::{Result, bail};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::ToolOutput;
use super::derived::{input_schema, output_schema};
use crate::mcp::Session;
use crate::output::facts::{JsonFact, forgotten_sources, human_lines};
use crate::sanitize::one_line;
use crate::store::facts::FactMatch;
use crate::store::sources::{ForgottenSource, SourceRef};

pub fn definition() -> Value {
    json!({
        "name": "memory_forget",
        "title": "Forget facts or a source",
        "description": "Retract facts from the user's memory when they say they are wrong, \
    outdated, or should be forgotten; or take one whole e-mail, receipt or conversation out \
    of search when the user asks to forget it. Give exactly one of id, ids, match or source. \
    source is TYPE:ID from a search hit's source_type and source_id, e.g. \
    \"conversation:chat-42\" or \"email:<abc@example.com>\"; a forgotten source stays in the \
    history but is no longer found. id (or ids, for \
    several at once) is a fact's id from memory_list_facts or a fact hit of memory_search; a \
    list is all or nothing: if any id is not an active fact, nothing changes. match is words \
    from the fact: it is forgotten only if exactly one active fact contains all of them; if \
    none or several do, nothing changes and the candidates are returned so you can call again \
    with the right id. A forgotten fact no longer appears in searches or in the list of \
    facts, but it stays in the history (memory_list_facts with include_retracted). To correct \
    a fact, forget the old one and remember the new one.",
        "inputSchema": input_schema::<RawForgetArgs>(),
        "outputSchema": output_schema::<ForgetAnswer>(),
        "annotations": {
            "title": "Forget facts or a source",
            "readOnlyHint": false,
            "destructiveHint": true,
            "idempotentHint": false,
            "openWorldHint": false,
        },
    })
}

/// The most ids one call takes: a model listing more is likely confused.
const MAX_IDS: usize = 1000;

/// Exactly one of `id`, `ids`, `match` and `source`. A schema cannot say so without a
/// top-level `oneOf`, which some clients refuse, so it is checked while
/// parsing and answered like any other argument that does not fit.
#[derive(Deserialize)]
#[serde(try_from = "RawForgetArgs")]
pub enum ForgetArgs {
    Ids(Vec<i64>),
    Match(String),
    Source(SourceRef),
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct RawForgetArgs {
    /// The fact's id.
    id: Option<i64>,
    /// Several facts' ids, forgotten together or not at all.
    #[schemars(length(min = 1, max = MAX_IDS))]
    ids: Option<Vec<i64>>,
    /// Words the fact contains, when you do not have its id.
    #[serde(rename = "match")]
    #[schemars(length(min = 1))]
    matching: Option<String>,
    /// A whole source to forget, as TYPE:ID (type email, receipt or
    /// conversation).
    #[schemars(length(min = 3))]
    source: Option<String>,
}

/// The `structuredContent` of `memory_forget`.
#[derive(Serialize, JsonSchema)]
struct ForgetAnswer<'a> {
    /// The facts retracted by this call (empty if none).
    forgotten: Vec<JsonFact<'a>>,
    /// When match fit several facts: those facts, none forgotten.
    candidates: Vec<JsonFact<'a>>,
    /// The sources taken out of search by this call.
    sources: Vec<ForgottenSource>,
}

impl ForgetAnswer<'_> {
    fn value(self) -> Result<Value> {
        Ok(serde_json::to_value(self)?)
    }
}

impl TryFrom<RawForgetArgs> for ForgetArgs {
    type Error = String;

    fn try_from(raw: RawForgetArgs) -> Result<ForgetArgs, String> {
        match (raw.id, raw.ids, raw.matching, raw.source) {
            (Some(id), None, None, None) => Ok(ForgetArgs::Ids(vec![id])),
            (None, Some(ids), None, None) => Ok(ForgetArgs::Ids(ids)),
            (None, None, Some(text), None) => Ok(ForgetArgs::Match(text)),
            (None, None, None, Some(source)) => Ok(ForgetArgs::Source(
                source.parse().map_err(|e| format!("source: {e}"))?,
            )),
            _ => Err("give exactly one of id, ids, match or source".into()),
        }
    }
}

pub fn call(session: &mut Session, args: ForgetArgs) -> Result<ToolOutput> {
    let now = session.config.now_per_call().timestamp();
    let ids = match args {
        ForgetArgs::Source(source) => {
            let done = session.store.forget_sources(&[source], false, now)?;
            let text = forgotten_sources(&done);
            let answer = ForgetAnswer {
                forgotten: vec![],
                candidates: vec![],
                sources: done,
            };
            return Ok(ToolOutput::ok(text, answer.value()?));
        }
        ForgetArgs::Ids(ids) => ids,
        ForgetArgs::Match(text) => match session
            .store
            .match_active_fact(&text, session.config.now_per_call().timestamp())?
        {
            FactMatch::One(fact) => vec![fact.id],
            FactMatch::NoMatch => bail!(
                "no active fact contains all the words of {:?}; nothing was forgotten. \
Call memory_list_facts to see the facts and their ids.",
                one_line(&text)
            ),
            FactMatch::Several(many) => return several(&text, &many),
        },
    };
    let forgotten = session.store.forget(&ids, false, now)?;
    let text = forgotten
        .iter()
        .map(|f| format!("Forgot fact {}: {}\n", f.id, one_line(&f.text)))
        .collect();
    let answer = ForgetAnswer {
        forgotten: forgotten.iter().map(JsonFact::new).collect(),
        candidates: vec![],
        sources: vec![],
    };
    Ok(ToolOutput::ok(text, answer.value()?))
}

/// `match` fit several facts: nothing is forgotten, and the model is shown
/// the candidates to pick an id from.
fn several(text: &str, many: &[crate::store::facts::Fact]) -> Result<ToolOutput> {
    let answer = ForgetAnswer {
        forgotten: vec![],
        candidates: many.iter().map(JsonFact::new).collect(),
        sources: vec![],
    };
    Ok(ToolOutput {
        text: format!(
            "{} active facts match {:?}; nothing was forgotten. Call memory_forget \
again with the id of the one to forget:\n{}",
            many.len(),
            one_line(text),
            human_lines(many)
        ),
        structured: Some(answer.value()?),
        is_error: true,
    })
}
