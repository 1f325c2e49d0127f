//! Word sets for MMR: each candidate's text split and lowercased once, as
//! [`word_tokens`] does, into sorted word ids with posting lists, so the
//! Jaccard of one pick with every candidate is one pass over its words.

use std::collections::HashMap;

#[cfg(doc)]
use super::mmr::{jaccard, word_tokens};

/// The word sets of a list of candidates, tokenised once and stored as
/// sorted word ids, with an inverted index from each word to the candidates
/// holding it.
///
/// Why: MMR compares every pick with every remaining candidate, so at
/// `-n 1000` over 4000 candidates it needs four million Jaccard values.
/// Over `HashSet<String>` that was seconds of string hashing; here one pick
/// costs the lengths of the posting lists of its words (each a `u32`
/// increment) plus one division per candidate, and the texts are split and
/// lowercased once per search.
#[derive(Debug, Clone, Default)]
pub struct TokenSets {
    /// Per candidate, its distinct word ids in ascending order.
    sets: Vec<Vec<u32>>,
    /// Per word id `w`, the candidates holding it in ascending order:
    /// `holders[starts[w]..starts[w + 1]]`. One allocation for all words,
    /// most of which only one candidate holds.
    starts: Vec<u32>,
    holders: Vec<u32>,
}

impl TokenSets {
    /// The word sets of `texts`, as [`word_tokens`] splits them.
    pub fn new<'a>(texts: impl IntoIterator<Item = &'a str>) -> TokenSets {
        // Word ids are given in order of first sight, so the hasher does not
        // change them; foldhash's is several times cheaper than SipHash on
        // short words and still seeded per process (texts are mail).
        let mut ids: HashMap<String, u32, foldhash::fast::RandomState> = HashMap::default();
        let mut sets = Vec::new();
        let mut lower = String::new();
        for text in texts {
            let mut set: Vec<u32> = Vec::new();
            for word in text.split(|c: char| !c.is_alphanumeric()) {
                if word.is_empty() {
                    continue;
                }
                lower.clear();
                if word.is_ascii() {
                    lower.extend(word.bytes().map(|b| char::from(b.to_ascii_lowercase())));
                } else {
                    // As `word_tokens` does: `str::to_lowercase` knows a
                    // final sigma, `char::to_lowercase` does not.
                    lower.push_str(&word.to_lowercase());
                }
                let id = match ids.get(lower.as_str()) {
                    Some(&id) => id,
                    None => {
                        let id = ids.len() as u32;
                        ids.insert(lower.clone(), id);
                        id
                    }
                };
                set.push(id);
            }
            set.sort_unstable();
            set.dedup();
            sets.push(set);
        }
        // Counted, then filled: candidate i is pushed in ascending i.
        let mut starts = vec![0u32; ids.len() + 1];
        for &id in sets.iter().flatten() {
            starts[id as usize + 1] += 1;
        }
        for w in 1..starts.len() {
            starts[w] += starts[w - 1];
        }
        let mut next = starts.clone();
        let mut holders = vec![0u32; starts[ids.len()] as usize];
        for (i, set) in sets.iter().enumerate() {
            for &id in set {
                holders[next[id as usize] as usize] = i as u32;
                next[id as usize] += 1;
            }
        }
        TokenSets {
            sets,
            starts,
            holders,
        }
    }

    pub fn len(&self) -> usize {
        self.sets.len()
    }

    pub fn is_empty(&self) -> bool {
        self.sets.is_empty()
    }

    /// Jaccard of candidate `of` with every candidate, by index, as
    /// [`jaccard`] computes it on the same words. `shared` is scratch space,
    /// reused across calls.
    pub(super) fn jaccard_with_all(
        &self,
        of: usize,
        shared: &mut Vec<u32>,
    ) -> impl Iterator<Item = f64> {
        shared.clear();
        shared.resize(self.sets.len(), 0);
        for &word in &self.sets[of] {
            let w = word as usize;
            for &i in &self.holders[self.starts[w] as usize..self.starts[w + 1] as usize] {
                shared[i as usize] += 1;
            }
        }
        let size = self.sets[of].len();
        shared.iter().zip(&self.sets).map(move |(&both, set)| {
            let union = size + set.len() - both as usize;
            if union == 0 {
                0.0
            } else {
                f64::from(both) / union as f64
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rank::mmr::{jaccard, word_tokens};

    #[test]
    fn token_sets_give_the_jaccard_of_word_tokens() {
        let texts = [
            "Please approve the Q3 marketing budget",
            "Please approve the Q3 marketing budget for sure",
            "Budget meeting notes: marketing, eng, ops",
            "Marketing budget alert: Q3 dining over limit",
            "",
            "ΣΟΦΟΣ σοφος",
            "Straße STRASSE straße",
            "x y",
        ];
        let sets = TokenSets::new(texts.iter().copied());
        let mut shared = Vec::new();
        for (i, a) in texts.iter().enumerate() {
            let got: Vec<f64> = sets.jaccard_with_all(i, &mut shared).collect();
            for (j, b) in texts.iter().enumerate() {
                let want = jaccard(&word_tokens(a), &word_tokens(b));
                assert_eq!(got[j], want, "{a:?} vs {b:?}");
            }
        }
    }
}
