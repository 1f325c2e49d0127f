//! What semantic recall reports: the model in use and how many chunks have
//! its vector (`model use|status|off`, and the `semantic` part of `status`),
//! an embedding run as it goes, and what it did.

use serde_json::{Value, json};

use super::progress::Progress;
use crate::embed::{FillObserver, FillSummary, ModelSpec};
use crate::sanitize::one_line;
use crate::store::failure;
use crate::store::vectors::VectorCounts;

/// A model and how far embedding has come for it.
pub type Coverage<'a> = (&'a ModelSpec, VectorCounts);

/// `{"enabled": false}`, or the model and how many chunks have its vectors.
pub fn coverage_json(coverage: Option<Coverage>) -> Value {
    let Some((spec, counts)) = coverage else {
        return json!({"enabled": false});
    };
    json!({
        "enabled": true,
        "model": spec.name(),
        "location": spec.location(),
        "dimension": spec.dimension(),
        "embedded": counts.embedded,
        "missing": counts.missing,
    })
}

/// The human form of [`coverage_json`], aligned with `status`.
pub fn coverage_lines(coverage: Option<Coverage>) -> String {
    let Some((spec, c)) = coverage else {
        return "semantic   off (no model; see `alfred-mem model use`)\n".into();
    };
    format!(
        "semantic   on: {} ({} dimensions)\nmodel at   {}\nvectors    {} chunks embedded, {} missing\n",
        one_line(spec.name()),
        spec.dimension(),
        one_line(spec.location()),
        c.embedded,
        c.missing
    )
}

/// The documented `embed --json` object.
pub fn embedded_json(spec: &ModelSpec, summary: &FillSummary, secs: f64) -> Value {
    json!({
        "model": spec.name(),
        "chunks": summary.chunks,
        "embedded": summary.embedded,
        "seconds": (secs * 1000.0).round() / 1000.0,
    })
}

/// One line: what an `embed` run did and how long it took.
pub fn embedded_line(spec: &ModelSpec, summary: &FillSummary, secs: f64) -> String {
    format!(
        "{} chunks given a vector ({} texts embedded) in {secs:.1} s with {}\n",
        summary.chunks,
        summary.embedded,
        spec.name()
    )
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
