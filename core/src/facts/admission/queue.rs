//! The Workloads queued ahead of the view's pending Workload, at `$.facts.admission.queue`.

use crate::index::Index;
use crate::json::str_at as s;
use serde::Serialize;
use serde_json::{Map, Value};

/// Where a Workload without a quota reservation stands in its queue.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct QueuePosition {
    /// The ClusterQueue compared by (admitted into, or named by the LocalQueue); null when the
    /// bundle does not name it, and the Workloads of the same LocalQueue are compared instead.
    pub cluster_queue: Option<String>,
    /// How many Workloads of the same queue in the bundle were created no later than this one
    /// (and not after "now") and still have no quota reservation, are not finished and not
    /// deactivated.
    pub ahead: usize,
    /// Those Workloads as `namespace/name`, oldest first.
    pub ahead_names: Vec<String>,
}

/// The queue standing of a Workload, or None when neither its ClusterQueue nor its LocalQueue is
/// known.
pub(super) fn position(
    ix: &Index,
    sub: &Map<String, Value>,
    wl: &Value,
    now: Option<i64>,
) -> Option<QueuePosition> {
    // Compare by ClusterQueue when the bundle names it, else by LocalQueue (same namespace).
    let cq = s(wl, "/status/admission/clusterQueue")
        .map(str::to_string)
        .or_else(|| {
            sub.get("localQueue")
                .and_then(|lq| s(lq, "/spec/clusterQueue"))
                .map(str::to_string)
        });
    let my_ns = s(wl, "/metadata/namespace");
    let my_queue = s(wl, "/spec/queueName");
    if cq.is_none() && my_queue.is_none() {
        return None;
    }
    let created =
        |v: &Value| s(v, "/metadata/creationTimestamp").and_then(crate::time::parse_rfc3339);
    let mine = created(wl);
    let my_name = s(wl, "/metadata/name").unwrap_or("");
    let mut ahead: Vec<(i64, String)> = Vec::new();
    // Every pending Workload of the bundle is read once per index (typed partial reads), not
    // once per view: this runs for every pending Workload over every Workload of the bundle.
    for other in pending_workloads(ix).iter() {
        let name = other.name.as_str();
        let ns = other.namespace.as_deref();
        if name == my_name && ns == my_ns {
            continue;
        }
        let queue = other.queue.as_deref();
        let same_queue = match &cq {
            Some(cq) => other.cluster_queue.as_deref() == Some(cq.as_str()),
            None => ns == my_ns && queue == my_queue,
        };
        if !same_queue {
            continue;
        }
        if let (Some(t), Some(m)) = (other.created, mine)
            && t <= m
            && t <= now.unwrap_or(i64::MAX)
        {
            ahead.push((t, format!("{}/{}", ns.unwrap_or(""), name)));
        }
    }
    ahead.sort();
    let names: Vec<String> = ahead.into_iter().map(|(_, n)| n).collect();
    Some(QueuePosition {
        cluster_queue: cq,
        ahead: names.len(),
        ahead_names: names,
    })
}

/// A Workload without a quota reservation, not finished and not deactivated.
struct PendingWorkload {
    name: String,
    namespace: Option<String>,
    created: Option<i64>,
    queue: Option<String>,
    /// The ClusterQueue its LocalQueue points at.
    cluster_queue: Option<String>,
}

fn pending_workloads(ix: &Index) -> std::sync::Arc<Vec<PendingWorkload>> {
    ix.once("admission.pendingWorkloads", || {
        let mut lq_cq: std::collections::HashMap<(Option<String>, String), Option<String>> =
            std::collections::HashMap::new();
        let mut out = Vec::new();
        for &id in ix.of_kind("Workload") {
            if ix.object(id).group() != "kueue.x-k8s.io" {
                continue;
            }
            let Some(other) = ix.typed::<WorkloadLite>(id) else {
                continue;
            };
            let first_true = |ty: &str| {
                other
                    .status
                    .conditions
                    .iter()
                    .find(|c| c.type_ == ty)
                    .is_some_and(|c| c.status == "True")
            };
            if first_true("QuotaReserved")
                || first_true("Finished")
                || other.spec.active == Some(false)
            {
                continue;
            }
            let ns = other.metadata.namespace.clone();
            let queue = other.spec.queue_name.clone();
            let cluster_queue = queue.as_deref().and_then(|q| {
                lq_cq
                    .entry((ns.clone(), q.to_string()))
                    .or_insert_with(|| {
                        ix.get("kueue.x-k8s.io", "LocalQueue", ns.as_deref(), q)
                            .and_then(|lq| ix.typed::<LocalQueueLite>(lq))
                            .and_then(|lq| lq.spec.cluster_queue)
                    })
                    .clone()
            });
            out.push(PendingWorkload {
                created: other
                    .metadata
                    .creation_timestamp
                    .as_deref()
                    .and_then(crate::time::parse_rfc3339),
                name: other.metadata.name,
                namespace: ns,
                queue,
                cluster_queue,
            });
        }
        out
    })
}

#[derive(serde::Deserialize, Default)]
#[serde(default)]
struct WorkloadLite {
    metadata: LiteMeta,
    spec: WorkloadLiteSpec,
    status: WorkloadLiteStatus,
}

#[derive(serde::Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct LiteMeta {
    name: String,
    namespace: Option<String>,
    creation_timestamp: Option<String>,
}

#[derive(serde::Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct WorkloadLiteSpec {
    queue_name: Option<String>,
    active: Option<bool>,
}

#[derive(serde::Deserialize, Default)]
#[serde(default)]
struct WorkloadLiteStatus {
    conditions: Vec<LiteCondition>,
}

#[derive(serde::Deserialize, Default)]
#[serde(default)]
struct LiteCondition {
    #[serde(rename = "type")]
    type_: String,
    status: String,
}

#[derive(serde::Deserialize, Default)]
#[serde(default)]
struct LocalQueueLite {
    spec: LocalQueueLiteSpec,
}

#[derive(serde::Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct LocalQueueLiteSpec {
    cluster_queue: Option<String>,
}
