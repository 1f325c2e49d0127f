//! The nightly consolidation job: chunks that keep being recalled, by
//! different questions, with strong matches, become evergreen facts.
//!
//! One run, in one transaction: gather the recall log of the last
//! [`SCORING_WINDOW_DAYS`] per chunk, score each chunk with
//! [`promotion_score`], promote those that [`passes`] unless already promoted
//! or a near-duplicate of an active fact, then prune events older than the
//! window. Pruning comes last so this run still sees everything it scores.

use std::collections::HashSet;

use anyhow::Result;

use crate::config::LocalZone;
use crate::rank::{
    FACT_NEAR_DUPLICATE_JACCARD, PROMOTION_THRESHOLD, PromotionScore, RecallStats,
    SCORING_WINDOW_DAYS, SECONDS_PER_DAY, passes, promotion_score, word_tokens,
};
use crate::store::Store;
use crate::store::dream::{DreamTx, RecallAggregate};
use crate::store::recall_log::{RecallLog, Windows};
pub use conflicts::Flag;
pub use consolidate::Merge;
pub use fading::Fading;
pub use links::LinkCare;
use near_duplicates::NearDuplicates;
use prepared::{Prepared, prepare};
use routines::ROUTINE_WINDOW_DAYS;
pub use routines::Routine;

pub mod briefing;
pub mod claims;
pub mod conflicts;
pub mod consolidate;
mod fading;
mod links;
mod near_duplicates;
mod prepared;
pub mod routines;

/// Meta key holding the unix time of the last real (not dry) run.
pub const LAST_DREAM_META: &str = "last_dream_at";

/// One chunk the run looked at, with its score and what was decided.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    pub recall: RecallAggregate,
    pub score: PromotionScore,
    pub verdict: Verdict,
    /// The chunk's text, read only for candidates that passed the score.
    pub text: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Promoted into this fact (`None` in a dry run, which writes nothing).
    Promoted(Option<i64>),
    AlreadyPromoted(i64),
    NearDuplicate {
        of: Kept,
        jaccard: f64,
    },
    /// The score or a hard floor failed; the reasons, in words.
    Fails(Vec<String>),
}

impl Verdict {
    pub fn promotes(&self) -> bool {
        matches!(self, Verdict::Promoted(_))
    }

    /// A short lowercase explanation for people and the JSON `reason` field.
    pub fn reason(&self) -> String {
        match self {
            Verdict::Promoted(Some(id)) => format!("promoted as fact {id}"),
            Verdict::Promoted(None) => "would be promoted".into(),
            Verdict::AlreadyPromoted(id) => format!("already promoted as fact {id}"),
            Verdict::NearDuplicate { of, jaccard } => match of {
                Kept::Fact(id) => format!("near-duplicate of fact {id} (jaccard {jaccard:.2})"),
                Kept::Candidate(id) => {
                    format!("near-duplicate of chunk {id}, promoted first (jaccard {jaccard:.2})")
                }
            },
            Verdict::Fails(reasons) => reasons.join("; "),
        }
    }
}

/// What a candidate was found to duplicate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Kept {
    Fact(i64),
    /// A chunk a dry run would promote earlier in the same run.
    Candidate(i64),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    pub dry_run: bool,
    /// Window start and end (unix seconds); events before `from` are pruned.
    pub from: i64,
    pub to: i64,
    /// Best total first.
    pub candidates: Vec<Candidate>,
    pub pruned: u64,
    /// Dream facts whose confidence fell below the line: faded, or given
    /// their one second chance.
    pub fading: Vec<Fading>,
    /// Facts merged into another that says the same thing.
    pub merged: Vec<Merge>,
    /// Routines learned (or renewed) from the recall log.
    pub routines: Vec<Routine>,
    /// Contradiction candidates flagged tonight.
    pub conflicts: Vec<Flag>,
    /// Links decayed and pruned (`dream/links.rs`).
    pub links: LinkCare,
}

impl Report {
    pub fn promoted(&self) -> impl Iterator<Item = &Candidate> {
        self.candidates.iter().filter(|c| c.verdict.promotes())
    }
}

/// Runs the dream at `now`, reading weekdays and hours in `tz`; with
/// `model` (the configured embedding model's id), facts' stored vectors
/// count too. With `dry_run` nothing is written: every phase only reports
/// what it would do.
pub fn dream(
    store: &mut Store,
    now: i64,
    tz: &LocalZone,
    model: Option<i64>,
    dry_run: bool,
) -> Result<Report> {
    let from = now - SCORING_WINDOW_DAYS * SECONDS_PER_DAY as i64;
    // The log is kept for the longer of the two windows that read it.
    let keep_from = now - SCORING_WINDOW_DAYS.max(ROUTINE_WINDOW_DAYS) * SECONDS_PER_DAY as i64;
    let tx = store.begin_dream(dry_run)?;
    // One pass over the exposure log serves scoring, routine mining and
    // the pruning count.
    let mut log = tx.read_recall_log(Windows {
        score_from: from,
        routine_from: now - ROUTINE_WINDOW_DAYS * SECONDS_PER_DAY as i64,
        keep_from,
        to: now,
    })?;
    let mut candidates: Vec<Candidate> = std::mem::take(&mut log.aggregates)
        .into_iter()
        .map(|recall| score(recall, now))
        .collect();
    candidates.sort_by(|a, b| {
        b.score
            .total
            .total_cmp(&a.score.total)
            .then(a.recall.chunk_id.cmp(&b.recall.chunk_id))
    });

    // Fading first: a fact promoted tonight starts at its score, well above
    // the line, so the order only matters for what the report lists.
    let fading = fading::fade(&tx, now, dry_run)?;
    promote_passing(&tx, &mut candidates, now, dry_run)?;
    let night = night_shift(&tx, &fading, &log, tz, model, now, dry_run)?;
    let links = links::tend(&tx, now, dry_run)?;
    let pruned = if dry_run {
        log.older
    } else {
        tx.prune_events_before(keep_from)?
    };
    if !dry_run {
        tx.set_meta(LAST_DREAM_META, &now.to_string())?;
        tx.commit()?;
    }
    Ok(Report {
        dry_run,
        from,
        to: now,
        candidates,
        pruned,
        fading,
        merged: night.0,
        routines: night.1,
        conflicts: night.2,
        links,
    })
}

/// Consolidation, routines and contradictions, in that order, over the
/// facts active after promotion and fading. A dry run wrote neither: the
/// chunks it would promote have no fact id yet and are left out, and the
/// facts it would fade leave here.
fn night_shift(
    tx: &DreamTx<'_>,
    fading: &[Fading],
    log: &RecallLog,
    tz: &LocalZone,
    model: Option<i64>,
    now: i64,
    dry_run: bool,
) -> Result<(Vec<Merge>, Vec<Routine>, Vec<Flag>)> {
    let gone: HashSet<i64> = fading
        .iter()
        .filter(|f| dry_run && !f.reprieved)
        .map(|f| f.fact_id)
        .collect();
    let mut facts = tx.active_facts()?;
    facts.retain(|f| !gone.contains(&f.id));
    let vectors = match model {
        Some(id) => tx.fact_vectors(id)?,
        None => Default::default(),
    };
    // Each fact's words are read once for both phases that compare them.
    let prepared = prepare(&facts);
    let merged = consolidate::consolidate(tx, &prepared, &vectors, now, dry_run)?;
    let merged_ids: HashSet<i64> = merged.iter().map(|m| m.fact_id).collect();
    let kept: Vec<&Prepared<'_>> = prepared
        .iter()
        .filter(|p| !merged_ids.contains(&p.fact.id))
        .collect();
    // Routines are never merged: mining sees the routines active after
    // consolidation in `facts` as it is.
    let routines = routines::mine(tx, log, &facts, tz, now, dry_run)?;
    let conflicts = conflicts::flag(tx, &kept, &vectors, now, dry_run)?;
    Ok((merged, routines, conflicts))
}

/// Promotes every candidate still pending (`Promoted(None)`) unless it is a
/// near-duplicate of an active fact. Facts promoted earlier in this run count
/// too, so two near-identical chunks promote once: the better scored, as
/// `candidates` is sorted best first. A dry run only marks what it would do.
fn promote_passing(
    tx: &DreamTx<'_>,
    candidates: &mut [Candidate],
    now: i64,
    dry_run: bool,
) -> Result<()> {
    let passing: Vec<usize> = (0..candidates.len())
        .filter(|&i| candidates[i].verdict == Verdict::Promoted(None))
        .collect();
    if passing.is_empty() {
        return Ok(());
    }
    let facts: Vec<(i64, HashSet<String>)> = tx
        .active_fact_texts()?
        .into_iter()
        .map(|(id, text)| (id, word_tokens(&text)))
        .collect();
    let mut texts: Vec<(String, HashSet<String>)> = Vec::with_capacity(passing.len());
    for &i in &passing {
        let text = tx.chunk_text(candidates[i].recall.chunk_id)?;
        let tokens = word_tokens(&text);
        texts.push((text, tokens));
    }
    let universe = facts.iter().map(|f| &f.1).chain(texts.iter().map(|t| &t.1));
    let mut kept = NearDuplicates::new(FACT_NEAR_DUPLICATE_JACCARD, universe);
    for (id, tokens) in &facts {
        kept.insert(Kept::Fact(*id), tokens);
    }
    for (&i, (text, tokens)) in passing.iter().zip(texts) {
        let c = &mut candidates[i];
        if let Some((of, jaccard)) = kept.most_similar(&tokens) {
            c.verdict = Verdict::NearDuplicate { of, jaccard };
        } else if dry_run {
            kept.insert(Kept::Candidate(c.recall.chunk_id), &tokens);
        } else {
            let id = tx.promote(c.recall.chunk_id, &text, c.score.total, now)?;
            kept.insert(Kept::Fact(id), &tokens);
            c.verdict = Verdict::Promoted(Some(id));
        }
        c.text = Some(text);
    }
    Ok(())
}

/// Scores one chunk and applies the gates that need no database:
/// already promoted, then the threshold and the hard floors. A passing
/// candidate comes back as `Promoted(None)`, pending the near-duplicate check.
fn score(recall: RecallAggregate, now: i64) -> Candidate {
    let stats = RecallStats {
        recall_count: recall.recall_count,
        unique_queries: recall.unique_queries,
        max_score: recall.max_score,
        days_since_last_recall: (now - recall.last_recalled_at) as f64 / SECONDS_PER_DAY,
    };
    let score = promotion_score(&stats);
    let verdict = if let Some(id) = recall.promoted_as {
        Verdict::AlreadyPromoted(id)
    } else if passes(&stats, &score) {
        Verdict::Promoted(None)
    } else {
        Verdict::Fails(failures(&stats, &score))
    };
    Candidate {
        recall,
        score,
        verdict,
        text: None,
    }
}

/// Why `passes` said no, one phrase per failed condition.
fn failures(s: &RecallStats, p: &PromotionScore) -> Vec<String> {
    use crate::rank::{MIN_RECALL_COUNT, MIN_UNIQUE_QUERIES};
    let mut out = Vec::new();
    if p.total < PROMOTION_THRESHOLD {
        out.push(format!(
            "score {:.2} below {PROMOTION_THRESHOLD:.2}",
            p.total
        ));
    }
    let noun = |n: u64, one: &'static str, many: &'static str| if n == 1 { one } else { many };
    if s.recall_count < MIN_RECALL_COUNT {
        out.push(format!(
            "{} {}, needs {MIN_RECALL_COUNT}",
            s.recall_count,
            noun(s.recall_count, "recall", "recalls")
        ));
    }
    if s.unique_queries < MIN_UNIQUE_QUERIES {
        out.push(format!(
            "{} distinct {}, needs {MIN_UNIQUE_QUERIES}",
            s.unique_queries,
            noun(s.unique_queries, "query", "queries")
        ));
    }
    out
}

#[cfg(test)]
#[path = "dream_tests.rs"]
mod tests;
