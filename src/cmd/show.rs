//! `alfred-mem show ID...`: read the whole source of each chunk, and record
//! that it was read (a genuine recall, which strengthens it) unless
//! `--no-log` or `--as-of`.

use anyhow::{Result, anyhow, bail};

use super::exit;
use crate::cli::ShowArgs;
use crate::config::Config;
use crate::dates::when::parse_when;
use crate::output::{self, show as print};
use crate::search::recall_genuinely;
use crate::show::whole;
use crate::store::recall::RecallVia;
use crate::store::{Access, Store};

pub fn run(config: &Config, args: &ShowArgs) -> Result<u8> {
    let as_of = args
        .as_of
        .as_deref()
        .map(|s| {
            parse_when(s, config.now, &config.time_zone)
                .map(|t| t.timestamp())
                .map_err(|e| anyhow!("--as-of: {e}"))
        })
        .transpose()?;
    let store = Store::open_as(&config.db_path, Access::Read)?;
    let now = config.now_unix();
    let mut shown = Vec::with_capacity(args.ids.len());
    for &id in &args.ids {
        let Some(view) = store.source_of(id, as_of, now)? else {
            match as_of {
                Some(_) => bail!("no chunk with id {id} at --as-of; nothing was shown"),
                None => bail!("no chunk with id {id}; nothing was shown"),
            }
        };
        let whole = whole(&view, args.context);
        shown.push(print::Shown { view, whole });
    }
    if !args.no_log
        && as_of.is_none()
        && !recall_genuinely(&store, &args.ids, RecallVia::Show, now)?
    {
        eprintln!(
            "alfred-mem: database is read-only, this reading was not recorded as a recall: {}",
            crate::sanitize::one_line(&config.db_path.display().to_string())
        );
    }
    if args.out.json {
        output::print_json(&print::json(&shown))?;
    } else {
        output::print(&print::human(&shown, config.stdout_is_terminal))?;
    }
    Ok(exit::OK)
}
