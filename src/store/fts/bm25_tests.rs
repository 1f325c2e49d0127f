//! `alfred_bm25()` must be FTS5's `bm25()` to the last bit, whether a row's
//! length comes from the blocks or from FTS5.

use rusqlite::Connection;

use super::super::blocks;
use crate::ingest::record::{Meta, Record};
use crate::lcg::Lcg;
use crate::store::Store;

const WEIGHTS: &str = super::super::BM25_WEIGHTS;

/// Roughly Zipf: low word numbers are common.
fn word(rng: &mut Lcg) -> String {
    let r = rng.below(1000) + 1;
    format!("w{}", 1000 / r)
}

fn words(rng: &mut Lcg, n: u64) -> String {
    (0..n).map(|_| word(rng)).collect::<Vec<_>>().join(" ")
}

fn record(rng: &mut Lcg, i: usize) -> Record {
    let meta = Meta {
        subject: (!i.is_multiple_of(3)).then(|| words(rng, 4)),
        sender: i.is_multiple_of(5).then(|| words(rng, 2)),
        // `to:`'s column: some rows have recipients, as mail indexed since
        // they are kept does, and the rest none, as older mail.
        recipients: i.is_multiple_of(2).then(|| words(rng, 1 + i as u64 % 4)),
        ..Meta::default()
    };
    let texts: Vec<String> = (0..1 + i % 3)
        .map(|_| {
            let n = 1 + rng.below(120);
            words(rng, n)
        })
        .collect();
    Record::email(&format!("m{i}"), meta, &texts, i as i64 * 1000)
}

/// Every matching row's (rowid, bm25, alfred_bm25), as bit patterns.
fn both_scores(conn: &Connection, expr: &str) -> Vec<(i64, u64, u64)> {
    let sql = format!(
        "SELECT rowid, bm25(memory_fts, {WEIGHTS}), alfred_bm25(memory_fts, {WEIGHTS})
         FROM memory_fts WHERE memory_fts MATCH ?1"
    );
    let mut stmt = conn.prepare(&sql).unwrap();
    stmt.query_map([expr], |r| {
        Ok((
            r.get(0)?,
            r.get::<_, f64>(1)?.to_bits(),
            r.get::<_, f64>(2)?.to_bits(),
        ))
    })
    .unwrap()
    .collect::<Result<_, _>>()
    .unwrap()
}

fn assert_same(conn: &Connection, exprs: &[&str]) -> usize {
    let mut rows = 0;
    for expr in exprs {
        let scores = both_scores(conn, expr);
        for &(rowid, fts5, ours) in &scores {
            assert_eq!(
                f64::from_bits(fts5),
                f64::from_bits(ours),
                "{expr}: row {rowid}"
            );
        }
        rows += scores.len();
    }
    rows
}

const QUERIES: &[&str] = &[
    "\"w1\"",
    "\"w1\" OR \"w2\"",
    "\"w7\" OR \"w40\" OR \"w1000\"",
    "\"w3\" AND \"w5\"",
    "\"w2 w1\"",
    "subject : \"w1\"",
    "\"w250\" OR \"w1\" OR \"w1\"",
    "recipients : \"w1\"",
    "{recipients} : \"w3\" AND \"w1\"",
    "\"w2\" NOT {recipients} : \"w2\"",
    "{sender recipients} : \"w5\" OR \"w40\"",
];

#[test]
fn matches_fts5_bm25_from_blocks_and_from_fts5() {
    let mut store = Store::open_in_memory().unwrap();
    let mut rng = Lcg(42);
    // Three batches: each commit copies its lengths into the blocks, and
    // the blocks span several 1,024-row boundaries.
    for batch in 0..3 {
        let b = store.begin_batch(batch).unwrap();
        for i in 0..800 {
            b.write(&record(&mut rng, batch as usize * 800 + i))
                .unwrap();
        }
        b.commit().unwrap();
    }
    let blocks: i64 = store
        .conn
        .query_row("SELECT count(*) FROM memory_fts_narrow_lengths", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert!(blocks >= 3, "{blocks} blocks");
    let rows = assert_same(&store.conn, QUERIES);
    assert!(rows > 5000, "only {rows} rows compared");

    // Rows the blocks do not know yet (no catch_up) come from FTS5.
    let tx = store.conn.transaction().unwrap();
    for i in 0..50 {
        let rec = record(&mut rng, 10_000 + i);
        for (seq, chunk) in rec.chunks.iter().enumerate() {
            crate::store::records::insert_chunk(
                &tx,
                rec.source_type,
                &rec.source_id,
                seq,
                chunk,
                &rec.meta,
                None,
                0,
            )
            .unwrap();
        }
    }
    assert_same(&tx, QUERIES);
    blocks::catch_up(&tx).unwrap();
    assert_same(&tx, QUERIES);
    tx.commit().unwrap();
}

#[test]
fn a_purged_fact_is_scored_by_its_tombstone() {
    let mut store = Store::open_in_memory().unwrap();
    let long = format!("secret {}", "padding ".repeat(300));
    let fact = store.remember(&long, 1).unwrap().fact;
    store.remember("another secret, short", 1).unwrap();
    store.forget(&[fact.id], true, 2).unwrap();
    assert_same(&store.conn, &["\"secret\"", "\"purged\" OR \"secret\""]);
}

/// The same check on a real database, all rows of a few common and rare
/// words: `ALFRED_MEM_BM25_DB=path cargo test --release -- --ignored bm25`.
#[test]
#[ignore = "needs ALFRED_MEM_BM25_DB, a large database"]
fn matches_fts5_bm25_on_a_real_database() {
    let path = std::env::var("ALFRED_MEM_BM25_DB").expect("ALFRED_MEM_BM25_DB");
    let store = Store::open(std::path::Path::new(&path)).unwrap();
    let rows = assert_same(
        &store.conn,
        &[
            "\"baba\" OR \"board\"",
            "\"bank\" OR \"refund\"",
            "\"acme\"",
            "\"london\"",
            "\"vivedune\" OR \"zonuta\"",
        ],
    );
    eprintln!("{rows} rows scored alike");
}
