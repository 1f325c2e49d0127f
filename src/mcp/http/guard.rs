//! Who may talk to the HTTP transport. The memory is somebody's mail, so:
//!
//! - **DNS rebinding.** A web page the person visits can make their browser
//!   send requests to `127.0.0.1`. The browser always says where the page
//!   came from in `Origin`, and the name it looked up in `Host`; both must
//!   be loopback names (or, with `--allow-remote`, `Host` is the server's
//!   own name and `Origin`, when present, the same origin). MCP 2025-06-18
//!   requires servers to validate `Origin`.
//! - **Other machines.** The server binds to loopback unless
//!   `--allow-remote`, which requires a bearer token (from an environment
//!   variable, so it never shows in `ps`); with a token set, every request
//!   must carry `Authorization: Bearer TOKEN`.

/// Whether `host` (a `Host` header value or a URL authority, with or
/// without a port) names this machine's loopback interface.
pub fn is_loopback_host(host: &str) -> bool {
    let name = strip_port(host.trim()).to_ascii_lowercase();
    name == "localhost"
        || name.ends_with(".localhost")
        || name == "[::1]"
        || name
            .parse::<std::net::Ipv4Addr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// `host:port` without the port; an IPv6 literal keeps its brackets.
fn strip_port(host: &str) -> &str {
    if host.starts_with('[') {
        return host.split_inclusive(']').next().unwrap_or(host);
    }
    host.rsplit_once(':')
        .filter(|(_, port)| port.chars().all(|c| c.is_ascii_digit()))
        .map_or(host, |(name, _)| name)
}

/// The checks, with what the server was started with.
#[derive(Debug, Clone)]
pub struct Guard {
    pub allow_remote: bool,
    pub token: Option<String>,
}

/// A request refused, with the status and the reason given.
#[derive(Debug, PartialEq)]
pub struct Refusal {
    pub status: u16,
    pub reason: String,
}

impl Guard {
    /// Checks a request's `Host`, `Origin` and `Authorization` headers.
    pub fn admit(
        &self,
        host: Option<&str>,
        origin: Option<&str>,
        authorization: Option<&str>,
    ) -> Result<(), Refusal> {
        let refuse = |status, reason: String| Err(Refusal { status, reason });
        if !self.allow_remote && !host.is_some_and(is_loopback_host) {
            return refuse(
                403,
                format!(
                    "Host {:?} is not a loopback name; this server answers only on this machine",
                    host.unwrap_or("")
                ),
            );
        }
        if let Some(origin) = origin.filter(|o| *o != "null") {
            let authority = origin
                .split_once("://")
                .map_or(origin, |(_, rest)| rest)
                .trim_end_matches('/');
            let same_origin = host.is_some_and(|h| h.eq_ignore_ascii_case(authority));
            let allowed = is_loopback_host(authority) || (self.allow_remote && same_origin);
            if !allowed {
                return refuse(403, format!("Origin {origin:?} is not allowed"));
            }
        } else if origin == Some("null") {
            return refuse(
                403,
                "Origin null (a sandboxed page or a file) is not allowed".into(),
            );
        }
        if let Some(token) = &self.token {
            let given = authorization
                .and_then(|a| a.strip_prefix("Bearer "))
                .map(str::trim);
            if !given.is_some_and(|g| same_secret(g.as_bytes(), token.as_bytes())) {
                return refuse(
                    401,
                    "a bearer token is required (Authorization: Bearer TOKEN)".into(),
                );
            }
        }
        Ok(())
    }
}

/// Compares two secrets in time that depends only on their lengths.
fn same_secret(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_names_with_or_without_a_port() {
        for yes in [
            "localhost",
            "localhost:8080",
            "127.0.0.1:1",
            "127.9.9.9",
            "[::1]:80",
            "[::1]",
            "a.localhost",
        ] {
            assert!(is_loopback_host(yes), "{yes}");
        }
        for no in [
            "example.com",
            "10.0.0.1:80",
            "localhost.evil.com",
            "[::2]:1",
            "127.0.0.1.nip.io",
            "",
        ] {
            assert!(!is_loopback_host(no), "{no}");
        }
    }

    /// A guard, the Host, Origin and Authorization sent, and the refusal.
    type Case<'a> = (
        &'a Guard,
        Option<&'a str>,
        Option<&'a str>,
        Option<&'a str>,
        Option<u16>,
    );

    #[test]
    fn requests_are_admitted_by_host_origin_and_token() {
        let local = Guard {
            allow_remote: false,
            token: None,
        };
        let remote = Guard {
            allow_remote: true,
            token: Some("s3cret-token-value".into()),
        };
        let bearer = Some("Bearer s3cret-token-value");
        let cases: [Case; 12] = [
            (&local, Some("127.0.0.1:8000"), None, None, None),
            (
                &local,
                Some("localhost:8000"),
                Some("http://localhost:3000"),
                None,
                None,
            ),
            // A page on another site, rebinding its name to 127.0.0.1.
            (
                &local,
                Some("evil.example:8000"),
                Some("http://evil.example:8000"),
                None,
                Some(403),
            ),
            (
                &local,
                Some("127.0.0.1:8000"),
                Some("https://evil.example"),
                None,
                Some(403),
            ),
            (
                &local,
                Some("127.0.0.1:8000"),
                Some("null"),
                None,
                Some(403),
            ),
            (&local, None, None, None, Some(403)),
            (&remote, Some("mem.lan:8000"), None, bearer, None),
            (
                &remote,
                Some("mem.lan:8000"),
                Some("http://mem.lan:8000"),
                bearer,
                None,
            ),
            (
                &remote,
                Some("mem.lan:8000"),
                Some("http://evil.example"),
                bearer,
                Some(403),
            ),
            (&remote, Some("mem.lan:8000"), None, None, Some(401)),
            (
                &remote,
                Some("mem.lan:8000"),
                None,
                Some("Bearer wrong-token-value!"),
                Some(401),
            ),
            (
                &remote,
                Some("mem.lan:8000"),
                None,
                Some("s3cret-token-value"),
                Some(401),
            ),
        ];
        for (guard, host, origin, auth, want) in cases {
            let got = guard.admit(host, origin, auth).err().map(|r| r.status);
            assert_eq!(got, want, "{host:?} {origin:?} {auth:?}");
        }
    }
}
