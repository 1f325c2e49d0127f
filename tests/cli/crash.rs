//! `kill -9` in the middle of an index run: a re-run must leave an intact
//! database with exactly the rows of an uninterrupted run. No timing is
//! asserted; the kill is placed by feeding stdin and waiting for a commit,
//! or, in the 20-trial test, by a seeded count of bytes fed plus a seeded
//! pause. The helpers here (mailbox, checks, RNG) serve the other fault tests.

use std::io::Write;
use std::time::{Duration, Instant};

use alfred_mem::lcg::Lcg;

use crate::util::{TestEnv, mbox_message};

/// Messages in the generated mailbox: a few import batches.
pub const MESSAGES: usize = 3000;

pub const WORDS: [&str; 24] = [
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

/// A deterministic mailbox of `MESSAGES` messages.
pub fn generated_mbox() -> Vec<u8> {
    generated_mbox_of(MESSAGES)
}

/// A deterministic mailbox: message i has its own id (`gen-{i}@crash.example`),
/// date and a few paragraphs of words drawn from a seeded generator, so runs
/// are repeatable.
pub fn generated_mbox_of(messages: usize) -> Vec<u8> {
    let mut rng = Lcg(1);
    let mut word = || *rng.pick(&WORDS);
    let mut out = String::new();
    for i in 0..messages {
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
pub fn figures(env: &TestEnv) -> [i64; 4] {
    [
        "SELECT count(*) FROM memory_sources",
        "SELECT count(*) FROM memory_chunks",
        "SELECT count(*) FROM memory_chunks WHERE superseded_at IS NULL",
        "SELECT count(*) FROM memory_fts_docsize",
    ]
    .map(|q| env.count(q))
}

/// `PRAGMA integrity_check` is ok and the full-text index agrees with the chunks.
pub fn assert_intact(env: &TestEnv) {
    let db = env.sqlite();
    let ok: String = db
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(ok, "ok");
    db.execute(
        "INSERT INTO memory_fts (memory_fts, rank) VALUES ('integrity-check', 1)",
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
    let (mut child, mut stdin) = env.spawn_fed(["index-mbox", "-"]);
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

/// The seed of randomised trials: `ALFRED_MEM_TEST_SEED` to replay a
/// failure, else `default`, so CI runs the same moments every time.
pub fn trial_seed(default: u64) -> u64 {
    std::env::var("ALFRED_MEM_TEST_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

/// Every current chunk as (source type, source id, seq, text), sorted.
pub fn chunk_texts(env: &TestEnv) -> Vec<(String, String, i64, String)> {
    let db = env.sqlite();
    let mut stmt = db
        .prepare(
            "SELECT source_type, source_id, seq, text FROM memory_chunks
             WHERE superseded_at IS NULL ORDER BY source_type, source_id, seq, text",
        )
        .unwrap();
    stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap()
}

/// No source is stored twice, and no current chunk twice (same source and
/// text, or same source and position).
pub fn assert_no_duplicates(env: &TestEnv) {
    for (what, sql) in [
        (
            "source rows",
            "SELECT count(*) FROM (SELECT 1 FROM memory_sources
             GROUP BY source_type, source_id HAVING count(*) > 1)",
        ),
        (
            "chunk texts",
            "SELECT count(*) FROM (SELECT 1 FROM memory_chunks WHERE superseded_at IS NULL
             GROUP BY source_type, source_id, text HAVING count(*) > 1)",
        ),
        (
            "chunk positions",
            "SELECT count(*) FROM (SELECT 1 FROM memory_chunks WHERE superseded_at IS NULL
             GROUP BY source_type, source_id, seq HAVING count(*) > 1)",
        ),
    ] {
        assert_eq!(env.count(sql), 0, "duplicate {what}");
    }
}

/// Sources committed so far; 0 when the killed run never created the table.
fn sources_or_zero(env: &TestEnv) -> i64 {
    if !env.db().exists() {
        return 0;
    }
    env.sqlite()
        .query_row("SELECT count(*) FROM memory_sources", [], |r| r.get(0))
        .unwrap_or(0)
}

/// The database file exists and its first migration is committed.
fn has_schema(env: &TestEnv) -> bool {
    env.db().exists()
        && env
            .sqlite()
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE name = 'memory_fts'",
                [],
                |r| r.get::<_, i64>(0),
            )
            .unwrap_or(0)
            == 1
}

/// Messages per import transaction.
const BATCH: i64 = alfred_mem::ingest::run::MAIL_BATCH_MESSAGES as i64;
const KILL_TRIALS: u64 = 20;

#[test]
fn kill_9_at_20_seeded_moments_of_an_import_each_rerun_converges() {
    let seed = trial_seed(0x6b11_9000);
    let mbox = generated_mbox();
    let clean = TestEnv::new();
    let path = clean.write("gen.mbox", &mbox);
    clean.cmd(["index-mbox"]).arg(&path).assert().success();
    let (want_figures, want_texts) = (figures(&clean), chunk_texts(&clean));

    let mut rng = Lcg(seed);
    let len = mbox.len() as u64;
    let mut states = std::collections::BTreeMap::<i64, u32>::new();
    for trial in 0..KILL_TRIALS {
        // The first trial stops before a batch is complete, the last after
        // the whole mailbox went in; the others at a seeded byte count.
        let fed = match trial {
            0 => len / 10,
            t if t == KILL_TRIALS - 1 => len,
            _ => rng.below(len + 1),
        } as usize;
        let pause = Duration::from_millis(rng.below(100));
        let env = TestEnv::new();
        let (mut child, mut stdin) = env.spawn_fed(["index-mbox", "-"]);
        stdin.write_all(&mbox[..fed]).unwrap();
        // Left open unless all was fed: the importer waits for more.
        let stdin = (fed < mbox.len()).then_some(stdin);
        std::thread::sleep(pause);
        let running = child.try_wait().unwrap().is_none();
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        drop(stdin);

        let partial = sources_or_zero(&env);
        eprintln!(
            "kill -9 trial {trial} (seed {seed:#x}): {fed} of {len} bytes fed, \
             killed {} ms later{}, {partial} messages committed",
            pause.as_millis(),
            if running { "" } else { " (already done)" }
        );
        assert!(
            partial % BATCH == 0 || partial == MESSAGES as i64,
            "a batch is committed whole or not at all: {partial}"
        );
        *states.entry(partial).or_default() += 1;
        // Killed while the schema was being created, the file has no tables
        // yet; there is nothing to check until the re-run creates them.
        if has_schema(&env) {
            assert_intact(&env);
            assert_no_duplicates(&env);
        }

        let v = env.json(["index-mbox", path.to_str().unwrap()], 0);
        assert_eq!(v["unchanged"], partial, "trial {trial}: {v}");
        assert_eq!(
            v["indexed"],
            MESSAGES as i64 - partial,
            "trial {trial}: {v}"
        );
        assert_intact(&env);
        assert_no_duplicates(&env);
        assert_eq!(figures(&env), want_figures, "trial {trial}");
        assert!(
            chunk_texts(&env) == want_texts,
            "trial {trial}: texts differ"
        );
    }
    eprintln!("kill -9 trials: messages committed at the kill -> trials: {states:?}");
}
