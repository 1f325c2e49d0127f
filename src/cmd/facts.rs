//! `alfred-mem facts [--all]`: "what do you know about me?" Every active fact
//! with how and when it was learned; a dream fact also names its source chunk.

use anyhow::Result;
use serde_json::Value;

use super::exit;
use crate::cli::FactsArgs;
use crate::config::Config;
use crate::output;
use crate::output::facts::{fact_json, human_line};
use crate::store::Store;

pub fn run(config: &Config, args: &FactsArgs) -> Result<u8> {
    let store = Store::open(&config.db_path)?;
    let facts = store.facts(args.all)?;
    if args.out.json {
        let list: Vec<Value> = facts.iter().map(fact_json).collect();
        output::print_json(&list)?;
    } else if facts.is_empty() {
        let what = if args.all {
            "no facts"
        } else {
            "no active facts"
        };
        output::print(&format!(
            "{what} yet; teach one with: alfred-mem remember TEXT\n"
        ))?;
    } else {
        let mut s = String::from("   id  method  captured    fact\n");
        for f in &facts {
            s.push_str(&human_line(f));
        }
        output::print(&s)?;
    }
    Ok(exit::OK)
}
