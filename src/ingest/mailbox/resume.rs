//! Cheap nightly re-runs: what is remembered about each file read, and what
//! a re-run must read of it.
//!
//! - Unchanged (same device, inode, size and mtime, and read to its end):
//!   nothing is read.
//! - Grown (its first bytes and the bytes before where the last run stopped
//!   are as they were): read from there, which is a message boundary.
//! - Anything else (rewritten, compacted, replaced, read by another version
//!   of the mail reader): read in full; the content hashes keep that
//!   idempotent.
//!
//! A compressed file cannot be entered in the middle, and a file holding one
//! message has no boundary to resume at, so either is unchanged or read
//! again in full.

use std::fs::{File, Metadata};
use std::io;
use std::os::unix::fs::{FileExt, MetadataExt};

use sha2::{Digest, Sha256};

use super::super::mbox::READER_VERSION;

/// Bytes hashed at the start of a file.
pub const HEAD_BYTES: u64 = 4 << 10;
/// Bytes hashed before the point where reading stopped.
pub const TAIL_BYTES: u64 = 16 << 10;

/// A file as the last run left it (a row of `ingest_files`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileState {
    /// The canonical absolute path.
    pub path: String,
    pub stat: Stat,
    /// Bytes read, up to the end of the last complete message.
    pub consumed: u64,
    pub head_hash: [u8; 32],
    pub tail_hash: [u8; 32],
    /// Read as a whole (compressed, or one message): cannot be resumed.
    pub whole: bool,
    pub reader: i64,
    /// Messages read from the file in all runs.
    pub messages: u64,
}

/// What identifies a version of a file on disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stat {
    pub device: u64,
    pub inode: u64,
    pub size: u64,
    pub mtime_ns: i64,
}

impl Stat {
    pub fn of(m: &Metadata) -> Stat {
        Stat {
            device: m.dev(),
            inode: m.ino(),
            size: m.size(),
            mtime_ns: m.mtime() * 1_000_000_000 + m.mtime_nsec(),
        }
    }
}

/// What a run reads of a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Plan {
    /// Nothing: it is as the last run left it.
    Unchanged,
    /// From this byte offset, where the last run stopped.
    Resume(u64),
    /// All of it.
    Full,
}

/// Decide what to read of `file` (now `stat`), last seen as `stored`.
pub fn plan(stored: Option<&FileState>, stat: Stat, file: &File) -> io::Result<Plan> {
    let Some(s) = stored.filter(|s| s.reader == READER_VERSION) else {
        return Ok(Plan::Full);
    };
    if s.stat == stat && s.consumed == s.stat.size {
        return Ok(Plan::Unchanged);
    }
    let same_prefix = || -> io::Result<bool> {
        Ok(stat.size >= s.consumed && hashes(file, s.consumed)? == (s.head_hash, s.tail_hash))
    };
    Ok(match (s.whole, same_prefix()?) {
        (true, true) if stat.size == s.consumed => Plan::Unchanged,
        (false, true) if stat.size == s.consumed && s.stat.size == s.consumed => Plan::Unchanged,
        (false, true) => Plan::Resume(s.consumed),
        _ => Plan::Full,
    })
}

/// sha256 of the first HEAD_BYTES of `file` and of the TAIL_BYTES before
/// `consumed` (both cut to what is there).
pub fn hashes(file: &File, consumed: u64) -> io::Result<([u8; 32], [u8; 32])> {
    let head = read_at(file, 0, HEAD_BYTES.min(consumed))?;
    let start = consumed.saturating_sub(TAIL_BYTES);
    let tail = read_at(file, start, consumed - start)?;
    Ok((Sha256::digest(head).into(), Sha256::digest(tail).into()))
}

fn read_at(file: &File, offset: u64, len: u64) -> io::Result<Vec<u8>> {
    let mut buf = vec![0; len as usize];
    file.read_exact_at(&mut buf, offset)?;
    Ok(buf)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    struct Fixture {
        _dir: tempfile::TempDir,
        path: std::path::PathBuf,
    }

    impl Fixture {
        fn new(bytes: &[u8]) -> Fixture {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("m.mbox");
            std::fs::write(&path, bytes).unwrap();
            Fixture { _dir: dir, path }
        }

        fn state(&self, consumed: u64, whole: bool) -> FileState {
            let f = File::open(&self.path).unwrap();
            let (head_hash, tail_hash) = hashes(&f, consumed).unwrap();
            FileState {
                path: self.path.display().to_string(),
                stat: Stat::of(&f.metadata().unwrap()),
                consumed,
                head_hash,
                tail_hash,
                whole,
                reader: READER_VERSION,
                messages: 1,
            }
        }

        fn plan(&self, stored: &FileState) -> Plan {
            let f = File::open(&self.path).unwrap();
            plan(Some(stored), Stat::of(&f.metadata().unwrap()), &f).unwrap()
        }
    }

    const ONE: &[u8] = b"From a@x Thu Jan 15 10:00:00 2026\nSubject: one\n\nbody\n\n";

    #[test]
    fn the_plan_table() {
        let big: Vec<u8> = ONE.iter().copied().cycle().take(100_000).collect();
        let f = Fixture::new(&big);
        let read = f.state(big.len() as u64, false);
        assert_eq!(f.plan(&read), Plan::Unchanged, "untouched");

        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&f.path)
            .unwrap();
        file.write_all(ONE).unwrap();
        assert_eq!(f.plan(&read), Plan::Resume(big.len() as u64), "grown");

        let mut rewritten = big.clone();
        rewritten[50_000] ^= 1;
        rewritten.extend_from_slice(ONE);
        std::fs::write(&f.path, &rewritten).unwrap();
        // Only the head and the tail are compared: a change of the same
        // length in between (Thunderbird flipping X-Mozilla-Status in place)
        // is not looked for, and changes nothing that is indexed.
        assert_eq!(
            f.plan(&read),
            Plan::Resume(big.len() as u64),
            "a flag flipped mid-file"
        );

        let mut changed_tail = big.clone();
        changed_tail[big.len() - 3] ^= 1;
        std::fs::write(&f.path, &changed_tail).unwrap();
        assert_eq!(f.plan(&read), Plan::Full, "rewritten at the end");

        std::fs::write(&f.path, &big[..1000]).unwrap();
        assert_eq!(f.plan(&read), Plan::Full, "shrunk");

        let mut stale = read.clone();
        stale.reader -= 1;
        std::fs::write(&f.path, &big).unwrap();
        assert_eq!(f.plan(&stale), Plan::Full, "read by another version");
    }

    #[test]
    fn a_file_read_only_to_its_last_complete_message_resumes_there() {
        let f = Fixture::new(&[ONE, b"From b@x Thu Jan 15 10:00:00 2026\nSubject: cut"].concat());
        let read = f.state(ONE.len() as u64, false);
        assert_eq!(f.plan(&read), Plan::Resume(ONE.len() as u64));
    }

    #[test]
    fn a_compressed_file_is_unchanged_or_read_in_full() {
        let f = Fixture::new(b"\x1f\x8b compressed bytes");
        let read = f.state(19, true);
        assert_eq!(f.plan(&read), Plan::Unchanged);
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&f.path)
            .unwrap();
        file.write_all(b"more").unwrap();
        assert_eq!(f.plan(&read), Plan::Full);
    }
}
