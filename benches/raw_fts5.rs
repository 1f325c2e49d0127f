//! The raw-FTS5 reference for `docs/PERFORMANCE.md`: how fast SQLite alone
//! bulk-inserts the already-extracted text of a corpus, with no MIME parsing,
//! chunking, dedup or metadata. alfred-mem's indexing rate is compared to it.
//!
//! Usage: cargo bench --bench raw_fts5 -- SOURCE_DB
//! SOURCE_DB is an alfred-mem database already holding the corpus; its chunk
//! texts (one document per source, as a mail indexer would store them) are
//! read into memory first, so only the insert is timed.

use std::time::Instant;

use rusqlite::Connection;

fn main() {
    let Some(src) = std::env::args().nth(1).filter(|a| a != "--bench") else {
        eprintln!("usage: cargo bench --bench raw_fts5 -- SOURCE_DB");
        std::process::exit(2);
    };
    let source = Connection::open(&src).expect("open source db");
    let mut docs: Vec<String> = Vec::new();
    {
        let mut stmt = source
            .prepare(
                "SELECT group_concat(text, char(10) || char(10)) FROM memory_chunks
                 WHERE superseded_at IS NULL AND source_type = 'email'
                 GROUP BY source_id",
            )
            .expect("prepare");
        let rows = stmt
            .query_map([], |r| r.get::<_, String>(0))
            .expect("query");
        for r in rows {
            docs.push(r.expect("row"));
        }
    }
    let bytes: usize = docs.iter().map(String::len).sum();
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("raw.db");
    let mut conn = Connection::open(&path).expect("open raw db");
    conn.execute_batch(
        "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;
         CREATE VIRTUAL TABLE t USING fts5(text, tokenize = 'porter unicode61 remove_diacritics 2');",
    )
    .expect("schema");
    let t0 = Instant::now();
    for batch in docs.chunks(1000) {
        let tx = conn.transaction().expect("tx");
        {
            let mut ins = tx
                .prepare_cached("INSERT INTO t (text) VALUES (?1)")
                .expect("prep");
            for d in batch {
                ins.execute([d]).expect("insert");
            }
        }
        tx.commit().expect("commit");
    }
    let secs = t0.elapsed().as_secs_f64();
    drop(conn);
    let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0)
        + std::fs::metadata(dir.path().join("raw.db-wal"))
            .map(|m| m.len())
            .unwrap_or(0);
    println!(
        "raw_fts5 docs {} text_mb {:.1} seconds {:.2} docs_per_s {:.0} text_mb_per_s {:.1} db_bytes {}",
        docs.len(),
        bytes as f64 / 1e6,
        secs,
        docs.len() as f64 / secs,
        bytes as f64 / 1e6 / secs,
        size
    );
}
