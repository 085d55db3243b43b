//! Small readers over `serde_json::Value` that the view and the area facts share.

use serde_json::{Map, Value};

/// `Value::pointer` without its cost: serde_json copies every step of the pointer into a new
/// string to undo `~1` and `~0`, and facts read a dozen pointers per object per view. A
/// pointer with a `~` goes to serde_json; any other is walked in place, with the same answers
/// (array indexes as serde_json reads them: no sign, no leading zero).
pub trait At {
    fn at(&self, pointer: &str) -> Option<&Value>;
}

impl At for Value {
    fn at(&self, pointer: &str) -> Option<&Value> {
        if pointer.contains('~') {
            return self.pointer(pointer);
        }
        if pointer.is_empty() {
            return Some(self);
        }
        pointer
            .strip_prefix('/')?
            .split('/')
            .try_fold(self, |v, step| match v {
                Value::Object(m) => m.get(step),
                Value::Array(a) => array_index(step).and_then(|i| a.get(i)),
                _ => None,
            })
    }
}

fn array_index(step: &str) -> Option<usize> {
    if step.starts_with('+') || (step.starts_with('0') && step.len() != 1) {
        return None;
    }
    step.parse().ok()
}

/// A JSON object of these fields, the values moved in. `json!` would serialize each value
/// again, which costs on facts that hold lists as long as the cluster.
pub fn object<'k>(fields: impl IntoIterator<Item = (&'k str, Value)>) -> Value {
    Value::Object(
        fields
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
    )
}

/// A non-empty string at a JSON pointer.
pub fn str_at<'v>(v: &'v Value, ptr: &str) -> Option<&'v str> {
    v.at(ptr).and_then(Value::as_str).filter(|s| !s.is_empty())
}

/// A non-empty label value.
pub fn label<'v>(v: &'v Value, key: &str) -> Option<&'v str> {
    v.at("/metadata/labels")
        .and_then(|l| l.get(key))
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
}

/// The DeviceClass names a DRA device request names, in every API shape: v1/v1beta2
/// `exactly.deviceClassName`, v1beta1 `deviceClassName`, and each `firstAvailable` alternative.
pub fn request_device_classes(req: &Value) -> Vec<&str> {
    let mut names: Vec<&str> = Vec::new();
    names.extend(req["deviceClassName"].as_str());
    names.extend(req.at("/exactly/deviceClassName").and_then(Value::as_str));
    for alt in req["firstAvailable"].as_array().into_iter().flatten() {
        names.extend(alt["deviceClassName"].as_str());
    }
    names
}

/// A field of a pod's `spec.resourceClaims` entry (`resourceClaimName`,
/// `resourceClaimTemplateName`), also where Kubernetes before 1.31 (DRA `v1alpha2`) put it:
/// under the entry's `source`.
pub fn claim_field<'v>(entry: &'v Value, field: &str) -> Option<&'v str> {
    entry[field]
        .as_str()
        .or_else(|| entry["source"][field].as_str())
}

/// The template a pod's `spec.resourceClaims` entry asks a claim to be made from.
pub fn claim_template(entry: &Value) -> Option<&str> {
    claim_field(entry, "resourceClaimTemplateName")
}

/// The ResourceClaim a pod's `spec.resourceClaims` entry stands for: its `resourceClaimName`,
/// or for a claim made from a template, the name the pod's `status.resourceClaimStatuses`
/// records for that entry (none until the claim is generated).
pub fn claim_name(pod: &Value, entry: &Value) -> Option<String> {
    claim_field(entry, "resourceClaimName")
        .map(str::to_string)
        .or_else(|| {
            let name = entry["name"].as_str().unwrap_or("");
            pod.at("/status/resourceClaimStatuses")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .find(|s| s["name"] == name)
                .and_then(|s| s["resourceClaimName"].as_str().map(str::to_string))
        })
}

/// A piece of work's label selector: `spec.selector.matchLabels`, or, where the kind allows it
/// (an InferencePool of v1alpha2), `spec.selector` as a plain map. None when it is empty: an
/// empty selector selects nothing here, never everything.
pub fn match_labels(v: &Value, plain_map_too: bool) -> Option<&Map<String, Value>> {
    v.at("/spec/selector/matchLabels")
        .or_else(|| plain_map_too.then(|| v.at("/spec/selector")).flatten())
        .and_then(Value::as_object)
        .filter(|s| !s.is_empty())
}

/// Whether an object's labels carry every `key: value` of a selector.
pub fn selects(selector: &Map<String, Value>, labels: Option<&Map<String, Value>>) -> bool {
    selector
        .iter()
        .all(|(k, want)| labels.and_then(|l| l.get(k)) == Some(want))
}

/// An object's labels.
pub fn labels(v: &Value) -> Option<&Map<String, Value>> {
    v.at("/metadata/labels").and_then(Value::as_object)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn claim_fields_read_both_entry_shapes() {
        // Kubernetes 1.31+ names the claim or template on the entry; before, under `source`.
        let now = json!({"name": "gpu", "resourceClaimTemplateName": "one-gpu"});
        let before = json!({"name": "gpu", "source": {"resourceClaimTemplateName": "one-gpu"}});
        let given = json!({"name": "gpu", "source": {"resourceClaimName": "shared"}});
        assert_eq!(claim_template(&now), Some("one-gpu"));
        assert_eq!(claim_template(&before), Some("one-gpu"));
        assert_eq!(claim_template(&given), None);
        assert_eq!(claim_name(&json!({}), &given).as_deref(), Some("shared"));
        assert_eq!(claim_name(&json!({}), &before), None);
    }

    #[test]
    fn selectors_read_both_shapes_and_an_empty_one_selects_nothing() {
        let v1 = json!({"spec": {"selector": {"matchLabels": {"app": "vllm"}}}});
        let v1alpha2 = json!({"spec": {"selector": {"app": "vllm"}}});
        let empty = json!({"spec": {"selector": {"matchLabels": {}}}});
        let pod = json!({"metadata": {"labels": {"app": "vllm", "tier": "gpu"}}});
        let other = json!({"metadata": {"labels": {"app": "web"}}});
        for v in [&v1, &v1alpha2] {
            let sel = match_labels(v, true).expect("a selector");
            assert!(selects(sel, labels(&pod)));
            assert!(!selects(sel, labels(&other)));
            assert!(!selects(sel, None));
        }
        // A Deployment's selector is never a plain map.
        assert!(match_labels(&v1alpha2, false).is_none());
        assert!(match_labels(&empty, true).is_none());
    }

    #[test]
    fn a_claim_is_named_by_the_pod_or_by_its_status_once_generated() {
        let pod = json!({
            "spec": {"resourceClaims": [
                {"name": "gpu", "resourceClaimName": "shared-gpu"},
                {"name": "tmpl", "resourceClaimTemplateName": "one-gpu"},
                {"name": "later", "resourceClaimTemplateName": "one-gpu"}]},
            "status": {"resourceClaimStatuses": [{"name": "tmpl", "resourceClaimName": "p-tmpl-x7"}]}});
        let entries = pod["spec"]["resourceClaims"].as_array().expect("entries");
        let names: Vec<Option<String>> = entries.iter().map(|e| claim_name(&pod, e)).collect();
        assert_eq!(
            names,
            [Some("shared-gpu".into()), Some("p-tmpl-x7".into()), None]
        );
    }
}

#[cfg(test)]
mod at_tests {
    use super::At;
    use serde_json::json;

    #[test]
    fn at_answers_as_serde_jsons_pointer() {
        let v = json!({
            "a": {"b": [10, {"c": null}], "": {"": 1}},
            "x/y": 2,
            "m~n": 3,
            "0": [1, 2]
        });
        for p in [
            "",
            "/",
            "/a",
            "/a/b",
            "/a/b/0",
            "/a/b/1/c",
            "/a/b/2",
            "/a/b/01",
            "/a/b/+1",
            "/a/b/-1",
            "/a/b/x",
            "/a//",
            "/a/",
            "/x~1y",
            "/m~0n",
            "/0/1",
            "a",
            "/a/b/0/z",
            "/nothing/at/all",
        ] {
            assert_eq!(v.at(p), v.pointer(p), "{p:?}");
        }
    }
}
