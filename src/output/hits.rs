//! The documented JSON shape of one search hit (README: "search --json"),
//! shared by `search --json` and the MCP `memory_search` tool.

use schemars::JsonSchema;
use serde::Serialize;

use super::rfc3339;
use crate::kinds::SourceType;
use crate::search::Hit;

/// One search hit, as `search --json` prints it.
#[derive(Serialize, JsonSchema)]
pub struct JsonHit<'a> {
    /// The chunk id.
    pub id: i64,
    pub source_type: SourceType,
    /// Message-ID, receipt id, conversation id, or fact key.
    pub source_id: &'a str,
    /// RFC 3339 UTC; null for a timeless fact.
    pub dated_at: Option<String>,
    /// Relevance times the forgetting curve.
    pub score: f64,
    pub text: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subject: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vendor: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message_ids: Option<&'a [String]>,
    /// An e-mail hit standing for its message: how many more of its chunks
    /// matched (absent with `--all-chunks`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub more_chunks: Option<usize>,
    /// Only with `search --explain`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub explain: Option<Explain>,
}

/// The numbers behind a hit's place, with `--explain`.
#[derive(Serialize, JsonSchema)]
pub struct Explain {
    pub bm25: f64,
    pub relevance: f64,
    pub decay: f64,
    /// Genuine recalls of the chunk up to the reference time, and the last.
    pub recalls: u64,
    pub last_recalled_at: Option<String>,
    /// The effective half-life: the source's, stretched by recalls. null
    /// for a fact, which never decays.
    pub half_life_days: Option<f64>,
    pub mmr: f64,
    /// The two sides of `relevance`, only when a model took part.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text_relevance: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vector_relevance: Option<f64>,
    /// Cosine similarity to the query (null: the chunk has no vector yet).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cosine: Option<Option<f64>>,
}

impl<'a> JsonHit<'a> {
    pub fn new(h: &'a Hit, explain: bool) -> Self {
        let c = &h.chunk;
        JsonHit {
            id: c.id,
            source_type: c.source_type,
            source_id: &c.source_id,
            dated_at: c.dated_at.map(rfc3339),
            score: h.score,
            text: &c.text,
            subject: c.meta.subject.as_deref(),
            from: c.meta.sender.as_deref(),
            vendor: c.meta.vendor.as_deref(),
            title: c.meta.title.as_deref(),
            message_ids: (c.source_type == SourceType::Conversation)
                .then_some(c.message_ids.as_slice()),
            more_chunks: h.more_chunks,
            explain: explain.then_some(Explain {
                bm25: c.bm25,
                relevance: h.relevance,
                decay: h.decay,
                recalls: h.recalls.count,
                last_recalled_at: h.recalls.last.map(rfc3339),
                half_life_days: h.half_life_days.is_finite().then_some(h.half_life_days),
                mmr: h.mmr,
                text_relevance: h.semantic.map(|p| p.text),
                vector_relevance: h.semantic.map(|p| p.vector),
                cosine: h.semantic.map(|p| p.cosine),
            }),
        }
    }
}
