//! Searching the vector index (`vector_build.rs` builds it, `vector_index.rs`
//! keeps it in step): the lists nearest the query are read, nearest first,
//! and each posting's int8 code scored; the best codes are then re-scored by
//! their f32 vectors, as deep as the search needs and no deeper ([`Probe`]),
//! because the re-scoring's scattered reads cost more per chunk than the
//! probing's sequential ones (docs/PERFORMANCE.md, "Hybrid at scale").

use std::collections::{HashMap, HashSet};

use anyhow::Result;
use rusqlite::params;

use super::Store;
use super::vector_index::Nearest;
use super::vectors::VectorQuery;
use crate::ann::{self, Centroids};

/// Share of the postings a search reads first, nearest lists first: a
/// tenth, but at least [`MIN_POSTINGS`] (a small index is read whole, which
/// costs a few milliseconds) and at most [`MAX_POSTINGS`] (at a million
/// messages a tenth would be 330,000 codes, ~250 ms). Four times as many
/// are read when the filters leave too few.
const PROBE_DIVISOR: usize = 10;
const MIN_POSTINGS: usize = if cfg!(test) { 256 } else { 8_192 };
const MAX_POSTINGS: usize = 65_536;

/// Codes one chunk's search for its semantic links reads (`embed` links
/// each new chunk to its nearest of other sources): the neighbours it
/// looks for are close (cosine ≥ 0.75), so in the nearest lists, and an
/// import of 300 chunks makes 300 such searches.
const LINK_POSTINGS: usize = 16_384;

/// Chunks re-scored beyond the `k` links a chunk may form: its own chunk
/// and its source's other chunks are usually among its nearest.
const LINK_SLACK: usize = 16;

/// A search of the index in progress ([`Store::probe_index`]).
#[derive(Debug)]
pub struct Probe {
    /// Every list, nearest the query first.
    order: Vec<usize>,
    /// How many of `order` have been read.
    probed: usize,
    /// How many postings they held.
    read: usize,
    /// The code score of every posting read that passed the window and
    /// sources, and its chunk.
    scored: Vec<(f32, i64)>,
    /// Exact cosines of the visible chunks re-scored so far.
    exact: Vec<(i64, f64)>,
    /// Every chunk re-scored so far, visible or not.
    rescored: HashSet<i64>,
}

impl Store {
    /// The nearest chunks to `q.vector` in its window, sources and instant,
    /// by the index: `want` of them (fewer only when fewer match), exact
    /// cosines, best first. `None` when the model has no index. One-shot
    /// form of [`Store::probe_index`] then [`Store::index_nearest`].
    pub fn indexed_nearest(&self, q: &VectorQuery, want: usize) -> Result<Option<Nearest>> {
        let Some(mut probe) = self.probe_index(q)? else {
            return Ok(None);
        };
        self.index_nearest(q, &mut probe, want).map(Some)
    }

    /// Start a search of the index: read the lists nearest `q.vector` and
    /// score their codes. `None` when the model has no index (or one of
    /// another dimension). [`Store::index_nearest`] then re-scores as deep
    /// as the caller needs, probing further lists when the filters leave
    /// too few.
    pub fn probe_index(&self, q: &VectorQuery) -> Result<Option<Probe>> {
        let Some(centroids) = self.index_centroids(q.model_id, q.vector.len())? else {
            return Ok(None);
        };
        // The lists were sized `√n / 2` when trained: n ≈ 4 × lists².
        let indexed = 4 * centroids.len() * centroids.len();
        let first = (indexed / PROBE_DIVISOR).clamp(MIN_POSTINGS, MAX_POSTINGS);
        self.probe_with(&centroids, q, first).map(Some)
    }

    /// The centroids of the model's index, when it has one for vectors of
    /// `dim` dimensions.
    fn index_centroids(&self, model_id: i64, dim: usize) -> Result<Option<Centroids>> {
        Ok(self
            .centroids(model_id)?
            .filter(|c| !c.is_empty() && c.dim == dim))
    }

    /// A probe of `q` that has read the nearest lists until `postings`.
    fn probe_with(&self, centroids: &Centroids, q: &VectorQuery, postings: usize) -> Result<Probe> {
        let mut probe = Probe {
            order: centroids.nearest_n(q.vector, centroids.len()),
            probed: 0,
            read: 0,
            scored: Vec::new(),
            exact: Vec::new(),
            rescored: HashSet::new(),
        };
        self.read_lists(q, &mut probe, postings)?;
        Ok(probe)
    }

    /// [`Store::nearest_chunks`] by the index: for each probe (a chunk and
    /// its vector), up to `k` current chunks of other sources whose cosine
    /// is at least `min`, best first. Each probe reads [`LINK_POSTINGS`]
    /// codes and re-scores its best `k` + [`LINK_SLACK`] (its own chunk and
    /// its source's other chunks are among them, and are dropped). `None`
    /// when the model has no index.
    pub fn nearest_by_index(
        &self,
        model_id: i64,
        probes: &[(i64, &[f32])],
        k: usize,
        min: f64,
    ) -> Result<Option<Vec<Nearest>>> {
        let Some(first) = probes.first() else {
            return Ok(Some(Vec::new()));
        };
        let Some(centroids) = self.index_centroids(model_id, first.1.len())? else {
            return Ok(None);
        };
        let mut found = Vec::with_capacity(probes.len());
        for &(_, vector) in probes {
            let q = VectorQuery {
                model_id,
                vector,
                after: None,
                before: None,
                sources: &[],
                as_of: None,
            };
            let mut probe = self.probe_with(&centroids, &q, LINK_POSTINGS)?;
            found.push(self.index_nearest(&q, &mut probe, k + LINK_SLACK)?);
        }
        let mut ids: Vec<i64> = probes.iter().map(|p| p.0).collect();
        ids.extend(found.iter().flatten().map(|p| p.0));
        let source = self.sources_of(&ids)?;
        Ok(Some(
            probes
                .iter()
                .zip(found)
                .map(|(&(id, _), near)| {
                    near.into_iter()
                        .filter(|&(other, cos)| {
                            other != id && cos >= min && source.get(&other) != source.get(&id)
                        })
                        .take(k)
                        .collect()
                })
                .collect(),
        ))
    }

    /// The source (type and id) of each chunk of `ids`.
    pub(super) fn sources_of(&self, ids: &[i64]) -> Result<HashMap<i64, (String, String)>> {
        let ids = serde_json::to_string(ids)?;
        Ok(self
            .conn
            .prepare_cached(
                "SELECT id, source_type, source_id FROM memory_chunk_rows
                 WHERE id IN (SELECT value FROM json_each(?1))",
            )?
            .query_map([ids], |r| Ok((r.get(0)?, (r.get(1)?, r.get(2)?))))?
            .collect::<rusqlite::Result<_>>()?)
    }

    /// The `want` nearest chunks of a [`Probe`]: the best codes re-scored by
    /// their f32 vectors (a quarter more than wanted, and 16, so that the
    /// codes' rounding cannot push a true neighbour out), dropping what is
    /// not visible (superseded, retracted, purged, after --as-of). Asking
    /// again for more re-scores only the codes not re-scored yet.
    pub fn index_nearest(&self, q: &VectorQuery, p: &mut Probe, want: usize) -> Result<Nearest> {
        loop {
            let rescore = (want + want / 4 + 16).min(p.scored.len());
            if rescore > 0 && rescore < p.scored.len() {
                p.scored
                    .select_nth_unstable_by(rescore - 1, |a, b| b.0.total_cmp(&a.0));
            }
            let ids: Vec<i64> = p.scored[..rescore]
                .iter()
                .map(|s| s.1)
                .filter(|id| !p.rescored.contains(id))
                .collect();
            p.rescored.extend(ids.iter().copied());
            p.exact.extend(self.exact_cosines(q, &ids)?);
            if p.exact.len() >= want || p.probed == p.order.len() {
                let mut nearest = p.exact.clone();
                nearest.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
                nearest.truncate(want);
                return Ok(nearest);
            }
            // The window, sources or visibility left too few: probe four
            // times as many lists.
            let more = (p.read * 4).max(MIN_POSTINGS);
            self.read_lists(q, p, more)?;
        }
    }

    /// Read the next lists of `p.order`, whole, until `postings` postings
    /// have been read, scoring each one in the window and sources by its
    /// code.
    fn read_lists(&self, q: &VectorQuery, p: &mut Probe, postings: usize) -> Result<()> {
        let (after, before) = (q.after.unwrap_or(i64::MIN), q.before.unwrap_or(i64::MAX));
        let mut stmt = self.conn.prepare_cached(
            "SELECT chunk_id, dated_at, source_type, code FROM vector_postings
             WHERE model_id = ?1 AND list_id = ?2",
        )?;
        // The probed lists are tens of thousands of postings: read them
        // through the memory map, as the full-text side does, not read();
        // unmapped again before the re-scoring, whose scattered reads would
        // fault in 64 KB around every row.
        super::fts::split::map_for_reading(&self.conn);
        let read = (|| -> Result<()> {
            while p.read < postings && p.probed < p.order.len() {
                let list = p.order[p.probed];
                p.probed += 1;
                let mut rows = stmt.query(params![q.model_id, list as i64])?;
                while let Some(r) = rows.next()? {
                    p.read += 1;
                    let dated: Option<i64> = r.get(1)?;
                    if dated.is_some_and(|d| d < after || d >= before) {
                        continue;
                    }
                    if !q.sources.is_empty() {
                        let source = r.get_ref(2)?.as_str()?;
                        if !q.sources.iter().any(|s| s.as_str() == source) {
                            continue;
                        }
                    }
                    if let Some(s) = ann::code_dot(r.get_ref(3)?.as_blob()?, q.vector) {
                        p.scored.push((s, r.get(0)?));
                    }
                }
            }
            Ok(())
        })();
        super::fts::split::stop_mapping(&self.conn);
        read
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ann::normalise;
    use crate::ingest::record::{Meta, Record};
    use crate::lcg::Lcg;
    use crate::store::vector_index::VectorSearch;
    use crate::store::vectors::text_hash;

    const DIM: usize = 16;
    const CHUNKS: usize = 3000;

    /// A store of `CHUNKS` e-mails a day apart, each with a vector near one
    /// of 40 directions (as real texts cluster by topic), and its index.
    fn indexed() -> (Store, i64, Lcg) {
        let mut store = Store::open_in_memory().unwrap();
        let b = store.begin_batch(1).unwrap();
        for i in 0..CHUNKS {
            let rec = Record::email(
                &format!("m{i}"),
                Meta::default(),
                &[format!("text {i}")],
                i as i64 * 86_400,
            );
            b.write(&rec).unwrap();
        }
        b.commit().unwrap();
        let model = store.model_id("t", DIM, 0).unwrap();
        let mut rng = Lcg(11);
        let topics: Vec<Vec<f32>> = (0..40).map(|_| rng.vec(DIM)).collect();
        let (mut links, mut vectors) = (Vec::new(), Vec::new());
        for id in 1..=CHUNKS as i64 {
            let topic = rng.pick(&topics);
            let mut v: Vec<f32> = rng
                .vec(DIM)
                .iter()
                .zip(topic)
                .map(|(n, t)| t + 0.3 * n)
                .collect();
            normalise(&mut v);
            let hash = text_hash(&format!("text {id}"));
            links.push((id, hash));
            vectors.push((hash, v));
        }
        store.store_vectors(model, &links, &vectors).unwrap();
        store.choose_vector_search(VectorSearch::Index);
        store.keep_vector_index(model, 0).unwrap().expect("built");
        (store, model, rng)
    }

    fn query<'a>(model: i64, v: &'a [f32], window: Option<(i64, i64)>) -> VectorQuery<'a> {
        VectorQuery {
            model_id: model,
            vector: v,
            after: window.map(|w| w.0),
            before: window.map(|w| w.1),
            sources: &[],
            as_of: None,
        }
    }

    fn exact(store: &Store, q: &VectorQuery, n: usize) -> Vec<i64> {
        let mut all = store.vector_scores(q).unwrap().0;
        all.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        all.iter().take(n).map(|p| p.0).collect()
    }

    /// The first probe reads a part of the index, not all of it; asking the
    /// same probe for more re-scores deeper and answers what a fresh probe
    /// asked for that many would; and the nearest ten are (nearly) the
    /// exact scan's.
    #[test]
    fn a_probe_reads_part_of_the_index_and_deepens_like_a_fresh_one() {
        let (store, model, mut rng) = indexed();
        let (mut found, mut wanted) = (0, 0);
        for _ in 0..30 {
            let mut v = rng.vec(DIM);
            normalise(&mut v);
            let q = query(model, &v, None);
            let mut probe = store.probe_index(&q).unwrap().unwrap();
            assert!(
                probe.read >= MIN_POSTINGS && probe.read < CHUNKS,
                "{}",
                probe.read
            );
            let ten = store.index_nearest(&q, &mut probe, 10).unwrap();
            let deeper = store.index_nearest(&q, &mut probe, 100).unwrap();
            let mut fresh = store.probe_index(&q).unwrap().unwrap();
            assert_eq!(deeper, store.index_nearest(&q, &mut fresh, 100).unwrap());
            assert_eq!(ten[..], deeper[..10]);
            let top = exact(&store, &q, 10);
            wanted += top.len();
            found += ten.iter().filter(|p| top.contains(&p.0)).count();
        }
        let recall = found as f64 / wanted as f64;
        assert!(recall >= 0.9, "recall@10 {recall}");
    }

    /// A window holding a tenth of the chunks still gets all it asks for:
    /// the probe reads further lists until enough pass.
    #[test]
    fn a_narrow_window_reads_further_lists_until_enough_pass() {
        let (store, model, mut rng) = indexed();
        let window = (1000 * 86_400, 1300 * 86_400);
        let mut v = rng.vec(DIM);
        normalise(&mut v);
        let q = query(model, &v, Some(window));
        let mut probe = store.probe_index(&q).unwrap().unwrap();
        let first_read = probe.read;
        let got = store.index_nearest(&q, &mut probe, 100).unwrap();
        assert_eq!(got.len(), 100);
        assert!(probe.read > first_read, "read further lists");
        let ids: Vec<i64> = got.iter().map(|p| p.0).collect();
        // Chunk ids follow the dates here: id i is dated day i - 1.
        assert!(ids.iter().all(|&id| (1001..=1300).contains(&id)), "{ids:?}");
    }
}
