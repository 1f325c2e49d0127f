//! The query syntax people know from notmuch, mu and Gmail, read from any
//! text without ever failing: `"exact phrase"`, `prefix*`, `from:` `to:`
//! `subject:` `vendor:` `title:` `source:`, `-word` and `NOT word`, `AND` and
//! `OR` in capitals, and parentheses.
//!
//! Syntax is opt-in: a question in plain words parses to plain words. What
//! cannot be syntax is read literally, never rejected: a quote or a
//! parenthesis without its partner, an operator with nothing on one side
//! (`foo AND`, a lone `OR`), a field name followed by a space (`from: bob`).
//! Precedence, tightest first: `-`/`NOT`, then `AND` (written, or two items
//! side by side), then `OR`; parentheses group. [`parse`] gives the tree;
//! `fts_query` turns it into an FTS5 expression.

/// A field a term can be restricted to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    From,
    To,
    Subject,
    Vendor,
    Title,
    Source,
}

impl Field {
    /// The field a prefix such as `from` names (any case).
    fn named(name: &str) -> Option<Field> {
        Some(match name.to_ascii_lowercase().as_str() {
            "from" => Field::From,
            "to" => Field::To,
            "subject" => Field::Subject,
            "vendor" => Field::Vendor,
            "title" => Field::Title,
            "source" => Field::Source,
            _ => return None,
        })
    }

    /// The name as the user types it.
    pub fn name(self) -> &'static str {
        match self {
            Field::From => "from",
            Field::To => "to",
            Field::Subject => "subject",
            Field::Vendor => "vendor",
            Field::Title => "title",
            Field::Source => "source",
        }
    }
}

/// How a term's text is matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Plain text: its words, each on its own.
    Words,
    /// `"..."`: the words next to each other, in order.
    Phrase,
    /// `word*`: words starting so.
    Prefix,
}

/// One thing to look for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Term {
    pub kind: Kind,
    pub field: Option<Field>,
    /// As typed, without the quotes, the `*` or the field name.
    pub text: String,
}

/// The parsed query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Node {
    Term(Term),
    /// `-x` or `NOT x`.
    Not(Box<Node>),
    /// Items side by side or joined by `AND`; `true` marks an item that an
    /// explicit `AND` makes required. Side by side, plain words stay
    /// optional, as in a question (bm25 ranks rows with more of them first).
    And(Vec<(Node, bool)>),
    Or(Vec<Node>),
    /// `( ... )`.
    Group(Box<Node>),
}

/// Parentheses nested deeper than this are read literally: FTS5 has its own
/// depth limit, and a pasted `((((...` must not exhaust the stack.
pub const MAX_DEPTH: usize = 20;

#[derive(Debug, Clone, PartialEq, Eq)]
enum Lex {
    Open,
    Close,
    And,
    Or,
    Not,
    /// A `-` directly before an item.
    Minus,
    /// `name:` directly before its value.
    Field(Field),
    Quoted(String),
    Bare(String),
}

impl Lex {
    /// Can an item start here?
    fn starts_item(&self) -> bool {
        matches!(
            self,
            Lex::Open | Lex::Not | Lex::Minus | Lex::Field(_) | Lex::Quoted(_) | Lex::Bare(_)
        )
    }

    /// Can an item end here?
    fn ends_item(&self) -> bool {
        matches!(self, Lex::Close | Lex::Quoted(_) | Lex::Bare(_))
    }
}

/// Reads `text` as a query; None when it holds nothing at all.
pub fn parse(text: &str) -> Option<Node> {
    let lexed = resolve(pair_parens(lex(text)));
    let mut parser = Parser { lex: lexed, at: 0 };
    let node = parser.or(0);
    // Every parenthesis left is paired, so the parser reads to the end.
    debug_assert_eq!(parser.at, parser.lex.len());
    node
}

fn lex(text: &str) -> Vec<Lex> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        let after = &rest[c.len_utf8()..];
        if c.is_whitespace() {
            rest = after;
        } else if c == '(' {
            out.push(Lex::Open);
            rest = after;
        } else if c == ')' {
            out.push(Lex::Close);
            rest = after;
        } else if c == '"' {
            match after.find('"') {
                Some(end) => {
                    out.push(Lex::Quoted(after[..end].to_string()));
                    rest = &after[end + 1..];
                }
                // A stray quote is punctuation: what follows is plain words.
                None => rest = after,
            }
        } else if c == '-' && after.starts_with(|n: char| !n.is_whitespace() && !"-)".contains(n)) {
            out.push(Lex::Minus);
            rest = after;
        } else {
            let end = rest.find(|n: char| !attaches(n)).unwrap_or(rest.len());
            let (run, tail) = rest.split_at(end);
            rest = tail;
            let field = run
                .split_once(':')
                .and_then(|(name, value)| Some((Field::named(name)?, value)));
            match field {
                // A field name takes a value written right after it.
                Some((field, value)) if !value.is_empty() || tail.starts_with(['"', '(']) => {
                    out.push(Lex::Field(field));
                    if !value.is_empty() {
                        out.push(Lex::Bare(value.to_string()));
                    }
                }
                _ => out.push(match run {
                    "AND" => Lex::And,
                    "OR" => Lex::Or,
                    "NOT" => Lex::Not,
                    _ => Lex::Bare(run.to_string()),
                }),
            }
        }
    }
    out
}

/// Characters that continue a bare run (and may follow a `-`).
fn attaches(c: char) -> bool {
    !c.is_whitespace() && !matches!(c, '(' | ')' | '"')
}

/// Drops the parentheses that have no partner, and those nested deeper than
/// [`MAX_DEPTH`]: both are read as punctuation.
fn pair_parens(lex: Vec<Lex>) -> Vec<Lex> {
    let mut keep = vec![true; lex.len()];
    let mut open: Vec<usize> = Vec::new();
    for (i, l) in lex.iter().enumerate() {
        match l {
            Lex::Open => open.push(i),
            Lex::Close => match open.pop() {
                // `open` now holds the pairs around this one.
                Some(o) if open.len() >= MAX_DEPTH => {
                    keep[o] = false;
                    keep[i] = false;
                }
                Some(_) => {}
                None => keep[i] = false,
            },
            _ => {}
        }
    }
    for o in open {
        keep[o] = false;
    }
    // An empty pair "()" is punctuation too.
    for i in 1..lex.len() {
        if keep[i] && keep[i - 1] && lex[i - 1] == Lex::Open && lex[i] == Lex::Close {
            keep[i - 1] = false;
            keep[i] = false;
        }
    }
    lex.into_iter()
        .zip(keep)
        .filter_map(|(l, k)| k.then_some(l))
        .collect()
}

/// Turns the operators that have nothing to work on into words: `AND` and
/// `OR` need an item on each side, `NOT`, `-` and a field one after them.
fn resolve(mut lex: Vec<Lex>) -> Vec<Lex> {
    // Right to left, so that `NOT NOT` and `- -x` settle from the item.
    for i in (0..lex.len()).rev() {
        let next_starts = lex.get(i + 1).is_some_and(Lex::starts_item);
        let literal = match &lex[i] {
            Lex::Not | Lex::Minus => !next_starts,
            Lex::Field(_) => !matches!(
                lex.get(i + 1),
                Some(Lex::Bare(_) | Lex::Quoted(_) | Lex::Open)
            ),
            _ => false,
        };
        if literal {
            lex[i] = as_word(&lex[i]);
        }
    }
    for i in 0..lex.len() {
        if matches!(lex[i], Lex::And | Lex::Or) {
            let prev_ends = i > 0 && lex[i - 1].ends_item();
            let next_starts = lex.get(i + 1).is_some_and(Lex::starts_item);
            if !(prev_ends && next_starts) {
                lex[i] = as_word(&lex[i]);
            }
        }
    }
    lex
}

fn as_word(l: &Lex) -> Lex {
    Lex::Bare(word_of(l).to_string())
}

/// What an operator reads as when it is not one.
fn word_of(l: &Lex) -> &'static str {
    match l {
        Lex::And => "AND",
        Lex::Or => "OR",
        Lex::Not => "NOT",
        Lex::Field(f) => f.name(),
        _ => "",
    }
}

struct Parser {
    lex: Vec<Lex>,
    at: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Lex> {
        self.lex.get(self.at)
    }

    fn or(&mut self, depth: usize) -> Option<Node> {
        let mut branches = Vec::new();
        branches.extend(self.and(depth));
        while self.peek() == Some(&Lex::Or) {
            self.at += 1;
            branches.extend(self.and(depth));
        }
        match branches.len() {
            0 => None,
            1 => branches.pop(),
            _ => Some(Node::Or(branches)),
        }
    }

    fn and(&mut self, depth: usize) -> Option<Node> {
        let mut items: Vec<(Node, bool)> = Vec::new();
        let mut required_next = false;
        loop {
            match self.peek() {
                None | Some(Lex::Or) | Some(Lex::Close) => break,
                Some(Lex::And) => {
                    self.at += 1;
                    if let Some(last) = items.last_mut() {
                        last.1 = true;
                    }
                    required_next = true;
                }
                Some(_) => {
                    if let Some(item) = self.unary(depth) {
                        items.push((item, required_next));
                    }
                    required_next = false;
                }
            }
        }
        match items.len() {
            0 => None,
            1 if !items[0].1 => items.pop().map(|(n, _)| n),
            _ => Some(Node::And(items)),
        }
    }

    fn unary(&mut self, depth: usize) -> Option<Node> {
        // Counted, not recursed: `NOT NOT ...` may be pasted 100,000 times.
        let mut negations = 0;
        while matches!(self.peek(), Some(Lex::Not | Lex::Minus)) {
            self.at += 1;
            negations += 1;
        }
        let item = self.item(depth, None)?;
        Some(match negations {
            0 => item,
            // Two negations cancel, and leave the item required.
            n if n % 2 == 0 => Node::Not(Box::new(Node::Not(Box::new(item)))),
            _ => Node::Not(Box::new(item)),
        })
    }

    fn item(&mut self, depth: usize, field: Option<Field>) -> Option<Node> {
        let lex = self.peek()?.clone();
        self.at += 1;
        let term = |kind, text: &str| {
            Some(Node::Term(Term {
                kind,
                field,
                text: text.to_string(),
            }))
        };
        match lex {
            Lex::Open => {
                let inner = self.or(depth + 1);
                // Paired by `pair_parens`.
                if self.peek() == Some(&Lex::Close) {
                    self.at += 1;
                }
                let inner = match field {
                    Some(f) => inner.map(|n| with_field(n, f)),
                    None => inner,
                };
                inner.map(|n| Node::Group(Box::new(n)))
            }
            Lex::Field(f) if field.is_none() => self.item(depth, Some(f)),
            Lex::Quoted(text) => term(Kind::Phrase, &text),
            Lex::Bare(text) => match text.strip_suffix('*') {
                Some(stem) if stem.chars().any(char::is_alphanumeric) => {
                    term(Kind::Prefix, stem.trim_end_matches('*'))
                }
                _ => term(Kind::Words, &text),
            },
            // A field right after a field (`from:` `"x"` cannot lex so, but
            // the parser must not trust that): the first one holds.
            Lex::Field(_) => self.item(depth, field),
            // `resolve` leaves no other lexeme where an item starts.
            other => term(Kind::Words, word_of(&other)),
        }
    }
}

/// `field` applied to every term of `node` that has no field of its own.
fn with_field(node: Node, field: Field) -> Node {
    match node {
        Node::Term(mut t) => {
            t.field.get_or_insert(field);
            Node::Term(t)
        }
        Node::Not(n) => Node::Not(Box::new(with_field(*n, field))),
        Node::And(items) => Node::And(
            items
                .into_iter()
                .map(|(n, r)| (with_field(n, field), r))
                .collect(),
        ),
        Node::Or(ns) => Node::Or(ns.into_iter().map(|n| with_field(n, field)).collect()),
        Node::Group(n) => Node::Group(Box::new(with_field(*n, field))),
    }
}

#[cfg(test)]
#[path = "syntax_tests.rs"]
mod tests;
