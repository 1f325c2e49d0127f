//! Semantic recall's other half: turning text into vectors.
//!
//! An `Embedder` maps texts to unit-length vectors. The configured model is a
//! `ModelSpec` kept in the database (`model use`), so every command sees the
//! same one and no environment variable changes what search does. `fill.rs`
//! embeds whatever chunks still lack a vector, one committed batch at a time.

pub mod bert;
mod budget;
mod fill;
pub mod http;
mod queue;
pub mod rate;

use std::path::Path;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use crate::store::Store;
use crate::store::vectors::{MODEL_META_KEY, VectorCounts};

pub use budget::parse_budget;
pub use fill::{
    BATCH, FillObserver, FillSummary, embedding_text, fill, fill_after_write, fill_missing,
};

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

/// A model, how many chunks have its vectors, and how long the rest would
/// take at the last run's rate (`model status`, `status`).
#[derive(Debug, Clone, Copy)]
pub struct Coverage<'a> {
    pub spec: &'a ModelSpec,
    pub counts: VectorCounts,
    /// None when no run of this model was recorded.
    pub estimate: Option<rate::Estimate>,
}

/// The [`Coverage`] of `spec`, if a model is configured.
pub fn coverage<'a>(store: &Store, spec: Option<&'a ModelSpec>) -> Result<Option<Coverage<'a>>> {
    let Some(spec) = spec else {
        return Ok(None);
    };
    let counts = store.vector_counts(spec.model_id())?;
    let estimate =
        rate::EmbedRate::load(store, spec.model_id())?.map(|r| r.estimate(counts.missing));
    Ok(Some(Coverage {
        spec,
        counts,
        estimate,
    }))
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
