//! Turns SQLite FTS5 `bm25()` scores into relevance values in `[0, 1]`, so
//! that text match strength can be multiplied with time decay and compared
//! across candidates by MMR without caring about FTS5's sign or scale.

/// Relevance tier: candidates with relevance `>= 0.7` (70% of the best
/// match's strength) are ranked before all others, each tier by
/// `relevance × decay` and MMR.
///
/// Why: the forgetting curve is meant to let recent items win among matches
/// of about the same strength, "while a strong old match still beats a weak
/// new one" (see `decay`). Multiplying alone does not deliver that past a few
/// weeks: a 100-day-old exact answer keeps 0.1 of its score, so yesterday's
/// chat that shares one word with the question (relevance 0.3) outranks it.
/// Measured on LoCoMo (docs/RETRIEVAL.md), where answers are ~100 days old:
/// turn recall@10 0.304 without the tier, 0.570 with it at 0.7 (0.371 at 0.3,
/// 0.486 at 0.5, 0.595 at 0.85). 0.7 keeps most of the gain while leaving the
/// curve a real say: inside the tier a match 30% weaker but a month newer
/// still wins.
pub const RELEVANCE_TIER: f64 = 0.7;

/// Whether a candidate of normalised `relevance` is in the first tier.
pub fn in_first_tier(relevance: f64) -> bool {
    relevance >= RELEVANCE_TIER
}

/// Each score relative to the best of its tier, from log scores:
/// `exp(ln s − max ln s over the same tier)`, so the best of each tier is 1.
///
/// Why: MMR weighs a score against a word-Jaccard in `[0, 1]`. Absolute
/// scores carry the absolute age: searched 20 years after a mail archive,
/// every score is about 0 and the diversity term alone picks the order, so
/// moving "now" reshuffled the top 10 of 94% of queries on a 2002 archive.
/// Relative to the tier's best, a uniform shift of every age cancels out.
/// A tier whose scores are all 0 (`−∞`) stays at 0. A missing `first_tier`
/// entry counts as second tier, as in `mmr_select_tiered`.
pub fn relative_to_tier_best(ln_scores: &[f64], first_tier: &[bool]) -> Vec<f64> {
    let tier = |i: usize| first_tier.get(i).copied().unwrap_or(false);
    let best = |t: bool| {
        (0..ln_scores.len())
            .filter(|&i| tier(i) == t && !ln_scores[i].is_nan())
            .map(|i| ln_scores[i])
            .fold(f64::NEG_INFINITY, f64::max)
    };
    let (first, second) = (best(true), best(false));
    ln_scores
        .iter()
        .enumerate()
        .map(|(i, &ln)| {
            let top = if tier(i) { first } else { second };
            let r = (ln - top).exp();
            if r.is_finite() {
                r.clamp(0.0, 1.0)
            } else {
                0.0
            }
        })
        .collect()
}

/// Normalises raw FTS5 `bm25()` scores to relevance in `[0, 1]`.
///
/// FTS5's `bm25()` is **negative**, and more negative means more relevant.
/// We take `s = max(0, -bm25)` and return `s / max(s)` over the candidate
/// set, so the best candidate gets exactly `1.0` and order is preserved.
///
/// Why not the naive `1 / (1 + max(0, rank))`? Because `rank` is always
/// `<= 0`, `max(0, rank)` is always `0` and every hit gets `1.0` - the text
/// match stops contributing anything to the final ranking. That bug shipped
/// elsewhere; this function exists so it does not ship here.
///
/// Relative (per-query) normalisation is deliberate: bm25 magnitudes depend on
/// corpus statistics and query length, so only ratios within one result set
/// mean anything.
///
/// Degenerate case: if `max(s)` is `<= 0` or not finite (e.g. all scores are
/// zero), no candidate is distinguishable by text, so every candidate gets
/// `1.0` and the other signals (decay, MMR) decide. NaN scores are treated as
/// "no match strength" (`s = 0`).
pub fn normalise_bm25(bm25: &[f64]) -> Vec<f64> {
    let strengths: Vec<f64> = bm25.iter().map(|&b| match_strength(b)).collect();
    let max = strengths.iter().copied().fold(0.0_f64, f64::max);
    if !(max.is_finite() && max > 0.0) {
        return vec![1.0; bm25.len()];
    }
    strengths
        .iter()
        .map(|&s| (s / max).clamp(0.0, 1.0))
        .collect()
}

/// `max(0, -bm25)`, with NaN mapped to 0 so one bad row cannot poison the max.
fn match_strength(bm25: f64) -> f64 {
    let s = -bm25;
    if s.is_nan() { 0.0 } else { s.max(0.0) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn approx(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn first_tier_table() {
        for (relevance, want) in [(1.0, true), (0.7, true), (0.69, false), (0.0, false)] {
            assert_eq!(in_first_tier(relevance), want, "{relevance}");
        }
        assert!(!in_first_tier(f64::NAN));
    }

    #[test]
    fn relative_scores_table() {
        let ln = |x: f64| x.ln();
        let cases: &[(&[f64], &[bool], &[f64])] = &[
            (&[ln(0.5), ln(0.25)], &[true, true], &[1.0, 0.5]),
            (&[ln(0.5), ln(0.1)], &[true, false], &[1.0, 1.0]),
            (&[ln(0.0), ln(0.2)], &[false, false], &[0.0, 1.0]),
            (&[f64::NEG_INFINITY], &[true], &[0.0]),
            (&[f64::NAN, 0.0], &[true, true], &[0.0, 1.0]),
            (&[-800.0, -800.0 - 2f64.ln()], &[true, true], &[1.0, 0.5]),
            (&[-800.0, -900.0], &[true], &[1.0, 1.0]),
        ];
        for (ln_scores, tiers, want) in cases {
            let got = relative_to_tier_best(ln_scores, tiers);
            assert_eq!(got.len(), want.len());
            for (g, w) in got.iter().zip(*want) {
                assert!(approx(*g, *w), "{ln_scores:?} {tiers:?}: {got:?}");
            }
        }
    }

    #[test]
    fn a_uniform_shift_of_every_age_changes_no_relative_score() {
        let ln = [-0.1, -0.7, -2.0, -3.5];
        let tiers = [true, true, false, false];
        let shifted: Vec<f64> = ln.iter().map(|l| l - 5000.0).collect();
        let a = relative_to_tier_best(&ln, &tiers);
        let b = relative_to_tier_best(&shifted, &tiers);
        for (x, y) in a.iter().zip(&b) {
            assert!((x - y).abs() < 1e-9, "{a:?} {b:?}");
        }
    }

    #[test]
    fn stronger_match_gets_higher_relevance() {
        let r = normalise_bm25(&[-2.0, -8.0]);
        assert!(r[1] > r[0], "{r:?}");
    }

    #[test]
    fn best_candidate_is_exactly_one() {
        let r = normalise_bm25(&[-1.0, -4.0, -2.0]);
        assert_eq!(r[1], 1.0);
        assert!(approx(r[0], 0.25));
        assert!(approx(r[2], 0.5));
    }

    #[test]
    fn ordering_is_preserved_and_values_in_unit_range() {
        let bm = [-0.5, -3.0, -1.25, -7.0, -0.01];
        let r = normalise_bm25(&bm);
        for i in 0..bm.len() {
            assert!((0.0..=1.0).contains(&r[i]));
            for j in 0..bm.len() {
                if bm[i] < bm[j] {
                    assert!(r[i] > r[j], "bm25 {} vs {}: {r:?}", bm[i], bm[j]);
                }
            }
        }
    }

    #[test]
    fn naive_formula_bug_does_not_recur() {
        // The naive formula would give both of these 1.0.
        let r = normalise_bm25(&[-1.0, -10.0]);
        assert!(r[0] < r[1]);
        assert!(approx(r[0], 0.1));
    }

    #[test]
    fn empty_input_gives_empty_output() {
        assert!(normalise_bm25(&[]).is_empty());
    }

    #[test]
    fn all_zero_input_is_all_equally_relevant() {
        assert_eq!(normalise_bm25(&[0.0, 0.0, 0.0]), vec![1.0, 1.0, 1.0]);
    }

    #[test]
    fn positive_scores_clamp_to_zero_strength() {
        // Positive bm25 should not happen, but must not produce negatives.
        let r = normalise_bm25(&[1.0, -2.0]);
        assert_eq!(r, vec![0.0, 1.0]);
    }

    #[test]
    fn non_finite_inputs_do_not_produce_nan() {
        let r = normalise_bm25(&[f64::NAN, -2.0]);
        assert_eq!(r, vec![0.0, 1.0]);
        let r = normalise_bm25(&[f64::NEG_INFINITY, -2.0]);
        assert_eq!(r, vec![1.0, 1.0]);
        assert!(normalise_bm25(&[f64::NAN]).iter().all(|v| *v == 1.0));
    }
}
