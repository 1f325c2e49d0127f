//! `alfred-mem related ID`: a chunk's links, strongest first. An unknown id
//! is an error (exit 2).

use anyhow::{Result, bail};

use super::exit;
use crate::cli::RelatedArgs;
use crate::config::Config;
use crate::output::{self, related as print};
use crate::store::{Access, Store};

pub fn run(config: &Config, args: &RelatedArgs) -> Result<u8> {
    let store = Store::open_for(config, Access::Read)?;
    let Some(links) = store.related(args.id, config.now_unix())? else {
        bail!("no chunk with id {}", args.id);
    };
    if args.out.json {
        output::print_json(&print::json(args.id, &links))?;
    } else {
        output::print(&print::human(args.id, &links))?;
    }
    Ok(exit::OK)
}
