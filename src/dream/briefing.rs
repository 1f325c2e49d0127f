//! The session-start briefing: important memories that have gone untouched,
//! so an agent (MCP prompt `session_briefing`) or a person (`facts --stale`)
//! can bring them back before they fade.

use crate::store::facts::Fact;

/// Days without a recall (or, never recalled, since it was learned) after
/// which an important fact is stale.
pub const STALE_AFTER_DAYS: i64 = 30;
/// Confidence from which a fact is important.
pub const IMPORTANT_CONFIDENCE: f64 = 0.7;
/// Genuine recalls from which a fact is important, whatever its confidence.
pub const IMPORTANT_RECALLS: u64 = 3;

/// Whether `f` is important and untouched for [`STALE_AFTER_DAYS`] at `now`.
pub fn is_stale(f: &Fact, now: i64) -> bool {
    let important = f.confidence >= IMPORTANT_CONFIDENCE || f.recalls >= IMPORTANT_RECALLS;
    let touched = f.last_recalled_at.unwrap_or(f.created_at).max(f.created_at);
    f.retracted_at.is_none() && important && now - touched >= STALE_AFTER_DAYS * 86_400
}

/// The stale facts among `facts`, longest untouched first.
pub fn stale(facts: Vec<Fact>, now: i64) -> Vec<Fact> {
    let mut out: Vec<Fact> = facts.into_iter().filter(|f| is_stale(f, now)).collect();
    out.sort_by_key(|f| {
        (
            f.last_recalled_at.unwrap_or(f.created_at).max(f.created_at),
            f.id,
        )
    });
    out
}
