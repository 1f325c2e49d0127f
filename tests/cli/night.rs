//! Dream's night shift end to end (issue 17), with `ALFRED_MEM_NOW` and `TZ`
//! moving across weeks: a weekly habit becomes a routine and fades when it
//! stops, one busy evening does not; two wordings of one fact merge; two
//! phone numbers for one person are flagged, unrelated facts are not, and
//! 220 compatible facts are (almost) never flagged; `facts --stale`.

use serde_json::Value;

use crate::facts::{at, json_at};
use crate::util::{TestEnv, fixture, sample};

/// Kuala Lumpur: 01:30 UTC is 09:30 local, a morning there and a night in UTC.
const TZ: &str = "Asia/Kuala_Lumpur";

fn tz_json(env: &TestEnv, now: &str, args: &[&str]) -> Value {
    let out = at(env, now, args)
        .env("TZ", TZ)
        .arg("--json")
        .assert()
        .success();
    serde_json::from_slice(&out.get_output().stdout).unwrap()
}

fn search(env: &TestEnv, now: &str, query: &str) {
    at(env, now, ["search", query])
        .env("TZ", TZ)
        .assert()
        .success();
}

fn receipts(env: &TestEnv) {
    env.cmd(["index-receipts"])
        .arg(sample("receipts.json"))
        .assert()
        .success();
}

fn routines(facts: &Value) -> Vec<&Value> {
    facts
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["method"] == "routine")
        .collect()
}

/// Three Tuesdays, 09:30 in Kuala Lumpur (3, 10 and 17 March 2026).
const TUESDAYS: [&str; 3] = [
    "2026-03-03T01:30:00Z",
    "2026-03-10T01:20:00Z",
    "2026-03-17T02:10:00Z",
];

fn tuesday_habit(env: &TestEnv) -> Value {
    receipts(env);
    for t in TUESDAYS {
        search(env, t, "TNB kWh");
    }
    // A dry run shows the routine and writes nothing.
    let dry = tz_json(env, "2026-03-18T12:00:00Z", &["dream", "--dry-run"]);
    assert_eq!(dry["routines"][0]["fact_id"], Value::Null, "{dry}");
    assert_eq!(env.count("SELECT count(*) FROM memory_facts"), 0);
    tz_json(env, "2026-03-18T12:00:00Z", &["dream"])
}

#[test]
fn a_tuesday_morning_habit_over_three_weeks_becomes_a_routine() {
    let env = TestEnv::new();
    let report = tuesday_habit(&env);
    let learned = report["routines"].as_array().unwrap();
    assert_eq!(learned.len(), 1, "{report}");
    let text = learned[0]["text"].as_str().unwrap();
    assert_eq!(
        text, "Routine: on Tuesday mornings you look up TNB (electricity) receipts",
        "{report}"
    );
    assert_eq!(learned[0]["weeks"], 3);
    let facts = json_at(&env, "2026-03-18T12:00:00Z", &["facts"], 0);
    let r = routines(&facts);
    assert_eq!(r.len(), 1, "{facts}");
    assert_eq!(r[0]["text"], text);
    // The words come from the receipts' vendor, never from the query,
    // which the log keeps only as a hash.
    assert_eq!(
        env.count(
            "SELECT count(*) FROM memory_chunks WHERE source_type = 'fact' AND text LIKE '%kwh%'"
        ),
        0
    );
    // The next night, the same habit is not learned twice.
    let again = tz_json(&env, "2026-03-19T12:00:00Z", &["dream"]);
    assert_eq!(again["routines"][0]["renewed"], true, "{again}");
    let facts = json_at(&env, "2026-03-19T12:00:00Z", &["facts"], 0);
    assert_eq!(routines(&facts).len(), 1);
}

#[test]
fn the_same_habit_in_utc_is_a_tuesday_night() {
    let env = TestEnv::new();
    receipts(&env);
    for t in TUESDAYS {
        at(&env, t, ["search", "TNB electricity"])
            .env("TZ", "UTC")
            .assert()
            .success();
    }
    let out = at(&env, "2026-03-18T12:00:00Z", ["dream", "--json"])
        .env("TZ", "UTC")
        .assert()
        .success();
    let report: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let text = report["routines"][0]["text"].as_str().unwrap();
    assert!(text.starts_with("Routine: on Tuesday nights"), "{text}");
}

#[test]
fn four_recalls_in_one_evening_do_not_make_a_routine() {
    let env = TestEnv::new();
    receipts(&env);
    // 19:00-22:00 in Kuala Lumpur on one Tuesday.
    for t in [
        "2026-03-03T11:00:00Z",
        "2026-03-03T12:00:00Z",
        "2026-03-03T13:00:00Z",
        "2026-03-03T14:00:00Z",
    ] {
        search(&env, t, "TNB electricity");
    }
    let report = tz_json(&env, "2026-03-18T12:00:00Z", &["dream"]);
    assert_eq!(report["routines"], serde_json::json!([]), "{report}");
}

#[test]
fn a_routine_that_stops_fades() {
    let env = TestEnv::new();
    tuesday_habit(&env);
    // Nothing recalled for 200 days: the routine's confidence (0.6, halving
    // every 60 days) is below the line, and it has no recalls to earn a
    // second chance.
    let later = "2026-10-04T12:00:00Z";
    let report = tz_json(&env, later, &["dream"]);
    let faded = report["faded"].as_array().unwrap();
    assert_eq!(faded.len(), 1, "{report}");
    let all = json_at(&env, later, &["facts", "--all"], 0);
    let r = routines(&all);
    assert_eq!(r[0]["retracted_reason"], "faded");
    assert_eq!(routines(&json_at(&env, later, &["facts"], 0)).len(), 0);
}

fn remember(env: &TestEnv, now: &str, text: &str) -> i64 {
    json_at(env, now, &["remember", text], 0)["id"]
        .as_i64()
        .unwrap()
}

#[test]
fn two_phone_numbers_for_one_person_are_flagged_until_settled() {
    let env = TestEnv::new();
    let now = "2026-03-01T10:00:00Z";
    let a = remember(&env, now, "Jane Tan's phone number is 012-345 6789");
    let b = remember(&env, now, "Jane Tan's mobile is 019 888 7777");
    let dry = json_at(&env, now, &["dream", "--dry-run"], 0);
    assert_eq!(dry["conflicts"].as_array().unwrap().len(), 1, "{dry}");
    assert_eq!(env.count("SELECT count(*) FROM fact_conflicts"), 0);
    let report = json_at(&env, now, &["dream"], 0);
    assert_eq!(report["conflicts"].as_array().unwrap().len(), 1, "{report}");
    assert_eq!(report["conflicts"][0]["facts"], serde_json::json!([a, b]));
    let open = json_at(&env, now, &["facts", "--conflicts"], 0);
    assert_eq!(open.as_array().unwrap().len(), 1);
    assert_eq!(open[0]["facts"][0]["id"], a);
    assert_eq!(
        open[0]["facts"][1]["text"],
        "Jane Tan's mobile is 019 888 7777"
    );
    assert!(
        open[0]["reason"]
            .as_str()
            .unwrap()
            .contains("different numbers"),
        "{open}"
    );
    assert!(open[0]["found_at"].is_string());
    // Marked compatible: closed, and never flagged again.
    at(
        &env,
        now,
        ["facts", "--compatible", &b.to_string(), &a.to_string()],
    )
    .assert()
    .success();
    assert_eq!(
        json_at(&env, now, &["facts", "--conflicts"], 0),
        serde_json::json!([])
    );
    let report = json_at(&env, "2026-03-02T10:00:00Z", &["dream"], 0);
    assert_eq!(report["conflicts"], serde_json::json!([]));
    // Marking it twice names the pair and changes nothing.
    let out = at(
        &env,
        now,
        ["facts", "--compatible", &a.to_string(), &b.to_string()],
    )
    .assert()
    .code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(
        err.contains(&format!("facts {a} and {b} are not an open conflict")),
        "{err}"
    );
}

#[test]
fn forgetting_one_fact_closes_its_conflict() {
    let env = TestEnv::new();
    let now = "2026-03-01T10:00:00Z";
    remember(&env, now, "Kofi lives in Accra");
    let b = remember(&env, now, "Kofi lives in Kumasi");
    json_at(&env, now, &["dream"], 0);
    assert_eq!(
        json_at(&env, now, &["facts", "--conflicts"], 0)
            .as_array()
            .unwrap()
            .len(),
        1
    );
    at(&env, now, ["forget", &b.to_string()]).assert().success();
    assert_eq!(
        json_at(&env, now, &["facts", "--conflicts"], 0),
        serde_json::json!([])
    );
}

#[test]
fn two_unrelated_facts_are_not_flagged() {
    let env = TestEnv::new();
    let now = "2026-03-01T10:00:00Z";
    remember(&env, now, "Jane Tan is my contact at Acme");
    remember(&env, now, "Jane Tan's phone number is 012-345 6789");
    remember(&env, now, "Kofi Mensah's phone number is +233 24 555 0142");
    let report = json_at(&env, now, &["dream"], 0);
    assert_eq!(report["conflicts"], serde_json::json!([]), "{report}");
    assert_eq!(report["merged"], serde_json::json!([]), "{report}");
}

#[test]
fn two_wordings_of_one_fact_merge_into_the_newest_with_its_history() {
    let env = TestEnv::new();
    let old = remember(
        &env,
        "2026-03-01T10:00:00Z",
        "Kofi leads the Orion project from Accra",
    );
    at(&env, "2026-03-02T10:00:00Z", ["show", &old.to_string()])
        .assert()
        .success();
    let new = remember(
        &env,
        "2026-03-03T10:00:00Z",
        "From Accra, Kofi leads the Orion project",
    );
    let now = "2026-03-04T10:00:00Z";
    // A dry run lists the merge and writes nothing.
    let out = at(&env, now, ["dream", "--dry-run"]).assert().success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(
        text.contains(&format!("would merge fact {old} into fact {new}")),
        "{text}"
    );
    assert!(text.contains("1 would merge"), "{text}");
    assert_eq!(
        env.count("SELECT count(*) FROM memory_facts WHERE merged_into IS NOT NULL"),
        0
    );
    let report = json_at(&env, now, &["dream"], 0);
    assert_eq!(report["merged"][0]["fact_id"], old, "{report}");
    assert_eq!(report["merged"][0]["into"], new);
    let all = json_at(&env, now, &["facts", "--all"], 0);
    let merged = all
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["id"] == old)
        .unwrap();
    assert_eq!(merged["retracted_reason"], "merged");
    assert_eq!(merged["merged_into"], new);
    let facts = json_at(&env, now, &["facts"], 0);
    assert_eq!(facts.as_array().unwrap().len(), 1);
    assert_eq!(facts[0]["id"], new);
    assert_eq!(
        facts[0]["recalls"], 1,
        "the recall of the old wording moved: {facts}"
    );
}

/// The `co_recall` partners of `id` at `now`: (other id, strength).
fn co_recalled_with(env: &TestEnv, now: &str, id: i64) -> Vec<(i64, f64)> {
    json_at(env, now, &["related", &id.to_string()], 0)
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["kind"] == "co_recall")
        .map(|l| (l["id"].as_i64().unwrap(), l["strength"].as_f64().unwrap()))
        .collect()
}

#[test]
fn a_merged_fact_hands_its_links_to_the_survivor() {
    let env = TestEnv::new();
    let old = remember(
        &env,
        "2026-03-01T10:00:00Z",
        "Kofi leads the Orion project from Accra",
    );
    let budget = remember(
        &env,
        "2026-03-01T11:00:00Z",
        "The Orion budget was approved in May",
    );
    // Read together twice: a co_recall link of 0.2.
    for t in ["2026-03-02T10:00:00Z", "2026-03-02T11:00:00Z"] {
        at(&env, t, ["show", &old.to_string(), &budget.to_string()])
            .assert()
            .success();
    }
    let new = remember(
        &env,
        "2026-03-03T10:00:00Z",
        "From Accra, Kofi leads the Orion project",
    );
    let now = "2026-03-04T10:00:00Z";
    let before = co_recalled_with(&env, now, old);
    assert_eq!(before.len(), 1, "{before:?}");
    let report = json_at(&env, now, &["dream"], 0);
    assert_eq!(report["merged"][0]["into"], new, "{report}");
    let moved = co_recalled_with(&env, now, new);
    assert_eq!(moved.len(), 1, "{moved:?}");
    assert_eq!(moved[0].0, budget);
    assert!(
        (moved[0].1 - before[0].1).abs() < 1e-9,
        "{moved:?} vs {before:?}"
    );
    assert!(co_recalled_with(&env, now, old).is_empty());
    assert_eq!(co_recalled_with(&env, now, budget), vec![(new, moved[0].1)]);
}

#[test]
fn a_dream_fact_that_repeats_a_user_fact_merges_into_it_never_the_reverse() {
    let env = TestEnv::new();
    let now = "2026-03-01T10:00:00Z";
    let user = remember(&env, now, "Jane Tan's phone number is 012-345 6789");
    let conn = env.sqlite();
    // A dream fact with the same claim, as promotion would have made it.
    conn.execute_batch(
        "INSERT INTO memory_chunk_rows (source_type, source_id, seq, text, created_at)
         VALUES ('fact', 'dream:test', 0, 'The phone number of Jane Tan is 0123456789', 1772400000);
         INSERT INTO memory_facts (chunk_id, method, confidence, confidence_at, peak_confidence)
         VALUES (last_insert_rowid(), 'dream', 0.9, 1772400000, 0.9);",
    )
    .unwrap();
    let dream_id = env.count("SELECT max(chunk_id) FROM memory_facts");
    let report = json_at(&env, "2026-03-02T10:00:00Z", &["dream"], 0);
    assert_eq!(report["merged"][0]["fact_id"], dream_id, "{report}");
    assert_eq!(report["merged"][0]["into"], user);
}

#[test]
fn stale_lists_important_facts_untouched_for_thirty_days() {
    let env = TestEnv::new();
    let id = remember(
        &env,
        "2026-03-01T10:00:00Z",
        "My passport expires on 2 May 2031",
    );
    let fresh = json_at(&env, "2026-03-20T10:00:00Z", &["facts", "--stale"], 0);
    assert_eq!(fresh, serde_json::json!([]));
    let stale = json_at(&env, "2026-04-01T10:00:00Z", &["facts", "--stale"], 0);
    assert_eq!(stale[0]["id"], id, "{stale}");
    // Read again, it is no longer stale.
    at(&env, "2026-04-01T11:00:00Z", ["show", &id.to_string()])
        .assert()
        .success();
    let after = json_at(&env, "2026-04-02T10:00:00Z", &["facts", "--stale"], 0);
    assert_eq!(after, serde_json::json!([]));
}

/// The false-positive check: 220 realistic facts, none contradicting
/// another, remembered and dreamed over. The flagged pairs are printed
/// (`cargo test --test cli compatible_facts -- --nocapture`); the target is
/// under 2% of the facts.
#[test]
fn compatible_facts_are_rarely_flagged() {
    let env = TestEnv::new();
    let text = std::fs::read_to_string(fixture("night/compatible_facts.txt")).unwrap();
    let facts: Vec<&str> = text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .collect();
    assert!(facts.len() >= 200);
    {
        let mut store = alfred_mem::store::Store::open(env.db()).unwrap();
        for f in &facts {
            store.remember(f, 1_772_400_000).unwrap();
        }
    }
    let report = json_at(&env, "2026-03-02T10:00:00Z", &["dream"], 0);
    let flagged = report["conflicts"].as_array().unwrap();
    let merged = report["merged"].as_array().unwrap();
    eprintln!(
        "false-positive check: {} facts, {} pairs flagged ({:.1}%), {} merged",
        facts.len(),
        flagged.len(),
        100.0 * flagged.len() as f64 / facts.len() as f64,
        merged.len()
    );
    for c in flagged {
        eprintln!("  flagged {} — {}", c["facts"], c["reason"]);
    }
    assert!(
        (flagged.len() as f64) < 0.02 * facts.len() as f64,
        "{} flagged: {flagged:?}",
        flagged.len()
    );
    assert_eq!(merged.len(), 0, "{merged:?}");
}

#[test]
fn mcp_lists_conflicts_and_briefs_a_session() {
    let env = TestEnv::new();
    let now = "2026-03-01T10:00:00Z";
    let a = remember(&env, now, "Kofi lives in Accra");
    let b = remember(&env, now, "Kofi lives in Kumasi");
    json_at(&env, now, &["dream"], 0);
    let mut cmd = env.std_cmd(["mcp"]);
    cmd.env("ALFRED_MEM_NOW", "2026-04-15T10:00:00Z");
    let mut s = crate::mcp::Server::start(cmd);
    s.initialize();
    let got = s.call("memory_list_conflicts", serde_json::json!({}));
    let conflicts = &got["structuredContent"]["conflicts"];
    assert_eq!(conflicts.as_array().unwrap().len(), 1, "{got}");
    assert_eq!(conflicts[0]["facts"][0]["id"], a);
    assert_eq!(conflicts[0]["facts"][1]["id"], b);
    let prompts = s.result("prompts/list", serde_json::json!({}))["prompts"].clone();
    assert_eq!(prompts[1]["name"], "session_briefing");
    let got = s.result(
        "prompts/get",
        serde_json::json!({"name": "session_briefing"}),
    );
    let text = got["messages"][0]["content"]["text"].as_str().unwrap();
    // Both facts are 45 days untouched and important (taught: confidence 1).
    assert!(
        text.contains("Important facts untouched for 30 days or more:\n"),
        "{text}"
    );
    assert!(text.contains("Kofi lives in Kumasi"), "{text}");
    assert!(text.contains(&format!("facts {a} and {b}")), "{text}");
    s.finish();
}
