//! Whether any scheduler has spoken about the view's pod, at `$.facts.placement.silence`.

use super::{Ctx, arr};
use crate::index::ObjId;
use crate::json::At as _;
use crate::json::str_at as s;
use serde::Serialize;
use serde_json::Value;

/// A pending pod no scheduler has answered: it may name a scheduler that does not run.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Silence {
    /// The pod's `spec.schedulerName` (`default-scheduler` when unset).
    pub scheduler: String,
    /// The pod is Pending with no node, no scheduling gates, no PodScheduled condition, no
    /// Scheduled/FailedScheduling/Unschedulable/BindingError/NotReady event (on the pod or in
    /// the view's events), no condition on its PodGroup, no DRA claim still to be created
    /// from a template, and no native gang (`scheduling.k8s.io`) that holds it before the
    /// queue; never for a pod `fit` made.
    pub silent: bool,
    /// Silent, naming `kai-scheduler`, and without a (non-empty) `pod-group-name`
    /// annotation.
    pub kai_ungrouped: bool,
}

/// Whether the pod waits on a scheduler that has said nothing.
pub(super) fn silence(ctx: &Ctx, pod: ObjId, pv: &Value) -> Silence {
    let scheduler = s(pv, "/spec/schedulerName").unwrap_or("default-scheduler");
    let pending = s(pv, "/status/phase") == Some("Pending");
    let bound = s(pv, "/spec/nodeName").is_some();
    let gated = crate::gates::on_pod(pv).next().is_some();
    let has_cond = arr(pv, "/status/conditions").any(|c| c["type"] == "PodScheduled");
    // Any word from a scheduler about the pod or its PodGroup (the view's events cover both).
    let answered = |r: &str| {
        matches!(
            r,
            "Scheduled" | "FailedScheduling" | "Unschedulable" | "BindingError" | "NotReady"
        )
    };
    let has_event = ctx
        .events_about(pod)
        .iter()
        .any(|(_, e)| answered(&e.reason))
        || ctx
            .subjects
            .get("events")
            .and_then(Value::as_array)
            .is_some_and(|es| {
                es.iter()
                    .any(|e| e["reason"].as_str().is_some_and(answered))
            });
    let group_spoke = ctx.subjects.get("podGroup").is_some_and(|g| {
        arr(g, "/status/conditions").next().is_some()
            || arr(g, "/status/schedulingConditions").next().is_some()
    });
    // DRA's PreEnqueue holds a pod whose claim from a template does not exist yet, without an
    // event (the device layer explains that): not a silent scheduler.
    let claim_pending = arr(pv, "/spec/resourceClaims").any(|rc| {
        crate::json::claim_template(rc).is_some()
            && !arr(pv, "/status/resourceClaimStatuses").any(|s| s["name"] == rc["name"])
    });
    // Kubernetes' own gang scheduling holds the pod at the same door while its gang's object is
    // missing or fewer of its pods exist than the gang's minimum (the grouping layer explains
    // that): not a silent scheduler either.
    let gang_held = super::super::group::gang(ctx)
        .is_some_and(|g| g.api_group == "scheduling.k8s.io" && (!g.found || g.short));
    // A pod `fit` made as if submitted has met no scheduler yet: its silence proves nothing.
    let made_by_fit = ctx.ix.not_submitted(pod);
    let silent = pending
        && !made_by_fit
        && !bound
        && !gated
        && !has_cond
        && !has_event
        && !group_spoke
        && !claim_pending
        && !gang_held;
    let ungrouped = silent
        && scheduler == "kai-scheduler"
        && pv
            .at("/metadata/annotations/pod-group-name")
            .and_then(Value::as_str)
            .is_none_or(str::is_empty);
    Silence {
        scheduler: scheduler.to_string(),
        silent,
        kai_ungrouped: ungrouped,
    }
}
