//! How one search scores its words: each phrase's document frequency is
//! counted once, here, and handed to `alfred_bm25()` as IDFs; a word in at
//! least half of all rows is left out of the `MATCH`.
//!
//! bm25's IDF, `ln((N - df + 0.5) / (df + 0.5))`, is zero or below for a word
//! in half the rows or more; FTS5 clamps it to 1e-6, so such a word adds at
//! most 2.2e-6 to a score and only ever breaks exact ties. alfred-mem gives
//! it exactly zero instead, when the query has other words: then leaving it
//! out of the `MATCH` changes no score, and FTS5 no longer visits (and
//! scores) most of the database for "baba board". A row that matches only
//! such words scores 0, below every row that matches another word, so it can
//! only matter when too few rows match the others: then the whole
//! expression runs ([`Plan::full`]). A query made only of such words keeps
//! FTS5's 1e-6, so its rows still rank by how often and how densely they
//! hold them. The plain engine applies the same rule ([`kept`]) to FTS5's
//! own `bm25()`, so the two engines rank alike.
//!
//! The rule holds for a query whose phrases are joined by `OR` alone. A
//! structured query (`AND`, `NOT`: `FtsQuery::structured`) is scored with
//! FTS5's own IDFs, floor included, by both engines: leaving a word out of
//! it would change which rows match. Each phrase (with its column filter)
//! is still counted alone, which is what FTS5's `xQueryPhrase` counts.

use anyhow::Result;
use rusqlite::Connection;

use super::formats;

/// IDF FTS5 uses for a word in half the rows or more.
const FTS5_IDF_FLOOR: f64 = 1e-6;

/// One expression and the IDF of each of its phrases, in phrase order.
#[derive(Debug, Clone, PartialEq)]
pub struct Scoring {
    pub expr: String,
    /// The average row length, then each phrase's IDF, as little-endian
    /// f64s: the last argument of `alfred_bm25()`.
    pub idf: Vec<u8>,
}

impl Scoring {
    /// How many phrases the IDFs are given for.
    pub fn phrases(&self) -> usize {
        (self.idf.len() / 8).saturating_sub(1)
    }
}

#[derive(Debug, Clone)]
pub struct Plan {
    /// The phrases whose IDF is above zero; None when that is all of them.
    pub reduced: Option<Scoring>,
    /// Every phrase: the unoptimised expression, scored the same way.
    pub full: Scoring,
    /// Rows the reduced (or full) expression matches at most: the sum of
    /// its phrases' document frequencies.
    pub work: i64,
}

impl Plan {
    /// The expression to try first.
    pub fn first(&self) -> &Scoring {
        self.reduced.as_ref().unwrap_or(&self.full)
    }
}

/// Count each phrase's rows and plan the query.
/// None when a phrase cannot be counted alone (FTS5 would not parse it):
/// then the caller lets FTS5 score the expression itself.
/// With `second`, the phrases are counted half on each connection, in two
/// threads.
pub fn plan(
    conn: &Connection,
    second: Option<&mut Connection>,
    phrases: &[String],
    structured: Option<&str>,
) -> Result<Option<Plan>> {
    let totals = formats::totals(conn)?;
    let counted = match second {
        None => count_rows(conn, phrases),
        Some(second) => {
            let (mine, theirs) = phrases.split_at(phrases.len() / 2);
            let (theirs, mine) = std::thread::scope(|s| {
                let other = s.spawn(move || count_rows(second, theirs));
                let mine = count_rows(conn, mine);
                (
                    other
                        .join()
                        .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
                    mine,
                )
            });
            mine.and_then(|mut m| {
                m.extend(theirs?);
                Some(m)
            })
        }
    };
    let Some(dfs) = counted else {
        return Ok(None);
    };
    let avgdl = totals.avgdl();
    if let Some(expr) = structured {
        // FTS5's own IDFs, common words included: leaving a word out of an
        // AND or a NOT would change what matches.
        let idf: Vec<f64> = dfs.iter().map(|&df| fts5_idf(totals.rows, df)).collect();
        return Ok(Some(Plan {
            reduced: None,
            full: Scoring {
                expr: expr.to_string(),
                idf: encode(avgdl, &idf),
            },
            work: dfs.iter().sum(),
        }));
    }
    let keep = kept(totals.rows, &dfs);
    let full_idf: Vec<f64> = (0..dfs.len())
        .map(|i| {
            if keep.contains(&i) {
                fts5_idf(totals.rows, dfs[i])
            } else {
                0.0
            }
        })
        .collect();
    let full = Scoring {
        expr: phrases.join(" OR "),
        idf: encode(avgdl, &full_idf),
    };
    let work = keep.iter().map(|&i| dfs[i]).sum();
    let reduced = (keep.len() < phrases.len()).then(|| Scoring {
        expr: join(phrases, &keep),
        idf: encode(
            avgdl,
            &keep.iter().map(|&i| full_idf[i]).collect::<Vec<_>>(),
        ),
    });
    Ok(Some(Plan {
        reduced,
        full,
        work,
    }))
}

/// The phrases that count, by their document frequencies `dfs` in `n_row`
/// rows: those in fewer than half the rows, or all of them when every one is
/// in half or more (FTS5's IDF is at its floor exactly for those).
pub fn kept(n_row: i64, dfs: &[i64]) -> Vec<usize> {
    let common = |df: i64| 2 * df >= n_row;
    let all_common = dfs.iter().all(|&df| common(df));
    (0..dfs.len())
        .filter(|&i| all_common || !common(dfs[i]))
        .collect()
}

/// The phrases `keep` picks, joined into one `MATCH` expression.
pub fn join(phrases: &[String], keep: &[usize]) -> String {
    keep.iter()
        .map(|&i| phrases[i].as_str())
        .collect::<Vec<_>>()
        .join(" OR ")
}

/// A one-word query, ranked before its rows are counted: with one phrase
/// the IDF is a positive constant factor of every score, so the ranking by
/// `alfred_bm25()` with IDF 1 is the ranking, and the rows it scores are the
/// word's document frequency. [`Single::idf`] then scales the scores,
/// exactly as FTS5 would have computed them (`0 + idf × x`).
#[derive(Debug, Clone)]
pub struct Single {
    /// The word, scored with IDF 1.
    pub scoring: Scoring,
    n_row: i64,
    /// Matching rows, guessed from the newest 1/32 of the rowids: enough
    /// to decide whether to split the ranking in two.
    pub estimate: i64,
}

impl Single {
    /// The IDF of a word in `df` rows, as [`plan`] gives it to a query of
    /// that one word: FTS5's own.
    pub fn idf(&self, df: i64) -> f64 {
        fts5_idf(self.n_row, df)
    }
}

/// FTS5's IDF of a phrase in `df` of `n_row` rows, clamped to its floor when
/// the logarithm is not positive (`fts5Bm25GetData`).
pub fn fts5_idf(n_row: i64, df: i64) -> f64 {
    let v = (((n_row - df) as f64 + 0.5) / (df as f64 + 0.5)).ln();
    if v <= 0.0 { FTS5_IDF_FLOOR } else { v }
}

/// The newest chunk id (0 for an empty store): where the rowids end.
pub fn last_rowid(conn: &Connection) -> Result<i64> {
    Ok(conn.query_row(
        "SELECT coalesce(max(id), 0) FROM memory_chunk_rows",
        [],
        |r| r.get(0),
    )?)
}

pub fn single(conn: &Connection, phrase: &str) -> Result<Option<Single>> {
    let totals = formats::totals(conn)?;
    let last = last_rowid(conn)?;
    let sample = conn
        .prepare_cached(
            "SELECT count(*) FROM memory_fts WHERE memory_fts MATCH ?1 AND rowid >= ?2",
        )?
        .query_row(rusqlite::params![phrase, last - last / 32], |r| {
            r.get::<_, i64>(0)
        });
    let Ok(sample) = sample else {
        return Ok(None);
    };
    Ok(Some(Single {
        scoring: Scoring {
            expr: phrase.to_string(),
            idf: encode(totals.avgdl(), &[1.0]),
        },
        n_row: totals.rows,
        estimate: sample * 32,
    }))
}

/// Each phrase's rows, in order; None when one cannot be counted alone.
/// A plain count: stopping at half the table through a LIMIT subquery
/// costs more per row (14 ms against 6 ms for a word in 250,000 rows) than
/// it saves on the few words in more than half of them.
pub fn count_rows(conn: &Connection, phrases: &[String]) -> Option<Vec<i64>> {
    let mut count = conn
        .prepare_cached("SELECT count(*) FROM memory_fts WHERE memory_fts MATCH ?1")
        .ok()?;
    phrases
        .iter()
        .map(|p| count.query_row([p], |r| r.get::<_, i64>(0)).ok())
        .collect()
}

/// The last argument of `alfred_bm25()`: the average length, then the IDFs.
pub fn encode(avgdl: f64, idf: &[f64]) -> Vec<u8> {
    std::iter::once(avgdl)
        .chain(idf.iter().copied())
        .flat_map(|v| v.to_le_bytes())
        .collect()
}
