//! Table tests for the date readers, plus a sweep over real receipt dates.

use super::*;
use proptest::prelude::*;
use serde_json::json;

/// Real receipts (SROIE); the sweep is skipped when the file is not there.
const SROIE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../shared/data/receipts-sroie/sroie_receipts.json"
);

fn d(y: i32, m: u32, day: u32) -> Option<NaiveDate> {
    NaiveDate::from_ymd_opt(y, m, day)
}

#[test]
fn receipt_date_table() {
    // (input, month_first, expected)
    let rows: &[(&str, bool, Option<NaiveDate>)] = &[
        ("2018-03-15", false, d(2018, 3, 15)),
        ("2018-03-15", true, d(2018, 3, 15)),
        ("2018-03-15T10:20:30Z", false, d(2018, 3, 15)),
        ("2018-03-15 10:20", false, d(2018, 3, 15)),
        ("25/12/2018", false, d(2018, 12, 25)),
        ("25/12/2018", true, d(2018, 12, 25)),
        ("02-01-18", false, d(2018, 1, 2)),
        ("02-01-18", true, d(2018, 2, 1)),
        ("02-01-85", false, d(1985, 1, 2)),
        ("02-01-69", false, d(2069, 1, 2)),
        ("15 MAR 2018", false, d(2018, 3, 15)),
        ("15-Mar-2018", false, d(2018, 3, 15)),
        ("02/JAN/2017", false, d(2017, 1, 2)),
        ("Mar 15, 2018", false, d(2018, 3, 15)),
        ("March 15 2018", false, d(2018, 3, 15)),
        ("OCT 3, 2016", false, d(2016, 10, 3)),
        ("Sunday, 15th March 2018", false, d(2018, 3, 15)),
        ("30 DEC 17", false, d(2017, 12, 30)),
        ("2018.03.15", false, d(2018, 3, 15)),
        ("15.03.2018", false, d(2018, 3, 15)),
        ("2018/03/15", false, d(2018, 3, 15)),
        ("25/12/2018 8:13:39 PM", false, d(2018, 12, 25)),
        ("(06/12/2016)", false, d(2016, 12, 6)),
        ("5/3/2018", false, d(2018, 3, 5)),
        ("5/3/2018", true, d(2018, 5, 3)),
        ("12/28/2017", false, d(2017, 12, 28)),
        ("20180304", false, d(2018, 3, 4)),
        ("25032018", false, d(2018, 3, 25)),
        ("13/13/2018", false, None),
        ("30/02/2018", false, None),
        ("2018-13-01", false, None),
        ("2018-02-30", false, None),
        ("15 Mar 10:30", false, None),
        ("15 Foo 2018", false, None),
        ("1/2/345", false, None),
        ("", false, None),
        ("total 9.00", false, None),
        ("12/03/0001", false, None),
    ];
    for (input, month_first, want) in rows {
        assert_eq!(
            parse_receipt_date(input, *month_first),
            *want,
            "input {input:?} month_first={month_first}"
        );
    }
}

#[test]
fn datetime_loose_table() {
    let rows: &[(Value, Option<i64>)] = &[
        (json!("2024-01-02T03:04:05Z"), Some(1_704_164_645)),
        (json!("2024-01-02T05:04:05+02:00"), Some(1_704_164_645)),
        (json!("2024-01-02 03:04:05"), Some(1_704_164_645)),
        (json!("2024-01-02 03:04"), Some(1_704_164_640)),
        (json!("2024-01-02T03:04:05.250"), Some(1_704_164_645)),
        (json!("2024-01-02"), Some(1_704_153_600)),
        (json!("02/01/2024"), Some(1_704_153_600)),
        (json!("Jan 2, 2024"), Some(1_704_153_600)),
        (json!(1_704_164_645), Some(1_704_164_645)),
        (json!(1_704_164_645.75), Some(1_704_164_645)),
        (json!(1_704_164_645_123_i64), Some(1_704_164_645)),
        (json!(1.0e300), None),
        (json!(i64::MAX), None),
        (json!(-1), Some(-1)),
        (json!("  "), None),
        (json!("yesterday"), None),
        (json!(null), None),
        (json!(true), None),
        (json!([1]), None),
    ];
    for (v, want) in rows {
        assert_eq!(parse_datetime_loose(v, false), *want, "input {v}");
    }
    assert_eq!(
        parse_datetime_loose(&json!("02/01/2024"), true),
        Some(1_706_745_600)
    );
}

#[test]
#[cfg_attr(shared_data_absent, ignore = "../shared/data is absent")]
fn sroie_dates_all_parse() {
    let bytes = std::fs::read(SROIE).expect(SROIE);
    let receipts: Vec<Value> = serde_json::from_slice(&bytes).expect("sroie is json");
    let mut failed = Vec::new();
    for r in &receipts {
        let date = r.get("date").and_then(Value::as_str).unwrap_or("");
        if parse_receipt_date(date, false).is_none() {
            failed.push(date.to_string());
        }
    }
    println!(
        "sroie dates: {} parsed, {} failed: {failed:?}",
        receipts.len() - failed.len(),
        failed.len()
    );
    assert!(failed.is_empty());
}

proptest! {
    #[test]
    fn never_panics(s in "\\PC{0,40}", mf in any::<bool>()) {
        let _ = parse_receipt_date(&s, mf);
        let _ = parse_datetime_loose(&Value::String(s), mf);
    }

    #[test]
    fn never_panics_on_numbers(f in any::<f64>(), i in any::<i64>()) {
        if let Some(n) = serde_json::Number::from_f64(f) {
            let _ = parse_datetime_loose(&Value::Number(n), false);
        }
        let _ = parse_datetime_loose(&json!(i), false);
    }

    #[test]
    fn datey_strings_never_panic(s in "[0-9]{1,9}[-/. ]?[0-9A-Za-z]{0,9}[-/., ]{0,2}[0-9]{0,9}( [0-9:]{0,8})?") {
        let _ = parse_receipt_date(&s, false);
        let _ = parse_receipt_date(&s, true);
    }
}
