//! Facts of the grouping layer, at `$.facts.grouping` (null when the work is not a JobSet, a
//! LeaderWorkerSet or made by Grove).
//!
//! Shape (every key present only when it applies):
//!
//! - `jobSet`: `{name, restarts, maxRestarts, restartsLeft, restartStrategy, startupPolicy,
//!   staleAttemptPods: [pod], replicatedJobs: [{name, replicas, jobsPresent, ready}],
//!   waitingOn, notStarted: [name]}` — `restarts` is `status.restarts`, `maxRestarts`
//!   `spec.failurePolicy.maxRestarts` (0 when there is no failurePolicy), `restartsLeft` their
//!   difference (never below 0). `staleAttemptPods` are non-terminal pods whose
//!   `jobset.sigs.k8s.io/restart-attempt` label is below `status.restarts` (leftovers of an
//!   earlier attempt). `waitingOn` is the first replicated job, in spec order, whose ready Jobs
//!   (`status.replicatedJobsStatus[].ready`) are fewer than its replicas while a later one has
//!   no Job at all; `notStarted` are the replicated jobs after it that have no Job.
//! - `lws`: `{name, startupPolicy, restartPolicy, exclusiveTopology, size, groupIndex, leader:
//!   {name, exists, phase, scheduled, ready}, workerStatefulSet: {name, exists, replicas,
//!   currentReplicas}, recreateEvents}` — the group of the view's pod (group 0 when there is no
//!   pod). `startupPolicy` defaults to `LeaderCreated`, `restartPolicy` to
//!   `RecreateGroupOnPodRestart`. `recreateEvents` sums the counts of `RecreateGroup` /
//!   `RecreateGroupOnPodRestart` events on the LWS and its pods. `nestedWorkerSets`: the LWS's
//!   StatefulSets named like worker sets of worker sets (`<lws>-0-0`…: recursive creation below
//!   Kubernetes 1.26). `subGroup`: `{exclusiveTopology, size, type, leaderSelector,
//!   workerSelector, selectorsDiffer}` or null. `rollout`: `{templateImages, stalePods,
//!   staleReady}` (pods running none of the worker template's images) or null.
//! - `fit`: `[{resource, perPod, pods, needed, eligibleAllocatable, maxDomainAllocatable, fits}]` —
//!   per device resource the view's pod asks for (`$.facts.resources`), the group's size
//!   (`$.facts.group.expected`, LWS or JobSet, more than one pod) times the pod's request against
//!   the sum of that resource's allocatable over the nodes the pod may use (nodeSelector and
//!   taints, as `eligible*` in `$.facts.resources`); with an LWS exclusive topology the largest
//!   single domain must hold it (`maxDomainAllocatable`). Assumes every member asks what this
//!   pod asks.
//! - `grove`: `{gate, podGang, podGangFound, gatedPods: [pod]}` — for pods made by Grove: the
//!   PodGang named by their `grove.io/podgang` label, whether a `scheduler.grove.io` PodGang of
//!   that name is in the bundle, and the pods that still carry Grove's scheduling gate
//!   `grove.io/podgang-pending-creation` (the view's pod and `$.pods`).
//! - `createFailures`: `[{kind, name, reason, message, count, webhook, service}]` — Warning
//!   `FailedCreate` (and JobSet `JobCreationFailed`) events on the group's controllers: the
//!   JobSet and its child Jobs; the LWS, its leader StatefulSet and the group's worker
//!   StatefulSet. `webhook`/`service` are parsed from `failed calling webhook "<w>"` and `no
//!   endpoints available for service "<s>"` (null when absent).

use super::Ctx;
use crate::index::{Index, ObjId};
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;

/// The grouping layer's facts for one view.
pub fn facts(ctx: &Ctx) -> Value {
    let mut out = Map::new();
    let mut failures = Vec::new();
    if let Some(js) = subject_id(ctx, "jobSet", "jobset.x-k8s.io", "JobSet") {
        out.insert("jobSet".into(), jobset(ctx.ix, js));
        failures.extend(create_failures(ctx.ix, js));
        for &c in ctx.ix.children(js) {
            if ctx.ix.object(c).kind == "Job" {
                failures.extend(create_failures(ctx.ix, c));
            }
        }
    }
    if let Some(lws) = subject_id(ctx, "lws", "leaderworkerset.x-k8s.io", "LeaderWorkerSet") {
        let (v, controllers) = lws_fact(ctx, lws);
        out.insert("lws".into(), v);
        failures.extend(create_failures(ctx.ix, lws));
        for c in controllers {
            failures.extend(create_failures(ctx.ix, c));
        }
    }
    if out.contains_key("jobSet") || out.contains_key("lws") {
        out.insert("createFailures".into(), Value::Array(failures));
        let topology = out
            .get("lws")
            .and_then(|l| l["exclusiveTopology"].as_str())
            .map(str::to_string);
        if let Some(f) = group_fit(ctx, topology.as_deref()) {
            out.insert("fit".into(), f);
        }
    }
    if let Some(g) = grove(ctx) {
        out.insert("grove".into(), g);
    }
    if out.is_empty() {
        Value::Null
    } else {
        Value::Object(out)
    }
}

fn subject_id(ctx: &Ctx, subject: &str, group: &str, kind: &str) -> Option<ObjId> {
    let s = ctx.subjects.get(subject)?;
    let ns = s.pointer("/metadata/namespace").and_then(Value::as_str);
    let name = s.pointer("/metadata/name").and_then(Value::as_str)?;
    ctx.ix.get(group, kind, ns, name)
}

fn label<'v>(v: &'v Value, key: &str) -> Option<&'v str> {
    v.pointer("/metadata/labels")
        .and_then(|l| l.get(key))
        .and_then(Value::as_str)
}

fn annotation<'v>(v: &'v Value, key: &str) -> Option<&'v str> {
    v.pointer("/metadata/annotations")
        .and_then(|l| l.get(key))
        .and_then(Value::as_str)
}

fn cond<'v>(v: &'v Value, ty: &str) -> Option<&'v Value> {
    v.pointer("/status/conditions")
        .and_then(Value::as_array)?
        .iter()
        .find(|c| c["type"] == ty)
}

fn jobset(ix: &Index, id: ObjId) -> Value {
    let v = ix.value(id);
    let restarts = v
        .pointer("/status/restarts")
        .and_then(Value::as_u64)
        .unwrap_or(0);
    let max = v
        .pointer("/spec/failurePolicy/maxRestarts")
        .and_then(Value::as_u64)
        .unwrap_or(0);
    let stale: Vec<String> = ix
        .descendant_pods(id)
        .into_iter()
        .filter(|&p| !ix.pod(p).is_some_and(|i| i.terminal()))
        .filter(|&p| {
            label(&ix.value(p), "jobset.sigs.k8s.io/restart-attempt")
                .and_then(|s| s.parse::<u64>().ok())
                .is_some_and(|a| a < restarts)
        })
        .map(|p| ix.object(p).name.clone())
        .collect();
    let jobs: Vec<Value> = crate::facts::child_jobs(ix, id)
        .map(|c| ix.value(c))
        .collect();
    let mut rows = Vec::new();
    for rj in crate::facts::replicated_jobs(&v) {
        let name = rj.name;
        let present = rj.present_in(&jobs);
        let ready = v
            .pointer("/status/replicatedJobsStatus")
            .and_then(Value::as_array)
            .and_then(|s| s.iter().find(|r| r["name"] == name))
            .and_then(|r| r["ready"].as_u64())
            .unwrap_or(0);
        rows.push(json!({"name": name, "replicas": rj.replicas,
            "jobsPresent": present, "ready": ready}));
    }
    let mut waiting_on = Value::Null;
    let mut not_started = Vec::new();
    for (i, r) in rows.iter().enumerate() {
        let later_empty: Vec<Value> = rows[i + 1..]
            .iter()
            .filter(|x| x["jobsPresent"] == 0)
            .map(|x| x["name"].clone())
            .collect();
        if r["jobsPresent"].as_u64().unwrap_or(0) > 0
            && r["ready"].as_u64() < r["replicas"].as_u64()
            && !later_empty.is_empty()
        {
            waiting_on = r["name"].clone();
            not_started = later_empty;
            break;
        }
    }
    json!({
        "name": ix.object(id).name,
        "restarts": restarts,
        "maxRestarts": max,
        "restartsLeft": max.saturating_sub(restarts),
        "restartStrategy": v.pointer("/spec/failurePolicy/restartStrategy").and_then(Value::as_str).unwrap_or("Recreate"),
        "startupPolicy": v.pointer("/spec/startupPolicy/startupPolicyOrder").and_then(Value::as_str).unwrap_or("AnyOrder"),
        "staleAttemptPods": stale,
        "replicatedJobs": rows,
        "waitingOn": waiting_on,
        "notStarted": not_started,
    })
}

/// The LWS fact, and the controllers whose events matter (leader and worker StatefulSets).
fn lws_fact(ctx: &Ctx, id: ObjId) -> (Value, Vec<ObjId>) {
    let ix = ctx.ix;
    let v = ix.value(id);
    let name = ix.object(id).name.clone();
    let ns = ix.object(id).namespace.clone();
    let pod = ctx.pod.map(|p| ix.value(p));
    let group = pod
        .as_ref()
        .and_then(|p| label(p, "leaderworkerset.sigs.k8s.io/group-index"))
        .unwrap_or("0")
        .to_string();
    let leader_name = format!("{name}-{group}");
    let leader = ix.find("Pod", ns.as_deref(), &leader_name);
    let leader_v = leader.map(|l| ix.value(l));
    let leader_fact = match &leader_v {
        Some(l) => json!({
            "name": leader_name,
            "exists": true,
            "phase": l.pointer("/status/phase").and_then(Value::as_str).unwrap_or("Unknown"),
            "scheduled": l.pointer("/spec/nodeName").and_then(Value::as_str).is_some_and(|n| !n.is_empty()),
            "ready": cond(l, "Ready").is_some_and(|c| c["status"] == "True"),
        }),
        None => json!({"name": leader_name, "exists": false}),
    };
    let wsts = ix.get("apps", "StatefulSet", ns.as_deref(), &leader_name);
    let wsts_fact = match wsts.map(|w| ix.value(w)) {
        Some(w) => json!({
            "name": leader_name, "exists": true,
            "replicas": w.pointer("/spec/replicas").and_then(Value::as_u64).unwrap_or(1),
            "currentReplicas": w.pointer("/status/replicas").and_then(Value::as_u64).unwrap_or(0),
        }),
        None => json!({"name": leader_name, "exists": false}),
    };
    let mut controllers: Vec<ObjId> = Vec::new();
    controllers.extend(ix.get("apps", "StatefulSet", ns.as_deref(), &name));
    controllers.extend(wsts);
    let mut recreate = 0;
    let mut sources = vec![id];
    sources.extend(ix.descendant_pods(id));
    sources.extend(leader);
    for s in sources {
        for e in ix.events_for(s) {
            if let Some(ev) = ix.event(e)
                && (ev.reason == "RecreateGroup" || ev.reason == "RecreateGroupOnPodRestart")
            {
                recreate += ev.count.max(1);
            }
        }
    }
    let tmpl = v.pointer("/spec/leaderWorkerTemplate");
    let size = tmpl
        .and_then(|t| t.get("size"))
        .and_then(Value::as_u64)
        .unwrap_or(1);
    let fact = json!({
        "name": name,
        "startupPolicy": v.pointer("/spec/startupPolicy").and_then(Value::as_str).unwrap_or("LeaderCreated"),
        "restartPolicy": tmpl.and_then(|t| t.get("restartPolicy")).and_then(Value::as_str).unwrap_or("RecreateGroupOnPodRestart"),
        "exclusiveTopology": annotation(&v, "leaderworkerset.sigs.k8s.io/exclusive-topology"),
        "size": size,
        "groupIndex": group,
        "leader": leader_fact,
        "workerStatefulSet": wsts_fact,
        "recreateEvents": recreate,
        "nestedWorkerSets": nested_worker_sets(ix, &name, ns.as_deref()),
        "subGroup": sub_group(&v),
        "rollout": rollout(ctx, &v),
    });
    (fact, controllers)
}

/// StatefulSets of the LWS named like a worker set of a worker set (`<lws>-0-0`, `<lws>-0-0-0`):
/// below Kubernetes 1.26 a worker StatefulSet starts at ordinal 0, its first pod takes the
/// leader's name, and LWS makes worker sets for it in turn, recursively.
fn nested_worker_sets(ix: &Index, lws: &str, ns: Option<&str>) -> Vec<String> {
    let prefix = format!("{lws}-");
    let mut out: Vec<String> = ix
        .of_kind("StatefulSet")
        .iter()
        .filter(|&&id| ix.object(id).namespace.as_deref() == ns)
        .filter(|&&id| label(&ix.value(id), "leaderworkerset.sigs.k8s.io/name") == Some(lws))
        .map(|&id| ix.object(id).name.clone())
        .filter(|n| {
            n.strip_prefix(&prefix).is_some_and(|rest| {
                let parts: Vec<&str> = rest.split('-').collect();
                parts.len() >= 2 && parts.iter().all(|p| p.bytes().all(|b| b.is_ascii_digit()))
            })
        })
        .collect();
    out.sort();
    out
}

/// The LWS's subgroup policy: `{exclusiveTopology, size, type, leaderSelector, workerSelector,
/// selectorsDiffer}` or null without `subGroupPolicy`. With the default type (`LeaderWorker`)
/// the leader is a member of subgroup 0; when it selects other nodes than the workers, the
/// subgroup's exclusive topology cannot hold them together.
fn sub_group(v: &Value) -> Value {
    let Some(t) = v.pointer("/spec/leaderWorkerTemplate") else {
        return Value::Null;
    };
    let Some(policy) = t.get("subGroupPolicy") else {
        return Value::Null;
    };
    let selector = |tmpl: &str| {
        t.pointer(&format!("/{tmpl}/spec/nodeSelector"))
            .cloned()
            .unwrap_or(Value::Null)
    };
    let (leader, worker) = (selector("leaderTemplate"), selector("workerTemplate"));
    json!({
        "exclusiveTopology": annotation(v, "leaderworkerset.sigs.k8s.io/subgroup-exclusive-topology"),
        "size": policy.get("subGroupSize"),
        "type": policy.get("subGroupPolicyType").and_then(Value::as_str).unwrap_or("LeaderWorker"),
        "leaderSelector": leader,
        "workerSelector": worker,
        "selectorsDiffer": t.get("leaderTemplate").is_some() && leader != worker,
    })
}

/// A rollout against the group's pods: `{templateImages, stalePods, staleReady}` — the images
/// of the worker template, the view's pods that run none of them (an older template), and how
/// many of those are Ready. A rolling update replaces old replicas only as the ones it already
/// replaced become ready, so old replicas that never become ready can hold it still.
fn rollout(ctx: &Ctx, v: &Value) -> Value {
    let images_at = |v: &'_ Value, ptr: &str| -> Vec<String> {
        v.pointer(ptr)
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
        return Value::Null;
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
    json!({"templateImages": images, "stalePods": stale, "staleReady": stale_ready})
}

fn quoted_after(msg: &str, marker: &str) -> Value {
    msg.find(marker)
        .map(|i| &msg[i + marker.len()..])
        .and_then(|rest| rest.split('"').next())
        .map_or(Value::Null, |s| json!(s))
}

fn create_failures(ix: &Index, id: ObjId) -> Vec<Value> {
    let o = ix.object(id);
    ix.events_for(id)
        .into_iter()
        .filter_map(|e| ix.event(e))
        .filter(|e| {
            e.type_ == "Warning" && (e.reason == "FailedCreate" || e.reason == "JobCreationFailed")
        })
        .map(|e| {
            json!({
                "kind": o.kind, "name": o.name, "reason": e.reason, "message": e.message,
                "count": e.count.max(1),
                "webhook": quoted_after(&e.message, "failed calling webhook \""),
                "service": quoted_after(&e.message, "no endpoints available for service \""),
            })
        })
        .collect()
}

/// Whether the whole group could ever fit: per device resource the pod asks for, the group's
/// size times the pod's request against what the nodes the pod may use advertise in total (and,
/// with an exclusive topology, in the largest single domain).
fn group_fit(ctx: &Ctx, topology: Option<&str>) -> Option<Value> {
    let facts = ctx.subjects.get("facts")?;
    let group = facts.get("group")?;
    if !matches!(group["kind"].as_str(), Some("LeaderWorkerSet" | "JobSet")) {
        return None;
    }
    let members = group["expected"].as_u64().filter(|&n| n > 1)?;
    let pod = ctx.pod_value()?;
    let elig = crate::facts::Eligibility::of(&pod);
    let tables = ctx.ix.node_tables();
    let mut rows = Vec::new();
    for r in facts["resources"].as_array().into_iter().flatten() {
        let (Some(name), Some(request)) = (r["name"].as_str(), r["request"].as_f64()) else {
            continue;
        };
        if request <= 0.0 {
            continue;
        }
        let mut total = 0.0;
        let mut domains: BTreeMap<String, f64> = BTreeMap::new();
        // Nodes without the resource add nothing: only the advertising ones (name order).
        let advertising = tables
            .resources
            .get(name)
            .map_or(&[][..], |t| &t.advertising);
        for &pos in advertising {
            if !elig.admits_at(&tables, pos) {
                continue;
            }
            let node = &tables.nodes[pos];
            let a = node.allocatable.get(name).copied().unwrap_or(0.0);
            total += a;
            if let Some(key) = topology {
                let d = node.labels.get(key).cloned().unwrap_or_default();
                *domains.entry(d).or_default() += a;
            }
        }
        let needed = request * members as f64;
        let max_domain = domains.values().copied().fold(0.0_f64, f64::max);
        let room = if topology.is_some() {
            max_domain
        } else {
            total
        };
        rows.push(json!({
            "resource": name, "perPod": num(request), "pods": members, "needed": num(needed),
            "eligibleAllocatable": num(total),
            "maxDomainAllocatable": topology.map(|_| num(max_domain)),
            "fits": needed <= room,
        }));
    }
    Some(Value::Array(rows))
}

/// A quantity as JSON: whole numbers without a fraction.
fn num(x: f64) -> Value {
    if x.fract() == 0.0 && x.abs() < 9.0e15 {
        json!(x as i64)
    } else {
        json!(x)
    }
}

/// Grove's gang of the view's pods: the PodGang they name (label `grove.io/podgang`), whether it
/// is in the bundle, and which pods still carry Grove's scheduling gate.
fn grove(ctx: &Ctx) -> Option<Value> {
    const GATE: &str = "grove.io/podgang-pending-creation";
    let pods = ctx.view_pods();
    let mut gang: Option<(String, Option<String>)> = None;
    let mut gated = Vec::new();
    for &(p, v) in &pods {
        let has_gate = v
            .pointer("/spec/schedulingGates")
            .and_then(Value::as_array)
            .is_some_and(|g| g.iter().any(|x| x["name"] == GATE));
        let name = label(v, "grove.io/podgang");
        if !has_gate && name.is_none() {
            continue;
        }
        if has_gate {
            gated.push(ctx.ix.object(p).name.clone());
        }
        if let Some(n) = name
            && gang.is_none()
        {
            gang = Some((n.to_string(), ctx.ix.object(p).namespace.clone()));
        }
    }
    if gang.is_none() && gated.is_empty() {
        return None;
    }
    let found = gang.as_ref().map(|(n, ns)| {
        ctx.ix
            .get("scheduler.grove.io", "PodGang", ns.as_deref(), n)
            .is_some()
    });
    Some(json!({
        "gate": GATE,
        "podGang": gang.map(|g| g.0),
        "podGangFound": found,
        "gatedPods": gated,
    }))
}
