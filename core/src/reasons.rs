//! Event reasons whose meaning more than one part of the core relies on: the facts that read
//! events, and the describe reader that takes a pod's fields back from its events. A leaf
//! module (it imports nothing of the crate), so both may use it.

/// An event in which a scheduler says it cannot place a pod, with the words it also writes to
/// the pod's PodScheduled=False condition: kube-scheduler's `FailedScheduling`, KAI's Warning
/// `Unschedulable`.
pub fn is_scheduler_refusal(reason: &str, type_: &str) -> bool {
    reason == "FailedScheduling" || (reason == "Unschedulable" && type_ == "Warning")
}
