//! Expansion on an old archive: a hit joined by association is placed by
//! its score in the log domain, so a century later (fast-forwarded with
//! `ALFRED_MEM_NOW`), when every plain score of the old mail has underflowed
//! to 0, the search still lists what it listed the day the mail came in.

use serde_json::Value;

use crate::facts::at;
use crate::util::{TestEnv, envelope_time, mbox_message};

const T0: &str = "2026-02-01T00:00:00Z";
/// A hundred years on: a 30-day half-life has halved the 2026 mail ~1,200
/// times, past what an f64 holds (2^-1074).
const LATER: &str = "2126-02-01T00:00:00Z";

/// `search --no-log --expand-all --json QUERY` at `now`: (id, via id) per hit.
fn search(env: &TestEnv, now: &str, query: &str) -> Vec<(i64, Option<i64>)> {
    let out = at(
        env,
        now,
        ["search", "--no-log", "--expand-all", "--json", query],
    )
    .assert()
    .success();
    let hits: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    hits.as_array()
        .unwrap()
        .iter()
        .map(|h| (h["id"].as_i64().unwrap(), h["via"]["id"].as_i64()))
        .collect()
}

fn chunk_id(env: &TestEnv, source_id: &str) -> i64 {
    env.count(&format!(
        "SELECT min(id) FROM memory_chunks WHERE source_id = '{source_id}'"
    ))
}

#[test]
fn an_added_hit_keeps_its_place_when_every_plain_score_has_underflowed() {
    let env = TestEnv::new();
    let date = "Mon, 5 Jan 2026 11:00:00 +0000";
    // The zebra mail, a reply without the word (joined by its thread link),
    // and an older zebra mail that ranks below the reply.
    let mbox = mbox_message(
        "root@x",
        "Mon, 5 Jan 2026 10:00:00 +0000",
        "Reserve count",
        "The zebra count from the reserve.",
    ) + &format!(
        "From sender@mail.example {}\nMessage-ID: <reply@x>\nIn-Reply-To: <root@x>\n\
             Date: {date}\nFrom: Sender <sender@mail.example>\nSubject: Re: Reserve count\n\n\
             Thanks, noted for the report.\n\n",
        envelope_time(date)
    ) + &mbox_message(
        "old@x",
        "Wed, 1 Jan 2025 10:00:00 +0000",
        "Stripes",
        "A zebra seen near the river.",
    );
    let path = env.write("a.mbox", &mbox);
    at(&env, T0, ["index-mbox"]).arg(path).assert().success();
    let (root, reply, old) = (
        chunk_id(&env, "root@x"),
        chunk_id(&env, "reply@x"),
        chunk_id(&env, "old@x"),
    );
    let want = vec![(root, None), (reply, Some(root)), (old, None)];
    assert_eq!(search(&env, T0, "zebra"), want);
    // A century on, memory gains something new: ages now run from it, and
    // the 2026 mails' plain scores are all 0.
    let news = mbox_message(
        "news@x",
        "Wed, 30 Jan 2126 09:00:00 +0000",
        "News",
        "Nothing about animals.",
    );
    let path = env.write("b.mbox", &news);
    at(&env, LATER, ["index-mbox"]).arg(path).assert().success();
    let out = at(&env, LATER, ["search", "--no-log", "--json", "zebra"])
        .assert()
        .success();
    let hits: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(hits[0]["score"].as_f64(), Some(0.0), "{hits}");
    assert_eq!(search(&env, LATER, "zebra"), want);
}
