//! From the command line to mail sources. `-` is standard input; a file is a
//! file whatever it holds (an mbox, an .eml, compressed or not: its bytes
//! say which); a folder is a Maildir when it has `cur/` and `new/`, and is
//! otherwise searched, sub-folders included, for mbox files, single messages
//! (.eml files, MH folders' numbered files) and Maildirs. Hidden files and
//! folders are passed over, except Maildir++ sub-folders (`.Sent`), so a
//! notmuch or Dovecot index inside a mail folder is not read as mail.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use super::maildir;

/// One place mail is read from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    Stdin,
    /// An mbox or a single message, compressed or not. `named`: given on the
    /// command line or named like mail (`*.mbox`, `*.eml`, ...), so that if
    /// it is not mail that is an error; any other file found in a folder is
    /// read only if its bytes are mail, and passed over quietly if not.
    File {
        path: PathBuf,
        named: bool,
    },
    /// A Maildir folder: the files in its `cur/` and `new/`.
    Maildir {
        path: PathBuf,
    },
}

/// Extensions of files that are mail by name (compressed or not).
const MAIL_EXTENSIONS: [&str; 3] = ["mbox", "mbx", "eml"];
const COMPRESSED_EXTENSIONS: [&str; 5] = ["gz", "bz2", "xz", "zst", "zstd"];

/// Every mail source the arguments name, in a repeatable order (each folder
/// sorted by name).
pub fn sources(args: &[PathBuf]) -> Result<Vec<Source>> {
    let mut out = Vec::new();
    for a in args {
        if a.as_os_str() == "-" {
            out.push(Source::Stdin);
        } else if a.is_dir() {
            walk(a, &mut out).with_context(|| format!("could not read folder {}", a.display()))?;
        } else {
            out.push(Source::File {
                path: a.clone(),
                named: true,
            });
        }
    }
    Ok(out)
}

fn walk(dir: &Path, out: &mut Vec<Source>) -> std::io::Result<()> {
    let is_maildir = maildir::is_maildir(dir);
    if is_maildir {
        out.push(Source::Maildir {
            path: dir.to_path_buf(),
        });
    }
    let mut entries = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        entries.push((entry.file_name(), entry.file_type()?));
    }
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    for (name, ft) in entries {
        let path = dir.join(&name);
        let hidden = name.as_encoded_bytes().starts_with(b".");
        if ft.is_dir() {
            let message_dir =
                is_maildir && (maildir::MESSAGE_DIRS.iter().any(|d| name == *d) || name == "tmp");
            if !message_dir && (!hidden || maildir::is_maildir(&path)) {
                walk(&path, out)?;
            }
        } else if ft.is_file() && !hidden && !is_maildir {
            // Files beside cur/ and new/ are the Maildir's own (dovecot-uidlist,
            // maildirfolder, subscriptions), never messages.
            let named = named_like_mail(&path);
            out.push(Source::File { path, named });
        }
    }
    Ok(())
}

/// `inbox.mbox`, `mbox`, `msg.eml`, `archive.mbox.gz`, ...
pub fn named_like_mail(path: &Path) -> bool {
    let lower = |s: &std::ffi::OsStr| s.to_string_lossy().to_ascii_lowercase();
    let mut path = path.to_path_buf();
    if path
        .extension()
        .is_some_and(|e| COMPRESSED_EXTENSIONS.contains(&lower(e).as_str()))
    {
        path.set_extension("");
    }
    path.extension()
        .is_some_and(|e| MAIL_EXTENSIONS.contains(&lower(e).as_str()))
        || path.file_name().is_some_and(|n| lower(n) == "mbox")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_say_mail() {
        for (name, mail) in [
            ("a.mbox", true),
            ("a.MBX", true),
            ("mbox", true),
            ("a.eml", true),
            ("spam.mbox.gz", true),
            ("x.eml.zst", true),
            ("notes.txt", false),
            ("photos.tar.gz", false),
            ("17", false),
        ] {
            assert_eq!(named_like_mail(Path::new(name)), mail, "{name}");
        }
    }

    #[test]
    fn folders_yield_files_maildirs_and_maildir_plus_plus_sub_folders() {
        let root = tempfile::tempdir().unwrap();
        let r = root.path();
        let mk = |p: &str| std::fs::create_dir_all(r.join(p)).unwrap();
        let touch = |p: &str| std::fs::write(r.join(p), "x").unwrap();
        for d in [
            "md/cur",
            "md/new",
            "md/tmp",
            "md/.Sent/cur",
            "md/.Sent/new",
            "mh",
            ".notmuch",
        ] {
            mk(d);
        }
        for f in [
            "md/cur/1.a:2,S",
            "md/dovecot-uidlist",
            "mh/1",
            "mh/.mh_sequences",
            "a.mbox",
        ] {
            touch(f);
        }
        touch(".notmuch/xapian.glass");
        let got = sources(&[r.to_path_buf(), PathBuf::from("-")]).unwrap();
        let want = vec![
            Source::File {
                path: r.join("a.mbox"),
                named: true,
            },
            Source::Maildir { path: r.join("md") },
            Source::Maildir {
                path: r.join("md/.Sent"),
            },
            Source::File {
                path: r.join("mh/1"),
                named: false,
            },
            Source::Stdin,
        ];
        assert_eq!(got, want);
    }
}
