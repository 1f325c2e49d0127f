//! The file's own layout (issue 21: the database at most 1.5x the mbox): a
//! new database has 8 KB pages, content hashes are stored as their 32 bytes,
//! migration 0016 drops an index nothing read and shortens another, and
//! 0017 packs the full-text lengths and the sources a byte a row. A database from an older
//! build keeps working as it is: its page size, and the hex hashes it holds,
//! which still find its messages unchanged.

use crate::util::{TestEnv, mbox_message};

fn three_letters(env: &TestEnv, third_body: &str) -> std::path::PathBuf {
    let letters = [
        (
            "a@x",
            "Harbour budget",
            "The harbour budget is due on Friday.",
        ),
        (
            "b@x",
            "Penguin census",
            "Counting penguins on the north shore.",
        ),
        ("c@x", "Lighthouse", third_body),
    ];
    let mbox: String = letters
        .iter()
        .map(|(id, subject, body)| {
            mbox_message(id, "Mon, 2 Mar 2026 09:00:00 +0000", subject, body)
        })
        .collect();
    env.write("m.mbox", mbox)
}

fn index(env: &TestEnv, mbox: &std::path::Path) -> serde_json::Value {
    // Forget which files were read, so that every message is read again and
    // compared by its content hash.
    let has_files = "SELECT count(*) FROM sqlite_schema WHERE name = 'ingest_files'";
    if env.db().exists() && env.count(has_files) == 1 {
        env.sqlite()
            .execute("DELETE FROM ingest_files", [])
            .unwrap();
    }
    env.json(["index-mbox", mbox.to_str().unwrap()], 0)
}

/// What an import said it did: (messages indexed, messages unchanged).
fn assert_read(v: &serde_json::Value, indexed: i64, unchanged: i64) {
    assert_eq!(
        (v["indexed"].as_i64(), v["unchanged"].as_i64()),
        (Some(indexed), Some(unchanged)),
        "{v}"
    );
}

#[test]
fn a_new_database_has_8k_pages_and_stores_each_hash_as_32_bytes() {
    let env = TestEnv::new();
    let mbox = three_letters(&env, "The lamp is lit at dusk.");
    index(&env, &mbox);
    assert_eq!(env.count("PRAGMA page_size"), 8192);
    assert_eq!(
        env.count("SELECT count(*) FROM memory_sources WHERE typeof(content_hash) = 'blob' AND length(content_hash) = 32"),
        3
    );
    let again = index(&env, &mbox);
    assert_read(&again, 0, 3);
}

#[test]
fn hex_hashes_from_an_older_build_still_find_their_messages_unchanged() {
    let env = TestEnv::new();
    let mbox = three_letters(&env, "The lamp is lit at dusk.");
    index(&env, &mbox);
    // As builds before this one wrote them.
    env.sqlite()
        .execute(
            "UPDATE memory_sources SET content_hash = lower(hex(content_hash))",
            [],
        )
        .unwrap();
    assert_eq!(
        env.count("SELECT count(*) FROM memory_sources WHERE typeof(content_hash) = 'text'"),
        3
    );

    let again = index(&env, &mbox);
    assert_read(&again, 0, 3);
    assert_eq!(
        env.count("SELECT count(*) FROM memory_chunks WHERE superseded_at IS NOT NULL"),
        0
    );

    // A changed letter under the same Message-ID is a second message (its
    // fingerprint differs), stored beside the first with its hash in bytes.
    let changed = three_letters(&env, "The lamp is lit at midnight.");
    let v = index(&env, &changed);
    assert_read(&v, 1, 2);
    assert_eq!(
        env.count("SELECT count(*) FROM memory_sources WHERE typeof(content_hash) = 'blob'"),
        1
    );
    let hits = env.json(["search", "--no-log", "midnight"], 0);
    assert_eq!(hits.as_array().unwrap().len(), 1, "{hits}");
}

#[test]
fn a_database_with_4k_pages_keeps_them_and_works() {
    let env = TestEnv::new();
    {
        // An older build's new file: 4 KB pages, fixed by the switch to WAL.
        use std::os::unix::fs::DirBuilderExt;
        let dir = env.db().parent().unwrap();
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .unwrap();
        let conn = rusqlite::Connection::open(env.db()).unwrap();
        conn.execute_batch("PRAGMA page_size = 4096;").unwrap();
        let mode: String = conn
            .query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
    }
    let mbox = three_letters(&env, "The lamp is lit at dusk.");
    index(&env, &mbox);
    assert_eq!(env.count("PRAGMA page_size"), 4096);
    let hits = env.json(["search", "--no-log", "penguins"], 0);
    assert_eq!(hits.as_array().unwrap().len(), 1, "{hits}");
}

#[test]
fn migration_0016_shortens_the_source_index_and_forgetting_a_source_still_works() {
    let env = TestEnv::new();
    let mbox = three_letters(&env, "The lamp is lit at dusk.");
    index(&env, &mbox);
    env.sqlite()
        .execute_batch(&format!(
            "{} {} PRAGMA user_version = 15;",
            crate::util::UNDO_0017,
            crate::util::UNDO_0016
        ))
        .unwrap();
    assert_eq!(
        env.count("SELECT count(*) FROM sqlite_schema WHERE name = 'email_replies_reply'"),
        1
    );

    env.cmd(["forget", "--source", "email:b@x"])
        .assert()
        .success();
    assert_eq!(
        env.count("SELECT user_version FROM pragma_user_version"),
        17
    );
    assert_eq!(
        env.count("SELECT count(*) FROM sqlite_schema WHERE name = 'email_replies_reply'"),
        0
    );
    assert_eq!(
        env.count("SELECT count(*) FROM pragma_index_info('memory_chunks_source')"),
        1,
        "the index holds the source ID alone"
    );
    env.cmd(["search", "--no-log", "penguins"]).assert().code(1);
    let hits = env.json(["search", "--no-log", "harbour"], 0);
    assert_eq!(hits.as_array().unwrap().len(), 1, "{hits}");
}

/// The packed lengths and sources of an older build (two bytes a row, no
/// width byte, in the tables of 0004 and 0014) are packed again by
/// migration 0017 into its own tables, one byte a row after a width byte,
/// and every search ranks as it did before. Over 1,024 chunks, so that the
/// older blocks are more than the last, partial one.
#[test]
fn migration_0017_packs_lengths_and_sources_a_byte_a_row_and_ranks_alike() {
    let env = TestEnv::new();
    let mbox: String = (0..1100)
        .map(|i| {
            let body = match i % 3 {
                0 => format!("The harbour lamp {i} is lit at dusk."),
                1 => format!("Penguins {i} on the north shore."),
                _ => "Lamp".to_string(),
            };
            mbox_message(
                &format!("m{i}@x"),
                "Mon, 2 Mar 2026 09:00:00 +0000",
                "s",
                &body,
            )
        })
        .collect();
    let mbox = env.write("many.mbox", mbox);
    index(&env, &mbox);
    let queries: [&[&str]; 5] = [
        &["harbour"],
        &["lamp"],
        &["penguins"],
        &["the"],
        &["--source", "email", "lamp"],
    ];
    let search = |q: &&[&str]| {
        let mut args = vec!["search", "--no-log"];
        args.extend_from_slice(q);
        env.json(args, 0)
    };
    let before: Vec<_> = queries.iter().map(search).collect();
    let blocks = |table: &str| -> Vec<(i64, Vec<u8>)> {
        let conn = env.sqlite();
        let mut stmt = conn
            .prepare(&format!("SELECT block, packed FROM {table} ORDER BY block"))
            .unwrap();
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    };
    let new = ["memory_fts_narrow_lengths", "memory_chunk_narrow_sources"];
    let old = ["memory_fts_lengths", "memory_chunk_sources"];
    let narrow: Vec<_> = new.iter().map(|t| blocks(t)).collect();
    for (table, packed) in new.iter().zip(&narrow) {
        assert!(packed.len() >= 2, "{table}: {} blocks", packed.len());
        // Every value fits a byte here: a width byte of 1, then a byte a row.
        for (_, bytes) in packed {
            assert_eq!(bytes[0], 1, "{table}: {bytes:?}");
        }
    }
    // As an older build held them: each value as two bytes, little-endian.
    {
        let conn = env.sqlite();
        conn.execute_batch(crate::util::UNDO_0017).unwrap();
        for (table, packed) in old.iter().zip(&narrow) {
            for (block, bytes) in packed {
                let two: Vec<u8> = bytes[1..].iter().flat_map(|&b| [b, 0]).collect();
                conn.execute(
                    &format!("INSERT INTO {table} (block, packed) VALUES (?1, ?2)"),
                    rusqlite::params![block, two],
                )
                .unwrap();
            }
        }
        conn.execute_batch("PRAGMA user_version = 16;").unwrap();
    }
    let after: Vec<_> = queries.iter().map(search).collect();
    assert_eq!(before, after);
    assert!(
        before
            .iter()
            .all(|hits| !hits.as_array().unwrap().is_empty())
    );
    assert_eq!(
        env.count("SELECT user_version FROM pragma_user_version"),
        17
    );
    let again: Vec<_> = new.iter().map(|t| blocks(t)).collect();
    assert_eq!(again, narrow, "packed again as a new file packs them");
    for table in old {
        let gone = format!("SELECT count(*) FROM sqlite_schema WHERE name = '{table}'");
        assert_eq!(env.count(&gone), 0, "{table}");
    }
}
