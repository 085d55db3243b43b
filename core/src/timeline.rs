//! The timeline of a diagnosis: every moment the bundle can prove about the work, in order.
//!
//! Events expire after an hour, and a bundle collected later holds only their last state; the
//! times written on the objects themselves stay. The timeline reads both from the objects the
//! view linked to the target (the target, its pods, owners, Workload, PodGroup, claims and
//! serving objects, and the events about them): creation times, `startTime` and
//! `completionTime`, each condition's `lastTransitionTime` (a Workload's admission, eviction and
//! preemption are conditions), containers' `startedAt`/`finishedAt`, and each event's first and
//! last time with its count (`firstTimestamp`/`lastTimestamp`, `eventTime`, `series`).
//!
//! Configuration the work only points at (queues, flavors, classes, nodes) is left out: its
//! creation time says nothing about this incident, and which node a view cites depends on the
//! pod it picks among equals. A time that does not parse is no
//! proof of a moment and is left out too.
//!
//! Deterministic: sorted by time, then layer order, then object, kind and text; equal moments
//! once. The newest [`MAX_MOMENTS`] are kept and the rest counted, since the latest moments are
//! the ones that explain the state now. No clock of its own: times are the bundle's.

use crate::attribution::{About, attribute};
use crate::diagnosis::{Moment, MomentKind, ObjectRef, Timeline};
use crate::index::Index;
use crate::json::At as _;
use crate::layer::Layer;
use crate::view::{SubjectRef, View};
use serde_json::Value;

/// At most this many moments are shown; the rest are counted in `earlier`.
pub const MAX_MOMENTS: usize = 40;

/// Messages are cut to this many characters: the timeline says what happened, the findings
/// quote it whole.
const TEXT_MAX: usize = 160;

/// The subjects whose objects are the work itself or what happened to it.
const SUBJECTS: &[&str] = &[
    "target",
    "pod",
    "pods",
    "owners",
    "job",
    "jobSet",
    "lws",
    "leaderPod",
    "workerStatefulSet",
    "replicaSet",
    "deployment",
    "statefulSet",
    "workload",
    "podGroup",
    "resourceClaims",
    "dynamoGraphDeployment",
    "inferencePool",
];

/// The timeline of the view's work.
pub fn build(ix: &Index, view: &View) -> Timeline {
    let mut all: Vec<(Instant, Moment)> = Vec::new();
    for (r, v) in linked_objects(view) {
        object_moments(&r, v, &mut all);
    }
    for event in events(ix, view) {
        event_moments(&event, &mut all);
    }
    all.sort_by(|a, b| {
        (a.0, a.1.layer, &a.1.object, a.1.kind, &a.1.text, &a.1.time).cmp(&(
            b.0,
            b.1.layer,
            &b.1.object,
            b.1.kind,
            &b.1.text,
            &b.1.time,
        ))
    });
    all.dedup_by(|a, b| a.1 == b.1);
    let earlier = all.len().saturating_sub(MAX_MOMENTS);
    Timeline {
        moments: all.into_iter().skip(earlier).map(|(_, m)| m).collect(),
        earlier,
    }
}

/// Each object of [`SUBJECTS`] once, with its JSON as the view holds it.
fn linked_objects(view: &View) -> Vec<(ObjectRef, &Value)> {
    let mut out: Vec<(ObjectRef, &Value)> = Vec::new();
    for subject in SUBJECTS {
        let (Some(r), Some(v)) = (view.refs.get(*subject), view.value.get(*subject)) else {
            continue;
        };
        let pairs: Vec<(&ObjectRef, &Value)> = match (r, v) {
            (SubjectRef::One(r), v) => vec![(r, v)],
            (SubjectRef::Many(rs), Value::Array(vs)) => rs.iter().zip(vs).collect(),
            _ => Vec::new(),
        };
        for (r, v) in pairs {
            if !out.iter().any(|(seen, _)| seen == r) {
                out.push((r.clone(), v));
            }
        }
    }
    out
}

/// The raw events of the view (the view's own are normalized and lack their first time).
fn events(ix: &Index, view: &View) -> Vec<Value> {
    let Some(SubjectRef::Many(refs)) = view.refs.get("events") else {
        return Vec::new();
    };
    refs.iter()
        .filter_map(|r| {
            ix.get(
                group_of(&r.api_version),
                &r.kind,
                r.namespace.as_deref(),
                &r.name,
            )
        })
        .map(|id| ix.value(id))
        .collect()
}

fn group_of(api_version: &str) -> &str {
    api_version.rsplit_once('/').map_or("", |(g, _)| g)
}

/// Seconds since the epoch and the nanoseconds of the fraction: events carry microseconds, and
/// two within one second keep their order.
type Instant = (i64, u32);

/// The fraction of an RFC 3339 time (`.123456` → 123456000 ns); 0 without one.
fn nanos(time: &str) -> u32 {
    let Some(frac) = time.get(19..).and_then(|r| r.strip_prefix('.')) else {
        return 0;
    };
    let digits: String = frac
        .chars()
        .take_while(char::is_ascii_digit)
        .take(9)
        .collect();
    format!("{digits:0<9}").parse().unwrap_or(0)
}

/// A moment at `time`, if the time parses.
fn push(
    all: &mut Vec<(Instant, Moment)>,
    time: Option<&Value>,
    layer: Layer,
    object: &ObjectRef,
    kind: MomentKind,
    text: String,
    count: Option<u64>,
) {
    let Some(time) = time.and_then(Value::as_str) else {
        return;
    };
    let Some(secs) = crate::time::parse_rfc3339(time) else {
        return;
    };
    all.push((
        (secs, nanos(time)),
        Moment {
            time: time.to_string(),
            layer,
            object: object.clone(),
            kind,
            text,
            count,
        },
    ));
}

/// The layer whose decision an object of this kind records, where nothing more specific is
/// known: the first layer the kinds table gives it. A pod is made by its controller (grouping).
fn kind_layer(r: &ObjectRef) -> Layer {
    if r.kind == "Pod" {
        return Layer::Grouping;
    }
    crate::kinds::KINDS
        .iter()
        .find(|k| k.kind == r.kind && k.group == group_of(&r.api_version))
        .or_else(|| crate::kinds::KINDS.iter().find(|k| k.kind == r.kind))
        .and_then(|k| k.layers.first().copied())
        .unwrap_or(Layer::Grouping)
}

/// Creation, start, completion, conditions and containers of one object.
fn object_moments(r: &ObjectRef, v: &Value, all: &mut Vec<(Instant, Moment)>) {
    let layer = kind_layer(r);
    push(
        all,
        v.at("/metadata/creationTimestamp"),
        layer,
        r,
        MomentKind::Created,
        "created".into(),
        None,
    );
    // A pod's start is the kubelet taking it; a Job's, its controller starting pods.
    let started_layer = if r.kind == "Pod" {
        Layer::Runtime
    } else {
        layer
    };
    push(
        all,
        v.at("/status/startTime"),
        started_layer,
        r,
        MomentKind::Started,
        "started".into(),
        None,
    );
    push(
        all,
        v.at("/status/completionTime"),
        layer,
        r,
        MomentKind::Finished,
        "completed".into(),
        None,
    );
    for c in v
        .at("/status/conditions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        condition_moment(r, c, all);
    }
    for key in ["initContainerStatuses", "containerStatuses"] {
        for c in v
            .at(&format!("/status/{key}"))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            container_moments(r, c, all);
        }
    }
}

fn str_at<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

fn condition_moment(r: &ObjectRef, c: &Value, all: &mut Vec<(Instant, Moment)>) {
    let (ty, status) = (str_at(c, "type"), str_at(c, "status"));
    let (reason, message) = (str_at(c, "reason"), str_at(c, "message"));
    let layer = condition_layer(r, ty, reason, message);
    let mut text = format!("{ty}={status}");
    if !reason.is_empty() {
        text.push_str(&format!(" ({reason})"));
    }
    if !message.is_empty() {
        text.push_str(": ");
        text.push_str(&short(message));
    }
    push(
        all,
        c.get("lastTransitionTime"),
        layer,
        r,
        MomentKind::Condition,
        text,
        None,
    );
}

/// A pod's conditions by type (the scheduler's, then the kubelet's); other objects' by the
/// attribution table, then their kind.
fn condition_layer(r: &ObjectRef, ty: &str, reason: &str, message: &str) -> Layer {
    if r.kind == "Pod" {
        return match ty {
            "PodScheduled" => Layer::Placement,
            "DisruptionTarget" => attributed(r, reason, message, "").unwrap_or(Layer::Placement),
            _ => Layer::Runtime,
        };
    }
    attributed(r, reason, message, "").unwrap_or_else(|| kind_layer(r))
}

fn attributed(r: &ObjectRef, reason: &str, message: &str, component: &str) -> Option<Layer> {
    attribute(&About {
        group: group_of(&r.api_version),
        kind: &r.kind,
        name: &r.name,
        component,
        owner_group: "",
        owner_kind: "",
        reason,
        message,
        field: "",
        serves: None,
    })
    .map(|a| a.layer)
}

fn container_moments(r: &ObjectRef, c: &Value, all: &mut Vec<(Instant, Moment)>) {
    let name = str_at(c, "name");
    for (state, which) in [("lastState", "before"), ("state", "")] {
        let Some(s) = c.get(state) else { continue };
        let run = if which.is_empty() {
            String::new()
        } else {
            " (the run before)".to_string()
        };
        if let Some(running) = s.get("running") {
            push(
                all,
                running.get("startedAt"),
                Layer::Runtime,
                r,
                MomentKind::Container,
                format!("container {name} started{run}"),
                None,
            );
        }
        if let Some(t) = s.get("terminated") {
            push(
                all,
                t.get("startedAt"),
                Layer::Runtime,
                r,
                MomentKind::Container,
                format!("container {name} started{run}"),
                None,
            );
            let code = t.get("exitCode").and_then(Value::as_i64).unwrap_or(0);
            let reason = str_at(t, "reason");
            let why = if reason.is_empty() {
                format!("exit code {code}")
            } else {
                format!("{reason}, exit code {code}")
            };
            push(
                all,
                t.get("finishedAt"),
                Layer::Runtime,
                r,
                MomentKind::Container,
                format!("container {name} finished{run}: {why}"),
                None,
            );
        }
    }
}

/// An event's first and last time, both Event APIs: core/v1 `firstTimestamp`/`lastTimestamp`/
/// `count`, events.k8s.io/v1 `eventTime` and `series` (`lastObservedTime`, `count`).
fn event_moments(e: &Value, all: &mut Vec<(Instant, Moment)>) {
    let about = e
        .get("involvedObject")
        .or_else(|| e.get("regarding"))
        .cloned()
        .unwrap_or_default();
    let object = ObjectRef {
        api_version: str_at(&about, "apiVersion").to_string(),
        kind: str_at(&about, "kind").to_string(),
        namespace: about
            .get("namespace")
            .and_then(Value::as_str)
            .map(String::from),
        name: str_at(&about, "name").to_string(),
    };
    let (reason, ty) = (str_at(e, "reason"), str_at(e, "type"));
    let message = [str_at(e, "message"), str_at(e, "note")]
        .into_iter()
        .find(|m| !m.is_empty())
        .unwrap_or("");
    let component = [
        e.at("/source/component").and_then(Value::as_str),
        e.get("reportingController").and_then(Value::as_str),
    ]
    .into_iter()
    .flatten()
    .find(|c| !c.is_empty())
    .unwrap_or("");
    let layer =
        attributed(&object, reason, message, component).unwrap_or_else(|| kind_layer(&object));
    let series = e.get("series");
    let count = [
        series.and_then(|s| s.get("count")),
        e.get("count"),
        e.get("deprecatedCount"),
    ]
    .into_iter()
    .flatten()
    .find_map(Value::as_u64)
    .unwrap_or(1);
    let first = [e.get("eventTime"), e.get("firstTimestamp")]
        .into_iter()
        .flatten()
        .find(|t| t.as_str().is_some_and(|s| !s.is_empty()));
    let last = [
        series.and_then(|s| s.get("lastObservedTime")),
        e.get("lastTimestamp"),
        e.get("deprecatedLastTimestamp"),
    ]
    .into_iter()
    .flatten()
    .find(|t| t.as_str().is_some_and(|s| !s.is_empty()));
    let what = if message.is_empty() {
        format!("{ty} {reason}")
    } else {
        format!("{ty} {reason}: {}", short(message))
    };
    let seen_once = count <= 1 || first.is_none() || last.is_none() || first == last;
    if seen_once {
        push(
            all,
            first.or(last),
            layer,
            &object,
            MomentKind::Event,
            what,
            Some(count),
        );
        return;
    }
    push(
        all,
        first,
        layer,
        &object,
        MomentKind::Event,
        format!("{what} (first of {count})"),
        Some(count),
    );
    push(
        all,
        last,
        layer,
        &object,
        MomentKind::Event,
        format!("{what} (last of {count})"),
        Some(count),
    );
}

/// `s` on one line, cut at [`TEXT_MAX`] characters.
fn short(s: &str) -> String {
    let one_line: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() <= TEXT_MAX {
        return one_line;
    }
    let cut: String = one_line.chars().take(TEXT_MAX - 1).collect();
    format!("{}…", cut.trim_end())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pod() -> ObjectRef {
        ObjectRef {
            api_version: "v1".into(),
            kind: "Pod".into(),
            namespace: Some("ml".into()),
            name: "p".into(),
        }
    }

    #[test]
    fn an_event_seen_many_times_has_a_first_and_a_last_moment() {
        let mut all = Vec::new();
        let e = json!({"involvedObject": {"apiVersion": "v1", "kind": "Pod", "namespace": "ml", "name": "p"},
            "reason": "FailedScheduling", "type": "Warning", "message": "0/4 nodes are available",
            "source": {"component": "default-scheduler"}, "count": 12,
            "firstTimestamp": "2026-01-01T00:00:00Z", "lastTimestamp": "2026-01-01T00:10:00Z"});
        event_moments(&e, &mut all);
        let texts: Vec<&str> = all.iter().map(|(_, m)| m.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "Warning FailedScheduling: 0/4 nodes are available (first of 12)",
                "Warning FailedScheduling: 0/4 nodes are available (last of 12)"
            ]
        );
        assert!(
            all.iter()
                .all(|(_, m)| m.layer == Layer::Placement && m.count == Some(12))
        );
        assert_eq!(all[0].1.object, pod());
    }

    #[test]
    fn an_events_k8s_io_event_reads_event_time_and_series() {
        let mut all = Vec::new();
        let e = json!({"regarding": {"apiVersion": "v1", "kind": "Pod", "namespace": "ml", "name": "p"},
            "reason": "BackOff", "type": "Warning", "note": "Back-off restarting failed container",
            "reportingController": "kubelet", "eventTime": "2026-01-01T00:00:00.123456Z",
            "series": {"count": 3, "lastObservedTime": "2026-01-01T00:05:00.000000Z"}});
        event_moments(&e, &mut all);
        assert_eq!(all.len(), 2);
        assert_eq!(all[0].1.time, "2026-01-01T00:00:00.123456Z");
        assert_eq!(all[1].1.time, "2026-01-01T00:05:00.000000Z");
        assert!(all[1].1.text.ends_with("(last of 3)"));
        assert_eq!(all[0].1.layer, Layer::Runtime);
    }

    #[test]
    fn an_event_seen_once_is_one_moment_and_a_bad_time_none() {
        let mut all = Vec::new();
        let once = json!({"involvedObject": {"kind": "Pod", "namespace": "ml", "name": "p"},
            "reason": "Scheduled", "type": "Normal", "count": 1,
            "firstTimestamp": "2026-01-01T00:00:00Z", "lastTimestamp": "2026-01-01T00:00:00Z"});
        event_moments(&once, &mut all);
        assert_eq!(all.len(), 1);
        let bad = json!({"involvedObject": {"kind": "Pod", "name": "p"}, "reason": "X",
            "lastTimestamp": "yesterday"});
        event_moments(&bad, &mut all);
        assert_eq!(all.len(), 1, "a time that does not parse proves nothing");
    }

    #[test]
    fn pod_conditions_and_containers_belong_to_their_layers() {
        let mut all = Vec::new();
        let v = json!({"metadata": {"creationTimestamp": "2026-01-01T00:00:00Z"},
            "status": {"startTime": "2026-01-01T00:00:05Z",
              "conditions": [
                {"type": "PodScheduled", "status": "True", "lastTransitionTime": "2026-01-01T00:00:04Z"},
                {"type": "Ready", "status": "False", "reason": "ContainersNotReady",
                 "lastTransitionTime": "2026-01-01T00:00:06Z"}],
              "containerStatuses": [{"name": "main",
                "state": {"waiting": {"reason": "CrashLoopBackOff"}},
                "lastState": {"terminated": {"exitCode": 137, "reason": "OOMKilled",
                  "startedAt": "2026-01-01T00:00:07Z", "finishedAt": "2026-01-01T00:01:00Z"}}}]}});
        object_moments(&pod(), &v, &mut all);
        let got: Vec<(Layer, &str)> = all
            .iter()
            .map(|(_, m)| (m.layer, m.text.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                (Layer::Grouping, "created"),
                (Layer::Runtime, "started"),
                (Layer::Placement, "PodScheduled=True"),
                (Layer::Runtime, "Ready=False (ContainersNotReady)"),
                (Layer::Runtime, "container main started (the run before)"),
                (
                    Layer::Runtime,
                    "container main finished (the run before): OOMKilled, exit code 137"
                ),
            ]
        );
    }

    #[test]
    fn fractions_order_moments_within_a_second() {
        assert_eq!(nanos("2026-01-01T00:00:00.5Z"), 500_000_000);
        assert_eq!(nanos("2026-01-01T00:00:00.123456Z"), 123_456_000);
        assert_eq!(nanos("2026-01-01T00:00:00Z"), 0);
    }

    #[test]
    fn long_messages_are_cut_on_one_line() {
        let long = format!("first line\nsecond {}", "x".repeat(400));
        let s = short(&long);
        assert!(s.starts_with("first line second x"));
        assert_eq!(s.chars().count(), TEXT_MAX);
        assert!(s.ends_with('…'));
    }
}
