//! Reading each object's JSON into the little the index keeps: typed partial decodings
//! (metadata, pod spec and status, nodes, events in both APIs), done on any thread before the
//! index is assembled ([`Index::build`]).

use super::*;

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

/// The API group of Kueue's Workloads.
const KUEUE: &str = "kueue.x-k8s.io";

/// A Kueue Workload read for the index and for its queue at once ([`Generic`] and
/// [`QueueIdx`]'s fields, typed alike): when it reads, each of them would have read the same.
#[derive(Deserialize, Default)]
#[serde(default)]
struct WorkloadIdx<'a> {
    #[serde(borrow)]
    metadata: WorkloadMeta<'a>,
    spec: QueueSpec,
    status: QueueStatus,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct WorkloadMeta<'a> {
    owner_references: Vec<OwnerRef>,
    #[serde(borrow)]
    creation_timestamp: Option<Cow<'a, str>>,
    #[serde(borrow)]
    labels: Option<HashMap<Cow<'a, str>, Cow<'a, str>>>,
    namespace: Option<String>,
}

/// What a Workload's place in its queue is read from, when [`WorkloadIdx`] could not read it.
#[derive(Deserialize, Default)]
#[serde(default)]
struct QueueIdx {
    metadata: QueueMeta,
    spec: QueueSpec,
    status: QueueStatus,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct QueueMeta {
    namespace: Option<String>,
    creation_timestamp: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct QueueSpec {
    queue_name: Option<String>,
    active: Option<bool>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct QueueStatus {
    conditions: Vec<QueueCondition>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct QueueCondition {
    #[serde(rename = "type")]
    type_: String,
    status: String,
}

/// A Kueue Workload waiting for quota, as decoded: no `QuotaReserved` condition True (the
/// first of that type decides), not `Finished`, not deactivated (`spec.active: false`).
pub(super) struct Waiting {
    /// `metadata.namespace` as written.
    pub(super) namespace: Option<String>,
    pub(super) created: Option<i64>,
    /// `spec.queueName`: its LocalQueue.
    pub(super) queue: Option<String>,
}

fn waiting(
    namespace: Option<String>,
    created: Option<&str>,
    spec: QueueSpec,
    status: QueueStatus,
) -> Option<Waiting> {
    let first_true = |ty: &str| {
        status
            .conditions
            .iter()
            .find(|c| c.type_ == ty)
            .is_some_and(|c| c.status == "True")
    };
    if first_true("QuotaReserved") || first_true("Finished") || spec.active == Some(false) {
        return None;
    }
    Some(Waiting {
        namespace,
        created: created.and_then(parse_rfc3339),
        queue: spec.queue_name,
    })
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
    /// The native gang ([`super::NativeGang`]): 1.35's Workload reference, or the later
    /// PodGroup name.
    workload_ref: Option<WorkloadRefIdx>,
    scheduling_group: Option<SchedulingGroupIdx>,
    containers: Vec<ContainerIdx>,
    init_containers: Vec<ContainerIdx>,
    overhead: Quantities,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct WorkloadRefIdx {
    name: String,
    pod_group: Option<String>,
    pod_group_replica_key: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct SchedulingGroupIdx {
    pod_group_name: Option<String>,
}

impl PodSpecIdx {
    /// The key of the pod's native gang in the pods-by-group table, read as
    /// [`super::native_gang_of`] reads it from a whole pod.
    fn native_gang_key(&self) -> Option<String> {
        let r = self.workload_ref.as_ref();
        super::NativeGang::of_fields(
            self.scheduling_group
                .as_ref()
                .and_then(|g| g.pod_group_name.as_deref()),
            r.map(|r| r.name.as_str()),
            r.and_then(|r| r.pod_group.as_deref()),
            r.and_then(|r| r.pod_group_replica_key.as_deref()),
        )
        .map(|g| g.key())
    }
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
    requests: Quantities,
    limits: Quantities,
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
    capacity: Quantities,
    allocatable: Quantities,
    conditions: Vec<ConditionIdx>,
}

/// An event read partially, borrowing from the bundle's text: the index reads every event but
/// keeps only its time and whom it is about.
#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub(super) struct EventIdx<'a> {
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
    #[serde(borrow, rename = "apiVersion")]
    api_version: Option<Cow<'a, str>>,
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

/// What the index keeps of one object, decoded from its JSON on any thread ([`Index::build`]).
pub(super) struct Decoded {
    /// The typed reading failed and the object was read again leniently ([`lenient`]).
    pub(super) repaired: bool,
    pub(super) key: u64,
    pub(super) uid: Option<u64>,
    pub(super) kind_name: u64,
    pub(super) owners: Vec<OwnerRef>,
    /// Creation time; for an event, its newest time.
    pub(super) created: Option<i64>,
    pub(super) extra: Extra,
}

/// The kind-specific part of [`Decoded`]. Boxed where large, so a block of mostly events and
/// plain objects stays small.
pub(super) enum Extra {
    Pod(Box<DecodedPod>),
    Node(Box<NodeInfo>),
    Event {
        uid: Option<u64>,
        by_ref: u64,
        last: Option<i64>,
    },
    /// A Kueue Workload: the uid of the job it was made for, when labelled, and its place in
    /// its queue while it waits for quota.
    Workload {
        job_uid: Option<Uid>,
        waiting: Option<Box<Waiting>>,
    },
    Other,
}

pub(super) struct DecodedPod {
    info: PodInfo,
    /// The pod-group names it carries ([`POD_GROUP_KEYS`]), its `app` label values, and its
    /// Dynamo graph deployment.
    groups: Vec<String>,
    apps: Vec<String>,
    dgd: Option<String>,
    /// Its name or its owner's names a device plugin (`…device-plugin…`): the plugin's pods
    /// carry whatever label their manifest chose (`app`, `name`, `k8s-app`, `component`), but
    /// every install names the DaemonSet after it.
    plugin_named: bool,
    /// Its labels, as [`PodsByLabel`](super::PodsByLabel) keys them.
    label_keys: Vec<Box<str>>,
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

/// `o` read as a `T`; when that fails, `failed` is shown its JSON as written, and it is read
/// again made lenient ([`lenient`]), kept in `mended` for what the `T` borrows.
fn typed_or_mended<'a, T: Deserialize<'a> + Default>(
    bundle: &'a Bundle,
    o: &'a RawObject,
    mended: &'a mut Option<serde_json::Value>,
    failed: impl FnOnce(&serde_json::Value),
) -> T {
    if let Some(t) = bundle.typed(o) {
        return t;
    }
    let v = bundle.value(o);
    failed(&v);
    let v: &'a serde_json::Value = Option::insert(mended, lenient(v));
    T::deserialize(v).unwrap_or_default()
}

impl Decoded {
    pub(super) fn of(bundle: &Bundle, o: &RawObject) -> Decoded {
        let mut repaired = false;
        let (owners, created, extra) = match o.kind().as_str() {
            "Pod" => {
                let mut mended = None;
                let ns = o.namespace();
                let mut label_keys = Vec::new();
                // The labels as written: a selector tells `4` from `"4"`.
                let p: PodIdx = typed_or_mended(bundle, o, &mut mended, |v| {
                    repaired = true;
                    label_keys = labels::label_keys_of(ns, v);
                });
                if !repaired {
                    let written = p.metadata.labels.iter();
                    label_keys = labels::label_keys(ns, written.map(|(k, v)| (&**k, &**v)));
                }
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
                groups.extend(p.spec.native_gang_key());
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
                let plugin_named = o.name.contains("device-plugin")
                    || p.metadata
                        .owner_references
                        .iter()
                        .any(|r| r.name.contains("device-plugin"));
                let pod = DecodedPod {
                    info,
                    groups,
                    apps,
                    dgd,
                    plugin_named,
                    label_keys,
                };
                (
                    p.metadata.owner_references,
                    created,
                    Extra::Pod(Box::new(pod)),
                )
            }
            "Node" => {
                let mut mended = None;
                let nd: NodeIdx = typed_or_mended(bundle, o, &mut mended, |_| repaired = true);
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
                let mut mended = None;
                let kueue = o.kind() == "Workload" && o.group() == KUEUE;
                // A Kueue Workload is read once for the index and its queue when it can be.
                let both = if kueue {
                    bundle.typed::<WorkloadIdx>(o)
                } else {
                    None
                };
                let (g, waiting) = match both {
                    Some(w) => {
                        let waiting = waiting(
                            w.metadata.namespace,
                            w.metadata.creation_timestamp.as_deref(),
                            w.spec,
                            w.status,
                        );
                        let metadata = MetaIdx {
                            owner_references: w.metadata.owner_references,
                            creation_timestamp: w.metadata.creation_timestamp,
                            labels: w.metadata.labels,
                        };
                        (Generic { metadata }, waiting)
                    }
                    None => {
                        let g: Generic =
                            typed_or_mended(bundle, o, &mut mended, |_| repaired = true);
                        let waiting = kueue
                            .then(|| bundle.typed::<QueueIdx>(o))
                            .flatten()
                            .and_then(|q| {
                                waiting(
                                    q.metadata.namespace,
                                    q.metadata.creation_timestamp.as_deref(),
                                    q.spec,
                                    q.status,
                                )
                            });
                        (g, waiting)
                    }
                };
                let extra = if kueue {
                    Extra::Workload {
                        job_uid: g
                            .metadata
                            .labels
                            .as_ref()
                            .and_then(|l| l.get("kueue.x-k8s.io/job-uid"))
                            .map(|u| Uid::new(u)),
                        waiting: waiting.map(Box::new),
                    }
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
            key: key_hash(o.group(), o.kind(), o.namespace(), &o.name),
            uid: o.uid.as_ref().map(|u| u.with_str(uid_hash)),
            kind_name: kind_name_hash(o.kind(), &o.name),
            owners,
            created,
            extra,
        }
    }
}

impl Index {
    /// Fold one decoded pod into the pod tables.
    pub(super) fn add_pod(&mut self, id: ObjId, o: &RawObject, pod: DecodedPod) {
        let DecodedPod {
            info,
            groups,
            apps,
            dgd,
            plugin_named,
            label_keys,
        } = pod;
        for key in &label_keys {
            self.pods_by_label.add(key, id);
        }
        if let (Some(node), false) = (&info.node, info.terminal()) {
            let totals = self.requested_by_node.entry(node.clone()).or_default();
            for (r, q) in &info.requests {
                *totals.entry(r.clone()).or_default() += q;
            }
            // Each bound pod takes one of its node's allocatable `pods`: kube-scheduler's
            // NodeResourcesFit counts them as it counts requests.
            *totals
                .entry(super::nodes::POD_SLOTS.to_string())
                .or_default() += 1.0;
        }
        // Most pods are in no group: the namespace is copied only for a table that keeps it.
        let ns = || o.namespace().unwrap_or_default().to_string();
        for g in groups {
            self.pods_by_group.entry((ns(), g)).or_default().push(id);
        }
        for app in apps {
            self.pods_by_app.entry(app).or_default().push(id);
        }
        if let Some(d) = dgd {
            self.pods_by_dgd.entry((ns(), d)).or_default().push(id);
        }
        if plugin_named {
            self.pods_named_plugin.push(id);
        }
        self.pods.push((id, info));
    }
}

/// A map of resource quantities (`requests`, `allocatable`) read straight into numbers, by
/// name: reading each into a `serde_json::Value` first was most of the time the index spent
/// on quantities. What is not a quantity is left out: a later entry of the same name replaces
/// an earlier one, as in a map of values; any JSON value reads, as it did there.
#[derive(Default)]
struct Quantities(BTreeMap<String, f64>);

impl<'de> Deserialize<'de> for Quantities {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Map;
        impl<'de> serde::de::Visitor<'de> for Map {
            type Value = Quantities;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a map of resource quantities")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut m: A,
            ) -> Result<Quantities, A::Error> {
                let mut out = BTreeMap::new();
                while let Some(name) = m.next_key::<Cow<'de, str>>()? {
                    match m.next_value::<Quantity>()?.0 {
                        Some(q) => {
                            out.insert(name.into_owned(), q);
                        }
                        None => {
                            out.remove(name.as_ref());
                        }
                    }
                }
                Ok(Quantities(out))
            }
        }
        d.deserialize_map(Map)
    }
}

/// One value of [`Quantities`]: a quantity string, or a number read from its text (as
/// [`quantity::from_value`] does), else nothing.
struct Quantity(Option<f64>);

impl<'de> Deserialize<'de> for Quantity {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Any;
        impl<'de> serde::de::Visitor<'de> for Any {
            type Value = Quantity;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_str<E>(self, s: &str) -> Result<Quantity, E> {
                Ok(Quantity(quantity::parse(s)))
            }
            fn visit_u64<E>(self, n: u64) -> Result<Quantity, E> {
                Ok(Quantity(quantity::from_value(&n.into())))
            }
            fn visit_i64<E>(self, n: i64) -> Result<Quantity, E> {
                Ok(Quantity(quantity::from_value(&n.into())))
            }
            fn visit_f64<E>(self, n: f64) -> Result<Quantity, E> {
                Ok(Quantity(quantity::from_value(&n.into())))
            }
            fn visit_bool<E>(self, _: bool) -> Result<Quantity, E> {
                Ok(Quantity(None))
            }
            fn visit_unit<E>(self) -> Result<Quantity, E> {
                Ok(Quantity(None))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut s: A,
            ) -> Result<Quantity, A::Error> {
                while s.next_element::<serde::de::IgnoredAny>()?.is_some() {}
                Ok(Quantity(None))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut m: A,
            ) -> Result<Quantity, A::Error> {
                while m
                    .next_entry::<serde::de::IgnoredAny, serde::de::IgnoredAny>()?
                    .is_some()
                {}
                Ok(Quantity(None))
            }
        }
        d.deserialize_any(Any)
    }
}

/// Requests of one container: requests, falling back to limits (the API server defaults
/// requests to limits for extended resources and when requests are unset).
fn container_requests(c: &ContainerIdx) -> BTreeMap<String, f64> {
    let mut r = c.resources.limits.0.clone();
    r.extend(c.resources.requests.0.iter().map(|(k, &v)| (k.clone(), v)));
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
    for (k, v) in &p.spec.overhead.0 {
        *sum.entry(k.clone()).or_default() += v;
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
        capacity: n.status.capacity.0,
        allocatable: n.status.allocatable.0,
    }
}

pub(super) fn event_info(e: EventIdx) -> EventInfo {
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
        involved_api_version: owned(involved.api_version).unwrap_or_default(),
        involved_namespace: owned(involved.namespace).filter(|n| !n.is_empty()),
        involved_name: involved.name.into_owned(),
        involved_uid: owned(involved.uid).filter(|u| !u.is_empty()),
    }
}

/// The part of a ResourceSlice the views read: its driver and node, kept as JSON so that an odd
/// shape (a number where a name belongs) reads as absent rather than failing the slice. The
/// one decoder of slices: DRA coverage (device facts) and the bound node's slices (view) both
/// read through it.
#[derive(Deserialize, Default)]
#[serde(default)]
pub(crate) struct SliceIdx {
    pub spec: SliceSpecIdx,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub(crate) struct SliceSpecIdx {
    pub driver: Option<serde_json::Value>,
    pub node_name: Option<serde_json::Value>,
}
