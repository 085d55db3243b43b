//! The index: every join a view needs, built once per bundle so that no view scans all objects.
//!
//! Objects by identity, by uid and by kind; owner → children; events by the object they are
//! about (uid, or kind/namespace/name for events without one); pods by node and by gang group;
//! Kueue Workloads by job uid; and per-node resource totals (allocatable, and requested by the
//! pods bound there) for the "free GPUs per node" fact. Reads are typed partial deserializations
//! of the raw JSON, so the index does not hold a tree of every object.
//!
//! Scale: `scan` builds a view for each of thousands of targets, so nothing a view computes may
//! cost O(cluster) per target. What is the same for every view (node tables by resource and by
//! label, the GPU Operator's state, the Workload queue) is computed once per index, on first use,
//! through [`Index::once`]; [`NodeTables`] is the node side of that.

use crate::bundle::{Bundle, RawObject, group_of};
use crate::quantity;
use crate::time::parse_rfc3339;
use serde::Deserialize;
use std::any::Any;
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

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

#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq, Hash, serde::Serialize)]
pub struct Taint {
    #[serde(default)]
    pub key: String,
    #[serde(default)]
    pub value: Option<String>,
    #[serde(default)]
    pub effect: String,
}

/// The taints of `taints` that no toleration of `tolerations` tolerates.
pub fn untolerated<'t>(
    tolerations: &[serde_json::Value],
    taints: impl IntoIterator<Item = &'t Taint>,
) -> impl Iterator<Item = &'t Taint> {
    taints
        .into_iter()
        .filter(move |t| !tolerations.iter().any(|tol| tolerates(tol, t)))
}

/// Does one toleration (as JSON) tolerate a taint?
pub fn tolerates(tol: &serde_json::Value, t: &Taint) -> bool {
    let key = tol["key"].as_str().unwrap_or("");
    let op = tol["operator"].as_str().unwrap_or("Equal");
    let effect = tol["effect"].as_str().unwrap_or("");
    if !effect.is_empty() && effect != t.effect {
        return false;
    }
    if key.is_empty() {
        return op == "Exists";
    }
    key == t.key
        && (op == "Exists"
            || tol["value"].as_str().unwrap_or("") == t.value.as_deref().unwrap_or(""))
}

/// What the index keeps of a pod (enough for node totals and scan).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PodInfo {
    pub node: Option<String>,
    pub phase: String,
    pub ready: bool,
    /// Effective requests: max(sum of containers, largest init container) plus overhead, sorted
    /// by resource name (a list, not a map: a map's node costs more than a pod's whole entry).
    pub requests: Vec<(String, f64)>,
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

/// (hash, object id) pairs sorted, for lookups that verify candidates against the objects.
#[derive(Debug, Default)]
struct HashIndex(Vec<(u64, ObjId)>);

impl HashIndex {
    fn sorted(mut v: Vec<(u64, ObjId)>) -> HashIndex {
        v.sort_unstable();
        v.shrink_to_fit();
        HashIndex(v)
    }

    /// Candidate ids with this hash, ascending.
    fn get(&self, h: u64) -> impl Iterator<Item = ObjId> + '_ {
        let start = self.0.partition_point(|e| e.0 < h);
        self.0[start..]
            .iter()
            .take_while(move |e| e.0 == h)
            .map(|e| e.1)
    }
}

/// FNV-1a over the parts, each followed by a separator (`None` hashes apart from `""`).
fn hash_parts(parts: &[Option<&str>]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |b: u8| {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    };
    for p in parts {
        match p {
            Some(s) => {
                s.bytes().for_each(&mut eat);
                eat(0xff);
            }
            None => eat(0xfe),
        }
    }
    h
}

fn key_hash(group: &str, kind: &str, namespace: Option<&str>, name: &str) -> u64 {
    hash_parts(&[Some(group), Some(kind), namespace, Some(name)])
}

fn kind_name_hash(kind: &str, name: &str) -> u64 {
    hash_parts(&[Some(kind), Some(name)])
}

fn uid_hash(uid: &str) -> u64 {
    hash_parts(&[Some(uid)])
}

fn ref_hash(kind: &str, namespace: Option<&str>, name: &str) -> u64 {
    hash_parts(&[Some(kind), namespace, Some(name)])
}

/// All lookups over one bundle.
#[derive(Debug, Default)]
pub struct Index {
    bundle: Bundle,
    // Lookups by identity, uid, kind and name, and events by the object they name, keep only a
    // hash and the object id (16 bytes an entry) and compare against the object itself: string
    // keys would cost more memory than the bundle's text on a large cluster.
    by_key: HashIndex,
    by_uid: HashIndex,
    by_kind: HashMap<String, Vec<ObjId>>,
    by_kind_name: HashIndex,
    /// The ownerReferences that name no object of the bundle, by object id (sorted). The
    /// others are kept only as `owner_at`/`owner_ids`: every pod's and ReplicaSet's references
    /// would otherwise stay in memory.
    unresolved_owners: Vec<(ObjId, OwnerRef)>,
    /// Objects whose typed reading failed and that were read leniently (sorted).
    repaired: Vec<ObjId>,
    /// The resolved owners of each object ([`Index::owners`]), object `id`'s at
    /// `owner_ids[owner_at[id]..owner_at[id + 1]]`: resolved once when the index is built, as
    /// scan walks the owner chain of every object and each step would search by uid again.
    owner_at: Vec<usize>,
    owner_ids: Vec<ObjId>,
    created: Vec<Option<i64>>,
    children: HashMap<ObjId, Vec<ObjId>>,
    /// Events (with their newest time) and pods by object id, in id order (binary search).
    /// An event's other fields are read from its JSON when asked for: events are most of a
    /// large bundle's objects, and a view reads only the few about its objects.
    events: Vec<(ObjId, Option<i64>)>,
    events_by_uid: HashIndex,
    events_by_ref: HashIndex,
    nodes: BTreeMap<String, NodeInfo>,
    pods: Vec<(ObjId, PodInfo)>,
    requested_by_node: HashMap<String, BTreeMap<String, f64>>,
    pods_by_group: HashMap<(String, String), Vec<ObjId>>,
    /// Pods by the value of their `app` / `app.kubernetes.io/name` label, so area facts can find
    /// infrastructure pods (device plugins, operator operands) without parsing every pod.
    pods_by_app: HashMap<String, Vec<ObjId>>,
    workloads_by_job_uid: HashMap<String, Vec<ObjId>>,
    /// Pods by (namespace, `nvidia.com/dynamo-graph-deployment-name` label).
    pods_by_dgd: HashMap<(String, String), Vec<ObjId>>,
    newest: Option<i64>,
    memo: Memo,
}

type Memoized = Arc<dyn Any + Send + Sync>;
type MemoMap = HashMap<(&'static str, usize), Arc<std::sync::OnceLock<Memoized>>>;

/// Results computed once per index (see [`Index::once`]). Interior mutability only: what is
/// stored depends on the index alone, so results do not depend on the order of calls. Each
/// result has its own cell, so threads diagnosing in parallel wait for one computation of a
/// large table instead of each building it, and never hold the map's lock while computing.
#[derive(Default)]
struct Memo(Mutex<MemoMap>);

impl std::fmt::Debug for Memo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Memo")
    }
}

/// The nodes as tables every view reads the same way, built once per index
/// ([`Index::node_tables`]). Positions index [`NodeTables::nodes`], which is in name order (the
/// order of [`Index::nodes`]).
#[derive(Debug, Default)]
pub struct NodeTables {
    pub nodes: Vec<NodeInfo>,
    /// Label key → value → positions of the nodes carrying it (ascending).
    pub labels: HashMap<String, BTreeMap<String, Vec<usize>>>,
    /// Nodes with a NoSchedule or NoExecute taint.
    pub hard_tainted: Vec<usize>,
    /// Each node's NoSchedule/NoExecute taints as a position in `taint_sets` (None: it has
    /// none). Thousands of GPU nodes share one set, so a pod's tolerations are tested once per
    /// set rather than once per node ([`NodeTables::tolerated_sets`]).
    pub taint_set_of: Vec<Option<usize>>,
    /// The distinct sets of NoSchedule/NoExecute taints, in order of first node by name.
    pub taint_sets: Vec<Vec<Taint>>,
    /// Nodes with `spec.unschedulable: true`.
    pub unschedulable: Vec<usize>,
    /// Per resource any node advertises (allocatable or capacity).
    pub resources: BTreeMap<String, ResourceTable>,
}

/// What the nodes hold of one resource.
#[derive(Debug, Default)]
pub struct ResourceTable {
    /// Nodes with allocatable > 0, most free first, then by name.
    pub rows: Vec<ResourceRow>,
    /// Positions of the nodes with allocatable > 0, in name order.
    pub advertising: Vec<usize>,
    /// Nodes with capacity > 0 but no allocatable, in name order.
    pub capacity_without_allocatable: Vec<usize>,
    /// Nodes with capacity > 0 and allocatable below it, in name order.
    pub degraded: Vec<usize>,
    /// Every node's allocatable of the resource (zero or not), added in name order.
    pub allocatable_all: f64,
    /// Sums over the advertising nodes, added in name order.
    pub allocatable: f64,
    pub capacity: f64,
    pub requested: f64,
    pub max_free: f64,
    pub max_allocatable: f64,
    /// Advertising nodes without a NoSchedule/NoExecute taint: how many, and the most free.
    pub untainted: u64,
    pub untainted_max_free: f64,
}

/// One advertising node of a [`ResourceTable`].
#[derive(Debug, Clone, Copy, Default)]
pub struct ResourceRow {
    pub pos: usize,
    pub allocatable: f64,
    pub capacity: f64,
    pub requested: f64,
    pub free: f64,
    pub hard_tainted: bool,
}

impl NodeInfo {
    /// Has a NoSchedule or NoExecute taint (what keeps pods off unless tolerated).
    pub fn hard_tainted(&self) -> bool {
        self.taints.iter().any(Taint::is_hard)
    }
}

impl Taint {
    /// A taint that keeps pods off the node (NoSchedule or NoExecute), not a preference.
    pub fn is_hard(&self) -> bool {
        self.effect == "NoSchedule" || self.effect == "NoExecute"
    }
}

impl NodeTables {
    fn build(ix: &Index) -> NodeTables {
        let nodes: Vec<NodeInfo> = ix.nodes.values().cloned().collect();
        let mut labels: HashMap<String, BTreeMap<String, Vec<usize>>> = HashMap::new();
        let mut hard_tainted = Vec::new();
        let mut taint_set_of = Vec::with_capacity(nodes.len());
        let mut taint_set_at: HashMap<Vec<Taint>, usize> = HashMap::new();
        let mut unschedulable = Vec::new();
        let mut names: std::collections::BTreeSet<&String> = std::collections::BTreeSet::new();
        for (pos, n) in nodes.iter().enumerate() {
            for (k, v) in &n.labels {
                labels
                    .entry(k.clone())
                    .or_default()
                    .entry(v.clone())
                    .or_default()
                    .push(pos);
            }
            if n.hard_tainted() {
                hard_tainted.push(pos);
            }
            let hard: Vec<Taint> = n.taints.iter().filter(|t| t.is_hard()).cloned().collect();
            taint_set_of.push((!hard.is_empty()).then(|| {
                let next = taint_set_at.len();
                *taint_set_at.entry(hard).or_insert(next)
            }));
            if n.unschedulable {
                unschedulable.push(pos);
            }
            names.extend(n.allocatable.keys());
            names.extend(n.capacity.keys());
        }
        let empty = BTreeMap::new();
        let mut resources = BTreeMap::new();
        for name in names {
            let mut t = ResourceTable {
                allocatable_all: nodes.iter().filter_map(|n| n.allocatable.get(name)).sum(),
                ..ResourceTable::default()
            };
            for (pos, n) in nodes.iter().enumerate() {
                let alloc = n.allocatable.get(name).copied().unwrap_or(0.0);
                let cap = n.capacity.get(name).copied().unwrap_or(0.0);
                if cap > 0.0 && alloc <= 0.0 {
                    t.capacity_without_allocatable.push(pos);
                }
                if cap > 0.0 && alloc < cap {
                    t.degraded.push(pos);
                }
                if alloc <= 0.0 {
                    continue;
                }
                let used = ix
                    .requested_on(&n.name)
                    .unwrap_or(&empty)
                    .get(name)
                    .copied()
                    .unwrap_or(0.0);
                let free = (alloc - used).max(0.0);
                t.allocatable += alloc;
                t.capacity += cap;
                t.requested += used;
                t.max_free = t.max_free.max(free);
                t.max_allocatable = t.max_allocatable.max(alloc);
                let tainted = n.hard_tainted();
                if !tainted {
                    t.untainted += 1;
                    t.untainted_max_free = t.untainted_max_free.max(free);
                }
                t.advertising.push(pos);
                t.rows.push(ResourceRow {
                    pos,
                    allocatable: alloc,
                    capacity: cap,
                    requested: used,
                    free,
                    hard_tainted: tainted,
                });
            }
            t.rows.sort_by(|a, b| {
                b.free
                    .total_cmp(&a.free)
                    .then_with(|| nodes[a.pos].name.cmp(&nodes[b.pos].name))
            });
            resources.insert(name.clone(), t);
        }
        let mut taint_sets = vec![Vec::new(); taint_set_at.len()];
        #[allow(clippy::iter_over_hash_type)] // each set goes to its own numbered place
        for (set, at) in taint_set_at {
            taint_sets[at] = set;
        }
        NodeTables {
            nodes,
            labels,
            hard_tainted,
            taint_set_of,
            taint_sets,
            unschedulable,
            resources,
        }
    }

    /// For each of [`NodeTables::taint_sets`], whether `tolerations` tolerate every taint in it.
    pub fn tolerated_sets(&self, tolerations: &[serde_json::Value]) -> Vec<bool> {
        self.taint_sets
            .iter()
            .map(|set| untolerated(tolerations, set).next().is_none())
            .collect()
    }

    /// The distinct values nodes carry for label `key`, sorted.
    pub fn label_values(&self, key: &str) -> Vec<&String> {
        self.labels
            .get(key)
            .map(|vals| vals.keys().collect())
            .unwrap_or_default()
    }

    /// How many nodes carry label `key` (any value).
    pub fn count_with_label(&self, key: &str) -> usize {
        self.labels
            .get(key)
            .map_or(0, |vals| vals.values().map(Vec::len).sum())
    }

    /// Positions of the nodes whose label `key` has one of `values`, ascending.
    pub fn with_label_in<'a>(
        &self,
        key: &str,
        values: impl IntoIterator<Item = &'a String>,
    ) -> Vec<usize> {
        let Some(vals) = self.labels.get(key) else {
            return Vec::new();
        };
        let mut out: Vec<usize> = values
            .into_iter()
            .filter_map(|v| vals.get(v))
            .flatten()
            .copied()
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }
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

/// An event read partially, borrowing from the bundle's text: the index reads every event but
/// keeps only its time and whom it is about.
#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct EventIdx<'a> {
    #[serde(borrow)]
    involved_object: Option<InvolvedIdx<'a>>,
    #[serde(borrow)]
    regarding: Option<InvolvedIdx<'a>>,
    #[serde(borrow)]
    reason: Cow<'a, str>,
    #[serde(borrow)]
    message: Option<Cow<'a, str>>,
    #[serde(borrow)]
    note: Option<Cow<'a, str>>,
    #[serde(rename = "type", borrow)]
    type_: Cow<'a, str>,
    #[serde(borrow)]
    source: Option<SourceIdx<'a>>,
    #[serde(borrow)]
    reporting_controller: Option<Cow<'a, str>>,
    #[serde(borrow)]
    reporting_component: Option<Cow<'a, str>>,
    count: Option<u64>,
    deprecated_count: Option<u64>,
    #[serde(borrow)]
    series: Option<SeriesIdx<'a>>,
    #[serde(borrow)]
    last_timestamp: Option<Cow<'a, str>>,
    #[serde(borrow)]
    first_timestamp: Option<Cow<'a, str>>,
    #[serde(borrow)]
    event_time: Option<Cow<'a, str>>,
    #[serde(borrow)]
    deprecated_last_timestamp: Option<Cow<'a, str>>,
    #[serde(borrow)]
    metadata: EventMeta<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct EventMeta<'a> {
    #[serde(borrow)]
    labels: BTreeMap<Cow<'a, str>, Cow<'a, str>>,
    #[serde(borrow)]
    creation_timestamp: Option<Cow<'a, str>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct InvolvedIdx<'a> {
    #[serde(borrow)]
    kind: Cow<'a, str>,
    #[serde(borrow)]
    namespace: Option<Cow<'a, str>>,
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(borrow)]
    uid: Option<Cow<'a, str>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct SourceIdx<'a> {
    #[serde(borrow)]
    component: Option<Cow<'a, str>>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct SeriesIdx<'a> {
    count: Option<u64>,
    #[serde(borrow)]
    last_observed_time: Option<Cow<'a, str>>,
}

impl<'a> EventIdx<'a> {
    /// Epoch seconds of the newest occurrence.
    fn last(&self) -> Option<i64> {
        [
            self.series
                .as_ref()
                .and_then(|s| s.last_observed_time.as_ref()),
            self.last_timestamp.as_ref(),
            self.event_time.as_ref(),
            self.deprecated_last_timestamp.as_ref(),
            self.first_timestamp.as_ref(),
            self.metadata.creation_timestamp.as_ref(),
        ]
        .into_iter()
        .flatten()
        .find_map(|t| parse_rfc3339(t))
    }

    fn involved(&self) -> Option<&InvolvedIdx<'a>> {
        self.involved_object.as_ref().or(self.regarding.as_ref())
    }
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
        Index::build(bundle, 0)
    }

    /// [`Index::new`], decoding objects on up to `threads` threads (0: one per core; see
    /// [`crate::par`]). The index is the same for any number.
    pub fn build(bundle: Bundle, threads: usize) -> Index {
        // Objects are decoded (the costly part: each one's JSON read into typed fields) a block
        // at a time in parallel, then folded into the tables in order on this thread. Blocks
        // bound the decoded fields alive at once to a few thousand objects' worth.
        const BLOCK: usize = 16 * 1024;
        let threads = crate::par::threads(threads);
        let n = bundle.objects().len();
        // Each object's ownerReferences, until they are resolved below.
        let mut owner_refs: Vec<Vec<OwnerRef>> = Vec::with_capacity(n);
        let mut ix = Index {
            created: Vec::with_capacity(n),
            ..Index::default()
        };
        let mut newest: Option<i64> = None;
        let (mut by_key, mut by_uid, mut by_kind_name) = (
            Vec::with_capacity(n),
            Vec::with_capacity(n),
            Vec::with_capacity(n),
        );
        // Sized up front: grown step by step, these lists are copied into fresh pages again
        // and again on a large cluster.
        let mut kinds: HashMap<&str, usize> = HashMap::new();
        for o in bundle.objects() {
            *kinds.entry(o.kind.as_str()).or_default() += 1;
        }
        #[allow(clippy::iter_over_hash_type)] // one list per kind, whatever the order
        for (kind, n) in &kinds {
            ix.by_kind.insert(kind.to_string(), Vec::with_capacity(*n));
        }
        let count = |kind: &str| kinds.get(kind).copied().unwrap_or(0);
        let (pods, events) = (count("Pod"), count("Event"));
        ix.pods.reserve_exact(pods);
        ix.events.reserve_exact(events);
        let (mut ev_uid, mut ev_ref) = (Vec::with_capacity(events), Vec::with_capacity(events));
        for first in (0..n).step_by(BLOCK) {
            let block = &bundle.objects()[first..(first + BLOCK).min(n)];
            let decoded = crate::par::map(block.len(), threads, 256, |i| {
                Decoded::of(&bundle, &block[i])
            });
            for (id, (o, d)) in (first..).zip(block.iter().zip(decoded)) {
                if d.repaired {
                    ix.repaired.push(id);
                }
                by_key.push((d.key, id));
                if let Some(uid) = d.uid {
                    by_uid.push((uid, id));
                }
                // Every kind has its list already (sized above).
                if let Some(v) = ix.by_kind.get_mut(&o.kind) {
                    v.push(id);
                }
                by_kind_name.push((d.kind_name, id));
                match d.extra {
                    Extra::Pod(pod) => ix.add_pod(id, o, *pod),
                    Extra::Node(mut node) => {
                        node.id = id;
                        ix.nodes.insert(o.name.clone(), *node);
                    }
                    Extra::Event { uid, by_ref, last } => {
                        if let Some(uid) = uid {
                            ev_uid.push((uid, id));
                        }
                        ev_ref.push((by_ref, id));
                        ix.events.push((id, last));
                    }
                    Extra::Workload(Some(job_uid)) => {
                        ix.workloads_by_job_uid.entry(job_uid).or_default().push(id);
                    }
                    Extra::Workload(None) | Extra::Other => {}
                }
                if let Some(t) = d.created {
                    newest = Some(newest.map_or(t, |n| n.max(t)));
                }
                owner_refs.push(d.owners);
                ix.created.push(d.created);
            }
        }
        ix.newest = newest;
        ix.by_key = HashIndex::sorted(by_key);
        ix.by_uid = HashIndex::sorted(by_uid);
        ix.by_kind_name = HashIndex::sorted(by_kind_name);
        ix.events_by_uid = HashIndex::sorted(ev_uid);
        ix.events_by_ref = HashIndex::sorted(ev_ref);
        ix.events.shrink_to_fit();
        ix.pods.shrink_to_fit();
        ix.bundle = bundle;
        // Second pass, once every uid and key is known: owner → children by object id, so
        // owners named without a uid (hand-written bundles) link too.
        let mut owner_at = Vec::with_capacity(n + 1);
        let mut owner_ids = Vec::new();
        owner_at.push(0);
        let mut unresolved = Vec::new();
        for (id, refs) in owner_refs.into_iter().enumerate() {
            let (found, missing) = ix.resolve_owners(id, refs);
            for owner in found {
                ix.children.entry(owner).or_default().push(id);
                owner_ids.push(owner);
            }
            unresolved.extend(missing.into_iter().map(|r| (id, r)));
            owner_at.push(owner_ids.len());
        }
        ix.unresolved_owners = unresolved;
        owner_ids.shrink_to_fit();
        ix.owner_at = owner_at;
        ix.owner_ids = owner_ids;
        // Order inside each list matters (outputs are sorted); the map's own order does not.
        #[allow(clippy::iter_over_hash_type)]
        for v in ix.children.values_mut() {
            v.sort_unstable();
            v.dedup();
            v.shrink_to_fit();
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
            .get(key_hash(group, kind, namespace, name))
            .filter(|&id| {
                let o = self.object(id);
                o.name == name
                    && o.kind == kind
                    && o.namespace.as_deref() == namespace
                    && o.group() == group
            })
            .last()
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
            .get(kind_name_hash(kind, name))
            .filter(|&id| self.object(id).name == name && self.object(id).kind == kind)
            .collect()
    }

    /// The object with this uid (the last one, should several claim it).
    pub fn by_uid(&self, uid: &str) -> Option<ObjId> {
        self.by_uid
            .get(uid_hash(uid))
            .filter(|&id| self.object(id).uid.as_deref() == Some(uid))
            .last()
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

    /// The ownerReferences of an object that name no object of the bundle.
    pub fn unresolved_owner_refs(&self, id: ObjId) -> impl Iterator<Item = &OwnerRef> {
        let from = self.unresolved_owners.partition_point(|(i, _)| *i < id);
        self.unresolved_owners[from..]
            .iter()
            .take_while(move |(i, _)| *i == id)
            .map(|(_, r)| r)
    }

    /// Whether the object's typed reading failed and it was read leniently ([`lenient`]).
    pub fn repaired(&self, id: ObjId) -> bool {
        self.repaired.binary_search(&id).is_ok()
    }

    /// Whether an object has any ownerReferences, found in the bundle or not.
    pub fn has_owner_refs(&self, id: ObjId) -> bool {
        !self.owner_slice(id).is_empty() || self.unresolved_owner_refs(id).next().is_some()
    }

    pub fn created(&self, id: ObjId) -> Option<i64> {
        self.created[id]
    }

    /// The objects an object's ownerReferences point at, controller first.
    pub fn owners(&self, id: ObjId) -> Vec<ObjId> {
        self.owner_slice(id).to_vec()
    }

    fn owner_slice(&self, id: ObjId) -> &[ObjId] {
        &self.owner_ids[self.owner_at[id]..self.owner_at[id + 1]]
    }

    /// [`Index::owners`] looked up from the ownerReferences (once, when the index is built),
    /// and the references that name no object of the bundle.
    fn resolve_owners(&self, id: ObjId, mut refs: Vec<OwnerRef>) -> (Vec<ObjId>, Vec<OwnerRef>) {
        refs.sort_by_key(|r| !r.controller.unwrap_or(false));
        let namespace = self.object(id).namespace.as_deref();
        let (mut found, mut missing) = (Vec::new(), Vec::new());
        for r in refs {
            let owner = (!r.uid.is_empty())
                .then(|| self.by_uid(&r.uid))
                .flatten()
                .or_else(|| self.get(group_of(&r.api_version), &r.kind, namespace, &r.name));
            match owner {
                Some(o) => found.push(o),
                None => missing.push(r),
            }
        }
        (found, missing)
    }

    /// The owner chain from an object to its top owner (controller owners first, no cycles).
    pub fn owner_chain(&self, id: ObjId) -> Vec<ObjId> {
        let mut chain = Vec::new();
        let mut cur = id;
        while let Some(&next) = self.owner_slice(cur).first() {
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
        let ev = |e: ObjId| self.event(e).unwrap_or_default();
        let mut ids: Vec<ObjId> = match o.uid.as_deref() {
            Some(u) => self
                .events_by_uid
                .get(uid_hash(u))
                .filter(|&e| ev(e).involved_uid.as_deref() == Some(u))
                .collect(),
            None => Vec::new(),
        };
        for e in self
            .events_by_ref
            .get(ref_hash(&o.kind, o.namespace.as_deref(), &o.name))
        {
            let i = ev(e);
            let same = i.involved_name == o.name
                && i.involved_kind == o.kind
                && i.involved_namespace == o.namespace;
            // Same name but another uid is a previous object of that name: not this one.
            let other_uid = matches!((&i.involved_uid, &o.uid), (Some(a), Some(b)) if a != b);
            if same && !other_uid {
                ids.push(e);
            }
        }
        ids.sort_unstable();
        ids.dedup();
        ids.sort_by_key(|&e| (self.event_time(e), e));
        ids
    }

    /// An event, normalized (read from its JSON on each call).
    pub fn event(&self, id: ObjId) -> Option<EventInfo> {
        self.events.binary_search_by_key(&id, |e| e.0).ok()?;
        Some(event_info(self.typed::<EventIdx>(id).unwrap_or_default()))
    }

    /// Epoch seconds of an event's newest occurrence.
    pub fn event_time(&self, id: ObjId) -> Option<i64> {
        let i = self.events.binary_search_by_key(&id, |e| e.0).ok()?;
        self.events[i].1
    }

    pub fn nodes(&self) -> &BTreeMap<String, NodeInfo> {
        &self.nodes
    }

    pub fn pod(&self, id: ObjId) -> Option<&PodInfo> {
        self.pods
            .binary_search_by_key(&id, |p| p.0)
            .ok()
            .map(|i| &self.pods[i].1)
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

    /// Pods of a namespace labelled `nvidia.com/dynamo-graph-deployment-name=<dgd>`, in bundle
    /// order.
    pub fn pods_of_dgd(&self, namespace: Option<&str>, dgd: &str) -> &[ObjId] {
        self.pods_by_dgd
            .get(&(namespace.unwrap_or("").to_string(), dgd.to_string()))
            .map_or(&[], Vec::as_slice)
    }

    /// Newest timestamp in the bundle (creation times and event times), epoch seconds.
    pub fn newest_timestamp(&self) -> Option<i64> {
        self.newest
    }

    /// Compute `f` once per index and keep it: for what every view would otherwise recompute
    /// over the whole cluster. `key` names what `f` computes and must be unique per type; the
    /// result must depend on the index alone.
    pub fn once<T: Any + Send + Sync>(&self, key: &'static str, f: impl FnOnce() -> T) -> Arc<T> {
        self.memoized(key, usize::MAX, f)
    }

    /// [`Index::once`] per object: the result must depend on the index and `id` alone.
    pub fn once_for<T: Any + Send + Sync>(
        &self,
        key: &'static str,
        id: ObjId,
        f: impl FnOnce() -> T,
    ) -> Arc<T> {
        self.memoized(key, id, f)
    }

    fn memoized<T: Any + Send + Sync>(
        &self,
        key: &'static str,
        id: usize,
        f: impl FnOnce() -> T,
    ) -> Arc<T> {
        let cell = {
            let mut map = self.memo.0.lock().unwrap_or_else(|e| e.into_inner());
            map.entry((key, id)).or_default().clone()
        };
        // Computed without the map's lock held: `f` may itself ask for other memoized results.
        let mut f = Some(f);
        let stored = cell.get_or_init(|| -> Memoized {
            match f.take() {
                Some(f) => Arc::new(f()),
                None => Arc::new(()),
            }
        });
        match (stored.clone().downcast::<T>(), f) {
            (Ok(v), _) => v,
            // A key already holding another type (a caller's bug): compute, do not keep.
            (Err(_), Some(f)) => Arc::new(f()),
            (Err(_), None) => unreachable!("memo cell {key} filled by this call with another type"),
        }
    }

    /// The nodes as tables (by position in name order, by label, by resource).
    pub fn node_tables(&self) -> Arc<NodeTables> {
        self.once("index.nodeTables", || NodeTables::build(self))
    }
}

/// What the index keeps of one object, decoded from its JSON on any thread ([`Index::build`]).
struct Decoded {
    /// The typed reading failed and the object was read again leniently ([`lenient`]).
    repaired: bool,
    key: u64,
    uid: Option<u64>,
    kind_name: u64,
    owners: Vec<OwnerRef>,
    /// Creation time; for an event, its newest time.
    created: Option<i64>,
    extra: Extra,
}

/// The kind-specific part of [`Decoded`]. Boxed where large, so a block of mostly events and
/// plain objects stays small.
enum Extra {
    Pod(Box<DecodedPod>),
    Node(Box<NodeInfo>),
    Event {
        uid: Option<u64>,
        by_ref: u64,
        last: Option<i64>,
    },
    /// A Kueue Workload and the uid of the job it was made for, when labelled.
    Workload(Option<String>),
    Other,
}

struct DecodedPod {
    info: PodInfo,
    /// The pod-group names it carries ([`POD_GROUP_KEYS`]), its `app` label values, and its
    /// Dynamo graph deployment.
    groups: Vec<String>,
    apps: Vec<String>,
    dgd: Option<String>,
}

/// An object whose typed reading failed, made readable: label and annotation values that are
/// not strings (an unquoted `version: 2` in pasted YAML) become their text. What one bad
/// field costs is that field's type, never the whole object's facts; the index records that it
/// happened ([`Index::repaired`]), so the view can say so.
pub(crate) fn lenient(mut v: serde_json::Value) -> serde_json::Value {
    for map in ["/metadata/labels", "/metadata/annotations"] {
        if let Some(m) = v
            .pointer_mut(map)
            .and_then(serde_json::Value::as_object_mut)
        {
            for val in m.values_mut() {
                if !val.is_string() {
                    let text = match &*val {
                        serde_json::Value::Null => String::new(),
                        other => other.to_string(),
                    };
                    *val = serde_json::Value::String(text);
                }
            }
        }
    }
    v
}

impl Decoded {
    fn of(bundle: &Bundle, o: &RawObject) -> Decoded {
        let mut repaired = false;
        let (owners, created, extra) = match o.kind.as_str() {
            "Pod" => {
                let mended;
                let p: PodIdx = match bundle.typed(o) {
                    Some(p) => p,
                    None => {
                        repaired = true;
                        mended = lenient(bundle.value(o));
                        PodIdx::deserialize(&mended).unwrap_or_default()
                    }
                };
                let mut groups = Vec::new();
                for (key, _group, is_annotation) in POD_GROUP_KEYS {
                    let src = if *is_annotation {
                        &p.metadata.annotations
                    } else {
                        &p.metadata.labels
                    };
                    if let Some(g) = src.get(*key) {
                        groups.push(g.to_string());
                    }
                }
                let apps = ["app", "app.kubernetes.io/name"]
                    .iter()
                    .filter_map(|key| p.metadata.labels.get(*key).map(|v| v.to_string()))
                    .collect();
                let dgd = p
                    .metadata
                    .labels
                    .get("nvidia.com/dynamo-graph-deployment-name")
                    .map(|d| d.to_string());
                let info = pod_info(&p);
                let created = p
                    .metadata
                    .creation_timestamp
                    .and_then(|t| parse_rfc3339(&t));
                let pod = DecodedPod {
                    info,
                    groups,
                    apps,
                    dgd,
                };
                (
                    p.metadata.owner_references,
                    created,
                    Extra::Pod(Box::new(pod)),
                )
            }
            "Node" => {
                let mended;
                let nd: NodeIdx = match bundle.typed(o) {
                    Some(n) => n,
                    None => {
                        repaired = true;
                        mended = lenient(bundle.value(o));
                        NodeIdx::deserialize(&mended).unwrap_or_default()
                    }
                };
                let created = nd
                    .metadata
                    .creation_timestamp
                    .as_deref()
                    .and_then(parse_rfc3339);
                // The id is filled in when the node is added to the index.
                let info = node_info(0, &o.name, nd);
                (Vec::new(), created, Extra::Node(Box::new(info)))
            }
            "Event" => {
                let e: EventIdx = bundle.typed(o).unwrap_or_default();
                let none = InvolvedIdx::default();
                let inv = e.involved().unwrap_or(&none);
                let uid = inv.uid.as_deref().filter(|u| !u.is_empty()).map(uid_hash);
                let by_ref = ref_hash(
                    &inv.kind,
                    inv.namespace.as_deref().filter(|n| !n.is_empty()),
                    &inv.name,
                );
                let last = e.last();
                (Vec::new(), last, Extra::Event { uid, by_ref, last })
            }
            _ => {
                let mended;
                let g: Generic = match bundle.typed(o) {
                    Some(g) => g,
                    None => {
                        repaired = true;
                        mended = lenient(bundle.value(o));
                        Generic::deserialize(&mended).unwrap_or_default()
                    }
                };
                let extra = if o.kind == "Workload" && o.group() == "kueue.x-k8s.io" {
                    Extra::Workload(
                        g.metadata
                            .labels
                            .as_ref()
                            .and_then(|l| l.get("kueue.x-k8s.io/job-uid"))
                            .map(|u| u.to_string()),
                    )
                } else {
                    Extra::Other
                };
                let created = g
                    .metadata
                    .creation_timestamp
                    .and_then(|t| parse_rfc3339(&t));
                (g.metadata.owner_references, created, extra)
            }
        };
        // serde grows a Vec to four entries for one owner; most objects have one.
        let mut owners = owners;
        owners.shrink_to_fit();
        Decoded {
            repaired,
            key: key_hash(o.group(), &o.kind, o.namespace.as_deref(), &o.name),
            uid: o.uid.as_deref().map(uid_hash),
            kind_name: kind_name_hash(&o.kind, &o.name),
            owners,
            created,
            extra,
        }
    }
}

impl Index {
    /// Fold one decoded pod into the pod tables.
    fn add_pod(&mut self, id: ObjId, o: &RawObject, pod: DecodedPod) {
        let DecodedPod {
            info,
            groups,
            apps,
            dgd,
        } = pod;
        if let (Some(node), false) = (&info.node, info.terminal()) {
            let totals = self.requested_by_node.entry(node.clone()).or_default();
            for (r, q) in &info.requests {
                *totals.entry(r.clone()).or_default() += q;
            }
        }
        let ns = o.namespace.clone().unwrap_or_default();
        for g in groups {
            self.pods_by_group
                .entry((ns.clone(), g))
                .or_default()
                .push(id);
        }
        for app in apps {
            self.pods_by_app.entry(app).or_default().push(id);
        }
        if let Some(d) = dgd {
            self.pods_by_dgd.entry((ns, d)).or_default().push(id);
        }
        self.pods.push((id, info));
    }
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
        requests: sum.into_iter().collect(),
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
    let last = e.last();
    let involved = e.involved_object.or(e.regarding).unwrap_or_default();
    let owned = |c: Option<Cow<str>>| c.map(Cow::into_owned);
    EventInfo {
        reason: e.reason.into_owned(),
        message: owned(e.message.or(e.note)).unwrap_or_default(),
        type_: e.type_.into_owned(),
        component: owned(
            e.source
                .and_then(|s| s.component)
                .or(e.reporting_controller)
                .or(e.reporting_component),
        )
        .unwrap_or_default(),
        count: e
            .series
            .and_then(|s| s.count)
            .or(e.count)
            .or(e.deprecated_count)
            .unwrap_or(1),
        last,
        involved_kind: involved.kind.into_owned(),
        involved_namespace: owned(involved.namespace).filter(|n| !n.is_empty()),
        involved_name: involved.name.into_owned(),
        involved_uid: owned(involved.uid).filter(|u| !u.is_empty()),
    }
}
