//! Conversation ingester tests: both formats, chunking, dates, damaged trees,
//! and the real (foreign-format) chat samples.

use super::chunking::{self, split_at_words};
use super::*;
use proptest::prelude::*;
use serde_json::json;

const CHAT_SAMPLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/data/chat");
const DAY: i64 = 86_400;
/// 2024-01-01T00:00:00Z.
const JAN1: i64 = 1_704_067_200;

fn parse(input: &str, max: usize) -> Vec<Parsed> {
    parse_conversations(input.as_bytes(), max).expect("file parses")
}

fn ok(p: &Parsed) -> &Record {
    p.as_ref().expect("indexed")
}

fn err(p: &Parsed) -> &str {
    &p.as_ref().expect_err("rejected").reason
}

#[test]
fn ours_array_with_content_shapes() {
    let input = json!([{
        "id": 7, "title": "Trip", "date": "2024-01-01",
        "messages": [
            {"role": "user", "content": "Where to?"},
            {"id": "m2", "speaker": "Ann", "role": "user", "text": "Lisbon", "at": "2024-01-02 10:00"},
            {"role": "assistant", "content": ["Nice", {"type": "text", "text": "choice"}, {"type": "image_url"}]},
            {"role": "user", "content": "   "},
            "not a message"
        ]
    }])
    .to_string();
    let all = parse(&input, DEFAULT_MAX_CHUNK_CHARS);
    let r = ok(&all[0]);
    assert_eq!(r.source_id, "7");
    assert_eq!(r.source_type, SourceType::Conversation);
    assert_eq!(r.meta.title.as_deref(), Some("Trip"));
    assert_eq!(r.chunks.len(), 1);
    assert_eq!(
        r.chunks[0].text,
        "user: Where to?\nAnn: Lisbon\nassistant: Nice\nchoice"
    );
    assert_eq!(r.chunks[0].message_ids, ["0", "m2", "2"]);
    // The first message has no time; the first timed one dates the chunk.
    assert_eq!(r.chunks[0].dated_at, JAN1 + DAY + 10 * 3600);
    assert_eq!(r.content_hash, content_hash(&r.meta, &r.chunks));
    assert_eq!(r.warning, None);
}

#[test]
fn ours_json_lines_and_rejections() {
    let input = "{\"id\": \"a\", \"date\": 1704067200, \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}\n\
                 {\"title\": \"no id\", \"messages\": []}\n\
                 {\"id\": \"c\", \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}\n\
                 {\"id\": \"d\", \"date\": \"2024-01-01\", \"messages\": [{\"content\": \"\"}]}\n\
                 {\"id\": \"e\", \"date\": \"someday\", \"messages\": [{\"content\": \"x\", \"at\": 1704067200000}]}\n\
                 {\"id\": \"f\", \"messages\": {}}\n\
                 {\"conversations\": []}\n";
    let all = parse(input, DEFAULT_MAX_CHUNK_CHARS);
    assert_eq!(ok(&all[0]).chunks[0].dated_at, JAN1);
    assert_eq!(err(&all[1]), "record 1: missing id");
    assert_eq!(
        err(&all[2]),
        "record 2: no date (set \"date\" on the conversation or \"at\" on its messages)"
    );
    assert_eq!(err(&all[3]), "record 3: no messages");
    let e = ok(&all[4]);
    assert_eq!(e.chunks[0].text, "x");
    assert_eq!(e.chunks[0].dated_at, JAN1);
    assert_eq!(e.warning.as_deref(), Some("1 unreadable date(s) ignored"));
    assert_eq!(err(&all[5]), "record 5: \"messages\" is not a list");
    assert!(err(&all[6]).starts_with("record 6: not a conversation"));
    let offsets: Vec<u64> = all
        .iter()
        .map(|p| p.as_ref().err().map_or(0, |r| r.offset))
        .collect();
    let line_starts: Vec<u64> = std::iter::once(0)
        .chain(input.match_indices('\n').map(|(i, _)| i as u64 + 1))
        .collect();
    for i in [1, 2, 3, 5, 6] {
        assert_eq!(offsets[i], line_starts[i], "record {i}");
    }
}

#[test]
fn chunks_split_at_message_boundaries_with_their_ids_and_dates() {
    let msg = |i: i64, text: &str, at: Option<i64>| json!({"id": format!("m{i}"), "role": "u", "content": text, "at": at});
    let ten = "abcdefghij"; // "u: " + 10 = 13 chars a line
    let input = json!({"id": 1, "date": JAN1, "messages": [
        msg(0, ten, None), msg(1, ten, Some(JAN1 + 5)), msg(2, ten, None),
        msg(3, ten, None), msg(4, &"x".repeat(40), Some(JAN1 + 9)), msg(5, ten, None)
    ]})
    .to_string();
    // 13 + 1 + 13 = 27 fits in 30; a third line would not. The windows are
    // m0-m2, m2-m4, m4-m5; m2 alone (left over from the first) is dropped
    // because the second window's m2+m3 holds it, m4 alone is made twice.
    let r = ok(&parse(&input, 30)[0]).clone();
    let ids: Vec<Vec<String>> = r.chunks.iter().map(|c| c.message_ids.clone()).collect();
    assert_eq!(
        ids,
        [vec!["m0", "m1"], vec!["m2", "m3"], vec!["m4"], vec!["m5"]]
    );
    let dates: Vec<i64> = r.chunks.iter().map(|c| c.dated_at).collect();
    assert_eq!(dates, [JAN1 + 5, JAN1, JAN1 + 9, JAN1]);
    assert_eq!(r.chunks[0].text, "u: abcdefghij\nu: abcdefghij");
    // 43 chars is over the limit but under 4×: one whole chunk.
    assert_eq!(r.chunks[2].text.chars().count(), 43);
}

#[test]
fn windows_of_three_messages_overlap_by_one() {
    let messages: Vec<_> = (0..7)
        .map(|i| json!({"id": format!("m{i}"), "role": "u", "content": format!("line {i}")}))
        .collect();
    let input = json!({"id": 1, "date": JAN1, "messages": messages}).to_string();
    let r = ok(&parse(&input, DEFAULT_MAX_CHUNK_CHARS)[0]).clone();
    let ids: Vec<Vec<String>> = r.chunks.iter().map(|c| c.message_ids.clone()).collect();
    assert_eq!(
        ids,
        [
            vec!["m0", "m1", "m2"],
            vec!["m2", "m3", "m4"],
            vec!["m4", "m5", "m6"]
        ]
    );
    assert_eq!(r.chunks[1].text, "u: line 2\nu: line 3\nu: line 4");
    // An even count ends on a two-message window; one message is one chunk.
    let input = json!({"id": 1, "date": JAN1, "messages": messages[..4]}).to_string();
    let r = ok(&parse(&input, DEFAULT_MAX_CHUNK_CHARS)[0]).clone();
    assert_eq!(r.chunks[1].message_ids, ["m2", "m3"]);
    let input = json!({"id": 1, "date": JAN1, "messages": messages[..1]}).to_string();
    assert_eq!(
        ok(&parse(&input, DEFAULT_MAX_CHUNK_CHARS)[0]).chunks.len(),
        1
    );
}

#[test]
fn a_long_message_in_two_windows_is_one_chunk() {
    let long = "y".repeat(50);
    let input = json!({"id": 1, "date": JAN1, "messages": [
        {"id": "a", "content": "short a"}, {"id": "b", "content": "short b"},
        {"id": "c", "content": long}, {"id": "d", "content": "short d"},
    ]})
    .to_string();
    let r = ok(&parse(&input, 20)[0]).clone();
    let ids: Vec<Vec<String>> = r.chunks.iter().map(|c| c.message_ids.clone()).collect();
    assert_eq!(ids, [vec!["a", "b"], vec!["c"], vec!["d"]]);
}

#[test]
fn huge_messages_are_cut_at_words_and_keep_their_id() {
    let words = "word ".repeat(100);
    let input =
        json!({"id": 1, "date": JAN1, "messages": [{"id": "big", "role": "u", "content": words}]})
            .to_string();
    let r = ok(&parse(&input, 23)[0]).clone();
    assert!(r.chunks.len() > 1);
    for c in &r.chunks {
        assert!(c.text.chars().count() <= 23, "{:?}", c.text);
        assert_eq!(c.message_ids, ["big"]);
        assert!(!c.text.starts_with(' ') && !c.text.ends_with(' '));
    }
    assert_eq!(r.chunks[0].text, "u: word word word word");
    assert_eq!(split_at_words("ééééé ab", 2), ["éé", "éé", "é", "ab"]);
    assert_eq!(split_at_words("  ", 3), Vec::<String>::new());
}

fn node(
    id: &str,
    parent: Option<&str>,
    children: &[&str],
    role: &str,
    text: &str,
    t: i64,
) -> (String, serde_json::Value) {
    let message = (!role.is_empty()).then(|| {
        json!({"id": format!("msg-{id}"), "author": {"role": role}, "create_time": t as f64 + 0.5,
               "content": {"content_type": "text", "parts": [text]}})
    });
    (
        id.to_string(),
        json!({"id": id, "message": message, "parent": parent, "children": children}),
    )
}

fn chatgpt(nodes: Vec<(String, serde_json::Value)>, current: Option<&str>) -> String {
    let mapping: serde_json::Map<_, _> = nodes.into_iter().collect();
    json!([{"title": "Branchy", "create_time": JAN1 as f64, "update_time": JAN1 as f64,
            "mapping": mapping, "current_node": current, "conversation_id": "conv-1"}])
    .to_string()
}

fn branchy() -> Vec<(String, serde_json::Value)> {
    vec![
        node("root", None, &["sys"], "", "", 0),
        node("sys", Some("root"), &["q"], "system", "", JAN1),
        node(
            "q",
            Some("sys"),
            &["a1", "a2"],
            "user",
            "question",
            JAN1 + 1,
        ),
        node(
            "a1",
            Some("q"),
            &["f1"],
            "assistant",
            "first answer",
            JAN1 + 2,
        ),
        node("f1", Some("a1"), &[], "user", "thanks", JAN1 + 3),
        node("a2", Some("q"), &[], "assistant", "second answer", JAN1 + 4),
    ]
}

#[test]
fn chatgpt_current_node_picks_the_branch() {
    let r = ok(&parse(&chatgpt(branchy(), Some("f1")), DEFAULT_MAX_CHUNK_CHARS)[0]).clone();
    assert_eq!(r.source_id, "conv-1");
    assert_eq!(r.meta.title.as_deref(), Some("Branchy"));
    assert_eq!(
        r.chunks[0].text,
        "user: question\nassistant: first answer\nuser: thanks"
    );
    assert_eq!(r.chunks[0].message_ids, ["msg-q", "msg-a1", "msg-f1"]);
    assert_eq!(r.chunks[0].dated_at, JAN1 + 1);
    // Without current_node, the last child wins at each fork.
    let r = ok(&parse(&chatgpt(branchy(), None), DEFAULT_MAX_CHUNK_CHARS)[0]).clone();
    assert_eq!(r.chunks[0].text, "user: question\nassistant: second answer");
}

#[test]
fn chatgpt_damaged_trees_terminate() {
    // Parent cycle from current_node, and a children cycle with no root at all.
    let cyc = vec![
        node("a", Some("b"), &["b"], "user", "A", JAN1),
        node("b", Some("a"), &["a"], "assistant", "B", JAN1),
    ];
    let r = ok(&parse(&chatgpt(cyc.clone(), Some("a")), 100)[0]).clone();
    assert_eq!(r.chunks[0].text, "assistant: B\nuser: A");
    assert_eq!(
        err(&parse(&chatgpt(cyc, None), 100)[0]),
        "record 0: no messages"
    );
    // Dangling parent and child links, a self-loop, a missing current node.
    let broken = vec![
        node("x", Some("gone"), &["x", "nowhere", "y"], "user", "X", JAN1),
        node("y", Some("x"), &["x"], "tool", "Y", JAN1),
    ];
    let r = ok(&parse(&chatgpt(broken, Some("missing")), 100)[0]).clone();
    assert_eq!(r.chunks[0].text, "user: X\ntool: Y");
}

#[test]
fn chatgpt_parts_ids_and_dates() {
    let input = json!({"title": "Pics", "mapping": {
        "r": {"message": null, "parent": null, "children": ["m"]},
        "m": {"parent": "r", "children": [], "message": {"author": {"role": "user"},
            "content": {"content_type": "multimodal_text",
                        "parts": [{"content_type": "image_asset_pointer", "asset_pointer": "file"}, "look", 3]}}}
    }})
    .to_string();
    let all = parse(&input, 100);
    assert_eq!(
        err(&all[0]),
        "record 0: no date (set \"date\" on the conversation or \"at\" on its messages)"
    );
    let with_date = input.replacen("\"title\"", "\"create_time\": 1704067200.9, \"title\"", 1);
    let r = ok(&parse(&with_date, 100)[0]).clone();
    assert_eq!(r.chunks[0].text, "user: [image]\nlook");
    assert_eq!(r.chunks[0].message_ids, ["m"]);
    assert_eq!(r.chunks[0].dated_at, JAN1);
    assert!(r.source_id.starts_with("sha256:"));
}

#[test]
#[cfg_attr(shared_data_absent, ignore = "../shared/data is absent")]
fn real_chat_samples_do_not_panic() {
    let dir = std::fs::read_dir(CHAT_SAMPLES).expect(CHAT_SAMPLES);
    for entry in dir.flatten() {
        let path = entry.path();
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        match parse_conversations(&bytes, DEFAULT_MAX_CHUNK_CHARS) {
            Ok(all) => {
                for p in &all {
                    match p {
                        Ok(r) => println!("{}: indexed {}", path.display(), r.source_id),
                        Err(e) => {
                            println!("{}: {}", path.display(), e.reason);
                            assert!(e.reason.starts_with("record "));
                        }
                    }
                }
            }
            Err(e) => println!("{}: file error: {}", path.display(), e.reason),
        }
    }
}

proptest! {
    #[test]
    fn never_panics_on_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..200), max in 0usize..50) {
        let _ = parse_conversations(&bytes, max);
    }

    #[test]
    fn chunks_respect_limits(texts in proptest::collection::vec("\\PC{0,60}", 1..12), max in 0usize..40) {
        let messages: Vec<_> = texts.iter().map(|t| json!({"role": "u", "content": t, "at": JAN1})).collect();
        let input = json!({"id": "p", "messages": messages}).to_string();
        if let Ok(r) = &parse(&input, max)[0] {
            let limit = max.max(1);
            for c in &r.chunks {
                let n = c.text.chars().count();
                prop_assert!(n <= limit * 4 || c.message_ids.len() == 1);
                prop_assert!(n <= limit || c.message_ids.len() == 1);
                prop_assert!(!c.message_ids.is_empty());
                prop_assert!(c.message_ids.len() <= chunking::WINDOW_MESSAGES);
            }
            // Every message that has text is in some chunk.
            let kept: Vec<String> = texts
                .iter()
                .enumerate()
                .filter(|(_, t)| !t.trim().is_empty())
                .map(|(i, _)| i.to_string())
                .collect();
            for id in kept {
                prop_assert!(r.chunks.iter().any(|c| c.message_ids.contains(&id)), "{id}");
            }
        }
    }

    #[test]
    fn split_pieces_fit(text in "\\PC{0,200}", limit in 0usize..30) {
        for piece in split_at_words(&text, limit) {
            prop_assert!(!piece.is_empty());
            prop_assert!(piece.chars().count() <= limit.max(1));
        }
    }
}

#[test]
fn claude_records_without_uuid_or_blocks_still_index() {
    let input = json!([{
        "name": "Untitled", "created_at": "2024-01-01T00:00:00Z",
        "chat_messages": [
            {"sender": "human", "text": "flat text", "content": []},
            {"sender": "assistant", "text": "ignored flat", "content": [{"type": "text", "text": "from blocks"}]},
            {"sender": "assistant", "content": [{"type": "thinking", "thinking": "hidden"}]}
        ]
    }, {"uuid": "u2", "chat_messages": {}}])
    .to_string();
    let all = parse(&input, DEFAULT_MAX_CHUNK_CHARS);
    let r = ok(&all[0]);
    assert!(r.source_id.starts_with("sha256:"), "{}", r.source_id);
    assert_eq!(r.chunks[0].text, "human: flat text\nassistant: from blocks");
    assert_eq!(r.chunks[0].message_ids, ["0", "1"]);
    assert_eq!(r.chunks[0].dated_at, JAN1);
    assert_eq!(err(&all[1]), "record 1: \"chat_messages\" is not a list");
    // The same export read again gives the same id.
    assert_eq!(
        ok(&parse(&input, DEFAULT_MAX_CHUNK_CHARS)[0]).source_id,
        r.source_id
    );
}
