//! The vector index (issue 23): an inverted file (IVF) per model, kept in
//! SQLite (migration 0013). Vectors are clustered into lists around trained
//! centroids; each chunk's int8 code sits in its list's rows, so a search
//! reads the few lists nearest the query, scores their codes, and re-scores
//! the best few hundred with the exact f32 vectors. The postings change in
//! the transactions that change the vectors, so the index is never stale
//! and a crash leaves it as consistent as the vectors themselves
//! (docs/ARCHITECTURE.md, "The vector index").

use std::str::FromStr;

use anyhow::Result;
use rusqlite::types::Value;
use rusqlite::{OptionalExtension, Transaction, params};

use super::Store;
use super::vectors::{VectorQuery, blob_to_vector, vector_read};
use crate::ann::{self, Centroids};

/// How vector search finds its nearest chunks (`ALFRED_MEM_VECTORS`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum VectorSearch {
    /// The index once a model has one and the window is not narrow; the
    /// exact scan otherwise.
    #[default]
    Auto,
    /// Always the exact scan of every vector in the window: the oracle.
    Exact,
    /// The index whatever the size: built by `embed` from the first vector,
    /// used for every window (tests and measurements).
    Index,
}

impl FromStr for VectorSearch {
    type Err = anyhow::Error;

    fn from_str(s: &str) -> Result<VectorSearch> {
        match s {
            "auto" => Ok(VectorSearch::Auto),
            "exact" => Ok(VectorSearch::Exact),
            "index" => Ok(VectorSearch::Index),
            _ => anyhow::bail!("expected `auto`, `exact` or `index`, not {s:?}"),
        }
    }
}

/// Chunks with a vector from which `embed` builds the index (in `auto`):
/// below it the exact scan costs less than the index saves.
pub const INDEX_FROM_CHUNKS: u64 = 20_000;

/// A window holding fewer chunks than this is scanned exactly (in `auto`):
/// the scan reads only the window's vectors, through the date index, and
/// costs about what probing the lists does (docs/PERFORMANCE.md).
pub const EXACT_WINDOW_CHUNKS: i64 = 8_192;

/// Retrain when the index holds this many times the chunks it was trained
/// on: the lists have grown long and their centroids no longer fit.
const RETRAIN_GROWTH: u64 = 4;

/// What building the index did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IndexBuilt {
    pub chunks: u64,
    pub lists: usize,
    pub millis: u128,
}

/// A chunk id and its exact cosine with the query, best first.
pub type Nearest = Vec<(i64, f64)>;

impl Store {
    pub fn vector_search(&self) -> VectorSearch {
        self.vectors
    }

    pub fn choose_vector_search(&mut self, mode: VectorSearch) {
        self.vectors = mode;
    }

    /// The trained centroids of the model's index, if it has one.
    pub(super) fn centroids(&self, model_id: i64) -> Result<Option<Centroids>> {
        let dim: Option<i64> = self
            .conn
            .query_row(
                "SELECT m.dimension FROM vector_indexes i
                 JOIN embedding_models m ON m.id = i.model_id WHERE i.model_id = ?1",
                [model_id],
                |r| r.get(0),
            )
            .optional()?;
        let Some(dim) = dim else { return Ok(None) };
        let mut stmt = self.conn.prepare_cached(
            "SELECT centroid FROM vector_lists WHERE model_id = ?1 ORDER BY list_id",
        )?;
        let mut flat = Vec::new();
        let mut rows = stmt.query([model_id])?;
        while let Some(r) = rows.next()? {
            flat.extend(blob_to_vector(r.get_ref(0)?.as_blob()?));
        }
        Ok(Some(Centroids {
            dim: dim as usize,
            flat,
        }))
    }

    /// After an `embed` run: build the model's index once it has enough
    /// vectors, and retrain it once it has grown well past what it was
    /// trained on. `None` when nothing needed doing.
    pub fn keep_vector_index(&mut self, model_id: i64, now: i64) -> Result<Option<IndexBuilt>> {
        if self.vectors == VectorSearch::Exact {
            return Ok(None);
        }
        let chunks = self.embedded_chunks(model_id)?;
        let trained: Option<i64> = self
            .conn
            .query_row(
                "SELECT trained_chunks FROM vector_indexes WHERE model_id = ?1",
                [model_id],
                |r| r.get(0),
            )
            .optional()?;
        let from = match self.vectors {
            VectorSearch::Index => 1,
            _ => INDEX_FROM_CHUNKS,
        };
        let due = match trained {
            None => chunks >= from,
            Some(t) => chunks >= RETRAIN_GROWTH * (t.max(1) as u64),
        };
        if !due {
            return Ok(None);
        }
        self.build_vector_index(model_id, chunks, now).map(Some)
    }

    fn embedded_chunks(&self, model_id: i64) -> Result<u64> {
        let n: i64 = self.conn.query_row(
            "SELECT count(*) FROM chunk_text_hashes h
             JOIN embeddings e ON e.model_id = ?1 AND e.text_hash = h.text_hash",
            [model_id],
            |r| r.get(0),
        )?;
        Ok(n as u64)
    }

    /// Whether the window `[after, before)` holds fewer than
    /// [`EXACT_WINDOW_CHUNKS`] chunks (counting stops there).
    pub fn window_is_narrow(&self, after: Option<i64>, before: Option<i64>) -> Result<bool> {
        if after.is_none() && before.is_none() {
            return Ok(false);
        }
        let n: i64 = self.conn.query_row(
            "SELECT count(*) FROM (SELECT 1 FROM memory_chunk_rows
               WHERE dated_at >= ?1 AND dated_at < ?2 LIMIT ?3)",
            params![
                after.unwrap_or(i64::MIN),
                before.unwrap_or(i64::MAX),
                EXACT_WINDOW_CHUNKS
            ],
            |r| r.get(0),
        )?;
        Ok(n < EXACT_WINDOW_CHUNKS)
    }

    /// The exact cosine with `q.vector` of each chunk of `ids` that has a
    /// vector and passes `q`'s window, sources and visibility.
    pub fn exact_cosines(&self, q: &VectorQuery, ids: &[i64]) -> Result<Vec<(i64, f64)>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let (sql, params) = vector_read(
            q,
            "json_each(?4) j
             CROSS JOIN memory_chunk_rows d ON d.id = j.value
             JOIN chunk_text_hashes h ON h.chunk_id = d.id
             JOIN embeddings e ON e.model_id = ?1 AND e.text_hash = h.text_hash",
            Some(Value::Text(serde_json::to_string(ids)?)),
        );
        let mut stmt = self.conn.prepare_cached(&sql)?;
        let mut rows = stmt.query(rusqlite::params_from_iter(params))?;
        let mut out = Vec::with_capacity(ids.len());
        while let Some(r) = rows.next()? {
            let v = blob_to_vector(r.get_ref(1)?.as_blob()?);
            if v.len() == q.vector.len() {
                out.push((r.get(0)?, f64::from(ann::dot(&v, q.vector))));
            }
        }
        Ok(out)
    }
}

/// File the chunks just linked to their text's vector (`store_vectors`:
/// `links` of chunk to text hash, `fresh` the vectors computed in that
/// batch) under their lists, in the caller's transaction, if the model has
/// an index.
pub(super) fn post_chunks(
    tx: &Transaction,
    model_id: i64,
    links: &[(i64, [u8; 32])],
    fresh: &[([u8; 32], Vec<f32>)],
) -> Result<()> {
    let mut stmt = tx
        .prepare_cached("SELECT centroid FROM vector_lists WHERE model_id = ?1 ORDER BY list_id")?;
    let mut flat = Vec::new();
    let mut rows = stmt.query([model_id])?;
    while let Some(r) = rows.next()? {
        flat.extend(blob_to_vector(r.get_ref(0)?.as_blob()?));
    }
    if flat.is_empty() {
        return Ok(());
    }
    let mut known =
        tx.prepare_cached("SELECT vector FROM embeddings WHERE model_id = ?1 AND text_hash = ?2")?;
    let mut put = tx.prepare_cached(
        "INSERT OR REPLACE INTO vector_postings
           (model_id, list_id, chunk_id, dated_at, source_type, code)
         SELECT ?1, ?2, id, dated_at, source_type, ?3 FROM memory_chunk_rows WHERE id = ?4",
    )?;
    let mut drop_old =
        tx.prepare_cached("DELETE FROM vector_postings WHERE chunk_id = ?1 AND model_id = ?2")?;
    for (id, hash) in links {
        let v = match fresh.iter().find(|f| &f.0 == hash) {
            Some(f) => f.1.clone(),
            None => match known
                .query_row(params![model_id, &hash[..]], |r| {
                    Ok(blob_to_vector(r.get_ref(0)?.as_blob()?))
                })
                .optional()?
            {
                Some(v) => v,
                None => continue,
            },
        };
        if v.is_empty() || flat.len() % v.len() != 0 {
            continue;
        }
        let centroids = Centroids {
            dim: v.len(),
            flat: std::mem::take(&mut flat),
        };
        let list = centroids.nearest(&v) as i64;
        flat = centroids.flat;
        drop_old.execute(params![id, model_id])?;
        put.execute(params![model_id, list, ann::encode(&v), id])?;
    }
    Ok(())
}

/// Take a forgotten chunk out of every model's index.
pub(crate) fn forget_postings(conn: &rusqlite::Connection, chunk_id: i64) -> Result<()> {
    conn.execute(
        "DELETE FROM vector_postings WHERE chunk_id = ?1",
        [chunk_id],
    )?;
    Ok(())
}
