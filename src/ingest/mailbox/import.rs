//! `index-mbox`'s run: plan what to read (`plan`), read and parse it on a
//! worker thread (`reader`), and write here in batches. What was read of
//! each file and Maildir folder is recorded in the transaction that stores
//! its messages, so a crash or a full disk never leaves a file marked read
//! beyond what was stored, and a re-run resumes where the last commit
//! stopped.

use std::collections::HashSet;
use std::hash::{Hash, Hasher};
use std::path::PathBuf;
use std::sync::{Arc, mpsc};

use anyhow::{Context, Result};

use super::find::Source;
use super::maildir::Stamp;
use super::resume::{FileState, Stat};
use crate::ingest::mbox::{Mail, READER_VERSION};
use crate::ingest::record::Rejection;
use crate::ingest::run::{
    Importer, LOCK_PAUSE, MAIL_CHANNEL_BATCHES, Summary, WORKER_STACK_BYTES, record_rejection,
};
use crate::store::records::{Batch, EmailIdentity, WriteOutcome};

/// What the reader sends the writer, in the order it happened.
pub enum Item {
    /// A message read from `file`, or why it could not be.
    Mail {
        file: Arc<str>,
        parsed: Box<Result<Mail, Rejection>>,
    },
    /// A file read up to `consumed`, all its messages before that sent.
    FileRead(FileState),
    /// A Maildir message file read (the hash of its unique name).
    MaildirMessage(i64),
    /// A Maildir folder listed and every new message in it sent.
    MaildirDone { key: String, stamp: Stamp },
    /// A file that could not be read; the run goes on and exits 2.
    Failed { file: Arc<str>, error: String },
}

/// One transaction's worth of items.
pub struct ReadBatch {
    pub items: Vec<Item>,
    /// Input bytes read so far in the run, for the progress bar.
    pub bytes_read: u64,
}

/// One unit of reading, as planned.
pub enum Job {
    Stdin,
    File(FileJob),
    Maildir(MaildirJob),
}

pub struct FileJob {
    pub path: PathBuf,
    pub name: Arc<str>,
    /// Not mail is an error (rather than passed over quietly).
    pub named: bool,
    /// Where to start: 0, or where the last run stopped (a message boundary).
    pub start: u64,
    /// What to record about the file as it is read; `None` for what is not
    /// a regular file (a pipe, `<(zcat ...)`).
    pub track: Option<Track>,
}

pub struct Track {
    pub key: String,
    pub stat: Stat,
    /// Messages read from it by earlier runs (when resuming).
    pub messages_before: u64,
}

pub struct MaildirJob {
    pub path: PathBuf,
    pub name: Arc<str>,
    pub key: String,
    /// `cur/` and `new/` as they were just before the listing.
    pub stamp: Stamp,
    /// When that was, in nanoseconds since the epoch.
    pub stamped_at_ns: i64,
    /// Name hashes of the Maildir messages already read.
    pub seen: Arc<HashSet<i64>>,
}

impl Importer<'_> {
    /// Index mail from `sources`: everything not read before, nothing twice.
    pub fn import_mail(&mut self, sources: &[Source]) -> Result<()> {
        let jobs = self.plan(sources)?;
        self.observer.input_bytes(super::plan::bytes_to_read(&jobs));
        let now = self.now;
        let (tx, rx) = mpsc::sync_channel::<ReadBatch>(MAIL_CHANNEL_BATCHES);
        let worker = std::thread::Builder::new()
            .name("mail-read".into())
            .stack_size(WORKER_STACK_BYTES)
            .spawn(move || super::reader::read(jobs, now, tx))
            .context("could not start the reader thread")?;
        let mut wrote_any = false;
        for batch in rx {
            self.write_mail_batch(batch.items)?;
            self.observer.bytes_read(batch.bytes_read);
            wrote_any = true;
        }
        if worker.join().is_err() {
            self.fail("index-mbox", "the reader thread crashed".into());
        }
        if !wrote_any {
            // Nothing to read: still a run, as `status` should say.
            self.write_mail_batch(Vec::new())?;
        }
        Ok(())
    }

    fn write_mail_batch(&mut self, items: Vec<Item>) -> Result<()> {
        let tx = self.store.begin_batch(self.now)?;
        for item in items {
            match item {
                Item::Mail { file, parsed } => {
                    self.summary.read += 1;
                    match *parsed {
                        Ok(mail) => write_mail(
                            &tx,
                            &mail,
                            &mut self.seen_mail,
                            &mut self.summary,
                            &mut |m| self.observer.warning(&file, 0, m),
                        )?,
                        Err(rej) => record_rejection(&mut self.summary, self.observer, &file, rej),
                    }
                }
                Item::FileRead(state) => tx.save_file_state(&state)?,
                Item::MaildirMessage(hash) => tx.mark_maildir_message_read(hash, READER_VERSION)?,
                Item::MaildirDone { key, stamp } => {
                    tx.save_maildir_folder(&key, stamp, READER_VERSION)?
                }
                Item::Failed { file, error } => {
                    self.failures.push(crate::ingest::run::FileFailure {
                        file: file.to_string(),
                        error,
                    })
                }
            }
        }
        tx.set_meta("last_index_at", &self.now.to_string())?;
        tx.commit()?;
        std::thread::sleep(LOCK_PAUSE);
        Ok(())
    }
}

/// Store one message unless this run met it already, and count it.
fn write_mail(
    tx: &Batch<'_>,
    mail: &Mail,
    seen: &mut HashSet<u64>,
    summary: &mut Summary,
    warn: &mut dyn FnMut(&str),
) -> Result<()> {
    let rec = &mail.record;
    let keys = seen_keys(mail);
    if keys.iter().any(|k| seen.contains(k)) {
        summary.duplicates += 1;
        return Ok(());
    }
    seen.extend(keys);
    let ident = EmailIdentity {
        fingerprint: mail.fingerprint,
        dated_by: mail.dated_by.stored_name(),
        legacy_id: mail.legacy_id.as_deref(),
        replies_to: mail.replies_to.as_deref(),
    };
    match tx.write_email(rec, &ident)? {
        WriteOutcome::Unchanged => summary.unchanged += 1,
        WriteOutcome::Indexed { chunks } => {
            summary.indexed += 1;
            summary.chunks += chunks as u64;
            if ident.dated_by.is_some() {
                summary.dated_by_fallback += 1;
            }
            if let Some(w) = &rec.warning {
                warn(&format!("{}: {w}", rec.source_id));
            }
        }
    }
    Ok(())
}

/// A message is met again when a copy with its Message-ID has its content
/// (the same text, whatever the raw bytes) or its fingerprint (the same raw
/// message, dated differently by where it was found).
fn seen_keys(mail: &Mail) -> [u64; 2] {
    let key = |tag: u8, what: &dyn Fn(&mut std::hash::DefaultHasher)| {
        let mut h = std::hash::DefaultHasher::new();
        mail.record.source_id.hash(&mut h);
        tag.hash(&mut h);
        what(&mut h);
        h.finish()
    };
    [
        key(0, &|h| mail.record.content_hash.hash(h)),
        key(1, &|h| mail.fingerprint.hash(h)),
    ]
}
