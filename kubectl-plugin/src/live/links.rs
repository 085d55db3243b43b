//! What a round needs to know of the objects earlier rounds found: identity, owners, the node
//! a pod is bound to, the Job a Kueue Workload stands for. Each answer is read for these once,
//! when it arrives; the index the diagnosis uses is built once, at the end, from the same
//! answers ([`super::assemble`]).
//!
//! Owners resolve the way the index resolves them ([`layer_core::Index::owners`]): by uid, else
//! by kind and name in the object's namespace, controller first; so the objects a round reads
//! "because they belong to the target" are the ones the view will link to it.

use std::collections::{BTreeSet, HashMap};

use layer_core::bundle::group_of;
use layer_core::index::OwnerRef;
use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

/// The label by which a Kueue Workload names the Job it stands for.
const JOB_UID_LABEL: &str = "kueue.x-k8s.io/job-uid";

/// One object an answer held, as far as planning needs it.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct Found {
    pub group: String,
    pub kind: String,
    pub namespace: Option<String>,
    pub name: String,
    pub uid: Option<String>,
    pub owners: Vec<OwnerRef>,
    /// A pod's `spec.nodeName`.
    pub node: Option<String>,
    /// A Workload's `kueue.x-k8s.io/job-uid` label.
    pub job_uid: Option<String>,
    /// A Node in a fake-gpu-operator pool.
    pub fake_gpu_pool: bool,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct Head {
    #[serde(default)]
    api_version: Option<String>,
    #[serde(default)]
    kind: Option<String>,
    #[serde(default)]
    metadata: MetaHead,
    #[serde(default)]
    spec: SpecHead,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct MetaHead {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    namespace: Option<String>,
    #[serde(default)]
    uid: Option<String>,
    #[serde(default)]
    labels: Option<HashMap<String, Value>>,
    #[serde(default)]
    owner_references: Vec<OwnerRef>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct SpecHead {
    #[serde(default)]
    node_name: Option<String>,
}

/// The head of an object whose fields are not all of their API type: what can be read of it.
fn lenient_head(raw: &str) -> Option<Head> {
    let v: Value = serde_json::from_str(raw).ok()?;
    let s = |p: &str| v.pointer(p).and_then(Value::as_str).map(str::to_string);
    let owners = v
        .pointer("/metadata/ownerReferences")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|o| OwnerRef {
            api_version: o["apiVersion"].as_str().unwrap_or_default().to_string(),
            kind: o["kind"].as_str().unwrap_or_default().to_string(),
            name: o["name"].as_str().unwrap_or_default().to_string(),
            uid: o["uid"].as_str().unwrap_or_default().to_string(),
            controller: o["controller"].as_bool(),
        })
        .collect();
    Some(Head {
        api_version: s("/apiVersion"),
        kind: s("/kind"),
        metadata: MetaHead {
            name: s("/metadata/name"),
            namespace: s("/metadata/namespace"),
            uid: s("/metadata/uid"),
            labels: v
                .pointer("/metadata/labels")
                .and_then(Value::as_object)
                .map(|m| m.iter().map(|(k, v)| (k.clone(), v.clone())).collect()),
            owner_references: owners,
        },
        spec: SpecHead {
            node_name: s("/spec/nodeName"),
        },
    })
}

fn non_empty(s: Option<String>) -> Option<String> {
    s.filter(|s| !s.is_empty())
}

/// One object's head, typed by the list it came in when it does not say its own type. `None`
/// for what the bundle reader does not keep either (no name, no kind).
fn found(raw: &str, api_version: &str, kind: &str) -> Option<Found> {
    let h = serde_json::from_str::<Head>(raw)
        .ok()
        .or_else(|| lenient_head(raw))?;
    let kind = h.kind.unwrap_or_else(|| kind.to_string());
    let api_version = h.api_version.unwrap_or_else(|| api_version.to_string());
    let group = group_of(&api_version).to_string();
    let label = |key: &str| {
        h.metadata
            .labels
            .as_ref()
            .and_then(|l| l.get(key))
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    let job_uid = (kind == "Workload" && group == "kueue.x-k8s.io")
        .then(|| label(JOB_UID_LABEL))
        .flatten();
    let fake_gpu_pool = kind == "Node"
        && h.metadata
            .labels
            .as_ref()
            .is_some_and(|l| l.contains_key(layer_core::facts::FAKE_GPU_POOL_LABEL));
    let node = (kind == "Pod")
        .then(|| non_empty(h.spec.node_name))
        .flatten();
    Some(Found {
        name: non_empty(h.metadata.name)?,
        namespace: non_empty(h.metadata.namespace),
        uid: non_empty(h.metadata.uid),
        owners: h.metadata.owner_references,
        group,
        kind,
        node,
        job_uid,
        fake_gpu_pool,
    })
}

/// What a pod's text shows that leads its diagnosis to other objects (the owners and what
/// discovery found are the caller's to add). A pod that cannot be read gives no signs, and the
/// plan falls back on what every pod needs.
pub(super) fn pod_signs(text: &str) -> crate::plan::PodSigns {
    let Ok(v) = serde_json::from_str::<Value>(text) else {
        return crate::plan::PodSigns::default();
    };
    let strings = |p: &str| -> std::collections::BTreeMap<String, String> {
        v.pointer(p)
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .filter_map(|(k, v)| v.as_str().map(|s| (k.clone(), s.to_string())))
            .collect()
    };
    let spec = &v["spec"];
    let phase = v.pointer("/status/phase").and_then(Value::as_str);
    crate::plan::PodSigns {
        labels: strings("/metadata/labels"),
        annotations: strings("/metadata/annotations"),
        scheduler: spec["schedulerName"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
        gates: spec["schedulingGates"]
            .as_array()
            .is_some_and(|g| !g.is_empty()),
        claims: spec["resourceClaims"]
            .as_array()
            .is_some_and(|c| !c.is_empty()),
        volumes: spec["volumes"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|vol| vol.get("persistentVolumeClaim").is_some()),
        runtime_class: spec["runtimeClassName"]
            .as_str()
            .is_some_and(|r| !r.is_empty()),
        node: spec["nodeName"]
            .as_str()
            .filter(|n| !n.is_empty())
            .map(str::to_string),
        terminal: matches!(phase, Some("Succeeded" | "Failed")),
        kai_reservation: v
            .pointer("/status/conditions")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|c| c["message"].as_str())
            .any(|m| m.contains(crate::plan::KAI_RESERVATION)),
        ..Default::default()
    }
}

/// The label and annotation keys of an object's text.
pub(super) fn meta_keys(text: &str) -> Vec<String> {
    #[derive(Deserialize, Default)]
    struct Meta {
        #[serde(default)]
        labels: Option<HashMap<String, serde::de::IgnoredAny>>,
        #[serde(default)]
        annotations: Option<HashMap<String, serde::de::IgnoredAny>>,
    }
    #[derive(Deserialize)]
    struct Object {
        #[serde(default)]
        metadata: Option<Meta>,
    }
    let m = serde_json::from_str::<Object>(text)
        .ok()
        .and_then(|o| o.metadata)
        .unwrap_or_default();
    m.labels
        .into_iter()
        .flatten()
        .chain(m.annotations.into_iter().flatten())
        .map(|(k, _)| k)
        .collect()
}

/// The object of a GET answer.
pub(super) fn of_object(text: &str, api_version: &str, kind: &str) -> Option<Found> {
    found(text, api_version, kind)
}

/// The objects of a list page, typed by the list.
pub(super) fn of_items(items: &[&RawValue], api_version: &str, kind: &str) -> Vec<Found> {
    items
        .iter()
        .filter_map(|raw| found(raw.get(), api_version, kind))
        .collect()
}

type Identity<'a> = (&'a str, &'a str, Option<&'a str>, &'a str);

fn identity(f: &Found) -> Identity<'_> {
    (&f.group, &f.kind, f.namespace.as_deref(), &f.name)
}

/// The owner links between found objects, each object once (the later copy, at the place of
/// the first, as in the bundle).
pub(super) struct Links<'a> {
    objects: Vec<&'a Found>,
    by_identity: HashMap<Identity<'a>, usize>,
    owners: Vec<Vec<usize>>,
    children: HashMap<usize, Vec<usize>>,
    workloads_by_job_uid: HashMap<&'a str, Vec<usize>>,
}

/// The objects that make up a target, for the reads about them (events, CRDs).
#[derive(Debug, Default)]
pub(super) struct Family {
    /// Their uids, in bundle order.
    pub uids: Vec<String>,
    /// The nodes their pods are bound to.
    pub nodes: BTreeSet<String>,
    /// Their (group, kind)s.
    pub kinds: BTreeSet<(String, String)>,
}

impl<'a> Links<'a> {
    pub(super) fn new(found: Vec<&'a Found>) -> Links<'a> {
        let mut objects: Vec<&Found> = Vec::with_capacity(found.len());
        let mut by_identity: HashMap<Identity, usize> = HashMap::with_capacity(found.len());
        for f in found {
            match by_identity.get(&identity(f)) {
                Some(&at) => objects[at] = f,
                None => {
                    by_identity.insert(identity(f), objects.len());
                    objects.push(f);
                }
            }
        }
        let mut by_uid: HashMap<&str, usize> = HashMap::new();
        let mut workloads_by_job_uid: HashMap<&str, Vec<usize>> = HashMap::new();
        for (id, f) in objects.iter().enumerate() {
            if let Some(u) = &f.uid {
                by_uid.insert(u, id);
            }
            if let Some(j) = &f.job_uid {
                workloads_by_job_uid.entry(j).or_default().push(id);
            }
        }
        let mut links = Links {
            objects,
            by_identity,
            owners: Vec::new(),
            children: HashMap::new(),
            workloads_by_job_uid,
        };
        let owners: Vec<Vec<usize>> = (0..links.objects.len())
            .map(|id| links.resolve_owners(id, &by_uid))
            .collect();
        for (id, os) in owners.iter().enumerate() {
            for &o in os {
                links.children.entry(o).or_default().push(id);
            }
        }
        #[allow(clippy::iter_over_hash_type)] // each list sorted on its own
        for v in links.children.values_mut() {
            v.sort_unstable();
            v.dedup();
        }
        links.owners = owners;
        links
    }

    fn resolve_owners(&self, id: usize, by_uid: &HashMap<&str, usize>) -> Vec<usize> {
        let f = self.objects[id];
        let mut refs: Vec<&OwnerRef> = f.owners.iter().collect();
        refs.sort_by_key(|r| !r.controller.unwrap_or(false));
        refs.into_iter()
            .filter_map(|r| {
                (!r.uid.is_empty())
                    .then(|| by_uid.get(r.uid.as_str()).copied())
                    .flatten()
                    .or_else(|| {
                        let key = (
                            group_of(&r.api_version),
                            r.kind.as_str(),
                            f.namespace.as_deref(),
                            r.name.as_str(),
                        );
                        self.by_identity.get(&key).copied()
                    })
            })
            .collect()
    }

    /// The object of this identity.
    pub(super) fn find(&self, of: &Found) -> Option<usize> {
        self.by_identity.get(&identity(of)).copied()
    }

    /// From an object up to its top owner, the first owner at each step, without cycles.
    fn owner_chain(&self, id: usize) -> Vec<usize> {
        let mut chain = Vec::new();
        let mut cur = id;
        while let Some(&next) = self.owners[cur].first() {
            if next == id || chain.contains(&next) || chain.len() > 16 {
                break;
            }
            chain.push(next);
            cur = next;
        }
        chain
    }

    /// The target, its owners, everything below them, and the Workloads of any of them.
    pub(super) fn family(&self, target: usize) -> Family {
        let mut family: BTreeSet<usize> = self.owner_chain(target).into_iter().collect();
        family.insert(target);
        let mut stack: Vec<usize> = family.iter().copied().collect();
        while let Some(x) = stack.pop() {
            for &c in self.children.get(&x).into_iter().flatten() {
                if family.insert(c) {
                    stack.push(c);
                }
            }
        }
        let uids: Vec<&str> = family
            .iter()
            .filter_map(|&x| self.objects[x].uid.as_deref())
            .collect();
        for uid in uids {
            family.extend(self.workloads_by_job_uid.get(uid).into_iter().flatten());
        }
        let mut out = Family::default();
        for &x in &family {
            let f = self.objects[x];
            out.uids.extend(f.uid.clone());
            out.nodes.extend(f.node.clone());
            out.kinds.insert((f.group.clone(), f.kind.clone()));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use layer_core::{Bundle, Index};

    /// The family as the index links it: what the reader planned from before it stopped
    /// building an index per round.
    fn indexed_family(ix: &Index, target: usize) -> Family {
        let mut family: BTreeSet<usize> = ix.owner_chain(target).into_iter().collect();
        family.insert(target);
        let mut stack: Vec<usize> = family.iter().copied().collect();
        while let Some(x) = stack.pop() {
            for &c in ix.children(x) {
                if family.insert(c) {
                    stack.push(c);
                }
            }
        }
        let uids: Vec<String> = family
            .iter()
            .filter_map(|&x| {
                ix.object(x)
                    .uid
                    .as_ref()
                    .map(layer_core::bundle::Uid::to_string)
            })
            .collect();
        for uid in &uids {
            family.extend(ix.workloads_for_job_uid(uid).iter().copied());
        }
        let mut out = Family::default();
        for &x in &family {
            let o = ix.object(x);
            out.uids
                .extend(o.uid.as_ref().map(layer_core::bundle::Uid::to_string));
            out.nodes.extend(ix.pod(x).and_then(|p| p.node.clone()));
            out.kinds
                .insert((o.group().to_string(), o.kind().to_string()));
        }
        out
    }

    /// Owners named without a uid, a uid that names nothing, a controller listed second, a
    /// cycle, two copies of one object, a label that is not a string.
    const ODD: &str = r#"[
      {"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j","namespace":"a","uid":"uj"}},
      {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"a","uid":"up","labels":{"v":2},
        "ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"r"},
                           {"apiVersion":"batch/v1","kind":"Job","name":"j","uid":"gone","controller":true}]},
       "spec":{"nodeName":"n1"}},
      {"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"r","namespace":"a","uid":"ur",
        "ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"s","uid":"us"}]}},
      {"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"s","namespace":"a","uid":"us",
        "ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"r","uid":"ur"}]}},
      {"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"Workload","metadata":{"name":"w","namespace":"a","uid":"uw",
        "labels":{"kueue.x-k8s.io/job-uid":"uj"}}},
      {"apiVersion":"v1","kind":"Pod","metadata":{"name":"q","namespace":"a","uid":"uq",
        "ownerReferences":[{"apiVersion":"batch/v1","kind":"Job","name":"j","uid":"uj"}]},"spec":{"nodeName":""}},
      {"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j","namespace":"a","uid":"uj"},"spec":{}}
    ]"#;

    /// For every object of every scenario (and of a bundle of odd links), the objects planned
    /// as its family are the ones the index links to it: owners by uid or by name, children,
    /// Workloads by job uid, nodes.
    #[test]
    fn planning_links_objects_as_the_index_does() {
        let mut bundles: Vec<(String, String)> = scenarios::all()
            .into_iter()
            .map(|s| (s.name.clone(), s.bundle_text()))
            .collect();
        bundles.push(("odd links".into(), ODD.into()));
        let mut checked = 0;
        for (name, text) in bundles {
            let ix = Index::new(Bundle::parse(text.as_str()).expect("bundle parses"));
            let mut found: Vec<Found> = (0..ix.len())
                .filter_map(|i| {
                    let o = ix.object(i);
                    of_object(&ix.value(i).to_string(), o.api_version(), o.kind())
                })
                .collect();
            assert_eq!(found.len(), ix.len(), "{name}: every object read");
            // A second copy of an object, as a list answer repeats the target's GET.
            found.push(found[0].clone());
            let links = Links::new(found.iter().collect());
            for (id, f) in found[..ix.len()].iter().enumerate() {
                let got = links.family(links.find(f).expect("found"));
                let want = indexed_family(&ix, id);
                assert_eq!(
                    (&got.uids, &got.nodes, &got.kinds),
                    (&want.uids, &want.nodes, &want.kinds),
                    "{name}: family of {}/{}",
                    f.kind,
                    f.name
                );
                checked += 1;
            }
        }
        assert!(checked > 500, "{checked} objects");
    }
}
