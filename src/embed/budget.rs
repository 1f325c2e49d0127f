//! `--budget DURATION`: how long an `embed` run may take, written as whole
//! numbers with units, largest first or in any order: `90s`, `45m`, `2h`,
//! `1h30m`. A bare number is refused (seconds or minutes?), as are zero and
//! anything over a week.

use std::time::Duration;

use anyhow::{Result, bail};

/// The longest budget accepted: a typo (`2000h`) is more likely than a
/// run meant to last longer.
const MAX_SECONDS: u64 = 7 * 24 * 3600;

const EXAMPLES: &str = "such as 90s, 45m, 2h or 1h30m";

pub fn parse_budget(text: &str) -> Result<Duration> {
    let s = text.trim();
    if s.is_empty() {
        bail!("--budget: no duration given; give one {EXAMPLES}");
    }
    let shown = crate::sanitize::one_line(s);
    let mut total: u64 = 0;
    let mut rest = s;
    while !rest.is_empty() {
        let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits == 0 {
            bail!(
                "--budget {shown}: expected a number at '{}'; give a duration {EXAMPLES}",
                crate::sanitize::one_line(rest)
            );
        }
        let Ok(n) = rest[..digits].parse::<u64>() else {
            bail!("--budget {shown}: too long (at most a week)");
        };
        rest = &rest[digits..];
        let unit_len = rest.len()
            - rest
                .trim_start_matches(|c: char| c.is_ascii_alphabetic())
                .len();
        let unit = &rest[..unit_len];
        let scale = match unit {
            "s" | "sec" => 1,
            "m" | "min" => 60,
            "h" => 3600,
            "" => {
                bail!("--budget {shown}: {n} needs a unit (s, m or h); give a duration {EXAMPLES}")
            }
            other => bail!(
                "--budget {shown}: unknown unit '{}' (s, m or h); give a duration {EXAMPLES}",
                crate::sanitize::one_line(other)
            ),
        };
        rest = &rest[unit_len..];
        total = n
            .checked_mul(scale)
            .and_then(|v| total.checked_add(v))
            .filter(|&t| t <= MAX_SECONDS)
            .ok_or_else(|| anyhow::anyhow!("--budget {shown}: too long (at most a week)"))?;
    }
    if total == 0 {
        bail!("--budget {shown}: must be longer than zero");
    }
    Ok(Duration::from_secs(total))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_and_what_is_refused() {
        for (text, secs) in [
            ("90s", 90),
            ("45m", 2700),
            ("45min", 2700),
            ("2h", 7200),
            ("1h30m", 5400),
            (" 30m10s ", 1810),
            ("168h", 7 * 24 * 3600),
        ] {
            assert_eq!(
                parse_budget(text).unwrap(),
                Duration::from_secs(secs),
                "{text}"
            );
        }
        for (text, says) in [
            ("", "no duration"),
            ("10", "needs a unit"),
            ("3x", "unknown unit 'x'"),
            ("h", "expected a number"),
            ("1h 30m", "expected a number"),
            ("0s", "longer than zero"),
            ("169h", "too long"),
            ("99999999999999999999999s", "too long"),
            ("-5m", "expected a number"),
        ] {
            let e = parse_budget(text).unwrap_err().to_string();
            assert!(e.contains(says), "{text:?}: {e}");
        }
    }
}
