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
    /// Per word id, the candidates holding it in ascending order.
    postings: Vec<Vec<u32>>,
}

impl TokenSets {
    /// The word sets of `texts`, as [`word_tokens`] splits them.
    pub fn new<'a>(texts: impl IntoIterator<Item = &'a str>) -> TokenSets {
        let mut ids: HashMap<String, u32> = HashMap::new();
        let mut sets = Vec::new();
        let mut postings: Vec<Vec<u32>> = Vec::new();
        let mut lower = String::new();
        for (i, text) in texts.into_iter().enumerate() {
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
                        postings.push(Vec::new());
                        id
                    }
                };
                set.push(id);
            }
            set.sort_unstable();
            set.dedup();
            for &id in &set {
                postings[id as usize].push(i as u32);
            }
            sets.push(set);
        }
        TokenSets { sets, postings }
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
            for &i in &self.postings[word as usize] {
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
