//! What `alfred-mem dream` reports: the documented `dream --json` object,
//! the dry run's table of every candidate's components, the promoted chunks
//! on a terminal, and the one summary line cron mails home.

use serde_json::{Value, json};

use super::{day, rfc3339};
use crate::dream::{Candidate, Fading, Report, Verdict};
use crate::sanitize::one_line;

/// Characters of a promoted chunk's text shown on a terminal.
const PREVIEW_CHARS: usize = 80;

/// The human report: a dry run's candidate table (when there are
/// candidates), or each promoted chunk when `terminal`; then the summary.
pub fn human(r: &Report, terminal: bool) -> String {
    let mut s = String::new();
    if r.dry_run && !r.candidates.is_empty() {
        s.push_str(&candidate_table(&r.candidates));
    } else if terminal {
        for c in r.promoted() {
            s.push_str(&format!(
                "chunk {} {} (score {:.2}): {}\n",
                c.recall.chunk_id,
                c.verdict.reason(),
                c.score.total,
                preview(c.text.as_deref().unwrap_or_default())
            ));
        }
    }
    if r.dry_run || terminal {
        s.push_str(&night_lines(r));
    }
    s.push_str(&summary(r));
    s
}

/// Each merge, routine and conflict in words, for a terminal or a dry run.
fn night_lines(r: &Report) -> String {
    let would = if r.dry_run { "would merge" } else { "merged" };
    let mut s = String::new();
    for m in &r.merged {
        s.push_str(&format!(
            "{would} fact {} into fact {}: {}\n",
            m.fact_id, m.into, m.reason
        ));
    }
    for x in &r.routines {
        let what = match (x.renewed, x.fact_id) {
            (true, _) => "routine renewed".to_string(),
            (false, Some(id)) => format!("routine learned as fact {id}"),
            (false, None) => "routine would be learned".to_string(),
        };
        s.push_str(&format!(
            "{what} ({} days in {} weeks): {}\n",
            x.occasions,
            x.weeks,
            one_line(&x.text)
        ));
    }
    for c in &r.conflicts {
        s.push_str(&format!(
            "conflict between facts {} and {}: {}\n",
            c.facts.0,
            c.facts.1,
            one_line(&c.reason)
        ));
    }
    s
}

/// The one line cron mails home, naming every count, e.g. `dream: 12
/// candidates, 1 promoted, 2 merged, 1 routine, 0 conflicts, 0 faded, 3 links
/// decayed, 0 links pruned, 340 events pruned`, with the ids of faded and reprieved facts when there are any.
fn summary(r: &Report) -> String {
    let promoted = r.promoted().count();
    let (reprieved, faded) = fading_ids(r);
    let new_routines = r.routines.iter().filter(|x| !x.renewed).count();
    let renewed = r.routines.len() - new_routines;
    let plural =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let mut faded_words = plural(faded.len(), "faded", "faded");
    if !faded.is_empty() {
        faded_words.push_str(&format!(" ({})", ids(&faded)));
    }
    let mut fates = String::new();
    if !reprieved.is_empty() {
        fates.push_str(&format!(
            ", {} given a second chance ({})",
            reprieved.len(),
            ids(&reprieved)
        ));
    }
    if renewed > 0 {
        fates.push_str(&format!(
            ", {} renewed",
            plural(renewed, "routine", "routines")
        ));
    }
    let night = format!(
        "{} merged, {}, {}, {faded_words}, {}, {}",
        r.merged.len(),
        plural(new_routines, "routine", "routines"),
        plural(r.conflicts.len(), "conflict", "conflicts"),
        plural(r.links.decayed as usize, "link decayed", "links decayed"),
        plural(r.links.pruned as usize, "link pruned", "links pruned"),
    );
    if r.dry_run {
        let night = night
            .replace(" merged", " would merge")
            .replace(" faded", " would fade")
            .replace(" decayed", " would decay")
            .replace(" pruned", " would be pruned");
        let fates = fates
            .replace(" given", " would be given")
            .replace(" renewed", " would be renewed");
        format!(
            "dream (dry run): {} candidates, {promoted} would be promoted, {night}, {} events would be pruned{fates}; nothing changed\n",
            r.candidates.len(),
            r.pruned
        )
    } else {
        format!(
            "dream: {} candidates, {promoted} promoted, {night}, {} events pruned{fates}\n",
            r.candidates.len(),
            r.pruned
        )
    }
}

/// Fact ids given a second chance, and fact ids that faded.
fn fading_ids(r: &Report) -> (Vec<i64>, Vec<i64>) {
    let (reprieved, faded): (Vec<&Fading>, Vec<&Fading>) =
        r.fading.iter().partition(|f| f.reprieved);
    (
        reprieved.iter().map(|f| f.fact_id).collect(),
        faded.iter().map(|f| f.fact_id).collect(),
    )
}

fn ids(ids: &[i64]) -> String {
    let words: Vec<String> = ids.iter().map(|id| format!("fact {id}")).collect();
    words.join(", ")
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
            day(r.last_recalled_at),
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
pub fn report_json(r: &Report) -> Value {
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
        "faded": fading_ids(r).1,
        "reprieved": fading_ids(r).0,
        "links": r.links,
        "merged": r.merged.iter().map(|m| json!({
            "fact_id": m.fact_id, "into": m.into, "reason": m.reason,
        })).collect::<Vec<_>>(),
        "routines": r.routines.iter().map(|x| json!({
            "fact_id": x.fact_id, "text": x.text, "key": x.key,
            "occasions": x.occasions, "weeks": x.weeks, "renewed": x.renewed,
        })).collect::<Vec<_>>(),
        "conflicts": r.conflicts.iter().map(|c| json!({
            "facts": [c.facts.0, c.facts.1], "reason": c.reason,
        })).collect::<Vec<_>>(),
    })
}
