//! The documented shapes of a fact (README: "facts --json"), shared by the
//! `remember`, `forget` and `facts` commands and the MCP fact tools.

use serde_json::{Value, json};

use super::{day, rfc3339};
use crate::sanitize::one_line;
use crate::store::facts::Fact;

/// What `remember --json` prints: the fact as it was just taught.
pub fn remembered_json(f: &Fact) -> Value {
    json!({
        "id": f.id,
        "text": f.text,
        "method": f.method,
        "created_at": rfc3339(f.created_at),
    })
}

/// What `facts --json` and `forget --json` print for each fact.
pub fn fact_json(f: &Fact) -> Value {
    json!({
        "id": f.id,
        "text": f.text,
        "method": f.method,
        "created_at": rfc3339(f.created_at),
        "retracted_at": f.retracted_at.map(rfc3339),
        "purged_at": f.purged_at.map(rfc3339),
        "promoted_from": f.promoted_from.as_ref().map(|s| json!({
            "id": s.id,
            "source_type": s.source_type,
            "source_id": s.source_id,
            "dated_at": s.dated_at.map(rfc3339),
        })),
    })
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
