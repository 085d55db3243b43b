//! Looking things up before the index exists: `fit` decides what the controllers would make
//! of the manifest from the cluster bundle and the manifest itself, then indexes the whole
//! once. Lookups by identity go through a map of the cluster's identities, built on the first
//! (no JSON is read but the object found).

use crate::bundle::{Bundle, group_of};
use crate::fnv::Fnv;
use crate::json::At as _;
use serde_json::Value;
use std::cell::OnceCell;
use std::collections::{BTreeMap, HashMap};
use std::hash::BuildHasherDefault;

/// An object's identity as the bundle spells it: group, kind, namespace, name.
type Ident<'a> = (&'a str, &'a str, Option<&'a str>, &'a str);

/// The cluster bundle and the manifest's objects, searched by identity (the manifest first:
/// applying it would replace the cluster's copy).
pub(super) struct Lookup<'a> {
    pub cluster: &'a Bundle,
    pub manifest: &'a [Value],
    /// Each cluster identity's position (the last of repeats, as the bundle keeps it), built
    /// on the first lookup: the ExtendedResourceToleration scan looks up owners by the
    /// thousand, and a pass over a 5,000-node bundle's objects per lookup took seconds.
    by_ident: OnceCell<HashMap<Ident<'a>, usize, BuildHasherDefault<Fnv>>>,
}

fn ident(v: &Value) -> (&str, &str, Option<&str>, &str) {
    let s = |p: &str| v.at(p).and_then(Value::as_str);
    (
        group_of(s("/apiVersion").unwrap_or("")),
        s("/kind").unwrap_or(""),
        s("/metadata/namespace").filter(|n| !n.is_empty()),
        s("/metadata/name").unwrap_or(""),
    )
}

impl<'a> Lookup<'a> {
    pub fn new(cluster: &'a Bundle, manifest: &'a [Value]) -> Self {
        Lookup {
            cluster,
            manifest,
            by_ident: OnceCell::new(),
        }
    }

    /// The object of this identity, from the manifest or the cluster.
    pub fn find(&self, group: &str, kind: &str, ns: Option<&str>, name: &str) -> Option<Value> {
        if let Some(v) = self
            .manifest
            .iter()
            .find(|v| ident(v) == (group, kind, ns, name))
        {
            return Some(v.clone());
        }
        let cluster = self.cluster;
        let map = self.by_ident.get_or_init(|| {
            cluster
                .objects()
                .iter()
                .enumerate()
                .map(|(i, o)| {
                    (
                        (o.group(), o.kind().as_str(), o.namespace(), o.name.as_str()),
                        i,
                    )
                })
                .collect()
        });
        map.get(&(group, kind, ns, name))
            .map(|&i| cluster.value(&cluster.objects()[i]))
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
            .any(|o| kueue_kind(o.kind()) && o.group() == "kueue.x-k8s.io")
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
            .filter(|o| o.kind() == "ConfigMap" && o.group().is_empty())
            .filter(|o| o.name.contains("kueue"))
            .find_map(|o| {
                let v = self.cluster.value(o);
                config_of(&v).map(|cfg| {
                    (
                        cfg,
                        format!("ConfigMap {}/{}", o.namespace().unwrap_or(""), o.name),
                    )
                })
            })
    }

    /// A Namespace's labels, when the bundle holds it.
    pub fn namespace_labels(&self, ns: &str) -> Option<BTreeMap<String, String>> {
        let v = self.find("", "Namespace", None, ns)?;
        let mut labels: BTreeMap<String, String> = v
            .at("/metadata/labels")
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

/// How many device pods are looked at for the ExtendedResourceToleration plugin's mark.
const TOLERATION_SCAN: usize = 2000;

/// The toleration the ExtendedResourceToleration admission plugin adds for resource `r`.
pub(super) fn extended_resource_toleration(r: &str) -> Value {
    serde_json::json!({"key": r, "operator": "Exists", "effect": "NoSchedule"})
}

/// The extended resources (names with a `/`) a pod's containers ask for.
pub(super) fn extended_resources(pod: &Value) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for c in pod
        .at("/spec/containers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        for k in ["requests", "limits"] {
            for r in c["resources"][k]
                .as_object()
                .into_iter()
                .flatten()
                .map(|(r, _)| r)
            {
                if r.contains('/') && !out.contains(r) {
                    out.push(r.clone());
                }
            }
        }
    }
    out
}

impl Lookup<'_> {
    /// A pod of the cluster that shows the ExtendedResourceToleration admission plugin at
    /// work: it carries the toleration the plugin adds for an extended resource it asks for,
    /// which its controller's template does not. Then the API server adds the same to the
    /// manifest's pods. Only pods whose text has a toleration with `Exists` are read, and the
    /// first few thousand of those.
    pub fn extended_resource_tolerations(&self) -> Option<String> {
        let mut looked = 0;
        for o in self.cluster.objects() {
            if o.kind() != "Pod" || !o.group().is_empty() {
                continue;
            }
            let raw = self.cluster.raw(o);
            if !(raw.contains("\"tolerations\"") && raw.contains("\"Exists\"")) {
                continue;
            }
            looked += 1;
            if looked > TOLERATION_SCAN {
                return None;
            }
            let pod = self.cluster.value(o);
            let tolerations = pod
                .at("/spec/tolerations")
                .and_then(Value::as_array)
                .map_or(&[][..], Vec::as_slice);
            // The plugin's marks first (no lookup for a pod without one), then whether the
            // owner's template has the same.
            let marked: Vec<String> = extended_resources(&pod)
                .into_iter()
                .filter(|r| tolerations.contains(&extended_resource_toleration(r)))
                .collect();
            if marked.is_empty() {
                continue;
            }
            let Some(owner) = pod
                .at("/metadata/ownerReferences")
                .and_then(Value::as_array)
                .and_then(|o| o.first())
            else {
                continue;
            };
            let s = |k: &str| owner.get(k).and_then(Value::as_str).unwrap_or("");
            let Some(ov) = self.find(
                group_of(s("apiVersion")),
                s("kind"),
                o.namespace(),
                s("name"),
            ) else {
                continue;
            };
            let Some(template) = ov.at("/spec/template/spec") else {
                continue;
            };
            let in_template = |t: &Value| {
                template
                    .get("tolerations")
                    .and_then(Value::as_array)
                    .is_some_and(|ts| ts.contains(t))
            };
            if let Some(r) = marked
                .iter()
                .find(|r| !in_template(&extended_resource_toleration(r)))
            {
                return Some(format!(
                    "Pod {}/{} carries a toleration for {r} (Exists, NoSchedule) that its {} {} does not: the API server runs the ExtendedResourceToleration admission plugin, so fit adds the same to the manifest's pods that ask for an extended resource",
                    o.namespace().unwrap_or(""),
                    o.name,
                    s("kind"),
                    s("name")
                ));
            }
        }
        None
    }
}

/// The key of Kueue's ConfigMap that holds its Configuration.
pub(super) use crate::facts::admission::CONFIG_KEY;
use crate::facts::admission::configuration as config_of;
