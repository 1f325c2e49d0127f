//! `alfred-mem embed`: give every chunk a vector from the configured model.
//! (The index commands, `remember` and `dream` embed the chunks they just
//! wrote through `embed::fill_after_write`.)

use anyhow::{Context, Result};

use super::exit;
use crate::cli::JsonArgs;
use crate::config::Config;
use crate::embed::{self, ModelSpec};
use crate::output;
use crate::output::semantic::{self, EmbedProgress};
use crate::store::{Access, Store};

pub fn run(config: &Config, args: &JsonArgs) -> Result<u8> {
    let mut store = Store::open_for(config, Access::Change)?;
    let spec = ModelSpec::load(&store)?
        .context("no model configured: run `alfred-mem model use PATH|URL` first")?;
    let started = std::time::Instant::now();
    let mut progress = EmbedProgress::new(config.stderr_is_terminal);
    let summary = embed::fill_missing(&mut store, &spec, config.now_unix(), &mut progress)?;
    let secs = started.elapsed().as_secs_f64();
    if args.json {
        output::print_json(&semantic::embedded_json(&spec, &summary, secs))?;
    } else {
        output::print(&semantic::embedded_line(&spec, &summary, secs))?;
    }
    Ok(exit::OK)
}
