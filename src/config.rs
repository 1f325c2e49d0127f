//! Resolve flags and environment into one `Config`: where the database lives, what
//! "now" is, the time zone dates are read in, which full-text engine ranks, and
//! whether and how wide a terminal we talk to. Nothing else reads the
//! environment; the one exception is the API-key variable a user names for an
//! HTTP embedding endpoint, read when that endpoint is called (`embed::http`) so
//! the key is never stored.

use std::io::IsTerminal;
use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use chrono::{DateTime, Utc};

use crate::embed::bert::Kernel;
use crate::store::FtsEngine;
use crate::store::vector_index::VectorSearch;

pub const DB_ENV: &str = "ALFRED_MEM_DB";
pub const NOW_ENV: &str = "ALFRED_MEM_NOW";
pub const COLUMNS_ENV: &str = "COLUMNS";
pub const FTS_ENV: &str = "ALFRED_MEM_FTS";
pub const VECTORS_ENV: &str = "ALFRED_MEM_VECTORS";
pub const EMBED_KERNEL_ENV: &str = "ALFRED_MEM_EMBED_KERNEL";

/// The time zone dates without an offset are read in (`--after 2026-01-15`,
/// "last week" in a query). It is the system zone, `TZ` or else
/// /etc/localtime, with its DST rules: an offset fixed at start-up would put
/// every date on the other side of a DST change an hour off. Only `Config`
/// names it; the rest of the crate is handed `Config::time_zone`.
pub type LocalZone = chrono::Local;

#[derive(Debug, Clone)]
pub struct Config {
    pub db_path: PathBuf,
    /// The instant every command treats as now (decay, fact dates, recall log).
    pub now: DateTime<Utc>,
    /// True when ALFRED_MEM_NOW set `now`; see [`Config::now_per_call`].
    pub now_is_pinned: bool,
    /// `fast` (the default) or `plain`: FTS5's own bm25(), slower, the
    /// fast engine's oracle and fallback (see `store::fts`).
    pub fts: FtsEngine,
    /// `auto` (the default: the vector index when there is one and the
    /// window is not narrow), `exact` (every vector scanned: the index's
    /// oracle and fallback) or `index` (the index always; see
    /// `store::vector_index`).
    pub vectors: VectorSearch,
    /// Which products the in-process model runs on (`auto`, the default:
    /// AMX tiles, else i16 on AVX2, else f32; or `f32` or `int16`).
    pub embed_kernel: Kernel,
    pub stdout_is_terminal: bool,
    pub stderr_is_terminal: bool,
    pub stdin_is_terminal: bool,
    pub time_zone: LocalZone,
    /// `COLUMNS`, when a positive number: the table width on a terminal that
    /// reports no size of its own (a bare pseudo-terminal, some CI consoles).
    pub terminal_width: Option<u16>,
}

impl Config {
    pub fn resolve(db_flag: Option<PathBuf>) -> Result<Config> {
        Ok(Config {
            db_path: resolve_db_path(db_flag)?,
            now: resolve_now()?,
            now_is_pinned: std::env::var(NOW_ENV).is_ok_and(|v| !v.trim().is_empty()),
            fts: resolve_fts()?,
            vectors: resolve_vectors()?,
            embed_kernel: resolve_embed_kernel()?,
            stdout_is_terminal: std::io::stdout().is_terminal(),
            stderr_is_terminal: std::io::stderr().is_terminal(),
            stdin_is_terminal: std::io::stdin().is_terminal(),
            time_zone: chrono::Local,
            terminal_width: std::env::var(COLUMNS_ENV)
                .ok()
                .and_then(|c| parse_columns(&c)),
        })
    }

    pub fn now_unix(&self) -> i64 {
        self.now.timestamp()
    }

    /// "Now" for one request of a long-running process (`mcp`): the pinned
    /// ALFRED_MEM_NOW if there is one, else the clock at this call, so that
    /// a server started last week neither decays nor logs as of last week.
    pub fn now_per_call(&self) -> DateTime<Utc> {
        if self.now_is_pinned {
            self.now
        } else {
            Utc::now()
        }
    }
}

/// `--db`, then `$ALFRED_MEM_DB`, then the per-user data dir. Cron has no XDG
/// variables, which is why the README's crontab line passes `--db`.
fn resolve_db_path(flag: Option<PathBuf>) -> Result<PathBuf> {
    if let Some(p) = flag {
        return Ok(p);
    }
    if let Some(p) = std::env::var_os(DB_ENV).filter(|v| !v.is_empty()) {
        return Ok(PathBuf::from(p));
    }
    let dirs = directories::ProjectDirs::from("", "", "alfred-mem").context(
        "could not find a home directory for the database; pass --db or set ALFRED_MEM_DB",
    )?;
    // ProjectDirs appends the app name itself, giving <data dir>/alfred-mem.
    Ok(dirs.data_dir().join("memory.db"))
}

fn resolve_now() -> Result<DateTime<Utc>> {
    match std::env::var(NOW_ENV) {
        Ok(v) if !v.trim().is_empty() => parse_now(v.trim()),
        _ => Ok(Utc::now()),
    }
}

fn resolve_fts() -> Result<FtsEngine> {
    match std::env::var(FTS_ENV) {
        Ok(v) if !v.trim().is_empty() => parse_fts(v.trim()),
        _ => Ok(FtsEngine::default()),
    }
}

fn resolve_embed_kernel() -> Result<Kernel> {
    match std::env::var(EMBED_KERNEL_ENV) {
        Ok(v) if !v.trim().is_empty() => v
            .trim()
            .parse()
            .with_context(|| format!("invalid {EMBED_KERNEL_ENV}")),
        _ => Ok(Kernel::default()),
    }
}

fn parse_fts(v: &str) -> Result<FtsEngine> {
    v.parse().with_context(|| format!("invalid {FTS_ENV}"))
}

fn resolve_vectors() -> Result<VectorSearch> {
    match std::env::var(VECTORS_ENV) {
        Ok(v) if !v.trim().is_empty() => parse_vectors(v.trim()),
        _ => Ok(VectorSearch::default()),
    }
}

fn parse_vectors(v: &str) -> Result<VectorSearch> {
    v.parse().with_context(|| format!("invalid {VECTORS_ENV}"))
}

fn parse_now(v: &str) -> Result<DateTime<Utc>> {
    match DateTime::parse_from_rfc3339(v) {
        Ok(t) => Ok(t.with_timezone(&Utc)),
        Err(e) => bail!("{NOW_ENV} is not an RFC 3339 time ({v:?}): {e}"),
    }
}

fn parse_columns(v: &str) -> Option<u16> {
    v.trim().parse::<u16>().ok().filter(|&c| c > 0)
}

/// The PEM file of extra CA certificates that `https://` embedding endpoints
/// may chain to (a private CA), by the name OpenSSL and curl read. Not a
/// field of `Config`: like the API-key variable a user names, it is read
/// only by the command that opens an endpoint, when it sets up TLS
/// (embed/http.rs), so commands that never talk to one never look at it.
pub const SSL_CERT_FILE_ENV: &str = "SSL_CERT_FILE";

pub fn ssl_cert_file() -> Option<PathBuf> {
    std::env::var_os(SSL_CERT_FILE_ENV)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn now_accepts_rfc3339_with_offset() {
        let t = parse_now("2026-01-15T10:00:00+08:00").unwrap();
        assert_eq!(t.to_rfc3339(), "2026-01-15T02:00:00+00:00");
    }

    #[test]
    fn a_long_running_server_reads_the_clock_per_call_unless_now_is_pinned() {
        let mut c = Config::resolve(Some(PathBuf::from("x"))).unwrap();
        c.now = DateTime::UNIX_EPOCH;
        c.now_is_pinned = true;
        assert_eq!(c.now_per_call(), DateTime::UNIX_EPOCH);
        c.now_is_pinned = false;
        assert!(c.now_per_call() > DateTime::UNIX_EPOCH);
    }

    #[test]
    fn columns_is_a_positive_width_or_nothing() {
        assert_eq!(parse_columns(" 120 "), Some(120));
        for v in ["0", "", "wide", "-5", "70000"] {
            assert_eq!(parse_columns(v), None, "{v:?}");
        }
    }

    #[test]
    fn the_fts_engine_is_fast_or_plain_and_nothing_else() {
        assert_eq!(parse_fts("fast").unwrap(), FtsEngine::Fast);
        assert_eq!(parse_fts("plain").unwrap(), FtsEngine::Plain);
        let e = format!("{:#}", parse_fts("Plain").unwrap_err());
        assert_eq!(
            e,
            "invalid ALFRED_MEM_FTS: expected `fast` or `plain`, not \"Plain\""
        );
    }

    #[test]
    fn vector_search_is_auto_exact_or_index_and_nothing_else() {
        assert_eq!(parse_vectors("auto").unwrap(), VectorSearch::Auto);
        assert_eq!(parse_vectors("exact").unwrap(), VectorSearch::Exact);
        assert_eq!(parse_vectors("index").unwrap(), VectorSearch::Index);
        let e = format!("{:#}", parse_vectors("hnsw").unwrap_err());
        assert_eq!(
            e,
            "invalid ALFRED_MEM_VECTORS: expected `auto`, `exact` or `index`, not \"hnsw\""
        );
    }

    #[test]
    fn now_rejects_other_forms() {
        assert!(parse_now("yesterday").is_err());
    }
}
