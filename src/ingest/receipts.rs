//! Bill and purchase receipts from JSON exports (an array, one object, or JSON
//! Lines). Real exports name their fields differently, so the few fields that
//! matter (vendor, total, date, …) are found by alias, case-insensitively, and
//! every other field is kept as `key: value` text so it is still searchable.
//! Each receipt becomes one readable chunk dated at 00:00 UTC of its date.

use serde_json::value::RawValue;

use super::json_input::{JsonElement, ZipMembers, ordered_fields, parse_all};
use super::record::{
    ChunkDraft, FileError, Meta, Parsed, Record, Rejection, SourceType, content_hash,
};
use crate::dates::written::{midnight_utc, parse_datetime_loose, parse_receipt_date};

const VENDOR_KEYS: [&str; 5] = ["vendor", "merchant", "company", "biller", "payee"];
const TOTAL_KEYS: [&str; 3] = ["total", "amount", "amount_due"];
const CURRENCY_KEYS: [&str; 1] = ["currency"];
const ACCOUNT_KEYS: [&str; 1] = ["account"];
const ADDRESS_KEYS: [&str; 1] = ["address"];
/// Shown in brackets after the vendor: `TNB (electricity)`.
const CATEGORY_KEYS: [&str; 1] = ["category"];
/// Date fields in order of preference, with the word the summary line uses.
const DATE_KEYS: [(&str, &str); 5] = [
    ("date", "paid"),
    ("paid_at", "paid"),
    ("issued_at", "issued"),
    ("billing_date", "billed"),
    ("due_date", "due"),
];
const ID_KEY: &str = "id";
const ITEMS_KEY: &str = "items";
const ITEM_NAME_KEYS: [&str; 2] = ["description", "name"];
const ITEM_AMOUNT_KEYS: [&str; 2] = ["amount", "price"];
const ITEM_QUANTITY_KEYS: [&str; 2] = ["quantity", "qty"];
/// How much of an unreadable date a rejection quotes.
const MAX_QUOTED_CHARS: usize = 40;

/// How to read a receipt file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReceiptOptions {
    /// Read ambiguous numeric dates as month/day/year (US receipts).
    pub month_first: bool,
}

/// A zip of receipts: its JSON files are read.
pub const RECEIPT_ZIP_MEMBERS: ZipMembers = ZipMembers {
    wanted: ".json or .jsonl file",
    accept: |name| super::run::looks_like_json(std::path::Path::new(name)),
};

/// Parses a receipts file into one `Parsed` per receipt.
pub fn parse_receipts(input: &[u8], opts: &ReceiptOptions) -> Result<Vec<Parsed>, FileError> {
    parse_all(input, |el| parse_receipt(el, opts))
}

/// A JSON value as text, keeping numbers exactly as printed (`9.00`, not `9.0`).
enum Field<'a> {
    Text(String),
    Array(&'a RawValue),
    Object(&'a RawValue),
    Empty,
}

fn classify(raw: &RawValue) -> Field<'_> {
    let text = raw.get();
    match text.as_bytes().first() {
        Some(b'"') => match serde_json::from_str::<String>(text) {
            Ok(s) if !s.trim().is_empty() => Field::Text(s.trim().to_string()),
            _ => Field::Empty,
        },
        Some(b'[') => Field::Array(raw),
        Some(b'{') => Field::Object(raw),
        Some(b'n') | None => Field::Empty,
        // Numbers and booleans: the raw text is already what was printed.
        Some(_) => Field::Text(text.to_string()),
    }
}

fn scalar(raw: &RawValue) -> Option<String> {
    match classify(raw) {
        Field::Text(s) => Some(s),
        _ => None,
    }
}

/// The receipt's fields, with a flag for each once it has been shown somewhere.
struct Fields<'a> {
    list: Vec<(String, &'a RawValue)>,
    lower: Vec<String>,
    used: Vec<bool>,
}

impl<'a> Fields<'a> {
    fn new(list: Vec<(String, &'a RawValue)>) -> Self {
        let lower = list.iter().map(|(k, _)| k.to_lowercase()).collect();
        let used = vec![false; list.len()];
        Fields { list, lower, used }
    }

    /// Index of the first unused field named `key` (any case).
    fn position(&self, key: &str) -> Option<usize> {
        (0..self.list.len()).find(|&i| !self.used[i] && self.lower[i] == key)
    }

    /// The first alias, in order, that has a scalar value; marks it used.
    fn take_scalar(&mut self, keys: &[&str]) -> Option<String> {
        for key in keys {
            let found = (0..self.list.len()).find_map(|i| {
                let value =
                    (!self.used[i] && self.lower[i] == *key).then(|| scalar(self.list[i].1))??;
                Some((i, value))
            });
            if let Some((i, value)) = found {
                self.used[i] = true;
                return Some(value);
            }
        }
        None
    }
}

/// One receipt record.
pub fn parse_receipt(el: &JsonElement<'_>, opts: &ReceiptOptions) -> Result<Record, Rejection> {
    let mut f = Fields::new(el.fields());
    if f.list.is_empty() {
        return Err(el.reject("empty receipt"));
    }
    let (date, date_label) = take_date(&mut f, opts).map_err(|reason| el.reject(reason))?;
    let id = f.position(ID_KEY).and_then(|i| {
        f.used[i] = true;
        scalar(f.list[i].1)
    });
    let vendor = f.take_scalar(&VENDOR_KEYS);
    let category = f.take_scalar(&CATEGORY_KEYS);
    let total = f.take_scalar(&TOTAL_KEYS);
    let currency = f.take_scalar(&CURRENCY_KEYS);
    let account = f.take_scalar(&ACCOUNT_KEYS);
    let address = f.take_scalar(&ADDRESS_KEYS);

    let mut summary = Vec::new();
    match (&vendor, &category) {
        (Some(v), Some(c)) => summary.push(format!("{v} ({c})")),
        (Some(v), None) | (None, Some(v)) => summary.push(v.clone()),
        (None, None) => {}
    }
    match (&currency, &total) {
        (Some(c), Some(t)) => summary.push(format!("{c} {t}")),
        (None, Some(t)) => summary.push(format!("total {t}")),
        (Some(c), None) => summary.push(format!("in {c}")),
        (None, None) => {}
    }
    summary.push(format!("{date_label} {}", date.format("%Y-%m-%d")));
    if let Some(a) = &account {
        summary.push(format!("account {a}"));
    }
    let mut lines = vec![format!("Receipt: {}", summary.join(", "))];
    if let Some(a) = &address {
        lines.push(format!("Address: {a}"));
    }
    if let Some(i) = f.position(ITEMS_KEY)
        && let Field::Array(raw) = classify(f.list[i].1)
    {
        f.used[i] = true;
        lines.extend(item_lines(raw));
    }
    for i in 0..f.list.len() {
        if !f.used[i] {
            let (key, raw) = &f.list[i];
            other_field_lines(key, raw, &mut lines);
        }
    }

    let meta = Meta {
        vendor,
        ..Meta::default()
    };
    let chunks = vec![ChunkDraft {
        text: lines.join("\n"),
        dated_at: midnight_utc(date),
        message_ids: Vec::new(),
    }];
    let hash = content_hash(&meta, &chunks);
    Ok(Record {
        source_type: SourceType::Receipt,
        source_id: id.unwrap_or_else(|| format!("sha256:{hash}")),
        content_hash: hash,
        meta,
        chunks,
        warning: None,
    })
}

/// The first date field, in preference order, that reads as a date. A date
/// field that is there but cannot be read is named and quoted, never
/// reported as missing: the user has to see what the export wrote.
fn take_date(
    f: &mut Fields<'_>,
    opts: &ReceiptOptions,
) -> Result<(chrono::NaiveDate, &'static str), String> {
    let mut unreadable = None;
    for (key, label) in DATE_KEYS {
        for i in 0..f.list.len() {
            if f.lower[i] != key {
                continue;
            }
            let raw = f.list[i].1;
            let text = match classify(raw) {
                Field::Text(text) => text,
                Field::Empty => continue,
                // `{"date": {"$date": ...}}`, `[2018, 3, 3]`: there, but not a date we read.
                Field::Array(v) | Field::Object(v) => {
                    unreadable.get_or_insert((v.get().to_string(), f.list[i].0.clone()));
                    continue;
                }
            };
            if let Some(d) = receipt_date(raw, &text, opts) {
                f.used[i] = true;
                return Ok((d, label));
            }
            unreadable.get_or_insert((text, f.list[i].0.clone()));
        }
    }
    Err(match unreadable {
        Some((text, field)) => {
            let quoted: String = text.chars().take(MAX_QUOTED_CHARS).collect();
            format!("unreadable date {quoted:?} in field {field:?}")
        }
        None => format!(
            "no usable date (looked at {})",
            DATE_KEYS.map(|(k, _)| k).join(", ")
        ),
    })
}

/// Digits in a number that is a printed date (`20180303`), not a timestamp.
const COMPACT_DATE_DIGITS: usize = 8;
/// Fewest digits of an epoch timestamp read as one: 100000000 s is 1973.
const MIN_EPOCH_DIGITS: usize = 9;

/// Strings are read as printed dates. Numbers of eight digits are printed
/// dates too (`20180303`, as SROIE-style exports write them; read as epoch
/// seconds they would be August 1970); longer ones are epoch seconds or
/// milliseconds; shorter ones are neither, and are unreadable.
fn receipt_date(raw: &RawValue, text: &str, opts: &ReceiptOptions) -> Option<chrono::NaiveDate> {
    if raw.get().starts_with('"') {
        return parse_receipt_date(text, opts.month_first).or_else(|| {
            let v = serde_json::Value::String(text.to_string());
            date_of(parse_datetime_loose(&v, opts.month_first)?)
        });
    }
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    if digits == text.len() && digits == COMPACT_DATE_DIGITS {
        return parse_receipt_date(text, opts.month_first);
    }
    if digits < MIN_EPOCH_DIGITS {
        return None;
    }
    let v: serde_json::Value = serde_json::from_str(raw.get()).ok()?;
    date_of(parse_datetime_loose(&v, opts.month_first)?)
}

fn date_of(secs: i64) -> Option<chrono::NaiveDate> {
    chrono::DateTime::from_timestamp(secs, 0).map(|dt| dt.date_naive())
}

/// `- 2 × Widget 4.50` per item; plain strings in the list are kept as they are.
fn item_lines(raw: &RawValue) -> Vec<String> {
    let items: Vec<&RawValue> = serde_json::from_str(raw.get()).unwrap_or_default();
    let mut out = Vec::new();
    for item in items {
        match classify(item) {
            Field::Text(s) => out.push(format!("- {s}")),
            Field::Object(obj) => {
                let mut f = Fields::new(ordered_fields(obj).unwrap_or_default());
                let name = f.take_scalar(&ITEM_NAME_KEYS);
                let amount = f.take_scalar(&ITEM_AMOUNT_KEYS);
                let quantity = f.take_scalar(&ITEM_QUANTITY_KEYS);
                if name.is_none() && amount.is_none() {
                    continue;
                }
                let mut line = String::from("- ");
                if let Some(q) = quantity {
                    line.push_str(&format!("{q} × "));
                }
                line.push_str(name.as_deref().unwrap_or("item"));
                if let Some(a) = amount {
                    line.push_str(&format!(" {a}"));
                }
                out.push(line);
            }
            Field::Array(_) | Field::Empty => {}
        }
    }
    out
}

/// A field the summary did not use: scalars as `key: value`, lists of scalars
/// (such as OCR lines) one per line under `key:`, objects flattened one level.
fn other_field_lines(key: &str, raw: &RawValue, lines: &mut Vec<String>) {
    match classify(raw) {
        Field::Text(v) => lines.push(format!("{key}: {v}")),
        Field::Array(arr) => {
            let elems: Vec<&RawValue> = serde_json::from_str(arr.get()).unwrap_or_default();
            let values: Vec<String> = elems.into_iter().filter_map(scalar).collect();
            if !values.is_empty() {
                lines.push(format!("{key}:"));
                lines.extend(values);
            }
        }
        Field::Object(obj) => {
            for (sub, v) in ordered_fields(obj).unwrap_or_default() {
                if let Some(v) = scalar(v) {
                    lines.push(format!("{key}.{sub}: {v}"));
                }
            }
        }
        Field::Empty => {}
    }
}

#[cfg(test)]
mod tests;
