//! The query parser and sanitiser: any text must give either no query or a
//! MATCH expression that SQLite FTS5 accepts, with the production columns
//! and tokenizer, and so must each of its phrases alone (the fast engine
//! counts them one by one).
#![no_main]

mod common;

use alfred_mem::search::fts_query;
use libfuzzer_sys::fuzz_target;
use rusqlite::Connection;

thread_local! {
    /// The columns and tokenizer of migrations/0006_cjk_tokens.sql, over a
    /// few rows so the MATCH is really evaluated.
    static DB: Connection = {
        let db = Connection::open_in_memory().unwrap();
        alfred_mem::store::register_fts(&db).unwrap();
        db.execute_batch(
            "CREATE VIRTUAL TABLE t USING fts5(text, subject, sender, vendor, title, \
                 tokenize='alfred_cjk porter unicode61 remove_diacritics 2');
             INSERT INTO t(text, subject, sender) VALUES
                 ('Acme renewal quote for the contract', 'renewal', 'Alice <a@acme.com>'),
                 ('Café naïve façade, Straße, 東京 meeting', 'ディレクトリ構造', 'Bob'),
                 ('OR AND NOT NEAR quoted \"text\" with * and ^ and :', NULL, NULL);",
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
            let run = |expr: &str| -> rusqlite::Result<i64> {
                db.prepare_cached("SELECT count(*) FROM t WHERE t MATCH ?1")?
                    .query_row([expr], |r| r.get(0))
            };
            if let Err(e) = run(&q.match_expr) {
                panic!("{text:?} -> {:?}: FTS5 error: {e}", q.match_expr);
            }
            for p in &q.phrases {
                if let Err(e) = run(p) {
                    panic!("{text:?}: phrase {p:?}: FTS5 error: {e}");
                }
            }
        });
    })
);
