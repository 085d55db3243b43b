//! A scan as Prometheus metrics, in the text exposition format (version 0.0.4): what `scan -o
//! prometheus` prints and the exporter serves.
//!
//! One series per piece of work that does not run, labelled with the verdict (the blocking
//! layer, its state, the outlook and the rule it rests on) and the work's identity (its API
//! group too: a kueue.x-k8s.io Workload and a scheduling.k8s.io one of the same name are two
//! series, not one written twice), always valued 1, so that `sum by (layer) (kubectl_layer_blocked)` and an alert on one Job read the
//! same series. The totals by layer and state are written for every layer and state, zeros
//! included: an alert on a total must see 0, not an absent series, when nothing blocks.

use layer_core::diagnosis::GroupQueue;
use layer_core::scan_lines::{ScanLine, ScanLines};
use layer_core::{Incomplete, Layer, LayerState};
use std::fmt::Write as _;

/// The states a piece of work that does not run can be in: a layer blocks it, warns about it,
/// or nothing in the bundle explains it.
const STATES: [LayerState; 3] = [LayerState::Blocked, LayerState::Warn, LayerState::Unknown];

/// The exposition of `report` (a scan's listing: what it prints of each diagnosis), scanned
/// from a bundle of `objects` objects of which `unreadable` reads failed.
pub fn exposition(report: &ScanLines, objects: usize, unreadable: usize) -> String {
    let mut out = String::new();
    family(
        &mut out,
        "kubectl_layer_blocked",
        "A piece of work that does not run, with the layer that blocks it, the verdict's state \
         and outlook and the rule it rests on (layer and rule empty when nothing explains it), \
         and its kind, API group (empty: the core group), namespace and name.",
    );
    for d in &report.lines {
        sample(
            &mut out,
            "kubectl_layer_blocked",
            &[
                ("layer", d.layer.map_or("", |l| l.as_str())),
                ("state", d.state.as_str()),
                ("outlook", &outlook(d)),
                ("rule", d.rule.as_deref().unwrap_or("")),
                ("kind", &d.kind),
                ("group", group(d)),
                ("namespace", d.namespace.as_deref().unwrap_or("")),
                ("name", &d.name),
            ],
            1,
        );
    }
    by_cause(&mut out, report);
    family(
        &mut out,
        "kubectl_layer_blocked_work",
        "How many pieces of work do not run, by the layer that blocks them and the verdict's \
         state (layer empty: nothing in the bundle explains them).",
    );
    for (layer, state) in totals_keys() {
        let n = report
            .lines
            .iter()
            .filter(|d| d.layer == layer && d.state == state)
            .count();
        sample(
            &mut out,
            "kubectl_layer_blocked_work",
            &[
                ("layer", layer.map_or("", |l| l.as_str())),
                ("state", state.as_str()),
            ],
            n,
        );
    }
    family(
        &mut out,
        "kubectl_layer_scan_objects",
        "Objects in the bundle the scan read.",
    );
    sample(&mut out, "kubectl_layer_scan_objects", &[], objects);
    family(
        &mut out,
        "kubectl_layer_scan_unreadable",
        "Reads that failed (forbidden, failing, too slow): the layers that need them are unknown.",
    );
    sample(&mut out, "kubectl_layer_scan_unreadable", &[], unreadable);
    read_failures(&mut out, report.incomplete.as_ref());
    out
}

/// The most series `kubectl_layer_blocked_by_cause` writes: the causes holding the most work
/// first, the rest summed into one series with `cause_kind="(other)"`, so a cluster with
/// thousands of distinct causes cannot blow up a Prometheus server.
pub const MAX_CAUSE_SERIES: usize = 200;

/// How much work each cause holds ([`layer_core::groups`]): the series an alert names a queue
/// or an object by ("40 Jobs wait on cq-team-12's quota"). Its samples add up to the
/// per-object family's.
fn by_cause(out: &mut String, report: &ScanLines) {
    const NAME: &str = "kubectl_layer_blocked_by_cause";
    family(
        out,
        NAME,
        "How many pieces of work share a cause: the blocking layer, the verdict's state and \
         outlook, the rule, and the object the rule rests on (its kind, namespace and name, and \
         for a ClusterQueue the flavors the evidence names; empty when it rests on the work's \
         own objects). Beyond the biggest causes, the rest are one \
         series with cause_kind \"(other)\".",
    );
    let mut groups = layer_core::groups::of_lines(&report.lines);
    // The biggest first, whatever their layer; a stable sort keeps the report's order on ties.
    groups.sort_by_key(|g| std::cmp::Reverse(g.count));
    let rest: usize = groups.iter().skip(MAX_CAUSE_SERIES).map(|g| g.count).sum();
    let kept = &groups[..groups.len().min(MAX_CAUSE_SERIES)];
    for g in kept {
        sample(out, NAME, &cause_labels(g), g.count);
    }
    if rest > 0 {
        sample(out, NAME, &[("cause_kind", "(other)")], rest);
    }
    queue_places(out, kept);
}

/// The labels that name a group's cause, the same in every family by cause.
fn cause_labels(g: &layer_core::diagnosis::Group) -> Vec<(&'static str, &str)> {
    let cause = g.cause.as_ref();
    vec![
        ("layer", g.layer.map_or("", |l| l.as_str())),
        ("state", g.state.as_str()),
        ("outlook", g.outlook.map_or("", |o| o.as_str())),
        ("rule", g.rule.as_deref().unwrap_or("")),
        ("cause_kind", cause.map_or("", |c| c.kind.as_str())),
        (
            "cause_namespace",
            cause.and_then(|c| c.namespace.as_deref()).unwrap_or(""),
        ),
        ("cause_name", cause.map_or("", |c| c.name.as_str())),
        (
            "cause_flavor",
            cause.and_then(|c| c.flavor.as_deref()).unwrap_or(""),
        ),
    ]
}

/// For the causes that are a queue (a Kueue ClusterQueue, a KAI Queue): how many wait in it,
/// the first and last places their work holds, and the minutes until those turns where the
/// bundle proves a rate. An alert can then say "40 Jobs wait on cq-team-12's quota, the first
/// at place 3 of 536".
fn queue_places(out: &mut String, groups: &[layer_core::diagnosis::Group]) {
    let queued: Vec<_> = groups
        .iter()
        .filter_map(|g| Some((cause_labels(g), g.queue.as_ref()?)))
        .collect();
    type Values = fn(&GroupQueue) -> Vec<((&'static str, String), u64)>;
    let families: [(&str, &str, Values); 3] = [
        (
            "kubectl_layer_cause_queue_pending",
            "For a cause that is a queue: how many pieces of work wait in it (the labels as in \
             kubectl_layer_blocked_by_cause, and the source of the count: bundle, visibilityApi \
             or mixed).",
            |q| {
                q.of.map(|of| (("source", q.source.clone()), of))
                    .into_iter()
                    .collect()
            },
        ),
        (
            "kubectl_layer_cause_queue_position",
            "For a cause that is a queue: the first and last 1-based places (end=\"first\", \
             end=\"last\") the cause's work holds in it.",
            |q| {
                let ends = q
                    .positions
                    .map(|(first, last)| [("first", first), ("last", last)]);
                ends.into_iter()
                    .flatten()
                    .map(|(e, p)| (("end", e.to_string()), p))
                    .collect()
            },
        ),
        (
            "kubectl_layer_cause_queue_wait_minutes",
            "For a cause that is a queue: roughly how many minutes until its first and last \
             places have their turn, at the admission rate the bundle proves over the last hour; \
             absent when it proves none (never a guessed rate).",
            |q| {
                let last = q.outlook.as_ref().and_then(|w| w.minutes);
                [("first", q.first_minutes.or(last)), ("last", last)]
                    .into_iter()
                    .filter_map(|(e, m)| Some((("end", e.to_string()), m?)))
                    .collect()
            },
        ),
    ];
    for (name, help, values) in families {
        family(out, name, help);
        for (labels, q) in &queued {
            for ((key, value), n) in values(q) {
                let mut all = labels.clone();
                all.push((key, &value));
                sample(out, name, &all, n);
            }
        }
    }
}

/// Whether every read the scan needed worked, and each one that failed with what it left
/// unjudged: totals of zero from a scan that could not list the pods are no all-clear.
fn read_failures(out: &mut String, incomplete: Option<&Incomplete>) {
    family(
        out,
        "kubectl_layer_scan_complete",
        "1 if every read the scan needs worked; 0 if some failed (each is a \
         kubectl_layer_scan_read_failed series): the series above then count only what could be \
         judged, and are no all-clear.",
    );
    sample(
        out,
        "kubectl_layer_scan_complete",
        &[],
        u8::from(incomplete.is_none()),
    );
    family(
        out,
        "kubectl_layer_scan_read_failed",
        "A read the scan needed that failed: what it read, why it failed, the layers it leaves \
         unjudged, and whether work of its kind went unlisted.",
    );
    for r in incomplete.into_iter().flat_map(|i| &i.reads) {
        let layers: Vec<&str> = r.layers.iter().map(|l| l.as_str()).collect();
        let m = &r.read;
        sample(
            out,
            "kubectl_layer_scan_read_failed",
            &[
                ("resource", m.resource.as_deref().unwrap_or(&m.kind)),
                ("namespace", m.namespace.as_deref().unwrap_or("")),
                ("name", m.name.as_deref().unwrap_or("")),
                ("why", &m.why),
                ("layers", &layers.join(",")),
                (
                    "work_unlisted",
                    if r.work_unlisted { "true" } else { "false" },
                ),
            ],
            1,
        );
    }
}

/// Every (layer, state) the totals are written for: each layer blocked or warning, and no layer
/// with nothing known.
fn totals_keys() -> impl Iterator<Item = (Option<Layer>, LayerState)> {
    Layer::ALL
        .into_iter()
        .flat_map(|l| STATES[..2].iter().map(move |&s| (Some(l), s)))
        .chain(std::iter::once((None, STATES[2])))
}

/// The work's API group: empty for the core group (and for a target without its apiVersion).
fn group(d: &ScanLine) -> &str {
    layer_core::bundle::group_of(d.api_version.as_deref().unwrap_or(""))
}

/// The verdict's outlook (`never`, `waiting`) as the contract's JSON spells it; empty where it
/// has none.
fn outlook(d: &ScanLine) -> String {
    d.outlook
        .and_then(|o| serde_json::to_value(o).ok())
        .and_then(|v| v.as_str().map(String::from))
        .unwrap_or_default()
}

/// `# HELP` and `# TYPE` of a gauge.
pub fn family(out: &mut String, name: &str, help: &str) {
    family_of(out, name, help, "gauge");
}

/// `# HELP` and `# TYPE` of a family of any type.
pub fn family_of(out: &mut String, name: &str, help: &str, kind: &str) {
    let _ = writeln!(out, "# HELP {name} {}", escape_help(help));
    let _ = writeln!(out, "# TYPE {name} {kind}");
}

/// One sample line.
pub fn sample(
    out: &mut String,
    name: &str,
    labels: &[(&str, &str)],
    value: impl std::fmt::Display,
) {
    out.push_str(name);
    if !labels.is_empty() {
        out.push('{');
        for (i, (k, v)) in labels.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            let _ = write!(out, "{k}=\"{}\"", escape_label(v));
        }
        out.push('}');
    }
    let _ = writeln!(out, " {value}");
}

/// A label value as the format wants it: backslash, double quote and line feed escaped.
fn escape_label(v: &str) -> String {
    let mut s = String::with_capacity(v.len());
    for c in v.chars() {
        match c {
            '\\' => s.push_str("\\\\"),
            '"' => s.push_str("\\\""),
            '\n' => s.push_str("\\n"),
            c => s.push(c),
        }
    }
    s
}

/// HELP text: backslash and line feed escaped (a double quote stays as it is).
fn escape_help(v: &str) -> String {
    v.replace('\\', "\\\\").replace('\n', "\\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_values_are_escaped_as_the_format_says() {
        assert_eq!(escape_label(r#"a"b\c"#), r#"a\"b\\c"#);
        assert_eq!(escape_label("two\nlines"), "two\\nlines");
        assert_eq!(escape_label("plain/ünïcode"), "plain/ünïcode");
        assert_eq!(
            escape_help("a \"quoted\" \\ line\nnext"),
            "a \"quoted\" \\\\ line\\nnext"
        );
    }

    #[test]
    fn a_sample_without_labels_has_no_braces() {
        let mut s = String::new();
        sample(&mut s, "m", &[], 3);
        sample(&mut s, "m", &[("a", "x"), ("b", "")], 1);
        assert_eq!(s, "m 3\nm{a=\"x\",b=\"\"} 1\n");
    }

    /// A line of work waiting on ClusterQueue `cq`.
    fn waiting_on(cq: &str, name: &str) -> ScanLine {
        ScanLine {
            state: LayerState::Blocked,
            layer: Some(Layer::Admission),
            outlook: Some(layer_core::Outlook::Waiting),
            rule: Some("admission/waiting-for-quota".into()),
            cause: Some(layer_core::diagnosis::Cause {
                kind: "ClusterQueue".into(),
                namespace: None,
                name: cq.into(),
                flavor: None,
            }),
            headline: String::new(),
            kind: "Job".into(),
            namespace: Some("ml".into()),
            name: name.into(),
            api_version: Some("batch/v1".into()),
            status: "Pending".into(),
            lang: None,
            queue: None,
        }
    }

    /// Series by cause count the work of each cause, the biggest beyond the bound summed into
    /// one `(other)` series, so they add up to the per-object series.
    #[test]
    fn series_by_cause_count_each_cause_and_stay_bounded() {
        let mut lines: Vec<ScanLine> = (0..40)
            .map(|i| waiting_on("cq-team-12", &format!("j{i}")))
            .collect();
        lines.extend((0..MAX_CAUSE_SERIES + 5).map(|i| waiting_on(&format!("cq-{i}"), "x")));
        let report = ScanLines {
            lines,
            incomplete: None,
        };
        let text = exposition(&report, 1, 0);
        let series: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with("kubectl_layer_blocked_by_cause{"))
            .collect();
        assert_eq!(
            series.len(),
            MAX_CAUSE_SERIES + 1,
            "the bound and one (other)"
        );
        assert!(
            series[0].contains("cause_kind=\"ClusterQueue\"")
                && series[0].contains("cause_name=\"cq-team-12\"")
                && series[0].ends_with("} 40"),
            "{}",
            series[0]
        );
        assert!(
            series
                .last()
                .unwrap()
                .starts_with("kubectl_layer_blocked_by_cause{cause_kind=\"(other)\"} 6"),
            "{series:?}"
        );
        let total: usize = series
            .iter()
            .map(|l| l.rsplit(' ').next().unwrap().parse::<usize>().unwrap())
            .sum();
        assert_eq!(total, report.lines.len());
    }

    /// A cause that is a queue writes how many wait in it, the first and last places its work
    /// holds and the minutes to those turns; a cause that is no queue writes none of these.
    #[test]
    fn queue_causes_write_their_places() {
        let placed = |name: &str, position: u64| {
            let mut l = waiting_on("cq-team-12", name);
            l.queue = Some(layer_core::scan_lines::LineQueue {
                by: "kueue".into(),
                queue: "cq-team-12".into(),
                position,
                of: Some(536),
                source: "bundle".into(),
                partial: vec![],
                wait: Some(layer_core::standing::outlook(
                    &(0..30).map(|i| 10_000 - i * 60).collect::<Vec<_>>(),
                    Some(10_000),
                    position,
                )),
                visibility: None,
                visibility_why: None,
            });
            l
        };
        let mut lines = vec![
            placed("a", 40),
            placed("b", 3),
            waiting_on("cq-team-12", "c"),
        ];
        lines.push(waiting_on("cq-other", "d"));
        let text = exposition(
            &ScanLines {
                lines,
                incomplete: None,
            },
            1,
            0,
        );
        let series = |name: &str| -> Vec<String> {
            text.lines()
                .filter(|l| l.starts_with(&format!("{name}{{")))
                .map(|l| {
                    let end = l
                        .split("end=\"")
                        .nth(1)
                        .map_or("", |e| &e[..e.find('"').unwrap()]);
                    format!(
                        "{} {end} {}",
                        l.contains("cause_name=\"cq-team-12\""),
                        l.rsplit(' ').next().unwrap()
                    )
                })
                .collect()
        };
        assert_eq!(series("kubectl_layer_cause_queue_pending"), ["true  536"]);
        assert_eq!(
            series("kubectl_layer_cause_queue_position"),
            ["true first 3", "true last 40"]
        );
        // 30 admissions in the hour: half a minute a place.
        assert_eq!(
            series("kubectl_layer_cause_queue_wait_minutes"),
            ["true first 6", "true last 80"]
        );
    }

    #[test]
    fn totals_cover_every_layer_and_state_once() {
        let keys: Vec<_> = totals_keys().collect();
        assert_eq!(keys.len(), Layer::ALL.len() * 2 + 1);
        let mut dedup = keys.clone();
        dedup.dedup();
        assert_eq!(dedup.len(), keys.len());
        assert_eq!(keys.last(), Some(&(None, LayerState::Unknown)));
    }
}
