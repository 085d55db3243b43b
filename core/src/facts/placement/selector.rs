//! The node labels the view's pod asks for and the nodes that carry them, at
//! `$.facts.placement.selector`.

use crate::index::NodeTables;
use serde::Serialize;
use serde_json::Value;

/// The labels the pod asks for (nodeSelector, and `In` expressions of required node affinity),
/// the nodes carrying them, and the values of the same key that nodes carry instead.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct PlacementSelector {
    /// One per requirement, in the order the pod's spec gives them.
    pub terms: Vec<SelectorTerm>,
    /// The requirements no node meets, as `key=value` or `key in (a|b)`, leaving out GPU feature
    /// discovery keys (`nvidia.com/…`), which the device layer explains.
    pub unmatched: Vec<String>,
    /// The keys of those requirements.
    pub unmatched_keys: Vec<String>,
    /// The distinct `key=value` labels nodes carry instead, for the keys of `unmatched`.
    pub other_values: Vec<String>,
    /// The unmet GPU feature discovery requirements, as `key=a|b`.
    pub unmatched_gfd: Vec<String>,
}

/// One label requirement of the pod.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct SelectorTerm {
    /// The label key.
    pub key: String,
    /// Always `In` (a nodeSelector entry is one value).
    pub operator: String,
    /// The values the pod allows.
    pub values: Vec<String>,
    /// The nodes whose label has one of them.
    pub nodes: Vec<String>,
    /// The other values of the key that nodes carry, as sorted distinct `key=value`.
    pub other_values: Vec<String>,
}

/// The pod's label requirements against the nodes. `absence_known`: a label no node carries
/// may be called missing (the bundle holds Nodes, or the scheduler counts every node off the
/// selector); else a node that failed for another reason may have passed it.
pub(super) fn selector(tables: &NodeTables, pv: &Value, absence_known: bool) -> PlacementSelector {
    let wanted = crate::facts::required_node_labels(pv);
    let mut terms = Vec::new();
    let mut unmatched = Vec::new();
    let mut unmatched_keys = Vec::new();
    let mut unmatched_gfd: Vec<String> = Vec::new();
    let mut other_all: Vec<String> = Vec::new();
    for (key, vals) in wanted {
        let nodes: Vec<String> = tables
            .with_label_in(&key, &vals)
            .into_iter()
            .map(|p| tables.nodes[p].name.clone())
            .collect();
        let mut other: Vec<String> = tables
            .label_values(&key)
            .into_iter()
            .filter(|v| !vals.contains(v))
            .map(|v| format!("{key}={v}"))
            .collect();
        other.sort();
        other.dedup();
        // GPU feature discovery labels (`nvidia.com/…`) are the device layer's
        // (`device/gpu-label-selector-unmatched`); they are listed apart.
        let gfd = key.starts_with("nvidia.com/");
        let absent = absence_known && nodes.is_empty();
        if absent && gfd {
            unmatched_gfd.push(format!("{key}={}", vals.join("|")));
        } else if absent {
            unmatched.push(if vals.len() == 1 {
                format!("{key}={}", vals[0])
            } else {
                format!("{key} in ({})", vals.join("|"))
            });
            unmatched_keys.push(key.clone());
            for o in &other {
                if !other_all.contains(o) {
                    other_all.push(o.clone());
                }
            }
        }
        terms.push(SelectorTerm {
            key,
            operator: "In".to_string(),
            values: vals,
            nodes,
            other_values: other,
        });
    }
    PlacementSelector {
        terms,
        unmatched,
        unmatched_keys,
        other_values: other_all,
        unmatched_gfd,
    }
}
