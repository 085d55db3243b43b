//! The serving request path's checks on small bundles, each where it fires and where a detail
//! that makes the path sound keeps it quiet: a router's engines (`serving/router-engines-not-ready`),
//! a backend naming a Knative route (`serving/backend-is-knative-route`), a PodMonitor copying an
//! absent label (`serving/monitor-copies-absent-label`) and a selector that misses its own
//! template (`serving/selector-misses-own-template`).

use crate::support;
use layer_core::{Bundle, Index};
use serde_json::{Value, json};

fn index(items: Vec<Value>) -> Index {
    let list = json!({"apiVersion": "v1", "kind": "List", "items": items});
    Index::new(Bundle::parse(list.to_string()).expect("parses"))
}

fn fires(items: Vec<Value>, target: &str, rule: &str) -> bool {
    let (_, rules) = support::diagnose(&index(items), target);
    rules.iter().any(|r| r == rule)
}

fn pod(ns: &str, name: &str, labels: Value, ready: bool) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": ns, "labels": labels},
        "spec": {"nodeName": "n1", "containers": [{"name": "vllm", "image": "vllm/vllm-openai:v0.9.0"}]},
        "status": {"phase": "Running", "conditions": [
            {"type": "Ready", "status": if ready { "True" } else { "False" }}]}})
}

fn router() -> Value {
    json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "vllm-deployment-router", "namespace": "default"},
        "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "router"}},
            "template": {"metadata": {"labels": {"app": "router"}}, "spec": {"containers": [{
                "name": "router", "image": "lmcache/lmstack-router:latest",
                "args": ["--service-discovery", "k8s", "--k8s-label-selector=model=llama"]}]}}},
        "status": {"replicas": 1, "readyReplicas": 1, "availableReplicas": 1}})
}

#[test]
fn a_router_is_blamed_for_its_unready_engines_only() {
    const RULE: &str = "serving/router-engines-not-ready";
    const T: &str = "Deployment/default/vllm-deployment-router";
    let engine = |ready| pod("default", "llama-0", json!({"model": "llama"}), ready);
    assert!(fires(vec![router(), engine(false)], T, RULE));
    assert!(!fires(vec![router(), engine(true)], T, RULE));
    let other = pod("default", "other-0", json!({"model": "other"}), false);
    assert!(!fires(vec![router(), other], T, RULE), "not selected");
}

fn isvc(revision: Option<&str>) -> Value {
    let predictor = match revision {
        Some(r) => json!({"latestReadyRevision": r}),
        None => json!({}),
    };
    json!({"apiVersion": "serving.kserve.io/v1beta1", "kind": "InferenceService",
        "metadata": {"name": "llama", "namespace": "models"},
        "spec": {"predictor": {"model": {"modelFormat": {"name": "huggingface"}}}},
        "status": {"components": {"predictor": predictor},
            "conditions": [{"type": "Ready", "status": "True"}]}})
}

fn route(service: &str) -> Value {
    json!({"apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute",
        "metadata": {"name": "llama", "namespace": "models"},
        "spec": {"parentRefs": [{"name": "gw"}],
            "rules": [{"backendRefs": [{"name": service, "port": 80}]}]}})
}

#[test]
fn a_backend_naming_a_serverless_route_fires_and_a_raw_deployment_does_not() {
    const RULE: &str = "serving/backend-is-knative-route";
    const T: &str = "HTTPRoute/models/llama";
    let serverless = || isvc(Some("llama-predictor-00001"));
    assert!(fires(vec![serverless(), route("llama-predictor")], T, RULE));
    assert!(
        !fires(vec![isvc(None), route("llama-predictor")], T, RULE),
        "raw"
    );
    assert!(!fires(
        vec![serverless(), route("llama-predictor-00001-private")],
        T,
        RULE
    ));
}

fn monitor(source: &str) -> Value {
    json!({"apiVersion": "monitoring.coreos.com/v1", "kind": "PodMonitor",
        "metadata": {"name": "engines", "namespace": "mon"},
        "spec": {"namespaceSelector": {"matchNames": ["llm"]},
            "selector": {"matchLabels": {"llm-d.ai/role": "decode"}},
            "podMetricsEndpoints": [{"port": "metrics", "relabelings": [
                {"action": "replace", "sourceLabels": [source], "targetLabel": "pool"}]}]}})
}

#[test]
fn a_monitor_copying_a_label_no_pod_has_fires_and_a_carried_one_does_not() {
    const RULE: &str = "serving/monitor-copies-absent-label";
    const T: &str = "PodMonitor/mon/engines";
    let decode = || {
        pod(
            "llm",
            "decode-0",
            json!({"llm-d.ai/role": "decode", "inference-pool": "p"}),
            true,
        )
    };
    let absent = "__meta_kubernetes_pod_label_llm_d_ai_pool";
    assert!(fires(vec![monitor(absent), decode()], T, RULE));
    // `inference-pool` is `inference_pool` to Prometheus.
    let carried = "__meta_kubernetes_pod_label_inference_pool";
    assert!(!fires(vec![monitor(carried), decode()], T, RULE));
    let plain = pod("llm", "decode-0", json!({"llm-d.ai/role": "decode"}), true);
    let mut unstacked = plain.clone();
    unstacked["metadata"]["labels"] = json!({"role": "decode"});
    assert!(fires(vec![monitor(absent), plain], T, RULE));
    assert!(
        !fires(vec![monitor(absent), unstacked], T, RULE),
        "not selected"
    );
}

fn fleet(selected: &str) -> Value {
    json!({"apiVersion": "orchestration.aibrix.ai/v1alpha1", "kind": "RayClusterFleet",
        "metadata": {"name": "qwen", "namespace": "default"},
        "spec": {"replicas": 1, "selector": {"matchLabels": {"model.aibrix.ai/name": selected}},
            "template": {"metadata": {"labels": {"model.aibrix.ai/name": "qwen-a"}}, "spec": {}}}})
}

#[test]
fn a_selector_that_misses_its_own_template_fires_and_a_matching_one_does_not() {
    const RULE: &str = "serving/selector-misses-own-template";
    const T: &str = "RayClusterFleet/default/qwen";
    assert!(fires(vec![fleet("qwen")], T, RULE));
    assert!(!fires(vec![fleet("qwen-a")], T, RULE));
}
