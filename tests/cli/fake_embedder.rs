//! A fake OpenAI-compatible `/v1/embeddings` server on a std `TcpListener`
//! thread, so semantic recall is tested through the real binary with no
//! model. Its vectors are deterministic "concept" counts: words of one topic
//! (budget, spending, money…) land on the same axis, so texts that share no
//! word can still be near each other, as with a real model.

#![allow(dead_code)] // each test module uses a different subset

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

/// Each axis and the words that count towards it; everything else counts
/// a little towards the last axis.
const TOPICS: &[&[&str]] = &[
    &[
        "budget", "budgets", "spending", "money", "costs", "finance", "expenses",
    ],
    &["flight", "trip", "airport", "vacation", "travel", "hotel"],
    &["dinner", "lunch", "pizza", "restaurant", "food", "cooking"],
];

pub fn concept_vector(text: &str) -> Vec<f32> {
    let mut v = vec![0.0f32; TOPICS.len() + 1];
    for w in text
        .to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        match TOPICS.iter().position(|t| t.contains(&w)) {
            Some(i) => v[i] += 1.0,
            None => v[TOPICS.len()] += 0.05,
        }
    }
    v
}

/// Dimensions of [`hashed_vector`].
pub const HASHED_DIM: usize = 48;

/// A hashed bag of words: each word adds ±1 on 4 of [`HASHED_DIM`]
/// dimensions chosen by its FNV hash, and the sum is normalised. Texts that
/// share words are near; enough dimensions for a vector index to have
/// something to cluster (benches/fake_embedder.py is the bench's version).
pub fn hashed_vector(text: &str) -> Vec<f32> {
    let mut v = vec![0.0f32; HASHED_DIM];
    for w in text
        .to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.len() > 2)
    {
        let mut h: u64 = 0xcbf29ce484222325;
        for b in w.bytes() {
            h = (h ^ u64::from(b)).wrapping_mul(0x100000001b3);
        }
        for k in 0..4 {
            let bits = h >> (k * 16);
            let sign = if bits & 0x8000 == 0 { 1.0 } else { -1.0 };
            v[(bits as usize & 0x7fff) % HASHED_DIM] += sign;
        }
    }
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if n == 0.0 {
        v[0] = 1.0;
    } else {
        v.iter_mut().for_each(|x| *x /= n);
    }
    v
}

pub struct FakeEmbedder {
    pub url: String,
    /// Texts embedded so far (the probe included).
    pub texts: Arc<AtomicUsize>,
    /// The values of the Authorization headers seen.
    pub auth: Arc<std::sync::Mutex<Vec<String>>>,
    /// While true, every request is answered 500.
    pub failing: Arc<AtomicBool>,
    /// Every text embedded so far, in the order they came.
    pub seen: Arc<std::sync::Mutex<Vec<String>>>,
}

impl FakeEmbedder {
    /// Serve plain HTTP on a free port; every answer waits `delay` first.
    pub fn start(delay: Duration) -> FakeEmbedder {
        FakeEmbedder::serve(delay, None, concept_vector)
    }

    /// Serve [`hashed_vector`]s instead of concept counts.
    pub fn start_hashed(delay: Duration) -> FakeEmbedder {
        FakeEmbedder::serve(delay, None, hashed_vector)
    }

    /// Serve HTTPS on a free port with the certificate of `tls`.
    pub fn start_tls(tls: Arc<rustls::ServerConfig>) -> FakeEmbedder {
        FakeEmbedder::serve(Duration::ZERO, Some(tls), concept_vector)
    }

    fn serve(
        delay: Duration,
        tls: Option<Arc<rustls::ServerConfig>>,
        vectors: fn(&str) -> Vec<f32>,
    ) -> FakeEmbedder {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let scheme = if tls.is_some() { "https" } else { "http" };
        let url = format!("{scheme}://{}/v1", listener.local_addr().unwrap());
        let texts = Arc::new(AtomicUsize::new(0));
        let auth = Arc::new(std::sync::Mutex::new(Vec::new()));
        let failing = Arc::new(AtomicBool::new(false));
        let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
        let server = Server {
            texts: texts.clone(),
            auth: auth.clone(),
            failing: failing.clone(),
            seen: seen.clone(),
            delay,
            vectors,
        };
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                match &tls {
                    None => server.answer(stream),
                    Some(config) => {
                        let Ok(conn) = rustls::ServerConnection::new(config.clone()) else {
                            continue;
                        };
                        // A client that refuses the certificate ends the
                        // handshake, and with it this connection.
                        server.answer(rustls::StreamOwned::new(conn, stream));
                    }
                }
            }
        });
        FakeEmbedder {
            url,
            texts,
            auth,
            failing,
            seen,
        }
    }

    pub fn texts(&self) -> usize {
        self.texts.load(Ordering::SeqCst)
    }
}

/// What the serving thread shares with the test.
struct Server {
    texts: Arc<AtomicUsize>,
    auth: Arc<std::sync::Mutex<Vec<String>>>,
    failing: Arc<AtomicBool>,
    seen: Arc<std::sync::Mutex<Vec<String>>>,
    delay: Duration,
    vectors: fn(&str) -> Vec<f32>,
}

impl Server {
    /// Read one request from `stream` and answer it; the connection then
    /// closes, and every answer says so.
    fn answer(&self, mut stream: impl Read + Write) {
        let mut r = BufReader::new(&mut stream);
        let (mut len, mut line) = (0usize, String::new());
        loop {
            line.clear();
            if r.read_line(&mut line).unwrap_or(0) == 0 || line.trim().is_empty() {
                break;
            }
            let lower = line.to_ascii_lowercase();
            if let Some(v) = lower.strip_prefix("content-length:") {
                len = v.trim().parse().unwrap_or(0);
            }
            // Header names are case-insensitive: keep the value only.
            if lower.starts_with("authorization:") {
                let value = line["authorization:".len()..].trim();
                self.auth.lock().unwrap().push(value.to_string());
            }
        }
        let mut body = vec![0; len];
        if r.read_exact(&mut body).is_err() {
            return;
        }
        drop(r);
        if self.failing.load(Ordering::SeqCst) {
            let _ = write!(
                stream,
                "HTTP/1.1 500 Oops\r\nContent-Length: 4\r\nConnection: close\r\n\r\nboom"
            );
            let _ = stream.flush();
            return;
        }
        let req: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
        let inputs: Vec<String> = serde_json::from_value(req["input"].clone()).unwrap_or_default();
        self.texts.fetch_add(inputs.len(), Ordering::SeqCst);
        self.seen.lock().unwrap().extend(inputs.iter().cloned());
        std::thread::sleep(self.delay);
        let data: Vec<serde_json::Value> = inputs
            .iter()
            .enumerate()
            .map(|(i, s)| serde_json::json!({"index": i, "embedding": (self.vectors)(s)}))
            .collect();
        let out = serde_json::json!({"object": "list", "data": data}).to_string();
        let _ = write!(
            stream,
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{out}",
            out.len()
        );
        let _ = stream.flush();
    }
}
