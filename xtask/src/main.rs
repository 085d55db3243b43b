//! `cargo xtask …`: everything that is not plain `cargo`. Each task prints what it runs, so a
//! failure in CI names the step.

mod bench;
mod fuzz;
mod lab;
mod mcp;
mod release;
mod tools;
mod wasm;
mod web;
mod workflows;

use std::io::Write as _;
use std::path::PathBuf;
use std::process::{Command, ExitCode};

const HELP: &str = "\
cargo xtask <task>

  ci            every check CI runs: fmt, clippy (warnings denied, natively and for the
                module's build), the scenario consistency check, tests, docs --check, the
                core built for wasm32-unknown-unknown (installs the target if missing),
                workflows (actionlint, shellcheck), krew-test, wasm-test, mcp-test,
                web-test, bench --quick and fuzz --seconds 45,
                then demo; installs what a fresh machine lacks (wasm32 target, wasm-bindgen-cli,
                Chromium, kubectl, PyYAML, prometheus-client, Node and npm, cargo-fuzz,
                shellcheck)
  demo          the main job with no cluster: the release CLI on every built-in example
                scenario, then the verdicts by layer
  wasm          build the npm package into wasm/pkg/ (installs the wasm32 target and the
                wasm-bindgen-cli of Cargo.lock where missing)
  wasm-test     pack it; publint and attw on the tarball; install it in a fresh project and
                use it from ES modules, CommonJS, TypeScript (node16, nodenext, bundler) and
                a Vite build in Chromium; replay every scenario in Node against the native
                CLI (the tools pinned in wasm/npm-check/)
  mcp-test      `kubectl layer mcp` through the MCP TypeScript SDK's client in Node: every
                tool on every scenario against the CLI, errors, a live call, the README's
                client configuration, the tools' read-only annotations; and server.json
                against the MCP registry's schema (its Go module, pinned)
  server-json   only that server.json check
  web           build the offline page into web-demo/dist/ (builds the npm package first)
  serve [--port N]  build and serve it on 127.0.0.1 (default 8080) with its
                Content-Security-Policy
  web-test [--record] [--pages]  browser tests: Debian's Chromium (installed where
                missing) + playwright-core through every scenario, and the page's
                paste-to-verdict time on a 20 MB gen-cluster bundle against the release CLI's
                `why` (--record: that ratio into docs/benchmarks.md; --pages: the page served
                as GitHub Pages serves it, under /kubectl-layer/ with no CSP header, so its
                <meta> policy alone must hold)
  gen-cluster --nodes N --pods M [--seed S] [--shape SHAPE] [--out FILE]
                a realistic synthetic cluster (kubectl List JSON), deterministic for a seed
  bench [--quick]  scan/why/memory/growth on gen-cluster bundles against serde_json in the
                same run, every --shape at 1k/20k and 5k/100k, jq as a peer, WASM in Node
                against native; ratios, never limits, into docs/benchmarks.md (--quick:
                small sizes, every shape at one, into target/; --outputs: only the peak
                memory of every output format and `bundle -f` on every shape, printed)
  fuzz [--seconds N] [bundle|diagnose]
                the cargo-fuzz targets of fuzz/ (installs cargo-fuzz), N seconds each
                (default 60), seeded with every scenario bundle; a crash fails the task
  incidents [--verbose] [--dir DIR]
                diagnose every real incident of tests/incidents/ and print `N/M layers
                right`; fails below the floor in tests/incidents/floor.txt. --dir scores
                the incidents of DIR instead (a batch on arrival; no floor)
  lab up|down|status|env|test|build|replay [--tier bare|core|full] [--nodes N]
                a real control plane on 127.0.0.1 for the live tests, built with Go from
                the module proxy into ~/.cache/kubectl-layer-lab (`cargo xtask lab help`)
  release [--local | --target TRIPLE | --plan [--json] | --manifest]
                the release archives krew installs (kubectl-layer, kubectl_complete-layer,
                LICENSE; deterministic .tar.gz), their sha256 and .krew.yaml rendered for
                them, in <target-dir>/dist/; --local: this machine's only, checked, with a
                manifest whose URI is the file (`cargo xtask release --help`)
  krew-test     the local archive through real krew (built from its Go module into the lab's
                cache): validate-krew-manifest, `kubectl krew install --manifest --archive`
                into a new KREW_ROOT without network, then `kubectl layer version` and `why`
                on every scenario through the lab's kubectl
  workflows     actionlint (built from its Go module into the lab's cache) with Debian's
                shellcheck on every workflow of .github/workflows/ (installed where missing)
  docs [--check]  regenerate docs/rules/, docs/view.md, docs/schema/ and the README's sample
                output from rules/, core/src/catalog.rs, the Rust types and a real run; with --check, fail when the committed
                files are stale
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("ci") => ci(),
        Some("demo") => demo(),
        Some("docs") => docs(args.iter().any(|a| a == "--check")),
        Some("wasm") => wasm::build(),
        Some("wasm-test") => wasm::test(),
        Some("mcp-test") => mcp::test(),
        Some("server-json") => mcp::server_json(),
        Some("web") => web::build().map(|_| ()),
        Some("serve") => web::serve(
            args.iter()
                .skip_while(|a| *a != "--port")
                .nth(1)
                .and_then(|p| p.parse().ok())
                .unwrap_or(8080),
        ),
        Some("web-test") => web::test(
            args.iter().any(|a| a == "--record"),
            args.iter().any(|a| a == "--pages"),
        ),
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
        Some("incidents") => incidents(
            args.iter().any(|a| a == "--verbose" || a == "-v"),
            args.iter()
                .position(|a| a == "--dir")
                .and_then(|i| args.get(i + 1)),
        ),
        Some("bench") if args.iter().any(|a| a == "--outputs") => {
            bench::outputs_only(args.iter().any(|a| a == "--quick"))
        }
        Some("bench") => bench::bench(args.iter().any(|a| a == "--quick")),
        Some("fuzz") => fuzz::from_args(&args[1..]),
        Some("lab") => lab::from_args(&args[1..]),
        Some("release") => release::from_args(&args[1..]),
        Some("krew-test") => release::krew_test(),
        Some("workflows") => workflows::check(),
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

fn ci() -> Result<(), String> {
    tools::ensure(tools::ALL)?;
    run(cargo().args(["fmt", "--all", "--check"]))?;
    // The release, npm and Pages workflows run only on a tag: linted here before one does.
    workflows::check()?;
    run(cargo().args([
        "clippy",
        "--workspace",
        "--all-targets",
        "--",
        "-D",
        "warnings",
    ]))?;
    // The module's own build: the core without `rule-authoring`, and the code only WASM has
    // (`cfg(target_arch = "wasm32")`, as in core/src/pattern.rs), which the native run never sees.
    run(cargo().args([
        "clippy",
        "-p",
        "kubectl-layer-wasm",
        "--target",
        "wasm32-unknown-unknown",
        "--",
        "-D",
        "warnings",
    ]))?;
    // Scenario bundles must stay internally consistent (uids, owners, events, GPU arithmetic).
    run(Command::new("python3").arg("tests/scenarios/check_consistency.py"))?;
    run(cargo().args(["test", "--workspace"]))?;
    // The live tests against a real control plane: kube-apiserver, the scheduler, kwok's GPU
    // nodes, the real Kueue, JobSet and LWS controllers and KAI-Scheduler, built with Go on first
    // use (docs/lab.md).
    lab::from_args(&["test".into(), "--tier".into(), "full".into()])?;
    // Every bundle written into a bare lab's real API server and read back (docs/lab.md).
    lab::from_args(&["replay".into()])?;
    // The release archive installed by real krew and run through kubectl (the lab built kubectl).
    release::krew_test()?;
    // The real-incident corpus: the share of right layers must hold its floor.
    incidents(true, None)?;
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
    // The MCP server through a real MCP client.
    mcp::test()?;
    // The offline page in a real browser, every scenario.
    web::test(false, false)?;
    // Benchmarks report, never fail on timings; CI runs them small so they keep working.
    bench::bench(true)?;
    // The fuzz targets, 45 s each: a crash or a hang fails CI with its input.
    fuzz::ci(45)?;
    // The README's first command, as a new user runs it (.ci/run sets CARGO_TARGET_DIR outside
    // the checkout, so this also proves the demo finds its binary there).
    demo()?;
    eprintln!("==> ci: every check passed");
    Ok(())
}

/// `docs/rules/` (English) or `docs/rules/ko/` (Korean): a page per rule and an index by layer.
fn rule_pages(engine: &layer_core::Engine, lang: layer_core::Lang) -> Vec<(PathBuf, String)> {
    use layer_core::Lang;
    let words = layer_core::render::Words::of(lang);
    let (dir, up, title, intro, table, other) = match lang {
        Lang::En => (
            "docs/rules",
            "../../..",
            "Rules",
            "Generated by `cargo xtask docs` from `rules/`; do not edit by hand.",
            "| rule | kind | summary |",
            "In Korean: [ko/index.md](ko/index.md).",
        ),
        Lang::Ko => (
            "docs/rules/ko",
            "../../../..",
            "규칙",
            "`cargo xtask docs` 가 `rules/` 에서 만듭니다. 손으로 고치지 마세요.",
            "| 규칙 | 종류 | 요약 |",
            "In English: [../index.md](../index.md).",
        ),
    };
    let mut files = Vec::new();
    let mut index = format!("# {title}\n\n{intro}\n\n{other}\n");
    for layer in layer_core::Layer::ALL {
        let rules: Vec<_> = engine.rules().iter().filter(|r| r.layer == layer).collect();
        if rules.is_empty() {
            continue;
        }
        let heading = match lang {
            Lang::En => layer.as_str().to_string(),
            Lang::Ko => format!("{} ({})", words.layer(layer), layer.as_str()),
        };
        index.push_str(&format!("\n## {heading}\n\n{table}\n|---|---|---|\n"));
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
            let mut page = layer_core::render::rule_doc_in(r, words);
            // On the page, each fact's source file is a link: one hop from the rule to the code.
            let sources: std::collections::BTreeSet<&str> =
                r.facts_read().iter().map(|f| f.source).collect();
            for source in sources {
                page = page.replace(
                    &format!("`{source}`"),
                    &format!("[`{source}`]({up}/{source})"),
                );
            }
            page.push_str(&format!(
                "\nSource: [`rules/{}.yaml`]({up}/rules/{}.yaml)\n",
                r.id, r.id
            ));
            files.push((root().join(format!("{dir}/{}.md", r.id)), page));
        }
    }
    files.push((root().join(format!("{dir}/index.md")), index));
    files
}

/// Score the built-in rules on the real incidents of `tests/incidents/`.
fn incidents(verbose: bool, dir: Option<&String>) -> Result<(), String> {
    let mut cmd = cargo();
    if let Some(dir) = dir {
        // Absolute, so cargo's own working directory does not move it.
        let dir = std::path::absolute(dir).map_err(|e| format!("--dir {dir}: {e}"))?;
        cmd.env("KUBECTL_LAYER_INCIDENTS", dir);
    }
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

/// Diagnose the first target of every scenario with the real CLI, as a user would: the
/// release build (the user's first look is also their first wait), then a summary of the
/// verdicts by layer.
fn demo() -> Result<(), String> {
    run(cargo().args(["build", "--quiet", "--release", "-p", "kubectl-layer"]))?;
    let bin = target_dir().join("release/kubectl-layer");
    let mut verdicts: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    let all = scenarios()?;
    for (dir, bundle, expected) in &all {
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
            bundle.strip_prefix(root()).unwrap_or(bundle).display()
        );
        // The verdict decides the exit status (1 when something blocks); the demo ran either way.
        let status = Command::new(&bin)
            .args(["why", &target, "-f"])
            .arg(bundle)
            .status()
            .map_err(|e| format!("{}: {e}", bin.display()))?;
        if status.code().is_none_or(|c| c > 1) {
            return Err(format!(
                "kubectl-layer failed on scenario {name} ({status})"
            ));
        }
        let json = Command::new(&bin)
            .args(["why", &target, "-o", "json", "-f"])
            .arg(bundle)
            .output()
            .map_err(|e| format!("{}: {e}", bin.display()))?
            .stdout;
        let d: serde_json::Value = serde_json::from_slice(&json).unwrap_or_default();
        let verdict = match (
            d["verdict"]["state"].as_str(),
            d["verdict"]["layer"].as_str(),
        ) {
            (Some("blocked"), Some(l)) => format!("blocked at {l}"),
            (Some("warn"), Some(l)) => format!("warning at {l}"),
            (Some(state), _) => state.to_string(),
            _ => "no verdict".to_string(),
        };
        verdicts.entry(verdict).or_default().push(name);
    }
    let mut out = std::io::stdout();
    let _ = writeln!(
        out,
        "\n━━ {} scenarios, one target each, diagnosed by {}:",
        all.len(),
        bin.display()
    );
    for (verdict, names) in &verdicts {
        let _ = writeln!(
            out,
            "  {:<22} {:>3}  {}",
            verdict,
            names.len(),
            names.join(", ")
        );
    }
    let _ = writeln!(
        out,
        "Next: `kubectl layer why <pod>` on your cluster, or `cargo xtask serve` for the page."
    );
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

/// The README with its sample output made again from a real run: the text between
/// `<!-- sample: SCENARIO TARGET -->` and `<!-- /sample -->` is what `kubectl layer why TARGET`
/// prints on that scenario's bundle (the same renderer the CLI calls), so the first thing a
/// reader sees is never stale.
fn readme_with_sample(engine: &layer_core::Engine) -> Result<String, String> {
    const OPEN: &str = "<!-- sample: ";
    const CLOSE: &str = "<!-- /sample -->";
    let path = root().join("README.md");
    let readme = std::fs::read_to_string(&path).map_err(|e| format!("README.md: {e}"))?;
    let start = readme
        .find(OPEN)
        .ok_or("README.md has no `<!-- sample: SCENARIO TARGET -->` marker")?;
    let line_end = start + readme[start..].find('\n').ok_or("README.md: marker line")?;
    let end = readme[line_end..]
        .find(CLOSE)
        .map(|i| line_end + i)
        .ok_or("README.md: `<!-- sample: … -->` is not closed by `<!-- /sample -->`")?;
    let marker = readme[start + OPEN.len()..line_end].trim_end();
    let words: Vec<&str> = marker.trim_end_matches("-->").split_whitespace().collect();
    let [scenario, target, ..] = words[..] else {
        return Err(format!(
            "README.md: `{marker}` should name a scenario and a target"
        ));
    };
    let (_, bundle, _) = scenarios()?
        .into_iter()
        .find(|(dir, _, _)| dir.file_name().is_some_and(|n| n == scenario))
        .ok_or_else(|| format!("README.md: no scenario {scenario}"))?;
    let text = std::fs::read_to_string(&bundle).map_err(|e| e.to_string())?;
    let ix = layer_core::Index::new(layer_core::Bundle::parse(text).map_err(|e| e.to_string())?);
    let spec = layer_core::TargetSpec::parse(target, None);
    let d = layer_core::diagnose(engine, &ix, &spec, &Default::default())
        .map_err(|e| format!("README.md sample: {e}"))?;
    let namespace = d
        .target
        .namespace
        .as_deref()
        .map(|ns| format!(" -n {ns}"))
        .unwrap_or_default();
    let shown_target = target.rsplit('/').next().unwrap_or(target);
    let kind = d.target.kind.to_ascii_lowercase();
    let sample = format!(
        "\n```\n$ kubectl layer why {kind}/{shown_target}{namespace} -f bundle.json\n{}```\n",
        layer_core::render::text(&d, layer_core::render::Style { color: false })
    );
    Ok(format!("{}{sample}{}", &readme[..line_end], &readme[end..]))
}

/// Generated documentation: one page per rule, an index by layer, and the contract's schemas.
fn docs(check: bool) -> Result<(), String> {
    let engine = layer_core::Engine::builtin().map_err(|e| e.to_string())?;
    let mut files: Vec<(PathBuf, String)> = Vec::new();
    // The rule pages in English (docs/rules/) and in Korean (docs/rules/ko/), from the same rules.
    for lang in layer_core::Lang::ALL {
        let engine = engine.in_lang(lang).map_err(|e| e.to_string())?;
        files.extend(rule_pages(&engine, lang));
    }
    files.push((
        root().join("docs/view.md"),
        layer_core::facts::schema::view_doc(),
    ));
    files.push((root().join("README.md"), readme_with_sample(&engine)?));
    for (name, schema) in layer_core::diagnosis::schemas() {
        let mut text = serde_json::to_string_pretty(&schema).map_err(|e| e.to_string())?;
        text.push('\n');
        files.push((root().join("docs/schema").join(name), text));
    }
    // The practice bank: the scenarios' and incidents' diagnoses as questions (the CLI embeds it).
    files.push((
        root().join("rules/practice.json"),
        scenarios::practice::bank()?.to_json(),
    ));
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
    let layer_dirs = layer_core::Layer::ALL.into_iter().flat_map(|layer| {
        ["docs/rules", "docs/rules/ko"].map(|d| root().join(d).join(layer.as_str()))
    });
    for dir in layer_dirs {
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
