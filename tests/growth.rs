//! How time grows with the size of a hostile input: a test compares two sizes measured in this
//! run, never a time limit. A binary of its own, so no other test competes for the cores while
//! it measures.

use layer_core::{Engine, Index, LayerState, Options, TargetSpec};
use serde_json::Value;
use std::sync::OnceLock;

fn engine() -> &'static Engine {
    static ENGINE: OnceLock<Engine> = OnceLock::new();
    ENGINE.get_or_init(|| Engine::builtin().expect("the built-in rules load"))
}

/// A pod with `n` controller references, half to Jobs the bundle holds (each owned by the
/// next, a chain the owner walk follows) and half to Jobs it lacks: parsed, indexed and judged.
fn judge_a_pod_with_owners(n: usize) -> std::time::Duration {
    let mut items: Vec<Value> = (0..n / 2)
        .map(|i| {
            serde_json::json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {
                "name": format!("j{i}"), "namespace": "ml", "uid": format!("u{i}"),
                "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job",
                    "name": format!("j{}", i + 1), "uid": format!("u{}", i + 1), "controller": true}]}})
        })
        .collect();
    let owners: Vec<Value> = (0..n)
        .map(|i| {
            serde_json::json!({"apiVersion": "batch/v1", "kind": "Job", "name": format!("j{i}"),
                               "uid": format!("u{i}"), "controller": true})
        })
        .collect();
    items.push(serde_json::json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "x", "namespace": "ml", "ownerReferences": owners},
        "spec": {"containers": [{"name": "c", "resources": {"limits": {"nvidia.com/gpu": 1}}}]},
        "status": {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False",
            "reason": "Unschedulable", "message": "0/3 nodes are available: 3 Insufficient nvidia.com/gpu."}]}}));
    let text = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": items}).to_string();
    let started = std::time::Instant::now();
    let ix = Index::new(layer_core::Bundle::parse(text).expect("parses"));
    let id = layer_core::target::resolve(&ix, &TargetSpec::parse("Pod/ml/x", None))
        .expect("the pod is in the bundle");
    let (d, _) = engine().evaluate(&ix, id, &Options::default());
    let took = started.elapsed();
    assert_eq!(d.verdict.state, LayerState::Blocked);
    took
}

/// Owner references cost time in proportion to their number: 2,500 once took 5.8 s and 5,000
/// took 58 s (ten times the time for twice the references). A ratio of two sizes measured in
/// this run, not a time limit: at eight times the references, linear work takes about eight
/// times as long and quadratic work sixty-four; the bound of 24 leaves room for a noisy machine
/// and still fails anything worse than linear by far.
#[test]
fn owner_references_cost_time_in_proportion_to_their_number() {
    let best = |n: usize| {
        (0..3)
            .map(|_| judge_a_pod_with_owners(n))
            .min()
            .expect("three rounds")
    };
    best(500); // warm the engine and the allocator
    let small = best(1_000);
    let large = best(8_000);
    let growth = large.as_secs_f64() / small.as_secs_f64().max(1e-6);
    println!("owner references: 1,000 in {small:?}, 8,000 in {large:?} ({growth:.1}×)");
    assert!(
        growth < 24.0,
        "8,000 owner references took {large:?}, 1,000 took {small:?}: {growth:.1}× for 8× the references"
    );
}
