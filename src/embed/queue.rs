//! The order chunks get their vectors in: most useful first, so a run that
//! stops at its budget (`embed --budget`) has spent it where search gains
//! most, and a big archive is covered over several nights, the part people
//! reach for first.
//!
//! 1. Chunks that were recalled (read with `show` or over MCP, or returned
//!    by a logged search), most recently recalled first: what was wanted
//!    once is wanted again.
//! 2. Facts, newest first: evergreen, few, and taught on purpose.
//! 3. Every other chunk, newest first by its date: the forgetting curve
//!    ranks recent chunks higher, so their vectors matter most.
//!
//! Each step keeps a cursor, so a run reads each chunk once; the store
//! returns only chunks still without a vector, so a run stopped anywhere
//! resumes with what is left.

use anyhow::Result;

use crate::store::Store;
use crate::store::vectors::PendingChunk;

/// Where a run is in the order.
enum Step {
    /// Index of the next id in `Queue::recalled`.
    Recalled(usize),
    /// Facts below this id.
    Facts(i64),
    /// Dated chunks below this `(dated_at, id)`.
    Dated((i64, i64)),
    /// Only chunks with an id above this one, in id order: what a command
    /// just wrote ([`Queue::written_after`]).
    Written(i64),
    Done,
}

/// One run's walk through the chunks without a vector for a model.
pub struct Queue {
    model_id: i64,
    recalled: Vec<i64>,
    step: Step,
}

impl Queue {
    /// `recalled_first` false skips step 1 (and reading the recall log, a
    /// scan of every recall event): for a run of one batch, where the order
    /// cannot matter.
    pub fn new(store: &Store, model_id: i64, recalled_first: bool) -> Result<Queue> {
        let recalled = if recalled_first {
            store.recalled_chunk_ids()?
        } else {
            Vec::new()
        };
        Ok(Queue {
            model_id,
            recalled,
            step: Step::Recalled(0),
        })
    }

    /// The chunks a command wrote (ids above `after_id`) and nothing else:
    /// an import into a big archive embeds what it added without walking
    /// the archive for what else lacks a vector (`alfred-mem embed` does).
    pub fn written_after(model_id: i64, after_id: i64) -> Queue {
        Queue {
            model_id,
            recalled: Vec::new(),
            step: Step::Written(after_id),
        }
    }

    pub fn model_id(&self) -> i64 {
        self.model_id
    }

    /// The next chunks to embed, at most `limit`; empty when none is left.
    pub fn next_batch(&mut self, store: &Store, limit: usize) -> Result<Vec<PendingChunk>> {
        let mut batch: Vec<PendingChunk> = Vec::new();
        loop {
            match self.step {
                Step::Recalled(at) => {
                    // Most recalled chunks may have their vector already:
                    // look further until the batch is full.
                    if at >= self.recalled.len() {
                        self.step = Step::Facts(i64::MAX);
                        if !batch.is_empty() {
                            return Ok(batch);
                        }
                        continue;
                    }
                    let end = (at + limit - batch.len()).min(self.recalled.len());
                    batch.extend(store.pending_among(self.model_id, &self.recalled[at..end])?);
                    self.step = Step::Recalled(end);
                    if batch.len() >= limit {
                        return Ok(batch);
                    }
                }
                Step::Facts(before) => {
                    let found = store.pending_facts(self.model_id, before, limit)?;
                    match found.last() {
                        Some(last) => {
                            self.step = Step::Facts(last.id);
                            return Ok(found);
                        }
                        None => self.step = Step::Dated((i64::MAX, i64::MAX)),
                    }
                }
                Step::Dated(before) => {
                    let found = store.pending_by_date(self.model_id, before, limit)?;
                    match found.last() {
                        Some((dated_at, last)) => {
                            self.step = Step::Dated((*dated_at, last.id));
                            return Ok(found.into_iter().map(|(_, c)| c).collect());
                        }
                        None => self.step = Step::Done,
                    }
                }
                Step::Written(after) => {
                    let found = store.pending_chunks(self.model_id, after, limit)?;
                    self.step = match found.last() {
                        Some(last) => Step::Written(last.id),
                        None => Step::Done,
                    };
                    return Ok(found);
                }
                Step::Done => return Ok(Vec::new()),
            }
        }
    }
}
