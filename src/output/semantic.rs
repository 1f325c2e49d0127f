//! What semantic recall reports: the model in use and how many chunks have
//! its vector (`model use|status|off`, and the `semantic` part of `status`),
//! an embedding run as it goes, and what it did.

use serde_json::{Value, json};

use super::progress::Progress;
use crate::embed::{FillObserver, FillSummary, ModelSpec};
use crate::sanitize::one_line;
use crate::store::failure;

pub use crate::embed::Coverage;

/// `{"enabled": false}`, or the model and how many chunks have its vectors.
pub fn coverage_json(coverage: Option<Coverage>) -> Value {
    let Some(Coverage {
        spec,
        counts,
        estimate,
    }) = coverage
    else {
        return json!({"enabled": false});
    };
    let mut v = json!({
        "enabled": true,
        "model": spec.name(),
        "location": spec.location(),
        "dimension": spec.dimension(),
        "embedded": counts.embedded,
        "missing": counts.missing,
    });
    // Only once a run of this model was measured: an estimate is the
    // missing chunks at that run's rate, never a guess.
    if let Some(e) = estimate {
        v["estimate"] = json!({
            "chunks_per_s": (e.rate.chunks_per_s * 10.0).round() / 10.0,
            "seconds": e.seconds.round() as u64,
            "budget_seconds": e.rate.budget_seconds,
            "nights": e.nights,
        });
    }
    v
}

/// The human form of [`coverage_json`], aligned with `status`.
pub fn coverage_lines(coverage: Option<Coverage>) -> String {
    let Some(Coverage {
        spec,
        counts: c,
        estimate,
    }) = coverage
    else {
        return "semantic   off (no model; see `alfred-mem model use`)\n".into();
    };
    let mut out = format!(
        "semantic   on: {} ({} dimensions)\nmodel at   {}\nvectors    {} chunks embedded, {} missing\n",
        one_line(spec.name()),
        spec.dimension(),
        one_line(spec.location()),
        c.embedded,
        c.missing
    );
    if let Some(e) = estimate.filter(|_| c.missing > 0) {
        out.push_str(&format!(
            "to embed   {} at {:.0} chunks/s (the last run)",
            human_seconds(e.seconds),
            e.rate.chunks_per_s
        ));
        if let (Some(nights), Some(budget)) = (e.nights, e.rate.budget_seconds) {
            let plural = if nights == 1 { "" } else { "s" };
            out.push_str(&format!(
                ": {nights} run{plural} of its --budget {}",
                human_seconds(budget as f64)
            ));
        }
        out.push('\n');
    }
    out
}

/// `45 s`, `12 min`, `3.4 h`.
fn human_seconds(s: f64) -> String {
    if s < 90.0 {
        format!("{s:.0} s")
    } else if s < 5400.0 {
        format!("{:.0} min", s / 60.0)
    } else {
        format!("{:.1} h", s / 3600.0)
    }
}

/// The documented `embed --json` object.
pub fn embedded_json(spec: &ModelSpec, summary: &FillSummary, secs: f64) -> Value {
    json!({
        "model": spec.name(),
        "chunks": summary.chunks,
        "embedded": summary.embedded,
        "seconds": (secs * 1000.0).round() / 1000.0,
        "budget_reached": summary.budget_reached,
    })
}

/// One line: what an `embed` run did and how long it took.
pub fn embedded_line(spec: &ModelSpec, summary: &FillSummary, secs: f64) -> String {
    let mut out = format!(
        "{} chunks given a vector ({} texts embedded) in {secs:.1} s with {}\n",
        summary.chunks,
        summary.embedded,
        spec.name()
    );
    if summary.budget_reached {
        out.push_str("budget reached: the next `alfred-mem embed` goes on with the rest\n");
    }
    out
}

/// An embedding run as a person sees it: a bar on a terminal while it runs
/// (nothing under cron), and a warning on stderr when chunks a command just
/// wrote could not be embedded.
pub struct EmbedProgress {
    terminal: bool,
    bar: Option<Progress>,
}

impl EmbedProgress {
    /// `terminal`: whether stderr is one (`Config::stderr_is_terminal`).
    pub fn new(terminal: bool) -> EmbedProgress {
        EmbedProgress {
            terminal,
            bar: None,
        }
    }
}

impl FillObserver for EmbedProgress {
    fn started(&mut self, total: u64) {
        self.bar = Some(Progress::new(
            self.terminal,
            total,
            "{bar:30} {pos}/{len} chunks {per_sec} ETA {eta}",
        ));
    }

    fn progress(&mut self, done: u64) {
        if let Some(bar) = &self.bar {
            bar.set_position(done);
        }
    }

    fn finished(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish();
        }
    }

    fn not_embedded(&mut self, error: &anyhow::Error) {
        eprintln!(
            "alfred-mem: warning: new chunks were indexed but not embedded ({}); run `alfred-mem embed`",
            one_line(&failure::describe(error))
        );
    }
}
