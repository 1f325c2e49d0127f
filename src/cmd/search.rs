//! `alfred-mem search`: read the flags into a request, run the search, and
//! print the hits as a table (terminal), lines (pipe) or JSON.

use anyhow::Result;

use super::exit;
use crate::cli::SearchArgs;
use crate::config::Config;
use crate::output::hits::JsonHit;
use crate::output::{self, search as show};
use crate::search::request::{self, SearchInput, Spelling};
use crate::search::{self, RecallMode};
use crate::store::{Access, Store};

pub fn run(config: &Config, args: &SearchArgs) -> Result<u8> {
    let query = args.query.join(" ");
    let input = SearchInput {
        query: &query,
        after: args.after.as_deref(),
        before: args.before.as_deref(),
        as_of: args.as_of.as_deref(),
        sources: &args.source,
        limit: args.limit,
        half_life: args.half_life.as_deref(),
    };
    let resolved = request::resolve(&input, config.now, config.time_zone, Spelling::Flag)?;

    let store = Store::open_for(config, Access::Read)?;
    let mut req = resolved.request(config.now_unix(), !args.no_log);
    req.mode = if args.lexical {
        RecallMode::Lexical
    } else if args.semantic {
        RecallMode::Semantic
    } else {
        RecallMode::Auto
    };
    req.all_chunks = args.all_chunks;
    let outcome = search::search(&store, &req)?;
    eprint!("{}", show::notes(&outcome, &config.db_path));
    if args.explain {
        // Mail that `to:` cannot find, said rather than left to be guessed.
        let unaddressed = match &outcome.fts {
            Some(f) if f.recipients => store.emails_without_recipients()?,
            _ => 0,
        };
        let header = show::explain(&outcome, &req, unaddressed);
        // JSON output stays one document: the header goes to stderr.
        if args.out.json {
            eprint!("{header}");
        } else {
            output::print(&header)?;
        }
    }
    if args.out.json {
        let hits: Vec<JsonHit> = outcome
            .hits
            .iter()
            .map(|h| JsonHit::new(h, args.explain))
            .collect();
        output::print_json(&hits)?;
    } else if config.stdout_is_terminal {
        output::print(&show::table(&outcome, args.explain, config.terminal_width))?;
    } else {
        output::print(&show::lines(&outcome, args.explain))?;
    }
    if outcome.hits.is_empty() {
        // Said to a person watching stderr; a script or cron job reads the
        // exit status, and stdout stays results only (`[]` with --json).
        if config.stderr_is_terminal {
            eprint!("{}", show::nothing_found(&outcome, &query, &filters(args)));
        }
        return Ok(exit::NO_MATCH);
    }
    Ok(exit::OK)
}

/// The flags that narrowed the search, for the no-match note.
fn filters(args: &SearchArgs) -> Vec<&'static str> {
    [
        ("--after", args.after.is_some()),
        ("--before", args.before.is_some()),
        ("--as-of", args.as_of.is_some()),
        ("--source", !args.source.is_empty()),
    ]
    .into_iter()
    .filter_map(|(flag, given)| given.then_some(flag))
    .collect()
}
