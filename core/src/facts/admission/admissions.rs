//! When each ClusterQueue admitted its Workloads, as the bundle proves it: the times a wait
//! outlook counts ([`crate::standing::outlook`]). Built once per index.

use super::order::Lite;
use crate::index::Index;
use std::collections::HashMap;

/// The time a Workload's quota reservation began: its `QuotaReserved=True` transition, else
/// (Kueue may release a finished Workload's reservation) its `Admitted=True` one.
fn admitted_at(w: &Lite) -> Option<i64> {
    let since = |ty: &str| {
        w.status
            .conditions
            .iter()
            .find(|c| c.ty == ty && c.status == "True")
            .and_then(|c| c.last_transition_time.as_deref())
            .and_then(crate::time::parse_rfc3339)
    };
    since("QuotaReserved").or_else(|| since("Admitted"))
}

/// Each ClusterQueue's admission times, epoch seconds, in index order (the outlook counts
/// them, so their order does not matter).
pub(super) fn by_cluster_queue(ix: &Index) -> std::sync::Arc<HashMap<String, Vec<i64>>> {
    ix.once("admission.admissionTimes", || {
        let mut out: HashMap<String, Vec<i64>> = HashMap::new();
        for &id in ix.of_kind("Workload") {
            if ix.object(id).group() != "kueue.x-k8s.io" {
                continue;
            }
            let Some(w) = ix.typed::<Lite>(id) else {
                continue;
            };
            let cq = w
                .status
                .admission
                .as_ref()
                .and_then(|a| a.cluster_queue.clone());
            if let (Some(cq), Some(t)) = (cq, admitted_at(&w)) {
                out.entry(cq).or_default().push(t);
            }
        }
        out
    })
}
