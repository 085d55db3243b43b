//! fake-gpu-operator's configured pools against what its nodes advertise: `$.facts.fakeGpu`.

use super::Num;
use crate::index::{Index, ObjId};
use crate::json::At as _;
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// `$.facts.fakeGpu`: fake-gpu-operator's configured pools against what each pool node
/// advertises and what its per-node topology ConfigMap lists.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct FakeGpu {
    /// The namespace of the operator's `topology` ConfigMap.
    pub namespace: Option<String>,
    /// Always `topology`.
    pub config_map: String,
    /// The node label that names a node's pool (`nodePoolLabelKey`, else
    /// `run.ai/simulated-gpu-node-pool`).
    pub pool_label_key: String,
    /// The pools `topology.yml` configures.
    pub pools: Vec<FakeGpuPool>,
    /// Every node carrying the pool label.
    pub nodes: Vec<FakeGpuNode>,
    /// Nodes whose advertised GPUs differ from their pool's configured count.
    pub stale_nodes: Vec<String>,
    /// Nodes labelled `run.ai/fake.gpu=true` without a pool label.
    pub unpooled_gpu_nodes: Vec<String>,
}

/// One configured pool.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct FakeGpuPool {
    pub name: String,
    /// Legacy `gpuCount`, else the length of `gpu.overrides.devices`.
    pub gpu_count: Option<Num>,
}

/// One pool node.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct FakeGpuNode {
    pub node: String,
    /// The pool its label names.
    pub pool: String,
    /// The topology configures that pool.
    pub pool_defined: bool,
    /// The pool's configured GPU count.
    pub configured: Option<Num>,
    /// The node's `nvidia.com/gpu` capacity.
    pub advertised: Option<Num>,
    /// Its `topology-<node>` ConfigMap, when in the bundle.
    pub node_topology_config_map: Option<String>,
    /// The GPUs that ConfigMap lists.
    pub node_topology_gpus: Option<Num>,
    /// Configured and advertised (or listed) counts differ.
    pub stale: bool,
}

/// [`fake_gpu`]'s answer: the fact, the topology ConfigMap and the per-node ConfigMaps.
pub type FakeGpuState = (Option<FakeGpu>, Option<ObjId>, Vec<ObjId>);

/// `$.facts.fakeGpu`; null when the operator's topology is not in the bundle.
pub fn fact(ctx: &super::Ctx) -> Option<FakeGpu> {
    fake_gpu_state(ctx.ix).0.clone()
}

/// The node label fake-gpu-operator reads a node's pool from, unless its topology names
/// another (`nodePoolLabelKey`). The live reader looks for it too, to know whether to read the
/// operator's ConfigMaps at all.
pub const FAKE_GPU_POOL_LABEL: &str = "run.ai/simulated-gpu-node-pool";

/// [`fake_gpu`], computed once per index: the view's `fakeGpu` fact and the install facts read
/// the same state.
pub fn fake_gpu_state(ix: &Index) -> std::sync::Arc<FakeGpuState> {
    ix.once("facts.fakeGpu", || fake_gpu(ix))
}

/// fake-gpu-operator: the pools the Helm values configure (ConfigMap `topology`, key
/// `topology.yml`) against what each pool node advertises and what its per-node ConfigMap
/// `topology-<node>` lists.
pub fn fake_gpu(ix: &Index) -> FakeGpuState {
    let Some((cm_id, cm)) = ix
        .named("ConfigMap", "topology")
        .into_iter()
        .map(|id| (id, ix.value(id)))
        .find(|(_, v)| v.at("/data/topology.yml").is_some())
    else {
        return (None, None, Vec::new());
    };
    let ns = ix.object(cm_id).namespace().map(str::to_string);
    let topo: Value = cm
        .at("/data/topology.yml")
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
                p.at("/gpu/overrides/devices")
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
                .at("/data/topology.yml")
                .and_then(Value::as_str)
                .and_then(|t| serde_yaml_ng::from_str(t).ok())?;
            t["gpus"].as_array().map(|g| g.len() as f64)
        });
        let is_stale =
            matches!((configured, advertised.or(node_gpus)), (Some(c), Some(a)) if c != a);
        if is_stale {
            stale.push(node.name.clone());
        }
        nodes.push(FakeGpuNode {
            node: node.name.clone(),
            pool: pool.clone(),
            pool_defined: pools.contains_key(pool),
            configured: configured.map(Num),
            advertised: advertised.map(Num),
            node_topology_config_map: node_cm.map(|_| cm_name),
            node_topology_gpus: node_gpus.map(Num),
            stale: is_stale,
        });
    }
    let unpooled: Vec<String> = ix
        .nodes()
        .values()
        .filter(|n| {
            !n.labels.contains_key(&label_key)
                && n.labels.get("run.ai/fake.gpu").map(String::as_str) == Some("true")
        })
        .map(|n| n.name.clone())
        .collect();
    let fact = FakeGpu {
        namespace: ns,
        config_map: "topology".into(),
        pool_label_key: label_key,
        pools: pools
            .iter()
            .map(|(k, v)| FakeGpuPool {
                name: k.clone(),
                gpu_count: v.map(Num),
            })
            .collect(),
        nodes,
        stale_nodes: stale,
        unpooled_gpu_nodes: unpooled,
    };
    (Some(fact), Some(cm_id), cms)
}
