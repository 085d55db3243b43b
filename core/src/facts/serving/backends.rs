//! `$.facts.serving.knativeRoutes`: the target's backend references (an AI gateway backend's
//! `backendRef`, a route's `backendRefs`) that name the Service Knative made as an
//! InferenceService's route in KServe's Serverless mode. That Service is an ExternalName to the
//! ingress gateway, answered by host name, not a Service in front of the model's pods: a gateway
//! that sends requests to it directly reaches no model.

use super::Ctx;
use crate::index::Index;
use crate::json::At as _;
use serde::Serialize;
use serde_json::Value;

/// A backend reference that names a Serverless InferenceService's Knative route.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct KnativeRoute {
    /// The Service the reference names, `namespace/name`.
    pub service: String,
    /// The InferenceService whose route it is.
    pub inference_service: String,
    /// The predictor's ready revision: its pods sit behind `<revision>-private`.
    pub revision: String,
}

/// The target's backend references to Serverless InferenceServices' route Services.
pub(super) fn knative_routes(ctx: &Ctx) -> Vec<KnativeRoute> {
    let v = ctx.value(ctx.target);
    let ns = ctx
        .ix
        .object(ctx.target)
        .namespace()
        .unwrap_or("")
        .to_string();
    let rules = v.at("/spec/rules").and_then(Value::as_array);
    let refs = [v.at("/spec/backendRef")]
        .into_iter()
        .flatten()
        .chain(
            v.at("/spec/backendRefs")
                .and_then(Value::as_array)
                .into_iter()
                .flatten(),
        )
        .chain(
            rules
                .into_iter()
                .flatten()
                .filter_map(|r| r["backendRefs"].as_array())
                .flatten(),
        );
    let mut out: Vec<KnativeRoute> = refs
        .filter(|r| r["kind"].as_str().is_none_or(|k| k == "Service"))
        .filter(|r| r["group"].as_str().is_none_or(str::is_empty))
        .filter_map(|r| {
            let name = r["name"].as_str()?;
            let rns = r["namespace"].as_str().unwrap_or(&ns);
            route_of(ctx.ix, rns, name)
        })
        .collect();
    out.sort_by(|a, b| a.service.cmp(&b.service));
    out.dedup_by(|a, b| a.service == b.service);
    out
}

/// The Serverless InferenceService (a predictor with a ready Knative revision) whose route
/// Service is `ns/name`: `<isvc>` or `<isvc>-predictor` (`-predictor-default` before KServe
/// 0.9).
fn route_of(ix: &Index, ns: &str, name: &str) -> Option<KnativeRoute> {
    ix.of_kind("InferenceService")
        .iter()
        .filter(|&&id| ix.object(id).namespace() == Some(ns))
        .filter(|&&id| ix.object(id).group().starts_with("serving.kserve.io"))
        .find_map(|&id| {
            let isvc = &ix.object(id).name;
            let named = [
                isvc.to_string(),
                format!("{isvc}-predictor"),
                format!("{isvc}-predictor-default"),
            ];
            if !named.iter().any(|n| n == name) {
                return None;
            }
            let revision = ix
                .value(id)
                .at("/status/components/predictor/latestReadyRevision")
                .and_then(Value::as_str)?
                .to_string();
            Some(KnativeRoute {
                service: format!("{ns}/{name}"),
                inference_service: isvc.to_string(),
                revision,
            })
        })
}
