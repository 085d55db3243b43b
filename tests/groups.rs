//! scan's groups by cause (issue 40): on every scenario, incident and generated shape the groups
//! count exactly the listed diagnoses, each under the key its own diagnosis gives; the JSON
//! report writes the same groups beside (or, with `summary`, instead of) the diagnoses; and the
//! default text of a generated backlog fits on a screen.

use crate::support;
use layer_core::groups::GroupKey;
use layer_core::render::{self, Style};
use layer_core::scan_lines::{ScanLine, ScanLines};
use layer_core::{Bundle, Index, Options};
use std::collections::BTreeMap;
use std::process::Command;

/// A generated cluster's bundle (`gen-cluster`, the benchmarks' maker).
fn generated(shape: &str, nodes: u32, pods: u32) -> Index {
    generated_with_seed(shape, nodes, pods, 1)
}

/// [`generated`] from another seed.
fn generated_with_seed(shape: &str, nodes: u32, pods: u32, seed: u64) -> Index {
    let out = Command::new(env!("CARGO_BIN_EXE_gen-cluster"))
        .args(["--nodes", &nodes.to_string(), "--pods", &pods.to_string()])
        .args(["--shape", shape, "--seed", &seed.to_string()])
        .output()
        .expect("gen-cluster runs");
    assert!(out.status.success(), "gen-cluster --shape {shape} failed");
    Index::new(
        Bundle::parse(String::from_utf8(out.stdout).expect("UTF-8"))
            .expect("a generated cluster reads"),
    )
}

/// Every bundle the property is held on: scenarios, incidents and each generated shape.
fn bundles() -> Vec<(String, Index)> {
    let mut all: Vec<(String, Index)> = scenarios::all()
        .iter()
        .map(|s| (format!("scenario {}", s.name), support::index(s)))
        .collect();
    for i in scenarios::incidents::all().expect("incidents load") {
        let text = std::fs::read_to_string(&i.bundle_path).expect("incident bundle");
        if let Ok(b) = Bundle::parse(text) {
            all.push((format!("incident {}", i.name), Index::new(b)));
        }
    }
    for shape in ["usual", "backlog", "taint-storm", "plugin-down", "mixed"] {
        all.push((format!("generated {shape}"), generated(shape, 20, 400)));
    }
    all
}

/// The groups count each listed diagnosis once, under the key its own line gives, with its
/// namespace; the JSON report's groups are the report's; the summary leaves the diagnoses out.
#[test]
fn groups_count_every_listed_diagnosis_once_under_its_own_cause() {
    let engine = support::engine();
    let opts = Options::default();
    for (name, ix) in bundles() {
        let report = layer_core::scan(engine, &ix, &opts);
        let lines: Vec<ScanLine> = report.diagnoses.iter().map(ScanLine::of).collect();
        let mut want: BTreeMap<GroupKey, usize> = BTreeMap::new();
        for l in &lines {
            *want.entry(GroupKey::of(l)).or_default() += 1;
        }
        let mut got: BTreeMap<GroupKey, usize> = BTreeMap::new();
        for g in &report.groups {
            let key = GroupKey {
                layer: g.layer,
                state: g.state,
                rule: g.rule.clone(),
                cause: g.cause.clone(),
                outlook: g.outlook,
            };
            assert!(got.insert(key, g.count).is_none(), "{name}: a key twice");
            assert!(
                g.count > 0 && !g.examples.is_empty(),
                "{name}: an empty group"
            );
            for e in &g.examples {
                let l = lines
                    .iter()
                    .find(|l| l.name == e.name && l.namespace == e.namespace && l.kind == e.kind)
                    .unwrap_or_else(|| panic!("{name}: example {} is not listed", e.name));
                assert_eq!(GroupKey::of(l).rule, g.rule, "{name}: {}", e.name);
            }
        }
        assert_eq!(got, want, "{name}: groups ≠ the diagnoses' own keys");
        for g in &report.groups {
            queue_agrees_with_its_lines(&name, g, &lines);
        }
        let json = layer_core::target::scan_json(engine, &ix, &opts, None);
        let written: serde_json::Value =
            serde_json::from_str(&json.to_compact_string().unwrap()).unwrap();
        assert_eq!(
            written["groups"],
            serde_json::to_value(&report.groups).unwrap(),
            "{name}"
        );
        assert_eq!(
            written["diagnoses"].as_array().map(Vec::len),
            Some(report.diagnoses.len())
        );
        let summary: serde_json::Value =
            serde_json::from_str(&json.summary().to_compact_string().unwrap()).unwrap();
        assert!(
            summary.get("diagnoses").is_none(),
            "{name}: summary lists work"
        );
        assert_eq!(summary["groups"], written["groups"], "{name}");
    }
}

/// A group's queue is its own work's places in the queue it rests on: the first and the last
/// of them, how many hold one, the longest line; for a group resting on no queue, its work's
/// places in the one KAI Queue every piece of it waits in; no queue without such a place.
fn queue_agrees_with_its_lines(name: &str, g: &layer_core::diagnosis::Group, lines: &[ScanLine]) {
    let key = |l: &ScanLine| GroupKey::of(l);
    let own: Vec<&ScanLine> = lines
        .iter()
        .filter(|l| {
            let k = key(l);
            (k.layer, k.state, &k.rule, &k.cause, k.outlook)
                == (g.layer, g.state, &g.rule, &g.cause, g.outlook)
        })
        .collect();
    let on_queue = g
        .cause
        .as_ref()
        .is_some_and(|c| matches!(c.kind.as_str(), "ClusterQueue" | "Queue"));
    let places: Vec<&layer_core::scan_lines::LineQueue> = if on_queue {
        own.iter()
            .filter_map(|l| l.queue.as_ref())
            .filter(|q| {
                g.cause.as_ref().is_some_and(|c| {
                    q.queue == c.name
                        && matches!(
                            (c.kind.as_str(), q.by.as_str()),
                            ("ClusterQueue", "kueue") | ("Queue", "kai-scheduler")
                        )
                })
            })
            .collect()
    } else {
        let all: Vec<_> = own.iter().filter_map(|l| l.queue.as_ref()).collect();
        let one_kai_queue = all.len() == own.len()
            && all.iter().all(|q| {
                q.by == "kai-scheduler" && all.first().is_some_and(|f| f.queue == q.queue)
            });
        if one_kai_queue { all } else { Vec::new() }
    };
    let Some(q) = &g.queue else {
        assert!(
            places.is_empty(),
            "{name}: {:?} has places but no queue",
            g.cause
        );
        return;
    };
    let first = places.iter().map(|p| p.position).min();
    let last = places.iter().map(|p| p.position).max();
    assert_eq!(q.positions, first.zip(last), "{name}: {:?}", g.cause);
    assert_eq!(q.placed, places.len(), "{name}");
    assert!(q.placed <= g.count, "{name}");
    assert_eq!(q.of, places.iter().filter_map(|p| p.of).max(), "{name}");
}

/// A quota group as the flavor test compares them: its cause, its size, its places.
type QuotaGroup = (String, usize, Option<(u64, u64)>);

/// A ClusterQueue's cause names the flavor Kueue's message says lacks quota, so work short of
/// one flavor is a group apart from work short of another: on a generated backlog whose
/// Workloads wait on two flavors, the quota group splits in two that together hold the same
/// work, each with its own places in the one queue.
#[test]
fn quota_groups_split_by_the_flavor_the_message_names() {
    let out = Command::new(env!("CARGO_BIN_EXE_gen-cluster"))
        .args(["--nodes", "50", "--pods", "1000", "--shape", "backlog"])
        .output()
        .expect("gen-cluster runs");
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    let one = Index::new(Bundle::parse(text.clone()).expect("reads"));
    // Every other message names another flavor.
    let mut two = String::with_capacity(text.len());
    for (i, piece) in text.split("in flavor h100,").enumerate() {
        if i > 0 {
            two.push_str(if i % 2 == 0 {
                "in flavor h100,"
            } else {
                "in flavor a100,"
            });
        }
        two.push_str(piece);
    }
    let two = Index::new(Bundle::parse(two).expect("reads"));
    let quota = |ix: &Index| -> Vec<QuotaGroup> {
        let report = layer_core::scan(support::engine(), ix, &Options::default());
        let mut g: Vec<_> = report
            .groups
            .iter()
            .filter(|g| g.rule.as_deref() == Some("admission/waiting-for-quota"))
            .map(|g| {
                let c = g.cause.as_ref().expect("a cause");
                (
                    c.display(),
                    g.count,
                    g.queue.as_ref().and_then(|q| q.positions),
                )
            })
            .collect();
        g.sort();
        g
    };
    let before = quota(&one);
    let after = quota(&two);
    assert_eq!(before.len(), 1, "{before:?}");
    assert_eq!(before[0].0, "ClusterQueue gpu-cq, flavor h100");
    let names: Vec<&str> = after.iter().map(|g| g.0.as_str()).collect();
    assert_eq!(
        names,
        [
            "ClusterQueue gpu-cq, flavor a100",
            "ClusterQueue gpu-cq, flavor h100"
        ]
    );
    assert_eq!(after[0].1 + after[1].1, before[0].1);
    assert!(
        after.iter().all(|g| g.1 > 100 && g.2.is_some()),
        "{after:?}"
    );
    // Both wait in the one queue, their places interleaved: one holds its head, and each
    // one's range reaches into the other's.
    let (a, b) = (after[0].2.unwrap(), after[1].2.unwrap());
    assert_eq!(a.0.min(b.0), 1, "{after:?}");
    assert!(a.0 < b.1 && b.0 < a.1, "{after:?}");
}

/// On a generated backlog the quota group says where its work stands in gpu-cq, in the text
/// and in Markdown.
#[test]
fn a_backlogs_quota_group_says_its_places_in_the_queue() {
    let ix = generated("backlog", 50, 1000);
    let lines = layer_core::target::scan_lines(support::engine(), &ix, &Options::default(), None);
    let groups = layer_core::groups::of_lines(&lines.lines);
    let quota = groups
        .iter()
        .find(|g| g.rule.as_deref() == Some("admission/waiting-for-quota"))
        .expect("a quota group");
    let q = quota.queue.as_ref().expect("its queue");
    assert_eq!((q.by.as_str(), q.queue.as_str()), ("kueue", "gpu-cq"));
    assert_eq!(q.positions.map(|p| p.0), Some(1));
    assert!(
        q.of.is_some_and(|of| of as usize >= q.placed) && q.placed > 100,
        "{q:?}"
    );
    let text = into_string(|out| render::scan_groups_text_to(out, &lines, Style { color: false }));
    let want = format!(
        "Queue: positions 1–{} of {} in ClusterQueue gpu-cq",
        q.positions.unwrap().1,
        q.of.unwrap()
    );
    assert!(text.contains(&want), "{text}");
    let md = into_string(|out| render::scan_groups_markdown_to(out, &lines));
    assert!(md.contains("- ClusterQueue gpu-cq, flavor h100 ("), "{md}");
    // A group resting on no queue says nothing of one.
    assert!(
        groups
            .iter()
            .filter(|g| g.cause.as_ref().is_none_or(|c| c.kind != "ClusterQueue"))
            .all(|g| g.queue.is_none())
    );
}

/// Work that waits in one ClusterQueue is one group resting on it, and the RuntimeClass a
/// runtime rule names is the cause it rests on: the object, not the rule alone.
#[test]
fn a_generated_backlog_groups_by_the_object_each_cause_rests_on() {
    let ix = generated("backlog", 50, 1000);
    let report = layer_core::scan(support::engine(), &ix, &Options::default());
    let rests_on = |rule: &str| {
        report
            .groups
            .iter()
            .find(|g| g.rule.as_deref() == Some(rule))
            .and_then(|g| g.cause.as_ref())
            .map(|c| c.display())
    };
    assert_eq!(
        rests_on("admission/waiting-for-quota").as_deref(),
        Some("ClusterQueue gpu-cq, flavor h100")
    );
    assert_eq!(
        rests_on("runtime/runtime-handler-not-configured").as_deref(),
        Some("RuntimeClass nvidia")
    );
    let quota = &report.groups[report
        .groups
        .iter()
        .position(|g| g.rule.as_deref() == Some("admission/waiting-for-quota"))
        .unwrap()];
    assert!(quota.count > 100 && quota.namespaces.len() > 1, "{quota:?}");
}

/// The default text of a backlog with thousands of pieces of work fits on a screen, names the
/// biggest cause first in its layer, and the listing (`--all`) still has a line per piece.
#[test]
fn the_default_text_of_a_backlog_fits_on_a_screen() {
    let ix = generated("backlog", 100, 2000);
    let lines = layer_core::target::scan_lines(support::engine(), &ix, &Options::default(), None);
    assert!(lines.lines.len() > 1000, "{} listed", lines.lines.len());
    let text = into_string(|out| render::scan_groups_text_to(out, &lines, Style { color: false }));
    let count = text.lines().count();
    assert!(count <= 40, "{count} lines:\n{text}");
    let first = text.lines().nth(1).unwrap_or_default();
    assert!(
        first.contains("admission/waiting-for-quota on ClusterQueue gpu-cq"),
        "{text}"
    );
    assert!(
        text.contains(&format!("{} pieces of work", lines.lines.len())),
        "{text}"
    );
    let all = into_string(|out| render::scan_text_to(out, &lines, Style { color: false }));
    assert!(
        all.lines().count() > lines.lines.len(),
        "--all lists each piece"
    );
    let md = into_string(|out| render::scan_groups_markdown_to(out, &lines));
    assert!(md.lines().count() <= 40, "{md}");
}

/// Bundle text in a group (a namespace, a name, a headline) is escaped in Markdown and cleaned
/// for the terminal, as in the listing.
#[test]
fn group_text_from_the_bundle_is_escaped() {
    let mut l = ScanLine {
        state: layer_core::LayerState::Blocked,
        layer: Some(layer_core::Layer::Runtime),
        outlook: None,
        rule: Some("runtime/crash-loop".into()),
        cause: Some(layer_core::diagnosis::Cause {
            kind: "RuntimeClass".into(),
            namespace: None,
            name: "evil|<b>\u{1b}[31m".into(),
            flavor: Some("a|<i>".into()),
        }),
        headline: "a | b <img> `x` \u{1b}]8;;".into(),
        kind: "Pod".into(),
        namespace: Some("ns|x".into()),
        name: "p".into(),
        api_version: None,
        status: "Pending".into(),
        lang: None,
        queue: None,
    };
    let lines = ScanLines {
        lines: vec![l.clone(), {
            l.name = "q".into();
            l
        }],
        incomplete: None,
    };
    let md = into_string(|out| render::scan_groups_markdown_to(out, &lines));
    assert!(
        !md.contains("<b>") && !md.contains("<img>") && !md.contains('\u{1b}'),
        "{md}"
    );
    let row = md.lines().find(|r| r.starts_with("| 2 |")).expect(&md);
    assert_eq!(row.matches(" | ").count(), 5, "{row}");
    let text = into_string(|out| render::scan_groups_text_to(out, &lines, Style { color: false }));
    assert!(!text.contains('\u{1b}'), "{text:?}");
}

fn into_string(write: impl FnOnce(&mut Vec<u8>) -> std::io::Result<()>) -> String {
    let mut out = Vec::new();
    write(&mut out).expect("written to memory");
    String::from_utf8(out).expect("UTF-8")
}

/// The grouped outputs from verdict lines (`target::scan_group_lines`: each piece of work's
/// view and finding rules, only the examples diagnosed whole) are the ones the whole per-item
/// diagnoses give, on every scenario, incident and generated shape (two seeds, one and two
/// threads), in English and Korean: the groups as JSON, the grouped text and the grouped
/// Markdown byte for byte, and every line but a non-example's headline field for field.
#[test]
fn grouped_outputs_from_verdict_lines_are_the_per_item_ones() {
    let english = support::engine();
    let korean = english
        .in_lang(layer_core::Lang::Ko)
        .expect("the Korean rules load");
    let mut all = bundles();
    for shape in ["usual", "backlog", "taint-storm", "plugin-down", "mixed"] {
        all.push((
            format!("generated {shape}, seed 2"),
            generated_with_seed(shape, 24, 480, 2),
        ));
    }
    for (name, ix) in &all {
        let threads = if name.starts_with("generated") {
            vec![1, 2]
        } else {
            vec![0]
        };
        let engines = match name.as_str() {
            n if n.starts_with("generated backlog") || n.starts_with("scenario") => {
                vec![english, &korean]
            }
            _ => vec![english],
        };
        for (engine, &threads) in engines
            .iter()
            .flat_map(|e| threads.iter().map(move |t| (e, t)))
        {
            let opts = Options {
                threads,
                ..Options::default()
            };
            let what = format!("{name} ({}, {threads} threads)", engine.lang());
            let full = layer_core::target::scan_lines(engine, ix, &opts, None);
            let fast = layer_core::target::scan_group_lines(engine, ix, &opts, None);
            assert_same_grouped_outputs(&what, &full, &fast);
        }
    }
}

/// What [`grouped_outputs_from_verdict_lines_are_the_per_item_ones`] holds of two listings.
fn assert_same_grouped_outputs(what: &str, full: &ScanLines, fast: &ScanLines) {
    assert_eq!(full.incomplete, fast.incomplete, "{what}");
    assert_eq!(full.lines.len(), fast.lines.len(), "{what}");
    let groups = |l: &ScanLines| {
        serde_json::to_string(&layer_core::groups::of_lines(&l.lines)).expect("JSON")
    };
    assert!(groups(full) == groups(fast), "{what}: groups differ");
    let text = |l: &ScanLines| {
        into_string(|out| render::scan_groups_text_to(out, l, Style { color: false }))
    };
    let (a, b) = (text(full), text(fast));
    assert!(a == b, "{what}: text differs\n{a}\n---\n{b}");
    let md = |l: &ScanLines| into_string(|out| render::scan_groups_markdown_to(out, l));
    assert!(md(full) == md(fast), "{what}: Markdown differs");
    // Line by line: a verdict line that is no example leaves its headline empty, and only that.
    for (f, g) in full.lines.iter().zip(&fast.lines) {
        let mut g = g.clone();
        if g.headline.is_empty() {
            g.headline.clone_from(&f.headline);
        }
        assert_eq!(f, &g, "{what}");
    }
}
