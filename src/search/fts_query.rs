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

use std::collections::HashSet;
use std::fmt::Write as _;

use super::syntax::{self, Field, Kind, Node, Term};
use crate::ingest::record::SourceType;

/// Most terms kept from one query. A pasted 5,000-char email must still
/// produce a query that FTS5 evaluates quickly.
pub const MAX_TOKENS: usize = 64;

/// Longest token kept, in chars. Longer runs (base64 blobs, hashes) are cut;
/// nobody types a 100-char word, and FTS5 work grows with token length.
pub const MAX_TOKEN_CHARS: usize = 100;

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
    /// The query restricts what may match (a field, `AND`, `NOT`): a result
    /// found by meaning alone must match it too.
    pub constrained: bool,
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
            &SourceType::ALL
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
    };
    let q = low.lower(&node)?;
    let mut phrases = Vec::new();
    let match_expr = render(&q, Style::Fts5, &mut phrases);
    let parsed = render(&q, Style::User, &mut Vec::new());
    let structured = !matches!(&q, Q::Unit(_))
        && !matches!(&q, Q::Any(items) if items.iter().all(|i| matches!(i, Q::Unit(_))));
    let mut terms = Vec::new();
    positive_words(&q, &mut terms);
    let plain_text = survey.syntax.then(|| plain_words(&node));
    Some(FtsQuery {
        match_expr,
        phrases,
        structured,
        constrained: structured || has_column(&q),
        terms,
        sources: low.sources,
        parsed,
        notes: low.notes,
        plain_text,
    })
}

/// One FTS5 phrase: words in a row, the last one maybe a prefix, maybe in
/// one column.
#[derive(Debug, Clone, PartialEq)]
struct Unit {
    field: Option<Field>,
    words: Vec<String>,
    prefix: bool,
}

/// The query as FTS5 will evaluate it.
#[derive(Debug, Clone, PartialEq)]
enum Q {
    Unit(Unit),
    All(Vec<Q>),
    Any(Vec<Q>),
    /// The first, and none of the rest.
    Without(Box<Q>, Vec<Q>),
}

/// What a query holds, found before lowering it: whether its plain words
/// are all stopwords decides whether they are kept.
#[derive(Default)]
struct Survey {
    /// A plain word that is not a stopword.
    content: bool,
    /// Something else to look for: a phrase, prefix, field or required word.
    other: bool,
    /// Anything beyond plain words side by side.
    syntax: bool,
}

impl Survey {
    fn visit(&mut self, node: &Node, negated: bool) {
        match node {
            Node::Term(t) if t.kind == Kind::Words && t.field.is_none() => {
                if !negated && tokens(&t.text).any(|w| !STOPWORDS.contains(&w.as_str())) {
                    self.content = true;
                }
            }
            Node::Term(_) => {
                self.syntax = true;
                self.other |= !negated;
            }
            Node::Not(n) => {
                self.syntax = true;
                self.visit(n, !negated);
            }
            Node::And(items) => {
                for (n, required) in items {
                    self.syntax |= *required;
                    self.other |= *required && !negated;
                    self.visit(n, negated);
                }
            }
            Node::Or(ns) => {
                self.syntax = true;
                ns.iter().for_each(|n| self.visit(n, negated));
            }
            Node::Group(n) => {
                self.syntax = true;
                self.other |= !negated;
                self.visit(n, negated);
            }
        }
    }
}

struct Lowering {
    keep_stopwords: bool,
    /// Units made so far, up to [`MAX_TOKENS`].
    count: usize,
    notes: Vec<String>,
    sources: SourceFilter,
}

impl Lowering {
    /// `node` as something to look for; None when it holds nothing.
    fn lower(&mut self, node: &Node) -> Option<Q> {
        match node {
            // Plain words alone, in an `OR` or a group: any of them.
            Node::Term(t) if t.kind == Kind::Words && t.field.is_none() => {
                self.conjunction(&[(node.clone(), false)])
            }
            Node::Term(t) => self.term(t),
            // Two negations cancel.
            Node::Not(inner) if matches!(**inner, Node::Not(_)) => self.not(inner),
            Node::Not(inner) => {
                self.not(inner)?;
                self.note(format!(
                    "{} only excludes, and has nothing to exclude from: ignored",
                    shown(node)
                ));
                None
            }
            Node::And(items) => self.conjunction(items),
            Node::Or(branches) => {
                let mut any = Vec::new();
                for b in branches {
                    match self.lower(b) {
                        Some(Q::Any(inner)) => any.extend(inner),
                        Some(q) => any.push(q),
                        None => {}
                    }
                }
                one_or(any, Q::Any)
            }
            Node::Group(inner) => self.lower(inner),
        }
    }

    /// Items side by side: the optional plain words any of, the rest all,
    /// the excluded none.
    fn conjunction(&mut self, items: &[(Node, bool)]) -> Option<Q> {
        let mut optional: Vec<Q> = Vec::new();
        let mut seen: HashSet<Vec<String>> = HashSet::new();
        let mut required: Vec<Q> = Vec::new();
        let mut excluded: Vec<Q> = Vec::new();
        for (node, is_required) in items {
            match node {
                Node::Not(inner) => excluded.extend(self.not(inner)),
                Node::Term(t) if *is_required || t.field.is_some() => {
                    required.extend(self.term(t));
                }
                Node::Term(t) => {
                    if t.kind == Kind::Words {
                        for w in tokens(&t.text) {
                            if !self.keep_stopwords && STOPWORDS.contains(&w.as_str()) {
                                continue;
                            }
                            if seen.insert(vec![w.clone()]) {
                                optional.extend(self.unit(None, vec![w], false));
                            }
                        }
                    } else if let Some(Q::Unit(u)) = self.term(t) {
                        if seen.insert(u.words.clone()) {
                            optional.push(Q::Unit(u));
                        }
                    }
                }
                other => required.extend(self.lower(other)),
            }
        }
        required.extend(one_or(optional, Q::Any));
        let Some(positive) = one_or(required, Q::All) else {
            if !excluded.is_empty() {
                self.note("only exclusions: nothing to look for".to_string());
            }
            return None;
        };
        if excluded.is_empty() {
            Some(positive)
        } else {
            Some(Q::Without(Box::new(positive), excluded))
        }
    }

    /// What `-x` / `NOT x` excludes (a `source:` is noted in the filter).
    fn not(&mut self, inner: &Node) -> Option<Q> {
        match inner {
            // Two negations cancel.
            Node::Not(x) => self.lower(x),
            Node::Term(t) if t.field == Some(Field::Source) => {
                let types = self.source_types(t)?;
                self.sources.not.extend(types);
                None
            }
            // An excluded word is excluded as typed: stopwords too, and
            // `-e-mail` as the phrase "e mail".
            Node::Term(t) => self.term(t),
            other => self.lower(other),
        }
    }

    /// One term as one unit: its words in a row (optional plain words are
    /// split into units by `conjunction`).
    fn term(&mut self, t: &Term) -> Option<Q> {
        let mut field = t.field;
        match field {
            Some(Field::Source) => {
                if let Some(types) = self.source_types(t) {
                    self.sources.only.extend(types);
                    return None;
                }
                field = None;
            }
            Some(Field::To) => {
                self.note(format!(
                    "to:{} is searched as words: recipients are not indexed",
                    t.text
                ));
                field = None;
            }
            _ => {}
        }
        let words: Vec<String> = tokens(&t.text).collect();
        if words.is_empty() {
            return None;
        }
        self.unit(field, words, t.kind == Kind::Prefix)
    }

    fn unit(&mut self, field: Option<Field>, words: Vec<String>, prefix: bool) -> Option<Q> {
        if self.count == MAX_TOKENS {
            if !self.notes.iter().any(|n| n.starts_with("only the first")) {
                self.note(format!("only the first {MAX_TOKENS} terms are searched"));
            }
            return None;
        }
        self.count += 1;
        Some(Q::Unit(Unit {
            field,
            words,
            prefix,
        }))
    }

    /// The source types `source:x` names; None (and a note) for a name
    /// that is none, which is then searched as a word.
    fn source_types(&mut self, t: &Term) -> Option<Vec<SourceType>> {
        let name = t.text.to_lowercase();
        let singular = name.strip_suffix('s').unwrap_or(&name);
        let found = match singular {
            "mail" | "e-mail" => Some(SourceType::Email),
            "chat" => Some(SourceType::Conversation),
            other => SourceType::parse(other),
        };
        if found.is_none() {
            self.note(format!(
                "source:{} is not a source type (email, receipt, conversation, fact): searched as words",
                t.text
            ));
        }
        found.map(|s| vec![s])
    }

    fn note(&mut self, note: String) {
        if !self.notes.contains(&note) {
            self.notes.push(note);
        }
    }
}

/// None for no items, the item for one, `wrap` for more.
fn one_or(mut items: Vec<Q>, wrap: fn(Vec<Q>) -> Q) -> Option<Q> {
    match items.len() {
        0 => None,
        1 => items.pop(),
        _ => Some(wrap(items)),
    }
}

/// The FTS5 column a field searches.
fn column(field: Field) -> &'static str {
    match field {
        Field::From => "sender",
        Field::Subject => "subject",
        Field::Vendor => "vendor",
        Field::Title => "title",
        // Lowered to plain words before they reach here.
        Field::To | Field::Source => "text",
    }
}

#[derive(Clone, Copy)]
enum Style {
    Fts5,
    User,
}

/// `q` as an FTS5 expression (collecting its phrases in order) or as the
/// user would write it.
fn render(q: &Q, style: Style, phrases: &mut Vec<String>) -> String {
    let nested = |q: &Q, phrases: &mut Vec<String>| match q {
        Q::Unit(_) => render(q, style, phrases),
        _ => format!("({})", render(q, style, phrases)),
    };
    match q {
        Q::Unit(u) => {
            let mut s = String::new();
            match (u.field, style) {
                (Some(f), Style::Fts5) => write!(s, "{{{}}} : ", column(f)).unwrap(),
                (Some(f), Style::User) => write!(s, "{}:", f.name()).unwrap(),
                (None, _) => {}
            }
            s.push_str(&quote(&u.words.join(" ")));
            if u.prefix {
                s.push_str(match style {
                    Style::Fts5 => " *",
                    Style::User => "*",
                });
            }
            phrases.push(s.clone());
            s
        }
        Q::All(items) => join(items, " AND ", |q| nested(q, phrases)),
        Q::Any(items) => join(items, " OR ", |q| nested(q, phrases)),
        Q::Without(pos, negs) => {
            let mut s = nested(pos, phrases);
            for n in negs {
                s.push_str(" NOT ");
                s.push_str(&nested(n, phrases));
            }
            s
        }
    }
}

fn join(items: &[Q], sep: &str, mut each: impl FnMut(&Q) -> String) -> String {
    items.iter().map(&mut each).collect::<Vec<_>>().join(sep)
}

fn has_column(q: &Q) -> bool {
    match q {
        Q::Unit(u) => u.field.is_some(),
        Q::All(items) | Q::Any(items) => items.iter().any(has_column),
        Q::Without(pos, _) => has_column(pos),
    }
}

/// The words of every unit not excluded, once each.
fn positive_words(q: &Q, out: &mut Vec<String>) {
    match q {
        Q::Unit(u) => {
            for w in &u.words {
                if !out.contains(w) {
                    out.push(w.clone());
                }
            }
        }
        Q::All(items) | Q::Any(items) => items.iter().for_each(|i| positive_words(i, out)),
        Q::Without(pos, _) => positive_words(pos, out),
    }
}

/// The text of the terms not excluded, for the embedder.
fn plain_words(node: &Node) -> String {
    let mut out = Vec::new();
    collect_text(node, &mut out);
    out.join(" ")
}

fn collect_text<'a>(node: &'a Node, out: &mut Vec<&'a str>) {
    match node {
        Node::Term(t) if t.field != Some(Field::Source) => out.push(&t.text),
        Node::Term(_) | Node::Not(_) => {}
        Node::And(items) => items.iter().for_each(|(n, _)| collect_text(n, out)),
        Node::Or(ns) => ns.iter().for_each(|n| collect_text(n, out)),
        Node::Group(n) => collect_text(n, out),
    }
}

/// A node as the user wrote it, near enough for a note.
fn shown(node: &Node) -> String {
    match node {
        Node::Term(t) => {
            let field = t
                .field
                .map(|f| format!("{}:", f.name()))
                .unwrap_or_default();
            match t.kind {
                Kind::Phrase => format!("{field}\"{}\"", t.text),
                Kind::Prefix => format!("{field}{}*", t.text),
                Kind::Words => format!("{field}{}", t.text),
            }
        }
        Node::Not(n) => format!("-{}", shown(n)),
        Node::And(items) => items
            .iter()
            .map(|(n, _)| shown(n))
            .collect::<Vec<_>>()
            .join(" "),
        Node::Or(ns) => ns.iter().map(shown).collect::<Vec<_>>().join(" OR "),
        Node::Group(n) => format!("({})", shown(n)),
    }
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
