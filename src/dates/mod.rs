//! Every date alfred-mem reads, in one place, one submodule per job:
//! [`when`] reads the `WHEN` a person types after `--after`, `--before` and
//! `--as-of` (or an agent in a tool call); [`written`] reads dates as
//! receipts and JSON exports print them; [`mail`] reads a message's Date
//! header and its mbox envelope line, and chooses the date it is remembered
//! at when its Date is implausible; [`named`] finds a date named inside a
//! query ("on 8 May, 2023", "last week") and the period it means.
//!
//! The jobs differ on purpose: each has its own year range (a receipt year
//! outside 1900..=2199 is OCR noise, a bare number outside 1970..=2100 in a
//! query is more likely an amount), and only `when` and `named` read local
//! time, in the time zone `Config` resolved. What they share lives here: the
//! month names, the ordinal suffixes, and how a wall-clock time in a zone
//! becomes an instant.

pub mod mail;
pub mod named;
pub mod when;
pub mod written;

use chrono::{DateTime, NaiveDate, NaiveDateTime, NaiveTime, TimeDelta, TimeZone, Utc};

const MONTHS: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

/// What follows the number of a day in "1st", "2nd", "3rd", "15th".
const ORDINAL_SUFFIXES: [&str; 4] = ["st", "nd", "rd", "th"];

/// `Mar`, `MARCH`, `Sept` → 3, 3, 9: at least three letters of the full
/// name, any case.
pub(crate) fn month_by_name(word: &str) -> Option<u32> {
    let w = word.to_lowercase();
    if w.chars().count() < 3 {
        return None;
    }
    MONTHS
        .iter()
        .position(|m| m.starts_with(&w))
        .and_then(|i| u32::try_from(i + 1).ok())
}

fn is_ordinal_suffix(word: &str) -> bool {
    ORDINAL_SUFFIXES.contains(&word.to_lowercase().as_str())
}

/// Midnight at the start of `date` in `tz`, as UTC; see [`local_to_utc`]
/// for `gap_hours`.
fn local_midnight<Tz: TimeZone>(tz: &Tz, date: NaiveDate, gap_hours: i64) -> Option<DateTime<Utc>> {
    local_to_utc(tz, date.and_time(NaiveTime::MIN), gap_hours)
}

/// Converts a wall-clock time in `tz` to UTC. An ambiguous time (DST
/// fall-back) takes the earlier instant. A nonexistent one (a DST
/// spring-forward gap) moves forward an hour at a time, at most `gap_hours`
/// times, to the first wall-clock time that exists; with 0 it is `None`.
fn local_to_utc<Tz: TimeZone>(
    tz: &Tz,
    naive: NaiveDateTime,
    gap_hours: i64,
) -> Option<DateTime<Utc>> {
    (0..=gap_hours).find_map(|h| {
        let shifted = naive.checked_add_signed(TimeDelta::hours(h))?;
        tz.from_local_datetime(&shifted)
            .earliest()
            .map(|dt| dt.with_timezone(&Utc))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn months_by_name_and_prefix() {
        for (word, want) in [
            ("March", Some(3)),
            ("MAR", Some(3)),
            ("sept", Some(9)),
            ("Dec", Some(12)),
            ("ma", None),
            ("marc", Some(3)),
            ("marx", None),
            ("mä", None),
        ] {
            assert_eq!(month_by_name(word), want, "{word}");
        }
    }
}
