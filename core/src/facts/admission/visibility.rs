//! Kueue's own answer to "where is this Workload in its queue": the visibility API's
//! `clusterqueues/<cq>/pendingworkloads` (group `visibility.kueue.x-k8s.io`, v1beta2 or
//! v1beta1), which a live read asks page by page and keeps in the bundle as one
//! `PendingWorkloadsSummary` per ClusterQueue, named after it.
//!
//! Why: the bundle's own order ([`super::order`]) is Kueue's sort re-done from the Workloads;
//! Kueue's answer is the queue manager's heap itself (fair sharing, requeueing and all). Where
//! the answer is in the bundle it wins; where it is not, the standing says why (the cluster
//! does not serve the API, the read failed, nothing asked for that queue), so a failed read is
//! never taken as an empty queue and the reader always learns which order it got.

use crate::index::Index;
use crate::standing::QueueStanding;
use std::collections::{BTreeMap, HashMap};

/// The API group of Kueue's visibility API.
pub const GROUP: &str = "visibility.kueue.x-k8s.io";
/// Its versions serving `pendingworkloads`, the preferred first.
pub const VERSIONS: &[&str] = &["v1beta2", "v1beta1"];
/// The kind a ClusterQueue's answer is kept as.
pub const KIND: &str = "PendingWorkloadsSummary";

/// One pending Workload as the API lists it, 0-based as it counts.
#[derive(serde::Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct Item {
    metadata: ItemMeta,
    priority: i64,
    local_queue_name: String,
    position_in_cluster_queue: u64,
    position_in_local_queue: u64,
}

#[derive(serde::Deserialize, Default)]
#[serde(default)]
struct ItemMeta {
    name: String,
    namespace: String,
}

#[derive(serde::Deserialize, Default)]
#[serde(default)]
struct Summary {
    items: Vec<Item>,
}

/// One Workload's place, 1-based, as the API gave it.
#[derive(Clone, Copy)]
struct Place {
    in_cq: u64,
    in_lq: u64,
    lq_len: u64,
    higher_ahead: u64,
}

/// One ClusterQueue's answer.
#[derive(Default)]
struct Answer {
    len: u64,
    /// By (namespace, name).
    at: HashMap<(String, String), Place>,
}

/// What the bundle says of the visibility API, read once per index.
#[derive(Default)]
pub(super) struct Answers {
    by_cq: HashMap<String, Answer>,
    /// Whether the live read's discovery found the API; null for a bundle that does not say
    /// (a file made by `kubectl get`).
    served: Option<bool>,
    /// Each ClusterQueue whose read failed, and why.
    failed: HashMap<String, String>,
}

/// The index's visibility answers, built once.
pub(super) fn answers(ix: &Index) -> std::sync::Arc<Answers> {
    ix.once("admission.visibility", || {
        let mut a = Answers::default();
        for &id in ix.of_kind(KIND) {
            let o = ix.object(id);
            if o.group() != GROUP {
                continue;
            }
            let summary: Summary = ix.typed(id).unwrap_or_default();
            a.by_cq.insert(o.name.clone(), answer_of(summary.items));
        }
        if let Some(meta) = ix.bundle().meta() {
            a.served = meta.apis.as_ref().map(|apis| {
                VERSIONS
                    .iter()
                    .any(|v| apis.iter().any(|g| *g == format!("{GROUP}/{v}")))
            });
            for m in &meta.visibility_failed {
                if let Some(cq) = &m.name {
                    a.failed.insert(cq.clone(), m.why.clone());
                }
            }
        }
        a
    })
}

/// A ClusterQueue's answer from its items: each place, the length of each LocalQueue's line,
/// and how many ahead of each have a higher priority (walked in the API's order).
fn answer_of(mut items: Vec<Item>) -> Answer {
    items.sort_by_key(|i| i.position_in_cluster_queue);
    let mut lq_len: HashMap<(String, String), u64> = HashMap::new();
    for i in &items {
        *lq_len
            .entry((i.metadata.namespace.clone(), i.local_queue_name.clone()))
            .or_default() += 1;
    }
    let mut seen: BTreeMap<i64, u64> = BTreeMap::new();
    let mut answer = Answer {
        len: items.len() as u64,
        at: HashMap::with_capacity(items.len()),
    };
    for i in items {
        let higher_ahead = seen.range(i.priority + 1..).map(|(_, n)| n).sum();
        *seen.entry(i.priority).or_default() += 1;
        let lq = (i.metadata.namespace.clone(), i.local_queue_name);
        let place = Place {
            in_cq: i.position_in_cluster_queue + 1,
            in_lq: i.position_in_local_queue + 1,
            lq_len: lq_len.get(&lq).copied().unwrap_or(0),
            higher_ahead,
        };
        answer
            .at
            .insert((i.metadata.namespace, i.metadata.name), place);
    }
    answer
}

/// Put Kueue's own answer into the bundle's standing of Workload `namespace/name`, or say why
/// there is none: `visibility` becomes `used`, `notListed` (the answer does not list it as
/// pending), `failed` (with `visibilityWhy`), `notServed` or `notRead`; it stays null for a
/// bundle that does not say what a live read found. True when the position is Kueue's.
pub(super) fn apply(ix: &Index, s: &mut QueueStanding, namespace: &str, name: &str) -> bool {
    let a = answers(ix);
    let Some(cq) = s.cluster_queue.clone() else {
        return false;
    };
    let code = match (a.by_cq.get(&cq), a.failed.get(&cq), a.served) {
        (Some(answer), _, _) => {
            match answer.at.get(&(namespace.to_string(), name.to_string())) {
                Some(p) => {
                    s.position = Some(p.in_cq);
                    s.of = Some(answer.len);
                    s.position_in_local_queue = Some(p.in_lq);
                    s.of_local_queue = Some(p.lq_len);
                    s.ahead_by_priority = Some(p.higher_ahead);
                    s.source = "visibilityApi".into();
                    // Kueue's own list is the whole queue, whatever the bundle holds.
                    s.partial
                        .retain(|c| c != "fewerThanReported" && c != "noClusterQueue");
                    s.visibility = Some("used".into());
                    return true;
                }
                None => "notListed",
            }
        }
        (None, Some(why), _) => {
            s.visibility_why = Some(why.clone());
            "failed"
        }
        (None, None, Some(false)) => "notServed",
        (None, None, Some(true)) => "notRead",
        (None, None, None) => return false,
    };
    s.visibility = Some(code.into());
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(name: &str, lq: &str, priority: i64, at: u64, in_lq: u64) -> Item {
        Item {
            metadata: ItemMeta {
                name: name.into(),
                namespace: "ml".into(),
            },
            priority,
            local_queue_name: lq.into(),
            position_in_cluster_queue: at,
            position_in_local_queue: in_lq,
        }
    }

    /// Places are the API's, 1-based; a LocalQueue's length counts its items; the work ahead
    /// with a higher priority is counted in the API's order, whatever order the items came in.
    #[test]
    fn an_answer_keeps_kueues_places() {
        let a = answer_of(vec![
            item("c", "a", 0, 2, 1),
            item("a", "a", 10, 0, 0),
            item("b", "b", 5, 1, 0),
            item("d", "b", 5, 3, 1),
        ]);
        assert_eq!(a.len, 4);
        let at = |n: &str| a.at[&("ml".to_string(), n.to_string())];
        assert_eq!((at("a").in_cq, at("a").higher_ahead), (1, 0));
        assert_eq!((at("c").in_cq, at("c").in_lq, at("c").lq_len), (3, 2, 2));
        assert_eq!(at("c").higher_ahead, 2);
        assert_eq!(at("d").higher_ahead, 1);
    }
}
