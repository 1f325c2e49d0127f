//! The BERT forward pass over a batch of token-id sequences, packed end to
//! end: embeddings → N × (self-attention, feed-forward), each with a residual
//! connection and layer norm → mean of each text's token vectors → unit
//! length. Dense layers are single matrix products over all tokens of the
//! batch: f32 `sgemm`, or bf16 AMX tiles (`amx`) for passes of at least
//! `AMX_MIN_TOKENS` tokens on a CPU that has them.

use std::sync::OnceLock;

use anyhow::Result;

use super::Config;
use super::amx::{self, Bf16Rows, PackedWeights};
use super::ops::{add_norm, attend, gelu_all, linear, norm_rows};
use super::safetensors::Tensors;

/// Passes shorter than this stay on f32: a search's query (a few tokens)
/// gets the exact vector without paying for converting the weights, while
/// `embed`'s batches (hundreds of tokens per pass) take the 4x faster tiles.
const AMX_MIN_TOKENS: usize = 64;

/// The six dense layers of a BERT layer, by name without the `.weight` /
/// `.bias` suffix; the indices below pick one.
const DENSE: [&str; 6] = [
    "attention.self.query",
    "attention.self.key",
    "attention.self.value",
    "attention.output.dense",
    "intermediate.dense",
    "output.dense",
];
const Q: usize = 0;
const K: usize = 1;
const V: usize = 2;
const O: usize = 3;
const UP: usize = 4;
const DOWN: usize = 5;

/// (outputs, inputs) of dense layer `which` (`Q`..`DOWN`) of a BERT of `c`.
fn dense_shape(c: &Config, which: usize) -> (usize, usize) {
    let (h, i) = (c.hidden_size, c.intermediate_size);
    match which {
        UP => (i, h),
        DOWN => (h, i),
        _ => (h, h),
    }
}

/// Every tensor a BERT of `c` has (names without a model prefix), with its
/// shape, in the order the weights are laid out: the encoder checks a model
/// against it, and the tests' tiny model is written from it.
pub(super) fn tensor_shapes(c: &Config) -> Vec<(String, Vec<usize>)> {
    let h = c.hidden_size;
    let mut shapes: Vec<(String, Vec<usize>)> = vec![
        (
            "embeddings.word_embeddings.weight".into(),
            vec![c.vocab_size, h],
        ),
        (
            "embeddings.position_embeddings.weight".into(),
            vec![c.max_position_embeddings, h],
        ),
        (
            "embeddings.token_type_embeddings.weight".into(),
            vec![c.type_vocab_size, h],
        ),
        ("embeddings.LayerNorm.weight".into(), vec![h]),
        ("embeddings.LayerNorm.bias".into(), vec![h]),
    ];
    for l in 0..c.num_hidden_layers {
        let mut push = |name: String, shape: Vec<usize>| {
            shapes.push((format!("encoder.layer.{l}.{name}"), shape));
        };
        for (which, dense) in DENSE.iter().enumerate() {
            let (n_out, n_in) = dense_shape(c, which);
            push(format!("{dense}.weight"), vec![n_out, n_in]);
            push(format!("{dense}.bias"), vec![n_out]);
            // Each residual block ends in a layer norm, stored after its
            // dense layer.
            let norm = match which {
                O => Some("attention.output.LayerNorm"),
                DOWN => Some("output.LayerNorm"),
                _ => None,
            };
            if let Some(norm) = norm {
                push(format!("{norm}.weight"), vec![h]);
                push(format!("{norm}.bias"), vec![h]);
            }
        }
    }
    shapes
}

pub struct Encoder {
    config: Config,
    tensors: Tensors,
    /// "" or "bert.": exports differ in whether names carry the model prefix.
    prefix: &'static str,
    /// Whether long passes may use AMX tiles (tests switch it off to compare).
    amx: bool,
    /// The dense weights of every layer in tile layout (indexed by `Q`..
    /// `DOWN`), converted by the first pass that uses them; None when a
    /// layer's outputs are not a multiple of the tiles' 32.
    packed: OnceLock<Option<Vec<Vec<PackedWeights>>>>,
}

impl Encoder {
    pub fn new(config: Config, tensors: Tensors) -> Result<Encoder> {
        let prefix = if tensors.has("bert.embeddings.word_embeddings.weight") {
            "bert."
        } else {
            ""
        };
        anyhow::ensure!(
            config.num_attention_heads > 0
                && config
                    .hidden_size
                    .is_multiple_of(config.num_attention_heads),
            "hidden_size must be a multiple of num_attention_heads"
        );
        let enc = Encoder {
            config,
            tensors,
            prefix,
            amx: true,
            packed: OnceLock::new(),
        };
        enc.check()?;
        Ok(enc)
    }

    pub fn hidden(&self) -> usize {
        self.config.hidden_size
    }

    /// Keep every pass on f32 even where AMX tiles are available.
    pub fn without_amx(mut self) -> Self {
        self.amx = false;
        self
    }

    /// The tile-layout weights for a pass of `t` tokens, if it should use them.
    fn tiles_for(&self, t: usize) -> Option<&[Vec<PackedWeights>]> {
        if !self.amx || t < AMX_MIN_TOKENS || !amx::available() {
            return None;
        }
        self.packed
            .get_or_init(|| {
                (0..self.config.num_hidden_layers)
                    .map(|l| {
                        (0..DENSE.len())
                            .map(|which| {
                                let (n, k) = dense_shape(&self.config, which);
                                let name = format!("encoder.layer.{l}.{}.weight", DENSE[which]);
                                PackedWeights::new(self.w(&name, &[n, k]), n, k)
                            })
                            .collect::<Option<Vec<_>>>()
                    })
                    .collect::<Option<Vec<_>>>()
            })
            .as_deref()
    }

    /// y = x · Wᵀ + b over the first `t` rows of `x`, for dense layer
    /// `which` of layer `l`. With tiles, `a` already holds those rows in
    /// bf16 and `y` has room for the padded rows.
    fn dense(
        &self,
        l: usize,
        which: usize,
        x: &[f32],
        t: usize,
        tiles: Option<(&[PackedWeights], &Bf16Rows)>,
        y: &mut [f32],
    ) {
        let name = format!("encoder.layer.{l}.{}", DENSE[which]);
        let (n_out, n_in) = dense_shape(&self.config, which);
        let b = self.w(&format!("{name}.bias"), &[n_out]);
        match tiles {
            Some((packed, a)) => amx::linear(a, &packed[which], b, y),
            None => linear(
                &x[..t * n_in],
                self.w(&format!("{name}.weight"), &[n_out, n_in]),
                b,
                n_in,
                n_out,
                &mut y[..t * n_out],
            ),
        }
    }

    fn w(&self, name: &str, shape: &[usize]) -> &[f32] {
        // Every name and shape was checked by `check` when the model loaded.
        self.tensors
            .get(&format!("{}{name}", self.prefix), shape)
            .expect("tensor checked at load")
    }

    /// Every tensor the forward pass reads exists with the expected shape.
    fn check(&self) -> Result<()> {
        for (n, s) in tensor_shapes(&self.config) {
            self.tensors.get(&format!("{}{n}", self.prefix), &s)?;
        }
        Ok(())
    }

    /// One unit-length vector per sequence of token ids.
    pub fn encode(&self, seqs: &[&[u32]]) -> Vec<Vec<f32>> {
        let c = &self.config;
        let (h, inter, heads) = (c.hidden_size, c.intermediate_size, c.num_attention_heads);
        let dh = h / heads;
        let t: usize = seqs.iter().map(|s| s.len()).sum();
        if t == 0 {
            return vec![vec![0.0; h]; seqs.len()];
        }
        let words = self.w("embeddings.word_embeddings.weight", &[c.vocab_size, h]);
        let pos = self.w(
            "embeddings.position_embeddings.weight",
            &[c.max_position_embeddings, h],
        );
        let ty = &self.w(
            "embeddings.token_type_embeddings.weight",
            &[c.type_vocab_size, h],
        )[..h];
        let mut x = vec![0.0f32; t * h];
        let mut rows = x.chunks_exact_mut(h);
        for s in seqs {
            for (p, &id) in s.iter().enumerate() {
                let row = rows.next().expect("t rows");
                let id = (id as usize).min(c.vocab_size - 1);
                let p = p.min(c.max_position_embeddings - 1);
                for (j, v) in row.iter_mut().enumerate() {
                    *v = words[id * h + j] + pos[p * h + j] + ty[j];
                }
            }
        }
        let (g, b) = (
            self.w("embeddings.LayerNorm.weight", &[h]),
            self.w("embeddings.LayerNorm.bias", &[h]),
        );
        norm_rows(&mut x, g, b, c.layer_norm_eps);

        let tiles = self.tiles_for(t);
        // AMX products write whole blocks of rows: room for the padding.
        let rows = if tiles.is_some() {
            amx::padded_rows(t)
        } else {
            t
        };
        let mut q = vec![0.0f32; rows * h];
        let mut k = vec![0.0f32; rows * h];
        let mut v = vec![0.0f32; rows * h];
        let mut ctx = vec![0.0f32; rows * h];
        let mut tmp = vec![0.0f32; rows * h];
        let mut mid = vec![0.0f32; rows * inter];
        let mut a = Bf16Rows::default();
        let longest = seqs.iter().map(|s| s.len()).max().unwrap_or(0);
        let mut scores = vec![0.0f32; longest * longest];
        let scale = 1.0 / (dh as f32).sqrt();
        for l in 0..c.num_hidden_layers {
            let n = |s: &str| format!("encoder.layer.{l}.{s}");
            // Converts the first t rows of `x` (row length `k`) to bf16 when
            // the pass runs on tiles, and hands back what `dense` needs.
            let tiles_of = |a: &mut Bf16Rows, x: &[f32], k: usize| {
                tiles.map(|p| {
                    a.fill(x, t, k);
                    &p[l][..]
                })
            };
            let layer = tiles_of(&mut a, &x, h);
            for (which, out) in [(Q, &mut q), (K, &mut k), (V, &mut v)] {
                self.dense(l, which, &x, t, layer.map(|p| (p, &a)), out);
            }
            let mut at = 0;
            for s in seqs {
                let len = s.len();
                for head in 0..heads {
                    attend(
                        &q,
                        &k,
                        &v,
                        &mut ctx,
                        &mut scores[..len * len],
                        at,
                        len,
                        head * dh,
                        dh,
                        h,
                        scale,
                    );
                }
                at += len;
            }
            let layer = tiles_of(&mut a, &ctx, h);
            self.dense(l, O, &ctx, t, layer.map(|p| (p, &a)), &mut tmp);
            add_norm(
                &mut x,
                &tmp,
                self.w(&n("attention.output.LayerNorm.weight"), &[h]),
                self.w(&n("attention.output.LayerNorm.bias"), &[h]),
                c.layer_norm_eps,
            );
            let layer = tiles_of(&mut a, &x, h);
            self.dense(l, UP, &x, t, layer.map(|p| (p, &a)), &mut mid);
            gelu_all(&mut mid);
            let layer = tiles_of(&mut a, &mid, inter);
            self.dense(l, DOWN, &mid, t, layer.map(|p| (p, &a)), &mut tmp);
            add_norm(
                &mut x,
                &tmp,
                self.w(&n("output.LayerNorm.weight"), &[h]),
                self.w(&n("output.LayerNorm.bias"), &[h]),
                c.layer_norm_eps,
            );
        }

        let mut out = Vec::with_capacity(seqs.len());
        let mut at = 0;
        for s in seqs {
            let mut mean = vec![0.0f32; h];
            for row in x[at * h..(at + s.len()) * h].chunks_exact(h) {
                mean.iter_mut().zip(row).for_each(|(m, r)| *m += r);
            }
            let n = s.len().max(1) as f32;
            mean.iter_mut().for_each(|m| *m /= n);
            crate::embed::normalise(&mut mean);
            out.push(mean);
            at += s.len();
        }
        out
    }
}
