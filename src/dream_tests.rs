//! Unit tests for the dream job over an in-memory store.

use super::*;
use crate::ingest::record::{ChunkDraft, Meta, Record, content_hash};
use crate::kinds::{FactMethod, SourceType};

const DAY: i64 = 86_400;
const NOW: i64 = 1_780_000_000;

fn email(store: &mut Store, source_id: &str, text: &str) -> i64 {
    let meta = Meta::default();
    let chunks = vec![ChunkDraft {
        text: text.into(),
        dated_at: NOW - 40 * DAY,
        message_ids: vec![],
    }];
    let rec = Record {
        source_type: SourceType::Email,
        source_id: source_id.into(),
        content_hash: content_hash(&meta, &chunks),
        meta,
        chunks,
        warning: None,
    };
    let b = store.begin_batch(NOW - 40 * DAY).unwrap();
    b.write(&rec).unwrap();
    b.commit().unwrap();
    count(store, "SELECT max(id) FROM memory_chunks")
}

/// One recall event, as search would log it.
fn recall(store: &Store, chunk_id: i64, query: &str, score: f64, at: i64) {
    store
        .conn
        .execute(
            "INSERT INTO recall_events (chunk_id, query_hash, score, recalled_at)
             VALUES (?1, ?2, ?3, ?4)",
            rusqlite::params![chunk_id, crate::rank::query_hash(query), score, at],
        )
        .unwrap();
}

fn count(store: &Store, sql: &str) -> i64 {
    store.conn.query_row(sql, [], |r| r.get(0)).unwrap()
}

/// The acceptance case: three different questions over a week.
fn found_by_three_queries(store: &mut Store) -> i64 {
    let id = email(
        store,
        "acme",
        "Acme signed the renewal; clause 7.2 was removed",
    );
    recall(store, id, "acme renewal", 0.9, NOW - 6 * DAY);
    recall(store, id, "clause 7.2", 0.8, NOW - 3 * DAY);
    recall(store, id, "did acme sign", 0.95, NOW - DAY);
    id
}

fn verdict(report: &Report, chunk_id: i64) -> &Verdict {
    &report
        .candidates
        .iter()
        .find(|c| c.recall.chunk_id == chunk_id)
        .unwrap()
        .verdict
}

#[test]
fn chunk_found_by_three_queries_in_a_week_is_promoted() {
    let mut store = Store::open_in_memory().unwrap();
    let chunk = found_by_three_queries(&mut store);
    let report = dream(&mut store, NOW, &chrono::Local, None, false).unwrap();
    let Verdict::Promoted(Some(fact_id)) = *verdict(&report, chunk) else {
        panic!("{report:?}");
    };
    let c = &report.candidates[0];
    assert_eq!((c.recall.recall_count, c.recall.unique_queries), (3, 3));
    assert!(c.score.total >= PROMOTION_THRESHOLD, "{c:?}");
    let facts = store.facts(false, 0).unwrap();
    assert_eq!(facts.len(), 1);
    assert_eq!(facts[0].id, fact_id);
    assert_eq!(facts[0].method, FactMethod::Dream);
    assert_eq!(
        facts[0].text,
        "Acme signed the renewal; clause 7.2 was removed"
    );
    assert_eq!(facts[0].promoted_from.as_ref().unwrap().id, chunk);
    assert_eq!(
        store.get_meta(LAST_DREAM_META).unwrap(),
        Some(NOW.to_string())
    );
}

#[test]
fn one_query_repeated_ten_times_is_not_promoted() {
    let mut store = Store::open_in_memory().unwrap();
    let id = email(&mut store, "spam", "Your parcel is waiting at the depot");
    for day in 0..10 {
        recall(&store, id, "parcel", 1.0, NOW - day * DAY);
    }
    let report = dream(&mut store, NOW, &chrono::Local, None, false).unwrap();
    let v = verdict(&report, id);
    assert!(!v.promotes());
    assert!(v.reason().contains("1 distinct query, needs 2"), "{v:?}");
    assert_eq!(count(&store, "SELECT count(*) FROM memory_facts"), 0);
}

#[test]
fn dry_run_reports_but_changes_nothing() {
    let mut store = Store::open_in_memory().unwrap();
    let chunk = found_by_three_queries(&mut store);
    recall(&store, chunk, "ancient", 1.0, NOW - 60 * DAY);
    let report = dream(&mut store, NOW, &chrono::Local, None, true).unwrap();
    assert_eq!(verdict(&report, chunk), &Verdict::Promoted(None));
    assert_eq!(report.pruned, 1, "reports what would be pruned");
    assert_eq!(count(&store, "SELECT count(*) FROM memory_facts"), 0);
    assert_eq!(count(&store, "SELECT count(*) FROM recall_events"), 4);
    assert_eq!(store.get_meta(LAST_DREAM_META).unwrap(), None);
}

#[test]
fn a_chunk_is_never_promoted_twice() {
    let mut store = Store::open_in_memory().unwrap();
    let chunk = found_by_three_queries(&mut store);
    let first = dream(&mut store, NOW, &chrono::Local, None, false).unwrap();
    let Verdict::Promoted(Some(fact)) = *verdict(&first, chunk) else {
        panic!("{first:?}");
    };
    // Retracting the fact must not invite the dream to learn it again.
    store.forget(&[fact], false, NOW + 1).unwrap();
    let again = dream(&mut store, NOW + DAY, &chrono::Local, None, false).unwrap();
    assert_eq!(verdict(&again, chunk), &Verdict::AlreadyPromoted(fact));
    assert_eq!(count(&store, "SELECT count(*) FROM memory_facts"), 1);
}

#[test]
fn near_duplicate_of_an_active_fact_is_skipped() {
    let mut store = Store::open_in_memory().unwrap();
    let user = store
        .remember("Acme signed the renewal; clause 7.2 was removed.", NOW)
        .unwrap()
        .fact
        .id;
    let chunk = found_by_three_queries(&mut store);
    let report = dream(&mut store, NOW, &chrono::Local, None, false).unwrap();
    let Verdict::NearDuplicate { of, jaccard } = verdict(&report, chunk) else {
        panic!("{report:?}");
    };
    assert_eq!(*of, Kept::Fact(user));
    assert!(*jaccard >= FACT_NEAR_DUPLICATE_JACCARD);
}

#[test]
fn two_near_identical_chunks_promote_once_the_better_one() {
    let mut store = Store::open_in_memory().unwrap();
    let a = email(&mut store, "a", "Kofi leads the Orion project from Accra");
    let b = email(&mut store, "b", "Kofi leads the Orion project from Accra!");
    for (id, best) in [(a, 0.7), (b, 0.9)] {
        recall(&store, id, "who leads orion", best, NOW - DAY);
        recall(&store, id, "kofi accra", best, NOW - DAY);
        recall(&store, id, "orion project lead", best, NOW);
    }
    for dry_run in [true, false] {
        let report = dream(&mut store, NOW, &chrono::Local, None, dry_run).unwrap();
        assert!(verdict(&report, b).promotes(), "{dry_run}: {report:?}");
        assert!(
            matches!(verdict(&report, a), Verdict::NearDuplicate { .. }),
            "{dry_run}: {report:?}"
        );
    }
}

#[test]
fn only_current_dated_chunks_are_candidates() {
    let mut store = Store::open_in_memory().unwrap();
    let fact = store.remember("I am allergic to shellfish", NOW).unwrap();
    let old = email(&mut store, "m", "first version of the message");
    email(&mut store, "m", "second version of the message"); // supersedes `old`
    for q in ["a", "b", "c"] {
        recall(&store, fact.fact.id, q, 1.0, NOW);
        recall(&store, old, q, 1.0, NOW);
    }
    let report = dream(&mut store, NOW, &chrono::Local, None, false).unwrap();
    assert!(report.candidates.is_empty(), "{report:?}");
}

#[test]
fn events_outside_the_window_do_not_count_and_are_pruned_after_the_routine_window() {
    let mut store = Store::open_in_memory().unwrap();
    let id = email(&mut store, "x", "The boiler was serviced by Hock Seng");
    recall(&store, id, "boiler", 1.0, NOW - 57 * DAY);
    recall(&store, id, "boiler service", 1.0, NOW - 31 * DAY);
    recall(&store, id, "hock seng", 1.0, NOW - 2 * DAY);
    let report = dream(&mut store, NOW, &chrono::Local, None, false).unwrap();
    assert_eq!(report.candidates[0].recall.recall_count, 1);
    // Kept for routine mining's 56 days, though promotion scores only 30.
    assert_eq!(report.pruned, 1);
    assert_eq!(count(&store, "SELECT count(*) FROM recall_events"), 2);
}

#[test]
fn reasons_name_every_failed_gate() {
    let cases: &[(u64, u64, f64, &[&str])] = &[
        (2, 2, 1.0, &["2 recalls, needs 3"]),
        (3, 1, 1.0, &["1 distinct query, needs 2"]),
        (
            1,
            1,
            0.0,
            &["below 0.60", "1 recall, needs 3", "1 distinct query"],
        ),
    ];
    for (recalls, queries, best, want) in cases {
        let c = score(
            RecallAggregate {
                chunk_id: 1,
                recall_count: *recalls,
                unique_queries: *queries,
                max_score: *best,
                last_recalled_at: NOW,
                promoted_as: None,
            },
            NOW,
        );
        for w in *want {
            assert!(c.verdict.reason().contains(w), "{want:?}: {c:?}");
        }
    }
}
