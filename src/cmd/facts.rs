//! `alfred-mem facts [--all]`: "what do you know about me?" Every active fact
//! with how and when it was learned; a dream fact also names its source chunk.

use anyhow::Result;
use serde_json::{Value, json};

use super::exit;
use crate::cli::FactsArgs;
use crate::config::Config;
use crate::output::{self, day, rfc3339};
use crate::sanitize::one_line;
use crate::store::Store;
use crate::store::facts::Fact;

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

/// The documented JSON shape of a fact, shared by `facts` and `forget`.
pub(super) fn fact_json(f: &Fact) -> Value {
    json!({
        "id": f.id,
        "text": f.text,
        "method": f.method,
        "created_at": rfc3339(f.created_at),
        "retracted_at": f.retracted_at.map(rfc3339),
        "purged_at": f.purged_at.map(rfc3339),
        "promoted_from": f.promoted_from.as_ref().map(|s| json!({
            "id": s.id,
            "source_type": s.source_type,
            "source_id": s.source_id,
            "dated_at": s.dated_at.map(rfc3339),
        })),
    })
}

/// One fact as table lines: the fact, then where a dream fact came from and
/// when a retracted one was forgotten, indented under it.
pub(super) fn human_line(f: &Fact) -> String {
    let mut s = format!(
        "{:>5}  {:<6}  {}  {}\n",
        f.id,
        f.method,
        day(f.created_at),
        one_line(&f.text)
    );
    let indent = " ".repeat(27);
    if let Some(src) = &f.promoted_from {
        let date = src.dated_at.map(day).unwrap_or_else(|| "evergreen".into());
        s.push_str(&format!(
            "{indent}from {} chunk {} ({}), dated {date}\n",
            src.source_type,
            src.id,
            one_line(&src.source_id)
        ));
    }
    match (f.retracted_at, f.purged_at) {
        (_, Some(p)) => s.push_str(&format!("{indent}purged {}\n", day(p))),
        (Some(r), None) => s.push_str(&format!("{indent}forgotten {}\n", day(r))),
        (None, None) => {}
    }
    s
}
