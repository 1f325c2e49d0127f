//! The self-check before a store's first fast search: do FTS5's private
//! records still read as `formats.rs` expects?
//!
//! A future SQLite may store its docsize or averages records differently;
//! the fast engine would then score with wrong lengths or IDFs and nothing
//! would fail. So, once per store, the oldest and newest rows are read both
//! ways, through the private records and through FTS5's API
//! (`alfred_fts_sizes()`): the row count and total tokens of the averages
//! record, each row's docsize record, and its packed length (the writers'
//! copy of the docsize record). Any difference, or a record that cannot be
//! read, sends search to the plain engine and is said once per process on
//! stderr. It costs a few indexed lookups, well under a millisecond.

use std::sync::Once;

use anyhow::Result;
use rusqlite::Connection;

use super::auxiliary::sizes_where;
use super::blocks::{self, LENGTHS};
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

/// Read the oldest and newest rows both ways.
pub fn compare(conn: &Connection) -> Result<Verdict> {
    let (oldest, newest): (Option<i64>, Option<i64>) =
        conn.query_row("SELECT min(id), max(id) FROM memory_fts_docsize", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })?;
    let (Some(oldest), Some(newest)) = (oldest, newest) else {
        return Ok(Verdict::NoRows);
    };
    let ours = formats::totals(conn)?;
    for rowid in [oldest, newest] {
        let Some(fts5) = sizes_where(conn, "rowid = ?1", rowid)? else {
            return Ok(Verdict::Disagree(format!("FTS5 has no row {rowid}")));
        };
        if (ours.rows, ours.tokens) != (fts5.rows, fts5.tokens) {
            return Ok(Verdict::Disagree(format!(
                "the averages record reads {} rows and {} tokens, FTS5 counts {} and {}",
                ours.rows, ours.tokens, fts5.rows, fts5.tokens
            )));
        }
        let want = u64::try_from(fts5.row_tokens).ok();
        let docsize = formats::row_tokens(conn, rowid)?;
        if docsize != want {
            return Ok(Verdict::Disagree(format!(
                "the docsize record of row {rowid} reads {docsize:?} tokens, FTS5 counts {}",
                fts5.row_tokens
            )));
        }
        if let Some(packed) = blocks::stored(conn, &LENGTHS, rowid)?
            && want != Some(u64::from(packed))
        {
            return Ok(Verdict::Disagree(format!(
                "the packed length of row {rowid} is {packed} tokens, FTS5 counts {}",
                fts5.row_tokens
            )));
        }
    }
    Ok(Verdict::Agree)
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
