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
use crate::store::search::Candidate;
use crate::store::vector_index::VectorSearch;
use crate::store::vector_probe::Probe;
use crate::store::vectors::{VectorQuery, VectorScores};

type Scored = (Vec<Candidate>, Vec<f64>, Vec<Option<SemanticParts>>);

/// The query's vector from the configured model.
pub(super) fn embed_query(spec: &ModelSpec, text: &str) -> Result<Vec<f32>> {
    let mut model = spec.open()?;
    let v = model.embed(&[text])?.pop();
    v.context("the model returned no vector for the query")
}

/// The vector side of one search: the chunks nearest the query, best
/// first, and their cosines by id. From the exact scan that is every chunk
/// in the window, scanned once; from the index the nearest as deep as the
/// candidates are fetched ([`VectorSide::deepen`]), and a candidate the
/// text found beyond them gets its exact cosine when it is scored.
pub(super) struct VectorSide {
    cosines: VectorScores,
    by_cosine: Vec<(i64, f64)>,
    /// Every chunk in the window has its cosine in `cosines` (exact scan).
    complete: bool,
    /// The index search, to go deeper; None for the exact scan.
    probe: Option<Probe>,
    query: Vec<f32>,
    model_id: i64,
}

/// Searches the window's vectors: by the index when the model has one (and,
/// in `auto`, the window is not narrow), else by the exact scan. `want` is
/// how deep the first candidates are fetched.
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
    let probe = match store.vector_search() {
        VectorSearch::Exact => None,
        VectorSearch::Index => store.probe_index(&q)?,
        VectorSearch::Auto if store.window_is_narrow(req.after, req.before)? => None,
        VectorSearch::Auto => store.probe_index(&q)?,
    };
    let mut side = VectorSide {
        cosines: VectorScores(Vec::new()),
        by_cosine: Vec::new(),
        complete: probe.is_none(),
        probe,
        query: query.to_vec(),
        model_id: spec.model_id(),
    };
    if side.complete {
        let cosines = store.vector_scores(&q)?;
        side.by_cosine = cosines.0.clone();
        side.by_cosine
            .sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        side.cosines = cosines;
    } else {
        side.deepen(store, req, sources, want)?;
    }
    Ok(side)
}

impl VectorSide {
    /// Have the nearest `want` chunks at hand (the index re-scores only what
    /// it has not yet; the exact scan has them all already).
    pub(super) fn deepen(
        &mut self,
        store: &Store,
        req: &SearchRequest,
        sources: &[SourceType],
        want: usize,
    ) -> Result<()> {
        if self.probe.is_none() || self.by_cosine.len() >= want {
            return Ok(());
        }
        let mut probe = self.probe.take().expect("checked above");
        let nearest = store.index_nearest(&self.query_in(req, sources), &mut probe, want);
        self.probe = Some(probe);
        let nearest = nearest?;
        let mut by_id = nearest.clone();
        by_id.sort_unstable_by_key(|p| p.0);
        self.cosines = VectorScores(by_id);
        self.by_cosine = nearest;
        Ok(())
    }

    /// The query's vector in the search's window, sources and instant.
    fn query_in<'a>(&'a self, req: &SearchRequest, sources: &'a [SourceType]) -> VectorQuery<'a> {
        VectorQuery {
            model_id: self.model_id,
            vector: &self.query,
            after: req.after,
            before: req.before,
            sources,
            as_of: req.as_of,
        }
    }

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
            let q = self.query_in(req, sources);
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

/// Candidates (the top `k` of each side: `text` is the full-text side's,
/// empty for `--semantic`), their relevance, and its parts.
pub(super) fn candidates(
    store: &Store,
    req: &SearchRequest,
    fts: &FtsQuery,
    sources: &[SourceType],
    side: &VectorSide,
    text: Vec<Candidate>,
    k: usize,
) -> Result<Scored> {
    let semantic_only = req.mode == RecallMode::Semantic;
    let mut candidates = text;
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
