//! What `facts --conflicts` prints (and MCP `memory_list_conflicts`
//! returns): each open contradiction candidate, its two facts as
//! `facts --json` shows a fact, the reason and when dream found it.

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use super::facts::{JsonFact, human_line, to_value};
use super::{day, rfc3339};
use crate::sanitize::one_line;
use crate::store::conflicts::Conflict;

/// One open conflict as `facts --conflicts --json` prints it.
#[derive(Serialize, JsonSchema)]
pub struct JsonConflict<'a> {
    /// The two facts, as facts --json prints a fact.
    pub facts: [JsonFact<'a>; 2],
    /// Why they seem to contradict each other, in words.
    pub reason: &'a str,
    /// When dream found the pair, RFC 3339 UTC.
    pub found_at: String,
}

impl<'a> JsonConflict<'a> {
    pub fn new(c: &'a Conflict) -> Self {
        JsonConflict {
            facts: [JsonFact::new(&c.facts[0]), JsonFact::new(&c.facts[1])],
            reason: &c.reason,
            found_at: rfc3339(c.found_at),
        }
    }
}

/// One conflict: `{"facts": [fact, fact], "reason": ..., "found_at": ...}`.
pub fn conflict_json(c: &Conflict) -> Value {
    to_value(JsonConflict::new(c))
}

pub fn conflicts_json(conflicts: &[Conflict]) -> Value {
    Value::Array(conflicts.iter().map(conflict_json).collect())
}

/// Each conflict: its reason, then its two facts as `facts` lists them, and
/// how to close it.
pub fn listing(conflicts: &[Conflict]) -> String {
    if conflicts.is_empty() {
        return "no open conflicts between facts\n".to_string();
    }
    let mut s = String::new();
    for c in conflicts {
        let [a, b] = &c.facts;
        s.push_str(&format!(
            "facts {} and {} (found {}): {}\n{}{}",
            a.id,
            b.id,
            day(c.found_at),
            one_line(&c.reason),
            human_line(a),
            human_line(b)
        ));
    }
    s.push_str(
        "close one by forgetting the wrong fact (alfred-mem forget ID), \
         or keep both with: alfred-mem facts --compatible A B\n",
    );
    s
}
