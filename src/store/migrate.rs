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
        "0006_living_memory",
        include_str!("../../migrations/0006_living_memory.sql"),
    ),
];

/// Chunks from which a slow one-time upgrade says what it is doing on stderr
/// (about a second's work).
const SAY_UPGRADE_FROM_ROWS: i64 = 300_000;

pub fn migrate(conn: &mut Connection) -> Result<()> {
    let current: usize =
        conn.query_row("PRAGMA user_version", [], |r| r.get::<_, i64>(0))? as usize;
    if current > MIGRATIONS.len() {
        bail!(
            "database schema version {current} is newer than this alfred-mem understands ({}); upgrade alfred-mem",
            MIGRATIONS.len()
        );
    }
    for (i, (name, sql)) in MIGRATIONS.iter().enumerate().skip(current) {
        // IMMEDIATE, then look again: two processes opening a fresh database
        // at once must not both apply the same migration.
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let now: i64 = tx.query_row("PRAGMA user_version", [], |r| r.get(0))?;
        if now as usize > i {
            continue;
        }
        tx.execute_batch(sql)
            .with_context(|| format!("migration {name} failed"))?;
        if *name == "0004_row_blocks" {
            // The lengths and dates of rows indexed before it (nothing on a
            // new file; about 9 s for a million messages, so say why).
            let rows: i64 =
                tx.query_row("SELECT coalesce(max(id), 0) FROM memory_chunks", [], |r| {
                    r.get(0)
                })?;
            if rows >= SAY_UPGRADE_FROM_ROWS {
                eprintln!(
                    "alfred-mem: upgrading the database once: copying the lengths and dates of \
                     {rows} chunks for faster search"
                );
            }
            super::fts::catch_up(&tx).with_context(|| format!("migration {name} failed"))?;
        }
        tx.pragma_update(None, "user_version", (i + 1) as i64)?;
        tx.commit()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn migrating_twice_is_a_no_op() {
        let mut conn = Connection::open_in_memory().unwrap();
        migrate(&mut conn).unwrap();
        migrate(&mut conn).unwrap();
        let v: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(v as usize, MIGRATIONS.len());
    }
}
