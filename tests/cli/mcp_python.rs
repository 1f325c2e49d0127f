//! The server checked by the official MCP Python SDK (`pip install mcp`),
//! the client most agents' tooling is built on. The SDK is not part of a
//! Rust toolchain, so these tests are ignored by a plain `cargo test`;
//! `.ci/run` installs the SDK and runs them. The client script is
//! `fixtures/mcp_sdk_client.py`: it initialises, calls every tool (the SDK
//! validates each structured result against the tool's outputSchema),
//! appends and forgets a conversation, reads a resource and a prompt, and
//! sends a 5 MB message that must be answered with its id, not a timeout.

use std::process::Command;

use crate::util::{TestEnv, fixture};

fn run_client(args: &[&str]) {
    let out = Command::new("python3")
        .arg(fixture("mcp_sdk_client.py"))
        .args(args)
        .output()
        .expect("python3 runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.trim_end().ends_with("ok"),
        "the Python SDK client failed ({}):\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
#[ignore = "needs the MCP Python SDK (pip install mcp): .ci/run installs it and runs the ignored MCP tests"]
fn the_python_sdk_speaks_to_the_server_over_stdio() {
    let env = TestEnv::new();
    run_client(&[
        "stdio",
        env!("CARGO_BIN_EXE_alfred-mem"),
        env.db().to_str().unwrap(),
    ]);
}

#[test]
#[ignore = "needs the MCP Python SDK (pip install mcp): .ci/run installs it and runs the ignored MCP tests"]
fn the_python_sdk_speaks_to_the_server_over_streamable_http() {
    use std::io::BufRead;
    let env = TestEnv::new();
    let mut child = env
        .std_cmd(["mcp", "--http", "127.0.0.1:0"])
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.stderr.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .unwrap_or_else(|| panic!("no URL in {line:?}"))
        .to_string();
    let outcome = std::panic::catch_unwind(|| run_client(&["http", &url]));
    let _ = child.kill();
    let _ = child.wait();
    if let Err(e) = outcome {
        std::panic::resume_unwind(e);
    }
}
