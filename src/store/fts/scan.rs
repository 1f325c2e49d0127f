//! `alfred_bm25_scan()`: a one-phrase ranking in one call, without the
//! statement stepping row by row.
//!
//! `alfred_bm25()` is called by SQLite once per matching row: each call is
//! a step of the virtual-table cursor, a column read, an auxiliary-function
//! call with its arguments read again, and a count (perf on the 100k
//! corpus: a fifth of a common word's ranking outside FTS5 and the score
//! itself). When the expression is a single phrase, this function is
//! called on the first matching row only, and walks the phrase's rows
//! itself through FTS5's `xQueryPhrase`, scoring each exactly as
//! `alfred_bm25()` does (`bm25::row_score`) and handing it to the
//! statement's [`scope`] the same way. The rows come in rowid order, so an
//! upper rowid bound stops the walk.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::ffi::{c_int, c_void};

use rusqlite::ffi;

use super::auxiliary::check;
use super::bm25::{Args, QueryData, phrase_freq, query_data, row_length, row_score, term};
use super::scope;
use super::window::{Window, bound};

/// What the walk of one phrase needs on every row.
struct Walk<'a> {
    data: &'a mut QueryData,
    args: &'a Args<'a>,
    /// Rows scored: rowid in [lo, hi).
    lo: i64,
    hi: i64,
    /// The window rows must be dated in, if any.
    window: Option<Window>,
    /// Several phrases: which one is walked, and its part of each row's
    /// score, by rowid (NaN for a row outside the window). One phrase:
    /// None, each row's score goes straight to the scope.
    parts: Option<(usize, Vec<(i64, f64)>)>,
}

/// `alfred_bm25_scan(memory_fts, weights..., idf, lo, hi, after, before)`:
/// score every row of an expression of phrases joined by `OR` with rowid
/// in [lo, hi) and, unless `after` and `before` are both NULL, dated in
/// the window [after, before), into the open scope; returns NULL. As the
/// statements of `alfred_bm25()` and `alfred_dated_in()` do, the scope
/// counts the rows scored and, with a window, the rows tested.
///
/// One phrase is walked and each row scored as it comes. Several are
/// walked one after the other, each row's part of the score kept, and the
/// parts added up by rowid in phrase order: FTS5's sum, in which a phrase
/// the row lacks adds exactly 0.
pub(super) unsafe extern "C" fn bm25_scan(
    api: *const ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    ctx: *mut ffi::sqlite3_context,
    n_val: c_int,
    ap_val: *mut *mut ffi::sqlite3_value,
) {
    // SAFETY (whole function): FTS5 calls this with a valid API, context and
    // `n_val` argument values; the walk's state outlives xQueryPhrase.
    unsafe {
        let api = &*api;
        if n_val < 4 {
            ffi::sqlite3_result_error_code(ctx, ffi::SQLITE_MISUSE);
            return;
        }
        let n = n_val as usize;
        let arg = |i: usize| *ap_val.add(n - 4 + i);
        let lo = ffi::sqlite3_value_int64(arg(0));
        let hi = ffi::sqlite3_value_int64(arg(1));
        let unbounded = [arg(2), arg(3)]
            .iter()
            .all(|&v| ffi::sqlite3_value_type(v) == ffi::SQLITE_NULL);
        let (after, before) = (bound(arg(2), i64::MIN), bound(arg(3), i64::MAX));
        let args = Args::read(n_val - 4, ap_val);
        let db = (api.xUserData.unwrap())(fts).cast::<ffi::sqlite3>();
        let n_phrase = (api.xPhraseCount.unwrap())(fts).max(0) as usize;
        let walked = query_data(api, fts, args.given_idf).and_then(|data| {
            let mut walk = Walk {
                data,
                args: &args,
                lo,
                hi,
                window: (!unbounded).then(|| Window::open(db, after, before)),
                parts: None,
            };
            if n_phrase == 1 {
                return phrase(api, fts, 0, &mut walk);
            }
            let mut lists = Vec::with_capacity(n_phrase);
            for ip in 0..n_phrase {
                walk.parts = Some((ip, Vec::new()));
                phrase(api, fts, ip, &mut walk)?;
                lists.extend(walk.parts.take().map(|(_, list)| list));
            }
            add_up(&lists, walk.window.is_some());
            Ok(())
        });
        match walked {
            Ok(()) => ffi::sqlite3_result_null(ctx),
            Err(rc) => ffi::sqlite3_result_error_code(ctx, rc),
        }
    }
}

/// Walk phrase `ip` of the expression.
unsafe fn phrase(
    api: &ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    ip: usize,
    walk: &mut Walk,
) -> Result<(), c_int> {
    // SAFETY: FTS5's API and context, as our caller was given them; `walk`
    // outlives the call.
    unsafe {
        check((api.xQueryPhrase.unwrap())(
            fts,
            ip as c_int,
            (walk as *mut Walk).cast(),
            Some(visit),
        ))
    }
}

/// Each row's parts (one list per phrase, each in rowid order) added up in
/// phrase order, into the scope, in rowid order. A row outside the window
/// has NaN for every part (the window test is the row's, whichever phrase
/// walked it), so its sum is NaN.
fn add_up(lists: &[Vec<(i64, f64)>], windowed: bool) {
    let mut heads: BinaryHeap<Reverse<(i64, usize)>> = BinaryHeap::with_capacity(lists.len());
    let mut next = vec![0usize; lists.len()];
    for (ip, list) in lists.iter().enumerate() {
        if let Some(&(rowid, _)) = list.first() {
            heads.push(Reverse((rowid, ip)));
        }
    }
    let mut current: Option<(i64, f64)> = None;
    while let Some(Reverse((rowid, ip))) = heads.pop() {
        let part = lists[ip][next[ip]].1;
        next[ip] += 1;
        if let Some(&(following, _)) = lists[ip].get(next[ip]) {
            heads.push(Reverse((following, ip)));
        }
        current = match current {
            Some((row, sum)) if row == rowid => Some((row, sum + part)),
            other => {
                if let Some((row, sum)) = other {
                    done(row, sum, windowed);
                }
                Some((rowid, 0.0 + part))
            }
        };
    }
    if let Some((row, sum)) = current {
        done(row, sum, windowed);
    }
}

/// A row added up: tested against the window, if there is one (NaN: it
/// failed), and scored.
fn done(rowid: i64, sum: f64, windowed: bool) {
    if windowed {
        scope::tested();
    }
    if !sum.is_nan() {
        scope::scored(-sum, rowid);
    }
}

/// One row of a phrase's walk: scored when in range; SQLITE_DONE past it.
unsafe extern "C" fn visit(
    api: *const ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    walk: *mut c_void,
) -> c_int {
    // SAFETY: FTS5 passes the API, the phrase's own cursor on a row (its one
    // phrase is number 0), and the `Walk` given to xQueryPhrase, alive for
    // the whole call.
    unsafe {
        let api = &*api;
        let walk = &mut *walk.cast::<Walk>();
        let rowid = (api.xRowid.unwrap())(fts);
        if rowid >= walk.hi {
            return ffi::SQLITE_DONE;
        }
        if rowid < walk.lo {
            return ffi::SQLITE_OK;
        }
        if let Some(window) = &mut walk.window {
            let inside = window.inside(rowid);
            match &mut walk.parts {
                None => scope::tested(),
                Some((_, list)) if !inside => list.push((rowid, f64::NAN)),
                Some(_) => {}
            }
            if !inside {
                return ffi::SQLITE_OK;
            }
        }
        let scored = match &mut walk.parts {
            None => row_score(api, fts, walk.data, walk.args).map(|s| scope::scored(-s, rowid)),
            Some((ip, list)) => phrase_freq(api, fts, 0, walk.args).and_then(|f| {
                let d = row_length(api, fts, walk.data)?;
                let idf = walk.data.idf.get(*ip).copied().ok_or(ffi::SQLITE_MISUSE)?;
                list.push((rowid, term(idf, f, d, walk.data.avgdl)));
                Ok(())
            }),
        };
        match scored {
            Ok(()) => ffi::SQLITE_OK,
            Err(rc) => rc,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::plan;
    use super::super::statement::{row_by_row, scan};
    use crate::ingest::record::{Meta, Record};
    use crate::lcg::Lcg;
    use crate::store::Store;
    use crate::store::search::CandidateQuery;

    /// The walk ranks and counts exactly as the statement that steps every
    /// match: the same rows, scores bit for bit, the same count (scored
    /// rows, or tested rows with a window), over one to three phrases,
    /// rowid ranges, windows that cut days and facts that pass every window.
    #[test]
    fn the_walk_ranks_and_counts_as_row_by_row_scoring_does() {
        let mut store = Store::open_in_memory().unwrap();
        let b = store.begin_batch(1).unwrap();
        for i in 0..3000i64 {
            let text = format!(
                "acme {} report {} {}",
                "filler ".repeat((i % 7) as usize),
                i % 11,
                if i % 3 == 0 { "zebra zebra" } else { "" }
            );
            let rec = Record::email(&format!("m{i}"), Meta::default(), &[text], i * 7_000);
            b.write(&rec).unwrap();
        }
        b.commit().unwrap();
        store.remember("acme zebra is a fact", 1).unwrap();
        let vocab = [
            "\"acme\"",
            "\"report\"",
            "\"zebra\"",
            "\"7\"",
            "\"3\"",
            "\"filler\"",
            "\"nothing\"",
        ];
        let mut rng = Lcg(11);
        let mut windowed = 0;
        for case in 0..300 {
            let mut phrases: Vec<String> = Vec::new();
            for _ in 0..1 + rng.below(3) {
                let p = rng.pick(&vocab).to_string();
                if !phrases.contains(&p) {
                    phrases.push(p);
                }
            }
            let Some(plan) = plan::plan(&store.conn, None, &phrases, None).unwrap() else {
                continue;
            };
            let (after, before) = match rng.below(3) {
                0 => (None, None),
                1 => (Some(rng.below(21_000_000) as i64), None),
                _ => {
                    let a = rng.below(21_000_000) as i64;
                    (Some(a), Some(a + rng.below(5_000_000) as i64))
                }
            };
            windowed += usize::from(after.is_some());
            let n = *rng.pick(&[1, 10, 50, 400]);
            let q = CandidateQuery {
                after,
                before,
                ..CandidateQuery::words(&phrases, n)
            };
            let mid = 1 + rng.below(3000) as i64;
            for scoring in [plan.first(), &plan.full] {
                let case = format!(
                    "case {case}: {} n {n} window {after:?}..{before:?}",
                    scoring.expr
                );
                let walked = [
                    scan(&store.conn, &q, scoring, n, ..).unwrap(),
                    scan(&store.conn, &q, scoring, n, ..mid).unwrap(),
                    scan(&store.conn, &q, scoring, n, mid..).unwrap(),
                ];
                let stepped = [
                    row_by_row(&store.conn, &q, scoring, n, ..).unwrap(),
                    row_by_row(&store.conn, &q, scoring, n, ..mid).unwrap(),
                    row_by_row(&store.conn, &q, scoring, n, mid..).unwrap(),
                ];
                for (w, s) in walked.iter().zip(&stepped) {
                    let bits = |r: &super::super::Ranked| {
                        r.iter()
                            .map(|&(id, b)| (id, b.to_bits()))
                            .collect::<Vec<_>>()
                    };
                    assert_eq!(bits(&w.0), bits(&s.0), "{case}");
                    assert_eq!(w.1, s.1, "{case}: count");
                }
            }
        }
        assert!(windowed > 100, "{windowed} windowed");
    }
}
