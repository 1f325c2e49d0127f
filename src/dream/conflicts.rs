//! Contradiction candidates: facts formed since the last dream (all facts on
//! the first) are compared with every active fact, and pairs that speak
//! about the same thing with different values are flagged for the person.
//!
//! The same thing: the same (entity, key) claim (`claims::parse`), or word
//! Jaccard ≥ [`CONFLICT_OVERLAP`] when the two facts do not make claims
//! about different things. Different values: `claims::compare` for claims,
//! `claims::value_difference` for free text (numbers, dates, names and
//! places, a negation). Routines are not compared; a pair is flagged once.

use std::collections::{HashMap, HashSet};

use anyhow::Result;

use super::claims::{self, Claim, Verdict};
use super::consolidate::{Vectors, cosine};
use super::near_duplicates::NearDuplicates;
use crate::kinds::FactMethod;
use crate::rank::word_tokens;
use crate::store::dream::DreamTx;
use crate::store::night::ActiveFact;

/// Word Jaccard from which two facts without comparable claims speak about
/// the same thing.
pub const CONFLICT_OVERLAP: f64 = 0.6;
/// With stored vectors, the cosine from which they do too.
pub const CONFLICT_COSINE: f32 = 0.85;

/// One pair flagged tonight, smaller id first.
#[derive(Debug, Clone, PartialEq)]
pub struct Flag {
    pub facts: (i64, i64),
    pub reason: String,
}

/// Finds, and unless `dry_run` records, the new contradiction candidates
/// among `facts` (active facts after consolidation) for those created at or
/// after `since` (None: all).
pub fn flag(
    tx: &DreamTx<'_>,
    facts: &[ActiveFact],
    vectors: &Vectors,
    since: Option<i64>,
    now: i64,
    dry_run: bool,
) -> Result<Vec<Flag>> {
    let known = tx.flagged_pairs()?;
    let flags = find(facts, vectors, since, &known);
    if !dry_run {
        for f in &flags {
            tx.insert_conflict(f.facts.0, f.facts.1, &f.reason, now)?;
        }
    }
    Ok(flags)
}

/// The pairs to flag, decided without the database; `known` pairs (flagged
/// before, open or not) are skipped.
pub fn find(
    facts: &[ActiveFact],
    vectors: &Vectors,
    since: Option<i64>,
    known: &HashSet<(i64, i64)>,
) -> Vec<Flag> {
    let facts: Vec<&ActiveFact> = facts
        .iter()
        .filter(|f| f.method != FactMethod::Routine)
        .collect();
    let tokens: Vec<HashSet<String>> = facts.iter().map(|f| word_tokens(&f.text)).collect();
    let parsed: Vec<Option<Claim>> = facts.iter().map(|f| claims::parse(&f.text)).collect();
    let mut by_claim: HashMap<(&str, &str), Vec<usize>> = HashMap::new();
    for (i, c) in parsed.iter().enumerate() {
        if let Some(c) = c {
            by_claim.entry((&c.entity, &c.key)).or_default().push(i);
        }
    }
    let mut words = NearDuplicates::new(CONFLICT_OVERLAP, tokens.iter());
    for (i, t) in tokens.iter().enumerate() {
        words.insert(i, t);
    }
    let mut seen: HashSet<(i64, i64)> = HashSet::new();
    let mut out = Vec::new();
    for i in 0..facts.len() {
        if since.is_some_and(|s| facts[i].created_at < s) {
            continue;
        }
        let mut near: Vec<usize> = words
            .similar(&tokens[i])
            .into_iter()
            .map(|(j, _)| j)
            .collect();
        if let Some(c) = &parsed[i] {
            near.extend(
                by_claim[&(c.entity.as_str(), c.key.as_str())]
                    .iter()
                    .copied(),
            );
        }
        if let Some(v) = vectors.get(&facts[i].id) {
            near.extend((0..facts.len()).filter(|&j| {
                vectors
                    .get(&facts[j].id)
                    .is_some_and(|w| cosine(v, w) >= CONFLICT_COSINE)
            }));
        }
        for j in near {
            let (a, b) = (facts[i].id.min(facts[j].id), facts[i].id.max(facts[j].id));
            if i == j || known.contains(&(a, b)) || !seen.insert((a, b)) {
                continue;
            }
            if let Some(reason) = judge(facts[i], &parsed[i], facts[j], &parsed[j]) {
                out.push(Flag {
                    facts: (a, b),
                    reason,
                });
            }
        }
    }
    out
}

/// Why two facts contradict each other, or None.
fn judge(a: &ActiveFact, ca: &Option<Claim>, b: &ActiveFact, cb: &Option<Claim>) -> Option<String> {
    if let (Some(ca), Some(cb)) = (ca, cb) {
        if ca.entity == cb.entity && ca.key == cb.key {
            return match claims::compare(ca, cb) {
                Verdict::Conflict(reason) => Some(reason),
                Verdict::Same | Verdict::Compatible => None,
            };
        }
        // Claims about different things: at most a shared topic.
        return None;
    }
    claims::value_difference(&a.text, &b.text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(texts: &[&str]) -> Vec<ActiveFact> {
        texts
            .iter()
            .enumerate()
            .map(|(i, t)| ActiveFact {
                id: i as i64 + 1,
                text: t.to_string(),
                method: FactMethod::User,
                created_at: 100 + i as i64,
                routine_key: None,
            })
            .collect()
    }

    #[test]
    fn flags_table() {
        // (facts, since, pairs flagged)
        type Case<'a> = (&'a [&'a str], Option<i64>, &'a [(i64, i64)]);
        let cases: &[Case] = &[
            (
                &[
                    "Jane Tan's phone number is 012-345 6789",
                    "Jane Tan's mobile is 019 888 7777",
                ],
                None,
                &[(1, 2)],
            ),
            (
                &["Jane Tan is my contact at Acme", "Kofi lives in Accra"],
                None,
                &[],
            ),
            (
                &[
                    "My flight to Tokyo is on 3 March",
                    "My flight to Osaka is on 5 March",
                ],
                None,
                &[],
            ),
            (
                &["Kofi lives in Accra", "Kofi moved to Kumasi"],
                None,
                &[(1, 2)],
            ),
            (
                &["Jane drinks coffee", "Jane never drinks coffee"],
                None,
                &[(1, 2)],
            ),
            // Both older than the last dream: not compared again.
            (
                &["Jane drinks coffee", "Jane never drinks coffee"],
                Some(200),
                &[],
            ),
        ];
        for (texts, since, want) in cases {
            let got: Vec<(i64, i64)> =
                find(&facts(texts), &Vectors::new(), *since, &HashSet::new())
                    .iter()
                    .map(|f| f.facts)
                    .collect();
            assert_eq!(&got, want, "{texts:?}");
        }
    }
}
