//! Drive an import: read inputs, turn them into records on a worker thread,
//! write them in batches on this one, and count what happened.
//!
//! Parsing (MIME, charsets, HTML) and writing (FTS5) cost about the same, so
//! they run on the two cores side by side. Each batch is one transaction:
//! `kill -9` loses at most the batch in flight, and a re-run finds the rest
//! unchanged and completes the remainder.

use std::collections::HashMap;
use std::fs::File;
use std::hash::{Hash, Hasher};
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use anyhow::{Context, Result};
use serde::Serialize;

use super::json_input::{JsonEvent, ParseRecord, ZipMembers, read_input};
use super::record::{Parsed, Rejection};
use crate::store::Store;
use crate::store::records::WriteOutcome;

/// Records per transaction of a JSON import (receipts, conversations): large
/// enough that commit cost vanishes, small enough that a crash loses little.
/// Mail has its own, `MAIL_BATCH_MESSAGES`.
pub const BATCH_RECORDS: usize = 1000;

/// Messages per transaction of a mail import. FTS5 flushes and merges its
/// index once per commit, so fewer, larger commits cost less: 2,000 against
/// 1,000 took `index-mbox` of 100k messages from 11.3 s to 10.7 s
/// (docs/PERFORMANCE.md, 2026-12-06). A `remember` waiting on the lock
/// waits for at most one batch, ~0.25 s of writing.
pub const MAIL_BATCH_MESSAGES: usize = 2000;

/// Mail batches in flight between the threads: with one queued, one being
/// gathered and one being written, as many messages are held as the
/// 1,000-message batches held with four queued.
pub(super) const MAIL_CHANNEL_BATCHES: usize = 1;

/// How long the lock is left free after each batch commit. With batches
/// queued the writer would otherwise take it straight back, and a `remember`
/// or a search logging its recall, waiting for it, would wait for the whole
/// import. Several times `store::BUSY_POLL`, so a waiter surely looks in
/// the gap; 1000 batches (a million JSON records, two million messages)
/// cost 5 s.
pub const LOCK_PAUSE: Duration = Duration::from_millis(5);

/// Parsed JSON records in flight between the threads, in batches; bounds
/// memory. Mail has its own, `MAIL_CHANNEL_BATCHES`.
pub(super) const CHANNEL_BATCHES: usize = 4;

/// Worker stack: deeply nested MIME and HTML recurse in the parsers.
pub(super) const WORKER_STACK_BYTES: usize = 256 << 20;

/// The summary every index command prints; with `--json` exactly this object.
#[derive(Debug, Default, Serialize, PartialEq, Eq)]
pub struct Summary {
    pub read: u64,
    pub indexed: u64,
    pub unchanged: u64,
    pub duplicates: u64,
    pub rejected: u64,
    pub chunks: u64,
    /// Messages indexed whose `Date:` was missing or implausible, dated by
    /// a `Received:` header, the envelope or the import time instead.
    pub dated_by_fallback: u64,
    /// Files and Maildir folders not read: unchanged since the last run.
    pub unchanged_files: u64,
    /// Files read from where the last run stopped: they only grew.
    pub resumed_files: u64,
    pub errors: Vec<ErrorItem>,
}

#[derive(Debug, Serialize, PartialEq, Eq, Clone)]
pub struct ErrorItem {
    pub file: String,
    pub offset: u64,
    pub reason: String,
}

/// Where an import reports progress and warnings; the command decides how
/// (a progress bar on a terminal, nothing under cron).
pub trait Observer {
    /// The input bytes to read, once known (when it was not at the start).
    fn input_bytes(&mut self, _total: u64) {}
    fn bytes_read(&mut self, _total: u64) {}
    fn warning(&mut self, file: &str, offset: u64, message: &str);
    fn rejected(&mut self, item: &ErrorItem);
}

/// One input: a path, or standard input for `-`.
#[derive(Debug, Clone)]
pub enum Input {
    Stdin,
    File(PathBuf),
}

impl Input {
    pub fn name(&self) -> String {
        match self {
            Input::Stdin => "<stdin>".into(),
            Input::File(p) => p.display().to_string(),
        }
    }

    pub fn open(&self) -> Result<Box<dyn Read + Send>> {
        Ok(match self {
            Input::Stdin => Box::new(io::stdin()),
            Input::File(p) => {
                Box::new(File::open(p).with_context(|| format!("could not open {}", p.display()))?)
            }
        })
    }
}

/// The bytes there are to read in `inputs`, for a progress bar: stdin and
/// files that cannot be read count nothing.
pub fn total_bytes(inputs: &[Input]) -> u64 {
    inputs
        .iter()
        .filter_map(|i| match i {
            Input::File(p) => std::fs::metadata(p).ok().map(|m| m.len()),
            Input::Stdin => None,
        })
        .sum()
}

/// A file that could not be read at all; the run goes on with the others and
/// exits 2 at the end.
#[derive(Debug)]
pub struct FileFailure {
    pub file: String,
    pub error: String,
}

pub struct Importer<'a> {
    pub(super) store: &'a mut Store,
    pub(super) now: i64,
    /// Sources met in this run: key -> `content_key` of the copy indexed, or
    /// STORED_BEFORE when that first copy was already stored before the run.
    /// Plain u64s, not an Option: this map is the one thing that grows with
    /// the input, and the niche-less Option would double its size.
    seen: HashMap<u64, u64>,
    /// E-mails met in this run, by (id, content) and (id, fingerprint):
    /// either seen before makes a copy a duplicate (`mailbox::import`).
    pub(super) seen_mail: std::collections::HashSet<u64>,
    /// Bytes of the inputs finished so far, for progress across files.
    done_bytes: u64,
    pub summary: Summary,
    pub failures: Vec<FileFailure>,
    pub(super) observer: &'a mut dyn Observer,
}

impl Drop for Importer<'_> {
    fn drop(&mut self) {
        self.store.set_bulk_writes(false).ok();
    }
}

impl<'a> Importer<'a> {
    pub fn new(store: &'a mut Store, now: i64, observer: &'a mut dyn Observer) -> Self {
        // Only a speed setting: an import that cannot change it still runs.
        store.set_bulk_writes(true).ok();
        Importer {
            store,
            now,
            seen: HashMap::new(),
            seen_mail: Default::default(),
            done_bytes: 0,
            summary: Summary::default(),
            failures: Vec::new(),
            observer,
        }
    }

    /// Stream one JSON source (receipts, conversations): split and parse on
    /// a worker thread, write here; in a zip, the `members` wanted.
    pub fn import_json(
        &mut self,
        input: &Input,
        members: &ZipMembers,
        parse: &ParseRecord<'_>,
    ) -> Result<()> {
        let (tx, rx) = mpsc::sync_channel::<JsonEvent>(CHANNEL_BATCHES);
        std::thread::scope(|scope| {
            let worker = std::thread::Builder::new()
                .name("json-parse".into())
                .stack_size(WORKER_STACK_BYTES)
                .spawn_scoped(scope, move || read_input(input, members, parse, &tx))
                .context("could not start the parser thread")?;
            let mut progress = 0;
            for event in rx {
                match event {
                    JsonEvent::Records {
                        source,
                        progress: at,
                        records,
                    } => {
                        self.write_batch(&source, records)?;
                        progress = at;
                        self.observer.bytes_read(self.done_bytes + at);
                    }
                    JsonEvent::Failed { source, error } => self.fail(&source, error),
                }
            }
            self.done_bytes += progress;
            if worker.join().is_err() {
                self.fail(&input.name(), "the parser thread crashed".into());
            }
            Ok(())
        })
    }

    pub(super) fn fail(&mut self, file: &str, error: String) {
        self.failures.push(FileFailure {
            file: file.to_string(),
            error,
        });
    }

    fn write_batch(&mut self, file: &str, batch: Vec<Parsed>) -> Result<()> {
        let tx = self.store.begin_batch(self.now)?;
        for parsed in batch {
            self.summary.read += 1;
            let rec = match parsed {
                Ok(rec) => rec,
                Err(rej) => {
                    record_rejection(&mut self.summary, self.observer, file, rej);
                    continue;
                }
            };
            let source = key(rec.source_type.as_str(), &rec.source_id);
            let content = content_key(&rec.content_hash);
            if let Some(&first) = self.seen.get(&source) {
                self.summary.duplicates += 1;
                // Same id, other text (bounces of one test mail, a list copy
                // with a footer): say so rather than drop it silently. A
                // re-run, whose first copy was stored before, stays quiet.
                if first != STORED_BEFORE && first != content {
                    self.observer.warning(
                        file,
                        0,
                        &format!(
                            "{}: seen earlier in this run with different content; the first copy is kept",
                            rec.source_id
                        ),
                    );
                }
                continue;
            }
            match tx.write(&rec)? {
                WriteOutcome::Unchanged => {
                    self.summary.unchanged += 1;
                    self.seen.insert(source, STORED_BEFORE);
                }
                WriteOutcome::Indexed { chunks } => {
                    self.summary.indexed += 1;
                    self.summary.chunks += chunks as u64;
                    self.seen.insert(source, content);
                    if let Some(w) = &rec.warning {
                        self.observer
                            .warning(file, 0, &format!("{}: {w}", rec.source_id));
                    }
                }
            }
        }
        tx.set_meta("last_index_at", &self.now.to_string())?;
        tx.commit()?;
        std::thread::sleep(LOCK_PAUSE);
        Ok(())
    }
}

/// Count and report a record that could not be read.
pub(super) fn record_rejection(
    summary: &mut Summary,
    observer: &mut dyn Observer,
    file: &str,
    rej: Rejection,
) {
    let item = ErrorItem {
        file: file.to_string(),
        offset: rej.offset,
        reason: rej.reason,
    };
    observer.rejected(&item);
    summary.rejected += 1;
    summary.errors.push(item);
}

/// 64-bit key of a source for "seen in this run": a million ids cost ~35 MB
/// as hashes instead of ~100 MB as strings; a collision needs ~4e9 sources.
fn key(source_type: &str, source_id: &str) -> u64 {
    let mut h = std::hash::DefaultHasher::new();
    source_type.hash(&mut h);
    source_id.hash(&mut h);
    h.finish()
}

/// `seen` value for a source whose first copy in this run was unchanged.
const STORED_BEFORE: u64 = 0;

/// A content hash as a `seen` value: 64 bits of it, never STORED_BEFORE.
fn content_key(content_hash: &str) -> u64 {
    key(content_hash, "") | 1
}

/// Expand the command's arguments: `-` is stdin, a directory means every file
/// under it that `accept` likes (sorted, so runs are repeatable).
pub fn expand_inputs(args: &[PathBuf], accept: &dyn Fn(&Path) -> bool) -> Result<Vec<Input>> {
    let mut out = Vec::new();
    for a in args {
        if a.as_os_str() == "-" {
            out.push(Input::Stdin);
        } else if a.is_dir() {
            let mut files = Vec::new();
            walk(a, &mut files)
                .with_context(|| format!("could not read folder {}", a.display()))?;
            files.sort();
            out.extend(files.into_iter().filter(|p| accept(p)).map(Input::File));
        } else {
            out.push(Input::File(a.clone()));
        }
    }
    Ok(out)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let ft = entry.file_type()?;
        if ft.is_dir() {
            walk(&entry.path(), out)?;
        } else if ft.is_file() {
            out.push(entry.path());
        }
    }
    Ok(())
}

/// A JSON source in a folder: `*.json` or `*.jsonl`.
pub fn looks_like_json(p: &Path) -> bool {
    p.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("json") || e.eq_ignore_ascii_case("jsonl"))
}
