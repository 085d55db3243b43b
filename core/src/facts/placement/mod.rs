//! Facts of the placement layer, at `$.facts.placement` (null when the view has no pod).
//!
//! Shape (every key present; empty lists rather than nulls where a list is expected):
//!
//! - `taints`: `{untolerated: [{node, key, value, effect, taint}], relevant: [..same..],
//!   relevantNodes: [..], missingTolerations: ["key=value:effect" | "key:effect"]}`:
//!   NoSchedule/NoExecute taints the pod does not tolerate. `relevant` leaves out control-plane
//!   nodes (`node-role.kubernetes.io/control-plane` or `master` label), the cordon taint
//!   `node.kubernetes.io/unschedulable`, and, when the pod asks for an extended resource, nodes
//!   that do not advertise it: the taints that actually keep the pod off a node it could use.
//!   Without Node objects in the bundle, `relevant` comes from the ≤1.33 message
//!   (`untolerated taint {key: value}`, `node`/`effect` null) and `relevantNodes` holds
//!   "N nodes". The row lists keep ten rows per distinct taint (the first nodes by name);
//!   `relevantNodes` names every node. Empty for a pod already bound to a node
//!   (`spec.nodeName`), as are `cordoned` and `cordonedRelevant`: they say what keeps a pod off
//!   nodes, and list every such node.
//! - `selector`: `{terms: [{key, operator, values, nodes: [..], otherValues: [..]}],
//!   unmatched: ["key=value" | "key in (a|b)"], unmatchedKeys: [..], otherValues: [..],
//!   unmatchedGfd: [..]}`: the labels the pod asks for (nodeSelector, and `In` expressions of
//!   required node affinity), the nodes carrying them, and the values of the same key that nodes
//!   carry instead. `unmatched` leaves out GPU feature discovery keys (`nvidia.com/…`), which the
//!   device layer explains; those are in `unmatchedGfd`.
//! - `cordoned`: nodes with `spec.unschedulable: true`; `cordonedRelevant`: those that advertise
//!   the pod's extended resources and match its nodeSelector.
//! - `gates`: `{all: [..], nonKueue: [..]}`: `spec.schedulingGates` names; `nonKueue` leaves out
//!   `kueue.x-k8s.io/` gates (the admission layer explains those).
//! - `silence`: `{scheduler, silent, kaiUngrouped}`: `silent` when the pod is Pending with no
//!   node, no gates, no PodScheduled condition, no Scheduled/FailedScheduling/Unschedulable
//!   event (nor a condition on its PodGroup) and no DRA claim still to be created from a template; `kaiUngrouped` when, in addition, it names `kai-scheduler` and lacks the
//!   `pod-group-name` annotation.
//! - `containers`: `[{resource, total, largestNode, containers: [{name, kind, request}],
//!   eachFits, addsUpPast}]`: extended resources requested by two or more containers
//!   (containers and sidecar init containers); `addsUpPast` when each one alone fits the largest
//!   node but together they exceed it.
//! - `volumes`: `{claims: [{name, found, phase, storageClassName, volumeName}],
//!   unbound: [..], missing: [..]}`: the pod's PersistentVolumeClaims.
//! - `kai`: `{queue: {name, exists, gpuLimitSet, gpuLimit, gpuQuota, children: [..],
//!   isParent} | null, podGroupStale, podGroupConditionReasons: [..]}`: `gpuLimitSet` is false
//!   when `spec.resources.gpu.limit` is absent (KAI reads it as 0); `podGroupStale` when the
//!   PodGroup still carries a scheduling condition while at least `minMember` of its pods run.
//! - `reservation`: `{kaiNamespace, fakeGpuNamespace, mismatch}`: the namespace KAI's binder
//!   waited in (from the BindingError text) against fake-gpu-operator's
//!   `RESOURCE_RESERVATION_NAMESPACE` (status-updater env), when both are known.
//! - `gang`: `{apiGroup, name, found}` | null: the Volcano (`scheduling.k8s.io/group-name`) or
//!   coscheduling (`scheduling.x-k8s.io/pod-group`) PodGroup the pod names, and whether the
//!   bundle holds it.

use super::Ctx;
use crate::index::untolerated;
use crate::index::{NodeInfo, NodeTables, Taint};
use crate::json::str_at as s;
use crate::quantity;
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// The placement layer's facts for one view.
pub fn facts(ctx: &Ctx) -> Value {
    let Some(pod) = ctx.pod else {
        return Value::Null;
    };
    let Some(pv) = ctx.pod_value() else {
        return Value::Null;
    };
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
        .pointer("/spec/nodeName")
        .and_then(Value::as_str)
        .is_some_and(|n| !n.is_empty());
    let (taints, cordoned, cordoned_relevant) = if bound {
        (
            json!({"untolerated": [], "relevant": [], "relevantNodes": [], "missingTolerations": []}),
            Vec::new(),
            Vec::new(),
        )
    } else {
        (
            taints(ctx, &tables, pv, &advertises),
            tables
                .unschedulable
                .iter()
                .map(|&p| tables.nodes[p].name.clone())
                .collect(),
            cordoned_relevant(&tables, &advertises),
        )
    };
    crate::json::object([
        ("taints", taints),
        ("selector", selector(&tables, pv)),
        ("cordoned", Value::from(cordoned)),
        ("cordonedRelevant", Value::from(cordoned_relevant)),
        ("gates", gates(pv)),
        ("silence", silence(ctx, pod, pv)),
        ("containers", containers(&tables, pv)),
        ("volumes", volumes(ctx, pv)),
        ("kai", kai(ctx)),
        ("reservation", reservation(ctx)),
        ("gang", gang(ctx, pv)),
    ])
}

/// The scheduler's `(count, reason)` entries of one kind (see `$.facts.scheduling`).
fn scheduling_reasons(ctx: &Ctx, kind: &str) -> Vec<(u64, String)> {
    ctx.subjects
        .get("facts")
        .and_then(|f| f.pointer("/scheduling/reasons"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|r| r["kind"] == kind)
        .map(|r| {
            (
                r["count"].as_u64().unwrap_or(0),
                r["reason"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

/// Cordoned nodes the pod could otherwise use. Without Node objects nothing is claimed: a
/// cordon in the scheduler's message alone does not say the node could have held the pod.
fn cordoned_relevant(tables: &NodeTables, advertises: &dyn Fn(&NodeInfo) -> bool) -> Vec<String> {
    tables
        .unschedulable
        .iter()
        .map(|&p| &tables.nodes[p])
        .filter(|n| advertises(n))
        .map(|n| n.name.clone())
        .collect()
}

fn arr<'v>(v: &'v Value, ptr: &str) -> impl Iterator<Item = &'v Value> {
    v.pointer(ptr)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
}

fn is_control_plane(n: &NodeInfo) -> bool {
    n.labels
        .contains_key("node-role.kubernetes.io/control-plane")
        || n.labels.contains_key("node-role.kubernetes.io/master")
}

fn taint_text(t: &Taint) -> String {
    match t.value.as_deref().filter(|v| !v.is_empty()) {
        Some(v) => format!("{}={}:{}", t.key, v, t.effect),
        None => format!("{}:{}", t.key, t.effect),
    }
}

/// Rows of `taints.untolerated` and `taints.relevant` kept per distinct taint.
const ROWS_PER_TAINT: usize = crate::template::SHOWN_VALUES;

fn taints(
    ctx: &Ctx,
    tables: &NodeTables,
    pv: &Value,
    advertises: &dyn Fn(&NodeInfo) -> bool,
) -> Value {
    let tols = pv
        .pointer("/spec/tolerations")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    // Which taints of each distinct set the pod does not tolerate: tested once per set, as
    // thousands of GPU nodes share theirs.
    let untolerated_in_set: Vec<Vec<(&Taint, String)>> = tables
        .taint_sets
        .iter()
        .map(|set| untolerated(tols, set).map(|t| (t, taint_text(t))).collect())
        .collect();
    let row = |n: &NodeInfo, t: &Taint, text: &str| json!({"node": n.name, "key": t.key, "value": t.value.clone().unwrap_or_default(), "effect": t.effect, "taint": text});
    let mut untolerated = Vec::new();
    let mut relevant = Vec::new();
    let mut relevant_nodes: Vec<String> = Vec::new();
    let mut missing: Vec<String> = Vec::new();
    // Rows per distinct taint, capped: when a taint keeps a pod off thousands of nodes, every
    // pod's view would otherwise hold a row per node. `relevantNodes` still names them all.
    let mut rows_of: Vec<(String, usize, usize)> = Vec::new();
    // Only nodes with a NoSchedule/NoExecute taint can add a row (name order).
    for &pos in &tables.hard_tainted {
        let n = &tables.nodes[pos];
        let Some(set) = tables.taint_set_of[pos] else {
            continue;
        };
        for (t, text) in &untolerated_in_set[set] {
            let at = match rows_of.iter().position(|(x, _, _)| x == text) {
                Some(at) => at,
                None => {
                    rows_of.push((text.clone(), 0, 0));
                    rows_of.len() - 1
                }
            };
            if rows_of[at].1 < ROWS_PER_TAINT {
                rows_of[at].1 += 1;
                untolerated.push(row(n, t, text));
            }
            if is_control_plane(n) || t.key == "node.kubernetes.io/unschedulable" || !advertises(n)
            {
                continue;
            }
            if rows_of[at].2 < ROWS_PER_TAINT {
                rows_of[at].2 += 1;
                relevant.push(row(n, t, text));
            }
            // Nodes come one after another: a repeat can only be the last one added.
            if relevant_nodes.last() != Some(&n.name) {
                relevant_nodes.push(n.name.clone());
            }
            if !missing.contains(text) {
                missing.push(text.clone());
            }
        }
    }
    // Without Node objects (a pasted pod and its events), the ≤1.33 wording still names the
    // taint: `node(s) had untolerated taint {key: value}`.
    if ctx.ix.nodes().is_empty() {
        for r in scheduling_reasons(ctx, "taint") {
            let (count, reason) = r;
            let Some(inner) = reason
                .split_once('{')
                .and_then(|(_, rest)| rest.rsplit_once('}'))
                .map(|(inner, _)| inner)
            else {
                continue;
            };
            let (key, value) = inner.split_once(':').unwrap_or((inner, ""));
            let (key, value) = (key.trim(), value.trim());
            if key.starts_with("node-role.kubernetes.io/")
                || key == "node.kubernetes.io/unschedulable"
            {
                continue;
            }
            let text = if value.is_empty() {
                key.to_string()
            } else {
                format!("{key}={value}")
            };
            relevant.push(
                json!({"node": null, "key": key, "value": value, "effect": null, "taint": text}),
            );
            relevant_nodes.push(crate::template::counted(count, "node", "nodes"));
            if !missing.contains(&text) {
                missing.push(text);
            }
        }
    }
    crate::json::object([
        ("untolerated", Value::from(untolerated)),
        ("relevant", Value::from(relevant)),
        ("relevantNodes", Value::from(relevant_nodes)),
        ("missingTolerations", Value::from(missing)),
    ])
}

fn selector(tables: &NodeTables, pv: &Value) -> Value {
    let wanted = crate::facts::required_node_labels(pv);
    let mut terms = Vec::new();
    let mut unmatched = Vec::new();
    let mut unmatched_keys = Vec::new();
    let mut unmatched_gfd: Vec<String> = Vec::new();
    let mut other_all: Vec<String> = Vec::new();
    for (key, vals) in wanted {
        let nodes: Vec<&String> = tables
            .with_label_in(&key, &vals)
            .into_iter()
            .map(|p| &tables.nodes[p].name)
            .collect();
        let mut other: Vec<String> = tables
            .label_values(&key)
            .into_iter()
            .filter(|v| !vals.contains(v))
            .map(|v| format!("{key}={v}"))
            .collect();
        other.sort();
        other.dedup();
        // GPU feature discovery labels (`nvidia.com/…`) are the device layer's
        // (`device/gpu-label-selector-unmatched`); they are listed apart.
        let gfd = key.starts_with("nvidia.com/");
        if nodes.is_empty() && gfd {
            unmatched_gfd.push(format!("{key}={}", vals.join("|")));
        } else if nodes.is_empty() {
            unmatched.push(if vals.len() == 1 {
                format!("{key}={}", vals[0])
            } else {
                format!("{key} in ({})", vals.join("|"))
            });
            unmatched_keys.push(key.clone());
            for o in &other {
                if !other_all.contains(o) {
                    other_all.push(o.clone());
                }
            }
        }
        terms.push(json!({"key": key, "operator": "In", "values": vals, "nodes": nodes, "otherValues": other}));
    }
    json!({"terms": terms, "unmatched": unmatched, "unmatchedKeys": unmatched_keys, "otherValues": other_all, "unmatchedGfd": unmatched_gfd})
}

fn gates(pv: &Value) -> Value {
    let all: Vec<&str> = arr(pv, "/spec/schedulingGates")
        .filter_map(|g| g["name"].as_str())
        .collect();
    let non_kueue: Vec<&str> = all
        .iter()
        .copied()
        .filter(|g| !g.starts_with("kueue.x-k8s.io/"))
        .collect();
    json!({"all": all, "nonKueue": non_kueue})
}

fn silence(ctx: &Ctx, pod: usize, pv: &Value) -> Value {
    let scheduler = s(pv, "/spec/schedulerName").unwrap_or("default-scheduler");
    let pending = s(pv, "/status/phase") == Some("Pending");
    let bound = s(pv, "/spec/nodeName").is_some();
    let gated = arr(pv, "/spec/schedulingGates").next().is_some();
    let has_cond = arr(pv, "/status/conditions").any(|c| c["type"] == "PodScheduled");
    // Any word from a scheduler about the pod or its PodGroup (the view's events cover both).
    let answered = |r: &str| {
        matches!(
            r,
            "Scheduled" | "FailedScheduling" | "Unschedulable" | "BindingError" | "NotReady"
        )
    };
    let has_event = ctx
        .ix
        .events_for(pod)
        .into_iter()
        .any(|e| ctx.ix.event(e).is_some_and(|e| answered(&e.reason)))
        || ctx
            .subjects
            .get("events")
            .and_then(Value::as_array)
            .is_some_and(|es| {
                es.iter()
                    .any(|e| e["reason"].as_str().is_some_and(answered))
            });
    let group_spoke = ctx.subjects.get("podGroup").is_some_and(|g| {
        arr(g, "/status/conditions").next().is_some()
            || arr(g, "/status/schedulingConditions").next().is_some()
    });
    // DRA's PreEnqueue holds a pod whose claim from a template does not exist yet, without an
    // event (the device layer explains that): not a silent scheduler.
    let claim_pending = arr(pv, "/spec/resourceClaims").any(|rc| {
        rc["resourceClaimTemplateName"].is_string()
            && !arr(pv, "/status/resourceClaimStatuses").any(|s| s["name"] == rc["name"])
    });
    let silent =
        pending && !bound && !gated && !has_cond && !has_event && !group_spoke && !claim_pending;
    let ungrouped = silent
        && scheduler == "kai-scheduler"
        && pv
            .pointer("/metadata/annotations/pod-group-name")
            .and_then(Value::as_str)
            .is_none_or(str::is_empty);
    json!({"scheduler": scheduler, "silent": silent, "kaiUngrouped": ungrouped})
}

fn containers(tables: &NodeTables, pv: &Value) -> Value {
    let mut per: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    let mut add = |c: &Value, kind: &str| {
        let mut r: BTreeMap<String, f64> = BTreeMap::new();
        for src in ["/resources/limits", "/resources/requests"] {
            if let Some(m) = c.pointer(src).and_then(Value::as_object) {
                for (k, q) in m {
                    if let Some(q) = quantity::from_value(q) {
                        r.insert(k.clone(), q);
                    }
                }
            }
        }
        for (k, q) in r {
            if k.contains('/') && q > 0.0 {
                per.entry(k).or_default().push(
                    json!({"name": c["name"], "kind": kind, "request": crate::facts::num(q)}),
                );
            }
        }
    };
    for c in arr(pv, "/spec/containers") {
        add(c, "container");
    }
    for c in arr(pv, "/spec/initContainers").filter(|c| c["restartPolicy"] == "Always") {
        add(c, "sidecar");
    }
    let mut out = Vec::new();
    for (res, rows) in per.into_iter().filter(|(_, r)| r.len() > 1) {
        let total: f64 = rows.iter().filter_map(|r| r["request"].as_f64()).sum();
        let each_max = rows
            .iter()
            .filter_map(|r| r["request"].as_f64())
            .fold(0.0f64, f64::max);
        let largest = tables
            .resources
            .get(&res)
            .map_or(0.0, |t| t.max_allocatable);
        out.push(json!({
            "resource": res, "total": crate::facts::num(total), "largestNode": crate::facts::num(largest),
            "containers": rows, "eachFits": each_max <= largest,
            "addsUpPast": largest > 0.0 && each_max <= largest && total > largest,
        }));
    }
    Value::Array(out)
}

fn volumes(ctx: &Ctx, pv: &Value) -> Value {
    let ns = s(pv, "/metadata/namespace");
    let mut claims = Vec::new();
    let mut unbound = Vec::new();
    let mut missing = Vec::new();
    for v in arr(pv, "/spec/volumes") {
        let Some(name) = s(v, "/persistentVolumeClaim/claimName") else {
            continue;
        };
        match ctx.ix.find("PersistentVolumeClaim", ns, name) {
            Some(id) => {
                let c = ctx.ix.value(id);
                let phase = s(&c, "/status/phase").unwrap_or("Pending");
                if phase != "Bound" {
                    unbound.push(name.to_string());
                }
                claims.push(json!({"name": name, "found": true, "phase": phase,
                    "storageClassName": s(&c, "/spec/storageClassName"), "volumeName": s(&c, "/spec/volumeName")}));
            }
            None => {
                missing.push(name.to_string());
                claims.push(json!({"name": name, "found": false, "phase": null, "storageClassName": null, "volumeName": null}));
            }
        }
    }
    json!({"claims": claims, "unbound": unbound, "missing": missing})
}

fn kai(ctx: &Ctx) -> Value {
    let pg = ctx.subjects.get("podGroup");
    let is_kai = pg
        .and_then(|p| p["apiVersion"].as_str())
        .is_some_and(|a| a.starts_with("scheduling.run.ai/"));
    let queue_name = pg
        .filter(|_| is_kai)
        .and_then(|p| s(p, "/spec/queue"))
        .or_else(|| {
            ctx.subjects
                .get("pod")
                .and_then(|p| s(p, "/metadata/labels/kai.scheduler~1queue"))
        });
    let queue = queue_name.map(|q| {
        let v = ctx.ix.get("scheduling.run.ai", "Queue", None, q).map(|id| ctx.ix.value(id));
        let children: Vec<String> = ctx
            .ix
            .of_kind("Queue")
            .iter()
            .map(|&id| ctx.ix.value(id))
            .filter(|c| {
                c["apiVersion"]
                    .as_str()
                    .is_some_and(|a| a.starts_with("scheduling.run.ai/"))
                    && s(c, "/spec/parentQueue") == Some(q)
            })
            .filter_map(|c| s(&c, "/metadata/name").map(str::to_string))
            .collect();
        let limit = v.as_ref().and_then(|v| v.pointer("/spec/resources/gpu/limit"));
        json!({
            "name": q, "exists": v.is_some(),
            "gpuLimitSet": limit.is_some_and(|l| !l.is_null()),
            "gpuLimit": limit.cloned().unwrap_or(Value::Null),
            "gpuQuota": v.as_ref().and_then(|v| v.pointer("/spec/resources/gpu/quota")).cloned().unwrap_or(Value::Null),
            "children": children.clone(), "isParent": !children.is_empty(),
        })
    });
    let reasons: Vec<&str> = pg
        .filter(|_| is_kai)
        .map(|p| {
            arr(p, "/status/schedulingConditions")
                .flat_map(|c| arr(c, "/reasons"))
                .filter_map(|r| r["reason"].as_str())
                .collect()
        })
        .unwrap_or_default();
    let has_cond = pg
        .filter(|_| is_kai)
        .is_some_and(|p| arr(p, "/status/schedulingConditions").next().is_some());
    let group = ctx.subjects.get("facts").map(|f| &f["group"]);
    let running = group.and_then(|g| g["running"].as_u64()).unwrap_or(0);
    let min = pg
        .and_then(|p| p.pointer("/spec/minMember"))
        .and_then(Value::as_u64)
        .unwrap_or(1)
        .max(1);
    if !is_kai && queue.is_none() {
        return Value::Null;
    }
    json!({"queue": queue, "podGroupStale": has_cond && running >= min, "podGroupConditionReasons": reasons})
}

fn reservation(ctx: &Ctx) -> Value {
    const NEEDLE: &str = "failed waiting for GPU reservation pod to allocate: ";
    let events = ctx
        .subjects
        .get("events")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|e| e["message"].as_str());
    let conds = ctx
        .subjects
        .get("pod")
        .into_iter()
        .flat_map(|p| arr(p, "/status/conditions"))
        .filter_map(|c| c["message"].as_str());
    let kai_ns = events.chain(conds).find_map(|m| {
        let i = m.find(NEEDLE)?;
        m[i + NEEDLE.len()..].split('/').next().map(str::to_string)
    });
    // fake-gpu-operator's status-updater: env RESOURCE_RESERVATION_NAMESPACE. The same for
    // every view: read once per index, from a typed partial read of each Deployment/DaemonSet.
    let fake_ns = ctx.ix.once("placement.reservationNamespace", || {
        ["Deployment", "DaemonSet"].iter().find_map(|k| {
            ctx.ix.of_kind(k).iter().find_map(|&id| {
                let containers = ctx.ix.typed::<WithEnv>(id)?.spec.template.spec.containers;
                containers
                    .as_array()
                    .into_iter()
                    .flatten()
                    .flat_map(|c| arr(c, "/env"))
                    .find(|e| e["name"] == "RESOURCE_RESERVATION_NAMESPACE")
                    .and_then(|e| e["value"].as_str().map(str::to_string))
            })
        })
    });
    let fake_ns = fake_ns.as_ref().clone();
    if kai_ns.is_none() && fake_ns.is_none() {
        return Value::Null;
    }
    let mismatch = matches!((&kai_ns, &fake_ns), (Some(a), Some(b)) if a != b);
    json!({"kaiNamespace": kai_ns, "fakeGpuNamespace": fake_ns, "mismatch": mismatch})
}

/// A Deployment or DaemonSet read partially: only its pod template's containers become a tree.
#[derive(serde::Deserialize, Default)]
#[serde(default)]
struct WithEnv {
    spec: WithEnvSpec,
}

#[derive(serde::Deserialize, Default)]
#[serde(default)]
struct WithEnvSpec {
    template: WithEnvTemplate,
}

#[derive(serde::Deserialize, Default)]
#[serde(default)]
struct WithEnvTemplate {
    spec: WithEnvPodSpec,
}

#[derive(serde::Deserialize, Default)]
#[serde(default)]
struct WithEnvPodSpec {
    containers: Value,
}

fn gang(ctx: &Ctx, pv: &Value) -> Value {
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
    for (ptr, group) in keys {
        if let Some(name) = s(pv, ptr) {
            let found = ctx.ix.get(group, "PodGroup", ns, name).is_some();
            return json!({"apiGroup": group, "name": name, "found": found});
        }
    }
    Value::Null
}

/// Volcano's queue for the work, at `$.facts.volcano`: `{queue, found, capability,
/// capabilityWithoutPods}` or null when nothing names a Volcano queue. The queue name comes from
/// a Volcano Job's `spec.queue`, a Volcano PodGroup's `spec.queue` or the pod's
/// `scheduling.volcano.sh/queue-name` annotation. `capabilityWithoutPods` is true when the Queue
/// caps resources (`spec.capability`) but lists no `pods`: since Volcano counts pods as a
/// resource (volcano-sh/volcano#3188), such a queue admits no pod at all.
pub fn volcano(ctx: &Ctx) -> Value {
    let ix = ctx.ix;
    let t = ix.object(ctx.target);
    let from_target = (t.group() == "batch.volcano.sh"
        || (t.group() == "scheduling.volcano.sh" && t.kind == "PodGroup"))
        .then(|| ix.value(ctx.target))
        .and_then(|v| {
            v.pointer("/spec/queue")
                .and_then(Value::as_str)
                .map(str::to_string)
        });
    let from_pod = || {
        ctx.pod_value().and_then(|p| {
            p.pointer("/metadata/annotations/scheduling.volcano.sh~1queue-name")
                .and_then(Value::as_str)
                .map(str::to_string)
        })
    };
    let Some(queue) = from_target.or_else(from_pod) else {
        return Value::Null;
    };
    let q = ix
        .get("scheduling.volcano.sh", "Queue", None, &queue)
        .map(|id| ix.value(id));
    let capability = q
        .as_ref()
        .and_then(|v| v.pointer("/spec/capability"))
        .cloned()
        .unwrap_or(Value::Null);
    let without_pods = capability
        .as_object()
        .is_some_and(|c| !c.is_empty() && !c.contains_key("pods"));
    json!({
        "queue": queue,
        "found": q.is_some(),
        "capability": capability,
        "capabilityWithoutPods": without_pods,
    })
}
