//! `alfred-mem search`: parse the window, run the search, print hits as a
//! table (terminal), lines (pipe) or JSON.

use anyhow::Result;
use comfy_table::{ContentArrangement, Table, presets};

use super::exit;
use crate::cli::SearchArgs;
use crate::config::Config;
use crate::output::hits::JsonHit;
use crate::output::snippet::snippet;
use crate::output::{self, day, rfc3339};
use crate::sanitize::{for_terminal, one_line};
use crate::search::request::{self, SearchInput, Spelling};
use crate::search::{self, Hit, RecallMode};
use crate::store::Store;

/// Characters of chunk text shown per hit in human output.
const SNIPPET_CHARS: usize = 160;

pub fn run(config: &Config, args: &SearchArgs) -> Result<u8> {
    let query = args.query.join(" ");
    let input = SearchInput {
        query: &query,
        after: args.after.as_deref(),
        before: args.before.as_deref(),
        as_of: args.as_of.as_deref(),
        sources: &args.source,
        limit: args.limit,
        half_life_days: args.half_life,
    };
    let resolved = request::resolve(&input, config.now, Spelling::Flag)?;
    let (as_of, half_life) = (resolved.as_of, resolved.half_life_days);

    let store = Store::open(&config.db_path)?.with_fts(config.fts);
    let mut req = resolved.request(config.now_unix(), !args.no_log);
    req.mode = if args.lexical {
        RecallMode::Lexical
    } else if args.semantic {
        RecallMode::Semantic
    } else {
        RecallMode::Auto
    };
    let outcome = search::search(&store, &req)?;
    if outcome.not_logged {
        eprintln!(
            "alfred-mem: database is read-only, this recall was not logged: {}",
            one_line(&config.db_path.display().to_string())
        );
    }
    if let Some(w) = &outcome.warning {
        eprintln!("alfred-mem: warning: {}", one_line(w));
    }
    let terms = outcome
        .fts
        .as_ref()
        .map(|f| f.terms.clone())
        .unwrap_or_default();
    if args.explain {
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
            None => rfc3339(as_of.unwrap_or(config.now_unix())),
        };
        let k = search::candidate_count(args.limit);
        let sides = match (&outcome.model, req.mode) {
            (None, _) => format!("top {k} by bm25"),
            (Some(m), RecallMode::Semantic) => format!("top {k} by cosine with {m}"),
            (Some(m), _) => format!(
                "top {k} by bm25 + top {k} by cosine with {m}; relevance = {:.2} text + {:.2} vector",
                crate::rank::fusion::TEXT_WEIGHT,
                1.0 - crate::rank::fusion::TEXT_WEIGHT
            ),
        };
        let line = format!(
            "fts5 query: {expr}\ncandidates: {} ({sides} in the window)\nhalf-life: {half_life} days; reference time {reference}\n",
            outcome.candidates,
        );
        if args.out.json {
            eprint!("{line}");
        } else {
            output::print(&line)?;
        }
    }
    if args.out.json {
        let hits: Vec<JsonHit> = outcome
            .hits
            .iter()
            .map(|h| JsonHit::new(h, args.explain))
            .collect();
        output::print_json(&hits)?;
    } else if config.stdout_is_terminal {
        output::print(&table(&outcome.hits, &terms, args.explain))?;
    } else {
        output::print(&lines(&outcome.hits, &terms, args.explain))?;
    }
    Ok(if outcome.hits.is_empty() {
        exit::NO_MATCH
    } else {
        exit::OK
    })
}

/// Who or what a hit is from: sender, vendor, or conversation title.
fn who(h: &Hit) -> String {
    let c = &h.chunk;
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
    out
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
    format!(
        "bm25 {:.3} rel {:.3}{sides} decay {:.3} mmr {:.3}",
        h.chunk.bm25, h.relevance, h.decay, h.mmr
    )
}

fn table(hits: &[Hit], terms: &[String], explain: bool) -> String {
    if hits.is_empty() {
        return "no matches\n".into();
    }
    let mut t = Table::new();
    t.load_style(presets::UTF8_HORIZONTAL_ONLY)
        .set_content_arrangement(ContentArrangement::Dynamic);
    if t.width().is_none_or(|w| w == 0) {
        t.set_width(fallback_width());
    }
    let mut header = vec!["#", "score", "date", "source", "from / title", "snippet"];
    if explain {
        header.push("explain");
    }
    t.set_header(header);
    for (i, h) in hits.iter().enumerate() {
        let mut row = vec![
            (i + 1).to_string(),
            format!("{:.3}", h.score),
            when_label(h),
            h.chunk.source_type.clone(),
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

/// The table width on a terminal that reports no size (a bare pseudo-terminal,
/// some CI consoles): `COLUMNS` when set, else 80. Without this the table is
/// squeezed to one character per column.
fn fallback_width() -> u16 {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<u16>().ok())
        .filter(|&c| c > 0)
        .unwrap_or(80)
}

/// One hit per line, tab-separated, for pipes: rank, score, date, source
/// type, source id, from/title, snippet.
fn lines(hits: &[Hit], terms: &[String], explain: bool) -> String {
    let mut out = String::new();
    for (i, h) in hits.iter().enumerate() {
        out.push_str(&format!(
            "{}\t{:.3}\t{}\t{}\t{}\t{}\t{}",
            i + 1,
            h.score,
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
