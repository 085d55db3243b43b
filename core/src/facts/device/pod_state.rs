//! How the device facts read the state of the cluster's own GPU pods (GPU Operator operands,
//! device plugins, fake-gpu-operator) and the labels of the objects they install.

use crate::json::At as _;
use serde_json::Value;

/// The first container of a pod (init containers first, those that exited 0 skipped) that is not
/// ready: its name, its waiting or terminated reason, the last termination's (else the waiting)
/// message, and its restart count.
pub(super) fn not_ready_container(pv: &Value) -> Option<(String, String, String, u64)> {
    for key in ["initContainerStatuses", "containerStatuses"] {
        for c in pv
            .at(&format!("/status/{key}"))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if c["ready"] == true {
                continue;
            }
            if key == "initContainerStatuses"
                && c.at("/state/terminated/exitCode").and_then(Value::as_i64) == Some(0)
            {
                continue;
            }
            let name = c["name"].as_str().unwrap_or("").to_string();
            let restarts = c["restartCount"].as_u64().unwrap_or(0);
            let waiting = c.at("/state/waiting");
            let reason = waiting
                .and_then(|w| w["reason"].as_str())
                .or_else(|| c.at("/state/terminated/reason").and_then(Value::as_str))
                .unwrap_or(if c.at("/state/running").is_some() {
                    "Running (not ready)"
                } else {
                    "Unknown"
                })
                .to_string();
            let msg = c
                .at("/lastState/terminated/message")
                .and_then(Value::as_str)
                .or_else(|| waiting.and_then(|w| w["message"].as_str()))
                .unwrap_or("")
                .trim()
                .to_string();
            return Some((name, reason, msg, restarts));
        }
    }
    None
}

/// Is the pod settled? (Running and Ready, or Succeeded.)
pub(super) fn pod_ok(pv: &Value) -> bool {
    crate::facts::pod_status(pv).1
}

/// An object's label value, when it is a string.
pub(super) fn pod_label<'v>(pv: &'v Value, key: &str) -> Option<&'v str> {
    pv.at("/metadata/labels")
        .and_then(|l| l.get(key))
        .and_then(Value::as_str)
}
