//! The documented shapes of a fact (README: "facts --json"), shared by the
//! `remember`, `forget` and `facts` commands and the MCP fact tools, and
//! what those commands print for a person.

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use super::{day, rfc3339};
use crate::kinds::{FactMethod, SourceType};
use crate::rank::strength::FADE_BELOW;
use crate::sanitize::one_line;
use crate::store::facts::{Fact, Remembered};
use crate::store::sources::ForgottenSource;

/// What `remember --json` prints: the fact as it was just taught.
#[derive(Serialize, JsonSchema)]
pub struct JsonRemembered<'a> {
    /// The fact's id, for memory_forget.
    pub id: i64,
    pub text: &'a str,
    pub method: FactMethod,
    /// RFC 3339 UTC.
    pub created_at: String,
}

/// One fact as `facts --json` and `forget --json` print it.
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
    pub promoted_from: Option<JsonPromotedFrom<'a>>,
    /// In (0, 1]. A dream fact's fades unless recalled; a user fact's is 1.
    pub confidence: f64,
    /// A pinned fact never fades.
    pub pinned: bool,
    /// Times it was read in full.
    pub recalls: u64,
    /// RFC 3339 UTC, or null.
    pub last_recalled_at: Option<String>,
    /// RFC 3339 UTC, or null.
    pub reprieved_at: Option<String>,
    /// forgotten (retracted on request), faded (unused too long) or merged
    /// (it said the same as the fact in merged_into).
    pub retracted_reason: Option<&'a str>,
    /// For a merged fact, the id of the fact it was merged into; else null.
    pub merged_into: Option<i64>,
}

/// The item a dream fact was learned from.
#[derive(Serialize, JsonSchema)]
pub struct JsonPromotedFrom<'a> {
    /// The chunk id.
    pub id: i64,
    pub source_type: SourceType,
    pub source_id: &'a str,
    /// RFC 3339 UTC; null for a timeless fact.
    pub dated_at: Option<String>,
}

impl<'a> JsonFact<'a> {
    pub fn new(f: &'a Fact) -> Self {
        JsonFact {
            id: f.id,
            text: &f.text,
            method: f.method,
            created_at: rfc3339(f.created_at),
            retracted_at: f.retracted_at.map(rfc3339),
            purged_at: f.purged_at.map(rfc3339),
            promoted_from: f.promoted_from.as_ref().map(|s| JsonPromotedFrom {
                id: s.id,
                source_type: s.source_type,
                source_id: &s.source_id,
                dated_at: s.dated_at.map(rfc3339),
            }),
            confidence: f.confidence,
            pinned: f.pinned,
            recalls: f.recalls,
            last_recalled_at: f.last_recalled_at.map(rfc3339),
            reprieved_at: f.reprieved_at.map(rfc3339),
            retracted_reason: f.retracted_reason.as_deref(),
            merged_into: f.merged_into,
        }
    }
}

/// [`JsonRemembered`] as a JSON value.
pub fn remembered_json(f: &Fact) -> Value {
    to_value(JsonRemembered {
        id: f.id,
        text: &f.text,
        method: f.method,
        created_at: rfc3339(f.created_at),
    })
}

/// A value of one of these shapes, whose fields are all plain data.
pub(super) fn to_value(v: impl Serialize) -> Value {
    serde_json::to_value(v).expect("plain data serialises")
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

/// What `facts --json` and `forget --json` print: the facts as an array.
pub fn facts_json(facts: &[Fact]) -> Value {
    Value::Array(facts.iter().map(fact_json).collect())
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

/// What `forget --source` prints: each source and what became of it.
pub fn forgotten_sources(sources: &[ForgottenSource]) -> String {
    sources
        .iter()
        .map(|s| {
            let verb = if s.purged { "purged" } else { "forgot" };
            format!(
                "{verb} {} {}: {} chunk{} out of search{}\n",
                s.source_type,
                one_line(&s.source_id),
                s.chunks,
                if s.chunks == 1 { "" } else { "s" },
                if s.purged { ", text erased" } else { "" }
            )
        })
        .collect()
}

/// What `facts --json` and `forget --json` print for each fact: [`JsonFact`].
pub fn fact_json(f: &Fact) -> Value {
    to_value(JsonFact::new(f))
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
    if f.method != FactMethod::User {
        let pinned = if f.pinned { ", pinned" } else { "" };
        let recalls = match (f.recalls, f.last_recalled_at) {
            (0, _) | (_, None) => String::new(),
            (n, Some(last)) => format!(", recalled {n}x (last {})", day(last)),
        };
        s.push_str(&format!(
            "{indent}confidence {:.2}{pinned}{recalls}\n",
            f.confidence
        ));
    }
    if let Some(r) = f.reprieved_at {
        s.push_str(&format!("{indent}given its second chance {}\n", day(r)));
    }
    match (f.retracted_at, f.purged_at) {
        (_, Some(p)) => s.push_str(&format!("{indent}purged {}\n", day(p))),
        (Some(r), None) if f.retracted_reason.as_deref() == Some("faded") => s.push_str(&format!(
            "{indent}faded {} (confidence fell below {FADE_BELOW}, unused)\n",
            day(r)
        )),
        (Some(r), None) if f.retracted_reason.as_deref() == Some("merged") => {
            let into = f
                .merged_into
                .map(|i| format!(" into fact {i}"))
                .unwrap_or_default();
            s.push_str(&format!("{indent}merged{into} {}\n", day(r)))
        }
        (Some(r), None) => s.push_str(&format!("{indent}forgotten {}\n", day(r))),
        (None, None) => {}
    }
    s
}
