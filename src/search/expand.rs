//! Associative recall (issue 16, seed 003's auto-recall expansion): after
//! ranking, the chunks linked strongly enough to the first hits join them,
//! scored by the hit's score × the link's strength, inside the search's
//! window, sources and `--as-of`, never twice and never beside a chunk of a
//! message already listed. Each says which hit brought it (`via`).

use std::collections::HashSet;

use anyhow::Result;

use super::{Chunks, Hit, SearchRequest, group};
use crate::kinds::{LinkKind, SourceType};
use crate::rank::association::{EXPAND_MAX_ADDS, EXPAND_MIN_STRENGTH, EXPAND_SEEDS};
use crate::store::Store;

/// How a hit joined by association: the hit it is linked to, and the link.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Via {
    /// The chunk id of the hit it came from.
    pub id: i64,
    pub kind: LinkKind,
    pub strength: f64,
}

/// The link kinds a search follows by default: what was read together.
/// Not `thread` ("session adjacency is not relevance", seed 003), and not
/// `semantic`: on LoCoMo with all-MiniLM-L6-v2, following semantic links
/// took hybrid recall@10 from 0.666 to 0.659 (docs/RETRIEVAL.md). A
/// semantic pair read together gains a `co_recall` link, which is followed.
pub const DEFAULT_KINDS: &[LinkKind] = &[LinkKind::CoRecall];

/// The kinds followed with `--expand-all` (for measuring): thread links
/// too, although at 0.3 they are under the 0.4 floor, and semantic links.
pub const ALL_KINDS: &[LinkKind] = LinkKind::ALL;

/// Adds the strong neighbours of the first [`EXPAND_SEEDS`] hits to `hits`
/// (at most [`EXPAND_MAX_ADDS`]), each placed before the first hit that
/// scores less, the list then cut back to `limit`. Scores are compared in
/// the log domain (`ln_score`): on an old archive every plain score may
/// have underflowed to 0, and an added hit must still land where it did.
pub fn expand(
    store: &Store,
    hits: &mut Vec<Hit>,
    req: &SearchRequest,
    sources: &[SourceType],
    limit: usize,
    chunks: Chunks,
) -> Result<()> {
    if req.expand.is_empty() || hits.is_empty() {
        return Ok(());
    }
    let seeds: Vec<usize> = (0..hits.len().min(EXPAND_SEEDS)).collect();
    let seed_ids: Vec<i64> = seeds.iter().map(|&i| hits[i].chunk.id).collect();
    let links = store.links_touching(&seed_ids, req.as_of, req.now)?;
    // (ln score, seed index, neighbour, via), best first.
    let mut proposals: Vec<(f64, usize, i64, Via)> = Vec::new();
    for &i in &seeds {
        let id = hits[i].chunk.id;
        for l in links.iter().filter(|l| l.low == id || l.high == id) {
            // Four recalls together make 0.4 up to rounding. A thread link
            // (0.3 for good) is followed only when asked for, at its strength.
            let strong = l.kind == LinkKind::Thread || l.strength >= EXPAND_MIN_STRENGTH - 1e-9;
            if !req.expand.contains(&l.kind) || !strong {
                continue;
            }
            let via = Via {
                id,
                kind: l.kind,
                strength: l.strength,
            };
            let ln_score = hits[i].ln_score + l.strength.ln();
            proposals.push((ln_score, i, l.other(id), via));
        }
    }
    if proposals.is_empty() {
        return Ok(());
    }
    proposals.sort_by(|a, b| {
        b.0.total_cmp(&a.0)
            .then(b.3.strength.total_cmp(&a.3.strength))
            .then(a.2.cmp(&b.2))
    });
    let ids: Vec<i64> = proposals.iter().map(|p| p.2).collect();
    let found = store.candidates_in_window(&ids, req.as_of, req.after, req.before, sources)?;
    let mut listed: HashSet<(SourceType, &str, Option<i64>)> =
        hits.iter().map(|h| group::item(&h.chunk, chunks)).collect();
    let mut listed_ids: HashSet<i64> = hits.iter().map(|h| h.chunk.id).collect();
    let mut added = Vec::new();
    for (ln_score, seed, other, via) in proposals {
        if added.len() == EXPAND_MAX_ADDS {
            break;
        }
        let Some(chunk) = found.iter().find(|c| c.id == other) else {
            continue;
        };
        if !listed_ids.insert(other) || !listed.insert(group::item(chunk, chunks)) {
            continue;
        }
        let from = &hits[seed];
        added.push(Hit {
            chunk: chunk.clone(),
            relevance: from.relevance * via.strength,
            decay: from.decay,
            score: from.score * via.strength,
            ln_score,
            recalls: Default::default(),
            half_life_days: from.half_life_days,
            mmr: 0.0,
            semantic: None,
            more_chunks: None,
            via: Some(via),
        });
    }
    for hit in added {
        let at = hits
            .iter()
            .position(|h| h.ln_score < hit.ln_score)
            .unwrap_or(hits.len());
        hits.insert(at, hit);
    }
    hits.truncate(limit);
    Ok(())
}
