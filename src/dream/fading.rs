//! The other half of a dream: dream facts that are no longer used fade.
//! A fact's confidence decays on its stretched 60-day curve
//! (`rank::strength`); below [`FADE_BELOW`] it is retired (retracted with
//! reason `faded`, never deleted), unless it is pinned or earns its one
//! second chance: once important or often recalled, it restarts at the
//! confidence that takes half a half-life to fall back below the line.

use anyhow::Result;

use crate::rank::strength::{FADE_BELOW, confidence_at, earns_reprieve, reprieve_confidence};
use crate::store::dream::{DreamTx, LivingFact};

/// What happened to one fact whose confidence fell below the line.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fading {
    pub fact_id: i64,
    /// Its confidence at the dream.
    pub confidence: f64,
    /// True: it got its second chance; false: it faded.
    pub reprieved: bool,
}

/// Decides, and unless `dry_run` records, the fate of every unpinned dream
/// fact below the line at `now`. Facts above it are untouched.
pub fn fade(tx: &DreamTx<'_>, now: i64, dry_run: bool) -> Result<Vec<Fading>> {
    let mut out = Vec::new();
    for f in tx.fading_candidates()? {
        let Some(fading) = judge(&f, now) else {
            continue;
        };
        if !dry_run {
            if fading.reprieved {
                tx.reprieve(f.id, reprieve_confidence(), now)?;
            } else {
                tx.fade(f.id, now)?;
            }
        }
        out.push(fading);
    }
    Ok(out)
}

/// None while the fact holds at least [`FADE_BELOW`].
fn judge(f: &LivingFact, now: i64) -> Option<Fading> {
    let confidence = confidence_at(f.confidence, f.confidence_at, now, f.recalls);
    (confidence < FADE_BELOW).then(|| Fading {
        fact_id: f.id,
        confidence,
        reprieved: earns_reprieve(f.peak_confidence, f.recalls, f.reprieved),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY: i64 = 86_400;

    fn fact(confidence: f64, peak: f64, recalls: u64, reprieved: bool) -> LivingFact {
        LivingFact {
            id: 7,
            confidence,
            confidence_at: 0,
            peak_confidence: peak,
            reprieved,
            recalls,
        }
    }

    #[test]
    fn judge_table() {
        // (fact, days later, want: None = keeps, Some(reprieved))
        let cases: &[(LivingFact, i64, Option<bool>)] = &[
            (fact(0.6, 0.6, 0, false), 100, None),
            // 0.6 → below 0.1 after 60 × log2(6) ≈ 155 days.
            (fact(0.6, 0.6, 0, false), 160, Some(false)),
            (fact(0.6, 0.75, 0, false), 160, Some(true)),
            (fact(0.6, 0.6, 3, false), 160 * 3, Some(true)),
            (fact(0.6, 0.6, 3, true), 160 * 3, Some(false)),
            (fact(0.6, 0.9, 0, true), 160, Some(false)),
        ];
        for (f, days, want) in cases {
            let got = judge(f, days * DAY).map(|j| j.reprieved);
            assert_eq!(got, *want, "{f:?} at {days} days");
        }
    }
}
