//! Splits a JSON input into records while reading it, holding one record at a
//! time: a 1 GB `conversations.json` costs the memory of its largest
//! conversation, not of the file. The split is lexical (brackets matched,
//! strings skipped, nothing parsed), so a record that is balanced but not valid
//! JSON is still cut out whole and rejected alone while the rest go on.
//!
//! Containers: an array of records; JSON Lines (the first value sits on one
//! line, so every line is a record and a broken line spoils only itself); or
//! whitespace-separated values, which covers one pretty-printed object.

use std::io::{self, BufRead};

use memchr::memchr;

use super::reject;
use super::scan::Scan;
use crate::ingest::record::{FileError, Rejection};

/// Byte-order mark some Windows tools put in front of UTF-8 files.
const UTF8_BOM: [u8; 3] = [0xEF, 0xBB, 0xBF];

/// A record larger than this is rejected by index instead of buffered, so
/// that memory stays bounded on a damaged file (an unclosed string swallows
/// everything after it). Real conversations are a few MB at most; parsing one
/// into a tree costs a few times its size.
pub const MAX_RECORD_BYTES: usize = 32 << 20;

/// One record's text as it stood in the input, not yet parsed.
#[derive(Debug)]
pub struct RawRecord {
    /// 0-based position of the record in the input (blank JSONL lines not counted).
    pub index: usize,
    /// Byte offset in the input (BOM included): the `{` of an array element or
    /// value, the start of the line for JSON Lines.
    pub offset: u64,
    pub bytes: Vec<u8>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Mode {
    Start,
    /// Inside the top-level array; `after_record` once a record was read and
    /// a `,` or `]` is due.
    Array {
        after_record: bool,
    },
    AfterArray,
    Lines,
    Values,
    Done,
}

/// The records of one JSON input, read as they are needed.
pub struct JsonRecords<R> {
    input: R,
    pos: u64,
    mode: Mode,
    index: usize,
}

impl<R: BufRead> JsonRecords<R> {
    pub fn new(input: R) -> Self {
        JsonRecords {
            input,
            pos: 0,
            mode: Mode::Start,
            index: 0,
        }
    }

    /// Bytes consumed so far (for progress).
    pub fn position(&self) -> u64 {
        self.pos
    }

    /// The next record, or a rejection for one too large to keep; `Ok(None)`
    /// at the end. A `FileError` means the input cannot be split any further
    /// (it is not JSON, or it is cut short); the records before it stand.
    pub fn next_record(&mut self) -> Result<Option<Result<RawRecord, Rejection>>, FileError> {
        let result = self.advance();
        if result.is_err() {
            self.mode = Mode::Done;
        }
        result
    }

    fn advance(&mut self) -> Result<Option<Result<RawRecord, Rejection>>, FileError> {
        loop {
            match self.mode {
                Mode::Start => return self.start(),
                Mode::Array { after_record } => {
                    let next = self.skip_whitespace()?;
                    match (after_record, next) {
                        (_, Some(b']')) => {
                            // Also ends `[{...},]`: a stray last comma loses nothing.
                            self.bump();
                            self.mode = Mode::AfterArray;
                        }
                        (true, Some(b',')) => {
                            self.bump();
                            self.mode = Mode::Array {
                                after_record: false,
                            };
                        }
                        (_, None) => {
                            return Err(self.error("the file ends inside the array (truncated?)"));
                        }
                        (true, Some(_)) => {
                            return Err(self.error(format!(
                                "expected ',' or ']' after record {}",
                                self.index - 1
                            )));
                        }
                        (false, Some(b',')) => {
                            return Err(self.error("expected a record, found ','"));
                        }
                        (false, Some(_)) => {
                            self.mode = Mode::Array { after_record: true };
                            return self.value().map(Some);
                        }
                    }
                }
                Mode::AfterArray => {
                    return match self.skip_whitespace()? {
                        None => {
                            self.mode = Mode::Done;
                            Ok(None)
                        }
                        Some(_) => Err(self.error("unexpected data after the array's closing ']'")),
                    };
                }
                Mode::Lines => return self.line(),
                Mode::Values => {
                    return match self.skip_whitespace()? {
                        None => {
                            self.mode = Mode::Done;
                            Ok(None)
                        }
                        Some(b @ (b'}' | b']' | b',')) => {
                            Err(self.error(format!("unexpected '{}'", b as char)))
                        }
                        Some(_) => self.value().map(Some),
                    };
                }
                Mode::Done => return Ok(None),
            }
        }
    }

    /// Reads past a BOM and decides the container from the first value.
    fn start(&mut self) -> Result<Option<Result<RawRecord, Rejection>>, FileError> {
        if self.peek()? == Some(UTF8_BOM[0]) {
            for expected in UTF8_BOM {
                if self.peek()? != Some(expected) {
                    return Err(self.error("not UTF-8 JSON"));
                }
                self.bump();
            }
        }
        match self.skip_whitespace()? {
            None => {
                self.mode = Mode::Done;
                Ok(None)
            }
            Some(b'[') => {
                self.bump();
                self.mode = Mode::Array {
                    after_record: false,
                };
                self.advance()
            }
            Some(b'{') => {
                let first = self.value()?;
                let one_line = first
                    .as_ref()
                    .is_ok_and(|r| memchr(b'\n', &r.bytes).is_none());
                self.mode = if one_line && self.rest_of_line_is_blank()? {
                    Mode::Lines
                } else {
                    Mode::Values
                };
                Ok(Some(first))
            }
            Some(b) => Err(self.error(format!(
                "expected a json array of objects, an object, or json lines; found {}",
                describe(b)
            ))),
        }
    }

    /// One JSON Lines record: the next line that is not blank.
    fn line(&mut self) -> Result<Option<Result<RawRecord, Rejection>>, FileError> {
        loop {
            let offset = self.pos;
            let mut bytes = Vec::new();
            let mut oversize = false;
            let mut any = false;
            loop {
                let buf = self.fill()?;
                if buf.is_empty() {
                    break;
                }
                any = true;
                let (used, end) = match memchr(b'\n', buf) {
                    Some(i) => (i + 1, true),
                    None => (buf.len(), false),
                };
                keep(&mut bytes, &mut oversize, &buf[..used]);
                self.consume(used);
                if end {
                    break;
                }
            }
            if !any {
                self.mode = Mode::Done;
                return Ok(None);
            }
            if !oversize && bytes.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            return Ok(Some(self.record(offset, bytes, oversize)));
        }
    }

    /// The value that starts at the next byte, which is not whitespace.
    fn value(&mut self) -> Result<Result<RawRecord, Rejection>, FileError> {
        let offset = self.pos;
        let mut bytes = Vec::new();
        let mut oversize = false;
        let mut scan = Scan::default();
        loop {
            let buf = self.fill()?;
            if buf.is_empty() {
                if scan.scalar {
                    break;
                }
                return Err(FileError {
                    offset: Some(offset),
                    reason: format!(
                        "record {}: the file ends inside it (truncated?)",
                        self.index
                    ),
                });
            }
            let (used, done) = match scan.feed(buf) {
                Ok(step) => step,
                Err(at) => {
                    let b = buf[at];
                    self.consume(at);
                    return Err(self.error(format!(
                        "record {}: unexpected '{}' (a bracket closed that was not open)",
                        self.index, b as char
                    )));
                }
            };
            keep(&mut bytes, &mut oversize, &buf[..used]);
            self.consume(used);
            if done {
                break;
            }
        }
        Ok(self.record(offset, bytes, oversize))
    }

    fn record(
        &mut self,
        offset: u64,
        bytes: Vec<u8>,
        oversize: bool,
    ) -> Result<RawRecord, Rejection> {
        let index = self.index;
        self.index += 1;
        if oversize {
            return Err(reject(
                index,
                offset,
                format!("larger than {} MiB; skipped", MAX_RECORD_BYTES >> 20),
            ));
        }
        Ok(RawRecord {
            index,
            offset,
            bytes,
        })
    }

    /// After a first value: only spaces up to the line end (or the file end)?
    fn rest_of_line_is_blank(&mut self) -> Result<bool, FileError> {
        loop {
            match self.peek()? {
                None | Some(b'\n') => return Ok(true),
                Some(b' ' | b'\t' | b'\r') => self.bump(),
                Some(_) => return Ok(false),
            }
        }
    }

    /// Consumes whitespace and returns the next byte, still unread.
    fn skip_whitespace(&mut self) -> Result<Option<u8>, FileError> {
        loop {
            let buf = self.fill()?;
            if buf.is_empty() {
                return Ok(None);
            }
            match buf.iter().position(|b| !b.is_ascii_whitespace()) {
                Some(i) => {
                    let b = buf[i];
                    self.consume(i);
                    return Ok(Some(b));
                }
                None => {
                    let n = buf.len();
                    self.consume(n);
                }
            }
        }
    }

    fn peek(&mut self) -> Result<Option<u8>, FileError> {
        Ok(self.fill()?.first().copied())
    }

    fn bump(&mut self) {
        self.consume(1);
    }

    fn consume(&mut self, n: usize) {
        self.input.consume(n);
        self.pos += n as u64;
    }

    fn fill(&mut self) -> Result<&[u8], FileError> {
        let at_end = loop {
            match self.input.fill_buf() {
                Ok(buf) => break buf.is_empty(),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    return Err(FileError {
                        offset: Some(self.pos),
                        reason: format!("read error: {e}"),
                    });
                }
            }
        };
        if at_end {
            return Ok(&[]);
        }
        // Borrowed again because the loop cannot hand its slice out (a
        // borrow-checker limit); a filled buffer is returned without a read.
        Ok(self.input.fill_buf().unwrap_or_default())
    }

    fn error(&self, reason: impl Into<String>) -> FileError {
        FileError {
            offset: Some(self.pos),
            reason: reason.into(),
        }
    }
}

/// Appends to a record's bytes unless that would pass MAX_RECORD_BYTES; from
/// then on the record is only scanned to its end.
fn keep(bytes: &mut Vec<u8>, oversize: &mut bool, more: &[u8]) {
    if *oversize {
        return;
    }
    if bytes.len() + more.len() > MAX_RECORD_BYTES {
        *oversize = true;
        *bytes = Vec::new();
    } else {
        bytes.extend_from_slice(more);
    }
}

fn describe(b: u8) -> String {
    if b.is_ascii_graphic() {
        format!("'{}'", b as char)
    } else {
        format!("byte 0x{b:02x} (not UTF-8 text?)")
    }
}
