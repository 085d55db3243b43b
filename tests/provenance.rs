//! Selector provenance against Kueue's topology-aware scheduling (`$.facts.selectorSource.topology`,
//! core/src/facts/provenance.rs): a domain TAS assigned that no node shares with the pod's own
//! selector is named; a domain whose node meets the pod, or a level the pod does not require, is
//! not.

use layer_core::{Bundle, Index, TargetSpec};
use serde_json::{Value, json};

fn node(name: &str, pool: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name,
        "labels": {"kubernetes.io/hostname": name, "example.com/pool": pool}}})
}

/// The leader of an admitted group: its own selector wants `pool` nodes, TAS put it on the GPU
/// host `gpu-node-1`.
fn bundle(pool: &str, levels: Value) -> Index {
    let workload = json!({"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "Workload",
        "metadata": {"name": "wl", "namespace": "ml"},
        "spec": {"queueName": "q", "podSets": [{"name": "leader", "count": 1}]},
        "status": {"conditions": [{"type": "Admitted", "status": "True"}],
            "admission": {"clusterQueue": "cq", "podSetAssignments": [{"name": "leader",
                "topologyAssignment": {"levels": levels,
                    "domains": [{"count": 1, "values": ["gpu-node-1"]}]}}]}}});
    let pod = json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "leader-0", "namespace": "ml",
            "labels": {"kueue.x-k8s.io/podset": "leader", "kueue.x-k8s.io/queue-name": "q"},
            "annotations": {"kueue.x-k8s.io/workload": "wl"}},
        "spec": {"containers": [{"name": "c"}],
            "nodeSelector": {"example.com/pool": pool, "kubernetes.io/hostname": "gpu-node-1"}},
        "status": {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False",
            "reason": "Unschedulable",
            "message": "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector."}]}});
    let items = vec![
        node("gpu-node-1", "gpu"),
        node("cpu-node-1", "cpu"),
        workload,
        pod,
    ];
    let list = json!({"apiVersion": "v1", "kind": "List", "items": items});
    Index::new(Bundle::parse(list.to_string()).expect("parses"))
}

fn topology(ix: &Index) -> Value {
    let spec = TargetSpec::parse("Pod/ml/leader-0", None);
    let id = layer_core::target::resolve(ix, &spec).expect("resolves");
    let view = layer_core::view::build(ix, id, None);
    view.value["facts"]["selectorSource"]["topology"].clone()
}

/// Each label is on some node, but none has both: the TAS domain is the cause.
#[test]
fn a_tas_domain_apart_from_the_pods_own_selector_is_named() {
    let ix = bundle("cpu", json!(["kubernetes.io/hostname"]));
    assert_eq!(topology(&ix), json!(["kubernetes.io/hostname=gpu-node-1"]));
}

#[test]
fn a_domain_whose_node_meets_the_pod_or_no_tas_level_names_nothing() {
    let fits = bundle("gpu", json!(["kubernetes.io/hostname"]));
    assert_eq!(topology(&fits), Value::Null);
    let other_level = bundle("cpu", json!(["example.com/rack"]));
    assert_eq!(topology(&other_level), Value::Null);
}
