//! `index-mbox`, `index-receipts`, `index-conversations`: expand the inputs,
//! run the importer, report. They share the summary shape and exit codes.

use anyhow::Result;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::exit;
use crate::cli::{IndexArgs, IndexReceiptsArgs};
use crate::config::Config;
use crate::ingest::conversations::{DEFAULT_MAX_CHUNK_CHARS, parse_conversations};
use crate::ingest::mailbox::find;
use crate::ingest::receipts::{ReceiptOptions, parse_receipts};
use crate::ingest::run::{ErrorItem, Importer, Observer, Summary, expand_inputs, looks_like_json};
use crate::output;
use crate::sanitize::one_line;
use crate::store::Store;

/// `index-mbox`: mbox files, Maildirs, MH folders, .eml files, compressed or
/// not (`ingest::mailbox`).
pub fn mbox(config: &Config, args: &IndexArgs) -> Result<u8> {
    let sources = find::sources(&args.files)?;
    run(config, args, "messages", !sources.is_empty(), |imp| {
        imp.import_mail(&sources)
    })
}

pub fn receipts(config: &Config, args: &IndexReceiptsArgs) -> Result<u8> {
    let inputs = expand_inputs(&args.index.files, &looks_like_json)?;
    let opts = ReceiptOptions {
        month_first: args.month_first,
    };
    run(config, &args.index, "receipts", !inputs.is_empty(), |imp| {
        imp.import_json_files(&inputs, &|b| parse_receipts(b, &opts))
    })
}

pub fn conversations(config: &Config, args: &IndexArgs) -> Result<u8> {
    let inputs = expand_inputs(&args.files, &looks_like_json)?;
    run(config, args, "conversations", !inputs.is_empty(), |imp| {
        imp.import_json_files(&inputs, &|b| {
            parse_conversations(b, DEFAULT_MAX_CHUNK_CHARS)
        })
    })
}

fn run(
    config: &Config,
    args: &IndexArgs,
    noun: &str,
    found_any: bool,
    import: impl FnOnce(&mut Importer) -> Result<()>,
) -> Result<u8> {
    if !found_any {
        anyhow::bail!("no input files found in {}", show_args(args));
    }
    let mut store = Store::open(&config.db_path)?;
    let mut observer = Reporter::new(config.stderr_is_terminal, noun);
    let mut importer = Importer::new(&mut store, config.now_unix(), &mut observer);
    import(&mut importer)?;
    let summary = std::mem::take(&mut importer.summary);
    let failures = std::mem::take(&mut importer.failures);
    drop(importer);
    observer.finish();
    super::embed::after_index(config, &mut store)?;

    for f in &failures {
        eprintln!("alfred-mem: {}: {}", f.file, f.error);
    }
    if args.out.json {
        output::print_json(&summary)?;
    } else {
        output::print(&human_summary(&summary, noun))?;
    }
    Ok(if !failures.is_empty() {
        exit::ERROR
    } else if summary.rejected > 0 {
        exit::PARTIAL
    } else {
        exit::OK
    })
}

fn show_args(args: &IndexArgs) -> String {
    args.files
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

fn human_summary(s: &Summary, noun: &str) -> String {
    let mut out = format!(
        "{} {noun} read: {} indexed, {} unchanged, {} duplicates, {} rejected; {} chunks written\n",
        s.read, s.indexed, s.unchanged, s.duplicates, s.rejected, s.chunks
    );
    out.push_str(&output::summary::notes(s));
    out
}

/// Progress bar and messages on stderr. The bar exists only on a terminal:
/// nothing of it reaches cron mail or a pipe.
struct Reporter {
    bar: Option<ProgressBar>,
}

impl Reporter {
    fn new(terminal: bool, noun: &str) -> Self {
        let bar = terminal.then(|| {
            let bar = ProgressBar::no_length();
            bar.set_draw_target(ProgressDrawTarget::stderr());
            let style = ProgressStyle::with_template(&format!(
                "{{bar:30}} {{bytes}}/{{total_bytes}} {{bytes_per_sec}} ETA {{eta}} {{msg}} {noun}"
            ))
            .unwrap_or_else(|_| ProgressStyle::default_bar());
            bar.set_style(style);
            bar
        });
        Reporter { bar }
    }

    fn say(&self, line: &str) {
        match &self.bar {
            Some(bar) => bar.suspend(|| eprintln!("{line}")),
            None => eprintln!("{line}"),
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

impl Observer for Reporter {
    fn input_bytes(&mut self, total: u64) {
        if let Some(bar) = &self.bar
            && total > 0
        {
            bar.set_length(total);
        }
    }

    fn bytes_read(&mut self, total: u64) {
        if let Some(bar) = &self.bar {
            bar.set_position(total);
        }
    }

    fn warning(&mut self, file: &str, _offset: u64, message: &str) {
        self.say(&format!(
            "alfred-mem: warning: {file}: {}",
            one_line(message)
        ));
    }

    fn rejected(&mut self, item: &ErrorItem) {
        self.say(&format!(
            "alfred-mem: {}:{}: {}",
            item.file,
            item.offset,
            one_line(&item.reason)
        ));
    }
}
