//! `alfred-mem status`: where the memory lives and what is in it.

use std::path::Path;

use anyhow::Result;

use super::exit;
use crate::cli::JsonArgs;
use crate::config::Config;
use crate::embed::ModelSpec;
use crate::output::{self, status::Status};
use crate::store::{Access, Store};

pub fn run(config: &Config, args: &JsonArgs) -> Result<u8> {
    let store = Store::open_as(&config.db_path, Access::Read)?;
    let meta_time =
        |k: &str| -> Result<Option<i64>> { Ok(store.get_meta(k)?.and_then(|v| v.parse().ok())) };
    let model = ModelSpec::load(&store)?;
    let status = Status {
        db_path: &config.db_path,
        db_bytes: file_size(&config.db_path),
        figures: store.status_figures()?,
        last_index_at: meta_time("last_index_at")?,
        last_dream_at: meta_time("last_dream_at")?,
        semantic: super::model::coverage(&store, model.as_ref())?,
    };
    if args.json {
        output::print_json(&output::status::json(&status))?;
    } else {
        output::print(&output::status::human(&status))?;
    }
    Ok(exit::OK)
}

/// The database and its WAL together: what the memory costs on disk.
fn file_size(path: &Path) -> u64 {
    let len = |p: &Path| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    len(path) + len(Path::new(&wal))
}
