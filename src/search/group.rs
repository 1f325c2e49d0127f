//! One hit per e-mail message: a long message is cut into several chunks,
//! and when the words match many of them they would fill the list (one
//! spam took 9 of 10 places on real mail). The best chunk of each message
//! stands for it and says how many more of its chunks matched; receipts,
//! facts and conversation windows stay as they are (overlapping windows
//! are kept apart by MMR instead).

use std::collections::{HashMap, HashSet};

use super::{Chunks, Hit};
use crate::kinds::SourceType;
use crate::store::search::Candidate;

/// Whether the chunks of this source type collapse into one hit per item.
fn collapses(source_type: SourceType) -> bool {
    source_type == SourceType::Email
}

/// What one hit for this candidate stands for: with `PerMessage`, its
/// e-mail message; otherwise the chunk itself.
pub(super) fn item(c: &Candidate, chunks: Chunks) -> (SourceType, &str, Option<i64>) {
    if chunks == Chunks::PerMessage && collapses(c.source_type) {
        (c.source_type, &c.source_id, None)
    } else {
        (c.source_type, &c.source_id, Some(c.id))
    }
}

/// How many hits `candidates` make once their messages are collapsed.
pub fn items(candidates: &[Candidate]) -> usize {
    let mut seen = HashSet::new();
    candidates
        .iter()
        .filter(|c| seen.insert(item(c, Chunks::PerMessage)))
        .count()
}

/// The best-scored chunk of each e-mail message (compared in the log
/// domain, where old mail does not underflow to 0; ties: the earlier, as
/// the candidates come in bm25 order), with `more_chunks` set to how many
/// other chunks of the message are among `hits`; other hits unchanged, in
/// their order.
pub fn one_per_message(hits: Vec<Hit>) -> Vec<Hit> {
    // Per message: the index of its best chunk, and its chunks among `hits`.
    let mut messages: HashMap<(SourceType, &str), (usize, usize)> = HashMap::new();
    for (i, h) in hits.iter().enumerate() {
        let c = &h.chunk;
        if !collapses(c.source_type) {
            continue;
        }
        let (best, chunks) = messages
            .entry((c.source_type, &c.source_id))
            .or_insert((i, 0));
        *chunks += 1;
        if h.ln_score > hits[*best].ln_score {
            *best = i;
        }
    }
    // None: drop the hit; Some(more): keep it, with `more` for a message.
    let keep: Vec<Option<Option<usize>>> = hits
        .iter()
        .enumerate()
        .map(|(i, h)| {
            let c = &h.chunk;
            match messages.get(&(c.source_type, c.source_id.as_str())) {
                Some(&(best, chunks)) if best == i => Some(Some(chunks - 1)),
                Some(_) => None,
                None => Some(None),
            }
        })
        .collect();
    hits.into_iter()
        .zip(keep)
        .filter_map(|(mut h, keep)| {
            h.more_chunks = keep?;
            Some(h)
        })
        .collect()
}
