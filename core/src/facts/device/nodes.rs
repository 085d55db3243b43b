//! What the nodes advertise against what the pod asks for: nodes whose labels say they hold
//! NVIDIA GPUs but that advertise none, devices held back as unhealthy, and time-slicing/MPS
//! renames (`R` asked, only `R.shared` advertised).

use crate::facts::texts::say;
use crate::facts::{Num, num};
use crate::index::{Index, NodeInfo, NodeTables};
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

const GPU: &str = "nvidia.com/gpu";
const SHARED_SUFFIX: &str = ".shared";

/// Nodes whose labels say they hold NVIDIA GPUs but that advertise no `nvidia.com/gpu` (nor
/// `nvidia.com/gpu.shared`) allocatable, in name order.
pub(super) struct SilentNodes {
    pub names: Vec<String>,
    /// `<node> (capacity X, allocatable Y)`, or `<node> (no nvidia.com/gpu capacity)`.
    pub detail: Vec<String>,
    /// The distinct GPU labels those nodes carry, as `key=value`, in node name order.
    pub labels: Vec<String>,
}

/// A requested resource on a node whose allocatable is below its capacity: devices the plugin
/// reports unhealthy.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct DegradedDevice {
    pub node: String,
    pub resource: String,
    pub capacity: Num,
    pub allocatable: Num,
    /// Capacity less allocatable.
    pub unhealthy: Num,
    /// The node is the pod's.
    pub bound: bool,
    /// What the pod requests of the resource.
    pub request: Num,
    /// The request fits the node's capacity: it would fit were every device healthy.
    pub fits_when_healthy: bool,
}

/// A resource the pod asks for that no node advertises, while its shared (or unshared) twin is:
/// time-slicing or MPS with `renameByDefault` advertises `R.shared` instead of `R`.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct SharedRename {
    /// What the pod asks for.
    pub requested: String,
    /// The twin the nodes advertise.
    pub advertised: String,
    /// The nodes advertising it (allocatable > 0), in name order.
    pub nodes: Vec<String>,
}

/// Nodes labelled as holding NVIDIA GPUs ([`nvidia_gpu_labels`]) that advertise no GPU.
pub(super) fn silent_gpu_nodes(ix: &Index) -> SilentNodes {
    let mut silent = SilentNodes {
        names: Vec::new(),
        detail: Vec::new(),
        labels: Vec::new(),
    };
    for n in ix.nodes().values() {
        let why = nvidia_gpu_labels(n);
        // A node whose status was cut may advertise its GPUs: not silent, unknown.
        if why.is_empty() || !n.shows_resources() {
            continue;
        }
        let cap = n.capacity.get(GPU).copied();
        let alloc = n.allocatable.get(GPU).copied();
        if !advertises_gpu(n) {
            for label in &why {
                if !silent.labels.contains(label) {
                    silent.labels.push(label.clone());
                }
            }
            silent.names.push(n.name.clone());
            let node = ("node", Value::from(n.name.clone()));
            silent.detail.push(match (cap, alloc) {
                (None, _) => say("silentNodeNoCapacity", &[node]),
                (Some(c), a) => say(
                    "silentNode",
                    &[
                        node,
                        ("capacity", Value::from(num(c).to_string())),
                        (
                            "allocatable",
                            Value::from(num(a.unwrap_or(0.0)).to_string()),
                        ),
                    ],
                ),
            });
        }
    }
    silent
}

/// The labels by which a node says it holds NVIDIA GPUs, as `key=value`: the GPU Operator's and
/// GPU feature discovery's (`nvidia.com/gpu.present=true`, `nvidia.com/gpu.count` > 0) and Node
/// Feature Discovery's PCI label for NVIDIA's vendor id 10de in any of its spellings
/// (`pci-10de.present`, and with the class or device fields NFD's `deviceLabelFields` adds:
/// `pci-0302_10de.present`, `pci-0300_10de_1eb8.present`).
pub(crate) fn nvidia_gpu_labels(n: &NodeInfo) -> Vec<String> {
    // Ranked as they have always been listed: the operator's label, NFD's, then the count.
    let mut why: Vec<(u8, String)> = Vec::new();
    for (k, v) in &n.labels {
        let nfd = k
            .strip_prefix("feature.node.kubernetes.io/pci-")
            .and_then(|rest| rest.strip_suffix(".present"))
            .is_some_and(|fields| fields.split('_').any(|f| f == "10de"));
        let rank = match k.as_str() {
            "nvidia.com/gpu.present" if v == "true" => 0,
            _ if nfd && v == "true" => 1,
            "nvidia.com/gpu.count" if v.parse::<f64>().is_ok_and(|c| c > 0.0) => 2,
            _ => continue,
        };
        why.push((rank, format!("{k}={v}")));
    }
    why.sort();
    why.into_iter().map(|(_, l)| l).collect()
}

/// The node advertises some `nvidia.com/gpu` (or its time-sliced `nvidia.com/gpu.shared`).
pub(crate) fn advertises_gpu(n: &NodeInfo) -> bool {
    let shared = format!("{GPU}{SHARED_SUFFIX}");
    [GPU, shared.as_str()]
        .iter()
        .any(|r| n.allocatable.get(*r).is_some_and(|&a| a > 0.0))
}

/// Devices reported unhealthy (allocatable below capacity) of the requested resources: the
/// bound node first, then by node name; rows of one node keep the order of `requested`.
pub(super) fn degraded(
    tables: &NodeTables,
    requests: &BTreeMap<String, f64>,
    requested: &[&String],
    bound: Option<&str>,
) -> Vec<DegradedDevice> {
    let mut degraded = Vec::new();
    for r in requested {
        let Some(t) = tables.resources.get(r.as_str()) else {
            continue;
        };
        for n in t.degraded.iter().map(|&p| &tables.nodes[p]) {
            let cap = n.capacity.get(*r).copied().unwrap_or(0.0);
            let alloc = n.allocatable.get(*r).copied().unwrap_or(0.0);
            degraded.push(DegradedDevice {
                node: n.name.clone(),
                resource: r.to_string(),
                capacity: Num(cap),
                allocatable: Num(alloc),
                unhealthy: Num(cap - alloc),
                bound: Some(n.name.as_str()) == bound,
                request: Num(requests[*r]),
                fits_when_healthy: requests[*r] <= cap,
            });
        }
    }
    // Stable: rows of one node keep the order of `requested`.
    degraded.sort_by_key(|d| (!d.bound, d.node.clone()));
    degraded
}

/// Time-slicing/MPS renames: R asked, only R.shared advertised (or the reverse).
pub(super) fn shared_renames(tables: &NodeTables, requested: &[&String]) -> Vec<SharedRename> {
    let advertising = |name: &str| -> &[usize] {
        tables
            .resources
            .get(name)
            .map_or(&[], |t| t.advertising.as_slice())
    };
    let mut renames = Vec::new();
    for r in requested {
        if !advertising(r).is_empty() {
            continue;
        }
        let other = match r.strip_suffix(SHARED_SUFFIX) {
            Some(base) => base.to_string(),
            None => format!("{r}{SHARED_SUFFIX}"),
        };
        let nodes: Vec<String> = advertising(&other)
            .iter()
            .map(|&p| tables.nodes[p].name.clone())
            .collect();
        if !nodes.is_empty() {
            renames.push(SharedRename {
                requested: r.to_string(),
                advertised: other,
                nodes,
            });
        }
    }
    renames
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(labels: &[(&str, &str)], gpus: f64) -> NodeInfo {
        NodeInfo {
            name: "n".into(),
            labels: labels
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            allocatable: [(GPU.to_string(), gpus)].into_iter().collect(),
            ..NodeInfo::default()
        }
    }

    #[test]
    fn nfds_pci_label_for_nvidia_is_read_in_every_spelling() {
        for key in [
            "feature.node.kubernetes.io/pci-10de.present",
            "feature.node.kubernetes.io/pci-0302_10de.present",
            "feature.node.kubernetes.io/pci-0300_10de_1eb8.present",
        ] {
            assert_eq!(
                nvidia_gpu_labels(&node(&[(key, "true")], 0.0)),
                [format!("{key}=true")]
            );
        }
        // Another vendor, a device id that merely contains the digits, a false value.
        for (key, value) in [
            ("feature.node.kubernetes.io/pci-0300_1d0f.present", "true"),
            (
                "feature.node.kubernetes.io/pci-0300_1d0f_10de1.present",
                "true",
            ),
            ("feature.node.kubernetes.io/pci-10de.present", "false"),
            ("nvidia.com/gpu.count", "0"),
        ] {
            assert!(
                nvidia_gpu_labels(&node(&[(key, value)], 0.0)).is_empty(),
                "{key}"
            );
        }
    }

    #[test]
    fn labels_keep_their_order_and_a_node_with_gpus_advertises() {
        let n = node(
            &[
                ("nvidia.com/gpu.count", "8"),
                ("feature.node.kubernetes.io/pci-10de.present", "true"),
                ("nvidia.com/gpu.present", "true"),
            ],
            8.0,
        );
        assert_eq!(
            nvidia_gpu_labels(&n),
            [
                "nvidia.com/gpu.present=true",
                "feature.node.kubernetes.io/pci-10de.present=true",
                "nvidia.com/gpu.count=8"
            ]
        );
        assert!(advertises_gpu(&n));
        assert!(!advertises_gpu(&node(&[], 0.0)));
    }

    /// A GPU-labelled node whose status shows no resources at all was cut from the paste: it is
    /// not counted silent. One that shows cpu but no GPU is.
    #[test]
    fn a_gpu_labelled_node_is_silent_only_when_its_status_shows() {
        let node = |status: serde_json::Value| {
            serde_json::json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "g1",
                "labels": {"nvidia.com/gpu.present": "true"}}, "status": status})
        };
        let ix = |n: serde_json::Value| {
            let list = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": [n]});
            Index::new(crate::Bundle::parse(list.to_string()).expect("parses"))
        };
        let cut = ix(node(
            serde_json::json!({"nodeInfo": {"kubeletVersion": "v1.30.0"}}),
        ));
        assert!(silent_gpu_nodes(&cut).names.is_empty());
        let shown = ix(node(
            serde_json::json!({"allocatable": {"cpu": "8", "pods": "110"}}),
        ));
        assert_eq!(silent_gpu_nodes(&shown).names, ["g1"]);
    }
}
