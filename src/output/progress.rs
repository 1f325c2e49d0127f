//! Progress on stderr for the long jobs (an import, an embedding run). The
//! bar exists only on a terminal: nothing of it reaches cron mail or a pipe.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A progress bar, or nothing when stderr is not a terminal.
pub struct Progress {
    bar: Option<ProgressBar>,
}

impl Progress {
    /// A bar towards `total` (a spinner when `total` is unknown, 0), drawn
    /// with the indicatif `template` on stderr when `terminal`.
    pub fn new(terminal: bool, total: u64, template: &str) -> Self {
        let bar = terminal.then(|| {
            let bar = if total > 0 {
                ProgressBar::new(total)
            } else {
                ProgressBar::new_spinner()
            };
            bar.set_draw_target(ProgressDrawTarget::stderr());
            bar.set_style(
                ProgressStyle::with_template(template)
                    .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            bar
        });
        Progress { bar }
    }

    /// The total, once known after the bar was made (a spinner becomes a
    /// bar).
    pub fn set_length(&self, total: u64) {
        if let Some(bar) = &self.bar
            && total > 0
        {
            bar.set_length(total);
        }
    }

    pub fn set_position(&self, done: u64) {
        if let Some(bar) = &self.bar {
            bar.set_position(done);
        }
    }

    /// A line on stderr that does not tear the bar.
    pub fn say(&self, line: &str) {
        match &self.bar {
            Some(bar) => bar.suspend(|| eprintln!("{line}")),
            None => eprintln!("{line}"),
        }
    }

    /// Takes the bar off the screen.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
