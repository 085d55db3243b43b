//! A minimal Model Context Protocol client for the CLI tests: `kubectl-layer mcp` spawned over
//! standard input and output, initialized, one tool called, its result returned. The Node tests
//! (`tests/mcp/`) hold the server to the official SDK; these need only one call against the
//! in-process API server.

use super::bin;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;

/// One message, as the stdio transport frames it: a line of JSON.
fn send(to: &mut impl Write, message: Value) {
    writeln!(to, "{message}").expect("the server reads");
    to.flush().expect("flushed");
}

/// The answer to request `id`, skipping notifications.
fn answer(lines: &mut impl Iterator<Item = std::io::Result<String>>, id: u64) -> Value {
    for line in lines {
        let v: Value = serde_json::from_str(&line.expect("a line")).expect("JSON-RPC");
        if v["id"] == id {
            return v;
        }
    }
    panic!("the server ended before answering request {id}")
}

/// The result of calling `tool` with `arguments` on `kubectl-layer mcp` run with `args`.
pub fn call(args: &[&std::ffi::OsStr], tool: &str, arguments: Value) -> Value {
    let mut child = bin()
        .arg("mcp")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the MCP server starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let client = json!({"name": "kubectl-layer-tests", "version": "0"});
    send(
        &mut stdin,
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params":
            {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": client}}),
    );
    answer(&mut lines, 1);
    send(
        &mut stdin,
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    );
    send(
        &mut stdin,
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
               "params": {"name": tool, "arguments": arguments}}),
    );
    let result = answer(&mut lines, 2)["result"].clone();
    drop(stdin);
    let _ = child.wait();
    result
}

/// The text content of a tool's result.
pub fn text(result: &Value) -> String {
    result["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}
