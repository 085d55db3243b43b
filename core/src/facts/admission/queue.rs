//! The Workloads queued ahead of the view's pending Workload, at `$.facts.admission.queue`.

use crate::index::{Index, ObjId};
use crate::json::str_at as s;
use crate::standing::QueueStanding;
use serde::Serialize;
use serde_json::Value;

/// Where a Workload without a quota reservation stands in its queue.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct QueuePosition {
    /// The ClusterQueue compared by (admitted into, or named by the LocalQueue); null when the
    /// bundle does not name it, and the Workloads of the same LocalQueue are compared instead.
    pub cluster_queue: Option<String>,
    /// How many Workloads of the same queue in the bundle were created no later than this one
    /// (and not after "now") and still have no quota reservation, are not finished and not
    /// deactivated.
    pub ahead: usize,
    /// The oldest of them as `namespace/name`, oldest first, at most [`AHEAD_NAMES`].
    pub ahead_names: Vec<String>,
    /// Its place in Kueue's own order (priority, queue-order time, UID) in its ClusterQueue
    /// and LocalQueue, and the wait outlook: see [`QueueStanding`]. Null when the Workload is
    /// not in a line (its queue fields do not read).
    pub standing: Option<QueueStanding>,
}

/// The queue standing of a Workload, or None when neither its ClusterQueue nor its LocalQueue is
/// known.
pub(super) fn position(
    ix: &Index,
    queues: &super::QueueNames,
    wl: &Value,
    cq_object: Option<&Value>,
    now: Option<i64>,
) -> Option<QueuePosition> {
    // Compare by ClusterQueue when the bundle names it, else by LocalQueue (same namespace).
    let cq = queues.cluster.clone();
    let my_ns = s(wl, "/metadata/namespace");
    let my_queue = s(wl, "/spec/queueName");
    if cq.is_none() && my_queue.is_none() {
        return None;
    }
    let mine = s(wl, "/metadata/creationTimestamp").and_then(crate::time::parse_rfc3339);
    let my_name = s(wl, "/metadata/name").unwrap_or("");
    let queues = pending_by_queue(ix);
    let line = match &cq {
        Some(cq) => queues.by_cluster_queue.get(cq.as_str()),
        None => queues
            .by_local_queue
            .get(&(my_ns.map(str::to_string), my_queue.map(str::to_string))),
    };
    let mut ahead = 0;
    let mut names = Vec::new();
    // Created no later than this Workload and not after "now"; without a creation time of its
    // own nothing is ahead of it. Counted, not walked: on a backlog every pending Workload is
    // diagnosed, and walking the line ahead of each was quadratic.
    if let (Some(line), Some(mine)) = (line, mine) {
        let limit = mine.min(now.unwrap_or(i64::MAX));
        let upto = line.entries.partition_point(|w| w.created <= limit);
        let itself = |w: &InLine| {
            let o = ix.object(w.id);
            o.name == my_name && o.namespace() == my_ns
        };
        let own = ix.get(KUEUE, "Workload", my_ns, my_name).map_or(0, |id| {
            line.created_of(id).partition_point(|&(_, t)| t <= limit)
        });
        ahead = upto - own;
        names = line.entries[..upto]
            .iter()
            .filter(|w| !itself(w))
            .take(AHEAD_NAMES)
            .map(|w| shown(ix, w.id).collect())
            .collect();
    }
    let standing = ix
        .get(KUEUE, "Workload", my_ns, my_name)
        .and_then(|id| super::order::standing(ix, id, cq.as_deref(), cq_object, now));
    Some(QueuePosition {
        cluster_queue: cq,
        ahead,
        ahead_names: names,
        standing,
    })
}

/// How many names of the Workloads ahead the fact lists: a backlog of thousands is counted,
/// not copied into every view.
pub const AHEAD_NAMES: usize = 16;

/// The API group of the Workloads in a line.
const KUEUE: &str = "kueue.x-k8s.io";

/// One pending Workload in its queue's line. Only its id is kept: a backlog's lines hold
/// every pending Workload twice (by ClusterQueue and by LocalQueue), and the names as strings
/// were most of the memory a scan added to the index.
struct InLine {
    created: i64,
    id: ObjId,
}

/// A Workload as the fact shows it, `namespace/name`: also the order within one creation
/// second.
fn shown(ix: &Index, id: ObjId) -> impl Iterator<Item = char> + '_ {
    let o = ix.object(id);
    o.namespace()
        .unwrap_or("")
        .chars()
        .chain(std::iter::once('/'))
        .chain(o.name.chars())
}

/// The pending Workloads of every queue, oldest first: by ClusterQueue, and by (namespace,
/// LocalQueue) for those whose ClusterQueue is not known. Built once per index, so a view's
/// position is a binary search, not a pass over every Workload of the bundle.
#[derive(Default)]
struct Lines {
    by_cluster_queue: std::collections::HashMap<String, Line>,
    by_local_queue: std::collections::HashMap<(Option<String>, Option<String>), Line>,
}

/// One queue's line, oldest first, and the creation times of each Workload in it (a name may
/// be in a line more than once), so a Workload's own entries ahead of it are counted without a
/// walk. The times are kept under the Workload the index finds by that namespace and name, as
/// (that Workload, time) sorted: a map of lists took 100 bytes a Workload, 3 MB on a backlog.
#[derive(Default)]
struct Line {
    entries: Vec<InLine>,
    created: Vec<(ObjId, i64)>,
}

impl Line {
    /// Oldest first, then each Workload's creation times (ascending).
    fn sort(&mut self, ix: &Index) {
        self.entries.sort_by(|a, b| {
            a.created
                .cmp(&b.created)
                .then_with(|| shown(ix, a.id).cmp(shown(ix, b.id)))
        });
        self.created = self
            .entries
            .iter()
            .map(|w| {
                let o = ix.object(w.id);
                let named = ix
                    .get(KUEUE, "Workload", o.namespace(), &o.name)
                    .unwrap_or(w.id);
                (named, w.created)
            })
            .collect();
        self.created.sort_unstable();
    }

    /// The creation times kept under Workload `id`, ascending.
    fn created_of(&self, id: ObjId) -> &[(ObjId, i64)] {
        &self.created[crate::index::run_of(&self.created, &id, |e| &e.0)]
    }
}

fn pending_by_queue(ix: &Index) -> std::sync::Arc<Lines> {
    ix.once("admission.pendingByQueue", || {
        let mut lines = Lines::default();
        for w in pending_workloads(ix) {
            let Some(created) = w.created else { continue };
            let entry = || InLine { created, id: w.id };
            if let Some(cq) = &w.cluster_queue {
                lines
                    .by_cluster_queue
                    .entry(cq.clone())
                    .or_default()
                    .entries
                    .push(entry());
            }
            lines
                .by_local_queue
                .entry((w.namespace, w.queue))
                .or_default()
                .entries
                .push(entry());
        }
        for line in lines
            .by_cluster_queue
            .values_mut()
            .chain(lines.by_local_queue.values_mut())
        {
            line.sort(ix);
        }
        lines
    })
}

pub(super) struct PendingWorkload {
    pub(super) id: ObjId,
    pub(super) namespace: Option<String>,
    created: Option<i64>,
    pub(super) queue: Option<String>,
    /// The ClusterQueue its LocalQueue points at.
    pub(super) cluster_queue: Option<String>,
}

/// Every Workload waiting for quota, in id order, with the ClusterQueue its LocalQueue names.
pub(super) fn pending_workloads(ix: &Index) -> Vec<PendingWorkload> {
    let mut lq_cq: std::collections::HashMap<(Option<String>, String), Option<String>> =
        std::collections::HashMap::new();
    let mut out = Vec::new();
    for w in ix.waiting_workloads() {
        let ns = w.namespace.map(str::to_string);
        let queue = w.queue.map(str::to_string);
        let cluster_queue = queue.as_deref().and_then(|q| {
            lq_cq
                .entry((ns.clone(), q.to_string()))
                .or_insert_with(|| {
                    ix.get(KUEUE, "LocalQueue", ns.as_deref(), q)
                        .and_then(|lq| ix.typed::<LocalQueueLite>(lq))
                        .and_then(|lq| lq.spec.cluster_queue)
                })
                .clone()
        });
        out.push(PendingWorkload {
            id: w.id,
            created: w.created,
            namespace: ns,
            queue,
            cluster_queue,
        });
    }
    out
}

#[derive(serde::Deserialize, Default)]
#[serde(default)]
struct LocalQueueLite {
    spec: LocalQueueLiteSpec,
}

#[derive(serde::Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct LocalQueueLiteSpec {
    cluster_queue: Option<String>,
}
