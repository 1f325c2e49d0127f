//! Living memory end to end (issue 15), fast-forwarded with `ALFRED_MEM_NOW`:
//! `show` reads whole sources and is a genuine recall; recalls renew and
//! stretch the forgetting curve up to 3×; dream facts fade, once get a second
//! chance, and pinned ones never fade; a clock shift changes no ranking.

use serde_json::Value;

use crate::facts::{at, json_at};
use crate::util::{TestEnv, mbox_message};

/// Two equally good matches, 60 days apart, and an unrelated receipt-like mail.
fn two_contracts(env: &TestEnv) -> (i64, i64) {
    let mbox: String = [
        (
            "old@x",
            "Thu, 1 Jan 2026 09:00:00 +0000",
            "Contract draft",
            "The Acme contract draft is attached for review by the legal team.",
        ),
        (
            "new@x",
            "Mon, 2 Mar 2026 09:00:00 +0000",
            "Contract final",
            "The Acme contract final is attached for signature by the directors.",
        ),
    ]
    .iter()
    .map(|(id, date, subject, body)| mbox_message(id, date, subject, body))
    .collect();
    let path = env.write("mail.mbox", mbox);
    at(env, "2026-03-03T00:00:00Z", ["index-mbox"])
        .arg(path)
        .assert()
        .success();
    let id = |s: &str| {
        env.count(&format!(
            "SELECT id FROM memory_chunks WHERE source_id = '{s}'"
        ))
    };
    (id("old@x"), id("new@x"))
}

fn explain(env: &TestEnv, now: &str, query: &str) -> Vec<Value> {
    json_at(env, now, &["search", "--no-log", "--explain", query], 0)
        .as_array()
        .unwrap()
        .clone()
}

fn hit(hits: &[Value], id: i64) -> &Value {
    hits.iter()
        .find(|h| h["id"] == id)
        .expect("the chunk is a hit")
}

fn recalls(env: &TestEnv) -> i64 {
    env.count("SELECT count(*) FROM memory_recalls")
}

#[test]
fn show_prints_the_whole_message_and_marks_the_part_found() {
    let env = TestEnv::new();
    let body = format!(
        "{}\n\n{}",
        "First paragraph about the boat trip to Pangkor with the whole family in June.",
        "Second paragraph: the ferry leaves Lumut at nine, bring the blue cooler box along."
    );
    let message = mbox_message("trip@x", "Mon, 2 Mar 2026 09:00:00 +0000", "Pangkor", &body)
        .replace("Subject:", "To: Jane Tan <jane@x>, bob@x\nSubject:");
    let path = env.write("m.mbox", message);
    env.cmd(["index-mbox"]).arg(path).assert().success();
    let second = env.count("SELECT id FROM memory_chunks WHERE text LIKE '%ferry%'");
    let out = env.cmd(["show", &second.to_string()]).assert().success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(text.contains("Subject: Pangkor"), "{text}");
    assert!(
        text.contains("From: Sender <sender@mail.example>"),
        "{text}"
    );
    assert!(
        text.contains("First paragraph"),
        "the whole message: {text}"
    );
    assert!(
        text.contains(">>> part 2 of 2, the part found\nSecond paragraph"),
        "{text}"
    );
    let json = env.json(["show", &second.to_string()], 0);
    let item = &json[0];
    assert_eq!(item["id"], second);
    assert_eq!(item["source_type"], "email");
    assert_eq!(item["source_id"], "trip@x");
    assert_eq!(item["dated_at"], "2026-03-02T09:00:00Z");
    assert_eq!(item["to"], "Jane Tan <jane@x>, bob@x");
    assert!(text.contains("To: Jane Tan <jane@x>, bob@x"), "{text}");
    assert!(item["text"].as_str().unwrap().contains("First paragraph"));
    assert!(
        item["chunk_text"]
            .as_str()
            .unwrap()
            .starts_with("Second paragraph")
    );
}

#[test]
fn show_of_an_unknown_id_is_exit_2_naming_it_and_records_nothing() {
    let env = TestEnv::new();
    let (old, _) = two_contracts(&env);
    let out = env.cmd(["show", &old.to_string(), "4242"]).assert().code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(err.contains("no chunk with id 4242"), "{err}");
    assert_eq!(recalls(&env), 0);
}

#[test]
fn show_is_a_genuine_recall_but_search_listings_no_log_and_as_of_are_not() {
    let env = TestEnv::new();
    let (old, new) = two_contracts(&env);
    let now = "2026-03-10T00:00:00Z";
    at(&env, now, ["search", "acme contract"])
        .assert()
        .success();
    at(&env, now, ["show", "--no-log", &old.to_string()])
        .assert()
        .success();
    at(
        &env,
        now,
        ["show", "--as-of", "2026-03-05", &old.to_string()],
    )
    .assert()
    .success();
    assert_eq!(
        recalls(&env),
        0,
        "listings, --no-log and --as-of never count"
    );
    at(&env, now, ["show", &old.to_string(), &new.to_string()])
        .assert()
        .success();
    assert_eq!(recalls(&env), 2);
    assert_eq!(
        env.count("SELECT count(DISTINCT call_id) FROM memory_recalls WHERE via = 'show'"),
        1,
        "one show call: recalled together"
    );
    // --as-of before the reading does not see it.
    let before = json_at(
        &env,
        now,
        &[
            "search",
            "--explain",
            "--as-of",
            "2026-03-09",
            "acme contract",
        ],
        0,
    );
    assert_eq!(
        hit(before.as_array().unwrap(), old)["explain"]["recalls"],
        0
    );
}

#[test]
fn the_curve_composes_and_a_recall_renews_and_stretches_it_up_to_three_times() {
    let env = TestEnv::new();
    let (old, new) = two_contracts(&env);
    // Unread: ages run from the newest thing in memory (2 March), so the
    // 60-day-older draft keeps a quarter, at any later clock.
    for now in ["2026-03-03T00:00:00Z", "2027-06-01T00:00:00Z"] {
        let hits = explain(&env, now, "acme contract");
        assert_eq!(hits[0]["id"], new, "{now}");
        let e = &hit(&hits, old)["explain"];
        assert!((e["decay"].as_f64().unwrap() - 0.25).abs() < 1e-3, "{e}");
        assert_eq!(e["half_life_days"], 30.0);
        assert_eq!(e["recalls"], 0);
        assert_eq!(e["last_recalled_at"], Value::Null);
    }
    // Read once on 1 May: the draft decays again from then, with 45 days.
    at(&env, "2026-05-01T00:00:00Z", ["show", &old.to_string()])
        .assert()
        .success();
    let hits = explain(&env, "2026-05-31T00:00:00Z", "acme contract");
    assert_eq!(hits[0]["id"], old, "the draft that was read comes first");
    let e = &hit(&hits, old)["explain"];
    assert_eq!(e["recalls"], 1);
    assert_eq!(e["last_recalled_at"], "2026-05-01T00:00:00Z");
    assert_eq!(e["half_life_days"], 45.0);
    assert!((e["decay"].as_f64().unwrap() - 1.0).abs() < 1e-9, "{e}");
    // The unread final is 59.6 days older than that reading: about a quarter.
    let e = &hit(&hits, new)["explain"];
    assert!((e["decay"].as_f64().unwrap() - 0.252).abs() < 1e-3, "{e}");
    // Each reading adds half the base, up to three times it.
    for (n, want) in [(2, 60.0), (3, 75.0), (4, 90.0), (5, 90.0), (6, 90.0)] {
        at(&env, "2026-05-02T00:00:00Z", ["show", &old.to_string()])
            .assert()
            .success();
        let e =
            hit(&explain(&env, "2026-05-31T00:00:00Z", "acme contract"), old)["explain"].clone();
        assert_eq!(e["recalls"], n);
        assert_eq!(e["half_life_days"], want, "after {n} readings");
    }
}

#[test]
fn per_source_half_lives_are_read_from_the_flag_and_the_environment() {
    let env = TestEnv::new();
    let (old, _) = two_contracts(&env);
    let now = "2026-03-03T00:00:00Z";
    let hits = json_at(
        &env,
        now,
        &[
            "search",
            "--no-log",
            "--explain",
            "--half-life",
            "email=60,receipt=365",
            "acme contract",
        ],
        0,
    );
    let e = &hit(hits.as_array().unwrap(), old)["explain"];
    assert_eq!(e["half_life_days"], 60.0);
    assert!((e["decay"].as_f64().unwrap() - 0.5).abs() < 1e-3, "{e}");
    let out = at(&env, now, ["search", "acme"])
        .env("ALFRED_MEM_HALF_LIFE", "mail=3")
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(
        err.contains("--half-life: \"mail=3\": unknown source \"mail\""),
        "{err}"
    );
}

/// Three different questions about one message, then a dream: the fact
/// dream promotes, and its id.
fn promoted_fact(env: &TestEnv, searched_at: &str) -> i64 {
    for q in [
        "acme contract draft",
        "legal review of the draft",
        "contract for acme",
    ] {
        at(env, searched_at, ["search", q]).assert().success();
    }
    let report = json_at(env, searched_at, &["dream"], 0);
    let promoted = report["promoted"].as_array().unwrap();
    assert!(!promoted.is_empty(), "{report}");
    promoted[0]["fact_id"].as_i64().unwrap()
}

fn fact(env: &TestEnv, now: &str, id: i64) -> Value {
    let facts = json_at(env, now, &["facts", "--all"], 0);
    facts
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["id"] == id)
        .cloned()
        .expect("the fact is listed")
}

#[test]
fn an_old_archive_message_recalled_this_week_is_promoted_like_a_new_one() {
    let env = TestEnv::new();
    let mbox = mbox_message(
        "2002@x",
        "Mon, 4 Mar 2002 09:00:00 +0000",
        "Acme contract draft",
        "The Acme contract draft is attached for legal review before the board meets.",
    );
    let path = env.write("old.mbox", mbox);
    env.cmd(["index-mbox"]).arg(path).assert().success();
    // Searched 24 years later: the decayed score is ~0, the relevance is not.
    let id = promoted_fact(&env, "2026-12-01T00:00:00Z");
    assert!(id > 0);
}

#[test]
fn a_dream_fact_fades_after_its_one_second_chance_unless_pinned() {
    let env = TestEnv::new();
    two_contracts(&env);
    let t0 = "2026-03-10T00:00:00Z";
    let id = promoted_fact(&env, t0);
    let f = fact(&env, t0, id);
    let c0 = f["confidence"].as_f64().unwrap();
    assert!(
        (0.7..=1.0).contains(&c0),
        "starts at its promotion score: {f}"
    );
    assert_eq!(f["pinned"], false);
    assert_eq!(f["recalls"], 0);
    assert_eq!(f["retracted_reason"], Value::Null);
    // 60 days on: half.
    let later = fact(&env, "2026-05-09T00:00:00Z", id);
    assert!((later["confidence"].as_f64().unwrap() - c0 / 2.0).abs() < 1e-6);
    // Below 0.1 once c0 × 2^(−d/60) < 0.1: at d = 60 log2(10 c0) days.
    let fades_after = 60.0 * (10.0 * c0).log2();
    let day = |d: f64| {
        let t = chrono::DateTime::parse_from_rfc3339(t0).unwrap()
            + chrono::Duration::seconds((d * 86400.0) as i64);
        t.to_rfc3339()
    };
    let report = json_at(&env, &day(fades_after + 1.0), &["dream"], 0);
    assert_eq!(report["reprieved"], serde_json::json!([id]), "{report}");
    let f = fact(&env, &day(fades_after + 1.0), id);
    assert!(f["reprieved_at"].is_string(), "{f}");
    assert_eq!(f["retracted_reason"], Value::Null);
    // The reprieve lasts half a half-life (30 days), once.
    let report = json_at(&env, &day(fades_after + 30.0), &["dream"], 0);
    assert_eq!(report["faded"], serde_json::json!([]), "{report}");
    let report = json_at(&env, &day(fades_after + 32.0), &["dream"], 0);
    assert_eq!(report["faded"], serde_json::json!([id]), "{report}");
    let f = fact(&env, &day(fades_after + 32.0), id);
    assert_eq!(f["retracted_reason"], "faded");
    let listing = at(&env, &day(fades_after + 32.0), ["facts", "--all"])
        .assert()
        .success();
    let listing = String::from_utf8_lossy(&listing.get_output().stdout).to_string();
    assert!(listing.contains("faded"), "{listing}");
    assert!(listing.contains("given its second chance"), "{listing}");
}

#[test]
fn pinned_facts_never_fade_and_recalls_raise_confidence() {
    let env = TestEnv::new();
    two_contracts(&env);
    let t0 = "2026-03-10T00:00:00Z";
    let id = promoted_fact(&env, t0);
    let c0 = fact(&env, t0, id)["confidence"].as_f64().unwrap();
    at(&env, t0, ["show", &id.to_string()]).assert().success();
    let f = fact(&env, t0, id);
    let want = c0 + 0.05 * (0.95 - c0);
    assert!(
        (f["confidence"].as_f64().unwrap() - want).abs() < 1e-9,
        "{f}"
    );
    assert_eq!(f["recalls"], 1);
    assert_eq!(f["last_recalled_at"], t0);
    at(&env, t0, ["remember", "--pin", &id.to_string()])
        .assert()
        .success();
    let report = json_at(&env, "2036-01-01T00:00:00Z", &["dream"], 0);
    assert_eq!(report["faded"], serde_json::json!([]));
    assert_eq!(report["reprieved"], serde_json::json!([]));
    assert_eq!(fact(&env, "2036-01-01T00:00:00Z", id)["pinned"], true);
    // Unpinned, it fades (it already had one reading and a high score, so
    // first its second chance).
    at(
        &env,
        "2036-01-01T00:00:00Z",
        ["remember", "--unpin", &id.to_string()],
    )
    .assert()
    .success();
    json_at(&env, "2046-01-01T00:00:00Z", &["dream"], 0);
    let report = json_at(&env, "2056-01-01T00:00:00Z", &["dream"], 0);
    assert_eq!(report["faded"], serde_json::json!([id]), "{report}");
    // A taught fact is pinned from the start.
    let taught = env.json(["remember", "Jane is allergic to shellfish"], 0)["id"]
        .as_i64()
        .unwrap();
    let f = fact(&env, "2056-01-01T00:00:00Z", taught);
    assert_eq!(f["pinned"], true);
    assert_eq!(f["confidence"], 1.0);
    let report = json_at(&env, "2099-01-01T00:00:00Z", &["dream"], 0);
    assert_eq!(report["faded"], serde_json::json!([]));
}

/// A deterministic mail archive from 2002: 240 messages over a year, drawn
/// from a small vocabulary so every query has many comparable matches, and
/// near-repeats so MMR has work to do.
fn old_archive() -> String {
    const WORDS: [&str; 24] = [
        "invoice", "meeting", "contract", "budget", "server", "release", "holiday", "report",
        "client", "schedule", "design", "review", "payment", "launch", "office", "travel",
        "hiring", "backup", "network", "printer", "lunch", "quarter", "audit", "vendor",
    ];
    let mut x: u64 = 0x2002;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut out = String::new();
    for i in 0..240 {
        let day = 1 + next() % 360;
        let date = chrono::NaiveDate::from_yo_opt(2002, day as u32).unwrap();
        let n = 6 + next() % 10;
        let words: Vec<&str> = (0..n).map(|_| WORDS[(next() % 24) as usize]).collect();
        let subject = format!("{} {}", words[0], words[1]);
        let body = format!(
            "Notes on {} for the team, item {}.",
            words.join(" "),
            i % 40
        );
        out.push_str(&mbox_message(
            &format!("m{i}@archive"),
            &format!("{} 10:00:00 +0000", date.format("%a, %d %b %Y")),
            &subject,
            &body,
        ));
    }
    out
}

#[test]
fn moving_now_past_an_old_archive_changes_no_ranking() {
    let env = TestEnv::new();
    let path = env.write("2002.mbox", old_archive());
    at(&env, "2003-01-01T00:00:00Z", ["index-mbox"])
        .arg(path)
        .assert()
        .success();
    let queries = [
        "invoice payment",
        "server backup network",
        "client meeting",
        "budget quarter audit",
        "holiday travel",
        "printer office",
        "release launch schedule",
        "design review",
        "vendor contract",
        "hiring report",
        "lunch",
        "network",
    ];
    let ranked = |now: &str, q: &str| -> Vec<i64> {
        json_at(&env, now, &["search", "--no-log", "-n", "10", q], 0)
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h["id"].as_i64().unwrap())
            .collect()
    };
    for q in queries {
        let then = ranked("2003-01-01T00:00:00Z", q);
        let now = ranked("2026-12-01T00:00:00Z", q);
        assert_eq!(then.len(), 10, "{q}");
        assert_eq!(then, now, "{q}: the top 10 moved with the clock");
    }
    // The scores a person reads are not a column of zeros.
    let out = at(
        &env,
        "2026-12-01T00:00:00Z",
        ["search", "--no-log", "invoice payment"],
    )
    .assert()
    .success();
    let lines = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    for line in lines.lines() {
        let score = line.split('\t').nth(1).unwrap();
        assert_ne!(score, "0.000", "{lines}");
    }
}

#[test]
fn show_of_a_chat_chunk_gives_its_messages_and_the_context_asked_for() {
    let env = TestEnv::new();
    let messages: Vec<String> = (1..=9)
        .map(|i| {
            format!(
                r#"{{"id": "m{i}", "speaker": "S{}", "text": "line number {i} about {}"}}"#,
                i % 2,
                if i == 5 { "the zeppelin" } else { "nothing" }
            )
        })
        .collect();
    let conv = format!(
        r#"{{"id": "c1", "title": "Long chat", "date": "2026-02-01T10:00:00Z", "messages": [{}]}}"#,
        messages.join(", ")
    );
    let path = env.write("chat.jsonl", conv + "\n");
    env.cmd(["index-conversations"])
        .arg(path)
        .assert()
        .success();
    let hits = env.json(["search", "--no-log", "zeppelin"], 0);
    let id = hits[0]["id"].as_i64().unwrap().to_string();
    let lines = |context: &str| -> Vec<String> {
        let out = env
            .cmd(["show", "--no-log", "--context", context, &id])
            .assert()
            .success();
        String::from_utf8_lossy(&out.get_output().stdout)
            .lines()
            .filter(|l| l.starts_with('S'))
            .map(str::to_string)
            .collect()
    };
    let own = hits[0]["message_ids"].as_array().unwrap().len();
    assert_eq!(lines("0").len(), own);
    assert_eq!(lines("1").len(), own + 2);
    assert_eq!(
        lines("100").len(),
        9,
        "the whole conversation, each message once"
    );
    let all = lines("100");
    assert_eq!(all[0], "S1: line number 1 about nothing");
    assert_eq!(all[8], "S1: line number 9 about nothing");
}

#[test]
fn show_on_a_terminal_removes_what_a_hostile_mail_would_send_to_it() {
    let env = TestEnv::new();
    let body =
        "Click here \u{1b}]52;c;SGVsbG8=\u{7}to win \u{1b}[2J a prize, the zeppelin is yours.";
    let path = env.write(
        "evil.mbox",
        mbox_message("evil@x", "Mon, 2 Mar 2026 09:00:00 +0000", "Prize", body),
    );
    env.cmd(["index-mbox"]).arg(path).assert().success();
    let id = env
        .count("SELECT id FROM memory_chunks WHERE source_id = 'evil@x'")
        .to_string();
    let (code, shown) = env.on_a_terminal(&["show", "--no-log", &id], None);
    assert_eq!(code, Some(0), "{shown}");
    assert!(shown.contains("the zeppelin is yours"), "{shown}");
    assert!(!shown.contains("\u{1b}]52"), "{shown:?}");
    assert!(!shown.contains("\u{1b}[2J"), "{shown:?}");
    // A pipe gets the text as stored.
    let piped = env.cmd(["show", "--no-log", &id]).assert().success();
    assert!(String::from_utf8_lossy(&piped.get_output().stdout).contains("\u{1b}[2J"));
}

#[test]
fn explain_for_a_person_shows_recalls_and_the_effective_half_life() {
    let env = TestEnv::new();
    let (old, _) = two_contracts(&env);
    at(&env, "2026-05-01T00:00:00Z", ["show", &old.to_string()])
        .assert()
        .success();
    let out = at(
        &env,
        "2026-05-02T00:00:00Z",
        ["search", "--no-log", "--explain", "acme contract draft"],
    )
    .assert()
    .success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(
        text.contains("half-life 45d recalls 1 (last 2026-05-01)"),
        "{text}"
    );
    assert!(text.contains("half-life 30d recalls 0 "), "{text}");
    assert!(
        text.contains("each genuine recall adds half, up to 3x"),
        "{text}"
    );
}
