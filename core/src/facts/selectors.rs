//! Label selectors and required node affinity, evaluated against an object's labels: the
//! Kubernetes semantics of `matchLabels`/`matchExpressions` (In, NotIn, Exists, DoesNotExist)
//! and of `nodeSelectorTerms` (any term; every expression of a term; Gt and Lt on integers;
//! `matchFields` on `metadata.name`).

use crate::json::At as _;
use serde_json::Value;
use std::collections::BTreeMap;

/// Whether a label selector (`{matchLabels, matchExpressions}`) selects these labels. An empty
/// selector selects everything, as in a namespace selector.
pub fn label_selector_matches(selector: &Value, labels: &BTreeMap<String, String>) -> bool {
    let by_label = selector
        .get("matchLabels")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .all(|(k, v)| labels.get(k).map(String::as_str) == v.as_str());
    by_label
        && selector
            .get("matchExpressions")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .all(|e| expression_holds(e, labels.get(str_of(e, "key")).map(String::as_str)))
}

/// Whether a node with these labels and this name passes the pod's required node affinity
/// (`requiredDuringSchedulingIgnoredDuringExecution`); true when the pod has none.
pub fn node_affinity_admits(pod: &Value, name: &str, labels: &BTreeMap<String, String>) -> bool {
    let Some(terms) = pod
        .at(
            "/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms",
        )
        .and_then(Value::as_array)
    else {
        return true;
    };
    terms.iter().any(|t| term_admits(t, name, labels))
}

/// One node selector term: every expression and field requirement holds, and it names one.
fn term_admits(term: &Value, name: &str, labels: &BTreeMap<String, String>) -> bool {
    let exprs = term.get("matchExpressions").and_then(Value::as_array);
    let fields = term.get("matchFields").and_then(Value::as_array);
    // An empty term selects no node.
    if exprs.is_none_or(Vec::is_empty) && fields.is_none_or(Vec::is_empty) {
        return false;
    }
    exprs
        .into_iter()
        .flatten()
        .all(|e| expression_holds(e, labels.get(str_of(e, "key")).map(String::as_str)))
        && fields.into_iter().flatten().all(|f| {
            let value = (str_of(f, "key") == "metadata.name").then_some(name);
            expression_holds(f, value)
        })
}

fn str_of<'v>(v: &'v Value, key: &str) -> &'v str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

/// One requirement against the value the object has for its key (None: it lacks the key).
fn expression_holds(e: &Value, have: Option<&str>) -> bool {
    let values: Vec<&str> = e
        .get("values")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let number = |s: &str| s.trim().parse::<i64>().ok();
    match str_of(e, "operator") {
        "In" => have.is_some_and(|h| values.contains(&h)),
        "NotIn" => have.is_none_or(|h| !values.contains(&h)),
        "Exists" => have.is_some(),
        "DoesNotExist" => have.is_none(),
        "Gt" => {
            matches!((have.and_then(number), values.first().and_then(|v| number(v))), (Some(h), Some(v)) if h > v)
        }
        "Lt" => {
            matches!((have.and_then(number), values.first().and_then(|v| number(v))), (Some(h), Some(v)) if h < v)
        }
        // An operator Kubernetes does not know selects nothing (the API server refuses it).
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn label_selectors_follow_kubernetes() {
        let ns = labels(&[("team", "ml"), ("tier", "gpu")]);
        assert!(label_selector_matches(&json!({}), &ns), "empty selects all");
        assert!(label_selector_matches(
            &json!({"matchLabels": {"team": "ml"}}),
            &ns
        ));
        assert!(!label_selector_matches(
            &json!({"matchLabels": {"team": "cv"}}),
            &ns
        ));
        let expr = |op: &str, values: Value| json!({"matchExpressions": [{"key": "team", "operator": op, "values": values}]});
        assert!(label_selector_matches(
            &expr("In", json!(["ml", "cv"])),
            &ns
        ));
        assert!(!label_selector_matches(&expr("NotIn", json!(["ml"])), &ns));
        assert!(label_selector_matches(&expr("Exists", json!([])), &ns));
        assert!(!label_selector_matches(
            &expr("DoesNotExist", json!([])),
            &ns
        ));
        assert!(label_selector_matches(
            &expr("NotIn", json!(["x"])),
            &labels(&[])
        ));
    }

    #[test]
    fn node_affinity_takes_any_term_and_every_expression() {
        let node = labels(&[("gpu", "h100"), ("count", "8")]);
        let pod = |terms: Value| json!({"spec": {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": terms}}}}});
        assert!(node_affinity_admits(&json!({"spec": {}}), "n1", &node));
        let h100 = json!({"key": "gpu", "operator": "In", "values": ["h100"]});
        let a100 = json!({"key": "gpu", "operator": "In", "values": ["a100"]});
        let many = json!({"key": "count", "operator": "Gt", "values": ["4"]});
        let few = json!({"key": "count", "operator": "Lt", "values": ["4"]});
        assert!(node_affinity_admits(
            &pod(json!([{"matchExpressions": [h100, many]}])),
            "n1",
            &node
        ));
        assert!(!node_affinity_admits(
            &pod(json!([{"matchExpressions": [h100, few]}])),
            "n1",
            &node
        ));
        assert!(node_affinity_admits(
            &pod(json!([{"matchExpressions": [a100]}, {"matchExpressions": [h100]}])),
            "n1",
            &node
        ));
        assert!(
            !node_affinity_admits(&pod(json!([{}])), "n1", &node),
            "an empty term selects nothing"
        );
        let by_name = json!([{"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n2"]}]}]);
        assert!(!node_affinity_admits(&pod(by_name.clone()), "n1", &node));
        assert!(node_affinity_admits(&pod(by_name), "n2", &node));
    }
}
