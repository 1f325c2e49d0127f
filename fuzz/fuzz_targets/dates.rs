//! Every date parser that reads untrusted text: `--after`/`--before` WHEN
//! (numeric forms, RFC 3339, phrases through interim) in two time zones, and
//! the receipt and JSON-export date readers.
#![no_main]

mod common;

use alfred_mem::dates::when::parse_when;
use alfred_mem::dates::written::{parse_datetime_loose, parse_receipt_date};
use chrono::{FixedOffset, TimeZone, Utc};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(
    init: common::remember_panics_quietly(),
    |data: &[u8]| common::no_escaping_panic(|| {
        let Ok(text) = std::str::from_utf8(data) else {
            return;
        };
        let now = Utc.with_ymd_and_hms(2026, 3, 18, 7, 30, 45).unwrap();
        let _ = parse_when(text, now, &Utc);
        let _ = parse_when(text, now, &FixedOffset::east_opt(8 * 3600).unwrap());
        for month_first in [false, true] {
            let _ = parse_receipt_date(text, month_first);
            let _ = parse_datetime_loose(&Value::String(text.to_string()), month_first);
        }
        // JSON exports also carry epoch numbers.
        if let Ok(v @ Value::Number(_)) = serde_json::from_str::<Value>(text) {
            let _ = parse_datetime_loose(&v, false);
        }
    })
);
