//! Strengthening by use (issue 15, after ACT-R's "retrieval strengthens the
//! trace"): every *genuine* recall of a chunk (someone read it whole) renews
//! its forgetting curve and stretches its half-life; a dream fact's
//! confidence decays on the same stretched curve and is nudged up by each
//! recall. Exposure (a search listing it) strengthens nothing.
//!
//! Worked example, an e-mail (base half-life 30 days) dated 1 March, read
//! with `show` on 1 May and again on 10 May, searched on 9 June:
//! two recalls stretch the half-life to `30 × min(3, 1 + 0.5 × 2) = 60`
//! days; the curve starts again at the last recall, so the age is 30 days
//! (not 100) and the decay `2^(−30/60) = 0.71` (unread: `2^(−100/30) = 0.10`).

use std::f64::consts::LN_2;

use super::decay::SECONDS_PER_DAY;

/// Each genuine recall adds half the base half-life: `h × (1 + 0.5 n)`.
///
/// Why 0.5: seed 003 caps the stretch at 3× but gives no step. At 0.5 the
/// cap is reached on the fourth recall: one reading is a hint, four are a
/// habit. A full step (1.0) would reach the cap on the second reading.
pub const STRETCH_PER_RECALL: f64 = 0.5;

/// The most recalls can stretch a half-life: 3× the base (seed 003).
pub const MAX_STRETCH: f64 = 3.0;

/// Half-life of a dream fact's confidence (seed 003: fact/note, 60 days).
pub const FACT_CONFIDENCE_HALF_LIFE_DAYS: f64 = 60.0;

/// Confidence rises toward this, never to 1.0 (seed 003 keeps 1.0 for
/// verified facts).
pub const CONFIDENCE_CEILING: f64 = 0.95;

/// Share of the remaining gap to [`CONFIDENCE_CEILING`] one recall closes.
pub const CONFIDENCE_STEP: f64 = 0.05;

/// A dream fact whose confidence falls below this fades (is retracted).
pub const FADE_BELOW: f64 = 0.1;

/// A fact that ever held at least this confidence earns one reprieve.
pub const IMPORTANT_CONFIDENCE: f64 = 0.7;

/// A fact recalled at least this often earns one reprieve.
pub const OFTEN_RECALLED: u64 = 3;

/// The genuine recalls of one chunk up to the reference time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Recalls {
    pub count: u64,
    /// Unix seconds of the last one.
    pub last: Option<i64>,
}

/// The effective half-life after `recalls` genuine recalls:
/// `base × min(3, 1 + 0.5 n)`. A base of 0 (decay off) or infinity stays so.
pub fn stretched_half_life(base_days: f64, recalls: u64) -> f64 {
    base_days * (1.0 + STRETCH_PER_RECALL * recalls as f64).min(MAX_STRETCH)
}

/// The instant a chunk's curve runs from: its date, renewed by the last
/// genuine recall (full renewal: seed 003's "renews the decay TTL").
pub fn renewed_from(dated_at: i64, recalls: &Recalls) -> i64 {
    recalls.last.map_or(dated_at, |l| l.max(dated_at))
}

/// `ln` of the decay factor `2^(−age / h)`: `−ln2 × age / h`, 0 for age ≤ 0
/// (the future never amplifies), for h ≤ 0 or NaN (decay off) and for an
/// unknown age. Kept in the log domain so a 20-year-old mail is a finite
/// number, not an underflowed 0 that ties with every other old one.
pub fn ln_decay(age_days: Option<f64>, half_life_days: f64) -> f64 {
    let Some(age) = age_days else { return 0.0 };
    if age.is_nan() || half_life_days.is_nan() || half_life_days <= 0.0 || age <= 0.0 {
        return 0.0;
    }
    let v = -LN_2 * age / half_life_days;
    if v.is_nan() { 0.0 } else { v }
}

/// A dream fact's confidence at `t`: `c0 × 2^(−(t − t0) / h_eff)`, `h_eff`
/// the fact half-life stretched by `recalls`. In `[0, 1]`.
pub fn confidence_at(c0: f64, t0: i64, t: i64, recalls: u64) -> f64 {
    let h = stretched_half_life(FACT_CONFIDENCE_HALF_LIFE_DAYS, recalls);
    let days = (t - t0) as f64 / SECONDS_PER_DAY;
    (c0 * ln_decay(Some(days), h).exp()).clamp(0.0, 1.0)
}

/// Confidence after one genuine recall: 5% of the gap to 0.95 closed. A
/// value already above the ceiling is left where it is.
pub fn confidence_after_recall(c: f64) -> f64 {
    if c >= CONFIDENCE_CEILING {
        c
    } else {
        c + CONFIDENCE_STEP * (CONFIDENCE_CEILING - c)
    }
}

/// Whether a fading fact earns its one second chance: it was once
/// important or is often recalled, and has not had it yet.
pub fn earns_reprieve(peak_confidence: f64, recalls: u64, reprieved: bool) -> bool {
    !reprieved && (peak_confidence >= IMPORTANT_CONFIDENCE || recalls >= OFTEN_RECALLED)
}

/// The confidence a reprieve restarts from: `0.1 × √2`, which takes exactly
/// half a half-life to fall back to [`FADE_BELOW`] (seed 003's "TTL/2").
pub fn reprieve_confidence() -> f64 {
    FADE_BELOW * std::f64::consts::SQRT_2
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY: i64 = SECONDS_PER_DAY as i64;

    fn approx(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn stretch_table() {
        let cases: &[(f64, u64, f64)] = &[
            (30.0, 0, 30.0),
            (30.0, 1, 45.0),
            (30.0, 2, 60.0),
            (30.0, 3, 75.0),
            (30.0, 4, 90.0),
            (30.0, 5, 90.0),
            (30.0, 1000, 90.0),
            (60.0, 2, 120.0),
            (0.0, 3, 0.0),
        ];
        for (base, n, want) in cases {
            assert!(approx(stretched_half_life(*base, *n), *want), "{base} {n}");
        }
        assert!(stretched_half_life(f64::INFINITY, 2).is_infinite());
    }

    #[test]
    fn renewal_table() {
        let none = Recalls::default();
        let later = Recalls {
            count: 1,
            last: Some(50),
        };
        let earlier = Recalls {
            count: 1,
            last: Some(5),
        };
        assert_eq!(renewed_from(10, &none), 10);
        assert_eq!(renewed_from(10, &later), 50);
        // A recall recorded before the item's date (a re-dated source)
        // cannot make it older.
        assert_eq!(renewed_from(10, &earlier), 10);
    }

    #[test]
    fn ln_decay_table() {
        let cases: &[(Option<f64>, f64, f64)] = &[
            (Some(0.0), 30.0, 0.0),
            (Some(30.0), 30.0, -LN_2),
            (Some(60.0), 30.0, -2.0 * LN_2),
            (Some(-5.0), 30.0, 0.0),
            (None, 30.0, 0.0),
            (Some(10.0), 0.0, 0.0),
            (Some(f64::NAN), 30.0, 0.0),
            (Some(10.0), f64::INFINITY, 0.0),
        ];
        for (age, h, want) in cases {
            assert!(approx(ln_decay(*age, *h), *want), "{age:?} {h}");
        }
        // Twenty years at 30 days: far below f64's smallest normal number as
        // a factor, but a finite, comparable logarithm.
        let old = ln_decay(Some(7300.0), 30.0);
        assert!(old.is_finite() && old < -160.0);
    }

    #[test]
    fn the_worked_example_of_the_module_doc() {
        let h = stretched_half_life(30.0, 2);
        let from = renewed_from(
            0,
            &Recalls {
                count: 2,
                last: Some(70 * DAY),
            },
        );
        let age = (100 * DAY - from) as f64 / SECONDS_PER_DAY;
        assert!(approx(h, 60.0));
        assert!((ln_decay(Some(age), h).exp() - 0.5f64.sqrt()).abs() < 1e-9);
        assert!((ln_decay(Some(100.0), 30.0).exp() - 0.0992).abs() < 1e-4);
    }

    #[test]
    fn confidence_table() {
        let cases: &[(f64, i64, u64, f64)] = &[
            (0.8, 0, 0, 0.8),
            (0.8, 60, 0, 0.4),
            (0.8, 120, 0, 0.2),
            (0.8, 120, 2, 0.4),
            (0.8, 180, 4, 0.4),
            (0.8, 180, 9, 0.4),
        ];
        for (c0, days, n, want) in cases {
            let got = confidence_at(*c0, 0, days * DAY, *n);
            assert!(approx(got, *want), "{c0} {days} {n}: {got}");
        }
        // Before t0 nothing grows.
        assert!(approx(confidence_at(0.5, 10 * DAY, 0, 0), 0.5));
    }

    #[test]
    fn a_recall_closes_five_percent_of_the_gap() {
        let cases: &[(f64, f64)] = &[
            (0.6, 0.6175),
            (0.0, 0.0475),
            (0.95, 0.95),
            (1.0, 1.0),
            (0.1, 0.1425),
        ];
        for (c, want) in cases {
            assert!(approx(confidence_after_recall(*c), *want), "{c}");
        }
        let mut c = 0.6;
        for _ in 0..500 {
            c = confidence_after_recall(c);
        }
        assert!(c < CONFIDENCE_CEILING && c > 0.949);
    }

    #[test]
    fn reprieve_table() {
        let cases: &[(f64, u64, bool, bool)] = &[
            (0.7, 0, false, true),
            (0.69, 2, false, false),
            (0.5, 3, false, true),
            (0.9, 9, true, false),
        ];
        for (peak, n, reprieved, want) in cases {
            assert_eq!(earns_reprieve(*peak, *n, *reprieved), *want);
        }
        // The reprieve lasts exactly half a half-life.
        let c = confidence_at(reprieve_confidence(), 0, 30 * DAY, 0);
        assert!(approx(c, FADE_BELOW));
    }
}
