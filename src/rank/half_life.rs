//! Per-source half-lives of the forgetting curve: `--half-life 30` sets
//! every source, `--half-life receipt=365,conversation=45` sets some and
//! leaves the rest at the default. Facts never decay and take no half-life.

use std::fmt;

use super::decay::DEFAULT_HALF_LIFE_DAYS;
use crate::kinds::SourceType;

/// The sources that decay, as `--source` and the JSON spell them.
pub const DECAYING_SOURCES: [&str; 3] = ["email", "receipt", "conversation"];

/// Base half-life in days per decaying source; 0 turns decay off.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HalfLives {
    pub email: f64,
    pub receipt: f64,
    pub conversation: f64,
}

impl Default for HalfLives {
    fn default() -> Self {
        HalfLives::all(DEFAULT_HALF_LIFE_DAYS)
    }
}

impl HalfLives {
    pub fn all(days: f64) -> HalfLives {
        HalfLives {
            email: days,
            receipt: days,
            conversation: days,
        }
    }

    /// The base half-life of a chunk of `source_type`; infinite for facts,
    /// which never decay.
    pub fn of(&self, source_type: SourceType) -> f64 {
        match source_type {
            SourceType::Email => self.email,
            SourceType::Receipt => self.receipt,
            SourceType::Conversation => self.conversation,
            SourceType::Fact => f64::INFINITY,
        }
    }

    /// True when every source has the same half-life.
    pub fn uniform(&self) -> Option<f64> {
        (self.email == self.receipt && self.receipt == self.conversation).then_some(self.email)
    }

    /// Reads `30` or `receipt=365,conversation=45`. Errors say which part
    /// is wrong and what would be accepted.
    pub fn parse(s: &str) -> Result<HalfLives, String> {
        let s = s.trim();
        if !s.contains('=') {
            return days(s, s).map(HalfLives::all);
        }
        let mut out = HalfLives::default();
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let Some((name, value)) = part.split_once('=') else {
                return Err(format!(
                    "{part:?} is not source=days (e.g. receipt=365); a plain number sets every source"
                ));
            };
            let d = days(value.trim(), part)?;
            match name.trim().to_ascii_lowercase().as_str() {
                "email" => out.email = d,
                "receipt" => out.receipt = d,
                "conversation" => out.conversation = d,
                "fact" => return Err(format!("{part:?}: facts never decay")),
                other => {
                    return Err(format!(
                        "{part:?}: unknown source {other:?}; use {}",
                        DECAYING_SOURCES.join(", ")
                    ));
                }
            }
        }
        Ok(out)
    }
}

fn days(value: &str, part: &str) -> Result<f64, String> {
    match value.parse::<f64>() {
        Ok(d) if d.is_finite() && d >= 0.0 => Ok(d),
        _ => Err(format!(
            "{part:?} is not a number of days, 0 or more (0 turns decay off)"
        )),
    }
}

impl fmt::Display for HalfLives {
    /// `30 days` when uniform, else `email 30, receipt 365, conversation 45 days`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.uniform() {
            Some(d) => write!(f, "{d} days"),
            None => write!(
                f,
                "email {}, receipt {}, conversation {} days",
                self.email, self.receipt, self.conversation
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_table() {
        let d = DEFAULT_HALF_LIFE_DAYS;
        let cases: &[(&str, [f64; 3])] = &[
            ("30", [30.0, 30.0, 30.0]),
            (" 7.5 ", [7.5, 7.5, 7.5]),
            ("0", [0.0, 0.0, 0.0]),
            ("receipt=365", [d, 365.0, d]),
            ("receipt=365,conversation=45", [d, 365.0, 45.0]),
            ("Email=10, receipt=0,", [10.0, 0.0, d]),
        ];
        for (s, [e, r, c]) in cases {
            let h = HalfLives::parse(s).unwrap();
            assert_eq!((h.email, h.receipt, h.conversation), (*e, *r, *c), "{s}");
        }
    }

    #[test]
    fn bad_parts_are_named() {
        let cases: &[(&str, &str)] = &[
            ("-1", "\"-1\" is not a number of days"),
            ("abc", "\"abc\" is not a number of days"),
            ("receipt=x", "\"receipt=x\" is not a number of days"),
            ("mail=3", "\"mail=3\": unknown source \"mail\""),
            ("fact=3", "\"fact=3\": facts never decay"),
            ("receipt=3,45", "\"45\" is not source=days"),
            ("inf", "\"inf\" is not a number of days"),
        ];
        for (s, want) in cases {
            let e = HalfLives::parse(s).unwrap_err();
            assert!(e.starts_with(want), "{s}: {e}");
        }
    }

    #[test]
    fn facts_never_decay() {
        assert!(HalfLives::default().of(SourceType::Fact).is_infinite());
        assert_eq!(HalfLives::all(3.0).of(SourceType::Receipt), 3.0);
    }
}
