//! `alfred-mem mcp` held to the MCP 2025-06-18 specification where clients
//! were seen to break: error ids, the lifecycle, batches, the size limit,
//! resources, prompts, and forgetting several facts at once.

use serde_json::{Value, json};

use crate::mcp::{fact_ids, index_mail, is_error, serve, text_of};
use crate::util::TestEnv;

/// Regression: a 5 MB `memory_remember` was answered with `"id": null`, and
/// the Python SDK waited for its timeout. Now every error whose request id
/// can be read carries it, even when the id comes after the limit.
#[test]
fn errors_carry_the_request_id_whenever_it_can_be_read() {
    let env = TestEnv::new();
    let mut s = serve(&env);
    s.initialize();

    let huge = "x".repeat(5 << 20);
    s.send(&json!({"jsonrpc": "2.0", "id": 41, "method": "tools/call",
        "params": {"name": "memory_remember", "arguments": {"text": huge}}}));
    let reply = s.recv();
    assert_eq!(
        reply["id"],
        41,
        "{}",
        &reply.to_string()[..200.min(reply.to_string().len())]
    );
    assert_eq!(reply["error"]["code"], -32600);
    let message = reply["error"]["message"].as_str().unwrap();
    assert!(message.contains("4194304 bytes (4 MiB)"), "{message}");

    // The id written after the oversized part.
    s.send_raw(&format!(
        r#"{{"jsonrpc":"2.0","method":"tools/call","params":{{"name":"memory_remember","arguments":{{"text":"{huge}"}}}},"id":"late-id"}}"#
    ));
    assert_eq!(s.recv()["id"], "late-id");

    // Broken JSON after the id: a parse error, with the id.
    s.send_raw(r#"{"jsonrpc": "2.0", "id": 42, "method": "tools/call", "params": {"name": "#);
    let reply = s.recv();
    assert_eq!(
        (reply["id"].clone(), reply["error"]["code"].clone()),
        (json!(42), json!(-32700))
    );

    // A float id cannot be echoed: null, as JSON-RPC says.
    s.send_raw(r#"{"jsonrpc": "2.0", "id": 1.5, "method": "ping"}"#);
    assert_eq!(s.recv()["id"], Value::Null);

    // The server reads on.
    assert_eq!(s.result("ping", json!({})), json!({}));
    s.finish();
}

#[test]
fn nothing_but_ping_is_served_before_initialize() {
    let env = TestEnv::new();
    let mut s = serve(&env);
    assert_eq!(s.result("ping", json!({})), json!({}));
    for method in ["tools/list", "tools/call", "resources/list", "prompts/list"] {
        let reply = s.request(method, json!({}));
        assert_eq!(reply["error"]["code"], -32600, "{method}: {reply}");
        assert!(
            reply["error"]["message"]
                .as_str()
                .unwrap()
                .contains("before initialize"),
            "{reply}"
        );
    }
    s.initialize();
    assert!(s.result("tools/list", json!({}))["tools"].is_array());
    s.finish();
}

/// 2025-06-18 removed JSON-RPC batches; 2025-03-26 had them. So a batch is
/// one invalid request unless the client agreed on 2025-03-26, and even then
/// `initialize` may not ride in one.
#[test]
fn batches_are_answered_as_the_agreed_revision_says() {
    let env = TestEnv::new();
    let batch = json!([
        {"jsonrpc": "2.0", "id": 1, "method": "ping"},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]);

    let mut s = serve(&env);
    s.send(&batch);
    let reply = s.recv();
    assert_eq!(reply["error"]["code"], -32600, "before initialize: {reply}");
    s.initialize();
    s.send(&batch);
    let reply = s.recv();
    assert!(
        reply.is_object(),
        "one error, not a batch of answers: {reply}"
    );
    assert_eq!(reply["error"]["code"], -32600);
    assert!(
        reply["error"]["message"]
            .as_str()
            .unwrap()
            .contains("2025-06-18")
    );
    s.finish();

    let mut s = serve(&env);
    let init = s.result(
        "initialize",
        json!({"protocolVersion": "2025-03-26", "capabilities": {},
               "clientInfo": {"name": "old", "version": "0"}}),
    );
    assert_eq!(init["protocolVersion"], "2025-03-26");
    s.send(&batch);
    let replies = s.recv();
    let ids: Vec<&Value> = replies
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["id"])
        .collect();
    assert_eq!(ids, [&json!(1), &json!(2)], "{replies}");
    s.send(&json!([{"jsonrpc": "2.0", "id": 3, "method": "initialize", "params": {}}]));
    assert_eq!(s.recv()[0]["error"]["code"], -32600);
    s.finish();
}

#[test]
fn resources_are_the_facts_and_any_passage_by_uri() {
    let env = TestEnv::new();
    index_mail(&env);
    let mut s = serve(&env);
    s.initialize();
    let fact = s.call(
        "memory_remember",
        json!({"text": "Jane Tan is my Acme contact"}),
    );
    let fact_id = fact["structuredContent"]["id"].as_i64().unwrap();

    let listed = s.result("resources/list", json!({}))["resources"].clone();
    let uris: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["uri"].as_str().unwrap())
        .collect();
    assert_eq!(
        uris,
        [
            "alfred-mem://facts".to_string(),
            format!("alfred-mem://fact/{fact_id}")
        ]
    );
    let templates = s.result("resources/templates/list", json!({}));
    assert_eq!(
        templates["resourceTemplates"][1]["uriTemplate"],
        "alfred-mem://chunk/{id}"
    );

    let read = |s: &mut crate::mcp::Server, uri: &str| -> Value {
        let r = s.result("resources/read", json!({"uri": uri}));
        assert_eq!(r["contents"][0]["uri"], uri);
        assert_eq!(r["contents"][0]["mimeType"], "application/json");
        serde_json::from_str(r["contents"][0]["text"].as_str().unwrap()).unwrap()
    };
    assert_eq!(read(&mut s, "alfred-mem://facts"), env.json(["facts"], 0));
    assert_eq!(
        read(&mut s, &format!("alfred-mem://fact/{fact_id}"))["text"],
        "Jane Tan is my Acme contact"
    );
    let hit =
        s.call("memory_search", json!({"query": "penang flights"}))["structuredContent"]["hits"][0]
            .clone();
    let chunk = read(&mut s, &format!("alfred-mem://chunk/{}", hit["id"]));
    for key in [
        "id",
        "source_type",
        "source_id",
        "dated_at",
        "text",
        "subject",
        "from",
    ] {
        assert_eq!(chunk[key], hit[key], "{key}");
    }

    for uri in [
        "alfred-mem://chunk/99999",
        "alfred-mem://fact/abc",
        "https://example.com/",
    ] {
        let reply = s.request("resources/read", json!({"uri": uri}));
        assert_eq!(reply["error"]["code"], -32002, "{uri}: {reply}");
    }
    assert_eq!(s.error_code("resources/read", json!({})), -32602);
    s.finish();
}

#[test]
fn the_about_me_prompt_hands_the_model_the_facts() {
    let env = TestEnv::new();
    let mut s = serve(&env);
    s.initialize();
    s.call(
        "memory_remember",
        json!({"text": "I am allergic to shellfish"}),
    );
    let prompts = s.result("prompts/list", json!({}))["prompts"].clone();
    assert_eq!(prompts[0]["name"], "what_do_you_know_about_me");
    let got = s.result("prompts/get", json!({"name": "what_do_you_know_about_me"}));
    let message = &got["messages"][0];
    assert_eq!(message["role"], "user");
    let text = message["content"]["text"].as_str().unwrap();
    assert!(text.starts_with("What do you know about me?"), "{text}");
    assert!(text.contains("I am allergic to shellfish"), "{text}");
    assert_eq!(s.error_code("prompts/get", json!({"name": "nope"})), -32602);
    s.finish();
}

#[test]
fn memory_forget_takes_a_list_all_or_nothing() {
    let env = TestEnv::new();
    let mut s = serve(&env);
    s.initialize();
    let ids: Vec<i64> = ["one fact", "two facts", "three facts"]
        .iter()
        .map(|t| {
            s.call("memory_remember", json!({"text": t}))["structuredContent"]["id"]
                .as_i64()
                .unwrap()
        })
        .collect();

    // One unknown id: nothing changes.
    let r = s.call("memory_forget", json!({"ids": [ids[0], 99999]}));
    assert!(is_error(&r) && text_of(&r).contains("99999"), "{r}");
    assert_eq!(
        fact_ids(&s.call("memory_list_facts", json!({})), "facts"),
        ids
    );

    let r = s.call("memory_forget", json!({"ids": [ids[2], ids[0]]}));
    assert!(!is_error(&r), "{r}");
    assert_eq!(fact_ids(&r, "forgotten"), [ids[0], ids[2]]);
    assert_eq!(
        fact_ids(&s.call("memory_list_facts", json!({})), "facts"),
        [ids[1]]
    );
    s.finish();
}
