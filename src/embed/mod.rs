//! Semantic recall's other half: turning text into vectors.
//!
//! An `Embedder` maps texts to unit-length vectors. The configured model is a
//! `ModelSpec` kept in the database (`model use`), so every command sees the
//! same one and no environment variable changes what search does. `fill`
//! embeds whatever chunks still lack a vector, one committed batch at a time.

pub mod bert;
pub mod http;

use std::borrow::Cow;
use std::path::Path;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use crate::kinds::SourceType;
use crate::store::Store;
use crate::store::vectors::{MODEL_META_KEY, text_hash};

/// Something that turns texts into vectors of one fixed length.
pub trait Embedder {
    /// The model's identity, as recorded beside its vectors: vectors from
    /// two names are never compared.
    fn name(&self) -> &str;
    fn dimension(&self) -> usize;
    /// One unit-length vector per text, in order.
    fn embed(&mut self, texts: &[&str]) -> Result<Vec<Vec<f32>>>;
}

/// The model `model use` configured, as stored in the meta table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum ModelSpec {
    /// A sentence-transformers BERT folder, run in-process.
    Bert {
        path: String,
        name: String,
        model_id: i64,
        dimension: usize,
    },
    /// An OpenAI-compatible `/v1/embeddings` endpoint.
    Http {
        url: String,
        model: String,
        key_env: Option<String>,
        name: String,
        model_id: i64,
        dimension: usize,
    },
}

impl ModelSpec {
    pub fn model_id(&self) -> i64 {
        match self {
            ModelSpec::Bert { model_id, .. } | ModelSpec::Http { model_id, .. } => *model_id,
        }
    }

    pub fn dimension(&self) -> usize {
        match self {
            ModelSpec::Bert { dimension, .. } | ModelSpec::Http { dimension, .. } => *dimension,
        }
    }

    /// The embedder this spec describes, ready to use. A folder whose
    /// contents changed since `model use` is refused: its vectors would not
    /// be comparable with the stored ones.
    pub fn open(&self) -> Result<Box<dyn Embedder>> {
        let e: Box<dyn Embedder> = match self {
            ModelSpec::Bert { path, .. } => Box::new(bert::BertEmbedder::open(Path::new(path))?),
            ModelSpec::Http {
                url,
                model,
                key_env,
                dimension,
                ..
            } => Box::new(http::HttpEmbedder::open(
                url,
                model,
                key_env.as_deref(),
                Some(*dimension),
            )?),
        };
        anyhow::ensure!(
            e.name() == self.name(),
            "the model at {} changed since `model use` (now {}); run `alfred-mem model use` again",
            self.location(),
            e.name()
        );
        Ok(e)
    }

    pub fn name(&self) -> &str {
        match self {
            ModelSpec::Bert { name, .. } | ModelSpec::Http { name, .. } => name,
        }
    }

    /// Where the model lives: a folder or a URL.
    pub fn location(&self) -> &str {
        match self {
            ModelSpec::Bert { path, .. } => path,
            ModelSpec::Http { url, .. } => url,
        }
    }

    /// Resolve `model use TARGET`: an `http://` or `https://` URL is an endpoint (which
    /// needs a model name), anything else a model folder. The model is
    /// loaded or probed once, so a bad target fails here, and registered.
    pub fn configure(
        store: &Store,
        target: &str,
        name: Option<&str>,
        key_env: Option<&str>,
        now: i64,
    ) -> Result<ModelSpec> {
        if target.contains("://") {
            let model = name.context("an endpoint needs the model name: add --name MODEL")?;
            let h = http::HttpEmbedder::open(target, model, key_env, None)?;
            let (url, model, key_env) = (
                target.to_string(),
                model.to_string(),
                key_env.map(String::from),
            );
            let dim = h.dimension();
            let id = store.model_id(h.name(), dim, now)?;
            return Ok(ModelSpec::Http {
                url,
                model,
                key_env,
                name: h.name().to_string(),
                model_id: id,
                dimension: dim,
            });
        }
        anyhow::ensure!(
            name.is_none() && key_env.is_none(),
            "--name and --key-env are for endpoints; a model folder names itself"
        );
        let folder = Path::new(target);
        let path = folder
            .canonicalize()
            .with_context(|| format!("no model folder at {target}"))?;
        let b = bert::BertEmbedder::open(&path)?;
        let dim = b.dimension();
        let id = store.model_id(b.name(), dim, now)?;
        Ok(ModelSpec::Bert {
            path: path.to_string_lossy().into_owned(),
            name: b.name().to_string(),
            model_id: id,
            dimension: dim,
        })
    }

    /// The configured model, if any.
    pub fn load(store: &Store) -> Result<Option<ModelSpec>> {
        store
            .get_meta(MODEL_META_KEY)?
            .map(|s| serde_json::from_str(&s).context("the configured model is unreadable"))
            .transpose()
    }

    pub fn save(&self, store: &Store) -> Result<()> {
        store.set_meta(MODEL_META_KEY, &serde_json::to_string(self)?)
    }
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
}

/// Give every current chunk a vector from `embedder`, committing after each
/// batch so a killed run resumes where it stopped. `progress` hears the
/// number of chunks done so far.
pub fn fill(
    store: &mut Store,
    embedder: &mut dyn Embedder,
    model_id: i64,
    mut progress: impl FnMut(u64),
) -> Result<FillSummary> {
    let mut summary = FillSummary::default();
    let mut cursor = 0;
    loop {
        let pending = store.pending_chunks(model_id, cursor, BATCH)?;
        let Some(last) = pending.last() else {
            return Ok(summary);
        };
        cursor = last.id;
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
        progress(summary.chunks);
    }
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

/// Scale `v` to unit length (a zero vector stays zero).
pub fn normalise(v: &mut [f32]) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
}

#[cfg(test)]
mod tests;
