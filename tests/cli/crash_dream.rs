//! `kill -9` in the middle of `dream`, at 20 seeded moments: the dream is
//! one IMMEDIATE transaction, so a killed run must leave the database as it
//! was (no fact, no event pruned) or, if it got past its commit, exactly as
//! a finished run; and the next dream must end where an uninterrupted one
//! does. The recall log is filled through `Store::log_recall`, the function
//! `search` logs with, because thousands of real searches would take minutes.

use std::process::Stdio;
use std::time::{Duration, Instant};

use alfred_mem::lcg::Lcg;
use alfred_mem::rank::query_hash;
use alfred_mem::store::Store;

use crate::crash::{assert_intact, trial_seed};
use crate::util::{TestEnv, mbox_message};

/// Messages, one chunk each, every one recalled.
const NOTES: usize = 1500;
/// The first this many chunks are recalled by three questions: promotable.
const PROMOTABLE: usize = 600;
/// One-question recalls spread over all chunks: scored, never promoted.
const NOISE_EVENTS: usize = 60_000;
/// Recalls older than the log is kept (56 days): the dream prunes them.
const OLD_EVENTS: usize = 20_000;
const RECALLED_AT: i64 = 1_772_366_400; // 2026-03-01T12:00:00Z
// Older than the 56 days the log is kept for routine mining: pruned.
const OLD_AT: i64 = RECALLED_AT - 60 * 86_400;
const DREAM_NOW: &str = "2026-03-02T12:00:00Z";
const TRIALS: u64 = 20;

/// A database with `NOTES` indexed notes and their recall log.
fn template() -> TestEnv {
    let env = TestEnv::new();
    let mbox: String = (0..NOTES)
        .map(|i| {
            // Words of its own in each note, so no two are near-duplicates.
            let words: Vec<String> = "abcdefgh".chars().map(|c| format!("n{i}{c}")).collect();
            mbox_message(
                &format!("note-{i}@dream.example"),
                "Sun, 1 Mar 2026 09:00:00 +0000",
                &format!("Plan n{i}"),
                &format!("Note {i}: {}.", words.join(" ")),
            )
        })
        .collect();
    let path = env.write("notes.mbox", mbox);
    env.cmd(["index-mbox"]).arg(&path).assert().success();
    let store = Store::open(env.db()).unwrap();
    let ids: Vec<i64> = {
        let db = env.sqlite();
        let mut stmt = db
            .prepare("SELECT id FROM memory_chunks ORDER BY id")
            .unwrap();
        stmt.query_map([], |r| r.get(0))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap()
    };
    assert_eq!(ids.len(), NOTES, "one chunk per note");
    for q in ["which plan", "the note about it", "what was decided"] {
        let hits: Vec<(i64, f64)> = ids[..PROMOTABLE].iter().map(|&id| (id, 0.9)).collect();
        store
            .log_recall(&hits, &query_hash(q), RECALLED_AT)
            .unwrap();
    }
    let spread = |n: usize, score: f64| -> Vec<(i64, f64)> {
        (0..n).map(|i| (ids[i % ids.len()], score)).collect()
    };
    store
        .log_recall(
            &spread(NOISE_EVENTS, 0.1),
            &query_hash("noise"),
            RECALLED_AT,
        )
        .unwrap();
    store
        .log_recall(&spread(OLD_EVENTS, 0.8), &query_hash("old"), OLD_AT)
        .unwrap();
    env
}

/// What a dream changes: the facts it promoted (chunk, text) and the recall
/// log (count, sum of ids, sum of chunk ids: rows are only ever deleted).
#[derive(Debug, PartialEq)]
struct DreamState {
    facts: Vec<(i64, String)>,
    events: (i64, i64, i64),
}

fn dream_state(env: &TestEnv) -> DreamState {
    let db = env.sqlite();
    let mut stmt = db
        .prepare(
            "SELECT f.promoted_from, c.text FROM memory_facts f
             JOIN memory_chunks c ON c.id = f.chunk_id ORDER BY f.promoted_from",
        )
        .unwrap();
    let facts = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap();
    let events = db
        .query_row(
            "SELECT count(*), coalesce(sum(id), 0), coalesce(sum(chunk_id), 0) FROM recall_events",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap();
    DreamState { facts, events }
}

/// A fresh TestEnv holding a copy of `template`'s database.
fn copy_of(template: &TestEnv) -> TestEnv {
    let env = TestEnv::new();
    std::fs::create_dir_all(env.db().parent().unwrap()).unwrap();
    std::fs::copy(template.db(), env.db()).unwrap();
    env
}

fn assert_promoted_once(env: &TestEnv) {
    let twice = env.count(
        "SELECT count(*) FROM (SELECT 1 FROM memory_facts WHERE promoted_from IS NOT NULL
         GROUP BY promoted_from HAVING count(*) > 1)",
    );
    assert_eq!(twice, 0, "a chunk was promoted twice");
}

#[test]
fn kill_9_at_20_seeded_moments_of_a_dream_loses_nothing_and_promotes_once() {
    let seed = trial_seed(0xd4ea_3000);
    let template = template();
    let untouched = dream_state(&template);
    assert_eq!(
        untouched.events.0,
        (3 * PROMOTABLE + NOISE_EVENTS + OLD_EVENTS) as i64
    );

    let clean = copy_of(&template);
    let started = Instant::now();
    clean_dream(&clean);
    let clean_ms = started.elapsed().as_millis() as u64;
    let done = dream_state(&clean);
    assert_eq!(done.facts.len(), PROMOTABLE);
    assert_eq!(done.events.0, (3 * PROMOTABLE + NOISE_EVENTS) as i64);

    let mut rng = Lcg(seed);
    let (mut mid_run, mut rolled_back) = (0, 0);
    for trial in 0..TRIALS {
        let env = copy_of(&template);
        let pause = Duration::from_millis(rng.below(clean_ms * 5 / 4 + 1));
        let mut child = env
            .std_cmd(["dream", "--json"])
            .env("ALFRED_MEM_NOW", DREAM_NOW)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(pause);
        let running = child.try_wait().unwrap().is_none();
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();

        assert_intact(&env);
        assert_promoted_once(&env);
        let after_kill = dream_state(&env);
        let outcome = if after_kill == untouched {
            "nothing written"
        } else if after_kill == done {
            "all written"
        } else {
            panic!("trial {trial}: a killed dream left a partial state: {after_kill:?}")
        };
        mid_run += running as u32;
        rolled_back += (running && after_kill == untouched) as u32;
        eprintln!(
            "dream kill -9 trial {trial} (seed {seed:#x}): killed {} ms after start of a \
             {clean_ms} ms run{}: {outcome}",
            pause.as_millis(),
            if running { "" } else { " (already done)" }
        );

        clean_dream(&env);
        assert_intact(&env);
        assert_promoted_once(&env);
        assert!(
            dream_state(&env) == done,
            "trial {trial}: the next dream differs"
        );
    }
    eprintln!(
        "dream kill -9: {mid_run} of {TRIALS} kills hit a running dream, \
         {rolled_back} of them before its commit"
    );
}

fn clean_dream(env: &TestEnv) {
    env.cmd(["dream", "--quiet"])
        .env("ALFRED_MEM_NOW", DREAM_NOW)
        .assert()
        .success();
}

/// A full disk at the dream's commit: one line, and the database as it was
/// (nothing promoted, nothing pruned); the next dream with room does it all.
#[test]
fn a_dream_that_cannot_write_its_commit_leaves_everything_as_it_was() {
    let template = template();
    let env = copy_of(&template);
    let untouched = dream_state(&env);
    let mut cmd = env.std_cmd(["dream"]);
    cmd.env("ALFRED_MEM_NOW", DREAM_NOW);
    // Room for the -shm (32 KiB) and a few WAL frames, not for the commit.
    crate::faults::limit_file_size(&mut cmd, 64 << 10);
    let out = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr, crate::faults::could_not_write(env.db()));
    assert_intact(&env);
    assert!(
        dream_state(&env) == untouched,
        "a failed dream changed the database"
    );

    clean_dream(&env);
    let done = dream_state(&env);
    assert_eq!(done.facts.len(), PROMOTABLE);
    assert_eq!(done.events.0, (3 * PROMOTABLE + NOISE_EVENTS) as i64);
}
