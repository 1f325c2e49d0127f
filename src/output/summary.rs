//! The lines an index command prints under its counts: what was not read
//! and why, what was dated by a fallback, whether anything was new.

use crate::ingest::run::Summary;

pub fn notes(s: &Summary) -> String {
    let mut out = String::new();
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
        out.push_str(&format!(
            "{} dated by a Received: header, the envelope or the import time: \
             their Date: was missing or implausible\n",
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
