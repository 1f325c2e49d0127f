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

use super::claims::{self, Claim, Verdict, Words};
use super::consolidate::{Vectors, cosine};
use super::near_duplicates::NearDuplicates;
use super::prepared::{Prepared, prepare};
use crate::store::dream::DreamTx;
use crate::store::night::ActiveFact;

/// Word Jaccard from which two facts without comparable claims speak about
/// the same thing.
pub const CONFLICT_OVERLAP: f64 = 0.6;
/// With stored vectors, the cosine from which they do too.
pub const CONFLICT_COSINE: f32 = 0.85;
/// New pairs flagged in one night: more than a person reviews. The facts
/// not compared yet wait for the next night.
pub const MAX_FLAGS_PER_RUN: usize = 40;
/// Word-overlap neighbours of one fact judged, most similar first: a fact
/// that shares words with hundreds of others is about a topic, and its few
/// closest are what it could contradict.
pub const MAX_NEIGHBOURS: usize = 20;
/// Meta key: facts created from this unix time on are still to compare.
pub const CHECKED_META: &str = "conflicts_checked_from";

/// One pair flagged tonight, smaller id first.
#[derive(Debug, Clone, PartialEq)]
pub struct Flag {
    pub facts: (i64, i64),
    pub reason: String,
}

/// Finds, and unless `dry_run` records, the new contradiction candidates
/// among `facts` (active facts after consolidation, prepared) for those not
/// compared yet: created since the last dream finished comparing (on the
/// first, all).
pub fn flag(
    tx: &DreamTx<'_>,
    facts: &[&Prepared<'_>],
    vectors: &Vectors,
    now: i64,
    dry_run: bool,
) -> Result<Vec<Flag>> {
    let since = tx.get_meta(CHECKED_META)?.and_then(|v| v.parse().ok());
    let known = tx.flagged_pairs()?;
    let (flags, resume_at) = find_prepared(facts, vectors, since, &known);
    if !dry_run {
        for f in &flags {
            tx.insert_conflict(f.facts.0, f.facts.1, &f.reason, now)?;
        }
        tx.set_meta(CHECKED_META, &resume_at.unwrap_or(now).to_string())?;
    }
    Ok(flags)
}

/// The pairs to flag, decided without the database; `known` pairs (flagged
/// before, open or not) are skipped. New facts are taken oldest first; after
/// [`MAX_FLAGS_PER_RUN`] flags it stops, and says from which creation time
/// the next run must resume (None: it finished).
pub fn find(
    facts: &[ActiveFact],
    vectors: &Vectors,
    since: Option<i64>,
    known: &HashSet<(i64, i64)>,
) -> (Vec<Flag>, Option<i64>) {
    let prepared = prepare(facts);
    let refs: Vec<&Prepared<'_>> = prepared.iter().collect();
    find_prepared(&refs, vectors, since, known)
}

/// [`find`] over facts prepared already (routines left out).
fn find_prepared(
    facts: &[&Prepared<'_>],
    vectors: &Vectors,
    since: Option<i64>,
    known: &HashSet<(i64, i64)>,
) -> (Vec<Flag>, Option<i64>) {
    let mut by_claim: HashMap<(&str, &str), Vec<usize>> = HashMap::new();
    for (i, p) in facts.iter().enumerate() {
        if let Some(c) = &p.claim {
            by_claim.entry((&c.entity, &c.key)).or_default().push(i);
        }
    }
    let mut overlap = NearDuplicates::new(CONFLICT_OVERLAP, facts.iter().map(|p| &p.tokens));
    for (i, p) in facts.iter().enumerate() {
        overlap.insert(i, &p.tokens);
    }
    let fact = |i: usize| facts[i].fact;
    let mut new: Vec<usize> = (0..facts.len())
        .filter(|&i| since.is_none_or(|s| fact(i).created_at >= s))
        .collect();
    new.sort_by_key(|&i| (fact(i).created_at, fact(i).id));
    let mut seen: HashSet<(i64, i64)> = HashSet::new();
    let mut out = Vec::new();
    for i in new {
        let mut near: Vec<usize> = overlap
            .similar(&facts[i].tokens)
            .into_iter()
            .filter(|&(j, _)| j != i)
            .take(MAX_NEIGHBOURS)
            .map(|(j, _)| j)
            .collect();
        if let Some(c) = &facts[i].claim {
            near.extend(
                by_claim[&(c.entity.as_str(), c.key.as_str())]
                    .iter()
                    .copied(),
            );
        }
        if let Some(v) = vectors.get(&fact(i).id) {
            near.extend((0..facts.len()).filter(|&j| {
                vectors
                    .get(&fact(j).id)
                    .is_some_and(|w| cosine(v, w) >= CONFLICT_COSINE)
            }));
        }
        for j in near {
            let (a, b) = (fact(i).id.min(fact(j).id), fact(i).id.max(fact(j).id));
            if i == j || known.contains(&(a, b)) || !seen.insert((a, b)) {
                continue;
            }
            let (pi, pj) = (facts[i], facts[j]);
            if let Some(reason) = judge((&pi.words, &pi.claim), (&pj.words, &pj.claim)) {
                if out.len() == MAX_FLAGS_PER_RUN {
                    // Fact i again next night: the pairs flagged are known.
                    return (out, Some(fact(i).created_at));
                }
                out.push(Flag {
                    facts: (a, b),
                    reason,
                });
            }
        }
    }
    (out, None)
}

/// Why two facts contradict each other, or None.
fn judge((a, ca): (&Words, &Option<Claim>), (b, cb): (&Words, &Option<Claim>)) -> Option<String> {
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
    claims::differ(a, b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kinds::FactMethod;

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
            // Both older than where the last dream stopped: not compared again.
            (
                &["Jane drinks coffee", "Jane never drinks coffee"],
                Some(200),
                &[],
            ),
        ];
        for (texts, since, want) in cases {
            let got: Vec<(i64, i64)> =
                find(&facts(texts), &Vectors::new(), *since, &HashSet::new())
                    .0
                    .iter()
                    .map(|f| f.facts)
                    .collect();
            assert_eq!(&got, want, "{texts:?}");
        }
    }
}

#[cfg(test)]
mod cap_tests {
    use super::*;
    use crate::kinds::FactMethod;

    #[test]
    fn a_night_flags_at_most_its_share_and_says_where_to_resume() {
        let fact = |id: i64, text: String, created_at: i64| ActiveFact {
            id,
            text,
            method: FactMethod::User,
            created_at,
            routine_key: None,
        };
        let facts: Vec<ActiveFact> = (0..100)
            .map(|i| {
                fact(
                    i + 1,
                    format!("Person{i}'s phone number is 0123{:05}", i * 2),
                    1000,
                )
            })
            .chain((0..100).map(|i| {
                fact(
                    101 + i,
                    format!("Person{i}'s phone number is 0199{:05}", i * 3),
                    2000 + i,
                )
            }))
            .collect();
        let mut known: HashSet<(i64, i64)> = HashSet::new();
        let mut since = None;
        let mut nights = 0;
        loop {
            let (flags, resume) = find(&facts, &Vectors::new(), since, &known);
            nights += 1;
            assert!(flags.len() <= MAX_FLAGS_PER_RUN);
            for f in flags {
                assert!(known.insert(f.facts), "{:?} flagged twice", f.facts);
            }
            match resume {
                Some(at) => since = Some(at),
                None => break,
            }
        }
        assert_eq!(
            known.len(),
            100,
            "every person's two numbers, each pair once"
        );
        assert_eq!(nights, 3);
    }
}
