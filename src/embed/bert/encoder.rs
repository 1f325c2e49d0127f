//! The BERT forward pass over a batch of token-id sequences, packed end to
//! end: embeddings → N × (self-attention, feed-forward), each with a residual
//! connection and layer norm → mean of each text's token vectors → unit
//! length. Dense layers are single `sgemm` calls over all tokens of the batch.

use anyhow::Result;

use super::Config;
use super::safetensors::Tensors;

/// Every tensor a BERT of `c` has (names without a model prefix), with its
/// shape, in the order the weights are laid out: the encoder checks a model
/// against it, and the tests' tiny model is written from it.
pub(super) fn tensor_shapes(c: &Config) -> Vec<(String, Vec<usize>)> {
    let (h, i) = (c.hidden_size, c.intermediate_size);
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
        for (n, s) in [
            ("attention.self.query.weight", vec![h, h]),
            ("attention.self.query.bias", vec![h]),
            ("attention.self.key.weight", vec![h, h]),
            ("attention.self.key.bias", vec![h]),
            ("attention.self.value.weight", vec![h, h]),
            ("attention.self.value.bias", vec![h]),
            ("attention.output.dense.weight", vec![h, h]),
            ("attention.output.dense.bias", vec![h]),
            ("attention.output.LayerNorm.weight", vec![h]),
            ("attention.output.LayerNorm.bias", vec![h]),
            ("intermediate.dense.weight", vec![i, h]),
            ("intermediate.dense.bias", vec![i]),
            ("output.dense.weight", vec![h, i]),
            ("output.dense.bias", vec![h]),
            ("output.LayerNorm.weight", vec![h]),
            ("output.LayerNorm.bias", vec![h]),
        ] {
            shapes.push((format!("encoder.layer.{l}.{n}"), s));
        }
    }
    shapes
}

pub struct Encoder {
    config: Config,
    tensors: Tensors,
    /// "" or "bert.": exports differ in whether names carry the model prefix.
    prefix: &'static str,
}

/// y[t × n_out] = x[t × n_in] · W[n_out × n_in]ᵀ + b
fn linear(x: &[f32], w: &[f32], b: &[f32], n_in: usize, n_out: usize, y: &mut [f32]) {
    let t = x.len() / n_in;
    debug_assert_eq!(y.len(), t * n_out);
    for row in y.chunks_exact_mut(n_out) {
        row.copy_from_slice(b);
    }
    // SAFETY: x is t × n_in, W is n_out × n_in read transposed (row stride 1,
    // column stride n_in), y is t × n_out; all lengths are checked by callers.
    unsafe {
        matrixmultiply::sgemm(
            t,
            n_in,
            n_out,
            1.0,
            x.as_ptr(),
            n_in as isize,
            1,
            w.as_ptr(),
            1,
            n_in as isize,
            1.0,
            y.as_mut_ptr(),
            n_out as isize,
            1,
        );
    }
}

/// x ← LayerNorm(x + y), row by row.
fn add_norm(x: &mut [f32], y: &[f32], gamma: &[f32], beta: &[f32], eps: f32) {
    let h = gamma.len();
    for (xr, yr) in x.chunks_exact_mut(h).zip(y.chunks_exact(h)) {
        for (a, b) in xr.iter_mut().zip(yr) {
            *a += b;
        }
        norm_row(xr, gamma, beta, eps);
    }
}

fn norm_row(x: &mut [f32], gamma: &[f32], beta: &[f32], eps: f32) {
    let n = x.len() as f32;
    let mean = x.iter().sum::<f32>() / n;
    let var = x.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / n;
    let inv = 1.0 / (var + eps).sqrt();
    for ((v, g), b) in x.iter_mut().zip(gamma).zip(beta) {
        *v = (*v - mean) * inv * g + b;
    }
}

/// erf as the rational approximation Eigen and XLA use for f32 (absolute
/// error below 1e-7 on [-4, 4], ±1 beyond): no `exp`, so the compiler can
/// vectorise the GELU loop, which otherwise costs as much as a matrix product.
fn erf(x: f32) -> f32 {
    let x = x.clamp(-4.0, 4.0);
    let x2 = x * x;
    let mut p = x2 * -2.726_142_3e-10 + 2.770_681_4e-8;
    p = p * x2 + -2.101_024e-6;
    p = p * x2 + -5.692_506_4e-5;
    p = p * x2 + -7.349_906_3e-4;
    p = p * x2 + -2.954_600_3e-3;
    p = p * x2 + -1.609_603_3e-2;
    let mut q = x2 * -1.456_607_2e-5 + -2.133_740_6e-4;
    q = q * x2 + -1.682_827e-3;
    q = q * x2 + -7.373_329e-3;
    q = q * x2 + -1.426_474e-2;
    x * p / q
}

/// The exact (erf) GELU BERT was trained with.
fn gelu(x: f32) -> f32 {
    0.5 * x * (1.0 + erf(x * std::f32::consts::FRAC_1_SQRT_2))
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
        };
        enc.check()?;
        Ok(enc)
    }

    pub fn hidden(&self) -> usize {
        self.config.hidden_size
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
        for row in x.chunks_exact_mut(h) {
            norm_row(row, g, b, c.layer_norm_eps);
        }

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
            let hh = [h, h];
            linear(
                &x,
                self.w(&n("attention.self.query.weight"), &hh),
                self.w(&n("attention.self.query.bias"), &[h]),
                h,
                h,
                &mut q,
            );
            linear(
                &x,
                self.w(&n("attention.self.key.weight"), &hh),
                self.w(&n("attention.self.key.bias"), &[h]),
                h,
                h,
                &mut k,
            );
            linear(
                &x,
                self.w(&n("attention.self.value.weight"), &hh),
                self.w(&n("attention.self.value.bias"), &[h]),
                h,
                h,
                &mut v,
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
            linear(
                &ctx,
                self.w(&n("attention.output.dense.weight"), &hh),
                self.w(&n("attention.output.dense.bias"), &[h]),
                h,
                h,
                &mut tmp,
            );
            add_norm(
                &mut x,
                &tmp,
                self.w(&n("attention.output.LayerNorm.weight"), &[h]),
                self.w(&n("attention.output.LayerNorm.bias"), &[h]),
                c.layer_norm_eps,
            );
            linear(
                &x,
                self.w(&n("intermediate.dense.weight"), &[inter, h]),
                self.w(&n("intermediate.dense.bias"), &[inter]),
                h,
                inter,
                &mut mid,
            );
            mid.iter_mut().for_each(|m| *m = gelu(*m));
            linear(
                &mid,
                self.w(&n("output.dense.weight"), &[h, inter]),
                self.w(&n("output.dense.bias"), &[h]),
                inter,
                h,
                &mut tmp,
            );
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

/// One head of self-attention for one text: rows `at..at+len`, columns
/// `col..col+dh` of q, k, v (row stride `h`); softmax(q·kᵀ·scale)·v into ctx.
#[allow(clippy::too_many_arguments)]
fn attend(
    q: &[f32],
    k: &[f32],
    v: &[f32],
    ctx: &mut [f32],
    scores: &mut [f32],
    at: usize,
    len: usize,
    col: usize,
    dh: usize,
    h: usize,
    scale: f32,
) {
    let off = at * h + col;
    // SAFETY: every matrix lies inside its buffer: rows at..at+len of width
    // h, columns col..col+dh; scores is len × len.
    unsafe {
        matrixmultiply::sgemm(
            len,
            dh,
            len,
            scale,
            q.as_ptr().add(off),
            h as isize,
            1,
            k.as_ptr().add(off),
            1,
            h as isize,
            0.0,
            scores.as_mut_ptr(),
            len as isize,
            1,
        );
    }
    for row in scores.chunks_exact_mut(len) {
        let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let mut sum = 0.0;
        for s in row.iter_mut() {
            *s = (*s - max).exp();
            sum += *s;
        }
        row.iter_mut().for_each(|s| *s /= sum);
    }
    // SAFETY: as above; ctx has the same layout as v.
    unsafe {
        matrixmultiply::sgemm(
            len,
            len,
            dh,
            1.0,
            scores.as_ptr(),
            len as isize,
            1,
            v.as_ptr().add(off),
            h as isize,
            1,
            0.0,
            ctx.as_mut_ptr().add(off),
            h as isize,
            1,
        );
    }
}
