//! The one pseudo-random generator of the tests and benchmarks: a 64-bit
//! linear congruential generator (Knuth's MMIX constants). Small, seeded and
//! the same sequence on every machine, so a generated model, corpus or query
//! set is the same in every run and a failing case can be replayed from its
//! seed. Not for anything that must be unpredictable.

/// A seeded stream of pseudo-random numbers; the state is the seed.
#[derive(Debug, Clone)]
pub struct Lcg(pub u64);

impl Lcg {
    /// The next number, in `0..2^31` (the state's high bits: an LCG's low
    /// bits repeat with short periods).
    pub fn draw(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }

    /// A number in `0..n` (`n` > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.draw() % n
    }

    /// One of `items` (not empty).
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }

    /// A float in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        self.draw() as f64 / (1u64 << 31) as f64
    }

    /// `n` floats in `[-0.5, 0.5)`, from the top 24 bits of the state (test
    /// models' weights).
    pub fn vec(&mut self, n: usize) -> Vec<f32> {
        (0..n)
            .map(|_| (self.draw() >> 7) as f32 / (1u32 << 24) as f32 - 0.5)
            .collect()
    }
}
