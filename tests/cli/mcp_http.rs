//! `alfred-mem mcp --http` (issue 22 item 3): the real binary on a loopback
//! port, spoken to over real TCP connections with plain HTTP/1.1 requests,
//! as an HTTP client library would send them. The official Python SDK's
//! streamable-HTTP client drives it too, in `mcp_python`.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

use crate::util::TestEnv;

/// A running `mcp --http` server and its address.
pub(crate) struct HttpServer {
    child: Child,
    pub(crate) addr: String,
}

impl HttpServer {
    pub(crate) fn start(env: &TestEnv, extra: &[&str], token: Option<&str>) -> HttpServer {
        let mut cmd = env.std_cmd(["mcp"]);
        cmd.args(extra).stdin(Stdio::null()).stderr(Stdio::piped());
        if let Some(t) = token {
            cmd.env("MCP_TOKEN", t);
        }
        let mut child = cmd.spawn().unwrap();
        // Only the first log line is read, then the pipe is closed, as many
        // clients do with a server's stderr. Regression: the server's log
        // then panicked every initialize into an internal error.
        let mut line = String::new();
        BufReader::new(child.stderr.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let url = line
            .split_whitespace()
            .find(|w| w.starts_with("http://"))
            .unwrap_or_else(|| panic!("no URL in {line:?}"));
        let addr = url
            .trim_start_matches("http://")
            .trim_end_matches("/mcp")
            .to_string();
        HttpServer { child, addr }
    }

    /// Sends one request on a new connection and returns the status, the
    /// headers (lowercase names) and the body.
    fn send(&self, method: &str, headers: &[(&str, &str)], body: &[u8]) -> Reply {
        let mut s = TcpStream::connect(&self.addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        let mut req = format!("{method} /mcp HTTP/1.1\r\nConnection: close\r\n");
        if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
            req.push_str(&format!("Host: {}\r\n", self.addr));
        }
        for (k, v) in headers {
            req.push_str(&format!("{k}: {v}\r\n"));
        }
        req.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
        s.write_all(req.as_bytes()).unwrap();
        s.write_all(body).unwrap();
        let mut raw = Vec::new();
        s.read_to_end(&mut raw).unwrap();
        Reply::parse(&raw)
    }

    fn post(&self, headers: &[(&str, &str)], message: &Value) -> Reply {
        let mut all = vec![
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
        ];
        all.extend_from_slice(headers);
        self.send("POST", &all, message.to_string().as_bytes())
    }

    /// Initialises a session and returns its id.
    fn initialize(&self, headers: &[(&str, &str)]) -> String {
        let r = self.post(
            headers,
            &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "http-test", "version": "0"}}}),
        );
        assert_eq!(r.status, 200, "{r:?}");
        assert_eq!(r.json()["result"]["protocolVersion"], "2025-06-18", "{r:?}");
        r.header("mcp-session-id")
            .expect("a session id")
            .to_string()
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[derive(Debug)]
struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Reply {
    fn parse(raw: &[u8]) -> Reply {
        let split = raw
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .expect("a complete response head");
        let head = String::from_utf8_lossy(&raw[..split]);
        let mut lines = head.split("\r\n");
        let status = lines
            .next()
            .unwrap()
            .split(' ')
            .nth(1)
            .unwrap()
            .parse()
            .unwrap();
        let headers = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
            .collect();
        Reply {
            status,
            headers,
            body: raw[split + 4..].to_vec(),
        }
    }

    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&self.body)))
    }
}

fn call(id: i64, tool: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": tool, "arguments": arguments}})
}

#[test]
fn a_client_works_through_a_session_with_plain_json() {
    let env = TestEnv::new();
    let server = HttpServer::start(&env, &["--http", "127.0.0.1:0"], None);
    let session = server.initialize(&[]);
    assert_eq!(session.len(), 32, "{session}");
    let with_session = [
        ("Mcp-Session-Id", session.as_str()),
        ("MCP-Protocol-Version", "2025-06-18"),
    ];

    let r = server.post(
        &with_session,
        &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    );
    assert_eq!((r.status, r.body.len()), (202, 0));

    // An `Accept: */*` client gets plain JSON.
    let r = server.send(
        "POST",
        &[
            ("Accept", "*/*"),
            ("Content-Type", "application/json"),
            with_session[0],
        ],
        call(
            1,
            "memory_add_messages",
            json!({"conversation_id": "c", "messages": [
            {"role": "user", "content": "The gondola password is heliotrope"}]}),
        )
        .to_string()
        .as_bytes(),
    );
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert_eq!(r.json()["result"]["structuredContent"]["messages_added"], 1);

    let r = server.post(
        &with_session,
        &call(2, "memory_search", json!({"query": "gondola"})),
    );
    let hits = &r.json()["result"]["structuredContent"]["hits"];
    assert_eq!(hits[0]["source_id"], "c", "{hits}");

    // A client that accepts only an event stream gets the answer as one event.
    let r = server.send(
        "POST",
        &[
            ("Accept", "text/event-stream"),
            ("Content-Type", "application/json"),
            with_session[0],
        ],
        json!({"jsonrpc": "2.0", "id": 3, "method": "ping"})
            .to_string()
            .as_bytes(),
    );
    assert_eq!(r.header("content-type"), Some("text/event-stream"));
    let body = String::from_utf8(r.body).unwrap();
    assert_eq!(
        body,
        "event: message\ndata: {\"id\":3,\"jsonrpc\":\"2.0\",\"result\":{}}\n\n"
    );

    // Ending the session: later requests on it are 404.
    let r = server.send("DELETE", &[with_session[0]], b"");
    assert_eq!(r.status, 204);
    let r = server.post(
        &with_session,
        &json!({"jsonrpc": "2.0", "id": 4, "method": "ping"}),
    );
    assert_eq!(r.status, 404);
    assert_eq!(r.json()["id"], 4, "the error names the request");
}

#[test]
fn requests_outside_the_rules_are_refused_with_the_status_the_spec_names() {
    let env = TestEnv::new();
    let server = HttpServer::start(&env, &["--http", "127.0.0.1:0"], None);
    let session = server.initialize(&[]);
    let ping = json!({"jsonrpc": "2.0", "id": 7, "method": "ping"});
    let cases: [(&[(&str, &str)], u16); 6] = [
        (&[], 400),                                       // no session
        (&[("Mcp-Session-Id", "0123456789abcdef")], 404), // unknown session
        (
            &[
                ("Mcp-Session-Id", &session),
                ("MCP-Protocol-Version", "1999-01-01"),
            ],
            400,
        ),
        // DNS rebinding: a page elsewhere, or a name that resolves here.
        (
            &[
                ("Mcp-Session-Id", &session),
                ("Origin", "https://evil.example"),
            ],
            403,
        ),
        (
            &[("Mcp-Session-Id", &session), ("Host", "evil.example:80")],
            403,
        ),
        (
            &[
                ("Mcp-Session-Id", &session),
                ("Origin", "http://localhost:5173"),
            ],
            200,
        ),
    ];
    for (headers, status) in cases {
        let r = server.post(headers, &ping);
        assert_eq!(r.status, status, "{headers:?}: {r:?}");
    }
    assert_eq!(server.send("GET", &[], b"").status, 405);
    let r = server.send(
        "POST",
        &[("Content-Type", "text/plain"), ("Mcp-Session-Id", &session)],
        ping.to_string().as_bytes(),
    );
    assert_eq!(r.status, 415);

    // Over the 4 MiB limit: the request's error, with its id; 413 when the
    // body has no id to answer.
    let huge = call(8, "memory_remember", json!({"text": "x".repeat(5 << 20)}));
    let r = server.post(&[("Mcp-Session-Id", &session)], &huge);
    assert_eq!((r.status, r.json()["id"].clone()), (200, json!(8)));
    assert_eq!(r.json()["error"]["code"], -32600);
    let r = server.post(
        &[("Mcp-Session-Id", &session)],
        &json!(["x".repeat(5 << 20)]),
    );
    assert_eq!((r.status, r.json()["id"].clone()), (413, Value::Null));
}

#[test]
fn only_loopback_unless_remote_is_allowed_with_a_token() {
    let env = TestEnv::new();
    env.cmd(["mcp", "--http", "0.0.0.0:0"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("is not a loopback address"));
    env.cmd(["mcp", "--http", "0.0.0.0:0", "--allow-remote"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("--token-env"));
    env.cmd([
        "mcp",
        "--http",
        "0.0.0.0:0",
        "--allow-remote",
        "--token-env",
        "MCP_TOKEN",
    ])
    .env("MCP_TOKEN", "short")
    .assert()
    .code(2)
    .stderr(predicates::str::contains("use at least 32"));
    assert!(!env.db().exists(), "nothing was created");

    let token = "0123456789abcdef0123456789abcdef";
    let server = HttpServer::start(
        &env,
        &[
            "--http",
            "0.0.0.0:0",
            "--allow-remote",
            "--token-env",
            "MCP_TOKEN",
        ],
        Some(token),
    );
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}});
    let r = server.post(&[], &init);
    assert_eq!(
        (r.status, r.header("www-authenticate")),
        (401, Some("Bearer"))
    );
    let wrong = "Bearer 0123456789abcdef0123456789abcdeX";
    assert_eq!(server.post(&[("Authorization", wrong)], &init).status, 401);
    let bearer = format!("Bearer {token}");
    server.initialize(&[("Authorization", &bearer), ("Host", "memory.lan:80")]);
}
