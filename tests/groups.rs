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
    let out = Command::new(env!("CARGO_BIN_EXE_gen-cluster"))
        .args(["--nodes", &nodes.to_string(), "--pods", &pods.to_string()])
        .args(["--shape", shape])
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
        Some("ClusterQueue gpu-cq")
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
        }),
        headline: "a | b <img> `x` \u{1b}]8;;".into(),
        kind: "Pod".into(),
        namespace: Some("ns|x".into()),
        name: "p".into(),
        api_version: None,
        status: "Pending".into(),
        lang: None,
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
