//! The documented shapes of a fact (README: "facts --json"), shared by the
//! `remember`, `forget` and `facts` commands and the MCP fact tools, and
//! what those commands print for a person.

use anyhow::Result;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use super::{day, rfc3339};
use crate::kinds::{FactMethod, SourceType};
use crate::sanitize::one_line;
use crate::store::facts::{Fact, Remembered, SourceChunk};

/// One remembered fact, as `facts --json` prints it.
// Derived JSON schema: part of the MCP fact tools' output schemas, so the
// doc comments here are also what a model reads.
#[derive(Serialize, JsonSchema)]
pub struct JsonFact<'a> {
    /// The fact's id, for memory_forget.
    pub id: i64,
    pub text: &'a str,
    pub method: FactMethod,
    /// RFC 3339 UTC.
    pub created_at: String,
    /// RFC 3339 UTC, or null.
    pub retracted_at: Option<String>,
    /// RFC 3339 UTC, or null.
    pub purged_at: Option<String>,
    /// For a dream fact, the item it was learned from.
    pub promoted_from: Option<JsonSource<'a>>,
}

/// The item a dream fact was learned from.
#[derive(Serialize, JsonSchema)]
pub struct JsonSource<'a> {
    pub id: i64,
    pub source_type: SourceType,
    pub source_id: &'a str,
    pub dated_at: Option<String>,
}

/// The fact as it was just taught, as `remember --json` prints it.
#[derive(Serialize, JsonSchema)]
pub struct JsonRemembered<'a> {
    pub id: i64,
    pub text: &'a str,
    pub method: FactMethod,
    pub created_at: String,
}

impl<'a> JsonFact<'a> {
    pub fn new(f: &'a Fact) -> JsonFact<'a> {
        JsonFact {
            id: f.id,
            text: &f.text,
            method: f.method,
            created_at: rfc3339(f.created_at),
            retracted_at: f.retracted_at.map(rfc3339),
            purged_at: f.purged_at.map(rfc3339),
            promoted_from: f.promoted_from.as_ref().map(JsonSource::new),
        }
    }
}

impl<'a> JsonSource<'a> {
    fn new(s: &'a SourceChunk) -> JsonSource<'a> {
        JsonSource {
            id: s.id,
            source_type: s.source_type,
            source_id: &s.source_id,
            dated_at: s.dated_at.map(rfc3339),
        }
    }
}

impl<'a> JsonRemembered<'a> {
    pub fn new(f: &'a Fact) -> JsonRemembered<'a> {
        JsonRemembered {
            id: f.id,
            text: &f.text,
            method: f.method,
            created_at: rfc3339(f.created_at),
        }
    }
}

/// What `remember` says: the new fact's id, or the fact already there.
pub fn remembered_line(r: &Remembered) -> String {
    let f = &r.fact;
    if r.created {
        format!("remembered fact {}\n", f.id)
    } else {
        format!(
            "already remembered as fact {}: {}\n",
            f.id,
            one_line(&f.text)
        )
    }
}

/// What `remember --json` prints: the fact as it was just taught.
pub fn remembered_json(f: &Fact) -> Result<Value> {
    Ok(serde_json::to_value(JsonRemembered::new(f))?)
}

/// What `facts --json` and `forget --json` print: the facts as an array. A
/// `Value` keeps the keys sorted, as these documents have always been.
pub fn facts_json(facts: &[Fact]) -> Result<Value> {
    let facts: Vec<JsonFact> = facts.iter().map(JsonFact::new).collect();
    Ok(serde_json::to_value(facts)?)
}

/// What `facts` prints: a header and each fact, or how to teach the first.
pub fn listing(facts: &[Fact], all: bool) -> String {
    if facts.is_empty() {
        let what = if all { "no facts" } else { "no active facts" };
        return format!("{what} yet; teach one with: alfred-mem remember TEXT\n");
    }
    format!("   id  method  captured    fact\n{}", human_lines(facts))
}

/// What `forget` prints: each fact forgotten, or only its id when `purged`
/// (its text is gone).
pub fn forgotten_lines(facts: &[Fact], purged: bool) -> String {
    facts
        .iter()
        .map(|f| {
            if purged {
                format!("purged fact {}\n", f.id)
            } else {
                format!("forgot fact {}: {}\n", f.id, one_line(&f.text))
            }
        })
        .collect()
}

/// Several facts, one [`human_line`] each.
pub fn human_lines(facts: &[Fact]) -> String {
    facts.iter().map(human_line).collect()
}

/// One fact as table lines: the fact, then where a dream fact came from and
/// when a retracted one was forgotten, indented under it.
pub fn human_line(f: &Fact) -> String {
    let mut s = format!(
        "{:>5}  {:<6}  {}  {}\n",
        f.id,
        f.method,
        day(f.created_at),
        one_line(&f.text)
    );
    let indent = " ".repeat(27);
    if let Some(src) = &f.promoted_from {
        let date = src.dated_at.map(day).unwrap_or_else(|| "evergreen".into());
        s.push_str(&format!(
            "{indent}from {} chunk {} ({}), dated {date}\n",
            src.source_type,
            src.id,
            one_line(&src.source_id)
        ));
    }
    match (f.retracted_at, f.purged_at) {
        (_, Some(p)) => s.push_str(&format!("{indent}purged {}\n", day(p))),
        (Some(r), None) => s.push_str(&format!("{indent}forgotten {}\n", day(r))),
        (None, None) => {}
    }
    s
}
