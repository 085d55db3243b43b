//! `cargo xtask mcp-test`: `kubectl layer mcp` driven by a real MCP client, the TypeScript SDK
//! from npm (`kubectl-plugin/tests/mcp/`, pinned by its lockfile), in Node's test runner.
//!
//! The release CLI, because the test compares hundreds of tool calls with the CLI's own output
//! and a debug build spends a second compiling the rules on every run; `ci` builds it for the
//! demo anyway. The in-process API server for the live call is the `test_cluster` example.

use crate::tools::{Tool, ensure};
use crate::{cargo, root, run, target_dir};
use std::process::Command;

pub fn test() -> Result<(), String> {
    ensure(&[Tool::Node])?;
    run(cargo().args([
        "build",
        "--release",
        "-p",
        "kubectl-layer",
        "--bin",
        "kubectl-layer",
    ]))?;
    run(cargo().args(["build", "-p", "kubectl-layer", "--example", "test_cluster"]))?;
    let dir = root().join("kubectl-plugin/tests/mcp");
    run(Command::new("npm")
        .args(["ci", "--no-audit", "--no-fund", "--silent"])
        .current_dir(&dir))?;
    run(Command::new("node")
        .args(["--test", "--test-reporter=spec", "mcp.test.mjs"])
        .env("KL_CLI", target_dir().join("release/kubectl-layer"))
        .env(
            "KL_CLUSTER",
            target_dir().join("debug/examples/test_cluster"),
        )
        .env("KL_SCENARIOS", root().join("tests/scenarios"))
        .env("KL_README", root().join("README.md"))
        .env("KL_FITS", root().join("tests/fits"))
        .current_dir(&dir))
}
