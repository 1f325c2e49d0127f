//! The dense product on 16-bit integers, for x86-64 CPUs with AVX2 but no
//! AMX: `vpmaddwd` multiplies sixteen pairs of i16 into eight i32 sums in
//! one instruction, twice the multiply-adds per cycle of an f32 FMA on the
//! AMD EPYC (Zen 3) where it was measured (docs/RETRIEVAL.md).
//!
//! Weights are rounded once per process, per output row (its own scale);
//! activations per pass, per token row. The two ranges are chosen so that no
//! sum of `n_in` products can overflow an i32, whatever the values:
//! activations get [`QX`] levels either side of zero, weights what is left
//! (`i32::MAX / (n_in × QX)`: 1,365 for MiniLM's 384 inputs, 341 for 1,536).
//! So the product is exact integer arithmetic on rounded inputs, and its
//! error is the rounding's alone.

use std::arch::x86_64::*;

/// Levels either side of zero for an activation (12 bits): activations
/// carry the outliers (a few hidden dimensions many times the others), so
/// they get the finer grid.
const QX: i32 = 4095;

/// Output columns per block: two registers of eight i32 sums.
pub(super) const COLS: usize = 16;

/// Token rows per block: 6 × 2 sums + 2 weights + 1 broadcast = 15 of the
/// 16 AVX2 registers.
const ROWS: usize = 6;

/// Rows of the input per pass over all weight blocks: their i16 copy (at
/// most 96 × 1,536 × 2 bytes = 288 KB) stays in L2 while every block of
/// weights streams past it.
const ROW_CHUNK: usize = 96;

pub(super) fn available() -> bool {
    std::arch::is_x86_feature_detected!("avx2")
}

/// W (`n_out` × `n_in`) as i16, per block of [`COLS`] outputs: for each
/// pair of inputs `2p, 2p+1`, the 16 outputs' two weights side by side —
/// what `vpmaddwd` multiplies against a broadcast pair of activations.
pub(super) struct PackedWeights {
    n_in: usize,
    n_out: usize,
    data: Vec<i16>,
    /// Per output: the weight a step of one stands for.
    scale: Vec<f32>,
}

impl PackedWeights {
    /// None when the shape does not fit the blocks (outputs not a multiple
    /// of 16, or an odd number of inputs): that layer stays on f32.
    pub(super) fn new(w: &[f32], n_out: usize, n_in: usize) -> Option<PackedWeights> {
        if !n_out.is_multiple_of(COLS)
            || !n_in.is_multiple_of(2)
            || n_in == 0
            || w.len() != n_out * n_in
        {
            return None;
        }
        let qw = (i32::MAX as i64 / (n_in as i64 * QX as i64)).clamp(1, i16::MAX as i64) as f32;
        let scale: Vec<f32> = w
            .chunks_exact(n_in)
            .map(|row| {
                let max = row.iter().fold(0.0f32, |m, v| m.max(v.abs()));
                if max > 0.0 { max / qw } else { 1.0 }
            })
            .collect();
        let mut data = vec![0i16; n_out * n_in];
        let pairs = n_in / 2;
        for block in 0..n_out / COLS {
            for p in 0..pairs {
                for c in 0..COLS {
                    let j = block * COLS + c;
                    for h in 0..2 {
                        let v = (w[j * n_in + 2 * p + h] / scale[j]).round().clamp(-qw, qw);
                        data[((block * pairs + p) * COLS + c) * 2 + h] = v as i16;
                    }
                }
            }
        }
        Some(PackedWeights {
            n_in,
            n_out,
            data,
            scale,
        })
    }
}

/// A pass's activations as i16, per row with its scale, padded with zero
/// rows to a whole block.
#[derive(Default)]
pub(super) struct Rows {
    t: usize,
    k: usize,
    data: Vec<i16>,
    scale: Vec<f32>,
}

impl Rows {
    /// Round the `t` rows of `x` (row length `k`).
    pub(super) fn fill(&mut self, x: &[f32], t: usize, k: usize) {
        let padded = t.div_ceil(ROWS) * ROWS;
        self.t = t;
        self.k = k;
        self.data.clear();
        self.data.resize(padded * k, 0);
        self.scale.clear();
        self.scale.resize(padded, 0.0);
        quantise_rows(x, k, &mut self.data, &mut self.scale);
    }
}

/// Each row of `x` (length `k`) rounded to ±[`QX`] steps of its own scale.
fn quantise_rows(x: &[f32], k: usize, out: &mut [i16], scale: &mut [f32]) {
    for ((row, q), s) in x
        .chunks_exact(k)
        .zip(out.chunks_exact_mut(k))
        .zip(scale.iter_mut())
    {
        if k.is_multiple_of(16) && available() {
            // SAFETY: AVX2 is present (checked); row and q hold k values,
            // a multiple of 16.
            unsafe { quantise_row_avx2(row, q, s) };
        } else {
            let max = row.iter().fold(0.0f32, |m, v| m.max(v.abs()));
            *s = if max > 0.0 { max / QX as f32 } else { 1.0 };
            let inv = 1.0 / *s;
            q.iter_mut()
                .zip(row)
                .for_each(|(q, v)| *q = (v * inv).round_ties_even() as i16);
        }
    }
}

/// One row, 16 values at a time: |max| by masking the sign bit, then
/// multiply, round to nearest even (`vcvtps2dq`), and pack to i16 (the pack
/// interleaves 128-bit lanes; the permute puts them back in order). Every
/// value is within ±QX after scaling, so nothing saturates.
#[target_feature(enable = "avx2")]
unsafe fn quantise_row_avx2(row: &[f32], q: &mut [i16], s: &mut f32) {
    let n = row.len();
    debug_assert!(n.is_multiple_of(16) && q.len() == n);
    unsafe {
        let abs = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fff_ffff));
        let mut m = _mm256_setzero_ps();
        for i in (0..n).step_by(8) {
            m = _mm256_max_ps(m, _mm256_and_ps(abs, _mm256_loadu_ps(row.as_ptr().add(i))));
        }
        let mut lanes = [0.0f32; 8];
        _mm256_storeu_ps(lanes.as_mut_ptr(), m);
        let max = lanes.iter().copied().fold(0.0f32, f32::max);
        *s = if max > 0.0 { max / QX as f32 } else { 1.0 };
        let inv = _mm256_set1_ps(1.0 / *s);
        for i in (0..n).step_by(16) {
            let a = _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_loadu_ps(row.as_ptr().add(i)), inv));
            let b =
                _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_loadu_ps(row.as_ptr().add(i + 8)), inv));
            let packed = _mm256_permute4x64_epi64(_mm256_packs_epi32(a, b), 0b11_01_10_00);
            _mm256_storeu_si256(q.as_mut_ptr().add(i) as *mut __m256i, packed);
        }
    }
}

/// y[t × n_out] = x · Wᵀ + b, with x already rounded into `rows`.
///
/// Panics when the shapes disagree (a bug in the encoder, as in
/// `ops::linear`): the kernel reads through raw pointers.
pub(super) fn linear(rows: &Rows, w: &PackedWeights, b: &[f32], y: &mut [f32]) {
    let (t, k, n) = (rows.t, rows.k, w.n_out);
    assert_eq!(k, w.n_in, "input width is not the layer's");
    assert_eq!(b.len(), n, "bias is not n_out");
    assert_eq!(y.len(), t * n, "output is not t × n_out");
    assert!(rows.data.len() >= t.div_ceil(ROWS) * ROWS * k);
    assert!(available(), "int16 products need AVX2");
    // SAFETY: AVX2 is present (asserted); every block reads ROWS padded
    // rows of `rows.data` and one block of `w.data`, inside their lengths
    // (asserted above and by construction in `PackedWeights::new`).
    unsafe { linear_avx2(rows, w, b, y) }
}

#[target_feature(enable = "avx2")]
fn linear_avx2(rows: &Rows, w: &PackedWeights, b: &[f32], y: &mut [f32]) {
    let (t, k, n) = (rows.t, rows.k, w.n_out);
    let pairs = k / 2;
    let mut sums = [[0i32; COLS]; ROWS];
    for chunk in (0..t).step_by(ROW_CHUNK) {
        let chunk_end = (chunk + ROW_CHUNK).min(t);
        for block in 0..n / COLS {
            let panel = &w.data[block * pairs * COLS * 2..(block + 1) * pairs * COLS * 2];
            let cols = block * COLS..(block + 1) * COLS;
            let (wscale, bias) = (&w.scale[cols.clone()], &b[cols]);
            for r0 in (chunk..chunk_end).step_by(ROWS) {
                let x = &rows.data[r0 * k..(r0 + ROWS) * k];
                // SAFETY: x holds ROWS rows of k, panel pairs × 32 values.
                unsafe { block_6x16(x.as_ptr(), k, panel.as_ptr(), pairs, &mut sums) };
                for (r, s) in sums.iter().enumerate().take(chunk_end - r0) {
                    let row = r0 + r;
                    let sx = rows.scale[row];
                    let out = &mut y[row * n + block * COLS..row * n + (block + 1) * COLS];
                    for (((o, &sum), &ws), &b) in out.iter_mut().zip(s).zip(wscale).zip(bias) {
                        *o = sum as f32 * (sx * ws) + b;
                    }
                }
            }
        }
    }
}

/// The sums of ROWS rows of x (i16, row stride `k`) against one block of
/// packed weights, into `out`.
#[target_feature(enable = "avx2")]
unsafe fn block_6x16(
    x: *const i16,
    k: usize,
    w: *const i16,
    pairs: usize,
    out: &mut [[i32; COLS]; ROWS],
) {
    let zero = _mm256_setzero_si256();
    let (mut c00, mut c01, mut c10, mut c11, mut c20, mut c21) =
        (zero, zero, zero, zero, zero, zero);
    let (mut c30, mut c31, mut c40, mut c41, mut c50, mut c51) =
        (zero, zero, zero, zero, zero, zero);
    // SAFETY (for the loop): the caller guarantees ROWS rows of k values
    // at x and `pairs` × 32 values at w.
    unsafe {
        for p in 0..pairs {
            let w0 = _mm256_loadu_si256(w.add(p * 32) as *const __m256i);
            let w1 = _mm256_loadu_si256(w.add(p * 32 + 16) as *const __m256i);
            macro_rules! row {
                ($r:expr, $a0:ident, $a1:ident) => {
                    let pair = (x.add($r * k + 2 * p) as *const i32).read_unaligned();
                    let a = _mm256_set1_epi32(pair);
                    $a0 = _mm256_add_epi32($a0, _mm256_madd_epi16(a, w0));
                    $a1 = _mm256_add_epi32($a1, _mm256_madd_epi16(a, w1));
                };
            }
            row!(0, c00, c01);
            row!(1, c10, c11);
            row!(2, c20, c21);
            row!(3, c30, c31);
            row!(4, c40, c41);
            row!(5, c50, c51);
        }
        let store = |o: &mut [i32; COLS], lo: __m256i, hi: __m256i| {
            _mm256_storeu_si256(o.as_mut_ptr() as *mut __m256i, lo);
            _mm256_storeu_si256(o.as_mut_ptr().add(8) as *mut __m256i, hi);
        };
        store(&mut out[0], c00, c01);
        store(&mut out[1], c10, c11);
        store(&mut out[2], c20, c21);
        store(&mut out[3], c30, c31);
        store(&mut out[4], c40, c41);
        store(&mut out[5], c50, c51);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::embed::bert::ops::linear as f32_linear;
    use crate::lcg::Lcg;

    /// Against the f32 product, on rows that are not whole blocks and more
    /// than one row chunk, with an outlier column in x (as BERT's hidden
    /// states have): within the rounding of both inputs.
    #[test]
    fn the_int16_product_is_the_f32_one_to_rounding() {
        assert!(available(), "this x86-64 CPU has no AVX2");
        let (t, k, n) = (ROW_CHUNK + 13, 384, 48);
        let mut r = Lcg(3);
        let mut x = r.vec(t * k);
        for i in 0..t {
            x[i * k + 7] *= 40.0;
        }
        let (w, b) = (r.vec(n * k), r.vec(n));
        let packed = PackedWeights::new(&w, n, k).expect("whole blocks");
        let mut rows = Rows::default();
        rows.fill(&x, t, k);
        let mut got = vec![f32::NAN; t * n];
        linear(&rows, &packed, &b, &mut got);
        let mut want = vec![0.0; t * n];
        f32_linear(&x, &w, &b, k, n, &mut want);
        for i in 0..t {
            let xmax = x[i * k..(i + 1) * k]
                .iter()
                .fold(0.0f32, |m, v| m.max(v.abs()));
            for j in 0..n {
                let wmax = w[j * k..(j + 1) * k]
                    .iter()
                    .fold(0.0f32, |m, v| m.max(v.abs()));
                // Each input off by at most half a step of its grid.
                let (dx, dw) = (xmax / QX as f32 / 2.0, wmax / 1365.0 / 2.0);
                let bound = k as f32 * (dx * wmax + dw * xmax + dx * dw) + 1e-4;
                let (g, e) = (got[i * n + j], want[i * n + j]);
                assert!(
                    (g - e).abs() <= bound,
                    "[{i}][{j}] {g} vs {e} (bound {bound})"
                );
            }
        }
        assert!(
            PackedWeights::new(&w[..40 * k], 40, k).is_none(),
            "40 outputs"
        );
    }
}
