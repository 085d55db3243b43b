//! The grouping layer's view of a JobSet, at `$.facts.grouping.jobSet`: its restarts, the pods
//! an earlier attempt left behind, and which replicated job an in-order startup waits on.

use super::label;
use crate::index::{Index, ObjId};
use crate::json::At as _;
use serde::Serialize;
use serde_json::Value;

/// A JobSet's restarts and startup progress.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct GroupingJobSet {
    /// The JobSet's name.
    pub name: String,
    /// `status.restarts`: how many times the JobSet has recreated its Jobs.
    pub restarts: u64,
    /// `spec.failurePolicy.maxRestarts`; 0 when there is no failure policy.
    pub max_restarts: u64,
    /// `maxRestarts` minus `restarts`, never below 0.
    pub restarts_left: u64,
    /// `spec.failurePolicy.restartStrategy`, `Recreate` when unset.
    pub restart_strategy: String,
    /// `spec.startupPolicy.startupPolicyOrder`, `AnyOrder` when unset.
    pub startup_policy: String,
    /// Non-terminal pods whose `jobset.sigs.k8s.io/restart-attempt` label is below `restarts`:
    /// leftovers of an earlier attempt.
    pub stale_attempt_pods: Vec<String>,
    /// Each of `spec.replicatedJobs`, in spec order.
    pub replicated_jobs: Vec<ReplicatedJobReadiness>,
    /// The first replicated job, in spec order, that has Jobs but fewer ready than its replicas
    /// while a later one has no Job at all: what an in-order startup waits on. Null when none.
    pub waiting_on: Option<String>,
    /// The replicated jobs after `waitingOn` that have no Job; empty without `waitingOn`.
    pub not_started: Vec<String>,
}

/// One replicated job: how many Jobs it asks for, exist and are ready.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ReplicatedJobReadiness {
    /// The replicated job's name.
    pub name: String,
    /// `replicas`, 1 when unset.
    pub replicas: u64,
    /// Child Jobs labelled `jobset.sigs.k8s.io/replicatedjob-name: <name>`.
    pub jobs_present: usize,
    /// `status.replicatedJobsStatus[name].ready`, 0 when unset.
    pub ready: u64,
}

/// The JobSet fact of the JobSet `id`.
pub(super) fn job_set(ix: &Index, id: ObjId) -> GroupingJobSet {
    let v = ix.value(id);
    let restarts = v
        .at("/status/restarts")
        .and_then(Value::as_u64)
        .unwrap_or(0);
    let max = v
        .at("/spec/failurePolicy/maxRestarts")
        .and_then(Value::as_u64)
        .unwrap_or(0);
    let stale: Vec<String> = ix
        .descendant_pods(id)
        .into_iter()
        .filter(|&p| !ix.pod(p).is_some_and(|i| i.terminal()))
        .filter(|&p| {
            label(&ix.value(p), "jobset.sigs.k8s.io/restart-attempt")
                .and_then(|s| s.parse::<u64>().ok())
                .is_some_and(|a| a < restarts)
        })
        .map(|p| ix.object(p).name.clone())
        .collect();
    let rows = replicated_jobs(ix, id, &v);
    let (waiting_on, not_started) = waiting_on(&rows);
    let text = |ptr: &str, default: &str| {
        v.at(ptr)
            .and_then(Value::as_str)
            .unwrap_or(default)
            .to_string()
    };
    GroupingJobSet {
        name: ix.object(id).name.clone(),
        restarts,
        max_restarts: max,
        restarts_left: max.saturating_sub(restarts),
        restart_strategy: text("/spec/failurePolicy/restartStrategy", "Recreate"),
        startup_policy: text("/spec/startupPolicy/startupPolicyOrder", "AnyOrder"),
        stale_attempt_pods: stale,
        replicated_jobs: rows,
        waiting_on,
        not_started,
    }
}

fn replicated_jobs(ix: &Index, id: ObjId, v: &Value) -> Vec<ReplicatedJobReadiness> {
    let jobs: Vec<Value> = crate::facts::child_jobs(ix, id)
        .map(|c| ix.value(c))
        .collect();
    let status = v
        .at("/status/replicatedJobsStatus")
        .and_then(Value::as_array);
    crate::facts::jobset::rows(v, &jobs)
        .into_iter()
        .map(|rj| ReplicatedJobReadiness {
            ready: status
                .and_then(|s| s.iter().find(|r| r["name"] == rj.name.as_str()))
                .and_then(|r| r["ready"].as_u64())
                .unwrap_or(0),
            name: rj.name,
            replicas: rj.replicas,
            jobs_present: rj.jobs_present,
        })
        .collect()
}

/// The replicated job an in-order startup waits on, and the later ones without a Job.
fn waiting_on(rows: &[ReplicatedJobReadiness]) -> (Option<String>, Vec<String>) {
    for (i, r) in rows.iter().enumerate() {
        let later_empty: Vec<String> = rows[i + 1..]
            .iter()
            .filter(|x| x.jobs_present == 0)
            .map(|x| x.name.clone())
            .collect();
        if r.jobs_present > 0 && r.ready < r.replicas && !later_empty.is_empty() {
            return (Some(r.name.clone()), later_empty);
        }
    }
    (None, Vec::new())
}
