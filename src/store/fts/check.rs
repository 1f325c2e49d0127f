//! The self-check before a store's first fast search: do FTS5's private
//! records still read as `formats.rs` expects?
//!
//! A future SQLite may store its docsize or averages records differently;
//! the fast engine would then score with wrong lengths or IDFs and nothing
//! would fail. So, once per store, the newest row is read both ways,
//! through the private records and through FTS5's API
//! (`alfred_fts_sizes()`): the row count and total tokens of the averages
//! record, the row's docsize record, and its packed length (the writers'
//! copy of the docsize record). Any difference, or a record that cannot be
//! read, sends search to the plain engine and is said once per process on
//! stderr. It costs one statement of indexed lookups: about 0.19 million
//! instructions (callgrind, against 3 to 30 million for a whole search at
//! 10k messages), most of them preparing it and FTS5's lookup by rowid.
//! One row is enough: the formats are the library's, not the row's.

use std::sync::Once;

use anyhow::Result;
use rusqlite::{Connection, OptionalExtension};

use super::auxiliary::Sizes;
use super::blocks::{self, BLOCK_ROWS, LENGTHS};
use super::formats;

/// What comparing the two readings found.
#[derive(Debug, PartialEq)]
pub enum Verdict {
    /// The index has no row to compare.
    NoRows,
    Agree,
    /// The first reading that differs.
    Disagree(String),
}

/// Whether the private records read as FTS5 says they should (Some(true)),
/// do not (Some(false), said on stderr), or there is no row to compare yet.
pub fn verify(conn: &Connection) -> Option<bool> {
    let why = match compare(conn) {
        Ok(Verdict::NoRows) => return None,
        Ok(Verdict::Agree) => return Some(true),
        Ok(Verdict::Disagree(why)) => why,
        Err(e) => format!("could not read them: {e}"),
    };
    say_once(&why);
    Some(false)
}

/// The row read both ways.
struct Reading {
    rowid: i64,
    /// Its tokens by its docsize record.
    docsize: u64,
    fts5: Sizes,
    /// Its tokens in the packed blocks, when they know it.
    packed: Option<u32>,
}

/// Read the newest row both ways.
pub fn compare(conn: &Connection) -> Result<Verdict> {
    let ours = formats::totals(conn)?;
    // One statement, as preparing is most of the cost: the row's docsize
    // record, FTS5's sizes (CROSS JOIN keeps memory_fts inner, looked up by
    // rowid) and its block of packed lengths.
    let sql = format!(
        "SELECT d.id, d.sz, alfred_fts_sizes(memory_fts), l.packed
         FROM memory_fts_docsize d
         CROSS JOIN memory_fts ON memory_fts.rowid = d.id
         LEFT JOIN {} l ON l.block = d.id / {BLOCK_ROWS}
         WHERE d.id = (SELECT max(id) FROM memory_fts_docsize)",
        LENGTHS.table
    );
    let newest = conn
        .query_row(&sql, [], |r| {
            let rowid = r.get(0)?;
            let sz: Vec<u8> = r.get(1)?;
            let sizes: Vec<u8> = r.get(2)?;
            let block: Option<Vec<u8>> = r.get(3)?;
            let slot = blocks::position(rowid).1;
            Ok(Reading {
                rowid,
                docsize: formats::docsize_tokens(&sz),
                fts5: Sizes::from_blob(&sizes),
                packed: block.and_then(|b| blocks::value_in(&b, &LENGTHS, slot)),
            })
        })
        .optional()?;
    let Some(Reading {
        rowid,
        docsize,
        fts5,
        packed,
    }) = newest
    else {
        return Ok(Verdict::NoRows);
    };
    let why = if (ours.rows, ours.tokens) != (fts5.rows, fts5.tokens) {
        format!(
            "the averages record reads {} rows and {} tokens, FTS5 counts {} and {}",
            ours.rows, ours.tokens, fts5.rows, fts5.tokens
        )
    } else if i64::try_from(docsize).ok() != Some(fts5.row_tokens) {
        format!(
            "the docsize record of row {rowid} reads {docsize} tokens, FTS5 counts {}",
            fts5.row_tokens
        )
    } else if let Some(packed) = packed.filter(|&p| i64::from(p) != fts5.row_tokens) {
        format!(
            "the packed length of row {rowid} is {packed} tokens, FTS5 counts {}",
            fts5.row_tokens
        )
    } else {
        return Ok(Verdict::Agree);
    };
    Ok(Verdict::Disagree(why))
}

/// Say on stderr, once per process, that search is using FTS5's own bm25().
/// The store says it itself: the fallback is its decision, and a
/// long-running server should say it once, not per request.
fn say_once(why: &str) {
    static SAID: Once = Once::new();
    SAID.call_once(|| {
        eprintln!(
            "alfred-mem: warning: FTS5's private records do not read as expected ({why}); \
             searching with FTS5's own bm25() instead, as ALFRED_MEM_FTS=plain does (slower)"
        )
    });
}
