//! Unit tests for `store::facts`, kept beside it so that file stays readable.

use super::*;
use crate::ingest::record::{Record, content_hash};

fn count(store: &Store, sql: &str) -> i64 {
    store.conn.query_row(sql, [], |r| r.get(0)).unwrap()
}

fn fts_hits(store: &Store, word: &str) -> Vec<i64> {
    let mut stmt = store
        .conn
        .prepare("SELECT rowid FROM memory_fts WHERE memory_fts MATCH ?1")
        .unwrap();
    stmt.query_map([word], |r| r.get(0))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap()
}

fn email(store: &mut Store, text: &str) -> i64 {
    let meta = Meta::default();
    let chunks = vec![ChunkDraft {
        text: text.into(),
        dated_at: 1_700_000_000,
        message_ids: vec![],
    }];
    let rec = Record {
        source_type: SourceType::Email,
        source_id: "m1".into(),
        content_hash: content_hash(&meta, &chunks),
        meta,
        chunks,
        warning: None,
    };
    let b = store.begin_batch(1).unwrap();
    b.write(&rec).unwrap();
    b.commit().unwrap();
    count(store, "SELECT max(id) FROM memory_chunks")
}

#[test]
fn remember_stores_an_evergreen_user_fact() {
    let mut store = Store::open_in_memory().unwrap();
    let r = store
        .remember("  I am allergic to shellfish \n", 100)
        .unwrap();
    assert!(r.created);
    assert_eq!(r.fact.text, "I am allergic to shellfish");
    assert_eq!(r.fact.method, FactMethod::User);
    assert_eq!(r.fact.created_at, 100);
    assert_eq!(r.fact.promoted_from, None);
    assert_eq!(
        count(
            &store,
            "SELECT count(*) FROM memory_chunks WHERE source_type = 'fact' AND dated_at IS NULL"
        ),
        1
    );
    assert_eq!(fts_hits(&store, "shellfish"), [r.fact.id]);
}

#[test]
fn remembering_the_same_text_returns_the_existing_fact() {
    let mut store = Store::open_in_memory().unwrap();
    let first = store.remember("Jane is allergic to shellfish", 1).unwrap();
    for again in [
        "Jane is allergic to shellfish",
        "  jane is   ALLERGIC to shellfish",
        "Jane\tis allergic\nto shellfish",
    ] {
        let r = store.remember(again, 2).unwrap();
        assert!(!r.created, "{again:?}");
        assert_eq!(r.fact.id, first.fact.id);
        assert_eq!(r.fact.text, "Jane is allergic to shellfish");
    }
    assert_eq!(count(&store, "SELECT count(*) FROM memory_facts"), 1);
}

#[test]
fn remembering_a_retracted_fact_makes_a_new_one() {
    let mut store = Store::open_in_memory().unwrap();
    let old = store.remember("Ama likes tea", 1).unwrap().fact.id;
    store.forget(&[old], false, 2).unwrap();
    let new = store.remember("Ama likes tea", 3).unwrap();
    assert!(new.created);
    assert_ne!(new.fact.id, old);
}

#[test]
fn empty_text_is_refused() {
    let mut store = Store::open_in_memory().unwrap();
    for text in ["", "   ", "\n\t "] {
        let err = store.remember(text, 1).unwrap_err().to_string();
        assert!(err.contains("empty"), "{err}");
    }
    assert_eq!(count(&store, "SELECT count(*) FROM memory_chunks"), 0);
}

#[test]
fn forget_retracts_but_keeps_history() {
    let mut store = Store::open_in_memory().unwrap();
    let a = store.remember("fact one", 1).unwrap().fact.id;
    let b = store.remember("fact two", 1).unwrap().fact.id;
    let gone = store.forget(&[a], false, 5).unwrap();
    assert_eq!(gone[0].retracted_at, Some(5));
    let active: Vec<i64> = store
        .facts(false, 0)
        .unwrap()
        .iter()
        .map(|f| f.id)
        .collect();
    assert_eq!(active, [b]);
    let all = store.facts(true, 0).unwrap();
    assert_eq!(all.len(), 2);
    assert_eq!(all[0].text, "fact one");
    assert_eq!(all[0].retracted_at, Some(5));
}

#[test]
fn forget_is_all_or_nothing() {
    let mut store = Store::open_in_memory().unwrap();
    let a = store.remember("fact one", 1).unwrap().fact.id;
    let mail = email(&mut store, "an email about the contract");
    let b = store.remember("fact two", 1).unwrap().fact.id;
    store.forget(&[b], false, 2).unwrap();
    let cases: &[(&[i64], bool, &str)] = &[
        (&[a, 999], false, "no fact with id 999"),
        (&[a, mail], false, "is not a fact"),
        (&[a, mail], true, "is not a fact"),
        (&[b, a], false, "is already forgotten"),
    ];
    for (ids, purge, want) in cases {
        let err = store.forget(ids, *purge, 3).unwrap_err().to_string();
        assert!(err.contains(want), "{ids:?}: {err}");
        let active = count(
            &store,
            "SELECT count(*) FROM memory_facts WHERE retracted_at IS NULL",
        );
        assert_eq!(active, 1, "{ids:?} changed something");
    }
}

#[test]
fn purge_replaces_text_and_index_entry_with_a_tombstone() {
    let mut store = Store::open_in_memory().unwrap();
    let keep = store.remember("my locker code is zebraquartz", 1).unwrap();
    let secret = store.remember("my bank pin is quokkamango", 1).unwrap();
    store.forget(&[secret.fact.id], true, 9).unwrap();
    let f = &store.facts(true, 0).unwrap()[1];
    assert_eq!(f.text, TOMBSTONE);
    assert_eq!((f.retracted_at, f.purged_at), (Some(9), Some(9)));
    assert!(fts_hits(&store, "quokkamango").is_empty());
    assert_eq!(fts_hits(&store, "zebraquartz"), [keep.fact.id]);
    let hash: i64 = count(
        &store,
        &format!(
            "SELECT count(*) FROM memory_chunks WHERE source_id = '{}'",
            user_fact_source_id("my bank pin is quokkamango")
        ),
    );
    assert_eq!(hash, 0, "the source id must not keep a hash of the secret");
    store
        .conn
        .execute(
            "INSERT INTO memory_fts (memory_fts, rank) VALUES ('integrity-check', 1)",
            [],
        )
        .unwrap();
}

#[test]
fn purge_works_on_a_retracted_fact_but_not_twice() {
    let mut store = Store::open_in_memory().unwrap();
    let id = store.remember("a secret", 1).unwrap().fact.id;
    store.forget(&[id], false, 2).unwrap();
    let purged = store.forget(&[id], true, 3).unwrap();
    assert_eq!(purged[0].retracted_at, Some(2), "retraction time is kept");
    assert_eq!(purged[0].purged_at, Some(3));
    let err = store.forget(&[id], true, 4).unwrap_err().to_string();
    assert!(err.contains("already purged"), "{err}");
}

#[test]
fn find_active_facts_requires_every_word_and_skips_retracted() {
    let mut store = Store::open_in_memory().unwrap();
    let a = store.remember("Jane is allergic to shellfish", 1).unwrap();
    let b = store.remember("Jane works at Acme", 1).unwrap();
    store.remember("Kofi is allergic to cats", 1).unwrap();
    let ids = |s: &Store, e: &str| -> Vec<i64> {
        s.find_active_facts(e, 0)
            .unwrap()
            .iter()
            .map(|f| f.id)
            .collect()
    };
    assert_eq!(ids(&store, "is Jane allergic?"), [a.fact.id]);
    assert_eq!(ids(&store, "jane").len(), 2);
    store.forget(&[b.fact.id], false, 2).unwrap();
    assert_eq!(ids(&store, "jane"), [a.fact.id]);
}

#[test]
fn find_active_facts_is_safe_on_any_text() {
    let mut store = Store::open_in_memory().unwrap();
    store.remember("Jane is allergic to shellfish", 1).unwrap();
    for text in ["", "***", "\"", "jane OR NOT (", "NEAR(jane", "🦀"] {
        assert!(store.find_active_facts(text, 0).is_ok(), "{text:?}");
    }
}
