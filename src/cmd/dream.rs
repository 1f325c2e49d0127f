//! `alfred-mem dream`: run the consolidation job and report it. Under cron
//! (stdout not a terminal) a real run prints one summary line; `--quiet`
//! prints nothing; `--dry-run` always shows every candidate's components,
//! because showing them is its whole purpose.

use anyhow::Result;
use serde_json::{Value, json};

use super::exit;
use crate::cli::DreamArgs;
use crate::config::Config;
use crate::dream::{Candidate, Report, Verdict, dream};
use crate::output::{self, rfc3339};
use crate::sanitize::one_line;
use crate::store::Store;

/// Characters of a promoted chunk's text shown on a terminal.
const PREVIEW_CHARS: usize = 80;

pub fn run(config: &Config, args: &DreamArgs) -> Result<u8> {
    let mut store = Store::open(&config.db_path)?;
    let report = dream(&mut store, config.now_unix(), args.dry_run)?;
    if !args.dry_run {
        // Promoted facts are new chunks with known text: linking them to
        // their vectors needs no model call.
        super::embed::after_index(config, &mut store)?;
    }
    if args.quiet {
        return Ok(exit::OK);
    }
    if args.out.json {
        output::print_json(&report_json(&report))?;
        return Ok(exit::OK);
    }
    let mut s = String::new();
    if args.dry_run && !report.candidates.is_empty() {
        s.push_str(&candidate_table(&report.candidates));
    } else if config.stdout_is_terminal {
        for c in report.promoted() {
            s.push_str(&format!(
                "chunk {} {} (score {:.2}): {}\n",
                c.recall.chunk_id,
                c.verdict.reason(),
                c.score.total,
                preview(c.text.as_deref().unwrap_or_default())
            ));
        }
    }
    s.push_str(&summary(&report));
    output::print(&s)?;
    Ok(exit::OK)
}

/// The one line cron mails home, e.g. `dream: 12 candidates, 1 promoted, 340 events pruned`.
fn summary(r: &Report) -> String {
    let promoted = r.promoted().count();
    if r.dry_run {
        format!(
            "dream (dry run): {} candidates, {promoted} would be promoted, {} events would be pruned; nothing changed\n",
            r.candidates.len(),
            r.pruned
        )
    } else {
        format!(
            "dream: {} candidates, {promoted} promoted, {} events pruned\n",
            r.candidates.len(),
            r.pruned
        )
    }
}

fn preview(text: &str) -> String {
    let line = one_line(text);
    if line.chars().count() <= PREVIEW_CHARS {
        return line;
    }
    let cut: String = line.chars().take(PREVIEW_CHARS - 1).collect();
    format!("{cut}…")
}

fn candidate_table(candidates: &[Candidate]) -> String {
    let mut s = String::from(
        "  chunk  recalls  queries  best  last recall  freq   rel   div   rec  total  verdict\n",
    );
    for c in candidates {
        let (r, p) = (&c.recall, &c.score);
        s.push_str(&format!(
            "{:>7}  {:>7}  {:>7}  {:.2}  {}   {:.2}  {:.2}  {:.2}  {:.2}   {:.2}  {}\n",
            r.chunk_id,
            r.recall_count,
            r.unique_queries,
            r.max_score,
            output::day(r.last_recalled_at),
            p.frequency,
            p.relevance,
            p.diversity,
            p.recency,
            p.total,
            c.verdict.reason()
        ));
    }
    s
}

/// The documented `dream --json` object.
fn report_json(r: &Report) -> Value {
    let promoted: Vec<Value> = r
        .promoted()
        .map(|c| {
            let fact_id = match c.verdict {
                Verdict::Promoted(id) => id,
                _ => None,
            };
            json!({"chunk_id": c.recall.chunk_id, "fact_id": fact_id, "score": c.score.total})
        })
        .collect();
    let candidates: Vec<Value> = r
        .candidates
        .iter()
        .map(|c| {
            let (rc, p) = (&c.recall, &c.score);
            json!({
                "chunk_id": rc.chunk_id,
                "recall_count": rc.recall_count,
                "unique_queries": rc.unique_queries,
                "max_score": rc.max_score,
                "last_recalled_at": rfc3339(rc.last_recalled_at),
                "frequency": p.frequency,
                "relevance": p.relevance,
                "diversity": p.diversity,
                "recency": p.recency,
                "total": p.total,
                "passes": c.verdict.promotes(),
                "reason": c.verdict.reason(),
            })
        })
        .collect();
    json!({
        "dry_run": r.dry_run,
        "window": {"from": rfc3339(r.from), "to": rfc3339(r.to)},
        "considered": r.candidates.len(),
        "promoted": promoted,
        "pruned": r.pruned,
        "candidates": candidates,
    })
}
