//! Device-plugin pods that are not ready, at `$.facts.device.pluginPods` and
//! `$.facts.device.pluginSummary`: the GPU Operator's, the NVIDIA chart's and
//! fake-gpu-operator's plugin, whichever the cluster runs.

use super::Ctx;
use super::pod_state::{not_ready_container, pod_label, pod_ok};
use crate::facts::texts::{say, word};
use crate::json::At as _;
use crate::template::SHOWN_VALUES;
use serde::Serialize;
use serde_json::Value;

/// One device-plugin pod that is not settled (Running and Ready, or Succeeded).
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct PluginPod {
    pub pod: String,
    pub namespace: Option<String>,
    /// The node it is bound to.
    pub node: Option<String>,
    /// Its first container that is not ready (init containers first); empty when none says so.
    pub container: String,
    /// That container's waiting or terminated reason (`CrashLoopBackOff`, …), `Running (not
    /// ready)`, `Unknown`, or `Pending` when no container is found.
    pub reason: String,
    pub restarts: u64,
    /// The container's last termination message, else its waiting message.
    pub message: String,
}

/// The plugin's `app` label (else `app.kubernetes.io/name`) in the three installs.
fn is_plugin_app(app: &str) -> bool {
    matches!(
        app,
        "device-plugin" | "nvidia-device-plugin-daemonset" | "nvidia-device-plugin"
    )
}

/// A pod the component registry knows as a device plugin by its name or its owner's
/// (`nvidia-device-plugin-daemonset`, `hami-device-plugin`, `nvidia-gpu-device-plugin`): the
/// static manifest's pods are labelled `name: nvidia-device-plugin-ds`, GKE's `k8s-app`, and
/// none of them `app`.
fn is_named_plugin(name: &str, pv: &Value) -> bool {
    let plugin = |name: &str| {
        crate::components::by_name("Pod", name)
            .is_some_and(|c| c.layer == crate::Layer::Device && c.id.ends_with("device-plugin"))
    };
    let owners = pv.at("/metadata/ownerReferences").and_then(Value::as_array);
    plugin(name)
        || owners
            .into_iter()
            .flatten()
            .filter_map(|r| r["name"].as_str())
            .any(plugin)
}

/// Device-plugin pods that are not ready (GPU Operator, NVIDIA chart and static manifest,
/// HAMi, fake-gpu-operator), by namespace and name.
pub(super) fn plugin_pods(ctx: &Ctx) -> Vec<PluginPod> {
    let ix = ctx.ix;
    let mut out = Vec::new();
    let mut candidates = ix.pods_with_app(is_plugin_app);
    candidates.extend(ix.pods_named_device_plugin());
    candidates.sort_unstable();
    candidates.dedup();
    for p in candidates {
        let pv = ix.value(p);
        // The index matched either label; an `app` label that names something else wins,
        // unless the pod's name says it is the plugin.
        let app = pod_label(&pv, "app")
            .or_else(|| pod_label(&pv, "app.kubernetes.io/name"))
            .unwrap_or("");
        if !(is_plugin_app(app) || is_named_plugin(&ix.object(p).name, &pv)) || pod_ok(&pv) {
            continue;
        }
        let (container, reason, message, restarts) =
            not_ready_container(&pv).unwrap_or_else(|| ("".into(), "Pending".into(), "".into(), 0));
        out.push(PluginPod {
            pod: ix.object(p).name.clone(),
            namespace: ix.object(p).namespace().map(str::to_string),
            // Not a string, the index cannot decode the pod and never lists it here: as a
            // string the node reads the same as the value copied before.
            node: pv
                .at("/spec/nodeName")
                .and_then(Value::as_str)
                .map(str::to_string),
            container,
            reason,
            restarts,
            message,
        });
    }
    // Same order whatever order the objects came in (a file, or a live read's lists).
    out.sort_by(|a, b| (a.namespace.as_deref(), &a.pod).cmp(&(b.namespace.as_deref(), &b.pod)));
    out
}

/// The plugin pods in one string: `<ns>/<pod> on <node> (<container>: <reason>, N restarts):
/// <message>`, joined with `; `. Past [`SHOWN_VALUES`] pods the rest are counted: on the day
/// the plugin is down on 3,000 nodes, a sentence naming every pod was 25 KB in each
/// diagnosis's summary, message and observation.
pub(super) fn plugin_summary(pods: &[PluginPod]) -> String {
    let mut parts: Vec<String> = pods
        .iter()
        .take(SHOWN_VALUES)
        .map(|p| {
            let t = say(
                "pluginPod",
                &[
                    (
                        "namespace",
                        Value::from(p.namespace.clone().unwrap_or_default()),
                    ),
                    ("pod", Value::from(p.pod.clone())),
                    (
                        "node",
                        Value::from(p.node.clone().unwrap_or_else(|| word("noNode"))),
                    ),
                    ("container", Value::from(p.container.clone())),
                    ("reason", Value::from(p.reason.clone())),
                    ("restarts", Value::from(p.restarts.to_string())),
                ],
            );
            if p.message.is_empty() {
                t
            } else {
                say(
                    "pluginPodMessage",
                    &[
                        ("pod", Value::from(t)),
                        ("message", Value::from(p.message.clone())),
                    ],
                )
            }
        })
        .collect();
    if pods.len() > SHOWN_VALUES {
        parts.push(say(
            "pluginPodsMore",
            &[(
                "count",
                Value::from((pods.len() - SHOWN_VALUES).to_string()),
            )],
        ));
    }
    parts.join("; ")
}

#[cfg(test)]
mod named_tests {
    use super::is_named_plugin;
    use serde_json::json;

    #[test]
    fn a_plugin_is_known_by_its_name_or_its_owners_whatever_its_labels() {
        let none = json!({});
        // NVIDIA's static manifest labels its pods `name: nvidia-device-plugin-ds` only.
        assert!(is_named_plugin(
            "nvidia-device-plugin-daemonset-wqst8",
            &none
        ));
        assert!(is_named_plugin("hami-device-plugin-7xk2p", &none));
        let owned = json!({"metadata": {"ownerReferences": [
            {"kind": "DaemonSet", "name": "nvidia-gpu-device-plugin"}]}});
        assert!(is_named_plugin("gpu-plugin-x9", &owned));
        assert!(!is_named_plugin(
            "nvidia-device-plugin-validator-abc12",
            &none
        ));
        assert!(!is_named_plugin("nvidia-dcgm-exporter-abc12", &none));
        assert!(!is_named_plugin("plugin-device-test", &none));
    }
}

#[cfg(test)]
mod summary_tests {
    use super::*;

    fn pods(n: usize) -> Vec<PluginPod> {
        (0..n)
            .map(|i| PluginPod {
                pod: format!("nvidia-device-plugin-{i:03}"),
                namespace: Some("gpu-operator".into()),
                node: Some(format!("gpu-{i:03}")),
                container: "nvidia-device-plugin-ctr".into(),
                reason: "CrashLoopBackOff".into(),
                restarts: 12,
                message: "failed to initialize NVML".into(),
            })
            .collect()
    }

    #[test]
    fn the_summary_names_ten_pods_and_counts_the_rest() {
        let few = plugin_summary(&pods(SHOWN_VALUES));
        assert_eq!(few.matches("; ").count(), SHOWN_VALUES - 1, "{few}");
        assert!(!few.contains("more"), "{few}");
        let many = plugin_summary(&pods(600));
        assert!(
            many.starts_with("gpu-operator/nvidia-device-plugin-000 on gpu-000 (nvidia-device-plugin-ctr: CrashLoopBackOff, 12 restarts): failed to initialize NVML; "),
            "{many}"
        );
        assert!(
            many.contains("nvidia-device-plugin-009 on gpu-009"),
            "{many}"
        );
        assert!(!many.contains("nvidia-device-plugin-010"), "{many}");
        assert!(
            many.ends_with("; 590 more device-plugin pods are not ready"),
            "{many}"
        );
        assert!(plugin_summary(&pods(11)).ends_with("; 1 more device-plugin pod is not ready"));
    }
}
