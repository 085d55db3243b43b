//! The cluster's own copy of a piece of work the manifest submits again: `fit` judges the
//! manifest as a new submission, so the copy and everything that belongs to it (its pods,
//! child Jobs and StatefulSets, its Kueue Workload, the events about them) are set aside.
//! What its Workloads held of a ClusterQueue's quota is kept, since the ClusterQueue's own
//! usage figures still count it.

use crate::index::{Index, ObjId};
use crate::json::At as _;
use serde_json::Value;

/// What setting aside takes out of the cluster bundle.
pub(super) struct SetAside {
    /// Bundle positions to leave out, sorted.
    pub positions: Vec<ObjId>,
    /// (ClusterQueue, flavor, resource, amount) that the set-aside Workloads had reserved.
    pub usage: Vec<(String, String, String, f64)>,
    /// (namespace, resource, amount) that the set-aside pods requested while they ran: a
    /// ResourceQuota's `used` still counts it.
    pub pod_requests: Vec<(String, String, f64)>,
}

/// The objects of the work `roots` (the cluster's copies), found through the index.
pub(super) fn set_aside(ix: &Index, roots: &[ObjId]) -> SetAside {
    let mut out: Vec<ObjId> = Vec::new();
    let mut stack: Vec<ObjId> = roots.to_vec();
    while let Some(id) = stack.pop() {
        if out.contains(&id) {
            continue;
        }
        out.push(id);
        stack.extend(ix.children(id).iter().copied());
        // Pods whose ownerReferences were cut, found by the labels their controller writes.
        stack.extend(crate::view::work_pods(ix, id));
        if let Some(uid) = &ix.object(id).uid {
            stack.extend(ix.workloads_of_job(uid).iter().copied());
        }
    }
    let mut usage = Vec::new();
    let mut pod_requests = Vec::new();
    for &id in &out {
        let o = ix.object(id);
        if o.kind() == "Workload" && o.group() == "kueue.x-k8s.io" {
            usage.extend(reserved(&ix.value(id)));
        }
        if let Some(p) = ix.pod(id).filter(|p| !p.terminal()) {
            let ns = o.namespace().unwrap_or_default().to_string();
            pod_requests.extend(p.requests.iter().map(|(r, q)| (ns.clone(), r.clone(), *q)));
        }
    }
    let events: Vec<ObjId> = out.iter().flat_map(|&id| ix.events_for(id)).collect();
    out.extend(events);
    out.sort_unstable();
    out.dedup();
    SetAside {
        positions: out,
        usage,
        pod_requests,
    }
}

/// The quota a Workload holds: per pod set's flavor and resource, while its quota is reserved.
fn reserved(w: &Value) -> Vec<(String, String, String, f64)> {
    let reserved = w
        .at("/status/conditions")
        .and_then(Value::as_array)
        .is_some_and(|cs| {
            cs.iter()
                .any(|c| c["type"] == "QuotaReserved" && c["status"] == "True")
        });
    let Some(cq) = w
        .at("/status/admission/clusterQueue")
        .and_then(Value::as_str)
        .filter(|_| reserved)
    else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for psa in w
        .at("/status/admission/podSetAssignments")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        for (r, q) in psa["resourceUsage"].as_object().into_iter().flatten() {
            let (Some(flavor), Some(q)) = (
                psa["flavors"][r.as_str()].as_str(),
                crate::quantity::from_value(q),
            ) else {
                continue;
            };
            out.push((cq.to_string(), flavor.to_string(), r.clone(), q));
        }
    }
    out
}
