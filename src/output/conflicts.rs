//! What `facts --conflicts` prints (and MCP `memory_list_conflicts`
//! returns): each open contradiction candidate, its two facts as
//! `facts --json` shows a fact, the reason and when dream found it.

use serde_json::{Value, json};

use super::facts::{fact_json, human_line};
use super::{day, rfc3339};
use crate::sanitize::one_line;
use crate::store::conflicts::Conflict;

/// One conflict: `{"facts": [fact, fact], "reason": ..., "found_at": ...}`.
pub fn conflict_json(c: &Conflict) -> Value {
    json!({
        "facts": [fact_json(&c.facts[0]), fact_json(&c.facts[1])],
        "reason": c.reason,
        "found_at": rfc3339(c.found_at),
    })
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
