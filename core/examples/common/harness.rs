//! The scale harness's modes, shared by the `scale` example (mimalloc, the allocator
//! `kubectl-layer` ships) and `scale_system` (the system allocator, which an embedder of the
//! library gets by default, and under which serde_json builds a `Value` fastest). See
//! `scale.rs` for the modes.

use layer_core::{Bundle, Engine, Index, Options, TargetSpec};
use serde_json::json;
use std::time::Instant;

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

pub fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (mode, path) = match (args.first(), args.get(1)) {
        (Some(m), Some(p)) => (m.as_str(), p.as_str()),
        _ => {
            eprintln!(
                "usage: scale scan|groups|why|fit|pick|parse|value|ignored|read FILE [ARGS] | scale dump DIR"
            );
            std::process::exit(2);
        }
    };
    if mode == "dump" {
        dump(path);
        return;
    }
    let threads: usize = std::env::var("SCALE_THREADS")
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or(0);
    // The reader uses the same threads as the index and the scan.
    let parse = |text: String| {
        Bundle::parse_with(
            text,
            layer_core::ReadLimits {
                threads,
                ..Default::default()
            },
        )
        .expect("bundle")
    };
    let t0 = Instant::now();
    let text = std::fs::read_to_string(path).expect("read");
    let cpu0 = cpu_ms();
    let read_ms = ms(t0);
    let bytes = text.len();
    let out = match mode {
        "read" => json!({"mode": mode, "bytes": bytes, "readMs": read_ms}),
        "value" => {
            let t = Instant::now();
            let v: serde_json::Value = serde_json::from_str(&text).expect("json");
            let parse_ms = ms(t);
            // Dropped after the clock stops: the floor is building the tree, not freeing it.
            drop(std::hint::black_box(v));
            json!({"mode": mode, "bytes": bytes, "readMs": read_ms, "ms": parse_ms})
        }
        "ignored" => {
            let t = Instant::now();
            let v: serde::de::IgnoredAny = serde_json::from_str(&text).expect("json");
            std::hint::black_box(v);
            json!({"mode": mode, "bytes": bytes, "readMs": read_ms, "ms": ms(t)})
        }
        "parse" => {
            use std::hash::{Hash, Hasher};
            let t = Instant::now();
            let bundle = parse(text);
            let parse_ms = ms(t);
            let mut h = std::hash::DefaultHasher::new();
            for o in bundle.objects() {
                (&o.api_version(), &o.kind(), &o.namespace(), &o.name, &o.uid).hash(&mut h);
                (&o.resource_version(), bundle.raw(o)).hash(&mut h);
            }
            json!({"mode": mode, "bytes": bytes, "objects": bundle.objects().len(),
                   "digest": format!("{:016x}", h.finish()), "readMs": read_ms, "parseMs": parse_ms})
        }
        "scan" => {
            let engine = Engine::builtin().expect("rules");
            let t = Instant::now();
            let bundle = parse(text);
            let parse_ms = ms(t);
            let objects = bundle.objects().len();
            let t = Instant::now();
            let ix = Index::build(bundle, threads);
            let index_ms = ms(t);
            let t = Instant::now();
            let opts = Options {
                threads,
                ..Options::default()
            };
            // As `kubectl layer scan -o json` does: each diagnosis written as JSON on its
            // thread, then the report streamed through a buffer.
            let report = layer_core::target::scan_json(&engine, &ix, &opts, None);
            let scan_ms = ms(t);
            let t = Instant::now();
            let sink: Box<dyn std::io::Write> = match args.get(2) {
                Some(out) => Box::new(std::fs::File::create(out).expect("create")),
                None => Box::new(std::io::sink()),
            };
            let mut w = std::io::BufWriter::with_capacity(1 << 16, sink);
            report.write_pretty(&mut w).expect("write");
            std::io::Write::write_all(&mut w, b"\n").expect("write");
            std::io::Write::flush(&mut w).expect("write");
            let serialize_ms = ms(t);
            json!({"mode": mode, "bytes": bytes, "objects": objects, "diagnoses": report.parts().len(),
                   "readMs": read_ms, "parseMs": parse_ms, "indexMs": index_ms, "scanMs": scan_ms,
                   "serializeMs": serialize_ms, "ms": parse_ms + index_ms + scan_ms + serialize_ms})
        }
        "groups" => {
            // As `kubectl layer scan` (text) does: each piece of work judged to its verdict
            // line on its thread (the groups' examples diagnosed whole), then the groups by
            // cause written.
            let engine = Engine::builtin().expect("rules");
            let t = Instant::now();
            let bundle = parse(text);
            let objects = bundle.objects().len();
            let parse_ms = ms(t);
            let t = Instant::now();
            let ix = Index::build(bundle, threads);
            let index_ms = ms(t);
            let t = Instant::now();
            let opts = Options {
                threads,
                ..Options::default()
            };
            let lines = layer_core::target::scan_group_lines(&engine, &ix, &opts, None);
            let scan_ms = ms(t);
            let t = Instant::now();
            let mut out = Vec::new();
            layer_core::render::scan_groups_text_to(
                &mut out,
                &lines,
                layer_core::render::Style { color: false },
            )
            .expect("write");
            let write_ms = ms(t);
            if let Some(to) = args.get(2) {
                std::fs::write(to, &out).expect("write the text");
            }
            let text_lines = out.iter().filter(|&&b| b == b'\n').count();
            json!({"mode": mode, "bytes": bytes, "objects": objects, "diagnoses": lines.lines.len(),
                   "textLines": text_lines, "readMs": read_ms, "parseMs": parse_ms,
                   "indexMs": index_ms, "scanMs": scan_ms, "writeMs": write_ms,
                   "ms": parse_ms + index_ms + scan_ms + write_ms})
        }
        "why" => {
            let target = args.get(2).expect("target");
            let rounds: usize = args.get(3).and_then(|r| r.parse().ok()).unwrap_or(20);
            let engine = Engine::builtin().expect("rules");
            let spec = TargetSpec::parse(target, None);
            let opts = Options::default();
            let t = Instant::now();
            let ix = Index::build(parse(text), threads);
            let index_ms = ms(t);
            let t = Instant::now();
            let d = layer_core::diagnose(&engine, &ix, &spec, &opts).expect("diagnose");
            let first = serde_json::to_string(&d).expect("serialize");
            let diagnose_ms = ms(t);
            let id = layer_core::target::resolve(&ix, &spec).expect("resolve");
            let mut best = f64::MAX;
            for _ in 0..rounds {
                let t = Instant::now();
                let d = engine.diagnose(&ix, id, &opts);
                best = best.min(ms(t));
                assert_eq!(serde_json::to_string(&d).expect("serialize"), first);
            }
            json!({"mode": mode, "bytes": bytes, "target": target, "readMs": read_ms,
                   "indexMs": index_ms, "diagnoseMs": diagnose_ms, "ms": index_ms + diagnose_ms,
                   "indexedMs": best, "verdict": d.verdict.layer})
        }
        "fit" => {
            // As `kubectl layer fit MANIFEST -f FILE` does from the bundle's text: parse the
            // cluster, place the manifest, index the whole once and diagnose its work.
            let manifest = args.get(2).expect("manifest");
            let engine = Engine::builtin().expect("rules");
            let manifest = std::fs::read_to_string(manifest).expect("read manifest");
            let manifest = Bundle::parse(manifest).expect("manifest");
            let t = Instant::now();
            let bundle = parse(text);
            let parse_ms = ms(t);
            let t = Instant::now();
            let opts = layer_core::fit::FitOptions {
                threads,
                ..Default::default()
            };
            let ds = layer_core::fit::fit(&engine, bundle, &manifest, &opts).expect("fit");
            let fit_ms = ms(t);
            json!({"mode": mode, "bytes": bytes, "readMs": read_ms, "parseMs": parse_ms,
                   "fitMs": fit_ms, "ms": parse_ms + fit_ms,
                   "verdicts": ds.iter().map(|d| d.verdict.layer).collect::<Vec<_>>()})
        }
        "pick" => {
            let ix = Index::new(parse(text));
            let pending =
                |id: usize| ix.object(id).kind() == "Pod" && ix.pod(id).is_some_and(|p| !p.settled);
            let gpu = |id: usize| {
                ix.pod(id)
                    .is_some_and(|p| p.requests.iter().any(|(k, _)| k == "nvidia.com/gpu"))
            };
            let pick = (0..ix.len())
                .filter(|&id| pending(id))
                .map(|id| {
                    (
                        !gpu(id),
                        layer_core::view::object_ref(&ix, id).target_value(),
                    )
                })
                .min()
                .map(|(_, t)| t);
            json!({"mode": mode, "target": pick})
        }
        other => {
            eprintln!("unknown mode {other}");
            std::process::exit(2);
        }
    };
    let mut out = out;
    out["peakKb"] = json!(peak_kb());
    out["threads"] = json!(layer_core::par::threads(threads));
    out["cpuMs"] = json!(cpu_ms().zip(cpu0).map(|(b, a)| b - a));
    println!("{out}");
}

fn dump(dir: &str) {
    let engine = Engine::builtin().expect("rules");
    let mut scenarios: Vec<_> = std::fs::read_dir(dir)
        .expect("dir")
        .flatten()
        .map(|e| e.path())
        .collect();
    scenarios.sort();
    for scen in scenarios {
        let Some(path) = ["bundle.json", "bundle.yaml"]
            .iter()
            .map(|f| scen.join(f))
            .find(|p| p.exists())
        else {
            continue;
        };
        let text = std::fs::read_to_string(&path).expect("read");
        let Ok(bundle) = Bundle::parse(text) else {
            continue;
        };
        let ix = Index::new(bundle);
        let opts = Options::default();
        println!(
            "{}",
            json!({"scenario": path.display().to_string(), "scan": layer_core::scan(&engine, &ix, &opts)})
        );
        for t in layer_core::targets(&ix) {
            let spec = TargetSpec::parse(&t.value, None);
            let d = layer_core::diagnose(&engine, &ix, &spec, &opts).map_err(|e| e.to_string());
            println!("{}", json!({"target": t.value, "diagnosis": d.ok()}));
        }
    }
}

/// Peak resident set size of this process in KiB (`VmHWM`).
pub fn peak_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// CPU time of this process so far (user and system, every thread) in ms, from
/// `/proc/self/stat`. Kernel clock ticks are 10 ms on Linux.
pub fn cpu_ms() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and
    // 13th from there.
    let rest = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    Some(ticks * 10.0)
}
