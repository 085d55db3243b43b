//! Which resources the server offers, and the discovery documents that announce them.
//!
//! A resource's plural, scope and short names come from a built-in table of well-known kinds
//! (core, apps, batch, DRA, Kueue, JobSet, LWS, KAI, Dynamo, Gateway inference, Grove, CRDs).
//! Kinds the table does not know get the plural client-go would guess and the scope their
//! objects show. A group/version is served only if some object lives in it, if it is core `v1`,
//! or if the caller asked for it, so a test can make an API "not installed" by leaving its
//! objects out.
//!
//! The table is kept apart from the core's kinds table (`layer_core::kinds`) on purpose: a
//! stand-in API server that read the product's own table would agree with the product by
//! construction, and the live tests would prove nothing about plurals, scopes or short names.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};

/// One row of the built-in table. `versions` lists the versions in which the kind is offered
/// when its group/version is served.
struct Known {
    group: &'static str,
    versions: &'static [&'static str],
    kind: &'static str,
    plural: &'static str,
    namespaced: bool,
    short: &'static [&'static str],
    categories: &'static [&'static str],
}

const fn k(
    group: &'static str,
    versions: &'static [&'static str],
    kind: &'static str,
    plural: &'static str,
    namespaced: bool,
    short: &'static [&'static str],
) -> Known {
    Known {
        group,
        versions,
        kind,
        plural,
        namespaced,
        short,
        categories: &[],
    }
}

/// Same as [`k`], for kinds that `kubectl get all` includes.
const fn all(
    group: &'static str,
    versions: &'static [&'static str],
    kind: &'static str,
    plural: &'static str,
    short: &'static [&'static str],
) -> Known {
    Known {
        group,
        versions,
        kind,
        plural,
        namespaced: true,
        short,
        categories: &["all"],
    }
}

const V1: &[&str] = &["v1"];
const KUEUE: &[&str] = &["v1beta2", "v1beta1"];
const DRA: &[&str] = &["v1", "v1beta2", "v1beta1"];

/// Well-known kinds. Plurals, scopes and short names are copied from the upstream APIs and
/// CRDs, because kubectl and kube-rs resolve `po`, `wl`, `lws` … through discovery.
const KNOWN: &[Known] = &[
    all("", V1, "Pod", "pods", &["po"]),
    k("", V1, "Node", "nodes", false, &["no"]),
    k("", V1, "Event", "events", true, &["ev"]),
    k("", V1, "Namespace", "namespaces", false, &["ns"]),
    k("", V1, "ConfigMap", "configmaps", true, &["cm"]),
    k("", V1, "Secret", "secrets", true, &[]),
    all("", V1, "Service", "services", &["svc"]),
    k("", V1, "ServiceAccount", "serviceaccounts", true, &["sa"]),
    k(
        "",
        V1,
        "PersistentVolumeClaim",
        "persistentvolumeclaims",
        true,
        &["pvc"],
    ),
    k(
        "",
        V1,
        "PersistentVolume",
        "persistentvolumes",
        false,
        &["pv"],
    ),
    k("", V1, "ResourceQuota", "resourcequotas", true, &["quota"]),
    k("", V1, "LimitRange", "limitranges", true, &["limits"]),
    all("apps", V1, "Deployment", "deployments", &["deploy"]),
    all("apps", V1, "ReplicaSet", "replicasets", &["rs"]),
    all("apps", V1, "StatefulSet", "statefulsets", &["sts"]),
    all("apps", V1, "DaemonSet", "daemonsets", &["ds"]),
    k(
        "apps",
        V1,
        "ControllerRevision",
        "controllerrevisions",
        true,
        &[],
    ),
    all("batch", V1, "Job", "jobs", &[]),
    all("batch", V1, "CronJob", "cronjobs", &["cj"]),
    k("events.k8s.io", V1, "Event", "events", true, &["ev"]),
    k(
        "node.k8s.io",
        V1,
        "RuntimeClass",
        "runtimeclasses",
        false,
        &[],
    ),
    k(
        "scheduling.k8s.io",
        V1,
        "PriorityClass",
        "priorityclasses",
        false,
        &["pc"],
    ),
    k(
        "resource.k8s.io",
        DRA,
        "ResourceClaim",
        "resourceclaims",
        true,
        &[],
    ),
    k(
        "resource.k8s.io",
        DRA,
        "ResourceClaimTemplate",
        "resourceclaimtemplates",
        true,
        &[],
    ),
    k(
        "resource.k8s.io",
        DRA,
        "ResourceSlice",
        "resourceslices",
        false,
        &[],
    ),
    k(
        "resource.k8s.io",
        DRA,
        "DeviceClass",
        "deviceclasses",
        false,
        &[],
    ),
    k(
        "apiextensions.k8s.io",
        V1,
        "CustomResourceDefinition",
        "customresourcedefinitions",
        false,
        &["crd", "crds"],
    ),
    k(
        "kueue.x-k8s.io",
        KUEUE,
        "Workload",
        "workloads",
        true,
        &["wl"],
    ),
    k(
        "kueue.x-k8s.io",
        KUEUE,
        "LocalQueue",
        "localqueues",
        true,
        &["queue", "queues", "lq"],
    ),
    k(
        "kueue.x-k8s.io",
        KUEUE,
        "ClusterQueue",
        "clusterqueues",
        false,
        &["cq"],
    ),
    k(
        "kueue.x-k8s.io",
        KUEUE,
        "ResourceFlavor",
        "resourceflavors",
        false,
        &["flavor", "flavors", "rf"],
    ),
    k(
        "kueue.x-k8s.io",
        KUEUE,
        "WorkloadPriorityClass",
        "workloadpriorityclasses",
        false,
        &[],
    ),
    k(
        "kueue.x-k8s.io",
        KUEUE,
        "AdmissionCheck",
        "admissionchecks",
        false,
        &[],
    ),
    k(
        "jobset.x-k8s.io",
        &["v1alpha2"],
        "JobSet",
        "jobsets",
        true,
        &["js"],
    ),
    k(
        "leaderworkerset.x-k8s.io",
        V1,
        "LeaderWorkerSet",
        "leaderworkersets",
        true,
        &["lws"],
    ),
    k(
        "scheduling.run.ai",
        &["v2alpha2"],
        "PodGroup",
        "podgroups",
        true,
        &["pg"],
    ),
    k("scheduling.run.ai", &["v2"], "Queue", "queues", false, &[]),
    k(
        "scheduling.volcano.sh",
        &["v1beta1"],
        "PodGroup",
        "podgroups",
        true,
        &["pg", "podgroup-v1beta1"],
    ),
    k(
        "scheduling.x-k8s.io",
        &["v1alpha1"],
        "PodGroup",
        "podgroups",
        true,
        &["pg", "pgs"],
    ),
    k(
        "nvidia.com",
        &["v1alpha1"],
        "DynamoGraphDeployment",
        "dynamographdeployments",
        true,
        &["dgd"],
    ),
    k(
        "nvidia.com",
        V1,
        "ClusterPolicy",
        "clusterpolicies",
        false,
        &[],
    ),
    k(
        "grove.io",
        &["v1alpha1"],
        "PodCliqueSet",
        "podcliquesets",
        true,
        &["pcs"],
    ),
    k(
        "grove.io",
        &["v1alpha1"],
        "PodClique",
        "podcliques",
        true,
        &["pclq"],
    ),
    k(
        "inference.networking.k8s.io",
        V1,
        "InferencePool",
        "inferencepools",
        true,
        &[],
    ),
    k(
        "inference.networking.x-k8s.io",
        &["v1alpha2"],
        "InferencePool",
        "inferencepools",
        true,
        &[],
    ),
    k(
        "inference.networking.x-k8s.io",
        &["v1alpha2"],
        "InferenceModel",
        "inferencemodels",
        true,
        &[],
    ),
];

/// A served resource, as discovery announces it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Resource {
    pub group: String,
    pub version: String,
    pub kind: String,
    pub plural: String,
    pub namespaced: bool,
    pub short_names: Vec<String>,
    pub categories: Vec<String>,
}

impl Resource {
    fn from_known(known: &Known, version: &str) -> Resource {
        Resource {
            group: known.group.to_owned(),
            version: version.to_owned(),
            kind: known.kind.to_owned(),
            plural: known.plural.to_owned(),
            namespaced: known.namespaced,
            short_names: known.short.iter().map(|s| (*s).to_owned()).collect(),
            categories: known.categories.iter().map(|s| (*s).to_owned()).collect(),
        }
    }

    /// `pods`, or `deployments.apps`: how the API server names a resource in its messages.
    pub fn qualified(&self) -> String {
        if self.group.is_empty() {
            self.plural.clone()
        } else {
            format!("{}.{}", self.plural, self.group)
        }
    }

    pub fn group_version(&self) -> String {
        group_version(&self.group, &self.version)
    }

    /// The verbs this server actually answers; writes get 405, so they are not announced.
    fn verbs() -> Value {
        json!(["get", "list"])
    }

    fn legacy(&self) -> Value {
        let mut r = json!({
            "name": self.plural,
            "singularName": self.kind.to_lowercase(),
            "namespaced": self.namespaced,
            "kind": self.kind,
            "verbs": Self::verbs(),
        });
        if !self.short_names.is_empty() {
            r["shortNames"] = json!(self.short_names);
        }
        if !self.categories.is_empty() {
            r["categories"] = json!(self.categories);
        }
        r
    }

    fn aggregated(&self) -> Value {
        let mut r = json!({
            "resource": self.plural,
            "responseKind": {"group": self.group, "version": self.version, "kind": self.kind},
            "scope": if self.namespaced { "Namespaced" } else { "Cluster" },
            "singularResource": self.kind.to_lowercase(),
            "verbs": Self::verbs(),
        });
        if !self.short_names.is_empty() {
            r["shortNames"] = json!(self.short_names);
        }
        if !self.categories.is_empty() {
            r["categories"] = json!(self.categories);
        }
        r
    }
}

pub(crate) fn group_version(group: &str, version: &str) -> String {
    if group.is_empty() {
        version.to_owned()
    } else {
        format!("{group}/{version}")
    }
}

/// Splits `apps/v1` into `("apps", "v1")` and `v1` into `("", "v1")`.
pub(crate) fn split_api_version(api_version: &str) -> (String, String) {
    match api_version.split_once('/') {
        Some((g, v)) => (g.to_owned(), v.to_owned()),
        None => (String::new(), api_version.to_owned()),
    }
}

/// client-go's `UnsafeGuessKindToResource`, so an unknown kind gets the plural that kubectl
/// itself would guess (`Policy` → `policies`, `Ingress` → `ingresses`).
fn guess_plural(kind: &str) -> String {
    let lower = kind.to_lowercase();
    if lower.ends_with('s') {
        format!("{lower}es")
    } else if let Some(stem) = lower.strip_suffix('y') {
        format!("{stem}ies")
    } else {
        format!("{lower}s")
    }
}

/// Kubernetes' version priority: GA before beta before alpha, higher numbers first, anything
/// else last in name order. This decides the preferred version of a group, as the real server
/// does, so clients pick e.g. `kueue.x-k8s.io/v1beta2` over `v1beta1`.
fn version_key(v: &str) -> (Reverse<u8>, Reverse<u64>, Reverse<u64>, String) {
    let other = (Reverse(0), Reverse(0), Reverse(0), v.to_owned());
    let Some(rest) = v.strip_prefix('v') else {
        return other;
    };
    let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let Ok(major) = rest[..digits].parse::<u64>() else {
        return other;
    };
    let tail = &rest[digits..];
    let (class, minor) = if tail.is_empty() {
        (3, 0)
    } else if let Some(n) = tail.strip_prefix("beta") {
        (2, n.parse::<u64>().unwrap_or(u64::MAX))
    } else if let Some(n) = tail.strip_prefix("alpha") {
        (1, n.parse::<u64>().unwrap_or(u64::MAX))
    } else {
        return other;
    };
    if class < 3 && minor == u64::MAX {
        return other;
    }
    (
        Reverse(class),
        Reverse(major),
        Reverse(minor),
        String::new(),
    )
}

/// A kind found in the objects: its group, version, kind, and whether any of them had a
/// namespace (which decides the scope of kinds the table does not know).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct SeenKind {
    pub group: String,
    pub version: String,
    pub kind: String,
    pub has_namespace: bool,
}

/// Every served group/version and its resources.
#[derive(Debug, Default)]
pub(crate) struct Catalog {
    /// (group, version) → resources by plural.
    served: BTreeMap<(String, String), BTreeMap<String, Resource>>,
}

impl Catalog {
    /// Builds the catalog from the kinds present in the objects and the group/versions the
    /// caller wants served even without objects (`"kueue.x-k8s.io/v1beta2"`, `"v1"`).
    pub fn build(seen: &[SeenKind], extra: &[String]) -> Catalog {
        let mut gvs: BTreeSet<(String, String)> = BTreeSet::new();
        gvs.insert((String::new(), "v1".to_owned()));
        for s in seen {
            gvs.insert((s.group.clone(), s.version.clone()));
        }
        for e in extra {
            gvs.insert(split_api_version(e));
        }
        let mut served: BTreeMap<(String, String), BTreeMap<String, Resource>> = BTreeMap::new();
        for (g, v) in &gvs {
            let entry = served.entry((g.clone(), v.clone())).or_default();
            for known in KNOWN
                .iter()
                .filter(|kn| kn.group == g && kn.versions.contains(&v.as_str()))
            {
                entry.insert(known.plural.to_owned(), Resource::from_known(known, v));
            }
        }
        for s in seen {
            let resource = match KNOWN
                .iter()
                .find(|kn| kn.group == s.group && kn.kind == s.kind)
            {
                Some(known) => Resource::from_known(known, &s.version),
                None => Resource {
                    group: s.group.clone(),
                    version: s.version.clone(),
                    kind: s.kind.clone(),
                    plural: guess_plural(&s.kind),
                    namespaced: seen
                        .iter()
                        .any(|o| o.group == s.group && o.kind == s.kind && o.has_namespace),
                    short_names: Vec::new(),
                    categories: Vec::new(),
                },
            };
            served
                .entry((s.group.clone(), s.version.clone()))
                .or_default()
                .entry(resource.plural.clone())
                .or_insert(resource);
        }
        Catalog { served }
    }

    pub fn resource(&self, group: &str, version: &str, plural: &str) -> Option<&Resource> {
        self.served
            .get(&(group.to_owned(), version.to_owned()))?
            .get(plural)
    }

    pub fn resource_for_kind(&self, group: &str, version: &str, kind: &str) -> Option<&Resource> {
        self.served
            .get(&(group.to_owned(), version.to_owned()))?
            .values()
            .find(|r| r.kind == kind)
    }

    /// Non-core groups in name order, each with its versions in priority order.
    fn groups(&self) -> Vec<(String, Vec<String>)> {
        let mut groups: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for (g, v) in self.served.keys() {
            if !g.is_empty() {
                groups.entry(g.clone()).or_default().push(v.clone());
            }
        }
        groups
            .into_iter()
            .map(|(g, mut vs)| {
                vs.sort_by_key(|v| version_key(v));
                (g, vs)
            })
            .collect()
    }

    /// `/api`: the core versions (always just `v1`).
    pub fn api_versions(&self, server_address: &str) -> Value {
        json!({
            "kind": "APIVersions",
            "versions": ["v1"],
            "serverAddressByClientCIDRs": [
                {"clientCIDR": "0.0.0.0/0", "serverAddress": server_address}
            ],
        })
    }

    fn api_group_value(group: &str, versions: &[String]) -> Value {
        let vs: Vec<Value> = versions
            .iter()
            .map(|v| json!({"groupVersion": group_version(group, v), "version": v}))
            .collect();
        let preferred = vs.first().cloned().unwrap_or(Value::Null);
        json!({"name": group, "versions": vs, "preferredVersion": preferred})
    }

    /// `/apis`, legacy discovery.
    pub fn api_group_list(&self) -> Value {
        let groups: Vec<Value> = self
            .groups()
            .iter()
            .map(|(g, vs)| Self::api_group_value(g, vs))
            .collect();
        json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups})
    }

    /// `/apis/<group>`.
    pub fn api_group(&self, group: &str) -> Option<Value> {
        let (g, vs) = self.groups().into_iter().find(|(g, _)| g == group)?;
        let mut v = Self::api_group_value(&g, &vs);
        v["kind"] = json!("APIGroup");
        v["apiVersion"] = json!("v1");
        Some(v)
    }

    /// `/api/v1` and `/apis/<group>/<version>`.
    pub fn api_resource_list(&self, group: &str, version: &str) -> Option<Value> {
        let resources = self.served.get(&(group.to_owned(), version.to_owned()))?;
        let list: Vec<Value> = resources.values().map(Resource::legacy).collect();
        Some(json!({
            "kind": "APIResourceList",
            "apiVersion": "v1",
            "groupVersion": group_version(group, version),
            "resources": list,
        }))
    }

    /// Aggregated discovery (`apidiscovery.k8s.io/v2`) for `/api` (`core`) or `/apis`.
    pub fn aggregated(&self, core: bool) -> Value {
        let groups: Vec<(String, Vec<String>)> = if core {
            vec![(String::new(), vec!["v1".to_owned()])]
        } else {
            self.groups()
        };
        let items: Vec<Value> = groups
            .iter()
            .map(|(g, vs)| {
                let versions: Vec<Value> = vs
                    .iter()
                    .map(|v| {
                        let resources: Vec<Value> = self
                            .served
                            .get(&(g.clone(), v.clone()))
                            .map(|rs| rs.values().map(Resource::aggregated).collect())
                            .unwrap_or_default();
                        json!({"version": v, "resources": resources, "freshness": "Current"})
                    })
                    .collect();
                json!({"metadata": {"name": g, "creationTimestamp": null}, "versions": versions})
            })
            .collect();
        json!({
            "kind": "APIGroupDiscoveryList",
            "apiVersion": "apidiscovery.k8s.io/v2",
            "metadata": {},
            "items": items,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_sort_like_kubernetes() {
        let mut vs = vec![
            "v1alpha1", "v1beta1", "foo", "v2", "v1", "v1beta2", "v2alpha2",
        ];
        vs.sort_by_key(|v| version_key(v));
        assert_eq!(
            vs,
            [
                "v2", "v1", "v1beta2", "v1beta1", "v2alpha2", "v1alpha1", "foo"
            ]
        );
    }

    #[test]
    fn plurals_are_guessed_like_client_go() {
        assert_eq!(guess_plural("Widget"), "widgets");
        assert_eq!(guess_plural("Policy"), "policies");
        assert_eq!(guess_plural("Ingress"), "ingresses");
    }

    #[test]
    fn unknown_kinds_take_scope_from_objects() {
        let seen = vec![SeenKind {
            group: "example.com".into(),
            version: "v1".into(),
            kind: "Widget".into(),
            has_namespace: true,
        }];
        let c = Catalog::build(&seen, &[]);
        let r = c.resource("example.com", "v1", "widgets").unwrap();
        assert!(r.namespaced);
        assert!(c.api_resource_list("", "v1").is_some());
        assert!(c.api_resource_list("kueue.x-k8s.io", "v1beta2").is_none());
    }
}
