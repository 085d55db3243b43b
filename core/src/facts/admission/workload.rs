//! What the view's Kueue Workload says of itself: eviction, preemption, requeueing,
//! deactivation and admission checks, for the matching fields of `$.facts.admission`.

use super::{cond_true, display};
use crate::index::Index;
use crate::json::At as _;
use crate::json::str_at as s;
use crate::pattern::Pattern;
use serde::Serialize;
use serde_json::Value;
use std::sync::LazyLock;

static PREEMPTOR: LazyLock<Pattern> =
    LazyLock::new(|| Pattern::new(r"\(UID: ([0-9a-f-]+)").expect("static pattern"));

/// A condition's reason and message, as the Workload gives them.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ReasonMessage {
    /// The condition's `reason`.
    pub reason: Value,
    /// The condition's `message`.
    pub message: Value,
}

/// When Kueue puts an evicted Workload back in its queue (`status.requeueState`).
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Requeue {
    /// How many times it was requeued (`requeueState.count`, as given).
    pub count: Option<Value>,
    /// `requeueState.requeueAt`.
    pub at: Option<String>,
    /// Seconds from "now" to `requeueAt` (negative once passed); null without either.
    pub in_seconds: Option<i64>,
    /// The same as a human duration (`3m12s`; `0s` once passed).
    #[serde(rename = "in")]
    pub in_human: Option<String>,
    /// `requeueAt` has passed.
    pub due: Option<bool>,
}

/// One admission check of the Workload (`status.admissionChecks[]`), its fields as given.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct AdmissionCheck {
    /// The AdmissionCheck's name.
    pub name: Value,
    /// `Pending`, `Ready`, `Retry` or `Rejected`.
    pub state: Value,
    /// Why the check is in that state.
    pub message: Value,
}

/// The reason and message of a condition, when there is one.
pub(super) fn reason_message(c: Option<&Value>) -> Option<ReasonMessage> {
    c.map(|c| ReasonMessage {
        reason: c["reason"].clone(),
        message: c["message"].clone(),
    })
}

/// The Workload has no conditions at all: Kueue has not attempted it yet.
pub(super) fn no_conditions(w: &Value) -> bool {
    w.at("/status/conditions")
        .and_then(Value::as_array)
        .is_none_or(Vec::is_empty)
}

/// The preemptor, by the Workload UID Kueue writes into the message, as `Kind namespace/name`
/// when the bundle holds it.
pub(super) fn preempted_by(ix: &Index, w: &Value) -> Option<String> {
    cond_true(w, "Preempted")
        .or_else(|| cond_true(w, "Evicted").filter(|c| c["reason"] == "Preempted"))
        .and_then(|c| c["message"].as_str())
        .and_then(|m| PREEMPTOR.captures(m))
        .and_then(|c| ix.by_uid(c.get(1)?))
        .map(|id| display(&ix.value(id)))
}

/// The Workload's requeue state against "now".
pub(super) fn requeue(w: &Value, now: Option<i64>) -> Option<Requeue> {
    let rs = w.at("/status/requeueState")?;
    let at = s(rs, "/requeueAt");
    let in_secs = at
        .and_then(crate::time::parse_rfc3339)
        .and_then(|t| Some(t - now?));
    Some(Requeue {
        count: rs.get("count").cloned(),
        at: at.map(str::to_string),
        in_seconds: in_secs,
        in_human: in_secs.map(crate::time::format_age),
        due: in_secs.map(|x| x <= 0),
    })
}

/// Why the Workload is deactivated (`spec.active: false`): the `DeactivationTarget` condition,
/// else `Evicted`, else a reason of our own.
pub(super) fn deactivated(w: &Value) -> Option<ReasonMessage> {
    if w.at("/spec/active") != Some(&Value::Bool(false)) {
        return None;
    }
    let c = cond_true(w, "DeactivationTarget").or_else(|| cond_true(w, "Evicted"));
    Some(reason_message(c).unwrap_or_else(|| ReasonMessage {
        reason: Value::from("Deactivated"),
        message: Value::from("spec.active is false"),
    }))
}

/// The Workload's admission checks.
pub(super) fn checks(w: &Value) -> Vec<AdmissionCheck> {
    w.at("/status/admissionChecks")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|c| AdmissionCheck {
            name: c["name"].clone(),
            state: c["state"].clone(),
            message: c["message"].clone(),
        })
        .collect()
}
