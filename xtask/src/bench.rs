//! `cargo xtask bench`: timings and memory reported as ratios against a baseline measured in the
//! same run (machines here are noisy and shared, so no absolute limit is asserted anywhere, and a
//! benchmark never fails on a figure). Writes `docs/benchmarks.md`; `--quick` runs every
//! benchmark once at small sizes and writes `target/benchmarks-quick.md` instead (CI runs it so
//! the benchmarks keep working).
//!
//! What runs: bundles from `gen-cluster` (deterministic, seed 1) in `target/bench[-quick]/`; the
//! core's `scale` example as a child process per measurement (its own peak memory, read from
//! `/proc/self/status`); the release `kubectl-layer` for the memory of every output
//! ([`outputs`]); `jq` as the peer; the npm package in Node for the WASM rows.

mod outputs;

use crate::{root, run, target_dir};
pub use outputs::only as outputs_only;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// Sizes and rounds of one run.
struct Plan {
    rounds: usize,
    /// The large cluster of the `scan`/`why`/memory/peer figures.
    big: (u32, u32),
    /// Growth: this cluster times 1, 2, 4 and 8.
    growth: (u32, u32),
    /// WASM in Node against native.
    wasm: (u32, u32),
    /// The clusters every gen-cluster shape is measured at.
    shape_sizes: &'static [(u32, u32)],
    scenario_rounds: &'static str,
    dir: PathBuf,
}

impl Plan {
    fn new(quick: bool) -> Plan {
        if quick {
            Plan {
                rounds: 1,
                big: (250, 5_000),
                growth: (50, 1_000),
                wasm: (100, 2_000),
                shape_sizes: &[(80, 1_600)],
                scenario_rounds: "3",
                dir: target_dir().join("bench-quick"),
            }
        } else {
            Plan {
                rounds: 3,
                big: (5_000, 100_000),
                growth: (500, 10_000),
                wasm: (1_000, 20_000),
                shape_sizes: &[(1_000, 20_000), (5_000, 100_000)],
                scenario_rounds: "30",
                dir: target_dir().join("bench"),
            }
        }
    }
}

fn lines(out: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(out)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

fn exe(name: &str) -> PathBuf {
    target_dir().join("release").join(name)
}

/// A bundle of `nodes`/`pods` from gen-cluster (seed 1), written afresh on each run so that
/// the figures always describe what the current generator writes.
fn bundle(plan: &Plan, size: (u32, u32)) -> Result<PathBuf, String> {
    shaped_bundle(plan, size, "usual")
}

/// [`bundle`] of one of gen-cluster's shapes (the day the cluster is having).
fn shaped_bundle(plan: &Plan, (nodes, pods): (u32, u32), shape: &str) -> Result<PathBuf, String> {
    let name = match shape {
        "usual" => format!("cluster-{nodes}n-{pods}p-s1.json"),
        _ => format!("cluster-{nodes}n-{pods}p-s1-{shape}.json"),
    };
    let path = plan.dir.join(name);
    run(Command::new(exe("gen-cluster"))
        .args(["--nodes", &nodes.to_string(), "--pods", &pods.to_string()])
        .args(["--seed", "1", "--shape", shape, "--out"])
        .arg(&path))?;
    Ok(path)
}

/// How a measurement runs: on how many threads (`SCALE_THREADS`; None: one per core), and
/// with the system allocator (`scale_system`) instead of kubectl-layer's (`scale`).
#[derive(Clone, Copy, Default)]
struct How {
    threads: Option<usize>,
    system: bool,
}

/// The floor, and the native side of the WASM comparison: the library as an embedder gets it.
const SYSTEM_ONE_THREAD: How = How {
    threads: Some(1),
    system: true,
};

/// One run of the scale harness: its JSON line, plus the wall time of the whole process. The
/// floor's modes always run with the system allocator.
fn scale(args: &[&str], file: &Path) -> Result<Value, String> {
    scale_how(args, file, How::default())
}

fn scale_how(args: &[&str], file: &Path, how: How) -> Result<Value, String> {
    let floor = matches!(args[0], "value" | "ignored" | "read");
    let program = if how.system || floor {
        "examples/scale_system"
    } else {
        "examples/scale"
    };
    let mut cmd = Command::new(exe(program));
    cmd.arg(args[0]).arg(file).args(&args[1..]);
    if let Some(t) = how.threads {
        cmd.env("SCALE_THREADS", t.to_string());
    }
    let what = format!("{program} {}", args.join(" "));
    let t0 = Instant::now();
    let stdout = crate::output(&mut cmd, &what)?;
    let wall = t0.elapsed().as_secs_f64() * 1e3;
    let mut v = lines(&stdout)
        .pop()
        .ok_or_else(|| format!("{what}: no output"))?;
    v["wallMs"] = json!(wall);
    Ok(v)
}

/// The release builds of gen-cluster and of `kubectl-layer` (whose outputs are measured).
fn build_cli() -> Result<(), String> {
    run(crate::cargo().args([
        "build",
        "--release",
        "-p",
        "kubectl-layer-tests",
        "--bin",
        "gen-cluster",
        "-p",
        "kubectl-layer",
        "--bin",
        "kubectl-layer",
    ]))
}

/// The fastest of `rounds` runs (by `ms`), reporting the largest peak memory seen.
fn best(rounds: usize, args: &[&str], file: &Path) -> Result<Value, String> {
    best_how(rounds, args, file, How::default())
}

fn best_how(rounds: usize, args: &[&str], file: &Path, how: How) -> Result<Value, String> {
    let mut best: Option<Value> = None;
    let mut peak = 0u64;
    for _ in 0..rounds.max(1) {
        let v = scale_how(args, file, how)?;
        peak = peak.max(v["peakKb"].as_u64().unwrap_or(0));
        if best.as_ref().is_none_or(|b| f(&v["ms"]) < f(&b["ms"])) {
            best = Some(v);
        }
    }
    let mut b = best.unwrap_or(Value::Null);
    b["peakKb"] = json!(peak);
    Ok(b)
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or(f64::NAN)
}

fn ratio(a: f64, b: f64) -> String {
    if b > 0.0 && a.is_finite() {
        format!("{:.2}×", a / b)
    } else {
        "n/a".into()
    }
}

fn mb(kb: u64) -> String {
    format!("{:.0} MB", kb as f64 / 1024.0)
}

fn size(bytes: u64) -> String {
    format!("{:.1} MB", bytes as f64 / (1024.0 * 1024.0))
}

fn secs(ms: f64) -> String {
    if ms >= 1000.0 {
        format!("{:.2} s", ms / 1000.0)
    } else {
        format!("{ms:.1} ms")
    }
}

fn cluster((nodes, pods): (u32, u32)) -> String {
    format!("{nodes} nodes, {pods} pods")
}

pub fn bench(quick: bool) -> Result<(), String> {
    let plan = Plan::new(quick);
    std::fs::create_dir_all(&plan.dir).map_err(|e| e.to_string())?;
    run(crate::cargo().args([
        "build",
        "--release",
        "-p",
        "kubectl-layer-core",
        "--example",
        "bench_scenarios",
        "--example",
        "scale",
        "--example",
        "scale_system",
    ]))?;
    build_cli()?;
    let started = Instant::now();
    let mut doc = format!(
        "# Benchmarks\n\nGenerated by `cargo xtask bench`{}; every figure is a ratio against a baseline measured in the same run, never a limit (the machine is shared and noisy). Bundles come from `cargo xtask gen-cluster --seed 1`; each measurement runs `core/examples/scale.rs` in a process of its own, best of {} round(s) (the `Value` floor: two more), and reads that process's peak resident memory (VmHWM) and CPU time (user and system, all threads). Times exclude reading the file from disk unless they say *wall*.\n\n`scale` runs as `kubectl-layer` does: with mimalloc, and on one thread per core ({} here) unless a row says *one thread*. The floor runs in `scale_system`, the same harness with the system allocator, under which serde_json builds a `Value` fastest.\n\n",
        if quick { " --quick (small sizes)" } else { "" },
        plan.rounds,
        std::thread::available_parallelism().map_or(1, usize::from),
    );
    let mut summary: Vec<String> = Vec::new();

    // 1–3. scan, why and memory on the large cluster.
    let big = bundle(&plan, plan.big)?;
    // The floor builds a 3 GB tree and varies most from run to run (page faults): more
    // rounds, so the ratios are taken against its best, never a slow run that flatters scan.
    let value = best(
        plan.rounds + 2 * usize::from(plan.rounds > 1),
        &["value"],
        &big,
    )?;
    let ignored = best(plan.rounds, &["ignored"], &big)?;
    let read = best(1, &["read"], &big)?;
    let scan = best(plan.rounds, &["scan"], &big)?;
    let one_thread = How {
        threads: Some(1),
        ..How::default()
    };
    let scan1 = best_how(plan.rounds, &["scan"], &big, one_thread)?;
    let bytes = scan["bytes"].as_u64().unwrap_or(0);
    let pick = scale(&["pick"], &big)?;
    let target = pick["target"].as_str().unwrap_or("").to_string();
    let why_rounds = if quick { "5" } else { "50" };
    let why = best(plan.rounds, &["why", &target, why_rounds], &big)?;
    let (vm, im, sm) = (f(&value["ms"]), f(&ignored["ms"]), f(&scan["ms"]));
    let scan_peak = scan["peakKb"].as_u64().unwrap_or(0);
    let mem_ratio = scan_peak as f64 * 1024.0 / bytes.max(1) as f64;
    let sm1 = f(&scan1["ms"]);
    summary.push(format!(
        "scan ÷ parse-to-Value **{}** on {} threads, **{}** on one thread (goal ≤ 1.5×)",
        ratio(sm, vm),
        scan["threads"],
        ratio(sm1, vm)
    ));
    summary.push(format!(
        "why from bytes ÷ parse-to-Value **{}** (goal ≤ 1.2×); why on a built index **{:.3} ms** (goal < 1 ms)",
        ratio(f(&why["ms"]), vm),
        f(&why["indexedMs"])
    ));
    summary.push(format!(
        "scan peak memory ÷ bundle size **{mem_ratio:.2}×** (aim ≤ 2×, never > 3×)"
    ));
    doc.push_str(&format!(
        "## scan on a large cluster\n\n{} ({} objects, {}): `scale scan` parses, indexes, scans ({} diagnoses) and serializes the report as `kubectl layer scan -o json` does. The floor is serde_json reading the same text into `serde_json::Value`, and into `serde::de::IgnoredAny` (no tree at all).\n\n\
         | work | time | ÷ parse-to-Value | CPU time | peak memory | ÷ bundle size |\n|---|---:|---:|---:|---:|---:|\n\
         | read the file only | {} | | | {} | {:.2}× |\n\
         | serde_json → `IgnoredAny` | {} | {} | {} | {} | {:.2}× |\n\
         | serde_json → `Value` | {} | 1.00× | {} | {} | {:.2}× |\n\
         | **scan**, {} threads (parse {}, index {}, scan {}, serialize {}) | **{}** | **{}** | {} | **{}** | **{mem_ratio:.2}×** |\n\
         | scan, one thread (parse {}, index {}, scan {}, serialize {}) | {} | {} | {} | {} | {:.2}× |\n\n",
        cluster(plan.big),
        scan["objects"],
        size(bytes),
        scan["diagnoses"],
        secs(f(&read["readMs"])),
        mb(read["peakKb"].as_u64().unwrap_or(0)),
        read["peakKb"].as_f64().unwrap_or(0.0) * 1024.0 / bytes.max(1) as f64,
        secs(im),
        ratio(im, vm),
        secs(f(&ignored["cpuMs"])),
        mb(ignored["peakKb"].as_u64().unwrap_or(0)),
        ignored["peakKb"].as_f64().unwrap_or(0.0) * 1024.0 / bytes.max(1) as f64,
        secs(vm),
        secs(f(&value["cpuMs"])),
        mb(value["peakKb"].as_u64().unwrap_or(0)),
        value["peakKb"].as_f64().unwrap_or(0.0) * 1024.0 / bytes.max(1) as f64,
        scan["threads"],
        secs(f(&scan["parseMs"])),
        secs(f(&scan["indexMs"])),
        secs(f(&scan["scanMs"])),
        secs(f(&scan["serializeMs"])),
        secs(sm),
        ratio(sm, vm),
        secs(f(&scan["cpuMs"])),
        mb(scan_peak),
        secs(f(&scan1["parseMs"])),
        secs(f(&scan1["indexMs"])),
        secs(f(&scan1["scanMs"])),
        secs(f(&scan1["serializeMs"])),
        secs(sm1),
        ratio(sm1, vm),
        secs(f(&scan1["cpuMs"])),
        mb(scan1["peakKb"].as_u64().unwrap_or(0)),
        scan1["peakKb"].as_f64().unwrap_or(0.0) * 1024.0 / bytes.max(1) as f64,
    ));
    doc.push_str(&format!(
        "## why for one pod of that cluster\n\nTarget `{target}` (a pending pod asking for a GPU). *From bytes*: parse, index and diagnose once, as `kubectl layer why -f` does. *Indexed*: `Engine::diagnose` on an index already built, best of {why_rounds} calls (the first call also builds the per-index tables: node tables by resource and label, the cluster-wide device facts).\n\n\
         | work | time | ÷ parse-to-Value |\n|---|---:|---:|\n\
         | why from bytes (parse and index {}, first diagnosis {}) | {} | {} |\n\
         | why on a built index | {:.3} ms | |\n\n",
        secs(f(&why["indexMs"])),
        secs(f(&why["diagnoseMs"])),
        secs(f(&why["ms"])),
        ratio(f(&why["ms"]), vm),
        f(&why["indexedMs"]),
    ));

    // 4. Growth.
    let mut rows = String::new();
    let mut first: Option<(f64, f64)> = None;
    let mut growth_ratios = Vec::new();
    for k in [1u32, 2, 4, 8] {
        let sz = (plan.growth.0 * k, plan.growth.1 * k);
        let file = bundle(&plan, sz)?;
        let s = best(plan.rounds, &["scan"], &file)?;
        let objects = s["objects"].as_f64().unwrap_or(1.0).max(1.0);
        let us_per = f(&s["ms"]) * 1000.0 / objects;
        let peak = s["peakKb"].as_f64().unwrap_or(0.0) * 1024.0;
        let bytes_per = peak / objects;
        let (us0, b0) = *first.get_or_insert((us_per, bytes_per));
        growth_ratios.push(us_per / us0);
        rows.push_str(&format!(
            "| {k}× | {} | {} | {} | {} | {:.1} µs ({}) | {} | {:.0} B ({}) |\n",
            cluster(sz),
            s["objects"],
            s["diagnoses"],
            secs(f(&s["ms"])),
            us_per,
            ratio(us_per, us0),
            mb(s["peakKb"].as_u64().unwrap_or(0)),
            bytes_per,
            ratio(bytes_per, b0),
        ));
    }
    let worst = growth_ratios.iter().copied().fold(0.0_f64, f64::max);
    summary.push(format!(
        "growth 1×→8×: time per object at most **{worst:.2}×** the 1× figure (linear = 1.00×)"
    ));
    doc.push_str(&format!(
        "## Growth\n\n`scan` at 1, 2, 4 and 8 times {}: time and peak memory per object stay flat when the work grows linearly (ratios against the 1× row).\n\n\
         | size | cluster | objects | diagnoses | scan | per object | peak memory | per object |\n|---|---|---:|---:|---:|---:|---:|---:|\n{rows}\n",
        cluster(plan.growth)
    ));

    // 4b. Every shape of cluster, at every size.
    let (section, worst_shape) = shapes(&plan)?;
    summary.push(worst_shape);
    doc.push_str(&section);
    // A cell over the promise is marked and named in the summary; the full run still writes
    // every other figure (a benchmark never fails on a figure, `--outputs` does).
    let (section, worst_output, over) = outputs::section(&plan)?;
    for o in &over {
        eprintln!("==> bench: OVER {}× THE FILE: {o}", outputs::PROMISE);
    }
    summary.push(worst_output);
    doc.push_str(&section);

    // 5. Peer: jq over the same file.
    doc.push_str("## Peer: jq over the same file\n\n");
    match jq() {
        Some(jq_bin) => {
            let filter =
                r#"[.items[] | select(.kind=="Pod" and .status.phase=="Pending")] | length"#;
            let mut best_ms = f64::MAX;
            let mut count = String::new();
            for _ in 0..plan.rounds.max(1) {
                let t0 = Instant::now();
                let out = Command::new(&jq_bin)
                    .arg(filter)
                    .arg(&big)
                    .output()
                    .map_err(|e| format!("jq: {e}"))?;
                if !out.status.success() {
                    return Err(format!(
                        "jq on {}: {}",
                        big.display(),
                        String::from_utf8_lossy(&out.stderr).trim()
                    ));
                }
                best_ms = best_ms.min(t0.elapsed().as_secs_f64() * 1e3);
                count = String::from_utf8_lossy(&out.stdout).trim().to_string();
            }
            let scan_wall = f(&scan["wallMs"]);
            summary.push(format!(
                "scan (whole process) ÷ jq counting pending pods **{}**",
                ratio(scan_wall, best_ms)
            ));
            doc.push_str(&format!(
                "Whole processes, wall time including reading the file, same bundle as above. jq only counts pending pods (`{filter}` → {count}); scan diagnoses every piece of work that is not running.\n\n\
                 | process | wall time | ÷ jq |\n|---|---:|---:|\n| `jq` | {} | 1.00× |\n| `scale scan` | {} | {} |\n\n",
                secs(best_ms),
                secs(scan_wall),
                ratio(scan_wall, best_ms),
            ));
        }
        None => doc.push_str(
            "Skipped: `jq` is not installed and could not be installed with apt-get.\n\n",
        ),
    }

    // 6. WASM in Node against native.
    let wasm_file = bundle(&plan, plan.wasm)?;
    let (wasm_section, median, wasm_scan) = wasm(&plan, &wasm_file)?;
    summary.push(format!(
        "WASM in Node ÷ native: median **{median:.2}×** over the scenario targets, **{wasm_scan}** for scan of {} (goal ≤ 2×)",
        cluster(plan.wasm)
    ));
    doc.push_str(&wasm_section);
    // 7. Live at scale, against the lab (full runs only; CI runs it small in `lab test`).
    if !quick {
        let (live, live_summary) = crate::lab::bench_at_scale()?;
        summary.extend(live_summary);
        doc.push_str(&live);
    }
    doc.push_str(BEFORE_AFTER);
    doc.push_str(SHAPES_BEFORE_AFTER);
    doc.push_str(NOTES);

    let head = format!(
        "## Summary\n\n{}\n\n",
        summary
            .iter()
            .map(|s| format!("- {s}"))
            .collect::<Vec<_>>()
            .join("\n")
    );
    let split = doc.find("## scan on").unwrap_or(doc.len());
    doc.insert_str(split, &head);
    // A quick run only proves the harness works; it must not replace the committed figures.
    let out = if quick {
        target_dir().join("benchmarks-quick.md")
    } else {
        root().join("docs/benchmarks.md")
    };
    let doc =
        crate::web::keep_web_section(&std::fs::read_to_string(&out).unwrap_or_default(), &doc);
    std::fs::write(&out, doc).map_err(|e| e.to_string())?;
    for s in &summary {
        eprintln!("==> bench: {s}");
    }
    eprintln!(
        "==> bench: {:.0} s of measurements; {} written",
        started.elapsed().as_secs_f64(),
        out.display()
    );
    Ok(())
}

/// gen-cluster's shapes, in the order its docs give them.
const SHAPES: &[&str] = &["usual", "backlog", "taint-storm", "plugin-down", "mixed"];

/// One row per shape and size: scan against parse-to-`Value` on every core and on one, peak
/// memory against the file, and growth (time per object at this size against an eighth of it).
/// Returns the section and the summary line (the worst ratios over the rows).
fn shapes(plan: &Plan) -> Result<(String, String), String> {
    let started = Instant::now();
    let one_thread = How {
        threads: Some(1),
        ..How::default()
    };
    let mut rows = String::new();
    let (mut worst, mut worst1, mut worst_mem, mut worst_growth) =
        (0.0_f64, 0.0_f64, 0.0_f64, 0.0_f64);
    let mut worst_grouped = 0.0_f64;
    for &at in plan.shape_sizes {
        let eighth = (at.0.div_ceil(8), at.1.div_ceil(8));
        for shape in SHAPES {
            let file = shaped_bundle(plan, at, shape)?;
            let value = best(plan.rounds, &["value"], &file)?;
            let scan = best(plan.rounds, &["scan"], &file)?;
            // The default `kubectl layer scan`: the work grouped by cause, from verdict lines.
            let grouped = best(plan.rounds, &["groups"], &file)?;
            let scan1 = best_how(plan.rounds, &["scan"], &file, one_thread)?;
            let small_file = shaped_bundle(plan, eighth, shape)?;
            let small = best(plan.rounds, &["scan"], &small_file)?;
            let _ = std::fs::remove_file(&small_file);
            let per_object =
                |v: &Value| f(&v["ms"]) / v["objects"].as_f64().unwrap_or(1.0).max(1.0);
            let growth = per_object(&scan) / per_object(&small);
            let vm = f(&value["ms"]);
            let mem = scan["peakKb"].as_f64().unwrap_or(0.0) * 1024.0
                / scan["bytes"].as_f64().unwrap_or(1.0).max(1.0);
            worst = worst.max(f(&scan["ms"]) / vm);
            worst_grouped = worst_grouped.max(f(&grouped["ms"]) / vm);
            worst1 = worst1.max(f(&scan1["ms"]) / vm);
            worst_mem = worst_mem.max(mem);
            worst_growth = worst_growth.max(growth);
            rows.push_str(&format!(
                "| {shape} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {mem:.2}× | {growth:.2}× |\n",
                cluster(at),
                size(scan["bytes"].as_u64().unwrap_or(0)),
                scan["diagnoses"],
                secs(vm),
                secs(f(&grouped["ms"])),
                ratio(f(&grouped["ms"]), vm),
                secs(f(&scan["ms"])),
                ratio(f(&scan["ms"]), vm),
                secs(f(&scan1["ms"])),
                ratio(f(&scan1["ms"]), vm),
                mb(scan["peakKb"].as_u64().unwrap_or(0)),
            ));
            // The usual shape's bundle is also the other sections' (the large cluster, jq's,
            // WASM's): it stays.
            if *shape != "usual" {
                let _ = std::fs::remove_file(&file);
            }
        }
    }
    // CI runs the quick sizes: say what they cost, so that stays visible.
    eprintln!(
        "==> bench: every shape measured in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    let section = format!(
        "## Every shape of cluster\n\n`gen-cluster --shape` gives the days the tool is reached for: `usual` (most work runs), `backlog` (nine pods in ten Pending behind Kueue), `taint-storm` (every GPU node tainted), `plugin-down` (no GPU advertised anywhere) and `mixed` (the three in turn). Each row: the grouped scan (`scale groups`: `kubectl layer scan`'s default text, the work grouped by cause, each piece of work judged to its verdict line and only each group's examples diagnosed whole) and the per-item scan (`scale scan`: `kubectl layer scan -o json`, every diagnosis whole) on {threads} threads, the per-item scan on one, each against serde_json reading the same file into a `Value` (best of {} round(s) each); peak memory of the {threads}-thread per-item scan against the file size; *growth*: its time per object at this size against the same shape at an eighth of it (1.00× = linear).\n\n\
         | shape | cluster | file | diagnoses | → `Value` | grouped, {threads} threads | ÷ `Value` | per-item, {threads} threads | ÷ `Value` | per-item, one thread | ÷ `Value` | peak memory | ÷ file | growth at 8× |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n{rows}\n",
        plan.rounds,
    );
    let summary = format!(
        "every shape (usual, backlog, taint-storm, plugin-down, mixed): grouped scan ÷ parse-to-Value at most **{worst_grouped:.2}×** on {threads} threads; per-item scan ÷ parse-to-Value at most **{worst:.2}×** on {threads} threads and **{worst1:.2}×** on one, peak memory at most **{worst_mem:.2}×** the file, growth at 8× at most **{worst_growth:.2}×**"
    );
    Ok((section, summary))
}

/// `jq` from PATH, else installed with apt-get when that works; None to skip.
fn jq() -> Option<PathBuf> {
    let found = || {
        Command::new("jq")
            .arg("--version")
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|_| PathBuf::from("jq"))
    };
    found().or_else(|| {
        eprintln!("==> bench: jq missing, trying apt-get install jq");
        let ok = Command::new("apt-get")
            .args(["install", "-y", "-qq", "jq"])
            .status()
            .is_ok_and(|s| s.success());
        if ok { found() } else { None }
    })
}

/// The npm package in Node against the release build of the core: the scenario targets
/// (`wasm/tests/bench.mjs` and `bench_scenarios`), and `scan` of a generated cluster.
fn wasm(plan: &Plan, file: &Path) -> Result<(String, f64, String), String> {
    let scenarios = root().join("tests/scenarios");
    let native = lines(&crate::output(
        Command::new(exe("examples/bench_scenarios"))
            .arg(&scenarios)
            .arg(plan.scenario_rounds),
        "bench_scenarios",
    )?);
    // WASM runs on one thread with its own allocator: native here runs the library as an
    // embedder gets it (one thread, the system allocator), to compare code, not cores or
    // allocators. kubectl-layer's own build is given beside it.
    let native_scan = best_how(plan.rounds, &["scan"], file, SYSTEM_ONE_THREAD)?;
    let binary_scan = best_how(
        plan.rounds,
        &["scan"],
        file,
        How {
            threads: Some(1),
            system: false,
        },
    )?;

    // The npm package, installed from its tarball into a scratch project as a user would.
    let consumer = crate::wasm::scratch_consumer("bench")?;
    std::fs::copy(
        root().join("wasm/tests/bench.mjs"),
        consumer.join("bench.mjs"),
    )
    .map_err(|e| e.to_string())?;
    std::fs::write(consumer.join("scan.mjs"), SCAN_MJS).map_err(|e| e.to_string())?;
    let node_run = |script: &str, args: &[&std::ffi::OsStr]| -> Result<Vec<Value>, String> {
        let stdout = crate::output(
            Command::new("node")
                .arg(script)
                .args(args)
                .current_dir(&consumer),
            script,
        )?;
        Ok(lines(&stdout))
    };
    let node = node_run(
        "bench.mjs",
        &[scenarios.as_os_str(), plan.scenario_rounds.as_ref()],
    );
    let rounds = plan.rounds.to_string();
    let node_scan = node_run("scan.mjs", &[file.as_os_str(), rounds.as_ref()]);
    let _ = std::fs::remove_dir_all(consumer.parent().unwrap_or(&consumer));
    let (node, node_scan) = (node?, node_scan?);

    let mut table = String::from(
        "| scenario | target | bundle | native | Node (WASM) | Node ÷ native |\n|---|---|---:|---:|---:|---:|\n",
    );
    let mut ratios = Vec::new();
    for (n, w) in native.iter().zip(&node) {
        let (nm, wm) = (f(&n["micros"]), f(&w["micros"]));
        let r = if nm > 0.0 { wm / nm } else { 0.0 };
        ratios.push(r);
        table.push_str(&format!(
            "| {} | `{}` | {} KB | {:.2} ms | {:.2} ms | {:.2}× |\n",
            n["scenario"].as_str().unwrap_or(""),
            n["target"].as_str().unwrap_or(""),
            n["bytes"].as_u64().unwrap_or(0) / 1024,
            nm / 1000.0,
            wm / 1000.0,
            r
        ));
    }
    ratios.sort_by(f64::total_cmp);
    let median = ratios.get(ratios.len() / 2).copied().unwrap_or(0.0);
    let ns = node_scan.first().cloned().unwrap_or(Value::Null);
    let scan_ratio = ratio(f(&ns["ms"]), f(&native_scan["ms"]));
    let section = format!(
        "## WASM in Node against native\n\n\
         Native is the release build of the library on one thread (WASM has one) with the system allocator (what an embedder gets); Node is the npm package installed from its tarball. \
         **scan of {} ({} objects, {})**: native `scale scan` (parse, index, scan, serialize) against `scan(text)` in Node (the same, and the report handed over as an object).\n\n\
         | work | native | Node (WASM) | Node ÷ native | kubectl-layer's build (mimalloc, one thread) | Node ÷ that |\n|---|---:|---:|---:|---:|---:|\n| scan, {} diagnoses | {} | {} | **{scan_ratio}** | {} | {} |\n\n\
         **Scenario targets**: read the bundle text, parse, index, diagnose one target, and hand the diagnosis to the caller (native: serialized JSON; Node: a parsed object), best of {} rounds. **Median Node ÷ native: {median:.2}×** over {} targets.\n\n{table}\n",
        cluster(plan.wasm),
        native_scan["objects"],
        size(native_scan["bytes"].as_u64().unwrap_or(0)),
        native_scan["diagnoses"],
        secs(f(&native_scan["ms"])),
        secs(f(&ns["ms"])),
        secs(f(&binary_scan["ms"])),
        ratio(f(&ns["ms"]), f(&binary_scan["ms"])),
        plan.scenario_rounds,
        ratios.len(),
    );
    Ok((section, median, scan_ratio))
}

/// Node side of the WASM scan row: `node scan.mjs FILE ROUNDS`, run where `kubectl-layer`
/// resolves; prints `{bytes, ms, diagnoses}` for the best round.
const SCAN_MJS: &str = r#"import { readFileSync } from 'node:fs';
import { init, rules, scan } from 'kubectl-layer';

const [file, roundsArg] = process.argv.slice(2);
await init();
// Compile the rules first, as the native side builds its Engine before the clock starts.
rules();
const text = readFileSync(file, 'utf8');
let best = Infinity;
let diagnoses = 0;
for (let i = 0; i < Number(roundsArg ?? 3); i++) {
  const t0 = process.hrtime.bigint();
  const report = scan(text);
  best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1e6);
  diagnoses = report.diagnoses.length;
}
console.log(JSON.stringify({ bytes: Buffer.byteLength(text), ms: best, diagnoses }));
"#;

/// The profile-driven work of issue 7, measured once on this machine (2026-11-29, one session,
/// runs interleaved) with the core before the change (commit 4eee721) and after it. Not
/// re-measured by `cargo xtask bench`: the old core is not in the tree.
const BEFORE_AFTER: &str = "## Before and after the scale work (issue 7)\n\n\
Same harness (`core/examples/scale.rs`) built against the core of commit 4eee721 and against this tree, same bundles \
(`cargo xtask gen-cluster --nodes N --pods M --seed 1`), same session; scan outputs compared byte for byte (identical). \
Commands: `scale scan FILE OUT` under `/usr/bin/time -f %M`, `scale why FILE TARGET ROUNDS`.\n\n\
| | 500 nodes, 10k pods: before | after | 5,000 nodes, 100k pods: before | after |\n|---|---:|---:|---:|---:|\n\
| scan, total (parse + index + scan + serialize) | 1.48 s | 0.40 s | 167.9 s | 5.42 s |\n\
| of which index | 174 ms | 105 ms | 2.28 s | 1.19 s |\n\
| of which scan (276 / 3,219 diagnoses) | 1.18 s | 0.15 s | 164.3 s | 2.59 s |\n\
| scan peak memory | 113 MB (3.9×) | 70 MB (2.4×) | 1,043 MB (3.6×) | 654 MB (2.2×) |\n\
| why on a built index (GPU pod) | 4.38 ms | 0.51 ms | 55.9 ms | 0.52 ms |\n\n\
What the profile (`perf record --call-graph dwarf`) showed and what changed:\n\n\
- Per view, facts re-read the whole cluster: every Deployment and DaemonSet parsed into a `Value` for the fake-gpu \
reservation namespace (48% of scan time at 500 nodes), every node's labels several times in the device facts, every \
ResourceSlice per bound pod, every Workload per pending Workload, every pod of a namespace per Dynamo graph. \
Now the cluster-wide parts are computed once per index (`Index::once`: node tables by resource and label, GPU Operator \
and device-plugin state, fake-gpu topology, slices by node and driver, pending Workloads, the reservation namespace) \
and pods are found by label through the index.\n\
- Cluster-sized facts that every view holds (every GPU-labelled node) were rebuilt and dropped per view (40% of scan \
time at 5,000 nodes, also through `json!` re-serializing values): now lent to views and given back when a view is \
dropped (`view::Lender`), and built with maps, not `json!`.\n\
- The index kept owned string keys for identity, uid, kind/name and event lookups, and a full record per event: now \
hash-and-verify tables (16 bytes an entry), events keep only their time (the rest is read from the text when a view \
asks), serde's four-slot vectors are shrunk, pod requests are a sorted list.\n\
- The area facts read the view's own pod JSON instead of parsing the pod again.\n\n\
Left for the owners of other files: `Bundle::parse` (`bundle.rs`) is now the largest single cost (1.5 s of 5.4 s at \
100k pods; it reads every item twice and keeps six owned strings per object, plus a cloned identity per object \
while de-duplicating), and views still copy each subject's JSON (the engine evaluates paths on one `Value` per view).\n\n\
### Second round (2026-11-30)\n\n\
5,000 nodes, 100k pods: `scale scan` of commit 43e9eef (best of three runs alternating with this work's) against the best of three of this tree in the run above; \
outputs compared byte for byte (identical, and on every scenario with `scale dump`). The floor (serde_json into \
`Value`, system allocator) measured 1.91–1.99 s best-of-3 in quiet runs of the same session.\n\n\
| | before | after, 2 threads | after, one thread |\n|---|---:|---:|---:|\n\
| scan, total | 3.88 s | 2.06 s | 2.99 s |\n\
| of which parse | 627 ms | 662 ms | 673 ms |\n\
| of which index | 983 ms | 623 ms | 966 ms |\n\
| of which scan (3,219 diagnoses) | 2.21 s | 730 ms | 1.31 s |\n\
| of which serialize | 56 ms | 43 ms | 44 ms |\n\
| peak memory | 650 MB | 580 MB | 560 MB |\n\n\
What the profile showed and what changed:\n\n\
- For every DynamoGraphDeployment a view linked, the serving facts counted NATS pods over every pod of the \
cluster (5% of the time): now once per index.\n\
- A third of the remaining time was glibc `malloc`/`free` (views build and drop many small JSON values): \
`kubectl-layer` now ships mimalloc. The floor keeps the system allocator, under which it is fastest.\n\
- Diagnoses are independent, and so is each object's decoding in the index: both now run on every core \
(`layer_core::par`, `-j/--threads`), with results in input order so the output does not depend on the thread \
count (tested on every scenario, library and CLI). Per-index tables have a cell each, so threads wait for one \
build instead of each making its own.\n\
- Every ownerReference stayed in memory after owners were resolved (four strings per pod and ReplicaSet): only \
the unresolved ones are kept. The object list is sized before reading (peak after parsing 472 → 406 MB).\n\
- `scan -o json` streams the report instead of growing one string of tens of MB.\n\
- A pending pod's tolerations were tested against every tainted node, three times per view (taints, eligible nodes, \
gang room): now once per distinct set of node taints (thousands of GPU nodes share one). DRA driver rows are \
built once per index. Lists the index fills are sized from a count of kinds first.\n\
- Found on the way: a rule that captures node names wrote every one into its message, headline and commands \
(thousands on a large cluster, deduplicated quadratically). Messages now name ten and count the rest.\n\
- A generated incident, 3,000 tainted GPU nodes and 1,000 pending GPU pods without the toleration (2 MB), took 8.9 s \
to scan: a row per node per pod, copied twice, and every message hashing thousands of node names. The row lists \
now keep ten rows per distinct taint (every node still named): 0.78 s, identical report. The same with the device \
plugin down on 3,000 nodes took 2.0 s, mostly JSONPath building a path string for each of thousands of hits: the rule now reads a per-index fact of the silent nodes' labels, 1.15 s. No rule reads `gpuLabelledNodes` any more: it is gone from the view, and with it the lending of cluster-sized facts to views (`view::Lender`, above).\n\n";

/// Issue 16's before and after, measured on 2026-12-03 (see its closing note).
const SHAPES_BEFORE_AFTER: &str = "## Before and after the backlog work (issue 16)\n\
\n\
The shapes measured before this work (main 1c355ca, built beside the tree under work) and after its first part (main fe49be6, in the full run of 2026-12-03; the rows of \"Every shape of cluster\" above are this run, with the per-view work of 2026-12-04 below). Before: `scale scan` of the same generated files, best of 2 (1,000 nodes) or 1 (5,000 nodes) runs alternating with the tree under work, earlier on 2026-12-03 on the same machine. Times, since the `Value` floor of those runs moved (1.8–3.9 s at 5,000 nodes, against 1.6–1.8 s in the run after). Every scenario's and incident's view and diagnosis, and the scan of every shape at 200 nodes (and the usual shape at 5,000), are byte-identical before and after, but for the plugin summary (below); checked with the `views` binary and `cmp` on each step.\n\
\n\
| shape | cluster | 2 threads: 1c355ca | fe49be6 | one thread: 1c355ca | fe49be6 | peak memory: 1c355ca | fe49be6 |\n\
|---|---|---:|---:|---:|---:|---:|---:|\n\
| usual | 1,000 nodes, 20,000 pods | 0.64 s | 0.38 s | 0.85 s | 0.53 s | 159 MB | 159 MB |\n\
| backlog | 1,000 nodes, 20,000 pods | 3.74 s | 2.00 s | 6.84 s | 3.36 s | 357 MB | 291 MB |\n\
| taint-storm | 1,000 nodes, 20,000 pods | 1.16 s | 0.81 s | 1.98 s | 1.36 s | 186 MB | 185 MB |\n\
| plugin-down | 1,000 nodes, 20,000 pods | 3.53 s | 1.31 s | 5.76 s | 2.24 s | 820 MB | 220 MB |\n\
| mixed | 1,000 nodes, 20,000 pods | 2.95 s | 1.27 s | 5.00 s | 2.19 s | 610 MB | 300 MB |\n\
| usual | 5,000 nodes, 100,000 pods | 8.31 s | 2.29 s | 10.42 s | 3.18 s | 610 MB | 599 MB |\n\
| backlog | 5,000 nodes, 100,000 pods | 30.69 s | 11.48 s | 56.81 s | 18.64 s | 1,690 MB | 1,335 MB |\n\
| taint-storm | 5,000 nodes, 100,000 pods | 16.52 s | 7.72 s | 27.64 s | 14.46 s | 754 MB | 741 MB |\n\
| plugin-down | 5,000 nodes, 100,000 pods | 86.54 s | 21.06 s | 138.22 s | 47.06 s | 16,148 MB | 874 MB |\n\
| mixed | 5,000 nodes, 100,000 pods | 44.33 s | 15.23 s | 83.04 s | 34.32 s | 8,563 MB | 1,331 MB |\n\
\n\
What the profiles (`perf record --call-graph dwarf` of `SCALE_THREADS=1 scale scan`) showed, and what changed:\n\
\n\
- A Deployment's or StatefulSet's pods were found by parsing every pod of its namespace, for the list of work and again for each view: quadratic, most of scan at 100,000 pods (the usual shape's time per object was 2.4× the 1,000-node figure). Pods are indexed once by namespace and label.\n\
- A pending Workload's place in its queue walked every entry ahead of it: quadratic in the backlog. The line keeps each Workload's creation times; the count is two binary searches.\n\
- A fifth of each backlog diagnosis went to jsonpath-rust building a path string for every candidate a filter then dropped, and compiling `search()` patterns per candidate. Paths with wildcards and filters are walked directly (`core/src/walk.rs`), patterns compiled once, and a hit's path written only when it becomes evidence; `plain_paths_walk_like_the_jsonpath_engine` and `walked_paths_find_what_the_jsonpath_engine_finds` hold both engines to the same hits on every rule path over every case's view.\n\
- Each linked object was parsed up to four times per view (linking, signals, the runtime and admission facts) and copied once more into the view. A view now parses each object once and its subjects take the parsed JSON; facts read it from there (`Ctx::value`). `Value::pointer` copied every step of every pointer into a new string (`json::At` walks in place).\n\
- Every diagnosis was held as Rust values until the last was sorted. Each is now written as compact JSON on the thread that made it (`target::scan_json`), and the report re-indented as serde_json writes it (a test compares the bytes on every scenario).\n\
- With the device plugin down on every GPU node, the plugin summary named every plugin pod: 25 KB in each diagnosis's summary, message and evidence. It names ten and counts the rest (`…; 590 more device-plugin pods are not ready`), as messages naming nodes already did; the only output change of this work.\n\
\n\
Then, on 2026-12-04, the work every backlog diagnosis repeated (each step checked byte-identical with `views` and the 200-node scan of every shape; CPU time of `SCALE_THREADS=1 scale scan` of the 200-node backlog against fe49be6's build, best of 3 alternating):\n\
\n\
- A pod's events were read from their JSON up to ten times per view: once to check whom each is about, again by linking, the signals, scheduling, the runtime facts and the placement silence. `Index::events_about` reads each once and linking keeps what it read for the facts (`Ctx::events_about`); a rule's `appliesTo` is a bit set checked against the view's: −8%.\n\
- Two hundred rules start their paths at some sixty places (`$.facts.admission`, `$.pod.status`) and each test looked both names up again in the view's maps. Each such start is a head slot that a view resolves once (`eval::assign_heads`; `rules_read_the_same_through_head_slots_as_from_the_root` holds every rule to the same matches, captures and evidence): −15% with the above.\n\
- Every view parsed its LocalQueue, ClusterQueue, ResourceFlavors and cited nodes from the text: 12 MB of the 27 MB of JSON the 200-node backlog's scan parsed. They are parsed once per index and lent (`links::LENT_SUBJECTS`, `crate::lend`): −19% with the above; the 1,000-node backlog on 2 threads −14% wall, peak memory within 2% (plugin-down +6%).\n\
\n\
What remains, for the backlog (profile of `SCALE_THREADS=1 scale scan` at 200 nodes / 4,000 pods after the changes, share of one thread's samples): building the view 42% (linking 11%, of which parsing the work's own objects 6%; the facts 25%: admission 6%, signals 3%, writing facts as JSON values 7%), the rules 36% (evaluating the paths 18%, the timeline 5%, messages 4%, evidence 3%), freeing the view 4%, the index 4%, writing the report 6%. Looking keys up in the view's maps (serde_json's `BTreeMap`) is 16% of all samples across these and allocating 12%. A backlog diagnosis costs about 0.3 ms of CPU; the floor's parse of the same objects about 0.02 ms. No single cost stands out: reaching ≤ 1.5× needs diagnoses that share work (Jobs from one template waiting in one queue diagnose alike), not a faster step.\n\
\n\
### The grouped scan from verdict lines (2026-12-07)

`kubectl layer scan`'s default text and Markdown print the work grouped by cause: one example headline a cause. Each piece of work is now judged to its verdict line (`Engine::verdict_line`: the same view, the finding rules only, evidence for the verdict's finding alone, through the one `settle` the whole diagnosis uses), and only the first three lines of each group in report order, its examples, are diagnosed whole (`target::scan_group_lines`). `grouped_outputs_from_verdict_lines_are_the_per_item_ones` (tests/groups.rs) holds `groups[]`, the grouped text and the grouped Markdown byte-identical to the per-item path on every scenario, incident and `gen-cluster` shape (two seeds, one and two threads, English and Korean). `--all`, `-o wide`, JSON and Prometheus keep every diagnosis whole. Measured by hand on 2026-12-07 (the shared machine at load 2 after a long stretch at 15–20), 1,000-node backlog (`gen-cluster --nodes 1000 --pods 20000 --seed 1 --shape backlog`), `SCALE_THREADS=2 scale groups FILE` (this tree and cd2bc88's build, where `groups` diagnosed every piece of work whole), `scale scan FILE` and `scale value FILE` in the same run: the grouped scan 3.00 s → 2.32 s wall (5.70 → 4.34 s CPU), **4.48× the `Value` floor** (517 ms; per-item JSON 3.45 s, 6.67×). Of the 2.32 s, reading 110 ms, the index 137 ms, judging 2.07 s, writing 5 ms. The goal of 1.0× is not reached: every piece of work still builds its view (the larger part of a backlog diagnosis, see the profile above), and a key from the view with its identity masked shares nothing on a generated backlog, where each pod's ages, events' times and place in its ClusterQueue differ and rules compare ages; diagnosing equal work once needs a key that keeps those tests' outcomes without building the view. The next full `cargo xtask bench` fills the grouped columns of \"Every shape of cluster\" for every shape and size.

### Memory (2026-12-05)\n\
\n\
`scale scan FILE` (report written to a sink), 1,000 nodes / 20,000 pods, 2 threads, main f847218 and this tree built side by side and run alternately, two runs each (they agreed within 1%); peak resident memory over the file's size. A counting allocator (live heap bytes at each step, outside the repository) said where the memory went: the report held until it is sorted and written (106 MB of compact JSON for the backlog's 14,496 diagnoses, more than its 66 MB bundle), the pages the index's helper threads left behind, and two tables kept per index with three strings an entry.\n\
\n\
| shape | f847218 | now | what changed it |\n\
|---|---:|---:|---|\n\
| usual | 2.43× (141 MB) | 2.22× (128 MB) | index decoded in blocks of 2,048 objects, not 16,384 |\n\
| backlog | 4.33–4.38× (272–274 MB) | 2.42–2.44× (151–153 MB) | the report held packed (LZ4 against the first diagnosis: 106 MB → 7.9 MB), queue lines of ids, pods by label under one key |\n\
| taint-storm | 2.77–2.79× (156–157 MB) | 2.34× (132 MB) | the same |\n\
| plugin-down | 3.21–3.22× (184 MB) | 2.49× (143 MB) | the same |\n\
| mixed | 3.83–3.84× (223 MB) | 2.52–2.53× (147 MB) | the same |\n\
\n\
Wall time is unchanged within the noise (backlog 2.99–3.09 s before, 3.01–3.09 s now, three runs each; packing costs about 2% more CPU, and indenting the report now runs on every thread). What remains is mostly the bundle's own text, held whole (1.0× the file) so that views can read any object, and the objects' identities (0.3×): the next step is holding each object's text packed (LZ4 against the first object of its kind packs the usual 1,000-node bundle 3.7 to 1 and the backlog 4.5 to 1), at about 100 ms of CPU per 60 MB to pack and some to unpack each read.\n\
\n\
### Reading on several threads (2026-12-05)\n\
\n\
Reading the bundle was the largest step left on one thread. A text of 4 MB or more that is one List is now read on every thread: the depth scan every JSON input gets also notes where the items begin and end, the List is read with its items left out, runs of 512 items are read on each thread into their places, and the copies of one object are made one in order (anything else goes to the one-pass reader). `scale parse`, best of 6, one thread against two: the web test's 20 MB bundle 63 → 56 ms, the 1,000-node usual shape 173 → 147 ms; the depth scan (about 35 ms of the latter) stays on one thread. `scale scan` of the usual shape went from 596–617 ms to 555–582 ms, three runs each, with 5 MB more at the peak (the objects' strings made on the helper threads); the memory table above was measured before this change.\n\
\n\
### Helpers that stay, and smaller identities (2026-12-05, later)\n\
\n\
Threads started anew for each block of work leave their allocator pages behind, partly filled. The index's objects are now decoded, and the scan's report indented, by one set of helpers for the whole list (`par::in_order`: results handed over in order, a few batches waiting), instead of new threads per block of 2,048 objects or 256 diagnoses. Each object's uid is held as 16 bytes when it is a lowercase UUID (as the API server writes it) and its resourceVersion as the number it is only ever read as. Peak memory ÷ file, `scale scan`, 1,000 nodes, 2 threads, ed8829d and this tree side by side; times within 2%; every report byte-identical:\n\
\n\
| shape | ed8829d | after |\n\
|---|---:|---:|\n\
| usual | 2.23× | 2.09× |\n\
| backlog | 2.45× | 2.36× |\n\
| taint-storm | 2.35× | 2.17× |\n\
| plugin-down | 2.53× | 2.38× |\n\
| mixed | 2.52× | 2.34× |\n\
\n\
Tried and left out: holding each object's text packed (LZ4, against the first object of its kind, namespace and size, 3.7–4.6 to 1) brought the usual, backlog and mixed shapes under 2× (1.85–1.91×) only when the allocator returned the freed text at once (`MIMALLOC_PURGE_DELAY=0`; the usual shape 1.92–1.95× at 1–5 ms); with its default delay the peak rose to 2.5×, and packing cost 65 ms on 2 threads (+16% on the usual shape).\n\
\n\
### Work that waited for one thread, and objects read once more than needed (2026-12-05, third session)\n\
\n\
A scan spent its first 78 ms (1,000-node usual shape, 2 threads) on one thread before any diagnosis began: the list of work read every pod's labels again to find each Deployment's pods, and a backlog's first diagnosis read every Workload again for its place in its queue (47 ms). The index reads those objects anyway: pods by label now come with it, and a Kueue Workload is read once for the index and its queue (the two readings kept apart only when one of them fails, so every object reads as before); the work list is judged on every thread. Resource quantities are read straight into numbers, and one whose digits make an integer below 2^53 with a decimal exponent within −9 to 22 is one exact multiplication or division of f64s (Clinger's fast path, held to the digit-by-digit reading bit for bit by a test). `par::in_order` computes a share on the calling thread and starts one helper fewer. For the module: a uid is read and written byte by byte (wasm32 emulates the 128-bit arithmetic it went through), and the depth scan every JSON input gets counts the objects the reader makes room for, where memmem's fallback searcher counted `\"metadata\"` keys; Node's `Bundle.parse` of the web test's 20 MB bundle went from 350–360 to 296 ms, and the page from paste to verdict from 446 to 408 ms (2.79× → 2.65× the CLI's `why`).\n\
\n\
`scale scan`, 1,000 nodes, 20,000 pods, a785f54 and this tree (a01551c) built side by side and run alternately, best of 2; the `Value` floor best of 3 in the same run; peak memory of the 2-thread scan over the file. Every view, the 200-node scan of every shape on 1 and 2 threads and the 1,000-node backlog's 166 MB report are byte-identical:\n\
\n\
| shape | 2 threads: a785f54 | a01551c | ÷ `Value` | one thread: a785f54 | a01551c | ÷ `Value` | peak ÷ file: a785f54 | a01551c |\n\
|---|---:|---:|---:|---:|---:|---:|---:|---:|\n\
| usual | 539 ms | 456 ms | 1.00× | 772 ms | 699 ms | 1.53× | 2.08× | 2.08× |\n\
| backlog | 2,872 ms | 2,572 ms | 5.81× | 5,036 ms | 4,865 ms | 10.98× | 2.32× | 2.35× |\n\
| taint-storm | 778 ms | 697 ms | 1.60× | 1,314 ms | 1,259 ms | 2.89× | 2.15× | 2.15× |\n\
| plugin-down | 931 ms | 837 ms | 1.95× | 1,523 ms | 1,411 ms | 3.29× | 2.37× | 2.34× |\n\
| mixed | 1,278 ms | 1,184 ms | 2.68× | 2,187 ms | 2,076 ms | 4.71× | 2.28× | 2.27× |\n\
\n\
Tried and left out, both measured slower on one thread (the index +13 ms of 230): FNV instead of SipHash for the labels and annotations the index reads, and pods' phases, reasons and conditions borrowed from the text instead of copied. What remains for the backlog is as above: a `perf` profile of the 200-node backlog on one thread has comparing keys (`memcmp`, mostly `BTreeMap` lookups in the views' JSON: paths, walks, building the timeline) at 12% of all samples and allocating at about 10%, and no step above 3% on its own.\n\
\n\
### Names held once, and a lower bound for the backlog (2026-12-05, fourth session)\n\
\n\
Every object held its `apiVersion`, `kind` and namespace as strings of its own, 24 bytes each and an allocation each, where a bundle of 78,000 objects has a few dozen distinct ones: they are now one shared text each (`bundle::Name`), made once per reader. Kueue Workloads by Job uid were a map of uid strings to lists (160 bytes a Workload); they are a sorted table of uids as the bundle holds them (16 bytes for one the API server wrote). Live heap after the index of the 1,000-node backlog: 101.9 → 96.7 MB.\n\
\n\
`scale scan`, 1,000 nodes, 20,000 pods, 870208a and this tree (41b004a) built side by side and run alternately, best of 2; peak memory of the 2-thread scan over the file. Every view, the 200-node scan of every shape on 1 and 2 threads and the 1,000-node backlog's report are byte-identical:\n\
\n\
| shape | 2 threads: 870208a | 41b004a | one thread: 870208a | 41b004a | peak ÷ file: 870208a | 41b004a | peak, one thread |\n\
|---|---:|---:|---:|---:|---:|---:|---:|\n\
| usual | 447 ms | 445 ms | 676 ms | 677 ms | 2.05× | 2.01× | 115.7 → 109.7 MiB |\n\
| backlog | 2,753 ms | 2,765 ms | 4,950 ms | 4,853 ms | 2.32× | 2.23× | 141.5 → 136.6 MiB |\n\
| taint-storm | 726 ms | 726 ms | 1,227 ms | 1,208 ms | 2.11× | 2.06× | 113.3 → 109.0 MiB |\n\
| plugin-down | 830 ms | 831 ms | 1,397 ms | 1,396 ms | 2.32× | 2.25× | 126.9 → 122.3 MiB |\n\
| mixed | 1,200 ms | 1,195 ms | 1,987 ms | 1,993 ms | 2.24× | 2.17× | 125.6 → 121.2 MiB |\n\
\n\
Tried and left out: `smol_str` for the four identity strings (inline up to 23 bytes, but 24 bytes a field as before: −1.5 to −3 MB, reading +3%); the same shared names for each pod's phase, status, node and resource names, made on the thread that keeps the index (the index +21 ms of 229 on one thread, the peak unchanged); the allocator returning freed memory sooner (`MIMALLOC_PURGE_DELAY` 10 to 200 ms: within 1–2 MB, 0 ms: the index 60% slower).\n\
\n\
A lower bound for the backlog, from the same 1,000-node bundle (`scale scan` on 2 threads: reading 153 ms, the index 164 ms, writing the 166 MB report 94 ms; on one thread 183, 245 and 158 ms; the `Value` floor 460 ms): before its first diagnosis, the scan has spent 0.89× the floor on 2 threads and 1.27× on one. The goals (1.0× and 1.5×) leave 14,496 diagnoses about 50 ms of wall time on 2 threads and 100 ms on one, 7 µs a diagnosis, each writing about 11 KB of report; a diagnosis costs about 300 µs of CPU now. Reaching them needs a report that does not repeat itself per piece of work, or diagnoses computed once for work that waits alike, not a faster step.\n\
\n\
### Smaller tables, and copies given back (2026-12-05, fifth session)\n\
\n\
A counting allocator split the 1,000-node shapes' peaks: after the text (1.0× the file), the objects' identities and the index's tables, then what the scan keeps until its report is written. Each change below made a table smaller or stopped keeping something; none changed what is computed. An object's `apiVersion`, kind and namespace are one pointer to a triple the reader makes once (`bundle::TypeAndNamespace`; an object is 88 bytes, was 136), and the parallel reader's runs share one thread's names. The index's five hash tables keep 32-bit hashes and ids (8 bytes an entry, was 16; every lookup already checks its candidates against the object), creation times an `i64` with a mark for none, each owner's children a sorted table instead of a map of lists. The node tables share the index's list of nodes instead of copying it. A queue line keeps its Workloads' creation times as one sorted list (3 MB on the backlog). A scan's sort keys hold a number for the target's name instead of copies of its strings (2 MB on the backlog). The nodes a view cites were lent without their loans being recorded, so every view dropped its copies and the next copied them again (43,000 copies on the backlog); they are given back, a bundle object lent keeps no master copy (it is read from its JSON when no copy is spare), and the copies given back are kept only once an object has been lent 8 times (plugin-down cites most of its thousand nodes a few times each: 10 MB).\n\
\n\
`scale scan`, 1,000 nodes, 20,000 pods, 403aea0 and this tree (443d178) built side by side and run alternately, best of 2; whole run (reading, index, scan, writing); peak memory of the 2-thread scan over the file. Every view, the 200-node scan of every shape on 1 and 2 threads and the 1,000-node backlog's report are byte-identical:\n\
\n\
| shape | 2 threads: 403aea0 | 443d178 | one thread: 403aea0 | 443d178 | peak ÷ file: 403aea0 | 443d178 | peak, one thread |\n\
|---|---:|---:|---:|---:|---:|---:|---:|\n\
| usual | 441 ms | 435 ms | 678 ms | 676 ms | 1.98× | 1.80× | 109.0 → 100.3 MiB |\n\
| backlog | 2,777 ms | 2,795 ms | 4,944 ms | 4,823 ms | 2.22× | 1.99× | 137.2 → 120.3 MiB |\n\
| taint-storm | 719 ms | 720 ms | 1,218 ms | 1,173 ms | 2.03× | 1.84× | 108.4 → 99.2 MiB |\n\
| plugin-down | 836 ms | 823 ms | 1,369 ms | 1,385 ms | 2.24× | 1.92× | 121.8 → 103.1 MiB |\n\
| mixed | 1,203 ms | 1,181 ms | 1,986 ms | 1,965 ms | 2.17× | 1.92× | 120.8 → 106.7 MiB |\n\
\n\
Tried and left out: packing the text of every object with LZ4 once the index is built (against the first object of its kind: 60 MB to 15 MB, 120 ms of CPU): while it packs, the text and its packed copy are both held, and the peaks rose to 2.6–3.3× the file; a smaller lazy-DFA cache for `regex` (no change in the peak); mimalloc's purge and commit options (within 1 MB, or slower writing). What is left between the heap and the peak is the allocator's: 15–20 MB that the index and the scan's views leave in partly used pages (returning freed pages at each phase's end lowers the resident memory there, not the peak).\n\
\n\
";

/// Decisions the figures above rest on, measured once (2026-11-29, same machine, same run each).
const NOTES: &str = "## What is in the module\n\n\
The npm package's module must stay at or under 1,000 KiB (1,024,000 B) gzipped since the eleventh session (2026-12-06), when the `kubectl describe` reader, the queue order of Kueue and KAI and the scan's groups by cause, all of which the page and the npm package serve, brought it from 910,804 B to 985,838 B at inline 100 (left at 100: dropping the inline option would save about 40 KB, not the 64 KB needed, and cost the read-and-index speed the table in `xtask/src/wasm.rs` measured); before that 900 KiB (921,600 B) (920 KiB for part of 2026-12-06, when the ninth session's rules and credentials filter brought it to 930,292 B; the same day the tenth session's core was 954,903 B at inline 175 and 909,241 B at inline 100), issue 16's \"900 KB\" in the binary units it measures the old 1 MiB budget in (`cargo xtask wasm` fails above it); until 2026-12-03 the check stopped at 900,000 B. Measured on 2026-12-01 on the shared 2-core machine (load 5 to 7 from other builds): gzip -9 of the module after wasm-bindgen (names removed); speed in Node against the \"s\" build of the same core, in the same process, best of 6 to 10 interleaved rounds (ranges where two runs differed): every scenario scanned, and `diagnose` and `scan` of a 20 MB `gen-cluster` bundle.\n\n\
With the core of issue 16's first merge:\n\n\
| build | raw | gzip -9 | scenarios | 20 MB diagnose | 20 MB scan |\n|---|---:|---:|---:|---:|---:|\n\
| main before issue 16's work: \"s\", regex-syntax, pest and the YAML crates at \"z\" | 3.4 MB | 1,054,401 B | | | |\n\
| builtin rule paths compiled by `core/build.rs` (no JSONPath parser in the module), rule texts read as JSON, hand-read options; \"s\" | 3,176,143 B | 996,851 B | 1.00× | 1.00× | 1.00× |\n\
| that, everything \"z\" but the core, serde_json, memchr, hashbrown and jsonpath-rust | 3,169,971 B | 997,066 B | | | |\n\
| \"z\" throughout | 2,919,634 B | 882,765 B | 1.29–1.36× | 1.50–1.58× | 1.26–1.54× |\n\
| \"z\", `-inline-threshold=75` | 3,109,409 B | 969,786 B | 0.91× | 1.04× | 1.04× |\n\
| \"z\", inline 40, serde_json and memchr \"s\" | 3,016,737 B | 931,056 B | 0.72–1.02× | 0.95–1.08× | 1.03–1.04× |\n\
| \"z\", inline 20, serde_json and memchr \"s\" | 2,964,025 B | 908,711 B | 0.72–1.00× | 1.13–1.34× | 0.83–1.23× |\n\
| \"z\", inline 12, serde_json and memchr \"s\" | 2,924,717 B | 894,942 B | 0.91–1.22× | 1.31–1.47× | 1.04–1.21× |\n\
| \"z\", inline 20, memchr \"s\", `-max-store-memcpy=2` | 2,935,750 B | 895,551 B | 1.00–1.07× | 1.32–1.40× | 1.14–1.19× |\n\n\
With main c21b41f merged (the timeline and the MCP work added 8 KB gzipped), memchr \"s\" and `-max-store-memcpy=2` in every row but the first:\n\n\
| build | raw | gzip -9 | scenarios | 20 MB diagnose | 20 MB scan |\n|---|---:|---:|---:|---:|---:|\n\
| \"s\" (`-max-store-memcpy=3`) | 3,233,927 B | 1,012,676 B | 1.00× | 1.00× | 1.00× |\n\
| \"z\" | 2,922,926 B | 881,721 B | 1.48× | 1.65× | 1.46× |\n\
| \"z\", inline 20 | 2,964,356 B | 903,936 B | 1.08–1.33× | 1.36–1.60× | 1.23–1.32× |\n\
| **\"z\", inline 15 (shipped)** | 2,923,908 B | **891,270 B** | 1.33–1.36× | 1.48–1.61× | 1.13–1.37× |\n\n\
With the timeline, the layer picture, path codes and `fit` merged (main 865eef2), the shipped build was 900,370 B; `--lang` (the words of every renderer read from `rules/ui.yaml`, the Korean pack's reader, `loadLanguage`, `words()`; the Korean texts themselves ship beside the module in `web/ko.json`, 0 B of it) brought it to 914,392 B on 2026-12-03. No single item: twiggy's diff spreads the 80 KB raw over the renderers, serde's readers for the pack and about 950 smaller functions. Issue 16's backlog work (rule paths walked directly, the scan report written per diagnosis) took it to 923,381 B; builds without `rule-authoring` now leave jsonpath-rust's query engine out, since every builtin path is plain or walked (`every_builtin_path_is_plain_or_walked`) and such a build refuses any other path when rules load: 913,513 B the same day. Reading each event once per view, rule heads looked up once and queue objects lent (2026-12-04) took it to 923,808 B at inline 15; the build shipped until 2026-12-05 inlined up to 10 (921,379 B): 12 to 15 build the same bytes.\n\n\
On 2026-12-05 the patterns (rules' `matches:`, paths' `search()`, the facts that read messages) moved to regex-lite (`core/src/pattern.rs`: one meaning in every build; natively `regex` answers ASCII haystacks, where the two agree): the same \"z\" build fell from 921,074 B to 669,354 B, as regex's Unicode tables and automata left the module. The margin bought speed: **\"s\", inline 175 (shipped): 853,942 B**, reading and indexing the web test's 20 MB bundle in Node in 330–336 ms against 630–636 ms for \"z\" at inline 10 (1.9×); `xtask/src/wasm.rs` has the builds tried between (opt-level 3 alone is 970,791 B). Holding a scan's report packed (lz4_flex, later that day) added 7 KB: 860,923 B. Reading a large List on several threads (which the module, with one thread, never does) added 3.6 KB: 864,523 B.\n\n\
On 2026-12-07 batches 14 and 15's rules and serving-path facts brought the module to 1,034,081 B, over the budget. The rules' fixtures (which incident or scenario each rule fires on, 56 KB of the rules' JSON) are test data that nothing in the module reads, so `core/build.rs` leaves them out of a wasm32 build, and the rule list (`rules()` in the module, `rules -o json` in the CLI, alike) documents each rule without them (the pages in `docs/rules/` and `explain` keep them): 1,023,303 B. The budget was nearly spent again; the lasting room was the rules' prose. On the same day the rules' documentation (`why`, `fix`, `versions`, `references`, and the Markdown `rules()` writes from them) left the module for files beside it, `web/rules.en.json` and `web/rules.ko.json`, which the package's `rules()` lays over the module's list (Node reads them when asked; in a browser `init()` fetches the English and `loadLanguage('ko')` the Korean): with batch 16's three rules and the route facts the module was 959,747 B, with batch 17's two gang rules 966,379 B, and 964,035 B once the module stopped writing the Markdown documentation that the file beside it replaces: 60 KB under the budget. A diagnosis never read those texts, so no verdict or speed changed.\n\n\
So the budget cost the module about a third of its speed in Node until the patterns left regex. Per-crate opt-levels alone do not shrink it: generic code (serde's readers and writers, collections, iterators) is compiled in the crate that uses it, the core, so the core's level decides. \
Where the bytes are (the \"s\" build, twiggy and the sections): code 2.17 MB raw, 708 KB gzipped; data 992 KB raw, 279 KB gzipped, of which the rule files (as JSON) are 97 KB, their compiled paths 7 KB, and most of the rest regex's Unicode tables, which the module no longer has (jsonpath-rust, which needs them, is only in builds with `rule-authoring`). \
Debian's binaryen is never used: its old wasm-opt breaks wasm-bindgen's output; npm binaryen's `wasm-opt -Oz` made the module larger after gzip when last measured.\n";

#[cfg(test)]
mod tests {
    use super::*;

    /// A full run takes half an hour, so docs/benchmarks.md is written rarely: the notes it
    /// carries must be this file's, or an edit here is missing from the committed figures
    /// (and one there would be lost by the next run).
    #[test]
    fn the_committed_benchmarks_carry_these_notes() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/benchmarks.md");
        let doc = std::fs::read_to_string(&path).expect("docs/benchmarks.md");
        for (name, text) in [
            ("BEFORE_AFTER", BEFORE_AFTER),
            ("SHAPES_BEFORE_AFTER", SHAPES_BEFORE_AFTER),
            ("NOTES", NOTES),
        ] {
            assert!(
                doc.contains(text.trim_end()),
                "docs/benchmarks.md lacks the text of {name} in xtask/src/bench.rs"
            );
        }
    }
}
