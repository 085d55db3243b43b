//! Which nodes could take a pod no scheduler has seen yet, at `$.facts.placement.nodeFit`:
//! the nodes counted through each filter a scheduler applies first (nodeSelector and required
//! node affinity, NoSchedule/NoExecute taints, cordons, room), and the first filter that
//! leaves none. Only for work `fit` placed as if submitted: a real pending pod has the
//! scheduler's own word, which the other placement facts read.
//!
//! The filters follow kube-scheduler's: NodeAffinity, TaintToleration, NodeUnschedulable (a
//! pod that tolerates the cordon's taint, `node.kubernetes.io/unschedulable:NoSchedule`, may
//! go to a cordoned node) and NodeResourcesFit, whose room includes the node's pod count (a
//! node whose allocatable `pods` its bound pods fill has no room). The filters not modelled
//! are listed in every fit's `missing` (fit's `NOT_MODELLED`).

use crate::facts::texts::say;
use crate::facts::{Eligibility, Num};
use crate::index::{Index, ObjId};
use crate::json::At as _;
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// Nodes shown by name at most.
const SHOWN: usize = crate::template::SHOWN_VALUES;

/// The nodes that could take the pod, filter by filter.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct NodeFit {
    /// Nodes in the bundle.
    pub nodes: u64,
    /// Of those, the nodes the pod's nodeSelector and required node affinity select.
    pub selected: u64,
    /// Of those, the nodes whose NoSchedule/NoExecute taints the pod tolerates (a cordon's own
    /// taint, `node.kubernetes.io/unschedulable`, is left to `schedulable`).
    pub tolerated: u64,
    /// Of those, the nodes not cordoned (`spec.unschedulable`), or cordoned with the pod
    /// tolerating the cordon's taint: the pod's candidates.
    pub schedulable: u64,
    /// Of the candidates, the nodes whose allocatable holds every request of the pod (CPU,
    /// memory, devices, and a pod: allocatable `pods`): they could take it once free.
    pub could_hold: u64,
    /// Of those, the nodes with every request free now (allocatable less what bound pods
    /// request; for `pods`, less the pods bound there).
    pub room_now: u64,
    /// The first of `roomNow` by name (at most ten).
    pub room_now_nodes: Vec<String>,
    /// Why no node would take it now; null when some candidate has room. `busy`: a candidate
    /// could hold it, none has it free now. `size`: no node at all is large enough. Otherwise
    /// the filter that keeps it off the nodes large enough: `selector` (nodeSelector and
    /// required node affinity), `taints`, `cordon`; or `noNodes` without Node objects.
    pub stop: Option<String>,
    /// For `size`, the requests no node is large enough for (with the largest node's
    /// allocatable); for `busy`, those no candidate has free (with the most one has free);
    /// empty otherwise.
    pub short: Vec<ResourceShort>,
    /// The pod these counts are for (of a work with several pod templates, the one that gets
    /// least far).
    pub pod: String,
}

/// One request of the pod against the schedulable nodes.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ResourceShort {
    /// The resource (`nvidia.com/gpu`, `cpu`, `memory`, `pods`: the pod itself).
    pub resource: String,
    /// What the pod asks for (its effective request).
    pub request: Num,
    /// The most one schedulable node has allocatable.
    pub largest: Num,
    /// The most one schedulable node has free now.
    pub most_free: Num,
    /// The node with the most free, when some node advertises it.
    pub most_free_node: Option<String>,
    /// The row as a sentence: against the largest node for `size`, the most free for `busy`.
    pub text: String,
}

/// The order of the filters: a lower stop got less far.
pub fn stop_rank(stop: Option<&str>) -> u8 {
    match stop {
        Some("noNodes") => 0,
        Some("selector") => 1,
        Some("taints") => 2,
        Some("cordon") => 3,
        Some("size") => 4,
        Some("busy") => 5,
        _ => 6,
    }
}

pub use crate::index::POD_SLOTS;

/// The cordon's taint: a pod tolerating it passes the NodeUnschedulable filter.
const CORDON_TAINT: &str = "node.kubernetes.io/unschedulable";

/// One node against the pod.
struct NodeCheck<'n> {
    name: &'n str,
    selected: bool,
    tolerated: bool,
    schedulable: bool,
    /// Allocatable and free now of each resource the pod asks for, in `want`'s order.
    have: Vec<(f64, f64)>,
}

impl NodeCheck<'_> {
    fn candidate(&self) -> bool {
        self.selected && self.tolerated && self.schedulable
    }
    fn holds(&self, want: &[f64]) -> bool {
        self.have.iter().zip(want).all(|((a, _), w)| a >= w)
    }
    fn room(&self, want: &[f64]) -> bool {
        self.have.iter().zip(want).all(|((_, f), w)| f >= w)
    }
}

/// The pod `pod`'s node fit. Nodes that pass its nodeSelector, required affinity, taints and
/// cordons are its candidates: with room on one it fits, with one large enough it waits
/// (`busy`). Otherwise, with no node at all large enough it never fits (`size`); else the
/// filter that keeps it off the nodes large enough is the stop (`selector`, `taints`,
/// `cordon`).
pub fn node_fit(ix: &Index, pod: ObjId) -> NodeFit {
    let tables = ix.node_tables();
    let (want, checks) = checks(ix, pod, &tables.nodes);
    let amounts: Vec<f64> = want.values().copied().collect();
    let count = |f: &dyn Fn(&NodeCheck) -> bool| checks.iter().filter(|c| f(c)).count() as u64;
    let selected = count(&|c| c.selected);
    let tolerated = count(&|c| c.selected && c.tolerated);
    let schedulable = count(&|c| c.candidate());
    let hold = count(&|c| c.candidate() && c.holds(&amounts));
    let room = count(&|c| c.candidate() && c.room(&amounts));
    let room_nodes: Vec<String> = checks
        .iter()
        .filter(|c| c.candidate() && c.room(&amounts))
        .take(SHOWN)
        .map(|c| c.name.to_string())
        .collect();
    let capable: Vec<&NodeCheck> = checks.iter().filter(|c| c.holds(&amounts)).collect();
    let stop = if checks.is_empty() {
        Some("noNodes")
    } else if room > 0 {
        None
    } else if hold > 0 {
        Some("busy")
    } else if capable.is_empty() {
        Some("size")
    } else if !capable.iter().any(|c| c.selected) {
        Some("selector")
    } else if !capable.iter().any(|c| c.selected && c.tolerated) {
        Some("taints")
    } else {
        Some("cordon")
    };
    // Room is judged on the candidates (`busy`), size on every node (`size`: none is large
    // enough).
    let judged: Vec<&NodeCheck> = if stop == Some("busy") {
        checks.iter().filter(|c| c.candidate()).collect()
    } else {
        checks.iter().collect()
    };
    NodeFit {
        nodes: tables.nodes.len() as u64,
        selected,
        tolerated,
        schedulable,
        could_hold: hold,
        room_now: room,
        room_now_nodes: room_nodes,
        short: short_rows(&want, &judged, stop),
        stop: stop.map(str::to_string),
        pod: ix.object(pod).name.clone(),
    }
}

/// How many of a piece of work's pods the nodes would hold at once, at
/// `$.facts.placement.wholeFit`: for work `fit` placed, where each pod may find a node yet the
/// work may not fit whole.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct WholeFit {
    /// Pods the work's controllers would run at once, as its spec declares them.
    pub wanted: u64,
    /// Of those, how many the nodes have room for now: each pod set in turn, each candidate
    /// node taking as many of its pods as its free room holds, less what the sets before took.
    pub placed_now: u64,
    /// `wanted` less `placedNow`: the pods that would wait Pending.
    pub waiting: u64,
}

/// [`WholeFit`] of pod sets given as (a pod of the set, how many pods the set has). Counted
/// per node, never pod by pod: the cost is sets × nodes × requests, whatever the counts.
pub fn whole_fit(ix: &Index, sets: &[(ObjId, u64)]) -> WholeFit {
    let tables = ix.node_tables();
    // What earlier sets took of each node, by node position and the set's resource order.
    let mut taken: BTreeMap<(usize, String), f64> = BTreeMap::new();
    let (mut wanted, mut placed) = (0u64, 0u64);
    for &(pod, count) in sets {
        wanted = wanted.saturating_add(count);
        let (want, checks) = checks(ix, pod, &tables.nodes);
        let mut left = count;
        for (pos, c) in checks.iter().enumerate().filter(|(_, c)| c.candidate()) {
            if left == 0 {
                break;
            }
            // How many copies fit in what is free, a resource at a time; unlimited when the
            // pod asks for nothing the node counts.
            let copies = want
                .iter()
                .zip(&c.have)
                .map(|((r, q), (_, free))| {
                    let free = free - taken.get(&(pos, r.clone())).copied().unwrap_or(0.0);
                    // A little slack, so that 0.3 free holds three pods of 0.1.
                    ((free + 1e-9) / q).floor().max(0.0)
                })
                .fold(f64::INFINITY, f64::min);
            // A float this large saturates to u64::MAX, and infinity too.
            let n = (copies as u64).min(left);
            for (r, q) in &want {
                *taken.entry((pos, r.clone())).or_default() += q * n as f64;
            }
            left -= n;
            placed += n;
        }
    }
    WholeFit {
        wanted,
        placed_now: placed,
        waiting: wanted - placed,
    }
}

/// The pod's requests that count (each above zero, and its slot where nodes count pods), and
/// every node checked against it, in `nodes`' order.
fn checks<'n>(
    ix: &Index,
    pod: ObjId,
    nodes: &'n [crate::index::NodeInfo],
) -> (BTreeMap<String, f64>, Vec<NodeCheck<'n>>) {
    let pv = ix.value(pod);
    let mut want: BTreeMap<String, f64> = ix
        .pod(pod)
        .map(|i| {
            i.requests
                .iter()
                .filter(|(_, q)| *q > 0.0)
                .cloned()
                .collect()
        })
        .unwrap_or_default();
    // The pod itself, where nodes say how many they take (a node that does not is not
    // limited by count).
    if nodes.iter().any(|n| n.allocatable.contains_key(POD_SLOTS)) {
        want.insert(POD_SLOTS.to_string(), 1.0);
    }
    let elig = Eligibility::of(&pv);
    let tolerations = pv
        .at("/spec/tolerations")
        .and_then(serde_json::Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    let empty = BTreeMap::new();
    let checks = nodes
        .iter()
        .map(|n| {
            let used = ix.requested_on(&n.name).unwrap_or(&empty);
            NodeCheck {
                name: &n.name,
                selected: elig.selects(n)
                    && crate::facts::selectors::node_affinity_admits(&pv, &n.name, &n.labels),
                // The cordon's own taint is the cordon filter's to say.
                tolerated: crate::index::untolerated(
                    tolerations,
                    n.taints
                        .iter()
                        .filter(|t| t.is_hard() && t.key != "node.kubernetes.io/unschedulable"),
                )
                .next()
                .is_none(),
                schedulable: !n.unschedulable || tolerates_cordon(tolerations),
                have: want
                    .keys()
                    .map(|r| {
                        let absent = if r == POD_SLOTS { f64::INFINITY } else { 0.0 };
                        let a = n.allocatable.get(r).copied().unwrap_or(absent);
                        (a, (a - used.get(r).copied().unwrap_or(0.0)).max(0.0))
                    })
                    .collect(),
            }
        })
        .collect();
    (want, checks)
}

/// Whether `tolerations` tolerate the cordon's taint (kube-scheduler's NodeUnschedulable
/// filter lets such a pod onto a cordoned node).
fn tolerates_cordon(tolerations: &[Value]) -> bool {
    let cordon = crate::index::Taint {
        key: CORDON_TAINT.to_string(),
        value: None,
        effect: "NoSchedule".to_string(),
    };
    crate::index::untolerated(tolerations, [&cordon])
        .next()
        .is_none()
}

/// The requests that stop the pod: those larger than the largest node (for `size`), or than
/// the most any candidate has free (for `busy`).
fn short_rows(
    want: &BTreeMap<String, f64>,
    judged: &[&NodeCheck],
    stop: Option<&str>,
) -> Vec<ResourceShort> {
    let row = |k: usize, r: &String, q: f64| {
        let largest = judged.iter().map(|c| c.have[k].0).fold(0.0, f64::max);
        let best = judged.iter().filter(|c| c.have[k].0 > 0.0).max_by(|a, b| {
            a.have[k]
                .1
                .total_cmp(&b.have[k].1)
                .then_with(|| b.name.cmp(a.name))
        });
        let (free, node) = best.map_or((0.0, None), |c| (c.have[k].1, Some(c.name)));
        let h = |v: f64| Value::from(crate::facts::human_quantity(r, v));
        let text = match stop {
            Some("busy") => say(
                "nodeFitBusy",
                &[
                    ("resource", r.clone().into()),
                    ("request", h(q)),
                    ("free", h(free)),
                    ("node", node.unwrap_or("").into()),
                ],
            ),
            _ => say(
                "nodeFitSizeAnyNode",
                &[
                    ("resource", r.clone().into()),
                    ("request", h(q)),
                    ("largest", h(largest)),
                ],
            ),
        };
        ResourceShort {
            resource: r.clone(),
            request: Num(q),
            largest: Num(largest),
            most_free: Num(free),
            most_free_node: node.map(str::to_string),
            text,
        }
    };
    let rows: Vec<ResourceShort> = want
        .iter()
        .enumerate()
        .map(|(k, (r, q))| row(k, r, *q))
        .collect();
    let pick = |f: &dyn Fn(&ResourceShort) -> bool| -> Vec<ResourceShort> {
        let some: Vec<ResourceShort> = rows.iter().filter(|x| f(x)).cloned().collect();
        // Only together are they too much for every node: each alone fits somewhere. (The
        // pod's own slot is named only when it is short.)
        if some.is_empty() {
            rows.iter()
                .filter(|x| x.resource != POD_SLOTS)
                .cloned()
                .collect()
        } else {
            some
        }
    };
    match stop {
        Some("size") => pick(&|x| x.request.0 > x.largest.0),
        Some("busy") => pick(&|x| x.request.0 > x.most_free.0),
        _ => Vec::new(),
    }
}
