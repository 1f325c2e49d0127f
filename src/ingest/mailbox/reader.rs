//! The reader thread: opens each planned job for what its bytes are
//! (`decompress`), splits and parses its messages, and sends them to the
//! writer in batches, each followed by the record of how far its file was
//! read.

use std::fs::File;
use std::io::{self, BufReader, Seek, SeekFrom};
use std::sync::Arc;
use std::sync::mpsc::SyncSender;

use super::decompress::{self, Opened};
use super::import::{FileJob, Item, Job, MaildirJob, ReadBatch};
use super::maildir;
use super::resume::{self, FileState};
use super::sniff::Kind;
use crate::ingest::mbox::split::read_single;
use crate::ingest::mbox::{Mail, MboxSplitter, READER_VERSION, RawMessage, parse_mail};
use crate::ingest::record::Rejection;
use crate::ingest::run::MAIL_BATCH_MESSAGES;

/// The writer has stopped (it failed); stop reading.
struct Hangup;

struct Reader {
    tx: SyncSender<ReadBatch>,
    items: Vec<Item>,
    messages: usize,
    now: i64,
    /// Input bytes read in the jobs finished so far.
    bytes_done: u64,
}

/// Read every job, in order; returns when done or when the writer stops.
pub fn read(jobs: Vec<Job>, now: i64, tx: SyncSender<ReadBatch>) {
    let mut r = Reader {
        tx,
        items: Vec::with_capacity(MAIL_BATCH_MESSAGES + 8),
        messages: 0,
        now,
        bytes_done: 0,
    };
    let finished = jobs.into_iter().try_for_each(|job| match job {
        Job::Stdin => r.opened(
            &"<stdin>".into(),
            decompress::open(Box::new(io::stdin())),
            true,
            0,
            &mut |_, _, _| None,
        ),
        Job::File(f) => r.file(f),
        Job::Maildir(m) => r.maildir(m),
    });
    if finished.is_ok() {
        let _ = r.send(0);
    }
}

impl Reader {
    fn push_mail(&mut self, file: &Arc<str>, parsed: Result<Mail, Rejection>) {
        self.items.push(Item::Mail {
            file: file.clone(),
            parsed: Box::new(parsed),
        });
        self.messages += 1;
    }

    fn full(&self) -> bool {
        self.messages >= MAIL_BATCH_MESSAGES
    }

    /// Send what is gathered; `in_job` bytes of the current job are read.
    fn send(&mut self, in_job: u64) -> Result<(), Hangup> {
        if self.items.is_empty() {
            return Ok(());
        }
        let items = std::mem::replace(&mut self.items, Vec::with_capacity(MAIL_BATCH_MESSAGES + 8));
        self.messages = 0;
        self.tx
            .send(ReadBatch {
                items,
                bytes_read: self.bytes_done + in_job,
            })
            .map_err(|_| Hangup)
    }

    fn failed(&mut self, file: &Arc<str>, error: String) {
        self.items.push(Item::Failed {
            file: file.clone(),
            error,
        });
    }

    fn file(&mut self, job: FileJob) -> Result<(), Hangup> {
        let opened = File::open(&job.path).and_then(|mut f| {
            let hash_handle = f.try_clone()?;
            f.seek(SeekFrom::Start(job.start))?;
            Ok((f, hash_handle))
        });
        let (file, hash_handle) = match opened {
            Ok(fh) => fh,
            Err(e) => {
                if job.named {
                    self.failed(&job.name, format!("could not open {}: {e}", job.name));
                }
                return Ok(());
            }
        };
        // A resumed file is an mbox entered at a message boundary; anything
        // else is looked at first.
        let opened = if job.start > 0 {
            Ok(Opened {
                kind: Kind::Mbox,
                compression: None,
                reader: Box::new(BufReader::with_capacity(1 << 20, file)),
            })
        } else {
            decompress::open(Box::new(file))
        };
        let Some(track) = job.track else {
            return self.opened(&job.name, opened, job.named, 0, &mut |_, _, _| None);
        };
        let result = self.opened(
            &job.name,
            opened,
            job.named,
            job.start,
            &mut |at, messages, whole| {
                let consumed = if whole { track.stat.size } else { at };
                let (head_hash, tail_hash) = resume::hashes(&hash_handle, consumed).ok()?;
                Some(Item::FileRead(FileState {
                    path: track.key.clone(),
                    stat: track.stat,
                    consumed,
                    head_hash,
                    tail_hash,
                    whole,
                    reader: READER_VERSION,
                    messages: track.messages_before + messages,
                }))
            },
        );
        self.bytes_done += track.stat.size.saturating_sub(job.start);
        result
    }

    /// Read the messages of an opened stream starting at byte `start` of its
    /// file. `checkpoint(resume_at, messages, whole)` says what to record
    /// after each batch (mid-file, only for a plain mbox) and at the end.
    fn opened(
        &mut self,
        name: &Arc<str>,
        opened: io::Result<Opened>,
        named: bool,
        start: u64,
        checkpoint: &mut dyn FnMut(u64, u64, bool) -> Option<Item>,
    ) -> Result<(), Hangup> {
        let opened = match opened {
            Ok(o) => o,
            Err(e) => {
                self.failed(name, format!("read error: {e}"));
                return Ok(());
            }
        };
        let whole = opened.compression.is_some();
        match opened.kind {
            Kind::NotMail(why) => {
                if named {
                    self.failed(name, format!("not mail: {why}; nothing of it was indexed"));
                }
                Ok(())
            }
            Kind::Empty => {
                self.items.extend(checkpoint(start, 0, true));
                Ok(())
            }
            Kind::Message => match read_single(opened.reader, None) {
                Ok(raw) => {
                    self.push_mail(name, parse_mail(&raw, self.now));
                    self.items.extend(checkpoint(0, 1, true));
                    Ok(())
                }
                Err(e) => {
                    self.failed(name, format!("read error: {e}"));
                    Ok(())
                }
            },
            Kind::Mbox => {
                let mut splitter = MboxSplitter::starting_at(opened.reader, start);
                let mut messages = 0;
                while let Some(raw) = splitter.next() {
                    let raw = match raw {
                        Ok(raw) => raw,
                        Err(e) => {
                            self.failed(name, format!("read error: {e}"));
                            return Ok(());
                        }
                    };
                    self.push_mail(name, parse_mail(&raw, self.now));
                    messages += 1;
                    if self.full() {
                        if !whole {
                            self.items
                                .extend(checkpoint(splitter.resume_point(), messages, false));
                        }
                        let done = if whole {
                            0
                        } else {
                            splitter.position() - start
                        };
                        self.send(done)?;
                    }
                }
                self.items
                    .extend(checkpoint(splitter.resume_point(), messages, whole));
                Ok(())
            }
        }
    }

    fn maildir(&mut self, job: MaildirJob) -> Result<(), Hangup> {
        let listed = match maildir::new_messages(&job.path, &job.key, &job.seen) {
            Ok(l) => l,
            Err(e) => {
                self.failed(&job.name, format!("could not read Maildir: {e}"));
                return Ok(());
            }
        };
        for m in listed {
            let name: Arc<str> = m.path.display().to_string().into();
            let parsed = match read_message_file(&m.path, m.delivered_at) {
                Ok(Some(messages)) => messages,
                // Moved or deleted since the listing (a mail client at
                // work): the next run finds it under its new name.
                Ok(None) => continue,
                Err(e) => {
                    self.failed(&name, format!("read error: {e}"));
                    continue;
                }
            };
            for raw in parsed {
                let mail = raw.and_then(|raw| parse_mail(&raw, self.now));
                self.push_mail(&name, mail);
            }
            self.items.push(Item::MaildirMessage(m.name_hash));
            if self.full() {
                self.send(0)?;
            }
        }
        self.items.push(Item::MaildirDone {
            key: job.key,
            stamp: job.stamp.safe_to_record(job.stamped_at_ns),
        });
        Ok(())
    }
}

/// The messages of one Maildir file (one, or several if an MDA wrote an
/// mbox there); `None` if the file is gone.
fn read_message_file(
    path: &std::path::Path,
    delivered_at: Option<i64>,
) -> io::Result<Option<Vec<Result<RawMessage, Rejection>>>> {
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let opened = decompress::open(Box::new(file))?;
    Ok(Some(match opened.kind {
        Kind::Message => vec![Ok(read_single(opened.reader, delivered_at)?)],
        Kind::Mbox => MboxSplitter::new(opened.reader)
            .map(|r| {
                r.map(|mut raw| {
                    raw.delivered_at = delivered_at;
                    Ok(raw)
                })
            })
            .collect::<io::Result<_>>()?,
        Kind::Empty => Vec::new(),
        Kind::NotMail(why) => vec![Err(Rejection {
            offset: 0,
            reason: format!("not mail: {why}"),
        })],
    }))
}
