//! Facts of the admission layer, at `$.facts.admission` (null when the work shows no sign of
//! Kueue: no Workload, no queue name, no Kueue gate).
//!
//! Shape (every key present; `null` when unknown):
//!
//! - `queueName`: the LocalQueue the work asks for (`workload.spec.queueName`, else the
//!   `kueue.x-k8s.io/queue-name` label on the target, its owners or its pod); `queueLabelOn`:
//!   `Kind namespace/name` of the object that carries the label.
//! - `queueRef`: `ClusterQueue <name>` when the ClusterQueue is known (admission, LocalQueue, or the
//!   Workload's `ClusterQueue <name> is …` message), else `LocalQueue <ns>/<name>`: how texts name
//!   the queue when the bundle lacks the LocalQueue.
//! - `kueueInstalled`: from a live read's discovery, whether the cluster serves `kueue.x-k8s.io`
//!   at all (`null` for files without that record).
//! - `workload`: whether a Kueue Workload is linked; `kueueInBundle`: whether the bundle holds any
//!   Kueue object (LocalQueue, ClusterQueue, ResourceFlavor, Workload), so that an absent Workload
//!   or LocalQueue means something.
//! - `localQueue`: `{name, found, active, reason, message, clusterQueue}`; `localQueuesInNamespace`:
//!   the names of the LocalQueues of the target's namespace in the bundle.
//! - `clusterQueue`: `{name, found, active, reason, message, strategy, pendingWorkloads}`.
//! - `suspended`: the target (or its nearest Job/JobSet owner) has `spec.suspend: true`.
//! - `namespaceAlwaysExcluded`: the namespace is `kube-system` or `kueue-system`, which Kueue's
//!   webhooks always skip from v0.18.
//! - `integration`: for a JobSet or LeaderWorkerSet: `{kind, crd, crdFound, crdCreated,
//!   crdAgeSeconds, crdAge}` (the CustomResourceDefinition that Kueue must notice before it
//!   manages that kind; age against "now").
//! - `noConditions`: a Workload exists and has no conditions at all (not attempted yet).
//! - `flavorAssignment`: the `QuotaReserved=False` message parsed: `{podSets,
//!   unavailableResources, exceedsMaximum: [{resource, flavor, request, maximum}],
//!   untoleratedTaints, taintedFlavors, affinityMismatchFlavors}` (lists may be empty).
//! - `queue`: for a Workload without a quota reservation: `{clusterQueue, ahead, aheadNames}`, the
//!   Workloads of the same ClusterQueue (or, when the bundle does not name it, of the same
//!   LocalQueue) in the bundle, created earlier, still without a reservation.
//! - `evicted`: `{reason, message}` of `Evicted=True`; `preempted`: `{reason, message}` of
//!   `Preempted=True`; `preemptedBy`: `Kind namespace/name` of the preemptor Workload when its UID
//!   (from the Preempted message) is in the bundle.
//! - `requeue`: `{count, at, inSeconds, in, due}` from `status.requeueState` against "now"
//!   (`due` when `requeueAt` has passed; `in` is a human duration).
//! - `deactivated`: `{reason, message}` when `spec.active` is false (reason from
//!   `DeactivationTarget`, else `Evicted`).
//! - `checks`: `status.admissionChecks[]` as `{name, state, message}`; `checksNotReady`: the
//!   names of those not `Ready`.
//! - `quotaOverNodes`: `[{resource, quota, advertised}]`, the extended resources (names with a
//!   `/`, e.g. `nvidia.com/gpu`) whose nominal quota in the ClusterQueue, summed over its
//!   flavors, is more than all nodes of the bundle advertise as allocatable: Kueue will admit
//!   work the nodes cannot hold (empty when the bundle has no nodes: nothing to compare).
//! - `kueueGates` / `foreignGates`: the distinct scheduling-gate names on the work's pods that
//!   Kueue owns (`kueue.x-k8s.io/…`) or does not; `kueueGatedPods` / `foreignGatedPods`: which pods
//!   carry them.

use super::Ctx;
use crate::index::Index;
use crate::json::{label, str_at as s};
use regex::Regex;
use serde_json::{Map, Value, json};
use std::sync::LazyLock;

// Kueue's flavor-assignment reasons (`pkg/scheduler/flavorassigner/flavorassigner.go`). The
// "exceeds" form is matched loosely: v0.13 wrote `request > maximum capacity (%s > %s)`, v0.15+
// `previously considered podsets requests (%s) + current podset request (%s) > maximum capacity (%s)`.
static UNAVAILABLE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"resource (\S+) unavailable in ClusterQueue").expect("static regex")
});
static EXCEEDS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"insufficient quota for (\S+) in flavor (\S+?),[^;]*?(?:current podset request \(([^)]*)\) )?> maximum capacity \(([^)]*)\)",
    )
    .expect("static regex")
});
static TAINT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"untolerated taint (\{[^}]*\}|\S+) in flavor (\S+?)(?:,|;|$)")
        .expect("static regex")
});
static AFFINITY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"flavor (\S+) doesn't match node affinity").expect("static regex")
});
static PREEMPTOR: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\(UID: ([0-9a-f-]+)").expect("static regex"));
static CQ_IN_MESSAGE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^ClusterQueue (\S+) (?:is inactive|doesn't exist|not found|is stopped)")
        .expect("static regex")
});
static PODSET: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"couldn't assign flavors to pod set (\S+?):").expect("static regex")
});

/// The parts of a `QuotaReserved=False` flavor-assignment message a rule needs.
fn flavor_assignment(msg: &str) -> Value {
    let list = |re: &Regex, g: usize| -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for c in re.captures_iter(msg) {
            if let Some(m) = c.get(g) {
                let v = m.as_str().trim_end_matches(['.', ',']).to_string();
                if !out.contains(&v) {
                    out.push(v);
                }
            }
        }
        out
    };
    let exceeds: Vec<Value> = EXCEEDS
        .captures_iter(msg)
        .map(|c| {
            let g = |i: usize| c.get(i).map(|m| m.as_str());
            json!({"resource": g(1), "flavor": g(2), "request": g(3), "maximum": g(4)})
        })
        .collect();
    json!({
        "podSets": list(&PODSET, 1),
        "unavailableResources": list(&UNAVAILABLE, 1),
        "exceedsMaximum": exceeds,
        "untoleratedTaints": list(&TAINT, 1),
        "taintedFlavors": list(&TAINT, 2),
        "affinityMismatchFlavors": list(&AFFINITY, 1),
    })
}

fn cond<'v>(v: &'v Value, ty: &str) -> Option<&'v Value> {
    v.pointer("/status/conditions")
        .and_then(Value::as_array)
        .and_then(|cs| cs.iter().find(|c| c["type"] == ty))
}

fn cond_true<'v>(v: &'v Value, ty: &str) -> Option<&'v Value> {
    cond(v, ty).filter(|c| c["status"] == "True")
}

fn reason_message(c: Option<&Value>) -> Value {
    match c {
        Some(c) => json!({"reason": c["reason"], "message": c["message"]}),
        None => Value::Null,
    }
}

fn display(v: &Value) -> String {
    let kind = s(v, "/kind").unwrap_or("");
    let name = s(v, "/metadata/name").unwrap_or("");
    match s(v, "/metadata/namespace") {
        Some(ns) => format!("{kind} {ns}/{name}"),
        None => format!("{kind} {name}"),
    }
}

/// The subjects that may carry the queue-name label, nearest to the work first.
fn carriers(sub: &Map<String, Value>) -> Vec<&Value> {
    let mut out: Vec<&Value> = Vec::new();
    out.extend(sub.get("target"));
    if let Some(Value::Array(owners)) = sub.get("owners") {
        out.extend(owners.iter());
    }
    out.extend(sub.get("pod"));
    out
}

fn queue_fact(ix: &Index, sub: &Map<String, Value>, wl: &Value, now: Option<i64>) -> Value {
    // Compare by ClusterQueue when the bundle names it, else by LocalQueue (same namespace).
    let cq = s(wl, "/status/admission/clusterQueue")
        .map(str::to_string)
        .or_else(|| {
            sub.get("localQueue")
                .and_then(|lq| s(lq, "/spec/clusterQueue"))
                .map(str::to_string)
        });
    let my_ns = s(wl, "/metadata/namespace");
    let my_queue = s(wl, "/spec/queueName");
    if cq.is_none() && my_queue.is_none() {
        return Value::Null;
    }
    let created =
        |v: &Value| s(v, "/metadata/creationTimestamp").and_then(crate::time::parse_rfc3339);
    let mine = created(wl);
    let my_name = s(wl, "/metadata/name").unwrap_or("");
    let mut ahead: Vec<(i64, String)> = Vec::new();
    // Every pending Workload of the bundle is read once per index (typed partial reads), not
    // once per view: this runs for every pending Workload over every Workload of the bundle.
    for other in pending_workloads(ix).iter() {
        let name = other.name.as_str();
        let ns = other.namespace.as_deref();
        if name == my_name && ns == my_ns {
            continue;
        }
        let queue = other.queue.as_deref();
        let same_queue = match &cq {
            Some(cq) => other.cluster_queue.as_deref() == Some(cq.as_str()),
            None => ns == my_ns && queue == my_queue,
        };
        if !same_queue {
            continue;
        }
        if let (Some(t), Some(m)) = (other.created, mine)
            && t <= m
            && t <= now.unwrap_or(i64::MAX)
        {
            ahead.push((t, format!("{}/{}", ns.unwrap_or(""), name)));
        }
    }
    ahead.sort();
    let names: Vec<String> = ahead.into_iter().map(|(_, n)| n).collect();
    json!({"clusterQueue": cq, "ahead": names.len(), "aheadNames": names})
}

/// A Workload without a quota reservation, not finished and not deactivated.
struct PendingWorkload {
    name: String,
    namespace: Option<String>,
    created: Option<i64>,
    queue: Option<String>,
    /// The ClusterQueue its LocalQueue points at.
    cluster_queue: Option<String>,
}

fn pending_workloads(ix: &Index) -> std::sync::Arc<Vec<PendingWorkload>> {
    ix.once("admission.pendingWorkloads", || {
        let mut lq_cq: std::collections::HashMap<(Option<String>, String), Option<String>> =
            std::collections::HashMap::new();
        let mut out = Vec::new();
        for &id in ix.of_kind("Workload") {
            if ix.object(id).group() != "kueue.x-k8s.io" {
                continue;
            }
            let Some(other) = ix.typed::<WorkloadLite>(id) else {
                continue;
            };
            let first_true = |ty: &str| {
                other
                    .status
                    .conditions
                    .iter()
                    .find(|c| c.type_ == ty)
                    .is_some_and(|c| c.status == "True")
            };
            if first_true("QuotaReserved")
                || first_true("Finished")
                || other.spec.active == Some(false)
            {
                continue;
            }
            let ns = other.metadata.namespace.clone();
            let queue = other.spec.queue_name.clone();
            let cluster_queue = queue.as_deref().and_then(|q| {
                lq_cq
                    .entry((ns.clone(), q.to_string()))
                    .or_insert_with(|| {
                        ix.get("kueue.x-k8s.io", "LocalQueue", ns.as_deref(), q)
                            .and_then(|lq| ix.typed::<LocalQueueLite>(lq))
                            .and_then(|lq| lq.spec.cluster_queue)
                    })
                    .clone()
            });
            out.push(PendingWorkload {
                created: other
                    .metadata
                    .creation_timestamp
                    .as_deref()
                    .and_then(crate::time::parse_rfc3339),
                name: other.metadata.name,
                namespace: ns,
                queue,
                cluster_queue,
            });
        }
        out
    })
}

#[derive(serde::Deserialize, Default)]
#[serde(default)]
struct WorkloadLite {
    metadata: LiteMeta,
    spec: WorkloadLiteSpec,
    status: WorkloadLiteStatus,
}

#[derive(serde::Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct LiteMeta {
    name: String,
    namespace: Option<String>,
    creation_timestamp: Option<String>,
}

#[derive(serde::Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct WorkloadLiteSpec {
    queue_name: Option<String>,
    active: Option<bool>,
}

#[derive(serde::Deserialize, Default)]
#[serde(default)]
struct WorkloadLiteStatus {
    conditions: Vec<LiteCondition>,
}

#[derive(serde::Deserialize, Default)]
#[serde(default)]
struct LiteCondition {
    #[serde(rename = "type")]
    type_: String,
    status: String,
}

#[derive(serde::Deserialize, Default)]
#[serde(default)]
struct LocalQueueLite {
    spec: LocalQueueLiteSpec,
}

#[derive(serde::Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct LocalQueueLiteSpec {
    cluster_queue: Option<String>,
}

/// The admission layer's facts for one view.
pub fn facts(ctx: &Ctx) -> Value {
    let ix = ctx.ix;
    let sub = ctx.subjects;
    let now = ctx.now;
    let wl = sub.get("workload");
    let mut queue_name = wl.and_then(|w| s(w, "/spec/queueName")).map(str::to_string);
    let mut label_on: Option<String> = None;
    for c in carriers(sub) {
        if let Some(q) = label(c, "kueue.x-k8s.io/queue-name") {
            label_on = Some(display(c));
            if queue_name.is_none() {
                queue_name = Some(q.to_string());
            }
            break;
        }
    }

    // Pods: scheduling gates, Kueue's and others'.
    let pods: Vec<&Value> = match sub.get("pods") {
        Some(Value::Array(ps)) => ps.iter().collect(),
        _ => sub.get("pod").into_iter().collect(),
    };
    let (mut kueue_gates, mut foreign_gates) = (Vec::<String>::new(), Vec::<String>::new());
    let (mut kueue_pods, mut foreign_pods) = (Vec::<String>::new(), Vec::<String>::new());
    for p in &pods {
        let name = s(p, "/metadata/name").unwrap_or("").to_string();
        for g in p
            .pointer("/spec/schedulingGates")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let Some(gate) = g["name"].as_str() else {
                continue;
            };
            let (gates, gated) = if gate.starts_with("kueue.x-k8s.io/") {
                (&mut kueue_gates, &mut kueue_pods)
            } else {
                (&mut foreign_gates, &mut foreign_pods)
            };
            if !gates.iter().any(|x| x == gate) {
                gates.push(gate.to_string());
            }
            if !gated.contains(&name) {
                gated.push(name.clone());
            }
        }
    }

    if wl.is_none() && queue_name.is_none() && kueue_gates.is_empty() && foreign_gates.is_empty() {
        return Value::Null;
    }

    let ns = sub
        .get("target")
        .and_then(|t| s(t, "/metadata/namespace"))
        .map(str::to_string);
    let kueue_in_bundle = ix.kinds().iter().any(|k| {
        matches!(
            *k,
            "LocalQueue" | "ClusterQueue" | "ResourceFlavor" | "Workload"
        ) && ix
            .of_kind(k)
            .iter()
            .any(|&id| ix.object(id).group() == "kueue.x-k8s.io")
    });
    let lqs_in_ns: Vec<String> = ix
        .of_kind("LocalQueue")
        .iter()
        .filter(|&&id| ix.object(id).group() == "kueue.x-k8s.io" && ix.object(id).namespace == ns)
        .map(|&id| ix.object(id).name.clone())
        .collect();

    let local_queue = queue_name.as_ref().map(|q| match sub.get("localQueue") {
        Some(lq) => {
            let active = cond(lq, "Active");
            json!({"name": q, "found": true,
                   "active": active.map(|c| c["status"] == "True"),
                   "reason": active.map(|c| c["reason"].clone()),
                   "message": active.map(|c| c["message"].clone()),
                   "clusterQueue": s(lq, "/spec/clusterQueue")})
        }
        None => json!({"name": q, "found": false, "active": null, "reason": null,
                       "message": null, "clusterQueue": null}),
    });
    // The ClusterQueue: admitted into, named by the LocalQueue, or (when the bundle lacks the
    // LocalQueue) named by the Workload's own `ClusterQueue <name> is inactive` message.
    let cq_name = wl
        .and_then(|w| s(w, "/status/admission/clusterQueue"))
        .or_else(|| {
            sub.get("localQueue")
                .and_then(|lq| s(lq, "/spec/clusterQueue"))
        })
        .or_else(|| {
            let m = cond(wl?, "QuotaReserved")?["message"].as_str()?;
            Some(CQ_IN_MESSAGE.captures(m)?.get(1)?.as_str())
        });
    // How to name the queue in texts: the ClusterQueue when known, else the LocalQueue.
    let queue_ref = match (cq_name, &queue_name) {
        (Some(cq), _) => Some(format!("ClusterQueue {cq}")),
        (None, Some(q)) => Some(format!("LocalQueue {}/{q}", ns.as_deref().unwrap_or(""))),
        _ => None,
    };
    let cluster_queue = cq_name.map(|n| match sub.get("clusterQueue") {
        Some(cq) => {
            let active = cond(cq, "Active");
            json!({"name": n, "found": true,
                   "active": active.map(|c| c["status"] == "True"),
                   "reason": active.map(|c| c["reason"].clone()),
                   "message": active.map(|c| c["message"].clone()),
                   "strategy": s(cq, "/spec/queueingStrategy").unwrap_or("BestEffortFIFO"),
                   "pendingWorkloads": cq.pointer("/status/pendingWorkloads")})
        }
        None => json!({"name": n, "found": false, "active": null, "reason": null,
                       "message": null, "strategy": null, "pendingWorkloads": null}),
    });

    let suspended = carriers(sub)
        .into_iter()
        .filter(|v| matches!(s(v, "/kind"), Some("Job" | "JobSet")))
        .find_map(|v| v.pointer("/spec/suspend").and_then(Value::as_bool));

    // The integration's CRD, for kinds Kueue manages only once it has noticed their API.
    let integration = carriers(sub).into_iter().find_map(|v| {
        let crd = match (s(v, "/apiVersion").unwrap_or(""), s(v, "/kind")?) {
            (a, "JobSet") if a.starts_with("jobset.x-k8s.io/") => "jobsets.jobset.x-k8s.io",
            (a, "LeaderWorkerSet") if a.starts_with("leaderworkerset.x-k8s.io/") => {
                "leaderworkersets.leaderworkerset.x-k8s.io"
            }
            _ => return None,
        };
        let id = ix.get(
            "apiextensions.k8s.io",
            "CustomResourceDefinition",
            None,
            crd,
        );
        let created = id.and_then(|i| ix.created(i));
        let age = created.and_then(|c| Some(now? - c));
        Some(
            json!({"kind": s(v, "/kind"), "crd": crd, "crdFound": id.is_some(),
                    "crdCreated": created.map(crate::time::format_rfc3339),
                    "crdAgeSeconds": age, "crdAge": age.map(crate::time::format_age)}),
        )
    });

    let mut out = json!({
        "queueName": queue_name,
        "queueLabelOn": label_on,
        "queueRef": queue_ref,
        "workload": wl.is_some(),
        "kueueInBundle": kueue_in_bundle,
        "kueueInstalled": kueue_installed(ix),
        "localQueue": local_queue,
        "localQueuesInNamespace": lqs_in_ns,
        "clusterQueue": cluster_queue,
        "suspended": suspended,
        "namespaceAlwaysExcluded": matches!(ns.as_deref(), Some("kube-system" | "kueue-system")),
        "integration": integration,
        "noConditions": null,
        "flavorAssignment": null,
        "queue": null,
        "evicted": null,
        "preempted": null,
        "preemptedBy": null,
        "requeue": null,
        "deactivated": null,
        "checks": [],
        "checksNotReady": [],
        "kueueGates": kueue_gates,
        "foreignGates": foreign_gates,
        "kueueGatedPods": kueue_pods,
        "foreignGatedPods": foreign_pods,
        "quotaOverNodes": quota_over_nodes(ix, sub.get("clusterQueue")),
    });

    if let Some(w) = wl {
        let no_conditions = w
            .pointer("/status/conditions")
            .and_then(Value::as_array)
            .is_none_or(Vec::is_empty);
        out["noConditions"] = json!(no_conditions);
        if let Some(m) = cond(w, "QuotaReserved")
            .filter(|c| c["status"] == "False")
            .and_then(|c| c["message"].as_str())
        {
            out["flavorAssignment"] = flavor_assignment(m);
        }
        if cond_true(w, "QuotaReserved").is_none() && cond_true(w, "Finished").is_none() {
            out["queue"] = queue_fact(ix, sub, w, now);
        }
        out["evicted"] = reason_message(cond_true(w, "Evicted"));
        out["preempted"] = reason_message(cond_true(w, "Preempted"));
        // The preemptor, by the Workload UID Kueue writes into the message.
        let preemptor = cond_true(w, "Preempted")
            .or_else(|| cond_true(w, "Evicted").filter(|c| c["reason"] == "Preempted"))
            .and_then(|c| c["message"].as_str())
            .and_then(|m| PREEMPTOR.captures(m))
            .and_then(|c| ix.by_uid(c.get(1)?.as_str()))
            .map(|id| display(&ix.value(id)));
        out["preemptedBy"] = json!(preemptor);
        if let Some(rs) = w.pointer("/status/requeueState") {
            let at = s(rs, "/requeueAt");
            let in_secs = at
                .and_then(crate::time::parse_rfc3339)
                .and_then(|t| Some(t - now?));
            out["requeue"] = json!({
                "count": rs.get("count"),
                "at": at,
                "inSeconds": in_secs,
                "in": in_secs.map(crate::time::format_age),
                "due": in_secs.map(|x| x <= 0),
            });
        }
        if w.pointer("/spec/active") == Some(&Value::Bool(false)) {
            let c = cond_true(w, "DeactivationTarget").or_else(|| cond_true(w, "Evicted"));
            out["deactivated"] = match c {
                Some(c) => json!({"reason": c["reason"], "message": c["message"]}),
                None => json!({"reason": "Deactivated", "message": "spec.active is false"}),
            };
        }
        let checks: Vec<Value> = w
            .pointer("/status/admissionChecks")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|c| json!({"name": c["name"], "state": c["state"], "message": c["message"]}))
            .collect();
        let not_ready: Vec<Value> = checks
            .iter()
            .filter(|c| c["state"] != "Ready")
            .map(|c| c["name"].clone())
            .collect();
        out["checks"] = Value::Array(checks);
        out["checksNotReady"] = Value::Array(not_ready);
    }
    out
}

/// Extended resources whose ClusterQueue quota exceeds what the nodes advertise.
fn quota_over_nodes(ix: &Index, cq: Option<&Value>) -> Value {
    let (Some(cq), false) = (cq, ix.nodes().is_empty()) else {
        return json!([]);
    };
    let mut quota: std::collections::BTreeMap<String, f64> = std::collections::BTreeMap::new();
    for rg in cq
        .pointer("/spec/resourceGroups")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        for f in rg["flavors"].as_array().into_iter().flatten() {
            for r in f["resources"].as_array().into_iter().flatten() {
                let (Some(name), Some(q)) = (
                    r["name"].as_str(),
                    crate::quantity::from_value(&r["nominalQuota"]),
                ) else {
                    continue;
                };
                if name.contains('/') {
                    *quota.entry(name.to_string()).or_default() += q;
                }
            }
        }
    }
    let tables = ix.node_tables();
    let rows: Vec<Value> = quota
        .into_iter()
        .filter_map(|(name, q)| {
            // Summed once per index over every node (name order), not per view.
            let advertised: f64 = tables.resources.get(&name).map_or_else(
                || std::iter::empty::<f64>().sum(),
                |t| t.allocatable_all,
            );
            (q > advertised).then(|| json!({"resource": name, "quota": crate::facts::num(q), "advertised": crate::facts::num(advertised)}))
        })
        .collect();
    Value::Array(rows)
}

/// Whether the cluster serves the Kueue API, when the bundle says which APIs it offered.
fn kueue_installed(ix: &crate::Index) -> Value {
    match ix.bundle().meta().and_then(|m| m.apis.as_ref()) {
        Some(apis) => Value::Bool(apis.iter().any(|a| a.starts_with("kueue.x-k8s.io/"))),
        None => Value::Null,
    }
}
