//! Record writing tests: unchanged and changed records, e-mails that share a
//! Message-ID, rows from before fingerprints.

use super::*;
use crate::ingest::record::content_hash;

fn rec(id: &str, text: &str) -> Record {
    let meta = Meta {
        subject: Some("s".into()),
        ..Meta::default()
    };
    let chunks = vec![ChunkDraft {
        text: text.into(),
        dated_at: 1_700_000_000,
        message_ids: vec![],
    }];
    Record {
        source_type: SourceType::Email,
        source_id: id.into(),
        content_hash: content_hash(&meta, &chunks),
        meta,
        chunks,
        warning: None,
    }
}

fn count(store: &Store, sql: &str) -> i64 {
    store.conn.query_row(sql, [], |r| r.get(0)).unwrap()
}

#[test]
fn same_content_twice_is_unchanged_and_adds_no_rows() {
    let mut store = Store::open_in_memory().unwrap();
    let b = store.begin_batch(1).unwrap();
    assert_eq!(
        b.write(&rec("a", "hello")).unwrap(),
        WriteOutcome::Indexed { chunks: 1 }
    );
    b.commit().unwrap();
    let b = store.begin_batch(2).unwrap();
    assert_eq!(
        b.write(&rec("a", "hello")).unwrap(),
        WriteOutcome::Unchanged
    );
    b.commit().unwrap();
    assert_eq!(count(&store, "SELECT count(*) FROM memory_chunks"), 1);
}

#[test]
fn a_record_that_grew_at_its_end_rewrites_only_its_tail() {
    let grown = |texts: &[&str]| {
        let mut r = rec("a", texts[0]);
        r.chunks = texts
            .iter()
            .map(|t| ChunkDraft {
                text: t.to_string(),
                dated_at: 1_700_000_000,
                message_ids: vec![],
            })
            .collect();
        r.content_hash = content_hash(&r.meta, &r.chunks);
        r
    };
    let mut store = Store::open_in_memory().unwrap();
    let b = store.begin_batch(1).unwrap();
    b.write(&grown(&["one", "two"])).unwrap();
    assert_eq!(
        b.write(&grown(&["one", "two and more", "three"])).unwrap(),
        WriteOutcome::Indexed { chunks: 2 }
    );
    b.commit().unwrap();
    assert_eq!(count(&store, "SELECT count(*) FROM memory_chunks"), 4);
    assert_eq!(
        count(
            &store,
            "SELECT count(*) FROM memory_chunks WHERE superseded_at IS NULL AND id = 1"
        ),
        1,
        "the first chunk was kept"
    );
}

#[test]
fn changed_content_supersedes_and_appends() {
    let mut store = Store::open_in_memory().unwrap();
    let b = store.begin_batch(1).unwrap();
    b.write(&rec("a", "hello")).unwrap();
    b.write(&rec("a", "hello again")).unwrap();
    b.commit().unwrap();
    assert_eq!(count(&store, "SELECT count(*) FROM memory_chunks"), 2);
    assert_eq!(
        count(
            &store,
            "SELECT count(*) FROM memory_chunks WHERE superseded_at IS NULL"
        ),
        1
    );
    assert_eq!(count(&store, "SELECT count(*) FROM memory_sources"), 1);
}

fn ident(fingerprint: i64) -> EmailIdentity<'static> {
    EmailIdentity {
        fingerprint,
        dated_by: None,
        legacy_id: None,
        replies_to: None,
    }
}

fn source_ids(store: &Store) -> Vec<String> {
    let mut stmt = store
        .conn
        .prepare("SELECT source_id FROM memory_sources ORDER BY id")
        .unwrap();
    stmt.query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

#[test]
fn emails_sharing_a_message_id_are_told_apart_by_content_and_fingerprint() {
    use WriteOutcome::*;
    let mut store = Store::open_in_memory().unwrap();
    let b = store.begin_batch(1).unwrap();
    let cases = [
        (
            "first message",
            rec("m@x", "jane bounced"),
            1,
            Indexed { chunks: 1 },
        ),
        (
            "another message, same id",
            rec("m@x", "kofi bounced"),
            2,
            Indexed { chunks: 1 },
        ),
        ("the first again", rec("m@x", "jane bounced"), 1, Unchanged),
        ("the second again", rec("m@x", "kofi bounced"), 2, Unchanged),
        (
            "same text, other raw bytes",
            rec("m@x", "kofi bounced"),
            3,
            Unchanged,
        ),
        (
            "the first, read better",
            rec("m@x", "jane bounced twice"),
            1,
            Indexed { chunks: 1 },
        ),
    ];
    for (why, r, fp, want) in cases {
        assert_eq!(b.write_email(&r, &ident(fp)).unwrap(), want, "{why}");
    }
    b.commit().unwrap();
    assert_eq!(source_ids(&store), ["m@x", &variant_id("m@x", 2)]);
    assert_eq!(variant_id("m@x", 2), "m@x#0000000000000002");
    assert_eq!(variant_id("m@x", -1), "m@x#ffffffffffffffff");
    let current = count(
        &store,
        "SELECT count(*) FROM memory_chunks WHERE superseded_at IS NULL",
    );
    assert_eq!(current, 2, "the first message's old text is superseded");
}

#[test]
fn rows_from_before_fingerprints_are_claimed_not_doubled() {
    let mut store = Store::open_in_memory().unwrap();
    let b = store.begin_batch(1).unwrap();
    b.write(&rec("old@x", "text as the old version read it"))
        .unwrap();
    b.write(&rec("sha256:raw", "an id-less message")).unwrap();
    b.commit().unwrap();
    let b = store.begin_batch(2).unwrap();
    let better = rec("old@x", "text as this version reads it");
    assert!(matches!(
        b.write_email(&better, &ident(7)).unwrap(),
        WriteOutcome::Indexed { .. }
    ));
    let id_less = rec("sha256:fingerprint", "an id-less message");
    let legacy = EmailIdentity {
        legacy_id: Some("sha256:raw"),
        replies_to: None,
        ..ident(8)
    };
    assert_eq!(
        b.write_email(&id_less, &legacy).unwrap(),
        WriteOutcome::Unchanged
    );
    b.commit().unwrap();
    assert_eq!(source_ids(&store), ["old@x", "sha256:raw"]);
    assert_eq!(
        count(
            &store,
            "SELECT fingerprint FROM memory_sources WHERE source_id = 'old@x'"
        ),
        7
    );
}

#[test]
fn a_message_id_that_prefixes_another_is_not_its_variant() {
    let mut store = Store::open_in_memory().unwrap();
    let b = store.begin_batch(1).unwrap();
    b.write_email(&rec("a@x", "one"), &ident(1)).unwrap();
    b.write_email(&rec("a@x!", "two"), &ident(2)).unwrap();
    b.write_email(&rec("a@x#note", "three"), &ident(3)).unwrap();
    b.commit().unwrap();
    assert_eq!(source_ids(&store), ["a@x", "a@x!", "a@x#note"]);
}

/// FTS5 compares its index with the rows (the view `memory_chunks`) only
/// when asked with rank 1.
fn index_agrees_with_rows(store: &Store) {
    store
        .conn
        .execute(
            "INSERT INTO memory_fts (memory_fts, rank) VALUES ('integrity-check', 1)",
            [],
        )
        .expect("the full-text index agrees with the rows");
}

/// A letter re-read with its first chunks unchanged but new recipients
/// (they are not in the content hash) is written again whole: chunks after
/// kept ones borrow the kept ones' labels, so keeping chunks whose
/// recipients differ would show one list and have indexed another. Found by
/// a second reader; with recipients left out of `kept_prefix` the index no
/// longer agrees with the rows, and a purged letter stays findable by `to:`.
#[test]
fn new_recipients_rewrite_the_whole_letter_and_purge_leaves_nothing() {
    use crate::store::sources::SourceRef;
    let mut store = Store::open_in_memory().unwrap();
    let letter = |to: Option<&str>, last: &str| {
        let meta = Meta {
            subject: Some("Harbour".into()),
            sender: Some("s@x".into()),
            recipients: to.map(String::from),
            ..Meta::default()
        };
        Record::email(
            "m@x",
            meta,
            &["alpha chunk", "beta chunk", last],
            1_700_000_000,
        )
    };
    let b = store.begin_batch(1).unwrap();
    b.write(&letter(None, "gamma chunk")).unwrap();
    b.commit().unwrap();
    let b = store.begin_batch(2).unwrap();
    assert_eq!(
        b.write(&letter(Some("zebrawoman@x"), "delta chunk"))
            .unwrap(),
        WriteOutcome::Indexed { chunks: 3 }
    );
    b.commit().unwrap();
    index_agrees_with_rows(&store);
    assert_eq!(
        count(
            &store,
            "SELECT count(*) FROM memory_chunks
             WHERE superseded_at IS NULL AND recipients = 'zebrawoman@x'"
        ),
        3
    );
    store
        .forget_sources(
            &[SourceRef {
                source_type: SourceType::Email,
                source_id: "m@x".into(),
            }],
            true,
            3,
        )
        .unwrap();
    index_agrees_with_rows(&store);
    for word in ["zebrawoman", "harbour", "alpha", "delta"] {
        let rows: i64 = store
            .conn
            .query_row(
                "SELECT count(*) FROM memory_fts WHERE memory_fts MATCH ?1",
                [word],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(rows, 0, "{word}");
    }
}
