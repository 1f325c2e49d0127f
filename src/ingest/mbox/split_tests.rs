//! Splitter tests: offsets, quoting, line ends, oversize messages, resume
//! points, and a property test that no message is lost or merged.

use super::*;

fn split(input: &[u8]) -> Vec<RawMessage> {
    MboxSplitter::new(input).map(|m| m.unwrap()).collect()
}

#[test]
fn splits_and_reports_offsets() {
    let mbox = b"From a@x Thu Jan 15 10:00:00 2026\nSubject: one\n\nbody one\n\nFrom b@x Fri Jan 16 10:00:00 2026\nSubject: two\n\nbody two\n";
    let msgs = split(mbox);
    assert_eq!(msgs.len(), 2);
    assert_eq!(msgs[0].offset, 0);
    assert_eq!(msgs[0].bytes, b"Subject: one\n\nbody one\n");
    assert_eq!(msgs[1].offset, 58);
    assert_eq!(&mbox[58..63], b"From ");
    assert_eq!(
        msgs[1].envelope.as_deref(),
        Some("b@x Fri Jan 16 10:00:00 2026")
    );
    assert_eq!(msgs[1].bytes, b"Subject: two\n\nbody two\n");
}

#[test]
fn the_last_message_is_not_dropped() {
    let msgs = split(b"From a@x Thu Jan 15 10:00:00 2026\nSubject: only\n\nno newline at end");
    assert_eq!(msgs.len(), 1);
    assert_eq!(msgs[0].bytes, b"Subject: only\n\nno newline at end");
}

#[test]
fn mboxrd_quoting_is_undone() {
    let msgs = split(b"From a@x Thu Jan 15 10:00:00 2026\n\n>From here\n>>From there\n>not from\n");
    assert_eq!(msgs[0].bytes, b"\nFrom here\n>From there\n>not from\n");
}

#[test]
fn an_unquoted_body_from_line_does_not_split() {
    let msgs =
        split(b"From a@x Thu Jan 15 10:00:00 2026\nSubject: s\n\nline\nFrom the desk of Bob\n");
    assert_eq!(msgs.len(), 1);
}

#[test]
fn crlf_files_work() {
    let msgs = split(b"From a@x Thu Jan 15 10:00:00 2026\r\nSubject: a\r\n\r\nbody\r\n\r\nFrom b@x Thu Jan 15 10:00:00 2026\r\nSubject: b\r\n\r\nx\r\n");
    assert_eq!(msgs.len(), 2);
    assert_eq!(msgs[0].bytes, b"Subject: a\r\n\r\nbody\r\n");
}

#[test]
fn text_before_the_first_envelope_is_a_message() {
    let msgs = split(b"Subject: eml\n\nhello\n");
    assert_eq!(msgs.len(), 1);
    assert_eq!(msgs[0].envelope, None);
}

#[test]
fn resume_points_are_message_boundaries() {
    let one = b"From a@x Thu Jan 15 10:00:00 2026\nSubject: one\n\nbody\n\n";
    let two = b"From b@x Thu Jan 15 10:00:00 2026\nSubject: two\n\nbody\n";
    let both = [one.as_slice(), two].concat();
    let mut s = MboxSplitter::new(both.as_slice());
    assert_eq!(s.resume_point(), 0);
    s.next().unwrap().unwrap();
    assert_eq!(
        s.resume_point(),
        one.len() as u64,
        "the next message's start"
    );
    s.next().unwrap().unwrap();
    assert!(s.next().is_none());
    assert_eq!(s.resume_point(), both.len() as u64, "complete: the end");
    // Ending mid-line, the last message may be incomplete: resume at it.
    let cut = &both[..both.len() - 3];
    let mut s = MboxSplitter::new(cut);
    while s.next().is_some() {}
    assert_eq!(s.resume_point(), one.len() as u64);
    // Entered at a boundary, offsets stay those of the whole file.
    let mut s = MboxSplitter::starting_at(two.as_slice(), 1000);
    assert_eq!(s.next().unwrap().unwrap().offset, 1000);
    assert_eq!(s.resume_point(), 1000 + two.len() as u64);
}

#[test]
fn an_oversize_message_is_flagged_not_buffered() {
    let mut mbox = b"From a@x Thu Jan 15 10:00:00 2026\nSubject: big\n\n".to_vec();
    mbox.extend(std::iter::repeat_n(b'x', MAX_MESSAGE_BYTES + 10));
    mbox.extend_from_slice(b"\n\nFrom b@x Thu Jan 15 10:00:00 2026\nSubject: small\n\nok\n");
    let msgs = split(&mbox);
    assert_eq!(msgs.len(), 2);
    assert!(msgs[0].oversize);
    assert_eq!(
        msgs[0].bytes, b"Subject: big\n",
        "only the headers are kept"
    );
    assert!(!msgs[1].oversize);
}

/// mboxrd quoting as a writer does it: one more `>` before `>*From `.
fn quote(line: &str) -> String {
    let quotes = line.chars().take_while(|&c| c == '>').count();
    if line[quotes..].starts_with("From ") {
        format!(">{line}")
    } else {
        line.to_string()
    }
}

/// Body lines, weighted toward the ones that could confuse a splitter.
fn body_line() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    prop_oneof![
        Just(String::new()),
        Just("From a@x Thu Jan 15 10:00:00 2026".to_string()),
        "From [ -~]{0,30}",
        ">{1,3}From [ -~]{0,20}",
        "[>F]{0,3}[ -~]{0,40}",
        "\\PC{0,40}",
    ]
}

proptest::proptest! {
    /// Any list of correctly mboxrd-quoted messages splits back into
    /// exactly those messages, byte for byte, in order, LF or CRLF.
    #[test]
    fn the_splitter_never_loses_or_merges_messages(
        bodies in proptest::collection::vec(
            proptest::collection::vec(body_line(), 1..12), 1..8),
        crlf in proptest::bool::ANY,
    ) {
        let eol = if crlf { "\r\n" } else { "\n" };
        let mut mbox = String::new();
        let mut want = Vec::new();
        for lines in &bodies {
            let body: String = lines.iter().map(|l| format!("{l}{eol}")).collect();
            mbox.push_str(&format!("From sender@example.com Thu Jan 15 10:00:00 2026{eol}"));
            for l in lines {
                mbox.push_str(&quote(l));
                mbox.push_str(eol);
            }
            mbox.push_str(eol);
            want.push(body);
        }
        let got: Vec<String> = split(mbox.as_bytes())
            .into_iter()
            .map(|m| String::from_utf8(m.bytes).unwrap())
            .collect();
        proptest::prop_assert_eq!(got, want);
    }
}
