//! Which layer a piece of negative evidence belongs to: the one table the generic evidence
//! floor reads (`facts::signals`). A Warning event, a failing condition or a container that
//! cannot start is attributed here to the layer whose decision it reports, so that every layer
//! can speak from what the bundle shows even where no specific rule knows the case.
//!
//! A signal is attributed by the first of these that knows it:
//! 1. a marker in its text that names the layer whoever reports it ([`MESSAGE_MARKERS`]: the
//!    NVIDIA container toolkit's hook, the OCI runtime, CDI, a RuntimeClass);
//! 2. its reason ([`REASONS`]: `FailedScheduling`, `FailedCreatePodSandBox`, …);
//! 3. the API group of the object it is about ([`GROUPS`]: `kueue.x-k8s.io`, …);
//! 4. the component that reported it ([`COMPONENTS`]).
//!
//! A signal on a component's own pod (the registry of `rules/components.yaml`: the device
//! plugin, the toolkit, Kueue's controller, an endpoint picker) is named by how the component
//! fails instead ([`crate::components::Failure`]): never placed, placement; never started, the
//! runtime; failing on its own terms, the layer it serves.
//!
//! Each row says who decides (`by`, the `decidedBy` name) where the reporter does not.

use crate::components::{self, Component};
use crate::layer::Layer;

/// The reason of a signal about a device request in a made object that its owner did not ask
/// for (written by `facts::drift`, read here: attribution is the lower module).
pub const NOT_FROM_OWNER: &str = "DeviceRequestNotFromOwner";

/// A layer and the component whose decision it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Attribution {
    pub layer: Layer,
    /// The deciding component's name as it calls itself (`kubelet`, `kueue`, …).
    pub by: &'static str,
}

const fn at(layer: Layer, by: &'static str) -> Attribution {
    Attribution { layer, by }
}

/// Texts that name their layer whatever object or component reports them (case-sensitive, as
/// the components print them).
pub const MESSAGE_MARKERS: &[(&str, Attribution)] = &[
    // The NVIDIA container runtime hook and its library (driver/library mismatch, no NVML).
    (
        "nvidia-container-cli",
        at(Layer::Runtime, "nvidia-container-toolkit"),
    ),
    (
        "nvidia-container-runtime",
        at(Layer::Runtime, "nvidia-container-toolkit"),
    ),
    (
        "driver/library version mismatch",
        at(Layer::Runtime, "nvidia-container-toolkit"),
    ),
    // The driver's user-space library is the runtime's to inject: a container that cannot load
    // NVML was started without the NVIDIA runtime (a missing RuntimeClass, runc by default).
    (
        "libnvidia-ml.so",
        at(Layer::Runtime, "nvidia-container-toolkit"),
    ),
    (
        "could not load NVML library",
        at(Layer::Runtime, "nvidia-container-toolkit"),
    ),
    (
        "ERROR_LIBRARY_NOT_FOUND",
        at(Layer::Runtime, "nvidia-container-toolkit"),
    ),
    ("unresolvable CDI devices", at(Layer::Runtime, "containerd")),
    ("OCI runtime", at(Layer::Runtime, "containerd")),
    (
        "failed to create containerd task",
        at(Layer::Runtime, "containerd"),
    ),
    ("no runtime for", at(Layer::Runtime, "containerd")),
    // containerd could not create a mount's source on the node while building the
    // container's spec (a hostPath under a read-only /sys): the node's runtime, whoever's pod
    // it is. (A device path that is missing, `lstat /dev/…`, was handed out by a device
    // plugin: not this.)
    (
        "failed to generate spec: failed to mkdir",
        at(Layer::Runtime, "containerd"),
    ),
    // The scheduler's own words, quoted by whatever object relays them (a Knative Revision, a
    // serving resource's condition): the scheduler decided.
    (
        " nodes are available: ",
        at(Layer::Placement, "kube-scheduler"),
    ),
    (
        "unknown or invalid runtime name",
        at(Layer::Runtime, "dockerd"),
    ),
    ("RuntimeClass", at(Layer::Runtime, "kubelet")),
    // Webhooks of the grouping and admission controllers, by their Service's name, and
    // JobSet's own refusal to create followers before the leader is placed.
    ("jobset-webhook-service", at(Layer::Grouping, "jobset")),
    ("lws-webhook-service", at(Layer::Grouping, "lws")),
    (
        "leader pod not yet scheduled",
        at(Layer::Grouping, "jobset"),
    ),
    ("kueue-webhook-service", at(Layer::Admission, "kueue")),
    // Dynamic Resource Allocation: the kubelet asks the driver to prepare the devices.
    (
        "failed to prepare dynamic resources",
        at(Layer::Device, "kubelet"),
    ),
    ("DRA driver", at(Layer::Device, "kubelet")),
];

/// Event, condition, container-state and pod-status reasons.
pub const REASONS: &[(&str, Attribution)] = &[
    // Placement: the scheduler and the autoscaler that would add a node.
    (
        "FailedScheduling",
        at(Layer::Placement, "default-scheduler"),
    ),
    ("Unschedulable", at(Layer::Placement, "default-scheduler")),
    (
        "NotTriggerScaleUp",
        at(Layer::Placement, "cluster-autoscaler"),
    ),
    ("FailedScaleUp", at(Layer::Placement, "cluster-autoscaler")),
    ("NodeAffinity", at(Layer::Placement, "kubelet")),
    ("OutOfcpu", at(Layer::Placement, "kubelet")),
    ("OutOfmemory", at(Layer::Placement, "kubelet")),
    ("OutOfpods", at(Layer::Placement, "kubelet")),
    // Admission: scheduling gates, quota and the API server's admission.
    ("SchedulingGated", at(Layer::Admission, "kube-scheduler")),
    (
        "FailedCreate",
        at(Layer::Admission, "kube-controller-manager"),
    ),
    ("Inadmissible", at(Layer::Admission, "kueue")),
    // Device: the kubelet's device manager could not hand out the devices it was promised.
    ("UnexpectedAdmissionError", at(Layer::Device, "kubelet")),
    (
        "FailedPrepareDynamicResources",
        at(Layer::Device, "kubelet"),
    ),
    // Runtime: the node could not start what was placed on it.
    ("FailedCreatePodSandBox", at(Layer::Runtime, "kubelet")),
    ("FailedMount", at(Layer::Runtime, "kubelet")),
    (
        "FailedAttachVolume",
        at(Layer::Runtime, "attachdetach-controller"),
    ),
    ("FailedMapVolume", at(Layer::Runtime, "kubelet")),
    ("ErrImagePull", at(Layer::Runtime, "kubelet")),
    ("ImagePullBackOff", at(Layer::Runtime, "kubelet")),
    ("ErrImageNeverPull", at(Layer::Runtime, "kubelet")),
    ("InvalidImageName", at(Layer::Runtime, "kubelet")),
    ("CreateContainerConfigError", at(Layer::Runtime, "kubelet")),
    ("CreateContainerError", at(Layer::Runtime, "kubelet")),
    ("RunContainerError", at(Layer::Runtime, "kubelet")),
    ("StartError", at(Layer::Runtime, "kubelet")),
    ("ContainerCannotRun", at(Layer::Runtime, "kubelet")),
    ("CrashLoopBackOff", at(Layer::Runtime, "kubelet")),
    ("BackOff", at(Layer::Runtime, "kubelet")),
    ("OOMKilled", at(Layer::Runtime, "kubelet")),
    ("Error", at(Layer::Runtime, "kubelet")),
    ("Failed", at(Layer::Runtime, "kubelet")),
    ("FailedPostStartHook", at(Layer::Runtime, "kubelet")),
    ("Unhealthy", at(Layer::Runtime, "kubelet")),
    ("Evicted", at(Layer::Runtime, "kubelet")),
    ("ContainerStatusUnknown", at(Layer::Runtime, "kubelet")),
    ("KubeletNotReady", at(Layer::Runtime, "kubelet")),
    // A Job that gave up because its pods kept failing: the containers' failure.
    ("BackoffLimitExceeded", at(Layer::Runtime, "job-controller")),
    ("PodFailurePolicy", at(Layer::Runtime, "job-controller")),
];

/// Reasons of [`REASONS`] that are plain words any controller writes (`Failed`, `Error`): they
/// name the kubelet's layer only on the core objects the kubelet and its peers report on.
const GENERIC_REASONS: &[&str] = &["Failed", "Error", "BackOff", "Evicted", "Unhealthy"];

/// API groups (and kinds, where one group holds several layers' objects), for signals on
/// objects other than Pods and Events.
pub const GROUPS: &[(&str, Option<&str>, Attribution)] = &[
    ("kueue.x-k8s.io", None, at(Layer::Admission, "kueue")),
    ("jobset.x-k8s.io", None, at(Layer::Grouping, "jobset")),
    ("leaderworkerset.x-k8s.io", None, at(Layer::Grouping, "lws")),
    (
        "scheduling.run.ai",
        None,
        at(Layer::Placement, "kai-scheduler"),
    ),
    (
        "scheduling.volcano.sh",
        None,
        at(Layer::Placement, "volcano"),
    ),
    // kube-batch's and Volcano's first PodGroup API, before `scheduling.volcano.sh`.
    (
        "scheduling.incubator.k8s.io",
        None,
        at(Layer::Placement, "volcano"),
    ),
    (
        "scheduling.x-k8s.io",
        None,
        at(Layer::Placement, "scheduler-plugins"),
    ),
    // A PodGang is a pod group (grouping); the PodCliqueSet and its cliques are the serving
    // stack's deployment objects.
    ("scheduler.grove.io", None, at(Layer::Grouping, "grove")),
    ("grove.io", None, at(Layer::Serving, "grove")),
    ("resource.k8s.io", None, at(Layer::Device, "kubelet")),
    ("node.k8s.io", None, at(Layer::Runtime, "kubelet")),
    (
        "nvidia.com",
        Some("ClusterPolicy"),
        at(Layer::Device, "gpu-operator"),
    ),
    (
        "nvidia.com",
        Some("NVIDIADriver"),
        at(Layer::Device, "gpu-operator"),
    ),
    ("nvidia.com", None, at(Layer::Serving, "dynamo-operator")),
    ("llm-d.ai", None, at(Layer::Serving, "llm-d")),
    // The NIM operator's NIMService, NIMCache and NIMPipeline: a model server and what it loads.
    ("apps.nvidia.com", None, at(Layer::Serving, "nim-operator")),
    // AIBrix's model fleets (RayClusterFleet, StormService) and model adapters serve requests.
    (
        "orchestration.aibrix.ai",
        None,
        at(Layer::Serving, "aibrix"),
    ),
    ("model.aibrix.ai", None, at(Layer::Serving, "aibrix")),
    // An InferenceService's own words (its model's load failure). Not the LLMInferenceService:
    // its conditions lag what serves (a Progressing LWS, a Gateway it waits for while routes
    // work), so they are no failure by themselves.
    (
        "serving.kserve.io",
        Some("InferenceService"),
        at(Layer::Serving, "kserve"),
    ),
    (
        "serving.kubeflow.org",
        Some("InferenceService"),
        at(Layer::Serving, "kserve"),
    ),
    (
        "inference.networking.k8s.io",
        None,
        at(Layer::Serving, "inference-gateway"),
    ),
    (
        "inference.networking.x-k8s.io",
        None,
        at(Layer::Serving, "inference-gateway"),
    ),
    (
        "gateway.networking.k8s.io",
        None,
        at(Layer::Serving, "gateway"),
    ),
    // A RayService serves requests; the RayCluster under it, like a RayJob's, is one body of
    // pods, and the operators that make such bodies from a job spec fail at grouping.
    ("ray.io", Some("RayService"), at(Layer::Serving, "kuberay")),
    ("ray.io", None, at(Layer::Grouping, "kuberay")),
    (
        "kubeflow.org",
        None,
        at(Layer::Grouping, "training-operator"),
    ),
    (
        "trainer.kubeflow.org",
        None,
        at(Layer::Grouping, "kubeflow-trainer"),
    ),
    // Karpenter's NodeClaims: the node a pod was placed on before it existed.
    ("karpenter.sh", None, at(Layer::Placement, "karpenter")),
];

/// Components that report events (`source.component`, `reportingController`), by prefix.
pub const COMPONENTS: &[(&str, Attribution)] = &[
    ("kueue", at(Layer::Admission, "kueue")),
    ("jobset", at(Layer::Grouping, "jobset")),
    ("lws", at(Layer::Grouping, "lws")),
    ("leaderworkerset", at(Layer::Grouping, "lws")),
    (
        "default-scheduler",
        at(Layer::Placement, "default-scheduler"),
    ),
    ("kai-scheduler", at(Layer::Placement, "kai-scheduler")),
    ("binder", at(Layer::Placement, "kai-scheduler")),
    ("volcano", at(Layer::Placement, "volcano")),
    (
        "cluster-autoscaler",
        at(Layer::Placement, "cluster-autoscaler"),
    ),
    ("karpenter", at(Layer::Placement, "karpenter")),
    ("kubelet", at(Layer::Runtime, "kubelet")),
    ("dynamo", at(Layer::Serving, "dynamo-operator")),
    // The NIM operator's reconcilers (`nimservice-controller`, `nimcache-controller`).
    ("nimservice", at(Layer::Serving, "nim-operator")),
    ("nimcache", at(Layer::Serving, "nim-operator")),
    ("grove", at(Layer::Serving, "grove")),
];

/// What is known of a signal when it is attributed.
#[derive(Debug, Clone, Copy, Default)]
pub struct About<'a> {
    /// API group of the object the signal is about (`""` for core objects).
    pub group: &'a str,
    pub kind: &'a str,
    /// The object's name (the device stack's pods are known by it).
    pub name: &'a str,
    /// The reporting component, for events.
    pub component: &'a str,
    /// API group of the object's top owner (a StatefulSet's LeaderWorkerSet), `""` if none.
    pub owner_group: &'a str,
    /// Kind of that top owner, `""` if none.
    pub owner_kind: &'a str,
    pub reason: &'a str,
    pub message: &'a str,
    /// The container name or condition type the signal was read from.
    pub field: &'a str,
    /// The registry's component the object is (by its labels and images too), when the caller
    /// knows; else it is looked up by name.
    pub serves: Option<&'static Component>,
}

/// Whether a Pod or DaemonSet is one of the device stack's own: a component of the registry
/// (`rules/components.yaml`) that serves the device layer, known by its name.
pub fn is_device_stack(kind: &str, name: &str) -> bool {
    matches!(kind, "Pod" | "DaemonSet")
        && components::by_name(kind, name).is_some_and(|c| c.layer == Layer::Device)
}

/// The layer and controller of an object's own API group (and kind), from [`GROUPS`]; for an
/// API the table does not know at all, from the words of its kind and group ([`by_words`]).
pub fn of_group(group: &str, kind: &str) -> Option<Attribution> {
    table_row(group, kind).or_else(|| by_words(group, kind))
}

/// The row of [`GROUPS`] for an API group (and kind), if any.
fn table_row(group: &str, kind: &str) -> Option<Attribution> {
    GROUPS
        .iter()
        .find(|(g, k, _)| *g == group && k.is_none_or(|k| k == kind))
        .map(|&(_, _, a)| a)
}

/// Words in a kind or API group that say which layer a custom resource belongs to, first match
/// wins. Serving stacks, queues, device operators and job operators keep appearing faster than
/// any table of groups (OME's `ome.io` InferenceService, a vendor's `DeviceConfig`), and they
/// name themselves after what they do.
const WORDS: &[(&[&str], Attribution)] = &[
    (
        &["inference", "serving", "model", "llm", "predictor"],
        at(Layer::Serving, "operator"),
    ),
    (&["queue", "quota"], at(Layer::Admission, "operator")),
    (
        &["gpu", "device", "driver", "accelerator"],
        at(Layer::Device, "operator"),
    ),
    (&["podgroup", "gang"], at(Layer::Placement, "operator")),
    (&["job"], at(Layer::Grouping, "operator")),
];

/// A custom resource's layer from its words ([`WORDS`]), only for an API group that no row of
/// [`GROUPS`] names (a group the table knows keeps its exceptions: KServe's
/// LLMInferenceService is deliberately no failure by its conditions alone) and that is not one
/// of Kubernetes' own (`*.k8s.io`: storage, networking, policy have no layer).
fn by_words(group: &str, kind: &str) -> Option<Attribution> {
    let foreign = group.contains('.') && !group.ends_with("k8s.io");
    if !foreign || GROUPS.iter().any(|(g, _, _)| *g == group) {
        return None;
    }
    let text = format!("{kind} {group}").to_ascii_lowercase();
    WORDS
        .iter()
        .find(|(words, _)| words.iter().any(|w| text.contains(w)))
        .map(|&(_, a)| a)
}

/// The layer a signal reports on, or `None` when nothing in the table knows it.
pub fn attribute(a: &About) -> Option<Attribution> {
    // The GPU Operator's validator checks each part of the stack in its own init container:
    // the toolkit's and CUDA's checks fail on the runtime, the driver's and plugin's on the
    // device layer.
    if a.kind == "Pod" && ["toolkit-validation", "cuda-validation"].contains(&a.field) {
        return Some(at(Layer::Runtime, "nvidia-container-toolkit"));
    }
    let marker = MESSAGE_MARKERS
        .iter()
        .find(|(m, _)| a.message.contains(m))
        .map(|(_, at)| *at);
    let serves = a.serves.or_else(|| components::by_name(a.kind, a.name));
    if let Some(c) = serves {
        return Some(component_failure(a, c, marker));
    }
    if marker.is_some() {
        return marker;
    }
    plain(a)
}

/// A signal of a component's own pod: the layer of the cause is named by how it fails, with
/// the component as the decider when it failed on its own terms.
fn component_failure(a: &About, c: &'static Component, marker: Option<Attribution>) -> Attribution {
    let plain = marker.or_else(|| plain(a));
    // A pod held before any node (a scheduling gate, an admission refusal, a group not yet
    // made) is held by that layer, whatever the pod is.
    if let Some(p) = plain
        && matches!(p.layer, Layer::Admission | Layer::Grouping)
    {
        return p;
    }
    let runtime_marker = marker.is_some_and(|m| m.layer == Layer::Runtime);
    let how = components::failure(plain.map(|p| p.layer), a.reason, runtime_marker);
    match (how, plain) {
        (components::Failure::OwnTerms, _) | (_, None) => Attribution {
            layer: how.layer(c.layer),
            by: c.id.as_str(),
        },
        (_, Some(p)) => at(how.layer(c.layer), p.by),
    }
}

/// Where a DaemonSet's note lists node labels of the same labeller as the ones it wants
/// (`facts::signals` writes it): the labeller ran, the selector names a spelling it does not
/// write.
pub const KIN_LABELS: &str = "; nodes carry the same labeller's ";

/// Node-label prefixes the device stack's labellers write (Node Feature Discovery, NVIDIA GPU
/// Feature Discovery and the GPU Operator, AMD's and Intel's labellers).
const DEVICE_LABELS: &[&str] = &[
    "feature.node.kubernetes.io/",
    "nvidia.com/",
    "amd.com/",
    "beta.amd.com/",
    "gpu.intel.com/",
    "intel.feature.node.kubernetes.io/",
];

/// The layer a signal names by itself: its reason, its object's API group, its reporter.
fn plain(a: &About) -> Option<Attribution> {
    if a.kind == "Node" && a.reason != "KubeletNotReady" {
        // A Node's own numbers (devices held back as unhealthy) are the device layer's.
        return Some(at(Layer::Device, "nvidia-device-plugin"));
    }
    if let Some(res) = a.reason.strip_prefix("OutOf")
        && res.contains('/')
    {
        // `OutOfnvidia.com/gpu, … capacity: 0`: the node had none of the device when the pod
        // came, so whatever bound it there (a provisioner binding ahead of the device plugin, a
        // hand-set `nodeName`) placed it without the scheduler's check: placement's, with the
        // device layer the other side. Any other count is the kubelet finding fewer devices
        // than the scheduler counted.
        if a.message.contains("capacity: 0") {
            return Some(at(Layer::Placement, "kubelet"));
        }
        return Some(at(Layer::Device, "kubelet"));
    }
    // A DaemonSet that wants no pod at all: its node selector, affinity or taints leave it no
    // node, which the DaemonSet controller decides as a scheduler would (a component never
    // placed). When the labels it waits for are ones the device stack writes (feature or GPU
    // discovery), the labeller is what has not run: the device layer's; unless the nodes carry
    // another spelling of the same labeller's (it ran; the selector asks for a label it does
    // not write), which is the selector's, placement's.
    if a.kind == "DaemonSet" && a.message.starts_with("status.desiredNumberScheduled=0,") {
        let wanted = a
            .message
            .split_once("; its nodes must carry ")
            .map(|(_, l)| l);
        let labeller_ran = a.message.contains(KIN_LABELS);
        if !labeller_ran && wanted.is_some_and(|l| DEVICE_LABELS.iter().any(|p| l.contains(p))) {
            return Some(at(Layer::Device, "node-feature-discovery"));
        }
        return Some(at(Layer::Placement, "daemonset-controller"));
    }
    // A gated pod is held by the gate's owner, in the layer of the decision it waits for
    // (Kueue's admission, Grove's PodGang); a gate no table row knows was put there at
    // admission by a webhook, and is admission's (`SchedulingGated` below).
    if a.reason == "SchedulingGated"
        && let Some(g) = a
            .message
            .strip_prefix(crate::gates::HELD_BY)
            .and_then(crate::gates::owner)
    {
        return Some(at(g.layer, g.owner));
    }
    // A controller's request the API server found invalid (a name too long, a bad label), or a
    // device request in a pod template its owner never asked for, is the fault of whoever
    // generated the object: the group above the controller.
    let generated = a.reason == "FailedCreate" && a.message.contains(" is invalid: ");
    if (generated || a.reason == NOT_FROM_OWNER)
        && let Some(at) = group_row(&About {
            group: a.owner_group,
            kind: a.owner_kind,
            ..*a
        })
    {
        return Some(at);
    }
    if let Some((_, at)) = REASONS.iter().find(|(r, _)| *r == a.reason) {
        // Core objects' reasons; another API's objects speak for their own layer (a Workload's
        // `Evicted` is Kueue's, not the kubelet's). A bare word such as `Failed` on an object of
        // an API this table does not know is its own controller's, never the kubelet's: the
        // kubelet writes no custom resource's status.
        let core = a.group.is_empty() || matches!(a.group, "apps" | "batch");
        // (A group known only by its words still lets a specific reason speak first: a
        // Knative Revision's `FailedCreate` from a quota is admission's.)
        if core || (table_row(a.group, a.kind).is_none() && !GENERIC_REASONS.contains(&a.reason)) {
            return Some(*at);
        }
    }
    if let Some(at) = group_row(a) {
        return Some(at);
    }
    COMPONENTS
        .iter()
        .find(|(c, _)| !a.component.is_empty() && a.component.starts_with(c))
        .map(|(_, at)| *at)
        .or_else(|| reported_by_component(a.component))
}

/// A reporter the table does not know that is one of the registry's schedulers by its name
/// (HAMi's scheduler reporting `FilteringFailed`): an event a scheduler writes on a pod is its
/// placement decision. Other components' events on a pod are not decisions about it (KAI's
/// pod-grouper reports its own trouble there), so only placement's components speak this way.
fn reported_by_component(component: &str) -> Option<Attribution> {
    if component.is_empty() {
        return None;
    }
    components::by_name("Pod", component)
        .filter(|c| c.layer == Layer::Placement)
        .map(|c| Attribution {
            layer: c.layer,
            by: c.id.as_str(),
        })
}

fn group_row(a: &About) -> Option<Attribution> {
    of_group(a.group, a.kind)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layer(a: About) -> Option<Layer> {
        attribute(&a).map(|x| x.layer)
    }

    #[test]
    fn a_scheduler_of_the_registry_speaks_for_placement_and_no_other_component_does() {
        let by = |component| {
            attribute(&About {
                kind: "Pod",
                component,
                reason: "FilteringFailed",
                message: "no available node, all node scores do not meet",
                ..About::default()
            })
            .map(|x| (x.layer, x.by))
        };
        assert_eq!(
            by("hami-scheduler"),
            Some((Layer::Placement, "hami-scheduler"))
        );
        // KAI's pod-grouper is a component of the grouping layer: its notes on a pod are not a
        // decision about the pod.
        assert_eq!(by("pod-grouper"), None);
        assert_eq!(by("someone-else"), None);
    }

    #[test]
    fn an_api_no_row_knows_is_read_by_the_words_of_its_kind_and_group() {
        let layer = |g, k| of_group(g, k).map(|a| a.layer);
        assert_eq!(layer("ome.io", "InferenceService"), Some(Layer::Serving));
        assert_eq!(layer("ome.io", "ClusterBaseModel"), Some(Layer::Serving));
        assert_eq!(layer("amd.com", "DeviceConfig"), Some(Layer::Device));
        assert_eq!(layer("example.org", "TrainingJob"), Some(Layer::Grouping));
        assert_eq!(layer("queues.example.org", "Queue"), Some(Layer::Admission));
        // A group the table knows keeps its exceptions; Kubernetes' own groups and core objects
        // have no layer by their words; nor does a kind that says nothing.
        assert_eq!(layer("serving.kserve.io", "LLMInferenceService"), None);
        assert_eq!(layer("storage.k8s.io", "CSIDriver"), None);
        assert_eq!(layer("", "ResourceQuota"), None);
        assert_eq!(layer("example.org", "Widget"), None);
    }

    #[test]
    fn markers_win_over_reasons_and_groups() {
        let a = About {
            kind: "Pod",
            reason: "FailedCreatePodSandBox",
            message: "failed to get sandbox runtime: no runtime for \"nvidia\" is configured",
            ..About::default()
        };
        assert_eq!(attribute(&a).map(|x| x.by), Some("containerd"));
        let rc = About {
            group: "apps",
            kind: "ReplicaSet",
            reason: "FailedCreate",
            message: "pods \"x\" is forbidden: pod rejected: RuntimeClass \"nvidia\" not found",
            ..About::default()
        };
        assert_eq!(layer(rc), Some(Layer::Runtime));
        // A mount containerd cannot create is the runtime's, even on a device-stack pod; a
        // device path a plugin handed out is not.
        let mount = About {
            kind: "Pod",
            name: "nvidia-driver-daemonset-7xk2p",
            reason: "Failed",
            message: "Error: failed to generate container \"c98\" spec: failed to generate spec: failed to mkdir \"/sys/devices/system/memory/auto_online_blocks\": read-only file system",
            ..About::default()
        };
        assert_eq!(layer(mount), Some(Layer::Runtime));
        let device = About {
            kind: "Pod",
            name: "nvidia-device-plugin-validator-2xq8r",
            reason: "Failed",
            message: "Error: failed to generate container \"007\" spec: failed to generate spec: lstat /run/nvidia/driver/dev/nvidiactl: no such file or directory",
            ..About::default()
        };
        assert_eq!(layer(device), Some(Layer::Device));
        // The scheduler's words relayed by a serving resource are the scheduler's.
        let relayed = About {
            group: "serving.knative.dev",
            kind: "Service",
            reason: "RevisionFailed",
            message: "Revision \"counter-gzhj8\" failed with message: 0/2 nodes are available: 2 node(s) had taints that the pod didn't tolerate..",
            ..About::default()
        };
        assert_eq!(layer(relayed), Some(Layer::Placement));
    }

    #[test]
    fn a_daemonset_wanting_no_node_is_the_labellers_until_its_labels_show_it_ran() {
        let ds = |message| About {
            group: "apps",
            kind: "DaemonSet",
            name: "gpu-monitor",
            message,
            ..About::default()
        };
        let wants = "status.desiredNumberScheduled=0, status.numberReady=0; its nodes must carry \
                     feature.node.kubernetes.io/pci-10de.present=true";
        assert_eq!(layer(ds(wants)), Some(Layer::Device));
        let ran = format!(
            "{wants}{}feature.node.kubernetes.io/pci-0300_10de.present",
            KIN_LABELS
        );
        assert_eq!(layer(ds(&ran)), Some(Layer::Placement));
        let own = "status.desiredNumberScheduled=0, status.numberReady=0; its nodes must carry \
                   pool=gpu";
        assert_eq!(layer(ds(own)), Some(Layer::Placement));
    }

    #[test]
    fn reasons_of_core_objects() {
        let r = |reason| About {
            kind: "Pod",
            reason,
            ..About::default()
        };
        assert_eq!(layer(r("FailedScheduling")), Some(Layer::Placement));
        assert_eq!(layer(r("ImagePullBackOff")), Some(Layer::Runtime));
        assert_eq!(layer(r("UnexpectedAdmissionError")), Some(Layer::Device));
        assert_eq!(layer(r("OutOfnvidia.com/gpu")), Some(Layer::Device));
        let unadvertised = About {
            kind: "Pod",
            reason: "OutOfnvidia.com/gpu",
            message: "Node didn't have enough resource: nvidia.com/gpu, requested: 1, used: 0, capacity: 0",
            ..About::default()
        };
        assert_eq!(layer(unadvertised), Some(Layer::Placement));
        assert_eq!(layer(r("OutOfcpu")), Some(Layer::Placement));
        assert_eq!(layer(r("SchedulingGated")), Some(Layer::Admission));
        let gated = |message| About {
            kind: "Pod",
            reason: "SchedulingGated",
            message,
            ..About::default()
        };
        let grove = gated("held by scheduling gate grove.io/podgang-pending-creation");
        assert_eq!(
            attribute(&grove).map(|x| (x.layer, x.by)),
            Some((Layer::Grouping, "grove-operator"))
        );
        let unknown = gated("held by scheduling gate checkpoint.example.com/restore");
        assert_eq!(layer(unknown), Some(Layer::Admission));
        assert_eq!(layer(r("NoSuchReason")), None);
    }

    #[test]
    fn another_apis_objects_speak_for_their_layer() {
        let wl = About {
            group: "kueue.x-k8s.io",
            kind: "Workload",
            reason: "Evicted",
            ..About::default()
        };
        assert_eq!(layer(wl), Some(Layer::Admission));
        let dgd = About {
            group: "nvidia.com",
            kind: "DynamoGraphDeployment",
            reason: "Failed",
            ..About::default()
        };
        assert_eq!(layer(dgd), Some(Layer::Serving));
        let cp = About {
            group: "nvidia.com",
            kind: "ClusterPolicy",
            ..About::default()
        };
        assert_eq!(layer(cp), Some(Layer::Device));
        let pg = About {
            group: "scheduling.volcano.sh",
            kind: "PodGroup",
            reason: "Unschedulable",
            ..About::default()
        };
        assert_eq!(layer(pg), Some(Layer::Placement));
    }

    #[test]
    fn device_stack_pods_and_components() {
        let dp = About {
            kind: "Pod",
            name: "nvidia-device-plugin-daemonset-x7k2p",
            reason: "CrashLoopBackOff",
            ..About::default()
        };
        assert_eq!(layer(dp), Some(Layer::Device));
        let hook = About {
            kind: "Pod",
            name: "nvidia-device-plugin-daemonset-x7k2p",
            reason: "RunContainerError",
            message: "nvidia-container-cli: initialization error: nvml error: driver/library version mismatch",
            ..About::default()
        };
        assert_eq!(layer(hook), Some(Layer::Runtime));
        let ev = About {
            kind: "Deployment",
            group: "apps",
            component: "kueue-admission",
            reason: "Something",
            ..About::default()
        };
        assert_eq!(layer(ev), Some(Layer::Admission));
        let invalid = About {
            kind: "StatefulSet",
            group: "apps",
            owner_group: "leaderworkerset.x-k8s.io",
            reason: "FailedCreate",
            message: "create Pod x-0-1 failed error: Pod \"x-0-1\" is invalid: metadata.labels: Invalid value",
            ..About::default()
        };
        assert_eq!(layer(invalid), Some(Layer::Grouping));
        let webhook = About {
            kind: "Job",
            group: "batch",
            reason: "FailedCreate",
            message: "failed calling webhook \"mpod.kb.io\": no endpoints available for service \"jobset-webhook-service\"",
            ..About::default()
        };
        assert_eq!(layer(webhook), Some(Layer::Grouping));
    }
}
