//! The forgetting curve of one search: how much each candidate has faded,
//! from its date (renewed by its last genuine recall) to the reference time,
//! with a half-life stretched by how often it was genuinely recalled.

use std::collections::HashMap;

use anyhow::Result;

use super::DecayFrom;
use crate::rank;
use crate::rank::half_life::HalfLives;
use crate::rank::strength::{self, Recalls};
use crate::store::Store;
use crate::store::search::Candidate;

/// Everything the forgetting curve needs for one search: where ages run
/// from, the base half-lives, and the genuine recalls of the candidates.
#[derive(Debug, Clone)]
pub struct Curve {
    pub from: DecayFrom,
    pub half_lives: HalfLives,
    pub recalls: HashMap<i64, Recalls>,
}

impl Curve {
    /// A curve with no recalls: every chunk decays from its date.
    pub fn new(from: DecayFrom, half_lives: HalfLives) -> Curve {
        Curve {
            from,
            half_lives,
            recalls: HashMap::new(),
        }
    }

    /// The curve for `candidates`, with their recalls up to `reference`.
    pub(super) fn of(
        store: &Store,
        candidates: &[Candidate],
        from: DecayFrom,
        half_lives: HalfLives,
        reference: i64,
    ) -> Result<Curve> {
        let ids: Vec<i64> = candidates.iter().map(|c| c.id).collect();
        Ok(Curve {
            recalls: store.recalls_of(&ids, reference)?,
            ..Curve::new(from, half_lives)
        })
    }

    /// (ln decay, effective half-life, recalls) of `chunk`.
    pub(super) fn decay_of(&self, chunk: &Candidate) -> (f64, f64, Recalls) {
        let recalls = self.recalls.get(&chunk.id).copied().unwrap_or_default();
        let h = strength::stretched_half_life(self.half_lives.of(chunk.source_type), recalls.count);
        let age = chunk.dated_at.map(|d| match self.from {
            DecayFrom::Instant(t) => rank::age_days(t, strength::renewed_from(d, &recalls)),
            DecayFrom::Period(p) => rank::age_days_from_period(p.start, p.end, d),
        });
        (strength::ln_decay(age, h), h, recalls)
    }
}
