//! `index-mbox` as a user meets it: summaries, re-runs, odd inputs, errors,
//! private files, what ends up searchable; plus `status` and the db path rules.

use std::os::unix::fs::PermissionsExt;

use predicates::prelude::*;
use serde_json::Value;

use crate::util::{NOW, TestEnv, fixture, mbox_message, sample};

/// The messages, indexed, unchanged, duplicates, rejected and chunks of a
/// `--json` summary, in that order.
fn counts(v: &Value) -> [u64; 6] {
    [
        "read",
        "indexed",
        "unchanged",
        "duplicates",
        "rejected",
        "chunks",
    ]
    .map(|k| {
        v[k].as_u64()
            .unwrap_or_else(|| panic!("{k} missing in {v}"))
    })
}

fn keys(v: &Value) -> Vec<&str> {
    let mut k: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    k.sort_unstable();
    k
}

#[test]
fn the_sample_mbox_indexes_with_the_documented_summary() {
    let env = TestEnv::new();
    let v = env.json(["index-mbox", sample("mail.mbox").to_str().unwrap()], 0);
    assert_eq!(
        keys(&v),
        [
            "chunks",
            "dated_by_fallback",
            "duplicates",
            "errors",
            "indexed",
            "read",
            "rejected",
            "resumed_files",
            "unchanged",
            "unchanged_files"
        ]
    );
    let [read, indexed, unchanged, duplicates, rejected, chunks] = counts(&v);
    assert_eq!(read, 40);
    assert_eq!(read, indexed + unchanged + duplicates + rejected);
    assert_eq!((indexed, rejected), (40, 0));
    assert_eq!(v["errors"], serde_json::json!([]));
    assert_eq!(env.count("SELECT count(*) FROM memory_sources"), 40);
    assert_eq!(
        env.count("SELECT count(*) FROM memory_chunks"),
        chunks as i64
    );
    assert!(
        chunks > 40,
        "the long sample messages split into several chunks"
    );
}

#[test]
fn the_human_summary_names_every_count() {
    let env = TestEnv::new();
    env.cmd(["index-mbox", fixture("three.mbox").to_str().unwrap()])
        .assert()
        .success()
        .stdout(predicate::str::starts_with(
            "3 messages read: 3 indexed, 0 unchanged, 0 duplicates, 0 rejected; 3 chunks written",
        ))
        .stderr("");
}

#[test]
fn a_second_run_reads_nothing_and_a_copy_is_all_unchanged() {
    let env = TestEnv::new();
    let mbox = env.write("mail.mbox", std::fs::read(sample("mail.mbox")).unwrap());
    let first = env.json(["index-mbox", mbox.to_str().unwrap()], 0);
    let rows = |env: &TestEnv| {
        [
            "SELECT count(*) FROM memory_sources",
            "SELECT count(*) FROM memory_chunks",
            "SELECT count(*) FROM memory_fts_docsize",
        ]
        .map(|q| env.count(q))
    };
    let before = rows(&env);
    assert_eq!(counts(&first)[5] as i64, before[1]);
    let second = env.json(["index-mbox", mbox.to_str().unwrap()], 0);
    assert_eq!(counts(&second), [0, 0, 0, 0, 0, 0], "{second}");
    assert_eq!(second["unchanged_files"], 1);
    env.cmd(["index-mbox", mbox.to_str().unwrap()])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "1 file or folder unchanged since the last run, not read again\nnothing new",
        ));
    // The same messages under another name are read, and all unchanged.
    let copy = env.write("copy.mbox", std::fs::read(&mbox).unwrap());
    let third = env.json(["index-mbox", copy.to_str().unwrap()], 0);
    assert_eq!(counts(&third), [40, 0, 40, 0, 0, 0], "{third}");
    assert_eq!(rows(&env), before);
}

#[test]
fn the_same_message_in_two_files_is_indexed_once() {
    let env = TestEnv::new();
    let a = env.write(
        "a.mbox",
        mbox_message(
            "same@x.example",
            "Mon, 5 Jan 2026 10:00:00 +0000",
            "Shared",
            "This message was exported into two mailboxes by the client.",
        ),
    );
    let b = env.write(
        "b.mbox",
        mbox_message(
            "same@x.example",
            "Mon, 5 Jan 2026 10:00:00 +0000",
            "Shared",
            "This message was exported into two mailboxes by the client.",
        ) + &mbox_message(
            "other@x.example",
            "Tue, 6 Jan 2026 10:00:00 +0000",
            "Other",
            "Only in the second mailbox.",
        ),
    );
    let v = env.json(["index-mbox", a.to_str().unwrap(), b.to_str().unwrap()], 0);
    assert_eq!(counts(&v), [3, 2, 0, 1, 0, 2], "{v}");
    assert_eq!(env.count("SELECT count(*) FROM memory_sources"), 2);
}

/// Regression: a Message-ID reused for different text (bounce corpora do
/// this) was counted as a duplicate and the second message was lost.
#[test]
fn a_different_message_sharing_a_message_id_is_kept() {
    let env = TestEnv::new();
    let date = "Mon, 5 Jan 2026 10:00:00 +0000";
    let jane = mbox_message(
        "reused@x.example",
        date,
        "Bounce",
        "Delivery to jane failed: mailbox full.",
    );
    let kofi = mbox_message(
        "reused@x.example",
        date,
        "Bounce",
        "Delivery to kofi failed: no such user.",
    );
    let mbox = env.write("m.mbox", format!("{jane}{kofi}"));
    let out = env
        .cmd(["index-mbox", "--json"])
        .arg(&mbox)
        .assert()
        .success()
        .stderr("");
    let v: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(counts(&v)[..5], [2, 2, 0, 0, 0], "{v}");
    assert_eq!(env.fts_hits("jane"), 1);
    assert_eq!(env.fts_hits("kofi"), 1);
    let ids: Vec<String> = env
        .sqlite()
        .prepare("SELECT source_id FROM memory_sources ORDER BY id")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(ids[0], "reused@x.example");
    assert!(
        ids[1].starts_with("reused@x.example#") && ids[1].len() == "reused@x.example#".len() + 16,
        "{ids:?}"
    );
    // Read again (another file, another order): the same two, nothing new;
    // a third copy of one of them in the same run is a duplicate.
    let again = env.write("again.mbox", format!("{kofi}{jane}{kofi}"));
    let v = env.json(["index-mbox", again.to_str().unwrap()], 0);
    assert_eq!(counts(&v)[..5], [3, 0, 2, 1, 0], "{v}");
    assert_eq!(env.count("SELECT count(*) FROM memory_sources"), 2);
}

#[test]
fn a_message_id_is_compared_without_its_angle_brackets() {
    let env = TestEnv::new();
    let one = mbox_message(
        "id@x.example",
        "Mon, 5 Jan 2026 10:00:00 +0000",
        "S",
        "Body long enough to be its own chunk, surely.",
    );
    let two = one.replace("<id@x.example>", " id@x.example ");
    let v = env.json(
        [
            "index-mbox",
            env.write("m.mbox", one + &two).to_str().unwrap(),
        ],
        0,
    );
    assert_eq!(counts(&v)[..4], [2, 1, 0, 1], "{v}");
}

#[test]
fn dash_reads_standard_input() {
    let env = TestEnv::new();
    let out = env
        .cmd(["index-mbox", "-", "--json"])
        .write_stdin(std::fs::read(fixture("three.mbox")).unwrap())
        .assert()
        .success();
    let v: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(counts(&v), [3, 3, 0, 0, 0, 3]);
}

#[test]
fn a_directory_means_every_mbox_file_in_it() {
    let env = TestEnv::new();
    let msg = |i: u32| {
        mbox_message(
            &format!("dir-{i}@x.example"),
            "Mon, 5 Jan 2026 10:00:00 +0000",
            &format!("Message {i}"),
            "A body that is long enough to be a chunk of its own.",
        )
    };
    env.write("mail/inbox.mbox", msg(1) + &msg(2));
    env.write("mail/archive/2025", msg(3)); // no extension, but an envelope line
    env.write("mail/notes.txt", "just some notes, not mail\n");
    let v = env.json(["index-mbox", env.path("mail").to_str().unwrap()], 0);
    assert_eq!(counts(&v)[..2], [3, 3], "{v}");
}

#[test]
fn crlf_mbox_files_work() {
    let env = TestEnv::new();
    let crlf = std::fs::read_to_string(fixture("three.mbox"))
        .unwrap()
        .replace('\n', "\r\n");
    let v = env.json(
        ["index-mbox", env.write("crlf.mbox", crlf).to_str().unwrap()],
        0,
    );
    assert_eq!(counts(&v), [3, 3, 0, 0, 0, 3]);
    assert_eq!(
        env.count("SELECT count(*) FROM memory_chunks WHERE instr(text, char(13)) OR instr(subject, char(13))"),
        0,
        "no carriage returns in stored text"
    );
    assert_eq!(env.fts_hits("countersigned"), 1);
    // The same messages with LF endings are unchanged: line ends are not content.
    let v = env.json(["index-mbox", fixture("three.mbox").to_str().unwrap()], 0);
    assert_eq!(counts(&v)[..3], [3, 0, 3], "{v}");
}

#[test]
fn a_malformed_message_is_named_by_offset_and_the_rest_indexed() {
    let env = TestEnv::new();
    let good1 = mbox_message(
        "g1@x.example",
        "Mon, 5 Jan 2026 10:00:00 +0000",
        "First",
        "The first message is perfectly fine and readable.",
    );
    // Headers only: nothing to remember, so it is rejected, not silently dropped.
    let bad = "From x@x.example Mon Jan  5 11:00:00 2026\nFrom: x@x.example\nDate: Mon, 5 Jan 2026 11:00:00 +0000\n\n\n";
    let good2 = mbox_message(
        "g2@x.example",
        "Mon, 5 Jan 2026 12:00:00 +0000",
        "Third",
        "The third message is fine too and comes after the bad one.",
    );
    let offset = good1.len();
    let path = env.write("m.mbox", format!("{good1}{bad}{good2}"));
    let file = path.to_str().unwrap();
    let out = env.cmd(["index-mbox", file, "--json"]).assert().code(3);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(
        stderr.contains(&format!("{file}:{offset}: no text to index")),
        "stderr: {stderr}"
    );
    let v: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(counts(&v), [3, 2, 0, 0, 1, 2]);
    assert_eq!(keys(&v["errors"][0]), ["file", "offset", "reason"]);
    assert_eq!(v["errors"][0]["file"], file);
    assert_eq!(v["errors"][0]["offset"], offset as u64);
    assert_eq!(env.count("SELECT count(*) FROM memory_sources"), 2);
}

#[test]
fn a_missing_file_exits_2_naming_it_and_loses_nothing() {
    let env = TestEnv::new();
    let missing = env.path("no-such.mbox");
    env.cmd([
        "index-mbox",
        fixture("three.mbox").to_str().unwrap(),
        missing.to_str().unwrap(),
    ])
    .assert()
    .code(2)
    .stderr(predicate::str::contains(missing.to_str().unwrap()));
    assert_eq!(env.count("SELECT count(*) FROM memory_sources"), 3);
}

#[test]
fn the_database_folder_and_files_are_private() {
    let env = TestEnv::new();
    // umask 000: any file the program creates without an explicit mode
    // would be world-readable, so this shows the modes are ours.
    let mut child = std::process::Command::new("sh")
        .arg("-c")
        .arg("umask 000; exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_alfred-mem"))
        .args(["--db", env.db().to_str().unwrap(), "index-mbox", "-"])
        .env("ALFRED_MEM_NOW", NOW)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // While it waits on stdin the store is open and migrated: -wal and -shm exist.
    let side = |suffix: &str| {
        let mut p = env.db().as_os_str().to_owned();
        p.push(suffix);
        std::path::PathBuf::from(p)
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !(side("-wal").exists() && side("-shm").exists()) {
        assert!(
            std::time::Instant::now() < deadline,
            "no -wal/-shm appeared"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(env.db().parent().unwrap()), 0o700, "data folder");
    assert_eq!(mode(env.db()), 0o600, "database file");
    assert_eq!(mode(&side("-wal")), 0o600, "-wal");
    assert_eq!(mode(&side("-shm")), 0o600, "-shm");
    use std::io::Write;
    let mut stdin = child.stdin.take().unwrap();
    stdin
        .write_all(&std::fs::read(fixture("three.mbox")).unwrap())
        .unwrap();
    drop(stdin);
    assert!(child.wait().unwrap().success());
    assert_eq!(mode(env.db()), 0o600, "database file after the write");
}

#[test]
fn html_mail_indexes_its_text_but_not_style_or_script() {
    let env = TestEnv::new();
    let msg = "From clinic@dental.example Tue Nov 25 02:00:00 2025\n\
Message-ID: <html-only@dental.example>\n\
Date: Tue, 25 Nov 2025 10:00:00 +0800\n\
From: Dental Clinic <clinic@dental.example>\n\
Subject: Appointment reminder\n\
MIME-Version: 1.0\n\
Content-Type: text/html; charset=utf-8\n\
\n\
<html><head><style>.quorbanner { color: #ff0 }</style>\n\
<script>zindletrack('open');</script></head>\n\
<body><p>Dear Ren&eacute;e, your scaling appointment is on 2 December at 10:00. Please don&#8217;t be late.</p></body></html>\n";
    env.json(
        ["index-mbox", env.write("html.mbox", msg).to_str().unwrap()],
        0,
    );
    assert_eq!(env.fts_hits("scaling"), 1);
    assert_eq!(
        env.fts_hits("renee"),
        1,
        "entities decoded, diacritics folded"
    );
    assert_eq!(env.fts_hits("quorbanner"), 0, "style text is not indexed");
    assert_eq!(env.fts_hits("zindletrack"), 0, "script text is not indexed");
    assert_eq!(
        env.count("SELECT count(*) FROM memory_chunks WHERE text LIKE '%<p>%'"),
        0
    );
}

/// One HTML-only message from a shop's newsletter, as an mbox.
fn html_mail(message_id: &str, html: &str) -> String {
    format!(
        "From news@shop.example Tue Nov 25 02:00:00 2025\n\
Message-ID: <{message_id}>\n\
Date: Tue, 25 Nov 2025 10:00:00 +0800\n\
From: Shop <news@shop.example>\n\
Subject: Weekly picks\n\
MIME-Version: 1.0\n\
Content-Type: text/html; charset=utf-8\n\
\n\
{html}\n"
    )
}

/// A newsletter laid out in tables, as much real HTML mail is: every cell's
/// words are found, and nothing of the layout is stored. html2text drew the
/// table rules as lines of box drawing as wide as the layout (up to 100,000
/// characters), which filled hundreds of chunks per message.
#[test]
fn html_tables_index_every_cell_and_no_rules() {
    let env = TestEnv::new();
    let rows: String = (1..=12)
        .map(|i| format!("<tr><td>Item {i} quokkaware</td><td>${i}.00</td></tr>"))
        .collect();
    let long = "Our editors picked the best tools of the week for you. ".repeat(40);
    let msg = html_mail(
        "table-news@shop.example",
        &format!(
            "<html><body><table width=\"100%\"><tr><td><table><tr><td>{long}</td>\
             <td>Invoice INV-4471</td></tr>{rows}</table></td>\
             <td>Sidebar about the weekend regatta</td></tr></table></body></html>"
        ),
    );
    env.json(
        ["index-mbox", env.write("news.mbox", msg).to_str().unwrap()],
        0,
    );
    assert_eq!(env.fts_hits("4471"), 1, "a short cell is kept");
    assert_eq!(env.fts_hits("regatta"), 1, "the outer table's cell is kept");
    for i in 1..=12 {
        let price = format!("SELECT count(*) FROM memory_chunks WHERE instr(text, '${i}.00') > 0");
        assert_eq!(env.count(&price), 1, "the price of item {i}");
    }
    let box_chars =
        env.count("SELECT count(*) FROM memory_chunks WHERE text GLOB '*[\u{2500}-\u{257f}]*'");
    assert_eq!(box_chars, 0, "no chunk holds table rules");
    // About 2,600 characters of words, cells and separators; with the rules
    // and the padding it was over 100,000.
    let stored = env.count("SELECT sum(length(text)) FROM memory_chunks");
    assert!(stored < 4_000, "{stored} characters stored");
}

/// A newsletter's sidebar of short labelled items, one table cell: each item
/// is a paragraph below the chunker's noise floor, and each is found. Laid
/// out as a grid they were kept by the padding of the column beside them;
/// as rows of text they are kept by joining them to their neighbours.
#[test]
fn short_blocks_of_a_layout_table_are_found() {
    let env = TestEnv::new();
    let items: String = [
        ("Utilities", "ESftp 4.1"),
        ("Home", "CursorXP 1.2"),
        ("Audio", "Acoustica 1.13"),
    ]
    .iter()
    .map(|(label, name)| format!("<font size=-2>In {label}:</font><br><b>{name}</b><p>"))
    .collect();
    let article = "Through daily use I have found that tabbed windows beat the rest. ".repeat(3);
    let msg = html_mail(
        "dispatch@downloads.example",
        &format!(
            "<html><body><table><tr><td>{items}</td><td><p>{article}</p></td></tr></table>\
             <p>Short footer</p></body></html>"
        ),
    );
    env.json(
        ["index-mbox", env.write("news.mbox", msg).to_str().unwrap()],
        0,
    );
    for word in ["esftp", "cursorxp", "acoustica", "tabbed"] {
        assert_eq!(env.fts_hits(word), 1, "{word}");
    }
}

/// An ad in an `<iframe>` leaves no markup behind, and an `<iframe` written
/// inside a comment does not swallow the text after it.
#[test]
fn html_iframes_leave_no_markup_and_take_no_text() {
    let env = TestEnv::new();
    let msg = html_mail(
        "iframe-news@shop.example",
        "<html><body><p>Our weekly picks, chosen by the editors for you.</p>\
         <!-- <iframe src=\"http://old.example/\"> -->\
         <p>The meeting about the zwiebelfest stand moved to three o'clock.</p>\
         <iframe src=\"http://ads.example/ifc\"><script src=\"http://ads.example/js\"></script>\
         </iframe><p>See you at the market on Saturday morning, rain or shine.</p></body></html>",
    );
    env.json(
        ["index-mbox", env.write("news.mbox", msg).to_str().unwrap()],
        0,
    );
    assert_eq!(
        env.fts_hits("zwiebelfest"),
        1,
        "text after the comment is kept"
    );
    assert_eq!(env.fts_hits("saturday"), 1, "text after the iframe is kept");
    assert_eq!(
        env.count("SELECT count(*) FROM memory_chunks WHERE instr(text, '<') > 0"),
        0,
        "no markup stored"
    );
}

#[test]
fn quoted_reply_text_is_stripped() {
    let env = TestEnv::new();
    let body = "Thursday works for me, see you at the office.\n\n\
On Mon, 12 Jan 2026 at 09:14, Jane Tan <jane@acme.example> wrote:\n\
> Could we meet about the xylophage proposal on Thursday?\n\
> Jane\n";
    let msg = mbox_message(
        "reply@home.example",
        "Mon, 12 Jan 2026 12:00:00 +0800",
        "Re: Meeting",
        body,
    );
    env.json(
        ["index-mbox", env.write("reply.mbox", msg).to_str().unwrap()],
        0,
    );
    assert_eq!(env.fts_hits("thursday"), 1);
    assert_eq!(env.fts_hits("xylophage"), 0, "quoted lines are gone");
    assert_eq!(env.fts_hits("wrote"), 0, "the attribution line is gone");
}

#[test]
fn status_json_has_the_documented_fields() {
    let env = TestEnv::new();
    env.json(["index-mbox", fixture("three.mbox").to_str().unwrap()], 0);
    let v = env.json(["status"], 0);
    assert_eq!(
        keys(&v),
        [
            "chunks",
            "dated_by_fallback",
            "db_bytes",
            "db_path",
            "facts",
            "last_dream_at",
            "last_index_at",
            "newest",
            "oldest",
            "recall_events"
        ]
    );
    assert_eq!(v["db_path"], env.db().to_str().unwrap());
    assert!(v["db_bytes"].as_u64().unwrap() > 0);
    assert_eq!(
        v["chunks"],
        serde_json::json!([{"source_type": "email", "current": 3, "superseded": 0}])
    );
    assert_eq!(v["facts"], serde_json::json!({"active": 0, "retracted": 0}));
    assert_eq!(v["oldest"], "2026-01-07T02:00:00Z");
    assert_eq!(v["newest"], "2026-02-01T18:30:00Z");
    assert_eq!(v["recall_events"], 0);
    assert_eq!(v["dated_by_fallback"], 0);
    assert_eq!(
        v["last_index_at"], "2026-12-02T12:00:00Z",
        "import time is ALFRED_MEM_NOW"
    );
    assert_eq!(v["last_dream_at"], Value::Null);
}

#[test]
fn help_states_the_database_resolution_order() {
    let env = TestEnv::new();
    let out = env.bare_cmd().arg("--help").assert().success();
    let help = String::from_utf8_lossy(&out.get_output().stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        help.contains("--db, then $ALFRED_MEM_DB, then <per-user data dir>/alfred-mem/memory.db"),
        "{help}"
    );
}

#[test]
fn alfred_mem_db_is_honoured_and_db_wins_over_it() {
    let env = TestEnv::new();
    let from_env = env.path("env/memory.db");
    let from_flag = env.path("flag/memory.db");
    let three = fixture("three.mbox");
    env.bare_cmd()
        .env("ALFRED_MEM_DB", &from_env)
        .args(["index-mbox", three.to_str().unwrap()])
        .assert()
        .success();
    assert!(from_env.exists());
    let both = |args: &[&str]| {
        let mut c = env.bare_cmd();
        c.env("ALFRED_MEM_DB", &from_env)
            .arg("--db")
            .arg(&from_flag)
            .args(args);
        c
    };
    both(&["index-mbox", three.to_str().unwrap()])
        .assert()
        .success();
    assert!(from_flag.exists(), "--db wins over ALFRED_MEM_DB");
    both(&["status", "--json"])
        .assert()
        .success()
        .stdout(predicate::str::contains(from_flag.to_str().unwrap()));
}

#[test]
fn without_flag_or_variable_the_database_lives_in_the_data_dir() {
    let env = TestEnv::new();
    let xdg = env.path("xdg-data");
    env.bare_cmd()
        .env("XDG_DATA_HOME", &xdg)
        .args(["remember", "the spare key is under the blue pot"])
        .assert()
        .success();
    assert!(xdg.join("alfred-mem/memory.db").is_file());
}
