//! The one matrix product of the encoder's dense layers, `y = x · Wᵀ + b`,
//! and the only place that decides between its two implementations:
//!
//! - AMX tiles (`amx.rs`: bf16 inputs, f32 sums), used when the CPU has
//!   them, the caller allows them, and the pass has at least
//!   `AMX_MIN_TOKENS` tokens. On the Sapphire Rapids machine where they were
//!   measured they doubled `embed` on a real corpus (177 chunks/s against 88,
//!   docs/RETRIEVAL.md).
//! - f32 `sgemm` (`ops::linear`) otherwise. It is also the tiles' test
//!   oracle: the tests below run both on the same random matrices.
//!
//! The rest of the encoder sees neither tiles nor their padding: every
//! buffer it passes holds exactly `t` rows.

use std::cell::RefCell;
use std::sync::OnceLock;

use super::amx::{self, Bf16Rows, PackedWeights};
use super::int16;
use super::ops::linear;

/// Passes shorter than this stay on f32: a search's query (a few tokens)
/// gets the exact vector without paying for converting the weights, while
/// `embed`'s batches (hundreds of tokens per pass) take the 4x faster tiles.
const AMX_MIN_TOKENS: usize = 64;

/// Tokens per forward pass, for the product that will run. Larger passes
/// make bigger matrix products, but past this their activations (tokens ×
/// 1536 floats in the feed-forward layer) fall out of cache: measured in
/// benches/embed.rs for f32, and with `alfred-mem embed` on the 10k corpus
/// for AMX tiles, whose products are four times faster and so wait on
/// memory sooner (30 s runs: 1,024 tokens 165 chunks/s, 512 197, 256 197,
/// 128 170).
pub(super) fn pass_tokens() -> usize {
    if amx::available() { 256 } else { 1024 }
}

/// One dense layer: W (`n_out` × `n_in`, row-major as stored in the model
/// file) and b (`n_out`), with the cache of W in tile layout.
pub(super) struct Layer<'a> {
    pub w: &'a [f32],
    pub b: &'a [f32],
    pub n_in: usize,
    pub n_out: usize,
    pub tiles: &'a Tiles,
    pub ints: &'a Ints,
}

/// W rounded to i16 (`int16.rs`), by the first pass that runs the layer on
/// integers; None inside when its shape does not fit (it then stays on f32).
#[derive(Default)]
pub(super) struct Ints(OnceLock<Option<int16::PackedWeights>>);

/// Which products a pass may use besides f32 `sgemm`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Kernels {
    /// AMX tiles, where the CPU has them.
    pub tiles: bool,
    /// i16 products on AVX2, where there are no tiles.
    pub int16: bool,
}

/// W in AMX tile layout, converted by the first pass that runs the layer on
/// tiles; None inside when the layer's outputs are not whole tiles (it then
/// stays on f32).
#[derive(Default)]
pub(super) struct Tiles(OnceLock<Option<PackedWeights>>);

/// The bf16 copies of the input and the output rows of a partial tile block,
/// kept per thread so a pass does not allocate them per product.
#[derive(Default)]
struct Scratch {
    head: Bf16Rows,
    tail: Bf16Rows,
    tail_out: Vec<f32>,
    ints: int16::Rows,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::default();
}

/// `y = x · Wᵀ + b` for each `(layer, y)` of `products`, all reading the same
/// `t` rows of `x` (the query, key and value layers share their input, which
/// is then converted to bf16 or i16 once). `kernels` says which products
/// besides f32 may run; passes shorter than `AMX_MIN_TOKENS` (a search's
/// query) always run on f32.
///
/// Panics when a buffer's length does not match the layer's shape: the
/// encoder checks every weight's shape when it loads a model and sizes its
/// buffers from the same config, so a mismatch is a bug in the encoder, never
/// bad input; the products below read and write through raw pointers and
/// must not run on wrong lengths.
pub(super) fn dense(x: &[f32], t: usize, products: &mut [(Layer, &mut [f32])], kernels: Kernels) {
    for (layer, y) in products.iter() {
        assert_eq!(x.len(), t * layer.n_in, "dense input is not t × n_in");
        assert_eq!(
            layer.w.len(),
            layer.n_out * layer.n_in,
            "weight is not n_out × n_in"
        );
        assert_eq!(layer.b.len(), layer.n_out, "bias is not n_out");
        assert_eq!(y.len(), t * layer.n_out, "dense output is not t × n_out");
    }
    let on_tiles = kernels.tiles && t >= AMX_MIN_TOKENS && amx::available();
    let on_ints = !on_tiles && kernels.int16 && t >= AMX_MIN_TOKENS && int16::available();
    SCRATCH.with_borrow_mut(|s| {
        let mut converted = false;
        for (layer, y) in products.iter_mut() {
            let ints = on_ints
                .then(|| {
                    layer
                        .ints
                        .0
                        .get_or_init(|| int16::PackedWeights::new(layer.w, layer.n_out, layer.n_in))
                        .as_ref()
                })
                .flatten();
            if let Some(packed) = ints {
                if !converted {
                    s.ints.fill(x, t, layer.n_in);
                    converted = true;
                }
                int16::linear(&s.ints, packed, layer.b, y);
                continue;
            }
            let packed = on_tiles
                .then(|| {
                    layer
                        .tiles
                        .0
                        .get_or_init(|| PackedWeights::new(layer.w, layer.n_out, layer.n_in))
                        .as_ref()
                })
                .flatten();
            match packed {
                Some(packed) => {
                    if !converted {
                        s.convert(x, t, layer.n_in);
                        converted = true;
                    }
                    s.product(t, packed, layer, y);
                }
                None => linear(x, layer.w, layer.b, layer.n_in, layer.n_out, y),
            }
        }
    });
}

impl Scratch {
    /// The whole blocks of 32 rows of `x` into `head`, the rest into `tail`
    /// (padded with zeros to a block by `Bf16Rows`).
    fn convert(&mut self, x: &[f32], t: usize, k: usize) {
        let whole = t - t % amx::BLOCK_ROWS;
        self.head.fill(&x[..whole * k], whole, k);
        self.tail.fill(&x[whole * k..], t - whole, k);
    }

    /// A tile product writes whole blocks of 32 rows: the whole blocks go
    /// straight into `y`, the last partial one through `tail_out`.
    fn product(&mut self, t: usize, packed: &PackedWeights, layer: &Layer, y: &mut [f32]) {
        let n = layer.n_out;
        let whole = t - t % amx::BLOCK_ROWS;
        if whole > 0 {
            amx::linear(&self.head, packed, layer.b, &mut y[..whole * n]);
        }
        if whole < t {
            self.tail_out.resize(amx::BLOCK_ROWS * n, 0.0);
            amx::linear(&self.tail, packed, layer.b, &mut self.tail_out);
            y[whole * n..].copy_from_slice(&self.tail_out[..(t - whole) * n]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lcg::Lcg;

    /// The tile product against its f32 twin, with the bound bf16 rounding
    /// allows (each input off by at most 2^-8 of itself), on sizes that
    /// leave padding: rows not a multiple of 32 (three whole blocks and a
    /// partial one), inputs not a multiple of 32; and two layers sharing one
    /// input, as the attention projections do.
    #[test]
    #[ignore = "needs a CPU with AMX-BF16 (.ci/run runs it where there is one)"]
    fn amx_tiles_give_the_f32_product_to_bf16_precision() {
        assert!(amx::available(), "this CPU or OS has no AMX-BF16");
        let (t, k) = (AMX_MIN_TOKENS + 37, 48);
        let mut r = Lcg(1);
        let x = r.vec(t * k);
        let shapes = [64usize, 96];
        let weights: Vec<(Vec<f32>, Vec<f32>)> =
            shapes.iter().map(|&n| (r.vec(n * k), r.vec(n))).collect();
        let tiles: Vec<Tiles> = shapes.iter().map(|_| Tiles::default()).collect();
        let ints = Ints::default();
        let run = |allow_tiles: bool| -> Vec<Vec<f32>> {
            let mut ys: Vec<Vec<f32>> = shapes.iter().map(|&n| vec![f32::NAN; t * n]).collect();
            let mut products: Vec<(Layer, &mut [f32])> = weights
                .iter()
                .zip(&tiles)
                .zip(&shapes)
                .zip(ys.iter_mut())
                .map(|(((wb, tiles), &n), y)| {
                    let layer = Layer {
                        w: &wb.0,
                        b: &wb.1,
                        n_in: k,
                        n_out: n,
                        tiles,
                        ints: &ints,
                    };
                    (layer, y.as_mut_slice())
                })
                .collect();
            let kernels = Kernels {
                tiles: allow_tiles,
                int16: false,
            };
            dense(&x, t, &mut products, kernels);
            ys
        };
        let (on_tiles, on_f32) = (run(true), run(false));
        for (l, &n) in shapes.iter().enumerate() {
            let w = &weights[l].0;
            for i in 0..t {
                for j in 0..n {
                    let magnitude: f32 = (0..k).map(|q| (x[i * k + q] * w[j * k + q]).abs()).sum();
                    let bound = 2.0 * f32::powi(2.0, -8) * magnitude + 1e-5;
                    let (got, want) = (on_tiles[l][i * n + j], on_f32[l][i * n + j]);
                    assert!(
                        (got - want).abs() <= bound,
                        "layer {l} [{i}][{j}]: {got} vs {want}"
                    );
                }
            }
        }
        assert!(
            tiles.iter().all(|t| matches!(t.0.get(), Some(Some(_)))),
            "both layers ran on tiles"
        );
        // A layer whose outputs are not whole tiles stays on f32.
        assert!(PackedWeights::new(&weights[0].0[..40 * k], 40, k).is_none());
    }
}
