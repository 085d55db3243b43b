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

use crate::diagnosis::{Cause, Example, Group, GroupQueue, ObjectRef, Outlook};
use crate::layer::{Layer, LayerState};
use crate::scan_lines::{LineQueue, ScanLine};
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
            flavor: None,
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

/// What one group gathers from its lines.
#[derive(Default)]
struct Gathered<'a> {
    count: usize,
    namespaces: BTreeSet<String>,
    examples: Vec<Example>,
    /// The places its work holds in a queue, in the listing's order.
    places: Vec<&'a LineQueue>,
}

/// The groups of a listing, in order: layer order (work without a blocking layer last),
/// blocked before warn, then the most work first, then rule, cause and outlook.
pub fn of_lines<'a>(lines: impl IntoIterator<Item = &'a ScanLine>) -> Vec<Group> {
    let mut by_key: BTreeMap<GroupKey, Gathered<'a>> = BTreeMap::new();
    let mut lang = None;
    for l in lines {
        lang.get_or_insert(l.lang.as_deref());
        let g = by_key.entry(GroupKey::of(l)).or_default();
        g.count += 1;
        if let Some(ns) = &l.namespace
            && !g.namespaces.contains(ns)
        {
            g.namespaces.insert(ns.clone());
        }
        if g.examples.len() < EXAMPLES {
            g.examples.push(Example {
                kind: l.kind.clone(),
                namespace: l.namespace.clone(),
                name: l.name.clone(),
                status: l.status.clone(),
                headline: l.headline.clone(),
            });
        }
        g.places.extend(&l.queue);
    }
    let words = crate::lang::Words::of_code(lang.flatten());
    let mut groups: Vec<(GroupKey, Group)> = by_key
        .into_iter()
        .map(|(key, g)| {
            let group = Group {
                layer: key.layer,
                state: key.state,
                outlook: key.outlook,
                rule: key.rule.clone(),
                cause: key.cause.clone(),
                count: g.count,
                namespaces: g.namespaces.into_iter().collect(),
                examples: g.examples,
                queue: key
                    .cause
                    .as_ref()
                    .and_then(|c| queue_of(c, &g.places, words))
                    .or_else(|| kai_queue_of_all(g.count, &g.places, words)),
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

/// Where a group resting on `cause` stands in it: from the places its work holds in that very
/// queue (a Kueue ClusterQueue, a KAI Queue), none when the cause is no queue or none of its
/// work holds a place there.
fn queue_of(cause: &Cause, places: &[&LineQueue], words: crate::lang::Words) -> Option<GroupQueue> {
    let by = match cause.kind.as_str() {
        "ClusterQueue" => "kueue",
        "Queue" => "kai-scheduler",
        _ => return None,
    };
    queue_in(by, &cause.name, places, words)
}

/// A group resting on no queue whose every piece of work waits in one KAI Queue: KAI orders
/// all its pending PodGroups, whatever holds them (a node's room, a taint), so their place
/// there still says when each is tried. Kueue's places are not so: work Kueue has admitted
/// holds none, and a group resting elsewhere is not waiting on its ClusterQueue.
fn kai_queue_of_all(
    count: usize,
    places: &[&LineQueue],
    words: crate::lang::Words,
) -> Option<GroupQueue> {
    let first = places.first()?;
    let one_queue = places
        .iter()
        .all(|p| p.by == "kai-scheduler" && p.queue == first.queue);
    (one_queue && places.len() == count)
        .then(|| queue_in("kai-scheduler", &first.queue, places, words))
        .flatten()
}

/// Where the group's `places` in queue `queue` of `by` are, none when none is there.
fn queue_in(
    by: &str,
    queue: &str,
    places: &[&LineQueue],
    words: crate::lang::Words,
) -> Option<GroupQueue> {
    let here: Vec<&LineQueue> = places
        .iter()
        .copied()
        .filter(|p| p.by == by && p.queue == queue)
        .collect();
    let first = here.iter().min_by_key(|p| p.position)?;
    let last = here.iter().max_by_key(|p| p.position)?;
    let sources: BTreeSet<&str> = here.iter().map(|p| p.source.as_str()).collect();
    let partial: BTreeSet<&String> = here.iter().flat_map(|p| &p.partial).collect();
    Some(GroupQueue {
        positions: Some((first.position, last.position)),
        of: here.iter().filter_map(|p| p.of).max(),
        wait: last.wait.as_ref().map(|w| {
            // One position has one turn: said as a single piece of work's outlook.
            let first = first.wait.as_ref().and_then(|w| w.minutes);
            match first.filter(|_| here.len() > 1) {
                Some(_) => group_wait_words(w, first, words),
                None => crate::standing::wait_words(w, words),
            }
        }),
        by: by.to_string(),
        queue: queue.to_string(),
        placed: here.len(),
        source: match sources.len() {
            1 => sources.first().copied().unwrap_or_default().to_string(),
            _ => "mixed".to_string(),
        },
        partial: partial.into_iter().cloned().collect(),
        outlook: last.wait.clone(),
        first_minutes: first.wait.as_ref().and_then(|w| w.minutes),
        visibility: here
            .iter()
            .filter_map(|p| p.visibility.as_deref().filter(|&v| v != "used"))
            .collect::<BTreeSet<&str>>()
            .into_iter()
            .map(str::to_string)
            .collect(),
        visibility_why: here.iter().find_map(|p| p.visibility_why.clone()),
    })
}

/// A group's place in the queue it rests on ([`GroupQueue`]) in one line of the reader's words,
/// for scan's text and Markdown; `count` is the group's size (the caller makes the values safe
/// for its output first: they come from the bundle).
pub fn group_line(q: &GroupQueue, count: usize, words: crate::lang::Words) -> String {
    let (first, last) = q.positions.unwrap_or_default();
    let of = q.of.map_or_else(|| "?".to_string(), |v| v.to_string());
    let mut out = if first == last {
        let key = match q.by.as_str() {
            "kueue" => "queue.position",
            _ => "queue.positionKai",
        };
        let position = first.to_string();
        words.fill(
            key,
            &[("position", &position), ("of", &of), ("queue", &q.queue)],
        )
    } else {
        let queue = match q.by.as_str() {
            "kueue" => format!("ClusterQueue {}", q.queue),
            _ => format!("KAI Queue {}", q.queue),
        };
        words.fill(
            "queue.groupRange",
            &[
                ("first", &first.to_string()),
                ("last", &last.to_string()),
                ("of", &of),
                ("queue", &queue),
            ],
        )
    };
    if q.placed < count {
        out.push_str(&words.fill(
            "queue.groupPlaced",
            &[
                ("placed", &q.placed.to_string()),
                ("count", &count.to_string()),
            ],
        ));
    }
    out.push_str(words.get(crate::standing::source_key(&q.by, &q.source)));
    for code in &q.visibility {
        out.push_str(&crate::standing::visibility_words(
            Some(code),
            q.visibility_why.as_deref(),
            words,
        ));
    }
    out.push_str(&crate::standing::partial_words(&q.partial, &[], words));
    if let Some(w) = &q.wait {
        out.push_str("; ");
        out.push_str(w);
    }
    out
}

/// A group's outlook in words: the rate, and the minutes until its first and its last
/// position's turn; or what is missing for them.
pub fn group_wait_words(
    last: &crate::standing::WaitOutlook,
    first_minutes: Option<u64>,
    words: crate::lang::Words,
) -> String {
    match (last.per_minute, first_minutes, last.minutes) {
        (Some(rate), Some(first), Some(minutes)) => words.fill(
            "queue.groupWait",
            &[
                ("window", &last.window_minutes.to_string()),
                ("rate", &crate::quantity::format(rate)),
                ("first", &first.to_string()),
                ("minutes", &minutes.to_string()),
            ],
        ),
        _ => crate::standing::wait_words(last, words),
    }
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
                flavor: None,
            }),
            headline: format!("{name} waits"),
            kind: "Job".into(),
            namespace: Some(ns.into()),
            name: name.into(),
            api_version: None,
            status: "Pending".into(),
            lang: None,
            queue: None,
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

    fn placed(mut l: ScanLine, cq: &str, position: u64, minutes: Option<u64>) -> ScanLine {
        l.queue = Some(LineQueue {
            by: "kueue".into(),
            queue: cq.into(),
            position,
            of: Some(40),
            source: "bundle".into(),
            partial: vec![],
            wait: Some(crate::standing::WaitOutlook {
                window_minutes: 60,
                admissions: 30,
                per_minute: Some(0.5),
                minutes,
                missing: None,
            }),
            visibility: Some("notServed".into()),
            visibility_why: None,
        });
        l
    }

    /// A group resting on a ClusterQueue says the first and last places its work holds there,
    /// how many of it hold one, and the turns of the first and the last; a place in another
    /// queue, or a group resting on no queue, says nothing of a queue.
    #[test]
    fn a_group_on_a_queue_says_where_its_work_stands_in_it() {
        let a = Some(Layer::Admission);
        let rule = "admission/waiting-for-quota";
        let lines = vec![
            placed(line(a, rule, Some("cq-1"), "t1", "j1"), "cq-1", 9, Some(18)),
            placed(line(a, rule, Some("cq-1"), "t1", "j2"), "cq-1", 2, Some(4)),
            line(a, rule, Some("cq-1"), "t2", "j3"),
            placed(
                line(a, rule, Some("cq-1"), "t2", "j4"),
                "cq-other",
                1,
                Some(2),
            ),
            placed(line(a, rule, Some("cq-2"), "t2", "j5"), "cq-9", 1, Some(2)),
            placed(
                line(Some(Layer::Device), "device/x", None, "t1", "j6"),
                "cq-1",
                3,
                None,
            ),
        ];
        let groups = of_lines(&lines);
        let q = groups
            .iter()
            .find(|g| g.cause.as_ref().is_some_and(|c| c.name == "cq-1"))
            .and_then(|g| g.queue.clone())
            .expect("the cq-1 group has a queue");
        assert_eq!(q.positions, Some((2, 9)));
        assert_eq!((q.placed, q.of, q.queue.as_str()), (2, Some(40), "cq-1"));
        assert_eq!(
            (q.first_minutes, q.outlook.and_then(|w| w.minutes)),
            (Some(4), Some(18))
        );
        assert_eq!(q.visibility, vec!["notServed"]);
        let text = group_line(
            &groups[1].queue.clone().unwrap(),
            4,
            crate::lang::Words::of(crate::lang::Lang::En),
        );
        assert!(
            text.starts_with(
                "positions 2–9 of 40 in ClusterQueue cq-1 (2 of the 4 hold a place there)"
            ),
            "{text}"
        );
        assert!(
            text.contains("the first's turn in roughly 4 minutes, the last's in roughly 18"),
            "{text}"
        );
        assert!(
            text.contains("does not serve Kueue's visibility API"),
            "{text}"
        );
        let others: Vec<bool> = groups
            .iter()
            .filter(|g| g.cause.as_ref().is_none_or(|c| c.name != "cq-1"))
            .map(|g| g.queue.is_some())
            .collect();
        assert_eq!(others, vec![false, false], "{groups:?}");
    }

    /// KAI orders every pending PodGroup of a Queue whatever holds it: a group resting on a
    /// node's room whose every piece of work waits in one KAI Queue says its places there; one
    /// piece elsewhere, or without a place, and it says nothing of a queue.
    #[test]
    fn a_group_whose_work_all_waits_in_one_kai_queue_says_its_places() {
        let p = Some(Layer::Placement);
        let rule = "placement/pod-unschedulable";
        let kai = |mut l: ScanLine, queue: &str, position: u64| {
            l = placed(l, queue, position, None);
            if let Some(q) = l.queue.as_mut() {
                q.by = "kai-scheduler".into();
            }
            l
        };
        let all_in_one = vec![
            kai(line(p, rule, None, "t1", "a"), "team-a", 4),
            kai(line(p, rule, None, "t1", "b"), "team-a", 7),
        ];
        let q = of_lines(&all_in_one)[0]
            .queue
            .clone()
            .expect("a KAI queue line");
        assert_eq!(
            (q.by.as_str(), q.queue.as_str()),
            ("kai-scheduler", "team-a")
        );
        assert_eq!((q.positions, q.placed), (Some((4, 7)), 2));
        let split = vec![
            kai(line(p, rule, None, "t1", "a"), "team-a", 4),
            kai(line(p, rule, None, "t1", "b"), "team-b", 1),
        ];
        assert!(of_lines(&split)[0].queue.is_none());
        let one_unplaced = vec![
            kai(line(p, rule, None, "t1", "a"), "team-a", 4),
            line(p, rule, None, "t1", "b"),
        ];
        assert!(of_lines(&one_unplaced)[0].queue.is_none());
    }
}
