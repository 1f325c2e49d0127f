//! The date of a mail message. [`header_date`] reads its Date header (parsed
//! by mail-parser, checked here to name a real calendar date), and
//! [`envelope_date`] the mbox envelope line after "From ", which is UTC
//! unless it carries a numeric zone.
//!
//! [`choose`] decides which date a message is remembered at. The `Date:`
//! header is what the sender's machine claimed, and it can be absent,
//! unreadable or absurd (`Tue, 27 Aug 0102`, a year-2038 spam date). A date
//! nobody can trust misfiles the message for every `--after` window and for
//! the forgetting curve, so an implausible one is replaced by when the
//! message demonstrably arrived: the newest `Received:` date, then the mbox
//! `From ` line (or a Maildir file name's delivery time), then, with a
//! warning, the import time.

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

/// 1980-01-01T00:00:00Z: no e-mail of anybody's archive is older; a year
/// before it is a broken client (`0102`, `1970`, two-digit years gone wrong).
pub const EARLIEST_PLAUSIBLE: i64 = 315_532_800;

/// How far `Date:` may run ahead of the message's arrival (clock skew,
/// time zones): a day, as the issue that asked for this put it.
pub const MAX_AHEAD_OF_ARRIVAL_SECS: i64 = 86_400;

/// Where a message's date came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DatedBy {
    /// Its own `Date:` header: the normal case.
    Header,
    /// The newest `Received:` header.
    Received,
    /// The mbox `From ` line, or the time in a Maildir file name.
    Envelope,
    /// Nothing usable at all: the time of the first import.
    ImportTime,
}

impl DatedBy {
    /// The name stored with the message; `None` for a message dated by its
    /// own header, so only fallbacks take room (and `status` counts them).
    pub fn stored_name(self) -> Option<&'static str> {
        match self {
            DatedBy::Header => None,
            DatedBy::Received => Some("received"),
            DatedBy::Envelope => Some("envelope"),
            DatedBy::ImportTime => Some("import"),
        }
    }
}

/// The date chosen for a message, and where it came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dating {
    pub at: i64,
    pub by: DatedBy,
}

/// Choose a message's date. `header` is its `Date:` (unix seconds, when it
/// names a real calendar date), `received` every `Received:` date,
/// `envelope` the delivery time the container recorded, `now` the import time.
///
/// `Date:` stands unless it is missing, before 1980, or more than a day
/// after the message arrived (the newest plausible `Received:` date, else
/// the envelope, else now). Its replacement is the newest plausible
/// `Received:` date, then the envelope, then now. Plausible means from 1980
/// up to a day past now.
pub fn choose(
    header: Option<i64>,
    received: impl IntoIterator<Item = i64>,
    envelope: Option<i64>,
    now: i64,
) -> Dating {
    let plausible = |t: &i64| (EARLIEST_PLAUSIBLE..=now + MAX_AHEAD_OF_ARRIVAL_SECS).contains(t);
    let received = received.into_iter().filter(plausible).max();
    let envelope = envelope.filter(plausible);
    let arrival = received.or(envelope).unwrap_or(now);
    match header {
        Some(t) if (EARLIEST_PLAUSIBLE..=arrival + MAX_AHEAD_OF_ARRIVAL_SECS).contains(&t) => {
            Dating {
                at: t,
                by: DatedBy::Header,
            }
        }
        _ => match (received, envelope) {
            (Some(t), _) => Dating {
                at: t,
                by: DatedBy::Received,
            },
            (None, Some(t)) => Dating {
                at: t,
                by: DatedBy::Envelope,
            },
            (None, None) => Dating {
                at: now,
                by: DatedBy::ImportTime,
            },
        },
    }
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

    const NOW: i64 = 1_764_676_800; // 2025-12-02T12:00:00Z
    const DAY: i64 = 86_400;
    /// 2002-08-27T10:00:00Z, and the year-102 date a broken client wrote for it.
    const Y2002: i64 = 1_030_442_400;
    const Y0102: i64 = -58_927_788_000;

    /// (why, Date:, Received: dates, envelope, chosen date, chosen source)
    type Case = (
        &'static str,
        Option<i64>,
        &'static [i64],
        Option<i64>,
        i64,
        DatedBy,
    );

    #[test]
    fn the_choice_table() {
        use DatedBy::*;
        let cases: [Case; 12] = [
            (
                "a good Date stands",
                Some(Y2002),
                &[Y2002 + 60],
                Some(Y2002 + 90),
                Y2002,
                Header,
            ),
            (
                "Date hours ahead of arrival stands (skew)",
                Some(Y2002 + 7200),
                &[Y2002],
                None,
                Y2002 + 7200,
                Header,
            ),
            (
                "year 0102 -> newest Received",
                Some(Y0102),
                &[Y2002 - 60, Y2002],
                Some(Y2002 + 5),
                Y2002,
                Received,
            ),
            (
                "year 0102, no Received -> envelope",
                Some(Y0102),
                &[],
                Some(Y2002),
                Y2002,
                Envelope,
            ),
            ("no Date -> Received", None, &[Y2002], None, Y2002, Received),
            (
                "Date two days after Received -> Received",
                Some(Y2002 + 2 * DAY),
                &[Y2002],
                None,
                Y2002,
                Received,
            ),
            (
                "Date before 1980 -> envelope",
                Some(EARLIEST_PLAUSIBLE - 1),
                &[],
                Some(Y2002),
                Y2002,
                Envelope,
            ),
            (
                "1980 itself is plausible",
                Some(EARLIEST_PLAUSIBLE),
                &[],
                None,
                EARLIEST_PLAUSIBLE,
                Header,
            ),
            (
                "a 1970 envelope is no evidence",
                None,
                &[],
                Some(0),
                NOW,
                ImportTime,
            ),
            (
                "a future Received is no evidence",
                Some(Y0102),
                &[NOW + 9 * DAY],
                Some(Y2002),
                Y2002,
                Envelope,
            ),
            (
                "no arrival known: Date in the future -> now",
                Some(NOW + 2 * DAY),
                &[],
                None,
                NOW,
                ImportTime,
            ),
            (
                "no arrival known: Date up to now + 1 day stands",
                Some(NOW + DAY),
                &[],
                None,
                NOW + DAY,
                Header,
            ),
        ];
        for (why, header, received, envelope, at, by) in cases {
            assert_eq!(
                choose(header, received.iter().copied(), envelope, NOW),
                Dating { at, by },
                "{why}"
            );
        }
    }

    #[test]
    fn only_fallbacks_are_stored_by_name() {
        assert_eq!(DatedBy::Header.stored_name(), None);
        assert_eq!(DatedBy::Received.stored_name(), Some("received"));
        assert_eq!(DatedBy::Envelope.stored_name(), Some("envelope"));
        assert_eq!(DatedBy::ImportTime.stored_name(), Some("import"));
    }
}
