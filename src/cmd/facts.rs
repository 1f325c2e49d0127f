//! `alfred-mem facts [--all]`: "what do you know about me?" Every active fact
//! with how and when it was learned; a dream fact also names its source chunk.

use anyhow::Result;

use super::exit;
use crate::cli::FactsArgs;
use crate::config::Config;
use crate::output::{self, facts as show};
use crate::store::{Access, Store};

pub fn run(config: &Config, args: &FactsArgs) -> Result<u8> {
    let store = Store::open_for(config, Access::Read)?;
    let facts = store.facts(args.all, config.now_unix())?;
    if args.out.json {
        output::print_json(&show::facts_json(&facts))?;
    } else {
        output::print(&show::listing(&facts, args.all))?;
    }
    Ok(exit::OK)
}
