//! Whether the whole group could ever fit, at `$.facts.grouping.fit`: per device resource the
//! view's pod asks for, the group's size times the pod's request against what the nodes the pod
//! may use advertise.

use super::Ctx;
use crate::facts::Num;
use serde::Serialize;
use std::collections::BTreeMap;

/// One device resource of the group. Assumes every member asks what the view's pod asks.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct GroupFit {
    /// The resource name, e.g. `nvidia.com/gpu`.
    pub resource: String,
    /// The view's pod's request (`$.facts.resources[].request`).
    pub per_pod: Num,
    /// The group's size (`$.facts.group.expected`).
    pub pods: u64,
    /// `perPod` times `pods`.
    pub needed: Num,
    /// The resource's allocatable summed over the nodes the pod may use (nodeSelector and
    /// taints, as `eligible*` in `$.facts.resources`).
    pub eligible_allocatable: Num,
    /// With an LWS exclusive topology, the most that one domain (one value of the topology
    /// label, over those nodes) holds; null without one.
    pub max_domain_allocatable: Option<Num>,
    /// Whether `needed` fits in `maxDomainAllocatable` (with an exclusive topology) or else in
    /// `eligibleAllocatable`.
    pub fits: bool,
}

/// The group's fit per device resource, with `topology` the LWS's exclusive-topology label;
/// none unless `$.facts.group` is an LWS or JobSet group of more than one pod and the view has a
/// pod.
pub(super) fn group_fit(ctx: &Ctx, topology: Option<&str>) -> Option<Vec<GroupFit>> {
    let facts = ctx.subjects.get("facts")?;
    let group = facts.get("group")?;
    if !matches!(group["kind"].as_str(), Some("LeaderWorkerSet" | "JobSet")) {
        return None;
    }
    let members = group["expected"].as_u64().filter(|&n| n > 1)?;
    let pod = ctx.pod_value()?;
    let elig = crate::facts::Eligibility::of(&pod);
    let tables = ctx.ix.node_tables();
    let mut rows = Vec::new();
    for r in facts["resources"].as_array().into_iter().flatten() {
        let (Some(name), Some(request)) = (r["name"].as_str(), r["request"].as_f64()) else {
            continue;
        };
        if request <= 0.0 {
            continue;
        }
        let mut total = 0.0;
        let mut domains: BTreeMap<String, f64> = BTreeMap::new();
        // Nodes without the resource add nothing: only the advertising ones (name order).
        let advertising = tables
            .resources
            .get(name)
            .map_or(&[][..], |t| &t.advertising);
        for &pos in advertising {
            if !elig.admits_at(&tables, pos) {
                continue;
            }
            let node = &tables.nodes[pos];
            let a = node.allocatable.get(name).copied().unwrap_or(0.0);
            total += a;
            if let Some(key) = topology {
                let d = node.labels.get(key).cloned().unwrap_or_default();
                *domains.entry(d).or_default() += a;
            }
        }
        let needed = request * members as f64;
        let max_domain = domains.values().copied().fold(0.0_f64, f64::max);
        let room = if topology.is_some() {
            max_domain
        } else {
            total
        };
        rows.push(GroupFit {
            resource: name.to_string(),
            per_pod: Num(request),
            pods: members,
            needed: Num(needed),
            eligible_allocatable: Num(total),
            max_domain_allocatable: topology.map(|_| Num(max_domain)),
            fits: needed <= room,
        });
    }
    Some(rows)
}
