//! `alfred-mem search`: parse the window, run the search, print hits as a
//! table (terminal), lines (pipe) or JSON.

use anyhow::{Result, bail};
use chrono::Local;
use comfy_table::{ContentArrangement, Table, presets};
use serde::Serialize;

use super::exit;
use crate::cli::SearchArgs;
use crate::config::Config;
use crate::ingest::record::SourceType;
use crate::output::snippet::snippet;
use crate::output::{self, day, rfc3339};
use crate::rank::DEFAULT_HALF_LIFE_DAYS;
use crate::sanitize::{for_terminal, one_line};
use crate::search::{self, Hit, MAX_LIMIT, SearchRequest};
use crate::store::Store;
use crate::when::parse_when;

/// Characters of chunk text shown per hit in human output.
const SNIPPET_CHARS: usize = 160;

pub fn run(config: &Config, args: &SearchArgs) -> Result<u8> {
    let query = args.query.join(" ");
    if query.trim().is_empty() {
        bail!("empty query: say what to look for, e.g. `alfred-mem search acme contract`");
    }
    if args.limit == 0 || args.limit > MAX_LIMIT {
        bail!("--limit must be between 1 and {MAX_LIMIT}");
    }
    let half_life = args.half_life.unwrap_or(DEFAULT_HALF_LIFE_DAYS);
    if !half_life.is_finite() || half_life < 0.0 {
        bail!("--half-life must be a number of days, 0 or more (0 turns decay off)");
    }
    let when = |flag: &str, v: &Option<String>| -> Result<Option<i64>> {
        v.as_deref()
            .map(|s| {
                parse_when(s, config.now, &Local)
                    .map(|t| t.timestamp())
                    .map_err(|e| anyhow::anyhow!("--{flag}: {e}"))
            })
            .transpose()
    };
    let after = when("after", &args.after)?;
    let before = when("before", &args.before)?;
    let as_of = when("as-of", &args.as_of)?;
    if let (Some(a), Some(b)) = (after, before)
        && a >= b
    {
        bail!("--after must be earlier than --before (the window is [after, before))");
    }
    let sources = parse_sources(&args.source)?;

    let store = Store::open(&config.db_path)?;
    let outcome = search::search(
        &store,
        &SearchRequest {
            query: &query,
            after,
            before,
            as_of,
            sources: &sources,
            limit: args.limit,
            half_life_days: half_life,
            now: config.now_unix(),
            log: !args.no_log,
        },
    )?;
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
        let line = format!(
            "fts5 query: {expr}\ncandidates: {} (top {} by bm25 in the window)\nhalf-life: {half_life} days; reference time {reference}\n",
            outcome.candidates,
            search::candidate_count(args.limit),
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

fn parse_sources(names: &[String]) -> Result<Vec<SourceType>> {
    names
        .iter()
        .map(|n| n.trim())
        .filter(|n| !n.is_empty())
        .map(|n| {
            SourceType::parse(&n.to_ascii_lowercase()).ok_or_else(|| {
                anyhow::anyhow!(
                    "--source: unknown type {:?}; use email, receipt, conversation or fact",
                    one_line(n)
                )
            })
        })
        .collect()
}

/// The documented JSON shape of one hit (README: "search --json").
#[derive(Serialize)]
struct JsonHit<'a> {
    id: i64,
    source_type: &'a str,
    source_id: &'a str,
    dated_at: Option<String>,
    score: f64,
    text: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    subject: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    from: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    vendor: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    message_ids: Option<&'a [String]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    explain: Option<Explain>,
}

#[derive(Serialize)]
struct Explain {
    bm25: f64,
    relevance: f64,
    decay: f64,
    mmr: f64,
}

impl<'a> JsonHit<'a> {
    fn new(h: &'a Hit, explain: bool) -> Self {
        let c = &h.chunk;
        JsonHit {
            id: c.id,
            source_type: &c.source_type,
            source_id: &c.source_id,
            dated_at: c.dated_at.map(rfc3339),
            score: h.score,
            text: &c.text,
            subject: c.subject.as_deref(),
            from: c.sender.as_deref(),
            vendor: c.vendor.as_deref(),
            title: c.title.as_deref(),
            message_ids: (c.source_type == "conversation").then_some(c.message_ids.as_slice()),
            explain: explain.then_some(Explain {
                bm25: c.bm25,
                relevance: h.relevance,
                decay: h.decay,
                mmr: h.mmr,
            }),
        }
    }
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
    format!(
        "bm25 {:.3} rel {:.3} decay {:.3} mmr {:.3}",
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
