//! What `index-conversations` reads of a data export as downloaded. ChatGPT
//! and Claude.ai both ship a .zip whose `conversations.json` holds the chats
//! (large ChatGPT exports split it into `conversations-000.json`, `-001`, …)
//! beside files that are not chats: `user.json`, `users.json`,
//! `projects.json`, `message_feedback.json`, `chat.html`, uploads, images.
//! Only the conversation files are read; the rest is ignored, never an error.
//! A zip is known by its first bytes, whatever it is called; which export a
//! record comes from is known by its fields.

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;

use zip::ZipArchive;

use crate::ingest::json_input::{ZipMembers, starts_like_zip};
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

/// Whether `index-conversations FOLDER` reads this file found under it.
///
/// Inside an export folder (one holding `conversations.json` or
/// `conversations-000.json`), at any depth, only that folder's conversation
/// files; elsewhere any `.json`/`.jsonl` file, and any zip archive that holds
/// a conversation file (other zips in a Downloads folder are not ours).
pub fn accept(path: &Path) -> bool {
    let in_export = path.ancestors().skip(1).find(|dir| is_export_folder(dir));
    if let Some(export) = in_export {
        return path.parent() == Some(export)
            && path
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(is_conversations_file);
    }
    looks_like_json(path) || zip_holds_conversations(path)
}

fn is_export_folder(dir: &Path) -> bool {
    dir.join(WHOLE).is_file() || dir.join(FIRST_PART).is_file()
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
