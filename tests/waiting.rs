//! How long a pod has waited, where nothing in a pasted bundle says: a pod that no scheduler has
//! answered is named whether its age is known to be long or not shown at all, and not while a
//! known clock says it is young.

use crate::support;
use layer_core::{Bundle, Index, Options, TargetSpec};
use serde_json::json;

/// A Pending pod that names `volcano` and that no scheduler has written anything about.
fn silent_pod() -> Index {
    let pod = json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "p", "namespace": "ml", "uid": "u1",
                     "creationTimestamp": "2026-05-01T10:00:00Z"},
        "spec": {"schedulerName": "volcano", "containers": [{"name": "c", "image": "i"}]},
        "status": {"phase": "Pending"}
    });
    Index::new(Bundle::parse(pod.to_string()).expect("bundle"))
}

/// The rules that fired and the silent scheduler's message, with "now" given or not.
fn diagnose(now: Option<&str>) -> (Vec<String>, Option<String>) {
    let ix = silent_pod();
    let id = layer_core::target::resolve(&ix, &TargetSpec::parse("Pod/ml/p", None)).expect("id");
    let opts = Options {
        now: now.map(str::to_string),
        ..Options::default()
    };
    let (d, rules) = support::engine().evaluate(&ix, id, &opts);
    let message = d
        .findings
        .iter()
        .find(|f| f.rule == "placement/scheduler-silent")
        .map(|f| f.message.clone());
    (rules, message)
}

#[test]
fn a_silent_scheduler_is_named_when_the_bundle_cannot_show_how_long_the_pod_waited() {
    // The pod is the newest moment in the bundle: its age is a lower bound, not proof of youth.
    let (rules, message) = diagnose(None);
    assert!(
        rules.iter().any(|r| r == "placement/scheduler-silent"),
        "{rules:?}"
    );
    let message = message.expect("message");
    assert!(
        message.contains("a time the bundle does not show"),
        "{message}"
    );
}

#[test]
fn a_silent_scheduler_is_named_after_a_minute_by_a_known_clock_and_not_before() {
    let (rules, message) = diagnose(Some("2026-05-01T10:05:00Z"));
    assert!(
        rules.iter().any(|r| r == "placement/scheduler-silent"),
        "{rules:?}"
    );
    assert!(message.expect("message").contains("for 300 s"));
    let (rules, _) = diagnose(Some("2026-05-01T10:00:30Z"));
    assert!(
        !rules.iter().any(|r| r == "placement/scheduler-silent"),
        "{rules:?}"
    );
}
