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
#[path = "split_tests.rs"]
mod tests;
