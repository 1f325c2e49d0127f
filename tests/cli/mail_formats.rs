//! Every form people keep mail in (issue 18): compressed mbox files, Maildir
//! folders, MH folders and .eml files, through the real binary; and files
//! that are not mail, refused with a reason and nothing of them indexed.

use std::io::Write;
use std::path::Path;

use serde_json::Value;

use crate::util::{TestEnv, fixture, mbox_message};

fn three() -> Vec<u8> {
    std::fs::read(fixture("three.mbox")).unwrap()
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// `data` compressed as `format` (gz, bz2, xz, zst).
pub fn compress(format: &str, data: &[u8]) -> Vec<u8> {
    match format {
        "gz" => gzip(data),
        "bz2" => {
            let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
            e.write_all(data).unwrap();
            e.finish().unwrap()
        }
        "xz" => {
            let opts = lzma_rust2::XzOptions::with_preset(1);
            let mut w = lzma_rust2::XzWriter::new(Vec::new(), opts).unwrap();
            w.write_all(data).unwrap();
            w.finish().unwrap()
        }
        "zst" => {
            ruzstd::encoding::compress_to_vec(data, ruzstd::encoding::CompressionLevel::Fastest)
        }
        other => panic!("no such format {other}"),
    }
}

/// [read, indexed, unchanged, duplicates, rejected] of a summary.
fn counts(v: &Value) -> [u64; 5] {
    ["read", "indexed", "unchanged", "duplicates", "rejected"].map(|k| v[k].as_u64().unwrap())
}

/// A random (seeded) block of bytes: what the junk files were.
fn random_bytes(n: usize) -> Vec<u8> {
    let mut state = 0x5eedu64;
    (0..n)
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 56) as u8
        })
        .collect()
}

/// Regression: `index-mbox spam.mbox.gz` "indexed" one message of 1,068
/// chunks of compressed bytes.
#[test]
fn compressed_mbox_files_are_read_named_in_a_folder_and_on_stdin() {
    let env = TestEnv::new();
    let gz = env.write("spam.mbox.gz", gzip(&three()));
    let v = env.json(["index-mbox", gz.to_str().unwrap()], 0);
    assert_eq!(counts(&v), [3, 3, 0, 0, 0], "{v}");
    assert_eq!(env.fts_hits("countersigned"), 1);
    assert!(
        env.count("SELECT max(length(text)) FROM memory_chunks") < 1000,
        "text, not compressed bytes"
    );
    // Each format, named directly, misnamed, in a folder, on stdin: the same
    // three messages, unchanged.
    for format in ["gz", "bz2", "xz", "zst"] {
        let data = compress(format, &three());
        let named = env.write(&format!("named/three.mbox.{format}"), &data);
        let misnamed = env.write(&format!("misnamed-{format}.mbox"), &data);
        env.write(&format!("folder-{format}/sub/archive.{format}"), &data);
        for path in [named, misnamed, env.path(&format!("folder-{format}"))] {
            let v = env.json(["index-mbox", path.to_str().unwrap()], 0);
            assert_eq!(
                counts(&v),
                [3, 0, 3, 0, 0],
                "{format} {}: {v}",
                path.display()
            );
        }
        let out = env
            .cmd(["index-mbox", "-", "--json"])
            .write_stdin(data)
            .assert()
            .success();
        let v: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
        assert_eq!(counts(&v), [3, 0, 3, 0, 0], "{format} on stdin: {v}");
    }
    assert_eq!(env.count("SELECT count(*) FROM memory_sources"), 3);
}

/// Regression: a file of random bytes was indexed as text.
#[test]
fn files_that_are_not_mail_are_refused_with_a_reason_and_nothing_indexed() {
    let env = TestEnv::new();
    let cases = [
        ("random.mbox", random_bytes(40_000), "not mail: binary data"),
        (
            "junk.mbox.gz",
            gzip(&random_bytes(40_000)),
            "not mail: gzip data holding binary data",
        ),
        (
            "notes.eml",
            b"Dear diary,\n\nno headers and no From line here.\n".to_vec(),
            "not mail: no message boundary",
        ),
        (
            "photos.mbox",
            gzip(b"PK\x03\x04zip bytes"),
            "a zip archive, not mail; unpack it first",
        ),
    ];
    for (name, bytes, reason) in cases {
        let path = env.write(name, bytes);
        let out = env
            .cmd(["index-mbox", "--json", path.to_str().unwrap()])
            .assert()
            .code(2);
        let stderr = String::from_utf8_lossy(&out.get_output().stderr);
        assert!(
            stderr.starts_with(&format!("alfred-mem: {}: ", path.display()))
                && stderr.contains(reason)
                && stderr.contains("nothing of it was indexed"),
            "{name}: {stderr}"
        );
        let v: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
        assert_eq!(counts(&v), [0; 5], "{name}: {v}");
    }
    assert_eq!(env.count("SELECT count(*) FROM memory_sources"), 0);
    assert_eq!(env.count("SELECT count(*) FROM memory_chunks"), 0);
    // In a folder, files that are not mail and not named like mail are passed over.
    env.write("mail/inbox.mbox", three());
    env.write("mail/photo.jpg", random_bytes(5000));
    env.write("mail/notes.txt", "shopping: eggs, rice\n");
    let v = env.json(["index-mbox", env.path("mail").to_str().unwrap()], 0);
    assert_eq!(counts(&v), [3, 3, 0, 0, 0], "{v}");
}

/// A Maildir message file (Return-Path and Delivered-To on top, as an MDA
/// writes them; no envelope line).
pub fn maildir_message(id: &str, date: &str, subject: &str, body: &str) -> String {
    format!(
        "Return-Path: <sender@mail.example>\nDelivered-To: me@home.example\n\
         Message-ID: <{id}>\nDate: {date}\nFrom: Sender <sender@mail.example>\n\
         Subject: {subject}\n\n{body}\n"
    )
}

/// Make `dir` a Maildir (cur/, new/, tmp/).
pub fn make_maildir(dir: &Path) {
    for sub in ["cur", "new", "tmp"] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
    }
}

#[test]
fn a_maildir_is_read_with_its_sub_folders_tmp_and_index_files_left_alone() {
    let env = TestEnv::new();
    let md = env.path("Maildir");
    make_maildir(&md);
    make_maildir(&md.join(".Sent"));
    let date = "Mon, 5 Jan 2026 10:00:00 +0000";
    for (rel, id, subject, body) in [
        (
            "cur/1767607200.M1P1.host:2,S",
            "m1@x",
            "Seen",
            "the zanzibar ferry",
        ),
        (
            "new/1767607201.M2P1.host",
            "m2@x",
            "Unseen",
            "the quokka photos",
        ),
        (
            "tmp/1767607202.M3P1.host",
            "m3@x",
            "Half written",
            "the pangolin",
        ),
        (
            ".Sent/cur/1767607203.M4P1.host:2,S",
            "m4@x",
            "Sent",
            "my axolotl reply",
        ),
    ] {
        env.write(
            &format!("Maildir/{rel}"),
            maildir_message(id, date, subject, body),
        );
    }
    env.write(
        "Maildir/dovecot-uidlist",
        "3 V1 N4\n1 1767607200.M1P1.host\n",
    );
    let gz = gzip(maildir_message("m5@x", date, "Compressed by Dovecot", "the narwhal").as_bytes());
    env.write("Maildir/cur/1767607204.M5P1.host:2,S", gz);
    let v = env.json(["index-mail", md.to_str().unwrap()], 0);
    assert_eq!(counts(&v), [4, 4, 0, 0, 0], "{v}");
    for word in ["zanzibar", "quokka", "axolotl", "narwhal"] {
        assert_eq!(env.fts_hits(word), 1, "{word}");
    }
    assert_eq!(env.fts_hits("pangolin"), 0, "tmp/ is never read");
}

#[test]
fn a_maildir_file_that_is_not_mail_is_rejected_by_name_and_the_rest_indexed() {
    let env = TestEnv::new();
    let md = env.path("md");
    make_maildir(&md);
    let date = "Mon, 5 Jan 2026 10:00:00 +0000";
    env.write(
        "md/cur/1767607200.A.h:2,S",
        maildir_message("ok@x", date, "Fine", "a fine message"),
    );
    let bad = env.write("md/cur/1767607201.B.h:2,S", random_bytes(3000));
    let out = env
        .cmd(["index-mbox", "--json", md.to_str().unwrap()])
        .assert()
        .code(3);
    let v: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(counts(&v), [2, 1, 0, 0, 1], "{v}");
    assert_eq!(v["errors"][0]["file"], bad.to_str().unwrap());
    assert_eq!(v["errors"][0]["offset"], 0);
    assert!(
        v["errors"][0]["reason"]
            .as_str()
            .unwrap()
            .starts_with("not mail: binary data"),
        "{v}"
    );
}

/// Regression: Maildir file names were remembered across folders, so a
/// second Maildir using the names of a first (converted archives, tools that
/// number their files) was passed over as already read.
#[test]
fn two_maildirs_using_the_same_file_names_are_both_read() {
    let env = TestEnv::new();
    let date = "Mon, 5 Jan 2026 10:00:00 +0000";
    for (folder, id, body) in [("a", "a@x", "the walrus"), ("b", "b@x", "the dugong")] {
        make_maildir(&env.path(folder));
        env.write(
            &format!("{folder}/cur/1.M1P1.h:2,S"),
            maildir_message(id, date, "Same name", body),
        );
    }
    let v = env.json(["index-mbox", env.path("a").to_str().unwrap()], 0);
    assert_eq!(counts(&v), [1, 1, 0, 0, 0], "{v}");
    let v = env.json(["index-mbox", env.path("b").to_str().unwrap()], 0);
    assert_eq!(counts(&v), [1, 1, 0, 0, 0], "{v}");
    assert_eq!(env.fts_hits("dugong"), 1);
}

/// Copies of one message kept by two tools: a Gmail-style mbox (labels,
/// Status:) and an mbsync Maildir (Return-Path, Delivered-To, CRLF).
#[test]
fn the_same_message_in_an_mbox_and_a_maildir_is_stored_once() {
    let env = TestEnv::new();
    let date = "Tue, 6 Jan 2026 09:30:00 +0000";
    let message = mbox_message(
        "shared@x.example",
        date,
        "Shared",
        "The okapi sanctuary tickets.",
    );
    let in_mbox = message.replacen(
        "Message-ID",
        "X-Gmail-Labels: Inbox,Important\nStatus: RO\nMessage-ID",
        1,
    );
    env.write("takeout/All mail.mbox", in_mbox);
    let md = env.path("sync/INBOX");
    make_maildir(&md);
    let maildir_copy = maildir_message(
        "shared@x.example",
        date,
        "Shared",
        "The okapi sanctuary tickets.",
    )
    .replace('\n', "\r\n");
    env.write("sync/INBOX/cur/1767691800.X.h:2,S", maildir_copy);
    let v = env.json(
        [
            "index-mbox",
            env.path("takeout").to_str().unwrap(),
            md.to_str().unwrap(),
        ],
        0,
    );
    assert_eq!(counts(&v), [2, 1, 0, 1, 0], "{v}");
    assert_eq!(env.count("SELECT count(*) FROM memory_sources"), 1);
    assert_eq!(env.fts_hits("okapi"), 1);
}

#[test]
fn eml_files_and_mh_folders_are_one_message_per_file() {
    let env = TestEnv::new();
    let date = "Wed, 7 Jan 2026 08:00:00 +0000";
    // An unquoted "From " line after a blank line must not split a single message.
    let eml = format!(
        "Message-ID: <eml@x>\nDate: {date}\nFrom: A <a@x>\nSubject: Saved\n\nfirst part\n\nFrom the desk of the tapir keeper: second part\n"
    );
    let eml_path = env.write("saved/Saved message.eml", eml);
    env.write(
        "mh/inbox/1",
        maildir_message("mh1@x", date, "One", "the dugong"),
    );
    env.write(
        "mh/inbox/2",
        maildir_message("mh2@x", date, "Two", "the gharial"),
    );
    env.write("mh/inbox/.mh_sequences", "unseen: 2\ncur: 1\n");
    env.write("mh/context", "Current-Folder: inbox\n");
    let v = env.json(
        [
            "index-mbox",
            eml_path.to_str().unwrap(),
            env.path("mh").to_str().unwrap(),
        ],
        0,
    );
    assert_eq!(counts(&v), [3, 3, 0, 0, 0], "{v}");
    assert_eq!(env.fts_hits("tapir"), 1, "the .eml is one message");
    assert_eq!(env.fts_hits("dugong AND gharial"), 0);
    assert_eq!(env.fts_hits("dugong OR gharial"), 2);
}

/// `index-mail` is the same command as `index-mbox`.
#[test]
fn index_mail_is_index_mbox() {
    let env = TestEnv::new();
    let v = env.json(["index-mail", fixture("three.mbox").to_str().unwrap()], 0);
    assert_eq!(counts(&v), [3, 3, 0, 0, 0]);
}
