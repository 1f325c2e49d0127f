//! Just enough HTTP/1.1 for one JSON endpoint: reading a request's head and
//! its `Content-Length` body with bounds on everything, and writing a
//! response. No chunked request bodies (answered 411), no pipelining
//! beyond reading requests in turn on a kept-alive connection.

use std::collections::HashMap;
use std::io::{self, BufRead, Read, Write};

use serde_json::Value;

use crate::mcp::protocol::MAX_MESSAGE_BYTES;
use crate::mcp::request_id::IdScanner;

/// The longest request line or header line.
const MAX_LINE_BYTES: usize = 8 << 10;
/// The most header lines in one request.
const MAX_HEADERS: usize = 100;
/// The longest body drained (to read its id and keep the connection) when it
/// is over the message limit; a longer one closes the connection.
const MAX_DRAIN_BYTES: u64 = 64 << 20;

/// A request's head. Header names are lowercase; a repeated header keeps
/// its values joined by ", ", as HTTP allows.
#[derive(Debug)]
pub struct Head {
    pub method: String,
    pub path: String,
    headers: HashMap<String, String>,
    pub http10: bool,
}

impl Head {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(String::as_str)
    }

    /// Whether the client wants the connection kept open after the response.
    pub fn keep_alive(&self) -> bool {
        let connection = self.header("connection").unwrap_or("").to_ascii_lowercase();
        if self.http10 {
            connection.contains("keep-alive")
        } else {
            !connection.contains("close")
        }
    }
}

/// Why a request could not be read; each maps to a response and a close.
#[derive(Debug)]
pub enum BadRequest {
    /// 400: not HTTP as we read it.
    Malformed(&'static str),
    /// 411: no `Content-Length` (a chunked body, say).
    NoLength,
    /// 413: over [`MAX_MESSAGE_BYTES`]; the id, when it could be read, and
    /// whether the connection can still be used (the body was drained).
    TooLarge { id: Value, drained: bool },
}

/// Reads the next request head, or None when the client closed cleanly.
pub fn read_head(r: &mut impl BufRead) -> io::Result<Result<Option<Head>, BadRequest>> {
    let Some(line) = read_line(r)? else {
        return Ok(Ok(None));
    };
    let Ok(line) = line else {
        return Ok(Err(BadRequest::Malformed("request line too long")));
    };
    let mut parts = line.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Ok(Err(BadRequest::Malformed("not an HTTP request line")));
    };
    if !matches!(version, "HTTP/1.1" | "HTTP/1.0") {
        return Ok(Err(BadRequest::Malformed("only HTTP/1.1 is spoken here")));
    }
    let mut headers: HashMap<String, String> = HashMap::new();
    for _ in 0..=MAX_HEADERS {
        let Some(Ok(line)) = read_line(r)? else {
            return Ok(Err(BadRequest::Malformed(
                "a header line is too long or cut off",
            )));
        };
        if line.is_empty() {
            let path = target.split('?').next().unwrap_or("").to_string();
            return Ok(Ok(Some(Head {
                method: method.to_string(),
                path,
                headers,
                http10: version == "HTTP/1.0",
            })));
        }
        let Some((name, value)) = line.split_once(':') else {
            return Ok(Err(BadRequest::Malformed("a header line without a colon")));
        };
        let name = name.trim().to_ascii_lowercase();
        let value = value.trim();
        headers
            .entry(name)
            .and_modify(|v| {
                v.push_str(", ");
                v.push_str(value);
            })
            .or_insert_with(|| value.to_string());
    }
    Ok(Err(BadRequest::Malformed("too many header lines")))
}

/// Reads the body the head announces, within the message limit.
pub fn read_body(r: &mut impl BufRead, head: &Head) -> io::Result<Result<Vec<u8>, BadRequest>> {
    if head.header("transfer-encoding").is_some() {
        return Ok(Err(BadRequest::NoLength));
    }
    let length = match head.header("content-length") {
        None => return Ok(Err(BadRequest::NoLength)),
        Some(v) => match v.trim().parse::<u64>() {
            Ok(n) => n,
            Err(_) => return Ok(Err(BadRequest::Malformed("Content-Length is not a number"))),
        },
    };
    if length > MAX_MESSAGE_BYTES as u64 {
        let mut scanner = IdScanner::new();
        let drained = length <= MAX_DRAIN_BYTES;
        let mut left = length.min(MAX_DRAIN_BYTES);
        while left > 0 {
            let chunk = r.fill_buf()?;
            if chunk.is_empty() {
                break;
            }
            let n = chunk.len().min(left as usize);
            scanner.feed(&chunk[..n]);
            r.consume(n);
            left -= n as u64;
        }
        return Ok(Err(BadRequest::TooLarge {
            id: scanner.id(),
            drained: drained && left == 0,
        }));
    }
    let mut body = vec![0; length as usize];
    r.read_exact(&mut body)?;
    Ok(Ok(body))
}

/// One line without its CRLF; Err when longer than [`MAX_LINE_BYTES`];
/// None at a clean end of input.
fn read_line(r: &mut impl BufRead) -> io::Result<Option<Result<String, ()>>> {
    let mut buf = Vec::new();
    let n = r
        .take(MAX_LINE_BYTES as u64 + 1)
        .read_until(b'\n', &mut buf)?;
    if n == 0 {
        return Ok(None);
    }
    if buf.last() != Some(&b'\n') {
        return Ok(Some(Err(())));
    }
    buf.pop();
    if buf.last() == Some(&b'\r') {
        buf.pop();
    }
    Ok(Some(String::from_utf8(buf).map_err(|_| ())))
}

/// A response about to be written.
pub struct Response {
    pub status: u16,
    pub headers: Vec<(&'static str, String)>,
    pub body: Vec<u8>,
}

impl Response {
    pub fn new(status: u16) -> Response {
        Response {
            status,
            headers: Vec::new(),
            body: Vec::new(),
        }
    }

    pub fn json(status: u16, body: &Value) -> Response {
        Response::new(status)
            .header("Content-Type", "application/json")
            .body(body.to_string().into_bytes())
    }

    /// `body` as one server-sent event, then the end of the stream: for a
    /// client that accepts only `text/event-stream`.
    pub fn event_stream(body: &Value) -> Response {
        Response::new(200)
            .header("Content-Type", "text/event-stream")
            .header("Cache-Control", "no-cache")
            .body(format!("event: message\ndata: {body}\n\n").into_bytes())
    }

    pub fn header(mut self, name: &'static str, value: impl Into<String>) -> Response {
        self.headers.push((name, value.into()));
        self
    }

    fn body(mut self, body: Vec<u8>) -> Response {
        self.body = body;
        self
    }

    pub fn write(&self, w: &mut impl Write, keep_alive: bool) -> io::Result<()> {
        let mut head = format!("HTTP/1.1 {} {}\r\n", self.status, reason(self.status));
        for (name, value) in &self.headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        head.push_str(&format!("Content-Length: {}\r\n", self.body.len()));
        if !keep_alive {
            head.push_str("Connection: close\r\n");
        }
        head.push_str("\r\n");
        w.write_all(head.as_bytes())?;
        w.write_all(&self.body)?;
        w.flush()
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        202 => "Accepted",
        204 => "No Content",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        406 => "Not Acceptable",
        411 => "Length Required",
        413 => "Content Too Large",
        415 => "Unsupported Media Type",
        503 => "Service Unavailable",
        _ => "Status",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn head_of(raw: &str) -> Result<Option<Head>, BadRequest> {
        read_head(&mut io::BufReader::new(raw.as_bytes())).unwrap()
    }

    #[test]
    fn a_request_head_is_read_with_lowercase_joined_headers() {
        let head =
            head_of("POST /mcp?x=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: a\r\naccept: b\r\n\r\n")
                .unwrap()
                .unwrap();
        assert_eq!((head.method.as_str(), head.path.as_str()), ("POST", "/mcp"));
        assert_eq!(head.header("accept"), Some("a, b"));
        assert!(head.keep_alive());
        assert!(head_of("").unwrap().is_none());
        for bad in [
            "GET /\r\n\r\n",
            "GET / HTTP/2\r\n\r\n",
            "GET / HTTP/1.1\r\nNoColon\r\n\r\n",
        ] {
            assert!(
                matches!(head_of(bad), Err(BadRequest::Malformed(_))),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn an_oversized_body_is_drained_for_its_id() {
        let body = format!(
            "{{\"params\":{{\"text\":\"{}\"}},\"id\":9}}",
            "x".repeat(MAX_MESSAGE_BYTES)
        );
        let raw = format!(
            "POST /mcp HTTP/1.1\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        let mut r = io::BufReader::new(raw.as_bytes());
        let head = read_head(&mut r).unwrap().unwrap().unwrap();
        match read_body(&mut r, &head).unwrap() {
            Err(BadRequest::TooLarge { id, drained }) => {
                assert_eq!((id, drained), (serde_json::json!(9), true));
            }
            other => panic!("{other:?}"),
        }
    }
}
