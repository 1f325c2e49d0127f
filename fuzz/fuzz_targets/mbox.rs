//! An mbox file as the importer reads it: split, parse each message (MIME,
//! charsets, HTML, forwarded mail), strip quotes, chunk.
#![no_main]

mod common;

use alfred_mem::ingest::mbox::{MboxSplitter, parse_message};
use libfuzzer_sys::fuzz_target;

fuzz_target!(
    init: common::remember_panics_quietly(),
    |data: &[u8]| common::no_escaping_panic(|| {
        for raw in MboxSplitter::new(data) {
            let Ok(raw) = raw else { break };
            if let Ok(record) = parse_message(&raw, 0) {
                assert!(!record.chunks.is_empty(), "a record without chunks");
            }
        }
    })
);
