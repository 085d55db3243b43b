//! `$.facts.queueCapability`: a gang measured against the capability of the queue it is
//! submitted to. Volcano's Queue caps what its work may hold at once (`spec.capability`); a gang
//! whose minimum alone (the PodGroup's `minResources`, else its members' requests) exceeds that
//! cap can never be let in, however long it waits, and nothing is wrong with the nodes.

use super::{Ctx, quantity_map};
use crate::json::At as _;
use serde::Serialize;
use serde_json::Value;

/// One resource of the gang's minimum that its queue's capability is smaller than.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct OverCapability {
    pub resource: String,
    /// What the gang needs at once.
    pub need: Value,
    /// The queue's capability of it.
    pub capability: Value,
}

/// The queue and the resources its capability cannot hold for this gang.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct QueueCapability {
    pub queue: String,
    pub pod_group: String,
    pub over: Vec<OverCapability>,
}

/// None unless the pod's Volcano PodGroup and its Queue are in the bundle and the gang's
/// minimum exceeds the queue's capability in some resource.
pub fn fact(ctx: &Ctx) -> Option<QueueCapability> {
    let ix = ctx.ix;
    let pv = ctx.pod_value()?;
    let (name, api_group) = crate::index::pod_group_of(&pv)?;
    if api_group != "scheduling.volcano.sh" {
        return None;
    }
    let pns = pv.at("/metadata/namespace").and_then(Value::as_str);
    let pg = ix.value(ix.get(api_group, "PodGroup", pns, name)?);
    let queue = pg
        .at("/spec/queue")
        .and_then(Value::as_str)
        .unwrap_or("default");
    let q = ix.value(ix.get(api_group, "Queue", None, queue)?);
    let cap = quantity_map(q.at("/spec/capability")?);
    let need = match pg.at("/spec/minResources") {
        Some(min) => quantity_map(min),
        None => members_requests(ctx, pns.unwrap_or(""), name),
    };
    let over: Vec<OverCapability> = need
        .iter()
        .filter_map(|(r, &n)| {
            let &c = cap.get(r)?;
            (n > c).then(|| OverCapability {
                resource: r.clone(),
                need: super::num(n),
                capability: super::num(c),
            })
        })
        .collect();
    (!over.is_empty()).then(|| QueueCapability {
        queue: queue.to_string(),
        pod_group: name.to_string(),
        over,
    })
}

/// The summed requests of the group's pods the bundle holds.
fn members_requests(
    ctx: &Ctx,
    namespace: &str,
    group: &str,
) -> std::collections::BTreeMap<String, f64> {
    let mut sum = std::collections::BTreeMap::new();
    for &m in ctx.ix.pods_in_group(namespace, group) {
        for (r, q) in ctx
            .ix
            .pod(m)
            .map(|p| p.requests.clone())
            .unwrap_or_default()
        {
            *sum.entry(r).or_insert(0.0) += q;
        }
    }
    sum
}
