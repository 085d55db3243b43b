//! A scan's work grouped by cause: the layer, the rule the verdict rests on and the object that
//! rule rests on (a ClusterQueue, a RuntimeClass, a component), with how much work waits there.
//!
//! Why: on the day of a backlog most of a scan's lines say the same sentence with another name
//! in it. A group says it once, with a count, the namespaces and a few examples, so a backlog of
//! thousands fits on a screen. Every output groups through this one module: the text and
//! Markdown, the JSON `groups[]`, the Prometheus series by cause, the npm package and the web
//! page, so they all count the same work under the same cause.
//!
//! The object a cause rests on is chosen by one rule for every rule file
//! ([`rests_on`]): of the objects the verdict's rule cited or read, the first that is not the
//! work's own (its pods, events, Workload, PodGroup or owner objects in its namespace). Work
//! whose rule rests only on its own objects (a scheduler's message on the pod) groups by rule.

use crate::diagnosis::{Cause, Example, Group, ObjectRef, Outlook};
use crate::layer::{Layer, LayerState};
use crate::scan_lines::ScanLine;
use std::collections::{BTreeMap, BTreeSet};

/// How many examples a group names ([`Group::examples`]).
pub const EXAMPLES: usize = 3;

/// Kinds that are a piece of work's own objects when they sit in its namespace: what a cause
/// that rests on them would split into one group per piece of work.
const WORKS_OWN_KINDS: &[&str] = &[
    "Pod",
    "Event",
    "Workload",
    "PodGroup",
    "ReplicaSet",
    "Job",
    "JobSet",
    "LeaderWorkerSet",
    "Deployment",
    "StatefulSet",
    "DynamoGraphDeployment",
    "PodCliqueSet",
    "ResourceClaim",
];

/// The object a cause rests on: the first of `cited` (the verdict rule's evidence objects, then
/// the objects its paths read, in the rule's order) that is not the work's own, the work being
/// in `namespace`.
pub fn rests_on<'a>(
    cited: impl IntoIterator<Item = &'a ObjectRef>,
    namespace: Option<&str>,
) -> Option<Cause> {
    cited
        .into_iter()
        .find(|o| {
            !(WORKS_OWN_KINDS.contains(&o.kind.as_str())
                && (o.namespace.is_none() || o.namespace.as_deref() == namespace))
        })
        .map(|o| Cause {
            kind: o.kind.clone(),
            namespace: o.namespace.clone(),
            name: o.name.clone(),
        })
}

/// What work shares to be in one group.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct GroupKey {
    /// Blocking layer (work with none after all the layers).
    pub layer: Option<Layer>,
    pub state: LayerState,
    pub rule: Option<String>,
    pub cause: Option<Cause>,
    pub outlook: Option<Outlook>,
}

impl GroupKey {
    /// The group of one listed piece of work.
    pub fn of(l: &ScanLine) -> GroupKey {
        GroupKey {
            layer: l.layer,
            state: l.state,
            rule: l.rule.clone(),
            cause: l.cause.clone(),
            outlook: l.outlook,
        }
    }
}

/// The groups of a listing, in order: layer order (work without a blocking layer last),
/// blocked before warn, then the most work first, then rule, cause and outlook.
pub fn of_lines<'a>(lines: impl IntoIterator<Item = &'a ScanLine>) -> Vec<Group> {
    let mut by_key: BTreeMap<GroupKey, (usize, BTreeSet<String>, Vec<Example>)> = BTreeMap::new();
    for l in lines {
        let (count, namespaces, examples) = by_key.entry(GroupKey::of(l)).or_default();
        *count += 1;
        if let Some(ns) = &l.namespace
            && !namespaces.contains(ns)
        {
            namespaces.insert(ns.clone());
        }
        if examples.len() < EXAMPLES {
            examples.push(Example {
                kind: l.kind.clone(),
                namespace: l.namespace.clone(),
                name: l.name.clone(),
                status: l.status.clone(),
                headline: l.headline.clone(),
            });
        }
    }
    let mut groups: Vec<(GroupKey, Group)> = by_key
        .into_iter()
        .map(|(key, (count, namespaces, examples))| {
            let group = Group {
                layer: key.layer,
                state: key.state,
                outlook: key.outlook,
                rule: key.rule.clone(),
                cause: key.cause.clone(),
                count,
                namespaces: namespaces.into_iter().collect(),
                examples,
                queue: None,
            };
            (key, group)
        })
        .collect();
    // Stable over the key's order, so equal counts keep rule, cause and outlook order.
    groups.sort_by(|(a, ga), (b, gb)| {
        let rank = |k: &GroupKey| (k.layer.is_none(), k.layer, k.state);
        (rank(a), std::cmp::Reverse(ga.count)).cmp(&(rank(b), std::cmp::Reverse(gb.count)))
    });
    groups.into_iter().map(|(_, g)| g).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obj(kind: &str, ns: Option<&str>, name: &str) -> ObjectRef {
        ObjectRef {
            api_version: "v1".into(),
            kind: kind.into(),
            namespace: ns.map(Into::into),
            name: name.into(),
        }
    }

    #[test]
    fn a_cause_rests_on_the_first_object_not_the_works_own() {
        let cited = [
            obj("Workload", Some("ml"), "wl-1"),
            obj("Pod", Some("ml"), "p"),
            obj("ClusterQueue", None, "gpu-cq"),
            obj("Node", None, "n1"),
        ];
        assert_eq!(
            rests_on(&cited, Some("ml")).map(|c| c.display()),
            Some("ClusterQueue gpu-cq".into())
        );
        // A component's own Deployment elsewhere is a cause, not the work's own.
        let component = [
            obj("Pod", Some("ml"), "p"),
            obj(
                "Deployment",
                Some("kueue-system"),
                "kueue-controller-manager",
            ),
        ];
        assert_eq!(
            rests_on(&component, Some("ml")).map(|c| c.display()),
            Some("Deployment kueue-system/kueue-controller-manager".into())
        );
        assert_eq!(rests_on(&cited[..2], Some("ml")), None);
    }

    fn line(
        layer: Option<Layer>,
        rule: &str,
        cause: Option<&str>,
        ns: &str,
        name: &str,
    ) -> ScanLine {
        ScanLine {
            state: if layer.is_some() {
                LayerState::Blocked
            } else {
                LayerState::Unknown
            },
            layer,
            outlook: None,
            rule: (!rule.is_empty()).then(|| rule.into()),
            cause: cause.map(|c| Cause {
                kind: "ClusterQueue".into(),
                namespace: None,
                name: c.into(),
            }),
            headline: format!("{name} waits"),
            kind: "Job".into(),
            namespace: Some(ns.into()),
            name: name.into(),
            api_version: None,
            status: "Pending".into(),
            lang: None,
        }
    }

    #[test]
    fn groups_count_their_work_biggest_first_within_a_layer() {
        let a = Some(Layer::Admission);
        let lines = vec![
            line(a, "admission/waiting-for-quota", Some("cq-1"), "t1", "j1"),
            line(a, "admission/waiting-for-quota", Some("cq-2"), "t1", "j2"),
            line(a, "admission/waiting-for-quota", Some("cq-2"), "t2", "j3"),
            line(a, "admission/waiting-for-quota", Some("cq-2"), "t2", "j4"),
            line(a, "admission/waiting-for-quota", Some("cq-2"), "t3", "j5"),
            line(Some(Layer::Device), "device/x", None, "t1", "j6"),
            line(None, "", None, "t1", "j7"),
        ];
        let groups = of_lines(&lines);
        let shape: Vec<(Option<Layer>, Option<String>, usize)> = groups
            .iter()
            .map(|g| (g.layer, g.cause.as_ref().map(|c| c.name.clone()), g.count))
            .collect();
        assert_eq!(
            shape,
            vec![
                (Some(Layer::Device), None, 1),
                (a, Some("cq-2".into()), 4),
                (a, Some("cq-1".into()), 1),
                (None, None, 1),
            ]
        );
        assert_eq!(groups[1].namespaces, vec!["t1", "t2", "t3"]);
        let examples: Vec<&str> = groups[1].examples.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(examples, vec!["j2", "j3", "j4"]);
        assert_eq!(groups.iter().map(|g| g.count).sum::<usize>(), lines.len());
    }
}
