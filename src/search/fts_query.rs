//! Turning any user text into a safe SQLite FTS5 `MATCH` expression.
//!
//! The text is first read by `syntax` (phrases, prefixes, fields, `-word`,
//! `AND`/`OR`, parentheses); [`build`] then lowers that tree to FTS5. Every
//! word the user typed reaches FTS5 inside double quotes, so none of it is
//! FTS5 syntax: only the operators and column filters written here are.
//!
//! Plain words stay what they always were: stopwords dropped, each word
//! quoted, all joined with `OR` so a hit need not contain every word (bm25
//! ranks the rows that contain more of them higher). Beside them, what the
//! syntax makes required (a field, a group, an item joined by `AND`) is
//! joined with `AND`, and what it excludes follows `NOT`.

mod lower;
mod render;

use super::syntax::{self, Field, Node};
use crate::ingest::record::SourceType;
use lower::{Lowering, Q, Survey};
use render::{Style, has_column, names_field, plain_words, positive_words, render};

/// Most terms kept from one query. A pasted 5,000-char email must still
/// produce a query that FTS5 evaluates quickly.
pub const MAX_TOKENS: usize = 64;

/// Longest token kept, in chars. Longer runs (base64 blobs, hashes) are cut;
/// nobody types a 100-char word, and FTS5 work grows with token length.
pub const MAX_TOKEN_CHARS: usize = 100;

/// Most notes kept for `--explain`.
const MAX_NOTES: usize = 8;

/// Common English words that match nearly every row and so only add noise to
/// an `OR` query. Kept modest: anything rarer may be what the user means
/// ("will" and "may" are left out because they are also names and nouns).
/// The one-letter and contraction fragments ("s", "t", "ll", ...) come from
/// splitting "Acme's" or "don't" at the apostrophe.
const STOPWORDS: &[&str] = &[
    "s", "t", "d", "ll", "m", "re", "ve", "a", "about", "after", "all", "also", "am", "an", "and",
    "any", "are", "as", "at", "be", "been", "before", "being", "but", "by", "can", "could", "did",
    "do", "does", "for", "from", "had", "has", "have", "he", "her", "him", "his", "how", "i", "if",
    "in", "into", "is", "it", "its", "me", "my", "no", "not", "of", "on", "or", "our", "she", "so",
    "some", "than", "that", "the", "their", "them", "then", "there", "these", "they", "this",
    "those", "to", "us", "was", "we", "were", "what", "when", "where", "which", "who", "whom",
    "why", "with", "would", "you", "your",
];

/// A query ready to bind as the right-hand side of `MATCH`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FtsQuery {
    /// FTS5 expression such as `"acme" OR "contract"`. Bind it as a parameter;
    /// it is safe as FTS5 syntax, not as SQL text.
    pub match_expr: String,
    /// FTS5's phrases, in its phrase order: each one a valid expression on
    /// its own, column filter included. Without `structured`, `match_expr`
    /// is exactly these joined with `OR`.
    pub phrases: Vec<String>,
    /// `match_expr` requires or excludes something: it is not `phrases`
    /// joined with `OR`.
    pub structured: bool,
    /// What a result found by meaning alone must match too, when the query
    /// requires or excludes something (a field, `AND`, `NOT`).
    pub by_meaning: MeaningFilter,
    /// The lowercased words looked for, in first-seen order, for
    /// highlighting snippets.
    pub terms: Vec<String>,
    /// `source:` terms, which apply to the whole query.
    pub sources: SourceFilter,
    /// How the query was read, in the user's terms (`--explain`).
    pub parsed: String,
    /// What was read otherwise than it might look, and why (`--explain`).
    pub notes: Vec<String>,
    /// The words to embed for semantic recall, when the text held syntax
    /// (None: embed the text as typed).
    pub plain_text: Option<String>,
    /// The query looks in the recipients (`to:`), which mail indexed before
    /// they were kept does not have (`--explain` says how much).
    pub recipients: bool,
}

/// Full-text conditions on the results that semantic recall adds: the
/// query's required items must match and its exclusions must not; its
/// optional words need not (meaning stands in for them). Empty for plain
/// words.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MeaningFilter {
    /// An FTS5 expression a result must match.
    pub required: Option<String>,
    /// An FTS5 expression a result must not match.
    pub excluded: Option<String>,
}

/// Source types a query names with `source:` and `-source:`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SourceFilter {
    pub only: Vec<SourceType>,
    pub not: Vec<SourceType>,
}

impl SourceFilter {
    /// The source types to search, given those of `--source` (empty: all);
    /// an empty result means none.
    pub fn apply(&self, given: &[SourceType]) -> Vec<SourceType> {
        let base: &[SourceType] = if given.is_empty() {
            SourceType::ALL
        } else {
            given
        };
        base.iter()
            .copied()
            .filter(|s| self.only.is_empty() || self.only.contains(s))
            .filter(|s| !self.not.contains(s))
            .collect()
    }

    pub fn is_empty(&self) -> bool {
        self.only.is_empty() && self.not.is_empty()
    }
}

/// Builds an FTS5 query from any user text.
///
/// Returns `None` when the text has nothing to look for (only punctuation,
/// emoji, whitespace, or only exclusions): the caller should report "no
/// hits" rather than fail.
pub fn build(user_text: &str) -> Option<FtsQuery> {
    let node = syntax::parse(user_text)?;
    let mut survey = Survey::default();
    survey.visit(&node, false);
    let mut low = Lowering {
        keep_stopwords: !survey.content && !survey.other,
        count: 0,
        notes: Vec::new(),
        sources: SourceFilter::default(),
        constraint: None,
    };
    let q = low.lower_query(&node)?;
    let mut phrases = Vec::new();
    let match_expr = render(&q, Style::Fts5, &mut phrases);
    let parsed = render(&q, Style::User, &mut Vec::new());
    let structured = !matches!(&q, Q::Unit(_))
        && !matches!(&q, Q::Any(items) if items.iter().all(|i| matches!(i, Q::Unit(_))));
    let mut terms = Vec::new();
    positive_words(&q, &mut terms);
    let plain_text = survey.syntax.then(|| plain_words(&node));
    let fts5 = |q: &Q| render(q, Style::Fts5, &mut Vec::new());
    let by_meaning = match low.constraint {
        _ if !structured && !has_column(&q) => MeaningFilter::default(),
        Some(c) => MeaningFilter {
            required: c.required.as_ref().map(fts5),
            excluded: c.excluded.as_ref().map(fts5),
        },
        None => MeaningFilter {
            required: Some(match_expr.clone()),
            excluded: None,
        },
    };
    Some(FtsQuery {
        match_expr,
        phrases,
        structured,
        by_meaning,
        terms,
        sources: low.sources,
        parsed,
        notes: low.notes,
        plain_text,
        recipients: names_field(&q, Field::To),
    })
}

/// The text has something to exclude (`-spam`) but nothing to look for.
pub fn only_exclusions(user_text: &str) -> bool {
    fn excludes(node: &Node) -> bool {
        match node {
            Node::Not(_) => true,
            Node::Term(_) => false,
            Node::And(items) => items.iter().any(|(n, _)| excludes(n)),
            Node::Or(ns) => ns.iter().any(excludes),
            Node::Group(n) => excludes(n),
        }
    }
    build(user_text).is_none() && syntax::parse(user_text).is_some_and(|n| excludes(&n))
}

/// Splits text into maximal runs of alphanumeric chars, lowercased and cut to
/// [`MAX_TOKEN_CHARS`]. Duplicates are left for the caller to drop.
fn tokens(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|run| !run.is_empty())
        .map(|run| run.to_lowercase().chars().take(MAX_TOKEN_CHARS).collect())
}

/// Wraps `t` as an FTS5 string literal, doubling any `"` inside. Tokens are
/// alphanumeric so there are none today, but the quoting must stay correct if
/// tokenisation ever changes.
fn quote(t: &str) -> String {
    format!("\"{}\"", t.replace('"', "\"\""))
}

#[cfg(test)]
#[path = "fts_query_tests.rs"]
mod tests;
