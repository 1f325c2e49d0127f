//! One raw message to one `Record`: headers (adjacent encoded-words joined), a
//! date (`crate::dates::mail`), the readable text of every text part (HTML through
//! html2text, forwarded messages included), quoted replies stripped, then
//! paragraph chunks; and its identity (`identity`).

use mail_parser::{Message, MessageParser, MimeHeaders, PartType};

use super::encoded_words::join_adjacent;
use super::html::html_to_text;
use super::identity;
use super::quote::strip_quoted;
use super::split::{MAX_MESSAGE_BYTES, RawMessage};
use crate::dates::mail::{self as dating, DatedBy, envelope_date, header_date};
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

/// A message as the importer stores it: its record, and what tells it apart
/// from other messages that share its Message-ID.
#[derive(Clone, Debug, PartialEq)]
pub struct Mail {
    /// `source_id` is the Message-ID, or `sha256:` and the fingerprint for a
    /// message without one; the store suffixes it for a second, different
    /// message with the same ID.
    pub record: Record,
    /// `identity::short` of the raw message's fingerprint.
    pub fingerprint: i64,
    pub dated_by: DatedBy,
    /// For a message without a Message-ID, the id alfred-mem gave it before
    /// fingerprints (sha256 of its bytes as they stood), so that stored row
    /// is found again instead of stored twice.
    pub legacy_id: Option<String>,
    /// The Message-ID this message answers: its `In-Reply-To`, or else the
    /// last of its `References` (the direct parent; the earlier ones are
    /// reached through it, so a long thread is a chain, not a clique).
    pub replies_to: Option<String>,
}

/// One raw message to a record, or the reason it cannot be one.
pub fn parse_message(raw: &RawMessage, import_time: i64) -> Parsed {
    parse_mail(raw, import_time).map(|m| m.record)
}

/// `parse_message` with the message's identity and date source.
pub fn parse_mail(raw: &RawMessage, import_time: i64) -> Result<Mail, Rejection> {
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
    let bytes = join_adjacent(&raw.bytes);
    // mail-parser 0.11.9 can panic on malformed MIME (its "could not find
    // multipart" assertion, when a part's boundary is lost); one hostile
    // message is rejected by name instead of ending the import.
    let msg = match std::panic::catch_unwind(|| MessageParser::default().parse(&bytes)) {
        Ok(Some(msg)) => msg,
        Ok(None) => return Err(reject("could not parse message headers".into())),
        Err(_) => {
            return Err(reject(
                "malformed MIME structure: the mail parser failed".into(),
            ));
        }
    };

    let dating = dating::choose(
        msg.date().and_then(header_date),
        msg.received_all()
            .filter_map(|r| r.date.as_ref().and_then(header_date)),
        raw.envelope
            .as_deref()
            .and_then(envelope_date)
            .or(raw.delivered_at),
        import_time,
    );
    let warning = (dating.by == DatedBy::ImportTime).then(|| {
        "no plausible Date header, Received date or envelope date; using the import time".into()
    });
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
    let mut chunks: Vec<ChunkDraft> = texts
        .into_iter()
        .map(|text| ChunkDraft {
            text,
            dated_at: dating.at,
            message_ids: Vec::new(),
        })
        .collect();
    // The import time differs on every run; hashed as it is, an undated
    // message would look changed and be rewritten every night.
    let hash = if dating.by == DatedBy::ImportTime {
        chunks.iter_mut().for_each(|c| c.dated_at = 0);
        let hash = content_hash(&meta, &chunks);
        chunks.iter_mut().for_each(|c| c.dated_at = dating.at);
        hash
    } else {
        content_hash(&meta, &chunks)
    };
    let fingerprint = identity::fingerprint(&raw.bytes);
    let message_id = msg
        .message_id()
        .map(normalise_message_id)
        .filter(|s| !s.is_empty());
    let replies_to = msg
        .in_reply_to()
        .as_text()
        .or_else(|| msg.references().as_text())
        .map(normalise_message_id)
        .filter(|s| !s.is_empty());
    let legacy_id = message_id
        .is_none()
        .then(|| format!("sha256:{}", sha256_hex(&raw.bytes)));
    Ok(Mail {
        record: Record {
            source_type: SourceType::Email,
            content_hash: hash,
            source_id: message_id.unwrap_or_else(|| format!("sha256:{}", hex::encode(fingerprint))),
            meta,
            chunks,
            warning,
        },
        fingerprint: identity::short(&fingerprint),
        dated_by: dating.by,
        legacy_id,
        replies_to,
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
#[path = "message_tests.rs"]
mod tests;
