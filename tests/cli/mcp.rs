//! `alfred-mem mcp` end to end: the real binary as a child process, spoken
//! to over pipes the way an MCP client does, one JSON-RPC message per line.
//! Every read has a generous deadline so that a hang fails the test instead
//! of blocking the suite; nothing asserts how fast anything is.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use serde_json::{Value, json};

use crate::util::{NOW, TestEnv, mbox_message};

/// Long enough for a loaded CI machine; only reached when the server hangs.
const DEADLINE: Duration = Duration::from_secs(60);

/// Writes and indexes a small mailbox about a contract, a dentist and a
/// trip, all dated before NOW.
pub(crate) fn index_mail(env: &TestEnv) {
    let mbox: String = [
        (
            "acme@x",
            "Tue, 24 Feb 2026 09:00:00 +0000",
            "Acme contract renewal",
            "Acme sent the signed contract renewal for 2026; the fee rises 4 percent.",
        ),
        (
            "dentist@x",
            "Mon, 12 Jan 2026 08:00:00 +0000",
            "Dentist appointment",
            "Your dentist appointment with Dr Lim is confirmed for 20 January.",
        ),
        (
            "trip@x",
            "Fri, 20 Feb 2026 18:00:00 +0000",
            "Penang trip",
            "Flights to Penang are booked; the hotel is near the Acme office.",
        ),
    ]
    .iter()
    .map(|(id, date, subject, body)| mbox_message(id, date, subject, body))
    .collect();
    let path = env.write("mail.mbox", mbox);
    env.cmd(["index-mbox"]).arg(path).assert().success();
}

pub(crate) fn recall_rows(env: &TestEnv) -> i64 {
    env.count("SELECT count(*) FROM recall_events")
}

pub(crate) fn serve(env: &TestEnv) -> Server {
    Server::start(env.std_cmd(["mcp"]))
}

/// A running `alfred-mem mcp` and the client's end of its pipes.
pub(crate) struct Server {
    child: Child,
    pub(crate) stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    next_id: i64,
}

impl Server {
    pub(crate) fn start(mut cmd: Command) -> Server {
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        // A thread reads, so the test can wait with a deadline.
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Server {
            stdin: child.stdin.take(),
            child,
            lines,
            next_id: 0,
        }
    }

    pub(crate) fn send_raw(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    pub(crate) fn send(&mut self, message: &Value) {
        self.send_raw(&message.to_string());
    }

    /// The next message from the server; each must be one line of JSON.
    pub(crate) fn recv(&self) -> Value {
        let line = self
            .lines
            .recv_timeout(DEADLINE)
            .expect("the server answers within the deadline");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    }

    /// Sends a request and returns the whole response, checking its id.
    pub(crate) fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let reply = self.recv();
        assert_eq!(reply["jsonrpc"], "2.0", "{reply}");
        assert_eq!(reply["id"], id, "{reply}");
        reply
    }

    /// The `result` of a request that must succeed at the JSON-RPC level.
    pub(crate) fn result(&mut self, method: &str, params: Value) -> Value {
        let reply = self.request(method, params);
        assert!(reply.get("error").is_none(), "{method}: {reply}");
        reply["result"].clone()
    }

    pub(crate) fn call(&mut self, tool: &str, arguments: Value) -> Value {
        self.result("tools/call", json!({"name": tool, "arguments": arguments}))
    }

    /// The JSON-RPC error code of a request that must fail.
    pub(crate) fn error_code(&mut self, method: &str, params: Value) -> i64 {
        let reply = self.request(method, params);
        assert!(reply.get("result").is_none(), "{reply}");
        assert!(
            reply["error"]["message"]
                .as_str()
                .is_some_and(|m| !m.is_empty())
        );
        reply["error"]["code"].as_i64().unwrap()
    }

    pub(crate) fn initialize(&mut self) -> Value {
        let r = self.result(
            "initialize",
            json!({
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "alfred-mem-tests", "version": "0"},
            }),
        );
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        r
    }

    /// Closes stdin, as a client does when it is done, and checks that the
    /// server said nothing more and exited 0.
    pub(crate) fn finish(mut self) {
        drop(self.stdin.take());
        let mut waited = Duration::ZERO;
        let status = loop {
            if let Some(s) = self.child.try_wait().unwrap() {
                break s;
            }
            assert!(waited < DEADLINE, "the server did not exit at end of input");
            std::thread::sleep(Duration::from_millis(20));
            waited += Duration::from_millis(20);
        };
        assert!(status.success(), "exit status {status}");
        if let Ok(extra) = self.lines.recv_timeout(Duration::from_secs(5)) {
            panic!("unexpected output after the last request: {extra}");
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The prose of a tool result: its last text block. A result with
/// structured content must carry that same JSON, serialized, in its first.
pub(crate) fn text_of(result: &Value) -> &str {
    let content = result["content"].as_array().unwrap();
    if let Some(structured) = result.get("structuredContent") {
        let first: Value = serde_json::from_str(content[0]["text"].as_str().unwrap()).unwrap();
        assert_eq!(
            &first, structured,
            "the first block is the structured content"
        );
        assert_eq!(content.len(), 2, "{result}");
    }
    content.last().unwrap()["text"].as_str().unwrap()
}

pub(crate) fn is_error(result: &Value) -> bool {
    result["isError"] == json!(true)
}

#[test]
fn initialize_describes_the_server_and_its_tools() {
    let env = TestEnv::new();
    let mut s = serve(&env);
    let init = s.initialize();
    assert_eq!(init["protocolVersion"], "2025-06-18");
    assert_eq!(
        init["capabilities"],
        json!({
            "tools": {"listChanged": false},
            "resources": {"listChanged": false, "subscribe": false},
            "prompts": {"listChanged": false},
        })
    );
    assert_eq!(init["serverInfo"]["name"], "alfred-mem");
    assert!(init["serverInfo"]["version"].is_string());
    assert!(
        init["instructions"]
            .as_str()
            .unwrap()
            .contains("memory_search")
    );
    // The notification got no answer: the next message is the ping's.
    assert_eq!(s.result("ping", json!({})), json!({}));

    let tools = s.result("tools/list", json!({}))["tools"].clone();
    let mut names: Vec<&str> = tools
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "memory_add_messages",
            "memory_forget",
            "memory_get",
            "memory_list_conflicts",
            "memory_list_facts",
            "memory_related",
            "memory_remember",
            "memory_search"
        ]
    );
    for t in tools.as_array().unwrap() {
        assert_eq!(t["inputSchema"]["type"], "object", "{t}");
        assert_eq!(t["outputSchema"]["type"], "object", "{t}");
        assert!(t["description"].as_str().unwrap().len() > 80, "{t}");
    }
    let search = tools
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "memory_search")
        .unwrap();
    assert_eq!(search["inputSchema"]["required"], json!(["query"]));
    let description = search["description"].as_str().unwrap();
    assert!(description.contains("after") && description.contains("before"));
    s.finish();
}

#[test]
fn the_server_echoes_an_older_protocol_version_it_speaks_and_offers_its_own_otherwise() {
    let env = TestEnv::new();
    let mut s = serve(&env);
    for (asked, answered) in [
        ("2024-11-05", "2024-11-05"),
        ("2025-03-26", "2025-03-26"),
        ("2031-01-01", "2025-06-18"),
    ] {
        let r = s.result(
            "initialize",
            json!({"protocolVersion": asked, "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}),
        );
        assert_eq!(r["protocolVersion"], answered);
    }
    s.finish();
}

#[test]
fn memory_search_ranks_like_the_command_and_logs_recall() {
    let env = TestEnv::new();
    index_mail(&env);
    let cli = env.json(["search", "acme", "contract", "--no-log"], 0);
    assert!(!cli.as_array().unwrap().is_empty());

    let mut s = serve(&env);
    s.initialize();
    let before = recall_rows(&env);
    let r = s.call("memory_search", json!({"query": "acme contract"}));
    assert!(!is_error(&r), "{r}");
    let hits = &r["structuredContent"]["hits"];
    assert_eq!(hits, &cli, "the same JSON as `search --json`");
    assert_eq!(hits[0]["source_id"], "acme@x");
    assert!(text_of(&r).contains("Acme sent the signed contract renewal"));
    assert_eq!(
        recall_rows(&env),
        before + hits.as_array().unwrap().len() as i64,
        "one recall event per hit"
    );

    // A question about a period: the window applies, as on the command line.
    let r = s.call(
        "memory_search",
        json!({"query": "appointment acme penang", "after": "2026-01", "before": "2026-02", "limit": 5}),
    );
    let ids: Vec<&str> = r["structuredContent"]["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["source_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["dentist@x"]);

    // Sources as a list or as the command line's comma-separated string.
    for source in [json!(["receipt"]), json!("receipt,conversation")] {
        let r = s.call("memory_search", json!({"query": "acme", "source": source}));
        assert_eq!(r["structuredContent"]["hits"], json!([]), "{r}");
        assert!(!is_error(&r));
        assert!(text_of(&r).starts_with("Nothing in memory matches"));
    }
    s.finish();
}

pub(crate) fn fact_ids(result: &Value, key: &str) -> Vec<i64> {
    result["structuredContent"][key]
        .as_array()
        .unwrap_or_else(|| panic!("no {key} in {result}"))
        .iter()
        .map(|f| f["id"].as_i64().unwrap())
        .collect()
}

#[test]
fn an_agent_teaches_audits_and_corrects_facts() {
    let env = TestEnv::new();
    index_mail(&env);
    let mut s = serve(&env);
    s.initialize();

    let r = s.call("memory_list_facts", json!({}));
    assert_eq!(r["structuredContent"], json!({"facts": []}));

    // remember: the same JSON as `remember --json`; the same text twice is one fact.
    let jane = s.call(
        "memory_remember",
        json!({"text": "Jane Tan is my Acme contact"}),
    );
    assert!(!is_error(&jane), "{jane}");
    let jane_id = jane["structuredContent"]["id"].as_i64().unwrap();
    assert_eq!(jane["structuredContent"]["method"], "user");
    assert_eq!(jane["structuredContent"]["created_at"], NOW);
    assert!(text_of(&jane).starts_with(&format!("Remembered as fact {jane_id}")));
    let again = s.call(
        "memory_remember",
        json!({"text": "  jane tan IS my acme contact"}),
    );
    assert_eq!(again["structuredContent"]["id"], jane_id);
    assert!(text_of(&again).starts_with("Already remembered"));
    let shellfish = s.call(
        "memory_remember",
        json!({"text": "I am allergic to shellfish"}),
    );
    let shellfish_id = shellfish["structuredContent"]["id"].as_i64().unwrap();
    let dentist = s.call(
        "memory_remember",
        json!({"text": "My dentist is Dr Lim in Bangsar"}),
    );
    let dentist_id = dentist["structuredContent"]["id"].as_i64().unwrap();
    let r = s.call("memory_remember", json!({"text": "   "}));
    assert!(
        is_error(&r) && text_of(&r).contains("nothing to remember"),
        "{r}"
    );

    // The facts are searchable at once, and listed as `facts --json` lists them.
    let r = s.call(
        "memory_search",
        json!({"query": "acme contact", "source": ["fact"]}),
    );
    assert_eq!(r["structuredContent"]["hits"][0]["id"], jane_id);
    let listed = s.call("memory_list_facts", json!({}));
    assert_eq!(
        fact_ids(&listed, "facts"),
        [jane_id, shellfish_id, dentist_id]
    );
    assert_eq!(
        listed["structuredContent"]["facts"],
        env.json(["facts"], 0),
        "the same JSON as `facts --json`"
    );

    // forget by match: several candidates change nothing, none is an error.
    let r = s.call("memory_forget", json!({"match": "my"}));
    assert!(is_error(&r), "{r}");
    assert_eq!(fact_ids(&r, "forgotten"), Vec::<i64>::new());
    assert_eq!(
        fact_ids(&r, "candidates").len(),
        2,
        "Jane and the dentist: {r}"
    );
    assert!(text_of(&r).contains("with the id of the one to forget"));
    let r = s.call("memory_forget", json!({"match": "penguins"}));
    assert!(
        is_error(&r) && text_of(&r).contains("nothing was forgotten"),
        "{r}"
    );
    assert_eq!(
        fact_ids(&s.call("memory_list_facts", json!({})), "facts").len(),
        3
    );

    // Exactly one match is forgotten; so is a fact named by id.
    let r = s.call("memory_forget", json!({"match": "shellfish"}));
    assert!(!is_error(&r), "{r}");
    assert_eq!(fact_ids(&r, "forgotten"), [shellfish_id]);
    assert_eq!(r["structuredContent"]["forgotten"][0]["retracted_at"], NOW);
    let r = s.call("memory_forget", json!({"id": dentist_id}));
    assert_eq!(fact_ids(&r, "forgotten"), [dentist_id]);

    // Unknown ids and ids that are not facts: tool errors, nothing changes.
    let email_id = s.call("memory_search", json!({"query": "penang flights"}))["structuredContent"]
        ["hits"][0]["id"]
        .as_i64()
        .unwrap();
    for id in [9999, email_id, dentist_id] {
        let r = s.call("memory_forget", json!({"id": id}));
        assert!(is_error(&r), "{id}: {r}");
        assert!(text_of(&r).contains(&id.to_string()), "{}", text_of(&r));
    }

    // Forgotten facts leave search and the list, but stay in the history.
    let r = s.call("memory_search", json!({"query": "shellfish allergic"}));
    assert_eq!(r["structuredContent"]["hits"], json!([]));
    let active = s.call("memory_list_facts", json!({}));
    assert_eq!(fact_ids(&active, "facts"), [jane_id]);
    let all = s.call("memory_list_facts", json!({"include_retracted": true}));
    assert_eq!(fact_ids(&all, "facts"), [jane_id, shellfish_id, dentist_id]);
    assert_eq!(
        all["structuredContent"]["facts"],
        env.json(["facts", "--all"], 0)
    );

    // Arguments that do not fit: invalid params.
    for args in [
        json!({}),
        json!({"id": jane_id, "match": "jane"}),
        json!({"id": "one"}),
        json!({"id": jane_id, "purge": true}),
        json!({"ids": []}),
        json!({"ids": [jane_id], "id": jane_id}),
        json!({"ids": [jane_id, "two"]}),
    ] {
        let code = s.error_code(
            "tools/call",
            json!({"name": "memory_forget", "arguments": args.clone()}),
        );
        assert_eq!(code, -32602, "{args}");
    }
    for (tool, args) in [
        ("memory_remember", json!({})),
        ("memory_remember", json!({"text": ["a", "b"]})),
        ("memory_list_facts", json!({"include_retracted": "yes"})),
    ] {
        let code = s.error_code(
            "tools/call",
            json!({"name": tool, "arguments": args.clone()}),
        );
        assert_eq!(code, -32602, "{tool} {args}");
    }
    s.finish();
}

#[test]
fn bad_input_is_answered_and_the_server_reads_on() {
    let env = TestEnv::new();
    index_mail(&env);
    let mut s = serve(&env);
    s.initialize();

    s.send_raw("{this is not json");
    let reply = s.recv();
    assert_eq!(reply["error"]["code"], -32700);
    assert_eq!(reply["id"], Value::Null);

    s.send_raw(r#"{"jsonrpc": "2.0", "id": null, "method": "ping"}"#);
    assert_eq!(s.recv()["error"]["code"], -32600);

    // An unknown notification is ignored; an unknown method is not found.
    s.send(&json!({"jsonrpc": "2.0", "method": "notifications/whatever"}));
    assert_eq!(s.error_code("sampling/createMessage", json!({})), -32601);

    // Arguments that do not fit the schema: invalid params.
    for params in [
        json!({"name": "memory_recall", "arguments": {"query": "x"}}),
        json!({"arguments": {"query": "x"}}),
        json!({"name": "memory_search", "arguments": {}}),
        json!({"name": "memory_search", "arguments": {"query": 42}}),
        json!({"name": "memory_search", "arguments": {"query": "x", "limit": "ten"}}),
        json!({"name": "memory_search", "arguments": {"query": "x", "when": "today"}}),
        json!({"name": "memory_search", "arguments": "acme"}),
        // Outside the published schema's bounds and enums: the same error as a
        // wrong type, whichever side of the bound.
        json!({"name": "memory_search", "arguments": {"query": "x", "limit": 0}}),
        json!({"name": "memory_search", "arguments": {"query": "x", "limit": -5}}),
        json!({"name": "memory_search", "arguments": {"query": "x", "limit": 100000}}),
        json!({"name": "memory_search", "arguments": {"query": ""}}),
        json!({"name": "memory_search", "arguments": {"query": "x", "source": ["mail"]}}),
        json!({"name": "memory_search", "arguments": {"query": "x", "source": "email,mail"}}),
    ] {
        assert_eq!(
            s.error_code("tools/call", params.clone()),
            -32602,
            "{params}"
        );
    }

    // Arguments that fit but cannot be done: a tool error the model can read.
    for (args, says) in [
        (
            json!({"query": "acme", "after": "the day the music died"}),
            "after: invalid date",
        ),
        (
            json!({"query": "acme", "after": "2026-02", "before": "2026-01"}),
            "after must be earlier than before",
        ),
        (json!({"query": "   "}), "empty query"),
    ] {
        let r = s.call("memory_search", args.clone());
        assert!(is_error(&r), "{args}: {r}");
        assert!(text_of(&r).starts_with(says), "{args}: {}", text_of(&r));
    }
    assert_eq!(recall_rows(&env), 0, "failed searches log nothing");

    // Hostile queries are just words.
    for q in [
        "\"unbalanced",
        "acme AND (",
        "NOT",
        "*",
        "acme:contract",
        "😀",
    ] {
        let r = s.call("memory_search", json!({"query": q}));
        assert!(!is_error(&r), "{q}: {r}");
    }

    // Still serving after all of that.
    assert_eq!(s.result("ping", json!({})), json!({}));
    s.finish();
}

#[test]
fn end_of_input_ends_the_server_cleanly_even_mid_line() {
    let env = TestEnv::new();
    let mut s = serve(&env);
    s.stdin
        .as_mut()
        .unwrap()
        .write_all(br#"{"jsonrpc": "2.0", "id": 1, "method": "pi"#)
        .unwrap();
    drop(s.stdin.take());
    // The cut-off line is malformed and is answered as such; then exit 0.
    assert_eq!(s.recv()["error"]["code"], -32700);
    s.finish();
}

#[test]
fn memory_get_reads_whole_items_and_both_tools_count_as_genuine_recalls() {
    let env = TestEnv::new();
    index_mail(&env);
    let mut s = serve(&env);
    s.result("initialize", json!({"protocolVersion": "2025-06-18"}));
    let found = s.call(
        "memory_search",
        json!({"query": "acme contract", "limit": 2}),
    );
    let hits = found["structuredContent"]["hits"].as_array().unwrap().len() as i64;
    let genuine = |via: &str| {
        env.count(&format!(
            "SELECT count(*) FROM memory_recalls WHERE via = '{via}'"
        ))
    };
    assert_eq!(genuine("mcp_search"), hits);
    let id = found["structuredContent"]["hits"][0]["id"]
        .as_i64()
        .unwrap();
    let read = s.call("memory_get", json!({"ids": [id]}));
    assert!(!is_error(&read), "{read}");
    let item = &read["structuredContent"]["items"][0];
    assert_eq!(item["id"], id);
    assert!(item["text"].as_str().unwrap().contains("Acme"), "{item}");
    assert!(text_of(&read).contains("Subject: Acme contract renewal"));
    assert_eq!(genuine("mcp_get"), 1);
    // One call, one group: the chunks of one memory_search share a call id.
    assert_eq!(
        env.count("SELECT count(DISTINCT call_id) FROM memory_recalls WHERE via = 'mcp_search'"),
        1
    );
    let missing = s.call("memory_get", json!({"ids": [id, 999_999]}));
    assert!(is_error(&missing));
    assert!(
        text_of(&missing).contains("no item with id 999999"),
        "{missing}"
    );
    assert_eq!(genuine("mcp_get"), 1, "a failed read records nothing");
}

#[test]
fn memory_search_gives_one_hit_per_message_as_the_command_does() {
    let env = TestEnv::new();
    let spam: Vec<String> = (0..5)
        .map(|i| format!("Part {i}: the lottery prize is waiting, claim the lottery prize today."))
        .collect();
    let file = env.write(
        "spam.mbox",
        mbox_message(
            "spam@x",
            "Sun, 1 Mar 2026 10:00:00 +0000",
            "Lottery",
            &spam.join("\n\n"),
        ),
    );
    env.cmd(["index-mbox"]).arg(&file).assert().success();
    let cli = env.json(["search", "lottery", "--no-log"], 0);

    let mut s = serve(&env);
    s.initialize();
    let r = s.call("memory_search", json!({"query": "lottery"}));
    let hits = &r["structuredContent"]["hits"];
    assert_eq!(hits, &cli);
    assert_eq!(hits.as_array().unwrap().len(), 1);
    assert_eq!(hits[0]["more_chunks"], 4);
    assert!(text_of(&r).contains("(4 more passages of this email matched"));
    // After the first call's genuine recall, as the server will see it.
    let all = env.json(["search", "lottery", "--no-log", "--all-chunks"], 0);
    let r = s.call(
        "memory_search",
        json!({"query": "lottery", "all_chunks": true}),
    );
    assert_eq!(r["structuredContent"]["hits"], all);
    assert_eq!(all.as_array().unwrap().len(), 5);
    s.finish();
}
