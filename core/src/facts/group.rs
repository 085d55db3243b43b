//! The pod's group (LWS group, JobSet, gang PodGroup) and its members: `$.facts.group`.

use super::Ctx;
use crate::index::ObjId;
use crate::json::At as _;
use crate::json::{label, str_at};
use serde::Serialize;
use serde_json::Value;

/// `$.facts.group`: the group the pod belongs to and how many of it are there.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Group {
    /// `LeaderWorkerSet`, `JobSet` or `PodGroup`.
    pub kind: String,
    /// The LWS group's leader pod name (`<lws>-<index>`), the JobSet's or the PodGroup's name.
    pub name: String,
    /// Its size: the LWS `leaderworkerset.sigs.k8s.io/size` label, the JobSet's Σ replicas ×
    /// parallelism, the PodGroup's `minMember`; null when nothing states one.
    pub expected: Option<u64>,
    /// Members in the bundle.
    pub present: usize,
    /// Members Running (ready or not).
    pub running: usize,
    pub ready: usize,
    /// Members neither ready nor running nor completed.
    pub pending: usize,
    /// `expected - present`, at least 0.
    pub missing: Option<u64>,
    /// The first 64 members.
    pub members: Vec<Member>,
    /// The LWS group index.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group_index: Option<String>,
    /// The LWS group's worker StatefulSet (named like the leader) and whether it exists.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub worker_stateful_set: Option<WorkerSet>,
}

/// One member pod.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Member {
    pub name: String,
    /// kubectl's STATUS.
    pub status: String,
    pub ready: bool,
    pub node: Option<String>,
}

/// An LWS group's worker StatefulSet.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct WorkerSet {
    pub name: String,
    pub exists: bool,
}

/// A pod's place in a LeaderWorkerSet, from the labels LWS writes on every pod: the one
/// reading the view's links and the group fact share.
pub struct LwsMembership<'v> {
    pub lws: &'v str,
    pub group_index: &'v str,
    /// The group's leader pod, and its worker StatefulSet, are named `<lws>-<group index>`.
    pub leader: String,
}

impl<'v> LwsMembership<'v> {
    /// The membership a pod's labels state; None when it names no LeaderWorkerSet.
    pub fn of(pod: &'v Value) -> Option<LwsMembership<'v>> {
        let lws = label(pod, "leaderworkerset.sigs.k8s.io/name")?;
        Some(LwsMembership::in_lws(lws, Some(pod)))
    }

    /// The group of the LeaderWorkerSet `lws` that `pod` is in (its group-index label); group
    /// `0` when there is no pod or it has no such label.
    pub fn in_lws(lws: &'v str, pod: Option<&'v Value>) -> LwsMembership<'v> {
        let group_index = pod
            .and_then(|p| label(p, "leaderworkerset.sigs.k8s.io/group-index"))
            .unwrap_or("0");
        LwsMembership {
            lws,
            group_index,
            leader: format!("{lws}-{group_index}"),
        }
    }
}

/// A label or annotation value (annotation first: Kueue moved some labels to annotations).
fn meta_value<'v>(v: &'v Value, key: &str) -> Option<&'v str> {
    v.at("/metadata/annotations")
        .and_then(|a| a.get(key))
        .and_then(Value::as_str)
        .or_else(|| label(v, key))
        .filter(|s| !s.is_empty())
}

/// `$.facts.group`: the pod's LWS group, else its JobSet, else its gang PodGroup.
pub fn fact(ctx: &Ctx) -> Option<Group> {
    let ix = ctx.ix;
    let pv = ctx.pod_value()?;
    let pns = str_at(&pv, "/metadata/namespace");
    if let Some(LwsMembership {
        lws: lws_name,
        group_index,
        leader: leader_name,
    }) = LwsMembership::of(&pv)
    {
        let worker_sts = ix.get("apps", "StatefulSet", pns, &leader_name);
        let size = meta_value(&pv, "leaderworkerset.sigs.k8s.io/size").and_then(|s| s.parse().ok());
        let members: Vec<ObjId> = ix
            .get("leaderworkerset.x-k8s.io", "LeaderWorkerSet", pns, lws_name)
            .map(|l| ix.descendant_pods(l))
            .unwrap_or_default()
            .into_iter()
            .filter(|&m| {
                label(&ix.value(m), "leaderworkerset.sigs.k8s.io/group-index") == Some(group_index)
            })
            .collect();
        let mut g = of_pods(ctx, "LeaderWorkerSet", &leader_name, size, &members);
        g.group_index = Some(group_index.to_string());
        g.worker_stateful_set = Some(WorkerSet {
            name: leader_name,
            exists: worker_sts.is_some(),
        });
        return Some(g);
    }
    if let Some(js) = label(&pv, "jobset.sigs.k8s.io/jobset-name")
        && let Some(id) = ix.get("jobset.x-k8s.io", "JobSet", pns, js)
    {
        // Saturating: a manifest may declare counts up to 2^64-1.
        let expected = super::replicated_jobs(&ix.value(id))
            .iter()
            .fold(0u64, |sum, rj| {
                sum.saturating_add(rj.replicas.saturating_mul(rj.pods_per_job))
            });
        let members: Vec<ObjId> = ix
            .descendant_pods(id)
            .into_iter()
            .filter(|&m| !ix.pod(m).is_some_and(|p| p.terminal()))
            .collect();
        return Some(of_pods(ctx, "JobSet", js, Some(expected), &members));
    }
    if let Some((name, api_group)) = crate::index::pod_group_of(&pv) {
        let id = ix.get(api_group, "PodGroup", pns, name)?;
        let members = ix.pods_in_group(pns.unwrap_or(""), name).to_vec();
        let min = ix.value(id).at("/spec/minMember").and_then(Value::as_u64);
        return Some(of_pods(ctx, "PodGroup", name, min, &members));
    }
    // Kubernetes' own gang: a group whether or not the bundle holds its object (its minimum
    // is then unknown).
    let native = crate::index::native_gang_of(&pv)?;
    let members = ix.pods_in_group(pns.unwrap_or(""), &native.key()).to_vec();
    let min = ix
        .get("scheduling.k8s.io", native.kind, pns, native.name)
        .and_then(|id| {
            let obj = ix.value(id);
            native.policy(&obj)?.at("/gang/minCount")?.as_u64()
        });
    Some(of_pods(ctx, "PodGroup", &native.display(), min, &members))
}

fn of_pods(ctx: &Ctx, kind: &str, name: &str, expected: Option<u64>, members: &[ObjId]) -> Group {
    let rows: Vec<Member> = members
        .iter()
        .map(|&m| {
            let info = ctx.ix.pod(m);
            Member {
                name: ctx.ix.object(m).name.clone(),
                status: info.map_or_else(|| "Unknown".into(), |i| i.status.clone()),
                ready: info.is_some_and(|i| i.settled),
                node: info.and_then(|i| i.node.clone()),
            }
        })
        .collect();
    let running = rows
        .iter()
        .filter(|m| m.status == "Running" || m.status == "Running (not ready)")
        .count();
    let ready = rows.iter().filter(|m| m.ready).count();
    let pending = rows
        .iter()
        .filter(|m| {
            !m.ready
                && m.status != "Running"
                && m.status != "Running (not ready)"
                && m.status != "Completed"
        })
        .count();
    Group {
        kind: kind.to_string(),
        name: name.to_string(),
        expected,
        present: rows.len(),
        running,
        ready,
        pending,
        missing: expected.map(|e| e.saturating_sub(rows.len() as u64)),
        members: rows.into_iter().take(64).collect(),
        group_index: None,
        worker_stateful_set: None,
    }
}

/// `$.facts.gang`: the pod's gang (a KAI, Volcano or scheduler-plugins PodGroup, or Kubernetes'
/// own `scheduling.k8s.io` gang) measured against its own minimum, from the pods the bundle
/// holds, whatever scheduler message there is.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Gang {
    /// The PodGroup's name (for a 1.35 native gang: `<pod group> of Workload <name>`).
    pub name: String,
    /// The API group of the object that holds the minimum.
    pub api_group: String,
    /// That object's kind: `PodGroup`, or `Workload` for a 1.35 native gang.
    pub kind: String,
    /// Whether the bundle holds that object (for a 1.35 Workload: with the pod group named).
    /// Only a native gang is reported without it: its scheduler keeps the pods out of its
    /// queue until the object exists, and says so nowhere.
    pub found: bool,
    /// The minimum: `spec.minMember` (Volcano, KAI, scheduler-plugins) or the native gang
    /// policy's `minCount`; 0 when the object is not found.
    pub min_member: u64,
    /// Members in the bundle.
    pub present: usize,
    /// Members that have finished (Succeeded or Failed): they will never run again.
    pub finished: usize,
    /// Members that can still run: present and not finished.
    pub live: usize,
    /// Live members not running yet.
    pub waiting: usize,
    /// Fewer live members than the minimum, with some of them waiting: the gang cannot be
    /// placed until its controller makes more pods, whatever the nodes hold.
    pub short: bool,
}

/// `$.facts.gang`: none when the pod names no gang, or names a scheduler's PodGroup the bundle
/// does not hold or that has no minimum.
pub fn gang(ctx: &Ctx) -> Option<Gang> {
    let ix = ctx.ix;
    let Some(pv) = ctx.pod_value() else {
        return memberless(ctx);
    };
    let pns = str_at(&pv, "/metadata/namespace");
    let (mut g, members) = if let Some((name, api_group)) = crate::index::pod_group_of(&pv) {
        let id = ix.get(api_group, "PodGroup", pns, name)?;
        let min = ix.value(id).at("/spec/minMember").and_then(Value::as_u64);
        let g = Gang::named(
            name.to_string(),
            api_group,
            "PodGroup",
            min.filter(|&m| m > 0)?,
        );
        (g, ix.pods_in_group(pns.unwrap_or(""), name))
    } else {
        let native = crate::index::native_gang_of(&pv)?;
        let members = ix.pods_in_group(pns.unwrap_or(""), &native.key());
        let obj = ix
            .get("scheduling.k8s.io", native.kind, pns, native.name)
            .map(|id| ix.value(id));
        let policy = obj.as_ref().and_then(|o| native.policy(o));
        let min = match policy {
            // A basic policy (no gang) has no minimum to fall short of.
            Some(p) => p
                .at("/gang/minCount")
                .and_then(Value::as_u64)
                .filter(|&m| m > 0)?,
            None => 0,
        };
        let mut g = Gang::named(native.display(), "scheduling.k8s.io", native.kind, min);
        g.found = policy.is_some();
        (g, members)
    };
    let pod = |m: &ObjId| ix.pod(*m);
    g.present = members.len();
    g.finished = members
        .iter()
        .filter(|m| pod(m).is_some_and(|p| p.terminal()))
        .count();
    g.live = g.present - g.finished;
    g.waiting = members
        .iter()
        .filter(|m| pod(m).is_some_and(|p| !p.terminal() && p.phase != "Running"))
        .count();
    // A partial paste holds some of the pods: when their controllers are in the bundle and
    // declare enough pods to come, the gang is not short, whatever the paste left out.
    // A member whose ReplicaSet or StatefulSet the paste cut may have siblings the paste cut
    // too: how many pods will come is unknown, not short.
    let declared = declared_members(ix, members);
    g.short = g.found
        && (g.live as u64) < g.min_member
        && g.waiting > 0
        && declared.is_none_or(|d| d < g.min_member)
        && !members.iter().any(|&m| counting_owner_cut(ix, m));
    Some(g)
}

/// A PodGroup target none of whose members exists, which its scheduler already judged
/// (`Unschedulable=True`: Volcano's `3/0 tasks in gang unschedulable`): the gang waits for pods
/// its controller never made. A PodGroup not judged yet (made a moment before its pods) is not
/// reported.
fn memberless(ctx: &Ctx) -> Option<Gang> {
    let ix = ctx.ix;
    let t = ix.object(ctx.target);
    if t.kind() != "PodGroup" {
        return None;
    }
    let v = ix.value(ctx.target);
    let min = v
        .at("/spec/minMember")
        .and_then(Value::as_u64)
        .filter(|&m| m > 0)?;
    let judged = v
        .at("/status/conditions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .any(|c| c["type"] == "Unschedulable" && c["status"] == "True");
    let ns = t.namespace().unwrap_or("");
    if !judged || !ix.pods_in_group(ns, &t.name).is_empty() {
        return None;
    }
    let mut g = Gang::named(t.name.to_string(), t.group(), "PodGroup", min);
    g.short = true;
    Some(g)
}

/// Whether the pod names a controller that keeps a count of pods (a ReplicaSet or StatefulSet)
/// which the bundle does not hold. (A cut Job is left out: its JobSet or operator, when pasted,
/// declares the count the gang is measured against.)
fn counting_owner_cut(ix: &crate::index::Index, pod: ObjId) -> bool {
    ix.owners(pod).is_empty()
        && ix
            .unresolved_owner_refs(pod)
            .any(|r| matches!(r.kind.as_str(), "ReplicaSet" | "StatefulSet"))
}

/// The pods the members' controllers keep running, when every member's controller is a Job,
/// ReplicaSet or StatefulSet of the bundle: a Job's `parallelism` (at most the completions it
/// has left), the others' `replicas`. None when any member has another owner or none found
/// (an operator that makes its pods itself may make more later, or never: the pods tell).
fn declared_members(ix: &crate::index::Index, members: &[ObjId]) -> Option<u64> {
    let mut owners: Vec<ObjId> = Vec::new();
    for &m in members {
        let owner = *ix.owners(m).first()?;
        if !owners.contains(&owner) {
            owners.push(owner);
        }
    }
    owners.iter().try_fold(0u64, |sum, &o| {
        let v = ix.value(o);
        let n = |p: &str| v.at(p).and_then(Value::as_u64);
        let keeps = match (ix.object(o).group(), ix.object(o).kind().as_str()) {
            ("batch", "Job") => {
                let parallelism = n("/spec/parallelism").unwrap_or(1);
                let left = n("/spec/completions")
                    .map(|c| c.saturating_sub(n("/status/succeeded").unwrap_or(0)));
                left.map_or(parallelism, |l| parallelism.min(l))
            }
            ("apps", "ReplicaSet" | "StatefulSet") => n("/spec/replicas").unwrap_or(1),
            _ => return None,
        };
        Some(sum + keeps)
    })
}

impl Gang {
    fn named(name: String, api_group: &str, kind: &str, min_member: u64) -> Gang {
        Gang {
            name,
            api_group: api_group.to_string(),
            kind: kind.to_string(),
            found: true,
            min_member,
            present: 0,
            finished: 0,
            live: 0,
            waiting: 0,
            short: false,
        }
    }
}
