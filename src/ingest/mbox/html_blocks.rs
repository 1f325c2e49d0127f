//! A table's short blocks joined to their neighbours, after rendering.
//!
//! In a layout, short blocks are labels, names and prices ("In Utilities:"
//! above "ESftp 4.1"), not the greetings the chunker drops as noise. The grid
//! html2text drew had kept them by accident, padded past the noise floor by
//! the column beside them; as rows of text (`html_tables.rs`) they would fall
//! below it. The outermost tables arrive marked.

use super::tables::{TABLE_END, TABLE_START};
use crate::ingest::chunk::MIN_PIECE_CHARS;

/// Rendered `text` with the table marks taken out, and inside each marked
/// table every block shorter than the chunker's noise floor joined by a line
/// break to the block after it (the last one to the block before).
pub(super) fn join_short_blocks(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find(TABLE_START) {
        out.push_str(&rest[..start]);
        rest = &rest[start + TABLE_START.len_utf8()..];
        let end = rest.find(TABLE_END).unwrap_or(rest.len());
        let mut table = &rest[..end];
        rest = rest.get(end + TABLE_END.len_utf8()..).unwrap_or("");
        // A mark on a line of its own leaves no blank line behind.
        if out.is_empty() || out.ends_with('\n') {
            table = table.strip_prefix('\n').unwrap_or(table);
        }
        join_blocks(table, &mut out);
        if out.ends_with('\n') {
            rest = rest.strip_prefix('\n').unwrap_or(rest);
        }
    }
    out.push_str(rest);
    // A mark the parser took into a comment leaves its partner alone.
    out.replace([TABLE_START, TABLE_END], "")
}

/// `table`'s blocks (split on lines of only whitespace, as the chunker
/// splits them) written to `out`, each at least [`MIN_PIECE_CHARS`] long where joining
/// can make it so.
fn join_blocks(table: &str, out: &mut String) {
    // The line ends around the table stay: they part it from its neighbours.
    let body = table.trim_matches('\n');
    let head = table.len() - table.trim_start_matches('\n').len();
    out.push_str(&table[..head]);
    let mut joined: Vec<String> = Vec::new();
    let mut pending = String::new();
    for line in body.split('\n') {
        if line.trim().is_empty() {
            if pending.trim().chars().count() >= MIN_PIECE_CHARS {
                joined.push(std::mem::take(&mut pending));
            }
            continue;
        }
        if !pending.is_empty() {
            pending.push('\n');
        }
        pending.push_str(line);
    }
    let short = pending.trim().chars().count() < MIN_PIECE_CHARS;
    if !pending.is_empty() {
        match joined.last_mut() {
            Some(last) if short => {
                last.push('\n');
                last.push_str(&pending);
            }
            _ => joined.push(pending),
        }
    }
    out.push_str(&joined.join("\n\n"));
    out.push_str(&table[head + body.len()..]);
}

#[cfg(test)]
#[path = "html_blocks_tests.rs"]
mod tests;
