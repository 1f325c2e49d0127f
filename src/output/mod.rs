//! Writing results: JSON for machines, tables and lines for people, one
//! submodule per command family (`search`, `dream`, `facts`, `status`,
//! `semantic`, `import`) and the `--json` shape of a hit (`hits`), so `cmd/`
//! and `mcp/` only choose which to print. Stdout
//! writes go through here so that a closed pipe (`| head`) ends the program
//! quietly instead of panicking.

pub mod conflicts;
pub mod dream;
pub mod facts;
pub mod hits;
pub mod import;
pub mod progress;
pub mod related;
pub mod search;
pub mod semantic;
pub mod show;
pub mod snippet;
pub mod status;

use std::io::Write;

use anyhow::Result;
use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::sanitize::is_forbidden;

/// Print `value` as one pretty JSON document and a newline.
pub fn print_json<T: Serialize + ?Sized>(value: &T) -> Result<()> {
    let mut s = to_json(value)?;
    s.push('\n');
    print(&s)
}

/// Pretty JSON in which every character [`is_forbidden`] on a terminal (C1
/// controls, DEL, bidi controls, which serde_json writes raw) is escaped as
/// `\uXXXX`: the text stays exact for a JSON reader, and `search --json` in a
/// terminal cannot be turned into a control sequence.
pub fn to_json<T: Serialize + ?Sized>(value: &T) -> Result<String> {
    let mut buf = Vec::new();
    let fmt = TerminalSafe(serde_json::ser::PrettyFormatter::new());
    value.serialize(&mut serde_json::Serializer::with_formatter(&mut buf, fmt))?;
    Ok(String::from_utf8(buf)?)
}

struct TerminalSafe<'a>(serde_json::ser::PrettyFormatter<'a>);

impl serde_json::ser::Formatter for TerminalSafe<'_> {
    fn write_string_fragment<W: ?Sized + Write>(
        &mut self,
        w: &mut W,
        fragment: &str,
    ) -> std::io::Result<()> {
        let mut at = 0;
        for (i, c) in fragment.char_indices() {
            if is_forbidden(c) {
                w.write_all(&fragment.as_bytes()[at..i])?;
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    write!(w, "\\u{u:04x}")?;
                }
                at = i + c.len_utf8();
            }
        }
        w.write_all(&fragment.as_bytes()[at..])
    }

    fn begin_array<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.begin_array(w)
    }
    fn end_array<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.end_array(w)
    }
    fn begin_array_value<W: ?Sized + Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.0.begin_array_value(w, first)
    }
    fn end_array_value<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.end_array_value(w)
    }
    fn begin_object<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.begin_object(w)
    }
    fn end_object<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.end_object(w)
    }
    fn begin_object_key<W: ?Sized + Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.0.begin_object_key(w, first)
    }
    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.begin_object_value(w)
    }
    fn end_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.end_object_value(w)
    }
}

/// Write `s` to stdout as is.
pub fn print(s: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(s.as_bytes())?;
    out.flush()?;
    Ok(())
}

/// RFC 3339 UTC with seconds, as every JSON time field is written.
pub fn rfc3339(unix: i64) -> String {
    DateTime::<Utc>::from_timestamp(unix, 0)
        .map(|t| t.format("%Y-%m-%dT%H:%M:%SZ").to_string())
        .unwrap_or_else(|| unix.to_string())
}

/// A short human date: `2026-01-15`.
pub fn day(unix: i64) -> String {
    DateTime::<Utc>::from_timestamp(unix, 0)
        .map(|t| t.format("%Y-%m-%d").to_string())
        .unwrap_or_else(|| unix.to_string())
}

/// Bytes as a human size: `1.4 MiB`.
pub fn human_bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = n as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{n} B")
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_escapes_what_a_terminal_would_obey_and_keeps_the_text() {
        let text = "a\u{9b}2J b\u{202e}c\u{7f} d\u{1b}[0m é😀";
        let json = to_json(&serde_json::json!({ "text": text })).unwrap();
        assert!(!json.chars().any(is_forbidden), "raw control in {json:?}");
        assert!(json.contains("\\u009b") && json.contains("\\u202e") && json.contains("é😀"));
        let back: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(back["text"], text);
        assert_eq!(
            to_json(&serde_json::json!([1, {"a": null}])).unwrap(),
            serde_json::to_string_pretty(&serde_json::json!([1, {"a": null}])).unwrap()
        );
    }

    #[test]
    fn times_and_sizes() {
        assert_eq!(rfc3339(1_768_442_400), "2026-01-15T02:00:00Z");
        assert_eq!(day(1_768_442_400), "2026-01-15");
        assert_eq!(human_bytes(512), "512 B");
        assert_eq!(human_bytes(1536), "1.5 KiB");
    }
}
