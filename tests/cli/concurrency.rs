//! Several processes on one database. WAL lets readers run beside the
//! importer and the 30 s busy timeout makes writers queue instead of failing
//! with "database is locked". What readers see must be consistent: an
//! import batch appears whole or not at all, and a fact remembered a moment
//! ago is found by the next search. The overlap is arranged, not hoped for:
//! the import reads stdin and cannot finish before the test closes it.

use std::collections::{BTreeSet, HashMap};
use std::io::Write;
use std::process::{Output, Stdio};
use std::time::Duration;

use serde_json::Value;

use alfred_mem::lcg::Lcg;
use alfred_mem::rank::query_hash;
use alfred_mem::store::Store;

use crate::crash::{assert_intact, assert_no_duplicates, chunk_texts, figures, generated_mbox_of};
use crate::util::{TestEnv, mbox_message};

/// Six import batches.
const MESSAGES: usize = 12_000;
/// Slices of the mailbox fed between rounds of the other commands.
const ROUNDS: usize = 24;
const BATCH: usize = alfred_mem::ingest::run::MAIL_BATCH_MESSAGES;

/// Exit code and stdout of a finished command whose stderr must be empty:
/// no "database is locked", no warning.
fn quiet(out: Output, what: &str) -> (i32, Value) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.is_empty(), "{what}: {stderr}");
    let json = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (out.status.code().unwrap(), json)
}

fn email_chunks(status: &Value) -> i64 {
    status["chunks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["source_type"] == "email")
        .map_or(0, |c| c["current"].as_i64().unwrap())
}

#[test]
fn search_remember_and_status_run_during_an_import_without_lock_errors() {
    let env = TestEnv::new();
    let mbox = generated_mbox_of(MESSAGES);
    let (import, mut stdin) = env.spawn_fed(["index-mbox", "-", "--json"]);

    let mut seen: Vec<i64> = Vec::new();
    let mut acme_hits: Vec<Value> = Vec::new();
    for round in 0..ROUNDS {
        let slice = &mbox[round * mbox.len() / ROUNDS..(round + 1) * mbox.len() / ROUNDS];
        stdin.write_all(slice).unwrap();

        let fact = format!("round {round}: the locker code is zq{round}x");
        let out = env.std_cmd(["remember", &fact, "--json"]).output().unwrap();
        assert_eq!(quiet(out, "remember").0, 0);
        // Read your own write, while the importer commits beside it.
        let token = format!("zq{round}x");
        let out = env.std_cmd(["search", &token, "--json"]).output().unwrap();
        let (code, hits) = quiet(out, "search for the new fact");
        assert_eq!(code, 0, "round {round}: the fact just remembered is found");
        assert_eq!(hits[0]["source_type"], "fact");
        assert_eq!(hits[0]["text"], fact);

        let out = env.std_cmd(["search", "acme", "--json"]).output().unwrap();
        let (code, hits) = quiet(out, "search acme");
        assert!(code == 0 || code == 1, "search acme exited {code}");
        acme_hits.extend(hits.as_array().into_iter().flatten().cloned());

        let out = env.std_cmd(["status", "--json"]).output().unwrap();
        let (code, status) = quiet(out, "status");
        assert_eq!(code, 0);
        let emails = email_chunks(&status);
        assert!(
            seen.last().is_none_or(|&last| last <= emails),
            "chunks went back: {seen:?} then {emails}"
        );
        seen.push(emails);
    }
    drop(stdin);
    let out = import.wait_with_output().unwrap();
    let (code, summary) = quiet(out, "index-mbox");
    assert_eq!(code, 0);
    assert_eq!(summary["indexed"], MESSAGES as i64);

    // Every count status saw is the chunk count of a whole number of
    // batches: no reader ever saw part of one.
    let per_message: HashMap<String, i64> = {
        let db = env.sqlite();
        let mut stmt = db
            .prepare(
                "SELECT source_id, count(*) FROM memory_chunks
                 WHERE source_type = 'email' GROUP BY source_id",
            )
            .unwrap();
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap()
    };
    let mut boundaries = BTreeSet::from([0]);
    let mut total = 0;
    for i in 0..MESSAGES {
        total += per_message[&format!("gen-{i}@crash.example")];
        if (i + 1) % BATCH == 0 || i + 1 == MESSAGES {
            boundaries.insert(total);
        }
    }
    for emails in &seen {
        assert!(
            boundaries.contains(emails),
            "{emails} is not a batch boundary"
        );
    }
    // Every hit a search returned mid-import is a committed row, exactly as
    // it stands once the import is done.
    let db = env.sqlite();
    for hit in &acme_hits {
        let (source_id, text): (String, String) = db
            .query_row(
                "SELECT source_id, text FROM memory_chunks WHERE id = ?1",
                [hit["id"].as_i64().unwrap()],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        assert_eq!(
            (hit["source_id"].as_str(), hit["text"].as_str()),
            (Some(&*source_id), Some(&*text))
        );
    }
    let distinct: BTreeSet<_> = seen.iter().collect();
    eprintln!(
        "concurrency: {ROUNDS} rounds of remember + 2 searches + status during the import; \
         {} distinct batch states seen {distinct:?}; {} hits for acme checked",
        distinct.len(),
        acme_hits.len()
    );
    assert_eq!(
        env.count("SELECT count(*) FROM memory_facts WHERE method = 'user'"),
        ROUNDS as i64
    );
    assert_intact(&env);
}

/// Both dreams are started while the test holds the write lock, so both are
/// running and waiting when it is released: they really race. Each chunk is
/// promoted once, and neither fails with "database is locked".
#[test]
fn two_dreams_waiting_on_one_lock_promote_each_chunk_once() {
    const CHUNKS: usize = 200;
    let env = TestEnv::new();
    let mbox: String = (0..CHUNKS)
        .map(|i| {
            mbox_message(
                &format!("race-{i}@x"),
                "Sun, 1 Mar 2026 09:00:00 +0000",
                &format!("Race r{i}a"),
                &format!("Lane r{i}b starts at gate r{i}c with car r{i}d."),
            )
        })
        .collect();
    let path = env.write("race.mbox", mbox);
    env.cmd(["index-mbox"]).arg(&path).assert().success();
    {
        let store = Store::open(env.db()).unwrap();
        let at = 1_772_366_400; // 2026-03-01T12:00:00Z
        let ids: Vec<i64> = (1..=CHUNKS as i64).collect();
        for q in ["which lane", "which gate", "which car"] {
            let hits: Vec<(i64, f64)> = ids.iter().map(|&id| (id, 0.9)).collect();
            store.log_recall(&hits, &query_hash(q), at).unwrap();
        }
    }

    let lock = env.sqlite();
    lock.execute_batch("BEGIN IMMEDIATE").unwrap();
    let spawn = || {
        env.std_cmd(["dream", "--json"])
            .env("ALFRED_MEM_NOW", "2026-03-01T13:00:00Z")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let mut dreams = [spawn(), spawn()];
    // Give each a chance to fail on the lock instead of waiting for it.
    std::thread::sleep(Duration::from_millis(500));
    for d in &mut dreams {
        assert!(
            d.try_wait().unwrap().is_none(),
            "a dream gave up on the lock"
        );
    }
    lock.execute_batch("COMMIT").unwrap();

    let mut promoted: Vec<i64> = Vec::new();
    for d in dreams {
        let (code, report) = quiet(d.wait_with_output().unwrap(), "dream");
        assert_eq!(code, 0);
        for p in report["promoted"].as_array().unwrap() {
            promoted.push(p["chunk_id"].as_i64().unwrap());
        }
    }
    promoted.sort();
    assert_eq!(promoted, (1..=CHUNKS as i64).collect::<Vec<_>>());
    assert_eq!(
        env.count("SELECT count(DISTINCT promoted_from) FROM memory_facts WHERE method = 'dream'"),
        CHUNKS as i64
    );
    assert_eq!(
        env.count("SELECT count(*) FROM memory_facts WHERE method = 'dream'"),
        CHUNKS as i64
    );
}

/// Two imports of one mailbox at once: their batches interleave, each
/// message is indexed by exactly one of them, and nothing is stored twice.
#[test]
fn two_imports_of_one_mailbox_at_once_store_each_message_once() {
    let clean = TestEnv::new();
    let mbox = clean.write("gen.mbox", generated_mbox_of(MESSAGES));
    clean.cmd(["index-mbox"]).arg(&mbox).assert().success();

    let env = TestEnv::new();
    let spawn = || {
        env.std_cmd(["index-mbox", "--json"])
            .arg(&mbox)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (a, b) = (spawn(), spawn());
    let (mut indexed, mut unchanged) = (0, 0);
    for child in [a, b] {
        let (code, summary) = quiet(child.wait_with_output().unwrap(), "index-mbox");
        assert_eq!(code, 0);
        eprintln!("two imports: one indexed {}", summary["indexed"]);
        indexed += summary["indexed"].as_i64().unwrap();
        unchanged += summary["unchanged"].as_i64().unwrap();
    }
    assert_eq!((indexed, unchanged), (MESSAGES as i64, MESSAGES as i64));
    assert_intact(&env);
    assert_no_duplicates(&env);
    assert_eq!(figures(&env), figures(&clean));
    assert!(chunk_texts(&env) == chunk_texts(&clean));
}

/// Messages of 20 paragraphs (20 chunks) of numbered words: cheap to parse,
/// dear to index, so the importer's writer, not its parser, sets the pace
/// and always has a batch waiting.
fn write_heavy_mbox(messages: usize) -> Vec<u8> {
    let mut rng = Lcg(7);
    let mut out = String::new();
    for i in 0..messages {
        let paragraphs: Vec<String> = (0..20)
            .map(|_| {
                (0..25)
                    .map(|_| format!("w{}", rng.below(50_000)))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        out.push_str(&mbox_message(
            &format!("heavy-{i}@x"),
            "Thu, 1 Jan 2026 10:00:00 +0000",
            &format!("Heavy {i}"),
            &paragraphs.join("\n\n"),
        ));
    }
    out.into_bytes()
}

/// Regression: an importer with batches queued committed them back to back,
/// and a writer waiting with SQLite's busy handler (backing off to 100 ms
/// between looks) found the lock free only when the import ran out of work:
/// `remember` waited for the whole import, and after 30 s failed with
/// "database is locked". It must get in between two batches.
#[test]
fn remember_gets_in_between_the_batches_of_a_busy_import() {
    // Eight batches: a starved `remember`, asked at the first commit, gets
    // in only when the importer runs out of work (seven batches in), well
    // past the two batches allowed below. With four it would still pass.
    const HEAVY: usize = 8 * BATCH;
    let env = TestEnv::new();
    let mbox = write_heavy_mbox(HEAVY);
    let (import, mut stdin) = env.spawn_fed(["index-mbox", "-", "--json"]);
    // Everything is fed, but stdin stays open: the import cannot finish
    // before the test has looked.
    let feeder = std::thread::spawn(move || {
        stdin.write_all(&mbox).unwrap();
        stdin
    });
    let sources = || {
        rusqlite::Connection::open_with_flags(env.db(), rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .and_then(|c| c.query_row("SELECT count(*) FROM memory_sources", [], |r| r.get(0)))
            .unwrap_or(0i64)
    };
    let deadline = std::time::Instant::now() + Duration::from_secs(120);
    while !env.db().exists() || sources() == 0 {
        assert!(
            std::time::Instant::now() < deadline,
            "no batch was committed"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    // Remember, again and again, until the import has written every batch
    // it could; note how many messages were committed when each began.
    let drained = (HEAVY / BATCH - 1) * BATCH; // the last batch needs EOF
    let mut asked: Vec<(i64, i64)> = Vec::new();
    let mut round = 0;
    loop {
        let committed = sources();
        if committed as usize >= drained {
            break;
        }
        let text = format!("the boiler was serviced {round} times");
        round += 1;
        let out = env.std_cmd(["remember", &text, "--json"]).output().unwrap();
        let (code, fact) = quiet(out, "remember");
        assert_eq!(code, 0);
        asked.push((committed, fact["id"].as_i64().unwrap()));
    }
    drop(feeder.join().unwrap());
    let (code, summary) = quiet(import.wait_with_output().unwrap(), "index-mbox");
    assert_eq!(code, 0);
    assert_eq!(summary["indexed"], HEAVY as i64);
    assert_intact(&env);

    // Where each fact landed among the batches: at most one batch after
    // the one being written when it asked (two, if one committed while
    // `remember` started).
    let mut worst = 0;
    for (committed, fact_id) in &asked {
        let before_it = env.count(&format!(
            "SELECT count(DISTINCT source_id) FROM memory_chunks
             WHERE source_type = 'email' AND id < {fact_id}"
        ));
        assert!(
            before_it <= committed + 2 * BATCH as i64,
            "remember asked at {committed} messages committed and got in only at {before_it}"
        );
        worst = worst.max(before_it - committed);
    }
    eprintln!(
        "remember during a busy import: {} facts, each in at most {worst} messages after it asked",
        asked.len()
    );
}

/// Commands started together on a database that does not exist yet (the
/// first import beside a cron job): the switch to WAL must wait for the
/// others like every other lock, not fail with "database is locked".
#[test]
fn commands_opening_a_new_database_together_all_succeed() {
    for _ in 0..10 {
        let env = TestEnv::new();
        let started: Vec<_> = (0..4)
            .map(|n| {
                env.std_cmd(["remember", &format!("fact number {n}"), "--json"])
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for child in started {
            let (code, _) = quiet(child.wait_with_output().unwrap(), "remember");
            assert_eq!(code, 0);
        }
        let facts = env.cmd(["facts", "--json"]).output().unwrap();
        let facts: Value = serde_json::from_slice(&facts.stdout).unwrap();
        assert_eq!(facts.as_array().map(Vec::len), Some(4), "{facts}");
    }
}
