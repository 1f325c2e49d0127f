//! Finding a near-duplicate (word-Jaccard ≥ a threshold) among many texts
//! without comparing every pair.
//!
//! Comparing each new fact with every fact so far is quadratic: on a first
//! dream over a busy recall log (45,000 passing chunks in the benchmark) that
//! is a billion set comparisons. This is the prefix filter of the AllPairs
//! similarity join (Bayardo et al., WWW 2007): order every token by how few
//! texts contain it, rarest first. If `J(a, b) ≥ t` then the first
//! `|a| − ⌈t·|a|⌉ + 1` tokens of `a` and the first `|b| − ⌈t·|b|⌉ + 1` tokens
//! of `b` share a token (otherwise too many tokens would be missing from
//! the intersection). So only the prefix tokens are indexed and probed, and
//! because they are the rare ones, few pairs are ever compared. The candidate
//! pairs are then checked exactly, with the same Jaccard as
//! [`crate::rank::jaccard`].
//!
//! Two cheap bounds from PPJoin (Xiao et al., WWW 2008) skip most of those
//! checks: sizes too different for the threshold, and the position filter,
//! which stops counting a pair as soon as the tokens left after the current
//! common one cannot bring the overlap up to what the threshold needs.

use std::collections::HashSet;
use std::rc::Rc;

use crate::fast_hash::FxHashMap;

/// Texts (as token sets) indexed for near-duplicate lookups.
pub struct NearDuplicates<K> {
    threshold: f64,
    /// Token -> id; ids are assigned rarest first, so a set sorted by id has
    /// its rarest tokens first. Shared by [`NearDuplicates::sibling`]s.
    vocab: Rc<FxHashMap<String, u32>>,
    sets: Vec<(K, Vec<u32>)>,
    /// Prefix token id -> where it sits: the posting lists, indexed by id.
    by_prefix: Vec<Vec<Posting>>,
    /// Scratch for one lookup, indexed like `sets`: common prefix tokens
    /// counted so far (0 = not met, or ruled out). Reset after each lookup.
    overlap: Vec<u32>,
    /// The size of the largest set inserted.
    max_len: usize,
}

/// One indexed prefix token: the set (its position in `sets`), the
/// token's position in it, and the set's size, kept here so that the size
/// and position filters read the posting list alone.
#[derive(Clone, Copy)]
struct Posting {
    set: u32,
    at: u32,
    len: u32,
}

impl<K: Copy> NearDuplicates<K> {
    /// An empty index whose token order comes from `universe`: every set
    /// that will be inserted or looked up must be among them.
    pub fn new<'a>(threshold: f64, universe: impl Iterator<Item = &'a HashSet<String>>) -> Self {
        let mut df: FxHashMap<&'a str, u32> = FxHashMap::default();
        for set in universe {
            for t in set {
                *df.entry(t.as_str()).or_default() += 1;
            }
        }
        let mut order: Vec<(&str, u32)> = df.into_iter().collect();
        order.sort_by(|a, b| a.1.cmp(&b.1).then(a.0.cmp(b.0)));
        let vocab = order
            .into_iter()
            .enumerate()
            .map(|(id, (t, _))| (t.to_string(), id as u32))
            .collect();
        NearDuplicates {
            threshold,
            vocab: Rc::new(vocab),
            sets: Vec::new(),
            by_prefix: Vec::new(),
            overlap: Vec::new(),
            max_len: 0,
        }
    }

    /// An empty index with the same threshold and token order, without
    /// counting the universe again.
    pub fn sibling<L: Copy>(&self) -> NearDuplicates<L> {
        NearDuplicates {
            threshold: self.threshold,
            vocab: Rc::clone(&self.vocab),
            sets: Vec::new(),
            by_prefix: Vec::new(),
            overlap: Vec::new(),
            max_len: 0,
        }
    }

    pub fn insert(&mut self, key: K, tokens: &HashSet<String>) {
        let ids = self.ids(tokens);
        let pos = self.sets.len() as u32;
        let len = ids.len() as u32;
        for (j, &t) in ids[..prefix_len(ids.len(), self.threshold)]
            .iter()
            .enumerate()
        {
            let t = t as usize;
            if t >= self.by_prefix.len() {
                self.by_prefix.resize_with(t + 1, Vec::new);
            }
            self.by_prefix[t].push(Posting {
                set: pos,
                at: j as u32,
                len,
            });
        }
        self.max_len = self.max_len.max(ids.len());
        self.sets.push((key, ids));
        self.overlap.push(0);
    }

    /// The inserted set most similar to `tokens`, if its Jaccard is at least
    /// the threshold, with that Jaccard. Ties go to the earliest inserted.
    pub fn most_similar(&mut self, tokens: &HashSet<String>) -> Option<(K, f64)> {
        self.similar(tokens).into_iter().next()
    }

    /// Every inserted set whose Jaccard with `tokens` is at least the
    /// threshold, most similar first (ties: earliest inserted first).
    pub fn similar(&mut self, tokens: &HashSet<String>) -> Vec<(K, f64)> {
        let t = self.threshold;
        let a = self.ids(tokens);
        let na = a.len() as f64;
        // The size filter's bounds, and the overlap J ≥ t needs for each
        // size it lets through: |a ∩ b| ≥ t / (1 + t) × (|a| + |b|).
        let (low, high) = (t * na - EPSILON, na / t + EPSILON);
        let smallest = low.max(0.0).ceil() as usize;
        let largest = (high.floor() as usize).min(self.max_len);
        let needs: Vec<usize> = (smallest..=largest)
            .map(|nb| (t / (1.0 + t) * (na + nb as f64) - EPSILON).ceil() as usize)
            .collect();
        let mut met: Vec<usize> = Vec::new();
        for (i, &tok) in a[..prefix_len(a.len(), t)].iter().enumerate() {
            let Some(postings) = self.by_prefix.get(tok as usize) else {
                continue;
            };
            let left = a.len() - i - 1;
            for p in postings {
                let b = p.len as usize;
                let Some(&need) = b.checked_sub(smallest).and_then(|k| needs.get(k)) else {
                    continue;
                };
                let pos = p.set as usize;
                let seen = self.overlap[pos] as usize;
                let at_most = seen + 1 + left.min(b - p.at as usize - 1);
                // A pair ruled out here stays out: for later common tokens
                // fewer tokens remain, so the bound only shrinks.
                if at_most >= need {
                    if seen == 0 {
                        met.push(pos);
                    }
                    self.overlap[pos] += 1;
                }
            }
        }
        let mut found: Vec<(usize, f64)> = Vec::new();
        for &pos in &met {
            self.overlap[pos] = 0;
            let j = jaccard_sorted(&a, &self.sets[pos].1);
            if j >= t {
                found.push((pos, j));
            }
        }
        found.sort_by(|x, y| y.1.total_cmp(&x.1).then(x.0.cmp(&y.0)));
        found
            .into_iter()
            .map(|(pos, j)| (self.sets[pos].0, j))
            .collect()
    }

    /// Token ids of `tokens`, rarest first. Tokens outside the universe are
    /// in no other set, so they only enlarge the union; they are kept as one
    /// id past the vocabulary each, which sorts them last.
    fn ids(&self, tokens: &HashSet<String>) -> Vec<u32> {
        let mut unknown = self.vocab.len() as u32;
        let mut ids: Vec<u32> = tokens
            .iter()
            .map(|t| {
                self.vocab.get(t).copied().unwrap_or_else(|| {
                    unknown += 1;
                    unknown
                })
            })
            .collect();
        ids.sort_unstable();
        ids
    }
}

/// Slack for float error in the bounds: 0.8 × 5 is 4.000000000000001, and
/// rounding that up would demand one token more than the threshold does.
const EPSILON: f64 = 1e-9;

/// How many of a set's first tokens must be indexed and probed so that any
/// two sets with Jaccard ≥ `t` share one: `n − ⌈t·n⌉ + 1`, at most `n`.
fn prefix_len(n: usize, t: f64) -> usize {
    if n == 0 {
        return 0;
    }
    let need = (t * n as f64 - EPSILON).ceil().max(0.0) as usize;
    (n + 1).saturating_sub(need).min(n)
}

/// `|a ∩ b| / |a ∪ b|` of two sorted, duplicate-free id lists; 0 when both
/// are empty, like [`crate::rank::jaccard`].
fn jaccard_sorted(a: &[u32], b: &[u32]) -> f64 {
    let (mut i, mut j, mut common) = (0, 0, 0usize);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                common += 1;
                i += 1;
                j += 1;
            }
        }
    }
    let union = a.len() + b.len() - common;
    if union == 0 {
        0.0
    } else {
        common as f64 / union as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rank::{jaccard, word_tokens};
    use proptest::prelude::*;

    #[test]
    fn prefix_lengths() {
        // (set size, threshold) -> prefix length
        let cases = [
            (0, 0.8),
            (1, 0.8),
            (4, 0.8),
            (5, 0.8),
            (10, 0.8),
            (13, 0.8),
            (5, 0.0),
        ];
        let want = [0, 1, 1, 2, 3, 3, 5];
        for ((n, t), w) in cases.iter().zip(want) {
            assert_eq!(prefix_len(*n, *t), w, "{n} {t}");
        }
    }

    #[test]
    fn finds_the_closest_text_over_the_threshold() {
        let texts = [
            "Kofi leads the Orion project from Accra",
            "Jane Tan is my contact at Acme",
            "Kofi leads the Orion project from Accra office",
        ];
        let sets: Vec<_> = texts.iter().map(|t| word_tokens(t)).collect();
        let probe = word_tokens("Kofi leads the Orion project from Accra!");
        let mut idx = NearDuplicates::new(0.8, sets.iter().chain([&probe]));
        for (i, s) in sets.iter().enumerate() {
            idx.insert(i, s);
        }
        assert_eq!(idx.most_similar(&probe), Some((0, 1.0)));
        let far = word_tokens("Jane Tan works at Acme");
        assert_eq!(idx.most_similar(&far), None);
    }

    proptest! {
        /// The index answers exactly what comparing with every set answers.
        #[test]
        fn agrees_with_brute_force(
            sets in prop::collection::vec(prop::collection::hash_set("[a-e][a-c]?", 0..8), 1..30),
            threshold in prop::sample::select(vec![0.5, 0.6, 0.8, 1.0]),
        ) {
            let sets: Vec<HashSet<String>> = sets;
            let mut idx = NearDuplicates::new(threshold, sets.iter());
            for (i, probe) in sets.iter().enumerate() {
                let brute = sets[..i]
                    .iter()
                    .enumerate()
                    .map(|(k, s)| (k, jaccard(probe, s)))
                    .filter(|(_, j)| *j >= threshold)
                    .fold(None, |best: Option<(usize, f64)>, (k, j)| match best {
                        Some((_, b)) if b >= j => best,
                        _ => Some((k, j)),
                    });
                prop_assert_eq!(idx.most_similar(probe), brute);
                idx.insert(i, probe);
            }
        }
    }
}
