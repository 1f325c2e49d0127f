//! Pure ranking maths for `alfred-mem` search ("rank like memory"); no
//! database and no I/O, so every rule here is table-tested in isolation.
//!
//! Pipeline for one search:
//! 1. **Candidates**: FTS5 returns the top `max(4 × limit, 50)` hits inside
//!    the time window, over-fetched so MMR has room to swap out duplicates.
//! 2. **Relevance** ([`normalise_bm25`]): negative bm25 → `[0, 1]`, best = 1.
//!    With a model configured ([`fusion`]), the cosine similarity to the
//!    query is min-max normalised and mixed in, leaning to the text.
//! 3. **Decay** ([`decay_factor`], [`strength`]): relevance ×
//!    `2^(−age / h)`, `h` the source's half-life ([`half_life`]) stretched
//!    by genuine recalls, `age` from the last genuine recall or the date, up
//!    to the newest thing in memory (not the clock); undated facts are
//!    evergreen, future dates never amplify. When the query names a date
//!    ("in May 2023"), age is measured from that period (`dates::named`).
//! 4. **Tiers** ([`RELEVANCE_TIER`]): candidates at least 0.7 as relevant as
//!    the best are ranked before the rest, so decay reorders comparable
//!    matches but cannot bury a strong old one under a weak new one.
//! 5. **MMR** ([`mmr_select_tiered`]): greedy relevance-vs-novelty selection
//!    over word-Jaccard, first tier first, with a near-duplicate gate so
//!    re-wordings go last (after the second tier too). Scores enter it
//!    relative to the best of their tier ([`relative_to_tier_best`]), so the
//!    absolute age cannot hand the order to the diversity term. Before it,
//!    search keeps the best chunk of each e-mail message (`search::group`).
//! 6. **Recall log**: each returned hit is logged with [`query_hash`] and its
//!    score; the nightly pass turns that history into [`RecallStats`] and
//!    promotes chunks whose [`promotion_score`] [`passes`].

pub mod association;
pub mod decay;
pub mod fusion;
pub mod half_life;
pub mod mmr;
pub mod promotion;
pub mod query_key;
pub mod relevance;
pub mod strength;
pub mod token_sets;

pub use decay::{
    DEFAULT_HALF_LIFE_DAYS, SECONDS_PER_DAY, age_days, age_days_from_period, decay_factor,
};
pub use mmr::{
    MMR_LAMBDA, MmrPick, NEAR_DUPLICATE_JACCARD, jaccard, mmr_select, mmr_select_tiered,
    word_tokens,
};
pub use promotion::{
    DIVERSITY_SATURATION, DIVERSITY_WEIGHT, FACT_NEAR_DUPLICATE_JACCARD, FREQUENCY_SATURATION,
    FREQUENCY_WEIGHT, MIN_RECALL_COUNT, MIN_UNIQUE_QUERIES, PROMOTION_THRESHOLD, PromotionScore,
    RECENCY_HALF_LIFE_DAYS, RECENCY_WEIGHT, RELEVANCE_WEIGHT, RecallStats, SCORING_WINDOW_DAYS,
    passes, promotion_score,
};
pub use query_key::{normalise_query, query_hash};
pub use relevance::{RELEVANCE_TIER, in_first_tier, normalise_bm25, relative_to_tier_best};
pub use token_sets::TokenSets;
