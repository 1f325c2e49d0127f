//! `https://` embedding endpoints: the fake embeddings server behind a
//! certificate from a private CA that each test makes (rcgen). Named in
//! `SSL_CERT_FILE`, the CA is trusted and everything works end to end;
//! without it the certificate is refused, and the error names the endpoint
//! and the way to trust it.

use std::path::Path;
use std::sync::Arc;

use assert_cmd::Command;
use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair};

use crate::fake_embedder::FakeEmbedder;
use crate::semantic::indexed;
use crate::util::TestEnv;

/// A new CA's certificate (PEM), and a TLS server config whose certificate
/// for 127.0.0.1 and localhost that CA signed.
fn private_ca() -> (String, Arc<rustls::ServerConfig>) {
    let ca_key = KeyPair::generate().unwrap();
    let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca.distinguished_name
        .push(DnType::CommonName, "alfred-mem test CA");
    let ca_cert = ca.self_signed(&ca_key).unwrap();
    let issuer = Issuer::new(ca, ca_key);
    let key = KeyPair::generate().unwrap();
    let server = CertificateParams::new(vec!["127.0.0.1".to_string(), "localhost".to_string()])
        .unwrap()
        .signed_by(&key, &issuer)
        .unwrap();
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(
            vec![server.der().clone()],
            rustls::pki_types::PrivateKeyDer::Pkcs8(key.serialize_der().into()),
        )
        .unwrap();
    (ca_cert.pem(), Arc::new(config))
}

/// `alfred-mem ARGS --json` with `SSL_CERT_FILE` naming `ca`: its JSON.
fn json_trusting(env: &TestEnv, ca: &Path, args: &[&str]) -> serde_json::Value {
    let out = env
        .cmd(args)
        .arg("--json")
        .env("SSL_CERT_FILE", ca)
        .assert()
        .success();
    serde_json::from_slice(&out.get_output().stdout).unwrap()
}

#[test]
fn an_https_endpoint_signed_by_the_ca_in_ssl_cert_file_embeds_and_searches() {
    let (ca_pem, tls) = private_ca();
    let server = FakeEmbedder::start_tls(tls);
    assert!(server.url.starts_with("https://127.0.0.1:"));
    let env = TestEnv::new();
    let ca = env.write("ca.pem", ca_pem);
    indexed(&env);
    let v = json_trusting(&env, &ca, &["model", "use", &server.url, "--name", "fake"]);
    assert_eq!(
        (v["enabled"].as_bool(), v["dimension"].as_u64()),
        (Some(true), Some(4))
    );
    let v = json_trusting(&env, &ca, &["embed"]);
    assert_eq!(v["embedded"], 4);
    // "costs" shares no word with the spending text, only its topic: the
    // hit comes from the vectors the HTTPS server computed.
    let v = json_trusting(&env, &ca, &["search", "--no-log", "--semantic", "costs"]);
    let first = v[0]["text"].as_str().unwrap_or_default();
    assert!(first.contains("Q3 spending plan"), "{v}");
    assert!(
        server.texts() >= 5,
        "the probe, the four texts and the query"
    );
}

#[test]
fn an_untrusted_certificate_is_refused_naming_the_endpoint() {
    let (_, tls) = private_ca();
    let server = FakeEmbedder::start_tls(tls);
    let env = TestEnv::new();
    indexed(&env);
    // Another CA in SSL_CERT_FILE vouches for nothing this server shows.
    let (other_ca, _) = private_ca();
    let other = env.write("other-ca.pem", other_ca);
    let without: Command = env.cmd(["model", "use", &server.url, "--name", "fake"]);
    let mut with_other = env.cmd(["model", "use", &server.url, "--name", "fake"]);
    with_other.env("SSL_CERT_FILE", &other);
    for mut cmd in [without, with_other] {
        let out = cmd.assert().code(2);
        let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
        for want in [
            server.url.as_str(),
            "certificate",
            "not trusted",
            "SSL_CERT_FILE",
        ] {
            assert!(stderr.contains(want), "{want:?} missing from: {stderr}");
        }
        assert_eq!(stderr.lines().count(), 1, "one clear line: {stderr}");
    }
    assert_eq!(server.texts(), 0, "no text crossed an untrusted connection");
    let v = env.json(["model", "status"], 0);
    assert_eq!(v["enabled"], false);
}

#[test]
fn an_unreadable_ssl_cert_file_is_named() {
    let (_, tls) = private_ca();
    let server = FakeEmbedder::start_tls(tls);
    let env = TestEnv::new();
    let not_pem = env.write("not-a-cert.pem", "hello");
    for (file, want) in [
        (
            env.root().join("missing.pem"),
            "could not read SSL_CERT_FILE",
        ),
        (not_pem, "holds no PEM certificate"),
    ] {
        env.cmd(["model", "use", &server.url, "--name", "fake"])
            .env("SSL_CERT_FILE", &file)
            .assert()
            .code(2)
            .stderr(predicates::str::contains(want))
            .stderr(predicates::str::contains(file.display().to_string()));
    }
}
