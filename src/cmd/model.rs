//! `alfred-mem model use|status|off`: choose the embedding model semantic
//! recall uses, and see how far embedding has come.

use anyhow::Result;

use super::exit;
use crate::cli::{JsonArgs, ModelCommand, ModelUseArgs};
use crate::config::Config;
use crate::embed::{self, ModelSpec};
use crate::output;
use crate::output::semantic;
use crate::store::vectors::MODEL_META_KEY;
use crate::store::{Access, Store};

pub fn run(config: &Config, command: &ModelCommand) -> Result<u8> {
    match command {
        ModelCommand::Use(a) => use_model(config, a),
        ModelCommand::Status(a) => status(config, a),
        ModelCommand::Off(a) => off(config, a),
    }
}

fn use_model(config: &Config, args: &ModelUseArgs) -> Result<u8> {
    let store = Store::open_for(config, Access::Add)?;
    let spec = ModelSpec::configure(
        &store,
        &args.target,
        args.name.as_deref(),
        args.key_env.as_deref(),
        config.now_unix(),
    )?;
    spec.save(&store)?;
    report(&store, Some(&spec), args.out.json)?;
    if !args.out.json {
        eprintln!("alfred-mem: run `alfred-mem embed` to give existing chunks a vector");
    }
    Ok(exit::OK)
}

fn status(config: &Config, args: &JsonArgs) -> Result<u8> {
    let store = Store::open_for(config, Access::Read)?;
    report(&store, ModelSpec::load(&store)?.as_ref(), args.json)?;
    Ok(exit::OK)
}

fn off(config: &Config, args: &JsonArgs) -> Result<u8> {
    let store = Store::open_for(config, Access::Change)?;
    store.delete_meta(MODEL_META_KEY)?;
    report(&store, None, args.json)?;
    Ok(exit::OK)
}

/// The model and its coverage, as JSON or one line per fact.
fn report(store: &Store, spec: Option<&ModelSpec>, as_json: bool) -> Result<()> {
    let coverage = embed::coverage(store, spec)?;
    if as_json {
        return output::print_json(&semantic::coverage_json(coverage));
    }
    output::print(&semantic::coverage_lines(coverage))
}
