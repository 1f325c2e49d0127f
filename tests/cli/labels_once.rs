//! A message's labels (subject, sender, recipients; a receipt's vendor, a
//! conversation's title) are stored once per version, on its first chunk
//! (migration 0015), and every chunk is still found, scored and shown with
//! them.

use serde_json::Value;

use crate::util::{TestEnv, mbox_message};

/// One letter of four paragraphs (four chunks), to two people.
fn long_letter(env: &TestEnv, id: &str, subject: &str) -> std::path::PathBuf {
    let para = |topic: &str| {
        format!(
            "The {topic} paragraph of the letter, long enough to be a chunk of its own, \
             about the harbour project and who pays for which part of it."
        )
    };
    let body = ["opening", "middle", "penguinfold", "closing"]
        .map(para)
        .join("\n\n");
    let message = mbox_message(id, "Mon, 2 Mar 2026 09:00:00 +0000", subject, &body)
        .replace("Subject:", "To: Jane Tan <jane@x>, bob@x\nSubject:");
    env.write("m.mbox", message)
}

fn integrity(env: &TestEnv) {
    env.sqlite()
        .execute(
            "INSERT INTO memory_fts (memory_fts, rank) VALUES ('integrity-check', 1)",
            [],
        )
        .expect("the full-text index agrees with the rows");
}

fn source_ids(hits: &Value) -> Vec<&str> {
    hits.as_array()
        .unwrap()
        .iter()
        .map(|h| h["source_id"].as_str().unwrap())
        .collect()
}

#[test]
fn a_letters_labels_are_stored_once_and_every_chunk_keeps_them() {
    let env = TestEnv::new();
    let mbox = long_letter(&env, "harbour@x", "Harbour budget");
    env.cmd(["index-mbox"]).arg(mbox).assert().success();
    assert_eq!(env.count("SELECT count(*) FROM memory_chunks"), 4);
    // Only the first row holds them; the others point at it.
    assert_eq!(
        env.count(
            "SELECT count(*) FROM memory_chunk_rows
             WHERE subject IS NOT NULL OR sender IS NOT NULL OR recipients IS NOT NULL"
        ),
        1
    );
    assert_eq!(
        env.count(
            "SELECT count(*) FROM memory_chunk_rows
             WHERE labels_from = (SELECT min(id) FROM memory_chunk_rows)"
        ),
        3
    );
    // Read through `memory_chunks`, every chunk has them.
    assert_eq!(
        env.count(
            "SELECT count(*) FROM memory_chunks WHERE subject = 'Harbour budget'
               AND sender = 'Sender <sender@mail.example>'
               AND recipients = 'Jane Tan <jane@x>, bob@x'"
        ),
        4
    );
    integrity(&env);

    // The third chunk is found by its own word with the labels' filters,
    // and its hit and `show` carry the subject.
    for query in [
        ["penguinfold", "subject:harbour"],
        ["penguinfold", "from:sender"],
        ["penguinfold", "to:jane"],
    ] {
        let hits = env.json(["search", query[0], query[1], "--no-log"], 0);
        assert_eq!(source_ids(&hits), ["harbour@x"], "{query:?}");
        assert_eq!(hits[0]["subject"], "Harbour budget", "{hits}");
        assert!(
            hits[0]["text"].as_str().unwrap().contains("penguinfold"),
            "{hits}"
        );
    }
    let third = env.count("SELECT id FROM memory_chunks WHERE text LIKE '%penguinfold%'");
    let shown = env.json(["show", &third.to_string()], 0);
    assert_eq!(shown[0]["subject"], "Harbour budget", "{shown}");
    assert_eq!(shown[0]["to"], "Jane Tan <jane@x>, bob@x", "{shown}");
}

/// Purging deletes each chunk's full-text entry with the values it was
/// indexed with, the labels included, so the chunks that borrow them are
/// erased before the one that holds them; the index stays whole.
#[test]
fn purging_a_letter_leaves_the_full_text_index_whole() {
    let env = TestEnv::new();
    let mbox = long_letter(&env, "harbour@x", "Harbour budget");
    env.cmd(["index-mbox"]).arg(mbox).assert().success();
    env.cmd(["forget", "--source", "email:harbour@x", "--purge"])
        .assert()
        .success();
    integrity(&env);
    // Any row, forgotten or not: the labels' words are gone from the index.
    for word in ["harbour", "penguinfold", "budget", "jane", "sender"] {
        let rows: i64 = env
            .sqlite()
            .query_row(
                "SELECT count(*) FROM memory_fts WHERE memory_fts MATCH ?1",
                [word],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(rows, 0, "{word}");
    }
    assert_eq!(
        env.count(
            "SELECT count(*) FROM memory_chunks
             WHERE subject IS NOT NULL OR recipients IS NOT NULL OR text LIKE '%harbour%'"
        ),
        0
    );
}

/// A conversation whose title changes is a new version: its chunks point
/// at its own first chunk, and the old version keeps its title for
/// `--as-of`.
#[test]
fn a_retitled_conversation_points_at_its_own_first_chunk() {
    let env = TestEnv::new();
    let index = |title: &str, now: &str| {
        let file = env.write(
            "trip.json",
            format!(
                "{{\"id\": \"trip\", \"title\": \"{title}\", \"messages\": [{}]}}",
                turns(0..4, ",")
            ),
        );
        env.cmd(["index-conversations"])
            .arg(file)
            .env("ALFRED_MEM_NOW", now)
            .assert()
            .success();
    };
    index("Zeppelin trip", "2026-03-10T00:00:00Z");
    index("Zeppelin trip, booked", "2026-03-12T00:00:00Z");
    assert!(
        env.count("SELECT count(*) FROM memory_chunk_rows WHERE superseded_at IS NOT NULL") >= 2
    );
    assert_eq!(
        env.count(
            "SELECT count(*) FROM memory_chunk_rows c JOIN memory_chunk_rows f
               ON f.id = c.labels_from
             WHERE f.seq <> 0 OR f.labels_from IS NOT NULL
                OR (f.superseded_at IS NULL) <> (c.superseded_at IS NULL)"
        ),
        0,
        "every chunk borrows from the first chunk of its own version"
    );
    let now = env.json(["search", "binoculars", "--no-log"], 0);
    assert_eq!(now[0]["title"], "Zeppelin trip, booked", "{now}");
    let then = env.json(
        ["search", "binoculars", "--as-of", "2026-03-11", "--no-log"],
        0,
    );
    assert_eq!(then[0]["title"], "Zeppelin trip", "{then}");
    integrity(&env);
}

/// Turns `range` of a conversation about a zeppelin tour, each long enough
/// to fill most of a chunk, joined by `sep`.
fn turns(range: std::ops::Range<usize>, sep: &str) -> String {
    range
        .map(|i| {
            let words = "about the zeppelin tour over the lake, the seats, the ferry back \
                         to the hotel and the binoculars to pack; "
                .repeat(6);
            format!(
                "{{\"id\": \"t{i}\", \"role\": \"user\", \"at\": \"2026-03-0{}T10:00:00Z\", \
                 \"content\": \"Turn {i} {words}\"}}",
                i + 1
            )
        })
        .collect::<Vec<_>>()
        .join(sep)
}

/// Rows written before 0015 keep their own copies after the upgrade (it
/// rewrites nothing) and read as before; a conversation appended to after
/// it borrows its title from its first chunk.
#[test]
fn rows_from_before_the_upgrade_keep_their_copies_and_appends_borrow() {
    let env = TestEnv::new();
    let append = |lines: &str| {
        env.cmd([
            "index-conversations",
            "--append",
            "trip",
            "--title",
            "Zeppelin trip",
        ])
        .write_stdin(lines.to_string())
        .assert()
        .success();
    };
    append(&(turns(0..3, "\n") + "\n"));
    let before = env.count("SELECT count(*) FROM memory_chunks");
    assert!(before >= 2, "{before} chunks");
    env.sqlite()
        .execute_batch(&format!(
            "{} {} {} PRAGMA user_version = 14;",
            crate::util::UNDO_0017,
            crate::util::UNDO_0016,
            crate::util::UNDO_0015
        ))
        .unwrap();
    append(&(turns(3..6, "\n") + "\n"));
    assert_eq!(
        env.count("SELECT user_version FROM pragma_user_version"),
        17
    );
    // The old rows hold their own titles; the new ones borrow.
    assert!(
        env.count(
            "SELECT count(*) FROM memory_chunk_rows
             WHERE superseded_at IS NULL AND labels_from IS NULL AND title = 'Zeppelin trip'"
        ) >= 1
    );
    assert!(
        env.count(
            "SELECT count(*) FROM memory_chunk_rows
             WHERE superseded_at IS NULL AND labels_from IS NOT NULL AND title IS NULL"
        ) >= 1
    );
    assert_eq!(
        env.count(
            "SELECT count(*) FROM memory_chunks
             WHERE superseded_at IS NULL AND title IS NOT 'Zeppelin trip'"
        ),
        0
    );
    integrity(&env);
}
