//! Search: turn the user's words into a safe FTS5 query, fetch candidates
//! inside the time window, rank them like memory, and log what was recalled.
//!
//! The ranking is the pipeline documented in `rank`: bm25 top-K (with a
//! model configured, plus the vector top-K: `hybrid`) →
//! relevance in [0, 1] → × forgetting curve (renewed and stretched by
//! genuine recalls; ages from the newest thing in memory, or from a date the
//! query names) → one hit per e-mail message (`group`; not with
//! `all_chunks`) → relevance tiers → MMR on scores relative to the best of
//! each tier → the strong neighbours of the first hits (`expand`) → recall
//! log.

mod curve;
pub mod expand;
pub mod fts_query;
mod group;
mod hybrid;
pub mod request;
mod sides;
pub mod syntax;

use anyhow::{Context, Result};
use chrono::DateTime;

use crate::config::LocalZone;
pub use crate::dates::named::NamedPeriod;
use crate::embed::ModelSpec;
use crate::kinds::{LinkKind, SourceType};
use crate::rank::half_life::HalfLives;
use crate::rank::strength::Recalls;
use crate::rank::{self, MMR_LAMBDA};
use crate::store::Store;
use crate::store::failure::{WriteFailure, write_failure};
use crate::store::recall::{Exposure, RecallVia};
use crate::store::search::{Candidate, CandidateQuery};
pub use curve::Curve;
pub use expand::Via;
pub use fts_query::FtsQuery;

/// The most results one search may ask for (README: `--limit`): MMR
/// compares every pick with every candidate, so the cost grows with
/// limit × candidates; at 1000, 100k messages still answer in well under a
/// second (docs/PERFORMANCE.md).
pub const MAX_LIMIT: usize = 1000;

/// Candidates fetched for a limit of `limit`: enough for MMR to find diverse
/// alternatives and for decay to reorder, without scoring the whole corpus.
pub fn candidate_count(limit: usize) -> usize {
    (4 * limit).max(50)
}

/// How far the candidates are fetched again, deeper, when the chunks of
/// long messages collapse into too few hits: until they make at least
/// `2 × limit` hits (room for MMR to choose), doubling up to this many
/// times [`candidate_count`].
const MAX_DEPTH_FACTOR: usize = 8;

#[derive(Debug, Clone)]
pub struct SearchRequest<'a> {
    pub query: &'a str,
    /// Half-open window [after, before), unix seconds.
    pub after: Option<i64>,
    pub before: Option<i64>,
    /// Answer from memory as it stood then; decay is measured from it too.
    pub as_of: Option<i64>,
    pub sources: &'a [SourceType],
    pub limit: usize,
    /// Base half-life per source, before recalls stretch it.
    pub half_lives: HalfLives,
    pub now: i64,
    /// Record the hits in the recall log (never done for `as_of`).
    pub log: bool,
    pub mode: RecallMode,
    /// Where dates the query names are read (`Config::time_zone`).
    pub time_zone: LocalZone,
    /// Every matching chunk its own hit, instead of one per e-mail message.
    pub all_chunks: bool,
    /// The link kinds whose neighbours join the first hits (`expand`);
    /// empty: no expansion (`--no-expand`).
    pub expand: &'static [LinkKind],
}

/// Whether the chunks of one e-mail message make one hit or one each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Chunks {
    /// The best chunk stands for its message (`group`).
    PerMessage,
    All,
}

/// Which sides of the index rank the candidates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RecallMode {
    /// Text and vectors when a model is configured; text alone otherwise,
    /// exactly the lexical search of a memory without semantic recall.
    #[default]
    Auto,
    /// The full-text index alone.
    Lexical,
    /// Vector similarity alone; an error without a model.
    Semantic,
}

/// The semantic side of a hit's relevance (absent in lexical search).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SemanticParts {
    /// Cosine similarity to the query; None when the chunk has no vector.
    pub cosine: Option<f64>,
    /// bm25 relevance in [0, 1] (0 for a candidate only the vectors found).
    pub text: f64,
    /// Min-max normalised cosine in [0, 1].
    pub vector: f64,
}

/// One ranked result and the numbers that placed it.
#[derive(Debug, Clone)]
pub struct Hit {
    pub chunk: Candidate,
    pub relevance: f64,
    pub decay: f64,
    /// relevance × decay: what is reported and logged.
    pub score: f64,
    /// `ln relevance + ln decay`: the score without underflow, so two
    /// matches twenty years old still compare.
    pub ln_score: f64,
    /// Genuine recalls of the chunk up to the reference time.
    pub recalls: Recalls,
    /// The base half-life of its source stretched by its recalls (infinite
    /// for a fact, 0 when decay is off).
    pub half_life_days: f64,
    /// The MMR value at the moment this hit was picked.
    pub mmr: f64,
    /// How text and vectors made `relevance`, when a model took part.
    pub semantic: Option<SemanticParts>,
    /// For an e-mail hit standing for its message: how many more of its
    /// chunks were among the candidates. None for other hits and with
    /// `all_chunks`.
    pub more_chunks: Option<usize>,
    /// Set when the hit joined by association with another (`expand`).
    pub via: Option<Via>,
}

/// Where the forgetting curve measures an item's age from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecayFrom {
    /// Now, or the `--as-of` instant. Items dated after it do not decay.
    Instant(i64),
    /// A period the query names: items inside it do not decay, items before
    /// or after it decay with their distance to it.
    Period(NamedPeriod),
}

#[derive(Debug)]
pub struct SearchOutcome {
    /// None when the query had no searchable word (only punctuation, say).
    pub fts: Option<FtsQuery>,
    /// The date the query named, if any: it was taken out of the words and
    /// decay was measured from it.
    pub period: Option<NamedPeriod>,
    pub hits: Vec<Hit>,
    pub candidates: usize,
    /// How many were fetched from each side (bm25, cosine): at least
    /// [`candidate_count`], more when chunks collapsed into too few hits.
    pub depth: usize,
    /// The hits could not be written to the recall log: the database is
    /// read-only.
    pub not_logged: bool,
    /// The model that ranked by meaning, when one did.
    pub model: Option<String>,
    /// The instant ages were measured from, when no period was named: the
    /// newest thing memory held at the reference time (`Store::newest_event`).
    pub ages_from: Option<i64>,
    /// Why a configured model did not take part, for stderr.
    pub warning: Option<String>,
}

pub fn search(store: &Store, req: &SearchRequest) -> Result<SearchOutcome> {
    let reference = req.as_of.unwrap_or(req.now);
    let named = DateTime::from_timestamp(reference, 0)
        .and_then(|now| crate::dates::named::find(req.query, now, &req.time_zone));
    let (words, period) = match &named {
        Some((period, rest)) => (rest.as_str(), Some(*period)),
        None => (req.query, None),
    };
    // A query that is only a date ("yesterday") still searches its words.
    let Some(fts) = fts_query::build(words).or_else(|| fts_query::build(req.query)) else {
        return Ok(SearchOutcome {
            fts: None,
            period: None,
            hits: Vec::new(),
            candidates: 0,
            depth: 0,
            not_logged: false,
            model: None,
            ages_from: None,
            warning: None,
        });
    };
    // `source:` in the query narrows `--source`; nothing left, no hits.
    let sources = if fts.sources.is_empty() {
        req.sources.to_vec()
    } else {
        let left = fts.sources.apply(req.sources);
        if left.is_empty() {
            return Ok(SearchOutcome {
                fts: Some(fts),
                period,
                hits: Vec::new(),
                candidates: 0,
                depth: 0,
                not_logged: false,
                model: None,
                ages_from: None,
                warning: None,
            });
        }
        left
    };
    let limit = req.limit.clamp(1, MAX_LIMIT);
    // Ages run from the newest thing memory holds, not from the clock: the
    // ranking depends on how old things are relative to each other, so a
    // memory left alone for a year ranks as it did (issue 15, section 5).
    let ages_from = store
        .newest_event(reference)?
        .map_or(reference, |t| t.min(reference));
    let from = period.map_or(DecayFrom::Instant(ages_from), DecayFrom::Period);
    let spec = match req.mode {
        RecallMode::Lexical => None,
        RecallMode::Auto => ModelSpec::load(store)?,
        RecallMode::Semantic => Some(ModelSpec::load(store)?.context(
            "no model configured for --semantic: run `alfred-mem model use PATH|URL` first",
        )?),
    };
    let chunks = if req.all_chunks {
        Chunks::All
    } else {
        Chunks::PerMessage
    };
    let text_query = |limit: usize| CandidateQuery {
        phrases: &fts.phrases,
        structured: fts.structured.then_some(fts.match_expr.as_str()),
        after: req.after,
        before: req.before,
        sources: &sources,
        as_of: req.as_of,
        limit,
    };
    let mut depth = candidate_count(limit);
    // The query's vector (without a date it named, like the full-text
    // query) and the vector side, beside the first full-text candidates. A
    // model that cannot run is an error for --semantic; otherwise the search
    // goes on with the words alone and says why.
    let (mut first_text, mut vectors, warning) = match &spec {
        None => (None, None, None),
        Some(spec) => {
            // Without the syntax (`from:`, `-word`, quotes) when it held some.
            let text = match &fts.plain_text {
                Some(plain) if !plain.trim().is_empty() => plain.as_str(),
                _ if words.trim().is_empty() => req.query,
                _ => words,
            };
            let first = (req.mode != RecallMode::Semantic).then(|| text_query(depth));
            let found = sides::fetch(store, req, spec, text, &sources, first.as_ref(), depth)?;
            (found.text, found.vectors, found.warning)
        }
    };
    let (candidates, relevance, parts) = loop {
        let text = match first_text.take() {
            Some(text) => text,
            None if req.mode == RecallMode::Semantic => Vec::new(),
            None => store.candidates(&text_query(depth))?,
        };
        let (candidates, relevance, parts) = match &mut vectors {
            None => {
                let bm25: Vec<f64> = text.iter().map(|c| c.bm25).collect();
                let relevance = rank::normalise_bm25(&bm25);
                let parts = vec![None; relevance.len()];
                (text, relevance, parts)
            }
            Some(side) => {
                side.deepen(store, req, &sources, depth)?;
                hybrid::candidates(store, req, &fts, &sources, side, text, depth)?
            }
        };
        // Collapsing the chunks of long messages must still fill the list.
        let exhausted = candidates.len() < depth;
        let enough = chunks == Chunks::All || group::items(&candidates) >= 2 * limit;
        if enough || exhausted || depth >= MAX_DEPTH_FACTOR * candidate_count(limit) {
            break (candidates, relevance, parts);
        }
        depth *= 2;
    };
    let n = candidates.len();
    let curve = Curve::of(store, &candidates, from, req.half_lives, reference)?;
    let mut hits = rank_scored(candidates, relevance, parts, &curve, limit, chunks);
    expand::expand(store, &mut hits, req, &sources, limit, chunks)?;
    // A read-only database can still be searched: the hits are the answer,
    // the recall log only teaches `dream`. The caller says it was not logged.
    let mut not_logged = false;
    if req.log && req.as_of.is_none() && !hits.is_empty() {
        let events: Vec<Exposure> = hits
            .iter()
            .map(|h| Exposure {
                chunk_id: h.chunk.id,
                score: h.score,
                relevance: h.relevance,
            })
            .collect();
        let logged = store.log_recall(&events, &rank::query_hash(req.query), req.now);
        match logged {
            Err(e) if write_failure(&e) == Some(WriteFailure::ReadOnly) => not_logged = true,
            other => other?,
        }
    }
    Ok(SearchOutcome {
        fts: Some(fts),
        period,
        hits,
        candidates: n,
        depth,
        not_logged,
        model: vectors.and(spec).map(|s| s.name().to_string()),
        ages_from: period.is_none().then_some(ages_from),
        warning,
    })
}

/// Records that `ids` were genuinely recalled together at `at` (read whole:
/// `show`, or handed whole to an agent). False when the database is
/// read-only: the reading happened, only the strengthening is lost.
pub fn recall_genuinely(store: &Store, ids: &[i64], via: RecallVia, at: i64) -> Result<bool> {
    if ids.is_empty() {
        return Ok(true);
    }
    match store.record_recalls(ids, via, at) {
        Ok(_) => Ok(true),
        Err(e) if write_failure(&e) == Some(WriteFailure::ReadOnly) => Ok(false),
        Err(e) => Err(e),
    }
}

/// Relevance, decay, tiers and MMR over the candidates; pure, so it is
/// tested without a database.
pub fn rank_candidates(candidates: Vec<Candidate>, curve: &Curve, limit: usize) -> Vec<Hit> {
    let bm25: Vec<f64> = candidates.iter().map(|c| c.bm25).collect();
    let relevance = rank::normalise_bm25(&bm25);
    let parts = vec![None; relevance.len()];
    rank_scored(
        candidates,
        relevance,
        parts,
        curve,
        limit,
        Chunks::PerMessage,
    )
}

/// `rank_candidates` from relevance already computed (hybrid search).
pub fn rank_scored(
    candidates: Vec<Candidate>,
    relevance: Vec<f64>,
    parts: Vec<Option<SemanticParts>>,
    curve: &Curve,
    limit: usize,
    chunks: Chunks,
) -> Vec<Hit> {
    let scored: Vec<Hit> = candidates
        .into_iter()
        .zip(relevance)
        .zip(parts)
        .map(|((chunk, relevance), semantic)| {
            let (ln_decay, half_life_days, recalls) = curve.decay_of(&chunk);
            let decay = ln_decay.exp();
            Hit {
                chunk,
                relevance,
                decay,
                score: relevance * decay,
                ln_score: relevance.ln() + ln_decay,
                recalls,
                half_life_days,
                mmr: 0.0,
                semantic,
                more_chunks: None,
                via: None,
            }
        })
        .collect();
    // Grouped on the scored candidates, so the chunk standing for a message
    // is its best after decay, and MMR chooses among messages.
    let mut scored = match chunks {
        Chunks::PerMessage => group::one_per_message(scored),
        Chunks::All => scored,
    };
    let tokens = rank::TokenSets::new(scored.iter().map(|h| h.chunk.text.as_str()));
    let first_tier: Vec<bool> = scored
        .iter()
        .map(|h| rank::in_first_tier(h.relevance))
        .collect();
    let ln_scores: Vec<f64> = scored.iter().map(|h| h.ln_score).collect();
    let scores = rank::relative_to_tier_best(&ln_scores, &first_tier);
    let picks = rank::mmr_select_tiered(&scores, &tokens, &first_tier, limit, MMR_LAMBDA);
    let mut slots: Vec<Option<Hit>> = scored.drain(..).map(Some).collect();
    picks
        .into_iter()
        .filter_map(|p| {
            let mut hit = slots.get_mut(p.index)?.take()?;
            hit.mmr = p.mmr;
            Some(hit)
        })
        .collect()
}

#[cfg(test)]
mod tests;
