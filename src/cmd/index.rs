//! `index-mbox`, `index-receipts`, `index-conversations`: expand the inputs,
//! run the importer, report. They share the summary shape and exit codes.

use anyhow::Result;

use super::exit;
use crate::cli::{IndexArgs, IndexConversationsArgs, IndexReceiptsArgs, JsonArgs};
use crate::config::Config;
use crate::embed;
use crate::ingest::conversations::{DEFAULT_MAX_CHUNK_CHARS, export, parse_conversation};
use crate::ingest::mailbox::find;
use crate::ingest::receipts::{RECEIPT_ZIP_MEMBERS, ReceiptOptions, parse_receipt};
use crate::ingest::run::{Importer, Input, expand_inputs, looks_like_json, total_bytes};
use crate::output::semantic::EmbedProgress;
use crate::output::{self, import::ImportReporter};
use crate::store::{Access, Store};

/// `index-mbox`: mbox files, Maildirs, MH folders, .eml files, compressed or
/// not (`ingest::mailbox`). The bytes to read are known once the importer
/// has set aside what is unchanged since the last run.
pub fn mbox(config: &Config, args: &IndexArgs) -> Result<u8> {
    let sources = find::sources(&args.files)?;
    run(config, args, "messages", !sources.is_empty(), 0, |imp| {
        imp.import_mail(&sources)
    })
}

pub fn receipts(config: &Config, args: &IndexReceiptsArgs) -> Result<u8> {
    let inputs = expand_inputs(&args.index.files, &looks_like_json)?;
    let opts = ReceiptOptions {
        month_first: args.month_first,
    };
    json(config, &args.index, "receipts", &inputs, |imp, input| {
        imp.import_json(input, &RECEIPT_ZIP_MEMBERS, &|el| parse_receipt(el, &opts))
    })
}

pub fn conversations(config: &Config, args: &IndexConversationsArgs) -> Result<u8> {
    if let Some(id) = &args.append {
        return super::append::run(config, id, args);
    }
    let args = &IndexArgs {
        files: args.files.clone(),
        out: JsonArgs {
            json: args.out.json,
        },
    };
    let folders = export::FolderRules::default();
    let inputs = expand_inputs(&args.files, &|p| folders.accept(p))?;
    json(config, args, "conversations", &inputs, |imp, input| {
        imp.import_json(input, &export::ZIP_MEMBERS, &|el| {
            parse_conversation(el, DEFAULT_MAX_CHUNK_CHARS)
        })
    })
}

/// Import JSON `inputs` one after another.
fn json(
    config: &Config,
    args: &IndexArgs,
    noun: &str,
    inputs: &[Input],
    import: impl Fn(&mut Importer, &Input) -> Result<()>,
) -> Result<u8> {
    run(
        config,
        args,
        noun,
        !inputs.is_empty(),
        total_bytes(inputs),
        |imp| inputs.iter().try_for_each(|input| import(imp, input)),
    )
}

/// Open the store, `import` (`total_bytes` to read, 0 when not yet known),
/// report.
fn run(
    config: &Config,
    args: &IndexArgs,
    noun: &str,
    found_any: bool,
    total_bytes: u64,
    import: impl FnOnce(&mut Importer) -> Result<()>,
) -> Result<u8> {
    if !found_any {
        anyhow::bail!("no input files found in {}", show_args(args));
    }
    let mut store = Store::open_for(config, Access::Add)?;
    let written_after = store.last_chunk_id()?;
    let mut reporter = ImportReporter::new(config.stderr_is_terminal, total_bytes, noun);
    let mut importer = Importer::new(&mut store, config.now_unix(), &mut reporter);
    import(&mut importer)?;
    let summary = std::mem::take(&mut importer.summary);
    let failures = std::mem::take(&mut importer.failures);
    drop(importer);
    reporter.finish();
    embed::fill_after_write(
        &mut store,
        written_after,
        config.now_unix(),
        &mut EmbedProgress::new(config.stderr_is_terminal),
    )?;

    for f in &failures {
        eprintln!("alfred-mem: {}: {}", f.file, f.error);
    }
    if args.out.json {
        output::print_json(&summary)?;
    } else {
        output::print(&output::import::summary(&summary, noun))?;
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
