//! What `alfred-mem search` shows a person: the hits as a table on a terminal
//! or one tab-separated line each in a pipe, the `--explain` header, and the
//! notes for stderr. (`search --json` is [`super::hits::JsonHit`].)

use std::path::Path;

use comfy_table::{ContentArrangement, Table, presets};

use super::snippet::snippet;
use super::{day, rfc3339};
use crate::rank::fusion::TEXT_WEIGHT;
use crate::sanitize::{for_terminal, one_line};
use crate::search::{Hit, RecallMode, SearchOutcome, SearchRequest};

/// Characters of chunk text shown per hit in human output.
const SNIPPET_CHARS: usize = 160;

/// The table width on a terminal that reports no size, when `COLUMNS` does
/// not say either. Without a width the table is squeezed to one character
/// per column.
const FALLBACK_WIDTH: u16 = 80;

/// What stderr should say besides the hits: a recall that could not be
/// logged, a model that could not take part. Empty when all went well.
pub fn notes(outcome: &SearchOutcome, db_path: &Path) -> String {
    let mut s = String::new();
    if outcome.not_logged {
        s.push_str(&format!(
            "alfred-mem: database is read-only, this recall was not logged: {}\n",
            one_line(&db_path.display().to_string())
        ));
    }
    if let Some(w) = &outcome.warning {
        s.push_str(&format!("alfred-mem: warning: {}\n", one_line(w)));
    }
    s
}

/// What stderr says when there are no hits: no matches, or no word in the
/// query to search for at all. `filters` names the flags that narrowed the
/// search, since they, not the words, may be why nothing was found.
pub fn nothing_found(outcome: &SearchOutcome, query: &str, filters: &[&str]) -> String {
    let query = one_line(query);
    if outcome.fts.is_none() && crate::search::fts_query::only_exclusions(&query) {
        return format!(
            "alfred-mem: nothing to search for in {query:?}: it only excludes; add a word to look for\n"
        );
    }
    if outcome.fts.is_none() {
        return format!(
            "alfred-mem: nothing to search for in {query:?}: it has no searchable word\n"
        );
    }
    if filters.is_empty() {
        format!("alfred-mem: no matches for {query:?}\n")
    } else {
        format!(
            "alfred-mem: no matches for {query:?} with {}\n",
            filters.join(", ")
        )
    }
}

/// The `--explain` header: the query as read and the FTS5 query run, how
/// the candidates were chosen, and the half-life and reference time of the
/// forgetting curve. `unaddressed`: e-mails a `to:` in the query cannot
/// find, having no recipients stored.
pub fn explain(outcome: &SearchOutcome, req: &SearchRequest, unaddressed: i64) -> String {
    let mut read = String::new();
    if let Some(f) = &outcome.fts {
        read.push_str(&format!("query: {}\n", one_line(&f.parsed)));
        let sources = |types: &[crate::ingest::record::SourceType]| {
            types
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        if !f.sources.only.is_empty() {
            read.push_str(&format!("source: {}\n", sources(&f.sources.only)));
        }
        if !f.sources.not.is_empty() {
            read.push_str(&format!("source: not {}\n", sources(&f.sources.not)));
        }
        for note in &f.notes {
            read.push_str(&format!("note: {}\n", one_line(note)));
        }
        if unaddressed > 0 {
            read.push_str(&format!(
                "note: to: cannot find {unaddressed} e-mail{} with no recipients stored (indexed \
before alfred-mem kept them, or sent without To); index the mail into a fresh --db to find them\n",
                if unaddressed == 1 { "" } else { "s" }
            ));
        }
    }
    let expr = outcome
        .fts
        .as_ref()
        .map_or("(no searchable words)", |f| f.match_expr.as_str());
    let reference = match outcome.period {
        Some(p) => format!(
            "the period named in the query, {} to {}",
            rfc3339(p.start),
            rfc3339(p.end)
        ),
        None => {
            let reference = req.as_of.unwrap_or(req.now);
            match outcome.ages_from {
                Some(t) if t < reference => format!(
                    "{}, the newest thing in memory at {}",
                    rfc3339(t),
                    rfc3339(reference)
                ),
                _ => rfc3339(reference),
            }
        }
    };
    let k = outcome.depth;
    let sides = match (&outcome.model, req.mode) {
        (None, _) => format!("top {k} by bm25"),
        (Some(m), RecallMode::Semantic) => format!("top {k} by cosine with {m}"),
        (Some(m), _) => format!(
            "top {k} by bm25 + top {k} by cosine with {m}; relevance = {:.2} text + {:.2} vector",
            TEXT_WEIGHT,
            1.0 - TEXT_WEIGHT
        ),
    };
    format!(
        "{read}fts5 query: {expr}\ncandidates: {} ({sides} in the window)\nhalf-life: {} (each genuine recall adds half, up to 3x; facts never decay); ages from {reference}\n",
        outcome.candidates, req.half_lives,
    )
}

/// The hits as a table for a terminal, matches in bold yellow. The table
/// fits the terminal's width, or `width` (`COLUMNS`) when the terminal
/// reports none.
pub fn table(outcome: &SearchOutcome, explain: bool, width: Option<u16>) -> String {
    let hits = &outcome.hits;
    if hits.is_empty() {
        return String::new();
    }
    let terms = terms(outcome);
    let mut t = Table::new();
    t.load_style(presets::UTF8_HORIZONTAL_ONLY)
        .set_content_arrangement(ContentArrangement::Dynamic);
    if t.width().is_none_or(|w| w == 0) {
        t.set_width(width.unwrap_or(FALLBACK_WIDTH));
    }
    let mut header = vec!["#", "score", "date", "source", "from / title", "snippet"];
    if explain {
        header.push("explain");
    }
    t.set_header(header);
    for (i, h) in hits.iter().enumerate() {
        let mut row = vec![
            (i + 1).to_string(),
            readable_score(h.score),
            when_label(h),
            h.chunk.source_type.to_string(),
            who(h),
            marked_snippet(h, terms, "\x1b[1;33m", "\x1b[0m"),
        ];
        if explain {
            row.push(explain_cell(h));
        }
        t.add_row(row);
    }
    format!("{t}\n")
}

/// One hit per line, tab-separated, for pipes: rank, score, date, source
/// type, source id, from/title, snippet.
pub fn lines(outcome: &SearchOutcome, explain: bool) -> String {
    let terms = terms(outcome);
    let mut out = String::new();
    for (i, h) in outcome.hits.iter().enumerate() {
        out.push_str(&format!(
            "{}\t{}\t{}\t{}\t{}\t{}\t{}",
            i + 1,
            readable_score(h.score),
            when_label(h),
            h.chunk.source_type,
            one_line(&h.chunk.source_id),
            who(h),
            marked_snippet(h, terms, "", ""),
        ));
        if explain {
            out.push('\t');
            out.push_str(&explain_cell(h));
        }
        out.push('\n');
    }
    out
}

/// A score a person can compare: three decimals, or three significant
/// digits below 0.001 (an old match must not read as a column of 0.000).
pub fn readable_score(score: f64) -> String {
    if score == 0.0 || score >= 0.000_5 {
        format!("{score:.3}")
    } else {
        format!("{score:.2e}")
    }
}

/// The words to highlight: the terms of the query searched.
fn terms(outcome: &SearchOutcome) -> &[String] {
    outcome.fts.as_ref().map_or(&[], |f| f.terms.as_slice())
}

/// Who or what a hit is from: sender, vendor, or conversation title.
fn who(h: &Hit) -> String {
    let c = &h.chunk.meta;
    let w = c
        .sender
        .as_deref()
        .or(c.vendor.as_deref())
        .or(c.title.as_deref())
        .unwrap_or("");
    one_line(w)
}

fn when_label(h: &Hit) -> String {
    h.chunk
        .dated_at
        .map(day)
        .unwrap_or_else(|| "evergreen".into())
}

/// The snippet of a hit, cleaned for the terminal, with matches wrapped in
/// `open`/`close` (ANSI on a terminal, nothing in a pipe).
fn marked_snippet(h: &Hit, terms: &[String], open: &str, close: &str) -> String {
    let clean = one_line(&for_terminal(&h.chunk.text));
    let s = snippet(&clean, terms, SNIPPET_CHARS);
    let mut out = String::with_capacity(s.text.len() + 16);
    let mut at = 0;
    for &(a, b) in &s.highlights {
        out.push_str(&s.text[at..a]);
        out.push_str(open);
        out.push_str(&s.text[a..b]);
        out.push_str(close);
        at = b;
    }
    out.push_str(&s.text[at..]);
    out.push_str(&more_label(h));
    out
}

/// What an e-mail hit says of the rest of its message: " (+2 more matching
/// chunks)", or nothing when no other chunk matched.
fn more_label(h: &Hit) -> String {
    match h.more_chunks {
        Some(1) => " (+1 more matching chunk)".to_string(),
        Some(n) if n > 1 => format!(" (+{n} more matching chunks)"),
        _ => String::new(),
    }
}

fn explain_cell(h: &Hit) -> String {
    let sides = match &h.semantic {
        None => String::new(),
        Some(p) => format!(
            " (text {:.3} + vector {:.3}, cos {})",
            p.text,
            p.vector,
            p.cosine.map_or("-".into(), |c| format!("{c:.3}"))
        ),
    };
    let recalls = match h.recalls.last {
        Some(last) => format!(" recalls {} (last {})", h.recalls.count, day(last)),
        None => format!(" recalls {}", h.recalls.count),
    };
    let half_life = if h.half_life_days.is_finite() {
        format!(" half-life {}d", round_days(h.half_life_days))
    } else {
        " half-life never".to_string()
    };
    format!(
        "bm25 {:.3} rel {:.3}{sides} decay {}{half_life}{recalls} mmr {:.3}",
        h.chunk.bm25,
        h.relevance,
        readable_score(h.decay),
        h.mmr
    )
}

/// Days to one decimal, without a trailing `.0`.
fn round_days(d: f64) -> String {
    let r = (d * 10.0).round() / 10.0;
    if r.fract() == 0.0 {
        format!("{r:.0}")
    } else {
        format!("{r:.1}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_stay_readable_however_small() {
        let cases: &[(f64, &str)] = &[
            (1.0, "1.000"),
            (0.1234, "0.123"),
            (0.0005, "0.001"),
            (0.000_123_4, "1.23e-4"),
            (3.2e-88, "3.20e-88"),
            (0.0, "0.000"),
        ];
        for (score, want) in cases {
            assert_eq!(readable_score(*score), *want);
        }
    }
}
