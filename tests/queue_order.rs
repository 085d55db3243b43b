//! A Kueue-held Workload's place in its queue (issue 40, point 3) and the wait outlook (point
//! 4), on hand-made bundles: Kueue's order (priority, then queue-order time, then UID), several
//! LocalQueues into one ClusterQueue, what a bundle that lacks part of the queue says, and a
//! rate only where the bundle proves admissions.

use crate::support::diagnose;
use layer_core::{Bundle, Index, standing::QueueStanding};
use serde_json::{Value, json};

const T0: &str = "2026-11-02T10:00:00Z";

/// `2026-11-02T10:MM:SSZ` plus `secs`.
fn at(secs: i64) -> String {
    let base = layer_core::time::parse_rfc3339(T0).unwrap();
    layer_core::time::format_rfc3339(base + secs)
}

fn cluster_queue(name: &str, strategy: Option<&str>, reported: Option<u64>) -> Value {
    let mut cq = json!({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue",
        "metadata": {"name": name}, "spec": {"namespaceSelector": {}}});
    if let Some(s) = strategy {
        cq["spec"]["queueingStrategy"] = json!(s);
    }
    if let Some(r) = reported {
        cq["status"] = json!({"pendingWorkloads": r});
    }
    cq
}

fn local_queue(ns: &str, name: &str, cq: &str) -> Value {
    json!({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue",
        "metadata": {"name": name, "namespace": ns}, "spec": {"clusterQueue": cq}})
}

/// A Workload waiting for quota, created `created` seconds after T0.
fn pending(ns: &str, name: &str, queue: &str, priority: Option<i64>, created: i64) -> Value {
    let mut w = json!({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
        "metadata": {"name": name, "namespace": ns, "uid": format!("uid-{name}"),
                     "creationTimestamp": at(created)},
        "spec": {"queueName": queue},
        "status": {"conditions": [{"type": "QuotaReserved", "status": "False",
            "reason": "Pending", "lastTransitionTime": at(created),
            "message": "couldn't assign flavors to pod set main: insufficient unused quota for nvidia.com/gpu in flavor h100, 8 more needed"}]}});
    if let Some(p) = priority {
        w["spec"]["priority"] = json!(p);
    }
    w
}

/// A Workload admitted into `cq` `admitted` seconds after T0.
fn admitted(ns: &str, name: &str, queue: &str, cq: &str, admitted: i64) -> Value {
    json!({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
        "metadata": {"name": name, "namespace": ns, "uid": format!("uid-{name}"),
                     "creationTimestamp": at(admitted - 30)},
        "spec": {"queueName": queue},
        "status": {"admission": {"clusterQueue": cq},
            "conditions": [{"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved",
                            "lastTransitionTime": at(admitted)},
                           {"type": "Admitted", "status": "True", "reason": "Admitted",
                            "lastTransitionTime": at(admitted)}]}})
}

fn index(items: Vec<Value>, collected_at: Option<i64>) -> Index {
    let mut list = json!({"apiVersion": "v1", "kind": "List", "items": items});
    if let Some(t) = collected_at {
        list["kubectlLayer"] = json!({"bundleVersion": 1, "collectedAt": at(t)});
    }
    Index::new(Bundle::parse(list.to_string()).expect("the bundle parses"))
}

fn standing(ix: &Index, target: &str) -> Option<QueueStanding> {
    let (d, _) = diagnose(ix, target);
    // The view's fact and the diagnosis's field are the same value.
    let json = serde_json::to_value(&d).unwrap();
    assert_eq!(json.get("queue").is_some(), d.queue.is_some());
    d.queue
}

fn place(q: &QueueStanding) -> (Option<u64>, Option<u64>, Option<u64>, Option<u64>) {
    (
        q.position,
        q.of,
        q.position_in_local_queue,
        q.of_local_queue,
    )
}

/// Two LocalQueues of two namespaces feed one ClusterQueue: the ClusterQueue's order is
/// priority first, then creation time; each LocalQueue's place counts its own Workloads in
/// that order.
#[test]
fn priority_first_then_time_across_local_queues() {
    let ix = index(
        vec![
            cluster_queue("cq", Some("StrictFIFO"), Some(4)),
            local_queue("a", "lq", "cq"),
            local_queue("b", "lq-b", "cq"),
            pending("a", "old-low", "lq", None, 0),
            pending("b", "mid-high", "lq-b", Some(100), 60),
            pending("a", "new-high", "lq", Some(100), 120),
            pending("b", "newest-low", "lq-b", Some(0), 180),
        ],
        None,
    );
    let q = standing(&ix, "Workload/a/old-low").expect("a pending Workload has a place");
    // Behind both priority-100 Workloads although it is the oldest.
    assert_eq!(place(&q), (Some(3), Some(4), Some(2), Some(2)));
    assert_eq!(q.ahead_by_priority, Some(2));
    assert_eq!(q.priority, Some(0));
    assert_eq!(q.strategy.as_deref(), Some("StrictFIFO"));
    assert_eq!(q.ordered_by.as_deref(), Some("creation"));
    assert_eq!(q.source, "bundle");
    assert!(q.partial.is_empty(), "{:?}", q.partial);
    let q = standing(&ix, "Workload/b/mid-high").unwrap();
    assert_eq!(place(&q), (Some(1), Some(4), Some(1), Some(2)));
    assert_eq!(q.ahead_by_priority, Some(0));
    let q = standing(&ix, "Workload/a/new-high").unwrap();
    assert_eq!(place(&q), (Some(2), Some(4), Some(1), Some(2)));
    let q = standing(&ix, "Workload/b/newest-low").unwrap();
    assert_eq!(place(&q), (Some(4), Some(4), Some(2), Some(2)));
    assert_eq!(q.local_queue.as_deref(), Some("b/lq-b"));
}

/// Equal priority and the same creation second: the UID decides, as in Kueue; a Workload
/// evicted by an admission check is ordered by that eviction, not its creation.
#[test]
fn ties_by_uid_and_eviction_requeues_at_the_back() {
    let mut evicted = pending("a", "evicted-early", "lq", None, 0);
    evicted["status"]["conditions"]
        .as_array_mut()
        .unwrap()
        .push(
            json!({"type": "Evicted", "status": "True", "reason": "AdmissionCheck",
                     "lastTransitionTime": at(600)}),
        );
    let ix = index(
        vec![
            cluster_queue("cq", None, None),
            local_queue("a", "lq", "cq"),
            evicted,
            pending("a", "zz", "lq", None, 60),
            pending("a", "aa", "lq", None, 60),
        ],
        None,
    );
    let pos = |n: &str| standing(&ix, &format!("Workload/a/{n}")).unwrap().position;
    assert_eq!(pos("aa"), Some(1));
    assert_eq!(pos("zz"), Some(2));
    let q = standing(&ix, "Workload/a/evicted-early").unwrap();
    assert_eq!(q.position, Some(3));
    assert_eq!(q.ordered_by.as_deref(), Some("eviction"));
    assert_eq!(q.ordered_at.as_deref(), Some(at(600).as_str()));
    // Kueue's default strategy, when the ClusterQueue sets none.
    assert_eq!(q.strategy.as_deref(), Some("BestEffortFIFO"));
}

/// The ClusterQueue reports more pending Workloads than the bundle holds (a read of one
/// namespace): the count says so. Without the ClusterQueue, only the LocalQueue's place is
/// given, and the lack is said.
#[test]
fn a_bundle_that_lacks_part_of_the_queue_says_so() {
    let ix = index(
        vec![
            cluster_queue("cq", Some("BestEffortFIFO"), Some(536)),
            local_queue("a", "lq", "cq"),
            pending("a", "one", "lq", None, 0),
            pending("a", "two", "lq", None, 60),
        ],
        None,
    );
    let q = standing(&ix, "Workload/a/two").unwrap();
    assert_eq!(
        (q.position, q.of, q.reported_pending),
        (Some(2), Some(2), Some(536))
    );
    assert_eq!(q.partial, vec!["fewerThanReported".to_string()]);

    let ix = index(
        vec![
            pending("a", "one", "lq", None, 0),
            pending("a", "two", "lq", None, 60),
        ],
        None,
    );
    let q = standing(&ix, "Workload/a/two").unwrap();
    assert_eq!(place(&q), (None, None, Some(2), Some(2)));
    assert_eq!(q.cluster_queue, None);
    assert_eq!(q.partial, vec!["noClusterQueue".to_string()]);
    assert_eq!(q.wait.unwrap().missing.as_deref(), Some("noClusterQueue"));
}

/// Work Kueue does not hold has no place: an admitted Workload, and a pod no queue names.
#[test]
fn no_place_for_work_kueue_does_not_hold() {
    let ix = index(
        vec![
            cluster_queue("cq", None, None),
            local_queue("a", "lq", "cq"),
            admitted("a", "running", "lq", "cq", 0),
            pending("a", "waiting", "lq", None, 60),
            json!({"apiVersion": "v1", "kind": "Pod",
                   "metadata": {"name": "plain", "namespace": "a", "creationTimestamp": at(0)},
                   "spec": {"containers": [{"name": "c", "image": "i"}]},
                   "status": {"phase": "Pending"}}),
        ],
        None,
    );
    assert_eq!(standing(&ix, "Workload/a/running"), None);
    assert_eq!(standing(&ix, "Pod/a/plain"), None);
    assert_eq!(
        standing(&ix, "Workload/a/waiting").unwrap().position,
        Some(1)
    );
}

/// With admissions in the last hour before "now", a rate and a number of minutes; with too
/// few, no number and the reason, in the JSON and in `why`'s text.
#[test]
fn the_outlook_comes_from_admissions_the_bundle_proves() {
    let mut items = vec![
        cluster_queue("cq", Some("StrictFIFO"), None),
        local_queue("a", "lq", "cq"),
    ];
    // Twelve admissions in the hour before "now" (T0 + 2h), one long before.
    items.extend((0..12).map(|i| admitted("a", &format!("done-{i}"), "lq", "cq", 3_700 + i * 290)));
    items.push(admitted("a", "ancient", "lq", "cq", -50_000));
    items.extend((0..3).map(|i| pending("a", &format!("w-{i}"), "lq", None, 7_000 + i)));
    let ix = index(items.clone(), Some(7_200));
    let q = standing(&ix, "Workload/a/w-2").unwrap();
    let w = q.wait.clone().unwrap();
    assert_eq!(
        (w.admissions, w.per_minute, w.minutes),
        (12, Some(0.2), Some(15))
    );
    let (d, _) = diagnose(&ix, "Workload/a/w-2");
    let text = layer_core::render::text(&d, layer_core::render::Style { color: false });
    assert!(
        text.contains("Queue: position 3 of 3 in ClusterQueue cq (3 of 3 in LocalQueue a/lq)"),
        "{text}"
    );
    assert!(
        text.contains("about 0.2 admissions a minute) roughly 15 minutes"),
        "{text}"
    );
    let md = layer_core::render::markdown(&d);
    assert!(md.contains("**Queue:** position 3 of 3"), "{md}");

    // "Now" two hours later: nothing in the last hour, so no rate.
    let ix = index(items, Some(14_400));
    let w = standing(&ix, "Workload/a/w-2").unwrap().wait.unwrap();
    assert_eq!((w.admissions, w.per_minute, w.minutes), (0, None, None));
    assert_eq!(w.missing.as_deref(), Some("fewAdmissions"));
    let (d, _) = diagnose(&ix, "Workload/a/w-2");
    let text = layer_core::render::text(&d, layer_core::render::Style { color: false });
    assert!(text.contains("no wait estimate"), "{text}");
    assert!(!text.contains("roughly"), "{text}");
}

fn kai_pod_group(name: &str, class: &str, created: i64) -> Value {
    json!({"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup",
        "metadata": {"name": name, "namespace": "t", "uid": format!("uid-{name}"),
                     "creationTimestamp": at(created)},
        "spec": {"queue": "team", "priorityClassName": class, "minMember": 1}})
}

/// A pod of a KAI PodGroup; bound to `node` (scheduled at `scheduled`) or pending.
fn kai_pod(group: &str, bound: Option<(&str, i64)>) -> Value {
    let mut p = json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": format!("{group}-0"), "namespace": "t",
                     "annotations": {"pod-group-name": group}, "creationTimestamp": at(0)},
        "spec": {"schedulerName": "kai-scheduler",
                 "containers": [{"name": "c", "image": "i",
                                 "resources": {"limits": {"nvidia.com/gpu": 1}}}]},
        "status": {"phase": "Pending"}});
    if let Some((node, t)) = bound {
        p["spec"]["nodeName"] = json!(node);
        p["status"] = json!({"phase": "Running", "conditions": [
            {"type": "PodScheduled", "status": "True", "lastTransitionTime": at(t)}]});
    }
    p
}

/// KAI orders the PodGroups waiting in a Queue by their PriorityClass's value, then creation;
/// a PodGroup whose pods are bound does not wait, and its binding counts as an admission.
#[test]
fn kai_orders_a_queue_by_priority_then_creation() {
    let class = |name: &str, value: i64| {
        json!({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
               "metadata": {"name": name}, "value": value})
    };
    let ix = index(
        vec![
            class("train", 50),
            class("inference", 125),
            json!({"apiVersion": "scheduling.run.ai/v2", "kind": "Queue",
                   "metadata": {"name": "team"}, "spec": {"resources": {"gpu": {"limit": -1}}}}),
            kai_pod_group("pg-a", "train", 0),
            kai_pod_group("pg-b", "inference", 60),
            kai_pod_group("pg-c", "train", 120),
            kai_pod_group("pg-x", "no-such-class", 180),
            kai_pod_group("pg-done", "train", -600),
            kai_pod("pg-a", None),
            kai_pod("pg-b", None),
            kai_pod("pg-c", None),
            kai_pod("pg-x", None),
            kai_pod("pg-done", Some(("gpu-1", -300))),
        ],
        Some(600),
    );
    let q = standing(&ix, "Pod/t/pg-c-0").expect("a waiting KAI pod has a place");
    assert_eq!(q.by, "kai-scheduler");
    assert_eq!(q.queue.as_deref(), Some("team"));
    // pg-b (inference) first, then pg-a, pg-c and pg-x (train, and KAI's default 50) by age.
    assert_eq!(
        (q.position, q.of, q.ahead_by_priority),
        (Some(3), Some(4), Some(1))
    );
    assert_eq!(q.priority, Some(50));
    assert_eq!(q.partial, vec!["queuesByFairShare".to_string()]);
    // One binding in the hour: too few for a rate.
    let w = q.wait.unwrap();
    assert_eq!((w.admissions, w.minutes), (1, None));
    let x = standing(&ix, "Pod/t/pg-x-0").unwrap();
    assert_eq!(x.position, Some(4));
    assert!(x.partial.contains(&"priorityClassMissing".to_string()));
    assert_eq!(standing(&ix, "Pod/t/pg-done-0"), None);
}

/// A Workload evicted by a PodsReady timeout is requeued at its eviction time (Kueue's default
/// `requeuingStrategy.timestamp: Eviction`), at its creation when Kueue's Configuration in the
/// bundle says `Creation`.
#[test]
fn pods_ready_eviction_orders_as_kueue_is_configured() {
    let mut timed_out = pending("a", "timed-out", "lq", None, 0);
    timed_out["status"]["conditions"]
        .as_array_mut()
        .unwrap()
        .push(
            json!({"type": "Evicted", "status": "True", "reason": "PodsReadyTimeout",
                     "lastTransitionTime": at(600)}),
        );
    let items = vec![
        cluster_queue("cq", None, None),
        local_queue("a", "lq", "cq"),
        timed_out,
        pending("a", "later", "lq", None, 60),
    ];
    let ix = index(items.clone(), None);
    let q = standing(&ix, "Workload/a/timed-out").unwrap();
    assert_eq!(
        (q.position, q.ordered_by.as_deref()),
        (Some(2), Some("eviction"))
    );

    let mut configured = items;
    configured.push(json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "kueue-manager-config", "namespace": "kueue-system"},
        "data": {"controller_manager_config.yaml":
            "waitForPodsReady:\n  enable: true\n  requeuingStrategy:\n    timestamp: Creation\n"}}));
    let ix = index(configured, None);
    let q = standing(&ix, "Workload/a/timed-out").unwrap();
    assert_eq!(
        (q.position, q.ordered_by.as_deref()),
        (Some(1), Some("creation"))
    );
}
