//! An OpenAI-compatible `/v1/embeddings` endpoint (Ollama, llama.cpp's
//! server, vLLM, …), spoken over plain HTTP/1.1 on a `TcpStream`.
//!
//! Hand-written rather than an HTTP crate: one POST with a JSON body and a
//! JSON answer is all it needs, and it keeps the binary free of a TLS stack.
//! The consequence is `http://` only, which is what a local server offers;
//! reach a remote https service through a local proxy.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use serde::Deserialize;

use super::{Embedder, normalise};

const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// A local model on a busy CPU can take a while for a batch.
const READ_TIMEOUT: Duration = Duration::from_secs(300);

pub struct HttpEmbedder {
    host: String,
    port: u16,
    path: String,
    model: String,
    key: Option<String>,
    name: String,
    dimension: usize,
}

#[derive(Deserialize)]
struct Reply {
    data: Vec<Item>,
}

#[derive(Deserialize)]
struct Item {
    embedding: Vec<f32>,
    #[serde(default)]
    index: Option<usize>,
}

/// host, port and path of an `http://` URL; a URL without a path gets
/// `/v1/embeddings`, one ending in `/v1` gets `/embeddings`.
pub fn parse_url(url: &str) -> Result<(String, u16, String)> {
    let Some(rest) = url.strip_prefix("http://") else {
        bail!("only http:// endpoints are supported (got {url})");
    };
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let (host, port) = match authority.rsplit_once(':') {
        Some((h, p)) if !h.ends_with(']') || h.starts_with('[') => (
            h.to_string(),
            p.parse().with_context(|| format!("bad port in {url}"))?,
        ),
        _ => (authority.to_string(), 80),
    };
    if host.is_empty() {
        bail!("no host in {url}");
    }
    let path = match path.trim_end_matches('/') {
        "" => "/v1/embeddings".to_string(),
        p if p.ends_with("/v1") => format!("{p}/embeddings"),
        p => p.to_string(),
    };
    Ok((host, port, path))
}

impl HttpEmbedder {
    /// An endpoint of known `dimension`, or, with None, one probe request to
    /// learn it (so a wrong URL or model fails at `model use`, not later).
    pub fn open(
        url: &str,
        model: &str,
        key_env: Option<&str>,
        dimension: Option<usize>,
    ) -> Result<HttpEmbedder> {
        let (host, port, path) = parse_url(url)?;
        let key =
            match key_env {
                Some(var) => Some(std::env::var(var).with_context(|| {
                    format!("environment variable {var} (the API key) is not set")
                })?),
                None => None,
            };
        let mut e = HttpEmbedder {
            host,
            port,
            path,
            model: model.to_string(),
            key,
            name: format!("http:{model}@{url}"),
            dimension: dimension.unwrap_or(0),
        };
        if e.dimension > 0 {
            return Ok(e);
        }
        let probe = e.request(&["dimension probe"])?;
        e.dimension = probe.first().map_or(0, Vec::len);
        if e.dimension == 0 {
            bail!("{url} returned an empty embedding");
        }
        Ok(e)
    }

    fn request(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        let body = serde_json::to_vec(&serde_json::json!({"model": self.model, "input": texts}))?;
        let addr = (self.host.trim_matches(['[', ']']), self.port)
            .to_socket_addrs()
            .with_context(|| format!("could not resolve {}", self.host))?
            .next()
            .with_context(|| format!("could not resolve {}", self.host))?;
        let mut stream = TcpStream::connect_timeout(&addr, CONNECT_TIMEOUT)
            .with_context(|| format!("could not connect to {}:{}", self.host, self.port))?;
        stream.set_read_timeout(Some(READ_TIMEOUT))?;
        stream.set_write_timeout(Some(READ_TIMEOUT))?;
        let mut head = format!(
            "POST {} HTTP/1.1\r\nHost: {}:{}\r\nContent-Type: application/json\r\nAccept: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
            self.path,
            self.host,
            self.port,
            body.len()
        );
        if let Some(k) = &self.key {
            head.push_str(&format!("Authorization: Bearer {k}\r\n"));
        }
        head.push_str("\r\n");
        stream.write_all(head.as_bytes())?;
        stream.write_all(&body)?;
        let (status, body) = read_response(BufReader::new(stream))?;
        if !(200..300).contains(&status) {
            let text = String::from_utf8_lossy(&body);
            bail!(
                "embeddings endpoint answered {status}: {}",
                text.chars().take(200).collect::<String>()
            );
        }
        let mut reply: Reply = serde_json::from_slice(&body)
            .context("the embeddings endpoint's answer is not the OpenAI shape")?;
        if reply.data.len() != texts.len() {
            bail!(
                "asked for {} embeddings, got {}",
                texts.len(),
                reply.data.len()
            );
        }
        reply.data.sort_by_key(|d| d.index.unwrap_or(0));
        Ok(reply
            .data
            .into_iter()
            .map(|d| {
                let mut v = d.embedding;
                normalise(&mut v);
                v
            })
            .collect())
    }
}

/// Status and body of an HTTP/1.x response; the body is read by
/// Content-Length, chunked encoding, or to the end of the connection.
fn read_response(mut r: impl BufRead) -> Result<(u16, Vec<u8>)> {
    let mut line = String::new();
    r.read_line(&mut line)?;
    let status: u16 = line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .with_context(|| format!("not an HTTP response: {}", line.trim()))?;
    let (mut length, mut chunked) = (None, false);
    loop {
        line.clear();
        if r.read_line(&mut line)? == 0 || line.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = line.split_once(':') {
            let (k, v) = (k.trim().to_ascii_lowercase(), v.trim());
            if k == "content-length" {
                length = v.parse::<usize>().ok();
            } else if k == "transfer-encoding" && v.to_ascii_lowercase().contains("chunked") {
                chunked = true;
            }
        }
    }
    let mut body = Vec::new();
    if chunked {
        loop {
            line.clear();
            r.read_line(&mut line)?;
            let size = usize::from_str_radix(line.trim().split(';').next().unwrap_or(""), 16)
                .context("bad chunk size")?;
            if size == 0 {
                break;
            }
            let at = body.len();
            body.resize(at + size, 0);
            r.read_exact(&mut body[at..])?;
            line.clear();
            r.read_line(&mut line)?;
        }
    } else if let Some(n) = length {
        body.resize(n, 0);
        r.read_exact(&mut body)?;
    } else {
        r.read_to_end(&mut body)?;
    }
    Ok((status, body))
}

impl Embedder for HttpEmbedder {
    fn name(&self) -> &str {
        &self.name
    }

    fn dimension(&self) -> usize {
        self.dimension
    }

    fn embed(&mut self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        self.request(texts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn url_table() {
        for (url, want) in [
            (
                "http://localhost:11434",
                ("localhost", 11434, "/v1/embeddings"),
            ),
            (
                "http://127.0.0.1:8080/v1",
                ("127.0.0.1", 8080, "/v1/embeddings"),
            ),
            ("http://h/api/embed/", ("h", 80, "/api/embed")),
            (
                "http://[::1]:9000/v1/embeddings",
                ("[::1]", 9000, "/v1/embeddings"),
            ),
        ] {
            let (h, p, path) = parse_url(url).unwrap();
            assert_eq!((h.as_str(), p, path.as_str()), want, "{url}");
        }
        assert!(parse_url("https://api.example.com").is_err());
        assert!(parse_url("http://:80").is_err());
    }

    #[test]
    fn chunked_and_sized_bodies() {
        let chunked = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n";
        assert_eq!(
            read_response(&chunked[..]).unwrap(),
            (200, b"abcde".to_vec())
        );
        let sized = b"HTTP/1.0 404 Not Found\r\nContent-Length: 2\r\n\r\nnoXX";
        assert_eq!(read_response(&sized[..]).unwrap(), (404, b"no".to_vec()));
    }
}
