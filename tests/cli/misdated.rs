//! Nothing misdated (issue 18): receipts whose date is a number or cannot be
//! read, and e-mail whose `Date:` is missing or implausible, through the real
//! binary.

use serde_json::Value;

use crate::util::TestEnv;

/// `search --json` hits for QUERY, no recall logged.
fn hits(env: &TestEnv, query: &str) -> Vec<Value> {
    let v = env.json(["search", "--no-log", "--half-life", "0", query], 0);
    v.as_array().unwrap().clone()
}

/// Regression: `"date": 20180303` was stored as 1970-08-22.
#[test]
fn a_numeric_receipt_date_is_read_as_a_date() {
    let env = TestEnv::new();
    let file = env.write(
        "r.json",
        r#"[{"id": "r1", "vendor": "Kedai Runcit Zamzam", "total": "12.00", "date": 20180303}]"#,
    );
    let v = env.json(["index-receipts", file.to_str().unwrap()], 0);
    assert_eq!(v["indexed"], 1, "{v}");
    let hit = &hits(&env, "zamzam")[0];
    assert_eq!(hit["dated_at"], "2018-03-03T00:00:00Z");
}

/// Regression: a receipt whose date could not be read was reported as having none.
#[test]
fn an_unreadable_receipt_date_is_quoted_not_called_missing() {
    let env = TestEnv::new();
    let file = env.write(
        "r.jsonl",
        "{\"id\": \"ok\", \"vendor\": \"A\", \"date\": \"2018-03-03\"}\n\
         {\"id\": \"bad\", \"vendor\": \"B\", \"date\": 20181399}\n",
    );
    let out = env
        .cmd(["index-receipts", "--json", file.to_str().unwrap()])
        .assert()
        .code(3);
    let v: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(
        v["errors"][0]["reason"],
        "record 1: unreadable date \"20181399\" in field \"date\""
    );
    let stderr = String::from_utf8_lossy(&out.get_output().stderr);
    assert!(stderr.contains("unreadable date \"20181399\""), "{stderr}");
    assert!(!stderr.contains("no usable date"), "{stderr}");
}
