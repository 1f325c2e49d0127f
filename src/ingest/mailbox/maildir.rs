//! Maildir folders as mbsync, offlineimap, getmail, Dovecot, notmuch and mu
//! keep them: a folder with `cur/` and `new/` (and `tmp/`, never read), one
//! message per file. A file's name never changes except for its flags
//! (`1690000000.M1P2.host:2,S` after it was seen), and a mail client moves
//! it from `new/` to `cur/` when it first shows it; so a message is known by
//! the part of its name before `:2,` and is read once, whatever happens to
//! its flags. Maildir++ sub-folders (`.Sent/`, `.Archive/`) are Maildirs
//! themselves.

use std::collections::HashSet;
use std::ffi::OsStr;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::dates::mail::EARLIEST_PLAUSIBLE;

/// The sub-folders that hold messages, in the order they are read.
pub const MESSAGE_DIRS: [&str; 2] = ["cur", "new"];

/// A folder with `cur/` and `new/` in it.
pub fn is_maildir(dir: &Path) -> bool {
    MESSAGE_DIRS.iter().all(|d| dir.join(d).is_dir())
}

/// The name without its info suffix (`:2,FLAGS`; `!2,` and `;2,` where a
/// file system does not allow colons, as mbsync and Dovecot write it there).
pub fn unique_part(name: &[u8]) -> &[u8] {
    for sep in [b':', b'!', b';'] {
        if let Some(at) = name
            .windows(3)
            .position(|w| w[0] == sep && matches!(w[1], b'1' | b'2') && w[2] == b',')
        {
            return &name[..at];
        }
    }
    name
}

/// 64 bits of a message's name in its folder, as stored in
/// `maildir_messages`: the folder's canonical path and the unique part of the
/// file name. The folder counts because unique parts are unique only by
/// convention: two folders holding different messages under one name (a
/// converted archive, a tool that numbers its files) must both be read. A
/// message a client moves to another folder is read again there, and found
/// unchanged by its content.
pub fn name_hash(folder: &str, unique: &[u8]) -> i64 {
    let mut h = Sha256::new();
    h.update(folder.as_bytes());
    h.update(b"\0");
    h.update(unique);
    let d = h.finalize();
    i64::from_be_bytes(d[..8].try_into().expect("eight bytes"))
}

/// The delivery time a Maildir name starts with (`1690000000.M1P2.host`),
/// when it is a plausible one.
pub fn delivered_at(name: &[u8]) -> Option<i64> {
    let digits = name.iter().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 || name.get(digits) != Some(&b'.') {
        return None;
    }
    let t: i64 = std::str::from_utf8(&name[..digits]).ok()?.parse().ok()?;
    (t >= EARLIEST_PLAUSIBLE).then_some(t)
}

/// The modification times of `cur/` and `new/`: adding, removing or
/// renaming a message changes one of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stamp {
    pub cur_mtime_ns: i64,
    pub new_mtime_ns: i64,
}

impl Stamp {
    pub fn of(dir: &Path) -> io::Result<Stamp> {
        let ns = |d: &str| -> io::Result<i64> {
            let m = std::fs::metadata(dir.join(d))?;
            Ok(m.mtime() * 1_000_000_000 + m.mtime_nsec())
        };
        Ok(Stamp {
            cur_mtime_ns: ns("cur")?,
            new_mtime_ns: ns("new")?,
        })
    }

    /// What may be recorded after listing the folder when the listing
    /// started at `listed_at_ns`: a time within `RACY_NS` of it may hide a
    /// message delivered in the same clock tick right after the listing, so
    /// it is recorded as 0, "list again next time".
    pub fn safe_to_record(self, listed_at_ns: i64) -> Stamp {
        let safe = |t: i64| if listed_at_ns - t < RACY_NS { 0 } else { t };
        Stamp {
            cur_mtime_ns: safe(self.cur_mtime_ns),
            new_mtime_ns: safe(self.new_mtime_ns),
        }
    }

    /// Unchanged since `recorded`, which was safe to trust.
    pub fn matches(self, recorded: Stamp) -> bool {
        recorded.cur_mtime_ns != 0 && recorded.new_mtime_ns != 0 && self == recorded
    }
}

/// File systems with coarse timestamps (ext4's are per kernel tick, FAT's
/// two seconds) can give two changes one mtime.
const RACY_NS: i64 = 2_000_000_000;

/// One message file not read before.
#[derive(Debug, PartialEq, Eq)]
pub struct NewMessage {
    pub path: PathBuf,
    pub name_hash: i64,
    pub delivered_at: Option<i64>,
}

/// The message files of the Maildir `dir` (known in the store as `key`, its
/// canonical path) whose name is not in `seen`, ordered by name (delivery
/// order, for the usual names); a message in both `new/` and `cur/` (moved
/// while listed) once.
pub fn new_messages(dir: &Path, key: &str, seen: &HashSet<i64>) -> io::Result<Vec<NewMessage>> {
    let mut out = Vec::new();
    let mut here = HashSet::new();
    for sub in MESSAGE_DIRS {
        let mut names = Vec::new();
        for entry in std::fs::read_dir(dir.join(sub))? {
            let entry = entry?;
            let name = entry.file_name();
            if name.as_bytes().starts_with(b".") || !entry.file_type()?.is_file() {
                continue;
            }
            names.push(name);
        }
        names.sort();
        for name in names {
            let unique = unique_part(name.as_bytes());
            let hash = name_hash(key, unique);
            if seen.contains(&hash) || !here.insert(hash) {
                continue;
            }
            out.push(NewMessage {
                delivered_at: delivered_at(unique),
                path: dir.join(sub).join(OsStr::from_bytes(name.as_bytes())),
                name_hash: hash,
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_and_their_separators_are_not_part_of_the_name() {
        let base = b"1690000000.M1P2.host".as_slice();
        for name in [
            b"1690000000.M1P2.host".as_slice(),
            b"1690000000.M1P2.host:2,S",
            b"1690000000.M1P2.host:2,RS",
            b"1690000000.M1P2.host!2,S",
            b"1690000000.M1P2.host;2,",
        ] {
            assert_eq!(
                unique_part(name),
                base,
                "{:?}",
                String::from_utf8_lossy(name)
            );
        }
        assert_eq!(
            unique_part(b"1690000000.M1P2.host,U=5,FMD5=abc:2,S"),
            b"1690000000.M1P2.host,U=5,FMD5=abc"
        );
    }

    #[test]
    fn the_delivery_time_comes_from_the_name() {
        assert_eq!(delivered_at(b"1690000000.M1P2.host"), Some(1_690_000_000));
        assert_eq!(delivered_at(b"12.M1P2.host"), None, "before 1980");
        assert_eq!(delivered_at(b"msg-7"), None);
    }

    #[test]
    fn only_unseen_names_are_listed_once_each_in_name_order() {
        let dir = tempfile::tempdir().unwrap();
        for sub in ["cur", "new", "tmp"] {
            std::fs::create_dir(dir.path().join(sub)).unwrap();
        }
        let write = |p: &str| std::fs::write(dir.path().join(p), "Subject: x\n\nb\n").unwrap();
        write("new/1700000002.B.h");
        write("cur/1700000001.A.h:2,S");
        write("cur/1700000003.C.h:2,RS");
        write("new/1700000003.C.h"); // moved while listed: once
        write("cur/.hidden");
        write("tmp/1700000009.T.h"); // being delivered: never read
        let seen: HashSet<i64> = [name_hash("md", b"1700000001.A.h")].into();
        let got: Vec<String> = new_messages(dir.path(), "md", &seen)
            .unwrap()
            .iter()
            .map(|m| {
                m.path
                    .strip_prefix(dir.path())
                    .unwrap()
                    .display()
                    .to_string()
            })
            .collect();
        assert_eq!(got, ["cur/1700000003.C.h:2,RS", "new/1700000002.B.h"]);
    }

    #[test]
    fn a_recent_stamp_is_not_trusted() {
        let s = Stamp {
            cur_mtime_ns: 10_000_000_000,
            new_mtime_ns: 1_000_000_000,
        };
        let recorded = s.safe_to_record(11_000_000_000);
        assert_eq!(recorded.cur_mtime_ns, 0);
        assert_eq!(recorded.new_mtime_ns, 1_000_000_000);
        assert!(!s.matches(recorded));
        assert!(s.matches(s.safe_to_record(100_000_000_000)));
    }
}
