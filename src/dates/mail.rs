//! The date of a mail message: its Date header (parsed by mail-parser,
//! checked here to name a real calendar date), else the mbox envelope line
//! after "From ", which is UTC unless it carries a numeric zone.

use chrono::{NaiveDate, NaiveDateTime};

/// The Date header, if it names a real calendar date.
pub fn header_date(d: &mail_parser::DateTime) -> Option<i64> {
    NaiveDate::from_ymd_opt(d.year.into(), d.month.into(), d.day.into())?.and_hms_opt(
        d.hour.into(),
        d.minute.into(),
        d.second.into(),
    )?;
    Some(d.to_timestamp())
}

/// The envelope line after "From ": `sender Thu Jan 15 10:00:00 2026`, also
/// with a numeric zone before the year as Gmail writes it.
pub fn envelope_date(envelope: &str) -> Option<i64> {
    let mut words = envelope.split_whitespace();
    words.next()?;
    let mut rest: Vec<&str> = words.collect();
    let mut offset_secs = 0i64;
    if let Some(pos) = rest.iter().position(|w| is_numeric_zone(w)) {
        let z = rest.remove(pos);
        let sign = if z.starts_with('-') { -1 } else { 1 };
        let h: i64 = z[1..3].parse().ok()?;
        let m: i64 = z[3..5].parse().ok()?;
        offset_secs = sign * (h * 3600 + m * 60);
    }
    // The weekday is dropped: writers get it wrong, and chrono would reject
    // a date whose weekday disagrees.
    if rest
        .first()
        .is_some_and(|w| w.len() == 3 && w.bytes().all(|b| b.is_ascii_alphabetic()))
        && rest
            .get(1)
            .is_some_and(|w| w.bytes().all(|b| b.is_ascii_alphabetic()))
    {
        rest.remove(0);
    }
    let joined = rest.join(" ");
    let naive = NaiveDateTime::parse_from_str(&joined, "%b %d %H:%M:%S %Y").ok()?;
    Some(naive.and_utc().timestamp() - offset_secs)
}

fn is_numeric_zone(w: &str) -> bool {
    w.len() == 5
        && (w.starts_with('+') || w.starts_with('-'))
        && w[1..].bytes().all(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gmail_envelope_with_zone() {
        assert_eq!(
            envelope_date("1234@xxx Thu Jan 15 10:00:00 +0100 2026"),
            Some(1_768_467_600)
        );
        assert_eq!(
            envelope_date("a@x Mon Jan  5 10:00:00 2026"),
            Some(1_767_607_200)
        );
        assert_eq!(envelope_date("MAILER-DAEMON"), None);
    }
}
