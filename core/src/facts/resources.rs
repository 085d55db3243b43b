//! What the nodes advertise and hold of each device resource a pod asks for: `$.facts.resources`,
//! and the node eligibility test (selector and taints) it and other facts count nodes with.

use super::{Ctx, Num};
use crate::index::{Index, NodeInfo, NodeTables, untolerated};
use crate::json::At as _;
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// Does a node pass the pod's nodeSelector and tolerate the node's NoSchedule/NoExecute taints?
/// (Required node affinity is not evaluated; the scheduler's own message covers it.)
pub fn node_eligible(node: &NodeInfo, pod: &Value) -> bool {
    Eligibility::of(pod).admits(node)
}

/// A pod's nodeSelector and tolerations, read once to test many nodes (what [`node_eligible`]
/// tests).
pub struct Eligibility<'v> {
    selector: Option<Vec<(&'v str, Option<&'v str>)>>,
    tolerations: Option<&'v Vec<Value>>,
    /// [`NodeTables::tolerated_sets`] for these tolerations, once asked
    /// ([`Eligibility::tolerates_at`]).
    tolerated_sets: std::cell::OnceCell<Vec<bool>>,
}

impl<'v> Eligibility<'v> {
    pub fn of(pod: &'v Value) -> Eligibility<'v> {
        Eligibility {
            selector: pod
                .at("/spec/nodeSelector")
                .and_then(Value::as_object)
                .map(|sel| sel.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect()),
            tolerations: pod.at("/spec/tolerations").and_then(Value::as_array),
            tolerated_sets: std::cell::OnceCell::new(),
        }
    }

    /// [`Eligibility::admits`] for the node at `pos` of `tables` (always the same tables).
    pub fn admits_at(&self, tables: &NodeTables, pos: usize) -> bool {
        self.selects(&tables.nodes[pos]) && self.tolerates_at(tables, pos)
    }

    /// [`Eligibility::tolerates_taints`] for the node at `pos` of `tables` (always the same
    /// tables): tested once per distinct set of taints, not per node.
    pub fn tolerates_at(&self, tables: &NodeTables, pos: usize) -> bool {
        let Some(set) = tables.taint_set_of[pos] else {
            return true;
        };
        self.tolerated_sets
            .get_or_init(|| tables.tolerated_sets(self.tolerations()))[set]
    }

    fn tolerations(&self) -> &'v [Value] {
        self.tolerations.map_or(&[], Vec::as_slice)
    }

    /// The node carries every label the nodeSelector asks for.
    pub fn selects(&self, node: &NodeInfo) -> bool {
        self.selector.as_ref().is_none_or(|sel| {
            sel.iter()
                .all(|(k, v)| node.labels.get(*k).map(String::as_str) == *v)
        })
    }

    /// Whether the pod has a nodeSelector (else only taints decide).
    pub fn has_selector(&self) -> bool {
        self.selector.is_some()
    }

    pub fn admits(&self, node: &NodeInfo) -> bool {
        self.selects(node) && self.tolerates_taints(node)
    }

    /// Every NoSchedule/NoExecute taint of the node is tolerated.
    pub fn tolerates_taints(&self, node: &NodeInfo) -> bool {
        untolerated(
            self.tolerations(),
            node.taints.iter().filter(|t| t.is_hard()),
        )
        .next()
        .is_none()
    }
}

/// `$.facts.resources[*]`: one extended resource the pod asks for, against the nodes.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Resource {
    /// The resource name (`nvidia.com/gpu`).
    pub name: String,
    /// What the pod asks for (a KAI `gpu-fraction` counts as part of `nvidia.com/gpu`).
    pub request: Num,
    /// Nodes with some of it allocatable.
    pub advertising_nodes: u64,
    /// Summed over the nodes.
    pub allocatable: Num,
    pub capacity: Num,
    /// The effective requests of non-terminal pods bound to the nodes, summed.
    pub requested: Num,
    /// `allocatable - requested`, at least 0.
    pub free: Num,
    /// The most any one node has free.
    pub max_free: Num,
    /// The most any one node has allocatable.
    pub max_allocatable: Num,
    /// Nodes whose labels match the pod's nodeSelector and whose NoSchedule/NoExecute taints it
    /// tolerates.
    pub eligible_nodes: u64,
    /// The most any eligible node has free.
    pub eligible_max_free: Num,
    /// `unknown` (no node in the bundle shows any allocatable or capacity, not even cpu: their
    /// status was cut), `noneAdvertised` (no node has any allocatable), `neverFits` (no node could ever hold the
    /// request), `noneFreeNow` (some node could, none has it free now) or `fitsSomewhere` (a
    /// node has it free: the reason is elsewhere).
    pub fit: String,
    /// Nodes with capacity but no allocatable of it (the device plugin holds it back).
    pub capacity_without_allocatable: Vec<String>,
    /// The three nodes with the most free, most first.
    pub closest: Vec<NodeHolding>,
    /// The scheduler's message named this resource insufficient.
    pub scheduler_insufficient: bool,
}

/// What one node holds of a resource.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct NodeHolding {
    pub node: String,
    pub allocatable: Num,
    pub requested: Num,
    pub free: Num,
}

/// `$.facts.resources`: every extended resource (name with a `/`) the pod asks for, plus any
/// the scheduler called insufficient, against what the nodes advertise and hold.
pub fn fact(ctx: &Ctx) -> Vec<Resource> {
    let (Some(p), Some(pv)) = (ctx.pod, ctx.pod_value()) else {
        return Vec::new();
    };
    let extra: Vec<String> = ctx
        .subjects
        .get("facts")
        .and_then(|f| f["scheduling"]["insufficient"].as_array())
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str().map(str::to_string))
        .collect();
    let mut requests: BTreeMap<String, f64> = ctx
        .ix
        .pod(p)
        .map(|i| i.requests.iter().cloned().collect())
        .unwrap_or_default();
    // A KAI-Scheduler GPU share asks for part of a GPU by annotation, not by resource: the
    // pod still needs a node that advertises nvidia.com/gpu.
    if let Some(share) = kai_gpu_share(&pv) {
        requests.entry("nvidia.com/gpu".into()).or_insert(share);
    }
    resources(ctx.ix, &requests, &extra, &pv)
}

/// The GPUs a KAI-Scheduler GPU-sharing pod asks for: `gpu-fraction` (times
/// `gpu-fraction-num-devices`), or a share of one GPU for `gpu-memory`.
fn kai_gpu_share(pv: &Value) -> Option<f64> {
    let ann = pv.at("/metadata/annotations")?;
    let devices = ann
        .get("gpu-fraction-num-devices")
        .and_then(Value::as_str)
        .and_then(|s| s.parse::<f64>().ok())
        .unwrap_or(1.0);
    if let Some(f) = ann
        .get("gpu-fraction")
        .and_then(Value::as_str)
        .and_then(|s| s.parse::<f64>().ok())
    {
        return Some(f * devices);
    }
    // gpu-memory asks for MiB of one GPU: the device count it needs is "a part of one".
    ann.get("gpu-memory").map(|_| 0.0)
}

/// The rows of [`fact`] for given requests.
pub fn resources(
    ix: &Index,
    requests: &BTreeMap<String, f64>,
    extra: &[String],
    pod: &Value,
) -> Vec<Resource> {
    let mut names: Vec<&String> = requests.keys().filter(|r| r.contains('/')).collect();
    for r in extra {
        if requests.contains_key(r) && !names.contains(&r) {
            names.push(r);
        }
    }
    names.sort();
    // The per-node sums and the ranking are the same for every pod (computed once per index);
    // only which nodes the pod may use is its own.
    let tables = ix.node_tables();
    let elig = Eligibility::of(pod);
    let none = crate::index::ResourceTable::default();
    let mut out = Vec::new();
    for name in names {
        let want = requests[name];
        let t = tables.resources.get(name.as_str()).unwrap_or(&none);
        let node = |pos: usize| &tables.nodes[pos];
        let advertising = t.rows.len() as u64;
        let (alloc_total, cap_total, req_total) = (t.allocatable, t.capacity, t.requested);
        let (max_free, max_alloc) = (t.max_free, t.max_allocatable);
        let (mut eligible, mut elig_max_free) = (0u64, 0.0f64);
        if elig.has_selector() {
            for r in &t.rows {
                if elig.admits_at(&tables, r.pos) {
                    eligible += 1;
                    elig_max_free = elig_max_free.max(r.free);
                }
            }
        } else {
            // Without a nodeSelector an untainted node always admits the pod.
            eligible = t.untainted;
            elig_max_free = t.untainted_max_free;
            for r in t.rows.iter().filter(|r| r.hard_tainted) {
                if elig.tolerates_at(&tables, r.pos) {
                    eligible += 1;
                    elig_max_free = elig_max_free.max(r.free);
                }
            }
        }
        let cap_no_alloc: Vec<&String> = t
            .capacity_without_allocatable
            .iter()
            .map(|&p| &node(p).name)
            .collect();
        let fit = if advertising == 0 && tables.showing_resources == 0 {
            // Every node's status was cut: nothing is known of what they advertise.
            "unknown"
        } else if advertising == 0 {
            "noneAdvertised"
        } else if max_alloc < want {
            "neverFits"
        } else if max_free < want {
            "noneFreeNow"
        } else {
            "fitsSomewhere"
        };
        let closest = t
            .rows
            .iter()
            .take(3)
            .map(|r| NodeHolding {
                node: node(r.pos).name.clone(),
                allocatable: Num(r.allocatable),
                requested: Num(r.requested),
                free: Num(r.free),
            })
            .collect();
        out.push(Resource {
            name: name.clone(),
            request: Num(want),
            advertising_nodes: advertising,
            allocatable: Num(alloc_total),
            capacity: Num(cap_total),
            requested: Num(req_total),
            free: Num((alloc_total - req_total).max(0.0)),
            max_free: Num(max_free),
            max_allocatable: Num(max_alloc),
            eligible_nodes: eligible,
            eligible_max_free: Num(elig_max_free),
            fit: fit.to_string(),
            capacity_without_allocatable: cap_no_alloc.into_iter().cloned().collect(),
            closest,
            scheduler_insufficient: extra.contains(name),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Nodes sharing their taints share one set; a pod's tolerations are judged per set and
    /// give the same answer per node as testing the node itself.
    #[test]
    fn taint_sets_group_nodes_and_judge_tolerations_like_each_node() {
        let node = |name: &str, taints: Value| {
            json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
                   "spec": {"taints": taints}})
        };
        let gpu = json!([{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]);
        let items = vec![
            node("a", gpu.clone()),
            node(
                "b",
                json!([{"key": "spot", "effect": "NoExecute"}, {"key": "x", "effect": "PreferNoSchedule"}]),
            ),
            node("c", gpu.clone()),
            node("d", json!([{"key": "x", "effect": "PreferNoSchedule"}])),
            node("e", gpu),
        ];
        let text = json!({"apiVersion": "v1", "kind": "List", "items": items}).to_string();
        let ix = Index::new(crate::Bundle::parse(text).expect("parses"));
        let tables = ix.node_tables();
        assert_eq!(tables.taint_sets.len(), 2);
        let sets: Vec<Option<usize>> = tables.taint_set_of.clone();
        assert_eq!(sets[0], sets[2]);
        assert_eq!(sets[0], sets[4]);
        assert_ne!(sets[0], sets[1]);
        assert_eq!(sets[3], None, "a soft taint alone is no set");
        for tolerations in [
            json!([]),
            json!([{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]),
            json!([{"key": "spot", "operator": "Exists"}]),
            json!([{"operator": "Exists"}]),
        ] {
            let pod = json!({"spec": {"tolerations": tolerations}});
            let elig = Eligibility::of(&pod);
            for pos in 0..tables.nodes.len() {
                assert_eq!(
                    elig.tolerates_at(&tables, pos),
                    elig.tolerates_taints(&tables.nodes[pos]),
                    "node {} with {tolerations}",
                    tables.nodes[pos].name
                );
            }
        }
    }

    /// A node pasted without its status (no allocatable, no capacity, not even cpu) says
    /// nothing of what it advertises; one node that shows its status makes "none" a finding.
    #[test]
    fn nodes_without_status_leave_advertising_unknown() {
        let node = |name: &str, status: Value| json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}, "status": status});
        let fit = |nodes: Vec<Value>| {
            let text = json!({"apiVersion": "v1", "kind": "List", "items": nodes}).to_string();
            let ix = Index::new(crate::Bundle::parse(text).expect("parses"));
            let requests = BTreeMap::from([("nvidia.com/gpu".to_string(), 1.0)]);
            resources(&ix, &requests, &[], &json!({}))[0].fit.clone()
        };
        let cut = json!({"nodeInfo": {"containerRuntimeVersion": "docker://19.3.15"}});
        let cpu_only = json!({"allocatable": {"cpu": "8", "pods": "110"}});
        assert_eq!(fit(vec![node("a", cut.clone())]), "unknown");
        assert_eq!(
            fit(vec![node("a", cut), node("b", cpu_only.clone())]),
            "noneAdvertised"
        );
        assert_eq!(fit(vec![node("b", cpu_only)]), "noneAdvertised");
    }
}
