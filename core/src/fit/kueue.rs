//! How Kueue would take in a piece of work the manifest submits: whether its webhook would
//! suspend it and its job controller create a Workload, decided from what the bundle shows of
//! Kueue (its objects, its Configuration in `kueue-manager-config`, the LocalQueue the work
//! names, the namespace), and that Workload, not admitted yet.

use super::lookup::Lookup;
use crate::index::KueueIntake;
use crate::json::At as _;
use crate::json::{label, str_at};
use serde_json::{Value, json};

const QUEUE_LABEL: &str = "kueue.x-k8s.io/queue-name";

/// The key of Kueue's Configuration in its ConfigMap (`kueue-manager-config`).
use super::lookup::CONFIG_KEY;

/// Kueue's integration name for a kind of work (`integrations.frameworks`).
pub(super) fn framework(group: &str, kind: &str) -> Option<&'static str> {
    Some(match (group, kind) {
        ("batch", "Job") => "batch/job",
        ("jobset.x-k8s.io", "JobSet") => "jobset.x-k8s.io/jobset",
        ("leaderworkerset.x-k8s.io", "LeaderWorkerSet") => {
            "leaderworkerset.x-k8s.io/leaderworkerset"
        }
        ("apps", "Deployment") => "deployment",
        ("apps", "StatefulSet") => "statefulset",
        ("", "Pod") => "pod",
        _ => return None,
    })
}

/// What Kueue would do with the work, and a note when fit had to assume its configuration.
pub(super) fn intake(
    look: &Lookup,
    work: &Value,
    group: &str,
    kind: &str,
) -> (KueueIntake, Option<String>) {
    let framework = framework(group, kind).unwrap_or_default().to_string();
    let ns = str_at(work, "/metadata/namespace").unwrap_or("default");
    let queue = label(work, QUEUE_LABEL).map(str::to_string);
    let queue_found = queue.as_deref().is_some_and(|q| {
        look.find("kueue.x-k8s.io", "LocalQueue", Some(ns), q)
            .is_some()
    });
    let not = |reason: String| KueueIntake {
        managed: false,
        framework: framework.clone(),
        reason,
        queue: queue.clone(),
        queue_found,
    };
    let Some(q) = &queue else {
        return (not(format!("it has no {QUEUE_LABEL} label")), None);
    };
    if !look.shows_kueue() {
        return (
            not(format!(
                "the bundle shows no Kueue (no ClusterQueue, LocalQueue, ResourceFlavor or Workload), so nothing would act on {QUEUE_LABEL}: {q}"
            )),
            None,
        );
    }
    if matches!(ns, "kube-system" | "kueue-system") {
        return (
            not(format!(
                "Kueue's webhooks always skip namespace {ns} (Kueue v0.18+)"
            )),
            None,
        );
    }
    let config = look.kueue_config();
    let assumed = match &config {
        Some((cfg, _)) => {
            if let Some(list) = cfg.at("/integrations/frameworks").and_then(Value::as_array)
                && !list.iter().any(|f| f.as_str() == Some(framework.as_str()))
            {
                return (
                    not(format!(
                        "Kueue's Configuration does not enable the {framework} integration (integrations.frameworks: {})",
                        list.iter()
                            .filter_map(Value::as_str)
                            .collect::<Vec<_>>()
                            .join(", ")
                    )),
                    None,
                );
            }
            if let Some(sel) = cfg.get("managedJobsNamespaceSelector")
                && let Some(labels) = look.namespace_labels(ns)
                && !crate::facts::selectors::label_selector_matches(sel, &labels)
            {
                return (
                    not(format!(
                        "Kueue's managedJobsNamespaceSelector does not select namespace {ns}"
                    )),
                    None,
                );
            }
            None
        }
        None => Some(format!(
            "Kueue's Configuration (ConfigMap kueue-manager-config, key {CONFIG_KEY}) is not in the bundle: fit assumes the {framework} integration is on and namespace {ns} is managed"
        )),
    };
    (
        KueueIntake {
            managed: true,
            framework,
            reason: String::new(),
            queue,
            queue_found,
        },
        assumed,
    )
}

/// One pod set of a Workload: its name, how many pods, and their template.
pub(super) struct PodSet {
    pub name: String,
    pub count: u64,
    pub template: Value,
}

/// The Workload Kueue's job controller would create for the work: owned by it, naming its
/// queue, with one pod set per template, and no status yet (not admitted).
pub(super) fn workload(
    work: &Value,
    kind: &str,
    uid: &str,
    own_uid: &str,
    created: Option<&str>,
    pod_sets: &[PodSet],
) -> Value {
    let name = str_at(work, "/metadata/name").unwrap_or("");
    let ns = str_at(work, "/metadata/namespace").unwrap_or("default");
    let mut meta = json!({
        "name": format!("{}-{name}-fit", kind.to_ascii_lowercase()),
        "namespace": ns,
        "uid": own_uid,
        "labels": {"kueue.x-k8s.io/job-uid": uid},
        "ownerReferences": [super::meta::owner_ref(work, uid)],
    });
    if let Some(t) = created {
        meta["creationTimestamp"] = json!(t);
    }
    json!({
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "Workload",
        "metadata": meta,
        "spec": {
            "active": true,
            "queueName": label(work, QUEUE_LABEL),
            "podSets": pod_sets.iter().map(|p| json!({
                "name": p.name, "count": p.count, "template": p.template,
            })).collect::<Vec<_>>(),
        },
    })
}
