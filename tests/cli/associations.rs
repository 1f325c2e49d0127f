//! Associations end to end (issue 16), through the real binary and
//! fast-forwarded with `ALFRED_MEM_NOW`: thread links from real
//! `In-Reply-To` chains and conversation windows; Hebbian bonding by
//! genuine recalls (+0.1, capped at 1.0, at most eight partners); decay and
//! pruning in `dream`; expansion of a search by strong links, inside its
//! window and sources, seen as of an earlier time, and off with
//! `--no-expand`; `related` and MCP `memory_related`; semantic links.

use std::time::Duration;

use serde_json::{Value, json};

use crate::facts::{at, json_at};
use crate::fake_embedder::FakeEmbedder;
use crate::util::{TestEnv, envelope_time, mbox_message};

const T0: &str = "2026-02-01T00:00:00Z";

/// A message answering `parent` with the given header (`In-Reply-To` or
/// `References`).
fn reply(id: &str, header: &str, date: &str, subject: &str, body: &str) -> String {
    format!(
        "From sender@mail.example {}\nMessage-ID: <{id}>\n{header}\nDate: {date}\n\
         From: Sender <sender@mail.example>\nSubject: {subject}\n\n{body}\n\n",
        envelope_time(date)
    )
}

fn chunk_id(env: &TestEnv, source_id: &str) -> i64 {
    env.count(&format!(
        "SELECT min(id) FROM memory_chunks WHERE source_id = '{source_id}'"
    ))
}

fn index_mbox(env: &TestEnv, name: &str, mbox: &str) {
    let path = env.write(name, mbox);
    at(env, T0, ["index-mbox"]).arg(path).assert().success();
}

/// `related ID --json` at `now`: (other id, kind, strength) per link.
fn related(env: &TestEnv, now: &str, id: i64) -> Vec<(i64, String, f64)> {
    json_at(env, now, &["related", &id.to_string()], 0)
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["id"].as_i64().unwrap(),
                l["kind"].as_str().unwrap().to_string(),
                l["strength"].as_f64().unwrap(),
            )
        })
        .collect()
}

fn co_recall(env: &TestEnv, now: &str, id: i64, other: i64) -> Option<f64> {
    related(env, now, id)
        .into_iter()
        .find(|(o, k, _)| *o == other && k == "co_recall")
        .map(|l| l.2)
}

fn show(env: &TestEnv, now: &str, ids: &[i64]) {
    let ids: Vec<String> = ids.iter().map(|i| i.to_string()).collect();
    at(env, now, ["show"]).args(&ids).assert().success();
}

fn search(env: &TestEnv, now: &str, args: &[&str]) -> Vec<Value> {
    let mut all = vec!["search", "--no-log"];
    all.extend_from_slice(args);
    let out = at(env, now, &all).arg("--json").assert();
    let out = out.get_output();
    if out.stdout.is_empty() {
        return Vec::new();
    }
    serde_json::from_slice::<Value>(&out.stdout)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

/// One mail about zebras and seven others, dated a day apart from 1 Jan.
fn zebra_and_seven(env: &TestEnv) -> (i64, Vec<i64>) {
    let mut mbox = mbox_message(
        "zebra@x",
        "Sat, 10 Jan 2026 09:00:00 +0000",
        "Zebra notes",
        "The zebra migration notes from the field trip.",
    );
    for i in 1..=7 {
        mbox.push_str(&mbox_message(
            &format!("b{i}@x"),
            &format!("Thu, {:02} Jan 2026 09:00:00 +0000", i),
            &format!("Other {i}"),
            &format!("Unrelated note number {i} about gardening."),
        ));
    }
    index_mbox(env, "zebra.mbox", &mbox);
    let b = (1..=7).map(|i| chunk_id(env, &format!("b{i}@x"))).collect();
    (chunk_id(env, "zebra@x"), b)
}

/// Reads the zebra mail with the seven others four times: 0.4 each.
fn bond_four_times(env: &TestEnv, zebra: i64, others: &[i64]) {
    let mut ids = vec![zebra];
    ids.extend_from_slice(others);
    for _ in 0..4 {
        show(env, T0, &ids);
    }
}

#[test]
fn thread_links_follow_a_real_in_reply_to_chain_in_either_order() {
    let env = TestEnv::new();
    // The second reply names its parent only in References; the first
    // reply is indexed before the message it answers.
    let first = reply(
        "r1@x",
        "In-Reply-To: <root@x>",
        "Mon, 5 Jan 2026 11:00:00 +0000",
        "Re: Boat trip",
        "Yes, bring sandwiches.",
    );
    index_mbox(&env, "a.mbox", &first);
    let rest = mbox_message(
        "root@x",
        "Mon, 5 Jan 2026 10:00:00 +0000",
        "Boat trip",
        "Shall we take the boat to the island?",
    ) + &reply(
        "r2@x",
        "References: <root@x> <r1@x>",
        "Mon, 5 Jan 2026 12:00:00 +0000",
        "Re: Boat trip",
        "Great, pickles too.",
    ) + &mbox_message(
        "other@x",
        "Mon, 5 Jan 2026 13:00:00 +0000",
        "Invoice",
        "Your plumbing invoice.",
    );
    index_mbox(&env, "b.mbox", &rest);
    let (root, r1, r2) = (
        chunk_id(&env, "root@x"),
        chunk_id(&env, "r1@x"),
        chunk_id(&env, "r2@x"),
    );
    let kinds = |id| {
        let mut v: Vec<(i64, String, f64)> = related(&env, T0, id);
        v.sort_by_key(|l| l.0);
        v
    };
    assert_eq!(kinds(root), [(r1, "thread".to_string(), 0.3)]);
    assert_eq!(
        kinds(r1),
        [
            (root, "thread".to_string(), 0.3),
            (r2, "thread".to_string(), 0.3)
        ]
    );
    // A chain, not a clique: r2 links only to the message it answers.
    assert_eq!(kinds(r2), [(r1, "thread".to_string(), 0.3)]);
    assert!(kinds(chunk_id(&env, "other@x")).is_empty());
}

#[test]
fn consecutive_windows_of_a_conversation_are_threaded() {
    let env = TestEnv::new();
    let messages: Vec<Value> = (0..7)
        .map(|i| json!({"id": format!("m{i}"), "speaker": "Ann", "text": format!("line {i}")}))
        .collect();
    let conv = json!({"id": "c1", "date": "2026-01-05T10:00:00Z", "messages": messages});
    let file = env.write("c.jsonl", conv.to_string() + "\n");
    at(&env, T0, ["index-conversations"])
        .arg(file)
        .assert()
        .success();
    let windows = env.count("SELECT count(*) FROM memory_chunks");
    assert!(windows >= 3, "{windows}");
    assert_eq!(
        env.count("SELECT count(*) FROM memory_links WHERE kind = 'thread'"),
        windows - 1
    );
}

#[test]
fn recalls_together_add_a_tenth_each_up_to_one() {
    let env = TestEnv::new();
    let (zebra, b) = zebra_and_seven(&env);
    show(&env, T0, &[zebra, b[0]]);
    let once = co_recall(&env, T0, zebra, b[0]).unwrap();
    assert!((once - 0.1).abs() < 1e-9, "{once}");
    for _ in 0..2 {
        show(&env, T0, &[b[0], zebra]);
    }
    let thrice = co_recall(&env, T0, zebra, b[0]).unwrap();
    assert!((thrice - 0.3).abs() < 1e-9, "{thrice}");
    for _ in 0..10 {
        show(&env, T0, &[zebra, b[0]]);
    }
    assert_eq!(co_recall(&env, T0, zebra, b[0]), Some(1.0));
    // Reading one chunk alone bonds nothing; --no-log records nothing.
    show(&env, T0, &[b[1]]);
    at(&env, T0, ["show", "--no-log"])
        .args([b[1].to_string(), b[2].to_string()])
        .assert()
        .success();
    assert_eq!(co_recall(&env, T0, b[1], b[2]), None);
}

#[test]
fn one_recall_bonds_each_chunk_with_at_most_eight_partners() {
    let env = TestEnv::new();
    let mut mbox = String::new();
    for i in 0..12 {
        mbox.push_str(&mbox_message(
            &format!("n{i}@x"),
            "Mon, 5 Jan 2026 10:00:00 +0000",
            &format!("Note {i}"),
            &format!("Note body {i}."),
        ));
    }
    index_mbox(&env, "n.mbox", &mbox);
    let ids: Vec<i64> = (0..12)
        .map(|i| chunk_id(&env, &format!("n{i}@x")))
        .collect();
    show(&env, T0, &ids);
    for &id in &ids {
        let n = related(&env, T0, id)
            .iter()
            .filter(|l| l.1 == "co_recall")
            .count();
        assert!((1..=8).contains(&n), "chunk {id}: {n} partners");
    }
    let pairs = env.count("SELECT count(*) FROM memory_links WHERE kind = 'co_recall'");
    assert!(pairs <= 12 * 8 / 2, "{pairs}");
}

#[test]
fn unreinforced_links_halve_in_thirty_days_and_dream_prunes_them() {
    let env = TestEnv::new();
    let (zebra, b) = zebra_and_seven(&env);
    bond_four_times(&env, zebra, &b[..1]);
    let month = "2026-03-03T00:00:00Z";
    let report = json_at(&env, month, &["dream"], 0);
    assert_eq!(report["links"], json!({"decayed": 1, "pruned": 0}));
    let s = co_recall(&env, month, zebra, b[0]).unwrap();
    assert!((s - 0.2).abs() < 1e-9, "{s}");
    // Thread links never change: none here to count.
    let late = "2026-05-15T00:00:00Z";
    let dry = json_at(&env, late, &["dream", "--dry-run"], 0);
    assert_eq!(dry["links"], json!({"decayed": 0, "pruned": 1}));
    assert!(
        co_recall(&env, late, zebra, b[0]).is_some(),
        "dry run pruned"
    );
    let human = at(&env, late, ["dream"]).assert().success();
    let text = String::from_utf8_lossy(&human.get_output().stdout).to_string();
    assert!(text.contains("0 links decayed, 1 link pruned"), "{text}");
    assert_eq!(co_recall(&env, late, zebra, b[0]), None);
    // Kept as history, not deleted.
    assert_eq!(
        env.count("SELECT count(*) FROM memory_links WHERE pruned_at IS NOT NULL"),
        1
    );
}

#[test]
fn expansion_adds_at_most_five_neighbours_inside_the_window_and_sources() {
    let env = TestEnv::new();
    let (zebra, b) = zebra_and_seven(&env);
    bond_four_times(&env, zebra, &b);
    let hits = search(&env, T0, &["zebra"]);
    assert_eq!(hits[0]["id"], zebra);
    assert_eq!(hits.len(), 6, "{hits:?}");
    let mut seen = std::collections::HashSet::new();
    for h in &hits[1..] {
        assert_eq!(h["via"]["id"], zebra, "{h}");
        assert_eq!(h["via"]["kind"], "co_recall");
        let s = h["via"]["strength"].as_f64().unwrap();
        assert!((s - 0.4).abs() < 1e-9);
        let score = h["score"].as_f64().unwrap();
        assert!((score - hits[0]["score"].as_f64().unwrap() * s).abs() < 1e-9);
        assert!(seen.insert(h["id"].as_i64().unwrap()), "duplicate {h}");
        assert!(b.contains(&h["id"].as_i64().unwrap()));
    }
    // b1..b4 are dated before 5 January: outside the window.
    let windowed = search(&env, T0, &["zebra", "--after", "2026-01-05"]);
    let added: Vec<i64> = windowed[1..]
        .iter()
        .map(|h| h["id"].as_i64().unwrap())
        .collect();
    assert_eq!(added.len(), 3, "{windowed:?}");
    assert!(added.iter().all(|id| b[4..].contains(id)));
    // A source filter the neighbours do not pass adds nothing.
    let emails = search(&env, T0, &["zebra", "--source", "email"]);
    assert_eq!(emails.len(), 6);
    assert!(search(&env, T0, &["zebra", "--source", "fact"]).is_empty());
    // The table and --explain say where an added hit came from.
    let out = at(&env, T0, ["search", "--no-log", "--explain", "zebra"])
        .assert()
        .success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(text.contains(&format!("via #{zebra}")), "{text}");
}

#[test]
fn no_expand_keeps_to_the_matches() {
    let env = TestEnv::new();
    let (zebra, b) = zebra_and_seven(&env);
    bond_four_times(&env, zebra, &b[..2]);
    let hits = search(&env, T0, &["zebra", "--no-expand"]);
    assert_eq!(hits.len(), 1);
    assert!(hits[0].get("via").is_none());
    assert_eq!(search(&env, T0, &["zebra"]).len(), 3);
    // Three recalls make 0.3: too weak to follow.
    let env = TestEnv::new();
    let (zebra, b) = zebra_and_seven(&env);
    for _ in 0..3 {
        show(&env, T0, &[zebra, b[0]]);
    }
    assert_eq!(search(&env, T0, &["zebra"]).len(), 1);
}

#[test]
fn as_of_sees_the_links_as_they_were() {
    let env = TestEnv::new();
    let (zebra, b) = zebra_and_seven(&env);
    let formed = "2026-02-10T00:00:00Z";
    for _ in 0..4 {
        show(&env, formed, &[zebra, b[0]]);
    }
    let late = "2026-06-01T00:00:00Z";
    at(&env, late, ["dream"]).assert().success();
    // Now the link is pruned: nothing joins.
    assert_eq!(search(&env, late, &["zebra"]).len(), 1);
    // As of the day it formed, it was 0.4 and brought b1 along.
    let then = search(&env, late, &["zebra", "--as-of", formed]);
    assert_eq!(then.len(), 2, "{then:?}");
    assert_eq!(then[1]["id"], b[0]);
    assert_eq!(then[1]["via"]["id"], zebra);
    // Before it formed, there was no link.
    let before = search(&env, late, &["zebra", "--as-of", T0]);
    assert_eq!(before.len(), 1);
}

#[test]
fn related_lists_strongest_first_and_an_unknown_id_is_exit_2() {
    let env = TestEnv::new();
    let (zebra, b) = zebra_and_seven(&env);
    bond_four_times(&env, zebra, &b[..1]);
    show(&env, T0, &[zebra, b[1]]);
    let v = json_at(&env, T0, &["related", &zebra.to_string()], 0);
    let links = v.as_array().unwrap();
    assert_eq!(links[0]["id"], b[0]);
    assert_eq!(links[1]["id"], b[1]);
    for key in ["kind", "strength", "formed_at", "reinforced_at", "summary"] {
        assert!(links[0].get(key).is_some(), "{key}");
    }
    assert_eq!(
        links[0]["summary"],
        "Other 1 Unrelated note number 1 about gardening."
    );
    let out = env.cmd(["related", "999999"]).assert().code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(err.contains("no chunk with id 999999"), "{err}");
}

#[test]
fn mcp_search_expands_and_memory_related_lists_links() {
    let env = TestEnv::new();
    let (zebra, b) = zebra_and_seven(&env);
    bond_four_times(&env, zebra, &b[..1]);
    let mut cmd = env.std_cmd(["mcp"]);
    cmd.env("ALFRED_MEM_NOW", T0);
    let mut s = crate::mcp::Server::start(cmd);
    s.initialize();
    let r = s.call("memory_search", json!({"query": "zebra"}));
    let hits = r["structuredContent"]["hits"].as_array().unwrap().clone();
    assert_eq!(hits.len(), 2, "{hits:?}");
    assert_eq!(hits[1]["via"]["id"], zebra);
    let r = s.call("memory_related", json!({"id": zebra}));
    let links = r["structuredContent"]["links"].as_array().unwrap().clone();
    assert_eq!(links[0]["id"], b[0]);
    assert_eq!(links[0]["kind"], "co_recall");
    let missing = s.call("memory_related", json!({"id": 999_999}));
    assert!(crate::mcp::is_error(&missing));
    s.finish();
}

#[test]
fn a_new_chunk_links_to_existing_chunks_alike_in_meaning() {
    let server = FakeEmbedder::start(Duration::ZERO);
    let env = TestEnv::new();
    env.json(["model", "use", &server.url, "--name", "fake"], 0);
    let convs: String = [
        ("c0", "We looked at the Q3 spending plan and the expenses"),
        ("c1", "Pizza for dinner at the new restaurant on Friday"),
        ("c2", "The money and the budget costs for next year"),
    ]
    .iter()
    .map(|(id, t)| {
        json!({"id": id, "date": "2026-01-05T10:00:00Z",
               "messages": [{"id": "m", "speaker": "Ann", "text": t}]})
        .to_string()
            + "\n"
    })
    .collect();
    let file = env.write("c.jsonl", convs);
    at(&env, T0, ["index-conversations"])
        .arg(file)
        .assert()
        .success();
    let id = |c: &str| chunk_id(&env, c);
    let links = related(&env, T0, id("c2"));
    assert_eq!(links.len(), 1, "{links:?}");
    assert_eq!((links[0].0, links[0].1.as_str()), (id("c0"), "semantic"));
    assert!(links[0].2 >= 0.4);
    assert!(related(&env, T0, id("c1")).is_empty());
}
