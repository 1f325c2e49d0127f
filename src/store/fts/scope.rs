//! The side channel from the auxiliary functions back to the statement that
//! calls them, open only for the length of one statement.
//!
//! FTS5 hands an auxiliary function the row and the SQL arguments, and takes
//! back one value; its user data is fixed when it is registered. An
//! unfiltered ranking wants more than one value per row: `alfred_bm25()`
//! keeps the best rows itself, in a heap, so that SQLite neither sorts nor
//! hands back every scored row; and how many rows it scored (or
//! `alfred_dated_in()` tested) is the document frequency a one-word query
//! needs (`fast.rs`). Both live in thread-locals that a [`Scope`] sets up on
//! entry (an empty heap, counts at zero) and takes down on drop, so a
//! statement that fails or panics leaves nothing for the next one; outside
//! a scope no row is kept.

use std::cell::{Cell, RefCell};
use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::marker::PhantomData;

use super::{Ranked, rank_order};

/// The best rows of the open scope.
struct Keeper {
    keep: usize,
    heap: BinaryHeap<Kept>,
}

thread_local! {
    /// None outside a scope: rows are then not kept.
    static KEPT: RefCell<Option<Keeper>> = const { RefCell::new(None) };
    /// Rows counted since the open scope began: plain cells beside
    /// `KEPT`, so the window test, run for every match, counts with one
    /// thread-local access and no borrow.
    static SCORED: Cell<u64> = const { Cell::new(0) };
    static TESTED: Cell<u64> = const { Cell::new(0) };
}

/// The side channel of one statement on this thread; closed when dropped.
pub struct Scope {
    /// What a scope opened before this one had (nothing in practice),
    /// given back on drop.
    outer: (Option<Keeper>, u64, u64),
    /// The channel is this thread's: the scope must not move to another.
    _this_thread: PhantomData<*const ()>,
}

/// What one scope saw.
#[derive(Debug, Default, PartialEq)]
pub struct Tally {
    /// The best rows `alfred_bm25()` scored, best first.
    pub kept: Ranked,
    /// Rows `alfred_bm25()` scored.
    pub scored: u64,
    /// Rows `alfred_dated_in()` tested.
    pub tested: u64,
}

impl Scope {
    /// Open a channel that keeps the best `keep` rows scored on this thread
    /// and counts from zero.
    pub fn enter(keep: usize) -> Scope {
        let keeper = Keeper {
            keep,
            heap: BinaryHeap::with_capacity(keep + 1),
        };
        Scope {
            outer: (
                KEPT.with(|k| k.borrow_mut().replace(keeper)),
                SCORED.replace(0),
                TESTED.replace(0),
            ),
            _this_thread: PhantomData,
        }
    }

    /// What was kept and counted, and close the channel.
    pub fn finish(self) -> Tally {
        let keeper = KEPT.with(|k| k.borrow_mut().take());
        Tally {
            kept: keeper.map_or_else(Vec::new, |k| {
                k.heap
                    .into_sorted_vec()
                    .into_iter()
                    .map(|Kept(b, id)| (id, b))
                    .collect()
            }),
            scored: SCORED.get(),
            tested: TESTED.get(),
        }
    }
}

impl Drop for Scope {
    fn drop(&mut self) {
        let (keeper, scored, tested) = (self.outer.0.take(), self.outer.1, self.outer.2);
        KEPT.with(|k| *k.borrow_mut() = keeper);
        SCORED.set(scored);
        TESTED.set(tested);
    }
}

/// `alfred_bm25()` scored row `rowid` as `bm25`.
#[inline]
pub fn scored(bm25: f64, rowid: i64) {
    SCORED.with(|n| n.set(n.get() + 1));
    KEPT.with(|k| {
        if let Some(k) = k.borrow_mut().as_mut() {
            k.offer(Kept(bm25, rowid));
        }
    });
}

impl Keeper {
    #[inline]
    fn offer(&mut self, row: Kept) {
        if self.heap.len() < self.keep {
            self.heap.push(row);
        } else if self.heap.peek().is_some_and(|worst| row < *worst) {
            self.heap.pop();
            self.heap.push(row);
        }
    }
}

/// The open scope's rows and counts lent to one caller that reports many
/// rows on this thread (a walk, `walk.rs`), so that a row costs no
/// thread-local access; given back to the scope when dropped.
pub struct Lent {
    keeper: Option<Keeper>,
    scored: u64,
    tested: u64,
    /// Lent from this thread's scope: given back on this thread.
    _this_thread: PhantomData<*const ()>,
}

/// Borrow the open scope (if none is open, rows reported are not kept,
/// as outside a scope).
pub fn lend() -> Lent {
    Lent {
        keeper: KEPT.with(|k| k.borrow_mut().take()),
        scored: 0,
        tested: 0,
        _this_thread: PhantomData,
    }
}

impl Lent {
    /// As [`scored`].
    #[inline]
    pub fn scored(&mut self, bm25: f64, rowid: i64) {
        self.scored += 1;
        if let Some(k) = self.keeper.as_mut() {
            k.offer(Kept(bm25, rowid));
        }
    }

    /// As [`tested`].
    #[inline]
    pub fn tested(&mut self) {
        self.tested += 1;
    }

    /// Whether a row scored `bm25` (its best possible, say) would be kept
    /// now: the scope has room, or the row beats its worst. False outside
    /// a scope, where no row is kept.
    #[inline]
    pub fn could_keep(&self, bm25: f64, rowid: i64) -> bool {
        self.keeper.as_ref().is_some_and(|k| {
            k.heap.len() < k.keep
                || k.heap
                    .peek()
                    .is_some_and(|worst| Kept(bm25, rowid) < *worst)
        })
    }

    /// A row counted as scored that [`Lent::could_keep`] ruled out: it
    /// counts (a one-word query's document frequency) but is not offered.
    #[inline]
    pub fn passed_over(&mut self) {
        self.scored += 1;
    }

    /// How many rows the scope keeps (0: none, there is no scope).
    pub fn keep(&self) -> usize {
        self.keeper.as_ref().map_or(0, |k| k.keep)
    }
}

impl Drop for Lent {
    fn drop(&mut self) {
        let keeper = self.keeper.take();
        KEPT.with(|k| {
            let mut k = k.borrow_mut();
            if k.is_none() {
                *k = keeper;
            }
        });
        SCORED.with(|n| n.set(n.get() + self.scored));
        TESTED.with(|n| n.set(n.get() + self.tested));
    }
}

/// `alfred_dated_in()` tested a row.
#[inline]
pub fn tested() {
    TESTED.with(|n| n.set(n.get() + 1));
}

/// A kept row, (bm25, rowid); the heap's top is the worst of the kept.
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
        rank_order(&(self.1, self.0), &(other.1, other.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scope_keeps_the_best_rows_and_counts() {
        let scope = Scope::enter(2);
        for (b, id) in [(-1.0, 5), (-3.0, 9), (-3.0, 2), (-0.5, 1)] {
            scored(b, id);
        }
        tested();
        let tally = scope.finish();
        assert_eq!(tally.kept, [(2, -3.0), (9, -3.0)]);
        assert_eq!((tally.scored, tally.tested), (4, 1));
    }

    /// Rows reported through a loan land in the scope as if reported to
    /// it, before and after it.
    #[test]
    fn a_loan_keeps_and_counts_for_the_scope() {
        let scope = Scope::enter(2);
        scored(-1.0, 5);
        {
            let mut lent = lend();
            lent.scored(-3.0, 9);
            lent.scored(-0.5, 1);
            lent.tested();
        }
        scored(-3.0, 2);
        let tally = scope.finish();
        assert_eq!(tally.kept, [(2, -3.0), (9, -3.0)]);
        assert_eq!((tally.scored, tally.tested), (4, 1));
    }

    /// Regression: the channel was a bare thread-local that a failed
    /// statement could leave holding one query's rows for the next.
    #[test]
    fn a_scope_that_panics_leaves_no_channel_open() {
        let unwound = std::panic::catch_unwind(|| {
            let _scope = Scope::enter(10);
            scored(-1.0, 1);
            panic!("a statement failed half way");
        });
        assert!(unwound.is_err());
        // Outside a scope nothing is kept; a new scope starts empty.
        scored(-2.0, 2);
        assert!(KEPT.with(|k| k.borrow().is_none()));
        let scope = Scope::enter(10);
        scored(-3.0, 3);
        let tally = Tally {
            kept: vec![(3, -3.0)],
            scored: 1,
            tested: 0,
        };
        assert_eq!(scope.finish(), tally);
    }

    #[test]
    fn an_inner_scope_gives_the_outer_one_back() {
        let outer = Scope::enter(5);
        scored(-1.0, 1);
        drop(Scope::enter(5));
        scored(-2.0, 2);
        assert_eq!(outer.finish().kept, [(2, -2.0), (1, -1.0)]);
    }
}
