//! Association maths (issue 16, after seed 003's Hebbian bonding, link
//! decay and associative recall): how strong a link is at an instant, what
//! one recall together adds, which partners a recall bonds, and what an
//! associated chunk scores when it joins a search.
//!
//! Worked example: two chunks read together four times on 1 May hold a
//! `co_recall` link of 0.4 (4 × 0.1), just enough to expand a search. Left
//! alone, on 31 May it is 0.2 (one 30-day half-life), too weak to expand;
//! after 30 July (three half-lives) it is under [`PRUNE_BELOW`], and the
//! next dream prunes it.

use crate::kinds::LinkKind;

use super::decay::SECONDS_PER_DAY;

/// A `thread` link's strength, for good (seed 003's temporal edges).
pub const THREAD_STRENGTH: f64 = 0.3;

/// What one recall together adds to a `co_recall` link (seed 003: +0.1).
pub const CO_RECALL_STEP: f64 = 0.1;

/// No link is stronger than this.
pub const MAX_STRENGTH: f64 = 1.0;

/// One recall bonds each chunk with at most this many partners, the
/// strongest already (seed 003: top-8 co-recalled per recall).
pub const MAX_PARTNERS: usize = 8;

/// An unreinforced `co_recall` or `semantic` link halves in this many days.
pub const LINK_HALF_LIFE_DAYS: f64 = 30.0;

/// Dream prunes a changing link weaker than this (seed 003's floor).
pub const PRUNE_BELOW: f64 = 0.05;

/// Search follows links at least this strong (seed 003: 0.4).
pub const EXPAND_MIN_STRENGTH: f64 = 0.4;

/// The hits whose neighbours may join a search: the first three.
pub const EXPAND_SEEDS: usize = 3;

/// At most this many neighbours join one search.
pub const EXPAND_MAX_ADDS: usize = 5;

/// A new chunk links to existing chunks at least this close in meaning
/// (cosine of the configured model). 0.75 is where all-MiniLM-L6-v2 pairs
/// read as the same topic rather than the same register.
pub const SEMANTIC_MIN_COSINE: f64 = 0.75;

/// A new chunk links to at most this many nearest chunks.
pub const SEMANTIC_NEIGHBOURS: usize = 3;

/// Whether links of `kind` decay and are reinforced; `thread` links never
/// change.
pub fn changes(kind: LinkKind) -> bool {
    kind != LinkKind::Thread
}

/// The strength at `t` of a link of `kind` that held `strength` at `since`:
/// `s × 2^(−days / 30)` for a changing link, `s` for a thread. An instant
/// before `since` gets `s` (no growth backwards).
pub fn strength_at(kind: LinkKind, strength: f64, since: i64, t: i64) -> f64 {
    if !changes(kind) || t <= since {
        return strength;
    }
    let days = (t - since) as f64 / SECONDS_PER_DAY;
    strength * 0.5f64.powf(days / LINK_HALF_LIFE_DAYS)
}

/// A link's strength after one more recall together, from its strength now.
pub fn reinforced(now: f64) -> f64 {
    (now + CO_RECALL_STEP).min(MAX_STRENGTH)
}

/// A semantic link's strength from the cosine that formed it: the span
/// above [`SEMANTIC_MIN_COSINE`] stretched over [0.4, 1], so the closest
/// pairs expand a search from their first day and the threshold pair just
/// does.
pub fn semantic_strength(cosine: f64) -> f64 {
    let span = 1.0 - SEMANTIC_MIN_COSINE;
    let x = ((cosine - SEMANTIC_MIN_COSINE) / span).clamp(0.0, 1.0);
    EXPAND_MIN_STRENGTH + (MAX_STRENGTH - EXPAND_MIN_STRENGTH) * x
}

/// The pairs one recall bonds: `strengths[i][j]` is the strength now of
/// the link between the `i`-th and `j`-th chunks recalled (0 when none), in
/// the order they were recalled. Pairs are taken strongest first (then the
/// earlier recalled first) while both chunks have fewer than
/// [`MAX_PARTNERS`] partners, so no chunk bonds with more than eight.
/// Returns `(i, j)` with `i < j`.
pub fn partners(strengths: &dyn Fn(usize, usize) -> f64, n: usize) -> Vec<(usize, usize)> {
    let mut pairs: Vec<(f64, usize, usize)> = Vec::new();
    for i in 0..n {
        for j in i + 1..n {
            pairs.push((strengths(i, j), i, j));
        }
    }
    pairs.sort_by(|a, b| b.0.total_cmp(&a.0).then((a.1 + a.2).cmp(&(b.1 + b.2))));
    let mut count = vec![0usize; n];
    let mut out = Vec::new();
    for (_, i, j) in pairs {
        if count[i] < MAX_PARTNERS && count[j] < MAX_PARTNERS {
            count[i] += 1;
            count[j] += 1;
            out.push((i, j));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY: i64 = 86_400;

    #[test]
    fn changing_links_halve_every_thirty_days_and_threads_never_change() {
        let cases: &[(LinkKind, f64, i64, f64)] = &[
            (LinkKind::CoRecall, 0.4, 0, 0.4),
            (LinkKind::CoRecall, 0.4, 30, 0.2),
            (LinkKind::CoRecall, 0.4, 60, 0.1),
            (LinkKind::Semantic, 0.8, 90, 0.1),
            (LinkKind::Thread, 0.3, 3650, 0.3),
            (LinkKind::CoRecall, 0.4, -5, 0.4),
        ];
        for &(kind, s, days, want) in cases {
            let got = strength_at(kind, s, 100 * DAY, (100 + days) * DAY);
            assert!((got - want).abs() < 1e-12, "{kind} {s} {days}: {got}");
        }
    }

    #[test]
    fn the_worked_example_falls_below_the_floor_after_ninety_days() {
        let s = (0..4).fold(0.0, |s, _| reinforced(s));
        assert!((s - 0.4).abs() < 1e-12);
        assert!(strength_at(LinkKind::CoRecall, s, 0, 91 * DAY) < PRUNE_BELOW);
        assert!(strength_at(LinkKind::CoRecall, s, 0, 89 * DAY) >= PRUNE_BELOW);
    }

    #[test]
    fn reinforcement_adds_a_tenth_up_to_one() {
        for (now, want) in [(0.0, 0.1), (0.35, 0.45), (0.95, 1.0), (1.0, 1.0)] {
            assert!((reinforced(now) - want).abs() < 1e-12, "{now}");
        }
    }

    #[test]
    fn semantic_strength_maps_the_threshold_to_point_four_and_identity_to_one() {
        let cases = [(0.75, 0.4), (1.0, 1.0), (0.875, 0.7), (0.5, 0.4)];
        for (cos, want) in cases {
            assert!((semantic_strength(cos) - want).abs() < 1e-12, "{cos}");
        }
    }

    #[test]
    fn one_recall_bonds_each_chunk_with_at_most_eight_strongest_first() {
        // Twelve chunks, none linked: each gets eight partners at most.
        let none = |_: usize, _: usize| 0.0;
        let pairs = partners(&none, 12);
        let mut count = [0; 12];
        for &(i, j) in &pairs {
            count[i] += 1;
            count[j] += 1;
        }
        assert!(count.iter().all(|&c| c <= MAX_PARTNERS), "{count:?}");
        // Chunk 11's strongest partner is taken first even though it was
        // recalled last.
        let strong = |i: usize, j: usize| if (i, j) == (10, 11) { 0.9 } else { 0.0 };
        assert_eq!(partners(&strong, 12)[0], (10, 11));
        // Two chunks: one pair.
        assert_eq!(partners(&none, 2), [(0, 1)]);
        assert!(partners(&none, 1).is_empty());
    }
}
