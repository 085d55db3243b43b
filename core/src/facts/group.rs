//! The pod's group (LWS group, JobSet, gang PodGroup) and its members: `$.facts.group`.

use serde_json::{Value, json};

/// Members of the pod's group: `{kind, name, expected, present, running, ready, pending,
/// members: [{name, status, node}]}`; `expected` is null when nothing states a size.
pub fn group(
    kind: &str,
    name: &str,
    expected: Option<u64>,
    members: &[(String, String, bool, Option<String>)],
) -> Value {
    let running = members
        .iter()
        .filter(|m| m.1 == "Running" || m.1 == "Running (not ready)")
        .count();
    let ready = members.iter().filter(|m| m.2).count();
    let pending = members
        .iter()
        .filter(|m| !m.2 && m.1 != "Running" && m.1 != "Running (not ready)" && m.1 != "Completed")
        .count();
    json!({
        "kind": kind, "name": name, "expected": expected, "present": members.len(),
        "running": running, "ready": ready, "pending": pending,
        "missing": expected.map(|e| e.saturating_sub(members.len() as u64)),
        "members": members.iter().take(64).map(|m| json!({"name": m.0, "status": m.1, "ready": m.2, "node": m.3})).collect::<Vec<_>>(),
    })
}
