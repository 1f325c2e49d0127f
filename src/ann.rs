//! The arithmetic of the vector index (an inverted file, IVF): spherical
//! k-means for the lists' centroids, int8 codes for the vectors, and the
//! dot products both are read with. Pure: `store::vector_index` keeps the
//! lists in SQLite and `search::hybrid` decides when to use them.

use crate::lcg::Lcg;

/// k-means rounds when training the lists: the centroids move little after
/// the first few, and recall is bought by probing lists, not by polish.
const TRAIN_ROUNDS: usize = 6;

/// Training samples per list: enough to place each centroid, few enough
/// that training costs seconds at a million chunks.
const SAMPLES_PER_LIST: usize = 32;

/// Lists for an index over `n` chunks: about half the square root, so a
/// list holds about `2√n` chunks (≈1,150 at 330k) and assigning a vector
/// costs `√n / 2` dot products; at least 1, at most 2,048.
pub fn list_count(n: usize) -> usize {
    (((n as f64).sqrt() / 2.0).round() as usize).clamp(1, 2048)
}

/// How many samples train `lists` lists out of `n` vectors.
pub fn sample_count(lists: usize, n: usize) -> usize {
    (lists * SAMPLES_PER_LIST).min(n)
}

/// Dot product, in eight lanes the compiler vectorises.
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0f32; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for i in 0..8 {
            acc[i] += x[i] * y[i];
        }
    }
    let tail: f32 = ra.iter().zip(rb).map(|(x, y)| x * y).sum();
    acc.iter().sum::<f32>() + tail
}

/// Scale this vector to unit length (a zero vector stays zero).
pub fn normalise(v: &mut [f32]) {
    let n = dot(v, v).sqrt();
    if n > 0.0 {
        v.iter_mut().for_each(|x| *x /= n);
    }
}

/// The int8 code of `v`: its scale (the largest magnitude / 127, f32 LE)
/// then one signed byte per dimension. Per-vector scaling keeps the error
/// a fraction of a percent of the vector's own range.
pub fn encode(v: &[f32]) -> Vec<u8> {
    let max = v.iter().fold(0f32, |m, x| m.max(x.abs()));
    let scale = if max > 0.0 { max / 127.0 } else { 1.0 };
    let mut out = Vec::with_capacity(4 + v.len());
    out.extend_from_slice(&scale.to_le_bytes());
    out.extend(
        v.iter()
            .map(|x| (x / scale).round().clamp(-127.0, 127.0) as i8 as u8),
    );
    out
}

/// The approximate dot product of a code with the query `q`; `None` when the
/// code is not of `q`'s dimension.
pub fn code_dot(code: &[u8], q: &[f32]) -> Option<f32> {
    if code.len() != q.len() + 4 {
        return None;
    }
    let scale = f32::from_le_bytes([code[0], code[1], code[2], code[3]]);
    let bytes = &code[4..];
    let mut acc = [0f32; 8];
    let (cb, cq) = (bytes.chunks_exact(8), q.chunks_exact(8));
    let (rb, rq) = (cb.remainder(), cq.remainder());
    for (b, y) in cb.zip(cq) {
        for i in 0..8 {
            acc[i] += f32::from(b[i] as i8) * y[i];
        }
    }
    let tail: f32 = rb
        .iter()
        .zip(rq)
        .map(|(b, y)| f32::from(*b as i8) * y)
        .sum();
    Some((acc.iter().sum::<f32>() + tail) * scale)
}

/// Centroids (flattened, `dim` each) is `lists` unit vectors.
pub struct Centroids {
    pub dim: usize,
    pub flat: Vec<f32>,
}

impl Centroids {
    pub fn len(&self) -> usize {
        self.flat.len() / self.dim.max(1)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn get(&self, i: usize) -> &[f32] {
        &self.flat[i * self.dim..(i + 1) * self.dim]
    }

    /// The list whose centroid is nearest `v`.
    pub fn nearest(&self, v: &[f32]) -> usize {
        let mut best = (0, f32::NEG_INFINITY);
        for i in 0..self.len() {
            let d = dot(self.get(i), v);
            if d > best.1 {
                best = (i, d);
            }
        }
        best.0
    }

    /// The `n` lists nearest `q`, nearest first.
    pub fn nearest_n(&self, q: &[f32], n: usize) -> Vec<usize> {
        let mut all: Vec<(usize, f32)> =
            (0..self.len()).map(|i| (i, dot(self.get(i), q))).collect();
        all.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        all.into_iter().take(n).map(|p| p.0).collect()
    }
}

/// Spherical k-means over `samples` (unit vectors, `dim` each, flattened):
/// `lists` centroids, seeded from samples picked by `seed`, so the same
/// samples always train the same lists. A list left empty in a round is
/// reseeded from a sample, so none stays empty while samples remain.
pub fn train(samples: &[f32], dim: usize, lists: usize, seed: u64) -> Centroids {
    let n = samples.len() / dim;
    let lists = lists.clamp(1, n.max(1));
    let mut rng = Lcg(seed);
    let mut flat = Vec::with_capacity(lists * dim);
    for i in 0..lists {
        // Spread the seeds over the samples, with a random offset in each stride.
        let stride = n / lists;
        let at = i * stride + rng.below(stride.max(1) as u64) as usize;
        flat.extend_from_slice(&samples[at.min(n - 1) * dim..][..dim]);
    }
    let mut centroids = Centroids { dim, flat };
    let mut assign = vec![0usize; n];
    for _ in 0..TRAIN_ROUNDS {
        for (j, a) in assign.iter_mut().enumerate() {
            *a = centroids.nearest(&samples[j * dim..(j + 1) * dim]);
        }
        let mut sums = vec![0f32; lists * dim];
        let mut counts = vec![0usize; lists];
        for (j, &a) in assign.iter().enumerate() {
            counts[a] += 1;
            let s = &mut sums[a * dim..(a + 1) * dim];
            for (x, y) in s.iter_mut().zip(&samples[j * dim..(j + 1) * dim]) {
                *x += y;
            }
        }
        for (c, count) in counts.iter().enumerate() {
            let s = &mut sums[c * dim..(c + 1) * dim];
            if *count == 0 {
                let at = rng.below(n as u64) as usize;
                s.copy_from_slice(&samples[at * dim..(at + 1) * dim]);
            }
            normalise(s);
        }
        centroids.flat = sums;
    }
    centroids
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(rng: &mut Lcg, dim: usize) -> Vec<f32> {
        let mut v = rng.vec(dim);
        normalise(&mut v);
        v
    }

    #[test]
    fn codes_keep_dot_products_within_a_percent() {
        let mut rng = Lcg(7);
        for dim in [3, 8, 384, 385] {
            for _ in 0..50 {
                let (v, q) = (unit(&mut rng, dim), unit(&mut rng, dim));
                let approx = code_dot(&encode(&v), &q).unwrap();
                assert!((approx - dot(&v, &q)).abs() < 0.01, "{dim}: {approx}");
            }
        }
        assert_eq!(code_dot(&encode(&[1.0, 0.0]), &[1.0, 0.0, 0.0]), None);
        assert_eq!(code_dot(&encode(&[0.0, 0.0]), &[1.0, 0.0]), Some(0.0));
    }

    #[test]
    fn list_counts_grow_with_the_square_root() {
        let table = [
            (0, 1),
            (1, 1),
            (100, 5),
            (330_000, 287),
            (3_000_000, 866),
            (1 << 40, 2048),
        ];
        for (n, lists) in table {
            assert_eq!(list_count(n), lists, "{n}");
        }
    }

    #[test]
    fn training_finds_separated_clusters() {
        // Three tight clusters around three axes: every sample's list is
        // the one of its cluster.
        let dim = 16;
        let mut rng = Lcg(3);
        let mut samples = Vec::new();
        for j in 0..300 {
            let mut v: Vec<f32> = rng.vec(dim).iter().map(|x| x * 0.05).collect();
            v[j % 3] += 1.0;
            normalise(&mut v);
            samples.extend(v);
        }
        let c = train(&samples, dim, 3, 1);
        assert_eq!(c.len(), 3);
        for j in 0..300 {
            let mine = c.nearest(&samples[j * dim..(j + 1) * dim]);
            let first = c.nearest(&samples[(j % 3) * dim..(j % 3 + 1) * dim]);
            assert_eq!(mine, first, "sample {j}");
        }
        let near = c.nearest_n(&samples[..dim], 3);
        assert_eq!(near[0], c.nearest(&samples[..dim]));
        assert_eq!(near.len(), 3);
    }
}
