//! Whether the node the pod was placed on has said anything about starting it, at
//! `$.facts.runtime.kubeletSilent`: the runtime layer's counterpart of a silent scheduler.

use crate::facts::Ctx;
use crate::json::At as _;
use serde::Serialize;
use serde_json::Value;

/// A pod placed on a node whose containers wait to be created, with no word about it from
/// anyone after the scheduler. The pod waits at the node: its kubelet and container runtime
/// (the runtime layer), or, before them, the DRA drivers that prepare its claims (the device
/// layer), whatever the cause that a bundle without their logs cannot show.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct KubeletSilence {
    /// The node it was placed on (`spec.nodeName`). Its DRA claims, which the kubelet has the
    /// drivers prepare before it creates any container, are `$.facts.device.dra.claims`.
    pub node: String,
}

/// Events about a pod that say nothing of the node starting it.
const BEFORE_THE_NODE: &[&str] = &["Scheduled", "TaintManagerEviction"];

/// The view's pod, when it is Pending on a node with every container waiting to be created (or
/// none reported), not being deleted, not made by `fit`, and no event about it after the
/// scheduler's.
pub(super) fn kubelet_silence(ctx: &Ctx) -> Option<KubeletSilence> {
    let pod = ctx.pod?;
    let pv = ctx.pod_value()?;
    let node = pv.at("/spec/nodeName").and_then(Value::as_str)?;
    let pending = pv.at("/status/phase").and_then(Value::as_str) == Some("Pending");
    if !pending || pv.at("/metadata/deletionTimestamp").is_some() || ctx.ix.not_submitted(pod) {
        return None;
    }
    let statuses: Vec<&Value> = ["/status/initContainerStatuses", "/status/containerStatuses"]
        .iter()
        .filter_map(|p| pv.at(p).and_then(Value::as_array))
        .flatten()
        .collect();
    let creating =
        |s: &&Value| s.at("/state/waiting/reason") == Some(&Value::from("ContainerCreating"));
    // An init container past its own creation (running, done, or PodInitializing) is progress.
    if !statuses.iter().all(creating) {
        return None;
    }
    let spoke = ctx
        .events_about(pod)
        .iter()
        .any(|(_, e)| !BEFORE_THE_NODE.contains(&e.reason.as_str()));
    if spoke {
        return None;
    }
    Some(KubeletSilence {
        node: node.to_string(),
    })
}
