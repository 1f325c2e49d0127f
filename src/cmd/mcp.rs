//! `alfred-mem mcp`: open the store once and serve it as MCP tools on
//! stdin/stdout until the client closes stdin.

use anyhow::{Result, anyhow};

use super::exit;
use crate::cli::McpArgs;
use crate::config::Config;
use crate::mcp::Session;
use crate::rank::half_life::HalfLives;
use crate::store::Store;

pub fn run(config: Config, args: &McpArgs) -> Result<u8> {
    // Checked now, not at the first search: a typo must stop the server.
    if let Some(h) = &args.half_life {
        HalfLives::parse(h).map_err(|e| anyhow!("--half-life: {e}"))?;
    }
    // Unlike the other readers, the server creates a missing database: an
    // agent may remember a fact before anything is indexed. It does not
    // check writability: a read-only memory still answers searches. The
    // line below tells a new memory apart, so that a typo in the client's
    // `--db` shows in its log.
    let new = !config.db_path.exists();
    let store = Store::open(&config.db_path)?.with_fts(config.fts);
    eprintln!(
        "alfred-mem mcp: serving {}{} on stdin/stdout",
        config.db_path.display(),
        if new { " (a new, empty memory)" } else { "" }
    );
    let mut session = Session::new(config, store, args.half_life.clone());
    session.serve(std::io::stdin().lock(), std::io::stdout().lock())?;
    Ok(exit::OK)
}
