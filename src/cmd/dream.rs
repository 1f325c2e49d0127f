//! `alfred-mem dream`: run the consolidation job and report it. Under cron
//! (stdout not a terminal) a real run prints one summary line; `--quiet`
//! prints nothing; `--dry-run` always shows every candidate's components,
//! because showing them is its whole purpose.

use anyhow::Result;

use super::exit;
use crate::cli::DreamArgs;
use crate::config::Config;
use crate::dream::dream;
use crate::embed;
use crate::output::semantic::EmbedProgress;
use crate::output::{self, dream as show};
use crate::store::{Access, Store};

pub fn run(config: &Config, args: &DreamArgs) -> Result<u8> {
    // A dry run changes nothing, so a read-only memory may be looked at.
    let access = if args.dry_run {
        Access::Read
    } else {
        Access::Change
    };
    let mut store = Store::open_for(config, access)?;
    let written_after = store.last_chunk_id()?;
    let model = embed::ModelSpec::load(&store)?.map(|m| m.model_id());
    let report = dream(
        &mut store,
        config.now_unix(),
        &config.time_zone,
        model,
        args.dry_run,
    )?;
    if !args.dry_run {
        // Promoted facts are new chunks with known text: linking them to
        // their vectors needs no model call.
        embed::fill_after_write(
            &mut store,
            written_after,
            config.now_unix(),
            &mut EmbedProgress::new(config.stderr_is_terminal),
        )?;
    }
    if args.quiet {
        return Ok(exit::OK);
    }
    if args.out.json {
        output::print_json(&show::report_json(&report))?;
    } else {
        output::print(&show::human(&report, config.stdout_is_terminal))?;
    }
    Ok(exit::OK)
}
