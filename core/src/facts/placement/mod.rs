//! Facts of the placement layer, at `$.facts.placement` (null when the view has no pod), and
//! Volcano's queue for the work, at `$.facts.volcano`.
//!
//! Every field is documented on [`PlacementFacts`], [`VolcanoFacts`] and their parts, from which
//! `docs/view.md` and the schema rule paths are checked against are generated.

mod containers;
mod kai;
mod kai_order;
mod karpenter;
pub mod nodefit;
mod rollout;
mod selector;
mod silence;
mod taints;
mod volumes;

pub use containers::{ContainerRequest, SharedResource};
pub use kai::{Kai, KaiQueue, KaiQueueFit, Reservation};
pub use karpenter::NodeClaim;
pub use nodefit::{NodeFit, ResourceShort, WholeFit};
pub use rollout::Rollout;
pub use selector::{PlacementSelector, SelectorTerm};
pub use silence::Silence;
pub use taints::{TaintRow, Taints};
pub use volumes::{VolumeClaim, Volumes};

use super::{Ctx, Lending, to_json};
use crate::index::NodeInfo;
use crate::json::At as _;
use crate::json::str_at as s;
use crate::lend::Shared;
use serde::Serialize;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// What keeps the view's pod off nodes, or what the scheduler it names has (not) said.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct PlacementFacts {
    /// The NoSchedule/NoExecute taints the pod does not tolerate.
    pub taints: Taints,
    /// The node labels the pod asks for, and who carries them.
    pub selector: PlacementSelector,
    /// Every node with `spec.unschedulable: true`; empty for a pod already bound to a node.
    pub cordoned: Vec<String>,
    /// Those the pod could otherwise use: they advertise every extended resource it asks for
    /// and its nodeSelector selects them. Empty for a bound pod, and without Node objects.
    pub cordoned_relevant: Vec<String>,
    /// Whether any scheduler has spoken about the pod.
    pub silence: Silence,
    /// Extended resources requested by two or more containers, in name order.
    pub containers: Vec<SharedResource>,
    /// The pod's PersistentVolumeClaims.
    pub volumes: Volumes,
    /// KAI Scheduler's queue and PodGroup; null when neither is KAI's.
    pub kai: Option<Kai>,
    /// The GPU reservation namespaces of KAI's binder and fake-gpu-operator; null when neither
    /// is known.
    pub reservation: Option<Reservation>,
    /// The gang-scheduling PodGroup the pod names; null when it names none.
    pub gang: Option<Gang>,
    /// The Karpenter NodeClaims the view's events say the pod will go to, in name order.
    pub node_claims: Vec<NodeClaim>,
    /// For a pod `fit` placed as if submitted (no scheduler has seen it): the nodes that pass
    /// each filter and the first that leaves none. Null for every other pod.
    pub node_fit: Option<NodeFit>,
    /// For work `fit` placed: how many of its pods the nodes would hold at once. Absent for
    /// every other work.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub whole_fit: Option<nodefit::WholeFit>,
    /// For a pending pod of a Deployment's rolling update while its older ReplicaSets' pods
    /// still run: the rollout's budget and those pods. Null for every other pod.
    pub rollout: Option<rollout::Rollout>,
}

/// Whether the scheduler's message (`$.facts.scheduling`, already built for the view) counts
/// every node it considered as failing the pod's node selector or affinity (`0/4 nodes are
/// available: 4 node(s) didn't match Pod's node affinity/selector`).
fn every_node_off_selector(ctx: &Ctx) -> bool {
    let s = ctx
        .subjects
        .get("facts")
        .map_or(&Value::Null, |f| &f["scheduling"]);
    let off: u64 = arr(s, "/reasons")
        .filter(|r| r["kind"] == "affinity")
        .filter_map(|r| r["count"].as_u64())
        .sum();
    s["nodes"].as_u64().is_some_and(|n| n > 0 && off == n)
}

/// The PodGroup a gang scheduler groups the pod in.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Gang {
    /// `scheduling.volcano.sh` (from the `scheduling.k8s.io/group-name` annotation) or
    /// `scheduling.x-k8s.io` (coscheduling, from the `scheduling.x-k8s.io/pod-group` label).
    pub api_group: String,
    /// The PodGroup's name.
    pub name: String,
    /// The bundle holds that PodGroup in the pod's namespace.
    pub found: bool,
    /// What Volcano's gang plugin last said about the group, from the pod's PodScheduled
    /// condition or an event about it; null when neither carries its message.
    pub report: Option<GangReport>,
}

/// Volcano's gang message, `<unready>/<tasks> tasks in gang unschedulable: pod group is not
/// ready, <n> <status>, …, <m> minAvailable…`, read into numbers. Its saying so also proves
/// the PodGroup exists in the cluster, in the bundle or not.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct GangReport {
    /// The message as Volcano wrote it.
    pub message: String,
    /// The group's pods Volcano knows of, in any state (`<tasks>`).
    pub tasks: u64,
    /// Of those, the ones not finished (every state but Succeeded and Failed).
    pub live: u64,
    /// The PodGroup's `minMember`, as the message gives it.
    pub min_available: u64,
    /// Fewer pods exist than the gang's minimum, and some of them are waiting: no scheduling
    /// can start the gang until its controller creates the rest.
    pub short: bool,
}

/// [`GangReport`] read from one message; None when it is not the gang plugin's.
pub fn gang_report(message: &str) -> Option<GangReport> {
    let (head, rest) = message.split_once(" tasks in gang unschedulable: ")?;
    let tasks: u64 = head.rsplit_once('/')?.1.trim().parse().ok()?;
    // `pod group is not ready, 2 Pending, 3 minAvailable` and then, in newer versions, `; …`
    // or `. Origin reason is: …`.
    let histogram = rest.split_once(", ")?.1;
    let histogram = histogram.split([';']).next()?.split(". ").next()?;
    let (mut live, mut min_available) = (0, None);
    for item in histogram.trim_end_matches('.').split(", ") {
        let (n, state) = item.trim().split_once(' ')?;
        let n: u64 = n.parse().ok()?;
        match state {
            "minAvailable" => min_available = Some(n),
            "Succeeded" | "Failed" => {}
            _ => live += n,
        }
    }
    let min_available = min_available?;
    Some(GangReport {
        message: message.to_string(),
        tasks,
        live,
        min_available,
        short: live > 0 && tasks < min_available,
    })
}

/// Volcano's queue for the work.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct VolcanoFacts {
    /// The queue named by a Volcano Job's or Volcano PodGroup's `spec.queue` (the target), else
    /// by the pod's `scheduling.volcano.sh/queue-name` annotation.
    pub queue: String,
    /// The bundle holds the Queue.
    pub found: bool,
    /// The Queue's `spec.capability`, as given; null when absent.
    pub capability: Value,
    /// The Queue caps resources (`spec.capability`) but lists no `pods`: since Volcano counts
    /// pods as a resource (volcano-sh/volcano#3188), such a queue admits no pod at all.
    pub capability_without_pods: bool,
}

/// The placement layer's facts for one view; None without a pod. What keeps an unbound pod
/// off nodes (its taints, the cordoned nodes) is on loan: it names every such node, and pods
/// of one template are kept off the same ones.
pub fn facts(ctx: &Ctx) -> Lending<Option<PlacementFacts>> {
    let mut parts = Vec::new();
    let fact = view_facts(ctx, &mut parts);
    Lending { fact, parts }
}

/// Taints and cordons that keep pods off nodes, as JSON to lend: computed once for each
/// (tolerations, nodeSelector, extended resources) that pods share.
struct KeptOff {
    taints: Arc<Shared>,
    cordoned_relevant: Arc<Shared>,
}

/// Distinct (tolerations, nodeSelector, extended resources) whose [`KeptOff`] is kept; past
/// this, pods hardly share theirs, and each view builds its own.
const KEPT_OFF_KEPT: usize = 1024;

type KeptOffByPod = Mutex<HashMap<String, Arc<KeptOff>>>;

fn view_facts(ctx: &Ctx, parts: &mut Vec<(&'static str, Arc<Shared>)>) -> Option<PlacementFacts> {
    let pod = ctx.pod?;
    let pv = ctx.pod_value()?;
    let pv: &Value = &pv;
    let tables = ctx.ix.node_tables();
    let extended: Vec<String> = ctx
        .ix
        .pod(pod)
        .map(|p| {
            p.requests
                .iter()
                .filter(|(k, v)| k.contains('/') && *v > 0.0)
                .map(|(k, _)| k.clone())
                .collect()
        })
        .unwrap_or_default();
    // A node the pod could use but for taints or a cordon: it advertises every extended resource
    // the pod asks for and matches its nodeSelector.
    let eligibility = crate::facts::Eligibility::of(pv);
    let advertises = |n: &NodeInfo| {
        let has = extended
            .iter()
            .all(|r| n.allocatable.get(r).copied().unwrap_or(0.0) > 0.0);
        has && eligibility.selects(n)
    };
    // Which nodes' taints and cordons keep the pod off matters only until it is bound; these
    // lists hold every such node, so a bound pod's view (most of a scan's) skips them.
    let bound = pv
        .at("/spec/nodeName")
        .and_then(Value::as_str)
        .is_some_and(|n| !n.is_empty());
    let mut taints = Taints::default();
    let mut cordoned_relevant = Vec::new();
    if !bound {
        let kept_off = || KeptOff {
            taints: Shared::new(to_json(&taints::taints(ctx, &tables, pv, &advertises))),
            cordoned_relevant: Shared::new(to_json(&taints::cordoned_relevant(
                &tables,
                &advertises,
            ))),
        };
        // Without Node objects the taints come from the view's own scheduler message.
        let shared = match ctx.ix.nodes().is_empty() {
            true => None,
            false => {
                let key = serde_json::to_string(&(
                    pv.at("/spec/tolerations"),
                    pv.at("/spec/nodeSelector"),
                    &extended,
                ))
                .unwrap_or_default();
                let memo = ctx.ix.once("placement.keptOff", KeptOffByPod::default);
                let known = memo
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .get(&key)
                    .cloned();
                Some(known.unwrap_or_else(|| {
                    let made = Arc::new(kept_off());
                    let mut memo = memo.lock().unwrap_or_else(|e| e.into_inner());
                    match memo.len() < KEPT_OFF_KEPT {
                        true => memo.entry(key).or_insert(made).clone(),
                        false => made,
                    }
                }))
            }
        };
        match shared {
            Some(k) => {
                parts.push(("taints", k.taints.clone()));
                parts.push(("cordonedRelevant", k.cordoned_relevant.clone()));
            }
            None => {
                taints = taints::taints(ctx, &tables, pv, &advertises);
                cordoned_relevant = taints::cordoned_relevant(&tables, &advertises);
            }
        }
        let all_cordoned = ctx.ix.once("placement.cordoned", || {
            let names: Vec<&String> = tables
                .unschedulable
                .iter()
                .map(|&p| &tables.nodes[p].name)
                .collect();
            Shared::new(to_json(&names))
        });
        parts.push(("cordoned", (*all_cordoned).clone()));
    }
    Some(PlacementFacts {
        taints,
        // Without a Node in the bundle, only the scheduler's counts say a label is missing.
        selector: selector::selector(
            &tables,
            pv,
            !tables.nodes.is_empty() || every_node_off_selector(ctx),
        ),
        cordoned: Vec::new(),
        cordoned_relevant,
        silence: silence::silence(ctx, pod, pv),
        containers: containers::containers(&tables, pv),
        volumes: volumes::volumes(ctx, pv),
        kai: kai::kai(ctx),
        reservation: kai::reservation(ctx),
        gang: gang(ctx, pv),
        node_claims: karpenter::node_claims(ctx),
        node_fit: ctx
            .ix
            .not_submitted(pod)
            .then(|| nodefit::node_fit(ctx.ix, pod)),
        whole_fit: ctx
            .ix
            .hypothesis()
            .and_then(|h| h.pod_sets_of(ctx.target))
            .map(|sets| nodefit::whole_fit(ctx.ix, sets)),
        rollout: rollout::rollout(ctx, pv),
    })
}

/// The array at a JSON pointer, empty when there is none.
fn arr<'v>(v: &'v Value, ptr: &str) -> impl Iterator<Item = &'v Value> {
    v.at(ptr).and_then(Value::as_array).into_iter().flatten()
}

/// The PodGroup the pod names for Volcano or coscheduling, Volcano's first.
fn gang(ctx: &Ctx, pv: &Value) -> Option<Gang> {
    let ns = s(pv, "/metadata/namespace");
    let keys = [
        (
            "/metadata/annotations/scheduling.k8s.io~1group-name",
            "scheduling.volcano.sh",
        ),
        (
            "/metadata/labels/scheduling.x-k8s.io~1pod-group",
            "scheduling.x-k8s.io",
        ),
    ];
    keys.into_iter().find_map(|(ptr, group)| {
        let name = s(pv, ptr)?;
        Some(Gang {
            api_group: group.to_string(),
            name: name.to_string(),
            found: ctx.ix.get(group, "PodGroup", ns, name).is_some(),
            report: gang_report_of(ctx, pv),
        })
    })
}

/// The gang plugin's word on the pod: its PodScheduled condition first (the scheduler's
/// latest), else the newest event that carries it.
fn gang_report_of(ctx: &Ctx, pv: &Value) -> Option<GangReport> {
    let condition = arr(pv, "/status/conditions")
        .filter(|c| s(c, "/type") == Some("PodScheduled"))
        .find_map(|c| s(c, "/message").and_then(gang_report));
    condition.or_else(|| ctx.event_messages().rev().find_map(gang_report))
}

/// Volcano's queue for the work; None when nothing names a Volcano queue.
pub fn volcano(ctx: &Ctx) -> Option<VolcanoFacts> {
    let ix = ctx.ix;
    let t = ix.object(ctx.target);
    let from_target = (t.group() == "batch.volcano.sh"
        || (t.group() == "scheduling.volcano.sh" && t.kind() == "PodGroup"))
        .then(|| ctx.value(ctx.target))
        .and_then(|v| {
            v.at("/spec/queue")
                .and_then(Value::as_str)
                .map(str::to_string)
        });
    let from_pod = || {
        ctx.pod_value().and_then(|p| {
            p.at("/metadata/annotations/scheduling.volcano.sh~1queue-name")
                .and_then(Value::as_str)
                .map(str::to_string)
        })
    };
    let queue = from_target.or_else(from_pod)?;
    let q = ix
        .get("scheduling.volcano.sh", "Queue", None, &queue)
        .map(|id| ix.value(id));
    let capability = q
        .as_ref()
        .and_then(|v| v.at("/spec/capability"))
        .cloned()
        .unwrap_or(Value::Null);
    let without_pods = capability
        .as_object()
        .is_some_and(|c| !c.is_empty() && !c.contains_key("pods"));
    Some(VolcanoFacts {
        queue,
        found: q.is_some(),
        capability,
        capability_without_pods: without_pods,
    })
}

#[cfg(test)]
mod gang_report_tests {
    use super::gang_report;

    #[test]
    fn fewer_pods_than_the_minimum_is_short() {
        let r = gang_report(
            "3/2 tasks in gang unschedulable: pod group is not ready, 2 Pending, 3 minAvailable.",
        )
        .expect("the gang plugin's message");
        assert_eq!((r.tasks, r.live, r.min_available, r.short), (2, 2, 3, true));
    }

    #[test]
    fn a_whole_group_or_an_empty_or_finished_one_is_not_short() {
        // Every pod exists (one finished, three leaving).
        let whole = gang_report("3/4 tasks in gang unschedulable: pod group is not ready, 1 Succeeded, 3 Releasing, 4 minAvailable").unwrap();
        assert!(!whole.short);
        // No pod yet: Volcano's job controller creates them once the group is enqueued.
        let empty =
            gang_report("1/0 tasks in gang unschedulable: pod group is not ready, 1 minAvailable.")
                .unwrap();
        assert!(!empty.short);
        // Only finished pods: a leftover group of a job that is done.
        let done = gang_report(
            "0/1 tasks in gang unschedulable: pod group is not ready, 1 Succeeded, 4 minAvailable",
        )
        .unwrap();
        assert!(!done.short);
    }

    #[test]
    fn newer_messages_with_pending_reasons_after_the_counts_are_read() {
        let r = gang_report("4/3 tasks in gang unschedulable: pod group is not ready, 3 Pending, 4 minAvailable; Pending: 3 Unschedulable. Origin reason is: 0/2 nodes are unavailable").unwrap();
        assert_eq!((r.tasks, r.live, r.min_available, r.short), (3, 3, 4, true));
    }

    #[test]
    fn other_messages_are_not_gang_reports() {
        assert!(gang_report("0/3 nodes are available: 3 Insufficient nvidia.com/gpu.").is_none());
        assert!(
            gang_report("12/12 tasks in gang unschedulable: ... Pending: 4 Schedulable").is_none()
        );
    }
}
