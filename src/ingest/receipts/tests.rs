//! Receipt ingester tests: containers, field aliases, text layout, rejections,
//! and a run over the real SROIE receipts.

use super::*;
use proptest::prelude::*;

const SROIE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../shared/data/receipts-sroie/sroie_receipts.json"
);
const DAY_FIRST: ReceiptOptions = ReceiptOptions { month_first: false };

fn parse(input: &str) -> Vec<Parsed> {
    parse_receipts(input.as_bytes(), &DAY_FIRST).expect("file parses")
}

fn one(input: &str) -> Record {
    let mut all = parse(input);
    assert_eq!(all.len(), 1);
    all.remove(0).expect("indexed")
}

#[test]
fn full_receipt_layout() {
    let r = one(r#"{
        "id": "bill-7", "Biller": "TNB", "category": "electricity", "Amount_Due": 182.40,
        "currency": "MYR", "paid_at": "2026-01-07T10:00:00Z", "account": 1234,
        "address": "Jalan 1", "items": [{"name": "Widget", "price": 4.50, "quantity": 2},
        {"description": "Fee"}, "free text item"], "note": "late", "paid": true,
        "meta": {"branch": "KL", "deep": {"x": 1}}, "tags": ["a", "b"], "empty": null
    }"#);
    assert_eq!(r.source_id, "bill-7");
    assert_eq!(r.meta.vendor.as_deref(), Some("TNB"));
    assert_eq!(r.source_type, SourceType::Receipt);
    assert_eq!(r.chunks.len(), 1);
    assert_eq!(
        r.chunks[0].text,
        "Receipt: TNB (electricity), MYR 182.40, paid 2026-01-07, account 1234\n\
         Address: Jalan 1\n\
         - 2 × Widget 4.50\n\
         - Fee\n\
         - free text item\n\
         note: late\n\
         paid: true\n\
         meta.branch: KL\n\
         tags:\na\nb"
    );
    assert_eq!(r.chunks[0].dated_at, 1_767_744_000);
    assert!(r.chunks[0].message_ids.is_empty());
    assert_eq!(r.content_hash, content_hash(&r.meta, &r.chunks));
}

#[test]
fn sroie_style_receipt() {
    let r = one(
        r#"[{"id": "000", "company": "BOOK TA .K (TAMAN DAYA) SDN BHD", "date": "25/12/2018",
        "address": "JOHOR.", "total": "9.00", "ocr_lines": ["TAN WOON YANN", "9.00"]}]"#,
    );
    assert_eq!(
        r.chunks[0].text,
        "Receipt: BOOK TA .K (TAMAN DAYA) SDN BHD, total 9.00, paid 2018-12-25\n\
         Address: JOHOR.\nocr_lines:\nTAN WOON YANN\n9.00"
    );
    assert_eq!(r.source_id, "000");
}

#[test]
fn json_lines_and_number_ids_and_hash_ids() {
    let all = parse(
        "{\"id\": 42, \"vendor\": \"A\", \"date\": \"2020-01-01\"}\n\n\
         {\"vendor\": \"B\", \"date\": \"2020-01-02\"}\n\
         {\"id\": \"  \", \"vendor\": \"C\", \"date\": \"2020-01-03\"}\n",
    );
    assert_eq!(all.len(), 3);
    let ids: Vec<_> = all
        .iter()
        .map(|p| p.as_ref().unwrap().source_id.clone())
        .collect();
    assert_eq!(ids[0], "42");
    for (id, rec) in ids[1..].iter().zip(&all[1..]) {
        assert_eq!(
            *id,
            format!("sha256:{}", rec.as_ref().unwrap().content_hash)
        );
    }
}

#[test]
fn month_first_option() {
    let input = r#"{"vendor": "A", "date": "02/01/2020"}"#;
    let dmy = one(input);
    assert!(dmy.chunks[0].text.contains("paid 2020-01-02"));
    let mdy = parse_receipts(input.as_bytes(), &ReceiptOptions { month_first: true }).unwrap();
    let mdy = mdy[0].as_ref().unwrap();
    assert!(mdy.chunks[0].text.contains("paid 2020-02-01"));
    assert_ne!(dmy.content_hash, mdy.content_hash);
}

#[test]
fn keys_match_any_case_and_prefer_aliases_in_order() {
    let r = one(
        r#"{"PAYEE": "P", "Merchant": "M", "TOTAL": 5, "Due_Date": "2020-03-01",
        "Issued_At": "not a date", "billing_date": "2020-02-01"}"#,
    );
    assert_eq!(r.meta.vendor.as_deref(), Some("M"));
    assert!(
        r.chunks[0]
            .text
            .starts_with("Receipt: M, total 5, billed 2020-02-01\n"),
        "{}",
        r.chunks[0].text
    );
    // Unused aliases stay searchable.
    assert!(r.chunks[0].text.contains("PAYEE: P"));
    assert!(r.chunks[0].text.contains("Due_Date: 2020-03-01"));
}

#[test]
fn epoch_date_and_date_only_receipt() {
    let r = one(r#"{"paid_at": 1700000000}"#);
    assert_eq!(r.chunks[0].text, "Receipt: paid 2023-11-14");
    assert_eq!(r.chunks[0].dated_at, 1_699_920_000);
    assert_eq!(r.meta.vendor, None);
}

/// Regression: `"date": 20180303` was read as epoch seconds, 1970-08-22.
#[test]
fn an_eight_digit_number_is_a_printed_date_not_a_timestamp() {
    let r = one(r#"{"vendor": "A", "date": 20180303}"#);
    assert_eq!(r.chunks[0].text, "Receipt: A, paid 2018-03-03");
    assert_eq!(r.chunks[0].dated_at, 1_520_035_200);
}

/// Regression: a date that was there but unreadable was reported as missing.
#[test]
fn an_unreadable_date_is_quoted_never_called_missing() {
    let reason = |input: &str| parse(input)[0].clone().unwrap_err().reason;
    for (input, want) in [
        (r#"{"date": 20181399}"#, r#""20181399" in field "date""#),
        (r#"{"date": 31122}"#, r#""31122" in field "date""#),
        (
            r#"{"Date": {"$date": "2018"}}"#,
            r#""{\"$date\": \"2018\"}" in field "Date""#,
        ),
        (
            r#"{"due_date": [2018, 3]}"#,
            r#""[2018, 3]" in field "due_date""#,
        ),
        (
            r#"{"date": "someday", "due_date": "soon"}"#,
            r#""someday" in field "date""#,
        ),
    ] {
        assert_eq!(
            reason(input),
            format!("record 0: unreadable date {want}"),
            "{input}"
        );
    }
}

#[test]
fn rejections_carry_reasons_and_offsets() {
    let input = "[{\"vendor\": \"A\", \"date\": \"2020-01-01\"},\n {},\n {\"vendor\": \"B\"},\n \
                 {\"date\": \"31/02/2020\", \"due_date\": \"soon\"}, 7, {\"date\": null}]";
    let all = parse(input);
    assert!(all[0].is_ok());
    let rejected: Vec<Rejection> = all[1..].iter().map(|p| p.clone().unwrap_err()).collect();
    let starts: Vec<u64> = input
        .match_indices(['{', '7'])
        .map(|(i, _)| i as u64)
        .collect();
    assert_eq!(rejected[0].offset, starts[1]);
    assert_eq!(rejected[0].reason, "record 1: empty receipt");
    assert_eq!(rejected[1].offset, starts[2]);
    assert_eq!(
        rejected[1].reason,
        "record 2: no usable date (looked at date, paid_at, issued_at, billing_date, due_date)"
    );
    assert_eq!(
        rejected[2].reason,
        "record 3: unreadable date \"31/02/2020\" in field \"date\""
    );
    assert_eq!(rejected[3].reason, "record 4: expected an object");
    assert_eq!(rejected[3].offset, starts[4]);
    assert!(rejected[4].reason.starts_with("record 5: no usable date"));
}

#[test]
fn invalid_file_is_a_file_error() {
    let e = parse_receipts(b"[{\"vendor\": \"cut", &DAY_FIRST).unwrap_err();
    assert_eq!(e.reason, "record 0: the file ends inside it (truncated?)");
    // A record that is not JSON but ends where it should is rejected alone.
    let all = parse_receipts(b"[{\"vendor\": }]", &DAY_FIRST).unwrap();
    let reason = &all[0].as_ref().unwrap_err().reason;
    assert!(
        reason.starts_with("record 0: invalid json at byte 12: "),
        "{reason}"
    );
}

#[test]
#[cfg_attr(shared_data_absent, ignore = "../shared/data is absent")]
fn sroie_every_record_indexed_or_explained() {
    let bytes = std::fs::read(SROIE).expect(SROIE);
    let all = parse_receipts(&bytes, &DAY_FIRST).expect("sroie parses");
    let mut reasons = std::collections::BTreeMap::<String, usize>::new();
    let mut years = std::collections::BTreeMap::<i32, usize>::new();
    let mut indexed = 0;
    for p in &all {
        match p {
            Ok(r) => {
                indexed += 1;
                assert!(r.chunks[0].text.starts_with("Receipt: "));
                assert!(r.meta.vendor.is_some());
                let year = chrono::DateTime::from_timestamp(r.chunks[0].dated_at, 0)
                    .map(|d| chrono::Datelike::year(&d))
                    .unwrap_or_default();
                *years.entry(year).or_default() += 1;
            }
            Err(e) => *reasons.entry(e.reason.clone()).or_default() += 1,
        }
    }
    println!(
        "sroie: {} records, {indexed} indexed, {} rejected {reasons:?}; years {years:?}",
        all.len(),
        all.len() - indexed
    );
    assert_eq!(all.len(), 626);
    assert_eq!(indexed, 626);
}

proptest! {
    #[test]
    fn never_panics_on_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        let _ = parse_receipts(&bytes, &DAY_FIRST);
    }

    #[test]
    fn never_panics_on_receipt_like_json(
        vendor in "\\PC{0,20}", date in "\\PC{0,20}", total in any::<f64>(), jsonl in any::<bool>()
    ) {
        let obj = serde_json::json!({"vendor": vendor, "date": date, "total": total,
            "items": [{"name": vendor, "price": total}], "x": {"y": [date]}});
        let text = if jsonl { format!("{obj}\n{obj}") } else { format!("[{obj}]") };
        let _ = parse_receipts(text.as_bytes(), &ReceiptOptions { month_first: jsonl });
    }
}
