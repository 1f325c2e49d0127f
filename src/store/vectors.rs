//! Embedding vectors: which models exist, which chunks still need a vector,
//! storing a batch of vectors, and the brute-force scan semantic search runs.
//!
//! A vector belongs to (model, sha256 of the text it was computed from:
//! `embed::embedding_text` of the chunk). A chunk finds its vector through
//! `chunk_text_hashes`, so two chunks with the same text share one.

use anyhow::{Result, bail};
use rusqlite::types::Value;
use rusqlite::{OptionalExtension, params};
use sha2::{Digest, Sha256};

use super::Store;
use super::search::{push_source_filter, push_visibility};
use super::vector_index::VectorSearch;
use crate::kinds::SourceType;

/// The meta key holding the configured model (JSON, see `embed::ModelSpec`).
pub const MODEL_META_KEY: &str = "embedding_model";

/// A chunk that has no vector for the model yet.
#[derive(Debug, Clone)]
pub struct PendingChunk {
    pub id: i64,
    /// What the text is made of (see `embed::embedding_text`).
    pub source_type: SourceType,
    pub text: String,
}

/// Where a vector scan looks: the same window, sources and instant as the
/// full-text candidates.
#[derive(Debug, Clone)]
pub struct VectorQuery<'a> {
    pub model_id: i64,
    pub vector: &'a [f32],
    pub after: Option<i64>,
    pub before: Option<i64>,
    pub sources: &'a [SourceType],
    pub as_of: Option<i64>,
}

/// Upper bound of the memory map a vector scan asks SQLite for (SQLite maps
/// at most the file's size).
const SCAN_MMAP_BYTES: i64 = 1 << 30;

/// (chunk id, cosine) of every scanned chunk, sorted by id: cheaper to build
/// than a hash map over tens of thousands of chunks, and looked up only for
/// the few hundred candidates.
#[derive(Debug, Clone, Default)]
pub struct VectorScores(pub Vec<(i64, f64)>);

impl VectorScores {
    pub fn get(&self, id: i64) -> Option<f64> {
        self.0
            .binary_search_by_key(&id, |p| p.0)
            .ok()
            .map(|i| self.0[i].1)
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// How far embedding has come for one model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VectorCounts {
    pub embedded: u64,
    pub missing: u64,
}

pub fn text_hash(text: &str) -> [u8; 32] {
    Sha256::digest(text.as_bytes()).into()
}

/// Little-endian f32s, the stored form.
pub fn vector_to_blob(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

pub fn blob_to_vector(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// Dot product of a stored blob with `q`, without building a vector.
fn blob_dot(b: &[u8], q: &[f32]) -> f32 {
    b.chunks_exact(4)
        .zip(q)
        .map(|(c, y)| f32::from_le_bytes([c[0], c[1], c[2], c[3]]) * y)
        .sum()
}

/// Chunks that need a vector: current text, not purged.
pub(super) const PENDING_FILTER: &str = "c.superseded_at IS NULL AND f.purged_at IS NULL";

impl Store {
    /// The id of the model called `name`, registering it on first use. A
    /// name seen before with another dimension is an error: its stored
    /// vectors could not be compared with new ones.
    pub fn model_id(&self, name: &str, dimension: usize, now: i64) -> Result<i64> {
        let found: Option<(i64, i64)> = self
            .conn
            .query_row(
                "SELECT id, dimension FROM embedding_models WHERE name = ?1",
                [name],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?;
        match found {
            Some((id, d)) if d as usize == dimension => Ok(id),
            Some((_, d)) => {
                bail!("model {name} gave {dimension}-dimension vectors, but stored ones have {d}")
            }
            None => {
                self.conn.execute(
                    "INSERT INTO embedding_models (name, dimension, created_at) VALUES (?1, ?2, ?3)",
                    params![name, dimension as i64, now],
                )?;
                Ok(self.conn.last_insert_rowid())
            }
        }
    }

    pub fn delete_meta(&self, key: &str) -> Result<()> {
        self.conn
            .execute("DELETE FROM meta WHERE key = ?1", [key])?;
        Ok(())
    }

    /// Up to `limit` chunks after `after_id` without a vector for the model,
    /// in id order (the cursor makes a long run linear, not quadratic).
    pub fn pending_chunks(
        &self,
        model_id: i64,
        after_id: i64,
        limit: usize,
    ) -> Result<Vec<PendingChunk>> {
        let mut stmt = self.conn.prepare_cached(&format!(
            "SELECT c.id, c.source_type, c.text FROM memory_chunk_rows c
             LEFT JOIN memory_facts f ON f.chunk_id = c.id
             LEFT JOIN chunk_text_hashes h ON h.chunk_id = c.id
             LEFT JOIN embeddings e ON e.model_id = ?1 AND e.text_hash = h.text_hash
             WHERE c.id > ?2 AND {PENDING_FILTER} AND e.id IS NULL
             ORDER BY c.id LIMIT ?3"
        ))?;
        let rows = stmt.query_map(params![model_id, after_id, limit as i64], |r| {
            Ok(PendingChunk {
                id: r.get(0)?,
                source_type: r.get(1)?,
                text: r.get(2)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Texts among `hashes` that already have a vector for the model.
    pub fn known_hashes(&self, model_id: i64, hashes: &[[u8; 32]]) -> Result<Vec<bool>> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT 1 FROM embeddings WHERE model_id = ?1 AND text_hash = ?2")?;
        hashes
            .iter()
            .map(|h| Ok(stmt.exists(params![model_id, &h[..]])?))
            .collect()
    }

    /// Link chunks to their text hashes and store new vectors, in one
    /// transaction: a run killed at any point keeps every finished batch.
    pub fn store_vectors(
        &mut self,
        model_id: i64,
        links: &[(i64, [u8; 32])],
        vectors: &[([u8; 32], Vec<f32>)],
    ) -> Result<()> {
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        {
            let mut put = tx.prepare_cached(
                "INSERT OR IGNORE INTO embeddings (model_id, text_hash, vector) VALUES (?1, ?2, ?3)",
            )?;
            for (hash, v) in vectors {
                put.execute(params![model_id, &hash[..], vector_to_blob(v)])?;
            }
            let mut link = tx.prepare_cached(
                "INSERT INTO chunk_text_hashes (chunk_id, text_hash) VALUES (?1, ?2)
                 ON CONFLICT (chunk_id) DO UPDATE SET text_hash = excluded.text_hash",
            )?;
            for (id, hash) in links {
                link.execute(params![id, &hash[..]])?;
            }
        }
        super::vector_index::post_chunks(&tx, model_id, links, vectors)?;
        tx.commit()?;
        Ok(())
    }

    /// Chunks with and without a vector for the model, among those `embed` covers.
    pub fn vector_counts(&self, model_id: i64) -> Result<VectorCounts> {
        let (embedded, missing): (i64, i64) = self.conn.query_row(
            &format!(
                "SELECT coalesce(sum(e.id IS NOT NULL), 0), coalesce(sum(e.id IS NULL), 0)
                 FROM memory_chunk_rows c
                 LEFT JOIN memory_facts f ON f.chunk_id = c.id
                 LEFT JOIN chunk_text_hashes h ON h.chunk_id = c.id
                 LEFT JOIN embeddings e ON e.model_id = ?1 AND e.text_hash = h.text_hash
                 WHERE {PENDING_FILTER}"
            ),
            [model_id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?;
        Ok(VectorCounts {
            embedded: embedded as u64,
            missing: missing as u64,
        })
    }

    /// Cosine similarity (vectors are unit length: a dot product) of the
    /// query with every visible chunk in the window that has a vector.
    pub fn vector_scores(&self, q: &VectorQuery) -> Result<VectorScores> {
        // Read the vectors through a memory map rather than read(): the scan
        // touches every vector page, and copying them costs more than the
        // dot products. Only this connection, only from here on.
        self.conn
            .query_row(&format!("PRAGMA mmap_size = {SCAN_MMAP_BYTES}"), [], |_| {
                Ok(())
            })
            .optional()?;
        let (sql, params) = vector_read(
            q,
            "chunk_text_hashes h
             JOIN embeddings e ON e.model_id = ?1 AND e.text_hash = h.text_hash
             JOIN memory_chunk_rows d INDEXED BY memory_chunks_visibility ON d.id = h.chunk_id",
            None,
        );
        let mut stmt = self.conn.prepare_cached(&sql)?;
        let mut rows = stmt.query(rusqlite::params_from_iter(params))?;
        let mut out = Vec::new();
        while let Some(r) = rows.next()? {
            let id: i64 = r.get(0)?;
            let blob = r.get_ref(1)?.as_blob()?;
            if blob.len() == q.vector.len() * 4 {
                out.push((id, f64::from(blob_dot(blob, q.vector))));
            }
        }
        out.sort_unstable_by_key(|p| p.0);
        Ok(VectorScores(out))
    }
}

impl Store {
    /// For each probe (a chunk id and its vector), up to `k` current chunks
    /// of other sources whose cosine with it is at least `min`, best first:
    /// by the model's index when it has one (a few milliseconds a probe,
    /// approximate), else by one scan of every vector for all the probes
    /// (exact; `ALFRED_MEM_VECTORS=exact` always scans).
    pub fn nearest_chunks(
        &self,
        model_id: i64,
        probes: &[(i64, &[f32])],
        k: usize,
        min: f64,
    ) -> Result<Vec<Vec<(i64, f64)>>> {
        if self.vector_search() != VectorSearch::Exact
            && let Some(near) = self.nearest_by_index(model_id, probes, k, min)?
        {
            return Ok(near);
        }
        let sources = self.sources_of(&probes.iter().map(|p| p.0).collect::<Vec<_>>())?;
        let mut stmt = self.conn.prepare_cached(
            "SELECT d.id, d.source_type, d.source_id, e.vector FROM chunk_text_hashes h
             JOIN embeddings e ON e.model_id = ?1 AND e.text_hash = h.text_hash
             JOIN memory_chunk_rows d ON d.id = h.chunk_id
             LEFT JOIN memory_facts f ON f.chunk_id = d.id
             WHERE d.superseded_at IS NULL AND f.retracted_at IS NULL AND f.purged_at IS NULL",
        )?;
        let mut rows = stmt.query([model_id])?;
        let mut out: Vec<Vec<(i64, f64)>> = vec![Vec::new(); probes.len()];
        while let Some(r) = rows.next()? {
            let id: i64 = r.get(0)?;
            let blob = r.get_ref(3)?.as_blob()?;
            for (p, near) in probes.iter().zip(out.iter_mut()) {
                if p.0 == id || blob.len() != p.1.len() * 4 {
                    continue;
                }
                let cos = f64::from(blob_dot(blob, p.1));
                if cos < min || near.len() == k && near[k - 1].1 >= cos {
                    continue;
                }
                let same = sources.get(&p.0).is_some_and(|(t, s)| {
                    r.get_ref(1).ok().and_then(|v| v.as_str().ok()) == Some(t)
                        && r.get_ref(2).ok().and_then(|v| v.as_str().ok()) == Some(s)
                });
                if same {
                    continue;
                }
                near.push((id, cos));
                near.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
                near.truncate(k);
            }
        }
        Ok(out)
    }
}

/// `SELECT d.id, e.vector FROM {from}` (which names memory_chunks `d` and
/// embeddings `e`, with `?1` the model) in `q`'s window `[?2, ?3)`, not
/// purged, visible at its instant, of its sources; `extra` is `?4`.
pub(super) fn vector_read(
    q: &VectorQuery,
    from: &str,
    extra: Option<Value>,
) -> (String, Vec<Value>) {
    let mut sql = format!(
        "SELECT d.id, e.vector FROM {from}
         LEFT JOIN memory_facts f ON f.chunk_id = d.id
         WHERE (d.dated_at IS NULL OR (d.dated_at >= ?2 AND d.dated_at < ?3))
           AND f.purged_at IS NULL"
    );
    let mut params: Vec<Value> = vec![
        Value::Integer(q.model_id),
        Value::Integer(q.after.unwrap_or(i64::MIN)),
        Value::Integer(q.before.unwrap_or(i64::MAX)),
    ];
    params.extend(extra);
    push_visibility(&mut sql, &mut params, q.as_of, "d");
    push_source_filter(&mut sql, &mut params, q.sources, "d");
    (sql, params)
}

/// Forget the vector of a purged chunk (and its text's vector, unless
/// another chunk still has that text): a vector can leak what the text said.
pub(crate) fn forget_vector(conn: &rusqlite::Connection, chunk_id: i64) -> Result<()> {
    conn.execute(
        "DELETE FROM embeddings WHERE text_hash IN
           (SELECT text_hash FROM chunk_text_hashes WHERE chunk_id = ?1)
         AND NOT EXISTS (SELECT 1 FROM chunk_text_hashes o
                         WHERE o.text_hash = embeddings.text_hash AND o.chunk_id != ?1)",
        [chunk_id],
    )?;
    conn.execute(
        "DELETE FROM chunk_text_hashes WHERE chunk_id = ?1",
        [chunk_id],
    )?;
    super::vector_index::forget_postings(conn, chunk_id)
}
