use super::*;
use crate::rank::half_life::HalfLives;

const DAY: i64 = 86_400;

fn cand(id: i64, bm25: f64, text: &str, dated_at: Option<i64>) -> Candidate {
    Candidate {
        id,
        bm25,
        source_type: SourceType::Email,
        source_id: format!("m{id}"),
        text: text.into(),
        dated_at,
        meta: Default::default(),
        message_ids: vec![],
    }
}

#[test]
fn an_equal_match_from_60_days_ago_scores_a_quarter() {
    let now = 1000 * DAY;
    let hits = rank_candidates(
        vec![
            cand(1, -5.0, "acme contract renewal today", Some(now)),
            cand(
                2,
                -5.0,
                "acme contract signed long ago",
                Some(now - 60 * DAY),
            ),
        ],
        &Curve::new(DecayFrom::Instant(now), HalfLives::all(30.0)),
        10,
    );
    assert_eq!(hits[0].chunk.id, 1);
    assert!((hits[1].score / hits[0].score - 0.25).abs() < 1e-9);
}

#[test]
fn a_stronger_match_gets_a_higher_relevance() {
    let hits = rank_candidates(
        vec![cand(1, -2.0, "weak", None), cand(2, -8.0, "strong", None)],
        &Curve::new(DecayFrom::Instant(0), HalfLives::all(30.0)),
        10,
    );
    assert_eq!(hits[0].chunk.id, 2);
    assert_eq!(hits[0].relevance, 1.0);
    assert!(hits[1].relevance < 1.0 && hits[1].relevance > 0.0);
}

#[test]
fn facts_do_not_decay_and_future_dates_are_not_amplified() {
    let now = 1000 * DAY;
    let hits = rank_candidates(
        vec![
            cand(1, -5.0, "fact text", None),
            cand(2, -5.0, "future mail", Some(now + 10 * DAY)),
        ],
        &Curve::new(DecayFrom::Instant(now), HalfLives::all(30.0)),
        10,
    );
    assert!(hits.iter().all(|h| h.decay == 1.0));
}

#[test]
fn half_life_zero_turns_decay_off() {
    let hits = rank_candidates(
        vec![cand(1, -5.0, "x", Some(0))],
        &Curve::new(DecayFrom::Instant(1000 * DAY), HalfLives::all(0.0)),
        10,
    );
    assert_eq!(hits[0].decay, 1.0);
}

#[test]
fn a_strong_old_match_beats_a_weak_new_one() {
    let now = 1000 * DAY;
    let hits = rank_candidates(
        vec![
            cand(1, -3.0, "weak match from yesterday", Some(now - DAY)),
            cand(
                2,
                -10.0,
                "strong match from last winter",
                Some(now - 120 * DAY),
            ),
        ],
        &Curve::new(DecayFrom::Instant(now), HalfLives::all(30.0)),
        10,
    );
    // 0.3 × 0.98 > 1.0 × 0.0625 by score, but 0.3 is below the tier.
    assert!(hits[1].score > hits[0].score);
    assert_eq!(hits[0].chunk.id, 2);
}

#[test]
fn within_the_tier_a_newer_match_wins() {
    let now = 1000 * DAY;
    let hits = rank_candidates(
        vec![
            cand(1, -10.0, "best match a month old", Some(now - 30 * DAY)),
            cand(2, -8.0, "slightly weaker match today", Some(now)),
        ],
        &Curve::new(DecayFrom::Instant(now), HalfLives::all(30.0)),
        10,
    );
    assert_eq!(hits[0].chunk.id, 2);
}

#[test]
fn a_named_period_is_where_decay_is_measured_from() {
    let now = 1000 * DAY;
    let may = NamedPeriod {
        start: 500 * DAY,
        end: 531 * DAY,
    };
    let hits = rank_candidates(
        vec![
            cand(1, -5.0, "dinner this week", Some(now)),
            cand(2, -5.0, "dinner in may", Some(510 * DAY)),
            cand(3, -5.0, "dinner in june", Some(561 * DAY)),
        ],
        &Curve::new(DecayFrom::Period(may), HalfLives::all(30.0)),
        10,
    );
    let ids: Vec<i64> = hits.iter().map(|h| h.chunk.id).collect();
    assert_eq!(ids, [2, 3, 1]);
    assert_eq!(hits[0].decay, 1.0);
    assert!((hits[1].decay - 0.5).abs() < 1e-9);
}

/// Three chunks of one long message and one other message: four
/// candidates, two hits by default.
fn one_long_message() -> Vec<Candidate> {
    let mut long: Vec<Candidate> = [
        (1, -6.0, "spam offer one"),
        (2, -9.0, "spam offer two"),
        (3, -5.0, "spam offer three"),
    ]
    .into_iter()
    .map(|(id, bm25, text)| Candidate {
        source_id: "long@x".into(),
        ..cand(id, bm25, text, Some(0))
    })
    .collect();
    long.push(cand(4, -4.0, "a real letter about the offer", Some(0)));
    long
}

#[test]
fn one_long_email_makes_one_hit_with_its_best_chunk() {
    let hits = rank_candidates(
        one_long_message(),
        &Curve::new(DecayFrom::Instant(0), HalfLives::all(30.0)),
        10,
    );
    let ids: Vec<i64> = hits.iter().map(|h| h.chunk.id).collect();
    assert_eq!(ids, [2, 4]);
    assert_eq!(hits[0].more_chunks, Some(2));
    assert_eq!(hits[1].more_chunks, Some(0));
}

#[test]
fn all_chunks_keeps_every_chunk() {
    let cands = one_long_message();
    let bm25: Vec<f64> = cands.iter().map(|c| c.bm25).collect();
    let relevance = rank::normalise_bm25(&bm25);
    let parts = vec![None; cands.len()];
    let from = DecayFrom::Instant(0);
    let hits = rank_scored(
        cands,
        relevance,
        parts,
        &Curve::new(from, HalfLives::all(30.0)),
        10,
        Chunks::All,
    );
    assert_eq!(hits.len(), 4);
    assert!(hits.iter().all(|h| h.more_chunks.is_none()));
}

#[test]
fn conversation_windows_and_receipts_are_not_collapsed() {
    use crate::kinds::SourceType::{Conversation, Receipt};
    let cands: Vec<Candidate> = [Conversation, Conversation, Receipt, Receipt]
        .into_iter()
        .enumerate()
        .map(|(i, source_type)| Candidate {
            source_type,
            source_id: format!("{source_type}-1"),
            ..cand(
                i as i64 + 1,
                -5.0,
                &format!("window {i} of the same talk"),
                Some(0),
            )
        })
        .collect();
    let hits = rank_candidates(
        cands,
        &Curve::new(DecayFrom::Instant(0), HalfLives::all(30.0)),
        10,
    );
    assert_eq!(hits.len(), 4);
    assert!(hits.iter().all(|h| h.more_chunks.is_none()));
}

#[test]
fn overlapping_conversation_windows_are_kept_apart_by_mmr() {
    // Windows 1 and 2 share most turns; 3 is another part of the talk,
    // a little weaker. MMR puts 3 between the two overlapping windows.
    let texts = [
        "alice: the trip to lisbon is booked bob: great which hotel alice: the one by the river",
        "bob: great which hotel alice: the one by the river bob: lisbon in may then",
        "alice: lisbon photos are up carol: lovely",
    ];
    let cands: Vec<Candidate> = texts
        .iter()
        .enumerate()
        .map(|(i, text)| Candidate {
            source_type: crate::kinds::SourceType::Conversation,
            source_id: "talk".into(),
            ..cand(i as i64 + 1, [-9.0, -8.8, -8.0][i], text, Some(0))
        })
        .collect();
    let hits = rank_candidates(
        cands,
        &Curve::new(DecayFrom::Instant(0), HalfLives::all(30.0)),
        10,
    );
    let ids: Vec<i64> = hits.iter().map(|h| h.chunk.id).collect();
    assert_eq!(ids, [1, 3, 2]);
}
