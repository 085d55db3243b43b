//! Linking: from one target to the objects of every layer that explain it — its pods and
//! owners, the Workload and queues, the group, the node, claims and classes, the serving
//! objects, and the events about all of them. Each becomes a subject of the view, with the
//! object ids it came from; nothing here computes a fact.

use super::{SubjectRef, object_ref};
use crate::bundle::Uid;
use crate::bundle::group_of;
use crate::diagnosis::{Missing, PodSummary};
use crate::facts::{self, Parsed};
use crate::index::{Index, ObjId};
use crate::json::At as _;
use crate::json::{label, request_device_classes, str_at};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

pub(super) struct Builder<'a> {
    pub(super) ix: &'a Index,
    pub(super) map: Map<String, Value>,
    pub(super) refs: BTreeMap<String, SubjectRef>,
    /// The objects parsed so far, aside or as subjects of `map`.
    pub(super) parsed: Parsed,
    /// The objects of each subject, as linked: facts and the signals read them by id.
    pub(super) ids: BTreeMap<String, Vec<ObjId>>,
    pub(super) missing: Vec<Missing>,
    pub(super) event_sources: Vec<ObjId>,
    /// The subjects' objects on loan ([`LENT_SUBJECTS`]).
    pub(super) loans: crate::lend::Loans,
}

static NULL: Value = Value::Null;

/// Subjects whose objects many views hold alike: a backlog's thousands of Workloads wait in a
/// few queues, and their pods' closest nodes are the same few. Each such object is parsed once
/// per index and lent to every view that holds it ([`crate::lend`]), where parsing it into
/// each view was a third of the JSON a backlog's scan read.
const LENT_SUBJECTS: &[&str] = &[
    "clusterQueue",
    "localQueue",
    "resourceFlavors",
    "kaiQueue",
    "runtimeClass",
    "deviceClasses",
    "node",
    "nodes",
];

impl Builder<'_> {
    /// An object's JSON, parsed once per view.
    pub(super) fn value(&mut self, id: ObjId) -> &Value {
        if self.parsed.get(&self.map, id).is_none() {
            let v = self.ix.value(id);
            self.parsed.aside.insert(id, v);
        }
        self.parsed.get(&self.map, id).unwrap_or(&NULL)
    }

    /// An object's JSON to become a subject: moved out when parsed aside, copied when it is
    /// already another subject (a pod is both `target` and `pod`).
    fn take(&mut self, id: ObjId) -> Value {
        match self.parsed.aside.remove(&id) {
            Some(v) => v,
            None => self.parsed.value(&self.map, self.ix, id).into_owned(),
        }
    }

    /// [`Builder::take`] for `subject`, whose object is to sit at `at` (a JSON pointer): lent
    /// when the subject is one of [`LENT_SUBJECTS`] and linking has not parsed it already.
    fn take_into(&mut self, subject: &str, id: ObjId, at: impl FnOnce() -> String) -> Value {
        if !LENT_SUBJECTS.contains(&subject) || self.parsed.aside.contains_key(&id) {
            return self.take(id);
        }
        let ix = self.ix;
        let shared = ix.once_for("lent subject object", id, crate::lend::Shared::remade);
        self.loans.lent_or(at(), &shared, || ix.value(id))
    }

    fn set_one(&mut self, subject: &str, id: ObjId) {
        if self.refs.contains_key(subject) {
            return;
        }
        let v = self.take_into(subject, id, || format!("/{subject}"));
        self.map.insert(subject.into(), v);
        self.parsed
            .placed
            .entry(id)
            .or_insert((subject.into(), None));
        self.refs
            .insert(subject.into(), SubjectRef::One(object_ref(self.ix, id)));
        self.ids.insert(subject.into(), vec![id]);
    }

    fn set_many(&mut self, subject: &str, ids: &[ObjId]) {
        if ids.is_empty() || self.refs.contains_key(subject) {
            return;
        }
        let vals: Vec<Value> = ids
            .iter()
            .enumerate()
            .map(|(i, &id)| self.take_into(subject, id, || format!("/{subject}/{i}")))
            .collect();
        self.map.insert(subject.into(), Value::Array(vals));
        for (i, &id) in ids.iter().enumerate() {
            self.parsed
                .placed
                .entry(id)
                .or_insert((subject.into(), Some(i)));
        }
        self.refs.insert(
            subject.into(),
            SubjectRef::Many(ids.iter().map(|&id| object_ref(self.ix, id)).collect()),
        );
        self.ids.insert(subject.into(), ids.to_vec());
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
        let (kind, api_version) = (o.kind().clone(), o.api_version().clone());
        let (namespace, name) = (o.namespace_name().cloned(), o.name.clone());
        self.miss(&kind, Some(&api_version), namespace.as_deref(), &name, why);
    }
}

/// A label or annotation value (annotation first: Kueue moved some labels to annotations).
fn meta_value<'v>(v: &'v Value, key: &str) -> Option<&'v str> {
    v.at("/metadata/annotations")
        .and_then(|a| a.get(key))
        .and_then(Value::as_str)
        .or_else(|| {
            v.at("/metadata/labels")
                .and_then(|l| l.get(key))
                .and_then(Value::as_str)
        })
        .filter(|s| !s.is_empty())
}

/// What linking found: the view so far, the pod that best explains the work, the work's pods
/// and owner chain.
pub(super) struct Linked<'a> {
    pub b: Builder<'a>,
    pub pod: Option<ObjId>,
    pub pods: Vec<ObjId>,
    pub chain: Vec<ObjId>,
    pub pod_value: Option<Value>,
    pub pod_summaries: Vec<PodSummary>,
    pub queues: facts::admission::QueueNames,
}

/// Link every subject of the target's view but `nodes` (which cites what the facts found).
pub(super) fn link(ix: &Index, target: ObjId) -> Linked<'_> {
    let mut b = Builder {
        ix,
        map: Map::new(),
        refs: BTreeMap::new(),
        parsed: Parsed::default(),
        ids: BTreeMap::new(),
        missing: Vec::new(),
        event_sources: Vec::new(),
        loans: Default::default(),
    };
    let t = ix.object(target);
    let target_is_pod = t.kind() == "Pod";
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
    } else if ix.not_submitted(target) {
        hardest_pod(ix, &pods)
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
            t.namespace(),
            &o.name,
            "owner not in the bundle",
        );
    }

    let pod_value = pod.map(|p| b.value(p).clone());
    if let Some(p) = pod {
        b.set_one("pod", p);
        if p != target {
            b.event_sources.push(p);
        }
    }
    let ns = t.namespace_name().cloned();

    // Owner subjects by kind, nearest to the pod first.
    let mut ordered: Vec<ObjId> = Vec::new();
    if let Some(p) = pod {
        ordered.extend(ix.owner_chain(p));
    }
    ordered.extend(chain_all.iter().copied());
    for id in ordered {
        let o = ix.object(id);
        if let Some(subject) = crate::kinds::owner_subject(o.group(), o.kind()) {
            b.set_one(subject, id);
        }
    }

    // Group: LeaderWorkerSet, JobSet, gang PodGroup (`$.facts.group` reads the same labels).
    if let Some(pv) = &pod_value {
        let pns = str_at(pv, "/metadata/namespace");
        if let Some(m) = facts::group::LwsMembership::of(pv) {
            if let Some(id) = ix.get("leaderworkerset.x-k8s.io", "LeaderWorkerSet", pns, m.lws) {
                b.set_one("lws", id);
            }
            if let Some(id) = ix.find("Pod", pns, &m.leader) {
                b.set_one("leaderPod", id);
            }
            if let Some(id) = ix.get("apps", "StatefulSet", pns, &m.leader) {
                b.set_one("workerStatefulSet", id);
            }
        } else if let Some(js) = label(pv, "jobset.sigs.k8s.io/jobset-name")
            && let Some(id) = ix.get("jobset.x-k8s.io", "JobSet", pns, js)
        {
            b.set_one("jobSet", id);
        }
        if let Some((name, api_group)) = crate::index::pod_group_of(pv) {
            match ix.get(api_group, "PodGroup", pns, name) {
                Some(id) => {
                    b.set_one("podGroup", id);
                    b.event_sources.push(id);
                    let pg = b.value(id).clone();
                    let queue = str_at(&pg, "/spec/queue")
                        .map(str::to_string)
                        .or_else(|| label(pv, "kai.scheduler/queue").map(str::to_string));
                    if let (Some(q), "scheduling.run.ai") = (queue, api_group) {
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
        }
    }

    // Admission: the Kueue Workload, its queues and flavors.
    if !b.refs.contains_key("workload") {
        let by_pod = pod_value.as_ref().and_then(|pv| {
            // Kueue's topology-aware scheduling annotates each pod it ungates with its
            // Workload's name (`kueue.x-k8s.io/workload`).
            [
                "kueue.x-k8s.io/prebuilt-workload-name",
                "kueue.x-k8s.io/pod-group-name",
                "kueue.x-k8s.io/workload",
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
                        ix.object(c).kind() == "Workload"
                            && ix.object(c).group() == "kueue.x-k8s.io"
                    })
                    .or_else(|| {
                        ix.object(id)
                            .uid
                            .as_ref()
                            .and_then(|u| ix.workloads_of_job(u).first().copied())
                    })
            })
        };
        // A pasted pod and Workload without the Job between them (the common partial
        // bundle): both name the Job by uid, the pod in its ownerReferences and the Workload
        // in its own.
        let by_missing_owner = || {
            chain_all.iter().chain(pod.iter()).find_map(|&id| {
                ix.unresolved_owner_refs(id)
                    .filter(|r| !r.uid.is_empty())
                    .find_map(|r| ix.workloads_of_job(&Uid::new(&r.uid)).first().copied())
            })
        };
        if let Some(id) = by_pod.or_else(by_owner).or_else(by_missing_owner) {
            b.set_one("workload", id);
        }
    }
    let workload_id = b.ids.get("workload").and_then(|w| w.first().copied());
    if let Some(w) = workload_id {
        b.event_sources.push(w);
    }
    let wl = workload_id.map(|w| b.value(w).clone());
    let label_on = chain_all
        .iter()
        .chain(pod.iter())
        .copied()
        .find(|&id| label(b.value(id), "kueue.x-k8s.io/queue-name").is_some());
    let queue_name = wl
        .as_ref()
        .and_then(|w| str_at(w, "/spec/queueName").map(str::to_string))
        .or_else(|| label(b.value(label_on?), "kueue.x-k8s.io/queue-name").map(str::to_string));
    let mut cq_name = wl
        .as_ref()
        .and_then(|w| str_at(w, "/status/admission/clusterQueue").map(str::to_string));
    if let Some(q) = &queue_name {
        match ix.get("kueue.x-k8s.io", "LocalQueue", ns.as_deref(), q) {
            Some(id) => {
                b.set_one("localQueue", id);
                if cq_name.is_none() {
                    cq_name = str_at(b.value(id), "/spec/clusterQueue").map(str::to_string);
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
    if cq_name.is_none() {
        cq_name = wl
            .as_ref()
            .and_then(facts::admission::cluster_queue_in_message)
            .map(str::to_string);
    }
    let queues = facts::admission::QueueNames {
        local: queue_name,
        label_on,
        cluster: cq_name.clone(),
    };
    if let Some(cq) = &cq_name {
        match ix.get("kueue.x-k8s.io", "ClusterQueue", None, cq) {
            Some(id) => {
                b.set_one("clusterQueue", id);
                let mut names: Vec<String> = Vec::new();
                for rg in b
                    .value(id)
                    .at("/spec/resourceGroups")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    for f in rg["flavors"].as_array().into_iter().flatten() {
                        names.extend(f["name"].as_str().map(str::to_string));
                    }
                }
                let mut flavors: Vec<ObjId> = Vec::new();
                for name in &names {
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
    if let Some(id) = fake.1 {
        b.set_one("fakeGpuTopology", id);
        b.set_many("nodeTopologies", &fake.2);
    }

    // Events about every linked object, normalized to one shape, oldest first.
    let mut evs: Vec<ObjId> = Vec::new();
    for &src in &b.event_sources.clone() {
        for (e, _) in b.parsed.read_events(ix, src).iter().rev().take(50) {
            if !evs.contains(e) {
                evs.push(*e);
            }
        }
    }
    evs.sort_by_key(|e| (ix.event_time(*e), *e));
    // Each event as read for its source above.
    let read = b.parsed.events.iter().flat_map(|(_, about)| about);
    let ev_values: Vec<Value> = evs
        .iter()
        .filter_map(|e| read.clone().find(|(x, _)| x == e))
        .map(|(_, info)| info.to_view())
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
                    namespace: o.namespace().unwrap_or_default().to_string(),
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
    Linked {
        b,
        pod,
        pods,
        chain,
        pod_value,
        pod_summaries,
        queues,
    }
}

/// Of pods no scheduler has seen (a `fit`), the one that would get least far: its template
/// stops at the earliest filter (`$.facts.placement.nodeFit`), then asks for the most devices.
/// Each distinct pod spec is judged once.
fn hardest_pod(ix: &Index, pods: &[ObjId]) -> Option<ObjId> {
    let mut seen: Vec<String> = Vec::new();
    let mut best: Option<((u8, std::cmp::Reverse<u64>), ObjId)> = None;
    for &p in pods {
        let spec = ix
            .value(p)
            .get("spec")
            .map(Value::to_string)
            .unwrap_or_default();
        if seen.contains(&spec) {
            continue;
        }
        seen.push(spec);
        let fit = facts::placement::nodefit::node_fit(ix, p);
        let devices: f64 = ix
            .pod(p)
            .map(|i| {
                i.requests
                    .iter()
                    .filter(|(r, _)| r.contains('/'))
                    .map(|(_, q)| q)
                    .sum()
            })
            .unwrap_or(0.0);
        // Milli-units: requests are whole or fractional device counts.
        let key = (
            facts::placement::nodefit::stop_rank(fit.stop.as_deref()),
            std::cmp::Reverse((devices * 1000.0) as u64),
        );
        if best.as_ref().is_none_or(|(k, _)| key < *k) {
            best = Some((key, p));
        }
    }
    best.map(|(_, p)| p)
}

/// The nodes worth citing: the bound node, the closest candidates for each requested device,
/// and fake-gpu-operator's pool nodes; sorted by name, at most 16.
pub(super) fn cite_nodes(b: &mut Builder, pod_value: Option<&Value>) {
    let ix = b.ix;
    let mut node_names: Vec<String> = Vec::new();
    if let Some(pv) = pod_value {
        node_names.extend(str_at(pv, "/spec/nodeName").map(str::to_string));
    }
    let facts = &b.map["facts"];
    for r in facts["resources"].as_array().into_iter().flatten() {
        for c in r["closest"].as_array().into_iter().flatten() {
            node_names.extend(c["node"].as_str().map(str::to_string));
        }
    }
    for n in facts["fakeGpu"]["nodes"].as_array().into_iter().flatten() {
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
pub(super) fn linked_objects(
    ix: &Index,
    target: ObjId,
    pod: Option<ObjId>,
    chain: &[ObjId],
    ids: &BTreeMap<String, Vec<ObjId>>,
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
    for (subject, objects) in ids {
        if CONTEXT_SUBJECTS.contains(&subject.as_str()) {
            continue;
        }
        for &id in objects {
            add(id, &mut out);
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

fn link_dra(b: &mut Builder, pv: &Value) {
    let ix = b.ix;
    let ns = str_at(pv, "/metadata/namespace");
    let mut claims = Vec::new();
    for rc in pv
        .at("/spec/resourceClaims")
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
        let v = b.value(c).clone();
        for req in v
            .at("/spec/devices/requests")
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
        if ix.object(id).namespace() != ns
            || !group_of(ix.object(id).api_version()).starts_with("inference.networking")
        {
            continue;
        }
        let v = b.value(id).clone();
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
pub(super) fn work_pods(ix: &Index, target: ObjId) -> Vec<ObjId> {
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
    if pods.is_empty() && t.kind() == "ClusterPolicy" && t.group() == "nvidia.com" {
        return ix
            .of_kind("Pod")
            .iter()
            .copied()
            .filter(|&p| crate::attribution::is_device_stack("Pod", &ix.object(p).name))
            .take(256)
            .collect();
    }
    let workload = t.kind() == "Workload" && t.group() == "kueue.x-k8s.io";
    if !(pods.is_empty() && workload) {
        return pods;
    }
    let by_owner = ix
        .owner_chain(target)
        .into_iter()
        .map(own)
        .find(|p| !p.is_empty());
    // The job the Workload admits may be missing from the bundle (a TrainJob's Workload pasted
    // beside its pods): its ownerReference still names it, and its pods carry its label.
    by_owner
        .or_else(|| {
            ix.unresolved_owner_refs(target)
                .filter_map(|r| labelled_pods(ix, t.namespace(), &r.kind, &r.name))
                .find(|p| !p.is_empty())
        })
        .unwrap_or_default()
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
    // Kubeflow Trainer v2 runs a TrainJob as a JobSet of the same name.
    ("TrainJob", &["jobset.sigs.k8s.io/jobset-name"]),
    // KServe's predictor pods (raw Deployments or Knative revisions), and KFServing's before it.
    (
        "InferenceService",
        &[
            "serving.kserve.io/inferenceservice",
            "serving.kubeflow.org/inferenceservice",
        ],
    ),
];

/// Pods that belong to a piece of work without an ownerReference reaching them: by the label
/// its controller writes on its pods ([`OWNER_LABELS`]), else by its label selector
/// (`spec.selector.matchLabels`; an InferencePool's v1alpha2 selector is a plain map).
fn pods_by_selector(ix: &Index, target: ObjId) -> Vec<ObjId> {
    let t = ix.object(target);
    if t.kind() == "Pod" {
        return Vec::new();
    }
    // A gang's members name their PodGroup (KAI, Volcano, scheduler-plugins).
    if t.kind() == "PodGroup" {
        let ns = t.namespace().unwrap_or("");
        return ix
            .pods_in_group(ns, &t.name)
            .iter()
            .copied()
            .take(256)
            .collect();
    }
    if let Some(pods) = labelled_pods(ix, t.namespace(), t.kind(), &t.name) {
        return pods;
    }
    let v = ix.value(target);
    let Some(sel) = crate::json::match_labels(&v, t.kind() == "InferencePool") else {
        return Vec::new();
    };
    let mut out = ix.pods_by_label().selected(t.namespace(), sel);
    out.sort_by(|a, b| ix.object(*a).name.cmp(&ix.object(*b).name));
    out.truncate(256);
    out
}

/// The pods carrying the label a `kind`'s controller writes with `name` ([`OWNER_LABELS`]), by
/// name, at most 256; None for a kind without such a label.
fn labelled_pods(ix: &Index, ns: Option<&str>, kind: &str, name: &str) -> Option<Vec<ObjId>> {
    let (_, keys) = OWNER_LABELS.iter().find(|(k, _)| *k == kind)?;
    let by_label = ix.pods_by_label();
    let name = Value::from(name);
    let mut pods: Vec<ObjId> = keys
        .iter()
        .flat_map(|k| by_label.with(ns, k, &name))
        .copied()
        .collect();
    pods.sort_unstable();
    pods.dedup();
    pods.sort_by(|a, b| ix.object(*a).name.cmp(&ix.object(*b).name));
    pods.truncate(256);
    Some(pods)
}
