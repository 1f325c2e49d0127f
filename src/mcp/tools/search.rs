//! `memory_search`: the `search` command for an agent.

use anyhow::Result;
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Value, json};

use super::{ToolOutput, input_schema, output_schema};
use crate::kinds::SourceType;
use crate::mcp::Session;
use crate::output::{agent, hits::JsonHit};
use crate::search::request::{self, DEFAULT_LIMIT, SearchInput, Spelling};
use crate::search::{self, MAX_LIMIT};

pub fn definition() -> Value {
    json!({
        "name": "memory_search",
        "title": "Search memory",
        "description": "Search the user's personal memory (their email, bill receipts, past chat \
    conversations and remembered facts) and get the best matching passages, most relevant and \
    most recent first. Use it whenever a question touches the user's life, people, purchases, \
    plans or earlier conversations, before answering from general knowledge. Not every word has \
    to match, so include the distinctive ones (names, vendors, topics); there is no query syntax. \
    For a question about a period (\"what did I buy in March?\", \"what happened last week?\"), \
    pass after and/or before instead of putting the dates in the query: the window [after, before) \
    applies across all sources, and facts, being timeless, always pass it. Each search is \
    remembered, which is how often-recalled items become lasting facts.",
        "inputSchema": input_schema::<SearchArgs>(),
        "outputSchema": output_schema::<Found>(),
        "annotations": {
            "title": "Search memory",
            // The recall log it writes is bookkeeping for `dream`, not a
            // change to what the memory holds.
            "readOnlyHint": true,
            "openWorldHint": false,
        },
    })
}

/// The arguments; their schema is the tool's `inputSchema`, and each field's
/// doc comment is what the model reads about it.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchArgs {
    /// What to look for, in plain words; a question works too.
    #[schemars(length(min = 1))]
    query: String,
    /// Only items dated at or after this: YYYY, YYYY-MM, YYYY-MM-DD, RFC 3339,
    /// or a phrase such as "yesterday" or "2 weeks ago" (in the user's time
    /// zone). Dates mean the start of that year, month or day.
    after: Option<String>,
    /// Only items dated before this (exclusive), in the same forms as after.
    /// after 2026-01 with before 2026-02 is exactly January 2026.
    before: Option<String>,
    /// How many results to return.
    #[schemars(range(min = 1, max = MAX_LIMIT), extend("default" = DEFAULT_LIMIT))]
    limit: Option<usize>,
    /// Only these kinds of item; every kind when left out.
    // Kept as the names given, so that an unknown one is answered by the
    // search's own message (`isError`), as on the command line.
    #[serde(default, deserialize_with = "one_or_many")]
    #[schemars(with = "Vec<SourceType>")]
    source: Vec<String>,
}

/// The answer's `structuredContent`; its schema is the `outputSchema`.
#[derive(Serialize, JsonSchema)]
struct Found<'a> {
    /// Best first, each as `search --json` prints it.
    hits: Vec<JsonHit<'a>>,
}

/// `["email", "fact"]`, or leniently `"email"` or `"email,fact"` as the
/// command line's `--source` takes it.
fn one_or_many<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        One(String),
        Many(Vec<String>),
    }
    Ok(match Option::<OneOrMany>::deserialize(d)? {
        None => Vec::new(),
        Some(OneOrMany::One(s)) => s.split(',').map(str::to_string).collect(),
        Some(OneOrMany::Many(v)) => v,
    })
}

pub fn call(session: &mut Session, args: SearchArgs) -> Result<ToolOutput> {
    let now = session.config.now_per_call();
    let input = SearchInput {
        query: &args.query,
        after: args.after.as_deref(),
        before: args.before.as_deref(),
        as_of: None,
        sources: &args.source,
        limit: args.limit.unwrap_or(DEFAULT_LIMIT),
        half_life_days: session.half_life_days,
    };
    let resolved = request::resolve(&input, now, session.config.time_zone, Spelling::Field)?;
    let outcome = search::search(&session.store, &resolved.request(now.timestamp(), true))?;
    let mut text = agent::hits(&args.query, &outcome.hits);
    for note in agent::notes(&outcome) {
        eprintln!("alfred-mem mcp: {note}");
        text.push_str(&format!("\nNote: {note}\n"));
    }
    let found = Found {
        hits: outcome
            .hits
            .iter()
            .map(|h| JsonHit::new(h, false))
            .collect(),
    };
    Ok(ToolOutput::ok(text, serde_json::to_value(found)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn source_takes_a_list_or_a_comma_separated_string() {
        for (source, want) in [
            (json!(["email", "fact"]), vec!["email", "fact"]),
            (json!("email,fact"), vec!["email", "fact"]),
            (json!("receipt"), vec!["receipt"]),
            (Value::Null, vec![]),
        ] {
            let a: SearchArgs =
                serde_json::from_value(json!({"query": "x", "source": source})).unwrap();
            assert_eq!(a.source, want);
        }
        assert!(serde_json::from_value::<SearchArgs>(json!({"query": "x", "source": 3})).is_err());
    }
}
