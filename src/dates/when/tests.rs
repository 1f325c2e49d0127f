use super::*;
use chrono::{FixedOffset, MappedLocalTime, NaiveTime, TimeDelta};

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
    fn offset_from_local_datetime(&self, local: &NaiveDateTime) -> MappedLocalTime<FixedOffset> {
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

/// Regression: `--after "3 weeks"` quietly meant three weeks in the future
/// (interim reads a bare duration forward). A duration must say its
/// direction; the error names both readings.
#[test]
fn a_duration_without_a_direction_is_ambiguous() {
    let ambiguous = [
        ("3 weeks", "3 weeks"),
        ("  3 Weeks ", "3 weeks"),
        ("2 days", "2 days"),
        ("1 month", "1 month"),
        ("3h", "3h"),
        ("12 hours", "12 hours"),
        ("2 days 5pm", "2 days"),
        ("3 weeks from now", "3 weeks"),
    ];
    for (input, duration) in ambiguous {
        assert_eq!(
            parse_when(input, now(), &Utc),
            Err(WhenError::Ambiguous {
                input: input.trim().to_string(),
                duration: duration.to_string()
            }),
            "{input:?}"
        );
    }
    let e = parse_when("3 weeks", now(), &Utc).unwrap_err();
    assert_eq!(
        e.to_string(),
        "\"3 weeks\" is ambiguous: did you mean \"3 weeks ago\" (or \"in 3 weeks\")?"
    );
}

#[test]
fn a_duration_that_says_its_direction_is_read_that_way() {
    let cases = [
        ("3 weeks ago", "2026-02-25T00:00:00Z"),
        ("-3 weeks", "2026-02-25T00:00:00Z"),
        ("in 3 weeks", "2026-04-08T00:00:00Z"),
        ("IN 2 days", "2026-03-20T00:00:00Z"),
        ("in 3 hours", "2026-03-18T10:30:45Z"),
        ("next week", "2026-03-25T00:00:00Z"),
        ("last week", "2026-03-11T00:00:00Z"),
        ("tomorrow", "2026-03-19T00:00:00Z"),
        ("0 days", "2026-03-18T00:00:00Z"),
        // Numbers that start a date or a time, not a duration.
        ("1 jan 2027", "2027-01-01T00:00:00Z"),
        ("10 pm", "2026-03-18T22:00:00Z"),
    ];
    for (input, want) in cases {
        assert_eq!(parse_when(input, now(), &Utc), Ok(utc(want)), "{input:?}");
    }
    // "in" takes a forward duration and nothing else.
    for input in [
        "in 3 weeks ago",
        "in yesterday",
        "in 2026",
        "in",
        "in next week",
    ] {
        assert_eq!(
            parse_when(input, now(), &Utc),
            Err(WhenError::Invalid(input.to_string())),
            "{input:?}"
        );
    }
}
