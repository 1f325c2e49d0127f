//! `alfred-mem embed [--budget DURATION]`: give every chunk a vector from the
//! configured model, most useful first, within the budget if one is given.
//! (The index commands, `remember` and `dream` embed the chunks they just
//! wrote through `embed::fill_after_write`.)

use anyhow::{Context, Result};

use super::exit;
use crate::cli::EmbedArgs;
use crate::config::Config;
use crate::embed::rate::EmbedRate;
use crate::embed::{self, ModelSpec};
use crate::output;
use crate::output::semantic::{self, EmbedProgress};
use crate::store::{Access, Store};

pub fn run(config: &Config, args: &EmbedArgs) -> Result<u8> {
    let budget = args
        .budget
        .as_deref()
        .map(embed::parse_budget)
        .transpose()?;
    let mut store = Store::open_for(config, Access::Change)?;
    let spec = ModelSpec::load(&store)?
        .context("no model configured: run `alfred-mem model use PATH|URL` first")?;
    let started = std::time::Instant::now();
    let until = budget.map(|b| started + b);
    let mut progress = EmbedProgress::new(config.stderr_is_terminal);
    let summary = embed::fill_missing(&mut store, &spec, config.now_unix(), until, &mut progress)?;
    let secs = started.elapsed().as_secs_f64();
    // A run of at least one batch measures this machine's rate, for
    // `status`'s estimate of what is left (and in how many runs of this
    // budget).
    if summary.chunks >= embed::BATCH as u64 {
        EmbedRate {
            model_id: spec.model_id(),
            chunks_per_s: summary.chunks as f64 / secs.max(1e-3),
            budget_seconds: budget.map(|b| b.as_secs()),
        }
        .save(&store)?;
    }
    if args.out.json {
        output::print_json(&semantic::embedded_json(&spec, &summary, secs))?;
    } else {
        output::print(&semantic::embedded_line(&spec, &summary, secs))?;
    }
    Ok(exit::OK)
}
