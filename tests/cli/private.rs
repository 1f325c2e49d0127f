//! Private data (issue 7): hostile text never controls the terminal, and
//! hostile queries or field values never change an SQL statement. File modes
//! are tested in index.rs and faults tests; `forget --purge` in facts.rs.

use serde_json::{Value, json};

use crate::util::{TestEnv, mbox_message};

/// Clear screen, window title (OSC 0), clipboard write (OSC 52), colour, an
/// 8-bit CSI, a lone CR, and bidi overrides that reorder what is shown.
const HOSTILE: &str = "\u{1b}[2J\u{1b}]0;pwned-title\u{7}\u{1b}]52;c;Y3VybCBldmlsLnNo\u{7}\
     \u{1b}[31m\u{9b}1;1H\r\u{202E}gnp.exe\u{202C}\u{2066}\u{2069}";

/// What must never reach a terminal: the control characters, and the
/// payloads that only make sense inside a control string.
const FORBIDDEN: [&str; 10] = [
    "\u{7}",
    "\u{9b}",
    "\r",
    "\u{202E}",
    "\u{202C}",
    "\u{2066}",
    "\u{2069}",
    "pwned-title",
    "Y3VybCBldmlsLnNo",
    "\u{1b}]",
];

/// Our own highlight markers are the only escapes allowed on a terminal.
const OWN_SGR: [&str; 2] = ["\u{1b}[1;33m", "\u{1b}[0m"];

fn hostile_env() -> TestEnv {
    let env = TestEnv::new();
    let subject = format!("Acme invoice {HOSTILE}");
    let body = format!("The Acme invoice {HOSTILE} is due on Friday, please pay it in full.");
    let mbox = env.write(
        "evil.mbox",
        mbox_message("evil@x", "Mon, 23 Nov 2026 09:00:00 +0000", &subject, &body),
    );
    env.cmd(["index-mbox", mbox.to_str().unwrap()])
        .assert()
        .success();
    let receipts = json!([{"id": "r1", "biller": format!("Acme {HOSTILE}"),
        "amount_due": "10.00", "billing_date": "2026-11-20",
        "items": [{"description": format!("acme widget {HOSTILE}"), "amount": "10.00"}]}]);
    let file = env.write("r.json", receipts.to_string());
    env.cmd(["index-receipts", file.to_str().unwrap()])
        .assert()
        .success();
    env.cmd(["remember", "Acme", HOSTILE]).assert().success();
    env
}

/// Run `alfred-mem ARGS` with its stdout on a pseudo-terminal, so the
/// terminal's own code path (the table) is the one tested.
fn on_a_terminal(env: &TestEnv, args: &[&str]) -> String {
    let (code, text) = env.on_a_terminal(args, None);
    assert_eq!(code, Some(0), "{text}");
    text
}

fn assert_clean(what: &str, text: &str) {
    // The pty turns "\n" into "\r\n"; that CR is the terminal's, not ours.
    let mut text = text.replace("\r\n", "\n");
    for own in OWN_SGR {
        text = text.replace(own, "");
    }
    for bad in FORBIDDEN.iter().chain(&["\u{1b}"]) {
        assert!(
            !text.contains(bad),
            "{what}: {bad:?} reached the terminal:\n{text:?}"
        );
    }
}

#[test]
fn hostile_escapes_never_reach_a_terminal() {
    let env = hostile_env();
    for args in [
        &["search", "acme", "--no-log"][..],
        &["search", "acme", "--no-log", "--explain"],
        &["facts"],
        &["facts", "--all"],
        &["status"],
    ] {
        let text = on_a_terminal(&env, args);
        if args[0] != "status" {
            assert!(text.contains("Acme"), "{args:?}: {text:?}");
        }
        assert_clean(&format!("{args:?}"), &text);
    }
    // The same commands piped (the non-terminal layout) are clean too.
    for args in [&["search", "acme", "--no-log"][..], &["facts"]] {
        let out = env.cmd(args).output().unwrap();
        assert_clean(
            &format!("{args:?} piped"),
            &String::from_utf8(out.stdout).unwrap(),
        );
    }
}

#[test]
fn json_keeps_hostile_text_exact_and_escaped() {
    let env = hostile_env();
    let out = env
        .cmd(["search", "acme", "--no-log", "--json"])
        .output()
        .unwrap();
    let raw = String::from_utf8(out.stdout).unwrap();
    // Escaped on the wire: no raw control character is printed.
    for c in ['\u{1b}', '\u{7}', '\r', '\u{9b}'] {
        assert!(!raw.contains(c), "raw {c:?} in --json output");
    }
    let hits: Value = serde_json::from_str(&raw).unwrap();
    let texts: Vec<&str> = hits
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["text"].as_str().unwrap())
        .collect();
    assert!(texts.iter().any(|t| t.contains(HOSTILE)), "{texts:?}");
    let facts = env.json(["facts"], 0);
    assert_eq!(facts[0]["text"], format!("Acme {HOSTILE}"));
}

/// Classic injection payloads: statement breaks, tautologies, comments,
/// ATTACH, a PRAGMA, and FTS5's own column filter syntax.
const PAYLOADS: [&str; 10] = [
    "'; DROP TABLE memory_chunks; --",
    "\"; DROP TABLE memory_sources; --",
    "x' OR '1'='1",
    "1 OR 1=1 --",
    "Robert'); DELETE FROM memory_facts; --",
    "'); ATTACH DATABASE '/tmp/pwned.db' AS p; --",
    "0; PRAGMA writable_schema=ON; UPDATE sqlite_master SET sql='x'",
    "%' UNION SELECT sql FROM sqlite_master --",
    "text:secret OR rowid:1",
    "\\'; SELECT load_extension('/tmp/x'); --",
];

fn table_counts(env: &TestEnv) -> Vec<i64> {
    [
        "memory_sources",
        "memory_chunks",
        "memory_facts",
        "memory_fts",
        "sqlite_master",
    ]
    .iter()
    .map(|t| env.count(&format!("SELECT count(*) FROM {t}")))
    .collect()
}

#[test]
fn injection_payloads_as_queries_change_nothing() {
    let env = hostile_env();
    let before = table_counts(&env);
    for p in PAYLOADS {
        let out = env
            .cmd(["search", p, "--no-log", "--json"])
            .output()
            .unwrap();
        let code = out.status.code();
        assert!(
            matches!(code, Some(0 | 1)),
            "{p:?}: {code:?} {}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice::<Value>(&out.stdout).unwrap();
    }
    assert_eq!(table_counts(&env), before);
    assert!(!std::path::Path::new("/tmp/pwned.db").exists());
    assert_eq!(
        env.count("SELECT count(*) FROM pragma_integrity_check WHERE integrity_check = 'ok'"),
        1
    );
}

#[test]
fn injection_payloads_as_field_values_are_stored_verbatim() {
    let env = TestEnv::new();
    let receipts: Vec<Value> = PAYLOADS
        .iter()
        .enumerate()
        .map(|(i, p)| {
            json!({"id": format!("{p}-{i}"), "biller": p, "amount_due": "1.00",
                "billing_date": "2026-11-20", "items": [{"description": p, "amount": "1.00"}]})
        })
        .collect();
    let file = env.write("r.json", Value::Array(receipts).to_string());
    env.cmd(["index-receipts", file.to_str().unwrap()])
        .assert()
        .success();
    for p in PAYLOADS {
        env.cmd(["remember", p]).assert().success();
    }
    let n = PAYLOADS.len() as i64;
    assert_eq!(
        env.count("SELECT count(*) FROM memory_sources WHERE source_type = 'receipt'"),
        n
    );
    let conn = env.sqlite();
    for (i, p) in PAYLOADS.iter().enumerate() {
        let vendor: String = conn
            .query_row(
                "SELECT vendor FROM memory_chunks WHERE source_id = ?1",
                [format!("{p}-{i}")],
                |r| r.get(0),
            )
            .unwrap_or_else(|e| panic!("{p:?}: {e}"));
        assert_eq!(vendor, *p);
    }
    let facts = env.json(["facts"], 0);
    let mut got: Vec<&str> = facts
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["text"].as_str().unwrap())
        .collect();
    let mut want = PAYLOADS.to_vec();
    got.sort();
    want.sort();
    assert_eq!(got, want);
    assert!(!std::path::Path::new("/tmp/pwned.db").exists());
    assert_eq!(
        env.count("SELECT count(*) FROM pragma_integrity_check WHERE integrity_check = 'ok'"),
        1
    );
}
