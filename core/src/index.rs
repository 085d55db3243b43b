//! The index: every join a view needs, built once per bundle so that no view scans all objects.
//!
//! Objects by identity, by uid and by kind; owner → children; events by the object they are
//! about (uid, or kind/namespace/name for events without one); pods by node and by gang group;
//! Kueue Workloads by job uid; and per-node resource totals (allocatable, and requested by the
//! pods bound there) for the "free GPUs per node" fact. Reads are typed partial deserializations
//! of the raw JSON, so the index does not hold a tree of every object.

use crate::bundle::{Bundle, RawObject, group_of};
use crate::quantity;
use crate::time::parse_rfc3339;
use serde::Deserialize;
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};

/// Index of an object in the bundle.
pub type ObjId = usize;

/// An owner reference as written in `metadata.ownerReferences`.
#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct OwnerRef {
    #[serde(default)]
    pub api_version: String,
    #[serde(default)]
    pub kind: String,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub uid: String,
    #[serde(default)]
    pub controller: Option<bool>,
}

/// An event in either shape (`v1` and `events.k8s.io/v1`), normalized.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EventInfo {
    pub reason: String,
    pub message: String,
    pub type_: String,
    pub component: String,
    pub count: u64,
    /// Epoch seconds of the newest occurrence.
    pub last: Option<i64>,
    pub involved_kind: String,
    pub involved_namespace: Option<String>,
    pub involved_name: String,
    pub involved_uid: Option<String>,
}

/// What the index keeps of a node.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NodeInfo {
    pub id: ObjId,
    pub name: String,
    pub labels: BTreeMap<String, String>,
    pub taints: Vec<Taint>,
    pub unschedulable: bool,
    pub ready: Option<bool>,
    pub capacity: BTreeMap<String, f64>,
    pub allocatable: BTreeMap<String, f64>,
}

#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq, serde::Serialize)]
pub struct Taint {
    #[serde(default)]
    pub key: String,
    #[serde(default)]
    pub value: Option<String>,
    #[serde(default)]
    pub effect: String,
}

/// What the index keeps of a pod (enough for node totals and scan).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PodInfo {
    pub node: Option<String>,
    pub phase: String,
    pub ready: bool,
    /// Effective requests: max(sum of containers, largest init container) plus overhead.
    pub requests: BTreeMap<String, f64>,
    /// kubectl-style status (`Pending`, `Running`, `CrashLoopBackOff`, `SchedulingGated` …).
    pub status: String,
    /// Running and Ready, or Succeeded.
    pub settled: bool,
}

impl PodInfo {
    pub fn terminal(&self) -> bool {
        matches!(self.phase.as_str(), "Succeeded" | "Failed")
    }
}

type Key = (String, String, Option<String>, String);

/// All lookups over one bundle.
#[derive(Debug, Default)]
pub struct Index {
    bundle: Bundle,
    by_key: HashMap<Key, ObjId>,
    by_uid: HashMap<String, ObjId>,
    by_kind: HashMap<String, Vec<ObjId>>,
    by_kind_name: HashMap<(String, String), Vec<ObjId>>,
    owners: Vec<Vec<OwnerRef>>,
    created: Vec<Option<i64>>,
    children: HashMap<ObjId, Vec<ObjId>>,
    events: HashMap<ObjId, EventInfo>,
    events_by_uid: HashMap<String, Vec<ObjId>>,
    events_by_ref: HashMap<(String, Option<String>, String), Vec<ObjId>>,
    nodes: BTreeMap<String, NodeInfo>,
    pods: HashMap<ObjId, PodInfo>,
    requested_by_node: HashMap<String, BTreeMap<String, f64>>,
    pods_by_group: HashMap<(String, String), Vec<ObjId>>,
    /// Pods by the value of their `app` / `app.kubernetes.io/name` label, so area facts can find
    /// infrastructure pods (device plugins, operator operands) without parsing every pod.
    pods_by_app: HashMap<String, Vec<ObjId>>,
    workloads_by_job_uid: HashMap<String, Vec<ObjId>>,
    newest: Option<i64>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct MetaIdx<'a> {
    owner_references: Vec<OwnerRef>,
    #[serde(borrow)]
    creation_timestamp: Option<Cow<'a, str>>,
    #[serde(borrow)]
    labels: Option<HashMap<Cow<'a, str>, Cow<'a, str>>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Generic<'a> {
    #[serde(borrow)]
    metadata: MetaIdx<'a>,
}

/// A pod read partially: what the index keeps and what kubectl's STATUS column needs. Also read
/// from a `&Value` by views, so the status logic exists once.
#[derive(Deserialize, Default)]
#[serde(default)]
pub(crate) struct PodIdx<'a> {
    #[serde(borrow)]
    metadata: PodMeta<'a>,
    spec: PodSpecIdx,
    status: PodStatusIdx,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct PodMeta<'a> {
    owner_references: Vec<OwnerRef>,
    deletion_timestamp: Option<serde::de::IgnoredAny>,
    #[serde(borrow)]
    creation_timestamp: Option<Cow<'a, str>>,
    #[serde(borrow)]
    labels: HashMap<Cow<'a, str>, Cow<'a, str>>,
    #[serde(borrow)]
    annotations: HashMap<Cow<'a, str>, Cow<'a, str>>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct PodSpecIdx {
    node_name: Option<String>,
    scheduling_gates: Vec<serde::de::IgnoredAny>,
    containers: Vec<ContainerIdx>,
    init_containers: Vec<ContainerIdx>,
    overhead: HashMap<String, serde_json::Value>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ContainerIdx {
    resources: ResourcesIdx,
    #[serde(rename = "restartPolicy")]
    restart_policy: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ResourcesIdx {
    requests: HashMap<String, serde_json::Value>,
    limits: HashMap<String, serde_json::Value>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct PodStatusIdx {
    phase: String,
    reason: Option<String>,
    conditions: Vec<ConditionIdx>,
    init_container_statuses: Vec<ContainerStatusIdx>,
    container_statuses: Vec<ContainerStatusIdx>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ContainerStatusIdx {
    state: ContainerStateIdx,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ContainerStateIdx {
    waiting: Option<ReasonIdx>,
    terminated: Option<ReasonIdx>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ReasonIdx {
    reason: Option<String>,
}

impl PodIdx<'_> {
    /// Status as kubectl's STATUS column would show it, and whether the pod is settled
    /// (Running and Ready, or Succeeded).
    pub(crate) fn status(&self) -> (String, bool) {
        let st = &self.status;
        let phase = if st.phase.is_empty() {
            "Unknown"
        } else {
            st.phase.as_str()
        };
        if self.metadata.deletion_timestamp.is_some() {
            return ("Terminating".into(), false);
        }
        if phase == "Pending" && !self.spec.scheduling_gates.is_empty() {
            return ("SchedulingGated".into(), false);
        }
        if let (Some(reason), "Failed") = (&st.reason, phase) {
            return (reason.clone(), false);
        }
        let waiting =
            |c: &ContainerStatusIdx| c.state.waiting.as_ref().and_then(|w| w.reason.clone());
        for c in st
            .init_container_statuses
            .iter()
            .chain(&st.container_statuses)
        {
            if let Some(r) = waiting(c).filter(|r| r != "ContainerCreating" || phase == "Pending") {
                return (r, false);
            }
        }
        for c in &st.container_statuses {
            if let Some(r) = c.state.terminated.as_ref().and_then(|t| t.reason.clone())
                && phase != "Succeeded"
                && r != "Completed"
            {
                return (r, false);
            }
        }
        let ready = st
            .conditions
            .iter()
            .any(|c| c.type_ == "Ready" && c.status == "True");
        match phase {
            "Succeeded" => ("Completed".into(), true),
            "Running" if ready => ("Running".into(), true),
            "Running" => ("Running (not ready)".into(), false),
            other => (other.to_string(), false),
        }
    }
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ConditionIdx {
    #[serde(rename = "type")]
    type_: String,
    status: String,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct NodeIdx {
    metadata: NodeMeta,
    spec: NodeSpecIdx,
    status: NodeStatusIdx,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct NodeMeta {
    labels: BTreeMap<String, String>,
    creation_timestamp: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct NodeSpecIdx {
    taints: Vec<Taint>,
    unschedulable: bool,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct NodeStatusIdx {
    capacity: HashMap<String, serde_json::Value>,
    allocatable: HashMap<String, serde_json::Value>,
    conditions: Vec<ConditionIdx>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct EventIdx {
    involved_object: Option<InvolvedIdx>,
    regarding: Option<InvolvedIdx>,
    reason: String,
    message: Option<String>,
    note: Option<String>,
    #[serde(rename = "type")]
    type_: String,
    source: Option<SourceIdx>,
    reporting_controller: Option<String>,
    reporting_component: Option<String>,
    count: Option<u64>,
    deprecated_count: Option<u64>,
    series: Option<SeriesIdx>,
    last_timestamp: Option<String>,
    first_timestamp: Option<String>,
    event_time: Option<String>,
    deprecated_last_timestamp: Option<String>,
    metadata: NodeMeta,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct InvolvedIdx {
    kind: String,
    namespace: Option<String>,
    name: String,
    uid: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct SourceIdx {
    component: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct SeriesIdx {
    count: Option<u64>,
    last_observed_time: Option<String>,
}

/// Annotations and labels that name a pod's gang group, with the API group of the PodGroup kind
/// they point at: KAI (`pod-group-name`), Volcano, scheduler-plugins coscheduling.
pub const POD_GROUP_KEYS: &[(&str, &str, bool)] = &[
    ("pod-group-name", "scheduling.run.ai", true),
    (
        "scheduling.k8s.io/group-name",
        "scheduling.volcano.sh",
        true,
    ),
    (
        "scheduling.x-k8s.io/pod-group",
        "scheduling.x-k8s.io",
        false,
    ),
    (
        "pod-group.scheduling.sigs.k8s.io",
        "scheduling.sigs.k8s.io",
        false,
    ),
];

impl Index {
    pub fn new(bundle: Bundle) -> Index {
        let n = bundle.objects().len();
        let mut ix = Index {
            owners: Vec::with_capacity(n),
            created: Vec::with_capacity(n),
            ..Index::default()
        };
        let mut newest: Option<i64> = None;
        let mut bump = |t: Option<i64>| {
            if let Some(t) = t {
                newest = Some(newest.map_or(t, |n| n.max(t)));
            }
        };
        for (id, o) in bundle.objects().iter().enumerate() {
            ix.by_key.insert(key_of(o), id);
            if let Some(uid) = &o.uid {
                ix.by_uid.insert(uid.clone(), id);
            }
            ix.by_kind.entry(o.kind.clone()).or_default().push(id);
            ix.by_kind_name
                .entry((o.kind.clone(), o.name.clone()))
                .or_default()
                .push(id);
            let (owners, created) = match o.kind.as_str() {
                "Pod" => {
                    let p: PodIdx = bundle.typed(o).unwrap_or_default();
                    let info = pod_info(&p);
                    if let (Some(node), false) = (&info.node, info.terminal()) {
                        let totals = ix.requested_by_node.entry(node.clone()).or_default();
                        for (r, q) in &info.requests {
                            *totals.entry(r.clone()).or_default() += q;
                        }
                    }
                    let ns = o.namespace.clone().unwrap_or_default();
                    for (key, _group, is_annotation) in POD_GROUP_KEYS {
                        let src = if *is_annotation {
                            &p.metadata.annotations
                        } else {
                            &p.metadata.labels
                        };
                        if let Some(g) = src.get(*key) {
                            ix.pods_by_group
                                .entry((ns.clone(), g.to_string()))
                                .or_default()
                                .push(id);
                        }
                    }
                    for key in ["app", "app.kubernetes.io/name"] {
                        if let Some(v) = p.metadata.labels.get(key) {
                            ix.pods_by_app.entry(v.to_string()).or_default().push(id);
                        }
                    }
                    ix.pods.insert(id, info);
                    (
                        p.metadata.owner_references,
                        p.metadata
                            .creation_timestamp
                            .and_then(|t| parse_rfc3339(&t)),
                    )
                }
                "Node" => {
                    let nd: NodeIdx = bundle.typed(o).unwrap_or_default();
                    let created = nd
                        .metadata
                        .creation_timestamp
                        .as_deref()
                        .and_then(parse_rfc3339);
                    ix.nodes.insert(o.name.clone(), node_info(id, &o.name, nd));
                    (Vec::new(), created)
                }
                "Event" => {
                    let e: EventIdx = bundle.typed(o).unwrap_or_default();
                    let info = event_info(e);
                    if let Some(uid) = &info.involved_uid {
                        ix.events_by_uid.entry(uid.clone()).or_default().push(id);
                    }
                    ix.events_by_ref
                        .entry((
                            info.involved_kind.clone(),
                            info.involved_namespace.clone(),
                            info.involved_name.clone(),
                        ))
                        .or_default()
                        .push(id);
                    let last = info.last;
                    ix.events.insert(id, info);
                    (Vec::new(), last)
                }
                _ => {
                    let g: Generic = bundle.typed(o).unwrap_or_default();
                    if o.kind == "Workload"
                        && o.group() == "kueue.x-k8s.io"
                        && let Some(uid) = g
                            .metadata
                            .labels
                            .as_ref()
                            .and_then(|l| l.get("kueue.x-k8s.io/job-uid"))
                    {
                        ix.workloads_by_job_uid
                            .entry(uid.to_string())
                            .or_default()
                            .push(id);
                    }
                    (
                        g.metadata.owner_references,
                        g.metadata
                            .creation_timestamp
                            .and_then(|t| parse_rfc3339(&t)),
                    )
                }
            };
            bump(created);
            ix.owners.push(owners);
            ix.created.push(created);
        }
        ix.newest = newest;
        ix.bundle = bundle;
        // Second pass, once every uid and key is known: owner → children by object id, so
        // owners named without a uid (hand-written bundles) link too.
        for id in 0..n {
            for owner in ix.owners(id) {
                ix.children.entry(owner).or_default().push(id);
            }
        }
        // Order inside each list matters (outputs are sorted); the map's own order does not.
        #[allow(clippy::iter_over_hash_type)]
        for v in ix.children.values_mut() {
            v.sort_unstable();
            v.dedup();
        }
        ix
    }

    pub fn bundle(&self) -> &Bundle {
        &self.bundle
    }

    pub fn len(&self) -> usize {
        self.bundle.objects().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn object(&self, id: ObjId) -> &RawObject {
        &self.bundle.objects()[id]
    }

    /// Parse one object.
    pub fn value(&self, id: ObjId) -> serde_json::Value {
        self.bundle.value(self.object(id))
    }

    /// Deserialize one object into a typed partial view.
    pub fn typed<'a, T: Deserialize<'a>>(&'a self, id: ObjId) -> Option<T> {
        self.bundle.typed(self.object(id))
    }

    /// Look an object up by identity.
    pub fn get(
        &self,
        group: &str,
        kind: &str,
        namespace: Option<&str>,
        name: &str,
    ) -> Option<ObjId> {
        self.by_key
            .get(&(
                group.to_string(),
                kind.to_string(),
                namespace.map(str::to_string),
                name.to_string(),
            ))
            .copied()
    }

    /// Look an object up by kind (any API group), namespace and name.
    pub fn find(&self, kind: &str, namespace: Option<&str>, name: &str) -> Option<ObjId> {
        self.named(kind, name)
            .into_iter()
            .find(|&id| self.object(id).namespace.as_deref() == namespace)
    }

    /// Every object of a kind with a name, in any namespace (sorted by position).
    pub fn named(&self, kind: &str, name: &str) -> Vec<ObjId> {
        self.by_kind_name
            .get(&(kind.to_string(), name.to_string()))
            .cloned()
            .unwrap_or_default()
    }

    pub fn by_uid(&self, uid: &str) -> Option<ObjId> {
        self.by_uid.get(uid).copied()
    }

    /// Every object of a kind, in bundle order.
    pub fn of_kind(&self, kind: &str) -> &[ObjId] {
        self.by_kind.get(kind).map_or(&[], Vec::as_slice)
    }

    /// Every kind present, sorted.
    pub fn kinds(&self) -> Vec<&str> {
        let mut k: Vec<&str> = self.by_kind.keys().map(String::as_str).collect();
        k.sort_unstable();
        k
    }

    pub fn owner_refs(&self, id: ObjId) -> &[OwnerRef] {
        &self.owners[id]
    }

    pub fn created(&self, id: ObjId) -> Option<i64> {
        self.created[id]
    }

    /// The objects an object's ownerReferences point at, controller first.
    pub fn owners(&self, id: ObjId) -> Vec<ObjId> {
        let o = self.object(id);
        let mut refs: Vec<&OwnerRef> = self.owners[id].iter().collect();
        refs.sort_by_key(|r| !r.controller.unwrap_or(false));
        refs.into_iter()
            .filter_map(|r| {
                (!r.uid.is_empty())
                    .then(|| self.by_uid(&r.uid))
                    .flatten()
                    .or_else(|| {
                        self.get(
                            group_of(&r.api_version),
                            &r.kind,
                            o.namespace.as_deref(),
                            &r.name,
                        )
                    })
            })
            .collect()
    }

    /// The owner chain from an object to its top owner (controller owners first, no cycles).
    pub fn owner_chain(&self, id: ObjId) -> Vec<ObjId> {
        let mut chain = Vec::new();
        let mut cur = id;
        while let Some(&next) = self.owners(cur).first() {
            if next == id || chain.contains(&next) || chain.len() > 16 {
                break;
            }
            chain.push(next);
            cur = next;
        }
        chain
    }

    /// Objects whose ownerReferences name this object.
    pub fn children(&self, id: ObjId) -> &[ObjId] {
        self.children.get(&id).map_or(&[], Vec::as_slice)
    }

    /// Every pod below an object in the ownership tree (sorted by namespace and name).
    pub fn descendant_pods(&self, id: ObjId) -> Vec<ObjId> {
        let mut out = Vec::new();
        let mut stack = vec![id];
        let mut seen = std::collections::HashSet::new();
        while let Some(cur) = stack.pop() {
            if !seen.insert(cur) || seen.len() > 100_000 {
                continue;
            }
            for &c in self.children(cur) {
                if self.object(c).kind == "Pod" {
                    out.push(c);
                }
                stack.push(c);
            }
        }
        out.sort_by(|a, b| {
            let (a, b) = (self.object(*a), self.object(*b));
            (&a.namespace, &a.name).cmp(&(&b.namespace, &b.name))
        });
        out.dedup();
        out
    }

    /// Events about an object: by uid, and by kind/namespace/name for events that lack a uid or
    /// name an earlier incarnation. Sorted oldest first.
    pub fn events_for(&self, id: ObjId) -> Vec<ObjId> {
        let o = self.object(id);
        let mut ids: Vec<ObjId> = o
            .uid
            .as_ref()
            .and_then(|u| self.events_by_uid.get(u))
            .cloned()
            .unwrap_or_default();
        if let Some(more) =
            self.events_by_ref
                .get(&(o.kind.clone(), o.namespace.clone(), o.name.clone()))
        {
            for &e in more {
                let ev = &self.events[&e];
                // Same name but another uid is a previous object of that name: not this one.
                let other_uid = matches!((&ev.involved_uid, &o.uid), (Some(a), Some(b)) if a != b);
                if !other_uid {
                    ids.push(e);
                }
            }
        }
        ids.sort_unstable();
        ids.dedup();
        ids.sort_by_key(|e| (self.events[e].last, *e));
        ids
    }

    pub fn event(&self, id: ObjId) -> Option<&EventInfo> {
        self.events.get(&id)
    }

    pub fn nodes(&self) -> &BTreeMap<String, NodeInfo> {
        &self.nodes
    }

    pub fn pod(&self, id: ObjId) -> Option<&PodInfo> {
        self.pods.get(&id)
    }

    /// Sum of effective requests of non-terminal pods bound to a node.
    pub fn requested_on(&self, node: &str) -> Option<&BTreeMap<String, f64>> {
        self.requested_by_node.get(node)
    }

    /// Pods naming a gang group (`namespace`, group name).
    pub fn pods_in_group(&self, namespace: &str, group: &str) -> &[ObjId] {
        self.pods_by_group
            .get(&(namespace.to_string(), group.to_string()))
            .map_or(&[], Vec::as_slice)
    }

    /// Pods whose `app` or `app.kubernetes.io/name` label value satisfies `wanted`, in bundle
    /// order.
    pub fn pods_with_app(&self, wanted: impl Fn(&str) -> bool) -> Vec<ObjId> {
        // Sorted below, so the map's iteration order does not leak into results.
        #[allow(clippy::iter_over_hash_type)]
        let mut ids: Vec<ObjId> = self
            .pods_by_app
            .iter()
            .filter(|(k, _)| wanted(k))
            .flat_map(|(_, v)| v.iter().copied())
            .collect();
        ids.sort_unstable();
        ids.dedup();
        ids
    }

    pub fn workloads_for_job_uid(&self, uid: &str) -> &[ObjId] {
        self.workloads_by_job_uid
            .get(uid)
            .map_or(&[], Vec::as_slice)
    }

    /// Newest timestamp in the bundle (creation times and event times), epoch seconds.
    pub fn newest_timestamp(&self) -> Option<i64> {
        self.newest
    }
}

fn key_of(o: &RawObject) -> Key {
    (
        o.group().to_string(),
        o.kind.clone(),
        o.namespace.clone(),
        o.name.clone(),
    )
}

fn quantities(m: &HashMap<String, serde_json::Value>) -> BTreeMap<String, f64> {
    m.iter()
        .filter_map(|(k, v)| quantity::from_value(v).map(|q| (k.clone(), q)))
        .collect()
}

/// Requests of one container: requests, falling back to limits (the API server defaults
/// requests to limits for extended resources and when requests are unset).
fn container_requests(c: &ContainerIdx) -> BTreeMap<String, f64> {
    let mut r = quantities(&c.resources.limits);
    r.extend(quantities(&c.resources.requests));
    r
}

fn pod_info(p: &PodIdx) -> PodInfo {
    let mut sum: BTreeMap<String, f64> = BTreeMap::new();
    for c in &p.spec.containers {
        for (k, v) in container_requests(c) {
            *sum.entry(k).or_default() += v;
        }
    }
    // Sidecars (init containers with restartPolicy Always) run alongside the main containers.
    for c in p
        .spec
        .init_containers
        .iter()
        .filter(|c| c.restart_policy.as_deref() == Some("Always"))
    {
        for (k, v) in container_requests(c) {
            *sum.entry(k).or_default() += v;
        }
    }
    for c in p
        .spec
        .init_containers
        .iter()
        .filter(|c| c.restart_policy.as_deref() != Some("Always"))
    {
        for (k, v) in container_requests(c) {
            let e = sum.entry(k).or_default();
            *e = e.max(v);
        }
    }
    for (k, v) in quantities(&p.spec.overhead) {
        *sum.entry(k).or_default() += v;
    }
    let ready = p
        .status
        .conditions
        .iter()
        .any(|c| c.type_ == "Ready" && c.status == "True");
    let (status, settled) = p.status();
    PodInfo {
        status,
        settled,
        node: p.spec.node_name.clone().filter(|n| !n.is_empty()),
        phase: p.status.phase.clone(),
        ready,
        requests: sum,
    }
}

fn node_info(id: ObjId, name: &str, n: NodeIdx) -> NodeInfo {
    NodeInfo {
        id,
        name: name.to_string(),
        labels: n.metadata.labels,
        taints: n.spec.taints,
        unschedulable: n.spec.unschedulable,
        ready: n
            .status
            .conditions
            .iter()
            .find(|c| c.type_ == "Ready")
            .map(|c| c.status == "True"),
        capacity: quantities(&n.status.capacity),
        allocatable: quantities(&n.status.allocatable),
    }
}

fn event_info(e: EventIdx) -> EventInfo {
    let involved = e.involved_object.or(e.regarding).unwrap_or_default();
    let last = [
        e.series.as_ref().and_then(|s| s.last_observed_time.clone()),
        e.last_timestamp,
        e.event_time,
        e.deprecated_last_timestamp,
        e.first_timestamp,
        e.metadata.creation_timestamp,
    ]
    .into_iter()
    .flatten()
    .find_map(|t| parse_rfc3339(&t));
    EventInfo {
        reason: e.reason,
        message: e.message.or(e.note).unwrap_or_default(),
        type_: e.type_,
        component: e
            .source
            .and_then(|s| s.component)
            .or(e.reporting_controller)
            .or(e.reporting_component)
            .unwrap_or_default(),
        count: e
            .series
            .and_then(|s| s.count)
            .or(e.count)
            .or(e.deprecated_count)
            .unwrap_or(1),
        last,
        involved_kind: involved.kind,
        involved_namespace: involved.namespace.filter(|n| !n.is_empty()),
        involved_name: involved.name,
        involved_uid: involved.uid.filter(|u| !u.is_empty()),
    }
}
