//! Chat exports as people download them: the ChatGPT and Claude.ai data
//! exports, as the .zip and as the unzipped folder, with the files that are
//! not chats beside `conversations.json`. The fixtures are written here in the
//! shapes those services produce.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use zip::write::SimpleFileOptions;

use crate::util::{TestEnv, hit_texts};

/// 2024-03-01T09:00:00Z.
const T0: i64 = 1_709_283_600;

fn chatgpt_node(
    id: &str,
    parent: Option<&str>,
    children: &[&str],
    role: &str,
    text: &str,
) -> Value {
    json!({
        "id": id, "parent": parent, "children": children,
        "message": {
            "id": format!("msg-{id}"), "author": {"role": role, "name": null, "metadata": {}},
            "create_time": T0 + 60, "update_time": null,
            "content": {"content_type": "text", "parts": [text]},
            "status": "finished_successfully", "end_turn": true, "weight": 1.0,
            "metadata": {"model_slug": "gpt-4o"}, "recipient": "all"
        }
    })
}

/// A ChatGPT `conversations.json` conversation: a tree in `mapping`, with an
/// edited question whose abandoned branch must not be indexed.
fn chatgpt_conversation(id: &str, title: &str, question: &str, answer: &str) -> Value {
    json!({
        "title": title, "create_time": T0 as f64 + 0.25, "update_time": T0 as f64 + 99.5,
        "mapping": {
            "root": {"id": "root", "message": null, "parent": null, "children": ["sys"]},
            "sys": chatgpt_node("sys", Some("root"), &["old", "q"], "system", ""),
            "old": chatgpt_node("old", Some("sys"), &[], "user", "abandoned zeppelin question"),
            "q": chatgpt_node("q", Some("sys"), &["a"], "user", question),
            "a": chatgpt_node("a", Some("q"), &[], "assistant", answer)
        },
        "moderation_results": [], "current_node": "a", "plugin_ids": null,
        "conversation_id": id, "conversation_template_id": null,
        "gizmo_id": null, "is_archived": false, "safe_urls": [], "default_model_slug": "gpt-4o",
        "id": id
    })
}

/// The files a ChatGPT export holds besides the conversations.
fn chatgpt_other_files() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        (
            "user.json",
            br#"{"id": "user-x", "email": "me@example.com", "chatgpt_plus_user": true}"#.to_vec(),
        ),
        (
            "message_feedback.json",
            br#"[{"id": "f1", "conversation_id": "c1", "rating": "thumbsUp"}]"#.to_vec(),
        ),
        (
            "shared_conversations.json",
            br#"[{"id": "s1", "conversation_id": "c1", "title": "Shared"}]"#.to_vec(),
        ),
        ("model_comparisons.json", b"[]".to_vec()),
        (
            "chat.html",
            b"<html><body>conversations</body></html>".to_vec(),
        ),
        ("file-Abc123-photo.png", b"\x89PNG\r\n\x1a\n".to_vec()),
        (
            "user-x/file-Def456-data.json",
            br#"{"uploaded": "by the user"}"#.to_vec(),
        ),
    ]
}

fn chatgpt_export() -> Vec<(&'static str, Vec<u8>)> {
    let conversations = json!([
        chatgpt_conversation(
            "c1",
            "Pastries",
            "Where is the best pastel de nata?",
            "Manteigaria, near Chiado."
        ),
        chatgpt_conversation(
            "c2",
            "Bikes",
            "How do I true a bicycle wheel?",
            "Use a spoke key, a quarter turn at a time."
        ),
    ]);
    let mut files = vec![("conversations.json", conversations.to_string().into_bytes())];
    files.extend(chatgpt_other_files());
    files
}

/// A Claude.ai export: `conversations.json` with `chat_messages`, plus
/// `users.json` and `projects.json`.
fn claude_export() -> Vec<(&'static str, Vec<u8>)> {
    let message = |uuid: &str, sender: &str, blocks: Value, at: &str| {
        json!({
            "uuid": uuid, "text": "", "content": blocks, "sender": sender,
            "created_at": at, "updated_at": at, "attachments": [], "files": []
        })
    };
    let text = |t: &str| json!({"type": "text", "text": t, "start_timestamp": null, "stop_timestamp": null, "citations": []});
    let conversations = json!([{
        "uuid": "3f9a-claude-1", "name": "Sourdough starter",
        "summary": "", "created_at": "2024-05-02T08:00:00.000000Z", "updated_at": "2024-05-02T08:05:00.000000Z",
        "account": {"uuid": "acct-1"},
        "chat_messages": [
            message("m1", "human", json!([text("My sourdough starter smells of acetone, why?")]), "2024-05-02T08:00:10.123456Z"),
            message("m2", "assistant", json!([
                {"type": "thinking", "thinking": "internal musings about quokkas", "summaries": []},
                text("It is hungry: feed it twice a day at a 1:5:5 ratio."),
                {"type": "tool_use", "name": "web_search", "input": {"query": "quokka"}},
                {"type": "tool_result", "name": "web_search", "content": [{"type": "text", "text": "quokka facts"}]}
            ]), "2024-05-02T08:00:30+00:00"),
        ]
    }, {
        "uuid": "3f9a-claude-2", "name": "", "created_at": "2024-05-03T10:00:00Z", "updated_at": "2024-05-03T10:00:00Z",
        "chat_messages": [{
            "uuid": "m3", "sender": "human", "created_at": "2024-05-03T10:00:00Z",
            "text": "Older exports only have flat text about the kombucha scoby.",
            "attachments": [{"file_name": "scoby-notes.txt", "file_size": 10, "file_type": "txt", "extracted_content": "x"}],
            "files": []
        }]
    }]);
    vec![
        ("conversations.json", conversations.to_string().into_bytes()),
        (
            "users.json",
            br#"[{"uuid": "acct-1", "full_name": "Me", "email_address": "me@example.com"}]"#
                .to_vec(),
        ),
        (
            "projects.json",
            br#"[{"uuid": "p1", "name": "Baking", "docs": [{"content": "not a chat"}]}]"#.to_vec(),
        ),
    ]
}

fn write_folder(env: &TestEnv, folder: &str, files: &[(&str, Vec<u8>)]) -> PathBuf {
    for (name, bytes) in files {
        env.write(&format!("{folder}/{name}"), bytes);
    }
    env.path(folder)
}

/// A zip as the services write it: every member deflated.
fn write_zip(env: &TestEnv, name: &str, files: &[(&str, Vec<u8>)]) -> PathBuf {
    let path = env.path(name);
    let mut zip = zip::ZipWriter::new(std::fs::File::create(&path).unwrap());
    let options = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    for (member, bytes) in files {
        zip.start_file(*member, options).unwrap();
        zip.write_all(bytes).unwrap();
    }
    zip.finish().unwrap();
    path
}

fn index(env: &TestEnv, input: &Path, code: i32) -> Value {
    let args = ["index-conversations".as_ref(), input.as_os_str()];
    env.json(args, code)
}

fn counts(v: &Value) -> [u64; 4] {
    ["read", "indexed", "unchanged", "rejected"].map(|k| v[k].as_u64().unwrap())
}

fn stored_ids(env: &TestEnv) -> Vec<String> {
    let db = env.sqlite();
    let mut q = db
        .prepare(
            "SELECT source_id FROM memory_sources WHERE source_type = 'conversation' ORDER BY 1",
        )
        .unwrap();
    q.query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

/// The text of every hit (ripgrep's convention: exit 1 when there is none).
fn search_text(env: &TestEnv, query: &str) -> Vec<String> {
    let out = env
        .cmd(["search", "--no-log", "--json", query])
        .output()
        .unwrap();
    assert!(matches!(out.status.code(), Some(0 | 1)), "{out:?}");
    hit_texts(&out.stdout)
}

/// An export indexes the same as its unzipped folder and as its zip, in a
/// fresh database and again as unchanged; returns the folder's database.
fn indexes_as_folder_and_zip(files: &[(&str, Vec<u8>)], ids: &[&str]) -> TestEnv {
    let env = TestEnv::new();
    let folder = write_folder(&env, "export", files);
    let v = index(&env, &folder, 0);
    assert_eq!(
        counts(&v),
        [2, 2, 0, 0],
        "only the conversations are read: {v}"
    );
    assert_eq!(stored_ids(&env), ids);
    let zip = write_zip(&env, "export.zip", files);
    assert_eq!(counts(&index(&env, &zip, 0)), [2, 0, 2, 0]);

    let fresh = TestEnv::new();
    let zip = write_zip(&fresh, "export.zip", files);
    assert_eq!(counts(&index(&fresh, &zip, 0)), [2, 2, 0, 0]);
    assert_eq!(stored_ids(&fresh), ids);
    env
}

#[test]
fn a_chatgpt_export_indexes_as_a_folder_and_as_its_zip() {
    let env = indexes_as_folder_and_zip(&chatgpt_export(), &["c1", "c2"]);
    assert_eq!(
        search_text(&env, "nata"),
        ["user: Where is the best pastel de nata?\nassistant: Manteigaria, near Chiado."]
    );
    assert!(
        search_text(&env, "zeppelin").is_empty(),
        "the abandoned branch stays out"
    );
    assert!(
        search_text(&env, "uploaded").is_empty(),
        "an upload is not a chat"
    );
}

#[test]
fn a_claude_export_indexes_as_a_folder_and_as_its_zip() {
    let env = indexes_as_folder_and_zip(&claude_export(), &["3f9a-claude-1", "3f9a-claude-2"]);
    assert_eq!(
        search_text(&env, "acetone"),
        [
            "human: My sourdough starter smells of acetone, why?\nassistant: It is hungry: feed it twice a day at a 1:5:5 ratio."
        ]
    );
    assert!(
        search_text(&env, "quokka").is_empty(),
        "thinking and tools stay out"
    );
    assert_eq!(
        search_text(&env, "scoby"),
        [
            "human: Older exports only have flat text about the kombucha scoby.\n[attachment: scoby-notes.txt]"
        ]
    );
    let hit = &env.json(["search", "--no-log", "acetone"], 0)[0];
    assert_eq!(hit["title"], "Sourdough starter");
    assert_eq!(
        hit["dated_at"].as_str().unwrap().get(..10),
        Some("2024-05-02")
    );
}

#[test]
fn a_split_chatgpt_export_reads_every_part() {
    let env = TestEnv::new();
    let part = |id: &str, word: &str| {
        json!([chatgpt_conversation(id, word, word, word)])
            .to_string()
            .into_bytes()
    };
    let mut files = vec![
        ("conversations-000.json", part("p0", "aardvark")),
        ("conversations-001.json", part("p1", "bandicoot")),
        (
            "conversations.json.index",
            b"conversations-000.json\nconversations-001.json\n".to_vec(),
        ),
    ];
    files.extend(chatgpt_other_files());
    let folder = write_folder(&env, "split", &files);
    assert_eq!(counts(&index(&env, &folder, 0)), [2, 2, 0, 0]);
    let zip = write_zip(&env, "split.zip", &files);
    assert_eq!(counts(&index(&env, &zip, 0)), [2, 0, 2, 0]);
}

#[test]
fn a_zip_is_known_by_its_bytes_and_one_without_chats_is_a_clear_error() {
    let env = TestEnv::new();
    // Saved under another name by a browser: still a zip.
    let zip = write_zip(&env, "export.download", &claude_export());
    assert_eq!(counts(&index(&env, &zip, 0)), [2, 2, 0, 0]);

    let other = write_zip(
        &env,
        "photos.zip",
        &[
            ("a.jpg", b"\xff\xd8".to_vec()),
            ("notes/x.json", b"{}".to_vec()),
        ],
    );
    let out = env
        .cmd(["index-conversations"])
        .arg(&other)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("photos.zip: this zip archive holds no conversations.json (it holds: a.jpg, notes/x.json)"),
        "{stderr}"
    );

    // In a folder, a zip that is not an export is left alone; an export zip is read.
    let dir = env.path("downloads");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::rename(&other, dir.join("photos.zip")).unwrap();
    write_zip(&env, "downloads/chatgpt.zip", &chatgpt_export());
    assert_eq!(counts(&index(&env, &dir, 0)), [2, 2, 0, 0]);
}

#[test]
fn a_folder_whose_conversations_json_is_ours_is_read_whole() {
    let env = TestEnv::new();
    let ours = |id: &str, text: &str| {
        json!({"id": id, "date": "2024-02-01", "messages": [{"role": "user", "content": text}]})
            .to_string()
    };
    env.write("mine/conversations.json", ours("o1", "llama shearing"));
    env.write("mine/more.jsonl", ours("o2", "alpaca wool"));
    assert_eq!(counts(&index(&env, &env.path("mine"), 0)), [2, 2, 0, 0]);
    assert_eq!(stored_ids(&env), ["o1", "o2"]);
}

#[test]
fn a_bad_conversation_in_a_zip_is_named_by_member_record_and_byte() {
    let env = TestEnv::new();
    let good = chatgpt_conversation("ok-1", "Fine", "Knitting a scarf", "Garter stitch");
    let text = format!(
        "[{good},\n{{\"title\": \"broken\" \"mapping\": {{}}}},\n{{\"mapping\": 3}}, {}]",
        chatgpt_conversation("ok-2", "Also fine", "Tuning a ukulele", "GCEA")
    );
    let zip = write_zip(
        &env,
        "export.zip",
        &[("conversations.json", text.clone().into_bytes())],
    );
    let v = index(&env, &zip, 3);
    assert_eq!(counts(&v), [4, 2, 0, 2]);
    let errors = v["errors"].as_array().unwrap();
    let member = format!("{}/conversations.json", zip.display());
    assert_eq!(errors[0]["file"], member.as_str());
    assert_eq!(
        errors[0]["offset"],
        text.find("{\"title\": \"broken\"").unwrap()
    );
    let reason = errors[0]["reason"].as_str().unwrap();
    let colon = text.find("\"mapping\": {}").unwrap();
    assert!(
        reason.starts_with(&format!("record 1: invalid json at byte {colon}: ")),
        "{reason}"
    );
    assert_eq!(
        errors[1]["reason"],
        "record 2: \"mapping\" is not an object"
    );
    assert_eq!(stored_ids(&env), ["ok-1", "ok-2"]);
}

#[test]
fn a_truncated_export_keeps_what_came_before_and_exits_2() {
    let env = TestEnv::new();
    let whole = json!([
        chatgpt_conversation("t1", "One", "first topic ocelot", "yes"),
        chatgpt_conversation("t2", "Two", "second topic pangolin", "yes"),
    ])
    .to_string();
    let cut = &whole[..whole.len() - 40];
    let file = env.write("conversations.json", cut);
    let out = env
        .cmd(["index-conversations", "--json"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(counts(&v), [1, 1, 0, 0]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let second = whole.find("{\"conversation_id\":\"t2\"").unwrap();
    assert!(
        stderr.contains(&format!(
            "record 1: the file ends inside it (truncated?) (byte {second})"
        )),
        "{stderr}"
    );
    assert_eq!(stored_ids(&env), ["t1"]);
}
