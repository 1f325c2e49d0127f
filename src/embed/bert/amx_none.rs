//! No AMX off x86-64: `available()` is false, so `dense` keeps every product
//! on f32 and never calls `linear` (see amx.rs).

pub(super) const BLOCK_ROWS: usize = 32;

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
pub(super) struct Bf16Rows;

impl Bf16Rows {
    pub(super) fn fill(&mut self, _: &[f32], _: usize, _: usize) {}
}

pub(super) fn linear(_: &Bf16Rows, _: &PackedWeights, _: &[f32], _: &mut [f32]) {
    unreachable!("no AMX products without AMX")
}
