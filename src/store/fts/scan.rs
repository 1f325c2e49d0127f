//! Rankings in one call, without the statement stepping row by row:
//! `alfred_bm25_scan()` and `alfred_bm25_planned()`.
//!
//! `alfred_bm25()` is called by SQLite once per matching row: each call is
//! a step of the virtual-table cursor, a column read, an auxiliary-function
//! call with its arguments read again, and a count (perf on the 100k
//! corpus: a fifth of a common word's ranking outside FTS5 and the score
//! itself). For an expression of phrases joined by `OR`, these functions
//! are called on the first matching row only, and walk each phrase's rows
//! themselves through FTS5's `xQueryPhrase` (`walk.rs`), scoring as
//! `alfred_bm25()` does and handing the rows to the statement's scope
//! (`scope.rs`) the same way. The rows come in rowid order, so an upper rowid bound
//! stops a walk.
//!
//! `alfred_bm25_planned()` also does the counting `plan.rs` would have done
//! in a statement of its own per phrase: a phrase's rows are its document
//! frequency, so one walk gives the IDFs and the parts they weigh.

use std::ffi::c_int;

use rusqlite::ffi;

use super::bm25::{Args, query_data};
use super::filter::Filter;
use super::plan::{fts5_idf, kept};
use super::prune;
use super::scope::Lent;
use super::walk::{Walk, add_up, into_scope};
use super::window::{Window, bound};

/// The arguments after the weights and the blob: `extra` of them, read by
/// position.
struct Tail {
    values: Vec<*mut ffi::sqlite3_value>,
}

impl Tail {
    /// # Safety
    /// `ap_val` holds `n_val` live argument values, `n_val >= extra`.
    unsafe fn read(n_val: c_int, ap_val: *mut *mut ffi::sqlite3_value, extra: usize) -> Tail {
        let n = n_val as usize;
        // SAFETY: as promised by our caller.
        let values = (n - extra..n).map(|i| unsafe { *ap_val.add(i) }).collect();
        Tail { values }
    }

    fn int(&self, i: usize) -> i64 {
        // SAFETY: a live argument value.
        unsafe { ffi::sqlite3_value_int64(self.values[i]) }
    }

    /// The filter of the arguments `i`, `i + 1` (after, before: the
    /// window, NULL for no bound) and `i + 2` (the sources'
    /// `filter::source_mask`, 0 or NULL for every source): None when it
    /// lets every row through.
    ///
    /// # Safety
    /// `db` is the live connection of the query.
    unsafe fn filter(&self, db: *mut ffi::sqlite3, i: usize) -> Option<Filter> {
        // SAFETY: live argument values; `db` as promised by our caller.
        unsafe {
            let (a, b) = (self.values[i], self.values[i + 1]);
            let null = |v| ffi::sqlite3_value_type(v) == ffi::SQLITE_NULL;
            let window = (!(null(a) && null(b)))
                .then(|| Window::open(db, bound(a, i64::MIN), bound(b, i64::MAX)));
            Filter::new(db, window, self.int(i + 2))
        }
    }
}

/// `alfred_bm25_scan(memory_fts, weights..., idf, lo, hi, after, before,
/// sources)`: score every row with rowid in [lo, hi) that passes the
/// filter (the window [after, before) unless both are NULL; the sources of
/// `filter::source_mask` unless it is 0) into the open scope, with the IDFs
/// given; returns NULL. As the statements of `alfred_bm25()` and
/// `alfred_dated_in()` do, the scope counts the rows scored and, with a
/// filter, the rows tested: for one phrase every row in range; for
/// several, the rows of the walk's lists, which may leave out common
/// words' rows that cannot reach the top (`prune.rs`).
pub(super) unsafe extern "C" fn bm25_scan(
    api: *const ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    ctx: *mut ffi::sqlite3_context,
    n_val: c_int,
    ap_val: *mut *mut ffi::sqlite3_value,
) {
    // SAFETY: FTS5's call, passed on as it came.
    unsafe {
        one_call(api, fts, ctx, n_val, ap_val, |walk, tail, n_phrase| {
            walk.lo = tail.int(0);
            walk.hi = tail.int(1);
            if n_phrase == 1 {
                return walk.score_one();
            }
            // The IDFs were counted first: the common phrases are known
            // exactly, and may be walked on the rare ones' rows only.
            let n = walk.scope.keep();
            let idf = walk.data.idf.clone();
            let rows = walk.data.rows;
            let mut lists = prune::walk(walk, n_phrase, n, rows, Some(&idf))?;
            let chosen: Vec<(usize, f64)> = idf.iter().copied().enumerate().collect();
            let bound = walk.args.part_bound(walk.data.avgdl);
            lists.settle(walk, &chosen, n, bound)?;
            emit(&mut walk.scope, &lists, &chosen, walk.filter.is_some());
            Ok(())
        })
    }
}

/// `alfred_bm25_planned(memory_fts, weights..., ones, rows, n, after,
/// before, sources)`: `plan.rs`'s plan and the ranking it leads to, in one walk of
/// every phrase. `ones` gives the average row length and an IDF of 1 per
/// phrase (so each row's part x is kept unweighted), `rows` the index's
/// row count. Each phrase's rows count its document frequency; the IDFs
/// and the phrases that count follow as in `plan::plan`; the rows of the
/// phrases that count are scored into the scope if at least `n` of them
/// pass the filter, else the rows of every phrase (the others weighing 0),
/// as `fast::ranked` does with the plan's two expressions. The common
/// phrases may be scored on the rare ones' rows only (`prune.rs`): then
/// the ranking comes from those rows when [`prune::Lists::certain`] says no
/// other row can reach the top `n`, and from the completed lists
/// otherwise. Returns NULL.
pub(super) unsafe extern "C" fn bm25_planned(
    api: *const ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    ctx: *mut ffi::sqlite3_context,
    n_val: c_int,
    ap_val: *mut *mut ffi::sqlite3_value,
) {
    // SAFETY: FTS5's call, passed on as it came.
    unsafe {
        one_call(api, fts, ctx, n_val, ap_val, |walk, tail, n_phrase| {
            let (rows, n) = (tail.int(0), usize::try_from(tail.int(1)).unwrap_or(0));
            let mut lists = prune::walk(walk, n_phrase, n, rows, None)?;
            let filtered = walk.filter.is_some();
            let bound = walk.args.part_bound(walk.data.avgdl);
            let keep = kept(rows, &lists.dfs);
            let idf = |i: usize| {
                if keep.contains(&i) {
                    fts5_idf(rows, lists.dfs[i])
                } else {
                    0.0
                }
            };
            let reduced: Vec<(usize, f64)> = keep.iter().map(|&i| (i, idf(i))).collect();
            let full: Vec<(usize, f64)> = (0..n_phrase).map(|i| (i, idf(i))).collect();
            // The pruned lists rank exactly when no skipped row can reach
            // the top (`prune.rs`); else they are completed first. Certain
            // of the reduced phrases, at least `n` of their rows pass.
            if keep.len() < n_phrase && lists.pruned() && lists.certain(&reduced, n, bound) {
                prune::note(prune::Outcome::Exact);
                emit(&mut walk.scope, &lists, &reduced, filtered);
                return Ok(());
            }
            if keep.len() == n_phrase {
                lists.settle(walk, &full, n, bound)?;
            } else if lists.pruned() {
                lists.complete(walk)?;
            }
            if keep.len() < n_phrase && !lists.pruned() {
                let mut passing = 0;
                add_up(&lists.weighed(&reduced), |_, sum| {
                    passing += usize::from(!sum.is_nan())
                });
                if passing >= n {
                    emit(&mut walk.scope, &lists, &reduced, filtered);
                    return Ok(());
                }
            }
            emit(&mut walk.scope, &lists, &full, filtered);
            Ok(())
        })
    }
}

/// Score the rows of the phrases `chosen` (index and IDF) into the scope.
fn emit(scope: &mut Lent, lists: &prune::Lists, chosen: &[(usize, f64)], filtered: bool) {
    add_up(&lists.weighed(chosen), |row, sum| {
        into_scope(scope, row, sum, filtered)
    });
}

/// What both functions share: their last five arguments (the filter the
/// last three), the weights and blob before them, the query's data, and a
/// walk over every rowid for `rank` to narrow and run; NULL or the error
/// as the result.
///
/// # Safety
/// FTS5's arguments to an auxiliary function, as it passed them.
unsafe fn one_call(
    api: *const ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    ctx: *mut ffi::sqlite3_context,
    n_val: c_int,
    ap_val: *mut *mut ffi::sqlite3_value,
    rank: impl FnOnce(&mut Walk, &Tail, usize) -> Result<(), c_int>,
) {
    // SAFETY (whole function): FTS5 calls with a valid API, context and
    // `n_val` argument values; the walk's state outlives every
    // xQueryPhrase it runs.
    unsafe {
        let api = &*api;
        if n_val < 5 {
            ffi::sqlite3_result_error_code(ctx, ffi::SQLITE_MISUSE);
            return;
        }
        let tail = Tail::read(n_val, ap_val, 5);
        let args = Args::read(n_val - 5, ap_val);
        let db = (api.xUserData.unwrap())(fts).cast::<ffi::sqlite3>();
        let n_phrase = (api.xPhraseCount.unwrap())(fts).max(0) as usize;
        let ranked = query_data(api, fts, args.given_idf).and_then(|data| {
            let mut walk = Walk::new(api, fts, data, &args);
            walk.filter = tail.filter(db, 2);
            rank(&mut walk, &tail, n_phrase)
        });
        match ranked {
            Ok(()) => ffi::sqlite3_result_null(ctx),
            Err(rc) => ffi::sqlite3_result_error_code(ctx, rc),
        }
    }
}

#[cfg(test)]
#[path = "scan_tests.rs"]
mod tests;
