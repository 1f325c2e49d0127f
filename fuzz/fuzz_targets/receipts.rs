//! A receipts JSON file (array, object or JSON Lines), read both ways round
//! for ambiguous numeric dates.
#![no_main]

mod common;

use alfred_mem::ingest::receipts::{ReceiptOptions, parse_receipts};
use libfuzzer_sys::fuzz_target;

fuzz_target!(
    init: common::remember_panics_quietly(),
    |data: &[u8]| common::no_escaping_panic(|| {
        for month_first in [false, true] {
            let _ = parse_receipts(data, &ReceiptOptions { month_first });
        }
    })
);
