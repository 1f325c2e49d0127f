//! The lowered query written out: as the FTS5 expression (its phrases
//! collected in FTS5's order), as the user would write it (`--explain`), and
//! the words it looks for.

use std::fmt::Write as _;

use super::super::syntax::{Field, Node};
use super::lower::Q;
use super::quote;

/// The FTS5 column a field searches.
fn column(field: Field) -> &'static str {
    match field {
        Field::From => "sender",
        Field::To => "recipients",
        Field::Subject => "subject",
        Field::Vendor => "vendor",
        Field::Title => "title",
        // Lowered to a filter (or plain words) before it reaches here.
        Field::Source => "text",
    }
}

#[derive(Clone, Copy)]
pub(super) enum Style {
    Fts5,
    User,
}

/// `q` as an FTS5 expression (collecting its phrases in order) or as the
/// user would write it.
pub(super) fn render(q: &Q, style: Style, phrases: &mut Vec<String>) -> String {
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

pub(super) fn has_column(q: &Q) -> bool {
    match q {
        Q::Unit(u) => u.field.is_some(),
        Q::All(items) | Q::Any(items) => items.iter().any(has_column),
        Q::Without(pos, _) => has_column(pos),
    }
}

/// Whether any unit, looked for or excluded, is in `field`.
pub(super) fn names_field(q: &Q, field: Field) -> bool {
    match q {
        Q::Unit(u) => u.field == Some(field),
        Q::All(items) | Q::Any(items) => items.iter().any(|q| names_field(q, field)),
        Q::Without(pos, negs) => {
            names_field(pos, field) || negs.iter().any(|q| names_field(q, field))
        }
    }
}

/// The words of every unit not excluded, once each.
pub(super) fn positive_words(q: &Q, out: &mut Vec<String>) {
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
pub(super) fn plain_words(node: &Node) -> String {
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
