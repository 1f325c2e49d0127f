//! `alfred-mem facts [--all | --conflicts | --stale | --compatible A B]`:
//! "what do you know about me?" Every active fact with how and when it was
//! learned; a dream fact also names its source chunk. `--conflicts` lists
//! the contradictions dream flagged, `--compatible` closes one, `--stale`
//! is the briefing of important facts left untouched.

use anyhow::Result;

use super::exit;
use crate::cli::FactsArgs;
use crate::config::Config;
use crate::dream::briefing;
use crate::output::{self, conflicts, facts as show};
use crate::store::{Access, Store};

pub fn run(config: &Config, args: &FactsArgs) -> Result<u8> {
    let now = config.now_unix();
    if let Some(pair) = &args.compatible {
        let mut store = Store::open_for(config, Access::Change)?;
        store.mark_compatible(pair[0], pair[1], now)?;
        if !args.out.json {
            output::print(&format!(
                "facts {} and {} marked compatible; the conflict is closed\n",
                pair[0], pair[1]
            ))?;
        } else {
            output::print_json(&serde_json::json!({"compatible": [pair[0], pair[1]]}))?;
        }
        return Ok(exit::OK);
    }
    let store = Store::open_for(config, Access::Read)?;
    if args.conflicts {
        let open = store.open_conflicts(now)?;
        if args.out.json {
            output::print_json(&conflicts::conflicts_json(&open))?;
        } else {
            output::print(&conflicts::listing(&open))?;
        }
        return Ok(exit::OK);
    }
    let mut facts = store.facts(args.all, now)?;
    if args.stale {
        facts = briefing::stale(facts, now);
    }
    if args.out.json {
        output::print_json(&show::facts_json(&facts))?;
    } else if args.stale && facts.is_empty() {
        output::print("no important fact has gone untouched for 30 days\n")?;
    } else {
        output::print(&show::listing(&facts, args.all))?;
    }
    Ok(exit::OK)
}
