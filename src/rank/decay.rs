//! Exponential time decay applied to relevance, so that recent items win ties
//! against old ones the way human memory does, while evergreen facts (no date)
//! are never penalised.

/// Default decay half-life: `factor = 0.5` at 30 days old.
///
/// Why 30: mail, receipts and chats are mostly "this month" questions; a
/// month-old item keeps half its weight and a quarter-old one an eighth, which
/// still lets a strong old match beat a weak new one.
pub const DEFAULT_HALF_LIFE_DAYS: f64 = 30.0;

/// `24 × 60 × 60`. Named so unix-second arithmetic reads as days.
pub const SECONDS_PER_DAY: f64 = 86400.0;

/// Age in days of something dated `dated_at_unix`, as seen at `now_unix`.
///
/// Negative for future dates (e.g. a calendar invite); callers pass that on to
/// [`decay_factor`], which clamps it. Subtraction is done in `i128` so extreme
/// timestamps cannot overflow.
pub fn age_days(now_unix: i64, dated_at_unix: i64) -> f64 {
    let seconds = i128::from(now_unix) - i128::from(dated_at_unix);
    seconds as f64 / SECONDS_PER_DAY
}

/// Age in days of something dated `dated_at_unix`, seen from the period
/// `[start, end)` a query names ("in May 2023"): 0 inside it, otherwise the
/// distance to its nearest edge, before or after. Never negative, so an item
/// after the period decays like one before it instead of being clamped to 1.
pub fn age_days_from_period(start: i64, end: i64, dated_at_unix: i64) -> f64 {
    if dated_at_unix < start {
        age_days(start, dated_at_unix)
    } else if dated_at_unix >= end {
        // `end` is exclusive: the first instant after the period is 0 days out.
        age_days(dated_at_unix, end)
    } else {
        0.0
    }
}

/// Multiplier in `[0, 1]` for an item `age_days` old:
/// `exp(-ln2 / half_life_days × age_days)`.
///
/// - `None` means evergreen (facts): `1.0`, because a fact does not become
///   less true with age.
/// - Future dates (`age < 0`) clamp to age 0 → `1.0`: decay must never
///   *amplify*, or a mis-dated item would outrank everything.
/// - `half_life_days <= 0` (or NaN) means decay is switched off → `1.0`.
/// - NaN age → `1.0`: an unknown age is treated like an undated item rather
///   than buried. `+∞` age → `0.0`. Never panics, never returns NaN.
pub fn decay_factor(age_days: Option<f64>, half_life_days: f64) -> f64 {
    let Some(age) = age_days else {
        return 1.0;
    };
    if age.is_nan() || half_life_days.is_nan() || half_life_days <= 0.0 {
        return 1.0;
    }
    let age = age.max(0.0);
    if age == 0.0 {
        return 1.0;
    }
    let factor = (-std::f64::consts::LN_2 / half_life_days * age).exp();
    if factor.is_nan() {
        1.0
    } else {
        factor.clamp(0.0, 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn approx(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn decay_table() {
        let h = DEFAULT_HALF_LIFE_DAYS;
        let cases: &[(&str, Option<f64>, f64, f64)] = &[
            ("today", Some(0.0), h, 1.0),
            ("one half-life", Some(30.0), h, 0.5),
            ("two half-lives", Some(60.0), h, 0.25),
            ("three half-lives", Some(90.0), h, 0.125),
            ("future date clamps", Some(-10.0), h, 1.0),
            ("evergreen fact", None, h, 1.0),
            ("decay off", Some(45.0), 0.0, 1.0),
            ("negative half-life is off", Some(45.0), -3.0, 1.0),
            ("custom half-life", Some(7.0), 7.0, 0.5),
            ("NaN age", Some(f64::NAN), h, 1.0),
            ("NaN half-life", Some(10.0), f64::NAN, 1.0),
            ("infinitely old", Some(f64::INFINITY), h, 0.0),
            ("infinitely future", Some(f64::NEG_INFINITY), h, 1.0),
            ("infinite half-life", Some(10.0), f64::INFINITY, 1.0),
        ];
        for (name, age, half_life, want) in cases {
            let got = decay_factor(*age, *half_life);
            assert!(approx(got, *want), "{name}: got {got}, want {want}");
        }
    }

    #[test]
    fn age_days_table() {
        let day = SECONDS_PER_DAY as i64;
        let cases: &[(i64, i64, f64)] = &[
            (10 * day, 0, 10.0),
            (0, 10 * day, -10.0),
            (day / 2, 0, 0.5),
            (1_700_000_000, 1_700_000_000, 0.0),
        ];
        for (now, dated, want) in cases {
            assert!(approx(age_days(*now, *dated), *want), "{now} {dated}");
        }
    }

    #[test]
    fn age_days_from_period_table() {
        let day = SECONDS_PER_DAY as i64;
        let (start, end) = (100 * day, 131 * day);
        let cases: &[(i64, f64)] = &[
            (start, 0.0),
            (115 * day, 0.0),
            (end - 1, 0.0),
            (end, 0.0),
            (end + 30 * day, 30.0),
            (start - 60 * day, 60.0),
        ];
        for (dated, want) in cases {
            let got = age_days_from_period(start, end, *dated);
            assert!(approx(got, *want), "{dated}: got {got}, want {want}");
        }
    }

    #[test]
    fn age_days_extremes_do_not_overflow() {
        assert!(age_days(i64::MAX, i64::MIN) > 0.0);
        assert!(age_days(i64::MIN, i64::MAX) < 0.0);
    }

    #[test]
    fn decay_is_monotonic_in_age() {
        let mut prev = 1.0;
        for d in 1..=365 {
            let f = decay_factor(Some(f64::from(d)), DEFAULT_HALF_LIFE_DAYS);
            assert!(f < prev && f > 0.0);
            prev = f;
        }
    }
}
