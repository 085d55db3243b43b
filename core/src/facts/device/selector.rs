//! The GPU feature-discovery labels a pod selects on against what the nodes carry, at
//! `$.facts.device.selector`.

use crate::facts::texts::{say, word};
use crate::index::NodeTables;
use serde::Serialize;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// One `nvidia.com/…` node label the pod requires, by its `nodeSelector` or an `In` expression
/// of its required node affinity (the values of both merged).
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct SelectorLabel {
    /// The label key.
    pub key: String,
    /// The values the pod allows, sorted, joined with ` or `.
    pub want: String,
    /// How many nodes carry the key with one of those values.
    pub matching: usize,
    /// How many nodes carry the key at all.
    pub nodes_with_key: usize,
    /// The distinct values nodes carry for the key, sorted.
    pub values: Vec<String>,
    /// Some node carries `<value>-SHARED` for a wanted value: GPU feature discovery's label for
    /// GPUs shared by time-slicing or MPS without renaming.
    pub shared_suffix: bool,
    /// Which case it is, in words: the GPUs are shared (`sharedSuffix`), no node has the label at
    /// all (GPU feature discovery is not labelling), or no node has a GPU with that value. Set
    /// whatever `matching` says; it explains a label that matches nothing.
    pub hint: String,
}

/// GPU feature-discovery labels the pod selects on, against what the nodes carry, by key.
pub(super) fn selector(tables: &NodeTables, pv: &Value) -> Vec<SelectorLabel> {
    let mut wants: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (key, vals) in crate::facts::required_node_labels(pv) {
        wants.entry(key).or_default().extend(vals);
    }
    let mut out = Vec::new();
    for (key, vals) in wants {
        if !key.starts_with("nvidia.com/") {
            continue;
        }
        let carried: BTreeSet<String> = tables.label_values(&key).into_iter().cloned().collect();
        let with_key = tables.count_with_label(&key);
        let matching = tables.with_label_in(&key, &vals).len();
        let shared = vals
            .iter()
            .any(|v| carried.contains(&format!("{v}-SHARED")));
        let want = vals
            .iter()
            .cloned()
            .collect::<Vec<_>>()
            .join(&word("selectorValuesJoin"));
        let hint = if shared {
            say("selectorShared", &[("want", Value::from(want.clone()))])
        } else if with_key == 0 {
            say("selectorNoLabel", &[("key", Value::from(key.clone()))])
        } else {
            word("selectorNoValue")
        };
        out.push(SelectorLabel {
            hint,
            key,
            want,
            matching,
            nodes_with_key: with_key,
            values: carried.into_iter().collect(),
            shared_suffix: shared,
        });
    }
    out
}
