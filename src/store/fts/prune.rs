//! Walking a query's common words only where they can matter: the rows of
//! `alfred_bm25_planned()` and `alfred_bm25_scan()` (`scan.rs`) for words
//! joined by `OR`.
//!
//! A row's score is a sum of one part per phrase, `idf × x`, and x is below
//! k1 + 1 whatever the row (`Args::part_bound`). So a row holding none of
//! the rare phrases scores below U, the sum of `idf × (k1 + 1)` over the
//! common ones; when the `n`-th best row among the rows of the rare phrases
//! already scores above U, no other row can enter the top `n`. The rare
//! phrases are then walked whole, and the common ones only scored on the
//! rare phrases' rows: every other row of theirs is stepped over and
//! counted (its document frequency still counts every row), without the
//! position list, length and part that are most of a row's cost (perf on
//! the 100k corpus: about two thirds of a walked row).
//!
//! Which phrases are rare is guessed before the IDFs are known, from a first
//! walk of at most a few hundred rows per phrase; whether the guess was good
//! enough is decided afterwards, exactly, by [`Lists::certain`]. When it is
//! not, [`Lists::complete`] walks the common phrases again for the rows they
//! skipped, and the ranking is the unpruned one. Either way the rows and
//! their sums are those of every phrase walked whole (`scan_tests.rs`).

use std::ffi::c_int;
use std::rc::Rc;

use super::plan::{fts5_idf, kept};
use super::walk::{Cursor, Part, Rows, Walk, add_up};

/// Rows of a phrase walked before it is taken for a common one, as a
/// multiple of the rows asked for (and at least [`MIN_PROBE`]).
const PROBE_PER_ROW: usize = 2;
const MIN_PROBE: usize = 256;

/// How far above the guessed U the rare phrases' `n`-th best row must score
/// for the common phrases to be walked on its rows only.
const GUESS_MARGIN: f64 = 1.2;

/// How far above U the `n`-th best row must score: more than the rounding
/// of any sum of a few dozen parts.
const MARGIN: f64 = 1e-9;

/// How a pruned walk ended, counted on the thread by tests.
#[derive(Debug, Clone, Copy)]
pub enum Outcome {
    /// Certain: ranked from the pruned lists.
    Exact,
    /// Not certain: the lists were completed.
    Completed,
}

#[cfg(test)]
thread_local! {
    pub static OUTCOMES: std::cell::Cell<[u32; 2]> = const { std::cell::Cell::new([0; 2]) };
}

#[inline]
pub fn note(outcome: Outcome) {
    #[cfg(test)]
    OUTCOMES.with(|o| {
        let mut counts = o.get();
        counts[outcome as usize] += 1;
        o.set(counts);
    });
    #[cfg(not(test))]
    let _ = outcome;
}

/// Each phrase's parts and document frequency.
pub struct Lists {
    pub parts: Vec<Vec<Part>>,
    pub dfs: Vec<i64>,
    /// Phrases whose parts are on the rows of `rare` only.
    partial: Vec<bool>,
    /// The rows of the phrases walked whole, in rowid order.
    rare: Rc<[i64]>,
    /// Each phrase's rows as guessed from its first walk, for reserving.
    guesses: Vec<usize>,
}

impl Lists {
    /// Whether some phrase was walked only on the rare phrases' rows.
    pub fn pruned(&self) -> bool {
        self.partial.iter().any(|&p| p)
    }

    /// Whether the best `n` rows of the phrases `chosen` (index and IDF,
    /// in phrase order), passing the filter, are all rows of the rare
    /// phrases, so that the partial lists rank them exactly; `bound` is the
    /// largest part x a row can have (None: no bound is known).
    pub fn certain(&self, chosen: &[(usize, f64)], n: usize, bound: Option<f64>) -> bool {
        let Some(bound) = bound else {
            return false;
        };
        if n == 0 {
            return false;
        }
        let above: f64 = chosen
            .iter()
            .filter(|&&(i, _)| self.partial[i])
            .map(|&(_, idf)| idf * bound)
            .sum();
        if !above.is_finite() || chosen.iter().any(|&(_, idf)| idf.is_nan() || idf < 0.0) {
            return false;
        }
        let mut sums = Vec::new();
        add_up(&self.weighed(chosen), |_, sum| {
            if !sum.is_nan() {
                sums.push(sum);
            }
        });
        if sums.len() < n {
            return false;
        }
        let (_, nth, _) = sums.select_nth_unstable_by(n - 1, |a, b| b.total_cmp(a));
        *nth > above * (1.0 + MARGIN)
    }

    /// Make pruned lists rank `chosen` exactly: as they are when
    /// [`Lists::certain`] says so, else completed. Unpruned lists are left
    /// as they are.
    pub fn settle(
        &mut self,
        walk: &mut Walk,
        chosen: &[(usize, f64)],
        n: usize,
        bound: Option<f64>,
    ) -> Result<(), c_int> {
        if !self.pruned() {
            return Ok(());
        }
        if self.certain(chosen, n, bound) {
            note(Outcome::Exact);
            Ok(())
        } else {
            self.complete(walk)
        }
    }

    /// The lists of `chosen` with their IDFs, as `add_up` takes them.
    pub fn weighed(&self, chosen: &[(usize, f64)]) -> Vec<(&[Part], f64)> {
        chosen
            .iter()
            .map(|&(i, idf)| (self.parts[i].as_slice(), idf))
            .collect()
    }

    /// Walk the partial phrases again for the rows they skipped: then
    /// every list holds every row of its phrase.
    pub fn complete(&mut self, walk: &mut Walk) -> Result<(), c_int> {
        for ip in 0..self.parts.len() {
            if !self.partial[ip] {
                continue;
            }
            let skipped = Rows::NotIn(Cursor::new(self.rare.clone()));
            let room = self.guesses[ip].saturating_sub(self.parts[ip].len());
            let (rest, _) = walk.parts_on(ip, skipped, Vec::with_capacity(room))?;
            let on = std::mem::take(&mut self.parts[ip]);
            self.parts[ip] = merge(on, rest);
            self.partial[ip] = false;
        }
        note(Outcome::Completed);
        Ok(())
    }
}

/// Walk the `n_phrase` phrases of a query whose best `n` rows are wanted,
/// in a table of `rows` rows: the rarest whole, the others only on the
/// rarest ones' rows when that looks both exact and worth it. `given` are
/// the phrases' IDFs when the caller counted them (`alfred_bm25_scan`);
/// otherwise they are guessed, to decide, from the first walk.
pub fn walk(
    walk: &mut Walk,
    n_phrase: usize,
    n: usize,
    rows: i64,
    given: Option<&[f64]>,
) -> Result<Lists, c_int> {
    let probe = PROBE_PER_ROW.saturating_mul(n).max(MIN_PROBE);
    let mut probes = (0..n_phrase)
        .map(|ip| walk.first_parts(ip, probe))
        .collect::<Result<Vec<_>, _>>()?;
    // Whole walks by length, then the cut ones sparsest first: the one
    // that reached the highest rowid in as many rows.
    let mut order: Vec<usize> = (0..n_phrase).collect();
    order.sort_by_key(|&i| match &probes[i] {
        (parts, true) => (0, parts.len() as i64),
        (parts, false) => (1, -last_rowid(parts)),
    });
    // The rare phrases: the fewest that hold `n` rows between them.
    let mut rare = vec![false; n_phrase];
    let mut held = 0;
    for &i in &order {
        if held >= n.max(1) {
            break;
        }
        rare[i] = true;
        held += probes[i].0.len();
    }
    let span = Span::of(walk, rows);
    let guesses: Vec<usize> = probes
        .iter()
        .map(|(parts, whole)| span.guess(parts, *whole))
        .collect();
    let mut parts: Vec<Vec<Part>> = Vec::with_capacity(n_phrase);
    let mut dfs = vec![0; n_phrase];
    for ip in 0..n_phrase {
        let (probed, whole) = std::mem::take(&mut probes[ip]);
        let list = if whole || !rare[ip] {
            probed
        } else {
            let from = last_rowid(&probed);
            after(walk, ip, probed, from, Rows::All, guesses[ip])?.0
        };
        dfs[ip] = list.len() as i64;
        parts.push(list);
    }
    let mut rowids: Vec<i64> = (0..n_phrase)
        .filter(|&i| rare[i])
        .flat_map(|i| parts[i].iter().map(|&(rowid, _)| rowid))
        .collect();
    rowids.sort_unstable();
    rowids.dedup();
    let rare_rows: Rc<[i64]> = rowids.into();
    let common: Vec<usize> = (0..n_phrase).filter(|&i| !rare[i]).collect();
    let prune = worth_pruning(walk, &parts, &guesses, &rare, rows, n, given);
    for &ip in &common {
        let probed = std::mem::take(&mut parts[ip]);
        let from = last_rowid(&probed);
        let (list, df) = if prune {
            let on: Vec<Part> = probed
                .iter()
                .filter(|(rowid, _)| rare_rows.binary_search(rowid).is_ok())
                .copied()
                .collect();
            let on_rare = Rows::In(Cursor::new(rare_rows.clone()));
            let room = rare_rows.len().min(guesses[ip]);
            let (list, counted) = after(walk, ip, on, from, on_rare, room)?;
            (list, probed.len() as i64 + counted)
        } else {
            let (list, _) = after(walk, ip, probed, from, Rows::All, guesses[ip])?;
            let df = list.len() as i64;
            (list, df)
        };
        parts[ip] = list;
        dfs[ip] = df;
    }
    Ok(Lists {
        parts,
        dfs,
        partial: (0..n_phrase).map(|i| prune && !rare[i]).collect(),
        rare: rare_rows,
        guesses,
    })
}

/// The rowids a walk covers, for guessing how many rows a phrase has
/// there: rowids run from 1 to about the table's row count.
struct Span {
    start: i64,
    rows: i64,
}

impl Span {
    fn of(walk: &Walk, rows: i64) -> Span {
        let start = walk.lo.max(0);
        let end = walk.hi.min(rows.max(1)).max(start + 1);
        Span {
            start,
            rows: end - start,
        }
    }

    /// A phrase's rows guessed from a first walk: all of them when it was
    /// whole, else its rows over the share of the span it reached.
    fn guess(&self, parts: &[Part], whole: bool) -> usize {
        if whole {
            return parts.len();
        }
        let reached = (last_rowid(parts) - self.start).max(1) as f64;
        let guessed = parts.len() as f64 * self.rows as f64 / reached;
        (guessed as usize).clamp(parts.len(), (self.rows as usize).max(parts.len()))
    }
}

/// Phrase `ip`'s parts after a first walk that ended on the row `from`:
/// `probed` (what is kept of that walk) then the parts of the rows `rows`
/// picks after `from`, in a list reserved for about `room` parts, and how
/// many rows after `from` the phrase has.
fn after(
    walk: &mut Walk,
    ip: usize,
    mut probed: Vec<Part>,
    from: i64,
    rows: Rows,
    room: usize,
) -> Result<(Vec<Part>, i64), c_int> {
    // A little over the guess: a list a few rows longer would be copied.
    probed.reserve((room + room / 8 + 64).saturating_sub(probed.len()));
    let lo = walk.lo;
    walk.lo = walk.lo.max(from.saturating_add(1));
    let walked = walk.parts_on(ip, rows, probed);
    walk.lo = lo;
    walked
}

fn last_rowid(parts: &[Part]) -> i64 {
    parts.last().map_or(i64::MIN, |&(rowid, _)| rowid)
}

/// Whether to walk the common phrases on the rare ones' rows only: when
/// they look common enough for it to skip most of their rows, and the rare
/// phrases' own parts already put `n` rows above what the common phrases
/// could add, with their document frequencies guessed from the first walk
/// (the rows in it, over the share of the rowids it reached). The guess
/// only chooses the work: [`Lists::certain`] decides, exactly, afterwards.
fn worth_pruning(
    walk: &Walk,
    parts: &[Vec<Part>],
    guesses: &[usize],
    rare: &[bool],
    rows: i64,
    n: usize,
    given: Option<&[f64]>,
) -> bool {
    let Some(bound) = walk.args.part_bound(walk.data.avgdl) else {
        return false;
    };
    if n == 0 || rare.iter().all(|&r| r) || rows <= 0 {
        return false;
    }
    // The rare phrases were walked whole: their rows are counted.
    let guessed: Vec<i64> = (0..parts.len())
        .map(|i| {
            if rare[i] {
                parts[i].len() as i64
            } else {
                guesses[i] as i64
            }
        })
        .collect();
    let rare_rows: i64 = (0..parts.len())
        .filter(|&i| rare[i])
        .map(|i| guessed[i])
        .sum();
    let common_rows = (0..parts.len())
        .filter(|&i| !rare[i])
        .map(|i| guessed[i])
        .min();
    if common_rows.is_none_or(|c| 2 * rare_rows > c) {
        return false;
    }
    let keep = kept(rows, &guessed);
    let idf = |i: usize| match given {
        Some(given) => given.get(i).copied().unwrap_or(f64::NAN),
        None if keep.contains(&i) => fts5_idf(rows, guessed[i]),
        None => 0.0,
    };
    let above: f64 = (0..parts.len())
        .filter(|&i| !rare[i])
        .map(|i| idf(i) * bound)
        .sum();
    let weighed: Vec<(&[Part], f64)> = (0..parts.len())
        .filter(|&i| rare[i])
        .map(|i| (parts[i].as_slice(), idf(i)))
        .collect();
    let mut sums = Vec::new();
    add_up(&weighed, |_, sum| {
        if !sum.is_nan() {
            sums.push(sum);
        }
    });
    if sums.len() < n {
        return false;
    }
    let (_, nth, _) = sums.select_nth_unstable_by(n - 1, |a, b| b.total_cmp(a));
    above.is_finite() && *nth > above * GUESS_MARGIN
}

/// Two lists of parts on different rows, each in rowid order, as one.
fn merge(a: Vec<Part>, b: Vec<Part>) -> Vec<Part> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut a, mut b) = (a.into_iter().peekable(), b.into_iter().peekable());
    loop {
        let next = match (a.peek(), b.peek()) {
            (Some(x), Some(y)) if x.0 <= y.0 => a.next(),
            (Some(_), Some(_)) => b.next(),
            (Some(_), None) => a.next(),
            (None, Some(_)) => b.next(),
            (None, None) => break,
        };
        out.extend(next);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::merge;

    #[test]
    fn merging_keeps_rowid_order() {
        let a = vec![(1, 0.5), (4, 1.0), (9, f64::NAN)];
        let b = vec![(2, 0.25), (3, 0.1), (10, 2.0)];
        let rowids: Vec<i64> = merge(a, b).iter().map(|p| p.0).collect();
        assert_eq!(rowids, [1, 2, 3, 4, 9, 10]);
    }
}
