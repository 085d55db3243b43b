//! A ClusterQueue's quota against what the nodes advertise, at
//! `$.facts.admission.quotaOverNodes`.

use crate::facts::Num;
use crate::index::Index;
use crate::json::At as _;
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// An extended resource whose ClusterQueue quota the nodes cannot hold: Kueue will admit work
/// that no node can then run.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct QuotaOverNodes {
    /// A resource name with a `/`, e.g. `nvidia.com/gpu`.
    pub resource: String,
    /// The ClusterQueue's nominal quota of it, summed over its resource groups and flavors.
    pub quota: Num,
    /// What all nodes of the bundle advertise of it as allocatable, summed.
    pub advertised: Num,
}

/// Extended resources whose ClusterQueue quota exceeds what the nodes advertise, in name order;
/// empty without a ClusterQueue or without nodes (nothing to compare).
pub(super) fn quota_over_nodes(ix: &Index, cq: Option<&Value>) -> Vec<QuotaOverNodes> {
    let (Some(cq), false) = (cq, ix.nodes().is_empty()) else {
        return Vec::new();
    };
    let mut quota: BTreeMap<String, f64> = BTreeMap::new();
    for rg in cq
        .at("/spec/resourceGroups")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        for f in rg["flavors"].as_array().into_iter().flatten() {
            for r in f["resources"].as_array().into_iter().flatten() {
                let (Some(name), Some(q)) = (
                    r["name"].as_str(),
                    crate::quantity::from_value(&r["nominalQuota"]),
                ) else {
                    continue;
                };
                if name.contains('/') {
                    *quota.entry(name.to_string()).or_default() += q;
                }
            }
        }
    }
    let tables = ix.node_tables();
    quota
        .into_iter()
        .filter_map(|(name, q)| {
            // Summed once per index over every node (name order), not per view.
            let advertised = tables
                .resources
                .get(&name)
                .map_or(0.0, |t| t.allocatable_all);
            (q > advertised).then_some(QuotaOverNodes {
                resource: name,
                quota: Num(q),
                advertised: Num(advertised),
            })
        })
        .collect()
}
