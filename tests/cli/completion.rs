//! The committed completion scripts, run in the shells they are for: each
//! is loaded as a user would load it and asked to complete the same command
//! lines, a subcommand's options above all (bash once completed none of
//! them, see `generated::mend_bash`). bash is on every machine; zsh and
//! fish may not be, so their tests are ignored by a plain `cargo test` and
//! run by `.ci/run`, which installs both.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::generated::BIN;
use crate::util::fixture;

/// (words typed after `alfred-mem`, the last one being completed; what
/// every shell must offer).
const CASES: &[(&[&str], &[&str])] = &[
    (&["search", "--so"], &["--source"]),
    (&["search", "--lex"], &["--lexical"]),
    (&["index-mbox", "--js"], &["--json"]),
    (&["forget", "--ma"], &["--match"]),
    (&["model", "use", "--na"], &["--name"]),
    (&["sea"], &["search"]),
];

fn completions(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("completions")
        .join(file)
}

/// Run `cmd` (a shell, given at most a minute) and return its stdout lines.
fn lines_of(mut cmd: Command) -> Vec<String> {
    let out = cmd.output().expect("run the shell (is it installed?)");
    assert!(
        out.status.success(),
        "{cmd:?}: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let mut lines: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    lines.sort();
    lines
}

fn within_a_minute(shell: &str) -> Command {
    let mut cmd = Command::new("timeout");
    cmd.args(["60", shell]);
    cmd
}

/// What bash offers for `words`: the script is sourced, the function it
/// registered with `complete -F` is called as bash's completion calls it
/// (COMP_WORDS, COMP_CWORD, COMP_LINE, COMP_POINT; the command, the word
/// being completed and the one before as arguments), and COMPREPLY printed.
fn bash(words: &[&str]) -> Vec<String> {
    let script = r#"
        source "$1"; shift
        function=$(complete -p "$1" | sed -E 's/.* -F ([^ ]+) .*/\1/')
        COMP_WORDS=("$@")
        COMP_CWORD=$(( $# - 1 ))
        COMP_LINE="$*"
        COMP_POINT=${#COMP_LINE}
        "$function" "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
        printf '%s\n' "${COMPREPLY[@]}"
    "#;
    let mut cmd = within_a_minute("bash");
    cmd.args(["--norc", "--noprofile", "-c", script, "bash"])
        .arg(completions("alfred-mem.bash"))
        .arg(BIN)
        .args(words);
    lines_of(cmd)
}

/// What zsh offers for `words`, typed at a real prompt with TAB (see
/// fixtures/complete.zsh).
fn zsh(words: &[&str]) -> Vec<String> {
    let mut cmd = within_a_minute("zsh");
    cmd.arg("-f")
        .arg(fixture("complete.zsh"))
        .arg(completions(""))
        .arg(command_line(words));
    lines_of(cmd)
}

/// What fish offers for `words` (`complete -C` prints each candidate, a
/// tab, and its description).
fn fish(words: &[&str]) -> Vec<String> {
    let mut cmd = within_a_minute("fish");
    cmd.args(["--no-config", "-c", "source $argv[1]; complete -C $argv[2]"])
        .arg(completions("alfred-mem.fish"))
        .arg(command_line(words));
    lines_of(cmd)
        .into_iter()
        .map(|l| l.split('\t').next().unwrap_or_default().to_owned())
        .collect()
}

fn command_line(words: &[&str]) -> String {
    std::iter::once(BIN)
        .chain(words.iter().copied())
        .collect::<Vec<_>>()
        .join(" ")
}

fn check(shell: &str, complete: fn(&[&str]) -> Vec<String>) {
    for (words, want) in CASES {
        assert_eq!(
            complete(words),
            *want,
            "{shell}: {}<TAB>",
            command_line(words)
        );
    }
}

/// Regression: `alfred-mem search --so<TAB>` offered nothing in bash.
#[test]
fn bash_completes_subcommands_and_their_options() {
    check("bash", bash);
}

#[test]
#[ignore = "needs zsh: .ci/run installs it and runs the ignored completion tests"]
fn zsh_completes_subcommands_and_their_options() {
    check("zsh", zsh);
}

#[test]
#[ignore = "needs fish: .ci/run installs it and runs the ignored completion tests"]
fn fish_completes_subcommands_and_their_options() {
    check("fish", fish);
}
