//! The view's subjects: every top-level key a rule path may start at, what it holds and how
//! the view finds it from the target. Rule files are checked against it when they load (a path
//! into an unknown subject is an error that names the rule and the path), and `docs/view.md`
//! lists it. The facts under `$.facts` have their own table, `facts::FACTS`.

/// One top-level key of the view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Subject {
    pub name: &'static str,
    /// What the subject holds.
    pub what: &'static str,
    /// How the view finds it from the target.
    pub found: &'static str,
}

/// Every subject, in the order the docs list them.
pub const SUBJECTS: &[Subject] = &[
    Subject {
        name: "target",
        what: "the object being diagnosed",
        found: "resolved from the user's `[KIND/]NAME`",
    },
    Subject {
        name: "pod",
        what: "the target pod, or for an owner the pod that best explains it (unscheduled before scheduled before failed before not-ready)",
        found: "owner → descendants",
    },
    Subject {
        name: "pods",
        what: "all pods of an owner target (up to 64)",
        found: "ownerReferences, transitively",
    },
    Subject {
        name: "owners",
        what: "the owner chain, nearest first",
        found: "`metadata.ownerReferences` (controller first; uid, else kind/name)",
    },
    Subject {
        name: "job",
        what: "owners by kind",
        found: "owner chain; `jobSet` also by label `jobset.sigs.k8s.io/jobset-name`, `lws` by `leaderworkerset.sigs.k8s.io/name`",
    },
    Subject {
        name: "jobSet",
        what: "owners by kind",
        found: "owner chain; `jobSet` also by label `jobset.sigs.k8s.io/jobset-name`, `lws` by `leaderworkerset.sigs.k8s.io/name`",
    },
    Subject {
        name: "lws",
        what: "owners by kind",
        found: "owner chain; `jobSet` also by label `jobset.sigs.k8s.io/jobset-name`, `lws` by `leaderworkerset.sigs.k8s.io/name`",
    },
    Subject {
        name: "leaderPod",
        what: "the LWS group's leader pod `<lws>-<group>` and worker StatefulSet of the same name",
        found: "LWS labels",
    },
    Subject {
        name: "workerStatefulSet",
        what: "the LWS group's leader pod `<lws>-<group>` and worker StatefulSet of the same name",
        found: "LWS labels",
    },
    Subject {
        name: "replicaSet",
        what: "owners by kind",
        found: "owner chain; `jobSet` also by label `jobset.sigs.k8s.io/jobset-name`, `lws` by `leaderworkerset.sigs.k8s.io/name`",
    },
    Subject {
        name: "deployment",
        what: "owners by kind",
        found: "owner chain; `jobSet` also by label `jobset.sigs.k8s.io/jobset-name`, `lws` by `leaderworkerset.sigs.k8s.io/name`",
    },
    Subject {
        name: "statefulSet",
        what: "owners by kind",
        found: "owner chain; `jobSet` also by label `jobset.sigs.k8s.io/jobset-name`, `lws` by `leaderworkerset.sigs.k8s.io/name`",
    },
    Subject {
        name: "workload",
        what: "the Kueue Workload",
        found: "pod annotation/label `kueue.x-k8s.io/prebuilt-workload-name` or `pod-group-name`, else a Workload owned by an owner, else label `kueue.x-k8s.io/job-uid`",
    },
    Subject {
        name: "localQueue",
        what: "Kueue queues and flavors",
        found: "`workload.spec.queueName` (or the queue-name label) → LocalQueue → `spec.clusterQueue` (or `status.admission.clusterQueue`) → flavors of its resource groups",
    },
    Subject {
        name: "clusterQueue",
        what: "Kueue queues and flavors",
        found: "`workload.spec.queueName` (or the queue-name label) → LocalQueue → `spec.clusterQueue` (or `status.admission.clusterQueue`) → flavors of its resource groups",
    },
    Subject {
        name: "resourceFlavors",
        what: "Kueue queues and flavors",
        found: "`workload.spec.queueName` (or the queue-name label) → LocalQueue → `spec.clusterQueue` (or `status.admission.clusterQueue`) → flavors of its resource groups",
    },
    Subject {
        name: "podGroup",
        what: "the gang PodGroup",
        found: "KAI annotation `pod-group-name`, Volcano annotation `scheduling.k8s.io/group-name`, coscheduling label `scheduling.x-k8s.io/pod-group`",
    },
    Subject {
        name: "kaiQueue",
        what: "the KAI Queue of the PodGroup",
        found: "`podGroup.spec.queue`, else pod label `kai.scheduler/queue`",
    },
    Subject {
        name: "nodes",
        what: "nodes worth citing as evidence: the bound node, the closest candidates for each requested device, fake-gpu-operator pool nodes (sorted by name, at most 16)",
        found: "from the facts",
    },
    Subject {
        name: "node",
        what: "the node the pod is bound to",
        found: "`spec.nodeName`",
    },
    Subject {
        name: "runtimeClass",
        what: "the pod's RuntimeClass",
        found: "`spec.runtimeClassName`",
    },
    Subject {
        name: "resourceClaims",
        what: "DRA objects: the pod's claims, their classes (v1 `exactly.deviceClassName`, v1beta1 `deviceClassName`, `firstAvailable`), slices on the bound node",
        found: "`spec.resourceClaims`, `status.resourceClaimStatuses`",
    },
    Subject {
        name: "deviceClasses",
        what: "DRA objects: the pod's claims, their classes (v1 `exactly.deviceClassName`, v1beta1 `deviceClassName`, `firstAvailable`), slices on the bound node",
        found: "`spec.resourceClaims`, `status.resourceClaimStatuses`",
    },
    Subject {
        name: "resourceSlices",
        what: "DRA objects: the pod's claims, their classes (v1 `exactly.deviceClassName`, v1beta1 `deviceClassName`, `firstAvailable`), slices on the bound node",
        found: "`spec.resourceClaims`, `status.resourceClaimStatuses`",
    },
    Subject {
        name: "dynamoGraphDeployment",
        what: "the serving object that selects the pod",
        found: "label `nvidia.com/dynamo-graph-deployment-name`; InferencePool selector (v1 `matchLabels`, v1alpha2 map)",
    },
    Subject {
        name: "inferencePool",
        what: "the serving object that selects the pod",
        found: "label `nvidia.com/dynamo-graph-deployment-name`; InferencePool selector (v1 `matchLabels`, v1alpha2 map)",
    },
    Subject {
        name: "fakeGpuTopology",
        what: "fake-gpu-operator's ConfigMap `topology` and the per-node `topology-<node>` ConfigMaps",
        found: "by name",
    },
    Subject {
        name: "nodeTopologies",
        what: "fake-gpu-operator's ConfigMap `topology` and the per-node `topology-<node>` ConfigMaps",
        found: "by name",
    },
    Subject {
        name: "events",
        what: "events about the target, the pod, its owners, Workload and PodGroup, oldest first, normalized (below)",
        found: "by involved object uid, else kind/namespace/name",
    },
    Subject {
        name: "facts",
        what: "computed facts (below)",
        found: "—",
    },
];

/// The subject of this name.
pub fn subject(name: &str) -> Option<&'static Subject> {
    SUBJECTS.iter().find(|s| s.name == name)
}

/// A set of subjects, a bit each in [`SUBJECTS`]' order: what a view holds against what each
/// rule applies to, one comparison per rule where looking every name up cost a share of
/// every diagnosis.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SubjectSet(u64);

const _: () = assert!(SUBJECTS.len() <= 64, "a SubjectSet holds 64 subjects");

impl SubjectSet {
    /// The subjects of these names; a name that is no subject is left out (rules are checked
    /// against the catalog when they load).
    pub fn of<'a>(names: impl IntoIterator<Item = &'a str>) -> SubjectSet {
        SubjectSet(
            names
                .into_iter()
                .filter_map(|n| SUBJECTS.iter().position(|s| s.name == n))
                .fold(0, |bits, i| bits | 1 << i),
        )
    }

    /// Whether every subject of `other` is in this set.
    pub fn holds(self, other: SubjectSet) -> bool {
        self.0 & other.0 == other.0
    }
}

/// The names of every subject, for error messages.
pub fn subject_names() -> String {
    SUBJECTS
        .iter()
        .map(|s| s.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// What a rule path (`$.facts.scheduling.reasons[*]`, `$['pod']…`) reads: its subject and, under
/// `facts`, the fact. None when the path does not start at `$.` followed by a name.
pub fn path_head(path: &str) -> Option<(&str, Option<&str>)> {
    let rest = path.strip_prefix("$.")?;
    let end = rest.find(['.', '[']).unwrap_or(rest.len());
    let subject = &rest[..end];
    if subject.is_empty() {
        return None;
    }
    let fact = (subject == "facts")
        .then(|| rest[end..].strip_prefix('.'))
        .flatten()
        .map(|r| &r[..r.find(['.', '[']).unwrap_or(r.len())])
        .filter(|f| !f.is_empty());
    Some((subject, fact))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_subject_set_holds_exactly_the_subjects_named() {
        let view = SubjectSet::of(["pod", "workload", "facts", "not-a-subject"]);
        assert!(view.holds(SubjectSet::of(["pod"])));
        assert!(view.holds(SubjectSet::of(["workload", "facts"])));
        assert!(view.holds(SubjectSet::default()));
        assert!(!view.holds(SubjectSet::of(["pod", "jobSet"])));
        assert!(!SubjectSet::default().holds(SubjectSet::of(["events"])));
        // Every subject has its own bit, the last included.
        let last = SUBJECTS[SUBJECTS.len() - 1].name;
        assert!(!SubjectSet::of(["target"]).holds(SubjectSet::of([last])));
        assert!(SubjectSet::of(SUBJECTS.iter().map(|s| s.name)).holds(SubjectSet::of([last])));
    }

    #[test]
    fn subject_names_are_unique() {
        for (i, s) in SUBJECTS.iter().enumerate() {
            assert!(
                !SUBJECTS[..i].iter().any(|x| x.name == s.name),
                "{}",
                s.name
            );
        }
    }

    #[test]
    fn paths_name_their_subject_and_fact() {
        assert_eq!(path_head("$.pod.status"), Some(("pod", None)));
        assert_eq!(
            path_head("$.facts.scheduling.reasons[*]"),
            Some(("facts", Some("scheduling")))
        );
        assert_eq!(
            path_head("$.facts.resources[0]"),
            Some(("facts", Some("resources")))
        );
        assert_eq!(path_head("$.facts"), Some(("facts", None)));
        assert_eq!(
            path_head("$.events[?@.reason=='x']"),
            Some(("events", None))
        );
        assert_eq!(path_head("pod.status"), None);
    }
}
