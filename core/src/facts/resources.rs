//! What the nodes advertise and hold of each device resource a pod asks for: `$.facts.resources`,
//! and the node eligibility test (selector and taints) it and other facts count nodes with.

use super::num;
use crate::index::{Index, NodeInfo, NodeTables, untolerated};
use serde_json::{Value, json};
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
                .pointer("/spec/nodeSelector")
                .and_then(Value::as_object)
                .map(|sel| sel.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect()),
            tolerations: pod.pointer("/spec/tolerations").and_then(Value::as_array),
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

/// Per extended resource the pod asks for: what the nodes advertise and hold.
///
/// For each resource (names with a `/`, plus any the scheduler called insufficient):
/// `{name, request, advertisingNodes, allocatable, capacity, requested, free, maxFree,
/// maxAllocatable, eligibleNodes, eligibleMaxFree, fit, capacityWithoutAllocatable, closest:
/// [{node, allocatable, requested, free}]}` where `fit` is `noneAdvertised` (no node has any
/// allocatable), `neverFits` (no node could ever hold the request), `noneFreeNow` (some node
/// could, none has it free now) or `fitsSomewhere` (a node has it free: the reason is elsewhere);
/// `schedulerInsufficient` says whether the scheduler's message named this resource.
pub fn resources(
    ix: &Index,
    requests: &BTreeMap<String, f64>,
    extra: &[String],
    pod: &Value,
) -> Value {
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
        let fit = if advertising == 0 {
            "noneAdvertised"
        } else if max_alloc < want {
            "neverFits"
        } else if max_free < want {
            "noneFreeNow"
        } else {
            "fitsSomewhere"
        };
        let closest: Vec<Value> = t
            .rows
            .iter()
            .take(3)
            .map(|r| json!({"node": node(r.pos).name, "allocatable": num(r.allocatable), "requested": num(r.requested), "free": num(r.free)}))
            .collect();
        out.push(json!({
            "name": name, "request": num(want), "advertisingNodes": advertising,
            "allocatable": num(alloc_total), "capacity": num(cap_total), "requested": num(req_total),
            "free": num((alloc_total - req_total).max(0.0)), "maxFree": num(max_free), "maxAllocatable": num(max_alloc),
            "eligibleNodes": eligible, "eligibleMaxFree": num(elig_max_free), "fit": fit,
            "capacityWithoutAllocatable": cap_no_alloc, "closest": closest,
            "schedulerInsufficient": extra.contains(name),
        }));
    }
    Value::Array(out)
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
