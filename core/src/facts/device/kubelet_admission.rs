//! The kubelet's admission rejection of a Failed pod, at `$.facts.device.admission`: what the
//! device manager refused and whether the pod's node explains it.

use crate::index::Index;
use crate::json::At as _;
use crate::pattern::Pattern;
use serde::Serialize;
use serde_json::Value;
use std::sync::LazyLock;

static UNAVAILABLE: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(r"requested number of devices unavailable for (\S+?)\. Requested")
        .expect("static pattern")
});
static UNHEALTHY: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(r"cannot allocate (?:unhealthy|unregistered) devices? ([^ ,]+)")
        .expect("static pattern")
});
static SHARED_REQUEST: LazyLock<Pattern> =
    LazyLock::new(|| Pattern::new(r"request for '([^:']+):").expect("static pattern"));

/// A pod the kubelet refused to admit (phase `Failed`, its `status.reason` from the device
/// manager); null for any other pod.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct KubeletRejection {
    /// The pod's `status.reason`: `OutOf<resource>` or `UnexpectedAdmissionError`.
    pub reason: String,
    /// The pod's `status.message`.
    pub message: String,
    /// What the message says: `outOfResource` (an extended resource: `OutOf<domain/name>`),
    /// `outOfNodeResource` (the node's own `cpu`, `memory`, `pods`, `ephemeral-storage`,
    /// hugepages: no device is involved), `devicesUnavailable` (`requested number of
    /// devices unavailable`), `unhealthy` / `unregistered` (`cannot allocate unhealthy|unregistered
    /// devices`), `sharedRequestTooLarge` (`maximum request size for shared resources is 1`),
    /// `pluginError` (an `rpc error`) or `other`.
    pub kind: String,
    /// The resource the rejection names, when it names one.
    pub resource: Option<String>,
    /// The pod's node has less of `resource` allocatable than its capacity (devices the plugin
    /// reports unhealthy); null when the bundle lacks the node or there is no `resource`. Only
    /// then does the node's count explain a "devices unavailable" rejection; otherwise it is
    /// the kubelet's own bookkeeping that refused.
    pub node_short: Option<bool>,
}

/// The kubelet's admission rejection of a pod (phase Failed, reason from the device manager).
pub(super) fn admission(ix: &Index, pv: &Value) -> Option<KubeletRejection> {
    if pv.at("/status/phase").and_then(Value::as_str) != Some("Failed") {
        return None;
    }
    let reason = pv.at("/status/reason").and_then(Value::as_str)?;
    let message = pv
        .at("/status/message")
        .and_then(Value::as_str)
        .unwrap_or("");
    let (kind, resource) = if let Some(r) = reason.strip_prefix("OutOf") {
        // Extended resources have a domain (`nvidia.com/gpu`); the node's own have none.
        let kind = if r.contains('/') {
            "outOfResource"
        } else {
            "outOfNodeResource"
        };
        (kind, Some(r.to_string()))
    } else if reason == "UnexpectedAdmissionError" {
        device_manager_refusal(message)
    } else {
        return None;
    };
    let node_short = pv
        .at("/spec/nodeName")
        .and_then(Value::as_str)
        .and_then(|n| ix.nodes().get(n))
        .zip(resource.as_deref())
        .map(|(n, r)| {
            let cap = n.capacity.get(r).copied().unwrap_or(0.0);
            n.allocatable.get(r).copied().unwrap_or(0.0) < cap
        });
    Some(KubeletRejection {
        reason: reason.to_string(),
        message: message.to_string(),
        kind: kind.to_string(),
        resource,
        node_short,
    })
}

/// The kind of an `UnexpectedAdmissionError` and the resource it names, from its message.
fn device_manager_refusal(message: &str) -> (&'static str, Option<String>) {
    if message.contains("maximum request size for shared resources is 1") {
        let r = SHARED_REQUEST.captures(message).map(|c| c[1].to_string());
        ("sharedRequestTooLarge", r)
    } else if let Some(c) = UNAVAILABLE.captures(message) {
        ("devicesUnavailable", Some(c[1].to_string()))
    } else if let Some(c) = UNHEALTHY.captures(message) {
        let kind = if message.contains("unregistered") {
            "unregistered"
        } else {
            "unhealthy"
        };
        (kind, Some(c[1].to_string()))
    } else if message.contains("rpc error") {
        ("pluginError", None)
    } else {
        ("other", None)
    }
}
