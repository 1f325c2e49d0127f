//! `alfred-mem forget ID... | --match TEXT [--purge]`: retract facts. Retracted
//! facts leave `search` and `facts` but stay in `facts --all`; `--purge` also
//! erases the text, for a secret remembered by mistake.

use anyhow::{Result, bail};

use super::exit;
use crate::cli::ForgetArgs;
use crate::config::Config;
use crate::output::{self, facts as show};
use crate::sanitize::one_line;
use crate::store::facts::FactMatch;
use crate::store::{Access, Store};

pub fn run(config: &Config, args: &ForgetArgs) -> Result<u8> {
    let mut store = Store::open_as(&config.db_path, Access::Change)?;
    let ids = match &args.matching {
        Some(text) => vec![the_one_match(&store, text, config.now_unix())?],
        None => args.ids.clone(),
    };
    if ids.is_empty() {
        bail!("nothing to forget: give fact ids or --match TEXT");
    }
    let forgotten = store.forget(&ids, args.purge, config.now_unix())?;
    if args.out.json {
        output::print_json(&show::facts_json(&forgotten))?;
    } else {
        output::print(&show::forgotten_lines(&forgotten, args.purge))?;
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
