//! An OpenAI-compatible `/v1/embeddings` endpoint (Ollama, llama.cpp's
//! server, vLLM, a hosted API…), over `http://` or `https://`, with `ureq`.
//!
//! TLS is rustls. A server's certificate must chain to one of Mozilla's
//! root certificates (compiled in, `webpki-root-certs`, so no machine's
//! certificate store is consulted) or to a certificate in the PEM file that
//! `SSL_CERT_FILE` names: a private CA, for a server inside a company or at
//! home. Unlike OpenSSL, which then trusts only that file, the Mozilla roots
//! stay trusted too, so naming a private CA does not cut off public
//! endpoints.
//!
//! The client ignores `HTTP_PROXY` and its kin (ureq would read them): the
//! endpoint named in `model use` is the one spoken to, and only `config.rs`
//! reads the environment.

use std::path::Path;
use std::time::Duration;

use anyhow::{Context, Result, bail, ensure};
use serde::Deserialize;
use ureq::Agent;
use ureq::tls::{Certificate, PemItem, RootCerts, TlsConfig};

use super::{Embedder, normalise};

const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// A local model on a busy CPU can take a while for a batch.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(300);
/// The largest answer read: 32 texts × 3,072 dimensions as JSON numbers is
/// about 2 MB.
const MAX_ANSWER_BYTES: u64 = 64 << 20;

pub struct HttpEmbedder {
    agent: Agent,
    /// The URL requests go to (the configured one, with the default path).
    endpoint: String,
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

/// The URL requests go to: `url` if it names a path, else its
/// `/v1/embeddings`; one ending in `/v1` gets `/embeddings`.
pub fn endpoint_url(url: &str) -> Result<String> {
    let Some((scheme, rest)) = url.split_once("://") else {
        bail!("an endpoint is an http:// or https:// URL (got {url})");
    };
    ensure!(
        scheme == "http" || scheme == "https",
        "an endpoint is an http:// or https:// URL (got {url})"
    );
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    ensure!(
        !authority.is_empty() && !authority.starts_with(':'),
        "no host in {url}"
    );
    let path = match path.trim_end_matches('/') {
        "" => "/v1/embeddings".to_string(),
        p if p.ends_with("/v1") => format!("{p}/embeddings"),
        p => p.to_string(),
    };
    Ok(format!("{scheme}://{authority}{path}"))
}

/// Mozilla's roots, and for `https://` the certificates of `SSL_CERT_FILE`.
fn trusted_roots(https: bool) -> Result<Vec<Certificate<'static>>> {
    let mut roots: Vec<Certificate<'static>> = webpki_root_certs::TLS_SERVER_ROOT_CERTS
        .iter()
        .map(|der| Certificate::from_der(der.as_ref()))
        .collect();
    if let Some(path) = crate::config::ssl_cert_file().filter(|_| https) {
        roots.extend(pem_certificates(&path)?);
    }
    Ok(roots)
}

/// Every certificate in the PEM file `path`, which must hold at least one.
fn pem_certificates(path: &Path) -> Result<Vec<Certificate<'static>>> {
    let what = || format!("SSL_CERT_FILE {}", path.display());
    let pem = std::fs::read(path).with_context(|| format!("could not read {}", what()))?;
    let mut certs = Vec::new();
    for item in ureq::tls::parse_pem(&pem) {
        if let PemItem::Certificate(c) = item.with_context(|| format!("unreadable {}", what()))? {
            certs.push(c);
        }
    }
    ensure!(!certs.is_empty(), "{} holds no PEM certificate", what());
    Ok(certs)
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
        let endpoint = endpoint_url(url)?;
        let key =
            match key_env {
                Some(var) => Some(std::env::var(var).with_context(|| {
                    format!("environment variable {var} (the API key) is not set")
                })?),
                None => None,
            };
        let tls = TlsConfig::builder()
            .root_certs(RootCerts::new_with_certs(&trusted_roots(
                endpoint.starts_with("https://"),
            )?))
            .build();
        let agent = Agent::config_builder()
            .tls_config(tls)
            .proxy(None)
            // A redirect would re-send the texts elsewhere; the answer is
            // reported instead.
            .max_redirects(0)
            // Error answers are read, to show what the server said.
            .http_status_as_error(false)
            .timeout_connect(Some(CONNECT_TIMEOUT))
            .timeout_recv_response(Some(ANSWER_TIMEOUT))
            .timeout_recv_body(Some(ANSWER_TIMEOUT))
            .build()
            .new_agent();
        let mut e = HttpEmbedder {
            agent,
            endpoint,
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
        let mut req = self
            .agent
            .post(&self.endpoint)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json");
        if let Some(k) = &self.key {
            req = req.header("Authorization", format!("Bearer {k}"));
        }
        let mut answer = req.send(&body[..]).map_err(|e| failed(&self.endpoint, e))?;
        let status = answer.status().as_u16();
        let body = answer
            .body_mut()
            .with_config()
            .limit(MAX_ANSWER_BYTES)
            .read_to_vec()
            .map_err(|e| failed(&self.endpoint, e))?;
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

/// A request to `endpoint` that got no answer, said so that the user can
/// act: a certificate nobody vouched for names the way to trust it.
fn failed(endpoint: &str, e: ureq::Error) -> anyhow::Error {
    let text = e.to_string();
    // rustls says "invalid peer certificate: UnknownIssuer" (or BadSignature,
    // Expired, NotValidForName…), through ureq either as its own error or
    // inside an I/O error.
    if text.contains("certificate") {
        return anyhow::anyhow!(
            "the TLS certificate of {endpoint} is not trusted ({text}); if a private CA \
             signed it, name the CA's PEM file in SSL_CERT_FILE"
        );
    }
    match e {
        ureq::Error::HostNotFound | ureq::Error::ConnectionFailed => {
            anyhow::anyhow!("could not connect to {endpoint}: {text}")
        }
        ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::ConnectionRefused => {
            anyhow::anyhow!("could not connect to {endpoint}: {io}")
        }
        e => anyhow::Error::new(e).context(format!("the request to {endpoint} failed")),
    }
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
    fn endpoint_url_table() {
        for (url, want) in [
            (
                "http://localhost:11434",
                "http://localhost:11434/v1/embeddings",
            ),
            (
                "http://127.0.0.1:8080/v1",
                "http://127.0.0.1:8080/v1/embeddings",
            ),
            (
                "https://api.example.com/v1/",
                "https://api.example.com/v1/embeddings",
            ),
            ("http://h/api/embed/", "http://h/api/embed"),
            (
                "http://[::1]:9000/v1/embeddings",
                "http://[::1]:9000/v1/embeddings",
            ),
        ] {
            assert_eq!(endpoint_url(url).unwrap(), want, "{url}");
        }
        for bad in ["ftp://h/v1", "localhost:11434", "http://:80", "https:///v1"] {
            assert!(endpoint_url(bad).is_err(), "{bad}");
        }
    }
}
