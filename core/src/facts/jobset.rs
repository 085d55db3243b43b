//! The one reading of a JobSet's spec and its child Jobs: the group's size, `$.facts.jobSet` and
//! the grouping facts all count from it.

use crate::index::{Index, ObjId};
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
        .filter(move |&c| ix.object(c).kind == "Job")
}

/// A JobSet's replicated jobs, in spec order.
pub fn replicated_jobs(jobset: &Value) -> Vec<ReplicatedJob<'_>> {
    jobset
        .pointer("/spec/replicatedJobs")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|rj| ReplicatedJob {
            name: rj["name"].as_str().unwrap_or(""),
            replicas: rj["replicas"].as_u64().unwrap_or(1),
            pods_per_job: rj
                .pointer("/template/spec/parallelism")
                .and_then(Value::as_u64)
                .unwrap_or(1),
        })
        .collect()
}
