//! What `fit` cannot check: the cluster-scoped and queue objects a manifest names by name
//! (a RuntimeClass, a PriorityClass, a DeviceClass, a LocalQueue) whose kind the bundle holds
//! no object of at all. With none, an absent one is not evidence that it is missing, and a
//! present one cannot be seen: that layer is `unknown`, never "fits".

use crate::diagnosis::Missing;
use crate::index::{Index, ObjId};
use crate::json::At as _;
use crate::layer::Layer;
use serde_json::Value;

/// One name the work depends on that the bundle cannot confirm.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Unchecked {
    /// The layer whose decision depends on it.
    pub layer: Layer,
    pub kind: String,
    pub name: String,
}

impl Unchecked {
    /// As the diagnosis's `missing` lists it.
    pub fn missing(&self, namespace: Option<&str>) -> Missing {
        Missing {
            kind: self.kind.clone(),
            api_version: None,
            resource: None,
            // Only a LocalQueue of these is namespaced.
            namespace: namespace
                .filter(|_| self.kind == "LocalQueue")
                .map(str::to_string),
            name: Some(self.name.clone()),
            why: format!(
                "the bundle holds no {} at all, so whether this one exists is not checked",
                self.kind
            ),
        }
    }
}

/// The names `fit`'s placed work depends on and cannot check, from its pods and itself.
pub fn unchecked(ix: &Index, target: ObjId, pods: &[ObjId]) -> Vec<Unchecked> {
    let mut out: Vec<Unchecked> = Vec::new();
    let mut need = |layer: Layer, kind: &str, group: &str, name: &str| {
        let known = ix
            .of_kind(kind)
            .iter()
            .any(|&id| ix.object(id).group() == group);
        if !known && !name.is_empty() {
            out.push(Unchecked {
                layer,
                kind: kind.to_string(),
                name: name.to_string(),
            });
        }
    };
    let kueue_shown = ["ClusterQueue", "LocalQueue", "Workload"]
        .iter()
        .any(|k| !ix.of_kind(k).is_empty());
    let t = ix.value(target);
    if kueue_shown && let Some(q) = crate::json::label(&t, "kueue.x-k8s.io/queue-name") {
        need(Layer::Admission, "LocalQueue", "kueue.x-k8s.io", q);
    }
    let own = (ix.object(target).kind() == "Pod").then_some(target);
    for p in own.into_iter().chain(pods.iter().copied()) {
        let v = ix.value(p);
        let s = |ptr: &str| v.at(ptr).and_then(Value::as_str).unwrap_or("").to_string();
        need(
            Layer::Runtime,
            "RuntimeClass",
            "node.k8s.io",
            &s("/spec/runtimeClassName"),
        );
        need(
            Layer::Admission,
            "PriorityClass",
            "scheduling.k8s.io",
            &s("/spec/priorityClassName"),
        );
        for class in device_classes(ix, p, &v) {
            need(Layer::Device, "DeviceClass", "resource.k8s.io", &class);
        }
    }
    out.sort();
    out.dedup();
    out
}

/// The DeviceClasses a pod's claims ask for (through a ResourceClaim or a template the index
/// holds).
fn device_classes(ix: &Index, pod: ObjId, v: &Value) -> Vec<String> {
    let ns = ix.object(pod).namespace();
    v.at("/spec/resourceClaims")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|c| {
            let (kind, name, spec) = match (
                crate::json::claim_field(c, "resourceClaimName"),
                crate::json::claim_template(c),
            ) {
                (Some(n), _) => ("ResourceClaim", n, "/spec/devices/requests"),
                (None, Some(n)) => ("ResourceClaimTemplate", n, "/spec/spec/devices/requests"),
                _ => return None,
            };
            let id = ix.get("resource.k8s.io", kind, ns, name)?;
            Some((id, spec))
        })
        .flat_map(|(id, spec)| {
            let claim = ix.value(id);
            claim
                .at(spec)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|r| {
                    r.at("/exactly/deviceClassName")
                        .or_else(|| r.get("deviceClassName"))
                        .and_then(Value::as_str)
                        .map(str::to_string)
                })
                .collect::<Vec<_>>()
        })
        .collect()
}
