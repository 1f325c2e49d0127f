//! Deciding, before anything is read, what a run must read: each file
//! against what the last run recorded about it (`resume`), each Maildir
//! folder against its recorded stamp. This is what makes a nightly re-run
//! over an unchanged archive cost a `stat` per file.

use std::collections::HashSet;
use std::fs::File;
use std::path::Path;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::Result;

use super::find::Source;
use super::import::{FileJob, Job, MaildirJob, Track};
use super::maildir::Stamp;
use super::resume::{self, Plan, Stat};
use crate::ingest::mbox::READER_VERSION;
use crate::ingest::run::Importer;

impl Importer<'_> {
    /// The jobs for `sources`; unchanged ones are counted, not planned.
    pub(super) fn plan(&mut self, sources: &[Source]) -> Result<Vec<Job>> {
        let mut jobs = Vec::new();
        let mut seen: Option<Arc<HashSet<i64>>> = None;
        for source in sources {
            match source {
                Source::Stdin => jobs.push(Job::Stdin),
                Source::File { path, named } => {
                    if let Some(job) = self.plan_file(path, *named)? {
                        jobs.push(Job::File(job));
                    }
                }
                Source::Maildir { path } => {
                    let name = path.display().to_string();
                    match self.plan_maildir(path, &mut seen) {
                        Ok(Some(job)) => jobs.push(Job::Maildir(job)),
                        Ok(None) => {}
                        Err(e) => self.fail(&name, format!("could not read Maildir: {e:#}")),
                    }
                }
            }
        }
        Ok(jobs)
    }

    fn plan_file(&mut self, path: &Path, named: bool) -> Result<Option<FileJob>> {
        let name: Arc<str> = path.display().to_string().into();
        let job = |start, track| FileJob {
            path: path.to_path_buf(),
            name: name.clone(),
            named,
            start,
            track,
        };
        let opened = File::open(path).and_then(|f| {
            let m = f.metadata()?;
            Ok((f, m))
        });
        let (file, meta) = match opened {
            Ok(fm) => fm,
            Err(e) if named => {
                self.fail(&name, format!("could not open {name}: {e}"));
                return Ok(None);
            }
            // A file in a folder that cannot be opened was never known to be mail.
            Err(_) => return Ok(None),
        };
        if !meta.is_file() {
            return Ok(Some(job(0, None)));
        }
        let key = canonical(path);
        let stat = Stat::of(&meta);
        let stored = self.store.file_state(&key)?;
        let plan = resume::plan(stored.as_ref(), stat, &file).unwrap_or(Plan::Full);
        let track = |messages_before| {
            Some(Track {
                key: key.clone(),
                stat,
                messages_before,
            })
        };
        Ok(match plan {
            Plan::Unchanged => {
                self.summary.unchanged_files += 1;
                None
            }
            Plan::Resume(at) => {
                self.summary.resumed_files += 1;
                let before = stored.map_or(0, |s| s.messages);
                Some(job(at, track(before)))
            }
            Plan::Full => Some(job(0, track(0))),
        })
    }

    fn plan_maildir(
        &mut self,
        path: &Path,
        seen: &mut Option<Arc<HashSet<i64>>>,
    ) -> Result<Option<MaildirJob>> {
        let key = canonical(path);
        let stamped_at_ns = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as i64);
        let stamp = Stamp::of(path)?;
        if let Some((recorded, reader)) = self.store.maildir_folder(&key)?
            && reader == READER_VERSION
            && stamp.matches(recorded)
        {
            self.summary.unchanged_files += 1;
            return Ok(None);
        }
        let seen = match seen {
            Some(s) => s.clone(),
            None => seen
                .insert(Arc::new(self.store.maildir_messages_read(READER_VERSION)?))
                .clone(),
        };
        Ok(Some(MaildirJob {
            path: path.to_path_buf(),
            name: path.display().to_string().into(),
            key,
            stamp,
            stamped_at_ns,
            seen,
        }))
    }
}

/// The key a file's state is kept under: its absolute path with symlinks
/// resolved, so `./inbox.mbox` and `~/mail/inbox.mbox` are one file.
fn canonical(path: &Path) -> String {
    std::fs::canonicalize(path)
        .unwrap_or_else(|_| path.to_path_buf())
        .display()
        .to_string()
}

/// Bytes the jobs will read, for the progress bar; 0 (not known) when a
/// Maildir or standard input is among them.
pub(super) fn bytes_to_read(jobs: &[Job]) -> u64 {
    let mut total = 0;
    for job in jobs {
        match job {
            Job::File(FileJob {
                track: Some(t),
                start,
                ..
            }) => total += t.stat.size.saturating_sub(*start),
            _ => return 0,
        }
    }
    total
}
