//! `alfred-mem embed`: give every chunk a vector from the configured model.
//! Also called by the index commands, `remember` and `dream` for the chunks
//! they just wrote.

use anyhow::{Context, Result};

use super::exit;
use crate::cli::JsonArgs;
use crate::config::Config;
use crate::embed::{self, FillSummary, ModelSpec};
use crate::output::progress::Progress;
use crate::output::{self, semantic};
use crate::store::{Access, Store};

pub fn run(config: &Config, args: &JsonArgs) -> Result<u8> {
    let mut store = Store::open_as(&config.db_path, Access::Change)?;
    let spec = ModelSpec::load(&store)?
        .context("no model configured: run `alfred-mem model use PATH|URL` first")?;
    let started = std::time::Instant::now();
    let summary = fill(config, &mut store, &spec)?;
    let secs = started.elapsed().as_secs_f64();
    if args.json {
        output::print_json(&semantic::embedded_json(&spec, &summary, secs))?;
    } else {
        output::print(&semantic::embedded_line(&spec, &summary, secs))?;
    }
    Ok(exit::OK)
}

/// Embed what is missing for `spec`, with a progress bar on a terminal.
pub fn fill(config: &Config, store: &mut Store, spec: &ModelSpec) -> Result<FillSummary> {
    let total = store.vector_counts(spec.model_id())?.missing;
    if total == 0 {
        return Ok(FillSummary::default());
    }
    let mut embedder = spec.open()?;
    let progress = Progress::new(
        config.stderr_is_terminal,
        total,
        "{bar:30} {pos}/{len} chunks {per_sec} ETA {eta}",
    );
    let result = embed::fill(store, embedder.as_mut(), spec.model_id(), |done| {
        progress.set_position(done);
    });
    progress.finish();
    result
}

/// After an index run: embed the new chunks if a model is configured. A
/// failure is a warning, not an error: the text is indexed and searchable,
/// and `alfred-mem embed` can finish the job later.
pub fn after_index(config: &Config, store: &mut Store) -> Result<()> {
    let Some(spec) = ModelSpec::load(store)? else {
        return Ok(());
    };
    if let Err(e) = fill(config, store, &spec) {
        eprintln!(
            "alfred-mem: warning: new chunks were indexed but not embedded ({}); run `alfred-mem embed`",
            crate::sanitize::one_line(&crate::store::failure::describe(&e))
        );
    }
    Ok(())
}
