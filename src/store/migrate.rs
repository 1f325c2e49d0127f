//! Numbered migrations applied by `PRAGMA user_version`, each in one
//! transaction. Released files are never edited; the next change is a new file.

use anyhow::{Context, Result, bail};
use rusqlite::Connection;

/// Every migration in order; the version after applying `MIGRATIONS[i]` is `i + 1`.
const MIGRATIONS: &[(&str, &str)] = &[
    ("0001_init", include_str!("../../migrations/0001_init.sql")),
    (
        "0002_visibility_index",
        include_str!("../../migrations/0002_visibility_index.sql"),
    ),
    (
        "0003_embeddings",
        include_str!("../../migrations/0003_embeddings.sql"),
    ),
    (
        "0004_row_blocks",
        include_str!("../../migrations/0004_row_blocks.sql"),
    ),
    (
        "0005_conversation_messages",
        include_str!("../../migrations/0005_conversation_messages.sql"),
    ),
    (
        "0006_cjk_tokens",
        include_str!("../../migrations/0006_cjk_tokens.sql"),
    ),
    (
        "0007_archives",
        include_str!("../../migrations/0007_archives.sql"),
    ),
    (
        "0008_living_memory",
        include_str!("../../migrations/0008_living_memory.sql"),
    ),
    (
        "0009_recipients_fts",
        include_str!("../../migrations/0009_recipients_fts.sql"),
    ),
    (
        "0010_associations",
        include_str!("../../migrations/0010_associations.sql"),
    ),
    (
        "0011_night_shift",
        include_str!("../../migrations/0011_night_shift.sql"),
    ),
    (
        "0012_created_index",
        include_str!("../../migrations/0012_created_index.sql"),
    ),
    (
        "0013_vector_index",
        include_str!("../../migrations/0013_vector_index.sql"),
    ),
    (
        "0014_source_blocks",
        include_str!("../../migrations/0014_source_blocks.sql"),
    ),
    (
        "0015_labels_once",
        include_str!("../../migrations/0015_labels_once.sql"),
    ),
    (
        "0016_lean_indexes",
        include_str!("../../migrations/0016_lean_indexes.sql"),
    ),
    (
        "0017_narrow_blocks",
        include_str!("../../migrations/0017_narrow_blocks.sql"),
    ),
];

/// Chunks from which rebuilding the full-text index (0006, 0009) says so on
/// stderr: about 2 s of work.
const SAY_REINDEX_FROM_ROWS: i64 = 50_000;

/// Chunks from which a slow one-time upgrade says what it is doing on stderr
/// (about a second's work).
const SAY_UPGRADE_FROM_ROWS: i64 = 300_000;

pub fn migrate(conn: &mut Connection) -> Result<()> {
    migrate_to(conn, MIGRATIONS.len())
}

/// Apply the migrations up to version `target`.
fn migrate_to(conn: &mut Connection, target: usize) -> Result<()> {
    let current: usize =
        conn.query_row("PRAGMA user_version", [], |r| r.get::<_, i64>(0))? as usize;
    if current > MIGRATIONS.len() {
        bail!(
            "database schema version {current} is newer than this alfred-mem understands ({}); upgrade alfred-mem",
            MIGRATIONS.len()
        );
    }
    for (i, (name, sql)) in MIGRATIONS.iter().enumerate().take(target).skip(current) {
        // IMMEDIATE, then look again: two processes opening a fresh database
        // at once must not both apply the same migration.
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let now: i64 = tx.query_row("PRAGMA user_version", [], |r| r.get(0))?;
        if now as usize > i {
            continue;
        }
        if let Some(note) = upgrade_note(&tx, name)? {
            eprintln!("alfred-mem: upgrading the database once: {note}");
        }
        tx.execute_batch(sql)
            .with_context(|| format!("migration {name} failed"))?;
        if matches!(
            *name,
            "0004_row_blocks"
                | "0006_cjk_tokens"
                | "0009_recipients_fts"
                | "0014_source_blocks"
                | "0017_narrow_blocks"
        ) {
            // The packed lengths, dates and sources of the rows indexed
            // before it.
            super::fts::catch_up(&tx).with_context(|| format!("migration {name} failed"))?;
        }
        tx.pragma_update(None, "user_version", (i + 1) as i64)?;
        tx.commit()?;
    }
    Ok(())
}

/// What a slow one-time upgrade says before it runs (nothing for a small
/// database): 0004 takes about 9 s for a million messages, 0006 rebuilds
/// the full-text index.
fn upgrade_note(conn: &Connection, name: &str) -> Result<Option<String>> {
    if !matches!(
        name,
        "0004_row_blocks"
            | "0006_cjk_tokens"
            | "0009_recipients_fts"
            | "0012_created_index"
            | "0014_source_blocks"
            | "0017_narrow_blocks"
    ) {
        return Ok(None);
    }
    let rows: i64 = conn.query_row("SELECT coalesce(max(id), 0) FROM memory_chunks", [], |r| {
        r.get(0)
    })?;
    Ok(match name {
        "0004_row_blocks" if rows >= SAY_UPGRADE_FROM_ROWS => Some(format!(
            "copying the lengths and dates of {rows} chunks for faster search"
        )),
        "0006_cjk_tokens" if rows >= SAY_REINDEX_FROM_ROWS => Some(format!(
            "re-indexing the words of {rows} chunks so that Chinese, Japanese and Korean words are found"
        )),
        "0009_recipients_fts" if rows >= SAY_REINDEX_FROM_ROWS => Some(format!(
            "re-indexing the words of {rows} chunks so that to: finds who an e-mail was to"
        )),
        "0012_created_index" if rows >= SAY_UPGRADE_FROM_ROWS => Some(format!(
            "indexing when each of {rows} chunks was stored, for faster search"
        )),
        "0014_source_blocks" if rows >= SAY_UPGRADE_FROM_ROWS => Some(format!(
            "copying the source of each of {rows} chunks, for faster search by source"
        )),
        "0017_narrow_blocks" if rows >= SAY_UPGRADE_FROM_ROWS => Some(format!(
            "packing the lengths and sources of {rows} chunks smaller, for faster cold searches"
        )),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn migrating_twice_is_a_no_op() {
        let mut conn = Connection::open_in_memory().unwrap();
        super::super::fts::register(&conn).unwrap();
        migrate(&mut conn).unwrap();
        migrate(&mut conn).unwrap();
        let v: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(v as usize, MIGRATIONS.len());
    }

    /// E-mail rows (text, recipients) as an older version indexed them:
    /// the text alone in the full-text index, ids from 1. Recipients are
    /// written only where given (before 0008 there is no such column).
    fn index_old_rows(conn: &Connection, rows: &[(&str, Option<&str>)]) {
        for (i, (text, to)) in rows.iter().enumerate() {
            conn.execute(
                "INSERT INTO memory_chunks (id, source_type, source_id, seq, text, dated_at, created_at)
                 VALUES (?1, 'email', ?1, 0, ?2, 1, 1)",
                rusqlite::params![i as i64 + 1, text],
            )
            .unwrap();
            if let Some(to) = to {
                conn.execute(
                    "UPDATE memory_chunks SET recipients = ?2 WHERE id = ?1",
                    rusqlite::params![i as i64 + 1, to],
                )
                .unwrap();
            }
            conn.execute(
                "INSERT INTO memory_fts (rowid, text) VALUES (?1, ?2)",
                rusqlite::params![i as i64 + 1, text],
            )
            .unwrap();
        }
        super::super::fts::catch_up(conn).unwrap();
    }

    /// Rows written before 0014 have their sources copied by it: a search
    /// by source tests them on the packed blocks from the first search on.
    #[test]
    fn the_source_blocks_upgrade_copies_every_rows_source() {
        let mut conn = Connection::open_in_memory().unwrap();
        super::super::fts::register(&conn).unwrap();
        migrate_to(&mut conn, 13).unwrap();
        let rows: Vec<(&str, Option<&str>)> = (0..1500).map(|_| ("acme", None)).collect();
        index_old_rows(&conn, &rows);
        conn.execute(
            "UPDATE memory_chunks SET source_type = 'receipt' WHERE id = 1200",
            [],
        )
        .unwrap();
        migrate(&mut conn).unwrap();
        let block = |b: i64| -> Vec<u8> {
            conn.query_row(
                "SELECT packed FROM memory_chunk_narrow_sources WHERE block = ?1",
                [b],
                |r| r.get(0),
            )
            .unwrap()
        };
        // A byte a row after the block's width byte (1, since 0017). Row 5
        // (block 0) is an e-mail (1), row 1200 (block 1, slot 176) a
        // receipt (2); row 0 was never written (0, not known).
        assert_eq!(&block(0)[..2], &[1, 0]);
        assert_eq!(block(0)[1 + 5], 1);
        assert_eq!(block(1)[1 + 176], 2);
        assert_eq!(block(1).len(), 1 + (1500 - 1024 + 1));
    }

    /// A database indexed before 0006 finds the Japanese word inside a
    /// longer run afterwards, and its Latin rows keep their lengths.
    #[test]
    fn the_cjk_upgrade_reindexes_every_row() {
        let mut conn = Connection::open_in_memory().unwrap();
        super::super::fts::register(&conn).unwrap();
        migrate_to(&mut conn, 5).unwrap();
        let texts = [
            "Acme sent the signed contract",
            "ディレクトリ構造の変更について",
            "我们明天讨论项目计划",
            "mixed Rust入門 text",
        ];
        let rows: Vec<(&str, Option<&str>)> = texts.iter().map(|t| (*t, None)).collect();
        index_old_rows(&conn, &rows);
        let count = |conn: &Connection, q: &str| -> i64 {
            conn.query_row(
                "SELECT count(*) FROM memory_fts WHERE memory_fts MATCH ?1",
                [q],
                |r| r.get(0),
            )
            .unwrap()
        };
        let sizes = |conn: &Connection| -> Vec<Vec<u8>> {
            conn.prepare("SELECT sz FROM memory_fts_docsize ORDER BY id")
                .unwrap()
                .query_map([], |r| r.get(0))
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap()
        };
        assert_eq!(count(&conn, "\"ディレクトリ\""), 0);
        let before = sizes(&conn);
        migrate_to(&mut conn, 6).unwrap();
        for (q, n) in [
            ("\"ディレクトリ\"", 1),
            ("\"構造\"", 1),
            ("\"明天\"", 1),
            ("\"项目计划\"", 1),
            ("\"入門\"", 1),
            ("\"rust\"", 1),
            ("\"contract\"", 1),
            ("\"明後日\"", 0),
        ] {
            assert_eq!(count(&conn, q), n, "{q}");
        }
        let after = sizes(&conn);
        assert_eq!(after[0], before[0], "a Latin row's length changed");
        assert_ne!(after[1], before[1]);
        // The packed copies of the lengths agree with the new index once
        // the file is at the latest version (0017 moved them to a new table).
        migrate(&mut conn).unwrap();
        assert_eq!(
            super::super::fts::check::compare(&conn).unwrap(),
            super::super::fts::check::Verdict::Agree
        );
    }

    /// A database indexed before 0009 finds recipients with `to:`'s column
    /// afterwards, every other column as before, and the packed lengths
    /// agree with FTS5's again.
    #[test]
    fn the_recipients_upgrade_reindexes_every_row() {
        let mut conn = Connection::open_in_memory().unwrap();
        super::super::fts::register(&conn).unwrap();
        migrate_to(&mut conn, 8).unwrap();
        let rows = [
            ("Budget for March", Some("Alice Smith <alice@example.com>")),
            ("Lunch with alice", None),
        ];
        index_old_rows(&conn, &rows);
        let ids = |conn: &Connection, q: &str| -> Vec<i64> {
            conn.prepare("SELECT rowid FROM memory_fts WHERE memory_fts MATCH ?1 ORDER BY rowid")
                .unwrap()
                .query_map([q], |r| r.get(0))
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap()
        };
        assert_eq!(ids(&conn, "\"alice\""), [2]);
        migrate(&mut conn).unwrap();
        assert_eq!(ids(&conn, "{recipients} : \"alice\""), [1]);
        assert_eq!(ids(&conn, "{recipients} : \"example\""), [1]);
        assert_eq!(ids(&conn, "{text} : \"alice\""), [2]);
        assert_eq!(ids(&conn, "\"march\""), [1]);
        assert_eq!(
            super::super::fts::check::compare(&conn).unwrap(),
            super::super::fts::check::Verdict::Agree
        );
    }
}
