//! The taints and cordons that keep the view's pod off nodes, at `$.facts.placement.taints`
//! and `$.facts.placement.cordonedRelevant`.

use super::Ctx;
use crate::index::untolerated;
use crate::index::{NodeInfo, NodeTables, Taint};
use crate::json::At as _;
use serde::Serialize;
use serde_json::Value;

/// Rows of `taints.untolerated` and `taints.relevant` kept per distinct taint.
const ROWS_PER_TAINT: usize = crate::template::SHOWN_VALUES;

/// The NoSchedule/NoExecute taints the pod does not tolerate. All lists are empty for a pod
/// already bound to a node (`spec.nodeName`): they say what keeps a pod off nodes.
#[derive(Debug, Clone, Default, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Taints {
    /// Each untolerated taint on each node, in node name order; ten rows per distinct taint
    /// (the first nodes by name).
    pub untolerated: Vec<TaintRow>,
    /// The same without control-plane nodes (`node-role.kubernetes.io/control-plane` or
    /// `master` label), the cordon taint `node.kubernetes.io/unschedulable`, and nodes the pod
    /// could not use anyway (they lack an extended resource it asks for, or its nodeSelector
    /// does not select them): the taints that actually keep the pod off a node it could use.
    /// Without Node objects in the bundle, read from the scheduler's ≤1.33 message
    /// (`untolerated taint {key: value}`), with `node` and `effect` null.
    pub relevant: Vec<TaintRow>,
    /// Every node of `relevant` by name, or, without Node objects, `N nodes` per message
    /// entry.
    pub relevant_nodes: Vec<String>,
    /// The distinct taints of `relevant` as a toleration would name them: `key=value:effect`
    /// or `key:effect` (`key=value` or `key` from the message).
    pub missing_tolerations: Vec<String>,
}

/// One taint on one node.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct TaintRow {
    /// Null when read from the scheduler's message.
    pub node: Option<String>,
    /// The taint's key.
    pub key: String,
    /// Empty when the taint has none.
    pub value: String,
    /// `NoSchedule` or `NoExecute`; null when read from the scheduler's message.
    pub effect: Option<String>,
    /// The taint as `missingTolerations` writes it.
    pub taint: String,
}

/// The scheduler's `(count, reason)` entries of one kind (see `$.facts.scheduling`).
fn scheduling_reasons(ctx: &Ctx, kind: &str) -> Vec<(u64, String)> {
    ctx.subjects
        .get("facts")
        .and_then(|f| f.at("/scheduling/reasons"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|r| r["kind"] == kind)
        .map(|r| {
            (
                r["count"].as_u64().unwrap_or(0),
                r["reason"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

/// Cordoned nodes the pod could otherwise use. Without Node objects nothing is claimed: a
/// cordon in the scheduler's message alone does not say the node could have held the pod.
pub(super) fn cordoned_relevant(
    tables: &NodeTables,
    advertises: &dyn Fn(&NodeInfo) -> bool,
) -> Vec<String> {
    tables
        .unschedulable
        .iter()
        .map(|&p| &tables.nodes[p])
        .filter(|n| advertises(n))
        .map(|n| n.name.clone())
        .collect()
}

fn is_control_plane(n: &NodeInfo) -> bool {
    n.labels
        .contains_key("node-role.kubernetes.io/control-plane")
        || n.labels.contains_key("node-role.kubernetes.io/master")
}

fn taint_text(t: &Taint) -> String {
    match t.value.as_deref().filter(|v| !v.is_empty()) {
        Some(v) => format!("{}={}:{}", t.key, v, t.effect),
        None => format!("{}:{}", t.key, t.effect),
    }
}

/// The taints a pod not yet bound does not tolerate.
pub(super) fn taints(
    ctx: &Ctx,
    tables: &NodeTables,
    pv: &Value,
    advertises: &dyn Fn(&NodeInfo) -> bool,
) -> Taints {
    let tols = pv
        .at("/spec/tolerations")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    // Which taints of each distinct set the pod does not tolerate: tested once per set, as
    // thousands of GPU nodes share theirs.
    let untolerated_in_set: Vec<Vec<(&Taint, String)>> = tables
        .taint_sets
        .iter()
        .map(|set| untolerated(tols, set).map(|t| (t, taint_text(t))).collect())
        .collect();
    let row = |n: &NodeInfo, t: &Taint, text: &str| TaintRow {
        node: Some(n.name.clone()),
        key: t.key.clone(),
        value: t.value.clone().unwrap_or_default(),
        effect: Some(t.effect.clone()),
        taint: text.to_string(),
    };
    let mut out = Taints::default();
    // Rows per distinct taint, capped: when a taint keeps a pod off thousands of nodes, every
    // pod's view would otherwise hold a row per node. `relevantNodes` still names them all.
    let mut rows_of: Vec<(String, usize, usize)> = Vec::new();
    // Only nodes with a NoSchedule/NoExecute taint can add a row (name order).
    for &pos in &tables.hard_tainted {
        let n = &tables.nodes[pos];
        let Some(set) = tables.taint_set_of[pos] else {
            continue;
        };
        for (t, text) in &untolerated_in_set[set] {
            let at = match rows_of.iter().position(|(x, _, _)| x == text) {
                Some(at) => at,
                None => {
                    rows_of.push((text.clone(), 0, 0));
                    rows_of.len() - 1
                }
            };
            if rows_of[at].1 < ROWS_PER_TAINT {
                rows_of[at].1 += 1;
                out.untolerated.push(row(n, t, text));
            }
            if is_control_plane(n) || t.key == "node.kubernetes.io/unschedulable" || !advertises(n)
            {
                continue;
            }
            if rows_of[at].2 < ROWS_PER_TAINT {
                rows_of[at].2 += 1;
                out.relevant.push(row(n, t, text));
            }
            // Nodes come one after another: a repeat can only be the last one added.
            if out.relevant_nodes.last() != Some(&n.name) {
                out.relevant_nodes.push(n.name.clone());
            }
            if !out.missing_tolerations.contains(text) {
                out.missing_tolerations.push(text.clone());
            }
        }
    }
    if ctx.ix.nodes().is_empty() {
        from_message(ctx, &mut out);
    }
    out
}

/// Without Node objects (a pasted pod and its events), the ≤1.33 wording still names the
/// taint: `node(s) had untolerated taint {key: value}`.
fn from_message(ctx: &Ctx, out: &mut Taints) {
    for (count, reason) in scheduling_reasons(ctx, "taint") {
        let Some(inner) = reason
            .split_once('{')
            .and_then(|(_, rest)| rest.rsplit_once('}'))
            .map(|(inner, _)| inner)
        else {
            continue;
        };
        let (key, value) = inner.split_once(':').unwrap_or((inner, ""));
        let (key, value) = (key.trim(), value.trim());
        if key.starts_with("node-role.kubernetes.io/") || key == "node.kubernetes.io/unschedulable"
        {
            continue;
        }
        let text = if value.is_empty() {
            key.to_string()
        } else {
            format!("{key}={value}")
        };
        out.relevant.push(TaintRow {
            node: None,
            key: key.to_string(),
            value: value.to_string(),
            effect: None,
            taint: text.clone(),
        });
        out.relevant_nodes.push(crate::facts::texts::say(
            "taintNodes",
            &[("count", serde_json::Value::from(count.to_string()))],
        ));
        if !out.missing_tolerations.contains(&text) {
            out.missing_tolerations.push(text);
        }
    }
}
