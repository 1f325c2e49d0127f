//! The query sanitiser: any text must give either no query or a MATCH
//! expression that SQLite FTS5 accepts, with the production tokenizer.
#![no_main]

mod common;

use alfred_mem::search::fts_query;
use libfuzzer_sys::fuzz_target;
use rusqlite::Connection;

thread_local! {
    /// The tokenizer line of migrations/0001_init.sql, over a few rows so the
    /// MATCH is really evaluated.
    static DB: Connection = {
        let db = Connection::open_in_memory().unwrap();
        db.execute_batch(
            "CREATE VIRTUAL TABLE t USING fts5(text, \
                 tokenize='porter unicode61 remove_diacritics 2');
             INSERT INTO t(text) VALUES
                 ('Acme renewal quote for the contract'),
                 ('Café naïve façade, Straße, 東京 meeting'),
                 ('OR AND NOT NEAR quoted \"text\" with * and ^ and :');",
        )
        .unwrap();
        db
    };
}

fuzz_target!(
    init: common::remember_panics_quietly(),
    |data: &[u8]| common::no_escaping_panic(|| {
        let Ok(text) = std::str::from_utf8(data) else {
            return;
        };
        let Some(q) = fts_query::build(text) else {
            return;
        };
        assert!(!q.terms.is_empty(), "a query without terms");
        DB.with(|db| {
            let run = || -> rusqlite::Result<i64> {
                db.prepare_cached("SELECT count(*) FROM t WHERE t MATCH ?1")?
                    .query_row([&q.match_expr], |r| r.get(0))
            };
            if let Err(e) = run() {
                panic!("{text:?} -> {:?}: FTS5 error: {e}", q.match_expr);
            }
        });
    })
);
