//! What `alfred-mem status` shows: where the memory lives, what is in it, and
//! when it was last indexed and dreamed, as aligned lines or the documented
//! `status --json` object.

use std::path::Path;

use serde_json::{Value, json};

use super::semantic::{Coverage, coverage_json, coverage_lines};
use super::{human_bytes, rfc3339};
use crate::store::status::StatusFigures;

/// Everything `status` reports, gathered by the command.
pub struct Status<'a> {
    pub db_path: &'a Path,
    /// The database and its WAL together.
    pub db_bytes: u64,
    pub figures: StatusFigures,
    pub last_index_at: Option<i64>,
    pub last_dream_at: Option<i64>,
    /// None when no model is configured.
    pub semantic: Option<Coverage<'a>>,
}

pub fn json(s: &Status) -> Value {
    let f = &s.figures;
    let mut v = json!({
        "db_path": s.db_path.display().to_string(),
        "db_bytes": s.db_bytes,
        "chunks": f.chunks,
        "facts": {"active": f.facts_active, "retracted": f.facts_retracted},
        "oldest": f.oldest.map(rfc3339),
        "newest": f.newest.map(rfc3339),
        "recall_events": f.recall_events,
        "dated_by_fallback": f.dated_by_fallback,
        "last_index_at": s.last_index_at.map(rfc3339),
        "last_dream_at": s.last_dream_at.map(rfc3339),
    });
    // Present only with a model, so the documented fields of a memory
    // without semantic recall are exactly as before.
    if s.semantic.is_some() {
        v["semantic"] = coverage_json(s.semantic);
    }
    v
}

pub fn human(s: &Status) -> String {
    let f = &s.figures;
    let time = |t: Option<i64>| t.map_or_else(|| "-".into(), rfc3339);
    let mut out = String::new();
    out.push_str(&format!("database   {}\n", s.db_path.display()));
    out.push_str(&format!("size       {}\n", human_bytes(s.db_bytes)));
    out.push_str("chunks     current  superseded\n");
    for c in &f.chunks {
        out.push_str(&format!(
            "  {:<12} {:>7}  {:>10}\n",
            c.source_type, c.current, c.superseded
        ));
    }
    out.push_str(&format!(
        "facts      {} active, {} retracted\n",
        f.facts_active, f.facts_retracted
    ));
    out.push_str(&format!("oldest     {}\n", time(f.oldest)));
    out.push_str(&format!("newest     {}\n", time(f.newest)));
    out.push_str(&format!("recalls    {} logged\n", f.recall_events));
    out.push_str(&format!(
        "fallback   {} e-mails dated by Received:, envelope or import time\n",
        f.dated_by_fallback
    ));
    out.push_str(&format!("last index {}\n", time(s.last_index_at)));
    out.push_str(&format!("last dream {}\n", time(s.last_dream_at)));
    out.push_str(&coverage_lines(s.semantic));
    out
}
