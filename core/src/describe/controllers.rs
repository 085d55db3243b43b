//! The pod controllers kubectl describes in layouts of their own: Deployment, ReplicaSet,
//! StatefulSet and DaemonSet (their pod template, replicas, selector and conditions), and
//! ConfigMaps (whose data kubectl prints raw, under `Data` and `====`).

use super::builtin::{conditions, metadata, template};
use super::lines::{Entry, Numbered};
use serde_json::{Map, Value, json};

/// Which controller a block describes, by the lines only its layout prints.
pub(crate) fn kind_of(top: &Entry) -> Option<&'static str> {
    let replicas = top.text("Replicas").unwrap_or("");
    if top.child("Desired Number of Nodes Scheduled").is_some() {
        Some("DaemonSet")
    } else if top.child("StrategyType").is_some() || top.child("NewReplicaSet").is_some() {
        Some("Deployment")
    } else if top.child("Update Strategy").is_some() && replicas.contains("desired |") {
        Some("StatefulSet")
    } else if replicas.contains("current /") && top.child("Pod Template").is_some() {
        Some("ReplicaSet")
    } else {
        None
    }
}

/// The numbers of `Replicas: 2 desired | 1 updated | 2 total …` or `2 current / 3 desired`, by
/// the word after each.
fn counts(text: &str) -> Vec<(&str, i64)> {
    let words: Vec<&str> = text.split_whitespace().collect();
    words
        .windows(2)
        .filter_map(|w| Some((w[1], w[0].parse::<i64>().ok()?)))
        .collect()
}

/// The object of a controller block of `kind`.
pub(crate) fn controller(kind: &str, top: &Entry) -> Value {
    let mut spec = Map::new();
    let mut status = Map::new();
    if let Some(t) = top.child("Pod Template") {
        spec.insert("template".into(), template(t));
    }
    if let Some(sel) = top.text("Selector").and_then(match_labels) {
        spec.insert("selector".into(), json!({"matchLabels": sel}));
    }
    let replicas = counts(top.text("Replicas").unwrap_or(""));
    for (word, n) in replicas {
        let field = match word {
            "desired" => {
                spec.insert("replicas".into(), json!(n));
                continue;
            }
            "current" | "total" => "replicas",
            "updated" => "updatedReplicas",
            "available" => "availableReplicas",
            "unavailable" => "unavailableReplicas",
            _ => continue,
        };
        status.insert(field.into(), json!(n));
    }
    if kind == "DaemonSet" {
        daemon_counts(top, &mut status);
    }
    let conds = conditions(top.child("Conditions"));
    if !conds.is_empty() {
        status.insert("conditions".into(), json!(conds));
    }
    json!({
        "apiVersion": "apps/v1",
        "kind": kind,
        "metadata": metadata(top),
        "spec": spec,
        "status": status,
    })
}

/// A DaemonSet's `Desired Number of Nodes Scheduled: 0` and the lines like it.
fn daemon_counts(top: &Entry, status: &mut Map<String, Value>) {
    for (label, field) in [
        (
            "Desired Number of Nodes Scheduled",
            "desiredNumberScheduled",
        ),
        (
            "Current Number of Nodes Scheduled",
            "currentNumberScheduled",
        ),
        (
            "Number of Nodes Scheduled with Up-to-date Pods",
            "updatedNumberScheduled",
        ),
        (
            "Number of Nodes Scheduled with Available Pods",
            "numberAvailable",
        ),
        ("Number of Nodes Misscheduled", "numberMisscheduled"),
    ] {
        if let Some(n) = top.text(label).and_then(|n| n.parse::<i64>().ok()) {
            status.insert(field.into(), json!(n));
        }
    }
}

/// `a=b,c=d` (a selector of equalities) as a map; None when it holds anything else.
fn match_labels(sel: &str) -> Option<Map<String, Value>> {
    sel.split(',')
        .map(|p| {
            let (k, v) = p.split_once('=')?;
            (!k.contains(['!', ' ', '('])).then(|| (k.to_string(), json!(v)))
        })
        .collect()
}

/// The `Data` section of a ConfigMap block, when it has one: its position in the block (the
/// lines before it are the usual `Key: value` head) and the data, each value the lines
/// between its `key:`/`----` header and the next (kubectl ends each with an empty line).
pub(crate) fn config_map_data(block: &[Numbered]) -> Option<(usize, Map<String, Value>)> {
    let at = block
        .windows(2)
        .position(|w| w[0].1 == "Data" && w[1].1 == "====")?;
    let body = &block[at + 2..];
    let end = body
        .windows(2)
        .position(|w| w[0].1 == "BinaryData" && w[1].1 == "====")
        .unwrap_or(body.len());
    let body = &body[..end];
    let header = |i: usize| {
        body.get(i + 1).is_some_and(|n| n.1 == "----")
            && body[i].1.ends_with(':')
            && !body[i].1.starts_with(' ')
    };
    let starts: Vec<usize> = (0..body.len()).filter(|&i| header(i)).collect();
    let mut data = Map::new();
    for (n, &i) in starts.iter().enumerate() {
        let stop = starts.get(n + 1).copied().unwrap_or(body.len());
        let mut lines: Vec<&str> = body[i + 2..stop].iter().map(|l| l.1).collect();
        // kubectl's own empty line after the value, and the one before `BinaryData`.
        while lines.last().is_some_and(|l| l.is_empty()) {
            lines.pop();
        }
        let key = body[i].1.trim_end_matches(':');
        data.insert(key.to_string(), json!(lines.join("\n")));
    }
    Some((at, data))
}

/// A ConfigMap from its head (name, labels…) and data.
pub(crate) fn config_map(top: &Entry, data: Map<String, Value>) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": metadata(top), "data": data})
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::describe::lines::tree;

    fn entries(text: &str) -> Entry<'_> {
        let lines: Vec<Numbered> = text.lines().enumerate().map(|(i, l)| (i + 1, l)).collect();
        let children = tree(&lines, 64).unwrap();
        Entry {
            line: 1,
            indent: 0,
            key: None,
            value: "",
            raw: "",
            children,
        }
    }

    #[test]
    fn a_deployment_reads_back_with_replicas_selector_template_and_conditions() {
        let top = entries(
            "Name:                   web\nNamespace:              ml\nCreationTimestamp:      Sun, 06 Dec 2026 19:00:00 +0000\nSelector:               app=web\nReplicas:               3 desired | 0 updated | 0 total | 0 available | 3 unavailable\nStrategyType:           RollingUpdate\nPod Template:\n  Labels:  app=web\n  Containers:\n   c:\n    Image:      x\n    Limits:\n      nvidia.com/gpu:  1\nConditions:\n  Type             Status  Reason\n  ----             ------  ------\n  ReplicaFailure   True    FailedCreate\nNewReplicaSet:     web-7c9 (0/3 replicas created)\n",
        );
        assert_eq!(kind_of(&top), Some("Deployment"));
        let d = controller("Deployment", &top);
        assert_eq!(d["spec"]["replicas"], 3);
        assert_eq!(d["status"]["unavailableReplicas"], 3);
        assert_eq!(d["spec"]["selector"]["matchLabels"]["app"], "web");
        assert_eq!(
            d["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"],
            "1"
        );
        assert_eq!(
            d["status"]["conditions"][0],
            json!({"type": "ReplicaFailure", "status": "True", "reason": "FailedCreate"})
        );
    }

    #[test]
    fn config_map_data_keeps_its_lines() {
        let text = "Name: c\nNamespace: ml\n\nData\n====\na.yaml:\n----\nx: 1\n  y: 2\n\nb:\n----\nv\n\n\nBinaryData\n====\n\nEvents:  <none>";
        let lines: Vec<Numbered> = text.lines().enumerate().map(|(i, l)| (i + 1, l)).collect();
        let (at, data) = config_map_data(&lines).unwrap();
        assert_eq!(at, 3);
        assert_eq!(
            Value::Object(data),
            json!({"a.yaml": "x: 1\n  y: 2", "b": "v"})
        );
    }
}
