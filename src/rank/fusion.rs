//! Hybrid relevance: one number in `[0, 1]` from the text side (bm25,
//! normalised as always by [`normalise_bm25`](super::normalise_bm25)) and
//! the vector side (cosine similarity to the query).
//!
//! Method, measured rather than assumed (docs/RETRIEVAL.md): cosines are
//! min-max normalised over the candidate set, then the two sides are mixed
//! linearly, leaning to the text. On LoCoMo with all-MiniLM-L6-v2, RRF did
//! worse than plain BM25 and an even mix did worse than one leaning to text.

/// Weight of the text side; the vector side gets `1 - TEXT_WEIGHT`.
/// Tuned on LoCoMo turn recall@10 (docs/RETRIEVAL.md).
pub const TEXT_WEIGHT: f64 = 0.7;

/// Min-max normalisation of cosine similarities over the candidates: the
/// most similar gets 1, the least 0, a candidate without a vector 0. All
/// equal (or one candidate) gives 1 to everyone who has a vector: no
/// candidate is distinguishable by meaning, so the other signals decide.
pub fn normalise_cosines(cosines: &[Option<f64>]) -> Vec<f64> {
    let present = cosines.iter().flatten().copied().filter(|c| c.is_finite());
    let (lo, hi) = present.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), c| {
        (lo.min(c), hi.max(c))
    });
    cosines
        .iter()
        .map(|c| match c {
            Some(c) if c.is_finite() => {
                if hi > lo {
                    (c - lo) / (hi - lo)
                } else {
                    1.0
                }
            }
            _ => 0.0,
        })
        .collect()
}

/// `TEXT_WEIGHT × text + (1 − TEXT_WEIGHT) × vector`.
pub fn fuse(text: f64, vector: f64) -> f64 {
    TEXT_WEIGHT * text + (1.0 - TEXT_WEIGHT) * vector
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cosine_normalisation_table() {
        let cases: &[(&[Option<f64>], &[f64])] = &[
            (&[Some(0.9), Some(0.5), Some(0.1)], &[1.0, 0.5, 0.0]),
            (&[Some(0.3), None], &[1.0, 0.0]),
            (&[Some(0.4), Some(0.4)], &[1.0, 1.0]),
            (&[Some(f64::NAN), Some(0.2), Some(0.6)], &[0.0, 0.0, 1.0]),
            (&[], &[]),
        ];
        for (input, want) in cases {
            let got = normalise_cosines(input);
            assert_eq!(got.len(), want.len());
            for (g, w) in got.iter().zip(*want) {
                assert!((g - w).abs() < 1e-12, "{input:?} -> {got:?}");
            }
        }
    }

    #[test]
    fn fusion_leans_to_the_text() {
        assert!((fuse(1.0, 0.0) - TEXT_WEIGHT).abs() < 1e-12);
        assert!(fuse(1.0, 0.0) > fuse(0.0, 1.0));
        assert_eq!(fuse(1.0, 1.0), 1.0);
        assert_eq!(fuse(0.0, 0.0), 0.0);
    }
}
