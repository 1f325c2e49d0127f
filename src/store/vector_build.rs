//! Building the vector index (`vector_index.rs` decides when): k-means
//! lists trained on a sample of the vectors, then every embedded chunk's
//! code filed under its nearest list, in one transaction, so a run killed
//! half-way leaves the index as it was.

use std::time::Instant;

use anyhow::Result;
use rusqlite::{Transaction, params};

use super::Store;
use super::vector_index::IndexBuilt;
use super::vectors::blob_to_vector;
use crate::ann::{self, Centroids};

/// Chunks read from SQLite per batch while building the index.
const BUILD_BATCH: usize = 4096;

impl Store {
    /// Train the lists on a sample of the vectors, then file every chunk's
    /// code under its list, in one transaction: a run killed half-way
    /// leaves the index as it was (none, or the previous one).
    pub(super) fn build_vector_index(
        &mut self,
        model_id: i64,
        chunks: u64,
        now: i64,
    ) -> Result<IndexBuilt> {
        let started = Instant::now();
        let lists = ann::list_count(chunks as usize);
        let want = ann::sample_count(lists, chunks as usize).max(1);
        let step = (chunks as usize / want).max(1) as i64;
        let mut samples = Vec::new();
        let mut dim = 0;
        {
            let mut stmt = self.conn.prepare(
                "SELECT vector FROM embeddings WHERE model_id = ?1 AND id % ?2 = 0 LIMIT ?3",
            )?;
            let mut rows = stmt.query(params![model_id, step, want as i64])?;
            while let Some(r) = rows.next()? {
                let v = blob_to_vector(r.get_ref(0)?.as_blob()?);
                dim = v.len();
                samples.extend(v);
            }
        }
        if samples.is_empty() {
            // Too few vectors for the stride to land on: take them all.
            let mut stmt = self
                .conn
                .prepare("SELECT vector FROM embeddings WHERE model_id = ?1 LIMIT ?2")?;
            let mut rows = stmt.query(params![model_id, want as i64])?;
            while let Some(r) = rows.next()? {
                let v = blob_to_vector(r.get_ref(0)?.as_blob()?);
                dim = v.len();
                samples.extend(v);
            }
        }
        anyhow::ensure!(dim > 0, "no vectors to index");
        let centroids = ann::train(&samples, dim, lists, model_id as u64);
        drop(samples);
        // The postings are sorted through a temporary table (`file_all`):
        // on disk, not in memory (3.3M codes are 1.4 GB). Set outside the
        // transaction (SQLite refuses inside one), restored after.
        self.conn.execute_batch("PRAGMA temp_store = FILE")?;
        let built = self.file_index(model_id, chunks, now, &centroids);
        self.conn.execute_batch("PRAGMA temp_store = MEMORY")?;
        let filed = built?;
        Ok(IndexBuilt {
            chunks: filed,
            lists: centroids.len(),
            millis: started.elapsed().as_millis(),
        })
    }

    /// Replace the model's lists and postings by `centroids` and every
    /// chunk filed under them, in one transaction.
    fn file_index(
        &mut self,
        model_id: i64,
        chunks: u64,
        now: i64,
        centroids: &Centroids,
    ) -> Result<u64> {
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        tx.execute(
            "DELETE FROM vector_postings WHERE model_id = ?1",
            [model_id],
        )?;
        tx.execute("DELETE FROM vector_lists WHERE model_id = ?1", [model_id])?;
        tx.execute(
            "INSERT INTO vector_indexes (model_id, lists, trained_chunks, trained_at)
             VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT (model_id) DO UPDATE SET lists = excluded.lists,
               trained_chunks = excluded.trained_chunks, trained_at = excluded.trained_at",
            params![model_id, centroids.len() as i64, chunks as i64, now],
        )?;
        {
            let mut put = tx.prepare(
                "INSERT INTO vector_lists (model_id, list_id, centroid) VALUES (?1, ?2, ?3)",
            )?;
            for i in 0..centroids.len() {
                put.execute(params![
                    model_id,
                    i as i64,
                    super::vectors::vector_to_blob(centroids.get(i))
                ])?;
            }
        }
        let filed = file_all(&tx, model_id, centroids)?;
        tx.commit()?;
        Ok(filed)
    }
}

/// File every embedded chunk of the model under its nearest list. The
/// nearest-centroid search runs on every core.
///
/// At a million messages (3.3M chunks, 6.8 GB of vectors) the order of the
/// reads and writes is what costs: reading chunk by chunk jumped through
/// the vectors by text hash, and inserting each posting as it came wrote
/// all over the postings' b-tree, so the transaction's pages spilled and
/// were read back without end (an hour and 100 GB written, unfinished).
/// So the vectors are read in their own order (the chunks of each found
/// through the `text_hash` index, their date and source from the compact
/// `memory_chunks_visibility` index), the postings go to a temporary table
/// as they come, and are inserted from there sorted by list: the b-tree is
/// then written front to back, and the sort spills to a file, not memory.
fn file_all(tx: &Transaction, model_id: i64, centroids: &Centroids) -> Result<u64> {
    tx.execute_batch(
        "DROP TABLE IF EXISTS temp.unsorted_postings;
         CREATE TEMP TABLE unsorted_postings (
             list_id INTEGER, chunk_id INTEGER, dated_at INTEGER, source_type TEXT, code BLOB);",
    )?;
    let last: i64 = tx.query_row(
        "SELECT coalesce(max(id), 0) FROM embeddings WHERE model_id = ?1",
        [model_id],
        |r| r.get(0),
    )?;
    let mut read = tx.prepare(
        "SELECT h.chunk_id, d.dated_at, d.source_type, e.vector FROM embeddings e
         CROSS JOIN chunk_text_hashes h INDEXED BY chunk_text_hashes_hash
           ON h.text_hash = e.text_hash
         CROSS JOIN memory_chunk_rows d INDEXED BY memory_chunks_visibility ON d.id = h.chunk_id
         WHERE e.model_id = ?1 AND e.id > ?2 AND e.id <= ?3",
    )?;
    let mut put = tx.prepare(
        "INSERT INTO temp.unsorted_postings (list_id, chunk_id, dated_at, source_type, code)
         VALUES (?1, ?2, ?3, ?4, ?5)",
    )?;
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut filed = 0u64;
    let mut from = 0i64;
    while from < last {
        let to = from + BUILD_BATCH as i64;
        let batch: Vec<(i64, Option<i64>, String, Vec<f32>)> = read
            .query_map(params![model_id, from, to], |r| {
                let v = blob_to_vector(r.get_ref(3)?.as_blob()?);
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, v))
            })?
            .collect::<rusqlite::Result<_>>()?;
        from = to;
        if batch.is_empty() {
            continue;
        }
        let per = batch.len().div_ceil(threads);
        let lists: Vec<usize> = std::thread::scope(|s| {
            let parts: Vec<_> = batch
                .chunks(per)
                .map(|part| {
                    s.spawn(move || {
                        part.iter()
                            .map(|c| centroids.nearest(&c.3))
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            parts
                .into_iter()
                .flat_map(|p| p.join().expect("a nearest-list thread panicked"))
                .collect()
        });
        for (c, list) in batch.iter().zip(lists) {
            if c.3.len() != centroids.dim {
                continue;
            }
            put.execute(params![list as i64, c.0, c.1, c.2, ann::encode(&c.3)])?;
            filed += 1;
        }
    }
    tx.execute(
        "INSERT OR REPLACE INTO vector_postings
           (model_id, list_id, chunk_id, dated_at, source_type, code)
         SELECT ?1, list_id, chunk_id, dated_at, source_type, code
         FROM temp.unsorted_postings ORDER BY list_id, chunk_id",
        [model_id],
    )?;
    tx.execute_batch("DROP TABLE temp.unsorted_postings")?;
    Ok(filed)
}
