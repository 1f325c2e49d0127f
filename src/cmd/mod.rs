//! One file per subcommand: read the arguments, open the store, call the
//! logic, hand the result to `output/` to print. No SQL and no rendering here.

mod append;
mod dream;
mod embed;
mod facts;
mod forget;
mod index;
mod mcp;
mod model;
mod related;
mod remember;
mod search;
mod show;
mod status;

use std::process::ExitCode;

use anyhow::Result;

use crate::cli::{Cli, Command};
use crate::config::Config;
use crate::store::failure;

/// Exit statuses are part of the interface (see `--help`).
pub mod exit {
    pub const OK: u8 = 0;
    pub const NO_MATCH: u8 = 1;
    pub const ERROR: u8 = 2;
    pub const PARTIAL: u8 = 3;
}

pub fn run(cli: Cli) -> Result<ExitCode> {
    let config = Config::resolve(cli.db)?;
    crate::embed::bert::set_kernel(config.embed_kernel);
    let db = config.db_path.clone();
    let code = dispatch(config, cli.command).map_err(|e| failure::explain(e, &db))?;
    Ok(ExitCode::from(code))
}

fn dispatch(config: Config, command: Command) -> Result<u8> {
    match command {
        Command::IndexMbox(a) => index::mbox(&config, &a),
        Command::IndexReceipts(a) => index::receipts(&config, &a),
        Command::IndexConversations(a) => index::conversations(&config, &a),
        Command::Search(a) => search::run(&config, &a),
        Command::Show(a) => show::run(&config, &a),
        Command::Status(a) => status::run(&config, &a),
        Command::Model(c) => model::run(&config, &c),
        Command::Embed(a) => embed::run(&config, &a),
        Command::Remember(a) => remember::run(&config, &a),
        Command::Forget(a) => forget::run(&config, &a),
        Command::Facts(a) => facts::run(&config, &a),
        Command::Dream(a) => dream::run(&config, &a),
        Command::Related(a) => related::run(&config, &a),
        Command::Mcp(a) => mcp::run(config, &a),
    }
}
