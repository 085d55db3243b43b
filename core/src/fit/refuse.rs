//! What the API server would refuse in a piece of work's pod specs before any controller saw
//! them (its validation of container resources): a quantity that is no quantity, one below
//! zero, an extended resource (`nvidia.com/gpu`, any name outside `kubernetes.io`) asked for in
//! fractions, or requested without a limit or other than its limit, and any request above its
//! limit. Such work is never created, so `fit` refuses the manifest with the API server's
//! field and reason ([`FitError::Refused`]) rather than judging how it would run.
//!
//! Every object holding a `containers` list is a pod spec, wherever the kind nests it (a Job's
//! template, a JobSet's replicated Jobs, a LeaderWorkerSet's leader and worker templates).

use crate::error::FitError;
use serde_json::{Map, Value};

/// Nesting followed at most: pod specs of the kinds fit places are within 8 levels.
const MAX_DEPTH: usize = 16;

/// The first thing the API server would refuse in `work` (shown as `object`), if any.
pub(super) fn check(work: &Value, object: &str) -> Result<(), FitError> {
    let refused = |(field, value, reason): Refusal| FitError::Refused {
        object: object.to_string(),
        field,
        value,
        reason,
    };
    walk(work, String::new(), 0).map_err(refused)
}

/// A refusal: the field as the API server names it, the value given, and why.
type Refusal = (String, String, String);

/// Every pod spec under `v` (at `path`), checked.
fn walk(v: &Value, path: String, depth: usize) -> Result<(), Refusal> {
    let Value::Object(m) = v else {
        return Ok(());
    };
    if depth > MAX_DEPTH {
        return Ok(());
    }
    if m.get("containers").is_some_and(Value::is_array) {
        return pod_spec(m, &path);
    }
    for (k, child) in m {
        let at = if path.is_empty() {
            k.clone()
        } else {
            format!("{path}.{k}")
        };
        match child {
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    walk(item, format!("{at}[{i}]"), depth + 1)?;
                }
            }
            _ => walk(child, at, depth + 1)?,
        }
    }
    Ok(())
}

/// Each container's and init container's resources of one pod spec.
fn pod_spec(spec: &Map<String, Value>, path: &str) -> Result<(), Refusal> {
    for list in ["initContainers", "containers"] {
        let containers = spec.get(list).and_then(Value::as_array);
        for (i, c) in containers.into_iter().flatten().enumerate() {
            let at = format!("{path}.{list}[{i}].resources");
            resources(c.get("resources").unwrap_or(&Value::Null), &at)?;
        }
    }
    Ok(())
}

/// One container's requests and limits, as the API server validates them.
fn resources(r: &Value, at: &str) -> Result<(), Refusal> {
    let empty = Map::new();
    let side = |k: &str| r.get(k).and_then(Value::as_object).unwrap_or(&empty);
    let (requests, limits) = (side("requests"), side("limits"));
    let limit_values = quantities(limits, &format!("{at}.limits"))?;
    let request_values = quantities(requests, &format!("{at}.requests"))?;
    for (name, request, shown) in &request_values {
        let field = format!("{at}.requests[{name}]");
        let limit = limit_values.iter().find(|(n, _, _)| n == name);
        match (crate::quantity::extended(name), limit) {
            (true, None) => {
                return Err((
                    format!("{at}.limits[{name}]"),
                    String::new(),
                    "Required value: Limit must be set for non overcommitable resources".into(),
                ));
            }
            (true, Some((_, l, ls))) if l != request => {
                return Err((
                    field,
                    shown.clone(),
                    format!("must be equal to {name} limit of {ls}"),
                ));
            }
            (false, Some((_, l, ls))) if request > l => {
                return Err((
                    field,
                    shown.clone(),
                    format!("must be less than or equal to {name} limit of {ls}"),
                ));
            }
            _ => {}
        }
    }
    Ok(())
}

/// One side's quantities (name, value, as given), each a quantity the API server accepts for
/// its resource.
fn quantities(m: &Map<String, Value>, at: &str) -> Result<Vec<(String, f64, String)>, Refusal> {
    m.iter()
        .map(|(name, v)| {
            let shown = match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            let field = format!("{at}[{name}]");
            let refuse = |why: &str| Err((field.clone(), shown.clone(), why.to_string()));
            let Some(q) = crate::quantity::from_value(v) else {
                return refuse("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
            };
            if q < 0.0 {
                return refuse("must be greater than or equal to 0");
            }
            if crate::quantity::extended(name) && q.fract() != 0.0 {
                return refuse("must be an integer");
            }
            Ok((name.clone(), q, shown))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A Job whose one container asks for `resources`.
    fn job(resources: Value) -> Value {
        json!({"kind": "Job", "spec": {"template": {"spec": {"containers": [
            {"name": "c", "resources": resources}]}}}})
    }

    fn refused(resources: Value) -> Option<String> {
        check(&job(resources), "Job ml/j")
            .err()
            .map(|e| e.to_string())
    }

    #[test]
    fn what_the_api_server_refuses_is_refused_with_its_field_and_reason() {
        let gpu = "spec.template.spec.containers[0].resources";
        for (value, reason) in [
            (json!("0.5"), "must be an integer"),
            (json!(0.5), "must be an integer"),
            (json!("1m"), "must be an integer"),
            (json!("-1"), "must be greater than or equal to 0"),
            (json!(-1), "must be greater than or equal to 0"),
            (json!("NaN"), "quantities must match"),
            (json!("1 Gi"), "quantities must match"),
        ] {
            let why = refused(json!({"limits": {"nvidia.com/gpu": value}}))
                .unwrap_or_else(|| panic!("{value} accepted"));
            assert!(
                why.contains(&format!("{gpu}.limits[nvidia.com/gpu]")) && why.contains(reason),
                "{value}: {why}"
            );
        }
        let why = refused(json!({"requests": {"nvidia.com/gpu": 1}})).expect("no limit");
        assert!(
            why.contains("limits[nvidia.com/gpu]") && why.contains("Limit must be set"),
            "{why}"
        );
        let why =
            refused(json!({"requests": {"nvidia.com/gpu": 2}, "limits": {"nvidia.com/gpu": 1}}))
                .expect("requests differ from limits");
        assert!(
            why.contains("must be equal to nvidia.com/gpu limit of 1"),
            "{why}"
        );
        let why = refused(json!({"requests": {"cpu": "2"}, "limits": {"cpu": "1"}}))
            .expect("a request above its limit");
        assert!(
            why.contains("must be less than or equal to cpu limit of 1"),
            "{why}"
        );
    }

    #[test]
    fn what_the_api_server_accepts_passes() {
        for resources in [
            json!({"limits": {"nvidia.com/gpu": 1}}),
            json!({"limits": {"nvidia.com/gpu": "2"}, "requests": {"nvidia.com/gpu": "2"}}),
            json!({"limits": {"nvidia.com/gpu": 0}}),
            // Native resources may be fractions, and requested below their limit or alone.
            json!({"requests": {"cpu": "500m", "memory": "1.5Gi"}, "limits": {"cpu": "1"}}),
            json!({"requests": {"cpu": "0.5"}}),
            json!({"requests": {"ephemeral-storage": "1Gi", "hugepages.kubernetes.io/x": "0.5"}}),
            json!(null),
        ] {
            assert_eq!(refused(resources.clone()), None, "{resources}");
        }
    }

    #[test]
    fn pod_specs_are_found_wherever_the_kind_nests_them() {
        let js = json!({"kind": "JobSet", "spec": {"replicatedJobs": [
            {"name": "a", "template": {"spec": {"template": {"spec": {"containers": []}}}}},
            {"name": "b", "template": {"spec": {"template": {"spec": {
                "initContainers": [{"resources": {"limits": {"example.com/fpga": "0.5"}}}],
                "containers": []}}}}}]}});
        let why = check(&js, "JobSet ml/js").expect_err("the second template's init container");
        assert!(
            why.to_string().contains("spec.replicatedJobs[1].template.spec.template.spec.initContainers[0].resources.limits[example.com/fpga]"),
            "{why}"
        );
    }
}
