//! The full-text engine: the bm25 top-K of a search, behind one door,
//! [`candidates`], which `Store::candidates` calls. Two engines answer it,
//! and rank exactly alike (`tests.rs` checks it on generated queries):
//!
//! - **plain** (`plain.rs`): FTS5's own `bm25()` in one query joined to the
//!   chunk rows and filtered there. It reads nothing FTS5 keeps private, so it
//!   is the oracle of the fast engine's tests and the fallback
//!   (`ALFRED_MEM_FTS=plain`, or a failed self-check).
//! - **fast** (`fast.rs`, the default): the same numbers for a fraction of the
//!   cost on common words (docs/PERFORMANCE.md, round 3 and round 4). FTS5's
//!   `bm25()` spends about half its time looking up each matching row's
//!   length, and counts every word's rows again in every query; so
//!   `alfred_bm25()` (`bm25.rs`) is FTS5's formula float for float, reading
//!   row lengths from packed blocks (`blocks.rs`, `block_reader.rs`) and IDFs
//!   counted once per search (`plan.rs`); a time window is tested on packed
//!   dates by `alfred_dated_in()` (`window.rs`); the best rows are kept by the
//!   scoring function itself through a scoped side channel (`scope.rs`)
//!   instead of SQLite's sorter (`statement.rs`). Words joined by `OR` (most
//!   queries) are not stepped row by row at all: `alfred_bm25_scan()` and
//!   `alfred_bm25_planned()` (`scan.rs`, `walk.rs`) walk each word's rows in
//!   one call through FTS5's `xQueryPhrase`, the second one counting the
//!   words on the same walk and scoring the common ones only on the rare
//!   ones' rows when no other row can reach the top (`prune.rs`). Large
//!   rankings are split across both cores (`split.rs`); visibility is
//!   checked on the winners only.
//!
//! The fast engine reads two of FTS5's private records (`formats.rs`). They
//! are not a promised interface, so before the first fast search of a store
//! `check.rs` compares them with what FTS5's API says; where they disagree (a
//! future SQLite), search uses the plain engine and says so once on stderr.
//! Writers keep the packed blocks up to date through [`catch_up`] and
//! [`refresh_length`]; [`register`] makes the auxiliary functions available
//! on a connection (`auxiliary.rs`).

mod auxiliary;
mod block_reader;
mod blocks;
mod bm25;
pub(super) mod check;
mod fast;
mod filter;
mod formats;
mod plain;
mod plan;
mod prune;
mod read_around;
mod scan;
mod scope;
pub(super) mod split;
mod statement;
mod tokenizer;
mod walk;
mod window;

#[cfg(test)]
mod tests;

use std::cell::{Cell, OnceCell, RefCell};
use std::str::FromStr;

use anyhow::Result;
use rusqlite::Connection;

use super::Store;
use super::search::{Candidate, CandidateQuery};

pub use auxiliary::register;
pub use blocks::{catch_up, refresh_length};
pub(super) use plan::last_rowid;
#[cfg(test)]
pub use tokenizer::TOKENIZE;

/// bm25 column weights for (text, subject, sender, vendor, title,
/// recipients). The who/what columns repeat on every chunk of a source, so
/// at full weight every paragraph of one email would rank alike on a
/// subject match.
pub(super) const BM25_WEIGHTS: &str = "1.0, 0.5, 0.5, 0.5, 0.5, 0.5";

/// rowid and bm25 of ranked rows, best first.
pub type Ranked = Vec<(i64, f64)>;

/// Best first: the most negative bm25, then the lowest rowid, as FTS5's
/// `ORDER BY rank, rowid` and `alfred_bm25`'s kept rows order them.
pub(super) fn rank_order(a: &(i64, f64), b: &(i64, f64)) -> std::cmp::Ordering {
    a.1.total_cmp(&b.1).then(a.0.cmp(&b.0))
}

/// Which engine ranks full-text matches (`ALFRED_MEM_FTS`, read by `Config`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FtsEngine {
    /// `alfred_bm25()` on packed blocks, checked against FTS5 at first use.
    #[default]
    Fast,
    /// FTS5's own `bm25()` in one joined query.
    Plain,
}

impl FromStr for FtsEngine {
    type Err = anyhow::Error;

    fn from_str(s: &str) -> Result<FtsEngine> {
        match s {
            "fast" => Ok(FtsEngine::Fast),
            "plain" => Ok(FtsEngine::Plain),
            _ => anyhow::bail!("expected `fast` or `plain`, not {s:?}"),
        }
    }
}

/// The engine's state on one store.
#[derive(Default)]
pub(super) struct Fts {
    /// The engine asked for.
    engine: FtsEngine,
    /// The self-check's verdict on this connection: None until it has seen a
    /// row (an empty index has nothing to compare, and nothing to rank).
    verified: Cell<Option<bool>>,
    /// A second read-only connection for the other core, opened the first
    /// time a ranking is large enough to split (`split.rs`); None inside
    /// when it cannot be opened.
    second: OnceCell<Option<RefCell<Connection>>>,
}

impl Fts {
    /// Rank with `engine` (`Config::fts`, through `Store::open_for`).
    pub(super) fn choose(&mut self, engine: FtsEngine) {
        self.engine = engine;
    }

    /// The engine that answers on `conn`: the one asked for, unless the fast
    /// one's private formats do not read as FTS5 says they should.
    pub(super) fn engine(&self, conn: &Connection) -> FtsEngine {
        if self.engine == FtsEngine::Plain {
            return FtsEngine::Plain;
        }
        let agree = self.verified.get().or_else(|| {
            let verdict = check::verify(conn);
            self.verified.set(verdict);
            verdict
        });
        match agree {
            Some(false) => FtsEngine::Plain,
            _ => FtsEngine::Fast,
        }
    }
}

/// The top `q.limit` visible chunks by bm25, in bm25 order, ties to the
/// older chunk: the candidate query of `Store::candidates`.
pub(super) fn candidates(store: &Store, q: &CandidateQuery) -> Result<Vec<Candidate>> {
    match store.fts.engine(&store.conn) {
        FtsEngine::Fast => fast::candidates(store, q),
        FtsEngine::Plain => plain::candidates(store, q),
    }
}
