//! The Karpenter NodeClaims the pod's events name (`Pod should schedule on: nodeclaim/<name>`,
//! `would schedule against uninitialized nodeclaim/<name>`), at
//! `$.facts.placement.nodeClaims`: whether each is initialized, and Karpenter's own reason when
//! it is not. The pod waits on that node; the claim says what the node still lacks.

use super::Ctx;
use crate::json::At as _;
use serde::Serialize;
use serde_json::Value;

/// A NodeClaim the pod's events name, as the bundle holds it.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct NodeClaim {
    /// Its name.
    pub name: String,
    /// Whether the bundle holds it (`karpenter.sh` NodeClaim).
    pub found: bool,
    /// Its node, `status.nodeName`; null before it registered.
    pub node: Option<String>,
    /// Its `Initialized` condition's status: true, false, or null when it has none (or is not in
    /// the bundle).
    pub initialized: Option<bool>,
    /// That condition's reason and message when it is not true (`ResourceNotRegistered`,
    /// `Resource "nvidia.com/gpu" was requested but not registered`).
    pub reason: Option<String>,
    pub message: Option<String>,
}

/// The marker before a NodeClaim's name in Karpenter's and the scheduler's event messages.
const MARKER: &str = "nodeclaim/";

/// The NodeClaims the view's events name, in name order.
pub(super) fn node_claims(ctx: &Ctx) -> Vec<NodeClaim> {
    let mut names: Vec<&str> = ctx
        .event_messages()
        .flat_map(|m| {
            m.match_indices(MARKER)
                .map(move |(i, _)| &m[i + MARKER.len()..])
        })
        .filter_map(|rest| rest.split([',', ' ', ';', ')', '"']).next())
        .filter(|n| !n.is_empty())
        .collect();
    names.sort_unstable();
    names.dedup();
    names.into_iter().map(|n| claim(ctx, n)).collect()
}

fn claim(ctx: &Ctx, name: &str) -> NodeClaim {
    let v = ctx
        .ix
        .get("karpenter.sh", "NodeClaim", None, name)
        .map(|id| ctx.value(id));
    let cond = v.as_deref().and_then(|v| {
        v.at("/status/conditions")
            .and_then(Value::as_array)?
            .iter()
            .find(|c| c["type"] == "Initialized")
            .cloned()
    });
    let text = |k: &str| {
        cond.as_ref()
            .and_then(|c| c[k].as_str())
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    let initialized = cond
        .as_ref()
        .and_then(|c| c["status"].as_str())
        .map(|s| s == "True");
    let not_ready = initialized == Some(false);
    NodeClaim {
        name: name.to_string(),
        found: v.is_some(),
        node: v
            .as_deref()
            .and_then(|v| v.at("/status/nodeName"))
            .and_then(Value::as_str)
            .map(str::to_string),
        initialized,
        reason: text("reason").filter(|_| not_ready),
        message: text("message").filter(|_| not_ready),
    }
}
