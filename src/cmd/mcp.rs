//! `alfred-mem mcp`: open the store once and serve it over MCP, on
//! stdin/stdout until the client closes stdin, or with `--http` on a
//! loopback address until the process is stopped.

use anyhow::{Result, anyhow, bail};

use super::exit;
use crate::cli::McpArgs;
use crate::config::Config;
use crate::mcp::http::{self, ENDPOINT, Guard};
use crate::mcp::{self, Session};
use crate::rank::half_life::HalfLives;
use crate::store::{Access, Store};

/// The shortest bearer token accepted: 128 bits as hex.
const MIN_TOKEN_CHARS: usize = 32;

pub fn run(config: Config, args: &McpArgs) -> Result<u8> {
    // Checked now, not at the first search: a typo must stop the server.
    if let Some(h) = &args.half_life {
        HalfLives::parse(h).map_err(|e| anyhow!("--half-life: {e}"))?;
    }
    // Checked before the store is opened, so a mistake costs nothing.
    let listener = match args.http {
        Some(addr) => {
            let guard = Guard {
                allow_remote: args.allow_remote,
                token: args.token_env.as_deref().map(token_from).transpose()?,
            };
            Some((http::bind(addr, &guard)?, guard))
        }
        None => None,
    };
    // The server creates a missing database (`Access::Serve`); the line
    // below tells a new memory apart, so that a typo in the client's `--db`
    // shows in its log.
    let new = !config.db_path.exists();
    let store = Store::open_for(&config, Access::Serve)?;
    let memory = format!(
        "{}{}",
        config.db_path.display(),
        if new { " (a new, empty memory)" } else { "" }
    );
    let session = Session::new(config, store, args.half_life.clone());
    match listener {
        Some((listener, guard)) => {
            let at = listener.local_addr()?;
            mcp::log(&format!("serving {memory} on http://{at}{ENDPOINT}"));
            http::serve(session, listener, guard)?;
        }
        None => {
            mcp::log(&format!("serving {memory} on stdin/stdout"));
            let mut session = session;
            session.serve(std::io::stdin().lock(), std::io::stdout().lock())?;
        }
    }
    Ok(exit::OK)
}

/// The bearer token in the environment variable `name`. It is read from
/// the environment, never the command line, so that it does not show in
/// `ps` or the shell's history.
fn token_from(name: &str) -> Result<String> {
    let token = std::env::var(name).unwrap_or_default();
    let token = token.trim();
    if token.is_empty() {
        bail!("--token-env {name}: the environment variable {name} is not set or empty");
    }
    if token.len() < MIN_TOKEN_CHARS {
        bail!(
            "--token-env {name}: the token is {} characters; use at least {MIN_TOKEN_CHARS}, \
for example: export {name}=$(openssl rand -hex 16)",
            token.len()
        );
    }
    Ok(token.to_string())
}
