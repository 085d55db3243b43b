//! Timing harness used by `cargo xtask bench`: for each scenario target, read the bundle, index
//! it and diagnose, `ROUNDS` times; print one JSON line per target with the best round in
//! microseconds. The Node harness (`wasm/tests/bench.mjs`) does the same work through the npm
//! package, so the two are comparable: on one thread, as WASM runs, with the system allocator
//! (what an embedder of the library gets by default).
//!
//! Usage: cargo run --release -p kubectl-layer-core --example bench_scenarios -- SCENARIOS_DIR ROUNDS

use layer_core::{Bundle, Engine, Index, Options, TargetSpec};
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let dir = args.next().expect("scenarios dir");
    let rounds: usize = args.next().and_then(|r| r.parse().ok()).unwrap_or(20);
    let engine = Engine::builtin().expect("rules");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .expect("dir")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("expected.json").exists())
        .collect();
    names.sort();
    for scen in names {
        let bundle_path = ["bundle.json", "bundle.yaml"]
            .iter()
            .map(|f| scen.join(f))
            .find(|p| p.exists())
            .expect("bundle");
        let text = std::fs::read_to_string(&bundle_path).expect("read");
        let expected: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(scen.join("expected.json")).expect("read"),
        )
        .expect("json");
        for e in expected.as_array().expect("array") {
            let target = e["target"].as_str().expect("target");
            let mut best = f64::MAX;
            for _ in 0..rounds {
                let t0 = Instant::now();
                let ix = Index::build(Bundle::parse(text.clone()).expect("parse"), 1);
                let d = layer_core::diagnose(
                    &engine,
                    &ix,
                    &TargetSpec::parse(target, None),
                    &Options::default(),
                )
                .expect("diagnose");
                std::hint::black_box(serde_json::to_string(&d).expect("serialize"));
                best = best.min(t0.elapsed().as_secs_f64() * 1e6);
            }
            println!(
                "{}",
                serde_json::json!({"scenario": scen.file_name().unwrap().to_string_lossy(), "target": target, "bytes": text.len(), "micros": best})
            );
        }
    }
}
