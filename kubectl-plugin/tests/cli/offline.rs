//! The CLI's one integration-test binary: the real `kubectl-layer` on every scenario, its exit
//! status, its JSON equal to the library's, its errors, colour rules and help.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_kubectl-layer"));
    c.env_remove("NO_COLOR");
    c
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().expect("runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).to_string()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

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
            assert!(stdout(&md).starts_with(&format!("### {}", lib.verdict.headline)));
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
