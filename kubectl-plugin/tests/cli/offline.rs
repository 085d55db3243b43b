//! Offline: the real `kubectl-layer` on every scenario file, its exit status, its JSON equal to
//! the library's, its errors, colour rules and help.

use super::{bin, run, stderr, stdout};
use std::io::Write;
use std::process::Stdio;

#[test]
fn why_matches_the_library_on_every_scenario() {
    let engine = layer_core::Engine::builtin().unwrap();
    for s in scenarios::all() {
        let path = s.bundle_path.to_string_lossy().to_string();
        let ix = layer_core::Index::new(layer_core::Bundle::parse(s.bundle_text()).unwrap());
        for e in &s.expectations {
            let o = run(&["why", &e.target, "-f", &path, "-o", "json"]);
            assert_eq!(
                o.status.code(),
                Some(e.exit),
                "{} {}: exit\n{}",
                s.name,
                e.target,
                stderr(&o)
            );
            let cli: serde_json::Value = serde_json::from_slice(&o.stdout)
                .unwrap_or_else(|err| panic!("{} {}: JSON: {err}", s.name, e.target));
            let lib = layer_core::diagnose(
                &engine,
                &ix,
                &layer_core::TargetSpec::parse(&e.target, None),
                &Default::default(),
            )
            .unwrap();
            assert_eq!(
                cli,
                serde_json::to_value(&lib).unwrap(),
                "{} {}: CLI and library agree",
                s.name,
                e.target
            );
            // Text and Markdown render without colour when not on a terminal.
            let text = run(&["why", &e.target, "-f", &path]);
            assert!(
                !stdout(&text).contains('\x1b'),
                "no escape codes when piped"
            );
            assert!(
                stdout(&text).contains(&lib.verdict.headline),
                "{}: text shows the headline",
                s.name
            );
            let md = run(&["why", &e.target, "-f", &path, "-o", "markdown"]);
            assert!(stdout(&md).starts_with(&format!(
                "### {}",
                layer_core::render::for_markdown(&lib.verdict.headline)
            )));
        }
    }
}

#[test]
fn standard_input_and_namespace_flags_work() {
    let s = scenarios::all().into_iter().next().expect("a scenario");
    let e = &s.expectations[0];
    let mut parts = e.target.splitn(3, '/');
    let (kind, ns, name) = (
        parts.next().unwrap(),
        parts.next().unwrap(),
        parts.next().unwrap(),
    );
    let mut child = bin()
        .args([
            "why",
            &format!("{kind}/{name}"),
            "-n",
            ns,
            "-f",
            "-",
            "-o",
            "json",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(s.bundle_text().as_bytes())
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(e.exit));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["target"]["name"], name);
}

#[test]
fn errors_have_exit_2_and_say_what_and_where() {
    let dir = std::env::temp_dir().join(format!("kubectl-layer-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.json");
    std::fs::write(&bad, "{\"kind\": \"List\",\n \"items\": [ }").unwrap();
    let o = run(&["why", "x", "-f", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("error[parse]") && stderr(&o).contains("line 2"),
        "{}",
        stderr(&o)
    );

    let s = scenarios::all().into_iter().next().unwrap();
    let path = s.bundle_path.to_string_lossy().to_string();
    let o = run(&["why", "pod/no-such-pod", "-f", &path]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("error[target-not-found]"),
        "{}",
        stderr(&o)
    );

    let o = run(&["why", "x", "-f", dir.join("missing.json").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("missing.json"));

    // A --now that is not a time is a usage error that says so, not a silent "no now".
    for bad_now in ["garbage", "2026-13-45T00:00:00Z"] {
        let o = run(&["why", "x", "-f", &path, "--now", bad_now]);
        assert_eq!(o.status.code(), Some(2), "--now {bad_now}");
        assert!(
            stderr(&o).contains(bad_now) && stderr(&o).contains("RFC 3339"),
            "{}",
            stderr(&o)
        );
    }

    let o = run(&["why", "x", "-f", &path, "--max-input-bytes", "10"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("input-too-large") && stderr(&o).contains("--max-input-bytes"),
        "{}",
        stderr(&o)
    );

    let o = run(&["why"]);
    assert_eq!(o.status.code(), Some(2), "clap usage errors exit 2");
}

#[test]
fn scan_lists_work_and_matches_json() {
    for s in scenarios::all() {
        let path = s.bundle_path.to_string_lossy().to_string();
        let o = run(&["scan", "-f", &path, "-o", "json"]);
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(v["schemaVersion"], "kubectl-layer/v1");
        let blocking = v["diagnoses"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d["verdict"]["state"] == "blocked" || d["verdict"]["state"] == "warn");
        assert_eq!(
            o.status.code(),
            Some(i32::from(blocking)),
            "{}: scan exit",
            s.name
        );
        let text = run(&["scan", "-f", &path]);
        assert_eq!(text.status.code(), o.status.code());
        let one_thread = run(&["scan", "-f", &path, "-o", "json", "--threads", "1"]);
        let three = run(&["scan", "-f", &path, "-o", "json", "-j", "3"]);
        assert_eq!(one_thread.stdout, o.stdout, "{}: -j 1", s.name);
        assert_eq!(three.stdout, o.stdout, "{}: -j 3", s.name);
    }
}

#[test]
fn rules_explain_layers_and_help() {
    let o = run(&["rules"]);
    assert!(o.status.success());
    let listed = stdout(&o).lines().count();
    assert_eq!(listed, layer_core::Engine::builtin().unwrap().rules().len());
    let o = run(&["rules", "-o", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(
        v.as_array()
            .unwrap()
            .iter()
            .all(|r| r["id"].is_string() && r["summary"].is_string())
    );
    let o = run(&["explain", "placement/insufficient-extended-resource"]);
    assert!(
        o.status.success() && stdout(&o).contains("## Fix"),
        "{}",
        stdout(&o)
    );
    assert!(
        stdout(&o).contains("Contribution rules"),
        "explain names where to report and how"
    );
    let o = run(&["explain", "insufficient"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("did you mean"));
    let o = run(&["layers"]);
    for l in [
        "device",
        "admission",
        "grouping",
        "placement",
        "runtime",
        "serving",
    ] {
        assert!(stdout(&o).contains(l));
    }
    let o = run(&["--help"]);
    assert!(stdout(&o).contains("Exit status"));
}

#[test]
fn rbac_is_the_committed_read_only_clusterrole() {
    let o = run(&["rbac"]);
    assert_eq!(o.status.code(), Some(0));
    let committed = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../deploy/clusterrole.yaml"),
    )
    .unwrap();
    assert_eq!(
        stdout(&o),
        committed,
        "deploy/clusterrole.yaml is stale: run `kubectl-layer rbac > deploy/clusterrole.yaml`"
    );
    let verbs: Vec<&str> = committed
        .lines()
        .filter_map(|l| l.trim().strip_prefix("verbs: "))
        .collect();
    assert!(verbs.len() > 40, "one row per kind read");
    for v in verbs {
        for word in v.trim_matches(['[', ']']).split(", ") {
            assert!(
                matches!(word, "\"get\"" | "\"list\""),
                "only reads, got {word}"
            );
        }
    }
    assert!(!committed.contains("\"secrets\""), "Secrets are never read");
}

#[test]
fn completions_cover_every_shell_and_subcommand() {
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let o = run(&["completion", shell]);
        assert_eq!(o.status.code(), Some(0), "{shell}: {}", stderr(&o));
        let text = stdout(&o);
        for sub in [
            "why",
            "scan",
            "bundle",
            "explain",
            "kubeconfig",
            "request-timeout",
        ] {
            assert!(text.contains(sub), "{shell} completion lacks {sub}");
        }
    }
    let o = run(&["completion", "tcsh"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn krew_manifest_installs_the_binary_on_every_platform() {
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../.krew.yaml"),
    )
    .unwrap();
    assert!(text.contains("kind: Plugin") && text.contains("  name: layer\n"));
    for platform in [
        "x86_64-unknown-linux-gnu",
        "aarch64-unknown-linux-gnu",
        "x86_64-apple-darwin",
        "aarch64-apple-darwin",
        "x86_64-pc-windows-msvc",
    ] {
        assert!(text.contains(platform), "no archive for {platform}");
    }
    assert_eq!(text.matches("bin: kubectl-layer").count(), 5);
    // krew links only `bin:`, so the caveats must say how kubectl finds the completion helper.
    assert!(
        text.contains("caveats:")
            && text.contains("store/layer/{{ .TagName }}/kubectl_complete-layer"),
        "the caveats link kubectl_complete-layer"
    );
}

#[test]
fn nesting_depth_is_limited_with_a_flag_that_raises_it() {
    let deep = format!(
        r#"{{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"p","namespace":"n"}},"spec":{{"x":{}1{}}}}}"#,
        "[".repeat(200),
        "]".repeat(200)
    );
    let dir = std::env::temp_dir().join(format!("kubectl-layer-depth-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("deep.json");
    std::fs::write(&file, &deep).unwrap();
    let path = file.to_string_lossy().to_string();
    let o = run(&["why", "p", "-f", &path]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.starts_with("error[input-too-deep]: "), "{err}");
    assert!(
        err.contains("128 levels") && err.contains("--max-depth"),
        "{err}"
    );
    assert!(err.contains(&path), "names the file: {err}");
    let o = run(&["why", "p", "-f", &path, "--max-depth", "300"]);
    assert!(matches!(o.status.code(), Some(0 | 1)), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn why_prints_the_timeline_when_asked_and_markdown_always() {
    let path = scenario_bundle("kueue-admitted-no-gpu-room");
    let why = |extra: &[&str]| {
        let mut args = vec!["why", "job/trainer", "-n", "ml", "-f", &path];
        args.extend_from_slice(extra);
        stdout(&run(&args))
    };
    let plain = why(&[]);
    assert!(!plain.contains("Timeline:"), "{plain}");
    let with = why(&["--timeline"]);
    let at = with.find("\nTimeline:\n").expect("a Timeline section");
    let lines: Vec<&str> = with[at..].lines().skip(2).collect();
    assert!(
        lines
            .iter()
            .any(|l| l.contains("2026-11-20T09:52:41.814917Z")
                && l.contains("placement")
                && l.contains("Pod ml/trainer-7mzq4")
                && l.contains("FailedScheduling")
                && l.ends_with("(last of 4)")),
        "{with}"
    );
    // Oldest first: the times never go back.
    let times: Vec<&str> = lines
        .iter()
        .filter_map(|l| l.split_whitespace().next())
        .map(|t| &t[..19])
        .collect();
    assert!(times.windows(2).all(|w| w[0] <= w[1]), "{times:?}");
    let md = why(&["-o", "markdown"]);
    assert!(md.contains("\n#### Timeline\n"), "{md}");
    assert!(
        md.contains(
            "| `2026-11-20T09:38:10Z` | admission | Workload ml/job-trainer-7c9d2 | Admitted=True"
        ),
        "{md}"
    );
}

/// The bundle file of the scenario `name`.
fn scenario_bundle(name: &str) -> String {
    scenarios::all()
        .into_iter()
        .find(|s| s.name == name)
        .unwrap_or_else(|| panic!("no scenario {name}"))
        .bundle_path
        .to_string_lossy()
        .to_string()
}

/// SECURITY.md says only what tests prove and names them: every test it names exists, so a
/// renamed or deleted test cannot leave a claim standing on nothing.
#[test]
fn security_md_names_only_tests_that_exist() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let text = std::fs::read_to_string(root.join("SECURITY.md")).unwrap();
    let named: Vec<&str> = text
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|w| {
            w.matches('_').count() >= 3
                && w.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == ':')
        })
        .map(|w| w.rsplit("::").next().unwrap_or(w))
        .collect();
    assert!(named.len() >= 10, "the tests SECURITY.md names: {named:?}");
    let mut sources = String::new();
    let mut dirs = vec![root.clone()];
    while let Some(dir) = dirs.pop() {
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            let p = e.path();
            let name = e.file_name().to_string_lossy().to_string();
            if p.is_dir() && !name.starts_with('.') && name != "target" && name != "node_modules" {
                dirs.push(p);
            } else if name.ends_with(".rs") {
                sources.push_str(&std::fs::read_to_string(&p).unwrap_or_default());
            }
        }
    }
    let absent: Vec<&&str> = named
        .iter()
        .filter(|n| !sources.contains(&format!("fn {n}(")))
        .collect();
    assert!(
        absent.is_empty(),
        "SECURITY.md names tests that do not exist: {absent:?}"
    );
}

/// `version`: the package version, the commit git names for this checkout (or `unknown`
/// outside one) and the built-in rule count, as three lines.
#[test]
fn version_names_the_version_the_commit_and_the_rule_count() {
    let o = run(&["version"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let rules = layer_core::Engine::builtin().unwrap().rules().len();
    let commit = std::process::Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()
        .filter(|g| g.status.success())
        .map_or("unknown".to_string(), |g| {
            String::from_utf8_lossy(&g.stdout).trim().to_string()
        });
    assert_eq!(
        stdout(&o),
        format!(
            "kubectl-layer {}\ncommit  {commit}\nrules   {rules}\n",
            env!("CARGO_PKG_VERSION")
        )
    );
    assert!(rules > 100, "the built-in rules, not a subset: {rules}");
}
