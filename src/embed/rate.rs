//! How fast the last `embed` run went, kept so `status` can say how long
//! the chunks still without a vector will take: at that rate, and in nights
//! of that run's `--budget` when it had one. A measured figure from this
//! machine and model, never a guess: with no run of the configured model
//! recorded, `status` gives no estimate.

use anyhow::Result;
use serde::{Deserialize, Serialize};

use crate::store::Store;

/// The meta key of the last run's rate (JSON).
const RATE_META_KEY: &str = "embed_rate";

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct EmbedRate {
    /// The model the run embedded with: another model's rate says nothing.
    pub model_id: i64,
    /// Chunks given a vector per second of the run (model loading aside).
    pub chunks_per_s: f64,
    /// The run's `--budget`, in seconds, if it had one.
    pub budget_seconds: Option<u64>,
}

/// What is left to embed, in time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    pub rate: EmbedRate,
    /// Seconds to embed every missing chunk at `rate`.
    pub seconds: f64,
    /// Runs of the last budget that takes (None without a budget).
    pub nights: Option<u64>,
}

impl EmbedRate {
    pub fn save(&self, store: &Store) -> Result<()> {
        store.set_meta(RATE_META_KEY, &serde_json::to_string(self)?)
    }

    /// The last run's rate for `model_id`; None if there was none, it was
    /// another model's, or the record is unreadable (it is only a hint).
    pub fn load(store: &Store, model_id: i64) -> Result<Option<EmbedRate>> {
        Ok(store
            .get_meta(RATE_META_KEY)?
            .and_then(|s| serde_json::from_str::<EmbedRate>(&s).ok())
            .filter(|r| r.model_id == model_id && r.chunks_per_s > 0.0))
    }

    /// How long `missing` chunks take at this rate.
    pub fn estimate(self, missing: u64) -> Estimate {
        let seconds = missing as f64 / self.chunks_per_s;
        let nights = self
            .budget_seconds
            .filter(|&b| b > 0)
            .map(|b| (seconds / b as f64).ceil() as u64);
        Estimate {
            rate: self,
            seconds,
            nights,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nights_round_up_and_need_a_budget() {
        let rate = |budget_seconds| EmbedRate {
            model_id: 1,
            chunks_per_s: 50.0,
            budget_seconds,
        };
        // 100 s a night: 5,000 chunks a night.
        for (missing, nights) in [(0, 0), (1, 1), (5_000, 1), (5_001, 2), (50_000, 10)] {
            let e = rate(Some(100)).estimate(missing);
            assert_eq!(e.nights, Some(nights), "{missing} chunks");
            assert_eq!(e.seconds, missing as f64 / 50.0);
        }
        assert_eq!(rate(None).estimate(10).nights, None);
        assert_eq!(rate(Some(0)).estimate(10).nights, None);
    }
}
