//! A conversations JSON file, ours or ChatGPT's export, with the default chunk
//! size and a tiny one that forces long messages to be cut.
#![no_main]

mod common;

use alfred_mem::ingest::conversations::{DEFAULT_MAX_CHUNK_CHARS, parse_conversations};
use libfuzzer_sys::fuzz_target;

fuzz_target!(
    init: common::remember_panics_quietly(),
    |data: &[u8]| common::no_escaping_panic(|| {
        for max_chunk_chars in [DEFAULT_MAX_CHUNK_CHARS, 40] {
            let _ = parse_conversations(data, max_chunk_chars);
        }
    })
);
