//! `alfred_bm25()`: FTS5's own bm25 formula, float for float, with one
//! difference in where it reads a row's length from.
//!
//! FTS5's `bm25()` looks up every matching row's length in the
//! `memory_fts_docsize` table: a statement run and a b-tree seek per row,
//! about half of the cost of ranking a common word (perf on the 100k
//! corpus). This function reads the lengths from `memory_fts_lengths`
//! instead: a packed array per 1,024 rows (`store::blocks`), loaded once per
//! query and block. A row the array does not know (written since, or longer
//! than a u16) is looked up the way FTS5 does, so the score never depends on
//! the array being up to date: only the speed does.
//!
//! Everything else (average length, IDF with FTS5's clamp at 1e-6, column
//! weights, k1 = 1.2, b = 0.75, the order of every floating-point operation)
//! is FTS5's `fts5Bm25Function`, and a test checks the two agree exactly.
//!
//! A blob after the weights gives the average row length and the phrases'
//! IDFs (little-endian f64s: the average, then one per phrase), counted once
//! by the caller (`fts_plan`) instead of FTS5 counting each phrase's rows
//! again in every query, and the same for every connection that scores a
//! part of one search.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::ffi::{c_int, c_void};

use rusqlite::ffi;

use super::block_reader::BlockReader;
use super::blocks::LENGTHS;
use super::fts_aux::{aux_data, check};
use super::fts_plan::fts5_idf;

thread_local! {
    /// Rows `alfred_bm25()` scored on this thread since the last `take_scored`.
    static SCORED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// How many rows `alfred_bm25()` scored on this thread since the last call:
/// every match of an unfiltered ranking, so a single word's document
/// frequency comes with its ranking (`fts_rank`).
pub fn take_scored() -> u64 {
    SCORED.with(|c| c.replace(0))
}

/// The best rows scored on this thread while a [`Keep`] is active, by
/// (bm25, rowid): what `ORDER BY b, rowid LIMIT n` would return, without
/// SQLite sorting (and handing back) every scored row.
pub struct Keep {
    n: usize,
    heap: BinaryHeap<Kept>,
}

/// A kept row; the heap's top is the worst of the kept.
#[derive(Debug, Clone, Copy)]
struct Kept(f64, i64);

impl PartialEq for Kept {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Kept {}
impl PartialOrd for Kept {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Kept {
    fn cmp(&self, other: &Self) -> Ordering {
        super::fts_rank::rank_order(&(self.1, self.0), &(other.1, other.0))
    }
}

thread_local! {
    static KEEP: std::cell::RefCell<Option<Keep>> = const { std::cell::RefCell::new(None) };
}

impl Keep {
    /// Keep the best `n` rows `alfred_bm25()` scores on this thread until
    /// [`Keep::finish`].
    pub fn start(n: usize) {
        KEEP.with(|k| {
            *k.borrow_mut() = Some(Keep {
                n,
                heap: BinaryHeap::with_capacity(n + 1),
            })
        });
    }

    /// The kept rows, best first (rowid, bm25), and stop keeping.
    pub fn finish() -> Vec<(i64, f64)> {
        let kept = KEEP.with(|k| k.borrow_mut().take());
        kept.map_or_else(Vec::new, |k| {
            k.heap
                .into_sorted_vec()
                .into_iter()
                .map(|Kept(b, id)| (id, b))
                .collect()
        })
    }

    fn offer(b: f64, rowid: i64) {
        KEEP.with(|k| {
            if let Some(keep) = k.borrow_mut().as_mut() {
                let row = Kept(b, rowid);
                if keep.heap.len() < keep.n {
                    keep.heap.push(row);
                } else if keep.heap.peek().is_some_and(|worst| row < *worst) {
                    keep.heap.pop();
                    keep.heap.push(row);
                }
            }
        });
    }
}

const K1: f64 = 1.2;
/// More weights than columns are never read (memory_fts has five).
const MAX_COLUMNS: usize = 16;
const B: f64 = 0.75;

/// What one query computes once: FTS5's `Fts5Bm25Data`, plus the blocks of
/// row lengths read so far.
struct QueryData {
    idf: Vec<f64>,
    avgdl: f64,
    freq: Vec<f64>,
    lengths: BlockReader,
}

unsafe extern "C" fn count_hit(
    _api: *const ffi::Fts5ExtensionApi,
    _fts: *mut ffi::Fts5Context,
    n: *mut c_void,
) -> c_int {
    // SAFETY: `n` is the i64 passed to xQueryPhrase below.
    unsafe { *n.cast::<i64>() += 1 };
    ffi::SQLITE_OK
}

/// The query's data, computed on the first row as `fts5Bm25GetData` does.
unsafe fn query_data<'a>(
    api: &ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    given: Option<&[u8]>,
) -> Result<&'a mut QueryData, c_int> {
    // SAFETY (whole function): FTS5 API calls with the context it gave us.
    unsafe {
        aux_data(api, fts, |db| {
            let n_phrase = (api.xPhraseCount.unwrap())(fts);
            let mut n_row: i64 = 0;
            let mut n_token: i64 = 0;
            check((api.xRowCount.unwrap())(fts, &mut n_row))?;
            check((api.xColumnTotalSize.unwrap())(fts, -1, &mut n_token))?;
            let mut avgdl = n_token as f64 / n_row as f64;
            let mut idf = Vec::with_capacity(n_phrase as usize);
            if let Some(given) = given {
                let values: Vec<f64> = given
                    .chunks_exact(8)
                    .map(|b| f64::from_le_bytes(b.try_into().expect("8 bytes")))
                    .collect();
                if given.len() != 8 * (1 + n_phrase as usize) {
                    return Err(ffi::SQLITE_MISUSE);
                }
                avgdl = values[0];
                idf.extend_from_slice(&values[1..]);
            }
            for i in (0..n_phrase).filter(|_| given.is_none()) {
                let mut n_hit: i64 = 0;
                check((api.xQueryPhrase.unwrap())(
                    fts,
                    i,
                    (&mut n_hit as *mut i64).cast(),
                    Some(count_hit),
                ))?;
                idf.push(fts5_idf(n_row, n_hit));
            }
            Ok(QueryData {
                freq: vec![0.0; idf.len()],
                idf,
                avgdl,
                lengths: BlockReader::open(db, &LENGTHS),
            })
        })
    }
}

pub(super) unsafe extern "C" fn bm25(
    api: *const ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    ctx: *mut ffi::sqlite3_context,
    n_val: c_int,
    ap_val: *mut *mut ffi::sqlite3_value,
) {
    // SAFETY (whole function): FTS5 calls this with a valid API, context and
    // `n_val` argument values; QueryData lives until the query ends.
    unsafe {
        let api = &*api;
        match score(api, fts, n_val, ap_val) {
            Ok(s) => {
                Keep::offer(-s, (api.xRowid.unwrap())(fts));
                ffi::sqlite3_result_double(ctx, -s)
            }
            Err(rc) => ffi::sqlite3_result_error_code(ctx, rc),
        }
    }
}

unsafe fn score(
    api: &ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    n_val: c_int,
    ap_val: *mut *mut ffi::sqlite3_value,
) -> Result<f64, c_int> {
    // SAFETY: as in `bm25`.
    unsafe {
        // A blob after the weights: average length and IDFs, from the caller.
        let mut n_weights = n_val.max(0) as usize;
        let mut given_idf = None;
        if n_weights > 0 {
            let last = *ap_val.add(n_weights - 1);
            if ffi::sqlite3_value_type(last) == ffi::SQLITE_BLOB {
                let p = ffi::sqlite3_value_blob(last).cast::<u8>();
                let n = ffi::sqlite3_value_bytes(last) as usize;
                // An empty blob: no IDFs given, count them as FTS5 does.
                if !p.is_null() && n > 0 {
                    given_idf = Some(std::slice::from_raw_parts(p, n));
                }
                n_weights -= 1;
            }
        }
        let data = query_data(api, fts, given_idf)?;
        // FTS5 adds the weights up over xInst, which lists every phrase's
        // instances merged by position; each phrase's own instances come in
        // the same order from its position list, so the sums are the same.
        let mut weights = [1.0f64; MAX_COLUMNS];
        let n_weights = n_weights.min(MAX_COLUMNS);
        for (c, w) in weights.iter_mut().enumerate().take(n_weights) {
            *w = ffi::sqlite3_value_double(*ap_val.add(c));
        }
        let weight = |c: c_int| {
            let c = c as usize;
            if c < n_weights { weights[c] } else { 1.0 }
        };
        for (ip, freq) in data.freq.iter_mut().enumerate() {
            *freq = 0.0;
            let mut iter: ffi::Fts5PhraseIter = std::mem::zeroed();
            let (mut ic, mut io) = (0, 0);
            check((api.xPhraseFirst.unwrap())(
                fts,
                ip as c_int,
                &mut iter,
                &mut ic,
                &mut io,
            ))?;
            while ic >= 0 {
                *freq += weight(ic);
                (api.xPhraseNext.unwrap())(fts, &mut iter, &mut ic, &mut io);
            }
        }
        SCORED.with(|c| c.set(c.get() + 1));
        let rowid = (api.xRowid.unwrap())(fts);
        let d = match data.lengths.get(rowid) {
            Some(d) => d as f64,
            None => {
                let mut n_tok: c_int = 0;
                check((api.xColumnSize.unwrap())(fts, -1, &mut n_tok))?;
                n_tok as f64
            }
        };
        let mut score = 0.0;
        for (idf, &f) in data.idf.iter().zip(&data.freq) {
            score += idf * ((f * (K1 + 1.0)) / (f + K1 * (1.0 - B + B * d / data.avgdl)));
        }
        Ok(score)
    }
}

#[cfg(test)]
#[path = "bm25_tests.rs"]
mod tests;
