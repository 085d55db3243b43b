//! `$.facts.gangMinimum`: a gang PodGroup's own contract. A PodGroup states how many members
//! must start together (`spec.minMember`) and what they need at once (`spec.minResources`);
//! the scheduler waits until `minResources` is free and reserves it. When `minResources` asks
//! more of a resource than the cheapest `minMember` members need, the gang waits for room it
//! does not need (Volcano fills it from the first `minMember` pods in the order its Job's tasks
//! are written, not from the smallest); when it asks less than the cheapest `minMember`
//! members need, or leaves out a resource they ask for, the gang is let in on a reservation
//! its pods do not fit (an operator that computed it from the wrong template). The members come
//! from the pods of the group the bundle holds, else from the owner's templates: a Volcano
//! Job's `spec.tasks`, a Kubeflow TrainJob's `spec.trainer` (`numNodes` × `resourcesPerNode`).

use super::{Ctx, effective_requests, num, quantity_map, requested};
use crate::index::ObjId;
use crate::json::At as _;
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// One member's requests by resource.
type Requests = BTreeMap<String, f64>;

/// One resource the PodGroup's minimum misstates.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct MinimumGap {
    pub resource: String,
    /// The PodGroup's `spec.minResources` of it (0 when it leaves the resource out).
    pub min_resources: Value,
    /// What the `minMember` members asking least of it need together.
    pub smallest_gang: Value,
}

/// The PodGroup whose minimum asks more than its members need, and by how much.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct GangMinimum {
    /// The PodGroup's name.
    pub pod_group: String,
    /// Its `spec.minMember`.
    pub min_member: u64,
    /// Its `status.phase`; `Pending` when unset.
    pub phase: String,
    /// Where the members' requests were read: `pods`, or the owner's templates: `tasks` (a
    /// Volcano Job) or `trainer` (a Kubeflow TrainJob).
    pub members_from: String,
    /// Resources whose minimum is more than the smallest valid gang needs.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub over: Vec<MinimumGap>,
    /// Resources whose minimum is less than even the smallest valid gang needs (a device
    /// resource the members ask for and the minimum leaves out included).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub under: Vec<MinimumGap>,
}

/// None unless the view's PodGroup states both a minimum and minResources, its members are
/// known, and minResources misstates some resource against its `minMember` members.
pub fn fact(ctx: &Ctx) -> Option<GangMinimum> {
    let pg = pod_group(ctx)?;
    let v = ctx.ix.value(pg);
    let min_member = v.at("/spec/minMember").and_then(Value::as_u64)?;
    let min_resources = quantity_map(v.at("/spec/minResources")?);
    let (members, from) = members(ctx, pg)?;
    let k = usize::try_from(min_member).ok()?;
    if members.len() < k || k == 0 {
        return None;
    }
    let gap = |r: &str| {
        let mut each: Vec<f64> = members
            .iter()
            .map(|m| m.get(r).copied().unwrap_or(0.0))
            .collect();
        each.sort_by(f64::total_cmp);
        let smallest: f64 = each.iter().take(k).sum();
        let asked = min_resources.get(r).copied().unwrap_or(0.0);
        let g = MinimumGap {
            resource: r.to_string(),
            min_resources: num(asked),
            smallest_gang: num(smallest),
        };
        (asked, smallest, g)
    };
    let over: Vec<MinimumGap> = min_resources
        .keys()
        .map(|r| gap(r))
        .filter(|(asked, smallest, _)| asked > smallest)
        .map(|t| t.2)
        .collect();
    // Only a device resource (a domain-qualified name) is judged missing: a minimum that
    // leaves out cpu or memory is common and harmless.
    let mut named: Vec<&String> = members.iter().flat_map(|m| m.keys()).collect();
    named.sort();
    named.dedup();
    let under: Vec<MinimumGap> = named
        .into_iter()
        .filter(|r| min_resources.contains_key(*r) || r.contains('/'))
        .map(|r| gap(r))
        .filter(|(asked, smallest, _)| asked < smallest)
        .map(|t| t.2)
        .collect();
    (!over.is_empty() || !under.is_empty()).then(|| GangMinimum {
        pod_group: ctx.ix.object(pg).name.to_string(),
        min_member,
        phase: v
            .at("/status/phase")
            .and_then(Value::as_str)
            .unwrap_or("Pending")
            .to_string(),
        members_from: from.into(),
        over,
        under,
    })
}

/// The view's PodGroup: the target itself, the pod's, or one the target owns.
fn pod_group(ctx: &Ctx) -> Option<ObjId> {
    let is_pg = |id: ObjId| ctx.ix.object(id).kind() == "PodGroup";
    Some(ctx.target)
        .filter(|&t| is_pg(t))
        .or_else(|| ctx.id("podGroup"))
        .or_else(|| {
            ctx.ix
                .children(ctx.target)
                .iter()
                .copied()
                .find(|&c| is_pg(c))
        })
}

/// Each member's requests: the group's pods in the bundle, else one entry per member the
/// PodGroup's owner declares.
fn members(ctx: &Ctx, pg: ObjId) -> Option<(Vec<Requests>, &'static str)> {
    let ix = ctx.ix;
    let o = ix.object(pg);
    let pods = ix.pods_in_group(o.namespace().unwrap_or(""), &o.name);
    if !pods.is_empty() {
        let each = pods
            .iter()
            .map(|&p| {
                ix.pod(p)
                    .map(|i| i.requests.iter().cloned().collect())
                    .unwrap_or_default()
            })
            .collect();
        return Some((each, "pods"));
    }
    let owner = ix.value(ix.owners(pg).into_iter().next()?);
    // At most this many members are read from templates: a gang's minimum past it is not a
    // gang this check can judge, and a declared count must not cost what it declares.
    const MAX: u64 = 10_000;
    let repeat = |n: u64, req: Requests| (0..n.min(MAX)).map(move |_| req.clone());
    if let Some(tasks) = owner.at("/spec/tasks").and_then(Value::as_array) {
        let each: Vec<Requests> = tasks
            .iter()
            .flat_map(|t| {
                let n = t["replicas"].as_u64().unwrap_or(1);
                repeat(n, effective_requests(&t["template"]["spec"]))
            })
            .take(MAX as usize)
            .collect();
        return (!each.is_empty()).then_some((each, "tasks"));
    }
    let trainer = owner.at("/spec/trainer")?;
    let req = requested(trainer.get("resourcesPerNode")?);
    let nodes = trainer["numNodes"].as_u64().unwrap_or(1);
    Some((repeat(nodes, req).collect(), "trainer"))
}
