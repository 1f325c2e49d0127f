//! The test harness (after fd's `TestEnv`): a private temp folder, a database
//! path inside it, a fixed "now", and the real `alfred-mem` binary run against
//! them. Nothing here reads the user's real data dir or environment.

#![allow(dead_code)] // each test module uses a different subset

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use tempfile::TempDir;

/// The demo's "today" (see sample/README.md); every command sees this as now.
pub const NOW: &str = "2026-12-02T12:00:00Z";

pub struct TestEnv {
    dir: TempDir,
    db: PathBuf,
}

impl Default for TestEnv {
    fn default() -> Self {
        Self::new()
    }
}

impl TestEnv {
    /// A fresh temp folder; the database will be `<tmp>/data/memory.db` (the
    /// folder does not exist yet, so its creation and mode are tested too).
    pub fn new() -> TestEnv {
        let dir = tempfile::tempdir().expect("create a temp dir");
        let db = dir.path().join("data").join("memory.db");
        TestEnv { dir, db }
    }

    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    pub fn db(&self) -> &Path {
        &self.db
    }

    /// A path inside the temp folder.
    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Write `contents` to `name` inside the temp folder (creating parents).
    pub fn write(&self, name: &str, contents: impl AsRef<[u8]>) -> PathBuf {
        let p = self.path(name);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).expect("create fixture folder");
        }
        std::fs::write(&p, contents).expect("write fixture");
        p
    }

    /// The binary with a clean environment: no inherited ALFRED_MEM_* or XDG
    /// variables, HOME inside the temp folder, and `ALFRED_MEM_NOW` fixed.
    /// No `--db`: see `cmd`.
    pub fn bare_cmd(&self) -> Command {
        Command::from_std(self.bare_std_cmd())
    }

    /// `bare_cmd` as a plain `std::process::Command`, for tests that spawn
    /// the binary and act while it runs (kill -9, file modes mid-run).
    pub fn bare_std_cmd(&self) -> std::process::Command {
        let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_alfred-mem"));
        for (k, _) in std::env::vars_os() {
            let k = k.to_string_lossy();
            if k.starts_with("ALFRED_MEM_") || k.starts_with("XDG_") {
                c.env_remove(&*k);
            }
        }
        c.env("HOME", self.path("home"))
            .env("ALFRED_MEM_NOW", NOW)
            .env_remove("CLICOLOR_FORCE")
            .env_remove("SSL_CERT_FILE")
            .current_dir(self.root());
        c
    }

    /// `alfred-mem --db <tmp>/data/memory.db ARGS...`
    pub fn cmd<I, S>(&self, args: I) -> Command
    where
        I: IntoIterator<Item = S>,
        S: AsRef<std::ffi::OsStr>,
    {
        Command::from_std(self.std_cmd(args))
    }

    /// `alfred-mem --db DB ARGS` on a pseudo-terminal (util-linux `script`):
    /// stdout and stderr are the terminal, except that `stdout_to` sends
    /// stdout to that file. Returns the exit status and what the terminal
    /// showed; a missing `script` fails the test.
    pub fn on_a_terminal(&self, args: &[&str], stdout_to: Option<&Path>) -> (Option<i32>, String) {
        let inner = self.std_cmd(args);
        let quote =
            |a: &std::ffi::OsStr| format!("'{}'", a.to_str().unwrap().replace('\'', "'\\''"));
        let mut line: Vec<String> = std::iter::once(inner.get_program())
            .chain(inner.get_args())
            .map(quote)
            .collect();
        if let Some(file) = stdout_to {
            line.push(format!(">{}", quote(file.as_os_str())));
        }
        let mut script = std::process::Command::new("script");
        script.args(["-qec", &line.join(" "), "/dev/null"]);
        for (k, v) in inner.get_envs() {
            match v {
                Some(v) => script.env(k, v),
                None => script.env_remove(k),
            };
        }
        script.current_dir(self.root());
        // util-linux is on every Linux system; without `script` these tests
        // cannot run, and say so by failing.
        let out = script
            .output()
            .expect("this test needs util-linux `script` to give the binary a terminal");
        let text = String::from_utf8(out.stdout).expect("terminal output is UTF-8");
        (out.status.code(), text)
    }

    /// `cmd` as a plain `std::process::Command`.
    pub fn std_cmd<I, S>(&self, args: I) -> std::process::Command
    where
        I: IntoIterator<Item = S>,
        S: AsRef<std::ffi::OsStr>,
    {
        let mut c = self.bare_std_cmd();
        c.arg("--db").arg(&self.db).args(args);
        c
    }

    /// `cmd` started with stdin, stdout and stderr piped, for tests that feed
    /// the input while it runs (kill -9, concurrency, bombs). Returns the
    /// child and its stdin; dropping the stdin ends the input.
    pub fn spawn_fed<I, S>(&self, args: I) -> (std::process::Child, std::process::ChildStdin)
    where
        I: IntoIterator<Item = S>,
        S: AsRef<std::ffi::OsStr>,
    {
        spawn_piped(self.std_cmd(args))
    }

    /// Run with `--json` appended to ARGS, expect exit `code`, parse stdout.
    pub fn json<I, S>(&self, args: I, code: i32) -> serde_json::Value
    where
        I: IntoIterator<Item = S>,
        S: AsRef<std::ffi::OsStr>,
    {
        let out = self.cmd(args).arg("--json").assert().code(code);
        let stdout = &out.get_output().stdout;
        serde_json::from_slice(stdout).unwrap_or_else(|e| {
            panic!(
                "stdout is not one JSON document ({e}):\n{}",
                String::from_utf8_lossy(stdout)
            )
        })
    }

    /// The database on a connection of the test's own, which can read the
    /// full-text index (its tokenizer is registered as the store does it).
    pub fn sqlite(&self) -> rusqlite::Connection {
        let conn = rusqlite::Connection::open(&self.db).expect("open the test database");
        alfred_mem::store::register_fts(&conn).expect("register the full-text tokenizer");
        conn
    }

    /// The single integer `sql` returns, e.g. `count(*)`.
    pub fn count(&self, sql: &str) -> i64 {
        self.sqlite()
            .query_row(sql, [], |r| r.get(0))
            .unwrap_or_else(|e| panic!("{sql}: {e}"))
    }

    /// Current (not superseded) chunks whose full-text entry matches `fts_query`.
    pub fn fts_hits(&self, fts_query: &str) -> i64 {
        self.sqlite()
            .query_row(
                "SELECT count(*) FROM memory_fts JOIN memory_chunks c ON c.id = memory_fts.rowid
                 WHERE memory_fts MATCH ?1 AND c.superseded_at IS NULL",
                [fts_query],
                |r| r.get(0),
            )
            .unwrap_or_else(|e| panic!("fts {fts_query}: {e}"))
    }
}

/// The `text` of each hit in `search --json` output, best first.
pub fn hit_texts(stdout: &[u8]) -> Vec<String> {
    let hits: serde_json::Value = serde_json::from_slice(stdout).expect("search --json output");
    hits.as_array()
        .expect("an array of hits")
        .iter()
        .map(|h| h["text"].as_str().unwrap().to_string())
        .collect()
}

/// A file of the bundled sample set.
pub fn sample(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("sample")
        .join(name)
}

/// A file under tests/cli/fixtures.
pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/cli/fixtures")
        .join(name)
}

/// `../shared/data` beside the clone. Tests over real corpora carry
/// `#[cfg_attr(shared_data_absent, ignore = "...")]` (build.rs sets it), so
/// without the data they are reported ignored, never passed empty.
pub fn shared_data() -> PathBuf {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data");
    assert!(p.is_dir(), "{} is absent", p.display());
    p
}

/// The time an mbox envelope line gives a message sent at `date` (RFC 2822),
/// as a delivery agent writes it: the same instant in UTC, asctime style.
/// A fixed time when `date` does not parse.
pub fn envelope_time(date: &str) -> String {
    chrono::DateTime::parse_from_rfc2822(date)
        .map(|d| d.to_utc().format("%a %b %e %H:%M:%S %Y").to_string())
        .unwrap_or_else(|_| "Thu Jan 15 10:00:00 2026".into())
}

/// One RFC 5322 message in an mbox (envelope line, headers, body); LF line
/// ends; the envelope as `envelope_time` gives it.
pub fn mbox_message(id: &str, date: &str, subject: &str, body: &str) -> String {
    let envelope = envelope_time(date);
    format!(
        "From sender@mail.example {envelope}\n\
         Message-ID: <{id}>\n\
         Date: {date}\n\
         From: Sender <sender@mail.example>\n\
         Subject: {subject}\n\
         \n\
         {body}\n\n"
    )
}

/// Takes out every migration from 0008 on, newest first, so that a test
/// can set a `user_version` before 0008 and replay them all (UNDO_0008
/// covers 0010 too, UNDO_0011 covers 0012; 0009 only re-indexed).
pub fn undo_since_0008(conn: &rusqlite::Connection) {
    for undo in [
        UNDO_0017, UNDO_0016, UNDO_0015, UNDO_0014, UNDO_0013, UNDO_0011, UNDO_0008,
    ] {
        conn.execute_batch(undo).unwrap();
    }
}

/// What migration 0017 (the narrow blocks) changed, undone: the two-byte
/// tables are back, empty (copies, which the migrations after it fill).
pub const UNDO_0017: &str = "DROP TABLE memory_fts_narrow_lengths;
     DROP TABLE memory_chunk_narrow_sources;
     CREATE TABLE memory_fts_lengths (block INTEGER PRIMARY KEY, packed BLOB NOT NULL);
     CREATE TABLE memory_chunk_sources (block INTEGER PRIMARY KEY, packed BLOB NOT NULL);";

/// What migration 0016 (leaner indexes) changed, undone, for tests that
/// rewind a database to before it.
pub const UNDO_0016: &str = "DROP INDEX memory_chunks_source;
     CREATE INDEX memory_chunks_source ON memory_chunk_rows (source_type, source_id);
     CREATE INDEX email_replies_reply ON email_replies (reply);";

/// What migration 0015 (labels once per version) changed, undone: every
/// row gets its labels back, and the rows are `memory_chunks` again.
pub const UNDO_0015: &str = "UPDATE memory_chunk_rows AS c
        SET subject = f.subject, sender = f.sender, vendor = f.vendor, title = f.title,
            recipients = f.recipients
       FROM memory_chunk_rows AS f
      WHERE f.id = c.labels_from;
     DROP VIEW memory_chunks;
     ALTER TABLE memory_chunk_rows DROP COLUMN labels_from;
     ALTER TABLE memory_chunk_rows RENAME TO memory_chunks;";

/// What migration 0014 (the packed sources) added, taken out again, for
/// tests that rewind a database to before it.
pub const UNDO_0014: &str = "DROP TABLE memory_chunk_sources;";

/// What migration 0013 (the vector index) added, taken out again, for
/// tests that rewind a database to before it.
pub const UNDO_0013: &str = "DROP TABLE vector_postings;
     DROP TABLE vector_lists;
     DROP TABLE vector_indexes;";

/// What migrations 0011 (the night shift) and 0012 (the creation index)
/// added, taken out again, so that a test can rewind a database to before
/// them (the rebuilt `memory_facts` keeps its wider CHECK, which the rerun
/// rebuilds anyway).
pub const UNDO_0011: &str = "DROP INDEX memory_chunks_created;
     DROP TABLE fact_conflicts;
     DROP INDEX memory_facts_one_routine;
     ALTER TABLE memory_facts DROP COLUMN routine_key;";

/// SQL that takes migrations 0008 (living memory) and 0010 (associations)
/// back out of a database, for tests that set an older `user_version` to
/// replay the migrations after it.
pub const UNDO_0008: &str = "DROP TABLE memory_link_history;
     DROP TABLE memory_links;
     DROP TABLE email_replies;
     DROP TABLE memory_recalls;
     ALTER TABLE recall_events DROP COLUMN relevance;
     ALTER TABLE memory_facts DROP COLUMN confidence;
     ALTER TABLE memory_facts DROP COLUMN confidence_at;
     ALTER TABLE memory_facts DROP COLUMN peak_confidence;
     ALTER TABLE memory_facts DROP COLUMN pinned;
     ALTER TABLE memory_facts DROP COLUMN reprieved_at;
     ALTER TABLE memory_facts DROP COLUMN retracted_reason;
     ALTER TABLE memory_facts DROP COLUMN merged_into;
     ALTER TABLE memory_chunks DROP COLUMN recipients;";

/// `cmd` (built by [`TestEnv::std_cmd`], perhaps with limits added) started
/// as [`TestEnv::spawn_fed`] starts its command.
pub fn spawn_piped(
    mut cmd: std::process::Command,
) -> (std::process::Child, std::process::ChildStdin) {
    use std::process::Stdio;
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start alfred-mem");
    let stdin = child.stdin.take().expect("piped stdin");
    (child, stdin)
}
