use super::check::{self, Verdict};
use super::plan::Plan;
use super::split::plan_query;
use super::{BM25_WEIGHTS, FtsEngine, fast, plain};
use crate::ingest::record::{Meta, Record};
use crate::lcg::Lcg;
use crate::store::Store;
use crate::store::search::{Candidate, CandidateQuery};

fn record(id: &str, texts: &[&str], dated_at: i64) -> Record {
    Record::email(id, Meta::default(), texts, dated_at)
}

/// A store where most matches are visible but some are superseded, so
/// the two-step path has to read past invisible rows.
fn store() -> Store {
    let mut store = Store::open_in_memory().unwrap();
    let b = store.begin_batch(1).unwrap();
    for i in 0..300 {
        let filler = "word ".repeat(i % 17);
        let text = format!("acme contract {filler} number {i}");
        b.write(&record(&format!("m{i}"), &[&text], i as i64 * 1000))
            .unwrap();
    }
    b.commit().unwrap();
    // Re-index 40 sources with new text: their old chunks are superseded.
    let b = store.begin_batch(2).unwrap();
    for i in 0..40 {
        b.write(&record(&format!("m{i}"), &["something else entirely"], 5))
            .unwrap();
    }
    b.commit().unwrap();
    store
}

fn phrases(expr: &str) -> Vec<String> {
    expr.split(" OR ").map(str::to_string).collect()
}

fn key(v: &[Candidate]) -> Vec<(i64, f64)> {
    v.iter().map(|c| (c.id, c.bm25)).collect()
}

/// Ids and the bit patterns of their scores: equal scores, sign included.
fn bits(v: &[Candidate]) -> Vec<(i64, u64)> {
    v.iter().map(|c| (c.id, c.bm25.to_bits())).collect()
}

#[test]
fn the_two_step_path_selects_what_the_joined_query_selects() {
    let mut store = store();
    // An evergreen fact passes every window.
    store.remember("acme number 7 is a fact", 3).unwrap();
    for (expr, limit, as_of, window) in [
        ("\"acme\"", 10, None, None),
        ("\"acme\" OR \"word\"", 50, None, None),
        ("\"contract\"", 300, None, None),
        ("\"acme\"", 20, Some(1), None),
        ("\"else\" OR \"acme\"", 5, None, None),
        ("\"number\" OR \"7\" OR \"acme\"", 5, None, None),
        ("\"acme\"", 10, None, Some((Some(50_000), Some(120_000)))),
        (
            "\"number\" OR \"7\"",
            40,
            None,
            Some((Some(0), Some(30_000))),
        ),
        ("\"acme\" OR \"else\"", 30, None, Some((None, Some(6)))),
        ("\"acme\"", 300, Some(1), Some((Some(100_000), None))),
    ] {
        let phrases = phrases(expr);
        let q = CandidateQuery {
            after: window.and_then(|w| w.0),
            before: window.and_then(|w| w.1),
            as_of,
            ..CandidateQuery::words(&phrases, limit)
        };
        let plan = plan_query(&store, &phrases, None).unwrap();
        let fast = store.candidates(&q).unwrap();
        let joined = fast::joined(&store, &q, plan.as_ref()).unwrap();
        assert_eq!(key(&fast), key(&joined), "{expr} limit {limit}");
        assert!(!fast.is_empty());
    }
}

/// Leaving the words in half the rows or more out of the MATCH selects
/// exactly what the whole expression, scored alike, selects.
#[test]
fn leaving_out_common_words_changes_no_candidate() {
    let store = store();
    // "acme", "contract" and "word" are in most rows, "7" in a few
    // ("number 7", "number 17", ...), "else" in the 40 newer rows.
    for (expr, limit, window) in [
        ("\"acme\" OR \"7\"", 3, None),
        ("\"acme\" OR \"7\"", 50, None),
        ("\"word\" OR \"else\" OR \"contract\"", 10, None),
        ("\"word\" OR \"else\" OR \"contract\"", 100, None),
        ("\"acme\" OR \"7\"", 2, Some((0, 100_000))),
        ("\"acme\" OR \"7\"", 20, Some((0, 100_000))),
    ] {
        let phrases = phrases(expr);
        let plan = plan_query(&store, &phrases, None).unwrap().unwrap();
        assert!(plan.reduced.is_some(), "{expr}: nothing left out");
        let whole = Plan {
            reduced: None,
            ..plan.clone()
        };
        let q = CandidateQuery {
            after: window.map(|w| w.0),
            before: window.map(|w| w.1),
            ..CandidateQuery::words(&phrases, limit)
        };
        let fast = store.candidates(&q).unwrap();
        let reference = fast::joined(&store, &q, Some(&whole)).unwrap();
        assert_eq!(key(&fast), key(&reference), "{expr} limit {limit}");
        assert_eq!(fast.len(), limit.min(reference.len()));
    }
}

/// Many generated queries (one to three words, common and rare, with and
/// without windows, `as_of`, limits): the default (fast) engine returns
/// exactly what the plain engine (`ALFRED_MEM_FTS=plain`) returns, bit for
/// bit, and what the joined query returns when it scores the whole
/// expression (nothing left out).
#[test]
fn generated_queries_rank_alike_in_both_engines_and_unoptimised() {
    let mut store = store();
    store.remember("acme number 7 is a fact", 3).unwrap();
    store.remember("zebra contract", 4).unwrap();
    let vocab = [
        "acme", "contract", "word", "number", "else", "entirely", "7", "17", "3", "zebra", "fact",
        "nothing",
    ];
    let mut rng = Lcg(7);
    let (mut windowed, mut found) = (0, 0);
    for case in 0..400 {
        let mut words: Vec<&str> = Vec::new();
        for _ in 0..1 + rng.below(3) {
            let w = *rng.pick(&vocab);
            if !words.contains(&w) {
                words.push(w);
            }
        }
        let phrases: Vec<String> = words.iter().map(|w| format!("\"{w}\"")).collect();
        let limit = *rng.pick(&[1, 5, 10, 50, 120]);
        let (after, before) = match rng.below(4) {
            0 => (None, None),
            1 => (Some(rng.below(300) as i64 * 1000), None),
            2 => (None, Some(rng.below(300) as i64 * 1000)),
            _ => {
                let a = rng.below(300) as i64 * 1000 - 500;
                (Some(a), Some(a + rng.below(100) as i64 * 1000))
            }
        };
        let as_of = (rng.below(4) == 0).then_some(1);
        let q = CandidateQuery {
            after,
            before,
            as_of,
            ..CandidateQuery::words(&phrases, limit)
        };
        let default = store.candidates(&q).unwrap();
        let plain = plain::candidates(&store, &q).unwrap();
        let whole = plan_query(&store, &phrases, None)
            .unwrap()
            .map(|p| Plan { reduced: None, ..p });
        let unoptimised = fast::joined(&store, &q, whole.as_ref()).unwrap();
        let case = format!(
            "case {case}: {words:?} limit {limit} window {after:?}..{before:?} as_of {as_of:?}"
        );
        assert_eq!(bits(&default), bits(&plain), "{case}");
        assert_eq!(bits(&default), bits(&unoptimised), "{case}");
        windowed += usize::from(after.is_some() || before.is_some());
        found += usize::from(!default.is_empty());
    }
    // Both kinds were generated, and most queries found something.
    assert!(windowed > 200 && windowed < 400, "{windowed} windowed");
    assert!(found > 300, "only {found} queries found anything");
}

/// `to:` is a column filter on the recipients: with it, in any mix, the
/// fast engine ranks exactly as the plain one, bit for bit.
#[test]
fn recipient_queries_rank_alike_in_both_engines() {
    let mut store = Store::open_in_memory().unwrap();
    let b = store.begin_batch(1).unwrap();
    let people = ["alice acme com", "bob x org", "alice bob", ""];
    for i in 0..200 {
        let meta = Meta {
            recipients: Some(people[i % 4].to_string()).filter(|p| !p.is_empty()),
            ..Meta::default()
        };
        let text = format!("acme contract {} number {i}", "word ".repeat(i % 13));
        b.write(&Record::email(
            &format!("m{i}"),
            meta,
            &[&text],
            i as i64 * 1000,
        ))
        .unwrap();
    }
    b.commit().unwrap();
    for (query, limit) in [
        ("to:alice", 10),
        ("to:alice acme word", 30),
        ("to:alice AND (acme OR word)", 30),
        ("acme number -to:bob", 50),
        ("to:acme OR to:org", 120),
        ("to:ali* contract", 5),
    ] {
        let built = crate::search::fts_query::build(query).unwrap();
        let expr = built.match_expr.as_str();
        let q = CandidateQuery {
            structured: built.structured.then_some(expr),
            ..CandidateQuery::words(&built.phrases, limit)
        };
        let fast = store.candidates(&q).unwrap();
        let plain = plain::candidates(&store, &q).unwrap();
        assert!(!fast.is_empty(), "{expr}");
        assert_eq!(bits(&fast), bits(&plain), "{expr}");
    }
}

/// A query of nothing but common words, or of no common word, is scored
/// as FTS5 scores it, value for value (only a common word beside rarer
/// ones counts zero instead of FTS5's 1e-6).
#[test]
fn without_a_mix_of_common_and_rare_words_the_scores_are_fts5s() {
    let store = store();
    for expr in ["\"acme\" OR \"word\"", "\"7\" OR \"else\"", "\"else\""] {
        let phrases = phrases(expr);
        let q = CandidateQuery {
            as_of: Some(1),
            ..CandidateQuery::words(&phrases, 30)
        };
        let ours = store.candidates(&q).unwrap();
        let mut fts5: Vec<(i64, f64)> = store
            .conn
            .prepare(&format!(
                "SELECT m.rowid, bm25(memory_fts, {BM25_WEIGHTS}) FROM memory_fts m
                 JOIN memory_chunks c ON c.id = m.rowid
                 WHERE memory_fts MATCH ?1 AND c.created_at <= 1"
            ))
            .unwrap()
            .query_map([expr], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        fts5.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
        fts5.truncate(30);
        assert_eq!(key(&ours), fts5, "{expr}");
    }
}

/// Queries whose scores depend on the average row length and the IDFs.
fn some_queries(store: &Store) -> Vec<(Vec<String>, Vec<Candidate>)> {
    [
        "\"acme\" OR \"77\"",
        "\"number\" OR \"word\"",
        "\"word\"",
        "\"else\"",
    ]
    .iter()
    .map(|expr| {
        let phrases = phrases(expr);
        let q = CandidateQuery::words(&phrases, 50);
        let ranked = plain::candidates(store, &q).unwrap();
        assert!(!ranked.is_empty(), "{expr}");
        (phrases.clone(), ranked)
    })
    .collect()
}

#[test]
fn the_self_check_passes_on_a_healthy_index_and_waits_for_a_row() {
    assert_eq!(
        check::compare(&Store::open_in_memory().unwrap().conn).unwrap(),
        Verdict::NoRows
    );
    let store = store();
    assert_eq!(check::compare(&store.conn).unwrap(), Verdict::Agree);
    assert_eq!(store.fts.engine(&store.conn), FtsEngine::Fast);
    let mut plain = Store::open_in_memory().unwrap();
    plain.fts.choose(FtsEngine::Plain);
    assert_eq!(plain.fts.engine(&plain.conn), FtsEngine::Plain);
}

/// A future SQLite that writes one more field into its averages record
/// (FTS5 itself reads only the fields it knows): the fast engine would score
/// with a wrong average length, so the self-check sends search to plain.
#[test]
fn an_averages_record_that_reads_otherwise_sends_search_to_plain() {
    let store = store();
    let healthy = some_queries(&store);
    store
        .conn
        .execute(
            "UPDATE memory_fts_data SET block = CAST(block || x'05' AS BLOB) WHERE id = 1",
            [],
        )
        .unwrap();
    let Verdict::Disagree(why) = check::compare(&store.conn).unwrap() else {
        panic!("the self-check missed the extra field");
    };
    assert!(why.starts_with("the averages record reads"), "{why}");
    assert_eq!(store.fts.engine(&store.conn), FtsEngine::Plain);
    // FTS5's own numbers did not change, and search gives them.
    assert_misled_fast_but_not_search(&store, healthy);
}

/// A packed length that differs from FTS5's (a docsize record read wrongly
/// when it was copied) sends search to plain as well.
#[test]
fn a_packed_length_that_differs_from_fts5s_sends_search_to_plain() {
    let store = store();
    let healthy = some_queries(&store);
    let newest: i64 = store
        .conn
        .query_row("SELECT max(id) FROM memory_fts_docsize", [], |r| r.get(0))
        .unwrap();
    // Slot `newest` of its block: one byte after the block's width byte
    // (every length here fits one); 200 tokens.
    let (block, slot) = (newest / 1024, newest % 1024);
    let packed: Vec<u8> = store
        .conn
        .query_row(
            "SELECT packed FROM memory_fts_narrow_lengths WHERE block = ?1",
            [block],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(packed[0], 1, "the block's width byte");
    store
        .conn
        .execute(
            "UPDATE memory_fts_narrow_lengths
             SET packed = CAST(substr(packed, 1, ?2) || x'c8' || substr(packed, ?2 + 2) AS BLOB)
             WHERE block = ?1",
            [block, 1 + slot],
        )
        .unwrap();
    let Verdict::Disagree(why) = check::compare(&store.conn).unwrap() else {
        panic!("the self-check missed the wrong length");
    };
    // The newest row is "something else entirely".
    assert_eq!(
        why,
        format!("the packed length of row {newest} is 200 tokens, FTS5 counts 3")
    );
    assert_misled_fast_but_not_search(&store, healthy);
}

/// Search gives what the healthy index gave, though the fast engine alone
/// would not have for some query (else the test could not fail).
fn assert_misled_fast_but_not_search(store: &Store, healthy: Vec<(Vec<String>, Vec<Candidate>)>) {
    let mut misranked = 0;
    for (phrases, want) in healthy {
        let q = CandidateQuery::words(&phrases, 50);
        assert_eq!(bits(&store.candidates(&q).unwrap()), bits(&want));
        let fast = fast::candidates(store, &q).unwrap();
        misranked += usize::from(bits(&fast) != bits(&want));
    }
    assert!(misranked > 0, "the fast engine was not misled: no test");
}

/// Generated queries in the query syntax (fields, phrases, prefixes,
/// exclusions, AND, OR, groups, CJK): the fast engine returns exactly what
/// the plain engine returns, bit for bit, structured or not.
#[test]
fn generated_syntax_queries_rank_alike_in_both_engines() {
    let mut store = Store::open_in_memory().unwrap();
    let senders = [
        "Alice <alice@acme.com>",
        "Bob <bob@x.org>",
        "Carol <c@acme.com>",
    ];
    let subjects = [
        "contract renewal",
        "dinner plans",
        "東京の出張",
        "number report",
    ];
    let b = store.begin_batch(1).unwrap();
    for i in 0..240 {
        let meta = Meta {
            sender: Some(senders[i % 3].to_string()),
            subject: Some(subjects[i % 4].to_string()),
            ..Meta::default()
        };
        let text = format!(
            "acme contract {} number {i} {}",
            "word ".repeat(i % 13),
            [
                "ディレクトリ構造の変更",
                "renewal reminder",
                "else entirely",
                ""
            ][i % 4]
        );
        let rec = Record::email(&format!("m{i}"), meta, &[text], i as i64 * 1000);
        b.write(&rec).unwrap();
    }
    b.commit().unwrap();
    let items = [
        "acme",
        "contract",
        "word",
        "number",
        "else",
        "7",
        "17",
        "renew*",
        "num*",
        "\"acme contract\"",
        "\"number 7\"",
        "from:alice",
        "from:acme.com",
        "subject:contract",
        "subject:東京",
        "ディレクトリ",
        "構造",
        "-word",
        "-from:bob",
        "-subject:dinner",
        "NOT else",
        "-\"renewal reminder\"",
        "AND",
        "OR",
        "(acme OR else)",
        "(word number)",
        "source:email",
        "zebra",
    ];
    let mut rng = Lcg(11);
    let (mut structured, mut found) = (0, 0);
    for case in 0..300 {
        let text: Vec<&str> = (0..1 + rng.below(4)).map(|_| *rng.pick(&items)).collect();
        let text = text.join(" ");
        let Some(fq) = crate::search::fts_query::build(&text) else {
            continue;
        };
        let limit = *rng.pick(&[1, 5, 20, 100]);
        let after = (rng.below(3) == 0).then(|| rng.below(240) as i64 * 1000);
        let q = CandidateQuery {
            structured: fq.structured.then_some(fq.match_expr.as_str()),
            after,
            ..CandidateQuery::words(&fq.phrases, limit)
        };
        let fast = store.candidates(&q).unwrap();
        let plain = plain::candidates(&store, &q).unwrap();
        assert_eq!(
            bits(&fast),
            bits(&plain),
            "case {case}: {text:?} -> {}",
            fq.match_expr
        );
        structured += usize::from(fq.structured);
        found += usize::from(!fast.is_empty());
    }
    assert!(structured > 100, "only {structured} structured queries");
    assert!(found > 150, "only {found} queries found anything");
}
