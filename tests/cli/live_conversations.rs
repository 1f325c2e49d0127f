//! Conversations taken in as they happen (issue 22 item 1): appended turn by
//! turn with `index-conversations --append` or the MCP tool
//! `memory_add_messages`, chunked exactly as a whole-file import chunks
//! them, idempotent, dated, and searchable at once.

use serde_json::{Value, json};

use crate::mcp::{is_error, serve, text_of};
use crate::util::TestEnv;

/// Seven turns, long enough for several windows, each with an id and a time.
fn turns() -> Vec<Value> {
    let said = [
        (
            "user",
            "Can you find me a zeppelin tour over Lake Constance?",
        ),
        (
            "assistant",
            "There is one from Friedrichshafen on Saturdays.",
        ),
        ("user", "Book two seats for the 14th, please."),
        ("assistant", "Booked: two seats, Saturday 14 March, 10:00."),
        ("user", "Add the Konstanz ferry back to the hotel."),
        ("assistant", "The ferry leaves Meersburg every 15 minutes."),
        ("user", "Perfect, remind me to pack binoculars."),
    ];
    said.iter()
        .enumerate()
        .map(|(i, (role, text))| {
            json!({"id": format!("t{i}"), "role": role, "content": text,
                   "at": format!("2026-03-0{}T10:00:00Z", i + 1)})
        })
        .collect()
}

fn jsonl(messages: &[Value]) -> String {
    messages.iter().map(|m| format!("{m}\n")).collect()
}

/// The current chunks of a conversation, as a search would see them.
fn current_chunks(env: &TestEnv) -> Vec<(i64, String, i64, String, Option<String>)> {
    let conn = env.sqlite();
    let mut stmt = conn
        .prepare(
            "SELECT seq, text, dated_at, message_ids, title FROM memory_chunks
             WHERE source_type = 'conversation' AND superseded_at IS NULL ORDER BY seq",
        )
        .unwrap();
    stmt.query_map([], |r| {
        Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
    })
    .unwrap()
    .collect::<Result<_, _>>()
    .unwrap()
}

fn append(env: &TestEnv, messages: &[Value]) -> Value {
    let out = env
        .cmd([
            "index-conversations",
            "--append",
            "trip",
            "--title",
            "Trip",
            "--json",
        ])
        .write_stdin(jsonl(messages))
        .assert()
        .success();
    serde_json::from_slice(&out.get_output().stdout).unwrap()
}

#[test]
fn appending_in_pieces_chunks_exactly_as_indexing_the_whole_file() {
    let turns = turns();
    let whole = TestEnv::new();
    let file = whole.write(
        "trip.json",
        json!({"id": "trip", "title": "Trip", "messages": turns}).to_string(),
    );
    whole
        .cmd(["index-conversations"])
        .arg(file)
        .assert()
        .success();

    let live = TestEnv::new();
    let first = append(&live, &turns[..3]);
    assert_eq!(
        (first["created"].clone(), first["messages_added"].clone()),
        (json!(true), json!(3))
    );
    let first_chunk = live.count("SELECT min(id) FROM memory_chunks");
    append(&live, &turns[3..5]);
    let last = append(&live, &turns[5..]);
    assert_eq!(last["messages_total"], 7, "{last}");

    assert_eq!(current_chunks(&live), current_chunks(&whole));
    // Only the tail was re-chunked: the first window was never rewritten.
    assert_eq!(
        live.count("SELECT id FROM memory_chunks WHERE seq = 0 AND superseded_at IS NULL"),
        first_chunk
    );
}

#[test]
fn the_same_message_is_never_stored_twice_and_dates_are_kept() {
    let env = TestEnv::new();
    let turns = turns();
    append(&env, &turns[..2]);
    let again = append(&env, &turns[..3]);
    assert_eq!(
        (again["messages_added"].clone(), again["duplicates"].clone()),
        (json!(1), json!(2)),
        "{again}"
    );
    // Without ids, the same speaker and text is the same message.
    let no_id = json!({"role": "user", "content": "What time is check-in?"});
    assert_eq!(
        append(&env, std::slice::from_ref(&no_id))["messages_added"],
        1
    );
    assert_eq!(append(&env, &[no_id])["duplicates"], 1);
    assert_eq!(env.count("SELECT count(*) FROM conversation_messages"), 4);

    let hits = env.json(["search", "zeppelin", "--no-log"], 0);
    assert_eq!(hits[0]["dated_at"], "2026-03-01T10:00:00Z", "{hits}");
    // A message without a time is dated now.
    let at: String = env
        .sqlite()
        .query_row(
            "SELECT strftime('%Y-%m-%dT%H:%M:%SZ', at, 'unixepoch') FROM conversation_messages
             WHERE text LIKE 'What time%'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(at, crate::util::NOW);
}

#[test]
fn a_bad_line_names_its_place_and_appends_nothing() {
    let env = TestEnv::new();
    let input = format!(
        "{}\n{{\"role\": \"user\", \"content\": \"x\", \"at\": \"whenever\"}}\n",
        turns()[0]
    );
    env.cmd(["index-conversations", "--append", "trip"])
        .write_stdin(input)
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "<stdin>:2: \"at\": \"whenever\" is not a date",
        ));
    assert_eq!(env.count("SELECT count(*) FROM memory_chunks"), 0);
}

#[test]
fn a_conversation_indexed_from_a_file_is_not_appended_to() {
    let env = TestEnv::new();
    let file = env.write(
        "trip.json",
        json!({"id": "trip", "messages": turns()}).to_string(),
    );
    env.cmd(["index-conversations"])
        .arg(file)
        .assert()
        .success();
    env.cmd(["index-conversations", "--append", "trip"])
        .write_stdin(jsonl(&turns()[..1]))
        .assert()
        .code(2)
        .stderr(predicates::str::contains("was indexed from a file"));
}

/// The end-to-end check: an MCP client appends three turns over two
/// calls, finds one by a word in it, and forgets the conversation.
#[test]
fn an_agent_appends_turns_finds_them_and_forgets_the_conversation() {
    let env = TestEnv::new();
    let mut s = serve(&env);
    s.initialize();
    let turns = turns();
    let r = s.call(
        "memory_add_messages",
        json!({"conversation_id": "trip", "title": "Trip", "messages": turns[..2]}),
    );
    assert!(!is_error(&r), "{r}");
    assert_eq!(r["structuredContent"]["messages_added"], 2);
    assert!(
        text_of(&r).starts_with("added 2 messages"),
        "{}",
        text_of(&r)
    );
    let r = s.call(
        "memory_add_messages",
        json!({"conversation_id": "trip", "messages": [turns[2]]}),
    );
    assert_eq!(r["structuredContent"]["messages_total"], 3, "{r}");

    let hits =
        s.call("memory_search", json!({"query": "seats"}))["structuredContent"]["hits"].clone();
    assert_eq!(hits[0]["source_id"], "trip", "{hits}");
    assert!(hits[0]["text"].as_str().unwrap().contains("Book two seats"));

    let r = s.call("memory_forget", json!({"source": "conversation:trip"}));
    assert!(!is_error(&r), "{r}");
    let hits =
        s.call("memory_search", json!({"query": "seats"}))["structuredContent"]["hits"].clone();
    assert_eq!(hits, json!([]));

    // Messages that do not fit the schema, or a date that is not one.
    assert_eq!(
        s.error_code(
            "tools/call",
            json!({"name": "memory_add_messages", "arguments": {"conversation_id": "x", "messages": []}})
        ),
        -32602
    );
    let r = s.call(
        "memory_add_messages",
        json!({"conversation_id": "x", "messages": [{"role": "user", "content": "hi", "at": "soonish"}]}),
    );
    assert!(
        is_error(&r) && text_of(&r).starts_with("messages[0]: \"at\""),
        "{r}"
    );
    s.finish();
}
