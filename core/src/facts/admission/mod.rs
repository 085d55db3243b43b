//! Facts of the admission layer, at `$.facts.admission` (null when the work shows no sign of
//! Kueue: no Workload, no queue name, no scheduling gate).
//!
//! Every field is documented on [`AdmissionFacts`] and its parts, from which `docs/view.md` and the
//! schema rule paths are checked against are generated.

mod admissions;
mod api;
mod config;
pub use config::{CONFIG_KEY, configuration};
mod flavor;
mod order;
mod queue;
pub mod visibility;
pub use queue::AHEAD_NAMES;
mod quota;
mod quota_fit;
mod workload;

pub use api::{PriorityClassCheck, QuotaCheck, Submission, submission};
pub use flavor::{ExceedsMaximum, FlavorAssignment, flavors_named};
pub use queue::QueuePosition;
pub use quota::QuotaOverNodes;
pub use quota_fit::{Intake, QuotaFit, QuotaRow};
pub use workload::{AdmissionCheck, ReasonMessage, Requeue};

use super::Ctx;
use crate::index::{Index, ObjId};
use crate::json::At as _;
use crate::json::str_at as s;
use crate::pattern::Pattern;
use serde::Serialize;
use serde_json::{Map, Value};
use std::sync::LazyLock;

static CQ_IN_MESSAGE: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(r"^ClusterQueue (\S+) (?:is inactive|doesn't exist|not found|is stopped)")
        .expect("static pattern")
});

/// What the admission layer (Kueue) shows of the work. Every field is present; the Workload's
/// own fields (`noConditions`, `flavorAssignment`, `queue`, `evicted`, `preempted`,
/// `preemptedBy`, `requeue`, `deactivated`, `checks`, `checksNotReady`) are null or empty
/// without a Workload.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct AdmissionFacts {
    /// The LocalQueue the work asks for: the Workload's `spec.queueName`, else the
    /// `kueue.x-k8s.io/queue-name` label on the target, its owners or its pod (nearest first).
    pub queue_name: Option<String>,
    /// `Kind namespace/name` of the object that carries the queue-name label.
    pub queue_label_on: Option<String>,
    /// How texts name the queue: `ClusterQueue <name>` when the ClusterQueue is known (from the
    /// admission, the LocalQueue, or the Workload's `ClusterQueue <name> is …` message), else
    /// `LocalQueue <namespace>/<name>` (the bundle lacks the LocalQueue).
    pub queue_ref: Option<String>,
    /// A Kueue Workload is linked to the work.
    pub workload: bool,
    /// The bundle holds some Kueue object (LocalQueue, ClusterQueue, ResourceFlavor, Workload),
    /// so that an absent Workload or LocalQueue means something.
    pub kueue_in_bundle: bool,
    /// Whether the cluster serves `kueue.x-k8s.io` at all, from a live read's discovery; null
    /// for files without that record.
    pub kueue_installed: Option<bool>,
    /// The LocalQueue named by `queueName`; null without a queue name.
    pub local_queue: Option<LocalQueue>,
    /// The names of the Kueue LocalQueues of the target's namespace in the bundle.
    pub local_queues_in_namespace: Vec<String>,
    /// The ClusterQueue the work goes through (see `queueRef`); null when unknown.
    pub cluster_queue: Option<ClusterQueue>,
    /// The target's (or its nearest Job/JobSet owner's) `spec.suspend`; null when no Job or
    /// JobSet among them sets it.
    pub suspended: Option<bool>,
    /// The namespace is `kube-system` or `kueue-system`, which Kueue's webhooks always skip from
    /// v0.18.
    pub namespace_always_excluded: bool,
    /// For a JobSet or LeaderWorkerSet: the CustomResourceDefinition Kueue must notice before it
    /// manages that kind; null for other kinds.
    pub integration: Option<Integration>,
    /// The Workload has no conditions at all (not attempted yet).
    pub no_conditions: Option<bool>,
    /// The Workload's `QuotaReserved=False` message, parsed.
    pub flavor_assignment: Option<FlavorAssignment>,
    /// For a Workload without a quota reservation (and not finished): the Workloads queued ahead
    /// of it.
    pub queue: Option<QueuePosition>,
    /// `Evicted=True` on the Workload.
    pub evicted: Option<ReasonMessage>,
    /// `Preempted=True` on the Workload.
    pub preempted: Option<ReasonMessage>,
    /// `Kind namespace/name` of the Workload that preempted this one, when its UID (from the
    /// Preempted, or Evicted with reason Preempted, message) is in the bundle.
    pub preempted_by: Option<String>,
    /// `status.requeueState` against "now".
    pub requeue: Option<Requeue>,
    /// Why the Workload is deactivated (`spec.active: false`): the reason and message of
    /// `DeactivationTarget=True`, else `Evicted=True`, else `Deactivated` / `spec.active is
    /// false`.
    pub deactivated: Option<ReasonMessage>,
    /// The Workload's `status.admissionChecks[]`.
    pub checks: Vec<AdmissionCheck>,
    /// The names of those checks not `Ready`.
    pub checks_not_ready: Vec<Value>,
    /// The extended resources whose nominal quota in the ClusterQueue is more than all nodes
    /// advertise (empty when the bundle has no nodes: nothing to compare).
    pub quota_over_nodes: Vec<QuotaOverNodes>,
    /// The distinct scheduling-gate names on the work's pods that Kueue owns
    /// (`kueue.x-k8s.io/…`).
    pub kueue_gates: Vec<String>,
    /// The distinct scheduling-gate names on the work's pods that Kueue does not own.
    pub foreign_gates: Vec<String>,
    /// The pods that carry a Kueue gate.
    pub kueue_gated_pods: Vec<String>,
    /// The pods that carry a gate Kueue does not own.
    pub foreign_gated_pods: Vec<String>,
    /// For each of those gates whose owner the gate table knows (`core/src/gates.rs`):
    /// `gate: owner (project), until what it waits for`. Another layer's gates (Grove's) are
    /// in neither list: that layer's facts judge them.
    pub foreign_gate_owners: Vec<String>,
    /// For work `fit` placed as if submitted: how Kueue would take it in. Null otherwise.
    pub intake: Option<Intake>,
    /// For the Workload `fit` made (not admitted yet): its pod sets against the ClusterQueue's
    /// quota. Null otherwise.
    pub quota_fit: Option<QuotaFit>,
}

/// The LocalQueue the work names.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct LocalQueue {
    /// The LocalQueue's name (`queueName`).
    pub name: String,
    /// The bundle holds it; when false, every other field is null.
    pub found: bool,
    /// Its `Active` condition is `True`; null without that condition.
    pub active: Option<bool>,
    /// The `Active` condition's reason, as given.
    pub reason: Option<Value>,
    /// The `Active` condition's message, as given.
    pub message: Option<Value>,
    /// The ClusterQueue it points at (`spec.clusterQueue`).
    pub cluster_queue: Option<String>,
}

/// The ClusterQueue the work goes through.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ClusterQueue {
    /// The ClusterQueue's name.
    pub name: String,
    /// The bundle holds it; when false, every other field is null.
    pub found: bool,
    /// Its `Active` condition is `True`; null without that condition.
    pub active: Option<bool>,
    /// The `Active` condition's reason, as given.
    pub reason: Option<Value>,
    /// The `Active` condition's message, as given.
    pub message: Option<Value>,
    /// `spec.queueingStrategy`, `BestEffortFIFO` when unset.
    pub strategy: Option<String>,
    /// `status.pendingWorkloads`, as given.
    pub pending_workloads: Option<Value>,
}

/// The CustomResourceDefinition of a kind Kueue manages only once it has noticed its API.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Integration {
    /// `JobSet` or `LeaderWorkerSet`.
    pub kind: String,
    /// The CRD's name, e.g. `jobsets.jobset.x-k8s.io`.
    pub crd: String,
    /// The bundle holds the CRD.
    pub crd_found: bool,
    /// The CRD's creation time (RFC 3339).
    pub crd_created: Option<String>,
    /// The CRD's age in seconds against "now"; null when either is unknown.
    pub crd_age_seconds: Option<i64>,
    /// The same as a human duration (`3m12s`).
    pub crd_age: Option<String>,
}

/// The queues a piece of work names, resolved once when the view links the Workload's
/// LocalQueue and ClusterQueue, so that every admission fact, and the subjects rules read, name
/// the same ones.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct QueueNames {
    /// The LocalQueue: the Workload's `spec.queueName`, else the `kueue.x-k8s.io/queue-name`
    /// label of the first of the target, its owners and the pod that carries one.
    pub local: Option<String>,
    /// The object carrying that label, when one does.
    pub label_on: Option<ObjId>,
    /// The ClusterQueue: the one the Workload was admitted into, else the LocalQueue's
    /// `spec.clusterQueue`, else the one the Workload's `QuotaReserved` message names
    /// (`ClusterQueue <name> is inactive` …, which Kueue writes when the queue is missing or
    /// stopped, so that the bundle may lack the LocalQueue).
    pub cluster: Option<String>,
}

/// The ClusterQueue a Workload's `QuotaReserved` message says is inactive, missing or stopped.
pub fn cluster_queue_in_message(wl: &Value) -> Option<&str> {
    let m = cond(wl, "QuotaReserved")?["message"].as_str()?;
    CQ_IN_MESSAGE.captures(m)?.get(1)
}

/// The admission layer's facts for one view; None when the work shows no sign of Kueue.
pub fn facts(ctx: &Ctx) -> Option<AdmissionFacts> {
    let ix = ctx.ix;
    let sub = ctx.subjects;
    let wl = sub.get("workload");
    let queue_name = ctx.queues.local.clone();
    let queue_label_on = ctx.queues.label_on.map(|id| display(&ctx.value(id)));
    let gates = scheduling_gates(sub);
    if wl.is_none() && queue_name.is_none() && gates.kueue.is_empty() && gates.foreign.is_empty() {
        return None;
    }
    let ns = sub
        .get("target")
        .and_then(|t| s(t, "/metadata/namespace"))
        .map(str::to_string);
    let cq_name = ctx.queues.cluster.as_deref();
    // How to name the queue in texts: the ClusterQueue when known, else the LocalQueue.
    let queue_ref = match (cq_name, &queue_name) {
        (Some(cq), _) => Some(format!("ClusterQueue {cq}")),
        (None, Some(q)) => Some(format!("LocalQueue {}/{q}", ns.as_deref().unwrap_or(""))),
        _ => None,
    };
    let checks = wl.map(workload::checks).unwrap_or_default();
    let checks_not_ready = checks
        .iter()
        .filter(|c| c.state != "Ready")
        .map(|c| c.name.clone())
        .collect();
    Some(AdmissionFacts {
        local_queue: queue_name.as_deref().map(|q| local_queue(sub, q)),
        queue_name,
        queue_label_on,
        queue_ref,
        workload: wl.is_some(),
        kueue_in_bundle: kueue_in_bundle(ix),
        kueue_installed: kueue_installed(ix),
        local_queues_in_namespace: local_queues_in(ix, ns.as_deref()),
        cluster_queue: cq_name.map(|n| cluster_queue(sub, n)),
        suspended: suspended(sub),
        namespace_always_excluded: matches!(ns.as_deref(), Some("kube-system" | "kueue-system")),
        integration: integration(ix, sub, ctx.now),
        no_conditions: wl.map(workload::no_conditions),
        flavor_assignment: wl
            .and_then(|w| cond(w, "QuotaReserved"))
            .filter(|c| c["status"] == "False")
            .and_then(|c| c["message"].as_str())
            .map(flavor::flavor_assignment),
        queue: wl
            .filter(|w| {
                cond_true(w, "QuotaReserved").is_none() && cond_true(w, "Finished").is_none()
            })
            .and_then(|w| {
                let cq_object = sub.get("clusterQueue");
                queue::position(ix, ctx.queues, w, cq_object, ctx.now)
            }),
        evicted: wl.and_then(|w| workload::reason_message(cond_true(w, "Evicted"))),
        preempted: wl.and_then(|w| workload::reason_message(cond_true(w, "Preempted"))),
        preempted_by: wl.and_then(|w| workload::preempted_by(ix, w)),
        requeue: wl.and_then(|w| workload::requeue(w, ctx.now)),
        deactivated: wl.and_then(workload::deactivated),
        checks,
        checks_not_ready,
        quota_over_nodes: quota::quota_over_nodes(ix, sub.get("clusterQueue")),
        kueue_gates: gates.kueue,
        foreign_gates: gates.foreign,
        kueue_gated_pods: gates.kueue_pods,
        foreign_gated_pods: gates.foreign_pods,
        foreign_gate_owners: gates.foreign_owners,
        intake: quota_fit::intake(ix, ctx.target),
        quota_fit: quota_fit::quota_fit(ix, sub, ctx.queues),
    })
}

/// The first condition of a type.
fn cond<'v>(v: &'v Value, ty: &str) -> Option<&'v Value> {
    v.at("/status/conditions")
        .and_then(Value::as_array)
        .and_then(|cs| cs.iter().find(|c| c["type"] == ty))
}

/// The first condition of a type, when it is `True`.
fn cond_true<'v>(v: &'v Value, ty: &str) -> Option<&'v Value> {
    cond(v, ty).filter(|c| c["status"] == "True")
}

/// An object as texts name it: `Kind namespace/name`, or `Kind name` when cluster-scoped.
fn display(v: &Value) -> String {
    let kind = s(v, "/kind").unwrap_or("");
    let name = s(v, "/metadata/name").unwrap_or("");
    match s(v, "/metadata/namespace") {
        Some(ns) => format!("{kind} {ns}/{name}"),
        None => format!("{kind} {name}"),
    }
}

/// The subjects that may carry the queue-name label, nearest to the work first.
fn carriers(sub: &Map<String, Value>) -> Vec<&Value> {
    let mut out: Vec<&Value> = Vec::new();
    out.extend(sub.get("target"));
    if let Some(Value::Array(owners)) = sub.get("owners") {
        out.extend(owners.iter());
    }
    out.extend(sub.get("pod"));
    out
}

/// The scheduling gates on the work's pods, Kueue's and others', with the pods that carry them.
struct Gates {
    kueue: Vec<String>,
    foreign: Vec<String>,
    kueue_pods: Vec<String>,
    foreign_pods: Vec<String>,
    foreign_owners: Vec<String>,
}

fn scheduling_gates(sub: &Map<String, Value>) -> Gates {
    let pods: Vec<&Value> = match sub.get("pods") {
        Some(Value::Array(ps)) => ps.iter().collect(),
        _ => sub.get("pod").into_iter().collect(),
    };
    let mut out = Gates {
        kueue: Vec::new(),
        foreign: Vec::new(),
        kueue_pods: Vec::new(),
        foreign_pods: Vec::new(),
        foreign_owners: Vec::new(),
    };
    for p in &pods {
        let name = s(p, "/metadata/name").unwrap_or("").to_string();
        for gate in crate::gates::on_pod(p) {
            let owner = crate::gates::owner(gate);
            // Another layer's gate (Grove's PodGang) is judged by that layer's facts.
            if owner.is_some_and(|o| o.layer != crate::layer::Layer::Admission) {
                continue;
            }
            let (gates, gated) = if crate::gates::kueues(gate) {
                (&mut out.kueue, &mut out.kueue_pods)
            } else {
                if let Some(o) = owner {
                    let line = format!("{gate}: {} ({}), until {}", o.owner, o.project, o.until);
                    if !out.foreign_owners.contains(&line) {
                        out.foreign_owners.push(line);
                    }
                }
                (&mut out.foreign, &mut out.foreign_pods)
            };
            if !gates.iter().any(|x| x == gate) {
                gates.push(gate.to_string());
            }
            if !gated.contains(&name) {
                gated.push(name.clone());
            }
        }
    }
    out
}

/// Whether the bundle holds any Kueue object.
fn kueue_in_bundle(ix: &Index) -> bool {
    ix.kinds().iter().any(|k| {
        matches!(
            *k,
            "LocalQueue" | "ClusterQueue" | "ResourceFlavor" | "Workload"
        ) && ix
            .of_kind(k)
            .iter()
            .any(|&id| ix.object(id).group() == "kueue.x-k8s.io")
    })
}

/// The names of the Kueue LocalQueues of a namespace.
fn local_queues_in(ix: &Index, ns: Option<&str>) -> Vec<String> {
    ix.of_kind("LocalQueue")
        .iter()
        .filter(|&&id| ix.object(id).group() == "kueue.x-k8s.io" && ix.object(id).namespace() == ns)
        .map(|&id| ix.object(id).name.clone())
        .collect()
}

/// Whether an `Active` condition is `True`, with its reason and message.
fn active(c: Option<&Value>) -> (Option<bool>, Option<Value>, Option<Value>) {
    (
        c.map(|c| c["status"] == "True"),
        c.map(|c| c["reason"].clone()),
        c.map(|c| c["message"].clone()),
    )
}

/// The LocalQueue `name`, as the view's `localQueue` subject shows it.
fn local_queue(sub: &Map<String, Value>, name: &str) -> LocalQueue {
    let lq = sub.get("localQueue");
    let (active, reason, message) = active(lq.and_then(|lq| cond(lq, "Active")));
    LocalQueue {
        name: name.to_string(),
        found: lq.is_some(),
        active,
        reason,
        message,
        cluster_queue: lq
            .and_then(|lq| s(lq, "/spec/clusterQueue"))
            .map(str::to_string),
    }
}

/// The ClusterQueue `name`, as the view's `clusterQueue` subject shows it.
fn cluster_queue(sub: &Map<String, Value>, name: &str) -> ClusterQueue {
    let cq = sub.get("clusterQueue");
    let (active, reason, message) = active(cq.and_then(|cq| cond(cq, "Active")));
    ClusterQueue {
        name: name.to_string(),
        found: cq.is_some(),
        active,
        reason,
        message,
        strategy: cq.map(|cq| {
            s(cq, "/spec/queueingStrategy")
                .unwrap_or("BestEffortFIFO")
                .to_string()
        }),
        pending_workloads: cq.and_then(|cq| cq.at("/status/pendingWorkloads").cloned()),
    }
}

/// The `spec.suspend` of the nearest suspendable work among the target and its owners: a Job,
/// a JobSet, and every other kind Kueue suspends the same way (a TrainJob, a RayJob; the
/// training operator's `spec.runPolicy.suspend`).
fn suspended(sub: &Map<String, Value>) -> Option<bool> {
    carriers(sub).into_iter().find_map(|v| {
        v.at("/spec/suspend")
            .or_else(|| v.at("/spec/runPolicy/suspend"))
            .and_then(Value::as_bool)
    })
}

/// The integration's CRD, for kinds Kueue manages only once it has noticed their API.
fn integration(ix: &Index, sub: &Map<String, Value>, now: Option<i64>) -> Option<Integration> {
    carriers(sub).into_iter().find_map(|v| {
        let kind = s(v, "/kind")?;
        let crd = match (s(v, "/apiVersion").unwrap_or(""), kind) {
            (a, "JobSet") if a.starts_with("jobset.x-k8s.io/") => "jobsets.jobset.x-k8s.io",
            (a, "LeaderWorkerSet") if a.starts_with("leaderworkerset.x-k8s.io/") => {
                "leaderworkersets.leaderworkerset.x-k8s.io"
            }
            _ => return None,
        };
        let id = ix.get(
            "apiextensions.k8s.io",
            "CustomResourceDefinition",
            None,
            crd,
        );
        let created = id.and_then(|i| ix.created(i));
        let age = created.and_then(|c| Some(now? - c));
        Some(Integration {
            kind: kind.to_string(),
            crd: crd.to_string(),
            crd_found: id.is_some(),
            crd_created: created.map(crate::time::format_rfc3339),
            crd_age_seconds: age,
            crd_age: age.map(crate::time::format_age),
        })
    })
}

/// Whether the cluster serves the Kueue API, when the bundle says which APIs it offered.
fn kueue_installed(ix: &Index) -> Option<bool> {
    let apis = ix.bundle().meta()?.apis.as_ref()?;
    Some(apis.iter().any(|a| a.starts_with("kueue.x-k8s.io/")))
}
