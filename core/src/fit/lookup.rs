//! Looking things up before the index exists: `fit` decides what the controllers would make
//! of the manifest from the cluster bundle and the manifest itself, then indexes the whole
//! once. Each lookup is a pass over the objects' identities (no JSON is read but the object
//! found), and there are a handful per piece of work.

use crate::bundle::{Bundle, group_of};
use serde_json::Value;
use std::collections::BTreeMap;

/// The cluster bundle and the manifest's objects, searched by identity (the manifest first:
/// applying it would replace the cluster's copy).
pub(super) struct Lookup<'a> {
    pub cluster: &'a Bundle,
    pub manifest: &'a [Value],
}

fn ident(v: &Value) -> (&str, &str, Option<&str>, &str) {
    let s = |p: &str| v.pointer(p).and_then(Value::as_str);
    (
        group_of(s("/apiVersion").unwrap_or("")),
        s("/kind").unwrap_or(""),
        s("/metadata/namespace").filter(|n| !n.is_empty()),
        s("/metadata/name").unwrap_or(""),
    )
}

impl Lookup<'_> {
    /// The object of this identity, from the manifest or the cluster.
    pub fn find(&self, group: &str, kind: &str, ns: Option<&str>, name: &str) -> Option<Value> {
        if let Some(v) = self
            .manifest
            .iter()
            .find(|v| ident(v) == (group, kind, ns, name))
        {
            return Some(v.clone());
        }
        self.cluster
            .objects()
            .iter()
            .rev()
            .find(|o| {
                o.name == name
                    && o.kind == kind
                    && o.namespace.as_deref() == ns
                    && o.group() == group
            })
            .map(|o| self.cluster.value(o))
    }

    /// Whether the bundle shows Kueue: a Kueue object, or a live read's discovery listing its
    /// API.
    pub fn shows_kueue(&self) -> bool {
        let kueue_kind = |k: &str| {
            matches!(
                k,
                "ClusterQueue" | "LocalQueue" | "ResourceFlavor" | "Workload"
            )
        };
        self.cluster
            .objects()
            .iter()
            .any(|o| kueue_kind(&o.kind) && o.group() == "kueue.x-k8s.io")
            || self.manifest.iter().any(|v| {
                let (g, k, _, _) = ident(v);
                g == "kueue.x-k8s.io" && kueue_kind(k)
            })
            || self
                .cluster
                .meta()
                .and_then(|m| m.apis.as_ref())
                .is_some_and(|a| a.iter().any(|x| x.starts_with("kueue.x-k8s.io/")))
    }

    /// Kueue's Configuration: from the ConfigMap that holds it (`kueue-manager-config` in
    /// the bundle), with where it was found.
    pub fn kueue_config(&self) -> Option<(Value, String)> {
        self.cluster
            .objects()
            .iter()
            .filter(|o| o.kind == "ConfigMap" && o.group().is_empty())
            .filter(|o| o.name.contains("kueue"))
            .find_map(|o| {
                let v = self.cluster.value(o);
                super::kueue::config_of(&v).map(|cfg| {
                    (
                        cfg,
                        format!(
                            "ConfigMap {}/{}",
                            o.namespace.as_deref().unwrap_or(""),
                            o.name
                        ),
                    )
                })
            })
    }

    /// A Namespace's labels, when the bundle holds it.
    pub fn namespace_labels(&self, ns: &str) -> Option<BTreeMap<String, String>> {
        let v = self.find("", "Namespace", None, ns)?;
        let mut labels: BTreeMap<String, String> = v
            .pointer("/metadata/labels")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
            .collect();
        // The API server sets it on every namespace (Kubernetes 1.22+), so selectors use it.
        labels
            .entry("kubernetes.io/metadata.name".into())
            .or_insert_with(|| ns.to_string());
        Some(labels)
    }
}

/// How many GPU pods are looked at for the ExtendedResourceToleration plugin's mark.
const TOLERATION_SCAN: usize = 2000;

/// What a pod is read for here: its owners, tolerations and what it requests.
#[derive(serde::Deserialize, Default)]
#[serde(default)]
struct PodLite {
    metadata: MetaLite,
    spec: PodSpecLite,
}

#[derive(serde::Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct MetaLite {
    namespace: Option<String>,
    owner_references: Vec<OwnerLite>,
}

#[derive(serde::Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct OwnerLite {
    api_version: String,
    kind: String,
    name: String,
}

#[derive(serde::Deserialize, Default)]
#[serde(default)]
struct PodSpecLite {
    tolerations: Vec<Value>,
    containers: Vec<ContainerLite>,
}

#[derive(serde::Deserialize, Default)]
#[serde(default)]
struct ContainerLite {
    resources: ResourcesLite,
}

#[derive(serde::Deserialize, Default)]
#[serde(default)]
struct ResourcesLite {
    requests: BTreeMap<String, Value>,
    limits: BTreeMap<String, Value>,
}

/// The toleration the ExtendedResourceToleration admission plugin adds for resource `r`.
pub(super) fn extended_resource_toleration(r: &str) -> Value {
    serde_json::json!({"key": r, "operator": "Exists", "effect": "NoSchedule"})
}

impl Lookup<'_> {
    /// A pod of the cluster that shows the ExtendedResourceToleration admission plugin at
    /// work: it carries the toleration the plugin adds for an extended resource it asks for,
    /// which its controller's template does not. Then the API server adds the same to the
    /// manifest's pods. The first few thousand device pods are looked at.
    pub fn extended_resource_tolerations(&self) -> Option<String> {
        let mut looked = 0;
        for o in self.cluster.objects() {
            if o.kind != "Pod" || !o.group().is_empty() {
                continue;
            }
            let Some(pod) = self.cluster.typed::<PodLite>(o) else {
                continue;
            };
            let extended: Vec<&String> = pod
                .spec
                .containers
                .iter()
                .flat_map(|c| c.resources.requests.keys().chain(c.resources.limits.keys()))
                .filter(|r| r.contains('/'))
                .collect();
            if extended.is_empty() {
                continue;
            }
            looked += 1;
            if looked > TOLERATION_SCAN {
                return None;
            }
            let Some(owner) = pod.metadata.owner_references.first() else {
                continue;
            };
            let Some(ov) = self.find(
                group_of(&owner.api_version),
                &owner.kind,
                pod.metadata.namespace.as_deref(),
                &owner.name,
            ) else {
                continue;
            };
            let Some(template) = ov
                .pointer("/spec/template/spec")
                .or_else(|| ov.pointer("/spec/jobTemplate/spec/template/spec"))
            else {
                continue;
            };
            let in_template = |t: &Value| {
                template
                    .get("tolerations")
                    .and_then(Value::as_array)
                    .is_some_and(|ts| ts.contains(t))
            };
            for r in extended {
                let t = extended_resource_toleration(r);
                if pod.spec.tolerations.contains(&t) && !in_template(&t) {
                    return Some(format!(
                        "Pod {}/{} carries a toleration for {r} (Exists, NoSchedule) that its {} {} does not: the API server runs the ExtendedResourceToleration admission plugin, so fit adds the same to the manifest's pods that ask for an extended resource",
                        o.namespace.as_deref().unwrap_or(""),
                        o.name,
                        owner.kind,
                        owner.name
                    ));
                }
            }
        }
        None
    }
}
