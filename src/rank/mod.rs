//! Pure ranking maths for `alfred-mem` search ("rank like memory"); no
//! database and no I/O, so every rule here is table-tested in isolation.
//!
//! Pipeline for one search:
//! 1. **Candidates**: FTS5 returns the top `max(4 × limit, 50)` hits inside
//!    the time window, over-fetched so MMR has room to swap out duplicates.
//! 2. **Relevance** ([`normalise_bm25`]): negative bm25 → `[0, 1]`, best = 1.
//! 3. **Decay** ([`decay_factor`]): relevance × `exp(-ln2/half_life × age)`;
//!    undated facts are evergreen, future dates never amplify.
//! 4. **MMR** ([`mmr_select`]): greedy relevance-vs-novelty selection over
//!    word-Jaccard, with a near-duplicate gate so re-wordings go last.
//! 5. **Recall log**: each returned hit is logged with [`query_hash`] and its
//!    score; the nightly pass turns that history into [`RecallStats`] and
//!    promotes chunks whose [`promotion_score`] [`passes`].

pub mod decay;
pub mod mmr;
pub mod promotion;
pub mod query_key;
pub mod relevance;

pub use decay::{DEFAULT_HALF_LIFE_DAYS, SECONDS_PER_DAY, age_days, decay_factor};
pub use mmr::{MMR_LAMBDA, MmrPick, NEAR_DUPLICATE_JACCARD, jaccard, mmr_select, word_tokens};
pub use promotion::{
    DIVERSITY_SATURATION, DIVERSITY_WEIGHT, FACT_NEAR_DUPLICATE_JACCARD, FREQUENCY_SATURATION,
    FREQUENCY_WEIGHT, MIN_RECALL_COUNT, MIN_UNIQUE_QUERIES, PROMOTION_THRESHOLD, PromotionScore,
    RECENCY_HALF_LIFE_DAYS, RECENCY_WEIGHT, RELEVANCE_WEIGHT, RecallStats, SCORING_WINDOW_DAYS,
    passes, promotion_score,
};
pub use query_key::{normalise_query, query_hash};
pub use relevance::normalise_bm25;
