//! What makes two copies of a message the same message, whatever held them.
//!
//! A Message-ID alone does not: bounces quote the ID of the mail that
//! bounced, list servers and broken clients reuse IDs, and sisimai's
//! corpus has 88 messages whose ID another, different message has. So a
//! message is identified by its Message-ID *and* a fingerprint of its raw
//! form: the headers its author wrote (From, To, Cc, Subject, Date,
//! Message-ID, In-Reply-To) and its body. Everything transport and mail
//! clients add or rewrite is left out, so the copy in a Gmail Takeout mbox
//! (X-Gmail-Labels, Status:), the one mbsync put in a Maildir, and the one
//! a MUA saved as `.eml` hash the same: line ends (CRLF or LF), header
//! folding, runs of whitespace in header values, trailing blank lines and
//! the header order do not count.
//!
//! The fingerprint is computed from the bytes, not from the parsed text, so
//! a better parser (a new charset, a date fallback) changes what is stored
//! for a message but never what message it is.

use sha2::{Digest, Sha256};

/// Header fields that belong to the message itself, lowercase.
const IDENTITY_HEADERS: [&[u8]; 7] = [
    b"from",
    b"to",
    b"cc",
    b"subject",
    b"date",
    b"message-id",
    b"in-reply-to",
];

/// sha256 of a message's identity (see the module comment).
pub fn fingerprint(message: &[u8]) -> [u8; 32] {
    let (headers, body) = split_header_block(message);
    let mut values: [Vec<u8>; IDENTITY_HEADERS.len()] = Default::default();
    // Header fields are scanned in place; only the seven that count are
    // copied (unfolded, whitespace collapsed), one line per occurrence.
    let mut current: Option<usize> = None;
    for line in headers.split(|&b| b == b'\n') {
        let continued = line.first().is_some_and(|&b| b == b' ' || b == b'\t');
        let value = if continued {
            line
        } else {
            current = line.iter().position(|&b| b == b':').and_then(|colon| {
                let name = line[..colon].trim_ascii();
                let i = IDENTITY_HEADERS
                    .iter()
                    .position(|h| h.eq_ignore_ascii_case(name))?;
                if !values[i].is_empty() {
                    values[i].push(b'\n');
                }
                Some(i)
            });
            match current {
                Some(_) => &line[line.iter().position(|&b| b == b':').unwrap_or(0) + 1..],
                None => continue,
            }
        };
        if let Some(i) = current {
            push_collapsed(&mut values[i], value);
        }
    }
    let mut h = Sha256::new();
    for (name, value) in IDENTITY_HEADERS.iter().zip(&values) {
        h.update(name);
        h.update(b":");
        h.update(value);
        h.update(b"\n");
    }
    h.update(b"\n");
    let body = body.trim_ascii_end();
    if body.contains(&b'\r') {
        for piece in body.split_inclusive(|&b| b == b'\n') {
            let line = piece.strip_suffix(b"\n").unwrap_or(piece);
            h.update(line.strip_suffix(b"\r").unwrap_or(line));
            if piece.ends_with(b"\n") {
                h.update(b"\n");
            }
        }
    } else {
        h.update(body);
    }
    h.finalize().into()
}

/// The first eight bytes of a fingerprint as a signed integer: what the
/// store keeps per message (eight bytes a row instead of 32) to tell
/// messages sharing a Message-ID apart. Two messages would need the same ID
/// and a 1-in-2^64 collision to be confused.
pub fn short(fingerprint: &[u8; 32]) -> i64 {
    i64::from_be_bytes(fingerprint[..8].try_into().expect("eight bytes"))
}

/// (headers, body) at the first empty line; all headers when there is none.
fn split_header_block(message: &[u8]) -> (&[u8], &[u8]) {
    let mut at = 0;
    for line in message.split_inclusive(|&b| b == b'\n') {
        if line == b"\n" || line == b"\r\n" {
            return (&message[..at], &message[at + line.len()..]);
        }
        at += line.len();
    }
    (message, &[])
}

/// Append the words of `text` to `out`, one space between words.
fn push_collapsed(out: &mut Vec<u8>, text: &[u8]) {
    for word in text
        .split(|b| b.is_ascii_whitespace())
        .filter(|w| !w.is_empty())
    {
        if !out.is_empty() && !out.ends_with(b"\n") {
            out.push(b' ');
        }
        out.extend_from_slice(word);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MESSAGE: &str = "Message-ID: <a@x>\nDate: Mon, 5 Jan 2026 10:00:00 +0000\n\
From: Jane <jane@x>\nTo: me@x\nSubject: Lunch\n\nSee you at noon.\n";

    #[test]
    fn copies_from_different_containers_are_the_same_message() {
        let base = fingerprint(MESSAGE.as_bytes());
        let variants = [
            // Gmail Takeout adds labels and a thread id; mutt a Status line.
            format!("X-GM-THRID: 123\nX-Gmail-Labels: Inbox\n{MESSAGE}"),
            MESSAGE.replace("\n\nSee", "\nStatus: RO\nX-Mozilla-Status: 0001\n\nSee"),
            // Delivered to a Maildir: Return-Path and Received on top.
            format!(
                "Return-Path: <jane@x>\nReceived: from a by b; Mon, 5 Jan 2026 10:00:01 +0000\n{MESSAGE}"
            ),
            MESSAGE.replace('\n', "\r\n"),
            MESSAGE.replace("Subject: Lunch", "Subject:\n  Lunch"),
            format!("{MESSAGE}\n\n"),
            MESSAGE.replace("To: me@x\nSubject: Lunch\n", "Subject: Lunch\nTo: me@x\n"),
        ];
        for v in &variants {
            assert_eq!(fingerprint(v.as_bytes()), base, "{v:?}");
        }
    }

    #[test]
    fn different_messages_differ_even_with_one_message_id() {
        let base = fingerprint(MESSAGE.as_bytes());
        let others = [
            MESSAGE.replace("noon", "one"),
            MESSAGE.replace("From: Jane <jane@x>", "From: MAILER-DAEMON@x"),
            MESSAGE.replace("Subject: Lunch", "Subject: Re: Lunch"),
            MESSAGE.replace("10:00:00", "10:00:01"),
            MESSAGE.replace(
                "\nSee you at noon.\n",
                "\nSee you at noon.\n\nSee you at noon.\n",
            ),
        ];
        for o in &others {
            assert_ne!(fingerprint(o.as_bytes()), base, "{o:?}");
        }
    }

    #[test]
    fn short_is_the_leading_eight_bytes() {
        let mut f = [0u8; 32];
        f[7] = 1;
        assert_eq!(short(&f), 1);
        f[0] = 0x80;
        assert!(short(&f) < 0);
    }
}
