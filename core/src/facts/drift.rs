//! Device requests that did not arrive where they were asked for.
//!
//! A GPU request travels: a person writes it in a custom resource, the API server stores what
//! the kind's schema keeps, and the controller writes it again into the pod template of the
//! object it makes. Two quiet failures sit on that road, and neither leaves a condition or an
//! event: the API server drops a field its schema does not have (the request never reached the
//! stored object), and the controller writes a request its owner does not ask for (a merge that
//! kept an old one). Both are read here as the object's own words, so the layer of the object's
//! kind (the serving controller's, for an InferenceService) is where they count.

use crate::index::{Index, ObjId};
use crate::json::At as _;
use crate::quantity::extended;
use serde_json::Value;
use std::collections::BTreeSet;

/// The annotation `kubectl apply` keeps the applied object in.
pub const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// The first path under `spec` that the last applied configuration holds with a device request
/// in it and the stored object does not: the API server pruned it. Compared only when both are
/// of the same apiVersion (a conversion renames fields).
pub fn pruned_device_request(v: &Value) -> Option<String> {
    let applied = v
        .at("/metadata/annotations")
        .and_then(|a| a.get(LAST_APPLIED))
        .and_then(Value::as_str)?;
    let applied: Value = serde_json::from_str(applied).ok()?;
    if applied.get("apiVersion") != v.get("apiVersion") {
        return None;
    }
    let mut path = vec!["spec".to_string()];
    missing(applied.get("spec")?, v.get("spec")?, &mut path)
}

/// What of a last applied configuration [`pruned_device_request`] reads, and nothing else: its
/// `apiVersion` and `kind`, and under `spec` only the branches that lead to a device resource
/// (lists keep their length, other items empty), each device's quantity kept when it is one.
/// A redacted bundle keeps this in place of the whole configuration, which can hold secrets.
pub fn device_skeleton(applied: &str) -> Option<String> {
    let applied: Value = serde_json::from_str(applied).ok()?;
    let spec = skeleton(applied.get("spec")?)?;
    let mut out = serde_json::Map::new();
    for k in ["apiVersion", "kind"] {
        if let Some(v) = applied.get(k).filter(|v| v.is_string()) {
            out.insert(k.into(), v.clone());
        }
    }
    out.insert("spec".into(), spec);
    Some(Value::Object(out).to_string())
}

/// The branches of `v` that name a device resource; `None` when none does.
fn skeleton(v: &Value) -> Option<Value> {
    match v {
        Value::Object(m) => {
            let kept: serde_json::Map<String, Value> = m
                .iter()
                .filter_map(|(k, sub)| {
                    if extended(k) {
                        let q = sub.as_str().filter(|q| crate::quantity::parse(q).is_some());
                        return Some((k.clone(), Value::String(q.unwrap_or("<redacted>").into())));
                    }
                    skeleton(sub).map(|s| (k.clone(), s))
                })
                .collect();
            (!kept.is_empty()).then_some(Value::Object(kept))
        }
        Value::Array(a) => {
            let items: Vec<Option<Value>> = a.iter().map(skeleton).collect();
            items.iter().any(Option::is_some).then(|| {
                Value::Array(
                    items
                        .into_iter()
                        .map(|i| i.unwrap_or_else(|| Value::Object(Default::default())))
                        .collect(),
                )
            })
        }
        _ => None,
    }
}

/// Depth-first: the first subtree of `applied` absent from `stored` that names a device.
fn missing(applied: &Value, stored: &Value, path: &mut Vec<String>) -> Option<String> {
    match (applied, stored) {
        (Value::Object(a), Value::Object(s)) => a.iter().find_map(|(k, sub)| {
            path.push(k.clone());
            let found = match s.get(k) {
                None => names_device(sub).map(|d| format!("{} ({d})", path.join("."))),
                Some(stored_sub) => missing(sub, stored_sub, path),
            };
            path.pop();
            found
        }),
        // Lists are compared item by item only when nothing was added or removed.
        (Value::Array(a), Value::Array(s)) if a.len() == s.len() => {
            a.iter().zip(s).enumerate().find_map(|(i, (x, y))| {
                path.push(format!("[{i}]"));
                let found = missing(x, y, path);
                path.pop();
                found
            })
        }
        _ => None,
    }
}

/// The first device resource named as a key anywhere in `v`.
fn names_device(v: &Value) -> Option<String> {
    match v {
        Value::Object(m) => m.iter().find_map(|(k, sub)| match extended(k) {
            true => Some(k.clone()),
            false => names_device(sub),
        }),
        Value::Array(a) => a.iter().find_map(names_device),
        _ => None,
    }
}

pub use crate::attribution::NOT_FROM_OWNER;

/// A device the object's pod template asks for that its controlling owner, which does ask for
/// devices in its own spec, names nowhere: the controller wrote a request nobody asked for.
pub fn request_not_from_owner(ix: &Index, id: ObjId, v: &Value) -> Option<String> {
    let template = v.at("/spec/template/spec")?;
    let owner = ix.owners(id).first().copied()?;
    // Kubernetes' own controllers copy a template as it is; what drifts is another's writing.
    if matches!(ix.object(owner).group(), "" | "apps" | "batch") {
        return None;
    }
    let (extra, asked) = unasked(&ix.value(owner), template)?;
    let o = ix.object(owner);
    Some(format!(
        "the pod template asks for {extra}, which {} {} does not ask for (it asks for {asked})",
        o.kind(),
        o.name
    ))
}

/// The same road for a pod pasted without the object that made it (its ownerReferences lead
/// nowhere in the bundle) but known as the work's by the label its controller writes: a device
/// the pod asks for that the work, a custom resource asking for devices, names nowhere.
pub fn pod_request_not_from_work(ix: &Index, work: ObjId, pod: ObjId) -> Option<String> {
    let w = ix.object(work);
    if matches!(w.group(), "" | "apps" | "batch") || !ix.owners(pod).is_empty() {
        return None;
    }
    let pv = ix.value(pod);
    let (extra, asked) = unasked(&ix.value(work), pv.get("spec")?)?;
    Some(format!(
        "pod {} asks for {extra}, which {} {} does not ask for (it asks for {asked})",
        ix.object(pod).name,
        w.kind(),
        w.name
    ))
}

/// The first device a pod spec's containers ask for that `owner`'s spec, which asks for some,
/// names nowhere; with the owner's devices, joined.
fn unasked(owner: &Value, pod_spec: &Value) -> Option<(String, String)> {
    let mut asked = BTreeSet::new();
    devices_in(owner.get("spec")?, &mut asked);
    if asked.is_empty() {
        return None;
    }
    let mut written = BTreeSet::new();
    for c in pod_spec["containers"].as_array().into_iter().flatten() {
        devices_in(&c["resources"], &mut written);
    }
    let extra = written.difference(&asked).next()?.clone();
    Some((extra, asked.into_iter().collect::<Vec<_>>().join(", ")))
}

/// Every device resource named under a `limits` or `requests` map anywhere in `v`.
fn devices_in(v: &Value, out: &mut BTreeSet<String>) {
    match v {
        Value::Object(m) => {
            for (k, sub) in m {
                match (k.as_str(), sub) {
                    ("limits" | "requests", Value::Object(r)) => {
                        out.extend(r.keys().filter(|r| extended(r)).cloned());
                    }
                    _ => devices_in(sub, out),
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|x| devices_in(x, out)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn applied(last: Value, stored_spec: Value) -> Value {
        json!({
            "apiVersion": "serving.kserve.io/v1beta1",
            "metadata": {"annotations": {LAST_APPLIED: last.to_string()}},
            "spec": stored_spec,
        })
    }

    #[test]
    fn a_pasted_pod_asking_for_a_device_its_work_does_not_is_named_and_one_it_asks_for_is_not() {
        let isvc = json!({"apiVersion": "serving.kserve.io/v1beta1", "kind": "InferenceService",
            "metadata": {"name": "m", "namespace": "d", "uid": "u0"},
            "spec": {"predictor": {"model": {"resources": {"limits": {"nvidia.com/mig-1g.10gb": "2"}}}}}});
        let pod = |name: &str, res: &str| {
            json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "d", "uid": name},
            "spec": {"containers": [{"name": "c", "resources": {"limits": {res: "1"}}}]}})
        };
        let ix = Index::new(
            crate::Bundle::parse(
                json!({"kind": "List", "items": [isvc, pod("w", "nvidia.com/gpu"),
                    pod("h", "nvidia.com/mig-1g.10gb")]})
                .to_string(),
            )
            .expect("bundle"),
        );
        let find = |kind, name| ix.find(kind, Some("d"), name).expect(name);
        let work = find("InferenceService", "m");
        assert_eq!(
            pod_request_not_from_work(&ix, work, find("Pod", "w")).as_deref(),
            Some(
                "pod w asks for nvidia.com/gpu, which InferenceService m does not ask for \
                 (it asks for nvidia.com/mig-1g.10gb)"
            )
        );
        assert_eq!(pod_request_not_from_work(&ix, work, find("Pod", "h")), None);
    }

    #[test]
    fn a_pruned_device_request_is_named_by_its_path() {
        let last = json!({"apiVersion": "serving.kserve.io/v1beta1",
            "spec": {"predictor": {"workerSpec": {"resources": {"limits": {"nvidia.com/gpu": "1"}}}}}});
        let v = applied(last, json!({"predictor": {"workerSpec": {}}}));
        assert_eq!(
            pruned_device_request(&v).as_deref(),
            Some("spec.predictor.workerSpec.resources (nvidia.com/gpu)")
        );
    }

    #[test]
    fn the_skeleton_keeps_only_device_branches_and_still_shows_the_pruning() {
        let last = json!({"apiVersion": "serving.kserve.io/v1beta1", "kind": "InferenceService",
            "metadata": {"name": "secret-name"},
            "spec": {"predictor": {"containers": [{"env": [{"name": "TOKEN", "value": "s3cr3t"}]}],
                "workerSpec": {"resources": {"limits": {"nvidia.com/gpu": "1", "cpu": "4"}}}}}});
        let kept = device_skeleton(&last.to_string()).expect("a device branch");
        assert!(
            !kept.contains("s3cr3t") && !kept.contains("secret-name") && !kept.contains("cpu"),
            "{kept}"
        );
        let mut v = applied(
            last,
            json!({"predictor": {"containers": [{}], "workerSpec": {}}}),
        );
        v["metadata"]["annotations"][LAST_APPLIED] = json!(kept);
        assert_eq!(
            pruned_device_request(&v).as_deref(),
            Some("spec.predictor.workerSpec.resources (nvidia.com/gpu)")
        );
        assert_eq!(device_skeleton(r#"{"spec": {"replicas": 2}}"#), None);
    }

    #[test]
    fn pruning_without_a_device_or_across_versions_is_not_reported() {
        let last = json!({"apiVersion": "serving.kserve.io/v1beta1",
            "spec": {"predictor": {"typo": {"cpu": "1"}}}});
        assert_eq!(
            pruned_device_request(&applied(last, json!({"predictor": {}}))),
            None
        );
        let other = json!({"apiVersion": "serving.kserve.io/v1alpha1",
            "spec": {"predictor": {"resources": {"limits": {"nvidia.com/gpu": "1"}}}}});
        assert_eq!(
            pruned_device_request(&applied(other, json!({"predictor": {}}))),
            None
        );
        let kept = json!({"apiVersion": "serving.kserve.io/v1beta1",
            "spec": {"predictor": {"resources": {"limits": {"nvidia.com/gpu": "1"}}}}});
        let stored = json!({"predictor": {"resources": {"limits": {"nvidia.com/gpu": "1"}}}});
        assert_eq!(pruned_device_request(&applied(kept, stored)), None);
    }

    fn index(items: Value) -> Index {
        let list = json!({"apiVersion": "v1", "kind": "List", "items": items});
        Index::new(crate::bundle::Bundle::parse(list.to_string()).expect("parses"))
    }

    fn made(owner: (&str, &str), limits: Value) -> Value {
        json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "p", "namespace": "ns", "ownerReferences": [
                {"apiVersion": owner.0, "kind": owner.1, "name": "o", "uid": "u1", "controller": true}]},
            "spec": {"template": {"spec": {"containers": [
                {"name": "c", "resources": {"limits": limits}}]}}}})
    }

    fn owner(api: &str, kind: &str, limits: Value) -> Value {
        json!({"apiVersion": api, "kind": kind, "metadata": {"name": "o", "namespace": "ns", "uid": "u1"},
            "spec": {"predictor": {"containers": [{"name": "c", "resources": {"limits": limits}}]}}})
    }

    fn said(items: Value) -> Option<String> {
        let ix = index(items);
        let id = ix.find("Deployment", Some("ns"), "p").expect("deployment");
        request_not_from_owner(&ix, id, &ix.value(id))
    }

    #[test]
    fn a_device_the_owner_does_not_ask_for_is_named() {
        let api = "serving.kserve.io/v1beta1";
        let both = json!({"amd.com/gpu": "1", "nvidia.com/gpu": "1"});
        let extra = said(json!([
            owner(api, "InferenceService", json!({"amd.com/gpu": "1"})),
            made((api, "InferenceService"), both.clone()),
        ]))
        .expect("named");
        assert!(
            extra.contains("nvidia.com/gpu") && extra.contains("InferenceService o"),
            "{extra}"
        );
        // The same request as the owner's, an owner that asks for no device in its own words
        // (its controller chooses), or Kubernetes' own controller copying a template: nothing.
        let same = json!({"amd.com/gpu": "1"});
        assert_eq!(
            said(json!([
                owner(api, "InferenceService", same.clone()),
                made((api, "InferenceService"), same)
            ])),
            None
        );
        let none = json!({"cpu": "1"});
        assert_eq!(
            said(json!([
                owner(api, "InferenceService", none),
                made((api, "InferenceService"), both.clone())
            ])),
            None
        );
        let rs = owner("apps/v1", "ReplicaSet", json!({"amd.com/gpu": "1"}));
        assert_eq!(
            said(json!([rs, made(("apps/v1", "ReplicaSet"), both)])),
            None
        );
    }
}
