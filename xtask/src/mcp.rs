//! `cargo xtask mcp-test`: `kubectl layer mcp` driven by a real MCP client, the TypeScript SDK
//! from npm (`kubectl-plugin/tests/mcp/`, pinned by its lockfile), in Node's test runner.
//!
//! The release CLI, because the test compares hundreds of tool calls with the CLI's own output
//! and a debug build spends a second compiling the rules on every run; `ci` builds it for the
//! demo anyway. The in-process API server for the live call is the `test_cluster` example.
//!
//! `server_json` checks the MCP registry entry (`server.json`) against the registry's own
//! schema, taken from the registry's Go module at a pinned version.

use crate::tools::{Tool, ensure};
use crate::{cargo, root, run, target_dir};
use std::process::Command;

pub fn test() -> Result<(), String> {
    server_json()?;
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

/// The MCP registry's module: its zip carries the server.json schemas the registry validates
/// against (`internal/validators/schemas/<date>.json`), one per schema date.
const REGISTRY_MODULE: &str = "github.com/modelcontextprotocol/registry@v1.8.9";

/// `server.json` against the registry schema its `$schema` names (Python's `jsonschema`,
/// draft-07 with formats), and against this checkout: its version and the crate it names.
/// A copy with a name the registry refuses must fail the same validator, so a validator that
/// accepts anything fails the task.
pub fn server_json() -> Result<(), String> {
    ensure(&[Tool::JsonSchema])?;
    let text = std::fs::read_to_string(root().join("server.json"))
        .map_err(|e| format!("server.json: {e}"))?;
    let server: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("server.json: {e}"))?;
    let url = server["$schema"].as_str().unwrap_or_default();
    let date = url
        .strip_prefix("https://static.modelcontextprotocol.io/schemas/")
        .and_then(|rest| rest.strip_suffix("/server.schema.json"))
        .ok_or_else(|| format!("server.json: `$schema` {url:?} is not a registry schema"))?;
    let dir = crate::lab::build::downloaded(&std::env::temp_dir(), REGISTRY_MODULE, "Dir")?;
    let schema =
        std::path::Path::new(&dir).join(format!("internal/validators/schemas/{date}.json"));
    if !schema.exists() {
        return Err(format!("{REGISTRY_MODULE} has no schema {date}"));
    }
    let version = env!("CARGO_PKG_VERSION");
    let package = &server["packages"][0];
    let ours = server["version"] == version
        && package["version"] == version
        && package["identifier"] == "kubectl-layer"
        && package["packageArguments"][0]["value"] == "mcp";
    if !ours {
        return Err(format!(
            "server.json: version and package must be {version}, crate kubectl-layer, argument `mcp`"
        ));
    }
    validate(&schema, &text).map_err(|e| format!("server.json: {e}"))?;
    let mut broken = server.clone();
    broken["name"] = "kubectl-layer".into();
    if validate(&schema, &broken.to_string()).is_ok() {
        return Err("the schema check accepted a server name without a namespace".into());
    }
    eprintln!("==> server.json: valid against {REGISTRY_MODULE} schema {date}");
    Ok(())
}

/// Validate JSON text against a draft-07 schema file; the errors, one a line.
fn validate(schema: &std::path::Path, text: &str) -> Result<(), String> {
    const CHECK: &str = "
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
doc = json.load(sys.stdin)
v = jsonschema.Draft7Validator(schema, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)
errors = sorted(v.iter_errors(doc), key=lambda e: list(e.absolute_path))
for e in errors:
    print('/'.join(map(str, e.absolute_path)) or '(top)', ':', e.message)
sys.exit(1 if errors else 0)
";
    let mut child = Command::new("python3")
        .args(["-c", CHECK])
        .arg(schema)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| format!("python3: {e}"))?;
    std::io::Write::write_all(&mut child.stdin.take().expect("piped"), text.as_bytes())
        .map_err(|e| format!("python3: {e}"))?;
    let out = child
        .wait_with_output()
        .map_err(|e| format!("python3: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stdout).into_owned())
    }
}
