//! The dream's one read of the exposure log (`recall_events`): promotion's
//! per-chunk aggregates over the scoring window, routine mining's searches
//! over its longer window, and how many events are older than the log is
//! kept, all from a single pass over the table in rowid order.
//!
//! The log is kept for the longer window, so after the first night the
//! windows cover nearly the whole table: a sequential scan reads it once,
//! where a range scan of the time index (once per phase) fetched every row
//! at random and SQL's `GROUP BY chunk_id` sorted the window again.

use anyhow::Result;
use rusqlite::OptionalExtension;

use super::dream::{DreamTx, RecallAggregate};
use crate::fast_hash::FxHashMap;

/// One search as routine mining reads it: its query hash, its time, and
/// its best hit (the first of the highest score).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Search {
    /// Index into [`RecallLog::hashes`].
    pub hash: u32,
    pub at: i64,
    pub best: i64,
}

/// What one pass over the exposure log found.
#[derive(Debug, Default)]
pub struct RecallLog {
    /// Per current, dated chunk recalled in the scoring window (any order).
    pub aggregates: Vec<RecallAggregate>,
    /// The searches of the routine window, in time order.
    pub searches: Vec<Search>,
    /// The query hashes `searches` point into.
    pub hashes: Vec<String>,
    /// Events logged before the keep line: what pruning removes.
    pub older: u64,
}

/// The three lines the pass reads the log against (unix seconds).
#[derive(Debug, Clone, Copy)]
pub struct Windows {
    /// Start of the scoring window.
    pub score_from: i64,
    /// Start of the routine window.
    pub routine_from: i64,
    /// Events before this are pruned.
    pub keep_from: i64,
    /// End of both windows (inclusive).
    pub to: i64,
}

/// A chunk's exposures in the scoring window, as they are read.
#[derive(Default)]
struct Tally {
    count: u64,
    queries: Vec<u32>,
    best: Option<f64>,
    last: i64,
}

/// A run of consecutive rows (in rowid order) of one search.
struct Run {
    hash: u32,
    at: i64,
    first_id: i64,
    best: i64,
    top: f64,
}

impl DreamTx<'_> {
    /// Reads the whole exposure log once (see the module comment).
    pub fn read_recall_log(&self, w: Windows) -> Result<RecallLog> {
        let mut stmt = self.tx.prepare(
            "SELECT id, chunk_id, query_hash, score, relevance, recalled_at FROM recall_events",
        )?;
        let mut rows = stmt.query([])?;
        let mut hash_ids: FxHashMap<String, u32> = FxHashMap::default();
        let mut hashes: Vec<String> = Vec::new();
        let mut tallies: FxHashMap<i64, Tally> = FxHashMap::default();
        let mut runs: Vec<Run> = Vec::new();
        let mut older = 0u64;
        while let Some(r) = rows.next()? {
            let at: i64 = r.get(5)?;
            if at < w.keep_from {
                older += 1;
            }
            let in_score = at >= w.score_from && at <= w.to;
            let in_routine = at >= w.routine_from && at <= w.to;
            if !in_score && !in_routine {
                continue;
            }
            let chunk: i64 = r.get(1)?;
            let score: f64 = r.get(3)?;
            let hash_text = r.get_ref(2)?.as_str()?;
            let hash = match hash_ids.get(hash_text) {
                Some(&h) => h,
                None => {
                    let h = hashes.len() as u32;
                    hashes.push(hash_text.to_string());
                    hash_ids.insert(hash_text.to_string(), h);
                    h
                }
            };
            if in_score {
                let relevance: Option<f64> = r.get(4)?;
                let t = tallies.entry(chunk).or_default();
                t.count += 1;
                t.queries.push(hash);
                let v = relevance.unwrap_or(score);
                t.best = Some(t.best.map_or(v, |b| b.max(v)));
                t.last = if t.count == 1 { at } else { t.last.max(at) };
            }
            if in_routine {
                match runs.last_mut() {
                    Some(run) if run.hash == hash && run.at == at => {
                        if score > run.top {
                            (run.best, run.top) = (chunk, score);
                        }
                    }
                    _ => runs.push(Run {
                        hash,
                        at,
                        first_id: r.get(0)?,
                        best: chunk,
                        top: score,
                    }),
                }
            }
        }
        drop(rows);
        Ok(RecallLog {
            aggregates: self.current_aggregates(tallies)?,
            searches: searches_in_time_order(runs),
            hashes,
            older,
        })
    }

    /// The tallies of chunks that are candidates (current and dated), with
    /// the fact each was already promoted into.
    fn current_aggregates(&self, tallies: FxHashMap<i64, Tally>) -> Result<Vec<RecallAggregate>> {
        let mut stmt = self.tx.prepare(
            "SELECT f.chunk_id FROM memory_chunk_rows c
             LEFT JOIN memory_facts f ON f.promoted_from = c.id
             WHERE c.id = ?1 AND c.superseded_at IS NULL AND c.dated_at IS NOT NULL",
        )?;
        let mut out = Vec::with_capacity(tallies.len());
        for (chunk_id, mut t) in tallies {
            let Some(promoted_as) = stmt
                .query_row([chunk_id], |r| r.get::<_, Option<i64>>(0))
                .optional()?
            else {
                continue;
            };
            t.queries.sort_unstable();
            t.queries.dedup();
            out.push(RecallAggregate {
                chunk_id,
                recall_count: t.count,
                unique_queries: t.queries.len() as u64,
                max_score: t.best.unwrap_or(0.0),
                last_recalled_at: t.last,
                promoted_as,
            });
        }
        Ok(out)
    }
}

/// The runs as one search each, in the order of the time index (time, then
/// id): runs sorted by (time, first id), and runs of one search that only
/// rows of other times separated in rowid order joined again, exactly as a
/// read of the time index would have seen them.
fn searches_in_time_order(mut runs: Vec<Run>) -> Vec<Search> {
    runs.sort_by_key(|r| (r.at, r.first_id));
    let mut out: Vec<Search> = Vec::with_capacity(runs.len());
    let mut last: Option<Run> = None;
    for run in runs {
        match &mut last {
            Some(l) if l.hash == run.hash && l.at == run.at => {
                if run.top > l.top {
                    (l.best, l.top) = (run.best, run.top);
                }
            }
            _ => {
                if let Some(l) = last.replace(run) {
                    out.push(Search {
                        hash: l.hash,
                        at: l.at,
                        best: l.best,
                    });
                }
            }
        }
    }
    out.extend(last.map(|l| Search {
        hash: l.hash,
        at: l.at,
        best: l.best,
    }));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(hash: u32, at: i64, first_id: i64, best: i64, top: f64) -> Run {
        Run {
            hash,
            at,
            first_id,
            best,
            top,
        }
    }

    #[test]
    fn searches_come_out_as_the_time_index_groups_them() {
        // Rowid order: search (7, t=100) is cut in two by a row logged at
        // t=50 (ids 3); the time index reads ids 1, 2, 4, 5 together.
        let runs = vec![
            run(7, 100, 1, 11, 0.5),
            run(9, 50, 3, 12, 0.9),
            run(7, 100, 4, 13, 0.8),
            // The same query again in the same second after another query:
            // a search of its own, in either order.
            run(8, 100, 6, 14, 0.1),
            run(7, 100, 7, 15, 0.9),
        ];
        let got: Vec<(u32, i64, i64)> = searches_in_time_order(runs)
            .into_iter()
            .map(|s| (s.hash, s.at, s.best))
            .collect();
        assert_eq!(
            got,
            vec![(9, 50, 12), (7, 100, 13), (8, 100, 14), (7, 100, 15)]
        );
    }

    #[test]
    fn a_tie_keeps_the_first_best() {
        let runs = vec![
            run(1, 5, 1, 21, 0.7),
            run(2, 4, 2, 22, 0.1),
            run(1, 5, 3, 23, 0.7),
        ];
        let got: Vec<i64> = searches_in_time_order(runs)
            .iter()
            .map(|s| s.best)
            .collect();
        assert_eq!(got, vec![22, 21]);
    }
}
