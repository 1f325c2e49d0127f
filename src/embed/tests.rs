use std::borrow::Cow;

use super::*;
use crate::ingest::record::{Meta, Record};
use crate::kinds::SourceType;
use crate::store::vectors::text_hash;

/// A deterministic stand-in model: letter counts, normalised.
pub(crate) struct Letters {
    pub calls: usize,
}

impl Embedder for Letters {
    fn name(&self) -> &str {
        "test:letters"
    }
    fn dimension(&self) -> usize {
        26
    }
    fn embed(&mut self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        self.calls += texts.len();
        Ok(texts
            .iter()
            .map(|t| {
                let mut v = vec![0.0; 26];
                for b in t.bytes().filter(u8::is_ascii_lowercase) {
                    v[(b - b'a') as usize] += 1.0;
                }
                normalise(&mut v);
                v
            })
            .collect())
    }
}

fn store_with(texts: &[&str]) -> Store {
    let mut store = Store::open_in_memory().unwrap();
    let b = store.begin_batch(1).unwrap();
    for (i, t) in texts.iter().enumerate() {
        let rec = Record::email(&format!("m{i}"), Meta::default(), &[t], 1000 + i as i64);
        b.write(&rec).unwrap();
    }
    b.commit().unwrap();
    store
}

#[test]
fn fill_embeds_each_text_once_and_a_second_run_does_nothing() {
    let texts: Vec<String> = (0..70).map(|i| format!("text number {}", i % 50)).collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let mut store = store_with(&refs);
    let mut model = Letters { calls: 0 };
    let id = store.model_id(model.name(), 26, 1).unwrap();
    let first = fill(&mut store, &mut model, id, 0, |_| {}).unwrap();
    assert_eq!(first.chunks, 70);
    assert_eq!(model.calls, 50, "twenty chunks repeat a text");
    assert_eq!(
        store.vector_counts(id).unwrap(),
        crate::store::vectors::VectorCounts {
            embedded: 70,
            missing: 0
        }
    );
    let again = fill(&mut store, &mut model, id, 0, |_| {}).unwrap();
    assert_eq!(again, FillSummary::default());
}

#[test]
fn a_second_model_embeds_everything_again() {
    let mut store = store_with(&["alpha", "beta"]);
    let mut model = Letters { calls: 0 };
    let a = store.model_id("a", 26, 1).unwrap();
    let b = store.model_id("b", 26, 1).unwrap();
    fill(&mut store, &mut model, a, 0, |_| {}).unwrap();
    fill(&mut store, &mut model, b, 0, |_| {}).unwrap();
    assert_eq!(model.calls, 4);
    assert!(store.model_id("a", 8, 1).is_err(), "dimension is fixed");
}

#[test]
fn a_run_stopped_after_one_batch_resumes_with_the_rest() {
    let texts: Vec<String> = (0..BATCH * 2 + 3).map(|i| format!("t{i}")).collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let mut store = store_with(&refs);
    let id = store.model_id("test:letters", 26, 1).unwrap();
    struct FailSecond(Letters);
    impl Embedder for FailSecond {
        fn name(&self) -> &str {
            "x"
        }
        fn dimension(&self) -> usize {
            26
        }
        fn embed(&mut self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
            anyhow::ensure!(self.0.calls == 0, "killed");
            self.0.embed(texts)
        }
    }
    let mut failing = FailSecond(Letters { calls: 0 });
    assert!(fill(&mut store, &mut failing, id, 0, |_| {}).is_err());
    assert_eq!(store.vector_counts(id).unwrap().embedded, BATCH as u64);
    let mut model = Letters { calls: 0 };
    fill(&mut store, &mut model, id, 0, |_| {}).unwrap();
    assert_eq!(model.calls, BATCH + 3);
}

#[test]
fn vector_scores_respect_the_window_and_purged_facts_lose_their_vector() {
    let mut store = store_with(&["abc", "xyz"]);
    let fact = store.remember("secret fact text", 5).unwrap();
    let mut model = Letters { calls: 0 };
    let id = store.model_id("test:letters", 26, 1).unwrap();
    fill(&mut store, &mut model, id, 0, |_| {}).unwrap();
    let q = model.embed(&["abc"]).unwrap().remove(0);
    let query = |after: Option<i64>| crate::store::vectors::VectorQuery {
        model_id: id,
        vector: &q,
        after,
        before: None,
        sources: &[],
        as_of: None,
    };
    let all = store.vector_scores(&query(None)).unwrap();
    assert_eq!(all.len(), 3);
    let later = store.vector_scores(&query(Some(1001))).unwrap();
    assert_eq!(later.len(), 2, "the fact passes the window, abc does not");
    store.forget(&[fact.fact.id], true, 9).unwrap();
    let n: i64 = store
        .conn
        .query_row("SELECT count(*) FROM embeddings", [], |r| r.get(0))
        .unwrap();
    assert_eq!(n, 2);
}

#[test]
fn blobs_round_trip() {
    use crate::store::vectors::{blob_to_vector, vector_to_blob};
    let v = vec![1.5f32, -0.25, 0.0, 3.0e-8];
    assert_eq!(blob_to_vector(&vector_to_blob(&v)), v);
    assert_eq!(vector_to_blob(&[1.0])[..], 1.0f32.to_le_bytes());
}

#[test]
fn conversation_chunks_are_embedded_without_speaker_labels() {
    let cases: &[(SourceType, &str, &str)] = &[
        (
            SourceType::Conversation,
            "Ann: Lisbon?\nBob: Yes, Friday.",
            "Lisbon?\nYes, Friday.",
        ),
        (
            SourceType::Conversation,
            "user: hi\nassistant: Hello! How can I help?",
            "hi\nHello! How can I help?",
        ),
        // Multi-line message: a later line that looks like a label loses it too.
        (
            SourceType::Conversation,
            "Ann: the list\nNote: bring a towel",
            "the list\nbring a towel",
        ),
        // Not labels: punctuation, too long, nothing said, no ": ".
        (SourceType::Conversation, "Dr. Who: hello", "Dr. Who: hello"),
        (
            SourceType::Conversation,
            "Well, here: this",
            "Well, here: this",
        ),
        (
            SourceType::Conversation,
            "This sentence is far too long to be anybody's name: really",
            "This sentence is far too long to be anybody's name: really",
        ),
        (SourceType::Conversation, "Ann: ", "Ann: "),
        (
            SourceType::Conversation,
            "meet at 12:30 then",
            "meet at 12:30 then",
        ),
        (SourceType::Conversation, "", ""),
        // Other sources keep their colons.
        (
            SourceType::Email,
            "Subject: Acme\nTotal: 12.40",
            "Subject: Acme\nTotal: 12.40",
        ),
        (SourceType::Receipt, "Total: 12.40", "Total: 12.40"),
        (
            SourceType::Fact,
            "Ann: allergic to shellfish",
            "Ann: allergic to shellfish",
        ),
    ];
    for (source, text, want) in cases {
        assert_eq!(embedding_text(*source, text), *want, "{source} {text:?}");
    }
    assert!(matches!(
        embedding_text(SourceType::Conversation, "no label here"),
        Cow::Borrowed(_)
    ));
}

#[test]
fn fill_embeds_and_keys_the_label_free_text() {
    struct Recorder(Vec<String>, Letters);
    impl Embedder for Recorder {
        fn name(&self) -> &str {
            "test:letters"
        }
        fn dimension(&self) -> usize {
            26
        }
        fn embed(&mut self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
            self.0.extend(texts.iter().map(|t| t.to_string()));
            self.1.embed(texts)
        }
    }
    let mut store = Store::open_in_memory().unwrap();
    let b = store.begin_batch(1).unwrap();
    let chunk = |text: &str| crate::ingest::record::ChunkDraft {
        text: text.to_string(),
        dated_at: 1000,
        message_ids: vec!["m1".into()],
    };
    // The same words said by two people: one vector serves both chunks.
    let chunks = vec![
        chunk("Ann: see you in Lisbon"),
        chunk("Bob: see you in Lisbon"),
    ];
    let meta = Meta::default();
    b.write(&Record {
        source_type: SourceType::Conversation,
        source_id: "c1".into(),
        content_hash: crate::ingest::record::content_hash(&meta, &chunks),
        meta,
        chunks,
        warning: None,
    })
    .unwrap();
    b.write(&Record::email(
        "e1",
        Meta::default(),
        &["Ann: see you in Lisbon"],
        1000,
    ))
    .unwrap();
    b.commit().unwrap();
    let mut model = Recorder(Vec::new(), Letters { calls: 0 });
    let id = store.model_id("test:letters", 26, 1).unwrap();
    let done = fill(&mut store, &mut model, id, 0, |_| {}).unwrap();
    assert_eq!(done.chunks, 3);
    model.0.sort();
    assert_eq!(model.0, ["Ann: see you in Lisbon", "see you in Lisbon"]);
    let hashes: Vec<Vec<u8>> = store
        .conn
        .prepare("SELECT text_hash FROM chunk_text_hashes ORDER BY chunk_id")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let free = text_hash("see you in Lisbon").to_vec();
    assert_eq!(
        hashes,
        [
            free.clone(),
            free,
            text_hash("Ann: see you in Lisbon").to_vec()
        ]
    );
    assert_eq!(
        fill(&mut store, &mut model, id, 0, |_| {}).unwrap(),
        FillSummary::default()
    );
}
