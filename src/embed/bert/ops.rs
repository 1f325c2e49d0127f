//! The f32 arithmetic of the forward pass: dense layers on `sgemm`, layer
//! norm, GELU, softmax and one head of attention. `exp` and `erf` are
//! polynomial approximations without library calls, so their loops
//! vectorise: with the dense layers on AMX tiles, libm's `expf` in softmax
//! was 7% of embedding time.

/// Defines a function whose body is compiled twice, for AVX2 and for
/// baseline x86-64 (SSE2, what the crate is built for), and runs the AVX2
/// copy when the CPU has it. The element-wise loops of the pass (GELU,
/// softmax, layer norm, bf16 conversion) then run 8 wide and round without
/// a libm call; everything they call here is `inline(always)`. No FMA: Rust
/// never fuses `a * b + c`, so both copies give the same bits.
macro_rules! vectorised_fn {
    ($(#[$m:meta])* $vis:vis fn $name:ident($($arg:ident: $ty:ty),* $(,)?) $body:block) => {
        $(#[$m])*
        $vis fn $name($($arg: $ty),*) {
            #[cfg(target_arch = "x86_64")]
            #[target_feature(enable = "avx2")]
            fn avx2($($arg: $ty),*) $body
            #[allow(dead_code)]
            fn baseline($($arg: $ty),*) $body
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU has AVX2 (checked just above).
                return unsafe { avx2($($arg),*) };
            }
            baseline($($arg),*)
        }
    };
}
pub(super) use vectorised_fn;

/// y[t × n_out] = x[t × n_in] · W[n_out × n_in]ᵀ + b, on f32 `sgemm`.
///
/// Panics when the lengths do not fit those shapes: `sgemm` reads and
/// writes through raw pointers, and the encoder sizes every buffer from the
/// shapes it checked when the model loaded, so a mismatch is a bug.
pub(super) fn linear(x: &[f32], w: &[f32], b: &[f32], n_in: usize, n_out: usize, y: &mut [f32]) {
    assert!(n_in > 0 && n_out > 0, "empty dense layer");
    let t = x.len() / n_in;
    assert_eq!(x.len(), t * n_in, "input is not t × n_in");
    assert_eq!(w.len(), n_out * n_in, "weight is not n_out × n_in");
    assert_eq!(b.len(), n_out, "bias is not n_out");
    assert_eq!(y.len(), t * n_out, "output is not t × n_out");
    for row in y.chunks_exact_mut(n_out) {
        row.copy_from_slice(b);
    }
    // SAFETY: x is t × n_in, W is n_out × n_in read transposed (row stride 1,
    // column stride n_in), y is t × n_out: the lengths asserted above.
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

vectorised_fn! {
    /// x ← LayerNorm(x + y), row by row.
    pub(super) fn add_norm(x: &mut [f32], y: &[f32], gamma: &[f32], beta: &[f32], eps: f32) {
        let h = gamma.len();
        for (xr, yr) in x.chunks_exact_mut(h).zip(y.chunks_exact(h)) {
            for (a, b) in xr.iter_mut().zip(yr) {
                *a += b;
            }
            norm_row(xr, gamma, beta, eps);
        }
    }
}

vectorised_fn! {
    /// LayerNorm of every row of `x` (row length `gamma.len()`).
    pub(super) fn norm_rows(x: &mut [f32], gamma: &[f32], beta: &[f32], eps: f32) {
        for row in x.chunks_exact_mut(gamma.len()) {
            norm_row(row, gamma, beta, eps);
        }
    }
}

#[inline(always)]
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
#[inline(always)]
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
#[inline(always)]
fn gelu(x: f32) -> f32 {
    0.5 * x * (1.0 + erf(x * std::f32::consts::FRAC_1_SQRT_2))
}

/// e^x for x ≤ 0 (softmax after subtracting the row's maximum): Cephes'
/// expf polynomial on x − n·ln2, scaled by 2^n through the exponent bits;
/// within 2 ulp of libm, and 0 below −87 (where f32 underflows anyway).
#[inline(always)]
fn exp_nonpositive(x: f32) -> f32 {
    let x = x.max(-87.0);
    let n = (x * std::f32::consts::LOG2_E).round_ties_even();
    let r = x - n * 0.693_359_4 + n * 2.121_944_4e-4;
    let mut p = 1.987_569_1e-4f32;
    p = p * r + 1.398_199_9e-3;
    p = p * r + 8.333_452e-3;
    p = p * r + 4.166_579_6e-2;
    p = p * r + 0.166_666_65;
    p = p * r + 0.5;
    let e = p * r * r + r + 1.0;
    // 2^n from its exponent bits: n + 127 (in 1..=254) lands in the low
    // mantissa bits of n + 127 + 2^23, and the shift moves it into the
    // exponent. `n as i32` would saturate and check for NaN, lane by lane.
    e * f32::from_bits((n + 8_388_735.0).to_bits() << 23)
}

vectorised_fn! {
    /// GELU of every element.
    pub(super) fn gelu_all(x: &mut [f32]) {
        x.iter_mut().for_each(|v| *v = gelu(*v));
    }
}

vectorised_fn! {
    /// Every row of scores (row length `len`) → probabilities.
    fn softmax_rows(scores: &mut [f32], len: usize) {
        for row in scores.chunks_exact_mut(len) {
            // Maximum and sum over 16 lanes, so they vectorise too.
            let mut lanes = [f32::NEG_INFINITY; 16];
            for part in row.chunks(16) {
                lanes.iter_mut().zip(part).for_each(|(l, s)| *l = l.max(*s));
            }
            let max = lanes.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            row.iter_mut().for_each(|s| *s = exp_nonpositive(*s - max));
            let mut lanes = [0.0f32; 16];
            for part in row.chunks(16) {
                lanes.iter_mut().zip(part).for_each(|(l, s)| *l += s);
            }
            let inv = 1.0 / lanes.iter().sum::<f32>();
            row.iter_mut().for_each(|s| *s *= inv);
        }
    }
}

/// One head of self-attention for one text: rows `at..at+len`, columns
/// `col..col+dh` of q, k, v (row stride `h`); softmax(q·kᵀ·scale)·v into ctx.
#[allow(clippy::too_many_arguments)]
pub(super) fn attend(
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
    // The same reasoning as `linear`: raw-pointer products, lengths from
    // the encoder's own sizes, so a mismatch is a bug.
    let end = (at + len) * h;
    assert!(col + dh <= h, "head columns outside the row");
    assert!(
        q.len() >= end && k.len() >= end && v.len() >= end && ctx.len() >= end,
        "attention rows outside the buffers"
    );
    assert_eq!(scores.len(), len * len, "scores is not len × len");
    let off = at * h + col;
    // SAFETY: every matrix lies inside its buffer (asserted above): rows
    // at..at+len of width h, columns col..col+dh; scores is len × len.
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
    softmax_rows(scores, len);
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
