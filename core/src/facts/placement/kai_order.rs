//! KAI Scheduler's order of the PodGroups waiting in each Queue, as its session orders jobs
//! (KAI-Scheduler `pkg/scheduler/framework/session_plugins.go` `JobOrderFn`, with the default
//! plugins `priority` then `elastic`): higher priority first (the value of the PodGroup's
//! `priorityClassName`, else the global default PriorityClass, else KAI's 50), then the elastic
//! plugin's below-`minMember` first (every waiting PodGroup is), then creation, then UID. Queues
//! themselves take turns by fair share, which this order does not model: the position counts
//! within the Queue.
//!
//! A PodGroup waits while fewer than `minMember` (1 when unset) of its pods are bound to a
//! node. Its admission time, for the outlook, is the latest `PodScheduled=True` of its pods
//! once enough are bound. Built once per index.

use crate::index::{Index, ObjId};
use crate::standing::QueueStanding;
use std::cmp::Reverse;
use std::collections::HashMap;

const KAI: &str = "scheduling.run.ai";

/// KAI's priority when no PriorityClass names one (`constants.DefaultPodGroupPriority`).
const DEFAULT_PRIORITY: i64 = 50;

/// The PodGroup fields the order reads.
#[derive(serde::Deserialize, Default)]
#[serde(default)]
struct Lite {
    metadata: crate::facts::MetaLite,
    spec: LiteSpec,
}

#[derive(serde::Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct LiteSpec {
    queue: Option<String>,
    priority_class_name: Option<String>,
    min_member: Option<u64>,
}

/// A PriorityClass's value and whether it is the global default.
#[derive(serde::Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct PriorityClass {
    value: Option<i64>,
    global_default: bool,
}

/// One waiting PodGroup's place, 0-based, with its priority and whether that priority was
/// read from a PriorityClass of the bundle.
#[derive(Clone)]
struct Place {
    at: u32,
    higher_ahead: u32,
    priority: i64,
    class_found: bool,
}

#[derive(Default)]
struct Orders {
    at: HashMap<ObjId, Place>,
    len: HashMap<String, u32>,
    admitted: HashMap<String, Vec<i64>>,
}

/// The priority of a PodGroup naming `class`: its PriorityClass's value, else the global
/// default's, else KAI's default; and whether the named class was in the bundle.
fn priority(ix: &Index, class: Option<&str>) -> (i64, bool) {
    let named = class
        .and_then(|c| ix.get("scheduling.k8s.io", "PriorityClass", None, c))
        .and_then(|id| ix.typed::<PriorityClass>(id))
        .and_then(|pc| pc.value);
    if let Some(v) = named {
        return (v, true);
    }
    let default = ix
        .of_kind("PriorityClass")
        .iter()
        .filter_map(|&id| ix.typed::<PriorityClass>(id))
        .find(|pc| pc.global_default)
        .and_then(|pc| pc.value);
    (default.unwrap_or(DEFAULT_PRIORITY), class.is_none())
}

/// The latest `PodScheduled=True` of the bound pods, when at least `min` are bound.
fn admitted_at(ix: &Index, pods: &[ObjId], min: u64) -> Option<i64> {
    let bound: Vec<ObjId> = pods
        .iter()
        .copied()
        .filter(|&p| ix.pod(p).is_some_and(|i| i.node.is_some() && !i.terminal()))
        .collect();
    if (bound.len() as u64) < min {
        return None;
    }
    bound
        .iter()
        .filter_map(|&p| {
            let v = ix.value(p);
            v.pointer("/status/conditions")?
                .as_array()?
                .iter()
                .find(|c| c["type"] == "PodScheduled" && c["status"] == "True")?
                .get("lastTransitionTime")?
                .as_str()
                .and_then(crate::time::parse_rfc3339)
        })
        .max()
}

fn orders(ix: &Index) -> std::sync::Arc<Orders> {
    ix.once("placement.kaiOrder", || {
        let mut o = Orders::default();
        let mut waiting = Vec::new();
        for &id in ix.of_kind("PodGroup") {
            let obj = ix.object(id);
            if obj.group() != KAI {
                continue;
            }
            let Some(pg) = ix.typed::<Lite>(id) else {
                continue;
            };
            let Some(queue) = pg.spec.queue.clone() else {
                continue;
            };
            let pods = ix.pods_in_group(obj.namespace().unwrap_or(""), &obj.name);
            match admitted_at(ix, pods, pg.spec.min_member.unwrap_or(1).max(1)) {
                Some(t) => o.admitted.entry(queue).or_default().push(t),
                None => {
                    let (p, found) = priority(ix, pg.spec.priority_class_name.as_deref());
                    let created = pg
                        .metadata
                        .creation_timestamp
                        .as_deref()
                        .and_then(crate::time::parse_rfc3339)
                        .unwrap_or(i64::MAX);
                    let key = (Reverse(p), created, pg.metadata.uid.unwrap_or_default());
                    waiting.push((queue, key, id, found));
                }
            }
        }
        waiting.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
        let mut same: HashMap<(String, i64), u32> = HashMap::new();
        for (queue, key, id, found) in waiting {
            let at = *o
                .len
                .entry(queue.clone())
                .and_modify(|n| *n += 1)
                .or_insert(1)
                - 1;
            let same_before = same.entry((queue, key.0.0)).or_insert(0);
            let place = Place {
                at,
                higher_ahead: at - *same_before,
                priority: key.0.0,
                class_found: found,
            };
            *same_before += 1;
            o.at.insert(id, place);
        }
        o
    })
}

/// The standing of KAI PodGroup `id` in its Queue; None when it does not wait.
pub(super) fn standing(ix: &Index, id: ObjId, now: Option<i64>) -> Option<QueueStanding> {
    let o = orders(ix);
    let place = o.at.get(&id)?.clone();
    let pg: Lite = ix.typed(id).unwrap_or_default();
    let queue = pg.spec.queue?;
    let position = u64::from(place.at) + 1;
    let mut partial = vec!["queuesByFairShare".to_string()];
    if !place.class_found {
        partial.push("priorityClassMissing".to_string());
    }
    let admitted = o.admitted.get(&queue).map_or(&[][..], Vec::as_slice);
    Some(QueueStanding {
        by: "kai-scheduler".into(),
        cluster_queue: None,
        local_queue: None,
        queue: Some(queue.clone()),
        position: Some(position),
        of: o.len.get(&queue).map(|&n| u64::from(n)),
        position_in_local_queue: None,
        of_local_queue: None,
        source: "bundle".into(),
        strategy: None,
        priority: Some(place.priority),
        priority_class: pg.spec.priority_class_name,
        ordered_by: pg
            .metadata
            .creation_timestamp
            .as_ref()
            .map(|_| "creation".into()),
        ordered_at: pg.metadata.creation_timestamp,
        ahead_by_priority: Some(u64::from(place.higher_ahead)),
        reported_pending: None,
        partial,
        wait: Some(crate::standing::outlook(admitted, now, position)),
        // KAI has no visibility API: its place is always the bundle's order.
        visibility: None,
        visibility_why: None,
    })
}
