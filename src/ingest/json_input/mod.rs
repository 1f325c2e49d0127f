//! Splits a JSON input file into its records, whatever container the export
//! used: an array of objects, a single object, or JSON Lines. Every record keeps
//! its 0-based index and byte offset so a bad one can be reported precisely and
//! the rest of the file still goes in. Shared by the receipt and conversation
//! ingesters, which only ever see one object at a time.

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;

use super::record::{FileError, Rejection};

/// Byte-order mark some Windows tools put in front of UTF-8 files.
const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// One record of the file, known to be a syntactically valid JSON object.
#[derive(Clone, Copy, Debug)]
pub struct JsonElement<'a> {
    /// 0-based position of the record in the file (blank JSONL lines not counted).
    pub index: usize,
    /// Byte offset in the original input (BOM included): the `{` of an array
    /// element or a single object, the start of the line for JSON Lines.
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
        // Cannot fail: the element was checked to be an object when it was split off.
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

/// Splits `input` into records. A file that is not JSON at all is a `FileError`;
/// a bad JSONL line or a non-object element is a `Rejection` and the rest go on.
pub fn split_records(input: &[u8]) -> Result<Vec<Result<JsonElement<'_>, Rejection>>, FileError> {
    let body = input.strip_prefix(UTF8_BOM).unwrap_or(input);
    let Some(first) = body.iter().position(|b| !b.is_ascii_whitespace()) else {
        return Ok(Vec::new());
    };
    match body[first] {
        b'[' => {
            let items: Vec<&RawValue> =
                serde_json::from_slice(body).map_err(|e| file_error(input, body, &e))?;
            Ok(items
                .into_iter()
                .enumerate()
                .map(|(index, raw)| element(index, offset_of(input, raw.get()), raw))
                .collect())
        }
        b'{' => match serde_json::from_slice::<&RawValue>(body) {
            Ok(raw) => Ok(vec![element(0, offset_of(input, raw.get()), raw)]),
            Err(_) if first_line_is_value(body, first) => Ok(split_lines(input, body)),
            Err(e) => Err(file_error(input, body, &e)),
        },
        _ => match serde_json::from_slice::<&RawValue>(body) {
            Ok(_) => Err(FileError {
                offset: Some(offset_of_bytes(input, &body[first..])),
                reason: "expected a json array of objects, an object, or json lines".into(),
            }),
            Err(e) => Err(file_error(input, body, &e)),
        },
    }
}

/// Checks the element is an object; anything else is a per-record rejection.
fn element(index: usize, offset: u64, raw: &RawValue) -> Result<JsonElement<'_>, Rejection> {
    if raw.get().starts_with('{') {
        Ok(JsonElement { index, offset, raw })
    } else {
        Err(reject(index, offset, "expected an object"))
    }
}

/// JSON Lines is told apart from a broken single object by whether its first
/// line is a complete value on its own.
fn first_line_is_value(body: &[u8], first: usize) -> bool {
    let rest = &body[first..];
    let line = rest.split(|&b| b == b'\n').next().unwrap_or(rest);
    serde_json::from_slice::<&RawValue>(line).is_ok()
}

fn split_lines<'a>(input: &'a [u8], body: &'a [u8]) -> Vec<Result<JsonElement<'a>, Rejection>> {
    let mut out = Vec::new();
    let mut index = 0;
    for line in body.split(|&b| b == b'\n') {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let offset = offset_of_bytes(input, line);
        out.push(match serde_json::from_slice::<&RawValue>(line) {
            Ok(raw) => element(index, offset, raw),
            Err(e) => Err(reject(
                index,
                offset,
                format!(
                    "invalid json: {} at column {}",
                    bare_message(&e),
                    e.column()
                ),
            )),
        });
        index += 1;
    }
    out
}

fn file_error(input: &[u8], body: &[u8], e: &serde_json::Error) -> FileError {
    FileError {
        offset: line_column_offset(body, e.line(), e.column())
            .map(|o| o + (input.len() - body.len()) as u64),
        reason: format!(
            "invalid json at line {} column {}: {}",
            e.line(),
            e.column(),
            bare_message(e)
        ),
    }
}

/// serde_json appends " at line L column C" to its messages; we place it ourselves.
fn bare_message(e: &serde_json::Error) -> String {
    let full = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    full.strip_suffix(&suffix).unwrap_or(&full).to_string()
}

/// Byte offset of a 1-based line and column (serde_json counts columns in bytes).
fn line_column_offset(body: &[u8], line: usize, column: usize) -> Option<u64> {
    if line == 0 {
        return None;
    }
    let line_start = if line == 1 {
        0
    } else {
        body.iter()
            .enumerate()
            .filter(|&(_, &b)| b == b'\n')
            .nth(line - 2)
            .map(|(i, _)| i + 1)?
    };
    Some(
        line_start
            .saturating_add(column.saturating_sub(1))
            .min(body.len()) as u64,
    )
}

fn offset_of(input: &[u8], inner: &str) -> u64 {
    offset_of_bytes(input, inner.as_bytes())
}

/// Where a sub-slice starts inside `input`; both come from the same buffer.
fn offset_of_bytes(input: &[u8], inner: &[u8]) -> u64 {
    (inner.as_ptr() as usize).saturating_sub(input.as_ptr() as usize) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn offsets(input: &str) -> Vec<Result<(usize, u64), String>> {
        split_records(input.as_bytes())
            .expect("file parses")
            .into_iter()
            .map(|r| r.map(|e| (e.index, e.offset)).map_err(|r| r.reason))
            .collect()
    }

    #[test]
    fn array_offsets_point_at_each_brace() {
        let input = "[ {\"a\":1},\n  {\"b\":2}, 3 ]";
        let got = offsets(input);
        assert_eq!(got[0], Ok((0, 2)));
        assert_eq!(got[1], Ok((1, input.rfind('{').unwrap() as u64)));
        assert_eq!(got[2], Err("record 2: expected an object".into()));
    }

    #[test]
    fn single_object_and_bom() {
        assert_eq!(offsets("\u{feff}  {\"a\": 1}\n"), vec![Ok((0, 5))]);
    }

    #[test]
    fn json_lines_skip_blanks_and_reject_bad_lines() {
        let input = "{\"a\":1}\n\n{oops\n  {\"c\":3}\r\n[1]\n";
        let got = offsets(input);
        assert_eq!(got.len(), 4);
        assert_eq!(got[0], Ok((0, 0)));
        let bad = got[1].clone().unwrap_err();
        assert!(bad.starts_with("record 1: invalid json: "), "{bad}");
        assert_eq!(got[2], Ok((2, 15)));
        assert_eq!(got[3], Err("record 3: expected an object".into()));
    }

    #[test]
    fn broken_files_are_file_errors() {
        let e = split_records(b"[{\"a\":1},\n {\"b\" 2}]").unwrap_err();
        assert!(
            e.reason.starts_with("invalid json at line 2 column 7: "),
            "{}",
            e.reason
        );
        assert_eq!(e.offset, Some(16));
        let e = split_records(b"{\n \"a\": \n}").unwrap_err();
        assert!(
            e.reason.starts_with("invalid json at line 3"),
            "{}",
            e.reason
        );
        assert!(split_records(b"\"just a string\"").is_err());
        assert!(split_records(b"hello").is_err());
        assert!(split_records(b"\xff\xfe").is_err());
        assert!(split_records(b"  \n").unwrap().is_empty());
    }

    #[test]
    fn fields_keep_file_order() {
        let recs = split_records(br#"{"z":1,"a":"x","m":[1]}"#).unwrap();
        let el = recs[0].as_ref().unwrap();
        let keys: Vec<_> = el.fields().into_iter().map(|(k, _)| k).collect();
        assert_eq!(keys, ["z", "a", "m"]);
    }
}
