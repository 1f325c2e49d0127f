//! What `alfred-mem dream` reports: the documented `dream --json` object,
//! the dry run's table of every candidate's components, the promoted chunks
//! on a terminal, and the one summary line cron mails home.

use serde::Serialize;
use serde::ser::{SerializeSeq, Serializer};
use serde_json::{Value, json};

use super::{day, rfc3339};
use crate::dream::{Candidate, Fading, LinkCare, Report, Verdict};
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

/// The documented `dream --json` object. Its keys are written in
/// alphabetical order, as a `json!` map writes them; the candidates (one
/// per chunk recalled in the window, 50,000 and more over a busy log) are
/// written one by one rather than built as a tree first.
#[derive(Serialize)]
pub struct ReportJson<'a> {
    candidates: CandidatesJson<'a>,
    conflicts: Value,
    considered: usize,
    dry_run: bool,
    faded: Vec<i64>,
    links: LinkCare,
    merged: Value,
    promoted: Vec<Value>,
    pruned: u64,
    reprieved: Vec<i64>,
    routines: Value,
    window: Value,
}

struct CandidatesJson<'a>(&'a [Candidate]);

/// One candidate, its keys in alphabetical order.
#[derive(Serialize)]
struct CandidateJson {
    chunk_id: i64,
    diversity: f64,
    frequency: f64,
    last_recalled_at: String,
    max_score: f64,
    passes: bool,
    reason: String,
    recall_count: u64,
    recency: f64,
    relevance: f64,
    total: f64,
    unique_queries: u64,
}

impl Serialize for CandidatesJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for c in self.0 {
            let (rc, p) = (&c.recall, &c.score);
            seq.serialize_element(&CandidateJson {
                chunk_id: rc.chunk_id,
                diversity: p.diversity,
                frequency: p.frequency,
                last_recalled_at: rfc3339(rc.last_recalled_at),
                max_score: rc.max_score,
                passes: c.verdict.promotes(),
                reason: c.verdict.reason(),
                recall_count: rc.recall_count,
                recency: p.recency,
                relevance: p.relevance,
                total: p.total,
                unique_queries: rc.unique_queries,
            })?;
        }
        seq.end()
    }
}

pub fn report_json(r: &Report) -> ReportJson<'_> {
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
    let (reprieved, faded) = fading_ids(r);
    ReportJson {
        candidates: CandidatesJson(&r.candidates),
        conflicts: r
            .conflicts
            .iter()
            .map(|c| {
                json!({
                    "facts": [c.facts.0, c.facts.1], "reason": c.reason,
                })
            })
            .collect(),
        considered: r.candidates.len(),
        dry_run: r.dry_run,
        faded,
        links: r.links,
        merged: r
            .merged
            .iter()
            .map(|m| {
                json!({
                    "fact_id": m.fact_id, "into": m.into, "reason": m.reason,
                })
            })
            .collect(),
        promoted,
        pruned: r.pruned,
        reprieved,
        routines: r
            .routines
            .iter()
            .map(|x| {
                json!({
                    "fact_id": x.fact_id, "text": x.text, "key": x.key,
                    "occasions": x.occasions, "weeks": x.weeks, "renewed": x.renewed,
                })
            })
            .collect(),
        window: json!({"from": rfc3339(r.from), "to": rfc3339(r.to)}),
    }
}
