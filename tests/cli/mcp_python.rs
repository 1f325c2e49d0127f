//! The server checked by the official MCP Python SDK (`pip install mcp`),
//! the client most agents' tooling is built on. The SDK is not part of a
//! Rust toolchain, so these tests are ignored by a plain `cargo test`;
//! `.ci/run` installs the SDK and runs them. The client script is
//! `fixtures/mcp_sdk_client.py`: it initialises, calls every tool (the SDK
//! validates each structured result against the tool's outputSchema),
//! appends and forgets a conversation, reads a resource and a prompt, and
//! sends a 5 MB message that must be answered with its id, not a timeout.

use std::process::Command;

use crate::mcp_http::HttpServer;
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
    let env = TestEnv::new();
    let server = HttpServer::start(&env, &["--http", "127.0.0.1:0"], None);
    run_client(&["http", &format!("http://{}/mcp", server.addr)]);
}
