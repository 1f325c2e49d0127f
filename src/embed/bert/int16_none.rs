//! No int16 products off x86-64: `available()` is false, so `dense` keeps
//! every product on f32 (see int16.rs).

pub(super) fn available() -> bool {
    false
}

pub(super) struct PackedWeights;

impl PackedWeights {
    pub(super) fn new(_: &[f32], _: usize, _: usize) -> Option<PackedWeights> {
        None
    }
}

#[derive(Default)]
pub(super) struct Rows;

impl Rows {
    pub(super) fn fill(&mut self, _: &[f32], _: usize, _: usize) {}
}

pub(super) fn linear(_: &Rows, _: &PackedWeights, _: &[f32], _: &mut [f32]) {
    unreachable!("no int16 products without AVX2")
}
