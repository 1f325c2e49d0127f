//! Real-world mail from `../shared/data` (third-party corpora that are not
//! shipped in this repo): every message is indexed or named in the errors, the
//! counts agree with each folder's SOURCE.md, and a second run is a no-op.
//! Ignored, saying why, when `../shared/data` is absent (build.rs).

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::util::{TestEnv, shared_data};

const FOLDERS: [&str; 2] = ["email", "email-spamassassin"];

/// `| name.mbox | 1,234 | ...` rows of a SOURCE.md: the message count per file.
fn documented_counts(folder: &Path) -> Vec<(String, u64)> {
    let text = std::fs::read_to_string(folder.join("SOURCE.md")).unwrap_or_default();
    text.lines()
        .filter_map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            let name = cells.get(1).filter(|n| n.ends_with(".mbox"))?;
            let n = cells.get(2)?.replace(',', "").parse().ok()?;
            Some((name.to_string(), n))
        })
        .collect()
}

pub fn mbox_files(folder: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(folder)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "mbox"))
        .collect();
    files.sort();
    files
}

pub fn index(env: &TestEnv, file: &Path) -> Value {
    let out = env
        .cmd(["index-mbox", "--json"])
        .arg(file)
        .output()
        .unwrap();
    let code = out.status.code();
    assert!(
        matches!(code, Some(0 | 3)),
        "{}: exit {code:?}\n{}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let n = |k: &str| v[k].as_u64().unwrap();
    assert_eq!(
        n("read"),
        n("indexed") + n("unchanged") + n("duplicates") + n("rejected")
    );
    let errors = v["errors"].as_array().unwrap();
    assert_eq!(
        errors.len() as u64,
        n("rejected"),
        "every rejection is named"
    );
    assert_eq!(code == Some(3), !errors.is_empty());
    for e in errors {
        assert_eq!(e["file"], file.to_str().unwrap());
        assert!(!e["reason"].as_str().unwrap().is_empty());
    }
    v
}

#[test]
#[cfg_attr(shared_data_absent, ignore = "../shared/data is absent")]
fn every_shared_mbox_indexes_and_a_second_run_adds_nothing() {
    let data = shared_data();
    let env = TestEnv::new();
    let mut files = Vec::new();
    for folder in FOLDERS.map(|f| data.join(f)) {
        let documented = documented_counts(&folder);
        for file in mbox_files(&folder) {
            let v = index(&env, &file);
            let name = file.file_name().unwrap().to_str().unwrap();
            if let Some((_, n)) = documented.iter().find(|(f, _)| f == name) {
                assert_eq!(v["read"], *n, "{name}: messages read vs SOURCE.md");
            }
            files.push(file);
        }
    }
    assert!(files.len() >= 12, "found only {files:?}");

    let rows = |env: &TestEnv| {
        [
            env.count("SELECT count(*) FROM memory_sources"),
            env.count("SELECT count(*) FROM memory_chunks"),
        ]
    };
    let before = rows(&env);
    for file in &files {
        let v = index(&env, file);
        assert_eq!(v["indexed"], 0, "{}: second run {v}", file.display());
        assert_eq!(v["chunks"], 0);
    }
    assert_eq!(rows(&env), before);
}

/// The mbox with every message's Message-ID replaced by one of its own, so
/// no two messages share one: nothing can be lost to a shared ID there.
/// The shared corpora are mboxrd with an envelope line before every message
/// (SOURCE.md), so a line starting `From ` starts a message.
fn with_unique_ids(mbox: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(mbox.len() + 4096);
    let (mut in_headers, mut skipping, mut n) = (false, false, 0);
    for line in mbox.split_inclusive(|&b| b == b'\n') {
        if skipping && line.first().is_some_and(|&b| b == b' ' || b == b'\t') {
            continue;
        }
        skipping = false;
        if line.starts_with(b"From ") {
            in_headers = true;
        } else if in_headers && line.trim_ascii().is_empty() {
            in_headers = false;
        } else if in_headers && line.to_ascii_lowercase().starts_with(b"message-id:") {
            n += 1;
            out.extend_from_slice(format!("Message-ID: <unique-{n}@test.example>\n").as_bytes());
            skipping = true;
            continue;
        }
        out.extend_from_slice(line);
    }
    out
}

/// Every distinct current chunk as (text, subject, sender, date), sorted:
/// what a search can find.
fn distinct_chunks(env: &TestEnv) -> Vec<(String, Option<String>, Option<String>, i64)> {
    let db = env.sqlite();
    let mut stmt = db
        .prepare(
            "SELECT DISTINCT text, subject, sender, dated_at FROM memory_chunks
             WHERE superseded_at IS NULL ORDER BY 1, 2, 3, 4",
        )
        .unwrap();
    stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

/// Regression: sisimai's bounces share Message-IDs, and 88 messages were
/// dropped as "duplicates" of a different message. Now every message is
/// stored: indexed as they are, the corpora keep exactly the chunks (text,
/// subject, sender, date) they keep when no two messages share an ID. Prints how many messages were
/// recovered (stored beside another message with their ID).
#[test]
#[cfg_attr(shared_data_absent, ignore = "../shared/data is absent")]
fn no_message_is_lost_to_a_shared_message_id() {
    let data = shared_data();
    let mut recovered_total = 0;
    for file in mbox_files(&data.join("email")) {
        let bytes = std::fs::read(&file).unwrap();
        let unique = with_unique_ids(&bytes);
        if unique == bytes {
            continue; // no Message-ID at all
        }
        let as_is = TestEnv::new();
        let v = index(&as_is, &file);
        let alone = TestEnv::new();
        let unique_path = alone.write("unique.mbox", &unique);
        let u = index(&alone, &unique_path);
        let name = file.file_name().unwrap().to_string_lossy().to_string();
        assert_eq!(
            v["read"], u["read"],
            "{name}: the rewrite kept every message"
        );
        assert!(
            distinct_chunks(&as_is) == distinct_chunks(&alone),
            "{name}: a chunk stored with unique ids is missing with shared ones"
        );
        let recovered = as_is.count(
            "SELECT count(*) FROM memory_sources WHERE source_id GLOB
             '*#[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]'",
        );
        eprintln!(
            "{name}: {recovered} messages sharing a Message-ID with a different message kept; \
             {} duplicates (same content)",
            v["duplicates"]
        );
        recovered_total += recovered;
    }
    eprintln!("shared corpora: {recovered_total} messages recovered in all");
}
