//! `alfred-mem status`: where the memory lives and what is in it.

use anyhow::Result;
use serde_json::json;

use super::exit;
use crate::cli::JsonArgs;
use crate::config::Config;
use crate::embed::ModelSpec;
use crate::output::{self, human_bytes, rfc3339};
use crate::store::Store;

pub fn run(config: &Config, args: &JsonArgs) -> Result<u8> {
    let store = Store::open(&config.db_path)?;
    let f = store.status_figures()?;
    let size = file_size(&config.db_path);
    let meta_time = |k: &str| -> Result<Option<String>> {
        Ok(store
            .get_meta(k)?
            .and_then(|v| v.parse::<i64>().ok())
            .map(rfc3339))
    };
    let last_index = meta_time("last_index_at")?;
    let last_dream = meta_time("last_dream_at")?;
    let model = ModelSpec::load(&store)?;
    if args.json {
        let mut v = json!({
            "db_path": config.db_path.display().to_string(),
            "db_bytes": size,
            "chunks": f.chunks,
            "facts": {"active": f.facts_active, "retracted": f.facts_retracted},
            "oldest": f.oldest.map(rfc3339),
            "newest": f.newest.map(rfc3339),
            "recall_events": f.recall_events,
            "dated_by_fallback": f.dated_by_fallback,
            "last_index_at": last_index,
            "last_dream_at": last_dream,
        });
        // Present only with a model, so the documented fields of a memory
        // without semantic recall are exactly as before.
        if model.is_some() {
            v["semantic"] = super::model::semantic_json(&store, model.as_ref())?;
        }
        output::print_json(&v)?;
        return Ok(exit::OK);
    }
    let mut s = String::new();
    s.push_str(&format!("database   {}\n", config.db_path.display()));
    s.push_str(&format!("size       {}\n", human_bytes(size)));
    s.push_str("chunks     current  superseded\n");
    for c in &f.chunks {
        s.push_str(&format!(
            "  {:<12} {:>7}  {:>10}\n",
            c.source_type, c.current, c.superseded
        ));
    }
    s.push_str(&format!(
        "facts      {} active, {} retracted\n",
        f.facts_active, f.facts_retracted
    ));
    let or_none = |v: Option<String>| v.unwrap_or_else(|| "-".into());
    s.push_str(&format!("oldest     {}\n", or_none(f.oldest.map(rfc3339))));
    s.push_str(&format!("newest     {}\n", or_none(f.newest.map(rfc3339))));
    s.push_str(&format!("recalls    {} logged\n", f.recall_events));
    s.push_str(&format!(
        "fallback   {} e-mails dated by Received:, envelope or import time\n",
        f.dated_by_fallback
    ));
    s.push_str(&format!("last index {}\n", or_none(last_index)));
    s.push_str(&format!("last dream {}\n", or_none(last_dream)));
    s.push_str(&super::model::semantic_lines(&store, model.as_ref())?);
    output::print(&s)?;
    Ok(exit::OK)
}

/// The database and its WAL together: what the memory costs on disk.
fn file_size(path: &std::path::Path) -> u64 {
    let len = |p: &std::path::Path| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    len(path) + len(std::path::Path::new(&wal))
}
