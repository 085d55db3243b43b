//! What the tasks need beyond cargo, and how a fresh machine gets it: one place, so `wasm`,
//! `web`, `serve`, `web-test` and `ci` each install what they lack the same way instead of
//! failing with an instruction. Only the registries are reachable here: nothing downloads its
//! own binaries (Debian's Chromium, never a browser download; never Debian's binaryen, whose
//! old wasm-opt breaks wasm-bindgen output). The tasks import this installer and it imports
//! none of them, so what it needs to know about a tool (the wasm-bindgen version Cargo.lock
//! pins) lives here.

use crate::{cargo, root, run};
use std::path::Path;
use std::process::Command;

/// A tool a task needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tool {
    /// rustup's wasm32-unknown-unknown target, for the core and the npm package.
    WasmTarget,
    /// wasm-bindgen-cli at the version Cargo.lock pins.
    WasmBindgen,
    /// Debian's Chromium, for the browser tests.
    Chromium,
    /// The real kubectl, for the live-cluster tests (Debian's kubernetes-client where missing).
    Kubectl,
    /// PyYAML, for the scenario consistency checker.
    PyYaml,
    /// The Python `prometheus_client`, whose exposition-format parser reads `scan -o
    /// prometheus` and the exporter's /metrics in the CLI tests.
    PrometheusClient,
    /// Node 18 or later with npm, for the npm package, the page and the MCP client tests
    /// (Debian's nodejs and npm where missing).
    Node,
    /// cargo-fuzz, for the fuzz targets.
    CargoFuzz,
    /// The Python `jsonschema`, which validates server.json against the MCP registry's schema.
    JsonSchema,
    /// zsh, for the completion tests (bash is the image's own).
    Zsh,
    /// bash-completion's library, which kubectl's own bash completion script is built on.
    BashCompletion,
    /// Go, which builds the lab's control plane from the Go module proxy. Never installed
    /// here: Debian's is older than the pinned Kubernetes needs, so its absence is an error.
    Go,
    /// openssl, which makes the lab's certificates (Debian's where missing).
    Openssl,
    /// shellcheck, which actionlint runs on the workflows' scripts (Debian's where missing).
    Shellcheck,
    /// GNU time, whose peak-RSS figure the lab's benchmark reads for processes it does not
    /// build (kubectl) as well as the tool.
    GnuTime,
}

/// Everything `ci` needs.
pub const ALL: &[Tool] = &[
    Tool::WasmTarget,
    Tool::WasmBindgen,
    Tool::Kubectl,
    Tool::Chromium,
    Tool::PyYaml,
    Tool::PrometheusClient,
    Tool::Node,
    Tool::CargoFuzz,
    Tool::JsonSchema,
    Tool::Zsh,
    Tool::BashCompletion,
];

/// Install each of `tools` that this machine lacks.
pub fn ensure(tools: &[Tool]) -> Result<(), String> {
    for &t in tools {
        if !present(t)? {
            eprintln!("==> {t:?} is missing");
            install(t)?;
        }
    }
    Ok(())
}

fn succeeds(cmd: &mut Command) -> bool {
    cmd.output().is_ok_and(|o| o.status.success())
}

fn present(t: Tool) -> Result<bool, String> {
    Ok(match t {
        Tool::WasmTarget => Command::new("rustup")
            .args(["target", "list", "--installed"])
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).contains("wasm32-unknown-unknown"))
            .unwrap_or(false),
        Tool::WasmBindgen => bindgen_versions()?.2,
        Tool::Chromium => Path::new(&chromium()).exists(),
        Tool::Kubectl => succeeds(Command::new("kubectl").args(["version", "--client"])),
        Tool::PyYaml => succeeds(Command::new("python3").args(["-c", "import yaml"])),
        Tool::PrometheusClient => {
            succeeds(Command::new("python3").args(["-c", "import prometheus_client.parser"]))
        }
        Tool::Node => {
            node_major().is_some_and(|v| v >= 18) && succeeds(Command::new("npm").arg("--version"))
        }
        Tool::CargoFuzz => crate::fuzz::installed(),
        Tool::JsonSchema => succeeds(Command::new("python3").args(["-c", "import jsonschema"])),
        Tool::Zsh => succeeds(Command::new("zsh").args(["-c", "exit 0"])),
        Tool::BashCompletion => Path::new("/usr/share/bash-completion/bash_completion").exists(),
        Tool::Go => succeeds(Command::new("go").arg("version")),
        Tool::Openssl => succeeds(Command::new("openssl").arg("version")),
        Tool::GnuTime => succeeds(Command::new("/usr/bin/time").args(["-f", "%M", "true"])),
        Tool::Shellcheck => shellcheck_path().is_ok(),
    })
}

fn install(t: Tool) -> Result<(), String> {
    match t {
        Tool::WasmTarget => {
            run(Command::new("rustup").args(["target", "add", "wasm32-unknown-unknown"]))
        }
        // Never `--locked`: wasm-bindgen-cli's own lockfile pins a crate the registry mirror lacks.
        Tool::WasmBindgen => {
            let want = locked_bindgen_version()?;
            run(cargo().args([
                "install",
                "wasm-bindgen-cli",
                "--version",
                &format!("={want}"),
            ]))
        }
        Tool::Chromium => apt("chromium"),
        Tool::Kubectl => apt("kubernetes-client"),
        Tool::PyYaml => pip("pyyaml"),
        Tool::PrometheusClient => pip("prometheus-client"),
        Tool::Node => {
            apt("nodejs")?;
            apt("npm")
        }
        Tool::CargoFuzz => crate::fuzz::ensure(),
        Tool::JsonSchema => pip("jsonschema"),
        Tool::Zsh => apt("zsh"),
        Tool::BashCompletion => apt("bash-completion"),
        Tool::Go => Err(format!(
            "the lab needs Go {} or later on PATH (`go version` failed): it builds etcd, \
             Kubernetes and kwok from the Go module proxy; install Go and run it again",
            GO_MIN.trim_start_matches("go")
        )),
        Tool::Openssl => apt("openssl"),
        Tool::GnuTime => apt("time"),
        Tool::Shellcheck => apt("shellcheck"),
    }
}

fn pip(package: &str) -> Result<(), String> {
    run(Command::new("python3").args(["-m", "pip", "install", "--quiet", package]))
}

fn apt(package: &str) -> Result<(), String> {
    run(Command::new("apt-get").args(["update", "-qq"]))?;
    run(Command::new("apt-get")
        .args(["install", "-y", "-qq", package])
        .env("DEBIAN_FRONTEND", "noninteractive"))
}

/// The wasm-bindgen version pinned in Cargo.lock.
fn locked_bindgen_version() -> Result<String, String> {
    let lock = std::fs::read_to_string(root().join("Cargo.lock")).map_err(|e| e.to_string())?;
    let mut lines = lock.lines();
    while let Some(l) = lines.next() {
        if l == "name = \"wasm-bindgen\""
            && let Some(v) = lines.next().and_then(|v| v.strip_prefix("version = \""))
        {
            return Ok(v.trim_end_matches('"').to_string());
        }
    }
    Err("wasm-bindgen is not in Cargo.lock".into())
}

/// (the version Cargo.lock needs, the `wasm-bindgen --version` on PATH, whether they match).
fn bindgen_versions() -> Result<(String, String, bool), String> {
    let want = locked_bindgen_version()?;
    let have = Command::new("wasm-bindgen")
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    let ok = have == format!("wasm-bindgen {want}");
    Ok((want, have, ok))
}

/// The major version of `node` on $PATH.
fn node_major() -> Option<u32> {
    let out = Command::new("node").arg("--version").output().ok()?;
    let v = String::from_utf8_lossy(&out.stdout);
    v.trim()
        .trim_start_matches('v')
        .split('.')
        .next()?
        .parse()
        .ok()
}

/// The oldest Go the lab's pins build with (Kubernetes 1.35 declares `go 1.25.0`; etcd 3.6.17
/// and kwok 0.8.0 declare `go 1.26.0`).
pub const GO_MIN: &str = "go1.26";

/// The Go on $PATH, as `go version` names it ("go1.26.8"); an error below [`GO_MIN`].
pub fn go_version() -> Result<String, String> {
    let out = Command::new("go")
        .arg("version")
        .output()
        .map_err(|e| format!("go version: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let v = text
        .split_whitespace()
        .find(|w| w.starts_with("go1"))
        .ok_or_else(|| format!("go version: unexpected output {text:?}"))?;
    let minor = |s: &str| s.split('.').nth(1).and_then(|m| m.parse::<u32>().ok());
    if minor(v) < minor(GO_MIN) {
        return Err(format!("the lab needs {GO_MIN} or later; PATH has {v}"));
    }
    Ok(v.to_string())
}

/// The shellcheck on PATH, by its full path (actionlint takes it as `-shellcheck=`).
pub fn shellcheck_path() -> Result<String, String> {
    let out = crate::output(
        Command::new("sh").args(["-c", "command -v shellcheck"]),
        "shellcheck",
    )?;
    let path = String::from_utf8_lossy(&out).trim().to_string();
    if path.is_empty() {
        return Err("shellcheck is not on PATH".into());
    }
    Ok(path)
}

/// The Chromium the browser tests drive: `$CHROMIUM`, else Debian's.
pub fn chromium() -> String {
    std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into())
}

/// [`chromium`], there to be driven: Debian's is installed where missing; a `$CHROMIUM` that
/// names no file is an error, never replaced.
pub fn chromium_ready() -> Result<String, String> {
    let chromium = chromium();
    if std::env::var_os("CHROMIUM").is_none() {
        ensure(&[Tool::Chromium])?;
    } else if !std::path::Path::new(&chromium).exists() {
        return Err(format!("CHROMIUM={chromium}: no such file"));
    }
    Ok(chromium)
}
