//! Redaction of a bundle before it leaves the machine: `kubectl layer bundle` output is made to
//! be attached to public issues.
//!
//! Removed: Secret data, environment variable values (names kept), ConfigMap data except the
//! keys the rules read, `managedFields`, the `last-applied-configuration` annotation, and the
//! values of annotations outside the domains the rules read. A test plants marker strings in
//! every one of these places and checks none survives, and another checks that every
//! scenario's diagnosis is the same before and after redaction.

use serde_json::{Map, Value};

/// What replaces a removed value, so readers see that something was there.
pub const REDACTED: &str = "<redacted>";

/// ConfigMap keys kept, because rules read them: fake-gpu-operator's topology, Kueue's
/// configuration.
const CONFIGMAP_KEYS: &[&str] = &["topology.yml", "controller_manager_config.yaml"];

/// Environment variables whose values rules read (not secrets: a namespace name).
const ENV_KEPT: &[&str] = &["RESOURCE_RESERVATION_NAMESPACE"];

/// Annotation key prefixes (domains) whose values rules read; every other annotation value is
/// replaced.
const ANNOTATION_DOMAINS: &[&str] = &[
    "kueue.x-k8s.io/",
    "jobset.sigs.k8s.io/",
    "alpha.jobset.sigs.k8s.io/",
    "leaderworkerset.sigs.k8s.io/",
    "scheduling.k8s.io/",
    "scheduling.x-k8s.io/",
    "scheduling.run.ai/",
    "run.ai/",
    "kai.scheduler/",
    "volcano.sh/",
    "scheduling.volcano.sh/",
    "batch.kubernetes.io/",
    "deployment.kubernetes.io/",
    "cluster-autoscaler.kubernetes.io/",
    "autoscaling.x-k8s.io/",
    "karpenter.sh/",
    "nvidia.com/",
    "grove.io/",
    "objectset.rio.cattle.io/",
    "resource.kubernetes.io/",
    "node.alpha.kubernetes.io/",
    "volume.kubernetes.io/",
    "pv.kubernetes.io/",
    "helm.sh/",
    "meta.helm.sh/",
];
/// Annotation keys without a domain that rules read (KAI's pod group link).
const ANNOTATION_KEYS: &[&str] = &["pod-group-name", "gpu-fraction", "gpu-memory"];

const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// Redact one object in place.
pub fn object(v: &mut Value) {
    let kind = v["kind"].as_str().unwrap_or("").to_string();
    let core = v["apiVersion"].as_str().is_some_and(|a| !a.contains('/'));
    if let Some(meta) = v.get_mut("metadata").and_then(Value::as_object_mut) {
        metadata(meta);
    }
    match (core, kind.as_str()) {
        (true, "Secret") => {
            for field in ["data", "stringData"] {
                if let Some(Value::Object(m)) = v.get_mut(field) {
                    for val in m.values_mut() {
                        *val = Value::String(REDACTED.into());
                    }
                }
            }
        }
        (true, "ConfigMap") => {
            if let Some(Value::Object(m)) = v.get_mut("data") {
                for (k, val) in m.iter_mut() {
                    if !CONFIGMAP_KEYS.contains(&k.as_str()) {
                        *val = Value::String(REDACTED.into());
                    }
                }
            }
            if let Some(Value::Object(m)) = v.get_mut("binaryData") {
                for val in m.values_mut() {
                    *val = Value::String(REDACTED.into());
                }
            }
        }
        _ => {}
    }
    env_values(v);
}

fn metadata(meta: &mut Map<String, Value>) {
    meta.remove("managedFields");
    if let Some(Value::Object(a)) = meta.get_mut("annotations") {
        a.remove(LAST_APPLIED);
        for (k, val) in a.iter_mut() {
            let kept = ANNOTATION_KEYS.contains(&k.as_str())
                || ANNOTATION_DOMAINS.iter().any(|d| in_domain(k, d));
            if !kept {
                *val = Value::String(REDACTED.into());
            }
        }
    }
}

/// Whether an annotation key is in a domain or one of its subdomains: `nvidia.com/x` and
/// `gpu.nvidia.com/x` are, `evilnvidia.com/x` is not (a suffix is not a subdomain).
fn in_domain(key: &str, domain: &str) -> bool {
    let domain = domain.trim_end_matches('/');
    key.split_once('/').is_some_and(|(host, _)| {
        host == domain
            || host
                .strip_suffix(domain)
                .is_some_and(|sub| sub.ends_with('.'))
    })
}

/// Every `env`/`envs` list anywhere in the object (pod specs, templates, JobSet and LWS
/// templates, Dynamo services): values go, names and `valueFrom` references stay.
fn env_values(v: &mut Value) {
    match v {
        Value::Object(m) => {
            for (k, child) in m.iter_mut() {
                if (k == "env" || k == "envs")
                    && let Value::Array(items) = child
                {
                    for item in items.iter_mut() {
                        let name = item["name"].as_str().unwrap_or("").to_string();
                        if let Some(Value::String(s)) = item.get_mut("value")
                            && !ENV_KEPT.contains(&name.as_str())
                        {
                            *s = REDACTED.into();
                        }
                    }
                    continue;
                }
                // Nested metadata (pod templates) carries annotations too.
                if k == "metadata"
                    && let Value::Object(meta) = child
                {
                    metadata(meta);
                }
                env_values(child);
            }
        }
        Value::Array(items) => {
            for item in items {
                env_values(item);
            }
        }
        _ => {}
    }
}

/// The objects the core read (each once, after de-duplication), redacted, as the tool's own
/// bundle with its metadata, pretty-printed.
pub fn bundle(ix: &layer_core::Index) -> Result<String, serde_json::Error> {
    let items: Vec<Value> = (0..ix.len())
        .map(|id| {
            let mut v = ix.value(id);
            object(&mut v);
            v
        })
        .collect();
    let mut meta = serde_json::to_value(ix.bundle().meta().cloned().unwrap_or_default())?;
    meta["redacted"] = Value::Bool(true);
    let list = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": items, "kubectlLayer": meta});
    let mut s = serde_json::to_string_pretty(&list)?;
    s.push('\n');
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::in_domain;

    #[test]
    fn annotation_domains_match_whole_labels_not_suffixes() {
        assert!(in_domain("nvidia.com/gpu.present", "nvidia.com/"));
        assert!(in_domain("gpu.nvidia.com/x", "nvidia.com/"));
        assert!(in_domain("kueue.x-k8s.io/queue-name", "kueue.x-k8s.io/"));
        assert!(!in_domain("evilnvidia.com/token", "nvidia.com/"));
        assert!(!in_domain("notkueue.x-k8s.io/secret", "kueue.x-k8s.io/"));
        assert!(!in_domain("nvidia.com", "nvidia.com/"));
    }
}
