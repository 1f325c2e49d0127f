//! Routine mining: what the person looks up at the same time of the week,
//! week after week, becomes a routine fact ("Routine: on Tuesday mornings
//! you look up TNB receipts"), which fades like a dream fact once the habit
//! stops.
//!
//! The recall log of the last [`ROUTINE_WINDOW_DAYS`] is read: each search
//! (its query hash and its best hit) and each genuine recall. Each is put in
//! a bucket, weekday × time band in the local time zone (`TZ`), and counted
//! for its focus: the e-mail thread (subject without "Re:"), the vendor of a
//! receipt, the conversation, the fact, or the search's query hash. A focus
//! seen in one bucket on ≥ [`MIN_OCCASIONS`] days in ≥ [`MIN_WEEKS`] ISO
//! weeks is a routine. The words come from the recalled items (subject,
//! vendor, title), never from a query: the log keeps only its hash.

use std::collections::{BTreeSet, HashMap};

use anyhow::Result;
use chrono::{Datelike, NaiveDate, TimeZone, Timelike, Weekday};

use crate::config::LocalZone;
use crate::fast_hash::FxHashMap;
use crate::kinds::{FactMethod, SourceType};
use crate::store::dream::DreamTx;
use crate::store::night::{ActiveFact, ChunkLabel};
use crate::store::recall_log::RecallLog;

/// Days of recall log mined; the log is kept at least this long.
pub const ROUTINE_WINDOW_DAYS: i64 = 56;
/// Distinct days a focus must be recalled in one bucket.
pub const MIN_OCCASIONS: usize = 3;
/// Distinct ISO weeks those days must span.
pub const MIN_WEEKS: usize = 3;
/// New routines one dream may learn.
pub const MAX_NEW_PER_RUN: usize = 2;
/// A routine's starting confidence, and what it returns to when the habit
/// is seen again: the promotion threshold, like the least-scored dream fact.
pub const ROUTINE_CONFIDENCE: f64 = 0.6;
/// Characters of a fact's text quoted in a routine about it.
const QUOTE_CHARS: usize = 60;

/// One routine found tonight.
#[derive(Debug, Clone, PartialEq)]
pub struct Routine {
    /// The new fact (None in a dry run), or the active one it renewed.
    pub fact_id: Option<i64>,
    pub text: String,
    pub key: String,
    pub occasions: usize,
    pub weeks: usize,
    /// True: an active routine seen again, its confidence restarted.
    pub renewed: bool,
}

/// Time bands of a day, in local hours.
fn band(hour: u32) -> &'static str {
    match hour {
        0..6 => "night",
        6..12 => "morning",
        12..18 => "afternoon",
        _ => "evening",
    }
}

fn weekday_name(d: Weekday) -> &'static str {
    match d {
        Weekday::Mon => "Monday",
        Weekday::Tue => "Tuesday",
        Weekday::Wed => "Wednesday",
        Weekday::Thu => "Thursday",
        Weekday::Fri => "Friday",
        Weekday::Sat => "Saturday",
        Weekday::Sun => "Sunday",
    }
}

/// What was recalled: a key that identifies it and the words that name it.
#[derive(Debug, Clone, PartialEq)]
struct Focus {
    key: String,
    label: String,
}

/// The focus of a chunk, when its source names one.
fn chunk_focus(c: &ChunkLabel) -> Option<Focus> {
    let clean = |s: &Option<String>| {
        s.as_deref()
            .map(|s| s.split_whitespace().collect::<Vec<_>>().join(" "))
            .filter(|s| !s.is_empty())
    };
    match c.source_type {
        SourceType::Email => {
            let subject = thread_subject(&clean(&c.subject)?);
            (!subject.is_empty()).then(|| Focus {
                key: format!("thread:{}", subject.to_lowercase()),
                label: format!("the e-mail thread \"{subject}\""),
            })
        }
        SourceType::Receipt => clean(&c.vendor).map(|v| Focus {
            key: format!("vendor:{}", v.to_lowercase()),
            label: format!("{v} receipts"),
        }),
        SourceType::Conversation => Some(Focus {
            key: format!("conversation:{}", c.source_id),
            label: match clean(&c.title) {
                Some(t) => format!("the conversation \"{t}\""),
                None => "a past conversation".to_string(),
            },
        }),
        SourceType::Fact => {
            let text = clean(&c.fact_text)?;
            let quote: String = if text.chars().count() > QUOTE_CHARS {
                let cut: String = text.chars().take(QUOTE_CHARS - 1).collect();
                format!("{cut}…")
            } else {
                text
            };
            Some(Focus {
                key: format!("fact:{}", c.id),
                label: format!("the fact \"{quote}\""),
            })
        }
    }
}

/// A subject without its reply and forward prefixes: one thread's key.
fn thread_subject(subject: &str) -> String {
    let mut s = subject.trim();
    loop {
        let lower = s.to_lowercase();
        let Some(p) = ["re:", "fwd:", "fw:", "aw:", "sv:"]
            .iter()
            .find(|p| lower.starts_with(*p))
        else {
            return s.to_string();
        };
        s = s[p.len()..].trim_start();
    }
}

/// What one bucket of one focus saw.
#[derive(Default)]
struct Seen {
    days: BTreeSet<NaiveDate>,
    weeks: BTreeSet<(i32, u32)>,
    labels: HashMap<String, usize>,
}

/// Strings numbered in the order first seen.
#[derive(Default)]
struct Interner {
    ids: FxHashMap<String, u32>,
    names: Vec<String>,
}

impl Interner {
    fn id(&mut self, s: &str) -> u32 {
        if let Some(&id) = self.ids.get(s) {
            return id;
        }
        let id = self.names.len() as u32;
        self.names.push(s.to_string());
        self.ids.insert(s.to_string(), id);
        id
    }
}

/// A recall's local day and time band.
struct Moment {
    date: NaiveDate,
    band: &'static str,
}

impl Moment {
    fn of(tz: &LocalZone, at: i64) -> Option<Moment> {
        let local = tz.timestamp_opt(at, 0).single()?;
        Some(Moment {
            date: local.date_naive(),
            band: band(local.hour()),
        })
    }
}

/// The buckets, with focus keys and labels as numbers: a night notes every
/// search of the window twice, and a string or two per note was most of
/// what mining cost.
#[derive(Default)]
struct Buckets {
    keys: Interner,
    labels: Interner,
    seen: FxHashMap<(u32, Weekday, &'static str), NumberedSeen>,
}

#[derive(Default)]
struct NumberedSeen {
    days: BTreeSet<NaiveDate>,
    weeks: BTreeSet<(i32, u32)>,
    labels: FxHashMap<u32, usize>,
}

impl Buckets {
    fn note(&mut self, key: u32, label: u32, at: &Moment) {
        let iso = at.date.iso_week();
        let s = self
            .seen
            .entry((key, at.date.weekday(), at.band))
            .or_default();
        s.days.insert(at.date);
        s.weeks.insert((iso.year(), iso.week()));
        *s.labels.entry(label).or_default() += 1;
    }

    /// The buckets that make a routine, keyed and labelled in words again.
    fn qualifying_seen(self) -> HashMap<(String, Weekday, &'static str), Seen> {
        let (keys, labels) = (self.keys.names, self.labels.names);
        self.seen
            .into_iter()
            .filter(|(_, s)| s.days.len() >= MIN_OCCASIONS && s.weeks.len() >= MIN_WEEKS)
            .map(|((key, day, band), s)| {
                let seen = Seen {
                    days: s.days,
                    weeks: s.weeks,
                    labels: s
                        .labels
                        .into_iter()
                        .map(|(l, n)| (labels[l as usize].clone(), n))
                        .collect(),
                };
                ((keys[key as usize].clone(), day, band), seen)
            })
            .collect()
    }
}

/// Mines the log in `[now - window, now]` (the searches of `log`, read with
/// that window, and the genuine recalls) and, unless `dry_run`, learns at
/// most [`MAX_NEW_PER_RUN`] new routines and renews active ones seen again.
pub fn mine(
    tx: &DreamTx<'_>,
    log: &RecallLog,
    active: &[ActiveFact],
    tz: &LocalZone,
    now: i64,
    dry_run: bool,
) -> Result<Vec<Routine>> {
    let from = now - ROUTINE_WINDOW_DAYS * 86_400;
    let mut focus: FxHashMap<i64, Option<(u32, u32)>> = FxHashMap::default();
    let mut buckets = Buckets::default();
    let mut focus_of = |id: i64, buckets: &mut Buckets| -> Result<Option<(u32, u32)>> {
        if let Some(&f) = focus.get(&id) {
            return Ok(f);
        }
        let f = tx
            .chunk_label(id)?
            .as_ref()
            .and_then(chunk_focus)
            .map(|f| (buckets.keys.id(&f.key), buckets.labels.id(&f.label)));
        focus.insert(id, f);
        Ok(f)
    };
    let mut query_keys: Vec<Option<u32>> = vec![None; log.hashes.len()];
    for search in &log.searches {
        let Some((key, label)) = focus_of(search.best, &mut buckets)? else {
            continue;
        };
        let Some(at) = Moment::of(tz, search.at) else {
            continue;
        };
        buckets.note(key, label, &at);
        let h = search.hash as usize;
        let query = *query_keys[h]
            .get_or_insert_with(|| buckets.keys.id(&format!("query:{}", log.hashes[h])));
        buckets.note(query, label, &at);
    }
    for (chunk, at) in tx.genuine_recalls(from, now)? {
        if let (Some((key, label)), Some(at)) = (focus_of(chunk, &mut buckets)?, Moment::of(tz, at))
        {
            buckets.note(key, label, &at);
        }
    }
    let seen = buckets.qualifying_seen();
    let found = qualifying(seen);
    let mut out: Vec<Routine> = Vec::new();
    let active_routines: Vec<&ActiveFact> = active
        .iter()
        .filter(|f| f.method == FactMethod::Routine)
        .collect();
    let mut texts: Vec<String> = active_routines.iter().map(|f| f.text.clone()).collect();
    let mut new = 0;
    for (key, text, occasions, weeks) in found {
        if let Some(f) = active_routines
            .iter()
            .find(|f| f.routine_key.as_deref() == Some(key.as_str()))
        {
            if !dry_run {
                tx.renew_routine(f.id, ROUTINE_CONFIDENCE, now)?;
            }
            out.push(Routine {
                fact_id: Some(f.id),
                text: f.text.clone(),
                key,
                occasions,
                weeks,
                renewed: true,
            });
            continue;
        }
        if new >= MAX_NEW_PER_RUN || texts.contains(&text) {
            continue;
        }
        let fact_id = if dry_run {
            None
        } else {
            Some(tx.insert_routine(&text, &key, ROUTINE_CONFIDENCE, now)?)
        };
        texts.push(text.clone());
        new += 1;
        out.push(Routine {
            fact_id,
            text,
            key,
            occasions,
            weeks,
            renewed: false,
        });
    }
    Ok(out)
}

/// (key, text, days, weeks) of every bucket that makes a routine, most
/// days first; a focus of an item before a query's, then by key.
fn qualifying(
    seen: HashMap<(String, Weekday, &'static str), Seen>,
) -> Vec<(String, String, usize, usize)> {
    let mut found: Vec<(String, String, usize, usize, bool)> = seen
        .into_iter()
        .filter(|(_, s)| s.days.len() >= MIN_OCCASIONS && s.weeks.len() >= MIN_WEEKS)
        .map(|((focus, day, band), s)| {
            let label = s
                .labels
                .iter()
                .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
                .map(|(l, _)| l.clone())
                .unwrap_or_default();
            let day_key = weekday_name(day)[..3].to_lowercase();
            let key = format!("{day_key}-{band} {focus}");
            let text = format!(
                "Routine: on {} {band}s you look up {label}",
                weekday_name(day)
            );
            let is_query = focus.starts_with("query:");
            (key, text, s.days.len(), s.weeks.len(), is_query)
        })
        .collect();
    found.sort_by(|a, b| {
        b.2.cmp(&a.2)
            .then(b.3.cmp(&a.3))
            .then(a.4.cmp(&b.4))
            .then(a.0.cmp(&b.0))
    });
    found
        .into_iter()
        .map(|(k, t, d, w, _)| (k, t, d, w))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bands_table() {
        let cases = [
            (0, "night"),
            (5, "night"),
            (6, "morning"),
            (11, "morning"),
            (12, "afternoon"),
            (18, "evening"),
            (23, "evening"),
        ];
        for (h, want) in cases {
            assert_eq!(band(h), want, "{h}");
        }
    }

    #[test]
    fn thread_subjects() {
        for (s, want) in [
            ("Re: Fwd: Orion kickoff", "Orion kickoff"),
            ("RE:re: x", "x"),
            ("Plain", "Plain"),
        ] {
            assert_eq!(thread_subject(s), want);
        }
    }
}
