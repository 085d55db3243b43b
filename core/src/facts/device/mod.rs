//! Facts of the device layer, at `$.facts.device` (null when there is no pod to judge), and
//! what the nodes advertise whatever the pod, at `$.facts.deviceAdvertised`.
//!
//! Every field is documented on [`DeviceFacts`], [`AdvertisedResource`] and their parts, from
//! which `docs/view.md` and the schema rule paths are checked against are generated. Each part
//! lives in the file of the function that builds it: `nodes.rs` (silent GPU nodes, unhealthy
//! devices, shared renames), `selector.rs`, `kubelet_admission.rs`, `gpu_operator.rs`,
//! `plugins.rs`, `fake_gpu_install.rs` and `dra.rs`.

mod dra;
mod fake_gpu_install;
mod gpu_operator;
mod kubelet_admission;
mod nodes;
mod plugins;
mod pod_state;
mod selector;

pub use dra::{Dra, DraClaim, DraDriver, DraRequest};
pub use fake_gpu_install::{FakeGpuInstall, HelmRelease};
pub use gpu_operator::{FailingOperand, GpuOperator};
pub use kubelet_admission::KubeletRejection;
pub use nodes::{DegradedDevice, SharedRename};
pub(crate) use nodes::{advertises_gpu, nvidia_gpu_labels};
pub use plugins::PluginPod;
pub use selector::SelectorLabel;

use super::{Ctx, Lending};
use crate::json::At as _;
use crate::lend::Shared;
use serde::Serialize;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// What the device layer shows of the view's pod against the cluster's nodes and GPU software.
/// Every list may be empty.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct DeviceFacts {
    /// Node objects in the bundle (0: nothing can be said about what nodes advertise).
    pub node_count: usize,
    /// The extended resources (names with a `/`) the pod asks for, sorted.
    pub requested: Vec<String>,
    /// Every extended resource some node advertises (allocatable > 0), sorted.
    pub advertised: Vec<String>,
    /// `advertised` joined with `, `, or `none`.
    pub advertised_text: String,
    /// The requested resources no node advertises; empty when every node of the bundle had
    /// its status cut (nothing is known to be missing then).
    pub not_advertised: Vec<String>,
    /// The nodes whose labels say they hold NVIDIA GPUs (`nvidia.com/gpu.present=true`,
    /// `feature.node.kubernetes.io/pci-10de.present=true` or `nvidia.com/gpu.count` > 0) but that
    /// advertise no `nvidia.com/gpu` (nor `nvidia.com/gpu.shared`) allocatable, in name order;
    /// a node whose status shows no allocatable or capacity at all (cut) is not counted.
    pub silent_gpu_nodes: Vec<String>,
    /// One `<node> (capacity X, allocatable Y)` (or `<node> (no nvidia.com/gpu capacity)`) per
    /// silent node.
    pub silent_detail: Vec<String>,
    /// The distinct GPU labels the silent nodes carry, as `key=value`, in node name order.
    pub silent_labels: Vec<String>,
    /// Requested resources where a node's allocatable is below its capacity (devices reported
    /// unhealthy), the bound node first.
    pub degraded: Vec<DegradedDevice>,
    /// Requested resources that nodes advertise only under their shared (or unshared) name.
    pub shared_rename: Vec<SharedRename>,
    /// Each GPU feature-discovery label (`nvidia.com/…`) the pod's nodeSelector or required node
    /// affinity asks for, against the values nodes carry.
    pub selector: Vec<SelectorLabel>,
    /// The kubelet's admission rejection of the pod, when it is Failed for one.
    pub admission: Option<KubeletRejection>,
    /// The NVIDIA GPU Operator's ClusterPolicy and its operand pods that are not ready.
    pub gpu_operator: Option<GpuOperator>,
    /// Device-plugin pods (GPU Operator, NVIDIA chart, fake-gpu-operator) that are not ready.
    pub plugin_pods: Vec<PluginPod>,
    /// `pluginPods` in one string: `<ns>/<pod> on <node> (<container>: <reason>, N restarts):
    /// <message>`, joined with `; `.
    pub plugin_summary: String,
    /// What the bundle shows of a fake-gpu-operator install on k3s.
    pub fake_gpu_install: Option<FakeGpuInstall>,
    /// The pod's DRA claims, their requests and classes, and the ResourceSlices of the drivers
    /// they need.
    pub dra: Option<Dra>,
}

/// What the nodes advertise of one device resource (a name with a `/`).
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct AdvertisedResource {
    pub name: String,
    /// How many nodes advertise it (allocatable > 0).
    pub nodes: usize,
    /// Their allocatable, summed.
    pub allocatable: f64,
    /// What the non-terminal pods bound to them request of it, summed.
    pub requested: f64,
    /// `allocatable` less `requested`, at least 0.
    pub free: f64,
}

/// What the device facts say the same way for every view, computed once per index. The lists
/// as JSON, to lend to each view ([`crate::lend`]): they name every silent node and every
/// plugin pod, thousands on the day the plugin is down everywhere. None when empty.
struct Cluster {
    silent_gpu_nodes: Option<Arc<Shared>>,
    silent_detail: Option<Arc<Shared>>,
    silent_labels: Option<Arc<Shared>>,
    plugins: Option<Arc<Shared>>,
    offered: BTreeSet<String>,
    plugin_summary: String,
    gpu_operator: Option<GpuOperator>,
    fake_gpu_install: Option<FakeGpuInstall>,
}

fn cluster(ctx: &Ctx) -> Arc<Cluster> {
    ctx.ix.once("device.cluster", || cluster_facts(ctx))
}

/// The device layer's facts for one view; the cluster's silent nodes and plugin pods on loan.
pub fn facts(ctx: &Ctx) -> Lending<Option<DeviceFacts>> {
    let fact = view_facts(ctx);
    let cl = cluster(ctx);
    let parts = match fact {
        None => Vec::new(),
        Some(_) => [
            ("silentGpuNodes", &cl.silent_gpu_nodes),
            ("silentDetail", &cl.silent_detail),
            ("silentLabels", &cl.silent_labels),
            ("pluginPods", &cl.plugins),
        ]
        .into_iter()
        .filter_map(|(key, shared)| Some((key, shared.clone()?)))
        .collect(),
    };
    Lending { fact, parts }
}

/// The facts, with the lists [`Cluster`] lends left empty.
fn view_facts(ctx: &Ctx) -> Option<DeviceFacts> {
    let ix = ctx.ix;
    let pod = ctx.pod?;
    let pv = ctx.pod_value()?;
    let pv: &Value = &pv;
    let requests: BTreeMap<String, f64> = ix
        .pod(pod)
        .map(|p| p.requests.iter().cloned().collect())
        .unwrap_or_default();
    let requested: Vec<&String> = requests.keys().filter(|k| k.contains('/')).collect();
    let bound = pv.at("/spec/nodeName").and_then(Value::as_str);
    let tables = ix.node_tables();
    let cl = cluster(ctx);
    let offered = &cl.offered;
    // When the bundle's nodes all had their status cut, what they advertise is unknown:
    // nothing is "not advertised" (as `$.facts.resources[*].fit` is `unknown`).
    let cut = !tables.nodes.is_empty() && tables.showing_resources == 0;
    let not_advertised = requested
        .iter()
        .filter(|r| !offered.contains(**r) && !cut)
        .map(|r| r.to_string())
        .collect();
    let advertised_text = if offered.is_empty() {
        crate::facts::texts::word("advertisedNone")
    } else {
        offered.iter().cloned().collect::<Vec<_>>().join(", ")
    };
    Some(DeviceFacts {
        node_count: ix.nodes().len(),
        requested: requested.iter().map(|r| r.to_string()).collect(),
        advertised: offered.iter().cloned().collect(),
        advertised_text,
        not_advertised,
        silent_gpu_nodes: Vec::new(),
        silent_detail: Vec::new(),
        silent_labels: Vec::new(),
        degraded: nodes::degraded(&tables, &requests, &requested, bound),
        shared_rename: nodes::shared_renames(&tables, &requested),
        selector: selector::selector(&tables, pv),
        admission: kubelet_admission::admission(ix, pv),
        gpu_operator: cl.gpu_operator.clone(),
        plugin_pods: Vec::new(),
        plugin_summary: cl.plugin_summary.clone(),
        fake_gpu_install: cl.fake_gpu_install.clone(),
        dra: dra::dra(ctx, pv),
    })
}

/// The parts of the device facts that do not depend on the view.
fn cluster_facts(ctx: &Ctx) -> Cluster {
    let plugins = plugins::plugin_pods(ctx);
    let silent = nodes::silent_gpu_nodes(ctx.ix);
    Cluster {
        silent_gpu_nodes: lent_list(&silent.names),
        silent_detail: lent_list(&silent.detail),
        silent_labels: lent_list(&silent.labels),
        offered: advertising(&ctx.ix.node_tables())
            .map(|(name, _)| name.clone())
            .collect(),
        plugin_summary: plugins::plugin_summary(&plugins),
        plugins: lent_list(&plugins),
        gpu_operator: gpu_operator::gpu_operator(ctx),
        fake_gpu_install: fake_gpu_install::fake_gpu_install(ctx),
    }
}

/// A list to lend, when it has anything in it.
fn lent_list<T: Serialize>(list: &[T]) -> Option<Arc<Shared>> {
    (!list.is_empty()).then(|| Shared::new(super::to_json(&list)))
}

/// What the nodes advertise of each device resource (names with a `/`), whatever the view's
/// pod, sorted by name. It lets the device layer speak for work that has no pod yet (a
/// suspended Job, a JobSet whose Jobs are not created) from the Nodes the bundle holds.
pub fn advertised(ctx: &Ctx) -> Vec<AdvertisedResource> {
    advertising(&ctx.ix.node_tables())
        .map(|(name, t)| AdvertisedResource {
            name: name.clone(),
            nodes: t.advertising.len(),
            allocatable: t.allocatable,
            requested: t.requested,
            free: (t.allocatable - t.requested).max(0.0),
        })
        .collect()
}

/// The device resources (names with a `/`) some node advertises (allocatable > 0), by name:
/// the one reading behind both `device.advertised` and `deviceAdvertised`.
fn advertising(
    tables: &crate::index::NodeTables,
) -> impl Iterator<Item = (&String, &crate::index::ResourceTable)> {
    tables
        .resources
        .iter()
        .filter(|(name, t)| name.contains('/') && !t.advertising.is_empty())
}
