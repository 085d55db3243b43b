//! The one table of Kubernetes kinds the tool knows: how each is spelled on the command line,
//! whether it stands for a whole piece of work, which layers read it, and how the live reader
//! fetches it. Target resolution, scan, the layers marked unknown when a read fails, the live
//! read plan and the read-only ClusterRole (kubectl-plugin's `plan.rs`) all derive from it, so a
//! kind is added in one place.

use crate::layer::Layer::{self, *};

/// How the live reader fetches a kind (the core does no I/O; this is data for the reader).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Live {
    /// Listed in the fan-out round across the cluster (cluster-scoped kinds, and namespaced
    /// kinds whose objects anywhere can matter: queues, Workloads ahead, DaemonSets). The text
    /// says which layer needs it, for the ClusterRole's comments.
    Cluster(&'static str),
    /// Listed in the fan-out round in the target's namespace only (`scan -A`: every one).
    Namespace(&'static str),
    /// Read by a request of its own (pods, events, namespaces, ConfigMaps, CRDs), with these
    /// verbs.
    Special {
        verbs: &'static str,
        why: &'static str,
    },
}

/// One kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KindInfo {
    /// API group (`""` for the core group).
    pub group: &'static str,
    pub kind: &'static str,
    /// The resource name (`kubectl get <plural>`).
    pub plural: &'static str,
    /// Spellings beyond the kind and its plural that kubectl accepts (short names, `lws`).
    pub names: &'static [&'static str],
    /// Stands for a whole piece of work: scan lists it, and its pods appear inside it.
    pub work: bool,
    /// The layers whose judgement reads it: when a read of it fails, they become `unknown`.
    pub layers: &'static [Layer],
    /// The view subject an object of this kind fills when it owns the target or its pod
    /// (`$.job`, `$.jobSet` …).
    pub owner_subject: Option<&'static str>,
    pub live: Live,
}

/// Every kind, in the order the live reader lists them.
pub const KINDS: &[KindInfo] = &[
    KindInfo {
        group: "",
        kind: "Node",
        plural: "nodes",
        names: &["no", "node", "nodes"],
        work: false,
        layers: &[Device, Placement],
        owner_subject: None,
        live: Live::Cluster("device, placement: capacity, allocatable, labels, taints"),
    },
    KindInfo {
        group: "resource.k8s.io",
        kind: "DeviceClass",
        plural: "deviceclasses",
        names: &[],
        work: false,
        layers: &[Device],
        owner_subject: None,
        live: Live::Cluster("device: DRA classes"),
    },
    KindInfo {
        group: "resource.k8s.io",
        kind: "ResourceSlice",
        plural: "resourceslices",
        names: &[],
        work: false,
        layers: &[Device],
        owner_subject: None,
        live: Live::Cluster("device: DRA devices per node"),
    },
    KindInfo {
        group: "resource.k8s.io",
        kind: "ResourceClaim",
        plural: "resourceclaims",
        names: &["resourceclaim", "resourceclaims"],
        work: false,
        layers: &[Device],
        owner_subject: None,
        live: Live::Namespace("device: DRA claims"),
    },
    KindInfo {
        group: "resource.k8s.io",
        kind: "ResourceClaimTemplate",
        plural: "resourceclaimtemplates",
        names: &[],
        work: false,
        layers: &[Device],
        owner_subject: None,
        live: Live::Namespace("device: DRA claim templates"),
    },
    KindInfo {
        group: "nvidia.com",
        kind: "ClusterPolicy",
        plural: "clusterpolicies",
        names: &[],
        work: false,
        layers: &[Device],
        owner_subject: None,
        live: Live::Cluster("device: NVIDIA GPU Operator state"),
    },
    KindInfo {
        group: "apps",
        kind: "DaemonSet",
        plural: "daemonsets",
        names: &["ds", "daemonset", "daemonsets"],
        work: false,
        layers: &[Device],
        owner_subject: None,
        live: Live::Cluster("device: device plugin and operator DaemonSets"),
    },
    KindInfo {
        group: "apps",
        kind: "Deployment",
        plural: "deployments",
        names: &["deploy", "deployment", "deployments"],
        work: true,
        layers: &[Serving],
        owner_subject: Some("deployment"),
        live: Live::Cluster("device, placement: fake-gpu-operator and serving Deployments"),
    },
    KindInfo {
        group: "kueue.x-k8s.io",
        kind: "Workload",
        plural: "workloads",
        names: &[
            "wl",
            "kwl",
            "workload",
            "workloads",
            "kueueworkload",
            "kueueworkloads",
        ],
        work: true,
        layers: &[Admission],
        owner_subject: Some("workload"),
        live: Live::Cluster("admission: the target's Workload and those ahead of it"),
    },
    KindInfo {
        group: "kueue.x-k8s.io",
        kind: "LocalQueue",
        plural: "localqueues",
        names: &["lq", "localqueue", "localqueues"],
        work: false,
        layers: &[Admission],
        owner_subject: None,
        live: Live::Cluster("admission: queues"),
    },
    KindInfo {
        group: "kueue.x-k8s.io",
        kind: "ClusterQueue",
        plural: "clusterqueues",
        names: &["cq", "clusterqueue", "clusterqueues"],
        work: false,
        layers: &[Admission],
        owner_subject: None,
        live: Live::Cluster("admission: quota"),
    },
    KindInfo {
        group: "kueue.x-k8s.io",
        kind: "ResourceFlavor",
        plural: "resourceflavors",
        names: &[],
        work: false,
        layers: &[Admission],
        owner_subject: None,
        live: Live::Cluster("admission: flavors"),
    },
    KindInfo {
        group: "kueue.x-k8s.io",
        kind: "Cohort",
        plural: "cohorts",
        names: &[],
        work: false,
        layers: &[Admission],
        owner_subject: None,
        live: Live::Cluster("admission: borrowing"),
    },
    KindInfo {
        group: "kueue.x-k8s.io",
        kind: "Topology",
        plural: "topologies",
        names: &[],
        work: false,
        layers: &[Admission],
        owner_subject: None,
        live: Live::Cluster("admission: topology-aware scheduling"),
    },
    KindInfo {
        group: "kueue.x-k8s.io",
        kind: "AdmissionCheck",
        plural: "admissionchecks",
        names: &[],
        work: false,
        layers: &[Admission],
        owner_subject: None,
        live: Live::Cluster("admission: checks"),
    },
    KindInfo {
        group: "kueue.x-k8s.io",
        kind: "WorkloadPriorityClass",
        plural: "workloadpriorityclasses",
        names: &[],
        work: false,
        layers: &[Admission],
        owner_subject: None,
        live: Live::Cluster("admission: priorities"),
    },
    KindInfo {
        group: "kueue.x-k8s.io",
        kind: "ProvisioningRequestConfig",
        plural: "provisioningrequestconfigs",
        names: &[],
        work: false,
        layers: &[Admission],
        owner_subject: None,
        live: Live::Cluster("admission: provisioning checks"),
    },
    KindInfo {
        group: "autoscaling.x-k8s.io",
        kind: "ProvisioningRequest",
        plural: "provisioningrequests",
        names: &[],
        work: false,
        layers: &[Admission],
        owner_subject: None,
        live: Live::Namespace("admission: provisioning checks"),
    },
    KindInfo {
        group: "",
        kind: "ResourceQuota",
        plural: "resourcequotas",
        names: &[],
        work: false,
        layers: &[Admission],
        owner_subject: None,
        live: Live::Namespace("admission: namespace quota"),
    },
    KindInfo {
        group: "",
        kind: "LimitRange",
        plural: "limitranges",
        names: &[],
        work: false,
        layers: &[Admission],
        owner_subject: None,
        live: Live::Namespace("admission: namespace limits"),
    },
    KindInfo {
        group: "batch",
        kind: "Job",
        plural: "jobs",
        names: &["job", "jobs"],
        work: true,
        layers: &[Grouping],
        owner_subject: Some("job"),
        live: Live::Namespace("grouping: Jobs and JobSet children"),
    },
    KindInfo {
        group: "jobset.x-k8s.io",
        kind: "JobSet",
        plural: "jobsets",
        names: &["jobset", "jobsets", "js"],
        work: true,
        layers: &[Grouping],
        owner_subject: Some("jobSet"),
        live: Live::Namespace("grouping"),
    },
    KindInfo {
        group: "leaderworkerset.x-k8s.io",
        kind: "LeaderWorkerSet",
        plural: "leaderworkersets",
        names: &["lws", "leaderworkerset", "leaderworkersets"],
        work: true,
        layers: &[Grouping],
        owner_subject: Some("lws"),
        live: Live::Namespace("grouping"),
    },
    KindInfo {
        group: "apps",
        kind: "StatefulSet",
        plural: "statefulsets",
        names: &["sts", "statefulset", "statefulsets"],
        work: true,
        layers: &[Grouping],
        owner_subject: Some("statefulSet"),
        live: Live::Namespace("grouping: LWS groups, StatefulSets"),
    },
    KindInfo {
        group: "apps",
        kind: "ReplicaSet",
        plural: "replicasets",
        names: &["rs", "replicaset", "replicasets"],
        work: false,
        layers: &[Grouping],
        owner_subject: Some("replicaSet"),
        live: Live::Namespace("grouping: Deployment children"),
    },
    KindInfo {
        group: "batch.volcano.sh",
        kind: "Job",
        plural: "jobs",
        names: &["job", "jobs"],
        work: false,
        layers: &[Grouping],
        owner_subject: None,
        live: Live::Namespace("grouping: Volcano jobs"),
    },
    KindInfo {
        group: "scheduling.k8s.io",
        kind: "PriorityClass",
        plural: "priorityclasses",
        names: &[],
        work: false,
        layers: &[Placement],
        owner_subject: None,
        live: Live::Cluster("placement: preemption"),
    },
    KindInfo {
        group: "scheduling.run.ai",
        kind: "Queue",
        plural: "queues",
        names: &[],
        work: false,
        layers: &[Placement],
        owner_subject: None,
        live: Live::Cluster("placement: KAI queues"),
    },
    KindInfo {
        group: "scheduling.run.ai",
        kind: "PodGroup",
        plural: "podgroups",
        names: &["pg", "podgroup", "podgroups"],
        work: false,
        layers: &[Placement],
        owner_subject: None,
        live: Live::Namespace("placement: KAI gangs"),
    },
    KindInfo {
        group: "scheduling.run.ai",
        kind: "BindRequest",
        plural: "bindrequests",
        names: &[],
        work: false,
        layers: &[Placement],
        owner_subject: None,
        live: Live::Namespace("placement: KAI binding"),
    },
    KindInfo {
        group: "kai.scheduler",
        kind: "Config",
        plural: "configs",
        names: &[],
        work: false,
        layers: &[Placement],
        owner_subject: None,
        live: Live::Cluster("placement: KAI configuration"),
    },
    KindInfo {
        group: "kai.scheduler",
        kind: "SchedulingShard",
        plural: "schedulingshards",
        names: &[],
        work: false,
        layers: &[Placement],
        owner_subject: None,
        live: Live::Cluster("placement: KAI shards"),
    },
    KindInfo {
        group: "scheduling.volcano.sh",
        kind: "PodGroup",
        plural: "podgroups",
        names: &["pg", "podgroup", "podgroups"],
        work: false,
        layers: &[Placement],
        owner_subject: None,
        live: Live::Namespace("placement: Volcano gangs"),
    },
    KindInfo {
        group: "scheduling.x-k8s.io",
        kind: "PodGroup",
        plural: "podgroups",
        names: &["pg", "podgroup", "podgroups"],
        work: false,
        layers: &[Placement],
        owner_subject: None,
        live: Live::Namespace("placement: coscheduling gangs"),
    },
    KindInfo {
        group: "scheduling.k8s.io",
        kind: "Workload",
        plural: "workloads",
        // `workload` and `wl` name Kueue's.
        names: &[],
        work: false,
        layers: &[Grouping],
        owner_subject: None,
        live: Live::Namespace("grouping: Kubernetes' own gangs (1.35)"),
    },
    KindInfo {
        group: "scheduling.k8s.io",
        kind: "PodGroup",
        plural: "podgroups",
        names: &["pg", "podgroup", "podgroups"],
        work: false,
        layers: &[Placement],
        owner_subject: None,
        live: Live::Namespace("placement: Kubernetes' own gangs (1.36+)"),
    },
    KindInfo {
        group: "scheduler.grove.io",
        kind: "PodGang",
        plural: "podgangs",
        names: &[],
        work: false,
        layers: &[Placement],
        owner_subject: None,
        live: Live::Namespace("placement: Grove gangs"),
    },
    KindInfo {
        group: "karpenter.sh",
        kind: "NodePool",
        plural: "nodepools",
        names: &[],
        work: false,
        layers: &[Placement],
        owner_subject: None,
        live: Live::Cluster("placement: node provisioning"),
    },
    KindInfo {
        group: "",
        kind: "PersistentVolumeClaim",
        plural: "persistentvolumeclaims",
        names: &[],
        work: false,
        layers: &[Placement],
        owner_subject: None,
        live: Live::Namespace("placement: volumes"),
    },
    KindInfo {
        group: "storage.k8s.io",
        kind: "StorageClass",
        plural: "storageclasses",
        names: &[],
        work: false,
        layers: &[Placement],
        owner_subject: None,
        live: Live::Cluster("placement: volume binding"),
    },
    KindInfo {
        group: "node.k8s.io",
        kind: "RuntimeClass",
        plural: "runtimeclasses",
        names: &[],
        work: false,
        layers: &[Runtime],
        owner_subject: None,
        live: Live::Cluster("runtime: handlers and overhead"),
    },
    KindInfo {
        group: "k3s.cattle.io",
        kind: "Addon",
        plural: "addons",
        names: &[],
        work: false,
        layers: &[Runtime],
        owner_subject: None,
        live: Live::Cluster("runtime: k3s-managed RuntimeClasses"),
    },
    KindInfo {
        group: "nvidia.com",
        kind: "DynamoGraphDeployment",
        plural: "dynamographdeployments",
        names: &["dgd", "dynamographdeployment", "dynamographdeployments"],
        work: true,
        layers: &[Serving],
        owner_subject: Some("dynamoGraphDeployment"),
        live: Live::Namespace("serving: Dynamo"),
    },
    KindInfo {
        group: "nvidia.com",
        kind: "DynamoComponentDeployment",
        plural: "dynamocomponentdeployments",
        names: &[],
        work: false,
        layers: &[Serving],
        owner_subject: None,
        live: Live::Namespace("serving: Dynamo"),
    },
    KindInfo {
        group: "grove.io",
        kind: "PodCliqueSet",
        plural: "podcliquesets",
        names: &["pcs", "podcliqueset", "podcliquesets"],
        work: true,
        layers: &[Serving],
        owner_subject: None,
        live: Live::Namespace("serving: Grove"),
    },
    KindInfo {
        group: "grove.io",
        kind: "PodClique",
        plural: "podcliques",
        names: &[],
        work: false,
        layers: &[Serving],
        owner_subject: None,
        live: Live::Namespace("serving: Grove"),
    },
    KindInfo {
        group: "inference.networking.k8s.io",
        kind: "InferencePool",
        plural: "inferencepools",
        names: &["infpool", "inferencepool", "inferencepools"],
        work: true,
        layers: &[Serving],
        owner_subject: Some("inferencePool"),
        live: Live::Namespace("serving: llm-d / Gateway API inference"),
    },
    KindInfo {
        group: "inference.networking.x-k8s.io",
        kind: "InferencePool",
        plural: "inferencepools",
        names: &["infpool", "inferencepool", "inferencepools"],
        work: true,
        layers: &[Serving],
        owner_subject: Some("inferencePool"),
        live: Live::Namespace("serving: llm-d / Gateway API inference"),
    },
    KindInfo {
        group: "",
        kind: "Service",
        plural: "services",
        names: &["svc", "service", "services"],
        work: false,
        layers: &[Serving],
        owner_subject: None,
        live: Live::Namespace("serving: endpoints"),
    },
    KindInfo {
        group: "",
        kind: "Pod",
        plural: "pods",
        names: &["po", "pod", "pods"],
        work: false,
        layers: &[Device, Admission, Grouping, Placement, Runtime, Serving],
        owner_subject: None,
        live: Live::Special {
            verbs: "get, list",
            why: "every layer: the target's pods and what runs on each node",
        },
    },
    KindInfo {
        group: "",
        kind: "Event",
        plural: "events",
        names: &[],
        work: false,
        layers: &[Device, Admission, Placement, Runtime],
        owner_subject: None,
        live: Live::Special {
            verbs: "list",
            why: "every layer: what each component said about the objects read",
        },
    },
    KindInfo {
        group: "",
        kind: "Namespace",
        plural: "namespaces",
        names: &[],
        work: false,
        layers: &[Admission],
        owner_subject: None,
        live: Live::Special {
            verbs: "get, list",
            why: "admission: namespace labels Kueue selects on",
        },
    },
    KindInfo {
        group: "",
        kind: "ConfigMap",
        plural: "configmaps",
        names: &[],
        work: false,
        layers: &[Device],
        owner_subject: None,
        live: Live::Special {
            verbs: "list",
            why: "device: fake-gpu-operator topology (only keys the rules read are kept)",
        },
    },
    KindInfo {
        group: "apiextensions.k8s.io",
        kind: "CustomResourceDefinition",
        plural: "customresourcedefinitions",
        names: &[],
        work: false,
        layers: &[Admission],
        owner_subject: None,
        live: Live::Special {
            verbs: "get",
            why: "admission: when an integration's CRD appeared",
        },
    },
    // Kueue's visibility API: a subresource of its own ClusterQueue kind, asked by name and
    // kept in the bundle under the kind of its answer (`facts::admission::visibility`). No
    // layer waits on it: when its read fails the bundle's own order stands, and says so.
    KindInfo {
        group: "visibility.kueue.x-k8s.io",
        kind: "PendingWorkloadsSummary",
        plural: "clusterqueues/pendingworkloads",
        names: &[],
        work: false,
        layers: &[],
        owner_subject: None,
        live: Live::Special {
            verbs: "get",
            why: "admission: each pending Workload's place in its ClusterQueue, as Kueue orders them",
        },
    },
];

/// The kinds that stand for a whole piece of work.
pub fn work_kinds() -> impl Iterator<Item = &'static KindInfo> {
    KINDS.iter().filter(|k| k.work)
}

/// Whether an object of this group and kind is a whole piece of work.
pub fn is_work(group: &str, kind: &str) -> bool {
    work_kinds().any(|k| k.group == group && k.kind == kind)
}

/// The view subject an owner of this group and kind fills, if any.
pub fn owner_subject(group: &str, kind: &str) -> Option<&'static str> {
    KINDS
        .iter()
        .find(|k| k.group == group && k.kind == kind)
        .and_then(|k| k.owner_subject)
}

/// The layers that read a resource (`jobsets`, or group-qualified `jobsets.jobset.x-k8s.io`).
pub fn layers_reading(resource: &str) -> &'static [Layer] {
    let (plural, group) = resource.split_once('.').unwrap_or((resource, ""));
    // Two groups may share a plural with other layers (Kueue's and Kubernetes' own
    // `workloads`): the group decides, and a bare plural means its first kind.
    let mut same_plural = KINDS.iter().filter(|k| k.plural == plural);
    KINDS
        .iter()
        .find(|k| k.plural == plural && k.group == group)
        .or_else(|| same_plural.next())
        .map_or(&[], |k| k.layers)
}

/// The kind of a resource name (`clusterqueues` → `ClusterQueue`), or the name as it is.
pub fn kind_of_plural(resource: &str) -> String {
    KINDS
        .iter()
        .find(|k| k.plural == resource)
        .map_or_else(|| resource.to_string(), |k| k.kind.to_string())
}

/// Every extra spelling (`lws`, `po`, `jobs` …), each once, for suggestions.
pub fn spellings() -> impl Iterator<Item = &'static str> {
    let mut seen: Vec<&'static str> = Vec::new();
    KINDS
        .iter()
        .flat_map(|k| k.names.iter().copied())
        .filter(move |n| {
            let new = !seen.contains(n);
            if new {
                seen.push(n);
            }
            new
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_group_and_kind_is_listed_once_with_its_own_plural() {
        for (i, k) in KINDS.iter().enumerate() {
            assert!(
                !KINDS[..i]
                    .iter()
                    .any(|x| x.group == k.group && x.kind == k.kind),
                "{}/{} twice",
                k.group,
                k.kind
            );
            assert_eq!(k.plural, k.plural.to_ascii_lowercase(), "{}", k.kind);
            // A plural shared by two groups (Job, PodGroup, InferencePool, Workload) means the
            // same kind; its layers may differ, and `layers_reading` tells them apart by group.
            for x in KINDS.iter().filter(|x| x.plural == k.plural) {
                assert_eq!(x.kind, k.kind, "{} is two kinds", k.plural);
            }
        }
        assert_eq!(layers_reading("podgroups.scheduling.run.ai"), &[Placement]);
        assert_eq!(layers_reading("workloads.kueue.x-k8s.io"), &[Admission]);
        assert_eq!(layers_reading("workloads.scheduling.k8s.io"), &[Grouping]);
        assert_eq!(layers_reading("workloads"), &[Admission]);
        assert_eq!(layers_reading("pods"), &Layer::ALL);
        assert!(layers_reading("secrets").is_empty());
        assert_eq!(kind_of_plural("clusterqueues"), "ClusterQueue");
        assert_eq!(kind_of_plural("widgets"), "widgets");
        assert!(is_work("jobset.x-k8s.io", "JobSet") && !is_work("", "Pod"));
        // Every subject an owner fills is one the rules can read.
        for k in KINDS {
            if let Some(s) = k.owner_subject {
                assert!(crate::catalog::subject(s).is_some(), "{}: {s}", k.kind);
            }
        }
        assert_eq!(owner_subject("batch", "Job"), Some("job"));
        assert_eq!(owner_subject("batch.volcano.sh", "Job"), None);
    }
}
