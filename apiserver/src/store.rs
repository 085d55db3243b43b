//! The objects the server holds, filed by resource, namespace and name.
//!
//! Objects are identified as the tool's bundle identifies them (API group, kind, namespace,
//! name): a later copy replaces an earlier one unless both carry integer resourceVersions, in
//! which case the higher one stays.
//!
//! Like a real server, every version of a group serves all of the group's objects of that
//! resource (a Workload written as `v1beta1` is listed under `v1beta2` too), and
//! `events.k8s.io/v1` Events are listed under core `v1` events as well (one storage). Unlike
//! a real server there is no conversion: an object keeps the body and apiVersion it was
//! written with, and field selectors on core events read `regarding.*` for `involvedObject.*`
//! when the stored object is in the `events.k8s.io` shape.

use std::collections::{BTreeMap, BTreeSet};
use std::io;

use serde_json::{Value, json};

use crate::catalog::{Catalog, Resource, SeenKind, split_api_version};

/// One stored object with the fields it is filed under.
#[derive(Debug, Clone)]
pub(crate) struct Object {
    pub namespace: Option<String>,
    pub name: String,
    pub value: Value,
}

/// Key of a resource's objects: (group, version, plural).
type ResourceKey = (String, String, String);

#[derive(Debug, Default)]
pub(crate) struct Store {
    /// Objects of each resource, in (namespace, name) order: the order etcd keys give the real
    /// server, so pages are stable.
    by_resource: BTreeMap<ResourceKey, Vec<Object>>,
    /// The list resourceVersion: one past the highest integer resourceVersion seen.
    pub resource_version: String,
}

fn text<'a>(v: &'a Value, path: &[&str]) -> Option<&'a str> {
    let mut cur = v;
    for p in path {
        cur = cur.get(*p)?;
    }
    cur.as_str()
}

fn integer_rv(v: &Value) -> Option<u64> {
    text(v, &["metadata", "resourceVersion"])?.parse().ok()
}

/// A Namespace as the API server creates it, without timestamps or uid (none are known).
fn namespace_object(name: &str) -> Value {
    json!({
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": name, "labels": {"kubernetes.io/metadata.name": name}},
        "spec": {"finalizers": ["kubernetes"]},
        "status": {"phase": "Active"},
    })
}

/// Validates the objects, drops replaced duplicates, adds missing Namespaces, builds the
/// catalog from the kinds seen and files every object under its resource.
pub(crate) fn load(objects: Vec<Value>, extra_apis: &[String]) -> io::Result<(Catalog, Store)> {
    // Identity → (apiVersion, object); BTreeMap keeps input order irrelevant to the output.
    let mut unique: BTreeMap<(String, String, String, String), (String, Value)> = BTreeMap::new();
    for (i, obj) in objects.into_iter().enumerate() {
        let bad = |what: &str| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("object #{i} has no {what}"),
            )
        };
        let api_version = text(&obj, &["apiVersion"])
            .ok_or_else(|| bad("apiVersion"))?
            .to_owned();
        let kind = text(&obj, &["kind"]).ok_or_else(|| bad("kind"))?.to_owned();
        let name = text(&obj, &["metadata", "name"])
            .ok_or_else(|| bad("metadata.name"))?
            .to_owned();
        let namespace = text(&obj, &["metadata", "namespace"])
            .unwrap_or("")
            .to_owned();
        let (group, _) = split_api_version(&api_version);
        let key = (group, kind, namespace, name);
        let keep_old = unique.get(&key).is_some_and(
            |(_, old)| matches!((integer_rv(old), integer_rv(&obj)), (Some(a), Some(b)) if a > b),
        );
        if !keep_old {
            unique.insert(key, (api_version, obj));
        }
    }

    // A real cluster has a Namespace for every namespace its objects live in, plus the four
    // it creates itself; kubectl relies on this (after a NotFound it GETs the namespace to
    // say which of the two is missing). Objects the caller gave win over these.
    let mut namespaces: BTreeSet<String> =
        ["default", "kube-system", "kube-public", "kube-node-lease"]
            .map(str::to_owned)
            .into();
    namespaces.extend(
        unique
            .keys()
            .map(|(_, _, ns, _)| ns.clone())
            .filter(|ns| !ns.is_empty()),
    );
    for ns in namespaces {
        unique
            .entry((
                String::new(),
                "Namespace".to_owned(),
                String::new(),
                ns.clone(),
            ))
            .or_insert_with(|| ("v1".to_owned(), namespace_object(&ns)));
    }

    let mut seen: Vec<SeenKind> = unique
        .iter()
        .map(|((group, kind, ns, _), (api_version, _))| SeenKind {
            group: group.clone(),
            version: split_api_version(api_version).1,
            kind: kind.clone(),
            has_namespace: !ns.is_empty(),
        })
        .collect();
    seen.sort();
    seen.dedup();
    let catalog = Catalog::build(&seen, extra_apis);

    let mut store = Store::default();
    let mut max_rv = 0u64;
    for ((group, kind, ns, name), (api_version, mut value)) in unique {
        max_rv = max_rv.max(integer_rv(&value).unwrap_or(0));
        let version = split_api_version(&api_version).1;
        let Some(resource) = catalog.resource_for_kind(&group, &version, &kind) else {
            continue; // cannot happen: every seen kind is in the catalog
        };
        let namespace = if resource.namespaced {
            // A namespaced object always has a namespace on a real server; hand-written test
            // objects that omit it land in "default", as `kubectl apply` would put them.
            let ns = if ns.is_empty() {
                "default".to_owned()
            } else {
                ns
            };
            if let Some(meta) = value.get_mut("metadata").and_then(Value::as_object_mut) {
                meta.insert("namespace".into(), Value::String(ns.clone()));
            }
            Some(ns)
        } else {
            None
        };
        store
            .by_resource
            .entry((group, version, resource.plural.clone()))
            .or_default()
            .push(Object {
                namespace,
                name,
                value,
            });
    }
    for objs in store.by_resource.values_mut() {
        objs.sort_by(|a, b| (&a.namespace, &a.name).cmp(&(&b.namespace, &b.name)));
    }
    store.resource_version = (max_rv + 1).to_string();
    Ok((catalog, store))
}

impl Store {
    /// All objects of a resource, optionally in one namespace, in key order, whatever version
    /// of the group they were written in (core events include `events.k8s.io` ones).
    pub fn list<'a>(
        &'a self,
        r: &Resource,
        namespace: Option<&'a str>,
    ) -> impl Iterator<Item = &'a Object> + 'a {
        let group = r.group.clone();
        let plural = r.plural.clone();
        let core_events = group.is_empty() && plural == "events";
        let mut objs: Vec<&'a Object> = self
            .by_resource
            .iter()
            .filter(move |((g, _, p), _)| {
                (g == &group && p == &plural)
                    || (core_events && g == "events.k8s.io" && p == "events")
            })
            .flat_map(|(_, objs)| objs.iter())
            .filter(move |o| namespace.is_none() || o.namespace.as_deref() == namespace)
            .collect();
        objs.sort_by(|a, b| (&a.namespace, &a.name).cmp(&(&b.namespace, &b.name)));
        objs.into_iter()
    }

    pub fn get<'a>(
        &'a self,
        r: &Resource,
        namespace: Option<&'a str>,
        name: &str,
    ) -> Option<&'a Object> {
        self.list(r, namespace).find(|o| o.name == name)
    }
}
