//! The one reading of a JobSet's spec and its child Jobs: the group's size, `$.facts.jobSet` and
//! the grouping facts all count from it.

use super::Ctx;
use crate::index::{Index, ObjId};
use crate::json::At as _;
use serde::Serialize;
use serde_json::Value;

/// One `spec.replicatedJobs` entry of a JobSet, with JobSet's defaults (one replica, one pod
/// per Job). The one reading of a JobSet's spec: the group's size, the jobSet fact and the
/// grouping facts all count from it.
pub struct ReplicatedJob<'v> {
    pub name: &'v str,
    pub replicas: u64,
    /// The Job template's `parallelism`.
    pub pods_per_job: u64,
}

impl ReplicatedJob<'_> {
    /// How many of these Jobs (JobSet's children, as JSON) exist: by the
    /// `jobset.sigs.k8s.io/replicatedjob-name` label JobSet writes on each.
    pub fn present_in(&self, jobs: &[Value]) -> usize {
        jobs.iter()
            .filter(|j| {
                crate::json::label(j, "jobset.sigs.k8s.io/replicatedjob-name") == Some(self.name)
            })
            .count()
    }
}

/// A JobSet's child Jobs (by ownerReference), what [`ReplicatedJob::present_in`] counts in.
pub fn child_jobs(ix: &Index, jobset: ObjId) -> impl Iterator<Item = ObjId> + '_ {
    ix.children(jobset)
        .iter()
        .copied()
        .filter(move |&c| ix.object(c).kind() == "Job")
}

/// A JobSet's replicated jobs, in spec order.
pub fn replicated_jobs(jobset: &Value) -> Vec<ReplicatedJob<'_>> {
    jobset
        .at("/spec/replicatedJobs")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|rj| ReplicatedJob {
            name: rj["name"].as_str().unwrap_or(""),
            replicas: rj["replicas"].as_u64().unwrap_or(1),
            pods_per_job: rj
                .at("/template/spec/parallelism")
                .and_then(Value::as_u64)
                .unwrap_or(1),
        })
        .collect()
}

/// `$.facts.jobSet`: the work's JobSet, its replicated jobs against the child Jobs that exist.
/// Child Jobs are found by owner reference and matched to their replicated job by the
/// `jobset.sigs.k8s.io/replicatedjob-name` label.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct JobSetFact {
    pub name: String,
    /// `spec.suspend` is true.
    pub suspended: bool,
    /// Σ replicas over the replicated jobs.
    pub jobs_expected: u64,
    /// Child Jobs in the bundle.
    pub jobs_present: usize,
    /// Child Jobs with `spec.suspend: true`.
    pub jobs_suspended: usize,
    pub replicated_jobs: Vec<ReplicatedJobRow>,
}

/// One replicated job of the JobSet's spec.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ReplicatedJobRow {
    pub name: String,
    pub replicas: u64,
    /// Its child Jobs in the bundle.
    pub jobs_present: usize,
    /// The Job template's `parallelism`.
    pub pods_per_job: u64,
}

/// Each replicated job of the JobSet `js` against its child Jobs `jobs`: the one count both
/// `$.facts.jobSet` and `$.facts.grouping.jobSet` show.
pub fn rows(js: &Value, jobs: &[Value]) -> Vec<ReplicatedJobRow> {
    replicated_jobs(js)
        .into_iter()
        .map(|rj| ReplicatedJobRow {
            name: rj.name.to_string(),
            replicas: rj.replicas,
            jobs_present: rj.present_in(jobs),
            pods_per_job: rj.pods_per_job,
        })
        .collect()
}

/// `$.facts.jobSet`, for the view's `jobSet` subject; null without one.
pub fn fact(ctx: &Ctx) -> Option<JobSetFact> {
    let id = ctx.id("jobSet")?;
    let ix = ctx.ix;
    let js = ix.value(id);
    let jobs: Vec<Value> = child_jobs(ix, id).map(|c| ix.value(c)).collect();
    let rows = rows(&js, &jobs);
    let expected = rows
        .iter()
        .fold(0u64, |sum, r| sum.saturating_add(r.replicas));
    let suspended = jobs
        .iter()
        .filter(|j| j.at("/spec/suspend") == Some(&Value::Bool(true)))
        .count();
    Some(JobSetFact {
        name: ix.object(id).name.clone(),
        suspended: js.at("/spec/suspend") == Some(&Value::Bool(true)),
        jobs_expected: expected,
        jobs_present: jobs.len(),
        jobs_suspended: suspended,
        replicated_jobs: rows,
    })
}
