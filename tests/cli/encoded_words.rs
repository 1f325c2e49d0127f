//! RFC 2047 subjects as mail clients read them, through the real binary.

use crate::util::{TestEnv, envelope_time};

/// Regression: a subject whose sender cut a character between two
/// encoded-words (UTF-8 `ü`, ISO-2022-JP `本`) decoded to U+FFFD, so the
/// message could not be found by its subject.
#[test]
fn a_subject_split_mid_character_is_stored_whole_and_found() {
    let env = TestEnv::new();
    let date = "Mon, 5 Jan 2026 10:00:00 +0000";
    let message = |id: &str, subject: &str| {
        format!(
            "From a@x {}\nMessage-ID: <{id}>\nDate: {date}\nFrom: a@x\nSubject: {subject}\n\nbody\n\n",
            envelope_time(date)
        )
    };
    // "Grüße aus Zürich", cut inside the ü of Zürich.
    let utf8 = message(
        "u@x",
        "=?UTF-8?B?R3LDvMOfZSBhdXMgWsM=?=\n =?utf-8?B?vHJpY2g=?=",
    );
    // 日本語 in ISO-2022-JP, cut after 日, the second word without an escape.
    let jis = message(
        "j@x",
        "=?ISO-2022-JP?B?GyRCRnxL?= =?ISO-2022-JP?B?XDhsGyhC?=",
    );
    let mbox = env.write("m.mbox", format!("{utf8}{jis}"));
    env.json(["index-mbox", mbox.to_str().unwrap()], 0);
    let subjects: Vec<String> = env
        .sqlite()
        .prepare("SELECT subject FROM memory_chunks ORDER BY id")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(subjects, ["Grüße aus Zürich", "日本語"]);
    assert_eq!(env.fts_hits("zürich"), 1);
    assert_eq!(env.fts_hits("日本語"), 1);
}
