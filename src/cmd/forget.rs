//! `alfred-mem forget ID... | --match TEXT | --source TYPE:ID... [--purge]`:
//! retract facts, or take whole e-mails, receipts and conversations out of
//! search. What is forgotten stays in the history (`facts --all`,
//! `search --as-of`); `--purge` also erases the text, for a secret
//! remembered (or a message indexed) by mistake.

use anyhow::{Result, anyhow, bail};

use super::exit;
use crate::cli::ForgetArgs;
use crate::config::Config;
use crate::output::{self, facts as show};
use crate::sanitize::one_line;
use crate::store::facts::FactMatch;
use crate::store::sources::SourceRef;
use crate::store::{Access, Store};

pub fn run(config: &Config, args: &ForgetArgs) -> Result<u8> {
    if !args.source.is_empty() {
        return forget_sources(config, args);
    }
    let mut store = Store::open_for(config, Access::Change)?;
    let ids = match &args.matching {
        Some(text) => vec![the_one_match(&store, text, config.now_unix())?],
        None => args.ids.clone(),
    };
    if ids.is_empty() {
        bail!("nothing to forget: give fact ids, --match TEXT or --source TYPE:ID");
    }
    let forgotten = store.forget(&ids, args.purge, config.now_unix())?;
    if args.out.json {
        output::print_json(&show::facts_json(&forgotten))?;
    } else {
        output::print(&show::forgotten_lines(&forgotten, args.purge))?;
    }
    Ok(exit::OK)
}

fn forget_sources(config: &Config, args: &ForgetArgs) -> Result<u8> {
    let sources = args
        .source
        .iter()
        .map(|s| s.parse::<SourceRef>().map_err(|e| anyhow!("--source: {e}")))
        .collect::<Result<Vec<_>>>()?;
    let mut store = Store::open_for(config, Access::Change)?;
    let forgotten = store.forget_sources(&sources, args.purge, config.now_unix())?;
    if args.out.json {
        output::print_json(&forgotten)?;
    } else {
        output::print(&show::forgotten_sources(&forgotten))?;
    }
    Ok(exit::OK)
}

/// The id of the single active fact matching `text`. Zero or several matches
/// change nothing: several are listed on stderr so the user can pick an id.
fn the_one_match(store: &Store, text: &str, now: i64) -> Result<i64> {
    match store.match_active_fact(text, now)? {
        FactMatch::NoMatch => bail!(
            "no active fact matches {:?}; nothing was forgotten",
            one_line(text)
        ),
        FactMatch::One(fact) => Ok(fact.id),
        FactMatch::Several(many) => {
            eprint!("{}", show::human_lines(&many));
            bail!(
                "{} active facts match {:?}; nothing was forgotten (forget one by id)",
                many.len(),
                one_line(text)
            )
        }
    }
}
