//! What a stream of bytes is, from its first few kilobytes: compressed (and
//! how), an mbox, one message, or not mail at all. Names lie (`spam.mbox.gz`
//! renamed `spam.mbox`, a Maildir file compressed by Dovecot); bytes do not.

/// How much of a stream is looked at, before and after decompression.
pub const SNIFF_BYTES: usize = 16 << 10;

/// Share of control bytes (other than tab, line ends, form feed and the
/// escape that ISO-2022-JP uses) above which a stream that is not mail is
/// called binary rather than text. Text has none; random or compressed
/// bytes about 11 %.
const MAX_CONTROL_SHARE: f64 = 0.01;

/// Header fields that say "this is a message" when a file starts with headers.
const MAIL_HEADERS: [&str; 12] = [
    "from",
    "date",
    "subject",
    "message-id",
    "received",
    "return-path",
    "to",
    "delivered-to",
    "mime-version",
    "reply-to",
    "sender",
    "content-type",
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    Gzip,
    Bzip2,
    Xz,
    Zstd,
}

impl Compression {
    pub fn name(self) -> &'static str {
        match self {
            Compression::Gzip => "gzip",
            Compression::Bzip2 => "bzip2",
            Compression::Xz => "xz",
            Compression::Zstd => "zstd",
        }
    }
}

/// The compression a stream starts with, by its magic bytes.
pub fn compression(head: &[u8]) -> Option<Compression> {
    if head.starts_with(&[0x1f, 0x8b]) {
        Some(Compression::Gzip)
    } else if head.len() >= 4 && head.starts_with(b"BZh") && (b'1'..=b'9').contains(&head[3]) {
        Some(Compression::Bzip2)
    } else if head.starts_with(&[0xfd, b'7', b'z', b'X', b'Z', 0x00]) {
        Some(Compression::Xz)
    } else if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
        Some(Compression::Zstd)
    } else {
        None
    }
}

/// What an (uncompressed) stream holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Starts with an mbox `From ` line: split into messages.
    Mbox,
    /// Starts with header fields: one message (an .eml, an MH or Maildir file).
    Message,
    /// Nothing but whitespace: no messages, and nothing wrong.
    Empty,
    /// Not mail; the reason says what it looks like instead.
    NotMail(String),
}

/// Classify a stream by its first bytes (`head`, up to SNIFF_BYTES).
///
/// What starts like mail is mail: real archives carry NUL bytes and stray
/// control characters inside broken messages (UTF-16 parts, a crashed
/// client's padding), and the splitter and parser deal with those one
/// message at a time. Only a stream that does not start like mail is
/// refused, saying whether it looks binary or is text without a boundary.
pub fn kind(head: &[u8]) -> Kind {
    let text = head.trim_ascii_start();
    if text.is_empty() {
        return Kind::Empty;
    }
    if let Some(what) = archive(head) {
        return Kind::NotMail(format!("{what}, not mail; unpack it first"));
    }
    if text.starts_with(b"From ") {
        return Kind::Mbox;
    }
    if starts_with_mail_headers(text) {
        return Kind::Message;
    }
    if let Some(at) = head.iter().position(|&b| b == 0) {
        return Kind::NotMail(format!("binary data (a NUL byte at byte {at})"));
    }
    let control = head
        .iter()
        .filter(|&&b| (b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r' | 0x0c | 0x1b)) || b == 0x7f)
        .count();
    if control as f64 > MAX_CONTROL_SHARE * head.len() as f64 {
        return Kind::NotMail(format!(
            "binary data ({control} control bytes in the first {} bytes)",
            head.len()
        ));
    }
    Kind::NotMail(
        "no message boundary: it starts neither with an mbox \"From \" line nor with mail headers"
            .into(),
    )
}

/// Archives people might hand over instead of what is inside them.
fn archive(head: &[u8]) -> Option<&'static str> {
    if head.starts_with(b"PK\x03\x04") {
        Some("a zip archive")
    } else if head.get(257..262) == Some(b"ustar") {
        Some("a tar archive")
    } else if head.starts_with(b"7z\xbc\xaf\x27\x1c") {
        Some("a 7-Zip archive")
    } else {
        None
    }
}

/// The first line is a header field, and the header block names at least one
/// field that only mail has.
fn starts_with_mail_headers(text: &[u8]) -> bool {
    let mut lines = text
        .split(|&b| b == b'\n')
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l));
    let Some(first) = lines.next() else {
        return false;
    };
    let name = |line: &[u8]| -> Option<String> {
        let colon = line.iter().position(|&b| b == b':')?;
        // RFC 5322's obsolete syntax allows blanks before the colon
        // (`Subject : x`), and a mangled first line (`Fro :m`) still
        // starts a message the parser reads.
        let name = line[..colon].trim_ascii_end();
        (!name.is_empty() && name.iter().all(|&b| b.is_ascii_graphic()))
            .then(|| String::from_utf8_lossy(name).to_ascii_lowercase())
    };
    let Some(first_name) = name(first) else {
        return false;
    };
    std::iter::once(first_name)
        .chain(
            lines
                .take_while(|l| !l.is_empty())
                .filter(|l| !l.starts_with(b" ") && !l.starts_with(b"\t"))
                .filter_map(name),
        )
        .any(|n| MAIL_HEADERS.contains(&n.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn magic_bytes_name_the_compression() {
        assert_eq!(compression(&[0x1f, 0x8b, 8, 0]), Some(Compression::Gzip));
        assert_eq!(compression(b"BZh91AY&SY"), Some(Compression::Bzip2));
        assert_eq!(compression(b"BZhx"), None);
        assert_eq!(compression(b"\xfd7zXZ\x00\x00"), Some(Compression::Xz));
        assert_eq!(
            compression(&[0x28, 0xb5, 0x2f, 0xfd, 0]),
            Some(Compression::Zstd)
        );
        assert_eq!(compression(b"From a@x"), None);
    }

    #[test]
    fn the_kind_table() {
        let header_first = "Return-Path: <a@x>\nReceived: from x\n\tby y\nSubject: s\n\nbody";
        let cases: [(&[u8], Kind); 10] = [
            (
                b"From a@x Thu Jan 15 10:00:00 2026\nSubject: s\n\nb\n",
                Kind::Mbox,
            ),
            (b"\n\nFrom a@x Thu Jan 15 10:00:00 2026\n", Kind::Mbox),
            (header_first.as_bytes(), Kind::Message),
            (b"Subject: s\r\nX-Thing: y\r\n\r\nbody", Kind::Message),
            (b"Fro :m <a@x>\nSubject : s\n\nbody", Kind::Message),
            (
                b"some notes: a list\nsubject: s\n",
                Kind::NotMail(String::new()),
            ),
            (b" \n\r\n", Kind::Empty),
            (b"", Kind::Empty),
            (b"unseen: 1-5\ncur: 4\n", Kind::NotMail(String::new())),
            (b"just some notes, not mail\n", Kind::NotMail(String::new())),
        ];
        for (head, want) in cases {
            let got = kind(head);
            match want {
                Kind::NotMail(_) => assert!(matches!(got, Kind::NotMail(_)), "{head:?}: {got:?}"),
                want => assert_eq!(got, want, "{head:?}"),
            }
        }
    }

    #[test]
    fn binary_and_archives_are_named() {
        let mut lcg = 7u64;
        let random: Vec<u8> = (0..4096)
            .map(|_| {
                lcg = lcg.wrapping_mul(6364136223846793005).wrapping_add(1);
                (lcg >> 56) as u8
            })
            .collect();
        let Kind::NotMail(why) = kind(&random) else {
            panic!("random bytes are mail?")
        };
        assert!(why.starts_with("binary data"), "{why}");
        let Kind::NotMail(why) = kind(b"PDF\x00\x00") else {
            panic!()
        };
        assert_eq!(why, "binary data (a NUL byte at byte 3)");
        assert_eq!(kind(b"From a@x\n\nUTF-16 \x00t\x00e\x00x\x00t"), Kind::Mbox);
        let Kind::NotMail(why) = kind(b"PK\x03\x04rest") else {
            panic!()
        };
        assert_eq!(why, "a zip archive, not mail; unpack it first");
        let mut tar = vec![b'a'; 512];
        tar[257..262].copy_from_slice(b"ustar");
        assert!(matches!(kind(&tar), Kind::NotMail(w) if w.starts_with("a tar archive")));
    }

    #[test]
    fn iso_2022_jp_escapes_and_8_bit_text_are_not_binary() {
        let jis = b"Subject: =?ISO-2022-JP?B?GyRCRnxLXDhsGyhC?=\n\n\x1b$BF|K\\8l\x1b(B\n";
        assert_eq!(kind(jis), Kind::Message);
        let latin1 =
            b"From a@x Thu Jan 15 10:00:00 2026\nSubject: caf\xe9\n\nna\xefve \xe0 la \xbd\n";
        assert_eq!(kind(latin1), Kind::Mbox);
    }
}
