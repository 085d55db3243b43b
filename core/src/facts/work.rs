//! What the work is now, and the small facts about the target every rule may read:
//! `$.facts.target`, `scheduler`, `installed`, `now`, `podAge`, `podWaited` and `nowSource`.
//! The work's state (status, settled, history) is judged here once; `why` and `scan` both judge
//! through [`judge`].

use super::Ctx;
use crate::index::{Index, ObjId};
use crate::json::At as _;
use crate::json::str_at;
use crate::layer::Layer;
use serde::Serialize;
use serde_json::Value;

/// `$.facts.target`: the target as a whole.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct TargetFact {
    /// The target's kind.
    pub kind: String,
    /// Its status as kubectl would show it (`Pending`, `2/3 ready`, `Suspended`, …).
    pub status: String,
    /// Running and ready, or finished.
    pub settled: bool,
    /// The target is a Pod.
    pub is_pod: bool,
    /// How many pods make up the work.
    pub pod_count: usize,
    /// The target is a Pod or DaemonSet of the device stack (device plugin, GPU Operator
    /// operands, DRA drivers: `attribution::DEVICE_STACK_PODS`).
    pub device_stack: bool,
    /// Device resources its spec requests without a limit (the API server refuses such pods).
    pub requests_without_limits: Vec<String>,
    /// The target is work `fit` placed as if submitted now (status `NotSubmitted`): no
    /// controller, scheduler or kubelet has seen it, so the rules that judge it read the
    /// first-principles facts (`placement.nodeFit`, `admission.quota`, …) instead of what those
    /// components wrote.
    pub not_submitted: bool,
    /// The target is work of an operator that makes pods from a spec (a training job, a Ray
    /// cluster, a JobSet, an LWS) and has no status and no pods: no controller has ever
    /// reconciled it.
    pub unreconciled: bool,
    /// When `unreconciled`, the layer of the operator that should have reconciled it
    /// (`grouping` for job operators, `serving` for KServe, the NIM operator and llm-d).
    pub unreconciled_layer: Option<Layer>,
    /// A Node target's labels that say it holds NVIDIA GPUs (`key=value`), while it advertises
    /// no `nvidia.com/gpu`: the device stack has not made its GPUs exist. Empty otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gpu_labels_without_devices: Vec<String>,
    /// The `key=value` pairs of the target's own `spec.selector.matchLabels` that its own
    /// `spec.template.metadata.labels` do not carry, each with the template's value
    /// (`key=value (template: other)`): its controller can never find the objects
    /// it makes from that template (the API server refuses this for Deployments; custom
    /// resources' webhooks may not). Empty otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub selector_misses_template: Vec<String>,
    /// With `selectorMissesTemplate`, the layer of the target's own API group
    /// (`crate::attribution::GROUPS`); absent when the group is not known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub own_layer: Option<Layer>,
}

/// `$.facts.target`.
pub fn target(ctx: &Ctx) -> TargetFact {
    let t = ctx.ix.object(ctx.target);
    let unreconciled_layer = unreconciled(ctx);
    let misses = selector_misses_template(&ctx.value(ctx.target));
    TargetFact {
        kind: t.kind().to_string(),
        status: ctx.state.status.clone(),
        settled: ctx.state.settled,
        is_pod: t.kind() == "Pod",
        pod_count: ctx.pods.len(),
        // Known by its labels and images too: a DRA driver's daemon is named after the claim.
        device_stack: matches!(t.kind().as_str(), "Pod" | "DaemonSet")
            && super::component::of_target(ctx).is_some_and(|c| c.layer == Layer::Device),
        requests_without_limits: ctx
            .subjects
            .get("target")
            .map(requests_without_limits)
            .unwrap_or_default(),
        not_submitted: ctx.ix.not_submitted(ctx.target),
        unreconciled: unreconciled_layer.is_some(),
        unreconciled_layer,
        gpu_labels_without_devices: silent_node(ctx),
        own_layer: (!misses.is_empty())
            .then(|| crate::attribution::of_group(t.group(), t.kind().as_str()))
            .flatten()
            .map(|a| a.layer),
        selector_misses_template: misses,
    }
}

/// The pairs of an object's own selector its own template's labels lack.
fn selector_misses_template(v: &Value) -> Vec<String> {
    let (Some(sel), Some(labels)) = (
        v.at("/spec/selector/matchLabels")
            .and_then(Value::as_object),
        v.at("/spec/template/metadata/labels")
            .and_then(Value::as_object),
    ) else {
        return Vec::new();
    };
    sel.iter()
        .filter(|(k, want)| labels.get(*k) != Some(want))
        .map(|(k, want)| {
            let got = labels
                .get(k)
                .and_then(Value::as_str)
                .unwrap_or("no such label");
            format!(
                "{k}={} (template: {got})",
                want.as_str().unwrap_or_default()
            )
        })
        .collect()
}

/// A Node target labelled as holding NVIDIA GPUs that advertises none.
fn silent_node(ctx: &Ctx) -> Vec<String> {
    let t = ctx.ix.object(ctx.target);
    if t.kind() != "Node" {
        return Vec::new();
    }
    let Some(n) = ctx.ix.nodes().get(&t.name) else {
        return Vec::new();
    };
    if super::device::advertises_gpu(n) {
        return Vec::new();
    }
    super::device::nvidia_gpu_labels(n)
}

/// API groups whose objects an operator turns into pods (or serving objects), and writes a
/// status on when it does, with the layer that operator serves: training jobs, Ray, JobSet and
/// LWS at grouping; KServe's, the NIM operator's and llm-d's at serving.
const OPERATOR_GROUPS: &[(&str, Layer)] = &[
    ("kubeflow.org", Layer::Grouping),
    ("trainer.kubeflow.org", Layer::Grouping),
    ("ray.io", Layer::Grouping),
    ("jobset.x-k8s.io", Layer::Grouping),
    ("leaderworkerset.x-k8s.io", Layer::Grouping),
    ("serving.kserve.io", Layer::Serving),
    ("serving.kubeflow.org", Layer::Serving),
    ("apps.nvidia.com", Layer::Serving),
    ("llm-d.ai", Layer::Serving),
];

/// When no controller has ever written the target's status nor made its pods, the layer of
/// the operator that should have. An event about the object says some controller did see it
/// (its refusal is the evidence then, not silence).
fn unreconciled(ctx: &Ctx) -> Option<Layer> {
    let t = ctx.ix.object(ctx.target);
    let &(_, layer) = OPERATOR_GROUPS.iter().find(|(g, _)| *g == t.group())?;
    if !ctx.pods.is_empty()
        || ctx.ix.not_submitted(ctx.target)
        || !ctx.events_about(ctx.target).is_empty()
    {
        return None;
    }
    let v = ctx.value(ctx.target);
    v.at("/status")
        .is_none_or(|s| s.is_null() || s.as_object().is_some_and(|m| m.is_empty()))
        .then_some(layer)
}

/// `$.facts.scheduler`: the pod's `schedulerName`, `default-scheduler` when unset.
pub fn scheduler(ctx: &Ctx) -> Option<String> {
    let pv = ctx.pod_value()?;
    Some(
        str_at(&pv, "/spec/schedulerName")
            .unwrap_or("default-scheduler")
            .to_string(),
    )
}

/// `$.facts.installed`: which APIs the bundle shows at all.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Installed {
    /// Some ClusterQueue, LocalQueue or Workload is in the bundle.
    pub kueue: bool,
}

/// `$.facts.installed`.
pub fn installed(ctx: &Ctx) -> Installed {
    Installed {
        kueue: ctx
            .ix
            .kinds()
            .iter()
            .any(|k| matches!(*k, "ClusterQueue" | "LocalQueue" | "Workload")),
    }
}

/// `$.facts.now`: the "now" used, RFC 3339 (null when neither an option, a collection time
/// nor any timestamp in the bundle gives one).
pub fn now(ctx: &Ctx) -> Option<String> {
    ctx.now.map(crate::time::format_rfc3339)
}

/// `$.facts.podAge`: the pod's age at "now", in seconds.
pub fn pod_age(ctx: &Ctx) -> Option<i64> {
    Some(ctx.now? - ctx.ix.created(ctx.pod?)?)
}

/// `$.facts.podWaited`: how long the pod has waited, as a message quotes it (`300 s`), when that
/// is over a minute, or any age when "now" is only the newest time in a pasted bundle (where an
/// age is a lower bound); none when the pod is itself the newest moment of such a bundle, where
/// rules say the wait is not shown (`absent:`) rather than read a zero age as proof of youth.
pub fn pod_waited(ctx: &Ctx) -> Option<String> {
    let age = pod_age(ctx)?;
    let lower_bound = ctx.now_source == Some("newestInBundle");
    (age > 60 || (lower_bound && age > 0)).then(|| format!("{age} s"))
}

/// `$.facts.nowSource`: `option`, `collectedAt` or `newestInBundle`.
pub fn now_source(ctx: &Ctx) -> Option<String> {
    ctx.now_source.map(str::to_string)
}

/// Device resources (names with a `/`) that some `resources` block of an object asks for in
/// `requests` without the same key in `limits`, anywhere in its spec (a pod, a pod template, a
/// TrainJob's `resourcesPerNode`). The API server refuses such a pod ("Limit must be set for
/// non overcommitable resources"), so whatever generates pods from the spec cannot create them.
pub fn requests_without_limits(v: &Value) -> Vec<String> {
    fn walk(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::Object(m) => {
                if let Some(req) = m.get("requests").and_then(Value::as_object) {
                    let limits = m.get("limits").and_then(Value::as_object);
                    for k in req.keys().filter(|k| k.contains('/')) {
                        if limits.is_none_or(|l| !l.contains_key(k)) && !out.contains(k) {
                            out.push(k.clone());
                        }
                    }
                }
                m.values().for_each(|x| walk(x, out));
            }
            Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    if let Some(spec) = v.get("spec") {
        walk(spec, &mut out);
    }
    out.sort();
    out
}

/// What the work is now: its status, whether it is settled, and whether what the bundle shows
/// of it is history (finished work, a failed pod beside its running replacement), which never
/// blocks. `why` and `scan` both judge through here.
#[derive(Debug, Clone)]
pub struct WorkState {
    pub status: String,
    pub settled: bool,
    pub history: bool,
}

/// Statuses of work that has finished for good.
const FINISHED: &[&str] = &["Complete", "Completed", "Finished", "Succeeded"];

pub fn judge(ix: &Index, target: ObjId, v: &Value, pods: &[ObjId]) -> WorkState {
    // Work a `fit` placed as if submitted has no state of its own yet.
    if ix.not_submitted(target) {
        return WorkState {
            status: crate::diagnosis::NOT_SUBMITTED.to_string(),
            settled: false,
            history: false,
        };
    }
    let (status, mut settled, by_kind) = match ix.pod(target) {
        Some(p) => (p.status.clone(), p.settled, true),
        None => work_status(ix, target, v, pods),
    };
    let mut history = settled && FINISHED.contains(&status.as_str());
    if super::superseded_pod(ix, target) {
        settled = true;
        history = true;
    }
    // A kind without a status of its own (a Node, a DaemonSet's selector, an HTTPRoute) is
    // settled only while it reports nothing wrong.
    if !by_kind
        && settled
        && !super::signals::signals(
            ix,
            &[target],
            false,
            &|id| std::borrow::Cow::Owned(ix.value(id)),
            &|id| std::borrow::Cow::Owned(ix.events_about(id)),
        )
        .signals
        .is_empty()
    {
        settled = false;
    }
    WorkState {
        status,
        settled,
        history,
    }
}

/// A short status for the target as kubectl would show it, whether the work is settled
/// (running as intended or finished), and whether the kind has a status of its own (false: the
/// status is only "Present" or its pods').
fn work_status(ix: &Index, target: ObjId, v: &Value, pods: &[ObjId]) -> (String, bool, bool) {
    let t = ix.object(target);
    let by_kind = matches!(
        (t.group(), t.kind().as_str()),
        ("", "Pod")
            | ("batch", "Job")
            | ("jobset.x-k8s.io", "JobSet")
            | ("leaderworkerset.x-k8s.io", "LeaderWorkerSet")
            | (
                "apps",
                "Deployment" | "StatefulSet" | "ReplicaSet" | "DaemonSet"
            )
            | ("kueue.x-k8s.io", "Workload")
            | ("nvidia.com", "DynamoGraphDeployment")
    ) || (t.kind() == "PodGroup" && !pods.is_empty());
    let (status, settled) = status_by_kind(ix, target, v, pods);
    (status, settled, by_kind)
}

fn status_by_kind(ix: &Index, target: ObjId, v: &Value, pods: &[ObjId]) -> (String, bool) {
    let t = ix.object(target);
    let cond_true = |ty: &str| {
        v.at("/status/conditions")
            .and_then(Value::as_array)
            .is_some_and(|cs| cs.iter().any(|c| c["type"] == ty && c["status"] == "True"))
    };
    let pods_settled =
        || !pods.is_empty() && pods.iter().all(|&p| ix.pod(p).is_some_and(|i| i.settled));
    let ready_of = |spec_ptr: &str, ready_ptr: &str| {
        let want = v.at(spec_ptr).and_then(Value::as_u64).unwrap_or(1);
        let ready = v.at(ready_ptr).and_then(Value::as_u64).unwrap_or(0);
        (format!("{ready}/{want} ready"), ready >= want)
    };
    match (t.group(), t.kind().as_str()) {
        ("", "Pod") => ix
            .pod(target)
            .map_or_else(|| super::pod_status(v), |i| (i.status.clone(), i.settled)),
        // Jobs and JobSets: finished, failed, held (suspended), or as their pods are.
        ("batch", "Job") | ("jobset.x-k8s.io", "JobSet") => {
            let done = if t.kind() == "Job" {
                "Complete"
            } else {
                "Completed"
            };
            if cond_true(done) {
                (done.into(), true)
            } else if cond_true("Failed") {
                ("Failed".into(), false)
            } else if v.at("/spec/suspend") == Some(&Value::Bool(true)) {
                ("Suspended".into(), false)
            } else {
                let s = pods_settled();
                (if s { "Running" } else { "Pending" }.into(), s)
            }
        }
        // A status that counts everyone ready is stale while a live member is not: a worker
        // recreated since the controller last wrote its status is Pending all the same.
        ("leaderworkerset.x-k8s.io", "LeaderWorkerSet")
        | ("apps", "Deployment" | "StatefulSet" | "ReplicaSet") => {
            let (status, settled) = ready_of("/spec/replicas", "/status/readyReplicas");
            let members_settled = pods
                .iter()
                .filter_map(|&p| ix.pod(p))
                .all(|i| i.settled || i.terminal());
            // A rollout that cannot finish keeps the old replicas ready and counts the new
            // ones unavailable: the change asked for is not running.
            let rolling = v
                .at("/status/unavailableReplicas")
                .and_then(Value::as_u64)
                .is_some_and(|n| n > 0);
            (status, settled && members_settled && !rolling)
        }
        // A DaemonSet that should run nowhere is not settled: the device stack's DaemonSets
        // are what this tool is asked about, and "desired 0" is their failure.
        ("apps", "DaemonSet") => {
            let (status, settled) =
                ready_of("/status/desiredNumberScheduled", "/status/numberReady");
            let desired = v
                .at("/status/desiredNumberScheduled")
                .and_then(Value::as_u64);
            (status, settled && desired != Some(0))
        }
        ("kueue.x-k8s.io", "Workload") => {
            if cond_true("Finished") {
                ("Finished".into(), true)
            } else if cond_true("Admitted") {
                let s = cond_true("PodsReady") || pods_settled();
                ("Admitted".into(), s)
            } else {
                ("Pending".into(), false)
            }
        }
        ("nvidia.com", "DynamoGraphDeployment") => {
            // Its Ready condition is derived from its Grove parts: where every part the bundle
            // holds reports all its replicas available, a `Ready=False` is from before.
            let ready = cond_true("Ready") || grove_parts_available(ix, target);
            (
                str_at(v, "/status/state").map_or_else(
                    || {
                        if ready {
                            "Ready".into()
                        } else {
                            "NotReady".into()
                        }
                    },
                    str::to_string,
                ),
                ready,
            )
        }
        _ => {
            if pods.is_empty() {
                // An object of its own kind with no pods is settled unless someone warns about
                // it (a scheduler's `Unschedulable` on a PodGroup, an operator's refusal) or its
                // own controller reports it failing in a condition (an InferenceService or
                // LLMInferenceService `Ready=False`, an operator's `Degraded=True`): the object's
                // own contract says it is not done, and neither is a never-an-all-clear Warning.
                let warned = ix
                    .events_about(target)
                    .iter()
                    .any(|(_, e)| super::signals::failing_event(&e.type_, &e.reason));
                match own_failing_condition(v) {
                    Some(status) => (status, false),
                    None => ("Present".into(), !warned),
                }
            } else {
                let s = pods_settled();
                (
                    if s {
                        "Running".into()
                    } else {
                        "Pending".into()
                    },
                    s,
                )
            }
        }
    }
}

/// The status an object's own failing condition gives it (`NotReady` for `Ready=False`,
/// `Degraded` for `Degraded=True`), the first such condition in its order.
fn own_failing_condition(v: &Value) -> Option<String> {
    let c = v
        .at("/status/conditions")
        .and_then(Value::as_array)?
        .iter()
        .find(|c| super::signals::failing_condition(c))?;
    let ty = c["type"].as_str().unwrap_or("");
    Some(match c["status"].as_str() {
        Some("True") => ty.to_string(),
        _ => format!("Not{ty}"),
    })
}

/// Whether the Grove objects a DynamoGraphDeployment is made of (its PodCliqueSet, scaling groups
/// and cliques: named after it, in its namespace) are in the bundle and each reports every
/// replica available.
pub(crate) fn grove_parts_available(ix: &Index, dgd: ObjId) -> bool {
    let d = ix.object(dgd);
    let prefix = format!("{}-", d.name);
    let mut parts = ["PodCliqueSet", "PodCliqueScalingGroup", "PodClique"]
        .iter()
        .flat_map(|k| ix.of_kind(k).iter().copied())
        .filter(|&id| {
            let o = ix.object(id);
            o.group() == "grove.io"
                && o.namespace() == d.namespace()
                && (o.name == d.name || o.name.starts_with(&prefix))
        })
        .peekable();
    parts.peek().is_some()
        && parts.all(|id| {
            let v = ix.value(id);
            let want = v
                .at("/spec/replicas")
                .or_else(|| v.at("/status/replicas"))
                .and_then(Value::as_u64);
            // A PodClique counts ready replicas; the sets and scaling groups, available ones.
            let available = v
                .at("/status/availableReplicas")
                .or_else(|| v.at("/status/readyReplicas"))
                .and_then(Value::as_u64);
            matches!((want, available), (Some(w), Some(a)) if a >= w)
        })
}
