//! `index-conversations --append ID [FILE]...`: the shell's way to do what
//! an agent does with the MCP tool `memory_add_messages`. Messages come as
//! JSON Lines (standard input when no file is named) and are appended to
//! one conversation, all or nothing: a line that is not a message is
//! reported as `FILE:LINE: reason` and nothing is stored.

use std::io::{BufRead, BufReader};

use anyhow::{Context, Result, bail};

use super::exit;
use crate::cli::IndexConversationsArgs;
use crate::config::Config;
use crate::embed;
use crate::ingest::conversations::append::{self, NewMessage, read_message};
use crate::ingest::run::Input;
use crate::output;
use crate::output::semantic::EmbedProgress;
use crate::sanitize::one_line;
use crate::store::{Access, Store};

pub fn run(config: &Config, id: &str, args: &IndexConversationsArgs) -> Result<u8> {
    // Writability first: a read-only memory fails before stdin is read.
    let mut store = Store::open_for(config, Access::Add)?;
    let inputs: Vec<Input> = if args.files.is_empty() {
        vec![Input::Stdin]
    } else {
        args.files
            .iter()
            .map(|p| {
                if p.as_os_str() == "-" {
                    Input::Stdin
                } else {
                    Input::File(p.clone())
                }
            })
            .collect()
    };
    let mut messages = Vec::new();
    for input in &inputs {
        read_lines(input, &mut messages)?;
    }
    if messages.is_empty() {
        bail!("no messages to append (expected JSON Lines, one message per line)");
    }
    let written_after = store.last_chunk_id()?;
    let done = append::append(
        &mut store,
        id,
        args.title.as_deref(),
        messages,
        config.now_unix(),
    )?;
    embed::fill_after_write(
        &mut store,
        written_after,
        config.now_unix(),
        &mut EmbedProgress::new(config.stderr_is_terminal),
    )?;
    if args.out.json {
        output::print_json(&done)?;
    } else {
        output::print(&output::import::appended(&done))?;
    }
    Ok(exit::OK)
}

/// The messages of one input, one per non-blank line.
fn read_lines(input: &Input, out: &mut Vec<NewMessage>) -> Result<()> {
    let name = input.name();
    let reader = BufReader::new(input.open()?);
    for (i, line) in reader.lines().enumerate() {
        let line = line.with_context(|| format!("could not read {name}"))?;
        if line.trim().is_empty() {
            continue;
        }
        let at = format!("{name}:{}", i + 1);
        let value: serde_json::Value = serde_json::from_str(&line)
            .map_err(|e| anyhow::anyhow!("{at}: not JSON ({e}); nothing was appended"))?;
        let Some(m) = value.as_object() else {
            bail!("{at}: a message must be a JSON object; nothing was appended");
        };
        let m = read_message(m).map_err(|reason| {
            anyhow::anyhow!("{at}: {}; nothing was appended", one_line(&reason))
        })?;
        out.push(m);
    }
    Ok(())
}
