//! Readings of one pod shared by several facts: its kubectl status, how bad its state is, its
//! unreadable quantities and required node labels, and whether a replacement superseded it.

use crate::index::{Index, ObjId};
use crate::json::At as _;
use serde_json::Value;

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

/// Whether a message about the view's pod (a condition of `pod`, its JSON, or an event about
/// it) holds one of `words`: how the facts read the scheduler's refusal of it.
pub fn pod_says(ctx: &super::Ctx, pod: &Value, words: &[&str]) -> bool {
    let said = |m: &str| words.iter().any(|w| m.contains(w));
    let in_condition = pod
        .at("/status/conditions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .any(|c| c["message"].as_str().is_some_and(said));
    in_condition
        || ctx
            .pod
            .is_some_and(|id| ctx.events_about(id).iter().any(|(_, e)| said(&e.message)))
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
            .get(&ix.object(id).namespace_name().cloned())
            .is_some_and(|pods| {
                pods.iter().any(|&c| {
                    live(c)
                        && ix
                            .unresolved_owner_refs(c)
                            .any(|o| missing.contains(&o.uid.as_str()))
                })
            })
}

type PodsByNamespace = std::collections::HashMap<Option<crate::bundle::Name>, Vec<ObjId>>;

/// The pods of each namespace, read once per index.
fn pods_by_namespace(ix: &Index) -> std::sync::Arc<PodsByNamespace> {
    ix.once("view.podsByNamespace", || {
        let mut m = PodsByNamespace::default();
        for &p in ix.of_kind("Pod") {
            m.entry(ix.object(p).namespace_name().cloned())
                .or_default()
                .push(p);
        }
        m
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
