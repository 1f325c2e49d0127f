//! JSON-RPC 2.0 as MCP's stdio transport frames it: one message per line,
//! UTF-8, no embedded newlines. This file knows the envelope (ids, methods,
//! error codes) and nothing about tools.

use std::io::{self, BufRead, Read, Write};

use serde_json::{Map, Value, json};

use super::request_id::IdScanner;

/// Error codes from the JSON-RPC 2.0 specification.
pub mod code {
    pub const PARSE_ERROR: i64 = -32700;
    pub const INVALID_REQUEST: i64 = -32600;
    pub const METHOD_NOT_FOUND: i64 = -32601;
    pub const INVALID_PARAMS: i64 = -32602;
    pub const INTERNAL_ERROR: i64 = -32603;
}

/// The longest message read, in bytes (4 MiB), on stdio and over HTTP alike.
/// A tool call is a few kilobytes and a long conversation turn a few hundred;
/// a runaway client must not make us buffer without bound. A longer message
/// is skipped and answered with an invalid-request error carrying its id.
/// README ("MCP server") documents this figure.
pub const MAX_MESSAGE_BYTES: usize = 4 << 20;

/// An error answered in place of a result.
#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    pub code: i64,
    pub message: String,
}

impl RpcError {
    pub fn new(code: i64, message: impl Into<String>) -> RpcError {
        RpcError {
            code,
            message: message.into(),
        }
    }

    pub fn invalid_params(message: impl Into<String>) -> RpcError {
        RpcError::new(code::INVALID_PARAMS, message)
    }
}

/// One incoming message, sorted by what it asks of us.
#[derive(Debug, PartialEq)]
pub enum Incoming {
    /// Must be answered, with the same id.
    Request {
        id: Value,
        method: String,
        params: Option<Map<String, Value>>,
    },
    /// Must not be answered, not even with an error.
    Notification { method: String },
    /// A reply to a request of ours. We send none, so there is nothing to do.
    Response,
    /// Answered with this error; the id is null when it could not be read.
    Invalid { id: Value, error: RpcError },
}

/// Sorts one parsed message (not a batch).
pub fn classify(message: Value) -> Incoming {
    let Value::Object(mut m) = message else {
        return invalid(Value::Null, "a message must be a JSON object");
    };
    let id = m.remove("id");
    // MCP ids are strings or integers, never null; anything else cannot be
    // echoed back meaningfully.
    let id_ok = id
        .as_ref()
        .is_none_or(|v| v.is_string() || v.is_i64() || v.is_u64());
    let reply_id = if id_ok {
        id.clone().unwrap_or(Value::Null)
    } else {
        Value::Null
    };
    if m.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return invalid(reply_id, "\"jsonrpc\" must be \"2.0\"");
    }
    if !id_ok {
        return invalid(Value::Null, "\"id\" must be a string or an integer");
    }
    let method = match m.remove("method") {
        Some(Value::String(s)) => s,
        Some(_) => return invalid(reply_id, "\"method\" must be a string"),
        None if id.is_some() && (m.contains_key("result") || m.contains_key("error")) => {
            return Incoming::Response;
        }
        None => return invalid(reply_id, "a request needs a \"method\""),
    };
    let Some(id) = id else {
        return Incoming::Notification { method };
    };
    let params = match m.remove("params") {
        None | Some(Value::Null) => None,
        Some(Value::Object(p)) => Some(p),
        Some(_) => {
            return Incoming::Invalid {
                id,
                error: RpcError::invalid_params("\"params\" must be an object"),
            };
        }
    };
    Incoming::Request { id, method, params }
}

fn invalid(id: Value, message: &str) -> Incoming {
    Incoming::Invalid {
        id,
        error: RpcError::new(code::INVALID_REQUEST, message),
    }
}

pub fn result(id: Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

pub fn error(id: Value, e: &RpcError) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": e.code, "message": e.message}})
}

/// What one read from the input gave.
#[derive(Debug, PartialEq)]
pub enum Line {
    /// The bytes of one line, without its newline.
    Message(Vec<u8>),
    /// A line longer than [`MAX_MESSAGE_BYTES`]; it has been skipped. The
    /// id is its request's, when one could be read from it.
    TooLong { id: Value },
}

/// The answer to a message longer than [`MAX_MESSAGE_BYTES`].
pub fn too_long(id: Value) -> Value {
    error(
        id,
        &RpcError::new(
            code::INVALID_REQUEST,
            format!(
                "message longer than the limit of {MAX_MESSAGE_BYTES} bytes (4 MiB); it was skipped"
            ),
        ),
    )
}

/// Reads the next line, or None at the end of the input. A last line
/// without a newline still counts.
pub fn read_line(input: &mut impl BufRead) -> io::Result<Option<Line>> {
    let mut buf = Vec::new();
    let n = input
        .take(MAX_MESSAGE_BYTES as u64 + 1)
        .read_until(b'\n', &mut buf)?;
    if n == 0 {
        return Ok(None);
    }
    if buf.last() == Some(&b'\n') {
        buf.pop();
        return Ok(Some(Line::Message(buf)));
    }
    if buf.len() <= MAX_MESSAGE_BYTES {
        return Ok(Some(Line::Message(buf)));
    }
    let mut scanner = IdScanner::new();
    scanner.feed(&buf);
    drop(buf);
    skip_line(input, &mut scanner)?;
    Ok(Some(Line::TooLong { id: scanner.id() }))
}

/// Discards input up to and including the next newline (or the end),
/// looking for the request id on the way.
fn skip_line(input: &mut impl BufRead, scanner: &mut IdScanner) -> io::Result<()> {
    loop {
        let chunk = input.fill_buf()?;
        if chunk.is_empty() {
            return Ok(());
        }
        match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => {
                scanner.feed(&chunk[..i]);
                input.consume(i + 1);
                return Ok(());
            }
            None => {
                scanner.feed(chunk);
                let n = chunk.len();
                input.consume(n);
            }
        }
    }
}

/// Writes one message as one line and flushes, so the client sees it now.
pub fn write_message(out: &mut impl Write, message: &Value) -> io::Result<()> {
    // serde_json escapes control characters inside strings, so the compact
    // form never contains a raw newline.
    serde_json::to_writer(&mut *out, message)?;
    out.write_all(b"\n")?;
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(id: Value, method: &str) -> Incoming {
        Incoming::Request {
            id,
            method: method.into(),
            params: None,
        }
    }

    #[test]
    fn messages_are_sorted_by_what_they_ask() {
        let cases = [
            (
                json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}),
                req(json!(1), "ping"),
            ),
            (
                json!({"jsonrpc": "2.0", "id": "a", "method": "ping", "params": null}),
                req(json!("a"), "ping"),
            ),
            (
                json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
                Incoming::Notification {
                    method: "notifications/initialized".into(),
                },
            ),
            (
                json!({"jsonrpc": "2.0", "id": 7, "result": {}}),
                Incoming::Response,
            ),
            (
                json!([1]),
                invalid(Value::Null, "a message must be a JSON object"),
            ),
            (
                json!({"id": 3, "method": "ping"}),
                invalid(json!(3), "\"jsonrpc\" must be \"2.0\""),
            ),
            (
                json!({"jsonrpc": "2.0", "id": null, "method": "ping"}),
                invalid(Value::Null, "\"id\" must be a string or an integer"),
            ),
            (
                json!({"jsonrpc": "2.0", "id": 1.5, "method": "ping"}),
                invalid(Value::Null, "\"id\" must be a string or an integer"),
            ),
            (
                json!({"jsonrpc": "2.0", "id": 4, "method": 9}),
                invalid(json!(4), "\"method\" must be a string"),
            ),
            (
                json!({"jsonrpc": "2.0", "id": 5}),
                invalid(json!(5), "a request needs a \"method\""),
            ),
            (
                json!({"jsonrpc": "2.0", "id": 6, "method": "x", "params": [1]}),
                Incoming::Invalid {
                    id: json!(6),
                    error: RpcError::invalid_params("\"params\" must be an object"),
                },
            ),
        ];
        for (message, want) in cases {
            assert_eq!(classify(message.clone()), want, "{message}");
        }
    }

    #[test]
    fn lines_are_split_on_newlines_and_an_overlong_one_is_skipped() {
        let mut input = Vec::new();
        input.extend_from_slice(b"{\"a\":1}\r\n");
        input.extend_from_slice(b"{\"params\":{\"text\":\"");
        input.extend(std::iter::repeat_n(b'x', MAX_MESSAGE_BYTES + 10));
        input.extend_from_slice(b"\"},\"id\":42}\nlast");
        let mut r = io::BufReader::new(input.as_slice());
        assert_eq!(
            read_line(&mut r).unwrap(),
            Some(Line::Message(b"{\"a\":1}\r".to_vec()))
        );
        assert_eq!(
            read_line(&mut r).unwrap(),
            Some(Line::TooLong { id: json!(42) }),
            "the id is read even after the limit"
        );
        assert_eq!(
            read_line(&mut r).unwrap(),
            Some(Line::Message(b"last".to_vec()))
        );
        assert_eq!(read_line(&mut r).unwrap(), None);
    }

    #[test]
    fn a_message_is_one_line_even_when_its_text_has_newlines() {
        let mut out = Vec::new();
        write_message(&mut out, &json!({"text": "a\nb\r\u{2028}"})).unwrap();
        assert_eq!(out.iter().filter(|&&b| b == b'\n').count(), 1);
        assert_eq!(out.last(), Some(&b'\n'));
    }
}
