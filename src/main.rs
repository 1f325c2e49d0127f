//! Entry point: parse, dispatch, map the error to an exit code.

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = alfred_mem::cli::Cli::parse();
    match alfred_mem::cmd::run(cli) {
        Ok(code) => code,
        Err(e) if alfred_mem::is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            let said_once = alfred_mem::store::failure::describe(&e);
            eprintln!("alfred-mem: {}", alfred_mem::sanitize::one_line(&said_once));
            ExitCode::from(alfred_mem::cmd::exit::ERROR)
        }
    }
}
