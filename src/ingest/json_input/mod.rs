//! JSON inputs (receipts, conversations), read record by record whatever
//! container the export used: an array of objects, a single object, or JSON
//! Lines, in a file, on standard input or inside a zip archive. Every record
//! keeps its 0-based index and byte offset so a bad one can be reported
//! precisely and the rest still go in. The ingesters only ever see one object
//! at a time, so memory is bounded by the largest record, not the input.

mod pipeline;
mod scan;
mod split;

pub use pipeline::{JsonEvent, ParseRecord, ZipMembers, read_input, starts_like_zip};
pub use split::{JsonRecords, MAX_RECORD_BYTES, RawRecord};

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;

use super::record::{FileError, Parsed, Rejection};

/// One record of the file, known to be a syntactically valid JSON object.
#[derive(Clone, Copy, Debug)]
pub struct JsonElement<'a> {
    /// 0-based position of the record in the file (blank JSONL lines not counted).
    pub index: usize,
    /// Byte offset in the input (see `RawRecord::offset`).
    pub offset: u64,
    /// The object's exact text, so callers can keep numbers as printed.
    pub raw: &'a RawValue,
}

impl JsonElement<'_> {
    /// A rejection for this record, with the `record N: ` prefix the reports expect.
    pub fn reject(&self, reason: impl std::fmt::Display) -> Rejection {
        reject(self.index, self.offset, reason)
    }

    /// The object's fields in file order, each still as raw JSON text.
    pub fn fields(&self) -> Vec<(String, &RawValue)> {
        // Cannot fail: the element was checked to be an object when it was parsed.
        serde_json::from_str::<OrderedFields<'_>>(self.raw.get())
            .map(|f| f.0)
            .unwrap_or_default()
    }

    /// The object as a `serde_json` value, for callers that do not care about order.
    pub fn value(&self) -> serde_json::Map<String, serde_json::Value> {
        serde_json::from_str(self.raw.get()).unwrap_or_default()
    }
}

/// Builds a per-record rejection with the standard `record N: ` prefix.
pub fn reject(index: usize, offset: u64, reason: impl std::fmt::Display) -> Rejection {
    Rejection {
        offset,
        reason: format!("record {index}: {reason}"),
    }
}

/// An object's members in the order they appear; `serde_json::Map` would sort them,
/// and the order a vendor printed fields in is the most readable one.
struct OrderedFields<'a>(Vec<(String, &'a RawValue)>);

impl<'de> Deserialize<'de> for OrderedFields<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = OrderedFields<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a json object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::new();
                while let Some((k, v)) = map.next_entry::<String, &'de RawValue>()? {
                    out.push((k, v));
                }
                Ok(OrderedFields(out))
            }
        }
        d.deserialize_map(V)
    }
}

/// Parses an object's raw text into ordered fields; used for nested objects too.
pub fn ordered_fields(raw: &RawValue) -> Option<Vec<(String, &RawValue)>> {
    serde_json::from_str::<OrderedFields<'_>>(raw.get())
        .ok()
        .map(|f| f.0)
}

impl RawRecord {
    /// The record as a JSON object; invalid JSON or another kind of value is
    /// this record's rejection, naming the byte where it went wrong.
    pub fn element(&self) -> Result<JsonElement<'_>, Rejection> {
        match serde_json::from_slice::<&RawValue>(&self.bytes) {
            Ok(raw) if raw.get().starts_with('{') => Ok(JsonElement {
                index: self.index,
                offset: self.offset,
                raw,
            }),
            Ok(_) => Err(reject(self.index, self.offset, "expected an object")),
            Err(e) => {
                let at = self.offset + line_column_offset(&self.bytes, e.line(), e.column());
                Err(reject(
                    self.index,
                    self.offset,
                    format!("invalid json at byte {at}: {}", bare_message(&e)),
                ))
            }
        }
    }
}

/// Every record of an in-memory input through `parse`: for tests and callers
/// that hold the bytes anyway. Stops at the first `FileError`.
pub fn parse_all(
    input: &[u8],
    parse: impl Fn(&JsonElement<'_>) -> Result<super::record::Record, Rejection>,
) -> Result<Vec<Parsed>, FileError> {
    let mut records = JsonRecords::new(input);
    let mut out = Vec::new();
    while let Some(next) = records.next_record()? {
        out.push(next.and_then(|raw| parse(&raw.element()?)));
    }
    Ok(out)
}

/// serde_json appends " at line L column C" to its messages; we place it ourselves.
fn bare_message(e: &serde_json::Error) -> String {
    let full = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    full.strip_suffix(&suffix).unwrap_or(&full).to_string()
}

/// Byte offset of a 1-based line and column (serde_json counts columns in bytes).
fn line_column_offset(text: &[u8], line: usize, column: usize) -> u64 {
    let line_start = text
        .iter()
        .enumerate()
        .filter(|&(_, &b)| b == b'\n')
        .nth(line.saturating_sub(2))
        .filter(|_| line > 1)
        .map_or(0, |(i, _)| i + 1);
    line_start
        .saturating_add(column.saturating_sub(1))
        .min(text.len()) as u64
}

#[cfg(test)]
mod tests;
