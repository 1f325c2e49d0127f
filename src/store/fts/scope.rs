//! The side channel from the auxiliary functions back to the statement that
//! calls them, open only for the length of one statement.
//!
//! FTS5 hands an auxiliary function the row and the SQL arguments, and takes
//! back one value; its user data is fixed when it is registered. An
//! unfiltered ranking wants more than one value per row: `alfred_bm25()`
//! keeps the best rows itself, in a heap, so that SQLite neither sorts nor
//! hands back every scored row; and how many rows it scored (or
//! `alfred_dated_in()` tested) is the document frequency a one-word query
//! needs (`fast.rs`). Both live in a thread-local channel that a [`Scope`]
//! opens on entry and closes on drop, so a statement that fails or panics
//! leaves nothing for the next one; outside a scope the functions only
//! return their values.

use std::cell::RefCell;
use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::marker::PhantomData;

use super::{Ranked, rank_order};

/// What the functions report while a scope is open.
struct Channel {
    keep: usize,
    heap: BinaryHeap<Kept>,
    scored: u64,
    tested: u64,
}

thread_local! {
    static OPEN: RefCell<Option<Channel>> = const { RefCell::new(None) };
}

/// The channel of one statement on this thread; closed when dropped.
pub struct Scope {
    /// A channel this one hides (none in practice), given back on drop.
    outer: Option<Channel>,
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
    /// Open a channel that keeps the best `keep` rows scored on this thread.
    pub fn enter(keep: usize) -> Scope {
        let channel = Channel {
            keep,
            heap: BinaryHeap::with_capacity(keep + 1),
            scored: 0,
            tested: 0,
        };
        Scope {
            outer: OPEN.with(|open| open.borrow_mut().replace(channel)),
            _this_thread: PhantomData,
        }
    }

    /// What was kept and counted, and close the channel.
    pub fn finish(self) -> Tally {
        let channel = OPEN.with(|open| open.borrow_mut().take());
        channel.map_or_else(Tally::default, |c| Tally {
            kept: c
                .heap
                .into_sorted_vec()
                .into_iter()
                .map(|Kept(b, id)| (id, b))
                .collect(),
            scored: c.scored,
            tested: c.tested,
        })
    }
}

impl Drop for Scope {
    fn drop(&mut self) {
        let outer = self.outer.take();
        OPEN.with(|open| *open.borrow_mut() = outer);
    }
}

/// `alfred_bm25()` scored row `rowid` as `bm25`.
pub fn scored(bm25: f64, rowid: i64) {
    with_open(|c| {
        c.scored += 1;
        let row = Kept(bm25, rowid);
        if c.heap.len() < c.keep {
            c.heap.push(row);
        } else if c.heap.peek().is_some_and(|worst| row < *worst) {
            c.heap.pop();
            c.heap.push(row);
        }
    });
}

/// `alfred_dated_in()` tested a row.
pub fn tested() {
    with_open(|c| c.tested += 1);
}

fn with_open(f: impl FnOnce(&mut Channel)) {
    OPEN.with(|open| {
        if let Some(c) = open.borrow_mut().as_mut() {
            f(c)
        }
    });
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
        assert!(OPEN.with(|open| open.borrow().is_none()));
        let scope = Scope::enter(10);
        scored(-3.0, 3);
        assert_eq!(scope.finish().kept, [(3, -3.0)]);
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
