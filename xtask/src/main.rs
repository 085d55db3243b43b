//! `cargo xtask …`: everything that is not plain `cargo`. Each task prints what it runs, so a
//! failure in CI names the step.

mod bench;
mod fuzz;
mod wasm;
mod web;

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

const HELP: &str = "\
cargo xtask <task>

  ci            every check CI runs: fmt, clippy (warnings denied), the scenario consistency
                check, tests, docs --check, the core built for wasm32-unknown-unknown
                (installs the target if missing), wasm-test, web-test, bench --quick and
                fuzz --seconds 45; installs what a fresh machine lacks (wasm32 target,
                wasm-bindgen-cli, Chromium, PyYAML, cargo-fuzz)
  demo          the main job with no cluster: diagnose the built-in example scenarios
  wasm          build the npm package into wasm/pkg/ (needs wasm-bindgen-cli = Cargo.lock's)
  wasm-test     pack it, install the tarball in a scratch project, replay every scenario in
                Node against the native CLI
  web           build the offline page into web-demo/dist/
  serve [--port N]  serve it on 127.0.0.1 (default 8080) with its Content-Security-Policy
  web-test      browser tests: Debian's Chromium + playwright-core through every scenario
  gen-cluster --nodes N --pods M [--seed S] [--out FILE]
                a realistic synthetic cluster (kubectl List JSON), deterministic for a seed
  bench [--quick]  scan/why/memory/growth on gen-cluster bundles against serde_json in the
                same run, jq as a peer, WASM in Node against native; ratios, never limits,
                into docs/benchmarks.md (--quick: small sizes, into target/)
  fuzz [--seconds N] [bundle|diagnose]
                the cargo-fuzz targets of fuzz/ (installs cargo-fuzz), N seconds each
                (default 60), seeded with every scenario bundle; a crash fails the task
  incidents [--verbose]
                diagnose every real incident of tests/incidents/ and print `N/M layers
                right`; fails below the floor in tests/incidents/floor.txt
  docs [--check]  regenerate docs/rules/ and docs/schema/ from rules/ and the Rust types;
                with --check, fail when the committed files are stale
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("ci") => ci(),
        Some("demo") => demo(),
        Some("docs") => docs(args.iter().any(|a| a == "--check")),
        Some("wasm") => wasm::build(),
        Some("wasm-test") => wasm::test(),
        Some("web") => web::build().map(|_| ()),
        Some("serve") => web::serve(
            args.iter()
                .skip_while(|a| *a != "--port")
                .nth(1)
                .and_then(|p| p.parse().ok())
                .unwrap_or(8080),
        ),
        Some("web-test") => web::test(),
        Some("gen-cluster") => run(cargo()
            .args([
                "run",
                "--quiet",
                "--release",
                "-p",
                "kubectl-layer-tests",
                "--bin",
                "gen-cluster",
                "--",
            ])
            .args(&args[1..])),
        Some("incidents") => incidents(args.iter().any(|a| a == "--verbose" || a == "-v")),
        Some("bench") => bench::bench(args.iter().any(|a| a == "--quick")),
        Some("fuzz") => fuzz::from_args(&args[1..]),
        Some("help" | "-h" | "--help") | None => {
            print!("{HELP}");
            Ok(())
        }
        Some(other) => Err(format!("unknown task `{other}`\n\n{HELP}")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The workspace root, read when the task runs (cargo sets `CARGO_MANIFEST_DIR` for `cargo
/// run`): an xtask binary built in one checkout and run from another (one shared target
/// directory) must act on the checkout it runs in.
pub fn root() -> PathBuf {
    let manifest = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")));
    manifest.parent().expect("workspace root").to_path_buf()
}

/// Cargo's target directory, as cargo itself reports it (`CARGO_TARGET_DIR`, a config file or
/// `<root>/target`), asked once per run.
pub fn target_dir() -> PathBuf {
    static DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let out = cargo()
            .args(["metadata", "--format-version", "1", "--no-deps"])
            .current_dir(root())
            .output()
            .ok()
            .filter(|o| o.status.success());
        out.and_then(|o| serde_json::from_slice::<serde_json::Value>(&o.stdout).ok())
            .and_then(|m| m["target_directory"].as_str().map(PathBuf::from))
            .unwrap_or_else(|| root().join("target"))
    })
    .clone()
}

pub fn run(cmd: &mut Command) -> Result<(), String> {
    let shown = format!("{cmd:?}").replace('"', "");
    eprintln!("==> {shown}");
    // Tasks run from the workspace root unless they chose a directory.
    if cmd.get_current_dir().is_none() {
        cmd.current_dir(root());
    }
    let status = cmd.status().map_err(|e| format!("{shown}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{shown} failed ({status})"))
    }
}

/// Run `cmd` and return what it printed on standard output; on failure, an error naming `what`
/// with its standard error. For tools whose output the task reads (npm pack, the harnesses).
pub fn output(cmd: &mut Command, what: &str) -> Result<Vec<u8>, String> {
    let out = cmd.output().map_err(|e| format!("{what}: {e}"))?;
    if out.status.success() {
        Ok(out.stdout)
    } else {
        Err(format!(
            "{what} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

pub fn cargo() -> Command {
    Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
}

/// Install what the checks need and a fresh machine lacks: the wasm32 target, the
/// wasm-bindgen-cli that matches Cargo.lock (never `--locked`: its own lockfile pins a crate
/// the registry mirror lacks), PyYAML for the scenario checker, and cargo-fuzz.
fn ensure_tools() -> Result<(), String> {
    let has_wasm = Command::new("rustup")
        .args(["target", "list", "--installed"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).contains("wasm32-unknown-unknown"))
        .unwrap_or(false);
    if !has_wasm {
        run(Command::new("rustup").args(["target", "add", "wasm32-unknown-unknown"]))?;
    }
    let (want, _, matches) = wasm::bindgen_versions()?;
    if !matches {
        run(cargo().args([
            "install",
            "wasm-bindgen-cli",
            "--version",
            &format!("={want}"),
        ]))?;
    }
    // Debian's Chromium for the browser tests (never a browser download: only registries work
    // here). Not Debian's binaryen, whose old wasm-opt breaks wasm-bindgen output.
    // The live-cluster tests point the real kubectl at the test API server; the image has
    // one, and Debian's kubernetes-client stands in where it is missing.
    let has_kubectl = Command::new("kubectl")
        .args(["version", "--client"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_kubectl {
        run(Command::new("apt-get").args(["update", "-qq"]))?;
        run(Command::new("apt-get").args(["install", "-y", "-qq", "kubernetes-client"]))?;
    }
    // The completion tests source the generated scripts in a real zsh (bash is the image's),
    // and drive kubectl's own bash script, which is built on bash-completion's library. In CI
    // they fail rather than skip without these.
    let has_zsh = Command::new("zsh")
        .args(["-c", "exit 0"])
        .status()
        .is_ok_and(|s| s.success());
    let mut shells = Vec::new();
    if !has_zsh {
        shells.push("zsh");
    }
    if !Path::new("/usr/share/bash-completion/bash_completion").exists() {
        shells.push("bash-completion");
    }
    if !shells.is_empty() {
        run(Command::new("apt-get").args(["update", "-qq"]))?;
        run(Command::new("apt-get")
            .args(["install", "-y", "-qq"])
            .args(&shells)
            .env("DEBIAN_FRONTEND", "noninteractive"))?;
    }
    if !Path::new("/usr/bin/chromium").exists() {
        run(Command::new("apt-get").args(["update", "-qq"]))?;
        run(Command::new("apt-get")
            .args(["install", "-y", "-qq", "chromium"])
            .env("DEBIAN_FRONTEND", "noninteractive"))?;
    }
    let has_yaml = Command::new("python3")
        .args(["-c", "import yaml"])
        .status()
        .is_ok_and(|s| s.success());
    if !has_yaml {
        run(Command::new("python3").args(["-m", "pip", "install", "--quiet", "pyyaml"]))?;
    }
    fuzz::ensure()?;
    Ok(())
}

fn ci() -> Result<(), String> {
    ensure_tools()?;
    run(cargo().args(["fmt", "--all", "--check"]))?;
    run(cargo().args([
        "clippy",
        "--workspace",
        "--all-targets",
        "--",
        "-D",
        "warnings",
    ]))?;
    // Scenario bundles must stay internally consistent (uids, owners, events, GPU arithmetic).
    run(Command::new("python3").arg("tests/scenarios/check_consistency.py"))?;
    run(cargo().args(["test", "--workspace"]))?;
    // The real-incident corpus: the share of right layers must hold its floor.
    incidents(true)?;
    docs(true)?;
    run(cargo().args([
        "build",
        "-p",
        "kubectl-layer-core",
        "--target",
        "wasm32-unknown-unknown",
    ]))?;
    // The npm package: built, packed, installed in a scratch project, replayed against the CLI.
    wasm::test()?;
    // The offline page in a real browser, every scenario.
    web::test()?;
    // Benchmarks report, never fail on timings; CI runs them small so they keep working.
    bench::bench(true)?;
    // The fuzz targets, 45 s each: a crash or a hang fails CI with its input.
    fuzz::ci(45)?;
    eprintln!("==> ci: every check passed");
    Ok(())
}

/// Score the built-in rules on the real incidents of `tests/incidents/`.
fn incidents(verbose: bool) -> Result<(), String> {
    let mut cmd = cargo();
    cmd.args([
        "run",
        "--quiet",
        "-p",
        "kubectl-layer-tests",
        "--bin",
        "incidents",
    ]);
    if verbose {
        cmd.args(["--", "--verbose"]);
    }
    run(&mut cmd)
}

/// Diagnose the first target of every scenario with the real CLI, as a user would.
fn demo() -> Result<(), String> {
    run(cargo().args(["build", "--quiet", "-p", "kubectl-layer"]))?;
    let bin = target_dir().join("debug/kubectl-layer");
    for (dir, bundle, expected) in scenarios()? {
        let target = expected
            .as_array()
            .and_then(|a| a.first())
            .and_then(|t| t["target"].as_str())
            .ok_or_else(|| format!("{}: expected.json lists no target", dir.display()))?
            .to_string();
        let name = dir
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        // A closed pipe (`| head`) ends the demo quietly.
        let _ = writeln!(
            std::io::stdout(),
            "\n━━ scenario {name}: kubectl layer why {target} -f {}",
            bundle.strip_prefix(root()).unwrap_or(&bundle).display()
        );
        // The verdict decides the exit status (1 when something blocks); the demo ran either way.
        let status = Command::new(&bin)
            .args(["why", &target, "-f"])
            .arg(&bundle)
            .status()
            .map_err(|e| format!("{}: {e}", bin.display()))?;
        if status.code().is_none_or(|c| c > 1) {
            return Err(format!(
                "kubectl-layer failed on scenario {name} ({status})"
            ));
        }
    }
    Ok(())
}

/// (scenario dir, bundle file, expected.json) for every scenario, sorted.
pub fn scenarios() -> Result<Vec<(PathBuf, PathBuf, serde_json::Value)>, String> {
    let base = root().join("tests/scenarios");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&base)
        .map_err(|e| format!("{}: {e}", base.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("expected.json").exists())
        .collect();
    dirs.sort();
    dirs.into_iter()
        .map(|d| {
            let bundle = ["bundle.json", "bundle.yaml"]
                .iter()
                .map(|f| d.join(f))
                .find(|p| p.exists())
                .ok_or_else(|| format!("{}: no bundle", d.display()))?;
            let text =
                std::fs::read_to_string(d.join("expected.json")).map_err(|e| e.to_string())?;
            let v = serde_json::from_str(&text)
                .map_err(|e| format!("{}/expected.json: {e}", d.display()))?;
            Ok((d, bundle, v))
        })
        .collect()
}

/// Generated documentation: one page per rule, an index by layer, and the contract's schemas.
fn docs(check: bool) -> Result<(), String> {
    let engine = layer_core::Engine::builtin().map_err(|e| e.to_string())?;
    let mut files: Vec<(PathBuf, String)> = Vec::new();
    let mut index = String::from(
        "# Rules\n\nGenerated by `cargo xtask docs` from `rules/`; do not edit by hand.\n",
    );
    for layer in layer_core::Layer::ALL {
        let rules: Vec<_> = engine.rules().iter().filter(|r| r.layer == layer).collect();
        if rules.is_empty() {
            continue;
        }
        index.push_str(&format!(
            "\n## {}\n\n| rule | kind | summary |\n|---|---|---|\n",
            layer.as_str()
        ));
        for r in rules {
            let kind = match r.kind {
                layer_core::rule::RuleKind::Finding => r.severity.as_str().to_string(),
                layer_core::rule::RuleKind::Status => {
                    format!("status ({})", r.state.map_or("ok", |s| s.as_str()))
                }
                layer_core::rule::RuleKind::Misalignment => "misalignment".to_string(),
            };
            index.push_str(&format!(
                "| [`{}`]({}.md) | {} | {} |\n",
                r.id, r.id, kind, r.summary
            ));
            let mut page = layer_core::render::rule_doc(r);
            page.push_str(&format!(
                "\nSource: [`rules/{}.yaml`](../../../rules/{}.yaml)\n",
                r.id, r.id
            ));
            files.push((root().join(format!("docs/rules/{}.md", r.id)), page));
        }
    }
    files.push((root().join("docs/rules/index.md"), index));
    for (name, schema) in layer_core::diagnosis::schemas() {
        let mut text = serde_json::to_string_pretty(&schema).map_err(|e| e.to_string())?;
        text.push('\n');
        files.push((root().join("docs/schema").join(name), text));
    }
    let mut stale = Vec::new();
    for (path, content) in &files {
        let current = std::fs::read_to_string(path).unwrap_or_default();
        if current != *content {
            if check {
                stale.push(
                    path.strip_prefix(root())
                        .unwrap_or(path)
                        .display()
                        .to_string(),
                );
            } else {
                std::fs::create_dir_all(path.parent().expect("has parent"))
                    .map_err(|e| e.to_string())?;
                std::fs::write(path, content).map_err(|e| format!("{}: {e}", path.display()))?;
            }
        }
    }
    // Pages of rules that no longer exist.
    let wanted: Vec<&PathBuf> = files.iter().map(|(p, _)| p).collect();
    for layer in layer_core::Layer::ALL {
        let dir = root().join("docs/rules").join(layer.as_str());
        for e in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            if !wanted.contains(&&e.path()) {
                if check {
                    stale.push(
                        e.path()
                            .strip_prefix(root())
                            .unwrap_or(&e.path())
                            .display()
                            .to_string(),
                    );
                } else {
                    std::fs::remove_file(e.path()).map_err(|e| e.to_string())?;
                }
            }
        }
    }
    if check && !stale.is_empty() {
        return Err(format!(
            "generated docs are stale; run `cargo xtask docs`:\n  {}",
            stale.join("\n  ")
        ));
    }
    eprintln!(
        "==> docs: {} files {}",
        files.len(),
        if check { "current" } else { "written" }
    );
    Ok(())
}
