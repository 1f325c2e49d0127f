//! `dream` end to end, with `ALFRED_MEM_NOW` moving across days: what is
//! recalled by different questions becomes a fact, one query repeated does
//! not, `--dry-run` changes nothing, and two runs at once promote once.

use std::process::Stdio;

use serde_json::Value;

use crate::facts::{at, json_at};
use crate::util::{TestEnv, mbox_message};

const ACME: &str =
    "Acme renewal signed: clause 7.2 is removed and the new price is MYR 4,200 a month.";
const PARCEL: &str = "Your parcel is waiting at the Bangsar depot; collect it with code PX-88.";

/// (message id, RFC 2822 date, subject, body) -> an mbox file, indexed.
fn index_mail(env: &TestEnv, messages: &[(&str, &str, &str, &str)]) {
    let mbox: String = messages
        .iter()
        .map(|(id, date, subject, body)| mbox_message(id, date, subject, body))
        .collect();
    let path = env.write("mail.mbox", mbox);
    env.cmd(["index-mbox"]).arg(&path).assert().success();
}

fn chunk_id(env: &TestEnv, source_id: &str) -> i64 {
    env.count(&format!(
        "SELECT id FROM memory_chunks WHERE source_id = '{source_id}'"
    ))
}

fn search(env: &TestEnv, now: &str, query: &str) {
    at(env, now, ["search", query]).assert().success();
}

fn candidate(report: &Value, chunk: i64) -> &Value {
    report["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["chunk_id"] == chunk)
        .unwrap_or_else(|| panic!("chunk {chunk} is not a candidate: {report}"))
}

#[test]
fn a_week_of_recalls_becomes_a_fact_that_never_fades() {
    let env = TestEnv::new();
    index_mail(
        &env,
        &[
            (
                "acme@x",
                "Fri, 20 Feb 2026 09:00:00 +0000",
                "Acme renewal",
                ACME,
            ),
            (
                "parcel@x",
                "Sat, 28 Feb 2026 09:00:00 +0000",
                "Parcel",
                PARCEL,
            ),
            (
                "dinner@x",
                "Sat, 28 Feb 2026 10:00:00 +0000",
                "Dinner",
                "Dinner at Ama's on Friday, bring the photos from Osu.",
            ),
        ],
    );
    let (acme, parcel) = (chunk_id(&env, "acme@x"), chunk_id(&env, "parcel@x"));

    // One email found by three different questions over a week...
    search(&env, "2026-03-01T09:00:00Z", "acme renewal");
    search(&env, "2026-03-04T09:00:00Z", "was clause 7.2 removed");
    search(&env, "2026-03-07T09:00:00Z", "new Acme price per month");
    // ...and another found ten times by one question.
    for day in 1..=9 {
        search(&env, &format!("2026-03-0{day}T12:00:00Z"), "parcel depot");
    }
    search(&env, "2026-03-07T13:00:00Z", "PARCEL  depot");
    let events = env.count("SELECT count(*) FROM recall_events");
    let dream_day = "2026-03-10T03:00:00Z";

    // --dry-run shows the verdicts and changes nothing.
    let dry = json_at(&env, dream_day, &["dream", "--dry-run"], 0);
    assert_eq!(dry["dry_run"], true);
    assert_eq!(candidate(&dry, acme)["passes"], true);
    assert_eq!(candidate(&dry, acme)["reason"], "would be promoted");
    assert_eq!(dry["promoted"][0]["fact_id"], Value::Null);
    assert_eq!(env.count("SELECT count(*) FROM memory_facts"), 0);
    assert_eq!(env.count("SELECT count(*) FROM recall_events"), events);
    assert_eq!(
        env.count("SELECT count(*) FROM meta WHERE key = 'last_dream_at'"),
        0
    );

    // The real run promotes the email and not the parcel.
    let run = json_at(&env, dream_day, &["dream"], 0);
    let promoted = run["promoted"].as_array().unwrap();
    assert_eq!(promoted.len(), 1, "{run}");
    assert_eq!(promoted[0]["chunk_id"], acme);
    let fact = promoted[0]["fact_id"].as_i64().unwrap();
    let p = candidate(&run, parcel);
    assert_eq!(p["recall_count"], 10);
    assert_eq!(p["unique_queries"], 1);
    assert_eq!(p["passes"], false);
    assert!(p["reason"].as_str().unwrap().contains("1 distinct query"));
    for key in ["frequency", "relevance", "diversity", "recency", "total"] {
        assert!(candidate(&run, acme)[key].is_f64(), "{key}");
    }

    // `facts` lists it as learned by dream, with its source.
    let facts = json_at(&env, dream_day, &["facts"], 0);
    assert_eq!(facts[0]["id"], fact);
    assert_eq!(facts[0]["method"], "dream");
    assert_eq!(facts[0]["text"], format!("Acme renewal\n\n{ACME}"));
    let from = &facts[0]["promoted_from"];
    assert_eq!(from["id"], acme);
    assert_eq!(from["source_type"], "email");
    assert_eq!(from["source_id"], "acme@x");
    assert_eq!(from["dated_at"], "2026-02-20T09:00:00Z");
    at(&env, dream_day, ["facts"])
        .assert()
        .stdout(predicates::str::contains(format!(
            "from email chunk {acme} (acme@x), dated 2026-02-20"
        )));

    // 200 days later the fact still ranks first, undecayed.
    let later = "2026-09-24T03:00:00Z";
    let hits = json_at(
        &env,
        later,
        &["search", "acme renewal", "--explain", "--no-log"],
        0,
    );
    assert_eq!(hits[0]["id"], fact, "{hits}");
    assert_eq!(hits[0]["explain"]["decay"], 1.0);

    // A second dream never promotes the same chunk again.
    search(&env, "2026-09-24T04:00:00Z", "acme renewal");
    search(&env, "2026-09-24T04:00:00Z", "clause 7.2");
    search(&env, "2026-09-24T04:00:00Z", "acme price");
    let again = json_at(&env, later, &["dream"], 0);
    assert_eq!(again["promoted"], Value::Array(vec![]));

    // forget: gone from search and facts, still in facts --all.
    at(&env, later, ["forget", &fact.to_string()])
        .assert()
        .success();
    let hits = json_at(
        &env,
        later,
        &["search", "acme renewal", "--no-log", "--source", "fact"],
        1,
    );
    assert_eq!(hits, Value::Array(vec![]));
    assert_eq!(json_at(&env, later, &["facts"], 0), Value::Array(vec![]));
    let all = json_at(&env, later, &["facts", "--all"], 0);
    assert_eq!(all[0]["id"], fact);
    assert_eq!(all[0]["retracted_at"], later);
}

#[test]
fn purging_a_dream_fact_keeps_its_source_email() {
    let env = TestEnv::new();
    index_mail(
        &env,
        &[(
            "acme@x",
            "Fri, 20 Feb 2026 09:00:00 +0000",
            "Acme renewal",
            ACME,
        )],
    );
    for q in ["acme renewal", "clause 7.2", "acme price"] {
        search(&env, "2026-03-01T09:00:00Z", q);
    }
    let run = json_at(&env, "2026-03-01T10:00:00Z", &["dream"], 0);
    let fact = run["promoted"][0]["fact_id"].as_i64().unwrap();
    env.cmd(["forget", "--purge", &fact.to_string()])
        .assert()
        .success();
    let hits = env.json(["search", "clause 7.2", "--no-log"], 0);
    assert_eq!(hits.as_array().unwrap().len(), 1);
    assert_eq!(hits[0]["source_id"], "acme@x");
    assert_eq!(
        hits[0]["text"].as_str().unwrap(),
        format!("Acme renewal\n\n{ACME}")
    );
}

#[test]
fn under_cron_dream_prints_one_summary_line_and_quiet_prints_nothing() {
    let env = TestEnv::new();
    env.cmd(["remember", "the spare key is under the blue pot"])
        .assert()
        .success();
    env.cmd(["dream"])
        .assert()
        .success()
        .stdout(
            "dream: 0 candidates, 0 promoted, 0 merged, 0 routines, 0 conflicts, 0 faded, 0 links decayed, 0 links pruned, 0 events pruned\n",
        );
    env.cmd(["dream", "--quiet"]).assert().success().stdout("");
    env.cmd(["dream", "--quiet", "--json"]).assert().code(2);
}

#[test]
fn two_dreams_started_together_promote_each_chunk_once() {
    let env = TestEnv::new();
    const CHUNKS: usize = 40;
    let mail: Vec<(String, String)> = (0..CHUNKS)
        .map(|i| {
            (
                format!("m{i}@x"),
                format!(
                    "Project {i}: the kickoff for workstream w{i}x is on day {i} in room r{i}y."
                ),
            )
        })
        .collect();
    let messages: Vec<(&str, &str, &str, &str)> = mail
        .iter()
        .map(|(id, body)| {
            (
                id.as_str(),
                "Sun, 1 Mar 2026 09:00:00 +0000",
                "Kickoff",
                body.as_str(),
            )
        })
        .collect();
    index_mail(&env, &messages);
    {
        // Recalls written straight through the store: 3 questions per chunk,
        // plus enough one-question noise that the two runs overlap.
        let store = alfred_mem::store::Store::open(env.db()).unwrap();
        let now = 1_772_366_400; // 2026-03-01T12:00:00Z
        let ids: Vec<i64> = (1..=CHUNKS as i64).collect();
        for q in ["kickoff", "workstream", "which room"] {
            let hits: Vec<(i64, f64)> = ids.iter().map(|&id| (id, 0.9)).collect();
            store
                .log_recall(&hits, &alfred_mem::rank::query_hash(q), now)
                .unwrap();
        }
        let noise: Vec<(i64, f64)> = (0..20_000).map(|i| (1 + i % CHUNKS as i64, 0.1)).collect();
        store.log_recall(&noise, "noise", now).unwrap();
    }
    let spawn = || {
        env.std_cmd(["dream", "--json"])
            .env("ALFRED_MEM_NOW", "2026-03-01T13:00:00Z")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (a, b) = (spawn(), spawn());
    let mut promoted: Vec<i64> = Vec::new();
    for child in [a, b] {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let report: Value = serde_json::from_slice(&out.stdout).unwrap();
        for p in report["promoted"].as_array().unwrap() {
            promoted.push(p["chunk_id"].as_i64().unwrap());
        }
    }
    promoted.sort();
    assert_eq!(promoted, (1..=CHUNKS as i64).collect::<Vec<_>>());
    assert_eq!(
        env.count("SELECT count(*) FROM memory_facts WHERE method = 'dream'"),
        CHUNKS as i64
    );
}
