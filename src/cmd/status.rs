//! `alfred-mem status`: where the memory lives and what is in it.

use anyhow::Result;

use super::exit;
use crate::cli::JsonArgs;
use crate::config::Config;
use crate::dream::LAST_DREAM_META;
use crate::embed::{self, ModelSpec};
use crate::output::{self, status::Status};
use crate::store::{Access, Store};

pub fn run(config: &Config, args: &JsonArgs) -> Result<u8> {
    let store = Store::open_for(config, Access::Read)?;
    let model = ModelSpec::load(&store)?;
    let status = Status {
        db_path: &config.db_path,
        db_bytes: store.bytes_on_disk(),
        figures: store.status_figures()?,
        last_index_at: store.meta_time("last_index_at")?,
        last_dream_at: store.meta_time(LAST_DREAM_META)?,
        semantic: embed::coverage(&store, model.as_ref())?,
    };
    if args.json {
        output::print_json(&output::status::json(&status))?;
    } else {
        output::print(&output::status::human(&status))?;
    }
    Ok(exit::OK)
}
