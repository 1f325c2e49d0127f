//! One raw message to one `Record`: headers, a date, the readable text of every
//! text part (HTML through html2text, forwarded messages included), quoted
//! replies stripped, then paragraph chunks.

use mail_parser::{Message, MessageParser, MimeHeaders, PartType};

use super::html::html_to_text;
use super::quote::strip_quoted;
use super::split::{MAX_MESSAGE_BYTES, RawMessage};
use crate::dates::mail::{envelope_date, header_date};
use crate::ingest::chunk::chunk_with_heading;
use crate::ingest::record::{
    ChunkDraft, Meta, Parsed, Record, Rejection, SourceType, content_hash, sha256_hex,
};

/// Forwarded messages inside forwarded messages are followed this deep; real
/// mail rarely nests more than three, hostile mail nests thousands.
const MAX_FORWARD_DEPTH: usize = 8;

/// Text kept from one message; the rest of a giant body adds little to recall.
const MAX_TEXT_BYTES: usize = 4 << 20;

/// A text/plain attachment (a note, a log) is indexed when at most this big.
const MAX_TEXT_ATTACHMENT_BYTES: usize = 256 << 10;

pub fn parse_message(raw: &RawMessage, import_time: i64) -> Parsed {
    let reject = |reason: String| Rejection {
        offset: raw.offset,
        reason,
    };
    if raw.oversize {
        return Err(reject(format!(
            "message{} larger than {} MiB, skipped",
            oversize_name(&raw.bytes),
            MAX_MESSAGE_BYTES >> 20
        )));
    }
    if raw.bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(reject("empty message".into()));
    }
    // mail-parser 0.11.9 can panic on malformed MIME (its "could not find
    // multipart" assertion, when a part's boundary is lost); one hostile
    // message is rejected by name instead of ending the import.
    let msg = match std::panic::catch_unwind(|| MessageParser::default().parse(&raw.bytes)) {
        Ok(Some(msg)) => msg,
        Ok(None) => return Err(reject("could not parse message headers".into())),
        Err(_) => {
            return Err(reject(
                "malformed MIME structure: the mail parser failed".into(),
            ));
        }
    };

    let mut warning = None;
    let dated_at = match msg
        .date()
        .and_then(header_date)
        .or_else(|| raw.envelope.as_deref().and_then(envelope_date))
    {
        Some(t) => t,
        None => {
            warning = Some("no usable Date header or envelope date; using the import time".into());
            import_time
        }
    };
    let subject = clean_header(msg.subject().unwrap_or(""));
    let sender = msg.from().and_then(|a| a.first()).map(person);
    let recipients = msg.to().map(|to| {
        let people: Vec<String> = to.iter().map(person).filter(|p| !p.is_empty()).collect();
        people.join(", ")
    });

    let mut body = String::new();
    collect_text(&msg, 0, &mut body);
    let body = strip_quoted(&body);
    let texts = chunk_with_heading(&subject, &body);
    if texts.is_empty() {
        return Err(reject(
            "no text to index (no subject and no text body)".into(),
        ));
    }

    let meta = Meta {
        subject: (!subject.is_empty()).then_some(subject),
        sender: sender.filter(|s| !s.is_empty()),
        recipients: recipients.filter(|r| !r.is_empty()),
        ..Meta::default()
    };
    let chunks: Vec<ChunkDraft> = texts
        .into_iter()
        .map(|text| ChunkDraft {
            text,
            dated_at,
            message_ids: Vec::new(),
        })
        .collect();
    let source_id = match msg
        .message_id()
        .map(normalise_message_id)
        .filter(|s| !s.is_empty())
    {
        Some(id) => id,
        None => format!("sha256:{}", sha256_hex(&raw.bytes)),
    };
    Ok(Record {
        source_type: SourceType::Email,
        content_hash: content_hash(&meta, &chunks),
        source_id,
        meta,
        chunks,
        warning,
    })
}

/// Message-IDs compare without angle brackets and surrounding space.
pub fn normalise_message_id(id: &str) -> String {
    id.trim()
        .trim_start_matches('<')
        .trim_end_matches('>')
        .trim()
        .to_string()
}

fn clean_header(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// One address as people write it: `Name <address>`, or whichever half there is.
fn person(a: &mail_parser::Addr<'_>) -> String {
    let addr = a.address.as_deref().unwrap_or("").trim();
    match a
        .name
        .as_deref()
        .map(clean_header)
        .filter(|n| !n.is_empty() && n != addr)
    {
        Some(name) if !addr.is_empty() => format!("{name} <{addr}>"),
        Some(name) => name,
        None => addr.to_string(),
    }
}

/// Append the readable text of `msg` to `out`: its text bodies (HTML rendered),
/// small text/plain attachments, and forwarded messages with a short header.
fn collect_text(msg: &Message, depth: usize, out: &mut String) {
    for &id in &msg.text_body {
        if let Some(part) = msg.parts.get(id as usize) {
            match &part.body {
                PartType::Text(t) => push_text(out, t),
                PartType::Html(h) => push_text(out, &html_to_text(h)),
                _ => {}
            }
        }
    }
    for &id in &msg.attachments {
        let Some(part) = msg.parts.get(id as usize) else {
            continue;
        };
        match &part.body {
            PartType::Message(inner) if depth < MAX_FORWARD_DEPTH => {
                let mut header = String::from("\n\nForwarded message");
                if let Some(f) = inner.from().and_then(|a| a.first()) {
                    header.push_str("\nFrom: ");
                    header.push_str(f.name.as_deref().or(f.address.as_deref()).unwrap_or(""));
                }
                if let Some(s) = inner.subject() {
                    header.push_str("\nSubject: ");
                    header.push_str(s);
                }
                header.push_str("\n\n");
                push_text(out, &header);
                collect_text(inner, depth + 1, out);
            }
            PartType::Text(t)
                if t.len() <= MAX_TEXT_ATTACHMENT_BYTES
                    && part.content_type().is_some_and(|ct| {
                        ct.subtype()
                            .is_some_and(|s| s.eq_ignore_ascii_case("plain"))
                    }) =>
            {
                push_text(out, "\n\n");
                push_text(out, t);
            }
            _ => {}
        }
    }
}

fn push_text(out: &mut String, s: &str) {
    let room = MAX_TEXT_BYTES.saturating_sub(out.len());
    if room == 0 {
        return;
    }
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(truncate_at_char(s, room));
}

pub(super) fn truncate_at_char(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// " <id> \"subject\"" from an oversize message's kept headers, or "".
fn oversize_name(headers: &[u8]) -> String {
    let Some(msg) = MessageParser::default().parse_headers(headers) else {
        return String::new();
    };
    let mut name = String::new();
    if let Some(id) = msg.message_id() {
        name.push_str(&format!(" <{}>", normalise_message_id(id)));
    }
    let subject: String = clean_header(msg.subject().unwrap_or(""))
        .chars()
        .take(80)
        .collect();
    if !subject.is_empty() {
        name.push_str(&format!(" {subject:?}"));
    }
    name
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(bytes: &[u8]) -> RawMessage {
        RawMessage {
            offset: 7,
            envelope: Some("a@x Thu Jan 15 10:00:00 2026".into()),
            bytes: bytes.to_vec(),
            oversize: false,
        }
    }

    #[test]
    fn plain_message_becomes_one_record() {
        let r = parse_message(
            &raw(b"Message-ID: <abc@x>\nDate: Thu, 15 Jan 2026 10:00:00 +0800\nFrom: Jane Tan <jane@acme.example>\nSubject: Acme quote\n\nThe renewal quote for the Acme contract is attached.\n"),
            0,
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
        let r = parse_message(&raw(b"Subject: no date\n\nbody text\n"), 0).unwrap();
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
            0,
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
            0,
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
        let e = parse_message(&m, 0).unwrap_err();
        assert_eq!(e.offset, 7);
        assert!(e.reason.contains("larger than"));
    }

    #[test]
    fn oversize_is_named_by_its_message_id_and_subject() {
        let mut m = raw(b"Message-ID: <big@x>\nSubject: The  whole\n archive\n\n");
        m.oversize = true;
        let e = parse_message(&m, 0).unwrap_err();
        assert_eq!(
            e.reason,
            "message <big@x> \"The whole archive\" larger than 48 MiB, skipped"
        );
    }
}
