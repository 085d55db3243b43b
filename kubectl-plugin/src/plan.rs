//! What the live reader asks the API server for: the kinds of the core's one table
//! (`layer_core::kinds`), each with the scope it is read in. The same table writes the read-only ClusterRole (`kubectl layer rbac`), so the
//! permissions the tool asks for are exactly the reads it makes.
//!
//! The reader works in rounds (see `live/rounds.rs`): discovery, the target, its owners, then
//! the rows below at once, then what those answers point to (events of the objects found, the
//! fake-gpu-operator ConfigMaps when its nodes exist). Each row is one request, so the number
//! of requests depends on the APIs installed, never on the size of the cluster. For a pod,
//! only the rows its diagnosis can use are read ([`POD_NEEDS`]).

use std::collections::BTreeMap;

use layer_core::kinds::Live;

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

/// Every kind listed in the fan-out round, from the core's one table of kinds
/// ([`layer_core::kinds::KINDS`]). Pods, events, Namespaces, CRDs and ConfigMaps are read by
/// the special requests in `live/rounds.rs` ([`special`]). Secrets are never read.
pub fn wants() -> impl Iterator<Item = Want> {
    layer_core::kinds::KINDS.iter().filter_map(|k| {
        let (scope, why) = match k.live {
            Live::Cluster(why) => (Scope::Cluster, why),
            Live::Namespace(why) => (Scope::Namespace, why),
            Live::Special { .. } => return None,
        };
        Some(Want {
            group: k.group,
            kind: k.kind,
            plural: k.plural,
            scope,
            why,
        })
    })
}

/// Whether the role lets the reader GET an object of this kind by name: a target or an owner is
/// fetched only then. Secrets are in no row, and ConfigMaps are listed by field selector only,
/// so `why secret/x` or a pod "owned" by a Secret reads nothing the role does not print.
pub fn may_get(group: &str, kind: &str) -> bool {
    may(group, kind, "get")
}

/// Whether the role lets the reader list objects of this kind: a target that is not there is
/// looked for among the others of its kind only then (a CRD is fetched by name, never listed).
pub fn may_list(group: &str, kind: &str) -> bool {
    may(group, kind, "list")
}

fn may(group: &str, kind: &str, verb: &str) -> bool {
    layer_core::kinds::KINDS.iter().any(|k| {
        k.group == group
            && k.kind == kind
            && match k.live {
                Live::Cluster(_) | Live::Namespace(_) => true,
                Live::Special { verbs, .. } => verbs.split(", ").any(|v| v == verb),
            }
    })
}

/// The reads outside the fan-out, for the ClusterRole: (group, plural, verbs, why).
pub fn special() -> impl Iterator<Item = (&'static str, &'static str, &'static str, &'static str)> {
    layer_core::kinds::KINDS
        .iter()
        .filter_map(|k| match k.live {
            Live::Special { verbs, why } => Some((k.group, k.plural, verbs, why)),
            _ => None,
        })
}

/// What makes the diagnosis of a pod read objects of a kind (beyond the pod and its owners,
/// which are read by name): the view's links and the area facts that reach past the pod, each
/// named by the sign on the pod that leads there. A pod's read is planned from these, so it
/// asks for the few kinds its diagnosis can use instead of every kind the cluster serves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Need {
    /// Every pod's diagnosis: the nodes, the GPU Operator's state.
    Always,
    /// Kueue is installed and the pod may be Kueue's: a `kueue.x-k8s.io/` label or
    /// annotation on it or an owner, a scheduling gate, or a Job (JobSet, LeaderWorkerSet)
    /// above it, which Kueue can manage without a queue label. Its Workload, the Workloads
    /// ahead of it, its queues and flavors.
    Kueue,
    /// The pod claims DRA devices (`spec.resourceClaims`).
    Claims,
    /// The pod names a gang PodGroup of this kind's API group (KAI `pod-group-name`, Volcano
    /// `scheduling.k8s.io/group-name`, coscheduling `scheduling.x-k8s.io/pod-group`).
    Gang,
    /// KAI-Scheduler's pod: its scheduler, a `pod-group-name` annotation or a
    /// `kai.scheduler/queue` label (its queues).
    Kai,
    /// KAI's binder waits on a GPU reservation pod in a namespace ([`KAI_RESERVATION`] in the
    /// pod's conditions or its namespace's events): the Deployments and DaemonSets that say
    /// which namespace fake-gpu-operator reserves in, read once the events are in.
    Reservation,
    /// A LeaderWorkerSet's pod (`leaderworkerset.sigs.k8s.io/name`): the group's StatefulSets.
    Lws,
    /// A JobSet's pod (`jobset.sigs.k8s.io/jobset-name`): its child Jobs.
    JobSet,
    /// The JobSet a pod names by label when its owner chain did not reach one.
    JobSetByLabel,
    /// The LeaderWorkerSet a pod names by label when its owner chain did not reach one.
    LwsByLabel,
    /// A Grove gang's pod (`grove.io/podgang`).
    Grove,
    /// The DynamoGraphDeployment a pod names by label
    /// (`nvidia.com/dynamo-graph-deployment-name`) when its owner chain did not reach one.
    DynamoByLabel,
    /// The serving objects that may select any pod (InferencePools, by label selector), and
    /// the Services behind them.
    Serving,
    /// The pod mounts a PersistentVolumeClaim.
    Volumes,
    /// The pod names a RuntimeClass.
    RuntimeClass,
    /// Only ever as an owner of the pod, which is read by name up the chain.
    Owner,
    /// No pod's diagnosis reads objects of this kind (they are read for `scan` and for
    /// targets of other kinds).
    Never,
}

/// What KAI-Scheduler's binder says when it waits on a GPU reservation pod: the placement
/// facts (`core/src/area/placement.rs`, `reservation`) compare the namespace it names with
/// fake-gpu-operator's.
pub const KAI_RESERVATION: &str = "failed waiting for GPU reservation pod to allocate: ";

/// The need of every kind of the fan-out, for a pod target.
pub const POD_NEEDS: &[(&str, &str, Need)] = &[
    ("", "Node", Need::Always),
    ("nvidia.com", "ClusterPolicy", Need::Always),
    ("resource.k8s.io", "DeviceClass", Need::Claims),
    ("resource.k8s.io", "ResourceSlice", Need::Claims),
    ("resource.k8s.io", "ResourceClaim", Need::Claims),
    ("resource.k8s.io", "ResourceClaimTemplate", Need::Claims),
    ("apps", "DaemonSet", Need::Reservation),
    ("apps", "Deployment", Need::Reservation),
    ("kueue.x-k8s.io", "Workload", Need::Kueue),
    ("kueue.x-k8s.io", "LocalQueue", Need::Kueue),
    ("kueue.x-k8s.io", "ClusterQueue", Need::Kueue),
    ("kueue.x-k8s.io", "ResourceFlavor", Need::Kueue),
    ("kueue.x-k8s.io", "Cohort", Need::Never),
    ("kueue.x-k8s.io", "Topology", Need::Never),
    ("kueue.x-k8s.io", "AdmissionCheck", Need::Never),
    ("kueue.x-k8s.io", "WorkloadPriorityClass", Need::Never),
    ("kueue.x-k8s.io", "ProvisioningRequestConfig", Need::Never),
    ("autoscaling.x-k8s.io", "ProvisioningRequest", Need::Never),
    ("", "ResourceQuota", Need::Never),
    ("", "LimitRange", Need::Never),
    ("batch", "Job", Need::JobSet),
    ("jobset.x-k8s.io", "JobSet", Need::JobSetByLabel),
    (
        "leaderworkerset.x-k8s.io",
        "LeaderWorkerSet",
        Need::LwsByLabel,
    ),
    ("apps", "StatefulSet", Need::Lws),
    ("apps", "ReplicaSet", Need::Owner),
    ("batch.volcano.sh", "Job", Need::Owner),
    // KAI orders a queue by its PodGroups' priority classes (the queue place).
    ("scheduling.k8s.io", "PriorityClass", Need::Kai),
    ("scheduling.run.ai", "Queue", Need::Kai),
    ("scheduling.run.ai", "PodGroup", Need::Gang),
    ("scheduling.run.ai", "BindRequest", Need::Never),
    ("kai.scheduler", "Config", Need::Never),
    ("kai.scheduler", "SchedulingShard", Need::Never),
    ("scheduling.volcano.sh", "PodGroup", Need::Gang),
    ("scheduling.x-k8s.io", "PodGroup", Need::Gang),
    ("scheduler.grove.io", "PodGang", Need::Grove),
    // Kubernetes' own gangs are named in the pod's spec (`workloadRef`, `schedulingGroup`),
    // which the pod's signs do not carry: read whenever the cluster serves them (alpha, off by
    // default, so discovery leaves them out of most clusters' reads).
    ("scheduling.k8s.io", "Workload", Need::Always),
    ("scheduling.k8s.io", "PodGroup", Need::Always),
    ("karpenter.sh", "NodePool", Need::Never),
    ("", "PersistentVolumeClaim", Need::Volumes),
    ("storage.k8s.io", "StorageClass", Need::Never),
    ("node.k8s.io", "RuntimeClass", Need::RuntimeClass),
    ("k3s.cattle.io", "Addon", Need::Never),
    ("nvidia.com", "DynamoGraphDeployment", Need::DynamoByLabel),
    ("nvidia.com", "DynamoComponentDeployment", Need::Never),
    ("grove.io", "PodCliqueSet", Need::Owner),
    ("grove.io", "PodClique", Need::Owner),
    (
        "inference.networking.k8s.io",
        "InferencePool",
        Need::Serving,
    ),
    (
        "inference.networking.x-k8s.io",
        "InferencePool",
        Need::Serving,
    ),
    ("", "Service", Need::Serving),
];

/// The need of a kind for a pod target.
pub fn pod_need(group: &str, kind: &str) -> Need {
    POD_NEEDS
        .iter()
        .find(|(g, k, _)| *g == group && *k == kind)
        .map_or(Need::Always, |(_, _, n)| *n)
}

/// What a pod (and its owners) shows that leads its diagnosis to other objects.
#[derive(Debug, Default)]
pub struct PodSigns {
    pub labels: BTreeMap<String, String>,
    pub annotations: BTreeMap<String, String>,
    /// The label and annotation keys of the owners up the chain.
    pub owner_keys: Vec<String>,
    /// `spec.schedulingGates`.
    pub gates: bool,
    pub scheduler: String,
    /// `spec.resourceClaims` is not empty.
    pub claims: bool,
    /// A volume is a PersistentVolumeClaim.
    pub volumes: bool,
    pub runtime_class: bool,
    /// `spec.nodeName`.
    pub node: Option<String>,
    /// Succeeded or Failed: the view asks whether another pod of its owner replaced it.
    pub terminal: bool,
    /// A condition of the pod carries [`KAI_RESERVATION`].
    pub kai_reservation: bool,
    /// (group, kind) of each owner up the chain.
    pub owners: Vec<(String, String)>,
    /// Kueue is installed (discovery), so a Workload may stand for the pod's owner.
    pub kueue: bool,
    /// An InferencePool API is installed, so a pool may select the pod.
    pub inference_pools: bool,
}

impl PodSigns {
    fn meta(&self, key: &str) -> bool {
        self.labels.contains_key(key) || self.annotations.contains_key(key)
    }

    fn owned_by(&self, group: &str, kind: &str) -> bool {
        self.owners.iter().any(|(g, k)| g == group && k == kind)
    }

    /// Whether the pod names a gang PodGroup of this API group.
    fn gang(&self, group: &str) -> bool {
        layer_core::index::POD_GROUP_KEYS
            .iter()
            .any(|(key, g, annotation)| {
                *g == group
                    && if *annotation {
                        self.annotations.contains_key(*key)
                    } else {
                        self.labels.contains_key(*key)
                    }
            })
    }

    /// Whether Kueue may hold a Workload for the pod (see [`Need::Kueue`]).
    fn kueue_may_manage(&self) -> bool {
        const KUEUE: &str = "kueue.x-k8s.io/";
        self.gates
            || self
                .labels
                .keys()
                .chain(self.annotations.keys())
                .chain(self.owner_keys.iter())
                .any(|k| k.starts_with(KUEUE))
            || [
                ("batch", "Job"),
                ("jobset.x-k8s.io", "JobSet"),
                ("leaderworkerset.x-k8s.io", "LeaderWorkerSet"),
            ]
            .into_iter()
            .any(|(g, k)| self.owned_by(g, k))
    }

    fn kai(&self) -> bool {
        self.scheduler.contains("kai")
            || self.gang("scheduling.run.ai")
            || self.labels.contains_key("kai.scheduler/queue")
    }

    /// Whether objects of a kind with this need are read for the pod.
    pub fn needs(&self, group: &str, need: Need) -> bool {
        match need {
            Need::Always => true,
            Need::Kueue => self.kueue && self.kueue_may_manage(),
            Need::Claims => self.claims,
            Need::Gang => self.gang(group),
            Need::Kai => self.kai(),
            Need::Lws => {
                self.meta("leaderworkerset.sigs.k8s.io/name")
                    || self.owned_by("leaderworkerset.x-k8s.io", "LeaderWorkerSet")
            }
            Need::JobSet => {
                self.meta("jobset.sigs.k8s.io/jobset-name")
                    || self.owned_by("jobset.x-k8s.io", "JobSet")
            }
            Need::JobSetByLabel => {
                self.meta("jobset.sigs.k8s.io/jobset-name")
                    && !self.owned_by("jobset.x-k8s.io", "JobSet")
            }
            Need::LwsByLabel => {
                self.meta("leaderworkerset.sigs.k8s.io/name")
                    && !self.owned_by("leaderworkerset.x-k8s.io", "LeaderWorkerSet")
            }
            Need::Grove => self.labels.contains_key("grove.io/podgang"),
            Need::DynamoByLabel => {
                self.labels
                    .contains_key("nvidia.com/dynamo-graph-deployment-name")
                    && !self.owned_by("nvidia.com", "DynamoGraphDeployment")
            }
            Need::Serving => {
                self.inference_pools
                    || self
                        .labels
                        .contains_key("nvidia.com/dynamo-graph-deployment-name")
                    || self.owned_by("nvidia.com", "DynamoGraphDeployment")
            }
            Need::Volumes => self.volumes,
            Need::RuntimeClass => self.runtime_class,
            // Read after the events, when they name the reservation.
            Need::Reservation | Need::Owner | Need::Never => false,
        }
    }

    /// Whether the pods of the pod's namespace are read: its group's members, the leader,
    /// the endpoints of a serving object, the replacement of a finished pod.
    pub fn needs_namespace_pods(&self) -> bool {
        self.terminal
            || [
                Need::Lws,
                Need::JobSet,
                Need::Grove,
                Need::Serving,
                Need::Kai,
            ]
            .into_iter()
            .any(|n| self.needs("", n))
            || [
                "scheduling.volcano.sh",
                "scheduling.x-k8s.io",
                "scheduling.sigs.k8s.io",
            ]
            .into_iter()
            .any(|g| self.gang(g))
    }
}

/// The API groups the reader cares about; discovery is limited to them.
pub fn groups() -> Vec<&'static str> {
    let mut g: Vec<&'static str> = wants().map(|w| w.group).collect();
    g.extend(special().map(|s| s.0));
    g.sort_unstable();
    g.dedup();
    g
}

/// The rows of the read-only ClusterRole: (group, plural, verbs, why), sorted.
fn role_rows() -> Vec<(&'static str, &'static str, &'static str, String)> {
    let mut rows: Vec<_> = wants()
        .map(|w| {
            (
                w.group,
                w.plural,
                "get, list",
                format!("{} ({})", w.kind, w.why),
            )
        })
        .collect();
    rows.extend(special().map(|(g, p, v, why)| (g, p, v, why.to_string())));
    rows.sort();
    rows
}

/// Whether the role `kubectl layer rbac` prints lets the reader `verb` (`get`, `list`) this
/// resource of this API group: the request builder (`live/request.rs`) writes no other request.
pub fn allows(group: &str, plural: &str, verb: &str) -> bool {
    role_rows()
        .iter()
        .any(|(g, p, verbs, _)| *g == group && *p == plural && verbs.split(", ").any(|v| v == verb))
}

/// Whether the reader reads objects of this kind at all: `bundle` writes no object of another
/// kind (a Secret, say), whatever the answers held.
pub fn reads_kind(group: &str, kind: &str) -> bool {
    may_get(group, kind) || may_list(group, kind)
}

/// The read-only ClusterRole, written from the table.
pub fn cluster_role() -> String {
    let rows = role_rows();
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Every kind of the fan-out says what makes a pod read it: a kind added to the core's
    /// table without a row here would be read for every pod (the fallback), silently.
    #[test]
    fn every_kind_of_the_fan_out_has_a_pod_need() {
        for w in wants() {
            let rows = POD_NEEDS
                .iter()
                .filter(|(g, k, _)| *g == w.group && *k == w.kind)
                .count();
            assert_eq!(rows, 1, "{}/{}: {rows} rows in POD_NEEDS", w.group, w.kind);
        }
        for (g, k, _) in POD_NEEDS {
            assert!(
                wants().any(|w| w.group == *g && w.kind == *k),
                "{g}/{k} is not read in the fan-out"
            );
        }
    }

    fn signs(labels: &[&str], owners: &[(&str, &str)]) -> PodSigns {
        PodSigns {
            labels: labels
                .iter()
                .map(|l| (l.to_string(), "x".to_string()))
                .collect(),
            owners: owners
                .iter()
                .map(|(g, k)| (g.to_string(), k.to_string()))
                .collect(),
            kueue: true,
            ..PodSigns::default()
        }
    }

    fn reads(s: &PodSigns, group: &str, kind: &str) -> bool {
        s.needs(group, pod_need(group, kind))
    }

    #[test]
    fn a_pod_reads_the_kinds_its_signs_lead_to_and_no_others() {
        // A Deployment's pod, with no sign of Kueue, DRA, gangs or serving.
        let plain = signs(&[], &[("apps", "ReplicaSet"), ("apps", "Deployment")]);
        for (g, k) in [
            ("kueue.x-k8s.io", "Workload"),
            ("resource.k8s.io", "ResourceClaim"),
            ("scheduling.run.ai", "Queue"),
            ("apps", "StatefulSet"),
            ("batch", "Job"),
            ("apps", "Deployment"),
            ("", "Service"),
        ] {
            assert!(!reads(&plain, g, k), "{k} read for a plain pod");
        }
        assert!(reads(&plain, "", "Node"));
        assert!(!plain.needs_namespace_pods());
        // Kueue may manage a Job without a queue label; a queue label on a Deployment.
        assert!(reads(
            &signs(&[], &[("batch", "Job")]),
            "kueue.x-k8s.io",
            "Workload"
        ));
        let labelled = signs(&["kueue.x-k8s.io/queue-name"], &[("apps", "ReplicaSet")]);
        assert!(reads(&labelled, "kueue.x-k8s.io", "ClusterQueue"));
        // A JobSet's pod reads the child Jobs; the JobSet itself only when no owner reached it.
        let js = signs(&["jobset.sigs.k8s.io/jobset-name"], &[("batch", "Job")]);
        assert!(reads(&js, "batch", "Job") && reads(&js, "jobset.x-k8s.io", "JobSet"));
        assert!(js.needs_namespace_pods());
        let owned = signs(
            &["jobset.sigs.k8s.io/jobset-name"],
            &[("batch", "Job"), ("jobset.x-k8s.io", "JobSet")],
        );
        assert!(!reads(&owned, "jobset.x-k8s.io", "JobSet"));
        // A KAI gang member: its PodGroup's API group only.
        let mut kai = signs(&[], &[]);
        kai.annotations.insert("pod-group-name".into(), "pg".into());
        assert!(reads(&kai, "scheduling.run.ai", "PodGroup"));
        assert!(!reads(&kai, "scheduling.volcano.sh", "PodGroup"));
        assert!(reads(&kai, "scheduling.run.ai", "Queue"));
    }
}
