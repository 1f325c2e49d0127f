//! Dream's care of the links (issue 16, seed 003's link decay): a
//! `co_recall` or `semantic` link not reinforced since it was last looked
//! at has lost strength (half every 30 days); below the floor it is pruned.
//! `thread` links never change. A dry run only counts.

use anyhow::Result;
use serde::Serialize;

use crate::rank::association::PRUNE_BELOW;
use crate::store::dream::DreamTx;

/// How many links this run decayed and pruned.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct LinkCare {
    /// Weaker than last written, and written down so (not pruned).
    pub decayed: u64,
    /// Fell below the floor: pruned.
    pub pruned: u64,
}

/// Decays and prunes every changing link at `now`; with `dry_run` only
/// counts what it would do.
pub fn tend(tx: &DreamTx<'_>, now: i64, dry_run: bool) -> Result<LinkCare> {
    let mut care = LinkCare::default();
    for link in tx.changing_links()? {
        if now <= link.strength_at {
            continue;
        }
        let s = link.now(now);
        if s < PRUNE_BELOW {
            care.pruned += 1;
            if !dry_run {
                tx.prune_link(link.id, now)?;
            }
        } else if s < link.strength {
            care.decayed += 1;
            if !dry_run {
                tx.decay_link(link.id, s, now)?;
            }
        }
    }
    Ok(care)
}
