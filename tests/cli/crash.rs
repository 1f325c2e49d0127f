//! `kill -9` in the middle of an index run: a re-run must leave an intact
//! database with exactly the rows of an uninterrupted run. No timing is
//! asserted; the kill is placed by feeding stdin and waiting for a commit.

use std::io::Write;
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::util::{TestEnv, mbox_message};

/// Messages in the generated mailbox: a few import batches.
const MESSAGES: usize = 3000;

const WORDS: [&str; 24] = [
    "acme",
    "renewal",
    "contract",
    "invoice",
    "electricity",
    "meter",
    "dinner",
    "sister",
    "flight",
    "hotel",
    "budget",
    "sprint",
    "release",
    "doctor",
    "pharmacy",
    "rent",
    "plumber",
    "router",
    "salary",
    "refund",
    "groceries",
    "coffee",
    "passport",
    "visa",
];

/// A deterministic mailbox: message i has its own id, date and a few
/// paragraphs of words drawn by a fixed LCG, so runs are repeatable.
fn generated_mbox() -> Vec<u8> {
    let mut state: u64 = 1;
    let mut word = || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        WORDS[(state >> 33) as usize % WORDS.len()]
    };
    let mut out = String::new();
    for i in 0..MESSAGES {
        let paragraphs: Vec<String> = (0..1 + i % 3)
            .map(|_| (0..12).map(|_| word()).collect::<Vec<_>>().join(" "))
            .collect();
        let date = format!(
            "{}, {} Jan 2026 {:02}:{:02}:00 +0000",
            ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"][i % 7],
            1 + i % 28,
            i % 24,
            i % 60
        );
        out.push_str(&mbox_message(
            &format!("gen-{i}@crash.example"),
            &date,
            &format!("Generated message {i}"),
            &paragraphs.join("\n\n"),
        ));
    }
    out.into_bytes()
}

/// The figures that must agree between a crashed-and-resumed run and a clean one.
fn figures(env: &TestEnv) -> [i64; 4] {
    [
        "SELECT count(*) FROM memory_sources",
        "SELECT count(*) FROM memory_chunks",
        "SELECT count(*) FROM memory_chunks WHERE superseded_at IS NULL",
        "SELECT count(*) FROM memory_fts_docsize",
    ]
    .map(|q| env.count(q))
}

fn assert_intact(env: &TestEnv) {
    let db = env.sqlite();
    let ok: String = db
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(ok, "ok");
    db.execute(
        "INSERT INTO memory_fts (memory_fts) VALUES ('integrity-check')",
        [],
    )
    .expect("the full-text index agrees with the chunks");
}

#[test]
fn kill_9_mid_import_then_rerun_matches_an_uninterrupted_run() {
    let mbox = generated_mbox();

    let clean = TestEnv::new();
    let path = clean.write("gen.mbox", &mbox);
    clean
        .cmd(["index-mbox", path.to_str().unwrap()])
        .assert()
        .success();
    let want = figures(&clean);
    assert_eq!(want[0], MESSAGES as i64);

    // Feed most of the mailbox through stdin, wait until at least one batch
    // is committed, then kill -9 while the importer is still mid-run.
    let env = TestEnv::new();
    let mut child = env
        .std_cmd(["index-mbox", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(&mbox[..mbox.len() * 5 / 6]).unwrap();
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let committed = env.db().exists()
            && env
                .sqlite()
                .query_row("SELECT count(*) FROM memory_sources", [], |r| {
                    r.get::<_, i64>(0)
                })
                .unwrap_or(0)
                > 0;
        if committed {
            break;
        }
        assert!(Instant::now() < deadline, "no batch was committed");
        std::thread::sleep(Duration::from_millis(10));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    drop(stdin);

    let partial = figures(&env)[0];
    assert!(
        0 < partial && partial < MESSAGES as i64,
        "killed mid-run: {partial} sources"
    );
    assert_intact(&env);

    let out = env
        .cmd(["index-mbox", path.to_str().unwrap(), "--json"])
        .assert()
        .success();
    let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(v["unchanged"].as_i64().unwrap(), partial, "{v}");
    assert_eq!(
        v["indexed"].as_i64().unwrap(),
        MESSAGES as i64 - partial,
        "{v}"
    );
    assert_intact(&env);
    assert_eq!(figures(&env), want);
}
