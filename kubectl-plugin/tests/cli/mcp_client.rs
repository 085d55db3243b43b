//! A minimal Model Context Protocol client for the CLI tests: `kubectl-layer mcp` spawned over
//! standard input and output, initialized, one tool called, its result returned. The Node tests
//! (`tests/mcp/`) hold the server to the official SDK; these need only one call against the
//! in-process API server.

use super::bin;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;

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
    Session::start(args).call(1, tool, arguments)["result"].clone()
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

/// A session kept open, to send several lines (well formed or not) and read each answer.
pub struct Session {
    child: std::process::Child,
    stdin: Option<std::process::ChildStdin>,
    lines: std::io::Lines<BufReader<std::process::ChildStdout>>,
}

impl Session {
    /// `kubectl-layer mcp` with `args`, initialized.
    pub fn start<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Session {
        let mut child = bin()
            .arg("mcp")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the MCP server starts");
        let stdin = child.stdin.take();
        let lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
        let mut s = Session {
            child,
            stdin,
            lines,
        };
        let client = json!({"name": "kubectl-layer-tests", "version": "0"});
        s.line(
            &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params":
            {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": client}})
            .to_string(),
        );
        answer(&mut s.lines, 0);
        s.line(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string());
        s
    }

    /// Send one line as it is.
    pub fn line(&mut self, raw: &str) {
        let stdin = self.stdin.as_mut().expect("open");
        stdin.write_all(raw.as_bytes()).expect("the server reads");
        stdin.write_all(b"\n").expect("the server reads");
        stdin.flush().expect("flushed");
    }

    /// The next message the server writes, whatever its id.
    pub fn next(&mut self) -> Value {
        let line = self
            .lines
            .next()
            .expect("the server answers")
            .expect("a line");
        serde_json::from_str(&line).expect("JSON-RPC")
    }

    /// Call `tool` as request `id`; the whole answer (`result` or `error`).
    pub fn call(&mut self, id: u64, tool: &str, arguments: Value) -> Value {
        self.line(
            &json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                   "params": {"name": tool, "arguments": arguments}})
            .to_string(),
        );
        answer(&mut self.lines, id)
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let _ = self.child.wait();
    }
}
