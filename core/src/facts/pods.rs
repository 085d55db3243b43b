//! Readings of one pod shared by several facts: its kubectl status, how bad its state is, its
//! unreadable quantities and required node labels, and whether a replacement superseded it.

use crate::index::{Index, ObjId};
use crate::json::At as _;
use serde_json::{Map, Value};

/// Status of a pod as kubectl's STATUS column would show it, and whether it is settled
/// (Running and Ready, or Succeeded).
pub fn pod_status(pod: &Value) -> (String, bool) {
    use serde::Deserialize as _;
    // The same typed reader the index uses for every pod, so both agree by construction.
    match crate::index::PodIdx::deserialize(pod) {
        Ok(p) => p.status(),
        // One mistyped field (a label `version: 2`) must not make the pod "Unknown".
        Err(_) => {
            let mended = crate::index::lenient(pod.clone());
            crate::index::PodIdx::deserialize(&mended)
                .map_or_else(|_| ("Unknown".into(), false), |p| p.status())
        }
    }
}

/// How bad a pod's state is, for picking the pod that best explains its owner (lower = worse).
pub fn pod_rank(ix: &Index, id: ObjId) -> u8 {
    let Some(p) = ix.pod(id) else { return 9 };
    match (p.phase.as_str(), p.node.is_some(), p.ready) {
        ("Pending", false, _) => 0,
        ("Pending", true, _) => 1,
        ("Failed", _, _) => 2,
        ("Running", _, false) | ("Unknown", _, _) => 3,
        ("Succeeded", _, _) => 5,
        _ => 4,
    }
}

/// Each resource request or limit of a pod's containers that is not a quantity, as
/// `container c: resources.limits["nvidia.com/gpu"] \`1e400\``, in spec order.
pub fn unreadable_quantities(pod: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for list in ["initContainers", "containers"] {
        for c in pod["spec"][list].as_array().into_iter().flatten() {
            for kind in ["requests", "limits"] {
                for (k, v) in c["resources"][kind].as_object().into_iter().flatten() {
                    if crate::quantity::from_value(v).is_none_or(|q| !q.is_finite()) {
                        let shown = match v {
                            Value::String(s) => s.clone(),
                            other => other.to_string(),
                        };
                        out.push(format!(
                            "container {}: resources.{kind}[\"{k}\"] `{shown}`",
                            c["name"].as_str().unwrap_or("?")
                        ));
                    }
                }
            }
        }
    }
    out
}

/// The node labels a pod requires, in the order its spec gives them: each `nodeSelector` entry
/// (one value) and each `In` expression of its required node affinity (the values it allows).
/// Values that are not strings are left out. The one reading of a pod's label requirements:
/// the placement and device facts both build on it.
pub fn required_node_labels(pod: &Value) -> Vec<(String, Vec<String>)> {
    let mut wanted = Vec::new();
    if let Some(sel) = pod.at("/spec/nodeSelector").and_then(Value::as_object) {
        for (k, v) in sel {
            if let Some(v) = v.as_str() {
                wanted.push((k.clone(), vec![v.to_string()]));
            }
        }
    }
    let terms = pod
        .at("/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms")
        .and_then(Value::as_array);
    for t in terms.into_iter().flatten() {
        for e in t["matchExpressions"].as_array().into_iter().flatten() {
            if e["operator"] != "In" {
                continue;
            }
            let Some(k) = e["key"].as_str() else { continue };
            let vals = e["values"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect();
            wanted.push((k.to_string(), vals));
        }
    }
    wanted
}

/// A terminal pod whose controller has another pod that runs: the replacement took over, and
/// this one is history. The one definition: the work's state and its signals' currency both
/// ask it.
pub(crate) fn superseded_pod(ix: &Index, id: ObjId) -> bool {
    let Some(p) = ix.pod(id) else { return false };
    if !p.terminal() {
        return false;
    }
    // Only a replacement that runs makes the failure history; one still Pending leaves it the
    // work's story (its failure may be why the replacement waits).
    let live = |c: ObjId| c != id && ix.pod(c).is_some_and(|q| !q.terminal() && q.settled);
    if ix
        .owners(id)
        .into_iter()
        .any(|o| ix.children(o).iter().any(|&c| live(c)))
    {
        return true;
    }
    // The controller itself may be missing from a pasted bundle: its pods still name it.
    let missing: Vec<&str> = ix
        .unresolved_owner_refs(id)
        .map(|o| o.uid.as_str())
        .collect();
    !missing.is_empty()
        && pods_by_namespace(ix)
            .get(&ix.object(id).namespace)
            .is_some_and(|pods| {
                pods.iter().any(|&c| {
                    live(c)
                        && ix
                            .unresolved_owner_refs(c)
                            .any(|o| missing.contains(&o.uid.as_str()))
                })
            })
}

type PodsByNamespace = std::collections::HashMap<Option<String>, Vec<ObjId>>;

/// The pods of each namespace, read once per index.
fn pods_by_namespace(ix: &Index) -> std::sync::Arc<PodsByNamespace> {
    ix.once("view.podsByNamespace", || {
        let mut m = PodsByNamespace::default();
        for &p in ix.of_kind("Pod") {
            m.entry(ix.object(p).namespace.clone()).or_default().push(p);
        }
        m
    })
}

/// Pods by namespace and label: which pods carry `key: value`, each list in id order. A
/// Deployment, StatefulSet or pool finds its pods by selector; reading every pod of its
/// namespace for each one was quadratic (most of `scan` on 100,000 pods).
#[derive(Default)]
pub(crate) struct PodsByLabel {
    /// (namespace, key, the value as JSON text) → pods, the three joined by [`label_key`]
    /// into one string: a backlog's pods carry tens of thousands of distinct labels, and three
    /// strings a key took twice the memory. JSON text, so that a value compares as serde_json
    /// compares it (`"4"` and `4` differ) without hashing a `Value`.
    with: std::collections::HashMap<Box<str>, Vec<ObjId>>,
}

/// [`PodsByLabel`]'s key: the namespace (or `-` for none), the label key and the value's JSON
/// text, the first two after their lengths, so no two triples join into the same string
/// whatever characters they hold.
fn label_key(namespace: Option<&str>, key: &str, value_json: &str) -> Box<str> {
    use std::fmt::Write as _;
    let mut k =
        String::with_capacity(namespace.map_or(0, str::len) + key.len() + value_json.len() + 12);
    match namespace {
        Some(ns) => {
            let _ = write!(k, "{}:{ns}", ns.len());
        }
        None => k.push('-'),
    }
    let _ = write!(k, "{}:{key}{value_json}", key.len());
    k.into_boxed_str()
}

impl PodsByLabel {
    /// The pods of `namespace` whose label `key` is `value`.
    pub(crate) fn with(&self, namespace: &Option<String>, key: &str, value: &Value) -> &[ObjId] {
        let text = serde_json::to_string(value).unwrap_or_default();
        self.with
            .get(&label_key(namespace.as_deref(), key, &text))
            .map_or(&[], Vec::as_slice)
    }

    /// The pods of `namespace` that carry every `key: value` of `selector` (none for an empty
    /// one), in id order.
    pub(crate) fn selected(
        &self,
        namespace: &Option<String>,
        selector: &Map<String, Value>,
    ) -> Vec<ObjId> {
        let lists: Vec<&[ObjId]> = selector
            .iter()
            .map(|(k, v)| self.with(namespace, k, v))
            .collect();
        let Some(shortest) = lists.iter().min_by_key(|l| l.len()) else {
            return Vec::new();
        };
        shortest
            .iter()
            .copied()
            .filter(|p| lists.iter().all(|l| l.binary_search(p).is_ok()))
            .collect()
    }
}

#[derive(serde::Deserialize, Default)]
#[serde(default)]
struct LabelsOnly {
    metadata: LabelsMeta,
}

#[derive(serde::Deserialize, Default)]
#[serde(default)]
struct LabelsMeta {
    labels: Map<String, Value>,
}

/// [`PodsByLabel`], read once per index.
pub(crate) fn pods_by_label(ix: &Index) -> std::sync::Arc<PodsByLabel> {
    ix.once("view.podsByLabel", || {
        let mut m = PodsByLabel::default();
        for &p in ix.of_kind("Pod") {
            let ns = &ix.object(p).namespace;
            let labels = ix
                .typed::<LabelsOnly>(p)
                .unwrap_or_default()
                .metadata
                .labels;
            for (k, v) in labels {
                let text = serde_json::to_string(&v).unwrap_or_default();
                m.with
                    .entry(label_key(ns.as_deref(), &k, &text))
                    .or_default()
                    .push(p);
            }
        }
        // Each list is in id order, as `of_kind` lists them: `selected` relies on it.
        m
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn label_keys_of_different_triples_differ() {
        let triples = [
            (None, "a", "\"b\""),
            (Some(""), "a", "\"b\""),
            (Some("-"), "a", "\"b\""),
            (Some("1:a"), "", "1"),
            (Some("1"), ":a", "1"),
            (Some("ns"), "a", "1:b"),
            (Some("ns"), "a1:", "b"),
            (Some("ns"), "a", "\"4\""),
            (Some("ns"), "a", "4"),
        ];
        let keys: std::collections::BTreeSet<_> = triples
            .iter()
            .map(|&(ns, k, v)| label_key(ns, k, v))
            .collect();
        assert_eq!(keys.len(), triples.len(), "{keys:?}");
    }

    #[test]
    fn required_node_labels_read_the_selector_and_required_affinity() {
        let pod = json!({"spec": {
            "nodeSelector": {"nvidia.com/gpu.product": "A100", "bad": 3},
            "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": [
                    {"key": "zone", "operator": "In", "values": ["a", "b", 7]},
                    {"key": "pool", "operator": "NotIn", "values": ["x"]}]}]}}}}});
        assert_eq!(
            required_node_labels(&pod),
            vec![
                (
                    "nvidia.com/gpu.product".to_string(),
                    vec!["A100".to_string()]
                ),
                ("zone".to_string(), vec!["a".to_string(), "b".to_string()]),
            ]
        );
        assert!(required_node_labels(&json!({})).is_empty());
    }
}
