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

/// Regression: `Date: Tue, 27 Aug 0102` was stored as the year 102 although
/// the Received: header and the mbox From line said 2002.
#[test]
fn an_implausible_date_gives_way_to_received_then_the_envelope() {
    let env = TestEnv::new();
    let mbox = env.write(
        "old.mbox",
        "From someone@x.example Tue Aug 27 10:00:09 2002\n\
Received: from relay.x.example by mx.home.example; Tue, 27 Aug 2002 10:00:05 +0000\n\
Received: from client by relay.x.example; Tue, 27 Aug 2002 09:59:58 +0000\n\
Message-ID: <y0102@x.example>\n\
Date: Tue, 27 Aug 0102 10:00:00 +0000\n\
Subject: quillwort minutes\n\
\n\
The quillwort committee minutes.\n\
\n\
From someone@x.example Wed Aug 28 11:30:00 2002\n\
Message-ID: <envelope-only@x.example>\n\
Date: Wed, 28 Aug 0102 11:30:00 +0000\n\
Subject: bladderwort minutes\n\
\n\
The bladderwort committee minutes.\n\
\n\
From someone@x.example Thu Aug 29 08:00:00 2002\n\
Received: from relay by mx; Thu, 29 Aug 2002 08:00:00 +0000\n\
Message-ID: <future@x.example>\n\
Date: Sat, 2 Oct 2038 08:00:00 +0000\n\
Subject: sundew minutes\n\
\n\
The sundew committee minutes.\n\
\n\
From someone@x.example Fri Aug 30 08:00:00 2002\n\
Message-ID: <fine@x.example>\n\
Date: Fri, 30 Aug 2002 07:59:00 +0000\n\
Subject: butterwort minutes\n\
\n\
The butterwort committee minutes.\n",
    );
    let out = env
        .cmd(["index-mbox", mbox.to_str().unwrap()])
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout);
    assert!(
        stdout.contains("3 messages dated by a Received: header, the envelope or the import time"),
        "{stdout}"
    );
    for (word, dated) in [
        ("quillwort", "2002-08-27T10:00:05Z"),   // the newest Received
        ("bladderwort", "2002-08-28T11:30:00Z"), // the From line
        ("sundew", "2002-08-29T08:00:00Z"),      // 2038 is after it arrived
        ("butterwort", "2002-08-30T07:59:00Z"),  // its own Date stands
    ] {
        assert_eq!(hits(&env, word)[0]["dated_at"], dated, "{word}");
    }
    let status = env.json(["status"], 0);
    assert_eq!(status["dated_by_fallback"], 3);
    assert_eq!(status["oldest"], "2002-08-27T10:00:05Z");
    let json = env.json(
        [
            "index-mbox",
            env.write("copy.mbox", std::fs::read(&mbox).unwrap())
                .to_str()
                .unwrap(),
        ],
        0,
    );
    assert_eq!(
        json["dated_by_fallback"], 0,
        "nothing new was indexed: {json}"
    );
    assert_eq!(json["unchanged"], 4);
}
