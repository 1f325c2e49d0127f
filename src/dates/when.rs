//! Parsing the `WHEN` argument of `--after`, `--before` and `--as-of` (and
//! the `after`/`before` fields of the MCP search tool).
//!
//! Users type dates at several precisions (`2026`, `2026-01`, `2026-01-15`),
//! exact instants (RFC 3339), local date-times, and English phrases
//! (`yesterday`, `2 weeks ago`, `last monday`). Each becomes a single UTC
//! instant: the *start* of the period named, in the user's time zone. Whether
//! that instant is an inclusive or exclusive bound is the caller's business.

use chrono::{DateTime, NaiveDate, NaiveDateTime, TimeZone, Utc};
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

/// The `WHEN` text could not be understood, or could be read two ways.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum WhenError {
    /// Not a date: the offending input, trimmed.
    #[error(
        "invalid date \"{0}\": expected YYYY, YYYY-MM, YYYY-MM-DD, RFC 3339, or a phrase like \"2 weeks ago\""
    )]
    Invalid(String),
    /// A duration without a direction ("3 weeks"). interim reads it as that
    /// long from now, which as a date filter is almost never what was
    /// meant, so it is refused with both readings spelled out.
    #[error("\"{input}\" is ambiguous: did you mean \"{duration} ago\" (or \"in {duration}\")?")]
    Ambiguous { input: String, duration: String },
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
    let err = || WhenError::Invalid(input.to_string());
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
            return super::local_to_utc(tz, naive, MAX_GAP_HOURS)
                .and_then(in_year_range)
                .ok_or_else(err);
        }
    }
    if is_malformed_iso_datetime(input) {
        return Err(err());
    }
    phrase(input, now, tz)
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

/// A word this long is not part of a date phrase ("wednesday" has 9 letters).
const LONGEST_DATE_WORD: usize = 16;

/// English phrases via `interim`, evaluated against `now` seen in `tz`. A
/// forward duration must say so ("in 3 weeks"); a bare one ("3 weeks") is
/// [`WhenError::Ambiguous`].
fn phrase<Tz: TimeZone>(
    input: &str,
    now: DateTime<Utc>,
    tz: &Tz,
) -> Result<DateTime<Utc>, WhenError> {
    let invalid = || WhenError::Invalid(input.to_string());
    // interim reads "now" as "0 days from now"; it must not become midnight.
    if input.eq_ignore_ascii_case("now") {
        return Ok(now);
    }
    // interim 0.2.2 asserts that a word after an hour ("10 am") is lowercase
    // and under 16 letters, so "10 AM" and "m0A" panic inside it. Its words
    // are case-insensitive ASCII, so lowercasing avoids the common case; the
    // catch turns any other panic in it into "not a date".
    let lower = input.to_ascii_lowercase();
    // No English date word is that long, and a long run is the other way to
    // reach the assertion (its panic message would reach stderr).
    if lower
        .split(|c: char| !c.is_alphabetic())
        .any(|w| w.chars().count() >= LONGEST_DATE_WORD)
    {
        return Err(invalid());
    }
    // "in 3 weeks" is the forward duration interim would read "3 weeks" as.
    let (text, forward) = match lower.strip_prefix("in ") {
        Some(rest) => (rest.trim_start(), true),
        None => (lower.as_str(), false),
    };
    let local_now = now.with_timezone(tz);
    // Nothing the closure touches outlives a panic half-changed.
    let (dt, days, bare) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let dt = interim::parse_date_string(text, local_now, interim::Dialect::Uk).ok();
        let days = matches!(
            interim::parse_duration(text),
            Ok(interim::Interval::Days(_))
        );
        (dt, days, bare_duration(text))
    }))
    .map_err(|_| invalid())?;
    // Refused even where interim would not read the rest ("3 weeks from
    // now"): the fix is the same.
    match (bare, forward) {
        (Some(duration), false) => {
            return Err(WhenError::Ambiguous {
                input: input.to_string(),
                duration,
            });
        }
        (None, true) => return Err(invalid()),
        _ => {}
    }
    let dt = dt.ok_or_else(invalid)?;
    // interim keeps the current time of day for day/week offsets ("yesterday"
    // is 24 hours ago); a date filter means the whole day, so start at its
    // local midnight like the numeric forms do.
    if days {
        return local_midnight(tz, dt.date_naive()).ok_or_else(invalid);
    }
    Ok(dt.with_timezone(&Utc))
}

/// The leading "N unit" of `text` when it counts forward without a word of
/// direction: "3 weeks", "3h", "2 days 5pm". Not "3 weeks ago", "-3 weeks"
/// (both back), "next week" or "tomorrow" (forward, and saying so), nor a
/// date such as "1 jan 2026" or a time such as "10 pm".
fn bare_duration(text: &str) -> Option<String> {
    if !text.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let words: Vec<&str> = text.split_whitespace().collect();
    // The longest run of leading words that is a duration: "3 weeks ago"
    // as a whole, not its "3 weeks".
    let (duration, interval) = (1..=words.len()).rev().find_map(|n| {
        let d = words[..n].join(" ");
        interim::parse_duration(&d).ok().map(|i| (d, i))
    })?;
    let forward = match interval {
        interim::Interval::Seconds(n)
        | interim::Interval::Days(n)
        | interim::Interval::Months(n) => n > 0,
    };
    forward.then_some(duration)
}

/// Midnight at the start of `date` in `tz`; a midnight a DST change skipped
/// becomes the first wall-clock time that day that exists.
fn local_midnight<Tz: TimeZone>(tz: &Tz, date: NaiveDate) -> Option<DateTime<Utc>> {
    super::local_midnight(tz, date, MAX_GAP_HOURS)
}

/// Rejects instants outside [`YEAR_RANGE`] (e.g. RFC 3339 year 0000).
fn in_year_range(dt: DateTime<Utc>) -> Option<DateTime<Utc>> {
    use chrono::Datelike;
    YEAR_RANGE.contains(&dt.year()).then_some(dt)
}

#[cfg(test)]
mod tests;
