//! What the MCP tools put in `content`: plain text for a model to read,
//! beside the `--json` shapes they return as `structuredContent`. A client
//! that shows the model only `content` still gives it everything: each hit's
//! full text, each fact's id, and what to try next when nothing fits.

use super::day;
use super::facts::human_lines;
use crate::sanitize::one_line;
use crate::search::{Hit, SearchOutcome};
use crate::store::facts::{Fact, Remembered};

/// The hits as a model reads them best: a header, then per hit one line of
/// where it is from and the full text as stored.
pub fn hits(query: &str, hits: &[Hit]) -> String {
    let query = one_line(query);
    if hits.is_empty() {
        return format!(
            "Nothing in memory matches \"{query}\". Try other or fewer words, another \
source, or a wider after/before window."
        );
    }
    let mut s = format!(
        "{} result{} for \"{query}\", best first:\n",
        hits.len(),
        plural(hits.len())
    );
    for (i, h) in hits.iter().enumerate() {
        let c = &h.chunk;
        let date = c
            .dated_at
            .map(day)
            .unwrap_or_else(|| "timeless fact".into());
        s.push_str(&format!(
            "\n[{}] {} · {date} · score {:.3} · id {}\n",
            i + 1,
            c.source_type,
            h.score,
            c.id
        ));
        let labels = [
            ("From", &c.meta.sender),
            ("Subject", &c.meta.subject),
            ("Vendor", &c.meta.vendor),
            ("Title", &c.meta.title),
        ];
        for (label, value) in labels {
            if let Some(v) = value {
                s.push_str(&format!("{label}: {}\n", one_line(v)));
            }
        }
        s.push_str(c.text.trim_end());
        s.push('\n');
    }
    s
}

/// What the caller should know beyond the hits: a recall that could not be
/// logged (read-only database), a model that could not take part.
pub fn notes(outcome: &SearchOutcome) -> Vec<String> {
    let mut notes = Vec::new();
    if outcome.not_logged {
        notes.push(
            "the memory database is read-only, so this recall was not logged and will not \
teach the nightly dream"
                .to_string(),
        );
    }
    if let Some(w) = &outcome.warning {
        notes.push(one_line(w));
    }
    notes
}

/// `memory_remember`: the fact's id, new or already there.
pub fn remembered(r: &Remembered) -> String {
    let f = &r.fact;
    let how = if r.created {
        "Remembered"
    } else {
        "Already remembered"
    };
    format!("{how} as fact {}: {}", f.id, one_line(&f.text))
}

/// `memory_forget` with words that fit several facts: nothing changed, and
/// the candidates to choose from by id.
pub fn several_match(text: &str, many: &[Fact]) -> String {
    format!(
        "{} active facts match {:?}; nothing was forgotten. Call memory_forget again with the \
id of the one to forget:\n{}",
        many.len(),
        one_line(text),
        human_lines(many)
    )
}

/// `memory_forget`: each fact forgotten.
pub fn forgotten(facts: &[Fact]) -> String {
    facts
        .iter()
        .map(|f| format!("Forgot fact {}: {}\n", f.id, one_line(&f.text)))
        .collect()
}

/// `memory_list_facts`: a header and one line per fact, or that there are none.
pub fn facts(facts: &[Fact]) -> String {
    if facts.is_empty() {
        return "No facts are remembered yet.".to_string();
    }
    format!(
        "{} fact{}, oldest first (id, method, captured, text):\n{}",
        facts.len(),
        plural(facts.len()),
        human_lines(facts)
    )
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}
