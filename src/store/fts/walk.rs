//! Walking a phrase's rows through FTS5's `xQueryPhrase`, and adding up
//! several phrases' parts of each row's score: what the one-call rankings
//! of `scan.rs` are made of.
//!
//! FTS5's bm25 of a row is `0 + idf₀ × x₀ + idf₁ × x₁ + …`, one term per
//! phrase in phrase order, where `x` depends on the phrase's weighted count
//! in the row and the row's length, and is exactly 0 for a phrase the row
//! lacks. A walk keeps each row's `x` (computed as `1 × x`, which is `x`);
//! [`add_up`] multiplies and adds in FTS5's order, so the sums are FTS5's,
//! bit for bit.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::ffi::{c_int, c_void};

use rusqlite::ffi;

use super::auxiliary::check;
use super::bm25::{Args, QueryData, phrase_freq, row_length, row_score, term};
use super::filter::Filter;
use super::scope::{self, Lent};

/// One row's part of a phrase's score: (rowid, x), x NaN when the row does
/// not pass the filter (window, sources).
pub type Part = (i64, f64);

/// What a walk needs on every row.
pub struct Walk<'a> {
    api: &'a ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    pub data: &'a mut QueryData,
    pub args: &'a Args<'a>,
    /// Rows walked: rowid in [lo, hi); every row to begin with.
    pub lo: i64,
    pub hi: i64,
    /// The window and sources rows must pass, if any.
    pub filter: Option<Filter>,
    /// Where the parts go; None: each row is scored whole (its expression
    /// has one phrase) and handed to the scope.
    parts: Option<Vec<Part>>,
    /// With parts: the walk stops once it holds this many.
    cap: usize,
    /// With parts: which rows get one (`Rows`); the others are only counted.
    rows: Rows,
    /// With parts: the phrase's rows in range, whether they got a part or not.
    counted: i64,
    /// The statement's scope, for the walk's length.
    pub scope: Lent,
    /// Without parts: the only phrase's IDF, when a row's score at length
    /// 0 bounds its score at any length (`score_whole`); set once a walk.
    unread_bound: Option<f64>,
}

impl<'a> Walk<'a> {
    /// A walk of the phrases of the query FTS5 passed to an auxiliary
    /// function as `api` and `fts`.
    ///
    /// # Safety
    /// The walk is used only inside that function's call.
    pub unsafe fn new(
        api: &'a ffi::Fts5ExtensionApi,
        fts: *mut ffi::Fts5Context,
        data: &'a mut QueryData,
        args: &'a Args<'a>,
    ) -> Walk<'a> {
        Walk {
            api,
            fts,
            data,
            args,
            lo: i64::MIN,
            hi: i64::MAX,
            filter: None,
            parts: None,
            cap: usize::MAX,
            rows: Rows::All,
            counted: 0,
            scope: scope::lend(),
            unread_bound: None,
        }
    }

    /// Score the rows of the expression's only phrase into the scope,
    /// counting the rows tested against the filter, if there is one.
    pub fn score_one(&mut self) -> Result<(), c_int> {
        self.parts = None;
        let bounded = self.args.part_bound(self.data.avgdl).is_some();
        self.unread_bound = match self.data.idf.as_slice() {
            &[idf] if bounded && idf >= 0.0 => Some(idf),
            _ => None,
        };
        self.query(0)
    }

    /// Phrase `ip`'s first `cap` parts, and whether they are all of them.
    pub fn first_parts(&mut self, ip: usize, cap: usize) -> Result<(Vec<Part>, bool), c_int> {
        let (parts, _) = self.parts_of(ip, cap, Rows::All, Vec::new())?;
        let complete = parts.len() < cap;
        Ok((parts, complete))
    }

    /// Phrase `ip`'s parts on the rows `rows` picks, after those already
    /// `into` (reserved by the caller: a list that grows by copying faults
    /// in fresh pages twice over), and how many rows in range the phrase has
    /// in all (its document frequency on a whole walk).
    pub fn parts_on(
        &mut self,
        ip: usize,
        rows: Rows,
        into: Vec<Part>,
    ) -> Result<(Vec<Part>, i64), c_int> {
        self.parts_of(ip, usize::MAX, rows, into)
    }

    fn parts_of(
        &mut self,
        ip: usize,
        cap: usize,
        rows: Rows,
        into: Vec<Part>,
    ) -> Result<(Vec<Part>, i64), c_int> {
        self.parts = Some(into);
        self.cap = cap.max(1);
        self.rows = rows;
        self.counted = 0;
        let walked = self.query(ip);
        self.rows = Rows::All;
        self.cap = usize::MAX;
        let parts = self.parts.take().unwrap_or_default();
        walked.map(|()| (parts, self.counted))
    }

    fn query(&mut self, ip: usize) -> Result<(), c_int> {
        // SAFETY: the API and context FTS5 gave the calling function, still
        // inside that call; `self` outlives xQueryPhrase.
        unsafe {
            check((self.api.xQueryPhrase.unwrap())(
                self.fts,
                ip as c_int,
                (self as *mut Walk).cast(),
                Some(visit),
            ))
        }
    }
}

/// One row of a phrase's walk; SQLITE_DONE past the range.
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
        if walk.parts.is_some() {
            walk.counted += 1;
            if !walk.rows.picks(rowid) {
                return ffi::SQLITE_OK;
            }
        }
        if let Some(filter) = &mut walk.filter {
            let inside = filter.passes(rowid);
            match &mut walk.parts {
                None => walk.scope.tested(),
                Some(parts) if !inside => parts.push((rowid, f64::NAN)),
                Some(_) => {}
            }
            if !inside {
                return ffi::SQLITE_OK;
            }
        }
        let walked = match &mut walk.parts {
            None => score_whole(api, fts, walk, rowid),
            Some(parts) => phrase_freq(api, fts, 0, walk.args).and_then(|f| {
                let d = row_length(api, fts, walk.data)?;
                parts.push((rowid, term(1.0, f, d, walk.data.avgdl)));
                Ok(())
            }),
        };
        match walked {
            Ok(()) if walk.parts.as_ref().is_some_and(|p| p.len() >= walk.cap) => ffi::SQLITE_DONE,
            Ok(()) => ffi::SQLITE_OK,
            Err(rc) => rc,
        }
    }
}

/// Score the row `fts` is on, its expression's only phrase, into the
/// scope. The row's length is the costly read (a packed block), so it is
/// read only when the row could be kept: `x` grows as the length shrinks,
/// so the row's score is at most its score at length 0, and a row whose
/// best cannot beat the scope's worst (ties go to the lower rowid, and
/// the walk comes in rowid order) is only counted. The same floating-point
/// operations are monotone, so the bound holds bit for bit, and the rows
/// kept and their scores are those of scoring every row.
///
/// # Safety
/// As [`visit`]: `fts` is the phrase's cursor on row `rowid`.
unsafe fn score_whole(
    api: &ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    walk: &mut Walk,
    rowid: i64,
) -> Result<(), c_int> {
    // SAFETY: as promised by our caller.
    unsafe {
        let data = &mut *walk.data;
        let Some(idf) = walk.unread_bound else {
            let s = row_score(api, fts, data, walk.args)?;
            walk.scope.scored(-s, rowid);
            return Ok(());
        };
        let f = phrase_freq(api, fts, 0, walk.args)?;
        let best = 0.0 + term(idf, f, 0.0, data.avgdl);
        if best.is_finite() && !walk.scope.could_keep(-best, rowid) {
            walk.scope.passed_over();
            return Ok(());
        }
        let d = row_length(api, fts, data)?;
        // As `row_score` adds up one phrase: 0 + idf × x.
        walk.scope
            .scored(-(0.0 + term(idf, f, d, data.avgdl)), rowid);
        Ok(())
    }
}

/// Which rows of a walk get a part: all of them, only those in a list, or
/// all but those in it. The list is in rowid order, as a walk visits rows.
pub enum Rows {
    All,
    In(Cursor),
    NotIn(Cursor),
}

impl Rows {
    #[inline]
    fn picks(&mut self, rowid: i64) -> bool {
        match self {
            Rows::All => true,
            Rows::In(c) => c.holds(rowid),
            Rows::NotIn(c) => !c.holds(rowid),
        }
    }
}

/// A sorted list of rowids, asked about rows in rising order.
pub struct Cursor {
    rowids: std::rc::Rc<[i64]>,
    next: usize,
}

impl Cursor {
    pub fn new(rowids: std::rc::Rc<[i64]>) -> Cursor {
        Cursor { rowids, next: 0 }
    }

    #[inline]
    fn holds(&mut self, rowid: i64) -> bool {
        while self.rowids.get(self.next).is_some_and(|&r| r < rowid) {
            self.next += 1;
        }
        self.rowids.get(self.next) == Some(&rowid)
    }
}

/// Each row of the phrases' parts (one list per phrase, in rowid order,
/// with the phrase's IDF) and its score `0 + idf₀ × x₀ + …` in phrase
/// order, handed to `emit` in rowid order. A row the filter keeps out has
/// NaN for every part (the filter's test is the row's, whichever phrase
/// walked it), so its sum is NaN.
pub fn add_up(lists: &[(&[Part], f64)], mut emit: impl FnMut(i64, f64)) {
    match lists {
        [] => {}
        [(list, idf)] => list.iter().for_each(|&(row, x)| emit(row, 0.0 + idf * x)),
        [a, b] => add_up_two(*a, *b, emit),
        _ => add_up_merged(lists, emit),
    }
}

/// [`add_up`] of two lists, without the heap (most queries have two
/// words): the same sums, `0 + idf₀ × x₀ + idf₁ × x₁`, in the same order.
fn add_up_two((a, ia): (&[Part], f64), (b, ib): (&[Part], f64), mut emit: impl FnMut(i64, f64)) {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let ((ra, xa), (rb, xb)) = (a[i], b[j]);
        if ra < rb {
            emit(ra, 0.0 + ia * xa);
            i += 1;
        } else if rb < ra {
            emit(rb, 0.0 + ib * xb);
            j += 1;
        } else {
            emit(ra, (0.0 + ia * xa) + ib * xb);
            i += 1;
            j += 1;
        }
    }
    a[i..].iter().for_each(|&(row, x)| emit(row, 0.0 + ia * x));
    b[j..].iter().for_each(|&(row, x)| emit(row, 0.0 + ib * x));
}

/// [`add_up`] of any number of lists, merged through a heap of their heads.
fn add_up_merged(lists: &[(&[Part], f64)], mut emit: impl FnMut(i64, f64)) {
    let mut heads: BinaryHeap<Reverse<(i64, usize)>> = BinaryHeap::with_capacity(lists.len());
    let mut next = vec![0usize; lists.len()];
    for (ip, (list, _)) in lists.iter().enumerate() {
        if let Some(&(rowid, _)) = list.first() {
            heads.push(Reverse((rowid, ip)));
        }
    }
    let mut current: Option<(i64, f64)> = None;
    while let Some(Reverse((rowid, ip))) = heads.pop() {
        let (list, idf) = lists[ip];
        let part = idf * list[next[ip]].1;
        next[ip] += 1;
        if let Some(&(following, _)) = list.get(next[ip]) {
            heads.push(Reverse((following, ip)));
        }
        current = match current {
            Some((row, sum)) if row == rowid => Some((row, sum + part)),
            other => {
                if let Some((row, sum)) = other {
                    emit(row, sum);
                }
                Some((rowid, 0.0 + part))
            }
        };
    }
    if let Some((row, sum)) = current {
        emit(row, sum);
    }
}

/// A row added up, into the scope: tested against the filter, if there is
/// one (NaN: it failed), and scored.
pub fn into_scope(scope: &mut Lent, rowid: i64, sum: f64, filtered: bool) {
    if filtered {
        scope.tested();
    }
    if !sum.is_nan() {
        scope.scored(-sum, rowid);
    }
}

#[cfg(test)]
mod tests {
    use super::{Part, add_up, add_up_merged};
    use crate::lcg::Lcg;

    /// The one- and two-list shortcuts give the heap's rows and sums, bit
    /// for bit, NaN (a row the filter kept out) included.
    #[test]
    fn the_shortcuts_add_up_as_the_heap_does() {
        let mut rng = Lcg(3);
        for _ in 0..200 {
            let lists: Vec<(Vec<Part>, f64)> = (0..1 + rng.below(2))
                .map(|_| {
                    let mut rows: Vec<Part> = (0..rng.below(40))
                        .map(|_| (rng.below(60) as i64, rng.below(1000) as f64 / 7.0))
                        .collect();
                    rows.sort_by_key(|p| p.0);
                    rows.dedup_by_key(|p| p.0);
                    if let Some(p) = rows.first_mut() {
                        p.1 = f64::NAN;
                    }
                    (rows, 0.1 + rng.below(50) as f64 / 3.0)
                })
                .collect();
            let weighed: Vec<(&[Part], f64)> =
                lists.iter().map(|(l, i)| (l.as_slice(), *i)).collect();
            let (mut fast, mut heap) = (Vec::new(), Vec::new());
            add_up(&weighed, |row, sum| fast.push((row, sum.to_bits())));
            add_up_merged(&weighed, |row, sum| heap.push((row, sum.to_bits())));
            assert_eq!(fast, heap, "{lists:?}");
        }
    }
}
