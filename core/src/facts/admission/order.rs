//! Kueue's order of the Workloads pending in each ClusterQueue, as its queue manager sorts
//! them for the scheduler and for the visibility API's `pendingworkloads` (Kueue v0.17
//! `pkg/cache/queue/cluster_queue.go`, `baseCompareFunc`): higher priority first, then the
//! earlier queue-order time (creation, or the last eviction by a PodsReady timeout or an
//! admission check), then the UID. Both queueing strategies list the same order; they differ in
//! what it means: under `StrictFIFO` the head blocks the work behind it, under `BestEffortFIFO`
//! work ahead that does not fit is passed over, so the position is an upper bound.
//!
//! Built once per index: on a backlog every pending Workload is diagnosed, and each asks for
//! its place by id.

use super::queue::{PendingWorkload, pending_workloads};
use crate::index::{Index, ObjId};
use crate::standing::QueueStanding;
use std::cmp::Reverse;
use std::collections::HashMap;

/// A pending Workload's places, 0-based, and how many ahead of it have a higher priority.
#[derive(Clone, Copy)]
struct Place {
    in_cq: Option<u32>,
    in_lq: u32,
    higher_ahead: u32,
}

/// Every pending Workload's place, and the length of each line.
#[derive(Default)]
pub(super) struct Orders {
    /// Whether a PodsReady-timeout eviction orders (Kueue's Configuration, read once).
    eviction: bool,
    at: HashMap<ObjId, Place>,
    cq_len: HashMap<String, u32>,
    lq_len: HashMap<(Option<String>, Option<String>), u32>,
}

/// What orders one Workload: its priority (reversed, higher first), its queue-order time and
/// its UID, and which time that is.
struct Key {
    priority: Reverse<i64>,
    at: i64,
    uid: String,
}

impl Key {
    fn cmp(&self, other: &Key) -> std::cmp::Ordering {
        (self.priority, self.at, &self.uid).cmp(&(other.priority, other.at, &other.uid))
    }
}

/// The Workload fields the order and the admission times read.
#[derive(serde::Deserialize, Default)]
#[serde(default)]
pub(super) struct Lite {
    metadata: crate::facts::MetaLite,
    spec: LiteSpec,
    pub(super) status: LiteStatus,
}

#[derive(serde::Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct LiteSpec {
    queue_name: Option<String>,
    priority: Option<i64>,
    priority_class_name: Option<String>,
    priority_class_ref: Option<LiteRef>,
}

#[derive(serde::Deserialize, Default)]
#[serde(default)]
struct LiteRef {
    name: Option<String>,
}

#[derive(serde::Deserialize, Default)]
#[serde(default)]
pub(super) struct LiteStatus {
    pub(super) admission: Option<LiteAdmission>,
    pub(super) conditions: Vec<LiteCondition>,
}

#[derive(serde::Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub(super) struct LiteAdmission {
    pub(super) cluster_queue: Option<String>,
}

#[derive(serde::Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub(super) struct LiteCondition {
    #[serde(rename = "type")]
    pub(super) ty: String,
    pub(super) status: String,
    reason: String,
    pub(super) last_transition_time: Option<String>,
}

/// The time Kueue orders a Workload by (`GetQueueOrderTimestamp`): the `Evicted=True`
/// transition when it was evicted by an admission check, or by a PodsReady timeout unless
/// Kueue's Configuration says `requeuingStrategy.timestamp: Creation` (the default is
/// `Eviction`); else its creation.
fn queue_time(w: &Lite, eviction_orders: bool) -> (Option<i64>, bool) {
    let evicted = w
        .status
        .conditions
        .iter()
        .find(|c| c.ty == "Evicted")
        .filter(|c| c.status == "True")
        .filter(|c| {
            c.reason == "AdmissionCheck" || (eviction_orders && c.reason == "PodsReadyTimeout")
        })
        .and_then(|c| c.last_transition_time.as_deref())
        .and_then(crate::time::parse_rfc3339);
    match evicted {
        Some(t) => (Some(t), true),
        None => (
            w.metadata
                .creation_timestamp
                .as_deref()
                .and_then(crate::time::parse_rfc3339),
            false,
        ),
    }
}

/// Whether Kueue orders Workloads evicted by a PodsReady timeout by that eviction: yes unless
/// its Configuration in the bundle says `Creation`.
fn eviction_orders(ix: &Index) -> bool {
    super::config::in_index(ix)
        .and_then(|c| {
            c.pointer("/waitForPodsReady/requeuingStrategy/timestamp")
                .and_then(|t| t.as_str().map(str::to_string))
        })
        .is_none_or(|t| t != "Creation")
}

fn key(ix: &Index, id: ObjId, eviction: bool) -> Key {
    let w: Lite = ix.typed(id).unwrap_or_default();
    Key {
        priority: Reverse(w.spec.priority.unwrap_or(0)),
        at: queue_time(&w, eviction).0.unwrap_or(i64::MAX),
        uid: w.metadata.uid.unwrap_or_default(),
    }
}

/// The orders of the index's pending Workloads, built once.
pub(super) fn orders(ix: &Index) -> std::sync::Arc<Orders> {
    ix.once("admission.kueueOrder", || {
        let eviction = eviction_orders(ix);
        let pending = pending_workloads(ix);
        let mut keyed: Vec<(Key, &PendingWorkload)> = pending
            .iter()
            .map(|w| (key(ix, w.id, eviction), w))
            .collect();
        keyed.sort_by(|a, b| a.0.cmp(&b.0));
        let mut o = Orders {
            eviction,
            ..Orders::default()
        };
        // One walk in order: each Workload's place is how many of its line came before it.
        // Per line and priority, how many came so far: those ahead with a higher priority are
        // the rest of the line before it (the order puts higher priorities first).
        let mut same_priority: HashMap<(String, i64), u32> = HashMap::new();
        for (k, w) in &keyed {
            let lq = (w.namespace.clone(), w.queue.clone());
            let in_lq = *o.lq_len.entry(lq).and_modify(|n| *n += 1).or_insert(1) - 1;
            let in_cq = w.cluster_queue.as_ref().map(|cq| {
                *o.cq_len
                    .entry(cq.clone())
                    .and_modify(|n| *n += 1)
                    .or_insert(1)
                    - 1
            });
            let line = match &w.cluster_queue {
                Some(cq) => format!("cq {cq}"),
                None => format!("lq {:?} {:?}", w.namespace, w.queue),
            };
            let same = same_priority.entry((line, k.priority.0)).or_insert(0);
            *same += 1;
            let before = in_cq.unwrap_or(in_lq);
            o.at.insert(
                w.id,
                Place {
                    in_cq,
                    in_lq,
                    higher_ahead: before + 1 - *same,
                },
            );
        }
        o
    })
}

/// The standing of a pending Workload `id` in Kueue's order, from the bundle; None when it is
/// not pending (not in any line).
pub(super) fn standing(
    ix: &Index,
    id: ObjId,
    cluster_queue: Option<&str>,
    cq: Option<&serde_json::Value>,
    now: Option<i64>,
) -> Option<QueueStanding> {
    let o = orders(ix);
    let place = *o.at.get(&id)?;
    let w: Lite = ix.typed(id).unwrap_or_default();
    let (at, by_eviction) = queue_time(&w, o.eviction);
    let obj = ix.object(id);
    let queue = w.spec.queue_name.clone();
    let lq_len = o
        .lq_len
        .get(&(obj.namespace().map(str::to_string), queue.clone()))
        .copied();
    let cq_len = cluster_queue.and_then(|c| o.cq_len.get(c)).copied();
    let position = place
        .in_cq
        .filter(|_| cq_len.is_some())
        .map(|p| u64::from(p) + 1);
    let strategy = cq.map(|c| {
        c.pointer("/spec/queueingStrategy")
            .and_then(|s| s.as_str())
            .unwrap_or("BestEffortFIFO")
            .to_string()
    });
    let reported_pending = cq.and_then(|c| c.pointer("/status/pendingWorkloads")?.as_u64());
    let mut partial = Vec::new();
    match (cq, reported_pending) {
        (None, _) => partial.push("noClusterQueue".to_string()),
        (Some(_), Some(r)) if Some(r) > cq_len.map(u64::from) => {
            partial.push("fewerThanReported".to_string())
        }
        _ => {}
    }
    if cq.and_then(|c| c.pointer("/spec/admissionScope/admissionMode"))
        == Some(&serde_json::json!("UsageBasedAdmissionFairSharing"))
    {
        partial.push("fairSharing".to_string());
    }
    let mut s = QueueStanding {
        by: "kueue".into(),
        cluster_queue: cluster_queue.map(str::to_string),
        local_queue: queue.map(|q| format!("{}/{q}", obj.namespace().unwrap_or(""))),
        queue: None,
        position,
        of: cq_len.map(u64::from),
        position_in_local_queue: Some(u64::from(place.in_lq) + 1),
        of_local_queue: lq_len.map(u64::from),
        source: "bundle".into(),
        strategy,
        priority: Some(w.spec.priority.unwrap_or(0)),
        priority_class: w
            .spec
            .priority_class_ref
            .and_then(|r| r.name)
            .or(w.spec.priority_class_name),
        ordered_by: at.map(|_| if by_eviction { "eviction" } else { "creation" }.into()),
        ordered_at: at.map(crate::time::format_rfc3339),
        ahead_by_priority: Some(u64::from(place.higher_ahead)),
        reported_pending,
        partial,
        wait: None,
        visibility: None,
        visibility_why: None,
    };
    // Kueue's own answer, where the bundle holds it, before the outlook counts from the place.
    super::visibility::apply(ix, &mut s, obj.namespace().unwrap_or(""), &obj.name);
    s.wait = Some(match (cluster_queue, s.position) {
        (Some(c), Some(p)) => {
            let times = super::admissions::by_cluster_queue(ix);
            crate::standing::outlook(times.get(c).map_or(&[], Vec::as_slice), now, p)
        }
        _ => crate::standing::WaitOutlook::missing("noClusterQueue"),
    });
    Some(s)
}
