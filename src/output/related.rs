//! What `alfred-mem related` (and MCP `memory_related`) prints: a chunk's
//! links, strongest first, each with a one-line summary of the other chunk.

use serde_json::{Value, json};

use super::{day, rfc3339};
use crate::sanitize::one_line;
use crate::store::links::Link;
use crate::store::search::Candidate;

/// Characters of the other chunk's summary.
const SUMMARY_CHARS: usize = 100;

/// The other chunk in one line: its subject, title or vendor, then the
/// start of its text.
pub fn summary(c: &Candidate) -> String {
    let m = &c.meta;
    let label = m
        .subject
        .as_deref()
        .or(m.title.as_deref())
        .or(m.vendor.as_deref());
    let text = one_line(&c.text);
    // An e-mail's first chunk starts with its subject already.
    let line = match label.map(one_line) {
        Some(l) if !text.starts_with(&l) => format!("{l}: {text}"),
        _ => text,
    };
    if line.chars().count() <= SUMMARY_CHARS {
        return line;
    }
    let cut: String = line.chars().take(SUMMARY_CHARS - 1).collect();
    format!("{cut}…")
}

/// The documented `related --json` array, for the links of chunk `id`.
pub fn json(id: i64, links: &[(Link, Candidate)]) -> Value {
    Value::Array(
        links
            .iter()
            .map(|(l, c)| {
                json!({
                    "id": l.other(id),
                    "kind": l.kind,
                    "strength": l.strength,
                    "formed_at": rfc3339(l.formed_at),
                    "reinforced_at": rfc3339(l.reinforced_at),
                    "source_type": c.source_type,
                    "summary": summary(c),
                })
            })
            .collect(),
    )
}

/// One line per link, for people: id, kind, strength, formed and
/// reinforced days, summary.
pub fn human(id: i64, links: &[(Link, Candidate)]) -> String {
    if links.is_empty() {
        return format!("chunk {id} has no links\n");
    }
    let mut s = String::from("     id  kind        strength  formed      reinforced  summary\n");
    for (l, c) in links {
        s.push_str(&format!(
            "{:>7}  {:<10}  {:>8.2}  {}  {}  {}\n",
            l.other(id),
            l.kind,
            l.strength,
            day(l.formed_at),
            day(l.reinforced_at),
            summary(c)
        ));
    }
    s
}
