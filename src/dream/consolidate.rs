//! Same-thought consolidation: active facts that say the same thing merge
//! into one. The same thing is word Jaccard ≥ [`MERGE_JACCARD`] (or, with
//! stored vectors, cosine ≥ [`MERGE_COSINE`]) with no value that differs (a
//! number, a date, a name, a negation), or the same (entity, key) claim with
//! the same value (`claims`). The same claim with
//! another value is not a merge: it is a contradiction candidate.
//!
//! User facts merge only with user facts, and the newest wording survives.
//! A dream fact that repeats a user fact merges into the user fact; dream
//! facts that repeat each other keep the newest. Routines are not merged
//! here: each names its own habit, kept unique by its key.

use std::collections::HashMap;
use std::collections::HashSet;

use anyhow::Result;

use super::claims::{self, Claim, Words};
use super::near_duplicates::NearDuplicates;
use super::prepared::{Prepared, prepare};
use crate::kinds::FactMethod;
use crate::rank::FACT_NEAR_DUPLICATE_JACCARD;
use crate::store::dream::DreamTx;
use crate::store::night::ActiveFact;

/// Word Jaccard from which two facts say the same thing: the same line
/// dream's promotion uses for near-duplicates.
pub const MERGE_JACCARD: f64 = FACT_NEAR_DUPLICATE_JACCARD;
/// Cosine of two facts' vectors from which they say the same thing.
pub const MERGE_COSINE: f32 = 0.92;

/// Facts' vectors by id, L2-normalised (empty without a model).
pub type Vectors = HashMap<i64, Vec<f32>>;

/// The cosine of two L2-normalised vectors.
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// One merge: `fact_id` is retracted into `into`.
#[derive(Debug, Clone, PartialEq)]
pub struct Merge {
    pub fact_id: i64,
    pub into: i64,
    pub reason: String,
}

/// Finds, and unless `dry_run` makes, the merges among `facts` (active
/// facts, prepared). Returns them in the order made.
pub fn consolidate(
    tx: &DreamTx<'_>,
    facts: &[Prepared<'_>],
    vectors: &Vectors,
    now: i64,
    dry_run: bool,
) -> Result<Vec<Merge>> {
    let merges = plan_prepared(facts, vectors);
    if !dry_run {
        for m in &merges {
            tx.merge_fact(m.fact_id, m.into, now)?;
        }
    }
    Ok(merges)
}

/// The merges, decided without the database: user facts first, newest
/// first, each into an earlier-kept user fact it repeats; then dream facts,
/// into a kept user fact, else a kept dream fact.
pub fn plan(facts: &[ActiveFact], vectors: &Vectors) -> Vec<Merge> {
    plan_prepared(&prepare(facts), vectors)
}

/// [`plan`] over facts prepared already (routines left out).
fn plan_prepared(prepared: &[Prepared<'_>], vectors: &Vectors) -> Vec<Merge> {
    let newest_first = |method: FactMethod| {
        let mut v: Vec<&Prepared<'_>> = prepared
            .iter()
            .filter(|p| p.fact.method == method)
            .collect();
        v.sort_by_key(|p| std::cmp::Reverse((p.fact.created_at, p.fact.id)));
        v
    };
    let mut users = Kept::new(prepared.iter().map(|p| &p.tokens), vectors);
    let mut dreams = users.sibling();
    let mut merges = Vec::new();
    for p in newest_first(FactMethod::User) {
        match users.find(p) {
            Some((into, reason)) => merges.push(merge(p, into, reason)),
            None => users.insert(p),
        }
    }
    for p in newest_first(FactMethod::Dream) {
        match users.find(p).or_else(|| dreams.find(p)) {
            Some((into, reason)) => merges.push(merge(p, into, reason)),
            None => dreams.insert(p),
        }
    }
    merges
}

fn merge(p: &Prepared<'_>, into: i64, reason: String) -> Merge {
    Merge {
        fact_id: p.fact.id,
        into,
        reason,
    }
}

/// The survivors so far, by words and by claim.
struct Kept<'a> {
    words: NearDuplicates<usize>,
    texts: Vec<(i64, &'a Words, Option<&'a Claim>)>,
    claims: HashMap<(&'a str, &'a str, &'a str, bool), i64>,
    vectors: &'a Vectors,
}

impl<'a> Kept<'a> {
    fn new<'u>(universe: impl Iterator<Item = &'u HashSet<String>>, vectors: &'a Vectors) -> Self {
        Kept {
            words: NearDuplicates::new(MERGE_JACCARD, universe),
            texts: Vec::new(),
            claims: HashMap::new(),
            vectors,
        }
    }

    /// An empty set of survivors with the same token order.
    fn sibling(&self) -> Self {
        Kept {
            words: self.words.sibling(),
            texts: Vec::new(),
            claims: HashMap::new(),
            vectors: self.vectors,
        }
    }

    fn insert(&mut self, p: &'a Prepared<'a>) {
        self.words.insert(self.texts.len(), &p.tokens);
        self.texts.push((p.fact.id, &p.words, p.claim.as_ref()));
        if let Some(c) = &p.claim {
            self.claims
                .entry((&c.entity, &c.key, &c.value, c.negated))
                .or_insert(p.fact.id);
        }
    }

    /// The survivor `p` repeats, with why.
    fn find(&mut self, p: &Prepared<'_>) -> Option<(i64, String)> {
        if let Some(c) = &p.claim {
            let key = (
                c.entity.as_str(),
                c.key.as_str(),
                c.value.as_str(),
                c.negated,
            );
            if let Some(&id) = self.claims.get(&key) {
                return Some((id, format!("same claim ({}, {})", c.entity, c.key)));
            }
        }
        let same = |(id, words, claim): (i64, &Words, Option<&Claim>)| {
            let claims_differ = match (&p.claim, claim) {
                (Some(a), Some(b)) => claims::compare(a, b) != claims::Verdict::Same,
                _ => false,
            };
            (!claims_differ && claims::differ(&p.words, words).is_none()).then_some(id)
        };
        for (pos, jaccard) in self.words.similar(&p.tokens) {
            if let Some(id) = same(self.texts[pos]) {
                return Some((id, format!("same words (jaccard {jaccard:.2})")));
            }
        }
        // With a model: the most similar kept fact by meaning, if close enough.
        let v = self.vectors.get(&p.fact.id)?;
        let mut best: Option<(f32, usize)> = None;
        for (pos, t) in self.texts.iter().enumerate() {
            if let Some(w) = self.vectors.get(&t.0) {
                let c = cosine(v, w);
                if c >= MERGE_COSINE && best.is_none_or(|(b, _)| c > b) {
                    best = Some((c, pos));
                }
            }
        }
        let (c, pos) = best?;
        same(self.texts[pos]).map(|id| (id, format!("same meaning (cosine {c:.2})")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fact(id: i64, method: FactMethod, created_at: i64, text: &str) -> ActiveFact {
        ActiveFact {
            id,
            text: text.into(),
            method,
            created_at,
            routine_key: None,
        }
    }

    #[test]
    fn plan_table() {
        use FactMethod::{Dream, User};
        let facts = [
            fact(1, User, 10, "Kofi leads the Orion project from Accra"),
            fact(2, User, 20, "From Accra, Kofi leads the Orion project"),
            fact(3, Dream, 30, "Kofi leads the Orion project from Accra!"),
            fact(4, User, 40, "Jane's phone number is 012-345 6789"),
            fact(5, User, 50, "The phone number of Jane is 0123456789"),
            fact(6, User, 60, "Jane's phone number is 012-345 0000"),
            fact(
                7,
                Dream,
                70,
                "The dentist appointment is on 4 March at the Bangsar clinic",
            ),
            fact(
                8,
                Dream,
                80,
                "The dentist appointment is on 5 March at the Bangsar clinic",
            ),
        ];
        let got: Vec<(i64, i64)> = plan(&facts, &Vectors::new())
            .iter()
            .map(|m| (m.fact_id, m.into))
            .collect();
        // Newest user wording survives; the dream fact merges into it; the
        // phone numbers with another value and the two dates do not merge.
        assert_eq!(got, vec![(4, 5), (1, 2), (3, 2)]);
    }
}

#[cfg(test)]
mod cosine_tests {
    use super::*;

    #[test]
    fn with_vectors_close_meanings_merge_unless_a_value_differs() {
        let f = |id: i64, text: &str| ActiveFact {
            id,
            text: text.into(),
            method: FactMethod::User,
            created_at: id,
            routine_key: None,
        };
        let facts = [
            f(1, "Jane is vegetarian"),
            f(2, "Jane does not eat meat"),
            f(3, "Kofi lives in Accra"),
            f(4, "Kofi lives in Kumasi"),
            f(5, "The boiler was serviced"),
        ];
        let unit = |x: f32| vec![x, (1.0 - x * x).sqrt()];
        let vectors: Vectors = [
            (1, unit(1.0)),
            (2, unit(0.95)),
            (3, vec![0.0, 1.0]),
            (4, vec![0.0, 1.0]),
            (5, unit(0.5)),
        ]
        .into_iter()
        .collect();
        let got: Vec<(i64, i64, String)> = plan(&facts, &vectors)
            .into_iter()
            .map(|m| (m.fact_id, m.into, m.reason))
            .collect();
        assert_eq!(got, vec![(1, 2, "same meaning (cosine 0.95)".to_string())]);
    }
}
