//! No AMX off x86-64: every pass stays on f32 (see amx.rs).

pub(super) fn available() -> bool {
    false
}

pub(super) fn padded_rows(t: usize) -> usize {
    t
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
