//! What the index commands say: progress, warnings and rejected records on
//! stderr as the import runs, and the summary at the end: the counts, then
//! what was not read and why, what was dated by a fallback, whether anything
//! was new (`--json` prints the `Summary` object itself).

use super::progress::Progress;
use crate::ingest::conversations::append::Appended;
use crate::ingest::run::{ErrorItem, Observer, Summary};
use crate::sanitize::one_line;

/// What an append to a conversation did, in a sentence (`index-conversations
/// --append`, and the prose of the MCP tool `memory_add_messages`).
pub fn appended(a: &Appended) -> String {
    let mut s = format!(
        "added {} message{} to conversation {:?}{} ({} in all); {} chunk{} written.",
        a.messages_added,
        if a.messages_added == 1 { "" } else { "s" },
        one_line(&a.conversation_id),
        if a.created { ", which is new" } else { "" },
        a.messages_total,
        a.chunks_written,
        if a.chunks_written == 1 { "" } else { "s" },
    );
    if a.duplicates > 0 {
        s.push_str(&format!(" {} already stored, skipped.", a.duplicates));
    }
    if a.empty > 0 {
        s.push_str(&format!(" {} without text, skipped.", a.empty));
    }
    s.push('\n');
    s
}

/// The human summary of an import of `noun` ("messages", "receipts", …).
pub fn summary(s: &Summary, noun: &str) -> String {
    let mut out = format!(
        "{} {noun} read: {} indexed, {} unchanged, {} duplicates, {} rejected; {} chunks written\n",
        s.read, s.indexed, s.unchanged, s.duplicates, s.rejected, s.chunks
    );
    if s.unchanged_files > 0 {
        out.push_str(&format!(
            "{} unchanged since the last run, not read again\n",
            plural(s.unchanged_files, "file or folder", "files or folders")
        ));
    }
    if s.resumed_files > 0 {
        out.push_str(&format!(
            "{} read from where the last run stopped\n",
            plural(s.resumed_files, "file", "files")
        ));
    }
    if s.dated_by_fallback > 0 {
        let whose = if s.dated_by_fallback == 1 {
            "its"
        } else {
            "their"
        };
        out.push_str(&format!(
            "{} dated by a Received: header, the envelope or the import time: \
             {whose} Date: was missing or implausible\n",
            plural(s.dated_by_fallback, "message", "messages")
        ));
    }
    if (s.read > 0 || s.unchanged_files > 0) && s.indexed == 0 && s.rejected == 0 {
        out.push_str("nothing new: everything was already indexed\n");
    }
    out
}

fn plural(n: u64, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

/// Reports an import as it runs: a bar over the bytes read on a terminal,
/// and every warning and rejected record on stderr.
pub struct ImportReporter {
    progress: Progress,
}

impl ImportReporter {
    /// `total_bytes` of the input files (0 when unknown: stdin).
    pub fn new(terminal: bool, total_bytes: u64, noun: &str) -> Self {
        let template = format!(
            "{{bar:30}} {{bytes}}/{{total_bytes}} {{bytes_per_sec}} ETA {{eta}} {{msg}} {noun}"
        );
        ImportReporter {
            progress: Progress::new(terminal, total_bytes, &template),
        }
    }

    pub fn finish(&self) {
        self.progress.finish();
    }
}

impl Observer for ImportReporter {
    fn input_bytes(&mut self, total: u64) {
        self.progress.set_length(total);
    }

    fn bytes_read(&mut self, total: u64) {
        self.progress.set_position(total);
    }

    fn warning(&mut self, file: &str, _offset: u64, message: &str) {
        self.progress.say(&format!(
            "alfred-mem: warning: {file}: {}",
            one_line(message)
        ));
    }

    fn rejected(&mut self, item: &ErrorItem) {
        self.progress.say(&format!(
            "alfred-mem: {}:{}: {}",
            item.file,
            item.offset,
            one_line(&item.reason)
        ));
    }
}
