//! Hybrid candidates: the full-text top-K plus the vector top-K (the vector
//! index, or the exact cosine of every stored vector, inside the same window
//! and visibility; facts always pass), each with a relevance that mixes both sides
//! (`rank::fusion`). Decay, tiers and MMR then run as in lexical search.

use std::collections::HashSet;

use anyhow::{Context, Result};

use super::{FtsQuery, RecallMode, SearchRequest, SemanticParts};
use crate::embed::ModelSpec;
use crate::ingest::record::SourceType;
use crate::rank::{self, fusion};
use crate::store::Store;
use crate::store::search::{Candidate, CandidateQuery};
use crate::store::vector_index::VectorSearch;
use crate::store::vectors::{VectorQuery, VectorScores};

type Scored = (Vec<Candidate>, Vec<f64>, Vec<Option<SemanticParts>>);

/// The query's vector from the configured model.
pub(super) fn embed_query(spec: &ModelSpec, text: &str) -> Result<Vec<f32>> {
    let mut model = spec.open()?;
    let v = model.embed(&[text])?.pop();
    v.context("the model returned no vector for the query")
}

/// The vector side of one search, searched once however deep the
/// candidates are fetched: the chunks nearest the query, best first, and
/// their cosines by id. From the exact scan that is every chunk in the
/// window; from the index only the nearest, and a candidate the text found
/// beyond them gets its exact cosine when it is scored.
pub(super) struct VectorSide {
    cosines: VectorScores,
    by_cosine: Vec<(i64, f64)>,
    /// Every chunk in the window has its cosine in `cosines` (exact scan).
    complete: bool,
    query: Vec<f32>,
    model_id: i64,
}

/// Searches the window's vectors: by the index when the model has one (and,
/// in `auto`, the window is not narrow), else by the exact scan. `want` is
/// the deepest the candidates are fetched.
pub(super) fn vector_side(
    store: &Store,
    req: &SearchRequest,
    spec: &ModelSpec,
    sources: &[SourceType],
    query: &[f32],
    want: usize,
) -> Result<VectorSide> {
    let q = VectorQuery {
        model_id: spec.model_id(),
        vector: query,
        after: req.after,
        before: req.before,
        sources,
        as_of: req.as_of,
    };
    let indexed = match store.vector_search() {
        VectorSearch::Exact => None,
        VectorSearch::Index => store.indexed_nearest(&q, want)?,
        VectorSearch::Auto if store.window_is_narrow(req.after, req.before)? => None,
        VectorSearch::Auto => store.indexed_nearest(&q, want)?,
    };
    let (cosines, by_cosine, complete) = match indexed {
        Some(nearest) => {
            let mut by_id = nearest.clone();
            by_id.sort_unstable_by_key(|p| p.0);
            (VectorScores(by_id), nearest, false)
        }
        None => {
            let cosines = store.vector_scores(&q)?;
            let mut by_cosine: Vec<(i64, f64)> = cosines.0.clone();
            by_cosine.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            (cosines, by_cosine, true)
        }
    };
    Ok(VectorSide {
        cosines,
        by_cosine,
        complete,
        query: query.to_vec(),
        model_id: spec.model_id(),
    })
}

impl VectorSide {
    /// The exact cosines of `candidates`: from the scan, or for those the
    /// index did not return, looked up now.
    fn cosines_of(
        &self,
        store: &Store,
        req: &SearchRequest,
        sources: &[SourceType],
        candidates: &[Candidate],
    ) -> Result<Vec<Option<f64>>> {
        let mut found: Vec<Option<f64>> =
            candidates.iter().map(|c| self.cosines.get(c.id)).collect();
        if !self.complete {
            let missing: Vec<i64> = candidates
                .iter()
                .zip(&found)
                .filter(|(_, f)| f.is_none())
                .map(|(c, _)| c.id)
                .collect();
            let q = VectorQuery {
                model_id: self.model_id,
                vector: &self.query,
                after: req.after,
                before: req.before,
                sources,
                as_of: req.as_of,
            };
            let mut more = store.exact_cosines(&q, &missing)?;
            more.sort_unstable_by_key(|p| p.0);
            let more = VectorScores(more);
            for (c, f) in candidates.iter().zip(found.iter_mut()) {
                if f.is_none() {
                    *f = more.get(c.id);
                }
            }
        }
        Ok(found)
    }
}

/// Candidates (the top `k` of each side), their relevance, and its parts.
pub(super) fn candidates(
    store: &Store,
    req: &SearchRequest,
    fts: &FtsQuery,
    sources: &[SourceType],
    side: &VectorSide,
    k: usize,
) -> Result<Scored> {
    let semantic_only = req.mode == RecallMode::Semantic;
    let mut candidates = if semantic_only {
        Vec::new()
    } else {
        store.candidates(&CandidateQuery {
            phrases: &fts.phrases,
            structured: fts.structured.then_some(fts.match_expr.as_str()),
            after: req.after,
            before: req.before,
            sources,
            as_of: req.as_of,
            limit: k,
        })?
    };
    let from_text = candidates.len();
    let by_cosine = &side.by_cosine;
    let seen: HashSet<i64> = candidates.iter().map(|c| c.id).collect();
    let mut extra: Vec<i64> = by_cosine
        .iter()
        .take(k)
        .map(|&(id, _)| id)
        .filter(|id| !seen.contains(id))
        .collect();
    // What the query requires or excludes (`from:`, `-word`) holds for
    // what the vectors found too.
    if let Some(required) = &fts.by_meaning.required {
        let matching = store.matching(required, &extra)?;
        extra.retain(|id| matching.contains(id));
    }
    if let Some(excluded) = &fts.by_meaning.excluded {
        let matching = store.matching(excluded, &extra)?;
        extra.retain(|id| !matching.contains(id));
    }
    candidates.extend(store.candidates_by_id(&extra, req.as_of)?);

    // Text relevance over the full-text candidates only: the others did not
    // make the text top-K, so by the text they are not relevant.
    let bm25: Vec<f64> = candidates[..from_text].iter().map(|c| c.bm25).collect();
    let mut text_rel = rank::normalise_bm25(&bm25);
    text_rel.resize(candidates.len(), 0.0);
    let cos = side.cosines_of(store, req, sources, &candidates)?;
    let vec_rel = fusion::normalise_cosines(&cos);
    let mut out: Scored = (Vec::new(), Vec::new(), Vec::new());
    for (i, c) in candidates.into_iter().enumerate() {
        let relevance = if semantic_only {
            vec_rel[i]
        } else {
            fusion::fuse(text_rel[i], vec_rel[i])
        };
        // Least similar of the vector candidates and no text match: not a
        // result by either side (lexical search would not return it either).
        if relevance <= 0.0 && i >= from_text {
            continue;
        }
        out.0.push(c);
        out.1.push(relevance);
        out.2.push(Some(SemanticParts {
            cosine: cos[i],
            text: text_rel[i],
            vector: vec_rel[i],
        }));
    }
    Ok(out)
}
