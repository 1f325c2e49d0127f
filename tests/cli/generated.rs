//! Completions and man pages are generated from `alfred_mem::cli::Cli` and
//! committed. This test regenerates them in memory and fails when a committed
//! file is stale; `UPDATE_GENERATED=1 cargo test generated` rewrites them.
//! Two flaws of the generators are mended here, on the way to the files
//! (`completion.rs` runs the completions in real shells).

use std::path::{Path, PathBuf};

use clap::CommandFactory;
use clap_complete::Shell;

pub const BIN: &str = "alfred-mem";

/// Every generated file, as (path relative to the crate root, contents).
fn generated() -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    for (shell, file) in [
        (Shell::Bash, "alfred-mem.bash"),
        (Shell::Zsh, "_alfred-mem"),
        (Shell::Fish, "alfred-mem.fish"),
    ] {
        let mut buf = Vec::new();
        clap_complete::generate(shell, &mut alfred_mem::cli::Cli::command(), BIN, &mut buf);
        if shell == Shell::Bash {
            buf = mend_bash(&String::from_utf8(buf).expect("a UTF-8 script")).into_bytes();
        }
        out.push((Path::new("completions").join(file), buf));
    }
    // As clap_mangen::generate_to does, but in memory: one page for the
    // command and one per subcommand (alfred-mem-search.1, ...).
    let mut cmd = alfred_mem::cli::Cli::command().disable_help_subcommand(true);
    cmd.build();
    man_pages(cmd, &mut out);
    out.sort();
    out
}

/// clap_complete 4.6's bash script never completes a subcommand's options
/// when the binary's name has a hyphen (clap-rs/clap#6421): the loop over
/// the words names the state `alfred__mem__subcmd__search`, but the case
/// arm for it is labelled `alfred__subcmd__mem__subcmd__search`. The arms
/// are relabelled as the loop names them; once clap_complete is fixed the
/// wrong label no longer occurs and this changes nothing.
fn mend_bash(script: &str) -> String {
    let wrong = format!("{}__subcmd__", BIN.replace('-', "__subcmd__"));
    let right = format!("{}__subcmd__", BIN.replace('-', "__"));
    script.replace(&wrong, &right)
}

fn man_pages(cmd: clap::Command, out: &mut Vec<(PathBuf, Vec<u8>)>) {
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        man_pages(sub.clone(), out);
    }
    let man = clap_mangen::Man::new(with_help_usage(cmd));
    let mut buf = Vec::new();
    man.render(&mut buf).expect("render a man page");
    out.push((Path::new("man").join(man.get_filename()), buf));
}

/// `cmd` with the usage line `--help` prints as its synopsis. clap_mangen
/// 0.3 builds its own and drops the `...` of a positional that takes many
/// values (`search <QUERY>` for `<QUERY>...`), so the page told a user to
/// quote a query that needs no quotes.
fn with_help_usage(mut cmd: clap::Command) -> clap::Command {
    let usage = cmd.render_usage().to_string();
    let usage = usage.strip_prefix("Usage: ").unwrap_or(&usage).to_owned();
    cmd.override_usage(usage)
}

#[test]
fn completions_and_man_pages_are_up_to_date() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let update = std::env::var_os("UPDATE_GENERATED").is_some_and(|v| v == "1");
    let files = generated();
    let mut stale = Vec::new();
    for (rel, want) in &files {
        let path = root.join(rel);
        if std::fs::read(&path).ok().as_ref() == Some(want) {
            continue;
        }
        if update {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, want).unwrap();
            eprintln!("rewrote {}", rel.display());
        } else {
            stale.push(rel.display().to_string());
        }
    }
    // A subcommand that was renamed or removed leaves an orphan page behind.
    for dir in ["completions", "man"] {
        for entry in std::fs::read_dir(root.join(dir))
            .into_iter()
            .flatten()
            .flatten()
        {
            let rel = Path::new(dir).join(entry.file_name());
            if !files.iter().any(|(p, _)| *p == rel) {
                if update {
                    std::fs::remove_file(entry.path()).unwrap();
                    eprintln!("removed {}", rel.display());
                } else {
                    stale.push(format!("{} (no longer generated)", rel.display()));
                }
            }
        }
    }
    assert!(
        stale.is_empty(),
        "generated files are stale: {}\nsrc/cli.rs changed; regenerate them with\n    \
         UPDATE_GENERATED=1 cargo test --test cli generated\nand commit the result",
        stale.join(", ")
    );
}

/// Regression: the man page's synopsis showed `<QUERY>` for `<QUERY>...`,
/// as if a query needed quotes.
#[test]
fn man_synopses_show_arguments_that_take_many_words() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for (page, usage) in [
        ("alfred-mem-search.1", "[OPTIONS] <QUERY>..."),
        ("alfred-mem-index-mbox.1", "[OPTIONS] <FILE>..."),
        ("alfred-mem-remember.1", "[OPTIONS] [TEXT]..."),
    ] {
        let text = std::fs::read_to_string(root.join("man").join(page)).unwrap();
        let synopsis = text
            .lines()
            .skip_while(|l| *l != ".SH SYNOPSIS")
            .nth(1)
            .unwrap_or_default();
        assert!(synopsis.ends_with(usage), "{page}: {synopsis}");
    }
}
