//! kubectl's and ripgrep's conventions, as a new user meets them: every output format where a
//! report is printed, filters where a list is long, and errors that end in something to paste.

use super::{run, stderr, stdout};

fn scenario_path(name: &str) -> String {
    scenarios::all()
        .into_iter()
        .find(|s| s.name == name)
        .unwrap_or_else(|| panic!("no scenario {name}"))
        .bundle_path
        .to_string_lossy()
        .to_string()
}

/// The commands an error suggests (its indented `kubectl layer …` lines), as argument lists.
fn suggested(stderr: &str) -> Vec<Vec<String>> {
    stderr
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("kubectl layer "))
        .map(|c| c.split(' ').map(str::to_string).collect())
        .collect()
}

#[test]
fn scan_prints_markdown_with_a_row_per_piece_of_work() {
    let path = scenario_path("kueue-admitted-no-gpu-room");
    let json = run(&["scan", "-f", &path, "-o", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let md = run(&["scan", "-f", &path, "-o", "markdown", "--all"]);
    assert_eq!(md.status.code(), json.status.code());
    let text = stdout(&md);
    assert!(text.starts_with("### "), "{text}");
    // By default a row per cause, counting the work the JSON lists.
    let grouped = stdout(&run(&["scan", "-f", &path, "-o", "markdown"]));
    let counted: usize = grouped
        .lines()
        .filter_map(|l| {
            l.strip_prefix("| ")?
                .split(' ')
                .next()?
                .parse::<usize>()
                .ok()
        })
        .sum();
    assert_eq!(
        counted,
        v["diagnoses"].as_array().unwrap().len(),
        "{grouped}"
    );
    assert_eq!(
        v["groups"].as_array().unwrap().len(),
        grouped
            .lines()
            .filter(|l| l.starts_with("| ") && !l.starts_with("| work"))
            .count()
    );
    for d in v["diagnoses"].as_array().unwrap() {
        let name = d["target"]["name"].as_str().unwrap();
        assert!(
            text.lines()
                .any(|l| l.starts_with("| `") && l.contains(name)),
            "no row for {name}:\n{text}"
        );
    }
}

#[test]
fn rules_filter_by_layer_and_refuse_an_unknown_one() {
    let all = layer_core::Engine::builtin().unwrap();
    for layer in layer_core::Layer::ALL {
        let o = run(&["rules", "--layer", layer.as_str()]);
        assert!(o.status.success(), "{}", stderr(&o));
        let lines: Vec<String> = stdout(&o).lines().map(str::to_string).collect();
        let want = all.rules().iter().filter(|r| r.layer == layer).count();
        assert_eq!(lines.len(), want, "{layer}");
        assert!(
            lines
                .iter()
                .all(|l| l.starts_with(&format!("{}/", layer.as_str()))),
            "{layer}: {lines:?}"
        );
    }
    let o = run(&["rules", "-l", "placment"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("placement"), "{}", stderr(&o));
}

#[test]
fn a_mistyped_kind_or_name_ends_in_a_command_that_works() {
    let path = scenario_path("kueue-admitted-no-gpu-room");
    let o = run(&["why", "jb/trainer", "-n", "ml", "-f", &path]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("did you mean `job`"), "{}", stderr(&o));

    // A bare name is a pod; the Job of that name is what was meant, and the suggestion runs.
    let o = run(&["why", "trainer", "-f", &path]);
    assert_eq!(o.status.code(), Some(2));
    let tries = suggested(&stderr(&o));
    assert!(!tries.is_empty(), "no command to paste:\n{}", stderr(&o));
    assert_eq!(tries[0][..2], ["why", "job/trainer"], "{}", stderr(&o));
    for t in &tries {
        let args: Vec<&str> = t.iter().map(String::as_str).collect();
        let again = run(&args);
        assert!(
            matches!(again.status.code(), Some(0 | 1)),
            "{t:?}: {}",
            stderr(&again)
        );
    }

    let o = run(&["explain", "insufficient"]);
    assert_eq!(o.status.code(), Some(2));
    let tries = suggested(&stderr(&o));
    assert!(!tries.is_empty(), "{}", stderr(&o));
    let args: Vec<&str> = tries[0].iter().map(String::as_str).collect();
    assert!(run(&args).status.success(), "{args:?}");
}

#[test]
fn a_missing_file_and_an_impossible_depth_are_errors_that_say_so() {
    let o = run(&["why", "x", "-f", "no-such-bundle.json"]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(e.contains("error[io]: no-such-bundle.json: "), "{e}");
    let path = scenario_path("healthy-gpu-job");
    let o = run(&["why", "x", "-f", &path, "--max-depth", "100000"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("1 to 512"), "{}", stderr(&o));
}

/// One list of the kinds to collect by hand: `why --help`, the README and the web page quote
/// the core's.
#[test]
fn the_kinds_to_collect_are_one_list() {
    let line = format!("kubectl get {} -A -o json", layer_core::bundle::GET_KINDS);
    let help = stdout(&run(&["why", "--help"]));
    assert!(help.contains(&line), "why --help:\n{help}");
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for file in ["README.md", "web-demo/src/index.html"] {
        let text = std::fs::read_to_string(root.join(file)).unwrap();
        assert!(text.contains(&line), "{file} does not say `{line}`");
        for other in text.match_indices("kubectl get pods,") {
            let rest = &text[other.0..];
            assert!(
                rest.starts_with(&line),
                "{file} lists other kinds: {}",
                &rest[..80.min(rest.len())]
            );
        }
    }
}

/// Standard input has no size to check first: an endless stream is refused at the limit, not
/// read into memory until the machine gives out.
#[test]
fn an_endless_standard_input_is_refused_at_the_limit() {
    use std::io::Write;
    let mut child = super::bin()
        .args(["why", "p", "-f", "-", "--max-input-bytes", "1000000"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("runs");
    let mut stdin = child.stdin.take().expect("stdin");
    // Writes until the tool stops reading (a broken pipe), at most 64 MB.
    let writer = std::thread::spawn(move || {
        let line = b"{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"}}\n";
        let mut written = 0usize;
        while written < 64 << 20 && stdin.write_all(line).is_ok() {
            written += line.len();
        }
        written
    });
    let out = child.wait_with_output().expect("exits");
    let written = writer.join().expect("writer");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let e = stderr(&out);
    assert!(
        e.contains("input-too-large") && e.contains("standard input"),
        "{e}"
    );
    assert!(
        written < 64 << 20,
        "the tool read the whole stream ({written} bytes)"
    );
}

/// A special file has no size to check first (`/dev/zero` says 0 bytes): it is read up to the
/// limit and refused there, not until memory runs out.
#[cfg(unix)]
#[test]
fn a_special_file_is_read_only_up_to_the_limit() {
    let o = run(&[
        "why",
        "p",
        "-f",
        "/dev/zero",
        "--max-input-bytes",
        "1000000",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(
        e.contains("input-too-large") && e.contains("/dev/zero"),
        "{e}"
    );
}

/// `bundle -f` redacts a dump the user already has, as the live `bundle` does, and a named
/// target must be in it.
#[test]
fn bundle_redacts_a_file_the_user_already_has() {
    let dir = std::env::temp_dir().join(format!("kl-bundle-f-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let dump = dir.join("dump.json");
    std::fs::write(
        &dump,
        r#"{"apiVersion":"v1","kind":"List","items":[
        {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"ml",
          "annotations":{"evilnvidia.com/token":"hunter2-annotation","nvidia.com/gpu.product":"A100"}},
         "spec":{"containers":[{"name":"c","image":"i","env":[{"name":"HF_TOKEN","value":"hunter2-env"}]}]}},
        {"apiVersion":"v1","kind":"Secret","metadata":{"name":"s","namespace":"ml"},"data":{"token":"aHVudGVyMg=="}}]}"#,
    )
    .unwrap();
    let path = dump.to_str().unwrap();
    let o = run(&["bundle", "-f", path]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    for secret in ["hunter2-annotation", "hunter2-env", "aHVudGVyMg=="] {
        assert!(!text.contains(secret), "{secret} survived:\n{text}");
    }
    assert!(
        text.contains("HF_TOKEN") && text.contains("A100"),
        "names and rule-read values stay:\n{text}"
    );
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["kubectlLayer"]["redacted"], true);
    // What it wrote reads back as a bundle.
    let back = dir.join("back.json");
    std::fs::write(&back, &text).unwrap();
    let o = run(&["why", "pod/p", "-n", "ml", "-f", back.to_str().unwrap()]);
    assert!(matches!(o.status.code(), Some(0 | 1)), "{}", stderr(&o));
    let o = run(&["bundle", "pod/nope", "-f", path]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("not in the bundle"), "{}", stderr(&o));
}

#[test]
fn an_empty_kubectl_layer_lang_is_the_default_language() {
    let with_empty = |args: &[&str]| {
        super::bin()
            .env("KUBECTL_LAYER_LANG", "")
            .args(args)
            .output()
            .expect("runs")
    };
    // The completion script sourced from a shell's rc file, and a command, as without it.
    for args in [
        &["completion", "bash"][..],
        &["rules", "--layer", "runtime"][..],
    ] {
        let o = with_empty(args);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
        assert_eq!(stdout(&o), stdout(&run(args)), "{args:?}");
    }
    // A language it has no texts for is still an error that names the ones it has.
    let o = super::bin()
        .env("KUBECTL_LAYER_LANG", "fr")
        .args(["rules"])
        .output()
        .expect("runs");
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("en and ko"), "{}", stderr(&o));
}

#[test]
fn two_objects_of_one_kind_and_name_in_two_api_groups_are_told_apart() {
    let meta = serde_json::json!({"name": "train", "namespace": "ml", "uid": "u-k",
                                  "creationTimestamp": "2026-01-01T00:00:00Z"});
    let mut gang = meta.clone();
    gang["uid"] = "u-s".into();
    let bundle = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": [
        {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "Workload", "metadata": meta,
         "spec": {"queueName": "q", "podSets": []}},
        {"apiVersion": "scheduling.k8s.io/v1alpha1", "kind": "Workload", "metadata": gang,
         "spec": {}}]});
    let dir = super::TempDir::new("two-groups");
    let file = dir.0.join("b.json");
    std::fs::write(&file, bundle.to_string()).unwrap();
    let path = file.to_str().unwrap();
    let o = run(&["why", "workload/train", "-n", "ml", "-f", path]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    for c in [
        "Workload.kueue.x-k8s.io/ml/train",
        "Workload.scheduling.k8s.io/ml/train",
    ] {
        assert!(err.contains(c), "{c}: {err}");
        // Each candidate is a target that names one object.
        let again = run(&["why", c, "-f", path, "-o", "json"]);
        assert!(
            matches!(again.status.code(), Some(0 | 1)),
            "{c}: {}",
            stderr(&again)
        );
        let d: serde_json::Value = serde_json::from_slice(&again.stdout).unwrap();
        let group = c.split_once('.').unwrap().1.split_once('/').unwrap().0;
        assert!(
            d["target"]["apiVersion"]
                .as_str()
                .unwrap()
                .starts_with(group),
            "{d}"
        );
    }
    // In Prometheus, the group is a label of the work's series.
    let prom = stdout(&run(&["scan", "-f", path, "-o", "prometheus"]));
    assert!(
        prom.lines().any(|l| l.starts_with("kubectl_layer_blocked{")
            && l.contains(r#"kind="Workload",group="kueue.x-k8s.io",namespace="ml",name="train""#)),
        "{prom}"
    );
}
