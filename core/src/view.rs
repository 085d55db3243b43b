//! The view: for one target, the linked objects of every layer plus computed facts, as one JSON
//! document that rules query with JSONPath (`$.pod…`, `$.workload…`, `$.facts…`).
//!
//! Each top-level key is a *subject* (see [`crate::catalog`] and `docs/view.md`). A subject is one
//! object or a list of objects; `facts` holds what Rust computed. Every subject remembers which
//! object it came from, so a match at `$['pod']['status']…` becomes evidence on that Pod at
//! `$['status']…`.

use crate::bundle::group_of;
use crate::diagnosis::{Missing, ObjectRef, PodSummary};
use crate::facts;
use crate::index::{Index, ObjId, POD_GROUP_KEYS};
use crate::json::{label, request_device_classes, str_at};
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;

/// Where a subject's content came from.
#[derive(Debug, Clone)]
pub enum SubjectRef {
    One(ObjectRef),
    Many(Vec<ObjectRef>),
}

/// A built view.
#[derive(Debug, Clone)]
pub struct View {
    pub value: Value,
    pub refs: BTreeMap<String, SubjectRef>,
    pub target: ObjId,
    pub pod: Option<ObjId>,
    pub pods: Vec<PodSummary>,
    pub status: String,
    pub settled: bool,
    /// What the bundle shows is history (finished work, a superseded pod): findings are told
    /// as history, never as a block.
    pub history: bool,
    pub missing: Vec<Missing>,
}

impl View {
    pub fn has(&self, subject: &str) -> bool {
        subject == "facts" || self.refs.contains_key(subject)
    }

    /// The object the facts are about: the pod if there is one, else the target.
    pub fn fact_owner(&self) -> &ObjectRef {
        match self.refs.get("pod").or_else(|| self.refs.get("target")) {
            Some(SubjectRef::One(r)) => r,
            _ => unreachable!("a view always has a target"),
        }
    }
}

pub fn object_ref(ix: &Index, id: ObjId) -> ObjectRef {
    let o = ix.object(id);
    ObjectRef {
        api_version: o.api_version.clone(),
        kind: o.kind.clone(),
        namespace: o.namespace.clone(),
        name: o.name.clone(),
    }
}

struct Builder<'a> {
    ix: &'a Index,
    map: Map<String, Value>,
    refs: BTreeMap<String, SubjectRef>,
    values: BTreeMap<ObjId, Value>,
    missing: Vec<Missing>,
    event_sources: Vec<ObjId>,
}

impl Builder<'_> {
    fn value(&mut self, id: ObjId) -> Value {
        self.values
            .entry(id)
            .or_insert_with(|| self.ix.value(id))
            .clone()
    }

    fn set_one(&mut self, subject: &str, id: ObjId) {
        if self.refs.contains_key(subject) {
            return;
        }
        let v = self.value(id);
        self.map.insert(subject.into(), v);
        self.refs
            .insert(subject.into(), SubjectRef::One(object_ref(self.ix, id)));
    }

    fn set_many(&mut self, subject: &str, ids: &[ObjId]) {
        if ids.is_empty() || self.refs.contains_key(subject) {
            return;
        }
        let vals: Vec<Value> = ids.iter().map(|&id| self.value(id)).collect();
        self.map.insert(subject.into(), Value::Array(vals));
        self.refs.insert(
            subject.into(),
            SubjectRef::Many(ids.iter().map(|&id| object_ref(self.ix, id)).collect()),
        );
    }

    fn miss(
        &mut self,
        kind: &str,
        api_version: Option<&str>,
        namespace: Option<&str>,
        name: &str,
        why: &str,
    ) {
        let m = Missing {
            kind: kind.into(),
            api_version: api_version.map(str::to_string),
            resource: None,
            namespace: namespace.map(str::to_string),
            name: Some(name.into()),
            why: why.into(),
        };
        // Said once: duplicates go when the view is made (a search here per entry was
        // quadratic in a pod's ownerReferences).
        self.missing.push(m);
    }

    /// Something the view could not read of an object it holds, said once.
    fn note_on(&mut self, id: ObjId, why: &str) {
        let o = self.ix.object(id);
        let (kind, api_version) = (o.kind.clone(), o.api_version.clone());
        let (namespace, name) = (o.namespace.clone(), o.name.clone());
        self.miss(&kind, Some(&api_version), namespace.as_deref(), &name, why);
    }
}

/// A label or annotation value (annotation first: Kueue moved some labels to annotations).
fn meta_value<'v>(v: &'v Value, key: &str) -> Option<&'v str> {
    v.pointer("/metadata/annotations")
        .and_then(|a| a.get(key))
        .and_then(Value::as_str)
        .or_else(|| {
            v.pointer("/metadata/labels")
                .and_then(|l| l.get(key))
                .and_then(Value::as_str)
        })
        .filter(|s| !s.is_empty())
}

/// Build the view of a target. `now` is epoch seconds (for ages).
pub fn build(ix: &Index, target: ObjId, now: Option<i64>) -> View {
    let mut b = Builder {
        ix,
        map: Map::new(),
        refs: BTreeMap::new(),
        values: BTreeMap::new(),
        missing: Vec::new(),
        event_sources: Vec::new(),
    };
    let t = ix.object(target);
    let target_is_pod = t.kind == "Pod";
    b.set_one("target", target);
    b.event_sources.push(target);

    // The pods of the work, and the one that best explains it.
    let pods: Vec<ObjId> = if target_is_pod {
        vec![target]
    } else {
        work_pods(ix, target)
    };
    // The pod that best explains the work: the worst off among those that make it up now. A
    // failed pod beside its running replacement is history, not the work's state.
    let pod = if target_is_pod {
        Some(target)
    } else {
        let live: Vec<ObjId> = pods
            .iter()
            .copied()
            .filter(|&p| !ix.pod(p).is_some_and(|i| i.terminal()))
            .collect();
        let candidates = if live.is_empty() { &pods } else { &live };
        candidates
            .iter()
            .copied()
            .min_by_key(|&p| (facts::pod_rank(ix, p), p))
    };

    // Owner chains: the target's, and the representative pod's.
    let mut chain: Vec<ObjId> = ix.owner_chain(target);
    if let Some(p) = pod.filter(|_| !target_is_pod) {
        for id in ix.owner_chain(p) {
            if !chain.contains(&id) && id != target {
                chain.push(id);
            }
        }
    }
    let chain_all: Vec<ObjId> = std::iter::once(target)
        .chain(chain.iter().copied())
        .collect();
    for &id in &chain {
        b.event_sources.push(id);
    }
    if !chain.is_empty() {
        b.set_many("owners", &chain);
    }
    for o in ix.unresolved_owner_refs(target) {
        b.miss(
            &o.kind,
            Some(&o.api_version),
            t.namespace.as_deref(),
            &o.name,
            "owner not in the bundle",
        );
    }

    let pod_value = pod.map(|p| b.value(p));
    if let Some(p) = pod {
        b.set_one("pod", p);
        if p != target {
            b.event_sources.push(p);
        }
    }
    let ns = t.namespace.clone();

    // Owner subjects by kind, nearest to the pod first.
    let mut ordered: Vec<ObjId> = Vec::new();
    if let Some(p) = pod {
        ordered.extend(ix.owner_chain(p));
    }
    ordered.extend(chain_all.iter().copied());
    for id in ordered {
        let o = ix.object(id);
        if let Some(subject) = crate::kinds::owner_subject(o.group(), &o.kind) {
            b.set_one(subject, id);
        }
    }

    // Group: LeaderWorkerSet, JobSet, gang PodGroup.
    let mut group_fact = Value::Null;
    if let Some(pv) = &pod_value {
        let pns = str_at(pv, "/metadata/namespace");
        if let Some(lws_name) = label(pv, "leaderworkerset.sigs.k8s.io/name") {
            if let Some(id) = ix.get("leaderworkerset.x-k8s.io", "LeaderWorkerSet", pns, lws_name) {
                b.set_one("lws", id);
            }
            let group_index = label(pv, "leaderworkerset.sigs.k8s.io/group-index").unwrap_or("0");
            let leader_name = format!("{lws_name}-{group_index}");
            if let Some(id) = ix.find("Pod", pns, &leader_name) {
                b.set_one("leaderPod", id);
            }
            let worker_sts = ix.get("apps", "StatefulSet", pns, &leader_name);
            if let Some(id) = worker_sts {
                b.set_one("workerStatefulSet", id);
            }
            let size =
                meta_value(pv, "leaderworkerset.sigs.k8s.io/size").and_then(|s| s.parse().ok());
            let members: Vec<ObjId> = ix
                .get("leaderworkerset.x-k8s.io", "LeaderWorkerSet", pns, lws_name)
                .map(|l| ix.descendant_pods(l))
                .unwrap_or_default()
                .into_iter()
                .filter(|&m| {
                    label(&b.value(m), "leaderworkerset.sigs.k8s.io/group-index")
                        == Some(group_index)
                })
                .collect();
            group_fact = group_of_pods(&mut b, "LeaderWorkerSet", &leader_name, size, &members);
            group_fact["groupIndex"] = json!(group_index);
            group_fact["workerStatefulSet"] =
                json!({"name": leader_name, "exists": worker_sts.is_some()});
        } else if let Some(js) = label(pv, "jobset.sigs.k8s.io/jobset-name")
            && let Some(id) = ix.get("jobset.x-k8s.io", "JobSet", pns, js)
        {
            b.set_one("jobSet", id);
            let spec = b.value(id);
            let expected: u64 = facts::replicated_jobs(&spec)
                .iter()
                .map(|rj| rj.replicas * rj.pods_per_job)
                .sum();
            let members: Vec<ObjId> = ix
                .descendant_pods(id)
                .into_iter()
                .filter(|&m| !ix.pod(m).is_some_and(|p| p.terminal()))
                .collect();
            group_fact = group_of_pods(&mut b, "JobSet", js, Some(expected), &members);
        }
        for (key, api_group, is_annotation) in POD_GROUP_KEYS {
            let v = if *is_annotation {
                pv.pointer("/metadata/annotations")
                    .and_then(|a| a.get(*key))
                    .and_then(Value::as_str)
            } else {
                label(pv, key)
            };
            let Some(name) = v else { continue };
            match ix.get(api_group, "PodGroup", pns, name) {
                Some(id) => {
                    b.set_one("podGroup", id);
                    b.event_sources.push(id);
                    let pg = b.value(id);
                    if group_fact.is_null() {
                        let members: Vec<ObjId> =
                            ix.pods_in_group(pns.unwrap_or(""), name).to_vec();
                        let min = pg.pointer("/spec/minMember").and_then(Value::as_u64);
                        group_fact = group_of_pods(&mut b, "PodGroup", name, min, &members);
                    }
                    let queue = str_at(&pg, "/spec/queue")
                        .map(str::to_string)
                        .or_else(|| label(pv, "kai.scheduler/queue").map(str::to_string));
                    if let (Some(q), "scheduling.run.ai") = (queue, *api_group) {
                        match ix.get("scheduling.run.ai", "Queue", None, &q) {
                            Some(qid) => b.set_one("kaiQueue", qid),
                            None => b.miss(
                                "Queue",
                                Some("scheduling.run.ai/v2"),
                                None,
                                &q,
                                "not in the bundle",
                            ),
                        }
                    }
                }
                None => b.miss("PodGroup", None, pns, name, "not in the bundle"),
            }
            break;
        }
    }

    // Admission: the Kueue Workload, its queues and flavors.
    if !b.refs.contains_key("workload") {
        let by_pod = pod_value.as_ref().and_then(|pv| {
            [
                "kueue.x-k8s.io/prebuilt-workload-name",
                "kueue.x-k8s.io/pod-group-name",
            ]
            .iter()
            .find_map(|k| meta_value(pv, k))
            .and_then(|name| {
                ix.get(
                    "kueue.x-k8s.io",
                    "Workload",
                    str_at(pv, "/metadata/namespace"),
                    name,
                )
            })
        });
        let by_owner = || {
            chain_all.iter().chain(pod.iter()).find_map(|&id| {
                ix.children(id)
                    .iter()
                    .copied()
                    .find(|&c| {
                        ix.object(c).kind == "Workload" && ix.object(c).group() == "kueue.x-k8s.io"
                    })
                    .or_else(|| {
                        ix.object(id)
                            .uid
                            .as_deref()
                            .and_then(|u| ix.workloads_for_job_uid(u).first().copied())
                    })
            })
        };
        if let Some(id) = by_pod.or_else(by_owner) {
            b.set_one("workload", id);
        }
    }
    let workload_id = match b.refs.get("workload") {
        Some(SubjectRef::One(r)) => ix.get(
            "kueue.x-k8s.io",
            "Workload",
            r.namespace.as_deref(),
            &r.name,
        ),
        _ => None,
    };
    if let Some(w) = workload_id {
        b.event_sources.push(w);
    }
    let wl = workload_id.map(|w| b.value(w));
    let queue_name = wl
        .as_ref()
        .and_then(|w| str_at(w, "/spec/queueName").map(str::to_string))
        .or_else(|| {
            chain_all.iter().chain(pod.iter()).find_map(|&id| {
                label(&b.value(id), "kueue.x-k8s.io/queue-name").map(str::to_string)
            })
        });
    let mut cq_name = wl
        .as_ref()
        .and_then(|w| str_at(w, "/status/admission/clusterQueue").map(str::to_string));
    if let Some(q) = &queue_name {
        match ix.get("kueue.x-k8s.io", "LocalQueue", ns.as_deref(), q) {
            Some(id) => {
                b.set_one("localQueue", id);
                let lq = b.value(id);
                if cq_name.is_none() {
                    cq_name = str_at(&lq, "/spec/clusterQueue").map(str::to_string);
                }
            }
            None => b.miss(
                "LocalQueue",
                Some("kueue.x-k8s.io/v1beta2"),
                ns.as_deref(),
                q,
                "not in the bundle",
            ),
        }
    }
    if let Some(cq) = &cq_name {
        match ix.get("kueue.x-k8s.io", "ClusterQueue", None, cq) {
            Some(id) => {
                b.set_one("clusterQueue", id);
                let cqv = b.value(id);
                let mut flavors: Vec<ObjId> = Vec::new();
                for rg in cqv
                    .pointer("/spec/resourceGroups")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    for f in rg["flavors"].as_array().into_iter().flatten() {
                        if let Some(name) = f["name"].as_str() {
                            match ix.get("kueue.x-k8s.io", "ResourceFlavor", None, name) {
                                Some(fid) if !flavors.contains(&fid) => flavors.push(fid),
                                Some(_) => {}
                                None => b.miss(
                                    "ResourceFlavor",
                                    Some("kueue.x-k8s.io/v1beta2"),
                                    None,
                                    name,
                                    "not in the bundle",
                                ),
                            }
                        }
                    }
                }
                b.set_many("resourceFlavors", &flavors);
            }
            None => b.miss(
                "ClusterQueue",
                Some("kueue.x-k8s.io/v1beta2"),
                None,
                cq,
                "not in the bundle",
            ),
        }
    }

    // Placement and runtime: the bound node, the RuntimeClass, DRA objects.
    let mut sched_fact = Value::Null;
    let mut resources_fact = Value::Array(Vec::new());
    if let (Some(p), Some(pv)) = (pod, &pod_value) {
        if let Some(node) = str_at(pv, "/spec/nodeName") {
            match ix.find("Node", None, node) {
                Some(id) => b.set_one("node", id),
                None => b.miss(
                    "Node",
                    Some("v1"),
                    None,
                    node,
                    "the pod's node is not in the bundle",
                ),
            }
        }
        if let Some(rc) = str_at(pv, "/spec/runtimeClassName") {
            match ix.get("node.k8s.io", "RuntimeClass", None, rc) {
                Some(id) => b.set_one("runtimeClass", id),
                None => b.miss(
                    "RuntimeClass",
                    Some("node.k8s.io/v1"),
                    None,
                    rc,
                    "not in the bundle",
                ),
            }
        }
        link_dra(&mut b, pv);
        sched_fact = scheduling_fact(ix, p, pv);
        let extra: Vec<String> = sched_fact["insufficient"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect();
        let mut requests: BTreeMap<String, f64> = ix
            .pod(p)
            .map(|i| i.requests.iter().cloned().collect())
            .unwrap_or_default();
        // A KAI-Scheduler GPU share asks for part of a GPU by annotation, not by resource: the
        // pod still needs a node that advertises nvidia.com/gpu.
        if let Some(share) = kai_gpu_share(pv) {
            requests.entry("nvidia.com/gpu".into()).or_insert(share);
        }
        resources_fact = facts::resources(ix, &requests, &extra, pv);
        // A request that is no quantity is left out of every sum: say so, or the pod would
        // read as asking for less than its spec says.
        for what in facts::unreadable_quantities(pv) {
            b.note_on(
                p,
                &format!("{what} is not a quantity; that request is left out"),
            );
        }
        link_serving(&mut b, pv);
    }
    for id in std::iter::once(target).chain(pod) {
        if ix.repaired(id) {
            b.note_on(
                id,
                "some fields are not of their API type (a label or annotation value that is not a string, a number too large for any type); read leniently",
            );
        }
    }
    if ix.nodes().is_empty() {
        b.missing.push(Missing {
            kind: "Node".into(),
            api_version: Some("v1".into()),
            resource: Some("nodes".into()),
            namespace: None,
            name: None,
            why: "no Node objects in the bundle".into(),
        });
    }

    // fake-gpu-operator topology.
    let fake = facts::fake_gpu_state(ix);
    let (fake_fact, topo_cm, node_cms) = (&fake.0, fake.1, &fake.2);
    if let Some(id) = topo_cm {
        b.set_one("fakeGpuTopology", id);
        b.set_many("nodeTopologies", node_cms);
    }

    // The nodes worth citing: the bound node, the closest candidates for each requested device,
    // and fake-gpu-operator's pool nodes; sorted by name, at most 16.
    let mut node_names: Vec<String> = Vec::new();
    if let Some(pv) = &pod_value {
        node_names.extend(str_at(pv, "/spec/nodeName").map(str::to_string));
    }
    for r in resources_fact.as_array().into_iter().flatten() {
        for c in r["closest"].as_array().into_iter().flatten() {
            node_names.extend(c["node"].as_str().map(str::to_string));
        }
    }
    for n in fake_fact["nodes"].as_array().into_iter().flatten() {
        node_names.extend(n["node"].as_str().map(str::to_string));
    }
    node_names.sort();
    node_names.dedup();
    let node_ids: Vec<ObjId> = node_names
        .iter()
        .filter_map(|n| ix.nodes().get(n).map(|i| i.id))
        .take(16)
        .collect();
    b.set_many("nodes", &node_ids);

    // Events about every linked object, normalized to one shape, oldest first.
    let mut evs: Vec<ObjId> = Vec::new();
    for &src in &b.event_sources.clone() {
        for e in ix.events_for(src).into_iter().rev().take(50) {
            if !evs.contains(&e) {
                evs.push(e);
            }
        }
    }
    evs.sort_by_key(|e| (ix.event_time(*e), *e));
    let ev_values: Vec<Value> = evs
        .iter()
        .filter_map(|&e| {
            let i = ix.event(e)?;
            Some(json!({
                "reason": i.reason, "message": i.message, "type": i.type_, "component": i.component,
                "count": i.count, "lastTimestamp": i.last.map(crate::time::format_rfc3339),
                "involvedObject": {"kind": i.involved_kind, "namespace": i.involved_namespace, "name": i.involved_name},
            }))
        })
        .collect();
    if !ev_values.is_empty() {
        b.map.insert("events".into(), Value::Array(ev_values));
        b.refs.insert(
            "events".into(),
            SubjectRef::Many(evs.iter().map(|&e| object_ref(ix, e)).collect()),
        );
    }

    // Pods named by an owner's diagnosis, and the target's own status.
    let pod_summaries: Vec<PodSummary> = if target_is_pod {
        Vec::new()
    } else {
        pods.iter()
            .take(64)
            .map(|&p| {
                let o = ix.object(p);
                // The index decoded every pod's status and node once; nothing is read again.
                let info = ix.pod(p);
                PodSummary {
                    namespace: o.namespace.clone().unwrap_or_default(),
                    name: o.name.clone(),
                    status: info.map_or_else(|| "Unknown".into(), |i| i.status.clone()),
                    node: info.and_then(|i| i.node.clone()),
                }
            })
            .collect()
    };
    if !target_is_pod && pods.len() > 1 {
        b.set_many("pods", &pods.iter().take(64).copied().collect::<Vec<_>>());
    }
    let tv = b.value(target);
    let WorkState {
        status,
        settled,
        history,
    } = judge(ix, target, &tv, &pods);
    let jobset_fact = match b.refs.get("jobSet") {
        Some(SubjectRef::One(r)) => ix
            .get("jobset.x-k8s.io", "JobSet", r.namespace.as_deref(), &r.name)
            .map_or(Value::Null, |id| jobset_fact(&mut b, id)),
        _ => Value::Null,
    };
    let kueue_installed = ix
        .kinds()
        .iter()
        .any(|k| matches!(*k, "ClusterQueue" | "LocalQueue" | "Workload"));
    b.map.insert(
        "facts".into(),
        json!({
            "target": {"kind": t.kind, "status": status, "settled": settled, "isPod": target_is_pod, "podCount": pods.len(),
                       "deviceStack": crate::attribution::is_device_stack(&t.kind, &t.name),
                       "requestsWithoutLimits": requests_without_limits(&tv)},
            "scheduling": sched_fact,
            "resources": resources_fact,
            "group": group_fact,
            "fakeGpu": fake_fact.clone(),
            "jobSet": jobset_fact,
            "installed": {"kueue": kueue_installed},
            "now": now.map(crate::time::format_rfc3339),
            "podAge": pod.and_then(|p| Some(now? - ix.created(p)?)),
            "scheduler": pod_value.as_ref().map(|pv| str_at(pv, "/spec/schedulerName").unwrap_or("default-scheduler")),
        }),
    );
    // Facts by area (core/src/area/): computed last, so they can read every linked subject.
    let area_facts = {
        let ctx = crate::area::Ctx {
            ix,
            target,
            pod,
            subjects: &b.map,
            now,
        };
        crate::area::all(&ctx)
    };
    let linked = linked_objects(ix, target, pod, &chain, &b.refs);
    let sig = facts::signals::signals(ix, &linked, settled || history);
    if let Some(Value::Object(f)) = b.map.get_mut("facts") {
        for (k, v) in area_facts {
            f.insert(k.to_string(), v);
        }
        f.insert("signals".into(), json!(sig.signals));
        f.insert("floor".into(), json!(sig.floor));
    }
    View {
        value: Value::Object(b.map),
        refs: b.refs,
        target,
        pod,
        pods: pod_summaries,
        status,
        settled,
        history,
        missing: {
            let mut m = b.missing;
            m.sort();
            m.dedup();
            m
        },
    }
}

/// Subjects whose objects are context (candidate nodes, device classes, configuration), not
/// part of the work: their conditions say nothing about why this work does not run.
const CONTEXT_SUBJECTS: &[&str] = &[
    "target",
    "nodes",
    "events",
    "deviceClasses",
    "resourceSlices",
    "resourceFlavors",
    "runtimeClass",
    "fakeGpuTopology",
    "nodeTopologies",
];

/// The objects the work is made of, target first: its pod, its owners, the objects below it
/// (controllers and pods a controller made) and what the view linked (Workload, PodGroup,
/// claims, serving objects).
fn linked_objects(
    ix: &Index,
    target: ObjId,
    pod: Option<ObjId>,
    chain: &[ObjId],
    refs: &BTreeMap<String, SubjectRef>,
) -> Vec<ObjId> {
    let mut out = vec![target];
    let add = |id: ObjId, out: &mut Vec<ObjId>| {
        if !out.contains(&id) {
            out.push(id);
        }
    };
    if let Some(p) = pod {
        add(p, &mut out);
    }
    for &id in chain {
        add(id, &mut out);
    }
    let resolve = |r: &ObjectRef| {
        ix.get(
            group_of(&r.api_version),
            &r.kind,
            r.namespace.as_deref(),
            &r.name,
        )
    };
    for (subject, r) in refs {
        if CONTEXT_SUBJECTS.contains(&subject.as_str()) {
            continue;
        }
        match r {
            SubjectRef::One(r) => {
                if let Some(id) = resolve(r) {
                    add(id, &mut out);
                }
            }
            SubjectRef::Many(rs) => {
                for id in rs.iter().filter_map(resolve) {
                    add(id, &mut out);
                }
            }
        }
    }
    let mut stack: Vec<ObjId> = ix.children(target).to_vec();
    while let Some(id) = stack.pop() {
        if out.len() >= facts::signals::OBJECT_LIMIT {
            break;
        }
        if !out.contains(&id) {
            out.push(id);
            stack.extend(ix.children(id).iter().copied());
        }
    }
    out
}

fn group_of_pods(
    b: &mut Builder,
    kind: &str,
    name: &str,
    expected: Option<u64>,
    members: &[ObjId],
) -> Value {
    let rows: Vec<(String, String, bool, Option<String>)> = members
        .iter()
        .map(|&m| {
            let info = b.ix.pod(m);
            (
                b.ix.object(m).name.clone(),
                info.map_or_else(|| "Unknown".into(), |i| i.status.clone()),
                info.is_some_and(|i| i.settled),
                info.and_then(|i| i.node.clone()),
            )
        })
        .collect();
    facts::group(kind, name, expected, &rows)
}

/// A JobSet's child Jobs against its spec: `{name, suspended, jobsExpected, jobsPresent,
/// jobsSuspended, replicatedJobs: [{name, replicas, jobsPresent, podsPerJob}]}`. Child Jobs are
/// found by owner reference and matched to their replicated job by the
/// `jobset.sigs.k8s.io/replicatedjob-name` label.
fn jobset_fact(b: &mut Builder, id: ObjId) -> Value {
    let js = b.value(id);
    let children: Vec<ObjId> = facts::child_jobs(b.ix, id).collect();
    let jobs: Vec<Value> = children.into_iter().map(|c| b.value(c)).collect();
    let mut rows = Vec::new();
    let mut expected = 0;
    for rj in facts::replicated_jobs(&js) {
        expected += rj.replicas;
        rows.push(json!({"name": rj.name, "replicas": rj.replicas,
                         "jobsPresent": rj.present_in(&jobs), "podsPerJob": rj.pods_per_job}));
    }
    let suspended = jobs
        .iter()
        .filter(|j| j.pointer("/spec/suspend") == Some(&Value::Bool(true)))
        .count();
    json!({
        "name": b.ix.object(id).name, "suspended": js.pointer("/spec/suspend") == Some(&Value::Bool(true)),
        "jobsExpected": expected, "jobsPresent": jobs.len(), "jobsSuspended": suspended, "replicatedJobs": rows,
    })
}

/// The GPUs a KAI-Scheduler GPU-sharing pod asks for: `gpu-fraction` (times
/// `gpu-fraction-num-devices`), or a share of one GPU for `gpu-memory`.
fn kai_gpu_share(pv: &Value) -> Option<f64> {
    let ann = pv.pointer("/metadata/annotations")?;
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

/// The scheduler's last word on a pod: the PodScheduled condition's message, else the newest
/// FailedScheduling (or KAI `Unschedulable`) event.
fn scheduling_fact(ix: &Index, pod: ObjId, pv: &Value) -> Value {
    let cond = pv
        .pointer("/status/conditions")
        .and_then(Value::as_array)
        .and_then(|cs| {
            cs.iter().find(|c| {
                c["type"] == "PodScheduled"
                    && c["status"] == "False"
                    && c["reason"] == "Unschedulable"
            })
        });
    let scheduler = str_at(pv, "/spec/schedulerName").unwrap_or("default-scheduler");
    let from_event = || {
        ix.events_for(pod)
            .into_iter()
            .rev()
            .filter_map(|e| ix.event(e))
            .find(|e| {
                e.reason == "FailedScheduling"
                    || (e.reason == "Unschedulable" && e.type_ == "Warning")
            })
    };
    let (message, source) = match cond
        .and_then(|c| c["message"].as_str())
        .filter(|m| !m.is_empty())
    {
        Some(m) => (m.to_string(), "condition"),
        None => match from_event() {
            Some(e) => (e.message.clone(), "event"),
            None => return Value::Null,
        },
    };
    let mut f = facts::parse_scheduling_message(&message);
    f["source"] = json!(source);
    f["scheduler"] = json!(scheduler);
    f
}

fn link_dra(b: &mut Builder, pv: &Value) {
    let ix = b.ix;
    let ns = str_at(pv, "/metadata/namespace");
    let mut claims = Vec::new();
    for rc in pv
        .pointer("/spec/resourceClaims")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let name = crate::json::claim_name(pv, rc);
        // A claim from a template that is not generated yet has no name: a rule reads that from
        // the pod's status.
        if let Some(n) = name {
            match ix.find("ResourceClaim", ns, &n) {
                Some(id) => claims.push(id),
                None => b.miss("ResourceClaim", None, ns, &n, "not in the bundle"),
            }
        }
    }
    let mut classes = Vec::new();
    for &c in &claims {
        let v = b.value(c);
        for req in v
            .pointer("/spec/devices/requests")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let names = request_device_classes(req);
            for n in names {
                match ix.find("DeviceClass", None, n) {
                    Some(id) if !classes.contains(&id) => classes.push(id),
                    Some(_) => {}
                    None => b.miss("DeviceClass", None, None, n, "not in the bundle"),
                }
            }
        }
    }
    b.set_many("resourceClaims", &claims);
    b.set_many("deviceClasses", &classes);
    if let Some(node) = str_at(pv, "/spec/nodeName") {
        // ResourceSlices by node, read once per index (every bound pod's view asks).
        let by_node = ix.once("view.slicesByNode", || {
            let mut m: std::collections::HashMap<String, Vec<ObjId>> = Default::default();
            for &s in ix.of_kind("ResourceSlice") {
                let node = ix
                    .typed::<crate::index::SliceIdx>(s)
                    .and_then(|x| x.spec.node_name);
                if let Some(serde_json::Value::String(n)) = node {
                    m.entry(n).or_default().push(s);
                }
            }
            m
        });
        let slices: Vec<ObjId> = by_node
            .get(node)
            .map(|v| v.iter().copied().take(32).collect())
            .unwrap_or_default();
        b.set_many("resourceSlices", &slices);
    }
}

/// The DynamoGraphDeployment or InferencePool that selects the pod.
fn link_serving(b: &mut Builder, pv: &Value) {
    let ix = b.ix;
    let ns = str_at(pv, "/metadata/namespace");
    if let Some(dgd) = label(pv, "nvidia.com/dynamo-graph-deployment-name")
        && let Some(id) = ix.find("DynamoGraphDeployment", ns, dgd)
    {
        b.set_one("dynamoGraphDeployment", id);
        b.event_sources.push(id);
    }
    let labels = crate::json::labels(pv);
    for &id in ix.of_kind("InferencePool") {
        if ix.object(id).namespace.as_deref() != ns
            || !group_of(&ix.object(id).api_version).starts_with("inference.networking")
        {
            continue;
        }
        let v = b.value(id);
        // v1: selector.matchLabels; v1alpha2: selector is a plain map.
        if crate::json::match_labels(&v, true).is_some_and(|s| crate::json::selects(s, labels)) {
            b.set_one("inferencePool", id);
            b.event_sources.push(id);
            break;
        }
    }
}

/// The pods of a piece of work: those below it by ownerReferences, else those its
/// controller's labels or its selector name; a Kueue Workload's are its job's (the Workload
/// is owned by the Job, JobSet or LWS whose pods it admits); a GPU Operator ClusterPolicy's
/// are the device stack's pods.
fn work_pods(ix: &Index, target: ObjId) -> Vec<ObjId> {
    let own = |id: ObjId| {
        let pods = ix.descendant_pods(id);
        if pods.is_empty() {
            pods_by_selector(ix, id)
        } else {
            pods
        }
    };
    let pods = own(target);
    let t = ix.object(target);
    // The GPU Operator's ClusterPolicy owns its operands through DaemonSets a paste often
    // leaves out: its pods are the device stack's.
    if pods.is_empty() && t.kind == "ClusterPolicy" && t.group() == "nvidia.com" {
        return ix
            .of_kind("Pod")
            .iter()
            .copied()
            .filter(|&p| crate::attribution::is_device_stack("Pod", &ix.object(p).name))
            .take(256)
            .collect();
    }
    let workload = t.kind == "Workload" && t.group() == "kueue.x-k8s.io";
    if !(pods.is_empty() && workload) {
        return pods;
    }
    ix.owner_chain(target)
        .into_iter()
        .map(own)
        .find(|p| !p.is_empty())
        .unwrap_or_default()
}

/// Device resources (names with a `/`) that some `resources` block of an object asks for in
/// `requests` without the same key in `limits`, anywhere in its spec (a pod, a pod template, a
/// TrainJob's `resourcesPerNode`). The API server refuses such a pod ("Limit must be set for
/// non overcommitable resources"), so whatever generates pods from the spec cannot create them.
fn requests_without_limits(v: &Value) -> Vec<String> {
    fn walk(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::Object(m) => {
                if let Some(req) = m.get("requests").and_then(Value::as_object) {
                    let limits = m.get("limits").and_then(Value::as_object);
                    for k in req.keys().filter(|k| k.contains('/')) {
                        if limits.is_none_or(|l| !l.contains_key(k)) && !out.contains(k) {
                            out.push(k.clone());
                        }
                    }
                }
                m.values().for_each(|x| walk(x, out));
            }
            Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    if let Some(spec) = v.get("spec") {
        walk(spec, &mut out);
    }
    out.sort();
    out
}

/// The label a kind's controller puts on every pod it makes, naming its owner: how a pasted
/// LWS, JobSet or Job finds its pods when the pods' ownerReferences were cut or lead through an
/// object the bundle lacks.
const OWNER_LABELS: &[(&str, &[&str])] = &[
    ("LeaderWorkerSet", &["leaderworkerset.sigs.k8s.io/name"]),
    ("JobSet", &["jobset.sigs.k8s.io/jobset-name"]),
    ("Job", &["batch.kubernetes.io/job-name", "job-name"]),
    (
        "DynamoGraphDeployment",
        &["nvidia.com/dynamo-graph-deployment-name"],
    ),
    ("PodCliqueSet", &["app.kubernetes.io/part-of"]),
];

/// Pods that belong to a piece of work without an ownerReference reaching them: by the label
/// its controller writes on its pods ([`OWNER_LABELS`]), else by its label selector
/// (`spec.selector.matchLabels`; an InferencePool's v1alpha2 selector is a plain map).
fn pods_by_selector(ix: &Index, target: ObjId) -> Vec<ObjId> {
    let t = ix.object(target);
    if t.kind == "Pod" {
        return Vec::new();
    }
    // A gang's members name their PodGroup (KAI, Volcano, scheduler-plugins).
    if t.kind == "PodGroup" {
        let ns = t.namespace.as_deref().unwrap_or("");
        return ix
            .pods_in_group(ns, &t.name)
            .iter()
            .copied()
            .take(256)
            .collect();
    }
    let by_namespace = facts::pods_by_namespace(ix);
    let Some(candidates) = by_namespace.get(&t.namespace) else {
        return Vec::new();
    };
    let labels_of = |p: ObjId| ix.value(p).pointer("/metadata/labels").cloned();
    let mut out: Vec<ObjId> = match OWNER_LABELS.iter().find(|(k, _)| *k == t.kind) {
        Some((_, keys)) => candidates
            .iter()
            .copied()
            .filter(|&p| {
                labels_of(p).is_some_and(|l| {
                    keys.iter()
                        .any(|k| l.get(*k).and_then(Value::as_str) == Some(t.name.as_str()))
                })
            })
            .collect(),
        None => {
            let v = ix.value(target);
            let Some(sel) = crate::json::match_labels(&v, t.kind == "InferencePool") else {
                return Vec::new();
            };
            candidates
                .iter()
                .copied()
                .filter(|&p| labels_of(p).is_some_and(|l| crate::json::selects(sel, l.as_object())))
                .collect()
        }
    };
    out.sort_by(|a, b| ix.object(*a).name.cmp(&ix.object(*b).name));
    out.truncate(256);
    out
}

/// The target's status and whether it is settled, without building a whole view (for scan and
/// the target list).
pub fn status_of(ix: &Index, target: ObjId) -> (String, bool) {
    let v = ix.value(target);
    let pods = if ix.pod(target).is_none() {
        work_pods(ix, target)
    } else {
        Vec::new()
    };
    let w = judge(ix, target, &v, &pods);
    (w.status, w.settled)
}

/// What the work is now: its status, whether it is settled, and whether what the bundle shows
/// of it is history (finished work, a failed pod beside its running replacement), which never
/// blocks. `why` and `scan` both judge through here.
#[derive(Debug, Clone)]
pub struct WorkState {
    pub status: String,
    pub settled: bool,
    pub history: bool,
}

/// Statuses of work that has finished for good.
const FINISHED: &[&str] = &["Complete", "Completed", "Finished", "Succeeded"];

fn judge(ix: &Index, target: ObjId, v: &Value, pods: &[ObjId]) -> WorkState {
    let (status, mut settled, by_kind) = match ix.pod(target) {
        Some(p) => (p.status.clone(), p.settled, true),
        None => work_status(ix, target, v, pods),
    };
    let mut history = settled && FINISHED.contains(&status.as_str());
    if facts::superseded_pod(ix, target) {
        settled = true;
        history = true;
    }
    // A kind without a status of its own (a Node, a DaemonSet's selector, an HTTPRoute) is
    // settled only while it reports nothing wrong.
    if !by_kind
        && settled
        && !facts::signals::signals(ix, &[target], false)
            .signals
            .is_empty()
    {
        settled = false;
    }
    WorkState {
        status,
        settled,
        history,
    }
}

/// A short status for the target as kubectl would show it, whether the work is settled
/// (running as intended or finished), and whether the kind has a status of its own (false: the
/// status is only "Present" or its pods').
fn work_status(ix: &Index, target: ObjId, v: &Value, pods: &[ObjId]) -> (String, bool, bool) {
    let t = ix.object(target);
    let by_kind = matches!(
        (t.group(), t.kind.as_str()),
        ("", "Pod")
            | ("batch", "Job")
            | ("jobset.x-k8s.io", "JobSet")
            | ("leaderworkerset.x-k8s.io", "LeaderWorkerSet")
            | (
                "apps",
                "Deployment" | "StatefulSet" | "ReplicaSet" | "DaemonSet"
            )
            | ("kueue.x-k8s.io", "Workload")
            | ("nvidia.com", "DynamoGraphDeployment")
    ) || (t.kind == "PodGroup" && !pods.is_empty());
    let (status, settled) = status_by_kind(ix, target, v, pods);
    (status, settled, by_kind)
}

fn status_by_kind(ix: &Index, target: ObjId, v: &Value, pods: &[ObjId]) -> (String, bool) {
    let t = ix.object(target);
    let cond_true = |ty: &str| {
        v.pointer("/status/conditions")
            .and_then(Value::as_array)
            .is_some_and(|cs| cs.iter().any(|c| c["type"] == ty && c["status"] == "True"))
    };
    let pods_settled =
        || !pods.is_empty() && pods.iter().all(|&p| ix.pod(p).is_some_and(|i| i.settled));
    let ready_of = |spec_ptr: &str, ready_ptr: &str| {
        let want = v.pointer(spec_ptr).and_then(Value::as_u64).unwrap_or(1);
        let ready = v.pointer(ready_ptr).and_then(Value::as_u64).unwrap_or(0);
        (format!("{ready}/{want} ready"), ready >= want)
    };
    match (t.group(), t.kind.as_str()) {
        ("", "Pod") => ix
            .pod(target)
            .map_or_else(|| facts::pod_status(v), |i| (i.status.clone(), i.settled)),
        // Jobs and JobSets: finished, failed, held (suspended), or as their pods are.
        ("batch", "Job") | ("jobset.x-k8s.io", "JobSet") => {
            let done = if t.kind == "Job" {
                "Complete"
            } else {
                "Completed"
            };
            if cond_true(done) {
                (done.into(), true)
            } else if cond_true("Failed") {
                ("Failed".into(), false)
            } else if v.pointer("/spec/suspend") == Some(&Value::Bool(true)) {
                ("Suspended".into(), false)
            } else {
                let s = pods_settled();
                (if s { "Running" } else { "Pending" }.into(), s)
            }
        }
        // A status that counts everyone ready is stale while a live member is not: a worker
        // recreated since the controller last wrote its status is Pending all the same.
        ("leaderworkerset.x-k8s.io", "LeaderWorkerSet")
        | ("apps", "Deployment" | "StatefulSet" | "ReplicaSet") => {
            let (status, settled) = ready_of("/spec/replicas", "/status/readyReplicas");
            let members_settled = pods
                .iter()
                .filter_map(|&p| ix.pod(p))
                .all(|i| i.settled || i.terminal());
            (status, settled && members_settled)
        }
        // A DaemonSet that should run nowhere is not settled: the device stack's DaemonSets
        // are what this tool is asked about, and "desired 0" is their failure.
        ("apps", "DaemonSet") => {
            let (status, settled) =
                ready_of("/status/desiredNumberScheduled", "/status/numberReady");
            let desired = v
                .pointer("/status/desiredNumberScheduled")
                .and_then(Value::as_u64);
            (status, settled && desired != Some(0))
        }
        ("kueue.x-k8s.io", "Workload") => {
            if cond_true("Finished") {
                ("Finished".into(), true)
            } else if cond_true("Admitted") {
                let s = cond_true("PodsReady") || pods_settled();
                ("Admitted".into(), s)
            } else {
                ("Pending".into(), false)
            }
        }
        ("nvidia.com", "DynamoGraphDeployment") => {
            let ready = cond_true("Ready");
            (
                str_at(v, "/status/state").map_or_else(
                    || {
                        if ready {
                            "Ready".into()
                        } else {
                            "NotReady".into()
                        }
                    },
                    str::to_string,
                ),
                ready,
            )
        }
        _ => {
            if pods.is_empty() {
                ("Present".into(), true)
            } else {
                let s = pods_settled();
                (
                    if s {
                        "Running".into()
                    } else {
                        "Pending".into()
                    },
                    s,
                )
            }
        }
    }
}
