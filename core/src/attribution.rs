//! Which layer a piece of negative evidence belongs to: the one table the generic evidence
//! floor reads (`facts::signals`). A Warning event, a failing condition or a container that
//! cannot start is attributed here to the layer whose decision it reports, so that every layer
//! can speak from what the bundle shows even where no specific rule knows the case.
//!
//! A signal is attributed by the first of these that knows it:
//! 1. a marker in its text that names the layer whoever reports it ([`MESSAGE_MARKERS`]: the
//!    NVIDIA container toolkit's hook, the OCI runtime, CDI, a RuntimeClass);
//! 2. its reason ([`REASONS`]: `FailedScheduling`, `FailedCreatePodSandBox`, …);
//! 3. the API group of the object it is about ([`GROUPS`]: `kueue.x-k8s.io`, …) or, for the
//!    device stack's own pods, their names ([`DEVICE_STACK_PODS`]);
//! 4. the component that reported it ([`COMPONENTS`]).
//!
//! Each row says who decides (`by`, the `decidedBy` name) where the reporter does not.

use crate::layer::Layer;

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
    ("unresolvable CDI devices", at(Layer::Runtime, "containerd")),
    ("OCI runtime", at(Layer::Runtime, "containerd")),
    (
        "failed to create containerd task",
        at(Layer::Runtime, "containerd"),
    ),
    ("no runtime for", at(Layer::Runtime, "containerd")),
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
    // Operators that make one body of pods out of a job spec: their failures are grouping's.
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

/// Name fragments of the device stack's own pods and DaemonSets (the device plugin, the GPU
/// Operator and DRA drivers): a failure of theirs is the device layer's, unless its text names
/// the runtime (a marker above wins). A Node's own numbers (devices held back as unhealthy)
/// are the device layer's too.
pub const DEVICE_STACK_PODS: &[&str] = &[
    "nvidia-device-plugin",
    "gpu-feature-discovery",
    "nvidia-driver",
    "nvidia-operator-validator",
    "nvidia-cuda-validator",
    "nvidia-dcgm",
    "nvidia-mig-manager",
    "gpu-operator",
    "dra-example-driver",
    "nvidia-dra-driver",
    "k8s-dra-driver",
    "fake-gpu-operator",
    "device-plugin",
    "dra-driver",
    "kubelet-plugin",
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
    pub reason: &'a str,
    pub message: &'a str,
    /// The container name or condition type the signal was read from.
    pub field: &'a str,
}

/// The container runtime's own GPU pieces: the NVIDIA container toolkit's DaemonSet installs
/// the runtime hook and writes the CDI specs, so its failures are the runtime layer's.
pub const RUNTIME_STACK_PODS: &[&str] = &["nvidia-container-toolkit"];

/// Whether a Pod or DaemonSet is one of the device stack's own (by [`DEVICE_STACK_PODS`]).
pub fn is_device_stack(kind: &str, name: &str) -> bool {
    matches!(kind, "Pod" | "DaemonSet")
        && !RUNTIME_STACK_PODS.iter().any(|n| name.contains(n))
        && DEVICE_STACK_PODS.iter().any(|n| name.contains(n))
}

/// The layer a signal reports on, or `None` when nothing in the table knows it.
pub fn attribute(a: &About) -> Option<Attribution> {
    if let Some((_, at)) = MESSAGE_MARKERS.iter().find(|(m, _)| a.message.contains(m)) {
        return Some(*at);
    }
    // The GPU Operator's validator checks each part of the stack in its own init container:
    // the toolkit's and CUDA's checks fail on the runtime, the driver's and plugin's on the
    // device layer.
    if a.kind == "Pod" && ["toolkit-validation", "cuda-validation"].contains(&a.field) {
        return Some(at(Layer::Runtime, "nvidia-container-toolkit"));
    }
    if matches!(a.kind, "Pod" | "DaemonSet")
        && RUNTIME_STACK_PODS.iter().any(|n| a.name.contains(n))
    {
        return Some(at(Layer::Runtime, "nvidia-container-toolkit"));
    }
    let device_stack = a.kind == "Node" || is_device_stack(a.kind, a.name);
    if device_stack && a.reason != "KubeletNotReady" {
        return Some(at(Layer::Device, "nvidia-device-plugin"));
    }
    if let Some(res) = a.reason.strip_prefix("OutOf")
        && res.contains('/')
    {
        // `OutOfnvidia.com/gpu`: the kubelet found fewer devices than the scheduler counted.
        return Some(at(Layer::Device, "kubelet"));
    }
    // A controller's request the API server found invalid (a name too long, a bad label) is
    // the fault of whoever generated the object: the group above the controller.
    if a.reason == "FailedCreate"
        && a.message.contains(" is invalid: ")
        && let Some(at) = group_row(&About {
            group: a.owner_group,
            kind: "",
            ..*a
        })
    {
        return Some(at);
    }
    if let Some((_, at)) = REASONS.iter().find(|(r, _)| *r == a.reason) {
        // Core objects' reasons; another API's objects speak for their own layer (a Workload's
        // `Evicted` is Kueue's, not the kubelet's).
        if a.group.is_empty() || group_row(a).is_none() {
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
}

fn group_row(a: &About) -> Option<Attribution> {
    GROUPS
        .iter()
        .find(|(g, k, _)| *g == a.group && k.is_none_or(|k| k == a.kind))
        .map(|(_, _, at)| *at)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layer(a: About) -> Option<Layer> {
        attribute(&a).map(|x| x.layer)
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
        assert_eq!(layer(r("OutOfcpu")), Some(Layer::Placement));
        assert_eq!(layer(r("SchedulingGated")), Some(Layer::Admission));
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
