//! Splitting JSON inputs: offsets and indexes of every container, per-record
//! rejections that let the rest go on, file errors that keep what came
//! before, and a reader that hands out one byte at a time.

use std::io::{BufReader, Read};

use super::*;

/// (index, offset) of each record, or its rejection; then the file error, if any.
type Split = (Vec<Result<(usize, u64), String>>, Option<FileError>);

fn split_from(input: impl std::io::BufRead) -> Split {
    let mut records = JsonRecords::new(input);
    let mut out = Vec::new();
    loop {
        match records.next_record() {
            Ok(Some(next)) => out.push(
                next.and_then(|raw| raw.element().map(|el| (el.index, el.offset)))
                    .map_err(|r| r.reason),
            ),
            Ok(None) => return (out, None),
            Err(e) => return (out, Some(e)),
        }
    }
}

fn split(input: &str) -> Split {
    split_from(input.as_bytes())
}

fn records(input: &str) -> Vec<Result<(usize, u64), String>> {
    let (out, error) = split(input);
    assert_eq!(error, None, "{input:?}");
    out
}

/// A reader that returns one byte per read, as a slow pipe may.
struct Trickle<'a>(&'a [u8]);

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let Some((&b, rest)) = self.0.split_first() else {
            return Ok(0);
        };
        if buf.is_empty() {
            return Ok(0);
        }
        buf[0] = b;
        self.0 = rest;
        Ok(1)
    }
}

#[test]
fn array_offsets_point_at_each_brace() {
    let input = "[ {\"a\":1},\n  {\"b\":\"]}\\\"\"}, 3, \"x\" ]";
    let got = records(input);
    assert_eq!(got[0], Ok((0, 2)));
    assert_eq!(got[1], Ok((1, input.rfind("{\"b").unwrap() as u64)));
    assert_eq!(got[2], Err("record 2: expected an object".into()));
    assert_eq!(got[3], Err("record 3: expected an object".into()));
    assert_eq!(got.len(), 4);
}

#[test]
fn single_object_bom_and_pretty_printing() {
    assert_eq!(records("\u{feff}  {\"a\": 1}\n"), vec![Ok((0, 5))]);
    assert_eq!(records("{\n  \"a\": [1,\n 2]\n}\n"), vec![Ok((0, 0))]);
    // Pretty-printed objects one after another are records too.
    assert_eq!(
        records("{\n\"a\": 1\n}\n{\n\"b\": 2\n}"),
        vec![Ok((0, 0)), Ok((1, 11))]
    );
    assert_eq!(records("  \n"), vec![]);
    assert_eq!(records("[]"), vec![]);
    assert_eq!(records("[{\"a\":1},]"), vec![Ok((0, 1))]);
}

#[test]
fn json_lines_skip_blanks_and_reject_bad_lines_alone() {
    let input = "{\"a\":1}\n\n{oops\n  {\"c\":3}\r\n[1]\n{\"d\" 4}\n{\"e\":5}";
    let got = records(input);
    assert_eq!(got.len(), 6);
    assert_eq!(got[0], Ok((0, 0)));
    let bad = got[1].clone().unwrap_err();
    assert!(
        bad.starts_with("record 1: invalid json at byte 10: key must be a string"),
        "{bad}"
    );
    assert_eq!(got[2], Ok((2, 15)));
    assert_eq!(got[3], Err("record 3: expected an object".into()));
    let bad = got[4].clone().unwrap_err();
    assert!(
        bad.starts_with("record 4: invalid json at byte 35: expected `:`"),
        "{bad}"
    );
    assert_eq!(got[5], Ok((5, input.rfind('{').unwrap() as u64)));
}

#[test]
fn a_bad_array_element_is_rejected_alone() {
    let input = "[{\"a\":1},\n {\"b\" 2}, {\"c\": 3}]";
    let got = records(input);
    assert_eq!(got[0], Ok((0, 1)));
    let bad = got[1].clone().unwrap_err();
    assert!(
        bad.starts_with("record 1: invalid json at byte 16: expected `:`"),
        "{bad}"
    );
    assert_eq!(got[2], Ok((2, input.rfind('{').unwrap() as u64)));
}

#[test]
fn broken_files_keep_the_records_before_the_break() {
    let (got, e) = split("[{\"a\":1}, {\"b\": [2}, {\"c\":3}]");
    assert_eq!(got, vec![Ok((0, 1))]);
    let e = e.unwrap();
    assert_eq!(e.offset, Some(18));
    assert!(
        e.reason.starts_with("record 1: unexpected '}'"),
        "{}",
        e.reason
    );

    let (got, e) = split("[{\"a\":1}, {\"b\": \"cut short");
    assert_eq!(got.len(), 1);
    let e = e.unwrap();
    assert_eq!(e.offset, Some(10));
    assert_eq!(e.reason, "record 1: the file ends inside it (truncated?)");

    let (got, e) = split("[{\"a\":1}");
    assert_eq!((got.len(), e.unwrap().offset), (1, Some(8)));
    let (_, e) = split("[{\"a\":1} {\"b\":2}]");
    assert_eq!(e.unwrap().reason, "expected ',' or ']' after record 0");
    let (_, e) = split("[{\"a\":1}] x");
    assert_eq!(e.unwrap().offset, Some(10));
    let (_, e) = split("[,{}]");
    assert!(e.is_some());
}

#[test]
fn not_json_at_all_is_a_file_error() {
    for (input, found) in [
        (&b"\"just a string\""[..], "found '\"'"),
        (b"hello", "found 'h'"),
        (b"\xff\xfe{", "found byte 0xff"),
        (b"\xef\xbb{}", "not UTF-8 JSON"),
    ] {
        let (got, e) = split_from(input);
        assert!(got.is_empty());
        let reason = e.expect("file error").reason;
        assert!(reason.contains(found), "{reason}");
    }
}

#[test]
fn oversize_records_are_rejected_and_skipped() {
    let big = "x".repeat(MAX_RECORD_BYTES);
    for input in [
        format!("[{{\"a\":\"{big}\"}}, {{\"b\":1}}]"),
        format!("{{\"a\":1}}\n{{\"a\":\"{big}\"}}\n{{\"b\":1}}\n"),
    ] {
        let got = records(&input);
        assert_eq!(got.len(), 3 - usize::from(input.starts_with('[')));
        let skipped = got.iter().filter(|r| r.is_err()).count();
        assert_eq!(skipped, 1);
        assert!(
            got.iter()
                .any(|r| r.as_ref().is_err_and(|e| e.ends_with("MiB; skipped")))
        );
        assert!(got.last().unwrap().is_ok());
    }
}

#[test]
fn one_byte_reads_split_the_same_way() {
    let inputs = [
        "\u{feff}[ {\"a\":\"x\\\\\"}, {\"b\": [1, {\"c\": \"}\"}]}, 7 ]",
        "{\"a\":1}\n{\"b\" 2}\n\n{\"c\":\"\\u00e9\"}\n",
        "{\n\"a\": 1\n}\n{\"b\": 2}",
    ];
    for input in inputs {
        let slow = split_from(BufReader::with_capacity(1, Trickle(input.as_bytes())));
        assert_eq!(slow, split(input), "{input:?}");
    }
}

#[test]
fn fields_keep_file_order() {
    let recs = parse_all(br#"{"z":1,"a":"x","m":[1]}"#, |el| {
        let keys: Vec<_> = el.fields().into_iter().map(|(k, _)| k).collect();
        assert_eq!(keys, ["z", "a", "m"]);
        Err(el.reject("checked"))
    })
    .unwrap();
    assert_eq!(recs.len(), 1);
}

mod properties {
    use proptest::prelude::*;
    use serde_json::Value;

    use super::super::JsonRecords;

    fn json_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            "[\\PC\"\\\\{}\\[\\],]{0,12}".prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 32, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
                prop::collection::btree_map("[a-z\"{]{0,4}", inner, 0..5)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    /// The values the splitter cut out of `text`, parsed back.
    fn values(text: &str) -> Vec<Value> {
        let mut records = JsonRecords::new(text.as_bytes());
        let mut out = Vec::new();
        while let Some(next) = records.next_record().expect("splits") {
            out.push(serde_json::from_slice(&next.expect("kept").bytes).expect("valid"));
        }
        out
    }

    proptest! {
        /// Whatever the values and spacing, an array or JSON Lines splits into
        /// exactly the values that were written.
        #[test]
        fn splits_into_the_values_written(
            items in prop::collection::vec(json_value(), 0..6),
            pretty in any::<bool>(),
        ) {
            let show = |v: &Value| if pretty { serde_json::to_string_pretty(v) } else { serde_json::to_string(v) }.unwrap();
            let array = format!("[{}]", items.iter().map(show).collect::<Vec<_>>().join(" ,\n "));
            prop_assert_eq!(values(&array), items.clone());
            let objects: Vec<Value> = items.into_iter().filter(Value::is_object).collect();
            let lines: Vec<String> = objects.iter().map(|v| serde_json::to_string(v).unwrap()).collect();
            prop_assert_eq!(values(&lines.join("\n")), objects);
        }
    }
}
