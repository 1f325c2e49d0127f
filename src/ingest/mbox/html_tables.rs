//! HTML tables turned into rows of text before html2text sees them.
//!
//! html2text lays a table out as a grid: every line of a row is padded to the
//! width of all the columns. One long cell above many short rows makes each
//! short row as long as the long cell, so 245 KB of HTML (one 100 KB cell
//! above 5,000 rows) took 1 GB to render, 3 GB with the rules drawn, and the
//! 2 MB cap on HTML allowed eight times that: a nightly import killed at the
//! same message every night. Side by side, a layout table's columns were also
//! interleaved line by line, a sidebar's words cutting through the article's.
//!
//! Here each table becomes a block, each row a line and each cell a run of
//! inline text, a space from its neighbour. The words are the same and in
//! reading order, and the text grows with the HTML, not with rows × columns.
//!
//! After rendering, a table's short blocks are joined to their neighbours
//! (`html_blocks.rs`); the outermost tables are marked for that here.
//!
//! The rewrite reads the markup as the parser's tokenizer does
//! (`html_scan.rs`) to know which rows and cells are open. Whatever it reads
//! wrong, no table reaches html2text: every table tag in the text it copies
//! (comments, scripts, attribute values included) has its `<` written
//! `&lt;` ([`neutralise`]), and no replacement can join its neighbours into
//! a tag.

use std::borrow::Cow;

use super::find_ascii_ci;
use super::scan::{Markup, cdata_len, ends_tag_name, is_raw_text, markup, raw_text_len};

/// Written around each outermost table, kept through rendering, and taken
/// out by `join_short_blocks`: private-use characters, removed from the
/// HTML first so that mail cannot forge them.
pub(super) const TABLE_START: char = '\u{e000}';
pub(super) const TABLE_END: char = '\u{e001}';

/// What a tag that becomes nothing is replaced by: `</_` opens a bogus
/// comment, which the parser drops. Every replacement starts with `<`, which
/// cannot end a tag name, so text before it never becomes a tag it was not
/// (`<table` + ` x` would be `<table x`); no replacement is empty
/// (`<tab</td>le>` must not become `<table>`); and none holds `-->`, which
/// would end a comment it is written in.
pub(super) const GUARD: &str = "</_>";

/// A row is a block, a cell inline content. An `<object>` is what html2text
/// shows as its content, and to the parser it is what a cell is: a scope
/// (its end tag closes what was left open inside, a `<blockquote>` too) and
/// a marker for formatting elements (a `<b>` left open in one cell is not
/// made again in every cell after it).
const ROW: (&str, &str) = ("<div>", "</div>");
const CELL: (&str, &str) = ("<object> ", "</object>");

/// The table elements, by what they become.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Part {
    Table,
    Row,
    /// `<td>`, `<th>`, and `<caption>` (a cell on a row of its own).
    Cell,
    Caption,
    /// `<thead>`, `<tbody>`, `<tfoot>`: they end a row and become nothing.
    Section,
    /// `<col>`, `<colgroup>`: no text, dropped.
    Column,
}

impl Part {
    fn of(name: &str) -> Option<Part> {
        const PARTS: [(&str, Part); 10] = [
            ("table", Part::Table),
            ("tr", Part::Row),
            ("td", Part::Cell),
            ("th", Part::Cell),
            ("caption", Part::Caption),
            ("thead", Part::Section),
            ("tbody", Part::Section),
            ("tfoot", Part::Section),
            ("col", Part::Column),
            ("colgroup", Part::Column),
        ];
        PARTS
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, part)| *part)
    }
}

/// What is open in one table of the rewrite.
#[derive(Default)]
struct Open {
    row: bool,
    cell: bool,
}

impl Open {
    fn close_cell(&mut self, out: &mut String) {
        if std::mem::take(&mut self.cell) {
            out.push_str(CELL.1);
        }
    }

    fn close_row(&mut self, out: &mut String) {
        self.close_cell(out);
        if std::mem::take(&mut self.row) {
            out.push_str(ROW.1);
        }
    }

    fn open_cell(&mut self, out: &mut String) {
        self.close_cell(out);
        if !self.row {
            out.push_str(ROW.0);
            self.row = true;
        }
        out.push_str(CELL.0);
        self.cell = true;
    }
}

/// `html` with its tables written as blocks, lines and inline cells, each
/// outermost table marked for `join_short_blocks`. Borrowed, unchanged,
/// when it holds no `<table`.
pub(super) fn flatten_tables(html: &str) -> Cow<'_, str> {
    if find_ascii_ci(html, "<table").is_none() {
        return Cow::Borrowed(html);
    }
    let unmarked;
    let html = if html.contains([TABLE_START, TABLE_END]) {
        unmarked = html.replace([TABLE_START, TABLE_END], "");
        &unmarked
    } else {
        html
    };
    let mut out = String::with_capacity(html.len());
    let mut tables: Vec<Open> = Vec::new();
    // How deep in `<svg>` or `<math>` the scan is: there nothing is raw
    // text, and CDATA sections are.
    let mut foreign = 0usize;
    // `html[kept..]` is not yet copied; the scan is at `html[at..]`.
    let (mut kept, mut at) = (0, 0);
    while let Some(lt) = html[at..].find('<') {
        let start = at + lt;
        if foreign > 0
            && let Some(len) = cdata_len(&html[start..])
        {
            at = start + len;
            continue;
        }
        let (name, end, len) = match markup(&html[start..]) {
            Markup::Text => {
                at = start + 1;
                continue;
            }
            Markup::Opaque(len) => {
                at = start + len;
                continue;
            }
            // The tokenizer takes the rest into the tag and drops it.
            Markup::Unterminated => {
                neutralise(&html[kept..start], &mut out);
                kept = html.len();
                break;
            }
            Markup::Tag { name, end, len } => (name, end, len),
        };
        at = start + len;
        if ["svg", "math"].iter().any(|f| f.eq_ignore_ascii_case(name)) {
            let closed = html[..at].ends_with("/>");
            foreign = match (end, closed) {
                (true, _) => foreign.saturating_sub(1),
                (false, false) => foreign + 1,
                (false, true) => foreign,
            };
        }
        let fostered = tables.last().is_some_and(|t| !t.cell);
        if let Some(part) = Part::of(name) {
            neutralise(&html[kept..start], &mut out);
            let before = out.len();
            rewrite(&mut out, &mut tables, part, end);
            if out.len() == before {
                out.push_str(GUARD);
            }
            kept = at;
        } else if !end && foreign == 0 && is_raw_text(name) {
            at += raw_text_len(&html[at..], name);
        } else if fostered && !stays_in_table(name) {
            // Between a table's rows the parser moves an element out in
            // front of the table, so it wraps none of the rows after it (a
            // `<blockquote>` there would quote the whole table).
            neutralise(&html[kept..start], &mut out);
            out.push_str(GUARD);
            kept = at;
        }
    }
    neutralise(&html[kept..], &mut out);
    if !tables.is_empty() {
        out.push(TABLE_END);
    }
    Cow::Owned(out)
}

/// Tags kept between a table's rows, start and end: scripts, styles and
/// the other elements whose content is text (dropping only one of the pair
/// would leave the other open to the end), templates, and void elements,
/// which wrap nothing.
fn stays_in_table(name: &str) -> bool {
    const KEPT: &[&str] = &[
        "template", "br", "img", "input", "hr", "wbr", "area", "embed",
    ];
    is_raw_text(name) || KEPT.iter().any(|k| k.eq_ignore_ascii_case(name))
}

/// `text` copied to `out` with the `<` of every table tag in it written
/// `&lt;`: what the rewrite reads as text, the parser may read as markup.
/// Where it is text (a `<textarea>`, an attribute value) the entity shows
/// the `<` as written; where it would have been a tag, it shows the tag as
/// text instead of making a table.
fn neutralise(text: &str, out: &mut String) {
    let b = text.as_bytes();
    let mut kept = 0;
    for (lt, _) in text.match_indices('<') {
        let name_at = lt + 1 + usize::from(b.get(lt + 1) == Some(&b'/'));
        let name_len = b[name_at..]
            .iter()
            .take(9)
            .take_while(|c| !ends_tag_name(**c))
            .count();
        let name_end = name_at + name_len;
        let ends = b.get(name_end).is_none_or(|c| ends_tag_name(*c));
        if ends && Part::of(&text[name_at..name_end]).is_some() {
            out.push_str(&text[kept..lt]);
            out.push_str("&lt;");
            kept = lt + 1;
        }
    }
    out.push_str(&text[kept..]);
}

/// Writes what `part` becomes, keeping the open rows and cells of each
/// table closed as the parser would close them (a new row ends the cell and
/// the row before it). A table part outside any table becomes nothing, as
/// the parser ignores it.
fn rewrite(out: &mut String, tables: &mut Vec<Open>, part: Part, end_tag: bool) {
    if part == Part::Table && !end_tag {
        out.push_str(ROW.0);
        if tables.is_empty() {
            out.push(TABLE_START);
        }
        tables.push(Open::default());
        return;
    }
    let Some(table) = tables.last_mut() else {
        return;
    };
    match (part, end_tag) {
        (Part::Table, _) => {
            table.close_row(out);
            tables.pop();
            if tables.is_empty() {
                out.push(TABLE_END);
            }
            out.push_str(ROW.1);
        }
        (Part::Row, false) => {
            table.close_row(out);
            out.push_str(ROW.0);
            table.row = true;
        }
        (Part::Caption, false) => {
            table.close_row(out);
            table.open_cell(out);
        }
        (Part::Row | Part::Caption | Part::Section, _) => table.close_row(out),
        (Part::Cell, false) => table.open_cell(out),
        (Part::Cell, true) => table.close_cell(out),
        (Part::Column, _) => {}
    }
}

#[cfg(test)]
#[path = "html_tables_tests.rs"]
mod tests;
