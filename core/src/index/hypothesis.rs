//! What `fit` assumed when it placed a manifest's work into the index as if submitted now:
//! which objects are not submitted yet (the manifest's and what controllers would make of
//! them), how Kueue would take each piece of work in, and the quota the cluster's own copy of
//! the work held. Plain data the facts read ([`Index::hypothesis`]); the index itself never
//! changes for it.

use super::*;

/// How Kueue would take in one piece of work, as `fit` decided it from the bundle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KueueIntake {
    /// Kueue would suspend the work and create a Workload for it.
    pub managed: bool,
    /// Kueue's integration name for the kind (`batch/job`, `jobset.x-k8s.io/jobset` …).
    pub framework: String,
    /// Why Kueue would not manage it (no queue-name label, integration off, namespace
    /// excluded, no Kueue in the bundle); empty when it would.
    pub reason: String,
    /// The LocalQueue the work names, and whether the bundle holds it.
    pub queue: Option<String>,
    pub queue_found: bool,
}

/// What `fit` assumed (see the module docs).
#[derive(Debug, Clone, Default)]
pub struct Hypothesis {
    /// The objects that exist only as the manifest's submission would make them, sorted.
    pub not_submitted: Vec<ObjId>,
    /// Per piece of work the manifest submits: how Kueue would take it in.
    pub kueue: Vec<(ObjId, KueueIntake)>,
    /// Per piece of work: each of its pod sets as its first pod made and how many pods the
    /// set has (the spec's count, however many fit made), for counting how many of them the
    /// nodes would hold.
    pub pod_sets: Vec<(ObjId, Vec<(ObjId, u64)>)>,
    /// Quota that Workloads of the cluster's own copy of the work held, which `fit` set
    /// aside: (ClusterQueue, flavor, resource, amount). A ClusterQueue's reported usage still
    /// counts it.
    pub set_aside_usage: Vec<(String, String, String, f64)>,
    /// What the set-aside copy's running pods requested: (namespace, resource, amount). A
    /// ResourceQuota's `used` still counts it.
    pub set_aside_requests: Vec<(String, String, f64)>,
}

impl Hypothesis {
    pub fn is_not_submitted(&self, id: ObjId) -> bool {
        self.not_submitted.binary_search(&id).is_ok()
    }

    pub fn kueue_for(&self, work: ObjId) -> Option<&KueueIntake> {
        self.kueue.iter().find(|(w, _)| *w == work).map(|(_, k)| k)
    }

    /// The pod sets of a piece of work the manifest submits ([`Hypothesis::pod_sets`]).
    pub fn pod_sets_of(&self, work: ObjId) -> Option<&[(ObjId, u64)]> {
        self.pod_sets
            .iter()
            .find(|(w, _)| *w == work)
            .map(|(_, p)| p.as_slice())
    }
}

impl Index {
    /// What `fit` assumed of this index; None for a bundle read as it is.
    pub fn hypothesis(&self) -> Option<&Hypothesis> {
        self.hypothesis.as_ref()
    }

    /// The object is part of a `fit` submission: not in the cluster yet.
    pub fn not_submitted(&self, id: ObjId) -> bool {
        self.hypothesis
            .as_ref()
            .is_some_and(|h| h.is_not_submitted(id))
    }

    /// Record what `fit` assumed (its ids sorted here).
    pub(crate) fn set_hypothesis(&mut self, mut h: Hypothesis) {
        h.not_submitted.sort_unstable();
        h.not_submitted.dedup();
        self.hypothesis = Some(h);
    }

    /// The bundle back, for a caller that adds to it and indexes again.
    pub fn into_bundle(self) -> Bundle {
        self.bundle
    }
}
