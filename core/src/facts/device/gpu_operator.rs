//! The NVIDIA GPU Operator as the device layer sees it, at `$.facts.device.gpuOperator`: its
//! ClusterPolicy's state and the operand pods (driver, toolkit, device plugin, …) that are not
//! ready.

use super::Ctx;
use super::pod_state::{not_ready_container, pod_label, pod_ok};
use crate::facts::texts::{say, word};
use crate::json::At as _;
use serde::Serialize;
use serde_json::Value;

/// The GPU Operator's ClusterPolicy (`nvidia.com`) and its failing operands; null when the
/// bundle holds no ClusterPolicy.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct GpuOperator {
    /// The ClusterPolicy's name.
    pub cluster_policy: String,
    /// Its `status.state` (`ready`, `notReady`, …).
    pub state: Option<String>,
    /// `state` is `ready`.
    pub ready: bool,
    /// The message of its `Ready` condition when that is `False`, else empty.
    pub message: String,
    /// The operand pods that are not settled (Running and Ready, or Succeeded): those failing on
    /// their own (crash, error) first, then those waiting on them, each by pod name.
    pub failing_pods: Vec<FailingOperand>,
    /// `<pod> on <node> (<container>: <reason>)` for each failing pod that is not waiting,
    /// joined with `; `, then `N more operand pods wait in Init or not ready`.
    pub failing_summary: String,
}

/// One GPU Operator operand pod that is not ready.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct FailingOperand {
    pub pod: String,
    pub namespace: Option<String>,
    /// The node it is bound to.
    pub node: Option<String>,
    /// The operand, by the prefix of the pod's `app` label: `driver`, `container-toolkit`,
    /// `device-plugin`, `operator-validator`, `gpu-feature-discovery`, `dcgm-exporter`,
    /// `mig-manager` or `cuda-validator`.
    pub component: String,
    /// Its first container that is not ready (init containers first); empty when none says so.
    pub container: String,
    /// That container's waiting or terminated reason, `Running (not ready)`, `Unknown`, or
    /// `Pending` when no container is found.
    pub reason: String,
    /// The container's last termination message, else its waiting message.
    pub message: String,
    pub restarts: u64,
    /// It waits on another operand rather than failing itself: `reason` is `Running (not
    /// ready)`, `PodInitializing`, `Pending` or `ContainerCreating`.
    pub waiting: bool,
}

/// GPU Operator operands by the prefix of their `app` label.
const OPERANDS: &[(&str, &str)] = &[
    ("nvidia-driver-daemonset", "driver"),
    ("nvidia-container-toolkit-daemonset", "container-toolkit"),
    ("nvidia-device-plugin-daemonset", "device-plugin"),
    ("nvidia-operator-validator", "operator-validator"),
    ("gpu-feature-discovery", "gpu-feature-discovery"),
    ("nvidia-dcgm-exporter", "dcgm-exporter"),
    ("nvidia-mig-manager", "mig-manager"),
    ("nvidia-cuda-validator", "cuda-validator"),
];

/// The GPU Operator's operand that a pod belongs to (by its `app` label), if any.
fn operand(pv: &Value) -> Option<&'static str> {
    let app = pod_label(pv, "app")?;
    OPERANDS
        .iter()
        .find(|(a, _)| app.starts_with(a))
        .map(|(_, c)| *c)
}

pub(super) fn gpu_operator(ctx: &Ctx) -> Option<GpuOperator> {
    let ix = ctx.ix;
    let &cp = ix
        .of_kind("ClusterPolicy")
        .iter()
        .find(|&&id| ix.object(id).group() == "nvidia.com")?;
    let v = ix.value(cp);
    let state = v.at("/status/state").and_then(Value::as_str);
    let message = v
        .at("/status/conditions")
        .and_then(Value::as_array)
        .and_then(|cs| {
            cs.iter()
                .find(|c| c["type"] == "Ready" && c["status"] == "False")
        })
        .and_then(|c| c["message"].as_str())
        .unwrap_or("");
    let failing = failing_operands(ctx);
    Some(GpuOperator {
        cluster_policy: ix.object(cp).name.clone(),
        state: state.map(str::to_string),
        ready: state == Some("ready"),
        message: message.to_string(),
        failing_summary: failing_summary(&failing),
        failing_pods: failing,
    })
}

/// Operands that fail on their own first (crash, error), then those waiting on them.
fn failing_operands(ctx: &Ctx) -> Vec<FailingOperand> {
    let ix = ctx.ix;
    let mut failing = Vec::new();
    for p in ix.pods_with_app(|a| OPERANDS.iter().any(|(prefix, _)| a.starts_with(prefix))) {
        let pv = ix.value(p);
        let Some(component) = operand(&pv) else {
            continue;
        };
        if pod_ok(&pv) {
            continue;
        }
        let (container, reason, message, restarts) =
            not_ready_container(&pv).unwrap_or_else(|| ("".into(), "Pending".into(), "".into(), 0));
        let waiting = matches!(
            reason.as_str(),
            "Running (not ready)" | "PodInitializing" | "Pending" | "ContainerCreating"
        );
        failing.push(FailingOperand {
            pod: ix.object(p).name.clone(),
            namespace: ix.object(p).namespace().map(str::to_string),
            node: pv
                .at("/spec/nodeName")
                .and_then(Value::as_str)
                .map(str::to_string),
            component: component.to_string(),
            container,
            reason,
            message,
            restarts,
            waiting,
        });
    }
    failing.sort_by_key(|f| (f.waiting, f.pod.clone()));
    failing
}

/// The failing operands in one sentence: each that fails on its own, then how many wait.
fn failing_summary(failing: &[FailingOperand]) -> String {
    let roots: Vec<String> = failing
        .iter()
        .filter(|f| !f.waiting)
        .map(|f| {
            say(
                "operandFailing",
                &[
                    ("pod", Value::from(f.pod.clone())),
                    (
                        "node",
                        Value::from(f.node.clone().unwrap_or_else(|| word("noNode"))),
                    ),
                    ("container", Value::from(f.container.clone())),
                    ("reason", Value::from(f.reason.clone())),
                ],
            )
        })
        .collect();
    let waiting = failing.iter().filter(|f| f.waiting).count();
    let mut summary = roots.join("; ");
    if waiting > 0 {
        if !summary.is_empty() {
            summary.push_str("; ");
        }
        summary.push_str(&say(
            "operandsWaiting",
            &[("count", Value::from(waiting.to_string()))],
        ));
    }
    summary
}
