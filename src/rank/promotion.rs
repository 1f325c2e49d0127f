//! Scoring for the nightly "dream" pass, which promotes chunks that keep
//! being recalled into durable facts. A chunk must be recalled often, by
//! different questions, with strong matches, and recently - one noisy query
//! hammering the same chunk must not be enough.

/// Weight of recall frequency in the total. Frequency is the raw "this keeps
/// coming up" signal, but it is the easiest to inflate by repetition, so it
/// sits below relevance.
pub const FREQUENCY_WEIGHT: f64 = 0.30;

/// Weight of best match quality. Highest weight because a chunk that is only
/// ever a weak, incidental match is not worth remembering as a fact.
pub const RELEVANCE_WEIGHT: f64 = 0.35;

/// Weight of query diversity. Being recalled by *different* questions is what
/// distinguishes a generally useful fact from one query re-run many times.
pub const DIVERSITY_WEIGHT: f64 = 0.20;

/// Weight of recency. Smallest: it breaks ties toward live topics but must
/// not promote something merely because it was seen today.
pub const RECENCY_WEIGHT: f64 = 0.15;

/// Recall count at which frequency saturates:
/// `frequency = log1p(count) / log1p(10)`, clamped to `[0, 1]`.
/// Log scale because the 2nd and 3rd recall say far more than the 50th.
pub const FREQUENCY_SATURATION: f64 = 10.0;

/// Unique-query count at which diversity saturates:
/// `diversity = log1p(unique) / log1p(5)`, clamped to `[0, 1]`.
/// Five distinct phrasings is already strong evidence of general usefulness.
pub const DIVERSITY_SATURATION: f64 = 5.0;

/// Recency half-life: `recency = exp(-ln2 / 14 × max(0, days_since_last))`.
/// Two weeks, shorter than search decay, because promotion is about what is
/// being used *now*, and it runs nightly so it gets many chances.
pub const RECENCY_HALF_LIFE_DAYS: f64 = 14.0;

/// Minimum `total` to promote. 0.60 needs roughly "good on most signals";
/// e.g. 3 recalls from 3 queries at score 0.9 today scores ≈ 0.79.
pub const PROMOTION_THRESHOLD: f64 = 0.60;

/// Hard floor on recalls, independent of `total`: fewer than 3 is anecdote.
pub const MIN_RECALL_COUNT: u64 = 3;

/// Hard floor on distinct queries: a single query, however often repeated,
/// can reach a high `total` (frequency, relevance, recency all maxed) yet
/// says nothing about general usefulness.
pub const MIN_UNIQUE_QUERIES: u64 = 2;

/// Only recalls within the last 30 days feed [`RecallStats`]; older recall
/// history is ignored so stale popularity does not keep re-qualifying.
pub const SCORING_WINDOW_DAYS: i64 = 30;

/// A candidate whose word-Jaccard to an existing fact is `>= 0.8` is a
/// duplicate and is not promoted again. Stricter than search's 0.7 gate
/// because here a false positive *loses* a new fact, whereas in search it
/// only reorders results.
pub const FACT_NEAR_DUPLICATE_JACCARD: f64 = 0.8;

/// Recall history of one chunk over [`SCORING_WINDOW_DAYS`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RecallStats {
    pub recall_count: u64,
    pub unique_queries: u64,
    /// Best relevance the chunk was listed with, *before* the forgetting
    /// curve, in `[0, 1]`: with the decayed score a message from an old
    /// archive scored about 0 however often and well it was recalled, and
    /// could never be promoted.
    pub max_score: f64,
    pub days_since_last_recall: f64,
}

/// Components (each in `[0, 1]`) and weighted `total` (in `[0, 1]`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PromotionScore {
    pub frequency: f64,
    pub relevance: f64,
    pub diversity: f64,
    pub recency: f64,
    pub total: f64,
}

/// Computes the promotion score. NaN-safe: NaN `max_score` counts as 0 and
/// NaN `days_since_last_recall` gives recency 0 (an unknown last recall earns
/// no recency bonus); the result never contains NaN.
pub fn promotion_score(s: &RecallStats) -> PromotionScore {
    let frequency = log_saturation(s.recall_count, FREQUENCY_SATURATION);
    let relevance = clamp01(s.max_score);
    let diversity = log_saturation(s.unique_queries, DIVERSITY_SATURATION);
    let recency = recency(s.days_since_last_recall);
    let total = clamp01(
        FREQUENCY_WEIGHT * frequency
            + RELEVANCE_WEIGHT * relevance
            + DIVERSITY_WEIGHT * diversity
            + RECENCY_WEIGHT * recency,
    );
    PromotionScore {
        frequency,
        relevance,
        diversity,
        recency,
        total,
    }
}

/// True when the chunk should be promoted: `total >= PROMOTION_THRESHOLD`
/// and both hard floors ([`MIN_RECALL_COUNT`], [`MIN_UNIQUE_QUERIES`]) hold.
/// The floors are separate from `total` so no mix of other signals can
/// compensate for a single query or a couple of recalls.
pub fn passes(s: &RecallStats, p: &PromotionScore) -> bool {
    p.total >= PROMOTION_THRESHOLD
        && s.recall_count >= MIN_RECALL_COUNT
        && s.unique_queries >= MIN_UNIQUE_QUERIES
}

/// `log1p(n) / log1p(saturation)`, clamped to `[0, 1]`.
fn log_saturation(n: u64, saturation: f64) -> f64 {
    clamp01((n as f64).ln_1p() / saturation.ln_1p())
}

fn recency(days: f64) -> f64 {
    if days.is_nan() {
        return 0.0;
    }
    let days = days.max(0.0);
    clamp01((-std::f64::consts::LN_2 / RECENCY_HALF_LIFE_DAYS * days).exp())
}

/// Clamp to `[0, 1]`, mapping NaN to 0 (`f64::clamp` would propagate NaN).
fn clamp01(x: f64) -> f64 {
    if x.is_nan() { 0.0 } else { x.clamp(0.0, 1.0) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn approx(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    fn stats(recalls: u64, queries: u64, max_score: f64, days: f64) -> RecallStats {
        RecallStats {
            recall_count: recalls,
            unique_queries: queries,
            max_score,
            days_since_last_recall: days,
        }
    }

    #[test]
    fn weights_sum_to_one() {
        let sum = FREQUENCY_WEIGHT + RELEVANCE_WEIGHT + DIVERSITY_WEIGHT + RECENCY_WEIGHT;
        assert!(approx(sum, 1.0));
    }

    #[test]
    fn three_recalls_three_queries_today_passes() {
        // frequency = ln4/ln11 = 1.386294/2.397895 = 0.578128
        // relevance = 0.9
        // diversity = ln4/ln6  = 1.386294/1.791759 = 0.773706
        // recency   = 1.0
        // total = 0.30×0.578128 + 0.35×0.9 + 0.20×0.773706 + 0.15×1.0
        //       = 0.173438 + 0.315 + 0.154741 + 0.15 = 0.793180 ≥ 0.60
        let s = stats(3, 3, 0.9, 0.0);
        let p = promotion_score(&s);
        assert!((p.total - 0.793180).abs() < 1e-6, "{p:?}");
        assert!(passes(&s, &p));
    }

    #[test]
    fn one_query_repeated_does_not_pass() {
        // total = 0.30 + 0.35 + 0.20×ln2/ln6 + 0.15 ≈ 0.877: high, but gated.
        let s = stats(100, 1, 1.0, 0.0);
        let p = promotion_score(&s);
        assert!(p.total > PROMOTION_THRESHOLD);
        assert!(!passes(&s, &p));
    }

    #[test]
    fn too_few_recalls_does_not_pass() {
        let s = stats(2, 2, 1.0, 0.0);
        let p = promotion_score(&s);
        assert!(p.total > PROMOTION_THRESHOLD, "{p:?}");
        assert!(!passes(&s, &p));
    }

    #[test]
    fn low_total_does_not_pass() {
        // Floors met, but weak matches long ago.
        let s = stats(3, 2, 0.1, 60.0);
        let p = promotion_score(&s);
        assert!(p.total < PROMOTION_THRESHOLD, "{p:?}");
        assert!(!passes(&s, &p));
    }

    #[test]
    fn saturated_everything_is_exactly_one() {
        let p = promotion_score(&stats(10, 5, 1.0, 0.0));
        assert!(approx(p.frequency, 1.0));
        assert!(approx(p.diversity, 1.0));
        assert!(approx(p.total, 1.0), "{p:?}");
    }

    #[test]
    fn component_table() {
        // (recalls, queries, max_score, days) -> (freq, rel, div, recency)
        type Input = (u64, u64, f64, f64);
        type Components = (f64, f64, f64, f64);
        let cases: &[(Input, Components)] = &[
            ((0, 0, 0.0, 0.0), (0.0, 0.0, 0.0, 1.0)),
            ((1000, 1000, 1.0, 14.0), (1.0, 1.0, 1.0, 0.5)),
            ((10, 5, 1.7, 28.0), (1.0, 1.0, 1.0, 0.25)),
            ((10, 5, -0.5, -3.0), (1.0, 0.0, 1.0, 1.0)),
            ((10, 5, f64::NAN, f64::NAN), (1.0, 0.0, 1.0, 0.0)),
            ((10, 5, f64::INFINITY, f64::INFINITY), (1.0, 1.0, 1.0, 0.0)),
        ];
        for ((r, q, m, d), (f, rel, div, rec)) in cases {
            let p = promotion_score(&stats(*r, *q, *m, *d));
            let got = [p.frequency, p.relevance, p.diversity, p.recency];
            let want = [*f, *rel, *div, *rec];
            for (g, w) in got.iter().zip(want) {
                assert!(approx(*g, w), "{r} {q} {m} {d}: {p:?}");
            }
            assert!(p.total.is_finite() && (0.0..=1.0).contains(&p.total));
        }
    }
}
