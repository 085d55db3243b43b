//! The component registry (`rules/components.yaml`): which pods are a layer's own machinery,
//! and how a failure of one names the layer of its cause.
//!
//! A component is a pod (or the DaemonSet, Deployment or StatefulSet that makes it) that serves
//! a layer: the device plugin, the container toolkit, Kueue's controller, a scheduler, an
//! endpoint picker. Its failure is evidence against the layer it serves, but the cause is named
//! by *how* it fails ([`Failure`]): never placed is placement's, never started is the runtime's,
//! and failing on its own terms is the served layer's own. The table is data, so a component is
//! added without code; the matching and the judgement live here, once.

use crate::layer::Layer;
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// One entry of the registry.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Component {
    /// What findings call it (`decidedBy`).
    pub id: String,
    /// The layer it serves.
    pub layer: Layer,
    /// `owner/repo` where its issues go.
    pub project: String,
    /// Fragments of the object's (or its owner's) name.
    #[serde(default)]
    pub names: Vec<String>,
    /// Fragments of a container image.
    #[serde(default)]
    pub images: Vec<String>,
    /// Labels that name it, key and value exactly.
    #[serde(default)]
    pub labels: BTreeMap<String, String>,
    /// Names of the containers its controller injects into the work's own pods (KServe's
    /// `storage-initializer`): a failure of such a container is this component failing inside
    /// a pod that is otherwise the user's. Matched exactly; never makes the pod a component.
    #[serde(default)]
    pub containers: Vec<String>,
    /// It loads the NVIDIA driver's user-space libraries (NVML), which the container runtime
    /// injects only into containers run with the NVIDIA runtime.
    #[serde(default, rename = "driverLibraries")]
    pub driver_libraries: bool,
    /// The argument a router reads its model servers' label selector from
    /// (`--k8s-label-selector`), and the one naming their namespace: what it sends requests to
    /// (`$.facts.serving.router`).
    #[serde(default, rename = "selectorArg")]
    pub selector_arg: Option<String>,
    #[serde(default, rename = "namespaceArg")]
    pub namespace_arg: Option<String>,
    /// The extended resource a device plugin registers with the kubelet by default, and the
    /// argument that renames it (HAMi's `--resource-name`): two plugins registering one name on
    /// a node overwrite each other.
    #[serde(default)]
    pub resource: Option<String>,
    #[serde(default, rename = "resourceArg")]
    pub resource_arg: Option<String>,
}

/// The kinds a component is known as: its pods and what makes them.
const KINDS: &[&str] = &[
    "Pod",
    "DaemonSet",
    "Deployment",
    "StatefulSet",
    "ReplicaSet",
];

/// Every entry, in the file's order (among equally specific matches, the first wins).
pub fn registry() -> &'static [Component] {
    static REGISTRY: OnceLock<Vec<Component>> = OnceLock::new();
    REGISTRY.get_or_init(|| {
        // The file is checked by the tests (`registry_loads`): a build whose table does not
        // read has no components rather than no diagnosis.
        serde_json::from_str(crate::embedded::COMPONENTS).unwrap_or_default()
    })
}

/// The component an object is, by its name alone (what an event's subject or a timeline
/// knows).
pub fn by_name(kind: &str, name: &str) -> Option<&'static Component> {
    if !KINDS.contains(&kind) {
        return None;
    }
    most_specific(registry().iter().map(|c| (c, name_match(c, name, ""))))
}

/// The longest of `c`'s name fragments that `name` (or `owner`) holds, in bytes: 0 when none.
fn name_match(c: &Component, name: &str, owner: &str) -> usize {
    c.names
        .iter()
        .filter(|n| named(name, n) || (!owner.is_empty() && named(owner, n)))
        .map(String::len)
        .max()
        .unwrap_or(0)
}

/// Of the components paired with the length of the name fragment they matched (0: none), the
/// one named most specifically; on a tie the file's first. A longer
/// fragment is the more specific component: `nvidia-device-plugin-validator` (the operator's
/// validator) holds `nvidia-device-plugin` (the plugin) too.
fn most_specific<'a>(
    matches: impl Iterator<Item = (&'a Component, usize)>,
) -> Option<&'a Component> {
    let mut best: Option<(&Component, usize)> = None;
    for (c, len) in matches {
        if len > 0 && best.is_none_or(|(_, b)| len > b) {
            best = Some((c, len));
        }
    }
    best.map(|(c, _)| c)
}

/// The component that injects a container of this name into the work's pods.
pub fn by_container(name: &str) -> Option<&'static Component> {
    registry()
        .iter()
        .find(|c| c.containers.iter().any(|n| n == name))
}

/// Whether `name` holds the fragment `frag` as whole words: at its start or after a `-` or
/// `.` (`raycluster-autoscaler-worker` is no `cluster-autoscaler`); a fragment that begins with
/// `-` may stand anywhere.
fn named(name: &str, frag: &str) -> bool {
    if frag.starts_with('-') {
        return name.contains(frag);
    }
    name.match_indices(frag)
        .any(|(i, _)| i == 0 || matches!(name.as_bytes()[i - 1], b'-' | b'.'))
}

/// The component an object is, by its name, its owner's name, its labels and its images.
pub fn of(kind: &str, name: &str, owner: &str, v: &Value) -> Option<&'static Component> {
    if !KINDS.contains(&kind) {
        return None;
    }
    let labels = v.pointer("/metadata/labels").and_then(Value::as_object);
    let spec = if kind == "Pod" {
        v.pointer("/spec")
    } else {
        v.pointer("/spec/template/spec")
    };
    let images: Vec<&str> = ["containers", "initContainers"]
        .iter()
        .filter_map(|k| spec.and_then(|s| s.get(k)).and_then(Value::as_array))
        .flatten()
        .filter_map(|c| c["image"].as_str())
        .collect();
    // The object's own name first: an image is shared (the operator's validator image runs in
    // init containers of every operand's pod), a name is the object's.
    let by_name = most_specific(registry().iter().map(|c| (c, name_match(c, name, owner))));
    by_name.or_else(|| {
        registry().iter().find(|c| {
            c.images
                .iter()
                .any(|i| images.iter().any(|img| img.contains(i.as_str())))
                || c.labels.iter().any(|(k, want)| {
                    labels
                        .and_then(|l| l.get(k))
                        .and_then(Value::as_str)
                        .is_some_and(|got| got == want)
                })
        })
    })
}

/// How a component fails, which names the layer of the cause.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// The scheduler (or a node that could not be made) never placed it.
    NotPlaced,
    /// Its node could not start it: sandbox, CDI, OCI hook, runtime handler, mount, a driver
    /// library the runtime injects.
    NotStarted,
    /// It runs, or tries to, and fails on its own terms.
    OwnTerms,
}

/// Reasons that say the node could not start a container, whatever the container is. An image
/// that cannot be pulled is not among them: which image a component runs is its release's and
/// its configuration's choice (a driver tag left empty in a ClusterPolicy, a tag published for
/// no image of the node's OS), so it fails on its own terms.
const NOT_STARTED: &[&str] = &[
    "FailedCreatePodSandBox",
    "FailedMount",
    "FailedMapVolume",
    "FailedAttachVolume",
    "CreateContainerError",
    "RunContainerError",
    "StartError",
    "ContainerCannotRun",
    "KubeletNotReady",
];

/// How a component's signal fails, given the layer the signal alone would name (`plain`: its
/// reason's or its text's) and whether its text names the runtime by a marker.
pub fn failure(plain: Option<Layer>, reason: &str, runtime_marker: bool) -> Failure {
    if runtime_marker || NOT_STARTED.contains(&reason) {
        return Failure::NotStarted;
    }
    match plain {
        Some(Layer::Placement) => Failure::NotPlaced,
        _ => Failure::OwnTerms,
    }
}

impl Failure {
    /// The layer of the cause, for a component serving `serves`.
    pub fn layer(self, serves: Layer) -> Layer {
        match self {
            Failure::NotPlaced => Layer::Placement,
            Failure::NotStarted => Layer::Runtime,
            Failure::OwnTerms => serves,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn registry_loads() {
        let all: Vec<Component> = serde_json::from_str(crate::embedded::COMPONENTS)
            .expect("rules/components.yaml reads as the registry");
        assert!(all.len() > 20);
        let mut ids: Vec<&str> = all.iter().map(|c| c.id.as_str()).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), all.len(), "ids are unique");
        for c in &all {
            assert!(
                !(c.names.is_empty()
                    && c.images.is_empty()
                    && c.labels.is_empty()
                    && c.containers.is_empty()),
                "{} matches nothing",
                c.id
            );
            assert!(c.project.contains('/'), "{}: project is owner/repo", c.id);
        }
    }

    #[test]
    fn matched_by_name_owner_image_or_label() {
        let none = json!({});
        assert_eq!(
            of("Pod", "nvidia-device-plugin-daemonset-x", "", &none).map(|c| c.layer),
            Some(Layer::Device)
        );
        // The toolkit's pods are the runtime's although the GPU Operator deploys them.
        assert_eq!(
            of("Pod", "nvidia-container-toolkit-daemonset-x", "", &none).map(|c| c.layer),
            Some(Layer::Runtime)
        );
        assert_eq!(
            of("Pod", "x-7d9", "kueue-controller-manager", &none).map(|c| c.id.as_str()),
            Some("kueue")
        );
        let epp = json!({"spec": {"containers": [{"image": "registry.k8s.io/gateway-api-inference-extension/epp:v1.0.0"}]}});
        assert_eq!(
            of("Pod", "pool-picker-abc", "", &epp).map(|c| c.layer),
            Some(Layer::Serving)
        );
        let frontend =
            json!({"metadata": {"labels": {"nvidia.com/dynamo-component-type": "frontend"}}});
        assert_eq!(
            of("Pod", "agg-frontend-x", "", &frontend).map(|c| c.id.as_str()),
            Some("dynamo-frontend")
        );
        // The work itself is no component, and neither is an object of another kind; a name
        // is matched by whole words.
        assert_eq!(of("Pod", "trainer-0", "", &none), None);
        assert_eq!(
            of(
                "Pod",
                "raycluster-autoscaler-worker-gpu-group-b96cw",
                "",
                &none
            ),
            None
        );
        assert_eq!(of("Node", "nvidia-device-plugin", "", &none), None);
    }

    #[test]
    fn the_most_specific_name_wins_and_a_name_before_an_image() {
        // The validator's name holds the plugin's: the longer fragment is the component.
        let id = |c: Option<&'static Component>| c.map(|c| c.id.as_str());
        assert_eq!(
            id(by_name("Pod", "nvidia-device-plugin-validator-abc12")),
            Some("nvidia-operator-validator")
        );
        assert_eq!(
            id(by_name("Pod", "nvidia-device-plugin-daemonset-abc12")),
            Some("nvidia-device-plugin")
        );
        // The plugin's pod runs the validator's image in an init container: its name decides.
        let with_validator_init = json!({"spec": {"initContainers": [
            {"image": "nvcr.io/nvidia/cloud-native/gpu-operator-validator:v25.3.0"}]}});
        assert_eq!(
            id(of(
                "Pod",
                "nvidia-device-plugin-daemonset-x",
                "",
                &with_validator_init
            )),
            Some("nvidia-device-plugin")
        );
        assert_eq!(
            id(of("Pod", "pod-x", "", &with_validator_init)),
            Some("nvidia-operator-validator")
        );
    }

    #[test]
    fn an_injected_container_names_its_component_but_not_the_pod() {
        assert_eq!(
            by_container("storage-initializer").map(|c| (c.id.as_str(), c.layer)),
            Some(("kserve-storage-initializer", Layer::Serving))
        );
        assert_eq!(by_container("trainer"), None);
        assert_eq!(by_container("storage-initializer-x"), None);
        // A pod holding the container is still the user's work, not a component.
        let isvc = json!({"spec": {"initContainers": [{"name": "storage-initializer", "image": "kserve/storage-initializer:v0.14.0"}]}});
        assert_eq!(of("Pod", "model-predictor-00001-abc", "", &isvc), None);
    }

    #[test]
    fn how_it_fails_names_the_cause() {
        let f = |plain, reason, marker| failure(plain, reason, marker).layer(Layer::Serving);
        assert_eq!(
            f(Some(Layer::Placement), "FailedScheduling", false),
            Layer::Placement
        );
        assert_eq!(
            f(Some(Layer::Runtime), "FailedCreatePodSandBox", false),
            Layer::Runtime
        );
        assert_eq!(f(Some(Layer::Runtime), "Error", true), Layer::Runtime);
        assert_eq!(
            f(Some(Layer::Runtime), "CrashLoopBackOff", false),
            Layer::Serving
        );
        assert_eq!(f(None, "", false), Layer::Serving);
    }
}
