//! `kubectl layer fit`: the real binary on every fit case and on every scenario's work taken
//! out of its bundle, against the library; its exit status (0 only when all would run now),
//! standard input, errors, help; and live, against the in-process API server.

use super::live::{objects, serve};
use super::{TempDir, bin, run, stderr, stdout};
use layer_core::fit::{FitOptions, fit};
use serde_json::Value;
use std::io::Write;
use std::process::Stdio;

fn library(cluster: &str, manifest: &str, opts: &FitOptions) -> Vec<layer_core::Diagnosis> {
    let engine = layer_core::Engine::builtin().unwrap();
    let parse = |t: &str| layer_core::Bundle::parse(t).unwrap();
    fit(&engine, parse(cluster), &parse(manifest), opts).unwrap()
}

fn path(p: &std::path::Path) -> String {
    p.to_string_lossy().to_string()
}

#[test]
fn fit_matches_the_library_on_every_fit_case() {
    for c in scenarios::fits::all() {
        let (cluster, manifest) = (path(&c.cluster_path), path(&c.manifest_path));
        let o = run(&["fit", &manifest, "-f", &cluster, "-o", "json"]);
        let lib = library(
            &c.cluster_text(),
            &c.manifest_text(),
            &FitOptions::default(),
        );
        let runs = lib
            .iter()
            .all(|d| d.verdict.state == layer_core::LayerState::Ok);
        assert_eq!(
            o.status.code(),
            Some(if runs { 0 } else { 1 }),
            "{}: {}",
            c.name,
            stderr(&o)
        );
        let cli: Value =
            serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{}: {e}", c.name));
        assert_eq!(
            cli,
            serde_json::to_value(&lib).unwrap(),
            "{}: CLI and library agree",
            c.name
        );
        assert_eq!(
            cli.as_array().map(Vec::len),
            Some(c.expectations.len()),
            "{}: one per work",
            c.name
        );
        let text = stdout(&run(&["fit", &manifest, "-f", &cluster]));
        for d in &lib {
            assert!(
                text.contains(&d.verdict.headline),
                "{}: text shows the headline",
                c.name
            );
            assert!(text.contains(", not submitted: "), "{}: {text}", c.name);
            if let Some(words) = layer_core::render::outlook_words(d) {
                assert!(text.contains(words), "{}: text says the outlook", c.name);
            }
        }
        let md = stdout(&run(&["fit", &manifest, "-f", &cluster, "-o", "markdown"]));
        assert!(md.starts_with("### "), "{}", c.name);
    }
}

#[test]
fn every_scenarios_work_fitted_back_is_the_same_from_the_cli() {
    let dir = TempDir::new("fit-roundtrip");
    let mut healthy = 0;
    for s in scenarios::all() {
        let ix = layer_core::Index::new(layer_core::Bundle::parse(s.bundle_text()).unwrap());
        let mut done = Vec::new();
        for e in &s.expectations {
            let id =
                layer_core::target::resolve(&ix, &layer_core::TargetSpec::parse(&e.target, None))
                    .unwrap();
            let work = ix.owner_chain(id).last().copied().unwrap_or(id);
            if done.contains(&work) {
                continue;
            }
            done.push(work);
            let manifest = serde_json::to_string(&ix.value(work)).unwrap();
            let file = dir.0.join(format!("{}-{work}.json", s.name));
            std::fs::write(&file, &manifest).unwrap();
            let o = run(&[
                "fit",
                &path(&file),
                "-f",
                &path(&s.bundle_path),
                "-o",
                "json",
            ]);
            let engine = layer_core::Engine::builtin().unwrap();
            let parse = |t: &str| layer_core::Bundle::parse(t).unwrap();
            match fit(
                &engine,
                parse(&s.bundle_text()),
                &parse(&manifest),
                &FitOptions::default(),
            ) {
                Ok(lib) => {
                    let cli: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|err| {
                        panic!("{} {}: {err}: {}", s.name, e.target, stderr(&o))
                    });
                    assert_eq!(
                        cli,
                        serde_json::to_value(&lib).unwrap(),
                        "{} {}",
                        s.name,
                        e.target
                    );
                    if s.name == "healthy-gpu-job" {
                        assert_eq!(o.status.code(), Some(0), "the healthy work would run now");
                        healthy += 1;
                    }
                }
                Err(err) => {
                    assert_eq!(
                        o.status.code(),
                        Some(2),
                        "{} {}: refused: {err}",
                        s.name,
                        e.target
                    );
                    assert!(stderr(&o).contains("error[manifest]"), "{}", stderr(&o));
                }
            }
        }
    }
    assert_eq!(healthy, 1);
}

#[test]
fn the_manifest_comes_from_a_file_or_standard_input_but_not_both_with_the_bundle() {
    let c = scenarios::fits::get("job-fits-now").unwrap();
    let cluster = path(&c.cluster_path);
    let mut child = bin()
        .args(["fit", "-", "-f", &cluster, "-o", "json"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(c.manifest_text().as_bytes())
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let from_file = run(&["fit", &path(&c.manifest_path), "-f", &cluster, "-o", "json"]);
    assert_eq!(o.stdout, from_file.stdout);
    let both = run(&["fit", "-", "-f", "-"]);
    assert_eq!(both.status.code(), Some(2));
    assert!(
        stderr(&both).contains("cannot both be standard input"),
        "{}",
        stderr(&both)
    );
}

#[test]
fn bad_manifests_are_exit_2_with_what_and_where() {
    let c = scenarios::fits::get("job-fits-now").unwrap();
    let cluster = path(&c.cluster_path);
    let dir = TempDir::new("fit-bad");
    let write = |name: &str, text: &str| {
        let p = dir.0.join(name);
        std::fs::write(&p, text).unwrap();
        path(&p)
    };
    let cases = [
        (
            write(
                "cm.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: ml}\n",
            ),
            "error[manifest]",
            "holds no Pod, Job",
        ),
        (write("broken.yaml", "kind: [\n"), "error[parse]", "YAML"),
        (path(&dir.0.join("absent.yaml")), "error[io]", "absent.yaml"),
        // What the API server would refuse is refused with its field and reason.
        (
            write(
                "half-a-gpu.yaml",
                "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ml}\nspec:\n  containers:\n  - name: c\n    resources: {limits: {nvidia.com/gpu: \"0.5\"}}\n",
            ),
            "error[manifest]",
            "the API server would refuse Pod ml/p: spec.containers[0].resources.limits[nvidia.com/gpu]: Invalid value: \"0.5\": must be an integer",
        ),
        (
            write(
                "no-limit.yaml",
                "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ml}\nspec:\n  containers:\n  - name: c\n    resources: {requests: {nvidia.com/gpu: 1}}\n",
            ),
            "error[manifest]",
            "limits[nvidia.com/gpu]: Required value: Limit must be set",
        ),
    ];
    for (manifest, code, words) in cases {
        let o = run(&["fit", &manifest, "-f", &cluster]);
        assert_eq!(o.status.code(), Some(2), "{manifest}: {}", stderr(&o));
        assert!(
            stderr(&o).contains(code) && stderr(&o).contains(words),
            "{manifest}: {}",
            stderr(&o)
        );
    }
    let o = run(&[
        "fit",
        &path(&c.manifest_path),
        "-f",
        &cluster,
        "-n",
        "other",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("names namespace `ml`, but -n names `other`"),
        "{}",
        stderr(&o)
    );
    let o = run(&["fit"]);
    assert_eq!(o.status.code(), Some(2), "a manifest is required");
}

#[test]
fn fit_help_says_what_it_does_its_exit_codes_and_examples() {
    let h = stdout(&run(&["fit", "--help"]));
    for words in [
        "NotSubmitted",
        "0  every piece of work would run now",
        "1  some piece of work would wait",
        "2  bad usage",
        "kubectl layer fit train.yaml -f bundle.json",
        "-n, --namespace",
        "[possible values: text, json, markdown]",
        "scheduler scores",
    ] {
        assert!(h.contains(words), "fit --help lacks {words:?}:\n{h}");
    }
    let top = stdout(&run(&["--help"]));
    assert!(top.contains("fit "), "{top}");
}

#[test]
fn fit_reads_the_live_cluster_as_it_reads_the_file() {
    for name in [
        "job-fits-now",
        "job-waits-for-quota",
        "pod-larger-than-any-node",
        "lws-never-whole",
    ] {
        let c = scenarios::fits::get(name).unwrap();
        let off = run(&[
            "fit",
            &path(&c.manifest_path),
            "-f",
            &path(&c.cluster_path),
            "--now",
            "2026-11-20T10:00:00Z",
            "-o",
            "json",
        ]);
        let cluster = serve(
            objects(&c.cluster_text()),
            apiserver::Options::default(),
            "ml",
        );
        let live = cluster.run(&[
            "fit",
            &path(&c.manifest_path),
            "--now",
            "2026-11-20T10:00:00Z",
            "-o",
            "json",
        ]);
        assert_eq!(
            live.status.code(),
            off.status.code(),
            "{name}: {}",
            stderr(&live)
        );
        let (l, o): (Value, Value) = (
            serde_json::from_slice(&live.stdout).unwrap(),
            serde_json::from_slice(&off.stdout).unwrap(),
        );
        for field in ["verdict", "findings", "target", "layers"] {
            assert_eq!(l[0][field], o[0][field], "{name}: {field} live and offline");
        }
    }
}
