//! MCP's Streamable HTTP transport (2025-06-18), for agents and harnesses
//! that speak HTTP rather than stdio: `alfred-mem mcp --http 127.0.0.1:PORT`.
//! One endpoint, `/mcp`:
//!
//! - `POST` carries one JSON-RPC message (or a 2025-03-26 batch). A request
//!   is answered with plain JSON (`application/json`): this server never
//!   sends requests or notifications of its own, so it needs no stream. A
//!   client that accepts only `text/event-stream` gets the answer as one
//!   event. Notifications and responses are answered `202 Accepted`.
//! - `initialize` starts a session: the answer carries `Mcp-Session-Id`,
//!   which every later request must send (400 without it, 404 once it is
//!   unknown or ended). `MCP-Protocol-Version`, when sent, must be a
//!   revision we speak (400 otherwise).
//! - `DELETE` with the session id ends the session; `GET` (a server-to-client
//!   stream) is 405, as the spec allows a server that sends nothing unasked.
//!
//! Every request passes [`guard::Guard`] first (Host, Origin, bearer token).
//! Connections are served on their own threads; requests reach the one
//! open store one at a time, as on stdio.

mod guard;
mod wire;

use std::collections::HashMap;
use std::io::{BufReader, BufWriter, Read};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use serde_json::Value;

use super::protocol::{self, RpcError, code};
use super::request_id;
use super::{Client, Session, supported_version};
use crate::sanitize::one_line;
pub use guard::Guard;
use wire::{BadRequest, Head, Response};

/// The one path served.
pub const ENDPOINT: &str = "/mcp";
/// Connections served at once; more wait in the kernel's queue... or are
/// answered 503 when they arrive while this many are open.
const MAX_CONNECTIONS: usize = 32;
/// Sessions remembered; past this, the one idle longest is ended.
const MAX_SESSIONS: usize = 256;
/// A connection that sends nothing for this long is closed.
const IDLE_TIMEOUT: Duration = Duration::from_secs(120);

/// What every connection thread shares.
struct Shared {
    session: Mutex<Session>,
    clients: Mutex<HashMap<String, (Client, Instant)>>,
    guard: Guard,
    open: AtomicUsize,
}

/// Refuses a non-loopback address unless remote access was allowed (the
/// caller made sure a token comes with it), then binds.
pub fn bind(addr: SocketAddr, guard: &Guard) -> Result<TcpListener> {
    if !addr.ip().is_loopback() && !guard.allow_remote {
        bail!(
            "{addr} is not a loopback address; to serve other machines add --allow-remote \
with --token-env NAME (a bearer token in that environment variable)"
        );
    }
    TcpListener::bind(addr).with_context(|| format!("could not listen on {addr}"))
}

/// Serves `listener` until the process is stopped.
pub fn serve(session: Session, listener: TcpListener, guard: Guard) -> Result<()> {
    let shared = Arc::new(Shared {
        session: Mutex::new(session),
        clients: Mutex::new(HashMap::new()),
        guard,
        open: AtomicUsize::new(0),
    });
    for stream in listener.incoming() {
        let Ok(stream) = stream else { continue };
        let shared = Arc::clone(&shared);
        if shared.open.fetch_add(1, Ordering::SeqCst) >= MAX_CONNECTIONS {
            shared.open.fetch_sub(1, Ordering::SeqCst);
            let busy = Response::json(503, &rpc_error(Value::Null, "too many connections; retry"));
            let _ = busy.write(&mut &stream, false);
            continue;
        }
        std::thread::spawn(move || {
            let _ = serve_connection(&shared, stream);
            shared.open.fetch_sub(1, Ordering::SeqCst);
        });
    }
    Ok(())
}

/// How long, and how much, a closing connection still reads of what the
/// client sent: closing with unread bytes makes the kernel reset the
/// connection, and a client can lose the response it was sent (the body of
/// a refused request, say).
const LINGER: Duration = Duration::from_secs(2);
const LINGER_BYTES: usize = 16 << 20;

fn serve_connection(shared: &Shared, stream: TcpStream) -> std::io::Result<()> {
    let closing = stream.try_clone()?;
    let served = serve_requests(shared, stream);
    close_gently(&closing);
    served
}

/// Ends the sending side, then reads and drops what the client still sends
/// (up to [`LINGER_BYTES`], for at most [`LINGER`] of silence) before the
/// socket is dropped.
fn close_gently(stream: &TcpStream) {
    if stream.shutdown(Shutdown::Write).is_err() || stream.set_read_timeout(Some(LINGER)).is_err() {
        return;
    }
    let mut sink = [0u8; 8192];
    let mut left = LINGER_BYTES;
    while left > 0 {
        match (&*stream).read(&mut sink) {
            Ok(0) | Err(_) => break,
            Ok(n) => left = left.saturating_sub(n),
        }
    }
}

fn serve_requests(shared: &Shared, stream: TcpStream) -> std::io::Result<()> {
    stream.set_read_timeout(Some(IDLE_TIMEOUT))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut writer = BufWriter::new(stream);
    loop {
        let head = match wire::read_head(&mut reader)? {
            Ok(Some(head)) => head,
            Ok(None) => return Ok(()),
            Err(bad) => {
                return refusal(bad).write(&mut writer, false);
            }
        };
        let mut keep_alive = head.keep_alive();
        let response = match admit(shared, &head) {
            // The body, if any, is not read: the connection cannot go on.
            Err(r) => {
                keep_alive = false;
                r
            }
            Ok(()) if head.method == "POST" => match wire::read_body(&mut reader, &head)? {
                Ok(body) => post(shared, &head, &body),
                Err(bad) => {
                    keep_alive &= matches!(bad, BadRequest::TooLarge { drained: true, .. });
                    refusal(bad)
                }
            },
            Ok(()) if head.method == "DELETE" => delete(shared, &head),
            Ok(()) => Response::new(405).header("Allow", "POST, DELETE"),
        };
        response.write(&mut writer, keep_alive)?;
        if !keep_alive {
            return Ok(());
        }
    }
}

/// The path and the guard's checks; a refusal is the response to send.
fn admit(shared: &Shared, head: &Head) -> Result<(), Response> {
    if head.path != ENDPOINT {
        return Err(Response::json(
            404,
            &rpc_error(
                Value::Null,
                &format!("nothing here; MCP is served at {ENDPOINT}"),
            ),
        ));
    }
    shared
        .guard
        .admit(
            head.header("host"),
            head.header("origin"),
            head.header("authorization"),
        )
        .map_err(|r| {
            let mut response = Response::json(r.status, &rpc_error(Value::Null, &r.reason));
            if r.status == 401 {
                response = response.header("WWW-Authenticate", "Bearer");
            }
            response
        })
}

fn post(shared: &Shared, head: &Head, body: &[u8]) -> Response {
    let id = || request_id::scan(body);
    if let Some(t) = head.header("content-type")
        && !t.to_ascii_lowercase().starts_with("application/json")
    {
        return Response::json(415, &rpc_error(id(), "send Content-Type: application/json"));
    }
    let Some(sse) = wants_event_stream(head.header("accept")) else {
        return Response::json(
            406,
            &rpc_error(id(), "accept application/json or text/event-stream"),
        );
    };
    let is_initialize = serde_json::from_slice::<Value>(body)
        .is_ok_and(|v| v.get("method").and_then(Value::as_str) == Some("initialize"));
    let (reply, new_session) = if is_initialize {
        let mut client = Client::default();
        let reply = lock(&shared.session).handle_bytes(&mut client, body);
        let started = client
            .version()
            .is_some()
            .then(|| start_session(shared, client));
        (reply, started)
    } else {
        match find_client(shared, head) {
            Ok((session_id, mut client)) => {
                if let Some(v) = head.header("mcp-protocol-version")
                    && supported_version(v.trim()).is_none()
                {
                    return Response::json(
                        400,
                        &rpc_error(
                            id(),
                            &format!("unsupported MCP-Protocol-Version {:?}", one_line(v)),
                        ),
                    );
                }
                let reply = lock(&shared.session).handle_bytes(&mut client, body);
                if let Some(entry) = lock(&shared.clients).get_mut(&session_id) {
                    *entry = (client, Instant::now());
                }
                (reply, None)
            }
            Err((status, message)) => return Response::json(status, &rpc_error(id(), &message)),
        }
    };
    let mut response = match reply {
        None => Response::new(202),
        Some(v) if sse => Response::event_stream(&v),
        Some(v) => Response::json(200, &v),
    };
    if let Some(session_id) = new_session {
        response = response.header("Mcp-Session-Id", session_id);
    }
    response
}

/// The session named by `Mcp-Session-Id`, or the status and reason to refuse.
fn find_client(shared: &Shared, head: &Head) -> Result<(String, Client), (u16, String)> {
    let Some(session_id) = head.header("mcp-session-id").map(str::trim) else {
        return Err((400, "no Mcp-Session-Id; send initialize first".into()));
    };
    match lock(&shared.clients).get(session_id) {
        Some((client, _)) => Ok((session_id.to_string(), client.clone())),
        None => Err((
            404,
            "unknown or ended session; send initialize to start a new one".into(),
        )),
    }
}

fn start_session(shared: &Shared, client: Client) -> String {
    let id = new_session_id();
    let mut clients = lock(&shared.clients);
    if clients.len() >= MAX_SESSIONS
        && let Some(oldest) = clients
            .iter()
            .min_by_key(|(_, (_, used))| *used)
            .map(|(k, _)| k.clone())
    {
        clients.remove(&oldest);
    }
    clients.insert(id.clone(), (client, Instant::now()));
    id
}

fn delete(shared: &Shared, head: &Head) -> Response {
    match head.header("mcp-session-id") {
        Some(id) if lock(&shared.clients).remove(id.trim()).is_some() => Response::new(204),
        Some(_) => Response::json(404, &rpc_error(Value::Null, "unknown or ended session")),
        None => Response::json(400, &rpc_error(Value::Null, "no Mcp-Session-Id to end")),
    }
}

/// Whether to answer as an event stream: Some(false) for JSON, Some(true)
/// when the client accepts only `text/event-stream`, None when it accepts
/// neither. No `Accept` at all, or `*/*`, means JSON.
fn wants_event_stream(accept: Option<&str>) -> Option<bool> {
    let Some(accept) = accept else {
        return Some(false);
    };
    let types: Vec<String> = accept
        .split(',')
        .map(|t| {
            t.split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase()
        })
        .collect();
    let json = types
        .iter()
        .any(|t| matches!(t.as_str(), "application/json" | "application/*" | "*/*"));
    if json {
        Some(false)
    } else if types.iter().any(|t| t == "text/event-stream") {
        Some(true)
    } else {
        None
    }
}

fn refusal(bad: BadRequest) -> Response {
    match bad {
        BadRequest::Malformed(why) => Response::json(400, &rpc_error(Value::Null, why)),
        BadRequest::NoLength => Response::json(
            411,
            &rpc_error(Value::Null, "send the body with a Content-Length"),
        ),
        // A request whose id could be read is answered like any request
        // that fails, 200 with the JSON-RPC error (clients before the 2.x
        // Python SDK drop the session on an HTTP error status); only a body
        // with no id to answer gets the HTTP status.
        BadRequest::TooLarge { id, .. } => {
            let status = if id.is_null() { 413 } else { 200 };
            Response::json(status, &protocol::too_long(id))
        }
    }
}

fn rpc_error(id: Value, message: &str) -> Value {
    protocol::error(id, &RpcError::new(code::INVALID_REQUEST, message))
}

/// 128 random bits from the kernel, as hex: a session id nobody can guess.
fn new_session_id() -> String {
    use std::io::Read;
    let mut bytes = [0u8; 16];
    if std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .is_err()
    {
        // Never expected on Unix; a clock-and-counter id is unique, if guessable.
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, Ordering::SeqCst) as u128;
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        bytes = (t ^ (n << 64)).to_le_bytes();
    }
    hex::encode(bytes)
}

/// A poisoned lock only means a thread panicked mid-request; the data it
/// guards is still whole (the store rolled back), so serving goes on.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_json_unless_only_an_event_stream_is_accepted() {
        for (accept, want) in [
            (None, Some(false)),
            (Some("*/*"), Some(false)),
            (Some("application/json, text/event-stream"), Some(false)),
            (Some("application/json;q=0.9"), Some(false)),
            (Some("text/event-stream"), Some(true)),
            (Some("text/html"), None),
        ] {
            assert_eq!(wants_event_stream(accept), want, "{accept:?}");
        }
    }
}
