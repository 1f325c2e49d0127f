//! From what a person or an agent typed to a [`SearchRequest`]: the query,
//! the WHEN bounds, the source names, the limit and the half-life, checked
//! once. The `search` command and the MCP `memory_search` tool both come
//! through here, so they accept the same forms and fail with the same words.

use anyhow::{Result, anyhow, bail};
use chrono::{DateTime, Utc};

use super::{MAX_LIMIT, SearchRequest};
use crate::config::LocalZone;
use crate::dates::when::parse_when;
use crate::kinds::SourceType;
use crate::rank::half_life::HalfLives;
use crate::sanitize::one_line;

/// Results returned when no limit is given. `cli.rs` repeats the number
/// (it imports nothing from the crate); a test keeps the two equal.
pub const DEFAULT_LIMIT: usize = 10;

/// How parameter names are spelled in error messages: `--as-of` on the
/// command line, `as_of` in a JSON tool call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spelling {
    Flag,
    Field,
}

impl Spelling {
    /// `field` is given in snake_case, as JSON spells it.
    fn name(self, field: &str) -> String {
        match self {
            Spelling::Flag => format!("--{}", field.replace('_', "-")),
            Spelling::Field => field.to_string(),
        }
    }
}

/// Search parameters as typed, before anything is checked.
#[derive(Debug, Clone, Default)]
pub struct SearchInput<'a> {
    pub query: &'a str,
    pub after: Option<&'a str>,
    pub before: Option<&'a str>,
    pub as_of: Option<&'a str>,
    /// Source type names, any case; blanks are ignored.
    pub sources: &'a [String],
    pub limit: usize,
    /// `30` or `receipt=365,conversation=45`; None means the defaults.
    pub half_life: Option<&'a str>,
}

/// Checked parameters: bounds as unix seconds, sources as types.
#[derive(Debug, Clone)]
pub struct Resolved<'a> {
    pub query: &'a str,
    pub after: Option<i64>,
    pub before: Option<i64>,
    pub as_of: Option<i64>,
    pub sources: Vec<SourceType>,
    pub limit: usize,
    pub half_lives: HalfLives,
    /// Where the query's named dates are read, as the WHEN bounds were.
    pub time_zone: LocalZone,
}

impl Resolved<'_> {
    /// The request to run at `now` (unix seconds), logging recall if `log`.
    pub fn request(&self, now: i64, log: bool) -> SearchRequest<'_> {
        SearchRequest {
            query: self.query,
            after: self.after,
            before: self.before,
            as_of: self.as_of,
            sources: &self.sources,
            limit: self.limit,
            half_lives: self.half_lives,
            now,
            log,
            mode: super::RecallMode::Auto,
            time_zone: self.time_zone,
            all_chunks: false,
            expand: super::expand::DEFAULT_KINDS,
        }
    }
}

/// Checks `input`, reading WHEN phrases relative to `now` in `time_zone`.
/// Errors name the parameter as `spelling` writes it and say what would be
/// accepted.
pub fn resolve<'a>(
    input: &SearchInput<'a>,
    now: DateTime<Utc>,
    time_zone: LocalZone,
    spelling: Spelling,
) -> Result<Resolved<'a>> {
    let name = |field: &str| spelling.name(field);
    if input.query.trim().is_empty() {
        match spelling {
            Spelling::Flag => {
                bail!("empty query: say what to look for, e.g. `alfred-mem search acme contract`")
            }
            Spelling::Field => {
                bail!("empty query: say what to look for, e.g. {{\"query\": \"acme contract\"}}")
            }
        }
    }
    if input.limit == 0 || input.limit > MAX_LIMIT {
        bail!(
            "{} must be between 1 and {MAX_LIMIT}, the most one search returns \
             (narrow it with {} and {} instead)",
            name("limit"),
            name("after"),
            name("before")
        );
    }
    let half_lives = match input.half_life {
        None => HalfLives::default(),
        Some(s) => HalfLives::parse(s).map_err(|e| anyhow!("{}: {e}", name("half_life")))?,
    };
    let when = |field: &str, v: Option<&str>| -> Result<Option<i64>> {
        v.map(|s| {
            parse_when(s, now, &time_zone)
                .map(|t| t.timestamp())
                .map_err(|e| anyhow!("{}: {e}", name(field)))
        })
        .transpose()
    };
    let after = when("after", input.after)?;
    let before = when("before", input.before)?;
    let as_of = when("as_of", input.as_of)?;
    if let (Some(a), Some(b)) = (after, before)
        && a >= b
    {
        bail!(
            "{} must be earlier than {} (the window is [after, before))",
            name("after"),
            name("before")
        );
    }
    Ok(Resolved {
        query: input.query,
        after,
        before,
        as_of,
        sources: parse_sources(input.sources, &name("source"))?,
        limit: input.limit,
        half_lives,
        time_zone,
    })
}

fn parse_sources(names: &[String], param: &str) -> Result<Vec<SourceType>> {
    names
        .iter()
        .map(|n| n.trim())
        .filter(|n| !n.is_empty())
        .map(|n| {
            SourceType::parse(&n.to_ascii_lowercase()).ok_or_else(|| {
                anyhow!(
                    "{param}: unknown type {:?}; use email, receipt, conversation or fact",
                    one_line(n)
                )
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn now() -> DateTime<Utc> {
        DateTime::parse_from_rfc3339("2026-03-01T12:00:00Z")
            .unwrap()
            .with_timezone(&Utc)
    }

    fn input(query: &str) -> SearchInput<'_> {
        SearchInput {
            query,
            limit: 10,
            ..SearchInput::default()
        }
    }

    #[test]
    fn the_default_limit_is_the_command_lines() {
        use clap::Parser;
        let cli = crate::cli::Cli::try_parse_from(["alfred-mem", "search", "x"]).unwrap();
        let crate::cli::Command::Search(args) = cli.command else {
            panic!("not a search")
        };
        assert_eq!(args.limit, DEFAULT_LIMIT);
    }

    #[test]
    fn errors_name_the_parameter_as_each_interface_spells_it() {
        let bad = SearchInput {
            as_of: Some("not a date"),
            ..input("x")
        };
        let flag = resolve(&bad, now(), chrono::Local, Spelling::Flag).unwrap_err();
        let field = resolve(&bad, now(), chrono::Local, Spelling::Field).unwrap_err();
        assert!(
            flag.to_string().starts_with("--as-of: invalid date"),
            "{flag}"
        );
        assert!(
            field.to_string().starts_with("as_of: invalid date"),
            "{field}"
        );
    }

    #[test]
    fn a_window_must_be_nonempty() {
        let w = SearchInput {
            after: Some("2026-02"),
            before: Some("2026-01"),
            ..input("x")
        };
        let e = resolve(&w, now(), chrono::Local, Spelling::Field).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("after must be earlier than before")
        );
    }

    #[test]
    fn sources_are_read_in_any_case_and_blanks_are_ignored() {
        let names = ["Email".to_string(), " ".to_string(), "fact".to_string()];
        let r = resolve(
            &SearchInput {
                sources: &names,
                ..input("x")
            },
            now(),
            chrono::Local,
            Spelling::Field,
        )
        .unwrap();
        assert_eq!(r.sources, [SourceType::Email, SourceType::Fact]);
        let bad = ["mail".to_string()];
        let e = resolve(
            &SearchInput {
                sources: &bad,
                ..input("x")
            },
            now(),
            chrono::Local,
            Spelling::Field,
        )
        .unwrap_err();
        assert!(e.to_string().starts_with("source: unknown type \"mail\""));
    }

    #[test]
    fn empty_queries_and_limits_out_of_range_are_refused() {
        assert!(resolve(&input("  "), now(), chrono::Local, Spelling::Field).is_err());
        for limit in [0, MAX_LIMIT + 1] {
            let e = resolve(
                &SearchInput {
                    limit,
                    ..input("x")
                },
                now(),
                chrono::Local,
                Spelling::Field,
            )
            .unwrap_err();
            assert!(e.to_string().starts_with("limit must be between"));
        }
    }
}
