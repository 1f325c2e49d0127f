//! Maximal Marginal Relevance re-ranking: picks results that are both relevant
//! and different from what has already been picked, so five near-identical
//! "please approve" mails do not crowd out the one distinct hit the user
//! actually remembers.

use std::collections::HashSet;

use super::token_sets::TokenSets;

/// MMR trade-off: `mmr = λ × score − (1 − λ) × max_jaccard_to_selected`.
///
/// Why 0.7: relevance should still dominate (a weak-but-novel item must not
/// beat a strong one just for being different), while 0.3 of weight on
/// redundancy is enough to reorder items whose scores are close.
pub const MMR_LAMBDA: f64 = 0.7;

/// Near-duplicate gate: a candidate with word-Jaccard `>= 0.7` to any already
/// selected item is deferred until no other candidate remains.
///
/// Why a gate on top of MMR: plain MMR at λ = 0.7 can subtract at most
/// `1 − λ = 0.3`, so a near-copy scored 0.94 (`0.658 − 0.225 = 0.433`) still
/// beats a distinct item scored 0.70 (`0.49 − 0.09 = 0.40`). The design's
/// worked example (see `worked_example_picks_a_d_e`) requires the distinct
/// item to win; lowering λ enough to achieve that would let novelty swamp
/// relevance everywhere else. Why 0.7: re-wordings of one sentence with a word
/// or two appended ("… for sure", "… (revised)") score 0.75–0.86, while items
/// that merely share a topic ("marketing budget") stay well under 0.5.
pub const NEAR_DUPLICATE_JACCARD: f64 = 0.7;

/// Lowercased word tokens of `text`.
///
/// A word is a maximal run of `char::is_alphanumeric` characters, so
/// punctuation and apostrophes split words ("budget:" → "budget",
/// "don't" → "don", "t") and non-ASCII letters are kept. Splitting on
/// apostrophes is deliberate: it is cheap, language-agnostic, and the effect
/// is symmetric across the texts being compared.
pub fn word_tokens(text: &str) -> HashSet<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Jaccard similarity `|a ∩ b| / |a ∪ b|`; two empty sets give `0.0` (they
/// share no evidence of being duplicates, so they must not be gated as such).
pub fn jaccard(a: &HashSet<String>, b: &HashSet<String>) -> f64 {
    let (small, large) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    let intersection = small.iter().filter(|t| large.contains(*t)).count();
    let union = a.len() + b.len() - intersection;
    if union == 0 {
        0.0
    } else {
        intersection as f64 / union as f64
    }
}

/// One MMR selection: the candidate's index in the input slices and its MMR
/// value at the moment it was picked (later picks see more penalty).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MmrPick {
    pub index: usize,
    pub mmr: f64,
}

/// Greedy MMR over candidates `scores[i]` with word sets `tokens[i]`.
///
/// Each step picks the remaining candidate maximising
/// `λ × score − (1 − λ) × max_jaccard_to_selected` (penalty 0 on the first
/// pick). Ties go to the higher score, then the lower index, so output is
/// deterministic. Candidates with Jaccard `>= NEAR_DUPLICATE_JACCARD` to any
/// selected item are deferred: they are chosen (by the same formula) only
/// once no non-deferred candidate remains, so they come last but are not
/// lost when `k` is large. See [`NEAR_DUPLICATE_JACCARD`] for why.
///
/// Returns at most `k` picks in selection order. Only the first
/// `min(scores.len(), tokens.len())` candidates are considered. A NaN
/// `lambda` falls back to [`MMR_LAMBDA`]; other values are clamped to
/// `[0, 1]`. Non-finite scores count as 0 so they cannot poison comparisons.
///
/// Cost: per pick, one pass over the remaining candidates and the posting
/// lists of the pick's words ([`TokenSets`]); a whole `search -n 1000` at
/// 100k messages takes a median 0.24 s (docs/PERFORMANCE.md).
pub fn mmr_select(scores: &[f64], tokens: &TokenSets, k: usize, lambda: f64) -> Vec<MmrPick> {
    mmr_select_tiered(scores, tokens, &vec![true; scores.len()], k, lambda)
}

/// [`mmr_select`] with a first tier: while a non-deferred candidate with
/// `first_tier[i]` remains, only those are picked (see
/// `relevance::RELEVANCE_TIER`). The near-duplicate gate comes before the
/// tier, so a re-wording of a first-tier pick still waits behind a distinct
/// second-tier item, and redundancy is measured against every pick.
/// A missing `first_tier` entry counts as second tier.
pub fn mmr_select_tiered(
    scores: &[f64],
    tokens: &TokenSets,
    first_tier: &[bool],
    k: usize,
    lambda: f64,
) -> Vec<MmrPick> {
    debug_assert_eq!(scores.len(), tokens.len(), "one token set per score");
    let n = scores.len().min(tokens.len());
    let first = |i: usize| first_tier.get(i).copied().unwrap_or(false);
    let lambda = if lambda.is_nan() {
        MMR_LAMBDA
    } else {
        lambda.clamp(0.0, 1.0)
    };
    let score = |i: usize| {
        if scores[i].is_finite() {
            scores[i]
        } else {
            0.0
        }
    };

    // Running max Jaccard to the selected set, updated incrementally after
    // each pick so we never recompute against the whole selection.
    let mut max_sim = vec![0.0_f64; n];
    let mut remaining: Vec<usize> = (0..n).collect();
    let mut picks = Vec::with_capacity(k.min(n));
    let mut shared = Vec::new();

    while picks.len() < k && !remaining.is_empty() {
        let fresh = |i: usize| max_sim[i] < NEAR_DUPLICATE_JACCARD;
        let any_fresh = remaining.iter().any(|&i| fresh(i));
        let eligible = |i: usize| !any_fresh || fresh(i);
        let any_first = remaining.iter().any(|&i| eligible(i) && first(i));
        let mut best: Option<(usize, f64)> = None; // (position in remaining, mmr)
        for (pos, &i) in remaining.iter().enumerate() {
            if !eligible(i) || (any_first && !first(i)) {
                continue;
            }
            let mmr = lambda * score(i) - (1.0 - lambda) * max_sim[i];
            let better = match best {
                None => true,
                Some((bpos, bmmr)) => {
                    let b = remaining[bpos];
                    // Remaining is kept in index order, so "lower index" wins
                    // by not replacing on a full tie.
                    mmr > bmmr || (mmr == bmmr && score(i) > score(b))
                }
            };
            if better {
                best = Some((pos, mmr));
            }
        }
        let Some((pos, mmr)) = best else { break };
        let chosen = remaining.remove(pos);
        picks.push(MmrPick { index: chosen, mmr });
        if picks.len() < k {
            for (sim, j) in max_sim
                .iter_mut()
                .zip(tokens.jaccard_with_all(chosen, &mut shared))
            {
                *sim = sim.max(j);
            }
        }
    }
    picks
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(texts: &[&str]) -> TokenSets {
        TokenSets::new(texts.iter().copied())
    }

    fn indices(p: &[MmrPick]) -> Vec<usize> {
        p.iter().map(|p| p.index).collect()
    }

    const A: &str = "Please approve the Q3 marketing budget";
    const B: &str = "Please approve the Q3 marketing budget for sure";
    const C: &str = "Please approve the Q3 marketing budget (revised)";
    const D: &str = "Marketing budget alert: Q3 dining over limit";
    const E: &str = "Budget meeting notes: marketing, eng, ops";
    const WORKED_SCORES: [f64; 5] = [0.95, 0.94, 0.93, 0.70, 0.65];

    #[test]
    fn word_tokens_table() {
        let cases: &[(&str, &[&str])] = &[
            ("Q3 budget:", &["q3", "budget"]),
            ("don't", &["don", "t"]),
            ("Café ÜBER straße", &["café", "über", "straße"]),
            ("a-b_c", &["a", "b", "c"]),
            ("  ,,; ", &[]),
            ("Budget budget BUDGET", &["budget"]),
        ];
        for (text, want) in cases {
            let want: HashSet<String> = want.iter().map(|s| s.to_string()).collect();
            assert_eq!(word_tokens(text), want, "{text:?}");
        }
    }

    #[test]
    fn jaccard_table() {
        let cases: &[(&str, &str, f64)] = &[
            (A, B, 6.0 / 8.0),
            (A, C, 6.0 / 7.0),
            (A, D, 3.0 / 10.0),
            (A, E, 2.0 / 10.0),
            (D, E, 2.0 / 11.0),
            (A, A, 1.0),
            ("", "", 0.0),
            ("x", "", 0.0),
            ("x y", "z", 0.0),
        ];
        for (a, b, want) in cases {
            let got = jaccard(&word_tokens(a), &word_tokens(b));
            assert!((got - want).abs() < 1e-12, "{a:?} vs {b:?}: {got}");
            let rev = jaccard(&word_tokens(b), &word_tokens(a));
            assert_eq!(got, rev, "symmetric");
        }
    }

    #[test]
    fn worked_example_picks_a_d_e() {
        let picks = mmr_select(&WORKED_SCORES, &toks(&[A, B, C, D, E]), 3, MMR_LAMBDA);
        assert_eq!(indices(&picks), vec![0, 3, 4]);
        // A: 0.7×0.95; D: 0.49 − 0.3×0.3; E: 0.455 − 0.3×0.2 (J(E,D)=2/11 < 0.2).
        let want = [0.665, 0.40, 0.395];
        for (p, w) in picks.iter().zip(want) {
            assert!((p.mmr - w).abs() < 1e-12, "{p:?} vs {w}");
        }
    }

    #[test]
    fn plain_mmr_without_gate_would_fail_worked_example() {
        // Documents why the gate exists: B's raw MMR after A beats D's.
        let t: Vec<_> = [A, B, D].iter().map(|t| word_tokens(t)).collect();
        let b = MMR_LAMBDA * 0.94 - (1.0 - MMR_LAMBDA) * jaccard(&t[0], &t[1]);
        let d = MMR_LAMBDA * 0.70 - (1.0 - MMR_LAMBDA) * jaccard(&t[0], &t[2]);
        assert!(b > d);
    }

    #[test]
    fn deferred_duplicates_come_last_but_are_returned_when_k_is_n() {
        let picks = mmr_select(&WORKED_SCORES, &toks(&[A, B, C, D, E]), 5, MMR_LAMBDA);
        // B and C are both deferred; among them, B has the higher MMR
        // (0.658 − 0.3×J(B,A)=0.75 → 0.433 vs 0.651 − 0.3×6/7 → 0.394).
        assert_eq!(indices(&picks), vec![0, 3, 4, 1, 2]);
    }

    #[test]
    fn first_tier_goes_first_but_duplicates_still_wait() {
        // A and B are first tier, D and E second; B is a near-copy of A.
        let tier = [true, true, false, false];
        let scores = [0.95, 0.94, 0.70, 0.65];
        let picks = mmr_select_tiered(&scores, &toks(&[A, B, D, E]), &tier, 4, MMR_LAMBDA);
        assert_eq!(indices(&picks), vec![0, 2, 3, 1]);
        // A low-scored first-tier item still beats a high-scored second-tier one.
        let picks = mmr_select_tiered(
            &[0.1, 0.9],
            &toks(&["alpha", "beta"]),
            &[true, false],
            2,
            MMR_LAMBDA,
        );
        assert_eq!(indices(&picks), vec![0, 1]);
    }

    #[test]
    fn k_larger_than_n_returns_all() {
        let picks = mmr_select(&[0.9, 0.5], &toks(&["alpha", "beta"]), 10, MMR_LAMBDA);
        assert_eq!(indices(&picks), vec![0, 1]);
    }

    #[test]
    fn k_zero_returns_nothing() {
        assert!(mmr_select(&[0.9], &toks(&["alpha"]), 0, MMR_LAMBDA).is_empty());
    }

    #[test]
    fn distinct_texts_keep_score_order() {
        let texts = ["apple pie", "river boat", "green lamp", "quantum cat"];
        let scores = [0.2, 0.9, 0.5, 0.7];
        let picks = mmr_select(&scores, &toks(&texts), 4, MMR_LAMBDA);
        assert_eq!(indices(&picks), vec![1, 3, 2, 0]);
    }

    #[test]
    fn ties_break_on_lower_index() {
        let picks = mmr_select(&[0.5, 0.5, 0.5], &toks(&["a", "b", "c"]), 3, MMR_LAMBDA);
        assert_eq!(indices(&picks), vec![0, 1, 2]);
    }

    #[test]
    fn equal_mmr_breaks_on_higher_score() {
        // λ = 0: MMR is just −penalty, so all tie at 0 on the first pick.
        let picks = mmr_select(&[0.1, 0.8, 0.3], &toks(&["a", "b", "c"]), 1, 0.0);
        assert_eq!(indices(&picks), vec![1]);
    }

    #[test]
    fn empty_input() {
        assert!(mmr_select(&[], &TokenSets::default(), 5, MMR_LAMBDA).is_empty());
    }

    #[test]
    fn nan_score_and_lambda_do_not_poison() {
        let picks = mmr_select(&[f64::NAN, 0.4], &toks(&["a", "b"]), 2, f64::NAN);
        assert_eq!(indices(&picks), vec![1, 0]);
        assert!(picks.iter().all(|p| p.mmr.is_finite()));
    }
}
