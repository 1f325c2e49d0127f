//! The reading half of a JSON import, run on the parser thread: open the input
//! (a file, standard input, or the wanted members of a zip archive, told apart
//! by their first bytes, not their names), split it into records, parse each,
//! and send batches to the writer. Nothing is read ahead of the batches in
//! flight, so memory stays bounded whatever the size of the input.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::sync::mpsc::SyncSender;

use zip::ZipArchive;

use super::{JsonElement, JsonRecords};
use crate::ingest::record::{Parsed, Record, Rejection};
use crate::ingest::run::{BATCH_RECORDS, Input};

/// Parses one record (a receipt, a conversation); shared with the parser thread.
pub type ParseRecord<'a> = dyn Fn(&JsonElement<'_>) -> Result<Record, Rejection> + Sync + 'a;

/// Which members of a zip archive an import reads; the others are ignored.
pub struct ZipMembers {
    /// What a zip without any such member lacks, for the error: `conversations.json`.
    pub wanted: &'static str,
    /// Tells a wanted member by its file name (the last part of its path).
    pub accept: fn(&str) -> bool,
}

/// What the parser thread sends the writer.
pub enum JsonEvent {
    /// Parsed records of `source` (the input's name, or `archive.zip/member`);
    /// `progress` is how far into the input's bytes reading has come.
    Records {
        source: String,
        progress: u64,
        records: Vec<Parsed>,
    },
    /// `source` could not be read (any further).
    Failed { source: String, error: String },
}

/// How a zip archive starts (a local file header, or the end record of an empty one).
const ZIP_MAGICS: [&[u8]; 2] = [b"PK\x03\x04", b"PK\x05\x06"];
/// Member names listed when a zip holds none of the wanted ones.
const MAX_NAMES_SHOWN: usize = 8;
const READ_BUFFER_BYTES: usize = 1 << 20;

/// Whether a file starting with `head` is a zip archive.
pub fn starts_like_zip(head: &[u8]) -> bool {
    ZIP_MAGICS.iter().any(|m| head.starts_with(m))
}

/// The writer hung up (it failed); stop reading.
struct Hangup;

/// Reads every record of `input` through `parse`, sending batches on `tx`.
pub fn read_input(
    input: &Input,
    members: &ZipMembers,
    parse: &ParseRecord<'_>,
    tx: &SyncSender<JsonEvent>,
) {
    let name = input.name();
    let _ = open_and_read(input, &name, members, parse, tx);
}

fn open_and_read(
    input: &Input,
    name: &str,
    members: &ZipMembers,
    parse: &ParseRecord<'_>,
    tx: &SyncSender<JsonEvent>,
) -> Result<(), Hangup> {
    let mut reader = match input.open() {
        Ok(r) => BufReader::with_capacity(READ_BUFFER_BYTES, r),
        Err(e) => return failed(tx, name, format!("{e:#}")),
    };
    let is_zip = match reader.fill_buf() {
        Ok(head) => starts_like_zip(head),
        Err(e) => return failed(tx, name, format!("read error: {e}")),
    };
    match (is_zip, input) {
        (false, _) => stream(tx, name, reader, parse, |pos| pos),
        (true, Input::File(path)) => match File::open(path) {
            Ok(file) => read_zip(tx, name, file, members, parse),
            Err(e) => failed(tx, name, format!("could not open {name}: {e}")),
        },
        (true, Input::Stdin) => failed(
            tx,
            name,
            "a zip archive cannot be read from standard input (it is read from its end); name the file instead".into(),
        ),
    }
}

/// The wanted members of a zip archive, each streamed as it is inflated.
fn read_zip(
    tx: &SyncSender<JsonEvent>,
    name: &str,
    file: File,
    members: &ZipMembers,
    parse: &ParseRecord<'_>,
) -> Result<(), Hangup> {
    let mut archive = match ZipArchive::new(BufReader::new(file)) {
        Ok(a) => a,
        Err(e) => return failed(tx, name, format!("not a readable zip archive: {e}")),
    };
    let mut others = Vec::new();
    let mut found = false;
    for i in 0..archive.len() {
        // Chosen by name before opening: an unwanted member packed in a way
        // we cannot read (encrypted, bzip2) is ignored like any other file.
        let path = archive
            .name_for_index(i)
            .and_then(Result::ok)
            .map(|n| n.into_owned())
            .unwrap_or_default();
        let file_name = path.rsplit('/').next().unwrap_or_default();
        if !(members.accept)(file_name) {
            others.push(path);
            continue;
        }
        found = true;
        let source = format!("{name}/{path}");
        let member = match archive.by_index(i) {
            Ok(m) => m,
            Err(e) => {
                failed(tx, &source, format!("cannot be read: {e}"))?;
                continue;
            }
        };
        // Progress in archive bytes: how far into this member's compressed data.
        let (start, packed, size) = (
            member.header_start(),
            member.compressed_size(),
            member.size().max(1),
        );
        let reader = BufReader::with_capacity(READ_BUFFER_BYTES, member);
        stream(tx, &source, reader, parse, |pos| {
            start + (u128::from(pos) * u128::from(packed) / u128::from(size)) as u64
        })?;
    }
    if found {
        return Ok(());
    }
    let shown: Vec<&str> = others
        .iter()
        .map(String::as_str)
        .take(MAX_NAMES_SHOWN)
        .collect();
    let more = others.len().saturating_sub(shown.len());
    let more = if more > 0 {
        format!(" and {more} more")
    } else {
        String::new()
    };
    failed(
        tx,
        name,
        format!(
            "this zip archive holds no {} (it holds: {}{more})",
            members.wanted,
            if shown.is_empty() {
                "nothing".into()
            } else {
                shown.join(", ")
            }
        ),
    )
}

/// Splits, parses and sends one stream of records in batches.
fn stream(
    tx: &SyncSender<JsonEvent>,
    source: &str,
    reader: impl BufRead,
    parse: &ParseRecord<'_>,
    progress: impl Fn(u64) -> u64,
) -> Result<(), Hangup> {
    let mut records = JsonRecords::new(reader);
    let mut batch = Vec::with_capacity(BATCH_RECORDS);
    let outcome = loop {
        match records.next_record() {
            Ok(Some(next)) => batch.push(next.and_then(|raw| parse(&raw.element()?))),
            Ok(None) => break Ok(()),
            Err(e) => break Err(e),
        }
        if batch.len() == BATCH_RECORDS {
            let full = std::mem::replace(&mut batch, Vec::with_capacity(BATCH_RECORDS));
            send_records(tx, source, progress(records.position()), full)?;
        }
    };
    send_records(tx, source, progress(records.position()), batch)?;
    match outcome {
        Ok(()) => Ok(()),
        Err(e) => {
            let at = e.offset.map(|o| format!(" (byte {o})")).unwrap_or_default();
            failed(tx, source, format!("{}{at}", e.reason))
        }
    }
}

fn send_records(
    tx: &SyncSender<JsonEvent>,
    source: &str,
    progress: u64,
    records: Vec<Parsed>,
) -> Result<(), Hangup> {
    tx.send(JsonEvent::Records {
        source: source.to_string(),
        progress,
        records,
    })
    .map_err(|_| Hangup)
}

fn failed(tx: &SyncSender<JsonEvent>, source: &str, error: String) -> Result<(), Hangup> {
    tx.send(JsonEvent::Failed {
        source: source.to_string(),
        error,
    })
    .map_err(|_| Hangup)
}
