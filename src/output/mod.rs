//! Writing results: JSON for machines, tables and lines for people. Stdout
//! writes go through here so that a closed pipe (`| head`) ends the program
//! quietly instead of panicking.

pub mod facts;
pub mod hits;
pub mod snippet;

use std::io::Write;

use anyhow::Result;
use chrono::{DateTime, Utc};
use serde::Serialize;

/// Print `value` as one pretty JSON document and a newline.
pub fn print_json<T: Serialize + ?Sized>(value: &T) -> Result<()> {
    let mut s = serde_json::to_string_pretty(value)?;
    s.push('\n');
    print(&s)
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
    fn times_and_sizes() {
        assert_eq!(rfc3339(1_768_442_400), "2026-01-15T02:00:00Z");
        assert_eq!(day(1_768_442_400), "2026-01-15");
        assert_eq!(human_bytes(512), "512 B");
        assert_eq!(human_bytes(1536), "1.5 KiB");
    }
}
