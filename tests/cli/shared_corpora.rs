//! Real-world mail from `../shared/data` (third-party corpora that are not
//! shipped in this repo): every message is indexed or named in the errors, the
//! counts agree with each folder's SOURCE.md, and a second run is a no-op.
//! Ignored, with the reason in the test summary, when `../shared/data` is
//! absent (build.rs).

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

fn mbox_files(folder: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(folder)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "mbox"))
        .collect();
    files.sort();
    files
}

fn index(env: &TestEnv, file: &Path) -> Value {
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
#[cfg_attr(
    not(shared_data),
    ignore = "needs ../shared/data beside the clone (looked for at build time: `touch build.rs` after adding it)"
)]
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
