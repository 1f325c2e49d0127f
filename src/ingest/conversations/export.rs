//! What `index-conversations` reads of a data export as downloaded. ChatGPT
//! and Claude.ai both ship a .zip whose `conversations.json` holds the chats
//! (large ChatGPT exports split it into `conversations-000.json`, `-001`, …)
//! beside files that are not chats: `user.json`, `users.json`,
//! `projects.json`, `message_feedback.json`, `chat.html`, uploads, images.
//! Only the conversation files are read; the rest is ignored, never an error.
//! A zip is known by its first bytes and an export folder by its first
//! conversation, whatever they are called; which export a record comes from is
//! known by its fields.

use std::cell::RefCell;
use std::collections::HashMap;
use std::fs::File;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

use zip::ZipArchive;

use super::{CHATGPT_KEY, CLAUDE_KEY};
use crate::ingest::json_input::{JsonRecords, ZipMembers, starts_like_zip};
use crate::ingest::run::looks_like_json;

/// The members of a zip archive that `index-conversations` reads.
pub const ZIP_MEMBERS: ZipMembers = ZipMembers {
    wanted: "conversations.json",
    accept: is_conversations_file,
};

const WHOLE: &str = "conversations.json";
const FIRST_PART: &str = "conversations-000.json";

/// `conversations.json`, or a part of a split one: `conversations-NNN.json`.
pub fn is_conversations_file(name: &str) -> bool {
    name == WHOLE
        || name
            .strip_prefix("conversations-")
            .and_then(|rest| rest.strip_suffix(".json"))
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Which files under a folder `index-conversations` reads.
///
/// Inside an export folder, at any depth, only that folder's conversation
/// files; elsewhere any `.json`/`.jsonl` file, and any zip archive that holds
/// a conversation file (other zips in a Downloads folder are not ours). An
/// export folder holds `conversations.json` (or `conversations-000.json`)
/// whose first record is a ChatGPT or Claude conversation: a folder of the
/// user's own files that happens to hold a `conversations.json` in our format
/// is read whole. Folders are looked at once each.
#[derive(Default)]
pub struct FolderRules {
    exports: RefCell<HashMap<PathBuf, bool>>,
}

impl FolderRules {
    pub fn accept(&self, path: &Path) -> bool {
        let in_export = path.ancestors().skip(1).find(|dir| self.is_export(dir));
        if let Some(export) = in_export {
            return path.parent() == Some(export)
                && path
                    .file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(is_conversations_file);
        }
        looks_like_json(path) || zip_holds_conversations(path)
    }

    fn is_export(&self, dir: &Path) -> bool {
        if let Some(&known) = self.exports.borrow().get(dir) {
            return known;
        }
        let export = [WHOLE, FIRST_PART]
            .iter()
            .any(|name| starts_with_export_record(&dir.join(name)));
        self.exports.borrow_mut().insert(dir.to_path_buf(), export);
        export
    }
}

/// Whether the file's first record has the fields of a ChatGPT or Claude
/// conversation; only that record is read.
fn starts_with_export_record(path: &Path) -> bool {
    let Ok(file) = File::open(path) else {
        return false;
    };
    let mut records = JsonRecords::new(BufReader::new(file));
    let Ok(Some(Ok(first))) = records.next_record() else {
        return false;
    };
    first.element().is_ok_and(|el| {
        el.fields()
            .iter()
            .any(|(key, _)| key == CHATGPT_KEY || key == CLAUDE_KEY)
    })
}

fn zip_holds_conversations(path: &Path) -> bool {
    let Ok(mut file) = File::open(path) else {
        return false;
    };
    let mut head = [0u8; 4];
    if file.read_exact(&mut head).is_err() || !starts_like_zip(&head) {
        return false;
    }
    ZipArchive::new(BufReader::new(file)).is_ok_and(|archive| {
        archive
            .file_names()
            .filter_map(Result::ok)
            .any(|name| is_conversations_file(name.rsplit('/').next().unwrap_or_default()))
    })
}
