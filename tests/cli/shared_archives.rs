//! The real corpora of `../shared/data` kept the ways people keep mail
//! (issue 18): compressed four ways and on stdin, unpacked into Maildirs,
//! and dated only by what is plausible. Ignored, saying why, when
//! `../shared/data` is absent (build.rs).

use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::mail_formats::{compress, make_maildir};
use crate::shared_corpora::{index, mbox_files};
use crate::util::{TestEnv, shared_data};

fn spam_mbox() -> PathBuf {
    shared_data().join("email-spamassassin/spamassassin_spam.mbox")
}

/// Regression: `index-mbox spam.mbox.gz` "indexed" one message of 1,068
/// chunks of compressed bytes. The SpamAssassin spam corpus, in each of the
/// four compressions and gzipped on stdin, reads as the same 500 messages,
/// and they are the ones the plain mbox stored: nothing new is written.
#[test]
#[cfg_attr(shared_data_absent, ignore = "../shared/data is absent")]
fn the_spam_corpus_compressed_reads_as_its_messages() {
    let plain = std::fs::read(spam_mbox()).unwrap();
    let env = TestEnv::new();
    let first = index(&env, &spam_mbox());
    assert_eq!(first["read"], 500, "SOURCE.md: 500 spam messages");
    let chunks = env.count("SELECT count(*) FROM memory_chunks");
    for format in ["gz", "bz2", "xz", "zst"] {
        let path = env.write(&format!("spam.mbox.{format}"), compress(format, &plain));
        let v = index(&env, &path);
        assert_eq!(v["read"], first["read"], "{format}");
        assert_eq!(v["indexed"], 0, "{format}: the same messages");
    }
    let (child, mut stdin) = env.spawn_fed(["index-mbox", "-", "--json"]);
    let gz = compress("gz", &plain);
    let feeder = std::thread::spawn(move || stdin.write_all(&gz));
    let out = child.wait_with_output().unwrap();
    feeder.join().unwrap().unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["read"], first["read"], "gzip on stdin");
    assert_eq!(v["indexed"], 0, "gzip on stdin: the same messages");
    assert_eq!(env.count("SELECT count(*) FROM memory_chunks"), chunks);
}

/// The messages of an mboxrd file, envelope line first, `>From ` unquoted,
/// as a delivery agent would have written them one per file.
fn mbox_messages(mbox: &[u8]) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = Vec::new();
    for line in mbox.split_inclusive(|&b| b == b'\n') {
        if let Some(envelope) = line.strip_prefix(b"From ") {
            let envelope = String::from_utf8_lossy(envelope).trim_end().to_string();
            out.push((envelope, Vec::new()));
            continue;
        }
        let Some((_, body)) = out.last_mut() else {
            continue;
        };
        let quotes = line.iter().take_while(|&&b| b == b'>').count();
        if quotes > 0 && line[quotes..].starts_with(b"From ") {
            body.extend_from_slice(&line[1..]);
        } else {
            body.extend_from_slice(line);
        }
    }
    // The blank line before each envelope separates, it is not the body's.
    for (_, body) in &mut out {
        if body.ends_with(b"\n\n") {
            body.pop();
        }
    }
    out
}

/// `mbox` unpacked into a new Maildir at `dir`, each file named after its
/// envelope's time as a delivery agent names it (so that a message dated by
/// its envelope in the mbox is dated by its file name alike).
fn unpack_into_maildir(mbox: &Path, dir: &Path) -> usize {
    make_maildir(dir);
    let messages = mbox_messages(&std::fs::read(mbox).unwrap());
    for (i, (envelope, bytes)) in messages.iter().enumerate() {
        let name = match alfred_mem::dates::mail::envelope_date(envelope) {
            Some(t) => format!("{t}.M{i}P1.test:2,S"),
            None => format!("undated-{i}.test:2,S"),
        };
        std::fs::write(dir.join("cur").join(name), bytes).unwrap();
    }
    messages.len()
}

/// Every shared mbox unpacked into a Maildir reads as the same messages,
/// every one of them already stored from the mbox: the same message in an
/// mbox and a Maildir is stored once, on 1,176 real messages.
#[test]
#[cfg_attr(shared_data_absent, ignore = "../shared/data is absent")]
fn every_shared_mbox_as_a_maildir_is_the_same_messages() {
    let env = TestEnv::new();
    for mbox in mbox_files(&shared_data().join("email")) {
        let name = mbox.file_name().unwrap().to_string_lossy().to_string();
        let from_mbox = index(&env, &mbox);
        let maildir = env.path(&format!("Maildir-{name}"));
        let files = unpack_into_maildir(&mbox, &maildir);
        let sources = env.count("SELECT count(*) FROM memory_sources");
        let chunks = env.count("SELECT count(*) FROM memory_chunks");
        let out = env
            .cmd(["index-mbox", "--json"])
            .arg(&maildir)
            .output()
            .unwrap();
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["read"], from_mbox["read"], "{name}: {files} files");
        assert_eq!(v["indexed"], 0, "{name}: {v}");
        assert_eq!(v["rejected"], from_mbox["rejected"], "{name}");
        assert_eq!(
            env.count("SELECT count(*) FROM memory_sources"),
            sources,
            "{name}"
        );
        assert_eq!(
            env.count("SELECT count(*) FROM memory_chunks"),
            chunks,
            "{name}"
        );
    }
}

/// Regression: `Date: Tue, 27 Aug 0102` was stored as the year 102. In all
/// 5,826 real messages no current chunk is dated before 1980 or after the
/// import time plus a day (the corpora hold bogus 2028 and 2038 dates), and
/// `status` counts the messages dated by a fallback.
#[test]
#[cfg_attr(shared_data_absent, ignore = "../shared/data is absent")]
fn no_real_message_is_misdated() {
    let data = shared_data();
    let env = TestEnv::new();
    let mut fallback = 0;
    for folder in ["email", "email-spamassassin"] {
        for mbox in mbox_files(&data.join(folder)) {
            fallback += index(&env, &mbox)["dated_by_fallback"].as_u64().unwrap();
        }
    }
    let now = chrono::DateTime::parse_from_rfc3339(crate::util::NOW)
        .unwrap()
        .timestamp();
    let misdated = env.count(&format!(
        "SELECT count(*) FROM memory_chunks WHERE source_type = 'email'
         AND superseded_at IS NULL
         AND (dated_at < 315532800 OR dated_at > {})",
        now + 86_400
    ));
    assert_eq!(misdated, 0);
    let status = env.json(["status"], 0);
    assert_eq!(status["dated_by_fallback"], fallback);
    assert!(fallback > 0, "the corpora have missing and bogus dates");
    eprintln!("shared corpora: {fallback} messages dated by a fallback");
}
