//! Streaming mbox splitter: reads any size of file with bounded memory, yields
//! one raw message at a time with its byte offset, and undoes mboxrd quoting.
//!
//! A line beginning `From ` starts a message when it opens the file, follows a
//! blank line, or looks like an envelope (it carries a time and a year): mboxrd
//! writers quote body lines, but mboxo exports often do not, and a body line
//! such as "From the desk of..." must not split a message.

use std::io::{self, BufRead, Read};

/// Messages larger than this are rejected by name instead of buffered: it is
/// past any real mail server's limit (Gmail: 25 MB of attachments, ~34 MB
/// encoded) and keeps peak memory bounded on hostile input.
pub const MAX_MESSAGE_BYTES: usize = 48 << 20;

/// The header block kept from an oversize message, to name it.
pub const MAX_OVERSIZE_HEADER_BYTES: usize = 64 << 10;

/// One message as it stood in the mbox, envelope line removed and unquoted.
#[derive(Debug, PartialEq, Eq)]
pub struct RawMessage {
    /// Byte offset of the message's first line (its envelope line) in the input.
    pub offset: u64,
    /// The envelope line without "From " and the line end, if there was one.
    pub envelope: Option<String>,
    pub bytes: Vec<u8>,
    /// The message passed MAX_MESSAGE_BYTES: `bytes` holds only its headers.
    pub oversize: bool,
    /// When the container recorded its delivery, where that is not an
    /// envelope line (the time in a Maildir file name).
    pub delivered_at: Option<i64>,
}

pub struct MboxSplitter<R> {
    input: R,
    offset: u64,
    line: Vec<u8>,
    line_truncated: bool,
    prev_blank: bool,
    pending: Option<RawMessage>,
    done: bool,
    /// Where the last message yielded started.
    last_start: u64,
    /// The input's last byte was a line end.
    ended_with_newline: bool,
}

impl<R: BufRead> MboxSplitter<R> {
    pub fn new(input: R) -> Self {
        Self::starting_at(input, 0)
    }

    /// A splitter for an input that starts at byte `offset` of its file (a
    /// message boundary), so offsets name positions in the whole file.
    pub fn starting_at(input: R, offset: u64) -> Self {
        MboxSplitter {
            input,
            offset,
            line: Vec::new(),
            line_truncated: false,
            prev_blank: true,
            pending: None,
            done: false,
            last_start: offset,
            ended_with_newline: true,
        }
    }

    /// Bytes consumed so far (for progress).
    pub fn position(&self) -> u64 {
        self.offset
    }

    /// Where a later run can go on reading, all messages yielded so far
    /// being complete: the start of the next message, or at the end of the
    /// input its end; but the start of the last message when the input
    /// stops mid-line, as a file still being written does.
    pub fn resume_point(&self) -> u64 {
        match &self.pending {
            Some(next) => next.offset,
            None if self.done && !self.ended_with_newline => self.last_start,
            None => self.offset,
        }
    }

    /// Read the next line into `self.line` (keeping at most MAX_MESSAGE_BYTES
    /// of it); returns false at end of input.
    fn read_line(&mut self) -> io::Result<bool> {
        self.line.clear();
        self.line_truncated = false;
        let mut any = false;
        loop {
            let buf = match self.input.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if buf.is_empty() {
                return Ok(any);
            }
            any = true;
            self.ended_with_newline = buf.last() == Some(&b'\n');
            let (take, found) = match memchr(b'\n', buf) {
                Some(i) => (i + 1, true),
                None => (buf.len(), false),
            };
            let room = MAX_MESSAGE_BYTES.saturating_sub(self.line.len());
            if take <= room {
                self.line.extend_from_slice(&buf[..take]);
            } else {
                self.line.extend_from_slice(&buf[..room]);
                self.line_truncated = true;
            }
            self.input.consume(take);
            self.offset += take as u64;
            if found {
                return Ok(true);
            }
        }
    }

    fn next_message(&mut self) -> io::Result<Option<RawMessage>> {
        if self.done {
            return Ok(None);
        }
        loop {
            let line_start = self.offset;
            if !self.read_line()? {
                self.done = true;
                return Ok(self.pending.take().map(finish));
            }
            let blank = is_blank(&self.line);
            if self.line.starts_with(b"From ")
                && (self.prev_blank || looks_like_envelope(&self.line))
            {
                let envelope = String::from_utf8_lossy(trim_eol(&self.line[5..]))
                    .trim()
                    .to_string();
                let next = RawMessage {
                    offset: line_start,
                    envelope: Some(envelope),
                    bytes: Vec::new(),
                    oversize: false,
                    delivered_at: None,
                };
                self.prev_blank = false;
                if let Some(prev) = self.pending.replace(next) {
                    return Ok(Some(finish(prev)));
                }
                continue;
            }
            let msg = match self.pending.as_mut() {
                Some(m) => m,
                None if blank => {
                    self.prev_blank = true;
                    continue;
                }
                // Text before any envelope line: treat it as a message of its
                // own, so a single .eml file can be indexed too.
                None => self.pending.insert(RawMessage {
                    offset: line_start,
                    envelope: None,
                    bytes: Vec::new(),
                    oversize: false,
                    delivered_at: None,
                }),
            };
            self.prev_blank = blank;
            let line = unquote(&self.line);
            if !msg.oversize
                && (self.line_truncated || msg.bytes.len() + line.len() > MAX_MESSAGE_BYTES)
            {
                msg.oversize = true;
                keep_headers(&mut msg.bytes);
            }
            if !msg.oversize {
                msg.bytes.extend_from_slice(line);
            }
        }
    }
}

impl<R: BufRead> Iterator for MboxSplitter<R> {
    type Item = io::Result<RawMessage>;

    fn next(&mut self) -> Option<Self::Item> {
        match self.next_message() {
            Ok(Some(m)) => {
                self.last_start = m.offset;
                Some(Ok(m))
            }
            Ok(None) => None,
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}

/// A file that is one message (an .eml, an MH or Maildir file): all of it,
/// or its headers alone when it passes MAX_MESSAGE_BYTES.
pub fn read_single(input: impl Read, delivered_at: Option<i64>) -> io::Result<RawMessage> {
    let mut bytes = Vec::new();
    input
        .take(MAX_MESSAGE_BYTES as u64 + 1)
        .read_to_end(&mut bytes)?;
    let oversize = bytes.len() > MAX_MESSAGE_BYTES;
    if oversize {
        keep_headers(&mut bytes);
    }
    Ok(RawMessage {
        offset: 0,
        envelope: None,
        bytes,
        oversize,
        delivered_at,
    })
}

/// An oversize message keeps only its header block (at most
/// MAX_OVERSIZE_HEADER_BYTES), so its rejection can name it by Message-ID and
/// subject without holding the body.
fn keep_headers(bytes: &mut Vec<u8>) {
    let end = bytes
        .windows(2)
        .position(|w| w == b"\n\n")
        .map(|i| i + 2)
        .or_else(|| {
            bytes
                .windows(4)
                .position(|w| w == b"\r\n\r\n")
                .map(|i| i + 4)
        })
        .unwrap_or(bytes.len())
        .min(MAX_OVERSIZE_HEADER_BYTES);
    bytes.truncate(end);
    bytes.shrink_to_fit();
}

/// Drop the blank line that separates a message from the next envelope.
fn finish(mut m: RawMessage) -> RawMessage {
    if m.bytes.ends_with(b"\r\n\r\n") {
        m.bytes.truncate(m.bytes.len() - 2);
    } else if m.bytes.ends_with(b"\n\n") {
        m.bytes.truncate(m.bytes.len() - 1);
    }
    m
}

fn is_blank(line: &[u8]) -> bool {
    line.iter().all(|b| matches!(b, b'\r' | b'\n'))
}

fn trim_eol(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// mboxrd: a line of one or more `>` followed by `From ` lost one `>` on the way in.
fn unquote(line: &[u8]) -> &[u8] {
    let quotes = line.iter().take_while(|&&b| b == b'>').count();
    if quotes > 0 && line[quotes..].starts_with(b"From ") {
        &line[1..]
    } else {
        line
    }
}

/// `From sender Thu Jan 15 10:00:00 2026`: an hh:mm time and a four-digit year.
fn looks_like_envelope(line: &[u8]) -> bool {
    let rest = &line[5..];
    let has_time = rest.windows(5).any(|w| {
        w[0].is_ascii_digit()
            && w[1].is_ascii_digit()
            && w[2] == b':'
            && w[3].is_ascii_digit()
            && w[4].is_ascii_digit()
    });
    let has_year = rest
        .windows(4)
        .any(|w| w.iter().all(u8::is_ascii_digit) && (w[0] == b'1' || w[0] == b'2'));
    has_time && has_year
}

fn memchr(needle: u8, hay: &[u8]) -> Option<usize> {
    hay.iter().position(|&b| b == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(input: &[u8]) -> Vec<RawMessage> {
        MboxSplitter::new(input).map(|m| m.unwrap()).collect()
    }

    #[test]
    fn splits_and_reports_offsets() {
        let mbox = b"From a@x Thu Jan 15 10:00:00 2026\nSubject: one\n\nbody one\n\nFrom b@x Fri Jan 16 10:00:00 2026\nSubject: two\n\nbody two\n";
        let msgs = split(mbox);
        assert_eq!(msgs.len(), 2);
        assert_eq!(msgs[0].offset, 0);
        assert_eq!(msgs[0].bytes, b"Subject: one\n\nbody one\n");
        assert_eq!(msgs[1].offset, 58);
        assert_eq!(&mbox[58..63], b"From ");
        assert_eq!(
            msgs[1].envelope.as_deref(),
            Some("b@x Fri Jan 16 10:00:00 2026")
        );
        assert_eq!(msgs[1].bytes, b"Subject: two\n\nbody two\n");
    }

    #[test]
    fn the_last_message_is_not_dropped() {
        let msgs = split(b"From a@x Thu Jan 15 10:00:00 2026\nSubject: only\n\nno newline at end");
        assert_eq!(msgs.len(), 1);
        assert_eq!(msgs[0].bytes, b"Subject: only\n\nno newline at end");
    }

    #[test]
    fn mboxrd_quoting_is_undone() {
        let msgs =
            split(b"From a@x Thu Jan 15 10:00:00 2026\n\n>From here\n>>From there\n>not from\n");
        assert_eq!(msgs[0].bytes, b"\nFrom here\n>From there\n>not from\n");
    }

    #[test]
    fn an_unquoted_body_from_line_does_not_split() {
        let msgs =
            split(b"From a@x Thu Jan 15 10:00:00 2026\nSubject: s\n\nline\nFrom the desk of Bob\n");
        assert_eq!(msgs.len(), 1);
    }

    #[test]
    fn crlf_files_work() {
        let msgs = split(b"From a@x Thu Jan 15 10:00:00 2026\r\nSubject: a\r\n\r\nbody\r\n\r\nFrom b@x Thu Jan 15 10:00:00 2026\r\nSubject: b\r\n\r\nx\r\n");
        assert_eq!(msgs.len(), 2);
        assert_eq!(msgs[0].bytes, b"Subject: a\r\n\r\nbody\r\n");
    }

    #[test]
    fn text_before_the_first_envelope_is_a_message() {
        let msgs = split(b"Subject: eml\n\nhello\n");
        assert_eq!(msgs.len(), 1);
        assert_eq!(msgs[0].envelope, None);
    }

    #[test]
    fn resume_points_are_message_boundaries() {
        let one = b"From a@x Thu Jan 15 10:00:00 2026\nSubject: one\n\nbody\n\n";
        let two = b"From b@x Thu Jan 15 10:00:00 2026\nSubject: two\n\nbody\n";
        let both = [one.as_slice(), two].concat();
        let mut s = MboxSplitter::new(both.as_slice());
        assert_eq!(s.resume_point(), 0);
        s.next().unwrap().unwrap();
        assert_eq!(
            s.resume_point(),
            one.len() as u64,
            "the next message's start"
        );
        s.next().unwrap().unwrap();
        assert!(s.next().is_none());
        assert_eq!(s.resume_point(), both.len() as u64, "complete: the end");
        // Ending mid-line, the last message may be incomplete: resume at it.
        let cut = &both[..both.len() - 3];
        let mut s = MboxSplitter::new(cut);
        while s.next().is_some() {}
        assert_eq!(s.resume_point(), one.len() as u64);
        // Entered at a boundary, offsets stay those of the whole file.
        let mut s = MboxSplitter::starting_at(two.as_slice(), 1000);
        assert_eq!(s.next().unwrap().unwrap().offset, 1000);
        assert_eq!(s.resume_point(), 1000 + two.len() as u64);
    }

    #[test]
    fn an_oversize_message_is_flagged_not_buffered() {
        let mut mbox = b"From a@x Thu Jan 15 10:00:00 2026\nSubject: big\n\n".to_vec();
        mbox.extend(std::iter::repeat_n(b'x', MAX_MESSAGE_BYTES + 10));
        mbox.extend_from_slice(b"\n\nFrom b@x Thu Jan 15 10:00:00 2026\nSubject: small\n\nok\n");
        let msgs = split(&mbox);
        assert_eq!(msgs.len(), 2);
        assert!(msgs[0].oversize);
        assert_eq!(
            msgs[0].bytes, b"Subject: big\n",
            "only the headers are kept"
        );
        assert!(!msgs[1].oversize);
    }

    /// mboxrd quoting as a writer does it: one more `>` before `>*From `.
    fn quote(line: &str) -> String {
        let quotes = line.chars().take_while(|&c| c == '>').count();
        if line[quotes..].starts_with("From ") {
            format!(">{line}")
        } else {
            line.to_string()
        }
    }

    /// Body lines, weighted toward the ones that could confuse a splitter.
    fn body_line() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        prop_oneof![
            Just(String::new()),
            Just("From a@x Thu Jan 15 10:00:00 2026".to_string()),
            "From [ -~]{0,30}",
            ">{1,3}From [ -~]{0,20}",
            "[>F]{0,3}[ -~]{0,40}",
            "\\PC{0,40}",
        ]
    }

    proptest::proptest! {
        /// Any list of correctly mboxrd-quoted messages splits back into
        /// exactly those messages, byte for byte, in order, LF or CRLF.
        #[test]
        fn the_splitter_never_loses_or_merges_messages(
            bodies in proptest::collection::vec(
                proptest::collection::vec(body_line(), 1..12), 1..8),
            crlf in proptest::bool::ANY,
        ) {
            let eol = if crlf { "\r\n" } else { "\n" };
            let mut mbox = String::new();
            let mut want = Vec::new();
            for lines in &bodies {
                let body: String = lines.iter().map(|l| format!("{l}{eol}")).collect();
                mbox.push_str(&format!("From sender@example.com Thu Jan 15 10:00:00 2026{eol}"));
                for l in lines {
                    mbox.push_str(&quote(l));
                    mbox.push_str(eol);
                }
                mbox.push_str(eol);
                want.push(body);
            }
            let got: Vec<String> = split(mbox.as_bytes())
                .into_iter()
                .map(|m| String::from_utf8(m.bytes).unwrap())
                .collect();
            proptest::prop_assert_eq!(got, want);
        }
    }
}
