//! Giving chunks their vectors: [`fill`] embeds whatever chunks still lack
//! one, a committed batch at a time; [`fill_missing`] opens the configured
//! model only when there is work for it, and [`fill_after_write`] does the
//! same after a command wrote chunks, where a failure is only a warning.

use std::borrow::Cow;
use std::time::{Duration, Instant};

use anyhow::Result;
use serde::Serialize;

use super::queue::Queue;
use super::{Embedder, ModelSpec};
use crate::kinds::SourceType;
use crate::rank::association::{SEMANTIC_MIN_COSINE, SEMANTIC_NEIGHBOURS, semantic_strength};
use crate::store::Store;
use crate::store::vectors::text_hash;

/// Where a long embedding run reports; the command decides how (a progress
/// bar on a terminal, nothing under cron).
pub trait FillObserver {
    /// `total` chunks lack a vector and the model is open.
    fn started(&mut self, total: u64);
    /// `done` chunks of them have one now.
    fn progress(&mut self, done: u64);
    /// The run is over, done or failed.
    fn finished(&mut self);
    /// After a write, the new chunks could not be embedded: `error` says
    /// why; they are stored and searchable by their words.
    fn not_embedded(&mut self, error: &anyhow::Error);
}

/// Embed every chunk still missing a vector of `spec`'s model, most useful
/// first (`queue.rs`), stopping before `until` if one is given. The model is
/// opened only if there is work for it.
pub fn fill_missing(
    store: &mut Store,
    spec: &ModelSpec,
    now: i64,
    until: Option<Instant>,
    observer: &mut dyn FillObserver,
) -> Result<FillSummary> {
    let total = store.vector_counts(spec.model_id())?.missing;
    if total == 0 {
        store.keep_vector_index(spec.model_id(), now)?;
        return Ok(FillSummary::default());
    }
    // Which chunks go first matters only to a run longer than one batch;
    // a small run skips reading the recall log.
    let queue = Queue::new(store, spec.model_id(), total > BATCH as u64)?;
    fill_queue(store, spec, total, queue, now, until, observer)
}

/// Embed the `total` chunks of `queue` with `spec`'s model (opened here),
/// telling `observer`, then keep the model's index.
fn fill_queue(
    store: &mut Store,
    spec: &ModelSpec,
    total: u64,
    queue: Queue,
    now: i64,
    until: Option<Instant>,
    observer: &mut dyn FillObserver,
) -> Result<FillSummary> {
    let mut embedder = spec.open()?;
    observer.started(total);
    let result = fill_within(store, embedder.as_mut(), queue, now, until, |done| {
        observer.progress(done)
    });
    observer.finished();
    if result.is_ok() {
        store.keep_vector_index(spec.model_id(), now)?;
    }
    result
}

/// After a command wrote chunks (an import, `remember`, `dream`, an
/// append): embed them if a model is configured. What it wrote is every
/// chunk with an id above `written_after` (`Store::last_chunk_id` before
/// writing); older chunks still without a vector are left to `alfred-mem
/// embed`, because finding them walks the whole archive (a minute at 1M
/// messages, for an import of 100: docs/PERFORMANCE.md). A failure is told
/// to `observer`, not returned: the text is stored and searchable, and
/// `alfred-mem embed` can finish the job later.
pub fn fill_after_write(
    store: &mut Store,
    written_after: i64,
    now: i64,
    observer: &mut dyn FillObserver,
) -> Result<()> {
    let Some(spec) = ModelSpec::load(store)? else {
        return Ok(());
    };
    let filled = (|| -> Result<FillSummary> {
        let total = store.pending_count_after(spec.model_id(), written_after)?;
        if total == 0 {
            return Ok(FillSummary::default());
        }
        let queue = Queue::written_after(spec.model_id(), written_after);
        fill_queue(store, &spec, total, queue, now, None, observer)
    })();
    if let Err(e) = filled {
        observer.not_embedded(&e);
    }
    Ok(())
}

/// Chunks embedded per call and per committed transaction.
pub const BATCH: usize = 32;

/// What `fill` did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct FillSummary {
    /// Chunks that now have a vector.
    pub chunks: u64,
    /// Texts actually sent through the model (others shared a known text).
    pub embedded: u64,
    /// Semantic links formed from the new vectors (`link_by_meaning`).
    pub links: u64,
    /// The run stopped at its time budget with chunks left.
    pub budget_reached: bool,
}

/// Give every current chunk a vector from `embedder`, committing after each
/// batch so a killed run resumes where it stopped, and link the first
/// [`SEMANTIC_LINK_BUDGET`] newly embedded chunks to their nearest in
/// meaning, as of `now`. `progress` hears the number of chunks done so far.
pub fn fill(
    store: &mut Store,
    embedder: &mut dyn Embedder,
    model_id: i64,
    now: i64,
    progress: impl FnMut(u64),
) -> Result<FillSummary> {
    let queue = Queue::new(store, model_id, true)?;
    fill_within(store, embedder, queue, now, None, progress)
}

/// [`fill`] in the order of `queue` (`queue.rs`), without starting a batch
/// that would not end before `until` (judged by the last batch's time): the
/// run then stops with `budget_reached`, everything embedded so far
/// committed.
fn fill_within(
    store: &mut Store,
    embedder: &mut dyn Embedder,
    mut queue: Queue,
    now: i64,
    until: Option<Instant>,
    mut progress: impl FnMut(u64),
) -> Result<FillSummary> {
    let model_id = queue.model_id();
    let mut summary = FillSummary::default();
    let mut last_batch = Duration::ZERO;
    loop {
        if until.is_some_and(|u| Instant::now() + last_batch >= u) {
            summary.budget_reached = store.vector_counts(model_id)?.missing > 0;
            return Ok(summary);
        }
        let batch_started = Instant::now();
        let pending = queue.next_batch(store, BATCH)?;
        if pending.is_empty() {
            return Ok(summary);
        }
        let inputs: Vec<Cow<str>> = pending
            .iter()
            .map(|c| embedding_text(c.source_type, &c.text))
            .collect();
        let hashes: Vec<[u8; 32]> = inputs.iter().map(|t| text_hash(t)).collect();
        let known = store.known_hashes(model_id, &hashes)?;
        let mut texts: Vec<&str> = Vec::new();
        let mut new_hashes: Vec<[u8; 32]> = Vec::new();
        for ((t, h), k) in inputs.iter().zip(&hashes).zip(&known) {
            if !k && !new_hashes.contains(h) {
                texts.push(t);
                new_hashes.push(*h);
            }
        }
        let vectors = if texts.is_empty() {
            Vec::new()
        } else {
            embedder.embed(&texts)?
        };
        anyhow::ensure!(
            vectors.len() == texts.len(),
            "the model returned {} vectors for {} texts",
            vectors.len(),
            texts.len()
        );
        if let Some(v) = vectors.iter().find(|v| v.len() != embedder.dimension()) {
            anyhow::bail!(
                "the model returned a {}-dimension vector, expected {}",
                v.len(),
                embedder.dimension()
            );
        }
        let links: Vec<(i64, [u8; 32])> = pending.iter().map(|c| c.id).zip(hashes).collect();
        let stored: Vec<([u8; 32], Vec<f32>)> = new_hashes.into_iter().zip(vectors).collect();
        store.store_vectors(model_id, &links, &stored)?;
        summary.chunks += links.len() as u64;
        summary.embedded += stored.len() as u64;
        if summary.embedded <= SEMANTIC_LINK_BUDGET {
            summary.links += link_by_meaning(store, model_id, &links, &stored, now)?;
        }
        progress(summary.chunks);
        last_batch = batch_started.elapsed();
    }
}

/// The newly embedded chunks one run links by meaning (seed 003's
/// auto-linking budget): each costs a probe of the vector index (or,
/// without one, a share of a scan of every vector, batched [`BATCH`]
/// chunks per scan), so an import of a whole mailbox links its first 4096
/// new chunks and stays about as fast (docs/PERFORMANCE.md).
pub const SEMANTIC_LINK_BUDGET: u64 = 4096;

/// Links each chunk whose vector was just computed (the first chunk with
/// each new text) to its nearest chunks of other sources above the cosine
/// threshold (`rank::association`). Returns the links formed.
fn link_by_meaning(
    store: &Store,
    model_id: i64,
    chunks: &[(i64, [u8; 32])],
    vectors: &[([u8; 32], Vec<f32>)],
    now: i64,
) -> Result<u64> {
    let probes: Vec<(i64, &[f32])> = vectors
        .iter()
        .filter_map(|(h, v)| {
            let id = chunks.iter().find(|c| &c.1 == h)?.0;
            Some((id, v.as_slice()))
        })
        .collect();
    if probes.is_empty() {
        return Ok(0);
    }
    let nearest =
        store.nearest_chunks(model_id, &probes, SEMANTIC_NEIGHBOURS, SEMANTIC_MIN_COSINE)?;
    let mut formed = 0;
    for ((id, _), near) in probes.iter().zip(nearest) {
        let near: Vec<(i64, f64)> = near
            .into_iter()
            .map(|(other, cos)| (other, semantic_strength(cos)))
            .collect();
        formed += store.link_semantic(*id, &near, now)? as u64;
    }
    Ok(formed)
}

/// A speaker label longer than this (in characters) is not a label: the
/// colon belongs to the sentence.
const SPEAKER_LABEL_MAX_CHARS: usize = 40;

/// The text a chunk's vector is computed from, and whose hash keys it.
///
/// A conversation chunk is rendered as `speaker: text` lines; its vector is
/// computed without the `speaker: ` labels. A vector is the mean of its
/// tokens, and in a two-person chat every window names the same two people
/// (or `user` and `assistant`), so the labels only pull all windows of a
/// conversation towards each other. Who said it is still searchable by its
/// words: the full-text side indexes the chunk text as stored. Measured on
/// LoCoMo turn recall@10 (docs/RETRIEVAL.md): hybrid 0.659 with labels,
/// 0.666 without. Other sources are embedded as they are: a colon in an
/// e-mail or a receipt ("Total: 12.40") is content.
///
/// A label is what comes before the first `": "` of a line, if it is at most
/// [`SPEAKER_LABEL_MAX_CHARS`] long and holds no sentence punctuation; a line
/// of a multi-line message that looks like one ("Note: ...") loses it too,
/// which changes its vector a little and nothing else.
pub fn embedding_text(source_type: SourceType, text: &str) -> Cow<'_, str> {
    if source_type != SourceType::Conversation {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut changed = false;
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let rest = line.find(": ").and_then(|at| {
            let label = &line[..at];
            let spoken = line[at + 2..].trim_start();
            let is_label = !label.trim().is_empty()
                && label.chars().count() <= SPEAKER_LABEL_MAX_CHARS
                && !label.contains(['.', ',', '?', '!', ';', ':'])
                && !spoken.is_empty();
            is_label.then_some(spoken)
        });
        match rest {
            Some(spoken) => {
                out.push_str(spoken);
                changed = true;
            }
            None => out.push_str(line),
        }
    }
    if changed {
        Cow::Owned(out)
    } else {
        Cow::Borrowed(text)
    }
}
