//! Message parsing tests: records, dates and their fallbacks, identity,
//! odd and hostile messages.

use super::*;

/// The import time of these tests: 2026-12-02T12:00:00Z.
const NOW: i64 = 1_796_212_800;

fn raw(bytes: &[u8]) -> RawMessage {
    RawMessage {
        offset: 7,
        envelope: Some("a@x Thu Jan 15 10:00:00 2026".into()),
        bytes: bytes.to_vec(),
        oversize: false,
        delivered_at: None,
    }
}

#[test]
fn plain_message_becomes_one_record() {
    let r = parse_message(
        &raw(b"Message-ID: <abc@x>\nDate: Thu, 15 Jan 2026 10:00:00 +0800\nFrom: Jane Tan <jane@acme.example>\nSubject: Acme quote\n\nThe renewal quote for the Acme contract is attached.\n"),
        NOW,
    )
    .unwrap();
    assert_eq!(r.source_id, "abc@x");
    assert_eq!(
        r.meta.sender.as_deref(),
        Some("Jane Tan <jane@acme.example>")
    );
    assert_eq!(r.chunks.len(), 1);
    assert_eq!(r.chunks[0].dated_at, 1_768_442_400);
    assert!(
        r.chunks[0]
            .text
            .starts_with("Acme quote\n\nThe renewal quote")
    );
}

#[test]
fn missing_date_falls_back_to_the_envelope() {
    let r = parse_message(&raw(b"Subject: no date\n\nbody text\n"), NOW).unwrap();
    assert_eq!(r.chunks[0].dated_at, 1_768_471_200);
    assert!(r.warning.is_none());
    assert!(r.source_id.starts_with("sha256:"));
}

#[test]
fn no_date_anywhere_uses_import_time_with_a_warning() {
    let mut m = raw(b"Subject: x\n\nbody\n");
    m.envelope = None;
    let r = parse_message(&m, 99).unwrap();
    assert_eq!(r.chunks[0].dated_at, 99);
    assert!(r.warning.is_some());
}

#[test]
fn html_only_mail_is_rendered_without_style_or_script() {
    let r = parse_message(
        &raw(b"Subject: html\nContent-Type: text/html; charset=utf-8\n\n<html><head><style>p { color: red }</style><script>alert('x')</script></head><body><p>Caf&eacute; &amp; bar opens at nine tomorrow morning, see you there.</p></body></html>\n"),
        NOW,
    )
    .unwrap();
    let text = &r.chunks[0].text;
    assert!(text.contains("Café & bar opens at nine"), "{text}");
    assert!(!text.contains("color"), "{text}");
    assert!(!text.contains("alert"), "{text}");
}

/// Found by fuzzing: mail-parser panicked on this lost multipart boundary
/// (a debug assertion, so debug builds only) and took the import down.
#[test]
fn mail_parser_panic_on_lost_multipart_boundary_rejects_the_message() {
    let result = parse_message(
        &raw(b"F\x88\x90m6\nX-GM-T\nContent-Type: multipart/mixed; boundary=b1\n\n--\x9b\x96\x91\x98\xdft\xff\xff\xff\xff\xff\xff\xff\xff\n\n--b1\nContent-Type: message/rfc822\n\nom: Old Senidernenr@examplug>\n--b1\nContent-Type: message/rfc822\n\nFrom: OldA==\n\n--b1--\n"),
        NOW,
    );
    if cfg!(debug_assertions) {
        let e = result.unwrap_err();
        assert!(e.reason.contains("malformed MIME"), "{}", e.reason);
    }
}

#[test]
fn oversize_is_rejected_with_its_offset() {
    let mut m = raw(b"");
    m.oversize = true;
    let e = parse_message(&m, NOW).unwrap_err();
    assert_eq!(e.offset, 7);
    assert!(e.reason.contains("larger than"));
}

#[test]
fn oversize_is_named_by_its_message_id_and_subject() {
    let mut m = raw(b"Message-ID: <big@x>\nSubject: The  whole\n archive\n\n");
    m.oversize = true;
    let e = parse_message(&m, NOW).unwrap_err();
    assert_eq!(
        e.reason,
        "message <big@x> \"The whole archive\" larger than 48 MiB, skipped"
    );
}

/// Regression: `Date: Tue, 27 Aug 0102` was stored as the year 102; the
/// Received header and the envelope both said 2002.
#[test]
fn a_year_0102_date_gives_way_to_the_newest_received_date() {
    let mut m = raw(b"Message-ID: <y102@x>\n\
Received: from relay by mx; Tue, 27 Aug 2002 10:00:05 +0000\n\
Received: from client by relay; Tue, 27 Aug 2002 09:59:00 +0000\n\
Date: Tue, 27 Aug 0102 10:00:00 +0000\nSubject: old\n\nbody\n");
    m.envelope = Some("a@x Tue Aug 27 10:00:09 2002".into());
    let mail = parse_mail(&m, NOW).unwrap();
    assert_eq!(mail.record.chunks[0].dated_at, 1_030_442_405);
    assert_eq!(mail.dated_by, DatedBy::Received);
    assert!(mail.record.warning.is_none());
    m.bytes =
        b"Message-ID: <y102@x>\nDate: Tue, 27 Aug 0102 10:00:00 +0000\nSubject: old\n\nbody\n"
            .to_vec();
    let mail = parse_mail(&m, NOW).unwrap();
    assert_eq!(mail.record.chunks[0].dated_at, 1_030_442_409);
    assert_eq!(mail.dated_by, DatedBy::Envelope);
}

#[test]
fn a_maildir_delivery_time_stands_in_for_the_envelope() {
    let mut m = raw(b"Message-ID: <md@x>\nSubject: s\n\nbody\n");
    m.envelope = None;
    m.delivered_at = Some(1_030_442_400);
    let mail = parse_mail(&m, NOW).unwrap();
    assert_eq!(
        (mail.record.chunks[0].dated_at, mail.dated_by),
        (1_030_442_400, DatedBy::Envelope)
    );
}

/// An undated message keeps one content hash across runs, or every nightly
/// run would find it "changed" and write it again.
#[test]
fn an_undated_message_hashes_the_same_on_every_run() {
    let mut m = raw(b"Subject: x\n\nbody\n");
    m.envelope = None;
    let first = parse_mail(&m, NOW).unwrap();
    let later = parse_mail(&m, NOW + 86_400).unwrap();
    assert_eq!(first.dated_by, DatedBy::ImportTime);
    assert_eq!(first.record.content_hash, later.record.content_hash);
    assert_eq!(later.record.chunks[0].dated_at, NOW + 86_400);
}

#[test]
fn identity_ignores_the_container_and_names_id_less_messages_by_it() {
    let plain = b"Subject: no id\nDate: Mon, 5 Jan 2026 10:00:00 +0000\n\nbody text\n";
    let mut from_mbox = raw(plain);
    from_mbox.bytes = [b"Status: RO\n".as_slice(), plain].concat();
    let mut from_maildir = raw(plain);
    from_maildir.envelope = None;
    let a = parse_mail(&from_mbox, NOW).unwrap();
    let b = parse_mail(&from_maildir, NOW).unwrap();
    assert_eq!(a.fingerprint, b.fingerprint);
    assert_eq!(a.record.source_id, b.record.source_id);
    assert!(a.record.source_id.starts_with("sha256:"));
    assert_eq!(
        a.legacy_id.as_deref(),
        Some(format!("sha256:{}", sha256_hex(&from_mbox.bytes)).as_str()),
        "the id earlier versions gave it"
    );
    let with_id = parse_mail(&raw(b"Message-ID: <i@x>\nSubject: s\n\nb\n"), NOW).unwrap();
    assert_eq!(with_id.legacy_id, None);
}

#[test]
fn a_split_encoded_word_subject_is_decoded_whole() {
    let r = parse_message(
        &raw(
            b"Message-ID: <jp@x>\nDate: Mon, 5 Jan 2026 10:00:00 +0000\n\
Subject: =?UTF-8?B?5pel5pys6Kqe44Gu5Lu25Q==?=\n =?UTF-8?B?kI0=?=\n\nbody\n",
        ),
        NOW,
    )
    .unwrap();
    assert_eq!(r.meta.subject.as_deref(), Some("日本語の件名"));
}
