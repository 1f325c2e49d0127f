//! `alfred-mem model use|status|off`: choose the embedding model semantic
//! recall uses, and see how far embedding has come.

use anyhow::Result;
use serde_json::json;

use super::exit;
use crate::cli::{JsonArgs, ModelCommand, ModelUseArgs};
use crate::config::Config;
use crate::embed::ModelSpec;
use crate::output;
use crate::sanitize::one_line;
use crate::store::Store;
use crate::store::vectors::MODEL_META_KEY;

pub fn run(config: &Config, command: &ModelCommand) -> Result<u8> {
    match command {
        ModelCommand::Use(a) => use_model(config, a),
        ModelCommand::Status(a) => status(config, a),
        ModelCommand::Off(a) => off(config, a),
    }
}

fn use_model(config: &Config, args: &ModelUseArgs) -> Result<u8> {
    let store = Store::open(&config.db_path)?;
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
    let store = Store::open(&config.db_path)?;
    report(&store, ModelSpec::load(&store)?.as_ref(), args.json)?;
    Ok(exit::OK)
}

fn off(config: &Config, args: &JsonArgs) -> Result<u8> {
    let store = Store::open(&config.db_path)?;
    store.delete_meta(MODEL_META_KEY)?;
    report(&store, None, args.json)?;
    Ok(exit::OK)
}

/// The model and its coverage, as JSON (`semantic_json`) or one line per fact.
fn report(store: &Store, spec: Option<&ModelSpec>, as_json: bool) -> Result<()> {
    if as_json {
        return output::print_json(&semantic_json(store, spec)?);
    }
    output::print(&semantic_lines(store, spec)?)
}

/// `{"enabled": false}`, or the model and how many chunks have its vectors.
pub fn semantic_json(store: &Store, spec: Option<&ModelSpec>) -> Result<serde_json::Value> {
    let Some(spec) = spec else {
        return Ok(json!({"enabled": false}));
    };
    let counts = store.vector_counts(spec.model_id())?;
    Ok(json!({
        "enabled": true,
        "model": spec.name(),
        "location": spec.location(),
        "dimension": spec.dimension(),
        "embedded": counts.embedded,
        "missing": counts.missing,
    }))
}

/// The human form of `semantic_json`, aligned with `status`.
pub fn semantic_lines(store: &Store, spec: Option<&ModelSpec>) -> Result<String> {
    let Some(spec) = spec else {
        return Ok("semantic   off (no model; see `alfred-mem model use`)\n".into());
    };
    let c = store.vector_counts(spec.model_id())?;
    Ok(format!(
        "semantic   on: {} ({} dimensions)\nmodel at   {}\nvectors    {} chunks embedded, {} missing\n",
        one_line(spec.name()),
        spec.dimension(),
        one_line(spec.location()),
        c.embedded,
        c.missing
    ))
}
