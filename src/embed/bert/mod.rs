//! A sentence-transformers BERT model (all-MiniLM-L6-v2 and its family) run
//! in-process on the CPU: `config.json`, `tokenizer.json` and
//! `model.safetensors` from a local folder; mean pooling, L2 normalisation.
//!
//! Hand-written rather than candle: the encoder is a few hundred lines over
//! `matrixmultiply` (and AMX tiles where the CPU has them, behind the one
//! product in `dense.rs`) and keeps the build and the binary small. The texts
//! of a batch are packed end to end with no padding: every dense layer is one
//! matrix product over all their tokens, and attention runs per text. A batch
//! is split over the available cores, by tokens.

#[cfg(target_arch = "x86_64")]
mod amx;
#[cfg(not(target_arch = "x86_64"))]
#[path = "amx_none.rs"]
mod amx;
mod dense;
mod encoder;
#[cfg(target_arch = "x86_64")]
mod int16;
#[cfg(not(target_arch = "x86_64"))]
#[path = "int16_none.rs"]
mod int16;
mod ops;
pub mod tensors;
#[doc(hidden)]
pub mod tiny;
mod tokenizer;

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::Deserialize;

use super::Embedder;
pub use encoder::Encoder;
use tokenizer::Tokenizer;

/// The parts of `config.json` the encoder needs.
#[derive(Debug, Clone, Deserialize)]
pub struct Config {
    pub hidden_size: usize,
    pub num_attention_heads: usize,
    pub num_hidden_layers: usize,
    pub intermediate_size: usize,
    pub max_position_embeddings: usize,
    pub vocab_size: usize,
    #[serde(default = "type_vocab")]
    pub type_vocab_size: usize,
    #[serde(default = "eps")]
    pub layer_norm_eps: f32,
    #[serde(default = "gelu")]
    pub hidden_act: String,
}

fn type_vocab() -> usize {
    2
}
fn eps() -> f32 {
    1e-12
}
fn gelu() -> String {
    "gelu".into()
}

/// Tokens per text when the folder does not say (sentence-transformers'
/// `sentence_bert_config.json` does: 256 for all-MiniLM-L6-v2).
const DEFAULT_MAX_SEQ: usize = 256;

/// Which products the in-process model runs on, for every model this
/// process opens (`ALFRED_MEM_EMBED_KERNEL`, read by `Config`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Kernel {
    /// AMX tiles where the CPU has them, else i16 products on AVX2, else
    /// f32 (docs/RETRIEVAL.md, "Embedding speed", for what each costs).
    #[default]
    Auto,
    /// f32 everywhere: the reference.
    F32,
    /// i16 products on AVX2 even where there are AMX tiles.
    Int16,
}

impl std::str::FromStr for Kernel {
    type Err = anyhow::Error;

    fn from_str(s: &str) -> Result<Kernel> {
        match s {
            "auto" => Ok(Kernel::Auto),
            "f32" => Ok(Kernel::F32),
            "int16" => Ok(Kernel::Int16),
            other => anyhow::bail!(
                "unknown kernel {:?}: use auto, f32 or int16",
                crate::sanitize::one_line(other)
            ),
        }
    }
}

static KERNEL: std::sync::OnceLock<Kernel> = std::sync::OnceLock::new();

/// Set the kernel every later `BertEmbedder::open` uses (once per process;
/// later calls change nothing).
pub fn set_kernel(kernel: Kernel) {
    let _ = KERNEL.set(kernel);
}

/// Threads a batch is spread over at most.
const MAX_THREADS: usize = 4;

pub struct BertEmbedder {
    name: String,
    tokenizer: Tokenizer,
    encoder: Encoder,
    max_seq: usize,
    threads: usize,
    pass_tokens: usize,
}

impl BertEmbedder {
    /// Load the model in `folder`. The weights are memory-mapped, not copied
    /// (tensors.rs).
    pub fn open(folder: &Path) -> Result<BertEmbedder> {
        let read = |name: &str| -> Result<String> {
            let p: PathBuf = folder.join(name);
            std::fs::read_to_string(&p).with_context(|| format!("could not read {}", p.display()))
        };
        let config_text = read("config.json")?;
        let config: Config =
            serde_json::from_str(&config_text).context("unreadable config.json")?;
        anyhow::ensure!(
            config.hidden_act == "gelu",
            "only gelu BERT models are supported (config.json says {})",
            config.hidden_act
        );
        let tokenizer = Tokenizer::from_json(&read("tokenizer.json")?)?;
        let max_seq = read("sentence_bert_config.json")
            .ok()
            .and_then(|s| serde_json::from_str::<serde_json::Value>(&s).ok())
            .and_then(|v| v["max_seq_length"].as_u64())
            .map_or(DEFAULT_MAX_SEQ, |n| n as usize)
            .min(config.max_position_embeddings);
        let tensors = tensors::Tensors::open(&folder.join("model.safetensors"))?;
        let id = hex::encode(
            &crate::store::vectors::text_hash(&format!(
                "{config_text}\n{}",
                hex::encode(tensors.header_hash)
            ))[..6],
        );
        let label = folder
            .canonicalize()
            .unwrap_or_else(|_| folder.to_path_buf())
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let encoder = Encoder::new(config, tensors)?;
        // Every core, up to MAX_THREADS: on an idle 2-core machine a second
        // thread takes 60-word texts from 87 to 163 chunks/s
        // (benches/embed.rs); on a machine busy with other work it gains
        // nothing, but does not lose either at batch 32.
        let threads = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(MAX_THREADS);
        let embedder = BertEmbedder {
            name: format!("bert:{label}:{id}"),
            tokenizer,
            encoder,
            max_seq,
            threads,
            pass_tokens: dense::pass_tokens(),
        };
        Ok(match KERNEL.get().copied().unwrap_or_default() {
            Kernel::Auto => embedder.with_int16(true),
            Kernel::F32 => embedder.without_amx(),
            Kernel::Int16 => embedder.without_amx().with_int16(true),
        })
    }

    /// Tokens per forward pass (tests use tiny passes to check the split).
    pub fn with_pass_tokens(mut self, n: usize) -> Self {
        self.pass_tokens = n.max(1);
        self
    }

    /// Keep every product on f32 even where AMX tiles are available.
    pub fn without_amx(mut self) -> Self {
        self.encoder = self.encoder.without_amx();
        self
    }

    /// Let long passes run on i16 products (`int16.rs`) on CPUs with AVX2
    /// and no AMX tiles.
    pub fn with_int16(mut self, on: bool) -> Self {
        self.encoder = self.encoder.with_int16(on);
        self
    }

    /// Tokens the model reads of `text` (for benchmarks' tokens per second).
    pub fn token_count(&self, text: &str) -> usize {
        self.tokenizer.encode(text, self.max_seq).len()
    }

    /// Use at most `n` threads per batch (1 disables threading).
    pub fn with_threads(mut self, n: usize) -> Self {
        self.threads = n.max(1);
        self
    }
}

impl Embedder for BertEmbedder {
    fn name(&self) -> &str {
        &self.name
    }

    fn dimension(&self) -> usize {
        self.encoder.hidden()
    }

    fn embed(&mut self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        let seqs: Vec<Vec<u32>> = texts
            .iter()
            .map(|t| self.tokenizer.encode(t, self.max_seq))
            .collect();
        // Texts of similar length together, in passes of at most
        // `pass_tokens` tokens: the activations of a pass stay in cache.
        let mut order: Vec<usize> = (0..seqs.len()).collect();
        order.sort_by_key(|&i| seqs[i].len());
        let mut passes: Vec<Vec<usize>> = vec![Vec::new()];
        let mut tokens = 0;
        for i in order {
            let last = passes.last_mut().expect("one pass");
            if !last.is_empty() && tokens + seqs[i].len() > self.pass_tokens {
                passes.push(vec![i]);
                tokens = seqs[i].len();
            } else {
                last.push(i);
                tokens += seqs[i].len();
            }
        }
        let encoder = &self.encoder;
        let seqs = &seqs;
        let run = |pass: &Vec<usize>| {
            let batch: Vec<&[u32]> = pass.iter().map(|&i| seqs[i].as_slice()).collect();
            (pass.clone(), encoder.encode(&batch))
        };
        let threads = self.threads.min(passes.len()).max(1);
        let results: Vec<(Vec<usize>, Vec<Vec<f32>>)> = if threads == 1 {
            passes.iter().map(run).collect()
        } else {
            std::thread::scope(|s| {
                let handles: Vec<_> = (0..threads)
                    .map(|t| {
                        let mine: Vec<&Vec<usize>> =
                            passes.iter().skip(t).step_by(threads).collect();
                        s.spawn(move || mine.into_iter().map(run).collect::<Vec<_>>())
                    })
                    .collect();
                handles
                    .into_iter()
                    .flat_map(|h| h.join().expect("encoder thread panicked"))
                    .collect()
            })
        };
        let mut out = vec![Vec::new(); texts.len()];
        for (idx, vecs) in results {
            for (i, v) in idx.into_iter().zip(vecs) {
                out[i] = v;
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests;
