//! `memory_search`: the `search` command for an agent.

use anyhow::Result;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::ToolOutput;
use super::derived::{input_schema, output_schema};
use crate::kinds::SourceType;
use crate::mcp::Session;
use crate::output::day;
use crate::output::hits::JsonHit;
use crate::sanitize::one_line;
use crate::search::request::{self, DEFAULT_LIMIT, SearchInput, Spelling};
use crate::search::{self, Hit, MAX_LIMIT, SearchOutcome, recall_genuinely};
use crate::store::recall::RecallVia;

pub fn definition() -> Value {
    json!({
        "name": "memory_search",
        "title": "Search memory",
        "description": "Search the user's personal memory (their email, bill receipts, past chat \
    conversations and remembered facts) and get the best matching passages, most relevant and \
    most recent first. Use it whenever a question touches the user's life, people, purchases, \
    plans or earlier conversations, before answering from general knowledge. Not every word has \
    to match, so include the distinctive ones (names, vendors, topics); the optional syntax is under query. \
    For a question about a period (\"what did I buy in March?\", \"what happened last week?\"), \
    pass after and/or before instead of putting the dates in the query: the window [after, before) \
    applies across all sources, and facts, being timeless, always pass it. Each search is \
    remembered, which is how often-recalled items become lasting facts, and what you are handed \
    counts as recalled, so it fades more slowly. memory_get reads a whole item by id.",
        "inputSchema": input_schema::<SearchArgs>(),
        "outputSchema": output_schema::<SearchAnswer>(),
        "annotations": {
            "title": "Search memory",
            // The recall log it writes is bookkeeping for `dream`, not a
            // change to what the memory holds.
            "readOnlyHint": true,
            "openWorldHint": false,
        },
    })
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchArgs {
    /// What to look for, in plain words; a question works too. Optional
    /// syntax: "exact phrase", prefix*, from:, to:, subject:, vendor:,
    /// title:, source:, -word or NOT word, AND, OR (capitals), parentheses.
    #[schemars(length(min = 1))]
    query: String,
    /// Only items dated at or after this: YYYY, YYYY-MM, YYYY-MM-DD, RFC
    /// 3339, or a phrase such as "yesterday" or "2 weeks ago" (in the user's
    /// time zone). Dates mean the start of that year, month or day.
    after: Option<String>,
    /// Only items dated before this (exclusive), in the same forms as after.
    /// after 2026-01 with before 2026-02 is exactly January 2026.
    before: Option<String>,
    /// How many results to return.
    #[serde(default = "default_limit")]
    #[schemars(range(min = 1, max = MAX_LIMIT))]
    limit: usize,
    /// Only these kinds of item; every kind when left out.
    #[serde(default)]
    source: Vec<SourceType>,
    /// Every matching passage its own result. By default a long email gives
    /// one result, its best passage, with more_chunks saying how many more
    /// matched.
    #[serde(default)]
    all_chunks: bool,
}

fn default_limit() -> usize {
    DEFAULT_LIMIT
}

/// The `structuredContent` of `memory_search`: `search --json`'s hits.
#[derive(Serialize, JsonSchema)]
pub struct SearchAnswer<'a> {
    hits: Vec<JsonHit<'a>>,
}

/// The arguments with `source` as the schema has it, a list: a string
/// (`"email"`, or `"email,fact"` as the command line's `--source` takes it)
/// becomes the list of its comma-separated names, which the schema then
/// checks like any list.
pub fn lenient(mut args: Value) -> Value {
    if let Some(source) = args.get_mut("source")
        && let Value::String(s) = source
    {
        *source = s.split(',').map(|n| json!(n.trim())).collect();
    }
    args
}

pub fn call(session: &mut Session, args: SearchArgs) -> Result<ToolOutput> {
    let now = session.config.now_per_call();
    let sources: Vec<String> = args.source.iter().map(|s| s.as_str().into()).collect();
    let input = SearchInput {
        query: &args.query,
        after: args.after.as_deref(),
        before: args.before.as_deref(),
        as_of: None,
        sources: &sources,
        limit: args.limit,
        half_life: session.half_life.as_deref(),
    };
    let resolved = request::resolve(&input, now, session.config.time_zone, Spelling::Field)?;
    let mut req = resolved.request(now.timestamp(), true);
    req.all_chunks = args.all_chunks;
    let outcome = search::search(&session.store, &req)?;
    // The agent is handed each hit's full text: that is a genuine recall
    // (seed 003 counts ambient injection), unlike a listing on a terminal.
    let ids: Vec<i64> = outcome.hits.iter().map(|h| h.chunk.id).collect();
    recall_genuinely(&session.store, &ids, RecallVia::McpSearch, now.timestamp())?;
    let hits: Vec<JsonHit> = outcome
        .hits
        .iter()
        .map(|h| JsonHit::new(h, false))
        .collect();
    let mut text = hits_text(&args.query, &outcome.hits);
    for note in outcome_notes(&outcome) {
        crate::mcp::log(&note);
        text.push_str(&format!("\nNote: {note}\n"));
    }
    Ok(ToolOutput::ok(
        text,
        serde_json::to_value(SearchAnswer { hits })?,
    ))
}

/// What the caller should know beyond the hits: a recall that could not be
/// logged (read-only database), a model that could not take part.
fn outcome_notes(outcome: &SearchOutcome) -> Vec<String> {
    let mut notes = Vec::new();
    if outcome.not_logged {
        notes.push(
            "the memory database is read-only, so this recall was not logged and will not \
teach the nightly dream"
                .to_string(),
        );
    }
    if let Some(w) = &outcome.warning {
        notes.push(one_line(w));
    }
    notes
}

/// The hits as a model reads them best: a header, then per hit one line of
/// where it is from and the full text as stored.
fn hits_text(query: &str, hits: &[Hit]) -> String {
    let query = one_line(query);
    if hits.is_empty() {
        return format!(
            "Nothing in memory matches \"{query}\". Try other or fewer words, another \
source, or a wider after/before window."
        );
    }
    let mut s = format!(
        "{} result{} for \"{query}\", best first:\n",
        hits.len(),
        if hits.len() == 1 { "" } else { "s" }
    );
    for (i, h) in hits.iter().enumerate() {
        let c = &h.chunk;
        let date = c
            .dated_at
            .map(day)
            .unwrap_or_else(|| "timeless fact".into());
        s.push_str(&format!(
            "\n[{}] {} · {date} · score {:.3} · id {}\n",
            i + 1,
            c.source_type,
            h.score,
            c.id
        ));
        match h.more_chunks {
            Some(0) | None => {}
            Some(n) => s.push_str(&format!(
                "({n} more passage{} of this email matched; all_chunks shows them)\n",
                if n == 1 { "" } else { "s" }
            )),
        }
        let labels = [
            ("From", &c.meta.sender),
            ("Subject", &c.meta.subject),
            ("Vendor", &c.meta.vendor),
            ("Title", &c.meta.title),
        ];
        for (label, value) in labels {
            if let Some(v) = value {
                s.push_str(&format!("{label}: {}\n", one_line(v)));
            }
        }
        s.push_str(c.text.trim_end());
        s.push('\n');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn source_takes_a_list_or_a_comma_separated_string() {
        for (source, want) in [
            (json!(["email", "fact"]), json!(["email", "fact"])),
            (json!("email, fact"), json!(["email", "fact"])),
            (json!("receipt"), json!(["receipt"])),
            (json!(3), json!(3)),
        ] {
            let args = lenient(json!({"query": "x", "source": source}));
            assert_eq!(args["source"], want);
        }
        assert_eq!(lenient(json!({"query": "x"})), json!({"query": "x"}));
    }
}
