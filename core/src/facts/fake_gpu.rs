//! fake-gpu-operator's configured pools against what its nodes advertise: `$.facts.fakeGpu`.

use super::num;
use crate::index::{Index, ObjId};
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// The node label fake-gpu-operator reads a node's pool from, unless its topology names
/// another (`nodePoolLabelKey`). The live reader looks for it too, to know whether to read the
/// operator's ConfigMaps at all.
pub const FAKE_GPU_POOL_LABEL: &str = "run.ai/simulated-gpu-node-pool";

/// [`fake_gpu`], computed once per index: the view's `fakeGpu` fact and the install facts read
/// the same state.
pub fn fake_gpu_state(ix: &Index) -> std::sync::Arc<(Value, Option<ObjId>, Vec<ObjId>)> {
    ix.once("facts.fakeGpu", || fake_gpu(ix))
}

/// fake-gpu-operator: the pools the Helm values configure (ConfigMap `topology`, key
/// `topology.yml`) against what each pool node advertises and what its per-node ConfigMap
/// `topology-<node>` lists. Returns `{namespace, configMap, poolLabelKey, pools: [{name,
/// gpuCount}], nodes: [{node, pool, configured, advertised, nodeTopologyConfigMap,
/// nodeTopologyGpus, poolDefined, stale}], staleNodes: [..], unpooledGpuNodes: [..]}` or null
/// when the operator's topology is not in the bundle.
pub fn fake_gpu(ix: &Index) -> (Value, Option<ObjId>, Vec<ObjId>) {
    let Some((cm_id, cm)) = ix
        .named("ConfigMap", "topology")
        .into_iter()
        .map(|id| (id, ix.value(id)))
        .find(|(_, v)| v.pointer("/data/topology.yml").is_some())
    else {
        return (Value::Null, None, Vec::new());
    };
    let ns = ix.object(cm_id).namespace.clone();
    let topo: Value = cm
        .pointer("/data/topology.yml")
        .and_then(Value::as_str)
        .and_then(|t| serde_yaml_ng::from_str(t).ok())
        .unwrap_or(Value::Null);
    let label_key = topo["nodePoolLabelKey"]
        .as_str()
        .unwrap_or(FAKE_GPU_POOL_LABEL)
        .to_string();
    let mut pools = BTreeMap::new();
    if let Some(ps) = topo["nodePools"].as_object() {
        for (name, p) in ps {
            // Legacy values: gpuCount. Newer: gpu.overrides.devices lists each device.
            let count = p["gpuCount"].as_f64().or_else(|| {
                p.pointer("/gpu/overrides/devices")
                    .and_then(Value::as_array)
                    .map(|d| d.len() as f64)
            });
            pools.insert(name.clone(), count);
        }
    }
    let mut nodes = Vec::new();
    let mut stale = Vec::new();
    let mut cms = Vec::new();
    for node in ix.nodes().values() {
        let Some(pool) = node.labels.get(&label_key) else {
            continue;
        };
        let advertised = node.capacity.get("nvidia.com/gpu").copied();
        let configured = pools.get(pool).copied().flatten();
        let cm_name = format!("topology-{}", node.name);
        let node_cm = ix.find("ConfigMap", ns.as_deref(), &cm_name);
        let node_gpus = node_cm.and_then(|id| {
            cms.push(id);
            let v = ix.value(id);
            let t: Value = v
                .pointer("/data/topology.yml")
                .and_then(Value::as_str)
                .and_then(|t| serde_yaml_ng::from_str(t).ok())?;
            t["gpus"].as_array().map(|g| g.len() as f64)
        });
        let is_stale =
            matches!((configured, advertised.or(node_gpus)), (Some(c), Some(a)) if c != a);
        if is_stale {
            stale.push(node.name.clone());
        }
        nodes.push(json!({
            "node": node.name, "pool": pool, "poolDefined": pools.contains_key(pool),
            "configured": configured.map(num), "advertised": advertised.map(num),
            "nodeTopologyConfigMap": node_cm.map(|_| cm_name), "nodeTopologyGpus": node_gpus.map(num), "stale": is_stale,
        }));
    }
    let unpooled: Vec<&String> = ix
        .nodes()
        .values()
        .filter(|n| {
            !n.labels.contains_key(&label_key)
                && n.labels.get("run.ai/fake.gpu").map(String::as_str) == Some("true")
        })
        .map(|n| &n.name)
        .collect();
    let fact = json!({
        "namespace": ns, "configMap": "topology", "poolLabelKey": label_key,
        "pools": pools.iter().map(|(k, v)| json!({"name": k, "gpuCount": v.map(num)})).collect::<Vec<_>>(),
        "nodes": nodes, "staleNodes": stale, "unpooledGpuNodes": unpooled,
    });
    (fact, Some(cm_id), cms)
}

/// `$.facts.fakeGpu`: see [`fake_gpu`]; null when the operator's topology is not in the bundle.
pub fn fact(ctx: &super::Ctx) -> Value {
    fake_gpu_state(ctx.ix).0.clone()
}
