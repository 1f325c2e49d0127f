//! A fact's words, prepared once a night: consolidation and the
//! contradiction check compare the same facts by the same words, tokens and
//! claim, and reading them is most of what either costs over many facts.

use std::collections::HashSet;

use super::claims::{self, Claim, Words};
use crate::kinds::FactMethod;
use crate::rank::word_tokens;
use crate::store::night::ActiveFact;

/// A fact prepared for comparison.
pub struct Prepared<'a> {
    pub fact: &'a ActiveFact,
    pub tokens: HashSet<String>,
    pub words: Words,
    pub claim: Option<Claim>,
}

/// Every fact of `facts` but the routines (each names its own habit, and
/// neither phase compares them), prepared, in the order given.
pub fn prepare(facts: &[ActiveFact]) -> Vec<Prepared<'_>> {
    facts
        .iter()
        .filter(|f| f.method != FactMethod::Routine)
        .map(|f| Prepared {
            fact: f,
            tokens: word_tokens(&f.text),
            words: Words::of(&f.text),
            claim: claims::parse(&f.text),
        })
        .collect()
}
