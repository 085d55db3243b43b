//! What one input costs in memory beyond what the process held before it: each case runs in
//! a fresh process of this test binary (started by the test with `MEMORY_CASE` set), which
//! reads its resident peak (`VmHWM`) over its resident size before the work and prints it. A
//! fresh process holds no freed memory from other work, so the figure moves by a few pages
//! between runs, far less than what each assertion tells apart. The pipeline runs on one
//! thread. Each case is an input a stranger's bundle can hold.

#![cfg(target_os = "linux")]

use layer_core::render::Style;
use layer_core::{Bundle, Engine, Index, Options, ReadLimits, TargetSpec};
use std::process::Command;
use std::sync::OnceLock;

/// A line of `/proc/self/status` in bytes (`VmRSS`, `VmHWM`).
fn status_bytes(field: &str) -> usize {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    let line = status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .unwrap_or_else(|| panic!("no {field} in /proc/self/status"));
    let kb: usize = line
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .expect("a number of kB");
    kb * 1024
}

/// The most memory `work` holds at once beyond what was resident before it, measured in a
/// process of its own: the test named `test` runs again there and, seeing `MEMORY_CASE`,
/// calls `work` and prints the figure.
fn peak_of(test: &str, case: &str, work: impl FnOnce()) -> usize {
    if let Ok(running) = std::env::var("MEMORY_CASE") {
        if running != case {
            return 0; // another case of the same test runs in this process
        }
        engine();
        // "5" resets the peak to the current resident size (Linux 4.0 and later).
        std::fs::write("/proc/self/clear_refs", "5").expect("reset the resident peak");
        let base = status_bytes("VmRSS");
        work();
        println!("PEAK {}", status_bytes("VmHWM").saturating_sub(base));
        return 0;
    }
    let out = Command::new(std::env::current_exe().expect("this test binary"))
        .args([test, "--exact", "--nocapture", "--test-threads=1"])
        .env("MEMORY_CASE", case)
        .output()
        .expect("the test binary runs again");
    let stdout = String::from_utf8_lossy(&out.stdout);
    stdout
        .lines()
        .find_map(|l| l.split_once("PEAK ")?.1.trim().parse().ok())
        .unwrap_or_else(|| {
            panic!(
                "case {case} printed no figure:\n{stdout}\n{}",
                String::from_utf8_lossy(&out.stderr)
            )
        })
}

/// Whether this process is a case's child (which prints its figure and asserts nothing).
fn in_child() -> bool {
    std::env::var_os("MEMORY_CASE").is_some()
}

fn engine() -> &'static Engine {
    static ENGINE: OnceLock<Engine> = OnceLock::new();
    ENGINE.get_or_init(|| Engine::builtin().expect("the built-in rules load"))
}

fn one_thread() -> Options {
    Options {
        threads: 1,
        ..Options::default()
    }
}

/// A Pending pod the scheduler cannot place, with `name` and the scheduler's `message`.
fn pending_pod(name: &str, message: &str) -> String {
    serde_json::json!({"apiVersion": "v1", "kind": "List", "items": [{
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": "ml", "uid": "u1",
                     "creationTimestamp": "2026-01-01T00:00:00Z"},
        "spec": {"containers": [{"name": "c", "image": "i",
                                 "resources": {"limits": {"nvidia.com/gpu": 1}}}]},
        "status": {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False",
            "reason": "Unschedulable", "message": message}]}}]})
    .to_string()
}

const LONG: usize = 4_000_000;

/// Read, index, scan and print the scan as text and JSON, as `kubectl layer scan` does.
fn scan_everything(text: String) {
    let ix = Index::build(Bundle::parse(text).expect("reads"), 1);
    let report = layer_core::scan(engine(), &ix, &one_thread());
    assert_eq!(report.diagnoses.len(), 1);
    let printed = layer_core::render::scan_text(&report, Style { color: false });
    let json = serde_json::to_string(&report).expect("serializes");
    assert!(!printed.is_empty() && !json.is_empty());
}

/// How `why` and `scan` print.
#[derive(Clone, Copy, Debug)]
enum Format {
    Text,
    Markdown,
    Json,
}

/// Read, index, diagnose the pod `p` and print it, as `kubectl layer why -o FORMAT` does.
fn why_in(text: String, format: Format) {
    let ix = Index::build(Bundle::parse(text).expect("reads"), 1);
    let spec = TargetSpec::parse("pod/p", Some("ml"));
    let d = layer_core::diagnose(engine(), &ix, &spec, &one_thread()).expect("the pod resolves");
    let printed = match format {
        Format::Text => layer_core::render::text(&d, Style { color: false }),
        Format::Markdown => layer_core::render::markdown(&d),
        Format::Json => serde_json::to_string(&d).expect("serializes"),
    };
    assert!(!printed.is_empty());
}

/// A 40 MB pod name once took 1.9 GB: every rule that matched copied the built-in names (the
/// target's among them), and every sentence quoting it copied it again. Now the names are kept
/// once per diagnosis and a sentence quotes at most 4 KB of a value.
#[test]
fn a_long_pod_name_costs_a_small_multiple_of_its_length() {
    let test = "a_long_pod_name_costs_a_small_multiple_of_its_length";
    let text = pending_pod(&"x".repeat(LONG), "0/3 nodes are available.");
    let peak = peak_of(test, "name", || scan_everything(text));
    if in_child() {
        return;
    }
    let times = peak as f64 / LONG as f64;
    // Before: 43 times (measured with this test), now 18. What is left: the index, the view's subjects
    // and facts, the diagnosis's references to the pod, the printed report and its JSON.
    assert!(
        times < 28.0,
        "a {LONG}-byte name cost {peak} bytes ({times:.1}×)"
    );
}

/// The same for a long message (any pod can write its own): it is quoted by the finding, the
/// layer, the headline and the evidence.
#[test]
fn a_long_message_costs_a_small_multiple_of_its_length() {
    let test = "a_long_message_costs_a_small_multiple_of_its_length";
    let message = format!("0/3 nodes are available: {}", "y".repeat(LONG));
    let mut figures = Vec::new();
    for format in [Format::Text, Format::Markdown, Format::Json] {
        let text = pending_pod("p", &message);
        let peak = peak_of(test, &format!("{format:?}"), || why_in(text, format));
        figures.push((format, peak as f64 / LONG as f64));
    }
    if in_child() {
        return;
    }
    assert!(
        figures.iter().all(|&(_, times)| times < 14.0),
        "a {LONG}-byte message cost (times its length) {figures:?}"
    );
}

/// 200 KB of YAML naming a 100 KB anchor 25,000 times once became 18 GB of values before it
/// was refused; now the reader stops at 16 times the YAML's size.
#[test]
fn an_anchor_named_many_times_costs_a_bounded_multiple_of_the_yaml() {
    let anchored = format!("[{}]", vec!["x".repeat(1000); 100].join(", "));
    let yaml = format!(
        "apiVersion: v1\nkind: Pod\nmetadata: {{name: p, namespace: ml}}\nspec:\n  a: &a {anchored}\n  b: [{}]\n",
        vec!["*a"; 25_000].join(", ")
    );
    let len = yaml.len();
    let test = "an_anchor_named_many_times_costs_a_bounded_multiple_of_the_yaml";
    let peak = peak_of(test, "anchor", || {
        let e = Bundle::parse_with(yaml, ReadLimits::default()).expect_err("refused");
        assert_eq!(e.code(), "input-too-large", "{e}");
        assert!(e.to_string().contains("anchors and aliases"), "{e}");
    });
    if in_child() {
        return;
    }
    let times = peak as f64 / len as f64;
    assert!(
        times < 100.0,
        "{len} bytes of YAML cost {peak} bytes ({times:.1}×)"
    );
}

/// Read, index, scan and print the bundle `text` as `kubectl layer scan -o FORMAT` does, to a
/// writer that keeps nothing.
fn scan_in(text: String, format: Format) {
    let ix = Index::build(Bundle::parse(text).expect("reads"), 1);
    let (engine, opts, sink) = (engine(), one_thread(), &mut std::io::sink());
    let written = match format {
        Format::Json => layer_core::target::scan_json(engine, &ix, &opts, None).write_pretty(sink),
        Format::Text => {
            let lines = layer_core::target::scan_lines(engine, &ix, &opts, None);
            layer_core::render::scan_text_to(sink, &lines, Style { color: false })
        }
        Format::Markdown => {
            let lines = layer_core::target::scan_lines(engine, &ix, &opts, None);
            layer_core::render::scan_markdown_to(sink, &lines)
        }
    };
    written.expect("written");
}

/// A generated backlog (gen-cluster's shape where most work is listed): text output once
/// peaked at 13.6 times the file and JSON at 2, because text was written from every diagnosis
/// kept whole and copied through a JSON tree to be cleaned. Now every output keeps a line per
/// piece of work: text and Markdown cost what JSON costs, measured in the same run.
#[test]
fn every_scan_output_costs_what_the_json_output_costs() {
    let test = "every_scan_output_costs_what_the_json_output_costs";
    let generated = Command::new(env!("CARGO_BIN_EXE_gen-cluster"))
        .args([
            "--nodes", "40", "--pods", "800", "--seed", "1", "--shape", "backlog",
        ])
        .output()
        .expect("gen-cluster runs");
    assert!(generated.status.success(), "gen-cluster failed");
    let text = String::from_utf8(generated.stdout).expect("UTF-8");
    let mut figures = Vec::new();
    for format in [Format::Json, Format::Text, Format::Markdown] {
        let input = text.clone();
        let peak = peak_of(test, &format!("{format:?}"), || scan_in(input, format));
        figures.push((format, peak));
    }
    if in_child() {
        return;
    }
    let json = figures[0].1.max(1) as f64;
    for &(format, peak) in &figures[1..] {
        let ratio = peak as f64 / json;
        assert!(
            ratio < 1.25,
            "{format:?} output peaked at {peak} bytes, {ratio:.2}× the JSON output's ({json} bytes): {figures:?}"
        );
    }
}
