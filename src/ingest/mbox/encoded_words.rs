//! RFC 2047 encoded-words as mail clients read them: adjacent words in one
//! charset are decoded together, so a character whose bytes a sender split
//! between two words survives.
//!
//! RFC 2047 forbids that split, but Outlook, Windows Mail and many Japanese
//! mailers do it (a long ISO-2022-JP subject is cut wherever the line gets
//! full, escape sequences and all). mail-parser 0.11.9 decodes each word on
//! its own, so such a subject comes out with U+FFFD in it and its words
//! cannot be found. No upstream issue was found for this in
//! stalwartlabs/mail-parser; mutt (neomutt#1015) and K-9 (thunderbird-android
//! #2722) fixed the same thing by joining the words first, as here. Until
//! mail-parser does it, the header block is rewritten before it is parsed:
//! each run of adjacent encoded-words in one charset becomes one base64 word
//! holding all their bytes. Only the top-level header block is touched; the
//! identity of a message is hashed from the bytes as they were.

use std::borrow::Cow;

/// `message` with every run of adjacent same-charset encoded-words in its
/// header block joined into one; borrowed unchanged when there is none.
pub fn join_adjacent(message: &[u8]) -> Cow<'_, [u8]> {
    let headers = &message[..header_block_end(message)];
    if !has_adjacent_words(headers) {
        return Cow::Borrowed(message);
    }
    let words = encoded_words(headers);
    let mut out = Vec::with_capacity(message.len() + 64);
    let mut copied = 0;
    let mut i = 0;
    while i < words.len() {
        let mut j = i;
        while j + 1 < words.len()
            && words[j + 1].charset.eq_ignore_ascii_case(words[i].charset)
            && is_folding_space(&headers[words[j].end..words[j + 1].start])
        {
            j += 1;
        }
        if j > i
            && let Some(bytes) = words[i..=j]
                .iter()
                .map(EncodedWord::decode)
                .collect::<Option<Vec<_>>>()
        {
            out.extend_from_slice(&headers[copied..words[i].start]);
            out.extend_from_slice(b"=?");
            out.extend_from_slice(words[i].charset);
            out.extend_from_slice(b"?B?");
            out.extend_from_slice(base64_encode(&join_decoded(bytes)).as_bytes());
            out.extend_from_slice(b"?=");
            copied = words[j].end;
        }
        i = j + 1;
    }
    if copied == 0 {
        return Cow::Borrowed(message);
    }
    out.extend_from_slice(&message[copied..]);
    Cow::Owned(out)
}

/// The decoded bytes of adjacent words, end to end. Where one word ends with
/// an escape sequence and the next begins with one (each ISO-2022-JP word is
/// usually closed with `ESC ( B` and reopened with `ESC $ B`), the first
/// escape is dropped: it switches to a mode that is left before any byte is
/// read in it, and the WHATWG decoder mail-parser uses reads two escapes in
/// a row as an error (U+FFFD). The text decodes as the words meant it.
fn join_decoded(parts: Vec<Vec<u8>>) -> Vec<u8> {
    const ESCAPES: [&[u8]; 3] = [b"\x1b(B", b"\x1b(J", b"\x1b$B"];
    let mut out: Vec<u8> = Vec::new();
    for part in parts {
        if part.first() == Some(&0x1b)
            && let Some(esc) = ESCAPES.iter().find(|e| out.ends_with(e))
        {
            out.truncate(out.len() - esc.len());
        }
        out.extend_from_slice(&part);
    }
    out
}

/// One `=?charset?enc?text?=` in the header bytes.
struct EncodedWord<'a> {
    start: usize,
    end: usize,
    /// Without a `*language` suffix: `UTF-8*ja` and `utf-8` are one charset.
    charset: &'a [u8],
    base64: bool,
    text: &'a [u8],
}

impl EncodedWord<'_> {
    fn decode(&self) -> Option<Vec<u8>> {
        if self.base64 {
            base64_decode(self.text)
        } else {
            q_decode(self.text)
        }
    }
}

/// Offset of the blank line that ends the header block (or the whole input).
fn header_block_end(message: &[u8]) -> usize {
    let mut at = 0;
    for line in message.split_inclusive(|&b| b == b'\n') {
        if line == b"\n" || line == b"\r\n" {
            return at;
        }
        at += line.len();
    }
    message.len()
}

/// Cheap test before any work: `?=`, folding space, `=?` somewhere.
fn has_adjacent_words(headers: &[u8]) -> bool {
    headers.windows(2).enumerate().any(|(i, w)| {
        w == b"?="
            && headers[i + 2..]
                .iter()
                .position(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
                .is_some_and(|skip| skip > 0 && headers[i + 2 + skip..].starts_with(b"=?"))
    })
}

/// Whitespace inside one header field: spaces and tabs, and line ends only
/// when the next line continues the field (starts with a space or a tab).
fn is_folding_space(gap: &[u8]) -> bool {
    !gap.is_empty()
        && gap
            .iter()
            .all(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
        && gap
            .iter()
            .enumerate()
            .all(|(i, &b)| b != b'\n' || matches!(gap.get(i + 1), Some(b' ' | b'\t')))
}

fn encoded_words(headers: &[u8]) -> Vec<EncodedWord<'_>> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(found) = find(&headers[i..], b"=?") {
        let start = i + found;
        match parse_word(headers, start) {
            Some(word) => {
                i = word.end;
                out.push(word);
            }
            None => i = start + 2,
        }
    }
    out
}

/// The encoded-word starting at `start`, if it is one: no spaces or line
/// ends inside, a B or Q encoding, and its closing `?=`.
fn parse_word(h: &[u8], start: usize) -> Option<EncodedWord<'_>> {
    let body = &h[start + 2..];
    let q1 = body.iter().position(|&b| b == b'?')?;
    let charset_full = &body[..q1];
    let enc = *body.get(q1 + 1)?;
    if body.get(q1 + 2) != Some(&b'?') {
        return None;
    }
    let text_start = q1 + 3;
    let text_len = find(&body[text_start..], b"?=")?;
    let text = &body[text_start..text_start + text_len];
    let bad = |b: &u8| b.is_ascii_whitespace() || b.is_ascii_control();
    if charset_full.is_empty() || charset_full.iter().any(bad) || text.iter().any(bad) {
        return None;
    }
    let charset = match charset_full.iter().position(|&b| b == b'*') {
        Some(star) => &charset_full[..star],
        None => charset_full,
    };
    let base64 = match enc {
        b'B' | b'b' => true,
        b'Q' | b'q' => false,
        _ => return None,
    };
    Some(EncodedWord {
        start,
        end: start + 2 + text_start + text_len + 2,
        charset,
        base64,
        text,
    })
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// RFC 2047 Q: `_` is a space, `=XX` a byte.
fn q_decode(text: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        match text[i] {
            b'_' => out.push(b' '),
            b'=' => {
                let hex = std::str::from_utf8(text.get(i + 1..i + 3)?).ok()?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 2;
            }
            b => out.push(b),
        }
        i += 1;
    }
    Some(out)
}

const BASE64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard base64; padding optional, as senders often leave it off.
fn base64_decode(text: &[u8]) -> Option<Vec<u8>> {
    let text = text
        .strip_suffix(b"==")
        .or(text.strip_suffix(b"="))
        .unwrap_or(text);
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let mut acc = 0u32;
    let mut bits = 0;
    for &c in text {
        let v = BASE64.iter().position(|&b| b == c)? as u32;
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

fn base64_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |acc, (i, &b)| acc | (b as u32) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(BASE64[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use mail_parser::MessageParser;

    fn subject(message: &[u8]) -> String {
        let joined = join_adjacent(message);
        let msg = MessageParser::default().parse(&joined).unwrap();
        msg.subject().unwrap_or("").to_string()
    }

    fn word(charset: &str, bytes: &[u8]) -> String {
        format!("=?{charset}?B?{}?=", base64_encode(bytes))
    }

    #[test]
    fn base64_round_trips() {
        for n in 0..10 {
            let bytes: Vec<u8> = (0..n).map(|i| (i * 37 + 200) as u8).collect();
            assert_eq!(base64_decode(base64_encode(&bytes).as_bytes()), Some(bytes));
        }
        assert_eq!(
            base64_decode(b"QQ"),
            Some(b"A".to_vec()),
            "padding optional"
        );
    }

    /// Regression: "日本語" split inside its second character decoded to U+FFFD.
    #[test]
    fn a_utf8_character_split_between_two_words_survives() {
        let utf8 = "日本語".as_bytes();
        let split = format!(
            "{} {}",
            word("UTF-8", &utf8[..5]),
            word("utf-8", &utf8[5..])
        );
        let message = format!("Subject: {split}\n\nbody\n");
        let plain = MessageParser::default().parse(message.as_bytes()).unwrap();
        assert_ne!(
            plain.subject(),
            Some("日本語"),
            "mail-parser alone fails here"
        );
        assert_eq!(subject(message.as_bytes()), "日本語");
    }

    /// Regression: ISO-2022-JP cut mid-character, the second word without its
    /// escape sequence, as long Japanese subjects arrive.
    #[test]
    fn an_iso_2022_jp_subject_split_mid_character_survives() {
        // 日本語 in JIS X 0208 between ESC $ B and ESC ( B.
        let jis = b"\x1b$B\x46\x7c\x4b\x5c\x38\x6c\x1b(B";
        let message = format!(
            "Subject: {}\n {}\n\nbody\n",
            word("ISO-2022-JP", &jis[..6]),
            word("ISO-2022-JP", &jis[6..])
        );
        assert_eq!(subject(message.as_bytes()), "日本語");
    }

    /// Regression (the real Lotus Domino bounce in sisimai's corpus): each
    /// word closes with ESC ( B and the next opens with ESC $ B; joined
    /// naively, the two escapes in a row decoded to U+FFFD inside ディレクトリ.
    #[test]
    fn iso_2022_jp_words_each_with_their_own_escapes_join_cleanly() {
        let message = "Subject: =?ISO-2022-JP?B?GyRCJE8bKEI=?= Domino \
                       =?ISO-2022-JP?B?GyRCJUclIyVsGyhC?=\n \
                       =?ISO-2022-JP?B?GyRCJS8lSCVqGyhC?=\n\nbody\n";
        assert_eq!(subject(message.as_bytes()), "は Domino ディレクトリ");
    }

    #[test]
    fn q_and_b_words_of_one_charset_join_and_language_tags_are_ignored() {
        let message = "Subject: =?utf-8*de?Q?Gr=C3?= =?UTF-8?B?vMOfZQ==?=\n\nx\n";
        assert_eq!(subject(message.as_bytes()), "Grüße");
        let message = "Subject: =?utf-8?Q?Gr=C3?=\t=?utf-8?Q?=BC=C3=9Fe?=\n\nx\n";
        assert_eq!(subject(message.as_bytes()), "Grüße");
    }

    #[test]
    fn what_must_stay_apart_stays_apart() {
        for message in [
            // Other charsets are decoded one by one, as before.
            "Subject: =?iso-8859-1?Q?caf=E9?= =?utf-8?Q?_=C3=A9t=C3=A9?=\n\nx\n",
            // Text between the words.
            "Subject: =?utf-8?Q?a?= and =?utf-8?Q?b?=\n\nx\n",
            // Two header fields, not one folded field.
            "Subject: =?utf-8?Q?a?=\nX-Other: =?utf-8?Q?b?=\n\nx\n",
            // Not encoded-words at all.
            "Subject: =? not ?= =?x\n\nx\n",
        ] {
            assert!(
                matches!(join_adjacent(message.as_bytes()), Cow::Borrowed(_)),
                "{message}"
            );
        }
        // A malformed word in a run leaves the run as it was.
        let bad = "Subject: =?utf-8?B?@@@?= =?utf-8?B?QQ==?=\n\nx\n";
        assert!(matches!(join_adjacent(bad.as_bytes()), Cow::Borrowed(_)));
    }

    #[test]
    fn only_the_header_block_is_rewritten() {
        let message = "Subject: =?utf-8?Q?a?= =?utf-8?Q?b?=\n\n=?utf-8?Q?c?= =?utf-8?Q?d?=\n";
        let joined = join_adjacent(message.as_bytes());
        assert_eq!(
            std::str::from_utf8(&joined).unwrap(),
            "Subject: =?utf-8?B?YWI=?=\n\n=?utf-8?Q?c?= =?utf-8?Q?d?=\n"
        );
    }
}
