//! `alfred-mem remember TEXT...`: teach a fact. The words are joined so that
//! `alias /remember='alfred-mem remember'` works without quotes; with no words
//! the fact is read from stdin.

use std::io::Read;

use anyhow::{Context, Result, bail};

use super::exit;
use crate::cli::RememberArgs;
use crate::config::Config;
use crate::embed;
use crate::output::semantic::EmbedProgress;
use crate::output::{self, facts as show};
use crate::sanitize::one_line;
use crate::store::{Access, Store};

pub fn run(config: &Config, args: &RememberArgs) -> Result<u8> {
    if let Some((id, pin)) = args
        .pin
        .map(|id| (id, true))
        .or(args.unpin.map(|id| (id, false)))
    {
        let mut store = Store::open_as(&config.db_path, Access::Change)?;
        let fact = store.set_pinned(id, pin, config.now_unix())?;
        if args.out.json {
            output::print_json(&show::fact_json(&fact))?;
        } else {
            let what = if pin { "pinned" } else { "unpinned" };
            output::print(&format!("{what} fact {id}: {}\n", one_line(&fact.text)))?;
        }
        return Ok(exit::OK);
    }
    let text = if args.text.is_empty() {
        if config.stdin_is_terminal {
            bail!("nothing to remember: give the fact as words, or pipe it on stdin");
        }
        // A memory that exists is checked before stdin is read, so a
        // read-only one says so before it swallows what was piped in. A
        // missing one is created below, and only for a fact worth keeping.
        if config.db_path.exists() {
            Store::open_for(config, Access::Add)?;
        }
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .context("could not read the fact from stdin")?;
        s
    } else {
        args.text.join(" ")
    };
    if text.trim().is_empty() {
        bail!("nothing to remember: the text is empty");
    }
    let mut store = Store::open_for(config, Access::Add)?;
    let written_after = store.last_chunk_id()?;
    let r = store.remember(&text, config.now_unix())?;
    embed::fill_after_write(
        &mut store,
        written_after,
        config.now_unix(),
        &mut EmbedProgress::new(config.stderr_is_terminal),
    )?;
    if args.out.json {
        output::print_json(&show::remembered_json(&r.fact))?;
    } else {
        output::print(&show::remembered_line(&r))?;
    }
    Ok(exit::OK)
}
