//! KAI Scheduler's queue and PodGroup for the view's pod, at `$.facts.placement.kai`, and the
//! namespace its binder waits for GPU reservation pods in, at `$.facts.placement.reservation`.

use super::{Ctx, arr};
use crate::json::At as _;
use crate::json::str_at as s;
use serde::Serialize;
use serde_json::Value;

/// What KAI Scheduler shows of the pod: present when its PodGroup is KAI's
/// (`scheduling.run.ai/…`) or it names a KAI queue.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Kai {
    /// The queue of the KAI PodGroup's `spec.queue`, else of the pod's `kai.scheduler/queue`
    /// label; null when neither names one.
    pub queue: Option<KaiQueue>,
    /// The KAI PodGroup still carries a scheduling condition while at least `minMember` (1
    /// when unset) of its pods run (`$.facts.group.running`).
    pub pod_group_stale: bool,
    /// The `reasons[].reason` of the KAI PodGroup's `status.schedulingConditions`.
    pub pod_group_condition_reasons: Vec<String>,
    /// For work `fit` placed as if submitted: its PodGroup's GPUs against the queue's limit.
    /// Null otherwise, and without a queue in the bundle.
    pub queue_fit: Option<KaiQueueFit>,
    /// For a KAI PodGroup that waits (fewer than `minMember` pods bound): its place in its
    /// Queue in KAI's order (priority, creation, UID) and the wait outlook; null otherwise.
    pub standing: Option<crate::standing::QueueStanding>,
}

/// A not-yet-submitted PodGroup's GPUs against its KAI queue's limit.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct KaiQueueFit {
    /// The GPUs the PodGroup's pods ask for together (a `gpu-fraction` counts as its share).
    pub request: crate::facts::Num,
    /// The queue's `spec.resources.gpu.limit`: 0 when unset (KAI reads an omitted limit as 0),
    /// null when unlimited (-1).
    pub limit: Option<crate::facts::Num>,
    /// The queue's `status.allocated` of `nvidia.com/gpu`, 0 when unset.
    pub allocated: crate::facts::Num,
    /// `withinLimit`, `overLimitNow` (it would fit the limit once allocated GPUs free up) or
    /// `overLimit` (more than the limit ever allows, a limit of 0 included).
    pub verdict: String,
}

/// A KAI queue (`scheduling.run.ai` Queue) and its GPU limits.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct KaiQueue {
    /// The Queue's name.
    pub name: String,
    /// The bundle holds the Queue.
    pub exists: bool,
    /// `spec.resources.gpu.limit` is present and not null; when false KAI reads the limit as 0.
    pub gpu_limit_set: bool,
    /// `spec.resources.gpu.limit`, as given.
    pub gpu_limit: Value,
    /// `spec.resources.gpu.quota`, as given.
    pub gpu_quota: Value,
    /// The Queues whose `spec.parentQueue` is this one.
    pub children: Vec<String>,
    /// It has children (a parent queue).
    pub is_parent: bool,
}

/// Where KAI's binder waited for a GPU reservation pod against where fake-gpu-operator creates
/// them; present when either is known.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Reservation {
    /// The namespace of `failed waiting for GPU reservation pod to allocate: <ns>/…` in the
    /// view's events or the pod's conditions (KAI's BindingError).
    pub kai_namespace: Option<String>,
    /// fake-gpu-operator's `RESOURCE_RESERVATION_NAMESPACE` (its status-updater's env): the
    /// first container env of that name on a Deployment, else a DaemonSet, of the bundle.
    pub fake_gpu_namespace: Option<String>,
    /// Both are known and differ.
    pub mismatch: bool,
}

/// KAI's view of the pod; None when neither its PodGroup nor a queue is KAI's.
pub(super) fn kai(ctx: &Ctx) -> Option<Kai> {
    let pg = ctx.subjects.get("podGroup");
    let is_kai = pg
        .and_then(|p| p["apiVersion"].as_str())
        .is_some_and(|a| a.starts_with("scheduling.run.ai/"));
    let queue_name = pg
        .filter(|_| is_kai)
        .and_then(|p| s(p, "/spec/queue"))
        .or_else(|| {
            ctx.subjects
                .get("pod")
                .and_then(|p| s(p, "/metadata/labels/kai.scheduler~1queue"))
        });
    let queue = queue_name.map(|q| {
        let v = ctx
            .ix
            .get("scheduling.run.ai", "Queue", None, q)
            .map(|id| ctx.ix.value(id));
        let children: Vec<String> = ctx
            .ix
            .of_kind("Queue")
            .iter()
            .map(|&id| ctx.ix.value(id))
            .filter(|c| {
                c["apiVersion"]
                    .as_str()
                    .is_some_and(|a| a.starts_with("scheduling.run.ai/"))
                    && s(c, "/spec/parentQueue") == Some(q)
            })
            .filter_map(|c| s(&c, "/metadata/name").map(str::to_string))
            .collect();
        let limit = v.as_ref().and_then(|v| v.at("/spec/resources/gpu/limit"));
        KaiQueue {
            name: q.to_string(),
            exists: v.is_some(),
            gpu_limit_set: limit.is_some_and(|l| !l.is_null()),
            gpu_limit: limit.cloned().unwrap_or(Value::Null),
            gpu_quota: v
                .as_ref()
                .and_then(|v| v.at("/spec/resources/gpu/quota"))
                .cloned()
                .unwrap_or(Value::Null),
            is_parent: !children.is_empty(),
            children,
        }
    });
    let reasons: Vec<String> = pg
        .filter(|_| is_kai)
        .map(|p| {
            arr(p, "/status/schedulingConditions")
                .flat_map(|c| arr(c, "/reasons"))
                .filter_map(|r| r["reason"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    let has_cond = pg
        .filter(|_| is_kai)
        .is_some_and(|p| arr(p, "/status/schedulingConditions").next().is_some());
    let group = ctx.subjects.get("facts").map(|f| &f["group"]);
    let running = group.and_then(|g| g["running"].as_u64()).unwrap_or(0);
    let min = pg
        .and_then(|p| p.at("/spec/minMember"))
        .and_then(Value::as_u64)
        .unwrap_or(1)
        .max(1);
    if !is_kai && queue.is_none() {
        return None;
    }
    let queue_fit = queue
        .as_ref()
        .filter(|q| q.exists && ctx.ix.not_submitted(ctx.target))
        .map(|q| queue_fit(ctx, q));
    Some(Kai {
        queue,
        pod_group_stale: has_cond && running >= min,
        pod_group_condition_reasons: reasons,
        queue_fit,
        standing: ctx
            .id("podGroup")
            .filter(|_| is_kai)
            .and_then(|id| super::kai_order::standing(ctx.ix, id, ctx.now)),
    })
}

/// The two reservation namespaces; None when neither is known.
pub(super) fn reservation(ctx: &Ctx) -> Option<Reservation> {
    const NEEDLE: &str = "failed waiting for GPU reservation pod to allocate: ";
    let events = ctx.event_messages();
    let conds = ctx
        .subjects
        .get("pod")
        .into_iter()
        .flat_map(|p| arr(p, "/status/conditions"))
        .filter_map(|c| c["message"].as_str());
    let kai_ns = events.chain(conds).find_map(|m| {
        let i = m.find(NEEDLE)?;
        m[i + NEEDLE.len()..].split('/').next().map(str::to_string)
    });
    // fake-gpu-operator's status-updater: env RESOURCE_RESERVATION_NAMESPACE. The same for
    // every view: read once per index, from a typed partial read of each Deployment/DaemonSet.
    let fake_ns = ctx.ix.once("placement.reservationNamespace", || {
        ["Deployment", "DaemonSet"].iter().find_map(|k| {
            ctx.ix.of_kind(k).iter().find_map(|&id| {
                let containers = ctx.ix.typed::<WithEnv>(id)?.spec.template.spec.containers;
                containers
                    .as_array()
                    .into_iter()
                    .flatten()
                    .flat_map(|c| arr(c, "/env"))
                    .find(|e| e["name"] == "RESOURCE_RESERVATION_NAMESPACE")
                    .and_then(|e| e["value"].as_str().map(str::to_string))
            })
        })
    });
    let fake_ns = fake_ns.as_ref().clone();
    if kai_ns.is_none() && fake_ns.is_none() {
        return None;
    }
    let mismatch = matches!((&kai_ns, &fake_ns), (Some(a), Some(b)) if a != b);
    Some(Reservation {
        kai_namespace: kai_ns,
        fake_gpu_namespace: fake_ns,
        mismatch,
    })
}

/// A Deployment or DaemonSet read partially: only its pod template's containers become a tree.
#[derive(serde::Deserialize, Default)]
#[serde(default)]
struct WithEnv {
    spec: WithEnvSpec,
}

#[derive(serde::Deserialize, Default)]
#[serde(default)]
struct WithEnvSpec {
    template: WithEnvTemplate,
}

#[derive(serde::Deserialize, Default)]
#[serde(default)]
struct WithEnvTemplate {
    spec: WithEnvPodSpec,
}

#[derive(serde::Deserialize, Default)]
#[serde(default)]
struct WithEnvPodSpec {
    containers: Value,
}

/// The GPUs of the work's pods against the queue's limit, as KAI's over-limit check weighs a
/// PodGroup: allocated plus requested must stay within the limit (-1: none).
fn queue_fit(ctx: &Ctx, q: &KaiQueue) -> KaiQueueFit {
    let gpus = |p: crate::index::ObjId| {
        let share = ctx
            .ix
            .value(p)
            .at("/metadata/annotations/gpu-fraction")
            .and_then(Value::as_str)
            .and_then(|f| f.parse::<f64>().ok());
        let whole = ctx
            .ix
            .pod(p)
            .and_then(|i| i.requests.iter().find(|(r, _)| r == "nvidia.com/gpu"))
            .map_or(0.0, |(_, n)| *n);
        whole.max(share.unwrap_or(0.0))
    };
    let request: f64 = ctx.pods.iter().map(|&p| gpus(p)).sum();
    let limit = match crate::quantity::from_value(&q.gpu_limit) {
        Some(l) if l < 0.0 => None,
        Some(l) => Some(l),
        None => Some(0.0),
    };
    let allocated = ctx
        .ix
        .get("scheduling.run.ai", "Queue", None, &q.name)
        .map(|id| ctx.ix.value(id))
        .and_then(|v| {
            v.at("/status/allocated")
                .and_then(|a| a.get("nvidia.com/gpu"))
                .and_then(crate::quantity::from_value)
        })
        .unwrap_or(0.0);
    let verdict = match limit {
        None => "withinLimit",
        Some(l) if request > l => "overLimit",
        Some(l) if allocated + request > l => "overLimitNow",
        Some(_) => "withinLimit",
    };
    KaiQueueFit {
        request: crate::facts::Num(request),
        limit: limit.map(crate::facts::Num),
        allocated: crate::facts::Num(allocated),
        verdict: verdict.to_string(),
    }
}
