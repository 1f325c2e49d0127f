//! Cheap nightly re-runs (issue 18): an unchanged file is not read, a grown
//! one is read from where the last run stopped, a rewritten one in full and
//! idempotently, a Maildir only for its new file names. To show that
//! something was *not* read, the tests change bytes the run would notice if
//! it read them, keeping size and mtime (as a flag flip in place does).

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::Path;
use std::time::{Duration, SystemTime};

use serde_json::Value;

use crate::crash::generated_mbox_of;
use crate::mail_formats::{compress, maildir_message, make_maildir};
use crate::util::{TestEnv, mbox_message};

/// [read, indexed, unchanged, duplicates, rejected] and [unchanged files, resumed files].
fn counts(v: &Value) -> ([u64; 5], [u64; 2]) {
    let n = |k: &str| v[k].as_u64().unwrap_or_else(|| panic!("{k} in {v}"));
    (
        ["read", "indexed", "unchanged", "duplicates", "rejected"].map(n),
        ["unchanged_files", "resumed_files"].map(n),
    )
}

fn index(env: &TestEnv, path: &Path, code: i32) -> Value {
    env.json(["index-mbox", path.to_str().unwrap()], code)
}

/// Overwrite `bytes` at `at` in `path`, then put its mtime back.
fn patch_keeping_mtime(path: &Path, at: usize, bytes: &[u8]) {
    let mtime = std::fs::metadata(path).unwrap().modified().unwrap();
    let mut data = std::fs::read(path).unwrap();
    data[at..at + bytes.len()].copy_from_slice(bytes);
    std::fs::write(path, data).unwrap();
    File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(mtime)
        .unwrap();
}

fn append(path: &Path, bytes: &[u8]) {
    OpenOptions::new()
        .append(true)
        .open(path)
        .unwrap()
        .write_all(bytes)
        .unwrap();
}

fn new_message(i: usize) -> String {
    mbox_message(
        &format!("new-{i}@x.example"),
        "Mon, 2 Nov 2026 10:00:00 +0000",
        &format!("Appended {i}"),
        &format!("Appended message number {i} about the wombat census."),
    )
}

#[test]
fn an_unchanged_mbox_is_not_read_again() {
    let env = TestEnv::new();
    let mbox = env.write("big.mbox", generated_mbox_of(300));
    let (first, _) = counts(&index(&env, &mbox, 0));
    assert_eq!(first, [300, 300, 0, 0, 0]);
    // A message in the middle now says "zzzzz": read, it would be re-indexed.
    let text = std::fs::read_to_string(&mbox).unwrap();
    let at = text.find("Generated message 150").unwrap();
    patch_keeping_mtime(&mbox, at, b"Zzzzzzzzz");
    let v = index(&env, &mbox, 0);
    assert_eq!(counts(&v), ([0; 5], [1, 0]), "{v}");
    assert_eq!(env.fts_hits("zzzzzzzzz"), 0, "nothing was read");
}

#[test]
fn a_grown_mbox_is_read_from_where_the_last_run_stopped() {
    let env = TestEnv::new();
    let mbox = env.write("inbox.mbox", generated_mbox_of(300));
    index(&env, &mbox, 0);
    let len = std::fs::metadata(&mbox).unwrap().len() as usize;
    // Mid-file change (not read if the run starts where the last stopped)...
    let text = std::fs::read_to_string(&mbox).unwrap();
    let at = text.find("Generated message 150").unwrap();
    patch_keeping_mtime(&mbox, at, b"Zzzzzzzzz");
    // ...then two new messages and one without text, as a delivery appends them.
    let bad = "From x@x.example Mon Nov  2 11:00:00 2026\nFrom: x@x.example\n\n\n";
    append(
        &mbox,
        format!("{}{bad}{}", new_message(1), new_message(2)).as_bytes(),
    );
    let v = index(&env, &mbox, 3);
    assert_eq!(counts(&v), ([3, 2, 0, 0, 1], [0, 1]), "{v}");
    assert_eq!(
        v["errors"][0]["offset"],
        (len + new_message(1).len()) as u64,
        "offsets are in the whole file"
    );
    assert_eq!(env.fts_hits("wombat"), 2);
    assert_eq!(
        env.fts_hits("zzzzzzzzz"),
        0,
        "the old part was not read again"
    );
    // And again: nothing new, nothing read, the bad message not repeated.
    let v = index(&env, &mbox, 0);
    assert_eq!(counts(&v), ([0; 5], [1, 0]), "{v}");
}

#[test]
fn a_rewritten_mbox_is_read_in_full_and_nothing_is_doubled() {
    let env = TestEnv::new();
    let all = generated_mbox_of(300);
    let mbox = env.write("inbox.mbox", &all);
    index(&env, &mbox, 0);
    let rows = env.count("SELECT count(*) FROM memory_chunks");
    // A client compacted the folder: the first message is gone, one is new.
    let second = String::from_utf8_lossy(&all).find("\nFrom sender").unwrap() + 1;
    std::fs::write(&mbox, [&all[second..], new_message(1).as_bytes()].concat()).unwrap();
    let v = index(&env, &mbox, 0);
    assert_eq!(counts(&v), ([300, 1, 299, 0, 0], [0, 0]), "{v}");
    assert_eq!(env.count("SELECT count(*) FROM memory_chunks"), rows + 1);
}

/// A file that ends mid-line (still being written) is resumed at the start
/// of its last message, which is read again, whole, when the file grows.
#[test]
fn a_file_ending_mid_message_is_resumed_at_that_message() {
    let env = TestEnv::new();
    let first = new_message(1);
    let partial = "From sender@mail.example Mon Nov  2 10:00:00 2026\nMessage-ID: <p@x>\n\
                   Date: Mon, 2 Nov 2026 10:00:00 +0000\nSubject: Being written\n\nThe capybara";
    let mbox = env.write("inbox.mbox", format!("{first}{partial}"));
    let (c, _) = counts(&index(&env, &mbox, 0));
    assert_eq!(c, [2, 2, 0, 0, 0]);
    append(
        &mbox,
        format!(" census is done.\n\n{}", new_message(3)).as_bytes(),
    );
    let v = index(&env, &mbox, 0);
    // The second message again (now complete: a new variant of it), the third.
    assert_eq!(counts(&v).1, [0, 1], "{v}");
    assert_eq!(counts(&v).0[0], 2, "{v}");
    assert_eq!(env.fts_hits("capybara AND census"), 1);
}

#[test]
fn a_compressed_mbox_is_skipped_unchanged_and_read_in_full_when_changed() {
    let env = TestEnv::new();
    let data = generated_mbox_of(50);
    let gz = env.write("old.mbox.gz", compress("gz", &data));
    index(&env, &gz, 0);
    let v = index(&env, &gz, 0);
    assert_eq!(counts(&v), ([0; 5], [1, 0]), "{v}");
    let grown = [data.as_slice(), new_message(1).as_bytes()].concat();
    std::fs::write(&gz, compress("gz", &grown)).unwrap();
    let v = index(&env, &gz, 0);
    assert_eq!(counts(&v), ([51, 1, 50, 0, 0], [0, 0]), "{v}");
}

#[test]
fn a_maildir_rerun_reads_only_new_file_names() {
    let env = TestEnv::new();
    let md = env.path("Maildir");
    make_maildir(&md);
    let date = "Mon, 2 Nov 2026 10:00:00 +0000";
    for i in 0..3 {
        let body = format!("maildir message {i} about the kakapo");
        env.write(
            &format!("Maildir/new/17900000{i}0.M{i}.host"),
            maildir_message(&format!("md{i}@x"), date, "Hello", &body),
        );
    }
    // Delivered an hour ago: a folder changed within the last two seconds is
    // listed again on the next run, in case a delivery shared its mtime tick.
    let hour_ago = SystemTime::now() - Duration::from_secs(3600);
    for sub in ["cur", "new"] {
        File::open(md.join(sub))
            .unwrap()
            .set_modified(hour_ago)
            .unwrap();
    }
    let (c, _) = counts(&index(&env, &md, 0));
    assert_eq!(c, [3, 3, 0, 0, 0]);
    let v = index(&env, &md, 0);
    assert_eq!(counts(&v), ([0; 5], [1, 0]), "an unchanged folder: {v}");
    // A client shows message 0 (new/ -> cur/, flag S) and replies to 1 (flag
    // R); message 2's file is rewritten in place, which Maildir never does,
    // so it is not looked at; one message arrives.
    std::fs::rename(
        md.join("new/1790000000.M0.host"),
        md.join("cur/1790000000.M0.host:2,S"),
    )
    .unwrap();
    std::fs::rename(
        md.join("new/1790000010.M1.host"),
        md.join("cur/1790000010.M1.host:2,RS"),
    )
    .unwrap();
    std::fs::write(
        md.join("new/1790000020.M2.host"),
        "Subject: zzzzzzzzz\n\nchanged\n",
    )
    .unwrap();
    env.write(
        "Maildir/new/1790000030.M3.host",
        maildir_message("md3@x", date, "New", "the fourth kakapo message"),
    );
    let v = index(&env, &md, 0);
    assert_eq!(counts(&v), ([1, 1, 0, 0, 0], [0, 0]), "{v}");
    assert_eq!(env.fts_hits("kakapo"), 4);
    assert_eq!(env.fts_hits("zzzzzzzzz"), 0);
}

/// What an older version of the reader stored is read again in full, so a
/// better parser reaches mail indexed before it.
#[test]
fn files_read_by_another_reader_version_are_read_again() {
    let env = TestEnv::new();
    let mbox = env.write("inbox.mbox", generated_mbox_of(20));
    index(&env, &mbox, 0);
    env.sqlite()
        .execute("UPDATE ingest_files SET reader = reader - 1", [])
        .unwrap();
    let v = index(&env, &mbox, 0);
    assert_eq!(counts(&v), ([20, 0, 20, 0, 0], [0, 0]), "{v}");
}
