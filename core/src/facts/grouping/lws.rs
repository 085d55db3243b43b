//! The grouping layer's view of a LeaderWorkerSet, at `$.facts.grouping.lws`: the view's pod's
//! group (its leader pod and worker StatefulSet), group recreations, recursive worker sets,
//! the subgroup policy and a rollout held by old replicas.

use super::{Ctx, label};
use crate::index::{Index, ObjId};
use crate::json::At as _;
use serde::Serialize;
use serde_json::Value;

/// A LeaderWorkerSet, seen from the group of the view's pod.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct GroupingLws {
    /// The LeaderWorkerSet's name.
    pub name: String,
    /// `spec.startupPolicy`, `LeaderCreated` when unset.
    pub startup_policy: String,
    /// `spec.leaderWorkerTemplate.restartPolicy`, `RecreateGroupOnPodRestart` when unset.
    pub restart_policy: String,
    /// The `leaderworkerset.sigs.k8s.io/exclusive-topology` annotation: the node label whose
    /// one value each group must fit within.
    pub exclusive_topology: Option<String>,
    /// `spec.leaderWorkerTemplate.size`: pods per group, the leader included (1 when unset).
    pub size: u64,
    /// The group of the view's pod (its `leaderworkerset.sigs.k8s.io/group-index` label), `"0"`
    /// when the view has no pod: the group `leader` and `workerStatefulSet` are of.
    pub group_index: String,
    /// The group's leader pod.
    pub leader: LwsLeader,
    /// The group's worker StatefulSet, which makes the group's other pods.
    pub worker_stateful_set: LwsWorkerStatefulSet,
    /// The summed counts of `RecreateGroup` / `RecreateGroupOnPodRestart` events on the LWS,
    /// its pods and the group's leader.
    pub recreate_events: u64,
    /// The LWS's StatefulSets named like a worker set of a worker set (`<lws>-0-0`,
    /// `<lws>-0-0-0`…), sorted: below Kubernetes 1.26 a worker StatefulSet starts at ordinal 0,
    /// its first pod takes the leader's name, and LWS makes worker sets for it in turn.
    pub nested_worker_sets: Vec<String>,
    /// `spec.leaderWorkerTemplate.subGroupPolicy`; null without one.
    pub sub_group: Option<LwsSubGroup>,
    /// The view's pods against the worker template's images; null when the worker template
    /// names no image.
    pub rollout: Option<LwsRollout>,
}

/// The group's leader pod, `<lws>-<groupIndex>`. Only `name` and `exists` when it does not
/// exist.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct LwsLeader {
    /// `<lws>-<groupIndex>`, the name LWS gives the leader pod.
    pub name: String,
    /// Whether the bundle holds the leader pod.
    pub exists: bool,
    /// `status.phase`, `Unknown` when unset; absent when the pod does not exist.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phase: Option<String>,
    /// Bound to a node (`spec.nodeName` set); absent when the pod does not exist.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scheduled: Option<bool>,
    /// Its `Ready` condition is `True`; absent when the pod does not exist.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ready: Option<bool>,
}

/// The group's worker StatefulSet, named like the leader pod. Only `name` and `exists` when it
/// does not exist.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct LwsWorkerStatefulSet {
    /// `<lws>-<groupIndex>`, the leader pod's name.
    pub name: String,
    /// Whether the bundle holds the StatefulSet.
    pub exists: bool,
    /// `spec.replicas`, 1 when unset; absent when the StatefulSet does not exist.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replicas: Option<u64>,
    /// `status.replicas`, 0 when unset; absent when the StatefulSet does not exist.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub current_replicas: Option<u64>,
}

/// The LWS's subgroup policy. With the default type (`LeaderWorker`) the leader is a member of
/// subgroup 0; when it selects other nodes than the workers, the subgroup's exclusive topology
/// cannot hold them together.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct LwsSubGroup {
    /// The `leaderworkerset.sigs.k8s.io/subgroup-exclusive-topology` annotation.
    pub exclusive_topology: Option<String>,
    /// `subGroupSize` as written; null when unset.
    pub size: Value,
    /// `subGroupPolicyType`, `LeaderWorker` when unset.
    #[serde(rename = "type")]
    pub type_: String,
    /// The leader template's `spec.nodeSelector` as written; null when unset.
    pub leader_selector: Value,
    /// The worker template's `spec.nodeSelector` as written; null when unset.
    pub worker_selector: Value,
    /// There is a leader template and its node selector is not the workers'.
    pub selectors_differ: bool,
}

/// A rollout against the group's pods. A rolling update replaces old replicas only as the ones
/// it already replaced become ready, so old replicas that never become ready can hold it still.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct LwsRollout {
    /// The images of the worker template's containers.
    pub template_images: Vec<String>,
    /// The view's pods (`pod` and `$.pods`) that run none of those images: an older template.
    pub stale_pods: Vec<String>,
    /// How many of `stalePods` are Ready.
    pub stale_ready: usize,
}

fn annotation<'v>(v: &'v Value, key: &str) -> Option<&'v str> {
    v.at("/metadata/annotations")
        .and_then(|l| l.get(key))
        .and_then(Value::as_str)
}

fn cond<'v>(v: &'v Value, ty: &str) -> Option<&'v Value> {
    v.at("/status/conditions")
        .and_then(Value::as_array)?
        .iter()
        .find(|c| c["type"] == ty)
}

/// The LWS fact, and the controllers whose events matter (leader and worker StatefulSets).
pub(super) fn lws(ctx: &Ctx, id: ObjId) -> (GroupingLws, Vec<ObjId>) {
    let ix = ctx.ix;
    let v = ix.value(id);
    let name = ix.object(id).name.clone();
    let ns = ix.object(id).namespace_name().cloned();
    let pod = ctx.pod.map(|p| ix.value(p));
    let membership = crate::facts::group::LwsMembership::in_lws(&name, pod.as_ref());
    let group = membership.group_index.to_string();
    let leader_name = membership.leader;
    let leader = ix.find("Pod", ns.as_deref(), &leader_name);
    let wsts = ix.get("apps", "StatefulSet", ns.as_deref(), &leader_name);
    let mut controllers: Vec<ObjId> = Vec::new();
    controllers.extend(ix.get("apps", "StatefulSet", ns.as_deref(), &name));
    controllers.extend(wsts);
    let tmpl = v.at("/spec/leaderWorkerTemplate");
    let fact = GroupingLws {
        startup_policy: v
            .at("/spec/startupPolicy")
            .and_then(Value::as_str)
            .unwrap_or("LeaderCreated")
            .to_string(),
        restart_policy: tmpl
            .and_then(|t| t.get("restartPolicy"))
            .and_then(Value::as_str)
            .unwrap_or("RecreateGroupOnPodRestart")
            .to_string(),
        exclusive_topology: annotation(&v, "leaderworkerset.sigs.k8s.io/exclusive-topology")
            .map(str::to_string),
        size: tmpl
            .and_then(|t| t.get("size"))
            .and_then(Value::as_u64)
            .unwrap_or(1),
        group_index: group,
        leader: leader_fact(ix, leader, &leader_name),
        worker_stateful_set: worker_set_fact(ix, wsts, &leader_name),
        recreate_events: recreate_events(ix, id, leader),
        nested_worker_sets: nested_worker_sets(ix, id, &name, ns.as_deref()),
        sub_group: sub_group(&v),
        rollout: rollout(ctx, &v),
        name,
    };
    (fact, controllers)
}

fn leader_fact(ix: &Index, leader: Option<ObjId>, name: &str) -> LwsLeader {
    let l = leader.map(|l| ix.value(l));
    LwsLeader {
        name: name.to_string(),
        exists: l.is_some(),
        phase: l.as_ref().map(|l| {
            l.at("/status/phase")
                .and_then(Value::as_str)
                .unwrap_or("Unknown")
                .to_string()
        }),
        scheduled: l.as_ref().map(|l| {
            l.at("/spec/nodeName")
                .and_then(Value::as_str)
                .is_some_and(|n| !n.is_empty())
        }),
        ready: l
            .as_ref()
            .map(|l| cond(l, "Ready").is_some_and(|c| c["status"] == "True")),
    }
}

fn worker_set_fact(ix: &Index, wsts: Option<ObjId>, name: &str) -> LwsWorkerStatefulSet {
    let w = wsts.map(|w| ix.value(w));
    let count = |ptr: &str, default: u64| {
        w.as_ref()
            .map(|w| w.at(ptr).and_then(Value::as_u64).unwrap_or(default))
    };
    LwsWorkerStatefulSet {
        name: name.to_string(),
        exists: w.is_some(),
        replicas: count("/spec/replicas", 1),
        current_replicas: count("/status/replicas", 0),
    }
}

/// The summed counts of group-recreating events on the LWS, its pods and the leader.
fn recreate_events(ix: &Index, id: ObjId, leader: Option<ObjId>) -> u64 {
    let mut recreate = 0;
    let mut sources = vec![id];
    sources.extend(ix.descendant_pods(id));
    sources.extend(leader);
    for s in sources {
        for (_, ev) in ix.events_about(s) {
            if ev.reason == "RecreateGroup" || ev.reason == "RecreateGroupOnPodRestart" {
                recreate += ev.count.max(1);
            }
        }
    }
    recreate
}

/// Worker sets made for workers (`<lws>-0-0`, `<lws>-0-0-0`): below Kubernetes 1.26 a worker
/// StatefulSet starts at ordinal 0, its first pod takes a leader's name, and LWS makes worker
/// sets for it in turn, recursively. Three things show them: StatefulSets of the LWS named so,
/// the sets of its pods named `<lws>-<g>-<o>-<o>…` (a pod's set is its name without the last
/// ordinal), and the LWS's own events "Created worker statefulset for leader pod `<lws>-<g>-<o>`"
/// (a leader's worker set takes the leader's name).
fn nested_worker_sets(ix: &Index, id: ObjId, lws: &str, ns: Option<&str>) -> Vec<String> {
    let prefix = format!("{lws}-");
    // How many numeric parts follow `<lws>-` (0 when any part is not a number).
    let ordinals = |n: &str| {
        n.strip_prefix(&prefix).map_or(0, |rest| {
            let parts: Vec<&str> = rest.split('-').collect();
            let numeric = |p: &&str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit());
            if parts.iter().all(numeric) {
                parts.len()
            } else {
                0
            }
        })
    };
    let of_lws =
        |oid: ObjId| label(&ix.value(oid), "leaderworkerset.sigs.k8s.io/name") == Some(lws);
    // Named like one first: reading an object's labels parses it, and a cluster has many.
    let named = |kind: &str, parts: usize| -> Vec<String> {
        ix.of_kind(kind)
            .iter()
            .copied()
            .filter(|&oid| ix.object(oid).namespace() == ns)
            .filter(|&oid| ordinals(&ix.object(oid).name) >= parts && of_lws(oid))
            .map(|oid| ix.object(oid).name.clone())
            .collect()
    };
    let from_pods = named("Pod", 3)
        .into_iter()
        .filter_map(|n| n.rfind('-').map(|at| n[..at].to_string()));
    let from_events = ix.events_about(id).into_iter().filter_map(|(_, e)| {
        let leader = e
            .message
            .strip_prefix("Created worker statefulset for leader pod ")?;
        (ordinals(leader.trim()) >= 2).then(|| leader.trim().to_string())
    });
    let mut out: Vec<String> = named("StatefulSet", 2);
    out.extend(from_pods.chain(from_events));
    out.sort();
    out.dedup();
    out
}

/// The LWS's subgroup policy, none without `subGroupPolicy`.
fn sub_group(v: &Value) -> Option<LwsSubGroup> {
    let t = v.at("/spec/leaderWorkerTemplate")?;
    let policy = t.get("subGroupPolicy")?;
    let selector = |tmpl: &str| {
        t.at(&format!("/{tmpl}/spec/nodeSelector"))
            .cloned()
            .unwrap_or(Value::Null)
    };
    let (leader, worker) = (selector("leaderTemplate"), selector("workerTemplate"));
    Some(LwsSubGroup {
        exclusive_topology: annotation(
            v,
            "leaderworkerset.sigs.k8s.io/subgroup-exclusive-topology",
        )
        .map(str::to_string),
        size: policy.get("subGroupSize").cloned().unwrap_or(Value::Null),
        type_: policy
            .get("subGroupPolicyType")
            .and_then(Value::as_str)
            .unwrap_or("LeaderWorker")
            .to_string(),
        selectors_differ: t.get("leaderTemplate").is_some() && leader != worker,
        leader_selector: leader,
        worker_selector: worker,
    })
}

/// The view's pods that run none of the worker template's images, none when the template names
/// no image.
fn rollout(ctx: &Ctx, v: &Value) -> Option<LwsRollout> {
    let images_at = |v: &'_ Value, ptr: &str| -> Vec<String> {
        v.at(ptr)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|c| c["image"].as_str().map(str::to_string))
            .collect()
    };
    let images = images_at(
        v,
        "/spec/leaderWorkerTemplate/workerTemplate/spec/containers",
    );
    if images.is_empty() {
        return None;
    }
    let mut stale = Vec::new();
    let mut stale_ready = 0;
    for (id, p) in ctx.view_pods() {
        let pod_images = images_at(p, "/spec/containers");
        if !pod_images.is_empty() && pod_images.iter().all(|i| !images.contains(i)) {
            stale.push(ctx.ix.object(id).name.clone());
            stale_ready += usize::from(ctx.ix.pod(id).is_some_and(|i| i.ready));
        }
    }
    Some(LwsRollout {
        template_images: images,
        stale_pods: stale,
        stale_ready,
    })
}
