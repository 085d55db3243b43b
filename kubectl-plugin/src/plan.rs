//! What the live reader asks the API server for, as data: one row per kind, with the scope it
//! is read in. The same table writes the read-only ClusterRole (`kubectl layer rbac`), so the
//! permissions the tool asks for are exactly the reads it makes.
//!
//! The reader works in rounds (see `live.rs`): discovery, the target, its owners, then every
//! row below at once, then what those answers point to (events of the objects found, the
//! fake-gpu-operator ConfigMaps when its nodes exist). Each row is one request (a paginated
//! list counts as one), so the number of requests depends on the APIs installed, never on the
//! size of the cluster.

/// Where a kind is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Cluster-scoped kinds, and namespaced kinds whose objects anywhere can matter (queues,
    /// Workloads ahead in the queue, the device plugin's DaemonSet).
    Cluster,
    /// Namespaced kinds read only in the target's namespace (`scan -A`: in every namespace).
    Namespace,
}

/// One kind the reader lists.
#[derive(Clone, Copy, Debug)]
pub struct Want {
    pub group: &'static str,
    pub kind: &'static str,
    pub plural: &'static str,
    pub scope: Scope,
    /// The layer whose judgement needs it, for the ClusterRole's comments.
    pub why: &'static str,
}

const fn c(
    group: &'static str,
    kind: &'static str,
    plural: &'static str,
    why: &'static str,
) -> Want {
    Want {
        group,
        kind,
        plural,
        scope: Scope::Cluster,
        why,
    }
}

const fn n(
    group: &'static str,
    kind: &'static str,
    plural: &'static str,
    why: &'static str,
) -> Want {
    Want {
        group,
        kind,
        plural,
        scope: Scope::Namespace,
        why,
    }
}

/// Every kind listed in the fan-out round. Pods, events, Namespaces, CRDs and ConfigMaps are
/// read by the special requests in `live.rs` ([`SPECIAL`]). Secrets are never read.
pub const WANTS: &[Want] = &[
    // Device.
    c(
        "",
        "Node",
        "nodes",
        "device, placement: capacity, allocatable, labels, taints",
    ),
    c(
        "resource.k8s.io",
        "DeviceClass",
        "deviceclasses",
        "device: DRA classes",
    ),
    c(
        "resource.k8s.io",
        "ResourceSlice",
        "resourceslices",
        "device: DRA devices per node",
    ),
    n(
        "resource.k8s.io",
        "ResourceClaim",
        "resourceclaims",
        "device: DRA claims",
    ),
    n(
        "resource.k8s.io",
        "ResourceClaimTemplate",
        "resourceclaimtemplates",
        "device: DRA claim templates",
    ),
    c(
        "nvidia.com",
        "ClusterPolicy",
        "clusterpolicies",
        "device: NVIDIA GPU Operator state",
    ),
    c(
        "apps",
        "DaemonSet",
        "daemonsets",
        "device: device plugin and operator DaemonSets",
    ),
    c(
        "apps",
        "Deployment",
        "deployments",
        "device, placement: fake-gpu-operator and serving Deployments",
    ),
    // Admission.
    c(
        "kueue.x-k8s.io",
        "Workload",
        "workloads",
        "admission: the target's Workload and those ahead of it",
    ),
    c(
        "kueue.x-k8s.io",
        "LocalQueue",
        "localqueues",
        "admission: queues",
    ),
    c(
        "kueue.x-k8s.io",
        "ClusterQueue",
        "clusterqueues",
        "admission: quota",
    ),
    c(
        "kueue.x-k8s.io",
        "ResourceFlavor",
        "resourceflavors",
        "admission: flavors",
    ),
    c(
        "kueue.x-k8s.io",
        "Cohort",
        "cohorts",
        "admission: borrowing",
    ),
    c(
        "kueue.x-k8s.io",
        "Topology",
        "topologies",
        "admission: topology-aware scheduling",
    ),
    c(
        "kueue.x-k8s.io",
        "AdmissionCheck",
        "admissionchecks",
        "admission: checks",
    ),
    c(
        "kueue.x-k8s.io",
        "WorkloadPriorityClass",
        "workloadpriorityclasses",
        "admission: priorities",
    ),
    c(
        "kueue.x-k8s.io",
        "ProvisioningRequestConfig",
        "provisioningrequestconfigs",
        "admission: provisioning checks",
    ),
    n(
        "autoscaling.x-k8s.io",
        "ProvisioningRequest",
        "provisioningrequests",
        "admission: provisioning checks",
    ),
    n(
        "",
        "ResourceQuota",
        "resourcequotas",
        "admission: namespace quota",
    ),
    n(
        "",
        "LimitRange",
        "limitranges",
        "admission: namespace limits",
    ),
    // Grouping.
    n("batch", "Job", "jobs", "grouping: Jobs and JobSet children"),
    n("jobset.x-k8s.io", "JobSet", "jobsets", "grouping"),
    n(
        "leaderworkerset.x-k8s.io",
        "LeaderWorkerSet",
        "leaderworkersets",
        "grouping",
    ),
    n(
        "apps",
        "StatefulSet",
        "statefulsets",
        "grouping: LWS groups, StatefulSets",
    ),
    n(
        "apps",
        "ReplicaSet",
        "replicasets",
        "grouping: Deployment children",
    ),
    n("batch.volcano.sh", "Job", "jobs", "grouping: Volcano jobs"),
    // Placement.
    c(
        "scheduling.k8s.io",
        "PriorityClass",
        "priorityclasses",
        "placement: preemption",
    ),
    c(
        "scheduling.run.ai",
        "Queue",
        "queues",
        "placement: KAI queues",
    ),
    n(
        "scheduling.run.ai",
        "PodGroup",
        "podgroups",
        "placement: KAI gangs",
    ),
    n(
        "scheduling.run.ai",
        "BindRequest",
        "bindrequests",
        "placement: KAI binding",
    ),
    c(
        "kai.scheduler",
        "Config",
        "configs",
        "placement: KAI configuration",
    ),
    c(
        "kai.scheduler",
        "SchedulingShard",
        "schedulingshards",
        "placement: KAI shards",
    ),
    n(
        "scheduling.volcano.sh",
        "PodGroup",
        "podgroups",
        "placement: Volcano gangs",
    ),
    n(
        "scheduling.x-k8s.io",
        "PodGroup",
        "podgroups",
        "placement: coscheduling gangs",
    ),
    n(
        "scheduler.grove.io",
        "PodGang",
        "podgangs",
        "placement: Grove gangs",
    ),
    c(
        "karpenter.sh",
        "NodePool",
        "nodepools",
        "placement: node provisioning",
    ),
    n(
        "",
        "PersistentVolumeClaim",
        "persistentvolumeclaims",
        "placement: volumes",
    ),
    c(
        "storage.k8s.io",
        "StorageClass",
        "storageclasses",
        "placement: volume binding",
    ),
    // Runtime.
    c(
        "node.k8s.io",
        "RuntimeClass",
        "runtimeclasses",
        "runtime: handlers and overhead",
    ),
    c(
        "k3s.cattle.io",
        "Addon",
        "addons",
        "runtime: k3s-managed RuntimeClasses",
    ),
    // Serving.
    n(
        "nvidia.com",
        "DynamoGraphDeployment",
        "dynamographdeployments",
        "serving: Dynamo",
    ),
    n(
        "nvidia.com",
        "DynamoComponentDeployment",
        "dynamocomponentdeployments",
        "serving: Dynamo",
    ),
    n(
        "grove.io",
        "PodCliqueSet",
        "podcliquesets",
        "serving: Grove",
    ),
    n("grove.io", "PodClique", "podcliques", "serving: Grove"),
    n(
        "inference.networking.k8s.io",
        "InferencePool",
        "inferencepools",
        "serving: llm-d / Gateway API inference",
    ),
    n(
        "inference.networking.x-k8s.io",
        "InferencePool",
        "inferencepools",
        "serving: llm-d / Gateway API inference",
    ),
    n("", "Service", "services", "serving: endpoints"),
];

/// The reads outside the table, for the ClusterRole: (group, plural, verbs, why).
pub const SPECIAL: &[(&str, &str, &str, &str)] = &[
    (
        "",
        "pods",
        "get, list",
        "every layer: the target's pods and what runs on each node",
    ),
    (
        "",
        "events",
        "list",
        "every layer: what each component said about the objects read",
    ),
    (
        "",
        "namespaces",
        "get, list",
        "admission: namespace labels Kueue selects on",
    ),
    (
        "",
        "configmaps",
        "list",
        "device: fake-gpu-operator topology (only keys the rules read are kept)",
    ),
    (
        "apiextensions.k8s.io",
        "customresourcedefinitions",
        "get",
        "admission: when an integration's CRD appeared",
    ),
];

/// The API groups the reader cares about; discovery is limited to them.
pub fn groups() -> Vec<&'static str> {
    let mut g: Vec<&'static str> = WANTS.iter().map(|w| w.group).collect();
    g.extend(SPECIAL.iter().map(|s| s.0));
    g.sort_unstable();
    g.dedup();
    g
}

/// The read-only ClusterRole, written from the table.
pub fn cluster_role() -> String {
    let mut rows: Vec<(&str, String, &str, String)> = WANTS
        .iter()
        .map(|w| {
            (
                w.group,
                w.plural.to_string(),
                "get, list",
                format!("{} ({})", w.kind, w.why),
            )
        })
        .collect();
    rows.extend(
        SPECIAL
            .iter()
            .map(|(g, p, v, why)| (*g, p.to_string(), *v, why.to_string())),
    );
    rows.sort();
    let mut out = String::from(
        "# Read-only access for kubectl-layer (`kubectl layer why`, `scan`, `bundle`).\n\
         # Generated by `kubectl layer rbac`; kept equal to it by a test.\n\
         # Bind it to a user or group with a ClusterRoleBinding. Without a row, that read is\n\
         # reported under `missing` and its layer is `unknown`; nothing fails.\n\
         # Secrets are never read. Nothing here can write.\n\
         apiVersion: rbac.authorization.k8s.io/v1\n\
         kind: ClusterRole\n\
         metadata:\n  name: kubectl-layer-reader\n  labels:\n    app.kubernetes.io/name: kubectl-layer\n\
         rules:\n",
    );
    for (group, plural, verbs, why) in rows {
        out.push_str(&format!(
            "  # {why}\n  - apiGroups: [\"{group}\"]\n    resources: [\"{plural}\"]\n    verbs: [{}]\n",
            verbs
                .split(", ")
                .map(|v| format!("\"{v}\""))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    out
}
