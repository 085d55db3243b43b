//! Facts of the device layer, at `$.facts.device` (null when there is no pod to judge).
//!
//! Shape (every list may be empty):
//! - `nodeCount`: Node objects in the bundle (0: nothing can be said about what nodes advertise).
//! - `requested`: extended resources (names with `/`) the pod asks for; `notAdvertised`: those no
//!   node advertises; `advertised`: every extended resource some node advertises (allocatable >
//!   0), `advertisedText` the same joined with ", " (or `none`).
//! - `silentGpuNodes`: names of the nodes whose labels say they hold NVIDIA GPUs
//!   (`nvidia.com/gpu.present=true`, `feature.node.kubernetes.io/pci-10de.present=true` or
//!   `nvidia.com/gpu.count` > 0) but that advertise no `nvidia.com/gpu` (nor
//!   `nvidia.com/gpu.shared`) allocatable; `silentDetail`: one `node (capacity X, allocatable Y)`
//!   string per silent node; `silentLabels`: the distinct GPU labels those nodes carry (in node
//!   name order).
//! - `degraded`: `[{node, resource, capacity, allocatable, unhealthy}]` for requested resources
//!   where a node's allocatable is below its capacity (devices reported unhealthy), the bound
//!   node first; also `bound`, `request` and `fitsWhenHealthy` (the request fits the capacity).
//! - `sharedRename`: `[{requested, advertised, nodes}]` when the pod asks for `R` and nodes
//!   advertise only `R.shared` (time-slicing/MPS `renameByDefault`), or the reverse.
//! - `selector`: `[{key, want, matching, nodesWithKey, values, sharedSuffix}]` for each GPU
//!   feature-discovery label (`nvidia.com/…`) the pod's nodeSelector or required node affinity
//!   (operator `In`) asks for; `matching` counts nodes whose value matches, `values` lists the
//!   distinct values nodes carry, `sharedSuffix` is true when some node carries `<want>-SHARED`;
//!   `hint` says in words which of these cases it is.
//! - `admission`: the kubelet's admission rejection of a Failed pod or null:
//!   `{reason, message, kind, resource}` with `kind` one of `devicesUnavailable`, `unhealthy`,
//!   `unregistered`, `sharedRequestTooLarge`, `outOfResource`, `pluginError`, `other`;
//!   `nodeShort`: the bound node (when in the bundle) has less of the resource allocatable than
//!   its capacity, null without the node.
//! - `gpuOperator`: null, or `{clusterPolicy, state, ready, message, failingPods: [{pod,
//!   namespace, node, component, container, reason, message, restarts}], failingSummary}` for
//!   the NVIDIA GPU Operator's ClusterPolicy and its operand pods that are not ready.
//! - `pluginPods`: device-plugin pods (GPU Operator, NVIDIA chart, fake-gpu-operator) that are not
//!   ready: `[{pod, namespace, node, container, reason, restarts, message}]`; `pluginSummary`
//!   describes them in one string.
//! - `fakeGpuInstall`: null, or `{runtimeClass, handler, k3sOwned, poolLabelKey, poolNodes,
//!   operatorPods, topologyConfigMap, releases: [{name, namespace, status, version}],
//!   failedReleases}` — what a bundle shows of a fake-gpu-operator install on k3s.
//! - `dra`: null, or `{claims: [{entry, claim, template, generated, templateExists, allocated,
//!   requests: [{name, deviceClassName, classExists, driver}]}], missingClasses, ungenerated,
//!   unallocated, drivers: [{name, slices, nodes, missingOn, onBoundNode}], driversWithoutSlices,
//!   classDrivers}`; `missingOn` lists worker nodes (no control-plane label) without a slice of
//!   that driver, `coverage` says the same in words; `ungenerated` describes each template claim not created yet.

mod dra;
mod fake_gpu_install;
mod gpu_operator;
mod plugins;
mod pod_state;

use super::{Ctx, to_json};
use crate::facts::num;
use crate::index::NodeTables;
use regex::Regex;
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::LazyLock;

static UNAVAILABLE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"requested number of devices unavailable for (\S+?)\. Requested")
        .expect("static regex")
});
static UNHEALTHY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"cannot allocate (?:unhealthy|unregistered) devices? ([^ ,]+)")
        .expect("static regex")
});

const GPU: &str = "nvidia.com/gpu";
const SHARED_SUFFIX: &str = ".shared";

/// What the device facts say the same way for every view, computed once per index.
struct Cluster {
    silent: Vec<String>,
    silent_detail: Vec<String>,
    silent_labels: Vec<String>,
    offered: BTreeSet<String>,
    plugins: Vec<plugins::PluginPod>,
    plugin_summary: String,
    gpu_operator: Option<gpu_operator::GpuOperator>,
    fake_gpu_install: Option<fake_gpu_install::FakeGpuInstall>,
}

fn cluster(ctx: &Ctx) -> std::sync::Arc<Cluster> {
    ctx.ix.once("device.cluster", || cluster_facts(ctx))
}

/// The device layer's facts for one view.
pub fn facts(ctx: &Ctx) -> Value {
    let ix = ctx.ix;
    let Some(pod) = ctx.pod else {
        return Value::Null;
    };
    let Some(pv) = ctx.pod_value() else {
        return Value::Null;
    };
    let pv: &Value = &pv;
    let requests: BTreeMap<String, f64> = ix
        .pod(pod)
        .map(|p| p.requests.iter().cloned().collect())
        .unwrap_or_default();
    let requested: Vec<&String> = requests.keys().filter(|k| k.contains('/')).collect();
    let bound = pv.pointer("/spec/nodeName").and_then(Value::as_str);
    let tables = ix.node_tables();
    let cl = cluster(ctx);

    // Devices reported unhealthy: allocatable below capacity.
    let mut degraded = Vec::new();
    for r in &requested {
        let Some(t) = tables.resources.get(r.as_str()) else {
            continue;
        };
        for n in t.degraded.iter().map(|&p| &tables.nodes[p]) {
            let cap = n.capacity.get(*r).copied().unwrap_or(0.0);
            let alloc = n.allocatable.get(*r).copied().unwrap_or(0.0);
            degraded.push((
                Some(n.name.as_str()) != bound,
                json!({"node": n.name, "resource": r, "capacity": num(cap), "allocatable": num(alloc),
                       "unhealthy": num(cap - alloc), "bound": Some(n.name.as_str()) == bound,
                       "request": num(requests[*r]), "fitsWhenHealthy": requests[*r] <= cap}),
            ));
        }
    }
    // Stable: rows of one node keep the order of `requested`.
    degraded.sort_by_key(|(not_bound, v)| (*not_bound, v["node"].as_str().map(str::to_string)));
    let degraded: Vec<Value> = degraded.into_iter().map(|(_, v)| v).collect();

    // Time-slicing/MPS renames: R asked, only R.shared advertised (or the reverse).
    let advertising = |name: &str| -> &[usize] {
        tables
            .resources
            .get(name)
            .map_or(&[], |t| t.advertising.as_slice())
    };
    let mut renames = Vec::new();
    for r in &requested {
        if !advertising(r).is_empty() {
            continue;
        }
        let other = match r.strip_suffix(SHARED_SUFFIX) {
            Some(base) => base.to_string(),
            None => format!("{r}{SHARED_SUFFIX}"),
        };
        let nodes: Vec<&str> = advertising(&other)
            .iter()
            .map(|&p| tables.nodes[p].name.as_str())
            .collect();
        if !nodes.is_empty() {
            renames.push(json!({"requested": r, "advertised": other, "nodes": nodes}));
        }
    }
    let offered = &cl.offered;
    let not_offered: Vec<&String> = requested
        .iter()
        .copied()
        .filter(|r| !offered.contains(*r))
        .collect();
    let advertised_text = if offered.is_empty() {
        "none".to_string()
    } else {
        offered.iter().cloned().collect::<Vec<_>>().join(", ")
    };
    crate::json::object([
        ("nodeCount", json!(ix.nodes().len())),
        ("requested", json!(requested)),
        ("advertised", json!(offered.iter().collect::<Vec<_>>())),
        ("advertisedText", Value::from(advertised_text)),
        ("notAdvertised", json!(not_offered)),
        ("silentGpuNodes", json!(cl.silent)),
        ("silentDetail", json!(cl.silent_detail)),
        ("silentLabels", json!(cl.silent_labels)),
        ("degraded", Value::Array(degraded)),
        ("sharedRename", Value::Array(renames)),
        ("selector", selector(&tables, pv)),
        ("admission", admission(ctx.ix, pv)),
        ("gpuOperator", to_json(&cl.gpu_operator)),
        ("pluginPods", to_json(&cl.plugins)),
        ("pluginSummary", json!(cl.plugin_summary)),
        ("fakeGpuInstall", to_json(&cl.fake_gpu_install)),
        ("dra", to_json(&dra::dra(ctx, pv))),
    ])
}

/// The parts of the device facts that do not depend on the view.
fn cluster_facts(ctx: &Ctx) -> Cluster {
    let ix = ctx.ix;
    // Nodes whose labels say they hold NVIDIA GPUs, and which of them advertise none.
    let mut silent = Vec::new();
    let mut silent_detail = Vec::new();
    let mut silent_labels: Vec<String> = Vec::new();
    for n in ix.nodes().values() {
        let mut why = Vec::new();
        for (k, want) in [
            ("nvidia.com/gpu.present", "true"),
            ("feature.node.kubernetes.io/pci-10de.present", "true"),
        ] {
            if n.labels.get(k).map(String::as_str) == Some(want) {
                why.push(format!("{k}={want}"));
            }
        }
        if let Some(c) = n.labels.get("nvidia.com/gpu.count")
            && c.parse::<f64>().is_ok_and(|c| c > 0.0)
        {
            why.push(format!("nvidia.com/gpu.count={c}"));
        }
        if why.is_empty() {
            continue;
        }
        let cap = n.capacity.get(GPU).copied();
        let alloc = n.allocatable.get(GPU).copied();
        let shared = n
            .allocatable
            .get(&format!("{GPU}{SHARED_SUFFIX}"))
            .copied()
            .unwrap_or(0.0);
        if alloc.unwrap_or(0.0) <= 0.0 && shared <= 0.0 {
            for label in &why {
                if !silent_labels.contains(label) {
                    silent_labels.push(label.clone());
                }
            }
            silent.push(n.name.clone());
            silent_detail.push(format!(
                "{} ({})",
                n.name,
                match (cap, alloc) {
                    (None, _) => "no nvidia.com/gpu capacity".to_string(),
                    (Some(c), a) =>
                        format!("capacity {}, allocatable {}", num(c), num(a.unwrap_or(0.0))),
                }
            ));
        }
    }

    // Every extended resource some node advertises (allocatable > 0), for "asked X, have Y".
    let mut offered: BTreeSet<String> = BTreeSet::new();
    for n in ix.nodes().values() {
        for (k, v) in &n.allocatable {
            if k.contains('/') && *v > 0.0 && !k.starts_with("hugepages") {
                offered.insert(k.clone());
            }
        }
    }
    let plugins = plugins::plugin_pods(ctx);
    let plugin_summary = plugins::plugin_summary(&plugins);
    Cluster {
        silent,
        silent_detail,
        silent_labels,
        offered,
        plugins,
        plugin_summary,
        gpu_operator: gpu_operator::gpu_operator(ctx),
        fake_gpu_install: fake_gpu_install::fake_gpu_install(ctx),
    }
}

/// GPU feature-discovery labels the pod selects on, against what the nodes carry.
fn selector(tables: &NodeTables, pv: &Value) -> Value {
    let mut wants: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (key, vals) in crate::facts::required_node_labels(pv) {
        wants.entry(key).or_default().extend(vals);
    }
    let mut out = Vec::new();
    for (key, vals) in wants {
        if !key.starts_with("nvidia.com/") {
            continue;
        }
        let carried: BTreeSet<String> = tables.label_values(&key).into_iter().cloned().collect();
        let with_key = tables.count_with_label(&key);
        let matching = tables.with_label_in(&key, &vals).len();
        let shared = vals
            .iter()
            .any(|v| carried.contains(&format!("{v}-SHARED")));
        let want = vals.iter().cloned().collect::<Vec<_>>().join(" or ");
        let hint = if shared {
            format!(
                "the GPUs are shared (time-slicing or MPS without renaming), so GPU feature discovery labels them {want}-SHARED"
            )
        } else if with_key == 0 {
            format!(
                "no node has the label {key} at all: GPU feature discovery is not labelling the GPU nodes"
            )
        } else {
            "no node has a GPU with that value".to_string()
        };
        out.push(json!({
            "hint": hint,
            "key": key, "want": want,
            "matching": matching, "nodesWithKey": with_key,
            "values": carried.into_iter().collect::<Vec<_>>(), "sharedSuffix": shared,
        }));
    }
    Value::Array(out)
}

/// The kubelet's admission rejection of a pod (phase Failed, reason from the device manager).
/// `nodeShort` says whether the pod's node, when the bundle holds it, holds back some of the
/// resource (allocatable below capacity: devices the plugin reports unhealthy); null without the
/// node. Only then does the node's count explain a "devices unavailable" rejection; otherwise it
/// is the kubelet's own bookkeeping that refused.
fn admission(ix: &crate::index::Index, pv: &Value) -> Value {
    if pv.pointer("/status/phase").and_then(Value::as_str) != Some("Failed") {
        return Value::Null;
    }
    let Some(reason) = pv.pointer("/status/reason").and_then(Value::as_str) else {
        return Value::Null;
    };
    let message = pv
        .pointer("/status/message")
        .and_then(Value::as_str)
        .unwrap_or("");
    let (kind, resource) = if let Some(r) = reason.strip_prefix("OutOf") {
        ("outOfResource", Some(r.to_string()))
    } else if reason == "UnexpectedAdmissionError" {
        if message.contains("maximum request size for shared resources is 1") {
            let r = Regex::new(r"request for '([^:']+):")
                .ok()
                .and_then(|re| re.captures(message).map(|c| c[1].to_string()));
            ("sharedRequestTooLarge", r)
        } else if let Some(c) = UNAVAILABLE.captures(message) {
            ("devicesUnavailable", Some(c[1].to_string()))
        } else if let Some(c) = UNHEALTHY.captures(message) {
            let kind = if message.contains("unregistered") {
                "unregistered"
            } else {
                "unhealthy"
            };
            (kind, Some(c[1].to_string()))
        } else if message.contains("rpc error") {
            ("pluginError", None)
        } else {
            ("other", None)
        }
    } else {
        return Value::Null;
    };
    let node_short = pv
        .pointer("/spec/nodeName")
        .and_then(Value::as_str)
        .and_then(|n| ix.nodes().get(n))
        .zip(resource.as_deref())
        .map(|(n, r)| {
            let cap = n.capacity.get(r).copied().unwrap_or(0.0);
            n.allocatable.get(r).copied().unwrap_or(0.0) < cap
        });
    json!({"reason": reason, "message": message, "kind": kind, "resource": resource, "nodeShort": node_short})
}

/// What the nodes advertise of each device resource (names with a `/`), whatever the view's
/// pod: `$.facts.deviceAdvertised` = `[{name, nodes, allocatable, requested, free}]`, sorted by
/// name, or empty. It lets the device layer speak for work that has no pod yet (a suspended Job,
/// a JobSet whose Jobs are not created) from the Nodes the bundle holds.
pub fn advertised(ctx: &Ctx) -> Value {
    let tables = ctx.ix.node_tables();
    Value::Array(
        tables
            .resources
            .iter()
            .filter(|(name, t)| name.contains('/') && !t.advertising.is_empty())
            .map(|(name, t)| {
                json!({
                    "name": name, "nodes": t.advertising.len(), "allocatable": t.allocatable,
                    "requested": t.requested, "free": (t.allocatable - t.requested).max(0.0),
                })
            })
            .collect(),
    )
}
