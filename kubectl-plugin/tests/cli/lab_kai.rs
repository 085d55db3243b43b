//! The course's KAI incident, made by the real KAI-Scheduler of the full lab (issue 39,
//! point 4): "KAI's queue with an empty limit". A leaf Queue under a
//! parent (KAI schedules nothing in a queue without one) gives GPU quota but sets no GPU limit,
//! which KAI reads as a limit of 0; a pod for KAI's scheduler in that queue stays Pending. The
//! test waits for what the real podgrouper and scheduler write (the PodGroup and its scheduling
//! condition, the pod's condition and events), prints it, checks `why` live as the reader
//! against `why -f` on the same objects, and records the incident under `tests/lab/` through
//! [`course_incident`].

use super::TempDir;
use super::lab::{ClusterScoped, Lab, lab_of, same_live_and_offline};
use super::lab_course::{Course, apply, course_incident, namespace};
use serde_json::{Value, json};

/// The kinds the live and offline reads are compared through: what KAI's rules read.
const KINDS: &str = "pods,nodes,events,podgroups.scheduling.run.ai,queues.scheduling.run.ai";

/// A full lab that runs KAI, or None (saying why) for any other.
fn kai_lab() -> Option<Lab> {
    let lab = lab_of(&["full"])?;
    if !lab.runs_kai() {
        eprintln!("skipped: KAI-Scheduler does not run in this lab (started with --no-kai)");
        return None;
    }
    Some(lab)
}

/// The course: a KAI Queue with GPU quota and no GPU limit gives its workloads no GPU at all
/// (KAI reads the empty limit as 0; only -1 is unlimited): placement, and waiting will not help.
#[test]
fn a_kai_queue_with_an_empty_gpu_limit_keeps_its_pod_pending() {
    let Some(lab) = kai_lab() else { return };
    let ns = namespace(&lab, "kai-limit");
    let tag = format!("lab-kai-{}", std::process::id());
    let (parent, leaf) = (format!("{tag}-parent"), format!("{tag}-team"));
    // The leaf first: deleted before its parent.
    let _queues = ClusterScoped(
        &lab,
        vec![
            format!("queues.scheduling.run.ai/{leaf}"),
            format!("queues.scheduling.run.ai/{parent}"),
        ],
    );
    let dir = TempDir::new("lab-kai-limit");
    apply(&lab, &dir, ns.name(), &queues(&parent, &leaf));
    apply(&lab, &dir, ns.name(), &pod(&leaf));
    let written = wait_for_kai(&lab, ns.name());
    eprintln!(
        "lab kai: what KAI wrote:\n{}",
        serde_json::to_string_pretty(&written).unwrap()
    );
    same_live_and_offline(&lab, &dir, ns.name(), "pod/train", KINDS);
    let live = course_incident(
        &lab,
        ns.name(),
        "pod/train",
        &Course {
            name: "kai-queue-empty-limit",
            story: "The course: KAI's queue with an empty limit. A leaf Queue (under a parent \
                whose limits are -1) gives 4 GPUs of quota and sets no GPU limit; a pod for \
                KAI's scheduler asks 2 GPUs in it. KAI reads the empty limit as 0, so the real \
                KAI-Scheduler never places the pod, though the nodes have room and the quota \
                would cover it.",
            layer: "placement",
        },
    );
    assert_eq!(live["verdict"]["outlook"], "never", "{}", live["verdict"]);
    let rules: Vec<&Value> = live["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|f| &f["rule"])
        .collect();
    assert!(
        rules.contains(&&json!("placement/kai-queue-limit-unset")),
        "{rules:?}"
    );
}

/// A parent Queue without limits (-1) and under it the leaf, whose GPU resource has a quota and
/// no `limit` (CPU and memory unlimited, so only the GPU limit is empty).
fn queues(parent: &str, leaf: &str) -> String {
    let unlimited = "{quota: -1, limit: -1, overQuotaWeight: 1}";
    format!(
        "apiVersion: scheduling.run.ai/v2
kind: Queue
metadata:
  name: {parent}
spec:
  resources:
    cpu: {unlimited}
    memory: {unlimited}
    gpu: {unlimited}
---
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata:
  name: {leaf}
spec:
  parentQueue: {parent}
  resources:
    cpu: {unlimited}
    memory: {unlimited}
    gpu: {{quota: 4, overQuotaWeight: 1}}
"
    )
}

/// A pod for KAI's scheduler in `queue`, asking 2 GPUs (a kwok node has 8).
fn pod(queue: &str) -> String {
    format!(
        "apiVersion: v1
kind: Pod
metadata:
  name: train
  labels:
    kai.scheduler/queue: {queue}
spec:
  schedulerName: kai-scheduler
  containers:
  - name: train
    image: registry.k8s.io/pause:3.10
    resources:
      requests:
        cpu: 1
        memory: 1Gi
      limits:
        nvidia.com/gpu: 2
"
    )
}

/// Wait until KAI has judged the pod: its PodGroup carries a scheduling condition and the pod
/// an event from KAI's scheduler. What it wrote: the PodGroups' spec and status, the pod's
/// conditions, and the namespace's events (reason, source, message).
fn wait_for_kai(lab: &Lab, ns: &str) -> Value {
    let get = [
        "get",
        "podgroups.scheduling.run.ai,pods,events",
        "-n",
        ns,
        "-o",
        "json",
    ];
    lab.wait_for("KAI's scheduling condition and event", &get, 180, |v| {
        let items = v["items"].as_array().cloned().unwrap_or_default();
        let condition = items.iter().any(|o| {
            o["kind"] == "PodGroup"
                && o["status"]["schedulingConditions"]
                    .as_array()
                    .is_some_and(|c| !c.is_empty())
        });
        let event = items.iter().any(|o| {
            o["kind"] == "Event"
                && o["involvedObject"]["name"] == "train"
                && o["source"]["component"] == "kai-scheduler"
        });
        condition && event
    });
    let all: Value = serde_json::from_str(&lab.kubectl_ok(&get)).expect("JSON");
    let items = all["items"].as_array().cloned().unwrap_or_default();
    let of = |kind: &str, pick: &dyn Fn(&Value) -> Value| -> Vec<Value> {
        items
            .iter()
            .filter(|o| o["kind"] == kind)
            .map(pick)
            .collect()
    };
    json!({
        "podGroups": of("PodGroup", &|g| json!({"name": g["metadata"]["name"],
            "spec": g["spec"], "status": g["status"]})),
        "pod": of("Pod", &|p| json!({"phase": p["status"]["phase"],
            "conditions": p["status"]["conditions"]})),
        "events": of("Event", &|e| json!({"object": e["involvedObject"]["kind"], "type": e["type"],
            "reason": e["reason"], "source": e["source"]["component"], "message": e["message"]})),
    })
}
