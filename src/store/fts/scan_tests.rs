//! `scan.rs`'s one-call rankings against the statements they stand for.

use super::super::statement::{planned, row_by_row, scan};
use super::super::{Ranked, fast, plan, prune};
use crate::ingest::record::{Meta, Record};
use crate::kinds::SourceType;
use crate::lcg::Lcg;
use crate::store::Store;
use crate::store::search::CandidateQuery;

/// The words the queries pick from: some in every row, some in a few,
/// one in none, quoted as `fts_query` quotes them.
const VOCAB: [&str; 7] = [
    "\"acme\"",
    "\"report\"",
    "\"zebra\"",
    "\"7\"",
    "\"12\"",
    "\"filler\"",
    "\"nothing\"",
];

/// `rows` e-mails, row `i` dated `i × spacing` with the text `text(i)`,
/// and an evergreen fact that passes every window.
fn corpus(rows: i64, spacing: i64, text: impl Fn(i64) -> String) -> Store {
    let mut store = Store::open_in_memory().unwrap();
    let b = store.begin_batch(1).unwrap();
    for i in 0..rows {
        let rec = Record::email(&format!("m{i}"), Meta::default(), &[text(i)], i * spacing);
        b.write(&rec).unwrap();
    }
    b.commit().unwrap();
    store.remember("acme zebra is a fact", 1).unwrap();
    store
}

/// The walk ranks and counts exactly as the statement that steps every
/// match: the same rows, scores bit for bit, the same count for one
/// phrase (scored rows, or tested rows with a window), over one to three phrases,
/// rowid ranges, windows that cut days and facts that pass every window.
#[test]
fn the_walk_ranks_and_counts_as_row_by_row_scoring_does() {
    let store = corpus(3000, 7_000, |i| {
        format!(
            "acme {} report {} {}",
            "filler ".repeat((i % 7) as usize),
            i % 11,
            if i % 3 == 0 { "zebra zebra" } else { "" }
        )
    });
    let vocab = VOCAB.map(|w| w.replace("12", "3"));
    let mut rng = Lcg(11);
    let mut windowed = 0;
    for case in 0..300 {
        let mut phrases: Vec<String> = Vec::new();
        for _ in 0..1 + rng.below(3) {
            let p = rng.pick(&vocab).to_string();
            if !phrases.contains(&p) {
                phrases.push(p);
            }
        }
        let Some(plan) = plan::plan(&store.conn, None, &phrases, None).unwrap() else {
            continue;
        };
        let (after, before) = match rng.below(3) {
            0 => (None, None),
            1 => (Some(rng.below(21_000_000) as i64), None),
            _ => {
                let a = rng.below(21_000_000) as i64;
                (Some(a), Some(a + rng.below(5_000_000) as i64))
            }
        };
        windowed += usize::from(after.is_some());
        let n = *rng.pick(&[1, 10, 50, 400]);
        let q = CandidateQuery {
            after,
            before,
            ..CandidateQuery::words(&phrases, n)
        };
        let mid = 1 + rng.below(3000) as i64;
        for scoring in [plan.first(), &plan.full] {
            let case = format!(
                "case {case}: {} n {n} window {after:?}..{before:?}",
                scoring.expr
            );
            let walked = [
                scan(&store.conn, &q, scoring, n, ..).unwrap(),
                scan(&store.conn, &q, scoring, n, ..mid).unwrap(),
                scan(&store.conn, &q, scoring, n, mid..).unwrap(),
            ];
            let stepped = [
                row_by_row(&store.conn, &q, scoring, n, ..).unwrap(),
                row_by_row(&store.conn, &q, scoring, n, ..mid).unwrap(),
                row_by_row(&store.conn, &q, scoring, n, mid..).unwrap(),
            ];
            for (w, s) in walked.iter().zip(&stepped) {
                let bits = |r: &super::super::Ranked| {
                    r.iter()
                        .map(|&(id, b)| (id, b.to_bits()))
                        .collect::<Vec<_>>()
                };
                assert_eq!(bits(&w.0), bits(&s.0), "{case}");
                // Only a one-phrase count is read (a one-word query's
                // IDF); several phrases may leave out rows that could not
                // reach the top (`prune.rs`).
                if scoring.phrases() == 1 {
                    assert_eq!(w.1, s.1, "{case}: count");
                } else {
                    assert!(w.1 <= s.1, "{case}: count {} of {}", w.1, s.1);
                }
            }
        }
    }
    assert!(windowed > 100, "{windowed} windowed");
}

/// One walk that counts and ranks selects what counting each phrase
/// first and ranking the plan's expressions selects, bit for bit:
/// common words left out (and taken back when the others pass too few
/// rows), windows, limits larger than the matches.
#[test]
fn the_planned_walk_selects_what_the_counted_plan_selects() {
    let store = corpus(2000, 9_000, |i| {
        format!(
            "acme report {} {} {}",
            "filler ".repeat((i % 9) as usize),
            i % 13,
            if i % 5 == 0 { "zebra" } else { "" }
        )
    });
    let vocab = VOCAB.map(str::to_string);
    let mut rng = Lcg(5);
    let (mut reduced, mut taken_back) = (0, 0);
    for case in 0..300 {
        let phrases = two_or_three(&mut rng, &vocab);
        let (after, before) = match rng.below(3) {
            0 => (None, None),
            1 => (Some(rng.below(18_000_000) as i64), None),
            _ => {
                let a = rng.below(18_000_000) as i64;
                (Some(a), Some(a + rng.below(4_000_000) as i64))
            }
        };
        let n = *rng.pick(&[1, 10, 50, 400, 3000]);
        let q = CandidateQuery {
            after,
            before,
            ..CandidateQuery::words(&phrases, n)
        };
        let case = format!("case {case}: {phrases:?} n {n} window {after:?}..{before:?}");
        let plan = planned_as_counted(&store, &q, &phrases, &case);
        if plan.reduced.is_some() {
            reduced += 1;
            let first = row_by_row(&store.conn, &q, plan.first(), n, ..).unwrap();
            taken_back += usize::from(first.0.len() < n);
        }
    }
    // Both of the plan's ways were taken.
    assert!(
        reduced > 50 && taken_back > 10,
        "{reduced} reduced, {taken_back} taken back"
    );
}

/// With sources asked for, the walks (one word, several, planned or
/// counted) select exactly what the joined statement selects, which tests
/// each match's chunk row; also where the packed sources are missing and
/// are read from the chunk rows instead.
#[test]
fn a_source_filter_selects_what_the_joined_statement_selects() {
    let mut store = Store::open_in_memory().unwrap();
    let b = store.begin_batch(1).unwrap();
    let kinds = [
        SourceType::Email,
        SourceType::Receipt,
        SourceType::Conversation,
    ];
    for i in 0..2400i64 {
        let text = format!(
            "acme report {} {} {}",
            "filler ".repeat((i % 5) as usize),
            i % 13,
            if i % 7 == 0 { "zebra" } else { "" }
        );
        let mut rec = Record::email(&format!("m{i}"), Meta::default(), &[text], i * 9_000);
        rec.source_type = kinds[(i % 3) as usize];
        b.write(&rec).unwrap();
    }
    b.commit().unwrap();
    store.remember("acme zebra is a fact", 1).unwrap();
    let choices: [&[SourceType]; 4] = [
        &[SourceType::Email],
        &[SourceType::Receipt, SourceType::Fact],
        &[SourceType::Fact],
        &[SourceType::Conversation, SourceType::Email],
    ];
    let mut rng = Lcg(3);
    for round in 0..2 {
        if round == 1 {
            // The copy of block 1 lost: its rows are read from memory_chunks.
            store
                .conn
                .execute(
                    "DELETE FROM memory_chunk_narrow_sources WHERE block = 1",
                    [],
                )
                .unwrap();
        }
        for case in 0..150 {
            let mut phrases: Vec<String> = Vec::new();
            while phrases.len() < 1 + rng.below(3) as usize {
                let p = rng.pick(&VOCAB).to_string();
                if !phrases.contains(&p) {
                    phrases.push(p);
                }
            }
            let after = (rng.below(2) == 0).then(|| rng.below(20_000_000) as i64);
            let n = *rng.pick(&[1, 10, 50, 3000]);
            let q = CandidateQuery {
                after,
                sources: choices[rng.below(choices.len() as u64) as usize],
                ..CandidateQuery::words(&phrases, n)
            };
            let plan = plan::plan(&store.conn, None, &phrases, None)
                .unwrap()
                .unwrap();
            let joined = fast::ranked(&store, &q, true, Some(&plan), n).unwrap();
            let walked = fast::ranked(&store, &q, false, Some(&plan), n).unwrap();
            let case = format!("round {round} case {case}: {phrases:?} n {n} {q:?}");
            assert_eq!(bits(&walked), bits(&joined), "{case}");
            if phrases.len() > 1 {
                let planned = planned(&store.conn, &q, &phrases, n).unwrap();
                assert_eq!(bits(&planned), bits(&joined), "{case}");
            }
        }
    }
}

/// Two or three different phrases of `vocab`.
fn two_or_three(rng: &mut Lcg, vocab: &[String]) -> Vec<String> {
    let mut phrases: Vec<String> = Vec::new();
    while phrases.len() < 2 + rng.below(2) as usize {
        let p = rng.pick(vocab).to_string();
        if !phrases.contains(&p) {
            phrases.push(p);
        }
    }
    phrases
}

/// Assert that the planned walk of `q` selects, bit for bit, what the
/// counted plan's ranking selects; the plan.
fn planned_as_counted(
    store: &Store,
    q: &CandidateQuery,
    phrases: &[String],
    case: &str,
) -> plan::Plan {
    let plan = plan::plan(&store.conn, None, phrases, None)
        .unwrap()
        .unwrap();
    let counted = fast::ranked(store, q, false, Some(&plan), q.limit).unwrap();
    let walked = planned(&store.conn, q, phrases, q.limit).unwrap();
    assert_eq!(bits(&walked), bits(&counted), "{case}");
    plan
}

/// Ids and score bits of a ranking.
fn bits(r: &Ranked) -> Vec<(i64, u64)> {
    r.iter().map(|&(id, b)| (id, b.to_bits())).collect()
}

/// Where the common words are walked only on the rare words' rows
/// (`prune.rs`), the planned walk still selects exactly what the counted
/// plan selects: when the rare rows are certain to hold the top, and when
/// they are not and the common words' skipped rows are walked after all
/// (`early` fills the first rows, where the walk guesses how common a word
/// is, and is rare after them).
#[test]
fn a_pruned_walk_selects_what_the_counted_plan_selects() {
    let store = corpus(3000, 9_000, |i| {
        let mut words = vec!["every".to_string(), "filler ".repeat((i % 6) as usize)];
        for (word, holds) in [
            ("rare", i % 37 == 0),
            ("scarce", i % 23 == 5),
            ("mid", i % 4 == 1),
            ("half", i % 2 == 0),
            ("early", i < 700 || i % 61 == 0),
        ] {
            if holds {
                words.push(format!("{word} {}", if i % 5 == 0 { word } else { "" }));
            }
        }
        words.join(" ")
    });
    let vocab =
        ["rare", "scarce", "mid", "half", "early", "every", "filler"].map(|w| format!("\"{w}\""));
    let mut rng = Lcg(23);
    prune::OUTCOMES.with(|o| o.set([0; 2]));
    for case in 0..400 {
        let phrases = two_or_three(&mut rng, &vocab);
        let (after, before) = match rng.below(4) {
            0 | 1 => (None, None),
            2 => (Some(rng.below(27_000_000) as i64), None),
            _ => {
                let a = rng.below(27_000_000) as i64;
                (Some(a), Some(a + rng.below(9_000_000) as i64))
            }
        };
        let n = *rng.pick(&[1, 10, 30, 100, 400]);
        let q = CandidateQuery {
            after,
            before,
            ..CandidateQuery::words(&phrases, n)
        };
        let case = format!("case {case}: {phrases:?} n {n} window {after:?}..{before:?}");
        planned_as_counted(&store, &q, &phrases, &case);
    }
    let [exact, completed] = prune::OUTCOMES.with(|o| o.get());
    eprintln!("{exact} ranked from pruned walks, {completed} completed");
    assert!(
        exact > 40 && completed > 5,
        "{exact} ranked from pruned walks, {completed} completed"
    );
}
