//! The candidate query: FTS5 top-K by bm25 among chunks visible at an instant
//! and inside the time window. The window and visibility filters are SQL, so
//! they apply before ranking, not after it; evergreen facts always pass the
//! window.

use anyhow::Result;
use rusqlite::types::Value;

use super::Store;
use super::fts_plan::{self, Plan};
use crate::ingest::record::SourceType;

/// What to fetch. Times are unix seconds; the window is half-open [after, before).
#[derive(Debug, Clone)]
pub struct CandidateQuery<'a> {
    /// The quoted words, joined with OR into the `MATCH` expression.
    pub phrases: &'a [String],
    pub after: Option<i64>,
    pub before: Option<i64>,
    /// Only these source types (empty: all).
    pub sources: &'a [SourceType],
    /// Show memory as it stood at this instant (None: the present).
    pub as_of: Option<i64>,
    pub limit: usize,
}

#[cfg(test)]
impl<'a> CandidateQuery<'a> {
    /// The query over every source at the present, no window: tests set
    /// what differs with `..CandidateQuery::words(..)`.
    pub(super) fn words(phrases: &'a [String], limit: usize) -> Self {
        CandidateQuery {
            phrases,
            after: None,
            before: None,
            sources: &[],
            as_of: None,
            limit,
        }
    }
}

/// A chunk as search sees it.
#[derive(Debug, Clone)]
pub struct Candidate {
    pub id: i64,
    /// FTS5 bm25: negative, more negative is more relevant.
    pub bm25: f64,
    pub source_type: String,
    pub source_id: String,
    pub text: String,
    pub dated_at: Option<i64>,
    pub subject: Option<String>,
    pub sender: Option<String>,
    pub vendor: Option<String>,
    pub title: Option<String>,
    pub message_ids: Vec<String>,
}

/// bm25 column weights for (text, subject, sender, vendor, title). The
/// who/what columns repeat on every chunk of a source, so at full weight
/// every paragraph of one email would rank alike on a subject match.
pub(super) const BM25_WEIGHTS: &str = "1.0, 0.5, 0.5, 0.5, 0.5";

/// First guess at how many bm25-ranked rows to read when no window or source
/// filter applies, as a multiple of the limit: superseded chunks and
/// retracted facts are rare, so almost all of them survive the visibility check.
const OVERFETCH: usize = 2;

/// Rows read by the ranking-only query before giving up on it and letting
/// SQLite join and filter every match instead.
const MAX_FTS_ONLY_ROWS: usize = 4096;

impl Store {
    /// The top `q.limit` visible chunks by bm25, in bm25 order.
    ///
    /// With no source filter this runs in two steps: rank the full-text
    /// matches alone (no join per matching row, which is most of the cost on
    /// common words; a time window is tested on packed dates by
    /// `alfred_dated_in()`), then look up and filter just those rows, reading
    /// more if too many were invisible. Both steps select exactly the same
    /// rows as the single joined query, which is used otherwise.
    pub fn candidates(&self, q: &CandidateQuery) -> Result<Vec<Candidate>> {
        if !q.sources.is_empty() {
            let plan = self.plan(q.phrases)?;
            return self.candidates_joined(q, plan.as_ref());
        }
        // One word is ranked first and counted on the way; more words are
        // counted first (their IDFs weigh them against each other).
        let single = match q.phrases {
            [phrase] => fts_plan::single(&self.conn, phrase)?,
            _ => None,
        };
        let mut plan: Option<Option<Plan>> = None;
        let mut want = (q.limit * OVERFETCH).max(q.limit + 16);
        loop {
            let fast = match &single {
                Some(single) => self.ranked_single(q, single, want)?,
                None => None,
            };
            let ranked = match fast {
                Some(ranked) => ranked,
                None => {
                    let plan = plan.get_or_insert(self.plan(q.phrases)?);
                    self.ranked(q, false, plan.as_ref(), want)?
                }
            };
            let exhausted = ranked.len() < want;
            let mut visible = self.visible_rows(&ranked, q.as_of)?;
            if visible.len() >= q.limit || exhausted {
                visible.truncate(q.limit);
                return Ok(visible);
            }
            if want >= MAX_FTS_ONLY_ROWS {
                let plan = plan.get_or_insert(self.plan(q.phrases)?);
                return self.candidates_joined(q, plan.as_ref());
            }
            want *= 4;
        }
    }

    /// The visible chunks among `ids`, in that order, with bm25 0 (for
    /// candidates found by meaning rather than by words).
    pub fn candidates_by_id(&self, ids: &[i64], as_of: Option<i64>) -> Result<Vec<Candidate>> {
        let ranked: Vec<(i64, f64)> = ids.iter().map(|&id| (id, 0.0)).collect();
        self.visible_rows(&ranked, as_of)
    }

    /// The rows of `ranked` visible now (or at `as_of`), in `ranked` order.
    fn visible_rows(&self, ranked: &[(i64, f64)], as_of: Option<i64>) -> Result<Vec<Candidate>> {
        let ids = serde_json::to_string(&ranked.iter().map(|r| r.0).collect::<Vec<_>>())?;
        let mut sql = format!(
            "SELECT c.id, 0.0, {CANDIDATE_COLUMNS}
             FROM memory_chunks c
             LEFT JOIN memory_facts f ON f.chunk_id = c.id
             WHERE c.id IN (SELECT value FROM json_each(?1)) AND f.purged_at IS NULL"
        );
        let mut params: Vec<Value> = vec![Value::Text(ids)];
        push_visibility(&mut sql, &mut params, as_of, "c");
        let mut stmt = self.conn.prepare_cached(&sql)?;
        let mut found: std::collections::HashMap<i64, Candidate> = stmt
            .query_map(rusqlite::params_from_iter(params), candidate_row)?
            .map(|r| r.map(|c| (c.id, c)))
            .collect::<Result<_, _>>()?;
        Ok(ranked
            .iter()
            .filter_map(|&(id, bm25)| {
                found.remove(&id).map(|mut c| {
                    c.bm25 = bm25;
                    c
                })
            })
            .collect())
    }

    /// Filter every full-text match against the window, source and
    /// visibility, rank the survivors, then read the rows of the best ones.
    /// The filter reads the covering index `memory_chunks_visibility`, not
    /// the chunk rows, and only the winners' text is ever loaded.
    fn candidates_joined(&self, q: &CandidateQuery, plan: Option<&Plan>) -> Result<Vec<Candidate>> {
        let ranked = self.ranked(q, true, plan, q.limit)?;
        // Every ranked row passed the filters already; this only loads them.
        self.visible_rows(&ranked, q.as_of)
    }
}

/// The chunk columns after `id, bm25` in every candidate query.
const CANDIDATE_COLUMNS: &str = "c.source_type, c.source_id, c.text, c.dated_at, \
     c.subject, c.sender, c.vendor, c.title, c.message_ids";

/// Visible now: current chunks and unretracted facts. Visible at `as_of`:
/// created by then, and not yet superseded or retracted then.
/// `c` is the alias of memory_chunks in the query; facts are `f`.
pub(super) fn push_visibility(
    sql: &mut String,
    params: &mut Vec<Value>,
    as_of: Option<i64>,
    c: &str,
) {
    match as_of {
        None => sql.push_str(&format!(
            " AND {c}.superseded_at IS NULL AND f.retracted_at IS NULL"
        )),
        Some(t) => {
            let n = params.len() + 1;
            sql.push_str(&format!(
                " AND {c}.created_at <= ?{n}
                  AND ({c}.superseded_at IS NULL OR {c}.superseded_at > ?{n})
                  AND (f.retracted_at IS NULL OR f.retracted_at > ?{n})"
            ));
            params.push(Value::Integer(t));
        }
    }
}

/// Only chunks of the given `sources` (none given: all). `c` is the alias of
/// memory_chunks in the query.
pub(super) fn push_source_filter(
    sql: &mut String,
    params: &mut Vec<Value>,
    sources: &[SourceType],
    c: &str,
) {
    if sources.is_empty() {
        return;
    }
    let first = params.len() + 1;
    let marks: Vec<String> = (first..first + sources.len())
        .map(|i| format!("?{i}"))
        .collect();
    sql.push_str(&format!(" AND {c}.source_type IN ({})", marks.join(", ")));
    params.extend(sources.iter().map(|s| Value::Text(s.as_str().into())));
}

fn candidate_row(r: &rusqlite::Row) -> rusqlite::Result<Candidate> {
    let ids: Option<String> = r.get(10)?;
    Ok(Candidate {
        id: r.get(0)?,
        bm25: r.get(1)?,
        source_type: r.get(2)?,
        source_id: r.get(3)?,
        text: r.get(4)?,
        dated_at: r.get(5)?,
        subject: r.get(6)?,
        sender: r.get(7)?,
        vendor: r.get(8)?,
        title: r.get(9)?,
        message_ids: ids
            .and_then(|s| serde_json::from_str(&s).ok())
            .unwrap_or_default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::record::{Meta, Record};

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
            let plan = store.plan(&phrases).unwrap();
            let fast = store.candidates(&q).unwrap();
            let joined = store.candidates_joined(&q, plan.as_ref()).unwrap();
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
            let plan = store.plan(&phrases).unwrap().unwrap();
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
            let reference = store.candidates_joined(&q, Some(&whole)).unwrap();
            assert_eq!(key(&fast), key(&reference), "{expr} limit {limit}");
            assert_eq!(fast.len(), limit.min(reference.len()));
        }
    }

    /// Many generated queries (one to three words, common and rare, windows,
    /// `as_of`, limits): every fast path returns exactly what the plain
    /// joined query returns when it scores the whole expression.
    #[test]
    fn generated_queries_rank_as_the_unoptimised_query_does() {
        let mut store = store();
        store.remember("acme number 7 is a fact", 3).unwrap();
        store.remember("zebra contract", 4).unwrap();
        let vocab = [
            "acme", "contract", "word", "number", "else", "entirely", "7", "17", "3", "zebra",
            "fact", "nothing",
        ];
        let mut rng = crate::lcg::Lcg(7);
        let mut next = |n: usize| rng.below(n as u64) as usize;
        for case in 0..400 {
            let mut words: Vec<&str> = Vec::new();
            for _ in 0..1 + next(3) {
                let w = vocab[next(vocab.len())];
                if !words.contains(&w) {
                    words.push(w);
                }
            }
            let phrases: Vec<String> = words.iter().map(|w| format!("\"{w}\"")).collect();
            let limit = [1, 5, 10, 50, 120][next(5)];
            let (after, before) = match next(4) {
                0 => (None, None),
                1 => (Some(next(300) as i64 * 1000), None),
                2 => (None, Some(next(300) as i64 * 1000)),
                _ => {
                    let a = next(300) as i64 * 1000 - 500;
                    (Some(a), Some(a + next(100) as i64 * 1000))
                }
            };
            let as_of = (next(4) == 0).then_some(1);
            let q = CandidateQuery {
                after,
                before,
                as_of,
                ..CandidateQuery::words(&phrases, limit)
            };
            let fast = store.candidates(&q).unwrap();
            let whole = store
                .plan(&phrases)
                .unwrap()
                .map(|p| Plan { reduced: None, ..p });
            let reference = store.candidates_joined(&q, whole.as_ref()).unwrap();
            assert_eq!(
                key(&fast),
                key(&reference),
                "case {case}: {words:?} limit {limit} window {after:?}..{before:?} as_of {as_of:?}"
            );
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
}
