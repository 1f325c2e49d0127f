//! Dates named inside a query ("what did I buy on 8 May, 2023", "the Acme
//! mail in March 2024", "dinner last week"): found, turned into a period, and
//! taken out of the words searched.
//!
//! Search measures the forgetting curve from that period instead of from now
//! (see `search::rank_candidates`): the user has said when the thing happened, so
//! "recent" means "near then". It is a preference, not a filter — an item a
//! week outside the period still ranks, only lower — because people misplace
//! dates and conversations mention last week's events. The date words are
//! dropped from the text query: "May" and "8" match every other chat line.
//! A bare year is the exception: it stays, being a rare token of its own.

use chrono::{DateTime, Datelike, Months, NaiveDate, TimeDelta, TimeZone, Utc};

use super::{is_ordinal_suffix, local_midnight, month_by_name};

/// A period named in a query: half-open `[start, end)`, unix seconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NamedPeriod {
    pub start: i64,
    pub end: i64,
}

/// Years accepted as a bare four-digit number; outside this a number is more
/// likely an amount or an order number than a year.
const YEARS: std::ops::RangeInclusive<i32> = 1970..=2100;

/// The first period named in `query` and the query with the words naming it
/// removed. Explicit dates win over relative phrases; a month with no year
/// ("in June") is left alone because "may" and "march" are also words.
pub fn find<Tz: TimeZone>(
    query: &str,
    now: DateTime<Utc>,
    tz: &Tz,
) -> Option<(NamedPeriod, String)> {
    let words: Vec<Word> = split_words(query);
    let lower: Vec<String> = words.iter().map(|w| w.text.to_lowercase()).collect();
    let (range, period) = explicit(&lower).or_else(|| relative(&lower, now, tz))?;
    let period = match period {
        Period::Days(from, days) => {
            let start = midnight(tz, from)?;
            let end = midnight(tz, from.checked_add_signed(TimeDelta::days(days))?)?;
            NamedPeriod { start, end }
        }
        Period::Month(y, m) => {
            let from = NaiveDate::from_ymd_opt(y, m, 1)?;
            NamedPeriod {
                start: midnight(tz, from)?,
                end: midnight(tz, from.checked_add_months(Months::new(1))?)?,
            }
        }
        Period::Year(y) => NamedPeriod {
            start: midnight(tz, NaiveDate::from_ymd_opt(y, 1, 1)?)?,
            end: midnight(tz, NaiveDate::from_ymd_opt(y + 1, 1, 1)?)?,
        },
    };
    let rest = words
        .iter()
        .enumerate()
        .filter(|(i, _)| !range.contains(i))
        .map(|(_, w)| w.text)
        .collect::<Vec<_>>()
        .join(" ");
    Some((period, rest))
}

enum Period {
    /// `days` whole days from a date.
    Days(NaiveDate, i64),
    Month(i32, u32),
    Year(i32),
}

/// A whitespace-separated word with its surrounding punctuation trimmed.
struct Word<'a> {
    text: &'a str,
}

fn split_words(query: &str) -> Vec<Word<'_>> {
    query
        .split_whitespace()
        .map(|w| Word {
            text: w.trim_matches(|c: char| !c.is_alphanumeric() && c != '-'),
        })
        .filter(|w| !w.text.is_empty())
        .collect()
}

fn day(w: &str) -> Option<u32> {
    let digits = w.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let suffix = &w[digits.len()..];
    if !suffix.is_empty() && !is_ordinal_suffix(suffix) {
        return None;
    }
    digits.parse().ok().filter(|d| (1..=31).contains(d))
}

fn year(w: &str) -> Option<i32> {
    (w.len() == 4)
        .then(|| w.parse().ok())
        .flatten()
        .filter(|y| YEARS.contains(y))
}

/// Explicit dates, longest form first: "8 May 2023", "May 8th, 2023",
/// "2023-05-08", "May 2023", "2023-05", "2023".
fn explicit(w: &[String]) -> Option<(std::ops::Range<usize>, Period)> {
    let at = |i: usize| w.get(i).map(String::as_str).unwrap_or("");
    let date = |y: i32, m: u32, d: u32| NaiveDate::from_ymd_opt(y, m, d);
    for i in 0..w.len() {
        if let (Some(d), Some(m), Some(y)) = (day(at(i)), month_by_name(at(i + 1)), year(at(i + 2)))
            && let Some(from) = date(y, m, d)
        {
            return Some((i..i + 3, Period::Days(from, 1)));
        }
        if let (Some(m), Some(d), Some(y)) = (month_by_name(at(i)), day(at(i + 1)), year(at(i + 2)))
            && let Some(from) = date(y, m, d)
        {
            return Some((i..i + 3, Period::Days(from, 1)));
        }
        if let Ok(from) = NaiveDate::parse_from_str(at(i), "%Y-%m-%d") {
            return Some((i..i + 1, Period::Days(from, 1)));
        }
    }
    for i in 0..w.len() {
        if let (Some(m), Some(y)) = (month_by_name(at(i)), year(at(i + 1))) {
            return Some((i..i + 2, Period::Month(y, m)));
        }
        if let Some((y, m)) = at(i).split_once('-')
            && let (Some(y), Ok(m)) = (year(y), m.parse::<u32>())
            && (1..=12).contains(&m)
            && m.to_string().len() <= 2
        {
            return Some((i..i + 1, Period::Month(y, m)));
        }
    }
    // A bare year stays in the words searched: unlike "May" or "8" it is a
    // rare, exact token ("Acme 2027 roadmap"), and it may be an amount.
    (0..w.len()).find_map(|i| year(at(i)).map(|y| (i..i, Period::Year(y))))
}

/// "yesterday", "today", "this/last week", "this/last month", "this/last year",
/// relative to `now` in `tz`. Weeks start on Monday.
fn relative<Tz: TimeZone>(
    w: &[String],
    now: DateTime<Utc>,
    tz: &Tz,
) -> Option<(std::ops::Range<usize>, Period)> {
    let today = now.with_timezone(tz).date_naive();
    for i in 0..w.len() {
        match w[i].as_str() {
            "yesterday" => return Some((i..i + 1, Period::Days(today.pred_opt()?, 1))),
            "today" => return Some((i..i + 1, Period::Days(today, 1))),
            "this" | "last" => {
                let back = i32::from(w[i] == "last");
                let period = match w.get(i + 1).map(String::as_str) {
                    Some("week") => {
                        let monday = today
                            - TimeDelta::days(i64::from(today.weekday().num_days_from_monday()));
                        Period::Days(monday - TimeDelta::weeks(i64::from(back)), 7)
                    }
                    Some("month") => {
                        let first = today.with_day(1)?;
                        let first = if back == 1 {
                            first.checked_sub_months(Months::new(1))?
                        } else {
                            first
                        };
                        Period::Month(first.year(), first.month())
                    }
                    Some("year") => Period::Year(today.year() - back),
                    _ => continue,
                };
                return Some((i..i + 2, period));
            }
            _ => {}
        }
    }
    None
}

/// Local midnight at the start of `date`, as unix seconds (the earliest
/// instant when midnight is ambiguous; None when it does not exist).
fn midnight<Tz: TimeZone>(tz: &Tz, date: NaiveDate) -> Option<i64> {
    local_midnight(tz, date, 0).map(|t| t.timestamp())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utc(s: &str) -> i64 {
        DateTime::parse_from_rfc3339(s).unwrap().timestamp()
    }

    /// Wednesday 2024-05-15, noon UTC.
    fn now() -> DateTime<Utc> {
        DateTime::parse_from_rfc3339("2024-05-15T12:00:00Z")
            .unwrap()
            .with_timezone(&Utc)
    }

    #[test]
    fn named_dates_table() {
        let cases: &[(&str, &str, &str, &str)] = &[
            (
                "What did Nate do on 25 May, 2022?",
                "2022-05-25T00:00:00Z",
                "2022-05-26T00:00:00Z",
                "What did Nate do on",
            ),
            (
                "Where was James on July 12th, 2022?",
                "2022-07-12T00:00:00Z",
                "2022-07-13T00:00:00Z",
                "Where was James on",
            ),
            (
                "acme invoice 2024-02-29",
                "2024-02-29T00:00:00Z",
                "2024-03-01T00:00:00Z",
                "acme invoice",
            ),
            (
                "Which hobby did Dave pick up in October 2023?",
                "2023-10-01T00:00:00Z",
                "2023-11-01T00:00:00Z",
                "Which hobby did Dave pick up in",
            ),
            (
                "receipts 2023-12",
                "2023-12-01T00:00:00Z",
                "2024-01-01T00:00:00Z",
                "receipts",
            ),
            (
                "taxes in 2022",
                "2022-01-01T00:00:00Z",
                "2023-01-01T00:00:00Z",
                "taxes in 2022",
            ),
            (
                "dinner yesterday",
                "2024-05-14T00:00:00Z",
                "2024-05-15T00:00:00Z",
                "dinner",
            ),
            (
                "what did Bob say last week",
                "2024-05-06T00:00:00Z",
                "2024-05-13T00:00:00Z",
                "what did Bob say",
            ),
            (
                "rent this month",
                "2024-05-01T00:00:00Z",
                "2024-06-01T00:00:00Z",
                "rent",
            ),
            (
                "what project did Jolene finish last week before 23 January, 2023",
                "2023-01-23T00:00:00Z",
                "2023-01-24T00:00:00Z",
                "what project did Jolene finish last week before",
            ),
        ];
        for (query, start, end, rest) in cases {
            let (p, r) = find(query, now(), &Utc).unwrap_or_else(|| panic!("{query}"));
            assert_eq!((p.start, p.end), (utc(start), utc(end)), "{query}");
            assert_eq!(r, *rest, "{query}");
        }
    }

    #[test]
    fn words_that_only_look_like_dates_are_left_alone() {
        for query in [
            "may I see the march budget",
            "when did Melanie go camping in June",
            "order 12345 total 31",
            "the 1812 overture",
            "last night",
            "",
        ] {
            assert_eq!(find(query, now(), &Utc), None, "{query}");
        }
    }
}
