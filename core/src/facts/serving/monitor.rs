//! `$.facts.serving.monitorGaps`: a PodMonitor of serving-stack pods whose relabeling copies a
//! pod label (`__meta_kubernetes_pod_label_<name>`) that none of the pods it selects carries.
//! The copied label is then absent from every scraped series, and whatever reads the metrics by
//! it (an autoscaler, a queue's gate, a dashboard) finds nothing: the serving path that waits on
//! those metrics never moves, while every pod is Ready.

use super::{Ctx, stack_of};
use crate::index::{Index, ObjId};
use crate::json::At as _;
use serde::Serialize;
use serde_json::Value;

/// Where Prometheus puts a pod label among a target's metadata labels.
const POD_LABEL: &str = "__meta_kubernetes_pod_label_";

/// A pod label the monitor copies that none of its pods has.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct MonitorGap {
    /// The pod label's name as Prometheus spells it (`inference_pool`).
    pub label: String,
    /// The series label it should become (`targetLabel`).
    pub target_label: String,
    /// How many pods the monitor selects (none of which has the label).
    pub pods: usize,
    /// The serving stack those pods belong to (`llm-d`, `dynamo`, `kserve`).
    pub stack: String,
}

/// The target PodMonitor's copied pod labels that none of its serving-stack pods carries.
pub(super) fn monitor_gaps(ctx: &Ctx) -> Vec<MonitorGap> {
    let o = ctx.ix.object(ctx.target);
    if o.kind() != "PodMonitor" || o.group() != "monitoring.coreos.com" {
        return Vec::new();
    }
    let v = ctx.value(ctx.target);
    let pods = selected_pods(ctx.ix, &v, o.namespace().unwrap_or(""));
    let values: Vec<Value> = pods.iter().map(|&p| ctx.ix.value(p)).collect();
    let Some(stack) = values.iter().find_map(stack_of) else {
        return Vec::new();
    };
    let relabelings = v
        .at("/spec/podMetricsEndpoints")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|e| e["relabelings"].as_array())
        .flatten();
    let mut out: Vec<MonitorGap> = Vec::new();
    for r in relabelings {
        let target_label = r["targetLabel"].as_str().unwrap_or("").to_string();
        let sources = r["sourceLabels"].as_array().into_iter().flatten();
        for label in sources.filter_map(|s| s.as_str()?.strip_prefix(POD_LABEL)) {
            let carried = values.iter().any(|pv| carries(pv, label));
            if !carried && !out.iter().any(|g| g.label == label) {
                out.push(MonitorGap {
                    label: label.to_string(),
                    target_label: target_label.clone(),
                    pods: values.len(),
                    stack: stack.to_string(),
                });
            }
        }
    }
    out
}

/// Live pods of the monitor's namespaces (`namespaceSelector.matchNames`, `any`, else its own)
/// that carry every label of its `selector.matchLabels`.
fn selected_pods(ix: &Index, v: &Value, own: &str) -> Vec<ObjId> {
    let Some(sel) = v
        .at("/spec/selector/matchLabels")
        .and_then(Value::as_object)
    else {
        return Vec::new();
    };
    let any = v.at("/spec/namespaceSelector/any") == Some(&Value::Bool(true));
    let names: Vec<&str> = v
        .at("/spec/namespaceSelector/matchNames")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_else(|| vec![own]);
    super::live_pods(ix, |n| any || names.contains(&n))
        .filter(|&p| crate::json::selects(sel, crate::json::labels(&ix.value(p))))
        .collect()
}

/// Whether a pod has a label whose Prometheus name (every character outside `[A-Za-z0-9_]`
/// made `_`) is `name`.
fn carries(pod: &Value, name: &str) -> bool {
    crate::json::labels(pod).is_some_and(|l| {
        l.keys().any(|k| {
            let sanitized: String = k
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '_' {
                        c
                    } else {
                        '_'
                    }
                })
                .collect();
            sanitized == name
        })
    })
}
