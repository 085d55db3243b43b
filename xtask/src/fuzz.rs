//! `cargo xtask fuzz [--seconds N] [TARGET...]`: run the cargo-fuzz targets of `fuzz/` for a
//! bounded time each, seeded with every scenario bundle, every real incident and the inputs
//! that found bugs (a byte-order mark, control characters).
//!
//! cargo-fuzz needs nightly compiler flags (the sanitizer and coverage instrumentation); the
//! machines have only the stable toolchain, which accepts them under `RUSTC_BOOTSTRAP=1`. That
//! variable is set for the fuzz build alone, never for the normal build. `fuzz/` is its own
//! workspace for the same reason. The corpus (`fuzz/corpus/<target>/`) is made at run time and
//! not committed: each run copies the scenario bundles in, whole and one object per file, and
//! keeps what libFuzzer added from earlier runs. A crash leaves its input in
//! `fuzz/artifacts/<target>/`, and the task fails naming it.

use crate::{cargo, root, run};
use std::path::Path;

/// The targets, in the order they run.
pub const TARGETS: &[&str] = &["bundle", "diagnose"];

/// The cargo-fuzz that `ensure_tools` installs when missing.
pub const CARGO_FUZZ_VERSION: &str = "0.13.2";

/// Seconds per target when `--seconds` is not given.
pub const DEFAULT_SECONDS: u64 = 60;

/// Whether `cargo fuzz` is installed.
pub fn installed() -> bool {
    cargo()
        .args(["fuzz", "--version"])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Install cargo-fuzz if it is missing (about 30 s, from crates.io like every other tool here).
pub fn ensure() -> Result<(), String> {
    if installed() {
        return Ok(());
    }
    run(cargo().args([
        "install",
        "cargo-fuzz",
        "--version",
        &format!("={CARGO_FUZZ_VERSION}"),
    ]))
}

/// Parse `--seconds N` and target names from the task's arguments.
pub fn from_args(args: &[String]) -> Result<(), String> {
    let mut seconds = DEFAULT_SECONDS;
    let mut targets: Vec<&str> = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--seconds" => {
                let v = it.next().ok_or("--seconds needs a number")?;
                seconds = v
                    .parse()
                    .map_err(|_| format!("--seconds: `{v}` is not a whole number"))?;
            }
            t if TARGETS.contains(&t) => targets.push(t),
            other => {
                return Err(format!(
                    "fuzz: unknown argument `{other}` (targets: {})",
                    TARGETS.join(", ")
                ));
            }
        }
    }
    if targets.is_empty() {
        targets = TARGETS.to_vec();
    }
    fuzz(&targets, seconds)
}

/// Run each target for `seconds`: RSS capped at 2 GiB, one input allowed 20 s (a hang is a
/// finding too).
pub fn fuzz(targets: &[&str], seconds: u64) -> Result<(), String> {
    ensure()?;
    let seeds = seeds()?;
    for target in targets {
        let corpus = root().join("fuzz/corpus").join(target);
        std::fs::create_dir_all(&corpus).map_err(|e| format!("{}: {e}", corpus.display()))?;
        for (name, text) in &seeds {
            let path = corpus.join(name);
            std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
        }
        let artifacts = root().join("fuzz/artifacts").join(target);
        std::fs::create_dir_all(&artifacts).map_err(|e| format!("{}: {e}", artifacts.display()))?;
        let before = listing(&artifacts);
        let result = run(cargo()
            .env("RUSTC_BOOTSTRAP", "1")
            .args(["fuzz", "run", target])
            .arg(&corpus)
            .args([
                "--",
                &format!("-max_total_time={seconds}"),
                "-rss_limit_mb=2048",
                "-timeout=20",
                // Scenario bundles reach 650 KB; let mutations work on inputs that size.
                "-max_len=1048576",
                "-print_final_stats=1",
            ]));
        let found: Vec<String> = listing(&artifacts)
            .into_iter()
            .filter(|a| !before.contains(a))
            .collect();
        if result.is_err() || !found.is_empty() {
            return Err(format!(
                "fuzz target `{target}` found a failure; reproduce with \
                 `RUSTC_BOOTSTRAP=1 cargo fuzz run {target} <input>`:\n  {}",
                if found.is_empty() {
                    result.err().unwrap_or_default()
                } else {
                    found.join("\n  ")
                }
            ));
        }
    }
    Ok(())
}

fn listing(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path().display().to_string())
        .collect()
}

/// (file name, text): every scenario bundle whole, and each of its objects alone (small inputs
/// mutate fast and still carry real shapes), the incidents, and the describe output of
/// `tests/describe` (which the bundle target reads through the describe reader).
fn seeds() -> Result<Vec<(String, String)>, String> {
    let mut out = Vec::new();
    for (dir, bundle, _) in crate::scenarios()? {
        let name = dir
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        let text =
            std::fs::read_to_string(&bundle).map_err(|e| format!("{}: {e}", bundle.display()))?;
        let ext = bundle
            .extension()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        out.push((format!("scenario-{name}.{ext}"), text.clone()));
        let parsed =
            layer_core::Bundle::parse(text).map_err(|e| format!("{}: {e}", bundle.display()))?;
        for (i, o) in parsed.objects().iter().enumerate() {
            out.push((format!("object-{name}-{i}.json"), parsed.raw(o).to_string()));
        }
    }
    // The real incidents: partial, hand-trimmed, CRLF, the shapes people actually paste.
    let incidents = root().join("tests/incidents");
    let mut dirs: Vec<_> = std::fs::read_dir(&incidents)
        .map_err(|e| format!("{}: {e}", incidents.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    for dir in dirs {
        for file in ["bundle.json", "bundle.yaml"] {
            let path = dir.join(file);
            if let Ok(text) = std::fs::read_to_string(&path) {
                let name = dir.file_name().unwrap_or_default().to_string_lossy();
                out.push((format!("incident-{name}-{file}"), text));
            }
        }
    }
    // `kubectl describe` output as the lab's kubectl printed it (tests/describe).
    for group in ["scenarios", "incidents"] {
        let dir = root().join("tests/describe").join(group);
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut cases: Vec<_> = entries.flatten().map(|e| e.path()).collect();
        cases.sort();
        for case in cases {
            if let Ok(text) = std::fs::read_to_string(case.join("describe.txt")) {
                let name = case.file_name().unwrap_or_default().to_string_lossy();
                out.push((format!("describe-{group}-{name}.txt"), text));
            }
        }
    }
    // Inputs that found bugs: a byte-order mark before JSON and YAML, and control and bidi
    // characters in the text a renderer prints (more below).
    if let Some((_, first)) = out.first().cloned() {
        out.push(("bom.json".into(), format!("\u{feff}{first}")));
    }
    out.push((
        "bom.yaml".into(),
        "\u{feff}apiVersion: v1\r\nkind: Pod\r\nmetadata:\r\n  name: p\r\n  namespace: ml\r\n"
            .into(),
    ));
    out.push((
        "controls.json".into(),
        r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p\u001b]0;x\u0007","namespace":"ml"},"status":{"phase":"Pending","message":"\u001b[2J\r\u202e\n# h\n| a |","reason":"\u009b"}}"#
            .into(),
    ));
    // Numbers no f64 holds (whose object once became null), broken `\u` escapes, a request
    // that is no quantity, a name kubectl would take for a flag, and nested YAML aliases.
    out.push((
        "huge-number.json".into(),
        r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"ml"},"spec":{"containers":[{"name":"c","resources":{"limits":{"nvidia.com/gpu":1e400,"memory":"lots"}}}]},"status":{"phase":"Pending"}}"#
            .into(),
    ));
    out.push((
        "surrogates.json".into(),
        r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p\ud800\udc00\udc00","namespace":"ml"}}"#.into(),
    ));
    out.push((
        "flag-name.json".into(),
        r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"--kubeconfig=x","namespace":"-n"},"status":{"phase":"Pending"}}"#.into(),
    ));
    let mut aliases = String::from("a0: &a0 [x, x, x, x]\n");
    for i in 1..6 {
        aliases.push_str(&format!(
            "a{i}: &a{i} [*a{0}, *a{0}, *a{0}, *a{0}]\n",
            i - 1
        ));
    }
    aliases.push_str("kind: Pod\napiVersion: v1\nmetadata: {name: p}\nspec: {x: *a5}\n");
    out.push(("aliases.yaml".into(), aliases));
    out.extend(hostile_seeds());
    Ok(out)
}

/// The second round of hostile inputs (issue 15), each a shape that once cost too much or
/// read wrong: quantities past 64 bits and past f64 (as strings, JSON numbers, YAML
/// integers), a duplicate `status` key, a `!!python` tag and an unquoted numeric label, a
/// 100 KB anchor named 2,000 times, a 200 KB pod name, 5,000 controller ownerReferences,
/// and Jobs owning each other in a cycle above a Pending pod.
fn hostile_seeds() -> Vec<(String, String)> {
    let pending = r#""status":{"phase":"Pending","conditions":[{"type":"PodScheduled","status":"False","reason":"Unschedulable","message":"0/1 nodes are available: 1 Insufficient nvidia.com/gpu."}]}"#;
    let pod = |name: &str, meta: &str, limit: &str| {
        format!(
            r#"{{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"{name}","namespace":"ml"{meta}}},"spec":{{"containers":[{{"name":"c","resources":{{"limits":{{"nvidia.com/gpu":{limit}}}}}}}]}},{pending}}}"#
        )
    };
    let list = |items: &[String]| {
        format!(
            r#"{{"apiVersion":"v1","kind":"List","items":[{}]}}"#,
            items.join(",")
        )
    };
    let mut out = vec![
        (
            "overflow-quantities.json".to_string(),
            list(&[
                pod("a", "", r#""99999999999999999999999999""#),
                pod("b", "", "99999999999999999999999999"),
                pod("c", "", "1e999"),
            ]),
        ),
        (
            "duplicate-status.json".to_string(),
            pod("p", "", "1").replacen(r#""status":{"phase":"Pending""#, r#""status":{"phase":"Running"},"status":{"phase":"Pending""#, 1),
        ),
        (
            "yaml-tags-and-numbers.yaml".to_string(),
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  namespace: ml\n  labels: {version: 2, x: !!python/object:os.system ls}\nspec:\n  containers:\n  - name: c\n    resources: {limits: {nvidia.com/gpu: 99999999999999999999999}}\nstatus: {phase: Pending}\n".to_string(),
        ),
    ];
    let anchored = format!("[{}]", vec!["x".repeat(1000); 100].join(", "));
    out.push((
        "anchor-named-often.yaml".into(),
        format!(
            "apiVersion: v1\nkind: Pod\nmetadata: {{name: p, namespace: ml}}\nspec:\n  a: &a {anchored}\n  b: [{}]\n",
            vec!["*a"; 2_000].join(", ")
        ),
    ));
    out.push((
        "long-name.json".into(),
        list(&[pod(&"x".repeat(200_000), "", "1")]),
    ));
    let owners: Vec<String> = (0..5_000)
        .map(|i| format!(r#"{{"apiVersion":"batch/v1","kind":"Job","name":"j{i}","uid":"u{i}","controller":true}}"#))
        .collect();
    let refs = format!(r#","ownerReferences":[{}]"#, owners.join(","));
    out.push(("many-owners.json".into(), list(&[pod("x", &refs, "1")])));
    let job = |name: &str, owner: &str| {
        format!(
            r#"{{"apiVersion":"batch/v1","kind":"Job","metadata":{{"name":"{name}","namespace":"ml","uid":"u-{name}","ownerReferences":[{{"apiVersion":"batch/v1","kind":"Job","name":"{owner}","uid":"u-{owner}","controller":true}}]}},"status":{{"active":1}}}}"#
        )
    };
    let owned = r#","ownerReferences":[{"apiVersion":"batch/v1","kind":"Job","name":"b","uid":"u-b","controller":true}]"#;
    out.push((
        "owner-cycle.json".into(),
        list(&[job("a", "b"), job("b", "a"), pod("p", owned, "1")]),
    ));
    out
}

/// For `cargo xtask ci`: both targets, a bounded time each, with a line saying what it costs.
pub fn ci(seconds: u64) -> Result<(), String> {
    eprintln!(
        "==> fuzz: {} targets, {seconds} s each (cargo xtask fuzz --seconds N for longer)",
        TARGETS.len()
    );
    fuzz(TARGETS, seconds)
}

#[cfg(test)]
mod tests {
    use super::hostile_seeds;
    use layer_core::Bundle;

    /// Each hostile seed is the shape its name says: the anchored YAML is refused for its
    /// growth, the rest read, so the fuzzers start from the inputs that found the bugs.
    #[test]
    fn hostile_seeds_are_the_inputs_they_name() {
        let seeds = hostile_seeds();
        assert_eq!(seeds.len(), 7);
        for (name, text) in seeds {
            assert!(text.len() < 1 << 20, "{name} is past the fuzzers' -max_len");
            match (name.as_str(), Bundle::parse(text.clone())) {
                ("anchor-named-often.yaml", Err(e)) => assert_eq!(e.code(), "input-too-large"),
                ("duplicate-status.json", Ok(_)) => {
                    assert_eq!(text.matches(r#""status":{"#).count(), 2)
                }
                (_, Ok(b)) => assert!(!b.objects().is_empty(), "{name}"),
                (_, Err(e)) => panic!("{name}: {e}"),
            }
        }
    }
}
