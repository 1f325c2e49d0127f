//! The two sides of a hybrid search, side by side: the query's vector and
//! the vector side (`hybrid::vector_side`) on a second reader of the file,
//! in a second thread, while this thread fetches the first full-text
//! candidates. Probing the index and re-scoring cost about what the
//! full-text side does, so a hybrid search takes about as long as the
//! slower of the two, not their sum (docs/PERFORMANCE.md, "Hybrid at
//! scale"). Where no second reader can be opened (an in-memory or
//! read-only store, one core), the same work runs one after the other.

use std::thread;

use anyhow::Result;

use super::hybrid::{self, VectorSide};
use super::{RecallMode, SearchRequest};
use crate::embed::ModelSpec;
use crate::kinds::SourceType;
use crate::store::Store;
use crate::store::search::{Candidate, CandidateQuery};

/// What [`fetch`] found.
pub(super) struct Sides {
    /// The full-text candidates at the first depth, when they were fetched
    /// here (beside the vectors).
    pub text: Option<Vec<Candidate>>,
    /// The vector side; None when the query's vector could not be had in
    /// `auto` mode (then `warning` says why).
    pub vectors: Option<VectorSide>,
    pub warning: Option<String>,
}

/// The query's vector, then the vector side, `depth` deep; and, beside it,
/// the first `depth` full-text candidates of `text_query` (None for
/// `--semantic`, which has no full-text side).
pub(super) fn fetch(
    store: &Store,
    req: &SearchRequest,
    spec: &ModelSpec,
    embed_text: &str,
    sources: &[SourceType],
    text_query: Option<&CandidateQuery>,
    depth: usize,
) -> Result<Sides> {
    let vector_work = |on: &Store| -> Result<Result<VectorSide>> {
        let query = match hybrid::embed_query(spec, embed_text) {
            Ok(v) => v,
            Err(e) => return Ok(Err(e)),
        };
        hybrid::vector_side(on, req, spec, sources, &query, depth).map(Ok)
    };
    let reader = text_query.and_then(|_| store.reader());
    let (vectors, text) = match reader {
        Some(reader) => thread::scope(|s| {
            let other = s.spawn(move || reader.open().map(|on| vector_work(&on)));
            let text = text_query.map(|q| store.candidates(q)).transpose();
            let vectors = other
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            (vectors, text)
        }),
        None => (None, Ok(None)),
    };
    let text = text?;
    // No second reader: the vector side here, after the text.
    let vectors = match vectors {
        Some(done) => done?,
        None => vector_work(store)?,
    };
    let (vectors, warning) = match vectors {
        Ok(side) => (Some(side), None),
        Err(e) if req.mode == RecallMode::Auto => (
            None,
            Some(format!(
                "semantic recall is unavailable, searching the words alone: {e:#}"
            )),
        ),
        Err(e) => return Err(e),
    };
    Ok(Sides {
        text,
        vectors,
        warning,
    })
}
