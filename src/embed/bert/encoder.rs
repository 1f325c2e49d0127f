//! The BERT forward pass over a batch of token-id sequences, packed end to
//! end: embeddings → N × (self-attention, feed-forward), each with a residual
//! connection and layer norm → mean of each text's token vectors → unit
//! length. Each dense layer is one matrix product over all tokens of the
//! batch, through `dense::dense` (which picks AMX tiles or f32); attention
//! runs per text and head.

use anyhow::{Result, ensure};

use super::Config;
use super::dense::{self, Ints, Kernels, Layer, Tiles};
use super::ops::{add_norm, attend, gelu_all, norm_rows};
use super::tensors::Tensors;

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
    /// Which products long passes may use besides f32: AMX tiles (on by
    /// default; tests switch them off to compare), i16 on AVX2 (off by
    /// default).
    kernels: Kernels,
    /// The tile-layout copy of every dense layer's weights, by layer, then
    /// `Q`..`DOWN`; each filled by the first pass that runs it on tiles.
    tiles: Vec<[Tiles; DENSE.len()]>,
    /// The same for the i16 copy.
    ints: Vec<[Ints; DENSE.len()]>,
}

impl Encoder {
    /// The encoder for the weights in `tensors`, refused with an error (never
    /// a panic later) when `config` is not one the forward pass can run or a
    /// tensor it reads is missing or has another shape.
    pub fn new(config: Config, tensors: Tensors) -> Result<Encoder> {
        let prefix = if tensors
            .shape("bert.embeddings.word_embeddings.weight")
            .is_some()
        {
            "bert."
        } else {
            ""
        };
        for (name, size) in [
            ("hidden_size", config.hidden_size),
            ("num_attention_heads", config.num_attention_heads),
            ("intermediate_size", config.intermediate_size),
            ("max_position_embeddings", config.max_position_embeddings),
            ("vocab_size", config.vocab_size),
            ("type_vocab_size", config.type_vocab_size),
        ] {
            ensure!(size > 0, "config.json: {name} must be at least 1");
        }
        ensure!(
            config
                .hidden_size
                .is_multiple_of(config.num_attention_heads),
            "config.json: hidden_size must be a multiple of num_attention_heads"
        );
        for (n, s) in tensor_shapes(&config) {
            tensors.get(&format!("{prefix}{n}"), &s)?;
        }
        Ok(Encoder {
            tiles: (0..config.num_hidden_layers)
                .map(|_| Default::default())
                .collect(),
            ints: (0..config.num_hidden_layers)
                .map(|_| Default::default())
                .collect(),
            config,
            tensors,
            prefix,
            kernels: Kernels {
                tiles: true,
                int16: false,
            },
        })
    }

    pub fn hidden(&self) -> usize {
        self.config.hidden_size
    }

    /// Keep every pass on f32 even where AMX tiles are available.
    pub fn without_amx(mut self) -> Self {
        self.kernels.tiles = false;
        self
    }

    /// Let long passes run on i16 products where there are no AMX tiles.
    pub fn with_int16(mut self, on: bool) -> Self {
        self.kernels.int16 = on;
        self
    }

    /// Tensor `name` (without the model prefix). `new` checked every name
    /// and shape the forward pass asks for, so a miss here is a bug.
    fn w(&self, name: &str, shape: &[usize]) -> &[f32] {
        self.tensors
            .get(&format!("{}{name}", self.prefix), shape)
            .expect("tensor checked at load")
    }

    /// Dense layer `which` (`Q`..`DOWN`) of layer `l`.
    fn layer(&self, l: usize, which: usize) -> Layer<'_> {
        let name = format!("encoder.layer.{l}.{}", DENSE[which]);
        let (n_out, n_in) = dense_shape(&self.config, which);
        Layer {
            w: self.w(&format!("{name}.weight"), &[n_out, n_in]),
            b: self.w(&format!("{name}.bias"), &[n_out]),
            n_in,
            n_out,
            tiles: &self.tiles[l][which],
            ints: &self.ints[l][which],
        }
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
        // Embeddings: word + position + token type 0, for every token, then
        // layer norm. Ids and positions past the tables take their last row.
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

        let mut q = vec![0.0f32; t * h];
        let mut k = vec![0.0f32; t * h];
        let mut v = vec![0.0f32; t * h];
        let mut ctx = vec![0.0f32; t * h];
        let mut tmp = vec![0.0f32; t * h];
        let mut mid = vec![0.0f32; t * inter];
        let longest = seqs.iter().map(|s| s.len()).max().unwrap_or(0);
        let mut scores = vec![0.0f32; longest * longest];
        let scale = 1.0 / (dh as f32).sqrt();
        for l in 0..c.num_hidden_layers {
            let n = |s: &str| format!("encoder.layer.{l}.{s}");
            // Self-attention: q, k, v from x; each text's tokens attend only
            // to each other; ctx → output projection → x = norm(x + that).
            dense::dense(
                &x,
                t,
                &mut [
                    (self.layer(l, Q), &mut q[..]),
                    (self.layer(l, K), &mut k[..]),
                    (self.layer(l, V), &mut v[..]),
                ],
                self.kernels,
            );
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
            dense::dense(
                &ctx,
                t,
                &mut [(self.layer(l, O), &mut tmp[..])],
                self.kernels,
            );
            add_norm(
                &mut x,
                &tmp,
                self.w(&n("attention.output.LayerNorm.weight"), &[h]),
                self.w(&n("attention.output.LayerNorm.bias"), &[h]),
                c.layer_norm_eps,
            );
            // Feed-forward: x = norm(x + down(gelu(up(x)))).
            dense::dense(
                &x,
                t,
                &mut [(self.layer(l, UP), &mut mid[..])],
                self.kernels,
            );
            gelu_all(&mut mid);
            dense::dense(
                &mid,
                t,
                &mut [(self.layer(l, DOWN), &mut tmp[..])],
                self.kernels,
            );
            add_norm(
                &mut x,
                &tmp,
                self.w(&n("output.LayerNorm.weight"), &[h]),
                self.w(&n("output.LayerNorm.bias"), &[h]),
                c.layer_norm_eps,
            );
        }

        // Mean of each text's token vectors, scaled to unit length.
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
