//! The view's contract: every subject a rule path may start at and every fact under
//! `$.facts`, what it holds, and the function (and file) that builds it. Rule files are
//! checked against it when they load (a path into an unknown subject or fact is an error that
//! names the rule and the path), `docs/view.md` is generated from it (`cargo xtask docs`), and
//! each rule's page lists the facts it reads with the function that builds each: one hop from
//! a rule's `$.facts.X` to the code. A test holds it to what the view really builds, so adding
//! a fact without an entry here fails.

/// One top-level key of the view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Subject {
    pub name: &'static str,
    /// What the subject holds.
    pub what: &'static str,
    /// How the view finds it from the target.
    pub found: &'static str,
}

/// One key of `$.facts`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fact {
    pub name: &'static str,
    /// The function that computes it.
    pub built_by: &'static str,
    /// The file of that function, from the repository root.
    pub source: &'static str,
    /// Its JSON shape.
    pub shape: &'static str,
    /// What it means.
    pub meaning: &'static str,
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

/// Every fact, in the order the docs list them.
pub const FACTS: &[Fact] = &[
    Fact {
        name: "target",
        built_by: "view::build",
        source: "core/src/view.rs",
        shape: "`{kind, status, settled, isPod, podCount, deviceStack, requestsWithoutLimits}`",
        meaning: "kubectl-like status; `settled` = running and ready, or finished; `deviceStack`: the target is a Pod or DaemonSet of the device stack (device plugin, GPU Operator operands, DRA drivers: `attribution::DEVICE_STACK_PODS`); `requestsWithoutLimits`: device resources its spec requests without a limit (the API server refuses such pods)",
    },
    Fact {
        name: "scheduler",
        built_by: "view::build",
        source: "core/src/view.rs",
        shape: "string",
        meaning: "the pod's `schedulerName` (`default-scheduler` when unset)",
    },
    Fact {
        name: "scheduling",
        built_by: "view::scheduling_fact, facts::parse_scheduling_message",
        source: "core/src/view.rs",
        shape: "`{message, source, scheduler, nodes, reasons: [{count, reason, kind, resource}], kinds, insufficient, preFilter, postFilter, preemption: {nodes, reasons, helpful}}` or null",
        meaning: "the scheduler's last word (PodScheduled message, else the newest FailedScheduling / KAI Unschedulable event) parsed: kube-scheduler's `0/N nodes are available: …. preemption: …` in every 1.30–1.36 variant (both taint forms, PreFilter sentences, DRA post-filter text) and KAI's `no nodes with enough resources were found: …`. `kind` is one of `insufficient, taint, affinity, cordoned, nodeName, volume, podAffinity, topologySpread, dra, podsFull, nodeCondition, other`",
    },
    Fact {
        name: "resources",
        built_by: "facts::resources",
        source: "core/src/facts/resources.rs",
        shape: "`[{name, request, advertisingNodes, allocatable, capacity, requested, free, maxFree, maxAllocatable, eligibleNodes, eligibleMaxFree, fit, capacityWithoutAllocatable, closest: [{node, allocatable, requested, free}], schedulerInsufficient}]`",
        meaning: "per extended resource the pod asks for (names with `/`, plus any the scheduler called insufficient; a KAI `gpu-fraction` counts as `nvidia.com/gpu`): what nodes advertise and hold. `requested` sums the effective requests of non-terminal pods bound to each node. `fit`: `noneAdvertised`, `neverFits` (no node could ever hold it), `noneFreeNow`, `fitsSomewhere`. `eligible*` count only nodes whose labels match the pod's nodeSelector and whose NoSchedule/NoExecute taints it tolerates",
    },
    Fact {
        name: "group",
        built_by: "view::group_of_pods, facts::group",
        source: "core/src/view.rs",
        shape: "`{kind, name, expected, present, running, ready, pending, missing, members: [{name, status, ready, node}], groupIndex?, workerStatefulSet?}` or null",
        meaning: "the pod's group: an LWS group (size from `leaderworkerset.sigs.k8s.io/size`), a JobSet (Σ replicas × parallelism), or a PodGroup (`minMember`)",
    },
    Fact {
        name: "jobSet",
        built_by: "view::jobset_fact",
        source: "core/src/view.rs",
        shape: "owners by kind",
        meaning: "owner chain; `jobSet` also by label `jobset.sigs.k8s.io/jobset-name`, `lws` by `leaderworkerset.sigs.k8s.io/name`",
    },
    Fact {
        name: "fakeGpu",
        built_by: "facts::fake_gpu",
        source: "core/src/facts/fake_gpu.rs",
        shape: "`{namespace, configMap, poolLabelKey, pools: [{name, gpuCount}], nodes: [{node, pool, poolDefined, configured, advertised, nodeTopologyConfigMap, nodeTopologyGpus, stale}], staleNodes, unpooledGpuNodes}` or null",
        meaning: "fake-gpu-operator's configured pools (ConfigMap `topology`, key `topology.yml`, legacy `gpuCount` or `gpu.overrides.devices`) against what each pool node advertises",
    },
    Fact {
        name: "installed",
        built_by: "view::build",
        source: "core/src/view.rs",
        shape: "`{kueue}`",
        meaning: "whether the bundle shows the API at all",
    },
    Fact {
        name: "now",
        built_by: "view::build",
        source: "core/src/view.rs",
        shape: "RFC 3339, seconds",
        meaning: "the \"now\" used (option, collection time, or newest timestamp) and the pod's age then",
    },
    Fact {
        name: "podAge",
        built_by: "view::build",
        source: "core/src/view.rs",
        shape: "RFC 3339, seconds",
        meaning: "the \"now\" used (option, collection time, or newest timestamp) and the pod's age then",
    },
    Fact {
        name: "nowSource",
        built_by: "Engine::evaluate",
        source: "core/src/engine.rs",
        shape: "`option`, `collectedAt`, `newestInBundle` or null",
        meaning: "where \"now\" came from: against the newest time in a pasted bundle an age is only a lower bound, so a rule that waits for something to be old must not read a young age as proof",
    },
    Fact {
        name: "signals",
        built_by: "facts::signals::signals",
        source: "core/src/facts/signals.rs",
        shape: "`[{layer, by, object, kind, describe, source, field, reason, message, text, count, current, onTarget}]`",
        meaning: "the generic evidence floor (`core/src/facts/signals.rs`): every Warning event, failing condition (`False` on Ready/Available/Admitted/…, `True` on Failed/Evicted/Unschedulable/…), KAI scheduling condition, failing container state and error field (`status.lastErrors`, `status.state: failed`, a pod's `status.reason`, a Node's devices held back, a DaemonSet that runs nowhere) on the objects of the work, attributed to a layer by the one table in `core/src/attribution.rs`. `current` is false for history (settled or finished work, a failed pod beside its running replacement)",
    },
    Fact {
        name: "floor",
        built_by: "facts::signals::signals",
        source: "core/src/facts/signals.rs",
        shape: "`{<layer>: {…signal, more}}`",
        meaning: "per layer, the first current signal and how many more: what the `<layer>/reported-failure` rules quote",
    },
    Fact {
        name: "deviceAdvertised",
        built_by: "facts::device::advertised",
        source: "core/src/facts/device/mod.rs",
        shape: "`[{name, nodes, allocatable, requested, free}]`",
        meaning: "what the nodes advertise of each device resource, whatever the view's pod (work with no pod yet)",
    },
    Fact {
        name: "volcano",
        built_by: "facts::placement::volcano",
        source: "core/src/facts/placement/mod.rs",
        shape: "`{queue, found, capability, capabilityWithoutPods}` or null",
        meaning: "the Volcano queue the work names (Job or PodGroup `spec.queue`, pod annotation) and whether its capability leaves out `pods`",
    },
    Fact {
        name: "device",
        built_by: "facts::device::facts",
        source: "core/src/facts/device/mod.rs",
        shape: "see the source file's `//!` header, which lists every field",
        meaning: "GPU-labelled nodes that advertise nothing, allocatable below capacity, device-plugin and GPU Operator pods and ClusterPolicy state, shared-resource renames, GFD label values the selector asks for, fake-gpu pools and plugin crashes, DRA claims, classes, slices per driver and node",
    },
    Fact {
        name: "admission",
        built_by: "facts::admission::facts",
        source: "core/src/facts/admission/mod.rs",
        shape: "see the source file's `//!` header, which lists every field",
        meaning: "queue name and where the label is; LocalQueue/ClusterQueue found, active, reason; whether Kueue objects exist; JobSet/LWS CRD age against now; no-conditions and workloads ahead; eviction, preemption and the preemptor; requeue timing; deactivation; admission checks not ready; the parsed flavor-assignment message; scheduling gates split into Kueue's and others'",
    },
    Fact {
        name: "grouping",
        built_by: "facts::grouping::facts",
        source: "core/src/facts/grouping/mod.rs",
        shape: "see the source file's `//!` header, which lists every field",
        meaning: "JobSet restarts and leftovers, the replicated job being waited on; LWS leader state, worker StatefulSet, recreate events; FailedCreate on child Jobs/StatefulSets (webhook and Service named); the group's device request against eligible nodes; Grove PodGang and gated pods",
    },
    Fact {
        name: "placement",
        built_by: "facts::placement::facts",
        source: "core/src/facts/placement/mod.rs",
        shape: "see the source file's `//!` header, which lists every field",
        meaning: "untolerated taints (ten rows per distinct taint, every node named) and the missing toleration, for a pod not yet bound to a node; selector labels and who carries them; cordoned nodes (likewise); scheduling gates; scheduler silence; containers adding up; volumes; KAI queue limit, parent queue, stale conditions; reservation namespaces; gang groups",
    },
    Fact {
        name: "runtime",
        built_by: "facts::runtime::facts",
        source: "core/src/facts/runtime/mod.rs",
        shape: "see the source file's `//!` header, which lists every field",
        meaning: "container states (waiting/terminated reasons, exit codes, messages), probe and sandbox events, FailedCreate of the owner (RuntimeClass not found)",
    },
    Fact {
        name: "serving",
        built_by: "facts::serving::facts",
        source: "core/src/facts/serving/mod.rs",
        shape: "see the source file's `//!` header, which lists every field",
        meaning: "the DGD's pods by component and Ready frontends/workers; what asks for NATS and whether it exists; InferencePool parent conditions, EPP Service, matched and Ready pods; simulators requesting GPUs",
    },
];

/// The subject of this name.
pub fn subject(name: &str) -> Option<&'static Subject> {
    SUBJECTS.iter().find(|s| s.name == name)
}

/// The fact of this name (the first key after `$.facts`).
pub fn fact(name: &str) -> Option<&'static Fact> {
    FACTS.iter().find(|f| f.name == name)
}

/// The names of every subject, for error messages.
pub fn subject_names() -> String {
    SUBJECTS
        .iter()
        .map(|s| s.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The names of every fact, for error messages.
pub fn fact_names() -> String {
    FACTS.iter().map(|f| f.name).collect::<Vec<_>>().join(", ")
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

/// `docs/view.md`: the view's subjects and facts as a reader of rule files needs them.
pub fn view_doc() -> String {
    use std::fmt::Write as _;
    let mut out = String::from(
        "# The view: what a rule can read\n\n\
         Generated by `cargo xtask docs` from `core/src/catalog.rs`; do not edit by hand.\n\n\
         A rule's paths are JSONPath (RFC 9535, as [jsonpath-rust](https://docs.rs/jsonpath-rust) reads\n\
         it) into the **view** of one target: a JSON document whose top-level keys are *subjects*. Each\n\
         subject is a Kubernetes object (or a list of objects) exactly as `kubectl get -o json` prints it,\n\
         so paths look like `$.pod.status.conditions[?@.type=='PodScheduled'].reason`. Evidence points at\n\
         the object the subject came from (`Pod ml/trainer-0` at `.status.conditions[0].reason`).\n\n\
         Subjects are linked by `core/src/view.rs`. A path into a subject or fact not listed here is a\n\
         load error that names the rule and the path.\n\n\
         ## Subjects\n\n| subject | what | how it is found |\n|---|---|---|\n",
    );
    // Subjects found the same way share a row, as a reader looks for them together.
    let mut i = 0;
    while i < SUBJECTS.len() {
        let s = &SUBJECTS[i];
        let mut names = vec![format!("`{}`", s.name)];
        let mut j = i + 1;
        while j < SUBJECTS.len() && SUBJECTS[j].what == s.what && SUBJECTS[j].found == s.found {
            names.push(format!("`{}`", SUBJECTS[j].name));
            j += 1;
        }
        let _ = writeln!(out, "| {} | {} | {} |", names.join(", "), s.what, s.found);
        i = j;
    }
    out.push_str(
        "\nEvents in the view have one shape whatever their API: `{reason, message, type, component, count,\n\
         lastTimestamp, involvedObject: {kind, namespace, name}}`. For `events.k8s.io/v1` events, evidence\n\
         still points at the event's own fields (`note`, `regarding`, `reportingController`, `eventTime`).\n\n\
         ## Facts (`$.facts`)\n\n\
         Each fact is built by one function; the file is linked.\n\n\
         | fact | built by | shape | meaning |\n|---|---|---|---|\n",
    );
    for f in FACTS {
        let _ = writeln!(
            out,
            "| `{}` | [`{}`](../{}) | {} | {} |",
            f.name, f.built_by, f.source, f.shape, f.meaning
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_sources_exist() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        for (i, s) in SUBJECTS.iter().enumerate() {
            assert!(
                !SUBJECTS[..i].iter().any(|x| x.name == s.name),
                "{}",
                s.name
            );
        }
        for (i, f) in FACTS.iter().enumerate() {
            assert!(!FACTS[..i].iter().any(|x| x.name == f.name), "{}", f.name);
            assert!(
                root.join(f.source).is_file(),
                "{}: {} is not a file",
                f.name,
                f.source
            );
            let function = f.built_by.split(", ").next().unwrap_or_default();
            let name = function.rsplit("::").next().unwrap_or_default();
            let text = std::fs::read_to_string(root.join(f.source)).unwrap_or_default();
            assert!(
                text.contains(&format!("fn {name}(")) || text.contains(&format!("fn {name}<")),
                "{}: no `fn {name}` in {}",
                f.name,
                f.source
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
