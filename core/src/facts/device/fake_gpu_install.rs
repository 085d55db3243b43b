//! What a bundle shows of a fake-gpu-operator install on k3s, at
//! `$.facts.device.fakeGpuInstall`: the `nvidia` RuntimeClass and who owns it, the nodes
//! labelled for a pool, the operator's pods and its Helm release records. (The pools the
//! operator's topology configures are the separate `$.facts.fakeGpu`.)

use super::Ctx;
use super::pod_state::pod_label;
use crate::json::At as _;
use serde::Serialize;
use serde_json::Value;

/// A fake-gpu-operator install; null when no node carries the pool label and no Helm release
/// of it is in the bundle.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct FakeGpuInstall {
    /// `nvidia` when the bundle holds the RuntimeClass `nvidia`, else null.
    pub runtime_class: Option<String>,
    /// That RuntimeClass's `handler`.
    pub handler: Option<String>,
    /// k3s made that RuntimeClass (annotation `objectset.rio.cattle.io/owner-name: runtimes`),
    /// so k3s, not the operator, owns it.
    pub k3s_owned: bool,
    /// The node label a node's pool is read from: the topology's `nodePoolLabelKey` as
    /// `$.facts.fakeGpu` read it, else `run.ai/simulated-gpu-node-pool`.
    pub pool_label_key: String,
    /// The nodes carrying that label, in name order.
    pub pool_nodes: Vec<String>,
    /// How many of the operator's pods the bundle holds (`app` label `device-plugin`,
    /// `status-updater`, `status-exporter` or `topology-server`, or a name starting
    /// `fake-gpu-operator`).
    pub operator_pods: usize,
    /// The bundle holds the operator's topology: the ConfigMap `topology` with its
    /// `topology.yml`, the one `$.facts.fakeGpu` reads.
    pub topology_config_map: bool,
    /// The Helm release records (Secrets of type `helm.sh/release.v1`) whose `name` label
    /// contains `fake-gpu`, in bundle order.
    pub releases: Vec<HelmRelease>,
    /// `<namespace>/<secret>` of each release whose status is `failed`.
    pub failed_releases: Vec<String>,
}

/// One Helm release record, from its Secret's labels.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct HelmRelease {
    /// The release's name (label `name`).
    pub name: String,
    pub namespace: Option<String>,
    /// The Secret's name.
    pub secret: String,
    /// Label `status`: `deployed`, `failed`, `superseded`, ….
    pub status: Option<String>,
    /// Label `version`: the release's revision.
    pub version: Option<String>,
}

pub(super) fn fake_gpu_install(ctx: &Ctx) -> Option<FakeGpuInstall> {
    let ix = ctx.ix;
    // The key the operator's topology configures, as the fakeGpu fact read it.
    let fake = crate::facts::fake_gpu_state(ix);
    let label_key = fake
        .0
        .as_ref()
        .map_or(crate::facts::FAKE_GPU_POOL_LABEL, |f| {
            f.pool_label_key.as_str()
        });
    let pool_nodes: Vec<String> = ix
        .nodes()
        .values()
        .filter(|n| n.labels.contains_key(label_key))
        .map(|n| n.name.clone())
        .collect();
    let releases = helm_releases(ctx);
    if pool_nodes.is_empty() && releases.is_empty() {
        return None;
    }
    let rc = ix
        .get("node.k8s.io", "RuntimeClass", None, "nvidia")
        .map(|id| ix.value(id));
    let k3s_owned = rc.as_ref().is_some_and(|v| {
        v.at("/metadata/annotations/objectset.rio.cattle.io~1owner-name")
            .and_then(Value::as_str)
            == Some("runtimes")
    });
    let by_app = ix.pods_with_app(|a| {
        matches!(
            a,
            "device-plugin" | "status-updater" | "status-exporter" | "topology-server"
        )
    });
    let operator_pods = ix
        .of_kind("Pod")
        .iter()
        .filter(|&&p| {
            by_app.binary_search(&p).is_ok() || ix.object(p).name.starts_with("fake-gpu-operator")
        })
        .count();
    let failed_releases = releases
        .iter()
        .filter(|r| r.status.as_deref() == Some("failed"))
        .map(|r| format!("{}/{}", r.namespace.as_deref().unwrap_or(""), r.secret))
        .collect();
    Some(FakeGpuInstall {
        runtime_class: rc.as_ref().map(|_| "nvidia".to_string()),
        handler: rc
            .as_ref()
            .and_then(|v| v["handler"].as_str())
            .map(str::to_string),
        k3s_owned,
        pool_label_key: label_key.to_string(),
        pool_nodes,
        operator_pods,
        topology_config_map: fake.1.is_some(),
        releases,
        failed_releases,
    })
}

/// fake-gpu-operator's Helm release records, in bundle order.
fn helm_releases(ctx: &Ctx) -> Vec<HelmRelease> {
    let ix = ctx.ix;
    let mut releases = Vec::new();
    for &s in ix.of_kind("Secret") {
        let v = ix.value(s);
        if v["type"] != "helm.sh/release.v1" {
            continue;
        }
        let name = pod_label(&v, "name").unwrap_or("");
        if !name.contains("fake-gpu") {
            continue;
        }
        releases.push(HelmRelease {
            name: name.to_string(),
            namespace: ix.object(s).namespace().map(str::to_string),
            secret: ix.object(s).name.clone(),
            status: pod_label(&v, "status").map(str::to_string),
            version: pod_label(&v, "version").map(str::to_string),
        });
    }
    releases
}
