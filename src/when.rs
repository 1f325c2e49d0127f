//! Parsing the `WHEN` argument of `--after`, `--before` and `--as-of`.
//!
//! Users type dates at several precisions (`2026`, `2026-01`, `2026-01-15`),
//! exact instants (RFC 3339), local date-times, and English phrases
//! (`yesterday`, `2 weeks ago`, `last monday`). Each becomes a single UTC
//! instant: the *start* of the period named, in the user's time zone. Whether
//! that instant is an inclusive or exclusive bound is the caller's business.

use chrono::{DateTime, NaiveDate, NaiveDateTime, TimeDelta, TimeZone, Utc};
use thiserror::Error;

/// How many one-hour steps past a nonexistent local time (a DST gap) are
/// tried before giving up. Real gaps are at most an hour or two.
const MAX_GAP_HOURS: i64 = 3;

/// Date-time layouts accepted without an offset; they are read as local time.
const LOCAL_DATETIME_FORMATS: &[&str] = &[
    "%Y-%m-%dT%H:%M:%S",
    "%Y-%m-%dT%H:%M",
    "%Y-%m-%d %H:%M:%S",
    "%Y-%m-%d %H:%M",
];

/// Earliest and latest years accepted in numeric forms. Year 0 and five-digit
/// years are almost certainly typos, and rejecting them keeps arithmetic on
/// the result far from chrono's limits.
const YEAR_RANGE: std::ops::RangeInclusive<i32> = 1..=9999;

/// The `WHEN` text could not be understood.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error(
    "invalid date \"{input}\": expected YYYY, YYYY-MM, YYYY-MM-DD, RFC 3339, or a phrase like \"2 weeks ago\""
)]
pub struct WhenError {
    /// The offending input, trimmed.
    pub input: String,
}

/// Parses `s` into an instant, reading dates without an offset in `tz` and
/// phrases relative to `now`.
///
/// Day-precision forms (`2026-01-15`, `yesterday`, `3 days ago`, `today`) give
/// local midnight at the start of that day; `now` and hour/minute phrases
/// (`3 hours ago`) keep the time of day.
pub fn parse_when<Tz: TimeZone>(
    s: &str,
    now: DateTime<Utc>,
    tz: &Tz,
) -> Result<DateTime<Utc>, WhenError> {
    let input = s.trim();
    let err = || WhenError {
        input: input.to_string(),
    };
    if input.is_empty() {
        return Err(err());
    }
    // Purely numeric shapes are decided here, never handed to the phrase
    // parser, so "2026-13" is an error rather than some creative guess.
    if let Some(date) = numeric_date(input) {
        return date.and_then(|d| local_midnight(tz, d)).ok_or_else(err);
    }
    if let Ok(dt) = DateTime::parse_from_rfc3339(input) {
        return in_year_range(dt.with_timezone(&Utc)).ok_or_else(err);
    }
    for fmt in LOCAL_DATETIME_FORMATS {
        if let Ok(naive) = NaiveDateTime::parse_from_str(input, fmt) {
            return resolve_local(tz, naive)
                .and_then(in_year_range)
                .ok_or_else(err);
        }
    }
    if is_malformed_iso_datetime(input) {
        return Err(err());
    }
    phrase(input, now, tz).ok_or_else(err)
}

/// Recognises `YYYY`, `YYYY-MM` and `YYYY-MM-DD` (ASCII digits only).
/// Returns `None` if the shape does not match, `Some(None)` if it matches but
/// names no real date (month 13, day 32, year 0).
fn numeric_date(s: &str) -> Option<Option<NaiveDate>> {
    let parts: Vec<&str> = s.split('-').collect();
    let widths = [4, 2, 2];
    if parts.len() > widths.len()
        || parts
            .iter()
            .zip(widths)
            .any(|(p, w)| p.len() != w || !p.bytes().all(|b| b.is_ascii_digit()))
    {
        return None;
    }
    // The shape check guarantees these parse; fall back to 0 (invalid) anyway.
    let num = |i: usize| parts.get(i).map_or(Some(1), |p| p.parse::<u32>().ok());
    let year = parts[0]
        .parse::<i32>()
        .ok()
        .filter(|y| YEAR_RANGE.contains(y));
    Some(year.and_then(|y| NaiveDate::from_ymd_opt(y, num(1)?, num(2)?)))
}

/// True for an ISO date followed by a numeric time part that the strict
/// parsers rejected (`2026-01-15T25:00`, `2026-01-15 10:61`). interim would
/// otherwise read an out-of-range hour as "the next day, 1am". Phrases after
/// the date (`2026-01-15 5pm`) are still left to interim.
fn is_malformed_iso_datetime(input: &str) -> bool {
    let Some((date, rest)) = input.split_at_checked(10) else {
        return false;
    };
    if !matches!(numeric_date(date), Some(Some(_))) {
        return false;
    }
    rest.starts_with(['T', 't'])
        || rest.strip_prefix(' ').is_some_and(|time| {
            time.bytes()
                .all(|b| b.is_ascii_digit() || b == b':' || b == b'.')
        })
}

/// English phrases via `interim`, evaluated against `now` seen in `tz`.
fn phrase<Tz: TimeZone>(input: &str, now: DateTime<Utc>, tz: &Tz) -> Option<DateTime<Utc>> {
    // interim reads "now" as "0 days from now"; it must not become midnight.
    if input.eq_ignore_ascii_case("now") {
        return Some(now);
    }
    // interim 0.2.2 asserts that a word after an hour ("10 am") is lowercase
    // and under 16 letters, so "10 AM" and "m0A" panic inside it. Its words
    // are case-insensitive ASCII, so lowercasing avoids the common case; the
    // catch turns any other panic in it into "not a date".
    let input = input.to_ascii_lowercase();
    let local_now = now.with_timezone(tz);
    // Nothing the closure touches outlives a panic half-changed.
    let (dt, days) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let dt = interim::parse_date_string(&input, local_now, interim::Dialect::Uk).ok()?;
        let days = matches!(
            interim::parse_duration(&input),
            Ok(interim::Interval::Days(_))
        );
        Some((dt, days))
    }))
    .ok()??;
    // interim keeps the current time of day for day/week offsets ("yesterday"
    // is 24 hours ago); a date filter means the whole day, so start at its
    // local midnight like the numeric forms do.
    if days {
        return local_midnight(tz, dt.date_naive());
    }
    Some(dt.with_timezone(&Utc))
}

/// Midnight at the start of `date` in `tz`, as UTC.
fn local_midnight<Tz: TimeZone>(tz: &Tz, date: NaiveDate) -> Option<DateTime<Utc>> {
    resolve_local(tz, date.and_time(chrono::NaiveTime::MIN))
}

/// Converts a local wall-clock time to UTC. An ambiguous time (DST fall-back)
/// takes the earlier instant; a nonexistent one (DST spring-forward gap) moves
/// forward an hour at a time to the first wall-clock time that exists, so a
/// date whose midnight was skipped still starts that day.
fn resolve_local<Tz: TimeZone>(tz: &Tz, naive: NaiveDateTime) -> Option<DateTime<Utc>> {
    (0..=MAX_GAP_HOURS).find_map(|h| {
        let shifted = naive.checked_add_signed(TimeDelta::hours(h))?;
        tz.from_local_datetime(&shifted)
            .earliest()
            .map(|dt| dt.with_timezone(&Utc))
    })
}

/// Rejects instants outside [`YEAR_RANGE`] (e.g. RFC 3339 year 0000).
fn in_year_range(dt: DateTime<Utc>) -> Option<DateTime<Utc>> {
    use chrono::Datelike;
    YEAR_RANGE.contains(&dt.year()).then_some(dt)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{FixedOffset, MappedLocalTime, NaiveTime};

    /// Wednesday 2026-03-18 07:30:45 UTC, which is 15:30:45 at UTC+8.
    fn now() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 3, 18, 7, 30, 45).unwrap()
    }

    fn utc(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_utc_timezone()
    }

    trait WithUtc {
        fn with_utc_timezone(self) -> DateTime<Utc>;
    }
    impl WithUtc for DateTime<FixedOffset> {
        fn with_utc_timezone(self) -> DateTime<Utc> {
            self.with_timezone(&Utc)
        }
    }

    #[test]
    fn table_plus_eight() {
        let tz = FixedOffset::east_opt(8 * 3600).unwrap();
        let cases = [
            ("2026", "2025-12-31T16:00:00Z"),
            ("2026-01", "2025-12-31T16:00:00Z"),
            ("2026-02", "2026-01-31T16:00:00Z"),
            ("2026-01-15", "2026-01-14T16:00:00Z"),
            ("  2026-01-15\n", "2026-01-14T16:00:00Z"),
            ("2024-02-29", "2024-02-28T16:00:00Z"),
            ("2026-01-15T10:00:00Z", "2026-01-15T10:00:00Z"),
            ("2026-01-15T10:00:00+02:00", "2026-01-15T08:00:00Z"),
            ("2026-01-15T10:00:00.5-05:00", "2026-01-15T15:00:00.5Z"),
            ("2026-01-15T10:00", "2026-01-15T02:00:00Z"),
            ("2026-01-15T10:00:30", "2026-01-15T02:00:30Z"),
            ("2026-01-15 10:00", "2026-01-15T02:00:00Z"),
            ("now", "2026-03-18T07:30:45Z"),
            ("today", "2026-03-17T16:00:00Z"),
            ("yesterday", "2026-03-16T16:00:00Z"),
            ("3 days ago", "2026-03-14T16:00:00Z"),
            ("2 weeks ago", "2026-03-03T16:00:00Z"),
            ("last monday", "2026-03-15T16:00:00Z"),
            ("3 hours ago", "2026-03-18T04:30:45Z"),
            ("2 months ago", "2026-01-17T16:00:00Z"),
            ("yesterday 5pm", "2026-03-17T09:00:00Z"),
            ("2026-01-15 5pm", "2026-01-15T09:00:00Z"),
        ];
        for (input, want) in cases {
            assert_eq!(parse_when(input, now(), &tz), Ok(utc(want)), "{input:?}");
        }
    }

    #[test]
    fn table_utc() {
        let cases = [
            ("2026", "2026-01-01T00:00:00Z"),
            ("2026-12", "2026-12-01T00:00:00Z"),
            ("2026-01-15", "2026-01-15T00:00:00Z"),
            ("2026-01-15T10:00:00Z", "2026-01-15T10:00:00Z"),
            ("2026-01-15T23:59", "2026-01-15T23:59:00Z"),
            ("yesterday", "2026-03-17T00:00:00Z"),
            ("YESTERDAY", "2026-03-17T00:00:00Z"),
            ("last monday", "2026-03-16T00:00:00Z"),
            // Unpadded ISO-like and month-name dates fall through to interim.
            ("2026-1-5", "2026-01-05T00:00:00Z"),
            ("1 jan 2026", "2026-01-01T00:00:00Z"),
        ];
        for (input, want) in cases {
            assert_eq!(parse_when(input, now(), &Utc), Ok(utc(want)), "{input:?}");
        }
    }

    #[test]
    fn invalid_inputs_are_errors() {
        let bad = [
            "",
            "   ",
            "2026-13",
            "2026-00",
            "2026-01-32",
            "2026-02-30",
            "2025-02-29",
            "0000",
            "0000-01-01",
            "0000-01-01T00:00:00Z",
            "20260",
            "banana",
            "2026-01-15T25:00",
            "2026-01-15T10:61",
            "2026-01-15Tnoon",
            "2026-01-15 25:00",
            "2026-01-15T10:00:00+25:00",
            "١٢٣٤",
            "💥",
            "\0",
        ];
        for input in bad {
            let got = parse_when(input, now(), &Utc);
            assert!(got.is_err(), "{input:?} gave {got:?}");
        }
    }

    proptest::proptest! {
        #[test]
        fn never_panics(s in proptest::prelude::any::<String>()) {
            let tz = FixedOffset::east_opt(8 * 3600).unwrap();
            let _ = parse_when(&s, now(), &tz);
        }

        #[test]
        fn never_panics_on_date_like(s in "[0-9]{1,6}(-[0-9]{1,3}){0,2}(T[0-9:]{0,9})?") {
            let _ = parse_when(&s, now(), &Utc);
        }
    }

    /// Found by fuzzing: interim 0.2.2 asserted on an upper-case or long word
    /// after an hour, and the panic took the command down.
    #[test]
    fn interim_assertion_on_words_after_an_hour_is_an_error_not_a_panic() {
        for s in ["m0A", "Sund10 MA?R 2018`2018", "10 abcdefghijklmnopq"] {
            assert!(parse_when(s, now(), &Utc).is_err(), "{s}");
        }
        let pm = parse_when("10 PM", now(), &Utc);
        assert!(pm.is_ok());
        assert_eq!(pm, parse_when("10 pm", now(), &Utc));
    }

    #[test]
    fn error_message() {
        let e = parse_when(" soon-ish ", now(), &Utc).unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid date \"soon-ish\": expected YYYY, YYYY-MM, YYYY-MM-DD, RFC 3339, \
             or a phrase like \"2 weeks ago\""
        );
    }

    #[test]
    fn works_with_local() {
        // Only checks it compiles and succeeds; the value depends on the host.
        assert!(parse_when("2026-01-15", now(), &chrono::Local).is_ok());
        assert!(parse_when("2 weeks ago", now(), &chrono::Local).is_ok());
    }

    /// A zone at UTC-3 that jumps to UTC-2 at local midnight on 2026-10-18,
    /// so 00:00..01:00 that day never happens (as in Brazil until 2019).
    #[derive(Debug, Clone, Copy)]
    struct GapTz;

    const GAP_DAY: (i32, u32, u32) = (2026, 10, 18);

    impl GapTz {
        fn transition_utc() -> NaiveDateTime {
            // Local 00:00 at UTC-3 is 03:00 UTC.
            NaiveDate::from_ymd_opt(GAP_DAY.0, GAP_DAY.1, GAP_DAY.2)
                .unwrap()
                .and_hms_opt(3, 0, 0)
                .unwrap()
        }
        fn before() -> FixedOffset {
            FixedOffset::west_opt(3 * 3600).unwrap()
        }
        fn after() -> FixedOffset {
            FixedOffset::west_opt(2 * 3600).unwrap()
        }
    }

    impl TimeZone for GapTz {
        type Offset = FixedOffset;
        fn from_offset(_: &FixedOffset) -> Self {
            GapTz
        }
        fn offset_from_local_date(&self, local: &NaiveDate) -> MappedLocalTime<FixedOffset> {
            self.offset_from_local_datetime(&local.and_time(NaiveTime::MIN))
        }
        fn offset_from_local_datetime(
            &self,
            local: &NaiveDateTime,
        ) -> MappedLocalTime<FixedOffset> {
            let gap_start = Self::transition_utc() - TimeDelta::hours(3);
            if *local < gap_start {
                MappedLocalTime::Single(Self::before())
            } else if *local < gap_start + TimeDelta::hours(1) {
                MappedLocalTime::None
            } else {
                MappedLocalTime::Single(Self::after())
            }
        }
        fn offset_from_utc_date(&self, utc: &NaiveDate) -> FixedOffset {
            self.offset_from_utc_datetime(&utc.and_time(NaiveTime::MIN))
        }
        fn offset_from_utc_datetime(&self, utc: &NaiveDateTime) -> FixedOffset {
            if *utc < Self::transition_utc() {
                Self::before()
            } else {
                Self::after()
            }
        }
    }

    #[test]
    fn dst_gap_midnight_resolves_to_first_valid_instant() {
        // Local midnight does not exist; 01:00 local (UTC-2) is 03:00 UTC,
        // exactly the transition instant.
        let want = utc("2026-10-18T03:00:00Z");
        assert_eq!(parse_when("2026-10-18", now(), &GapTz), Ok(want));
        assert_eq!(
            parse_when("2026-10-18T00:30", now(), &GapTz),
            Ok(utc("2026-10-18T03:30:00Z"))
        );
        // Neighbouring days are unaffected.
        assert_eq!(
            parse_when("2026-10-17", now(), &GapTz),
            Ok(utc("2026-10-17T03:00:00Z"))
        );
        assert_eq!(
            parse_when("2026-10-19", now(), &GapTz),
            Ok(utc("2026-10-19T02:00:00Z"))
        );
        // A day phrase landing on the gap day also resolves.
        let day_after = utc("2026-10-19T12:00:00Z");
        assert_eq!(parse_when("yesterday", day_after, &GapTz), Ok(want));
    }
}
