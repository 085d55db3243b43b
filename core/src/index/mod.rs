//! The index: every join a view needs, built once per bundle so that no view scans all objects.
//!
//! Objects by identity, by uid and by kind; owner → children; events by the object they are
//! about (uid, or kind/namespace/name for events without one); pods by node, by gang group and
//! by label; Kueue Workloads by job uid, and those waiting for quota; and per-node resource
//! totals (allocatable, and requested by the pods bound there) for the "free GPUs per node"
//! fact. Reads are typed partial deserializations of the raw JSON, so the index does not hold
//! a tree of every object.
//!
//! Scale: `scan` builds a view for each of thousands of targets, so nothing a view computes may
//! cost O(cluster) per target. What is the same for every view (node tables by resource and by
//! label, the GPU Operator's state, the Workload queue) is computed once per index, on first use,
//! through [`Index::once`]; [`NodeTables`] is the node side of that.

mod decode;
mod hypothesis;
mod labels;
mod memo;
mod nodes;

use decode::{Decoded, EventIdx, Extra, event_info};
pub(crate) use decode::{PodIdx, SliceIdx, lenient};
pub use hypothesis::{Hypothesis, KueueIntake};
pub(crate) use labels::PodsByLabel;
use memo::Memo;
pub use nodes::{
    NodeInfo, NodeTables, Nodes, POD_SLOTS, ResourceRow, ResourceTable, Taint, tolerates,
    untolerated,
};

use crate::bundle::{Bundle, RawObject, Uid, group_of};
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
    /// The subject's apiVersion; empty when the event does not say.
    pub involved_api_version: String,
    pub involved_namespace: Option<String>,
    pub involved_name: String,
    pub involved_uid: Option<String>,
}

/// One field of an event as the view shows it, and where each Event API keeps it: the one
/// table of the two shapes. The view writes every event with the `view` keys (whatever its
/// API), and evidence found at a view key points back at the event's own field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventField {
    pub view: &'static str,
    /// Where a core/v1 Event keeps it.
    pub core_v1: &'static [&'static str],
    /// Where an events.k8s.io/v1 Event keeps it.
    pub events_v1: &'static [&'static str],
}

/// Every field of an event in the view.
pub const EVENT_FIELDS: &[EventField] = &[
    EventField {
        view: "reason",
        core_v1: &["reason"],
        events_v1: &["reason"],
    },
    EventField {
        view: "message",
        core_v1: &["message"],
        events_v1: &["note"],
    },
    EventField {
        view: "type",
        core_v1: &["type"],
        events_v1: &["type"],
    },
    EventField {
        view: "component",
        core_v1: &["source", "component"],
        events_v1: &["reportingController"],
    },
    EventField {
        view: "count",
        core_v1: &["count"],
        events_v1: &["deprecatedCount"],
    },
    EventField {
        view: "lastTimestamp",
        core_v1: &["lastTimestamp"],
        events_v1: &["eventTime"],
    },
    EventField {
        view: "involvedObject",
        core_v1: &["involvedObject"],
        events_v1: &["regarding"],
    },
];

impl EventInfo {
    /// The event as the view shows it: one key per [`EVENT_FIELDS`] entry.
    pub fn to_view(&self) -> serde_json::Value {
        use serde_json::Value;
        let mut out = serde_json::Map::new();
        for f in EVENT_FIELDS {
            let v = match f.view {
                "reason" => Value::from(self.reason.clone()),
                "message" => Value::from(self.message.clone()),
                "type" => Value::from(self.type_.clone()),
                "component" => Value::from(self.component.clone()),
                "count" => Value::from(self.count),
                "lastTimestamp" => self
                    .last
                    .map_or(Value::Null, |t| Value::from(crate::time::format_rfc3339(t))),
                "involvedObject" => serde_json::json!({
                    "kind": self.involved_kind,
                    "namespace": self.involved_namespace,
                    "name": self.involved_name,
                }),
                other => unreachable!("EVENT_FIELDS names `{other}`, which to_view does not write"),
            };
            out.insert(f.view.to_string(), v);
        }
        Value::Object(out)
    }
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

/// Workloads by the Job uid they are labelled with: uids as the bundle holds them (16 bytes
/// for one the API server wrote), sorted, beside the Workloads' ids. A map of uid strings to
/// lists took 160 bytes a Workload, 2.3 MB of a 1,000-node backlog's peak.
#[derive(Debug, Default)]
struct JobUids {
    uids: Vec<Uid>,
    workloads: Vec<ObjId>,
}

impl JobUids {
    /// From (Job uid, Workload) pairs in bundle order.
    fn sorted(mut pairs: Vec<(Uid, ObjId)>) -> JobUids {
        pairs.sort_unstable();
        let (uids, workloads) = pairs.into_iter().unzip();
        JobUids { uids, workloads }
    }

    fn get(&self, uid: &Uid) -> &[ObjId] {
        &self.workloads[run_of(&self.uids, uid, |u| u)]
    }
}

/// Where the entries whose key (`key_of`) is `key` sit in `sorted`, which is sorted by that
/// key: the lookup of every table here kept as a sorted list instead of a map.
pub(crate) fn run_of<T, K: Ord + ?Sized>(
    sorted: &[T],
    key: &K,
    key_of: impl Fn(&T) -> &K,
) -> std::ops::Range<usize> {
    let start = sorted.partition_point(|e| key_of(e) < key);
    start..start + sorted[start..].partition_point(|e| key_of(e) == key)
}

/// (hash, object id) pairs sorted, for lookups that verify candidates against the objects.
///
/// Both halves are 32 bits (8 bytes an entry, 16 with a 64-bit hash and id): five of these
/// tables hold about four entries an object. A shorter hash only lets through more candidates
/// for the check every lookup makes anyway (among 100,000 objects, about one pair shares a
/// hash); ids are [`short_id`]s.
#[derive(Debug, Default)]
struct HashIndex(Vec<(u32, u32)>);

impl HashIndex {
    fn entry(hash: u64, id: ObjId) -> (u32, u32) {
        (Self::fold(hash), short_id(id))
    }

    fn fold(hash: u64) -> u32 {
        (hash ^ (hash >> 32)) as u32
    }

    fn sorted(mut v: Vec<(u32, u32)>) -> HashIndex {
        v.sort_unstable();
        v.shrink_to_fit();
        HashIndex(v)
    }

    /// Candidate ids with this hash, ascending.
    fn get(&self, hash: u64) -> impl Iterator<Item = ObjId> + '_ {
        self.0[run_of(&self.0, &Self::fold(hash), |e| &e.0)]
            .iter()
            .map(|e| e.1 as ObjId)
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

/// An object id in 32 bits, as the index's larger tables keep it: a bundle of 2^32 objects
/// would be a text of 170 GB, past any reader's limit.
fn short_id(id: ObjId) -> u32 {
    u32::try_from(id).expect("a bundle holds fewer than 2^32 objects")
}

/// [`Index::created`] of an object without a time: no time [`crate::time::parse_rfc3339`]
/// reads (a year of four characters, `-999` the earliest) is this many seconds before 1970.
const NOT_CREATED: i64 = i64::MIN;

/// All lookups over one bundle.
#[derive(Debug, Default)]
pub struct Index {
    bundle: Bundle,
    // Lookups by identity, uid, kind and name, and events by the object they name, keep only a
    // hash and the object id (8 bytes an entry) and compare against the object itself: string
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
    owner_at: Vec<u32>,
    owner_ids: Vec<ObjId>,
    /// Each object's creation time in epoch seconds, [`NOT_CREATED`] for none: 8 bytes an
    /// object where an `Option` takes 16.
    created: Vec<i64>,
    /// Each owner's children, as the owners beside their children sorted by (owner, child):
    /// a map of lists took some 60 bytes an owner, 2 MB on a backlog of single-pod Jobs.
    child_owners: Vec<u32>,
    children: Vec<ObjId>,
    /// Events (with their newest time) and pods by object id, in id order (binary search).
    /// An event's other fields are read from its JSON when asked for: events are most of a
    /// large bundle's objects, and a view reads only the few about its objects.
    events: Vec<(ObjId, Option<i64>)>,
    events_by_uid: HashIndex,
    events_by_ref: HashIndex,
    nodes: Nodes,
    pods: Vec<(ObjId, PodInfo)>,
    requested_by_node: HashMap<String, BTreeMap<String, f64>>,
    pods_by_group: HashMap<(String, String), Vec<ObjId>>,
    /// Pods by the value of their `app` / `app.kubernetes.io/name` label, so area facts can find
    /// infrastructure pods (device plugins, operator operands) without parsing every pod.
    pods_by_app: HashMap<String, Vec<ObjId>>,
    workloads_by_job_uid: JobUids,
    pods_by_label: PodsByLabel,
    /// Kueue Workloads waiting for quota, in id order: (id, created, namespace, queue), the
    /// names as places in `waiting_names`: a backlog's thousands share a few of each.
    waiting_workloads: Vec<(ObjId, Option<i64>, u32, u32)>,
    waiting_names: Vec<Option<String>>,
    /// Pods by (namespace, `nvidia.com/dynamo-graph-deployment-name` label).
    pods_by_dgd: HashMap<(String, String), Vec<ObjId>>,
    /// Pods whose name or owner's name says `device-plugin`, in bundle order.
    pods_named_plugin: Vec<ObjId>,
    newest: Option<i64>,
    memo: Memo,
    /// What `fit` assumed, when it built this index.
    hypothesis: Option<Hypothesis>,
}

/// A Kueue Workload waiting for quota ([`Index::waiting_workloads`]).
pub(crate) struct WaitingWorkload<'a> {
    pub(crate) id: ObjId,
    /// `metadata.namespace` as written.
    pub(crate) namespace: Option<&'a str>,
    pub(crate) created: Option<i64>,
    /// `spec.queueName`: its LocalQueue.
    pub(crate) queue: Option<&'a str>,
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

/// The PodGroup a pod names and that group's API group: the first key of [`POD_GROUP_KEYS`]
/// the pod carries names it; the others are not looked at.
pub fn pod_group_of(pv: &serde_json::Value) -> Option<(&str, &'static str)> {
    POD_GROUP_KEYS
        .iter()
        .find_map(|(key, api_group, is_annotation)| {
            let v = if *is_annotation {
                pv.pointer("/metadata/annotations")
                    .and_then(|a| a.get(*key))
                    .and_then(serde_json::Value::as_str)
            } else {
                crate::json::label(pv, key)
            };
            v.map(|name| (name, *api_group))
        })
}

/// A pod's gang in Kubernetes' own gang scheduling API (`scheduling.k8s.io`), which the
/// scheduler enforces before the pod enters its queue: no event and no condition show the wait.
/// Kubernetes 1.35 names a Workload and one of its pod groups (`spec.workloadRef`); later
/// releases name a standalone PodGroup object (`spec.schedulingGroup.podGroupName`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NativeGang<'a> {
    /// `Workload` (1.35) or `PodGroup` (1.36 and later): the `scheduling.k8s.io` kind named.
    pub kind: &'static str,
    /// That object's name.
    pub name: &'a str,
    /// 1.35: the pod group inside the Workload, and the replica of it (`podGroupReplicaKey`).
    pub pod_group: Option<&'a str>,
    pub replica: Option<&'a str>,
}

impl<'a> NativeGang<'a> {
    /// The gang's key in the pods-by-group table: NUL-prefixed, so that it cannot be the value
    /// of a label or annotation that names another scheduler's PodGroup.
    pub fn key(&self) -> String {
        let part = |p: Option<&str>| p.unwrap_or("").to_string();
        format!(
            "\0{}/{}/{}/{}",
            self.kind,
            self.name,
            part(self.pod_group),
            part(self.replica)
        )
    }

    /// The scheduling policy the object gives this gang: none when a Workload has no pod group
    /// of that name (the scheduler then waits as if the object were missing).
    pub fn policy<'v>(&self, obj: &'v serde_json::Value) -> Option<&'v serde_json::Value> {
        match self.pod_group {
            Some(pg) => obj
                .pointer("/spec/podGroups")?
                .as_array()?
                .iter()
                .find(|g| g["name"] == pg)?
                .get("policy"),
            None => obj.pointer("/spec/schedulingPolicy"),
        }
    }

    /// How texts name the gang: `PodGroup x`, or `pod group g of Workload w`.
    pub fn display(&self) -> String {
        match self.pod_group {
            Some(pg) => format!("{pg} of Workload {}", self.name),
            None => self.name.to_string(),
        }
    }
}

/// The native gang a pod belongs to, from either shape of the API.
pub fn native_gang_of(pv: &serde_json::Value) -> Option<NativeGang<'_>> {
    let str_at = |p: &str| pv.pointer(p).and_then(serde_json::Value::as_str);
    NativeGang::of_fields(
        str_at("/spec/schedulingGroup/podGroupName"),
        str_at("/spec/workloadRef/name"),
        str_at("/spec/workloadRef/podGroup"),
        str_at("/spec/workloadRef/podGroupReplicaKey"),
    )
}

impl<'a> NativeGang<'a> {
    /// The gang from the pod's fields (`schedulingGroup.podGroupName`, then `workloadRef`'s
    /// name, pod group and replica key), an empty value counting as absent: the one reading of
    /// both shapes, for a whole pod and for the index's typed decoding alike.
    pub fn of_fields(
        group: Option<&'a str>,
        workload: Option<&'a str>,
        pod_group: Option<&'a str>,
        replica: Option<&'a str>,
    ) -> Option<NativeGang<'a>> {
        let set = |v: Option<&'a str>| v.filter(|v| !v.is_empty());
        if let Some(name) = set(group) {
            return Some(NativeGang {
                kind: "PodGroup",
                name,
                pod_group: None,
                replica: None,
            });
        }
        Some(NativeGang {
            kind: "Workload",
            name: set(workload)?,
            pod_group: set(pod_group),
            replica: set(replica),
        })
    }
}

impl Index {
    pub fn new(bundle: Bundle) -> Index {
        Index::build(bundle, 0)
    }

    /// [`Index::new`], decoding objects on up to `threads` threads (0: one per core; see
    /// [`crate::par`]). The index is the same for any number.
    pub fn build(bundle: Bundle, threads: usize) -> Index {
        // Objects are decoded (the costly part: each one's JSON read into typed fields) on
        // every thread and folded into the tables in order on this one as they come, a few
        // hundred decoded at most waiting. The helpers live for the whole build: helpers
        // started anew for each block of objects left behind the pages they allocated from,
        // partly filled with what the index keeps (measured on the 1,000-node usual shape, 2
        // threads: blocks of 16,384 objects peaked at 135 MB, of 2,048 at 125 MB).
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
            *kinds.entry(o.kind().as_str()).or_default() += 1;
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
        let mut name_at: HashMap<Option<String>, u32> = HashMap::new();
        let mut job_uids = Vec::new();
        let mut nodes = BTreeMap::new();
        let objects = bundle.objects();
        let mut id = 0;
        let decode = |i| Decoded::of(&bundle, &objects[i]);
        crate::par::in_order(n, threads, (128, 2), decode, |d| {
            let o = &objects[id];
            if d.repaired {
                ix.repaired.push(id);
            }
            by_key.push(HashIndex::entry(d.key, id));
            if let Some(uid) = d.uid {
                by_uid.push(HashIndex::entry(uid, id));
            }
            // Every kind has its list already (sized above).
            if let Some(v) = ix.by_kind.get_mut(o.kind().as_str()) {
                v.push(id);
            }
            by_kind_name.push(HashIndex::entry(d.kind_name, id));
            match d.extra {
                Extra::Pod(pod) => ix.add_pod(id, o, *pod),
                Extra::Node(mut node) => {
                    node.id = id;
                    nodes.insert(o.name.clone(), *node);
                }
                Extra::Event { uid, by_ref, last } => {
                    if let Some(uid) = uid {
                        ev_uid.push(HashIndex::entry(uid, id));
                    }
                    ev_ref.push(HashIndex::entry(by_ref, id));
                    ix.events.push((id, last));
                }
                Extra::Workload { job_uid, waiting } => {
                    if let Some(job_uid) = job_uid {
                        job_uids.push((job_uid, id));
                    }
                    if let Some(w) = waiting {
                        let mut name = |n: Option<String>| match name_at.get(&n) {
                            Some(&at) => at,
                            None => {
                                let at = ix.waiting_names.len() as u32;
                                ix.waiting_names.push(n.clone());
                                name_at.insert(n, at);
                                at
                            }
                        };
                        let (namespace, queue) = (name(w.namespace), name(w.queue));
                        ix.waiting_workloads.push((id, w.created, namespace, queue));
                    }
                }
                Extra::Other => {}
            }
            if let Some(t) = d.created {
                newest = Some(newest.map_or(t, |n| n.max(t)));
            }
            owner_refs.push(d.owners);
            ix.created.push(d.created.unwrap_or(NOT_CREATED));
            id += 1;
            true
        });
        ix.nodes = Nodes::of(nodes);
        ix.newest = newest;
        ix.workloads_by_job_uid = JobUids::sorted(job_uids);
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
            owner_ids.extend(found);
            unresolved.extend(missing.into_iter().map(|r| (id, r)));
            owner_at.push(short_id(owner_ids.len()));
        }
        ix.unresolved_owners = unresolved;
        owner_ids.shrink_to_fit();
        let mut edges: Vec<(u32, u32)> = (0..n)
            .flat_map(|id| {
                let owners = &owner_ids[owner_at[id] as usize..owner_at[id + 1] as usize];
                owners
                    .iter()
                    .map(move |&owner| (short_id(owner), short_id(id)))
            })
            .collect();
        edges.sort_unstable();
        edges.dedup();
        (ix.child_owners, ix.children) = edges
            .into_iter()
            .map(|(owner, child)| (owner, child as ObjId))
            .unzip();
        ix.owner_at = owner_at;
        ix.owner_ids = owner_ids;
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
                    && o.kind() == kind
                    && o.namespace() == namespace
                    && o.group() == group
            })
            .last()
    }

    /// Look an object up by kind (any API group), namespace and name.
    pub fn find(&self, kind: &str, namespace: Option<&str>, name: &str) -> Option<ObjId> {
        self.named(kind, name)
            .into_iter()
            .find(|&id| self.object(id).namespace() == namespace)
    }

    /// Every object of a kind with a name, in any namespace (sorted by position).
    pub fn named(&self, kind: &str, name: &str) -> Vec<ObjId> {
        self.by_kind_name
            .get(kind_name_hash(kind, name))
            .filter(|&id| self.object(id).name == name && self.object(id).kind() == kind)
            .collect()
    }

    /// The object with this uid (the last one, should several claim it).
    pub fn by_uid(&self, uid: &str) -> Option<ObjId> {
        self.by_uid
            .get(uid_hash(uid))
            .filter(|&id| self.object(id).uid.as_ref().is_some_and(|u| u == uid))
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
        self.unresolved_owners[run_of(&self.unresolved_owners, &id, |(i, _)| i)]
            .iter()
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
        Some(self.created[id]).filter(|&t| t != NOT_CREATED)
    }

    /// The objects an object's ownerReferences point at, controller first.
    pub fn owners(&self, id: ObjId) -> Vec<ObjId> {
        self.owner_slice(id).to_vec()
    }

    fn owner_slice(&self, id: ObjId) -> &[ObjId] {
        &self.owner_ids[self.owner_at[id] as usize..self.owner_at[id + 1] as usize]
    }

    /// [`Index::owners`] looked up from the ownerReferences (once, when the index is built),
    /// and the references that name no object of the bundle.
    fn resolve_owners(&self, id: ObjId, mut refs: Vec<OwnerRef>) -> (Vec<ObjId>, Vec<OwnerRef>) {
        refs.sort_by_key(|r| !r.controller.unwrap_or(false));
        let namespace = self.object(id).namespace();
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
        let Ok(id) = u32::try_from(id) else {
            return &[];
        };
        &self.children[run_of(&self.child_owners, &id, |o| o)]
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
                if self.object(c).kind() == "Pod" {
                    out.push(c);
                }
                stack.push(c);
            }
        }
        out.sort_by(|a, b| {
            let (a, b) = (self.object(*a), self.object(*b));
            (&a.namespace(), &a.name).cmp(&(&b.namespace(), &b.name))
        });
        out.dedup();
        out
    }

    /// Events about an object: by uid, and by kind/namespace/name for events that lack a uid or
    /// name an earlier incarnation. Sorted oldest first.
    pub fn events_for(&self, id: ObjId) -> Vec<ObjId> {
        self.events_about(id).into_iter().map(|(e, _)| e).collect()
    }

    /// [`Index::events_for`] with each event normalized: every event is read from its JSON once,
    /// where asking [`Index::event`] of each id again would read it twice.
    pub fn events_about(&self, id: ObjId) -> Vec<(ObjId, EventInfo)> {
        let o = self.object(id);
        let by_uid: Vec<ObjId> = match &o.uid {
            Some(u) => self.events_by_uid.get(u.with_str(uid_hash)).collect(),
            None => Vec::new(),
        };
        let by_ref: Vec<ObjId> = self
            .events_by_ref
            .get(ref_hash(o.kind(), o.namespace(), &o.name))
            .collect();
        // An event both tables hold is read once, oldest first.
        let mut ids: Vec<ObjId> = by_uid.iter().chain(&by_ref).copied().collect();
        ids.sort_unstable();
        ids.dedup();
        ids.sort_by_key(|&e| (self.event_time(e), e));
        let mut about = Vec::with_capacity(ids.len());
        for e in ids {
            let Some(info) = self.event(e) else { continue };
            let same_uid = |a: &String, b: &Uid| b == a.as_str();
            let uid_matches = matches!((&info.involved_uid, &o.uid), (Some(a), Some(b)) if same_uid(a, b))
                && by_uid.contains(&e);
            // Same name but another uid is a previous object of that name: not this one.
            let ref_matches = info.involved_name == o.name
                && info.involved_kind == *o.kind()
                && info.involved_namespace.as_deref() == o.namespace()
                && !matches!((&info.involved_uid, &o.uid), (Some(a), Some(b)) if !same_uid(a, b))
                && by_ref.contains(&e);
            if uid_matches || ref_matches {
                about.push((e, info));
            }
        }
        about
    }

    /// Every event's id, in bundle order: for the rare fact that must find events about objects
    /// the bundle does not hold and whose names it cannot know (a gang's other members).
    pub fn event_ids(&self) -> impl Iterator<Item = ObjId> + '_ {
        self.events.iter().map(|e| e.0)
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

    pub fn nodes(&self) -> &Nodes {
        &self.nodes
    }

    pub fn pod(&self, id: ObjId) -> Option<&PodInfo> {
        self.pods
            .binary_search_by_key(&id, |p| p.0)
            .ok()
            .map(|i| &self.pods[i].1)
    }

    /// Sum of effective requests of non-terminal pods bound to a node, and how many they are
    /// (as `pods`, what a node's allocatable `pods` counts).
    pub fn requested_on(&self, node: &str) -> Option<&BTreeMap<String, f64>> {
        self.requested_by_node.get(node)
    }

    /// Kueue Workloads waiting for quota (no `QuotaReserved` condition True, not finished, not
    /// deactivated), in id order: a backlog's queues are built from them without reading
    /// every Workload again.
    pub(crate) fn waiting_workloads(&self) -> impl Iterator<Item = WaitingWorkload<'_>> {
        let name = |at: u32| self.waiting_names[at as usize].as_deref();
        self.waiting_workloads
            .iter()
            .map(move |&(id, created, namespace, queue)| WaitingWorkload {
                id,
                namespace: name(namespace),
                created,
                queue: name(queue),
            })
    }

    /// Pods by namespace and label ([`PodsByLabel`]).
    pub(crate) fn pods_by_label(&self) -> &PodsByLabel {
        &self.pods_by_label
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

    /// The Kueue Workloads labelled with this Job uid, in bundle order.
    pub fn workloads_for_job_uid(&self, uid: &str) -> &[ObjId] {
        self.workloads_of_job(&Uid::new(uid))
    }

    /// [`Index::workloads_for_job_uid`] of a Job's uid as the bundle holds it.
    pub fn workloads_of_job(&self, uid: &Uid) -> &[ObjId] {
        self.workloads_by_job_uid.get(uid)
    }

    /// Pods whose own name or owner's name holds `device-plugin`, in bundle order: candidates
    /// for the device plugin, whatever labels their manifest gave them.
    pub fn pods_named_device_plugin(&self) -> &[ObjId] {
        &self.pods_named_plugin
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// A memoized result is kept under its type and name: one name used for two types gives
    /// two results (not one computed again on every call, nor the wrong type), each computed
    /// once.
    #[test]
    fn memoized_results_are_kept_by_type_and_name() {
        let ix = Index::new(
            Bundle::parse(
                r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"ml"}}"#,
            )
            .expect("parses"),
        );
        let calls = AtomicUsize::new(0);
        let count = || calls.fetch_add(1, Ordering::SeqCst);
        for _ in 0..3 {
            assert_eq!(
                *ix.once("shared", || {
                    count();
                    7u32
                }),
                7
            );
            assert_eq!(
                *ix.once("shared", || {
                    count();
                    "seven".to_string()
                }),
                "seven"
            );
            assert_eq!(
                *ix.once_for("shared", 0, || {
                    count();
                    8u32
                }),
                8
            );
        }
        assert_eq!(calls.load(Ordering::SeqCst), 3, "each computed once");
    }

    fn index_of(objects: &[serde_json::Value]) -> Index {
        let list = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": objects});
        Index::new(Bundle::parse(list.to_string()).expect("parses"))
    }

    fn workload(name: &str, extra: serde_json::Value) -> serde_json::Value {
        let mut w = serde_json::json!({
            "apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "Workload",
            "metadata": {"name": name, "namespace": "ml",
                         "creationTimestamp": "2026-11-20T09:30:35Z"},
            "spec": {"queueName": "lq"}});
        merge(&mut w, extra);
        w
    }

    fn merge(into: &mut serde_json::Value, from: serde_json::Value) {
        match (into, from) {
            (serde_json::Value::Object(a), serde_json::Value::Object(b)) => {
                for (k, v) in b {
                    merge(a.entry(k).or_insert(serde_json::Value::Null), v);
                }
            }
            (slot, v) => *slot = v,
        }
    }

    /// The Workloads waiting for quota are those without a first `QuotaReserved` condition
    /// True, not finished and not deactivated, whether the Workload reads for the index and
    /// its queue at once or only for its queue (labels that are not strings); one whose queue
    /// fields do not read is not listed, and neither is a Workload of another group.
    #[test]
    fn waiting_workloads_are_those_without_quota_however_they_read() {
        use serde_json::json;
        let cond = |ty: &str, st: &str| json!({"type": ty, "status": st});
        let ix = index_of(&[
            workload("plain", json!({})),
            workload(
                "reserved",
                json!({"status": {"conditions": [cond("QuotaReserved", "True")]}}),
            ),
            workload(
                "evicted",
                json!({"status": {"conditions": [cond("QuotaReserved", "False"), cond("QuotaReserved", "True")]}}),
            ),
            workload(
                "finished",
                json!({"status": {"conditions": [cond("Finished", "True")]}}),
            ),
            workload("inactive", json!({"spec": {"active": false}})),
            workload(
                "odd-labels",
                json!({"metadata": {"labels": {"version": 2}}}),
            ),
            workload("odd-queue", json!({"spec": {"queueName": 7}})),
            json!({"apiVersion": "example.com/v1", "kind": "Workload",
                   "metadata": {"name": "other-group", "namespace": "ml"}}),
        ]);
        let waiting: Vec<(&str, Option<&str>, Option<i64>)> = ix
            .waiting_workloads()
            .map(|w| (ix.object(w.id).name.as_str(), w.queue, w.created))
            .collect();
        let created = crate::time::parse_rfc3339("2026-11-20T09:30:35Z");
        assert_eq!(
            waiting,
            vec![
                ("plain", Some("lq"), created),
                ("evicted", Some("lq"), created),
                ("odd-labels", Some("lq"), created),
            ]
        );
        let odd = ix.get("kueue.x-k8s.io", "Workload", Some("ml"), "odd-labels");
        assert!(
            odd.is_some_and(|id| ix.repaired.contains(&id)),
            "read leniently for the index"
        );
    }

    /// Pods are found by label value as JSON: `4` and `"4"` differ, also for a pod whose
    /// typed reading failed; pods of another namespace are not found.
    #[test]
    fn pods_are_found_by_label_value_as_written() {
        use serde_json::json;
        let pod = |name: &str, ns: &str, labels: serde_json::Value| {
            json!({"apiVersion": "v1", "kind": "Pod",
                   "metadata": {"name": name, "namespace": ns, "labels": labels}})
        };
        let ix = index_of(&[
            pod("a", "ml", json!({"app": "train", "v": "4"})),
            pod("b", "ml", json!({"app": "train", "v": 4})),
            pod("c", "other", json!({"app": "train", "v": "4"})),
            pod("d", "ml", json!({"app": "serve"})),
        ]);
        let names = |ids: &[ObjId]| -> Vec<String> {
            ids.iter().map(|&id| ix.object(id).name.clone()).collect()
        };
        let ml = Some("ml");
        let by = ix.pods_by_label();
        assert_eq!(names(by.with(ml, "app", &json!("train"))), ["a", "b"]);
        assert_eq!(names(by.with(ml, "v", &json!("4"))), ["a"]);
        assert_eq!(names(by.with(ml, "v", &json!(4))), ["b"]);
        let selector = json!({"app": "train", "v": "4"});
        let selector = selector.as_object().expect("an object");
        assert_eq!(names(&by.selected(ml, selector)), ["a"]);
        assert_eq!(names(&by.selected(Some("other"), selector)), ["c"]);
        assert!(by.with(ml, "app", &json!("none")).is_empty());
    }

    /// A Job's Workloads are found by the uid label exactly as written: in bundle order, an
    /// upper-case spelling of the same UUID is another uid, a uid that is no UUID is found too.
    #[test]
    fn workloads_are_found_by_the_job_uid_they_carry() {
        use serde_json::json;
        let uid = "8b2e0244-5e4b-40f5-8bf8-59bb003553c1";
        let workload = |name: &str, job_uid: &str| {
            json!({"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "Workload",
                   "metadata": {"name": name, "namespace": "ml",
                                "labels": {"kueue.x-k8s.io/job-uid": job_uid}}})
        };
        let ix = index_of(&[
            workload("b", uid),
            workload("upper", &uid.to_uppercase()),
            workload("a", uid),
            workload("named", "job-1"),
        ]);
        let names = |ids: &[ObjId]| -> Vec<String> {
            ids.iter().map(|&id| ix.object(id).name.clone()).collect()
        };
        assert_eq!(names(ix.workloads_for_job_uid(uid)), ["b", "a"]);
        assert_eq!(
            names(ix.workloads_for_job_uid(&uid.to_uppercase())),
            ["upper"]
        );
        assert_eq!(names(ix.workloads_for_job_uid("job-1")), ["named"]);
        assert!(ix.workloads_for_job_uid("job-2").is_empty());
        assert!(ix.workloads_for_job_uid("").is_empty());
    }

    #[test]
    fn names_whose_short_hashes_meet_are_told_apart() {
        use serde_json::json;
        // Two pod names whose kind-and-name hashes fold to the same 32 bits: a lookup of
        // either gets both as candidates and must keep only its own.
        let mut seen: HashMap<u32, usize> = HashMap::new();
        let (a, b) = (0..1_000_000)
            .find_map(|i| {
                let name = format!("pod-{i}");
                let folded = HashIndex::fold(kind_name_hash("Pod", &name));
                seen.insert(folded, i).map(|j| (format!("pod-{j}"), name))
            })
            .expect("a pair among a million names");
        assert_ne!(kind_name_hash("Pod", &a), kind_name_hash("Pod", &b));
        let pod = |name: &str, uid: &str| {
            json!({"apiVersion": "v1", "kind": "Pod",
                   "metadata": {"name": name, "namespace": "ml", "uid": uid}})
        };
        let ix = index_of(&[pod(&a, "u-a"), pod(&b, "u-b")]);
        let names = |ids: Vec<ObjId>| -> Vec<String> {
            ids.iter().map(|&id| ix.object(id).name.clone()).collect()
        };
        assert_eq!(
            ix.by_kind_name.get(kind_name_hash("Pod", &a)).count(),
            2,
            "both are candidates"
        );
        assert_eq!(names(ix.named("Pod", &a)), std::slice::from_ref(&a));
        assert_eq!(names(ix.named("Pod", &b)), std::slice::from_ref(&b));
        assert_eq!(
            ix.get("", "Pod", Some("ml"), &a)
                .map(|id| ix.object(id).name.clone()),
            Some(a.clone())
        );
        assert_eq!(
            ix.get("", "Pod", Some("ml"), &b)
                .map(|id| ix.object(id).name.clone()),
            Some(b)
        );
        assert_eq!(
            ix.by_uid("u-a").map(|id| ix.object(id).name.clone()),
            Some(a)
        );
        assert!(ix.named("Pod", "pod-x").is_empty());
    }

    #[test]
    fn nodes_are_found_by_name_and_listed_in_name_order() {
        use serde_json::json;
        let node = |name: &str, zone: &str| {
            json!({"apiVersion": "v1", "kind": "Node",
                   "metadata": {"name": name, "labels": {"zone": zone}}})
        };
        let ix = index_of(&[node("gpu-b", "1"), node("gpu-a", "2"), node("cpu-10", "3")]);
        let names: Vec<&str> = ix.nodes().values().map(|n| n.name.as_str()).collect();
        assert_eq!(names, ["cpu-10", "gpu-a", "gpu-b"]);
        assert_eq!(ix.nodes().len(), 3);
        let zone = |name: &str| ix.nodes().get(name).map(|n| n.labels["zone"].clone());
        assert_eq!(zone("gpu-a").as_deref(), Some("2"));
        assert_eq!(zone("cpu-10").as_deref(), Some("3"));
        assert_eq!(zone("gpu-c"), None);
        assert_eq!(zone(""), None);
        let tables = ix.node_tables();
        assert!(
            std::ptr::eq(&tables.nodes[1], ix.nodes().get("gpu-a").unwrap()),
            "one list"
        );
        assert!(
            index_of(&[json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}})])
                .nodes()
                .is_empty()
        );
    }

    #[test]
    fn children_are_found_under_each_owner_in_id_order() {
        use serde_json::json;
        let owned = |kind: &str, name: &str, uid: &str, owners: &[&str]| {
            let refs: Vec<_> = owners
                .iter()
                .map(|o| json!({"apiVersion": "batch/v1", "kind": "Job", "name": o, "uid": o}))
                .collect();
            json!({"apiVersion": "v1", "kind": kind,
                   "metadata": {"name": name, "namespace": "ml", "uid": uid, "ownerReferences": refs}})
        };
        let job = |name: &str| {
            json!({"apiVersion": "batch/v1", "kind": "Job",
                   "metadata": {"name": name, "namespace": "ml", "uid": name}})
        };
        let ix = index_of(&[
            owned("Pod", "b-1", "p1", &["b"]),
            job("a"),
            owned("Pod", "a-1", "p2", &["a"]),
            job("b"),
            owned("Pod", "both", "p3", &["b", "a", "b"]),
            job("lonely"),
        ]);
        let id = |name: &str| (0..ix.len()).find(|&i| ix.object(i).name == name).unwrap();
        let names = |ids: &[ObjId]| -> Vec<String> {
            ids.iter().map(|&i| ix.object(i).name.clone()).collect()
        };
        assert_eq!(names(ix.children(id("a"))), ["a-1", "both"]);
        assert_eq!(
            names(ix.children(id("b"))),
            ["b-1", "both"],
            "once, however often named"
        );
        assert!(ix.children(id("lonely")).is_empty());
        assert!(ix.children(id("a-1")).is_empty());
        assert!(ix.children(ix.len() + 5).is_empty());
    }
}
