//! `$.facts.serving.routeGaps`: where a Gateway API route on the target's request path leads
//! requests nowhere. The routes are the target itself (an HTTPRoute or GRPCRoute) or those it
//! owns (the route KServe, llm-d or an operator generated for it). Two gaps are read from the
//! route alone, with no clock and no controller's word:
//!
//! - a rule that matches requests but names no backend (and redirects nowhere): the gateway
//!   answers those requests itself, with an error;
//! - a backend reference whose object is not in the bundle while an object of the same kind
//!   and name is, under another API group: the route names the other version's group (the
//!   Inference Extension's `inference.networking.x-k8s.io` pools against the v1
//!   `inference.networking.k8s.io` ones), and no object answers to it.

use super::Ctx;
use crate::index::{Index, ObjId};
use crate::json::At as _;
use serde::Serialize;
use serde_json::Value;

/// Route kinds whose rules send requests to `backendRefs`.
const ROUTE_KINDS: [&str; 2] = ["HTTPRoute", "GRPCRoute"];

/// A gap on the request path: one rule of one route.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct RouteGap {
    /// The route, `Kind namespace/name`.
    pub route: String,
    /// The rule's position in `spec.rules` (from 0).
    pub rule: usize,
    /// `noBackend`: the rule names no backend and redirects nowhere; `otherApiGroup`: its
    /// backend is not in the bundle, but an object of that kind and name is, in another group.
    pub gap: String,
    /// The backend as the route names it, `Kind group/name` (`core` for the core group);
    /// empty for `noBackend`.
    pub backend: String,
    /// For `otherApiGroup`: the API group (and version) of the object the bundle has under
    /// that kind and name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub found: Option<String>,
}

/// The target's routes' gaps, sorted by route and rule.
pub(super) fn route_gaps(ctx: &Ctx) -> Vec<RouteGap> {
    let own = std::iter::once(ctx.target).chain(ctx.ix.children(ctx.target).iter().copied());
    let mut out: Vec<RouteGap> = own
        .filter(|&id| ROUTE_KINDS.iter().any(|k| ctx.ix.object(id).kind() == *k))
        .flat_map(|id| gaps_of(ctx.ix, id))
        .collect();
    out.sort_by(|a, b| (&a.route, a.rule).cmp(&(&b.route, b.rule)));
    out
}

/// One route's gaps.
fn gaps_of(ix: &Index, route: ObjId) -> Vec<RouteGap> {
    let o = ix.object(route);
    let ns = o.namespace().unwrap_or("");
    let name = format!("{} {ns}/{}", o.kind(), o.name);
    let v = ix.value(route);
    let rules = v.at("/spec/rules").and_then(Value::as_array);
    let mut out = Vec::new();
    for (i, rule) in rules.into_iter().flatten().enumerate() {
        let refs = rule["backendRefs"]
            .as_array()
            .map_or(&[][..], Vec::as_slice);
        if refs.is_empty() && !redirects(rule) {
            out.push(RouteGap {
                route: name.clone(),
                rule: i,
                gap: "noBackend".into(),
                backend: String::new(),
                found: None,
            });
        }
        out.extend(refs.iter().filter_map(|r| {
            let (backend, found) = other_group(ix, ns, r)?;
            Some(RouteGap {
                route: name.clone(),
                rule: i,
                gap: "otherApiGroup".into(),
                backend,
                found: Some(found),
            })
        }));
    }
    out
}

/// Whether a rule answers requests itself by a filter (a redirect, a direct response) rather
/// than by a backend: then having none is by design.
fn redirects(rule: &Value) -> bool {
    rule["filters"].as_array().is_some_and(|fs| {
        fs.iter().any(|f| {
            f["type"]
                .as_str()
                .is_some_and(|t| t == "RequestRedirect" || t.contains("DirectResponse"))
                || f.get("requestRedirect").is_some()
        })
    })
}

/// A backend reference the bundle has no object for, while it has that kind and name under
/// another API group: the reference as written, and the group and version found.
fn other_group(ix: &Index, ns: &str, r: &Value) -> Option<(String, String)> {
    let group = r["group"].as_str().unwrap_or("");
    let kind = r["kind"].as_str().unwrap_or("Service");
    let name = r["name"].as_str()?;
    let rns = r["namespace"].as_str().unwrap_or(ns);
    if ix.get(group, kind, Some(rns), name).is_some() {
        return None;
    }
    let other = ix.find(kind, Some(rns), name)?;
    let found = ix.object(other);
    if found.group() == group {
        return None;
    }
    let shown = if group.is_empty() { "core" } else { group };
    let version = ix
        .value(other)
        .get("apiVersion")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    Some((format!("{kind} {shown}/{name}"), version))
}
