//! `alfred_bm25()`: FTS5's own bm25 formula, float for float, with one
//! difference in where it reads a row's length from.
//!
//! FTS5's `bm25()` looks up every matching row's length in the
//! `memory_fts_docsize` table: a statement run and a b-tree seek per row,
//! about half of the cost of ranking a common word (perf on the 100k
//! corpus). This function reads the lengths from `memory_fts_narrow_lengths`
//! instead: a packed array per 1,024 rows (`blocks.rs`), loaded once per
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
//! by the caller (`plan.rs`) instead of FTS5 counting each phrase's rows
//! again in every query, and the same for every connection that scores a
//! part of one search. Each score is also reported to the statement's
//! [`scope`], if it opened one, which keeps the best rows.

use std::ffi::{c_int, c_void};

use rusqlite::ffi;

use super::auxiliary::{aux_data, check};
use super::block_reader::BlockReader;
use super::blocks::LENGTHS;
use super::plan::fts5_idf;
use super::scope;

const K1: f64 = 1.2;
/// More weights than columns are never read (memory_fts has six).
const MAX_COLUMNS: usize = 16;
const B: f64 = 0.75;

/// What one query computes once: FTS5's `Fts5Bm25Data`, plus the blocks of
/// row lengths read so far.
pub(super) struct QueryData {
    pub idf: Vec<f64>,
    pub avgdl: f64,
    /// The full-text table's rows, FTS5's `xRowCount`.
    pub rows: i64,
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
pub(super) unsafe fn query_data<'a>(
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
                rows: n_row,
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
                scope::scored(-s, (api.xRowid.unwrap())(fts));
                ffi::sqlite3_result_double(ctx, -s)
            }
            Err(rc) => ffi::sqlite3_result_error_code(ctx, rc),
        }
    }
}

/// The SQL arguments after the table: the column weights, and the blob of
/// average length and IDFs when one follows them.
pub(super) struct Args<'a> {
    weights: [f64; MAX_COLUMNS],
    n_weights: usize,
    pub given_idf: Option<&'a [u8]>,
}

impl Args<'_> {
    /// # Safety
    /// `ap_val` holds `n_val` live argument values (FTS5's call).
    pub(super) unsafe fn read<'a>(n_val: c_int, ap_val: *mut *mut ffi::sqlite3_value) -> Args<'a> {
        // SAFETY: as promised by our caller.
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
            let mut weights = [1.0f64; MAX_COLUMNS];
            let n_weights = n_weights.min(MAX_COLUMNS);
            for (c, w) in weights.iter_mut().enumerate().take(n_weights) {
                *w = ffi::sqlite3_value_double(*ap_val.add(c));
            }
            Args {
                weights,
                n_weights,
                given_idf,
            }
        }
    }

    /// Above every part `term(1.0, f, d, avgdl)` of a row can have with
    /// these weights: k1 + 1, when no weight is negative and the average
    /// length is positive (then `f >= 0` and the denominator exceeds `f`);
    /// None otherwise.
    pub(super) fn part_bound(&self, avgdl: f64) -> Option<f64> {
        let weights = &self.weights[..self.n_weights];
        (avgdl > 0.0 && weights.iter().all(|&w| w >= 0.0)).then_some(K1 + 1.0)
    }

    fn weight(&self, c: c_int) -> f64 {
        let c = c as usize;
        if c < self.n_weights {
            self.weights[c]
        } else {
            1.0
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
        let args = Args::read(n_val, ap_val);
        let data = query_data(api, fts, args.given_idf)?;
        row_score(api, fts, data, &args)
    }
}

/// The bm25 of the row `fts` is on (without FTS5's minus sign), as
/// `fts5Bm25Function` computes it.
///
/// # Safety
/// `api` and `fts` are what FTS5 passed to an auxiliary function, on a row.
pub(super) unsafe fn row_score(
    api: &ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    data: &mut QueryData,
    args: &Args,
) -> Result<f64, c_int> {
    // SAFETY: as promised by our caller.
    unsafe {
        for (ip, freq) in data.freq.iter_mut().enumerate() {
            *freq = phrase_freq(api, fts, ip as c_int, args)?;
        }
        let d = row_length(api, fts, data)?;
        let mut score = 0.0;
        for (&idf, &f) in data.idf.iter().zip(&data.freq) {
            score += term(idf, f, d, data.avgdl);
        }
        Ok(score)
    }
}

/// One phrase's part of a row's bm25 (FTS5 adds them up in phrase order).
#[inline]
pub(super) fn term(idf: f64, f: f64, d: f64, avgdl: f64) -> f64 {
    idf * ((f * (K1 + 1.0)) / (f + K1 * (1.0 - B + B * d / avgdl)))
}

/// Phrase `ip`'s weighted count of instances in the row `fts` is on.
///
/// # Safety
/// `api` and `fts` are what FTS5 passed to an auxiliary function or to an
/// `xQueryPhrase` callback, on a row; `ip` is one of its phrases.
pub(super) unsafe fn phrase_freq(
    api: &ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    ip: c_int,
    args: &Args,
) -> Result<f64, c_int> {
    // FTS5 adds the weights up over xInst, which lists every phrase's
    // instances merged by position; each phrase's own instances come in
    // the same order from its position list, so the sums are the same.
    // SAFETY: as promised by our caller.
    unsafe {
        let mut freq = 0.0;
        let mut iter: ffi::Fts5PhraseIter = std::mem::zeroed();
        let (mut ic, mut io) = (0, 0);
        check((api.xPhraseFirst.unwrap())(
            fts, ip, &mut iter, &mut ic, &mut io,
        ))?;
        while ic >= 0 {
            freq += args.weight(ic);
            (api.xPhraseNext.unwrap())(fts, &mut iter, &mut ic, &mut io);
        }
        Ok(freq)
    }
}

/// The length in tokens of the row `fts` is on: from the packed blocks,
/// or asked of FTS5 when they do not know it.
///
/// # Safety
/// As [`phrase_freq`].
pub(super) unsafe fn row_length(
    api: &ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    data: &mut QueryData,
) -> Result<f64, c_int> {
    // SAFETY: as promised by our caller.
    unsafe {
        let rowid = (api.xRowid.unwrap())(fts);
        Ok(match data.lengths.get(rowid) {
            Some(d) => d as f64,
            None => {
                let mut n_tok: c_int = 0;
                check((api.xColumnSize.unwrap())(fts, -1, &mut n_tok))?;
                n_tok as f64
            }
        })
    }
}

#[cfg(test)]
#[path = "bm25_tests.rs"]
mod tests;
