//! Reads dates the way people and exporters write them: receipt dates as printed
//! (`25/12/2018`, `15 MAR 2018`, `Mar 15, 2018`, `20180304`, …) and the looser
//! timestamps found in JSON exports (RFC 3339, `YYYY-MM-DD HH:MM`, epoch numbers).
//! Everything here returns `None` rather than guessing wildly or panicking.

use chrono::{DateTime, NaiveDate, NaiveDateTime};
use serde_json::Value;

use super::{is_ordinal_suffix, month_by_name};

/// Two-digit years below this are 20xx, the rest 19xx (`18` → 2018, `85` → 1985).
const TWO_DIGIT_YEAR_PIVOT: i32 = 70;
/// Four-digit years outside this range are OCR noise, not receipt dates.
const MIN_YEAR: i32 = 1900;
const MAX_YEAR: i32 = 2199;
/// Epoch numbers above this are milliseconds (1e11 s is the year 5138).
const EPOCH_MILLIS_THRESHOLD: f64 = 1e11;
/// Naive date-time layouts accepted as UTC when there is no offset.
const NAIVE_DATETIME_FORMATS: [&str; 4] = [
    "%Y-%m-%d %H:%M:%S%.f",
    "%Y-%m-%d %H:%M",
    "%Y-%m-%dT%H:%M:%S%.f",
    "%Y-%m-%dT%H:%M",
];
const WEEKDAYS: [&str; 7] = [
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
];
/// Characters a receipt date is sometimes wrapped in, e.g. `(06/12/2016)`.
const WRAPPERS: &[char] = &['(', ')', '[', ']', '"', '\'', '<', '>'];

/// One run of digits or letters, with the separator text that preceded it.
#[derive(Debug)]
enum Tok<'a> {
    Num { text: &'a str, sep: &'a str },
    Word { text: &'a str, sep: &'a str },
}

impl<'a> Tok<'a> {
    fn sep(&self) -> &'a str {
        match self {
            Tok::Num { sep, .. } | Tok::Word { sep, .. } => sep,
        }
    }
}

fn tokenize(s: &str) -> Vec<Tok<'_>> {
    let mut toks = Vec::new();
    let mut sep_start = 0;
    let mut iter = s.char_indices().peekable();
    while let Some((start, c)) = iter.next() {
        let digit = c.is_ascii_digit();
        if !digit && !c.is_alphabetic() {
            continue;
        }
        let mut end = start + c.len_utf8();
        while let Some(&(i, n)) = iter.peek() {
            let same = if digit {
                n.is_ascii_digit()
            } else {
                n.is_alphabetic()
            };
            if !same {
                break;
            }
            end = i + n.len_utf8();
            iter.next();
        }
        let sep = s.get(sep_start..start).unwrap_or("").trim();
        let text = s.get(start..end).unwrap_or("");
        toks.push(if digit {
            Tok::Num { text, sep }
        } else {
            Tok::Word { text, sep }
        });
        sep_start = end;
    }
    toks
}

/// Parses a date as printed on a receipt. Numeric day/month orders are ambiguous:
/// day-first unless `month_first`, falling back to the other order only when the
/// preferred one is impossible (`12/28/2017`). Anything after the date (a time,
/// a till number) is ignored.
pub fn parse_receipt_date(s: &str, month_first: bool) -> Option<NaiveDate> {
    let s = s.trim().trim_matches(WRAPPERS).trim();
    let mut toks = tokenize(s);
    // Leading weekday ("Sunday, 15 March 2018") and ordinal suffixes ("15th") carry no date.
    if let Some(Tok::Word { text, .. }) = toks.first()
        && is_weekday(text)
    {
        toks.remove(0);
    }
    toks.retain(|t| !matches!(t, Tok::Word { text, sep: "" } if is_ordinal_suffix(text)));
    let (date, used) = match toks.as_slice() {
        [Tok::Num { text, .. }, rest @ ..] if text.len() == 8 && starts_date_end(rest) => {
            (compact_date(text, month_first)?, 1)
        }
        [
            Tok::Num { text: a, .. },
            Tok::Num { text: b, sep: s1 },
            Tok::Num { text: c, sep: s2 },
            ..,
        ] if s1 == s2 && is_numeric_sep(s1) => (numeric_date(a, b, c, month_first)?, 3),
        [
            Tok::Num { text: d, .. },
            Tok::Word { text: m, .. },
            Tok::Num { text: y, .. },
            ..,
        ]
        | [
            Tok::Word { text: m, .. },
            Tok::Num { text: d, .. },
            Tok::Num { text: y, .. },
            ..,
        ] if d.len() <= 2 => (ymd(year(y)?, month_by_name(m)?, d.parse().ok()?)?, 3),
        _ => return None,
    };
    // "15 Mar 10:30" has no year: the "year" we took is an hour.
    let next_is_minutes = toks.get(used).is_some_and(|t| t.sep().starts_with(':'));
    (!next_is_minutes).then_some(date)
}

/// A compact 8-digit date must not run into more digits or letters of a longer token.
fn starts_date_end(rest: &[Tok<'_>]) -> bool {
    rest.first()
        .is_none_or(|t| !t.sep().is_empty() || matches!(t, Tok::Word { .. }))
}

fn is_numeric_sep(sep: &str) -> bool {
    matches!(sep, "/" | "-" | ".")
}

fn numeric_date(a: &str, b: &str, c: &str, month_first: bool) -> Option<NaiveDate> {
    if a.len() == 4 {
        // Year-first forms are never ambiguous.
        if b.len() > 2 || c.len() > 2 {
            return None;
        }
        return ymd(year(a)?, b.parse().ok()?, c.parse().ok()?);
    }
    if a.len() > 2 || b.len() > 2 {
        return None;
    }
    let y = year(c)?;
    let (a, b): (u32, u32) = (a.parse().ok()?, b.parse().ok()?);
    let (first, second) = if month_first { (b, a) } else { (a, b) };
    ymd(y, second, first).or_else(|| ymd(y, first, second))
}

fn compact_date(text: &str, month_first: bool) -> Option<NaiveDate> {
    let (head, tail) = (text.get(..4)?, text.get(4..)?);
    if let Some(y) = year(head)
        && let Some(d) = ymd(
            y,
            tail.get(..2)?.parse().ok()?,
            tail.get(2..)?.parse().ok()?,
        )
    {
        return Some(d);
    }
    numeric_date(text.get(..2)?, text.get(2..4)?, tail, month_first)
}

/// A 4-digit year in range, or a 2-digit year expanded around the pivot.
fn year(text: &str) -> Option<i32> {
    let n: i32 = text.parse().ok()?;
    match text.len() {
        2 if n < TWO_DIGIT_YEAR_PIVOT => Some(2000 + n),
        2 => Some(1900 + n),
        4 if (MIN_YEAR..=MAX_YEAR).contains(&n) => Some(n),
        _ => None,
    }
}

fn ymd(y: i32, m: u32, d: u32) -> Option<NaiveDate> {
    NaiveDate::from_ymd_opt(y, m, d)
}

fn is_weekday(word: &str) -> bool {
    let w = word.to_lowercase();
    w.chars().count() >= 3 && WEEKDAYS.iter().any(|d| d.starts_with(&w))
}

/// A timestamp from a JSON export as unix seconds, UTC: RFC 3339, naive
/// `YYYY-MM-DD HH:MM[:SS]` taken as UTC, any receipt date form (midnight UTC),
/// or an epoch number in seconds, or milliseconds when it is that large.
pub fn parse_datetime_loose(v: &Value, month_first: bool) -> Option<i64> {
    match v {
        Value::Number(n) => epoch_seconds(n),
        Value::String(s) => parse_datetime_str(s.trim(), month_first),
        _ => None,
    }
}

fn epoch_seconds(n: &serde_json::Number) -> Option<i64> {
    let secs = if let Some(i) = n.as_i64() {
        if i.unsigned_abs() as f64 > EPOCH_MILLIS_THRESHOLD {
            i.div_euclid(1000)
        } else {
            i
        }
    } else {
        let f = n.as_f64()?;
        if !f.is_finite() {
            return None;
        }
        let f = if f.abs() > EPOCH_MILLIS_THRESHOLD {
            f / 1000.0
        } else {
            f
        };
        // `as` saturates; the range check below throws out anything absurd.
        f.floor() as i64
    };
    DateTime::from_timestamp(secs, 0).map(|_| secs)
}

fn parse_datetime_str(s: &str, month_first: bool) -> Option<i64> {
    if s.is_empty() {
        return None;
    }
    if let Ok(dt) = DateTime::parse_from_rfc3339(s) {
        return Some(dt.timestamp());
    }
    for fmt in NAIVE_DATETIME_FORMATS {
        if let Ok(dt) = NaiveDateTime::parse_from_str(s, fmt) {
            return Some(dt.and_utc().timestamp());
        }
    }
    parse_receipt_date(s, month_first).map(midnight_utc)
}

/// Unix seconds of 00:00 UTC on `date`.
pub fn midnight_utc(date: NaiveDate) -> i64 {
    date.and_time(chrono::NaiveTime::MIN).and_utc().timestamp()
}

#[cfg(test)]
mod tests;
