//! Lowering the parsed query to what FTS5 will evaluate: plain words side
//! by side become an optional any-of, what the syntax requires an all-of,
//! what it excludes a `NOT`; `source:` is taken out on the way.

use std::collections::HashSet;

use super::super::syntax::{Field, Kind, Node, Term};
use super::{MAX_NOTES, MAX_TOKENS, STOPWORDS, SourceFilter, tokens};
use crate::ingest::record::SourceType;

/// One FTS5 phrase: words in a row, the last one maybe a prefix, maybe in
/// one column.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Unit {
    pub(super) field: Option<Field>,
    pub(super) words: Vec<String>,
    pub(super) prefix: bool,
}

/// The query as FTS5 will evaluate it.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Q {
    Unit(Unit),
    All(Vec<Q>),
    Any(Vec<Q>),
    /// The first, and none of the rest.
    Without(Box<Q>, Vec<Q>),
}

/// What a query holds, found before lowering it: whether its plain words
/// are all stopwords decides whether they are kept.
#[derive(Default)]
pub(super) struct Survey {
    /// A plain word that is not a stopword.
    pub(super) content: bool,
    /// Something else to look for: a phrase, prefix, field or required word.
    pub(super) other: bool,
    /// Anything beyond plain words side by side.
    pub(super) syntax: bool,
}

impl Survey {
    pub(super) fn visit(&mut self, node: &Node, negated: bool) {
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

pub(super) struct Lowering {
    pub(super) keep_stopwords: bool,
    /// Units made so far, up to [`MAX_TOKENS`].
    pub(super) count: usize,
    pub(super) notes: Vec<String>,
    pub(super) sources: SourceFilter,
    /// Set by [`Lowering::lower_query`] for items side by side.
    pub(super) constraint: Option<Constraint>,
}

/// What a result found by meaning alone must satisfy when the query is
/// items side by side: its required items, and none of its exclusions (its
/// optional words are what meaning stands in for).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Constraint {
    pub(super) required: Option<Q>,
    pub(super) excluded: Option<Q>,
}

impl Lowering {
    /// The whole query, noting its [`Constraint`] when it is items side by
    /// side.
    pub(super) fn lower_query(&mut self, node: &Node) -> Option<Q> {
        match node {
            Node::Term(t) if t.kind == Kind::Words && t.field.is_none() => {
                self.conjunction(&[(node.clone(), false)], true)
            }
            Node::And(items) => self.conjunction(items, true),
            other => self.lower(other),
        }
    }

    /// `node` as something to look for; None when it holds nothing.
    pub(super) fn lower(&mut self, node: &Node) -> Option<Q> {
        match node {
            // Plain words alone, in an `OR` or a group: any of them.
            Node::Term(t) if t.kind == Kind::Words && t.field.is_none() => {
                self.conjunction(&[(node.clone(), false)], false)
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
            Node::And(items) => self.conjunction(items, false),
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
    /// the excluded none. `top`: the whole query, whose constraint is noted.
    fn conjunction(&mut self, items: &[(Node, bool)], top: bool) -> Option<Q> {
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
                    } else if let Some(Q::Unit(u)) = self.term(t)
                        && seen.insert(u.words.clone())
                    {
                        optional.push(Q::Unit(u));
                    }
                }
                other => required.extend(self.lower(other)),
            }
        }
        if top {
            self.constraint = Some(Constraint {
                required: one_or(required.clone(), Q::All),
                excluded: one_or(excluded.clone(), Q::Any),
            });
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
        if field == Some(Field::Source) {
            if let Some(types) = self.source_types(t) {
                self.sources.only.extend(types);
                return None;
            }
            field = None;
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
        // A pasted text could make hundreds; a few say what happened.
        if self.notes.len() < MAX_NOTES && !self.notes.contains(&note) {
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
