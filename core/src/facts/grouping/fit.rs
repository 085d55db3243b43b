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
    /// For a group `fit` placed as if submitted: whether its members, each with its own
    /// request, could ever be placed at once, pod by pod on the nodes' allocatable (within one
    /// domain with an exclusive topology). `false` only when that is certain (more than all
    /// eligible nodes hold, or equal members that no packing places); null when undecided or
    /// for other work.
    pub fits_whole: Option<bool>,
    /// How many of the group's members, each asking `perPod`, the eligible nodes (the best
    /// domain) could hold at once; null unless `fitsWhole` is computed.
    pub members_at_once: Option<u64>,
    /// Eligible nodes (of the best domain) whose allocatable holds one member; null unless
    /// `fitsWhole` is computed.
    pub nodes_holding_one: Option<u64>,
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
    // The members, for a group no scheduler has seen yet: each is judged with its own request.
    let sizes = ctx
        .ix
        .not_submitted(ctx.target)
        .then(|| group_members(ctx, &pod));
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
        // Each eligible node's allocatable, by domain (one domain without a topology).
        let mut bins: BTreeMap<String, Vec<f64>> = BTreeMap::new();
        for &pos in advertising {
            if !elig.admits_at(&tables, pos) {
                continue;
            }
            let node = &tables.nodes[pos];
            let a = node.allocatable.get(name).copied().unwrap_or(0.0);
            total += a;
            let d = topology
                .map(|key| node.labels.get(key).cloned().unwrap_or_default())
                .unwrap_or_default();
            bins.entry(d.clone()).or_default().push(a);
            if topology.is_some() {
                *domains.entry(d).or_default() += a;
            }
        }
        let whole = sizes.as_ref().map(|sizes| {
            let requests = member_requests(ctx, sizes, name);
            let mut w = whole_group(&requests, request, &bins);
            // fit makes a few hundred pods of a larger group: the members not made ask what
            // the view's pod asks, so the group fits whole only if the best domain holds that
            // many (counted per node).
            if (requests.len() as u64) < members && w.0 == Some(true) {
                let equal = requests.iter().all(|q| *q == request);
                w.0 = equal.then_some(w.1 >= members);
            }
            w
        });
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
            fits_whole: whole.and_then(|w| w.0),
            members_at_once: whole.map(|w| w.1),
            nodes_holding_one: whole.map(|w| w.2),
        });
    }
    Some(rows)
}

/// The pods of the view's group: the work's pods, of the view's pod's LWS group when it has
/// one.
fn group_members(ctx: &Ctx, pod: &serde_json::Value) -> Vec<crate::index::ObjId> {
    let group = crate::json::label(pod, "leaderworkerset.sigs.k8s.io/group-index");
    ctx.pods
        .iter()
        .copied()
        .filter(|&p| {
            group.is_none()
                || crate::json::label(&ctx.ix.value(p), "leaderworkerset.sigs.k8s.io/group-index")
                    == group
        })
        .collect()
}

/// What each member asks of `resource`.
fn member_requests(ctx: &Ctx, members: &[crate::index::ObjId], resource: &str) -> Vec<f64> {
    members
        .iter()
        .map(|&p| {
            ctx.ix
                .pod(p)
                .and_then(|i| i.requests.iter().find(|(r, _)| r == resource))
                .map_or(0.0, |(_, q)| *q)
        })
        .collect()
}

/// Whether the members could be placed at once in some domain's nodes (first fit, largest
/// first), how many members of `per_pod` the best domain holds, and how many of its nodes hold
/// one. "No" only when certain: more than the domain holds in all, or equal members (for which
/// first fit is exact).
fn whole_group(
    sizes: &[f64],
    per_pod: f64,
    bins: &BTreeMap<String, Vec<f64>>,
) -> (Option<bool>, u64, u64) {
    let mut sizes: Vec<f64> = sizes.iter().copied().filter(|s| *s > 0.0).collect();
    sizes.sort_by(|a, b| b.total_cmp(a));
    let equal = sizes.windows(2).all(|w| w[0] == w[1]);
    let total: f64 = sizes.iter().sum();
    let (mut best_at_once, mut best_holding) = (0u64, 0u64);
    let mut verdict = Some(false);
    for nodes in bins.values() {
        let at_once: u64 = nodes.iter().map(|a| (a / per_pod).floor() as u64).sum();
        let holding = nodes.iter().filter(|a| **a >= per_pod).count() as u64;
        if (at_once, holding) > (best_at_once, best_holding) {
            (best_at_once, best_holding) = (at_once, holding);
        }
        let mut free = nodes.clone();
        let packed = sizes
            .iter()
            .all(|s| match free.iter_mut().find(|f| **f >= *s) {
                Some(f) => {
                    *f -= s;
                    true
                }
                None => false,
            });
        if packed {
            verdict = Some(true);
            break;
        }
        if !(equal || total > nodes.iter().sum::<f64>()) {
            verdict = None;
        }
    }
    if bins.is_empty() && sizes.is_empty() {
        verdict = Some(true);
    }
    (verdict, best_at_once, best_holding)
}
