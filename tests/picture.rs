//! The Mermaid picture in `-o markdown` says what the diagnosis says: on every scenario target
//! each layer's node has the layer's state class, the blocking mark sits on the blocking layer
//! only, and the dashed arrow runs from saidYes to saidNo exactly when there is a misalignment.
//! Text from a bundle (or a layer name from a translation) cannot leave its label or the block.

use crate::support;
use layer_core::picture::{self, BLOCKING_CLASS};
use layer_core::{Bundle, Diagnosis, Index, Layer, LayerState};
use std::collections::BTreeMap;

/// The ```mermaid block of a Markdown report, without its fences.
fn mermaid_block(md: &str) -> Vec<&str> {
    let mut lines = md.lines().skip_while(|l| *l != "```mermaid");
    assert_eq!(
        lines.next(),
        Some("```mermaid"),
        "no mermaid block in:\n{md}"
    );
    lines.take_while(|l| *l != "```").collect()
}

/// Node id → the classes its `class` lines give it.
fn classes<'a>(block: &[&'a str]) -> BTreeMap<&'a str, Vec<&'a str>> {
    let mut out: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for l in block {
        if let Some(rest) = l.trim().strip_prefix("class ") {
            let (id, class) = rest.split_once(' ').expect("class ID NAME");
            out.entry(id).or_default().push(class);
        }
    }
    out
}

/// The misalignment arrows: (from, to).
fn arrows<'a>(block: &[&'a str]) -> Vec<(&'a str, &'a str)> {
    block
        .iter()
        .filter_map(|l| {
            let (from, rest) = l.trim().split_once(" -.->|")?;
            Some((from, rest.rsplit_once("| ")?.1))
        })
        .collect()
}

#[test]
fn every_scenario_s_picture_shows_its_diagnosis() {
    let mut checked = 0;
    let (mut with_arrow, mut with_block) = (0, 0);
    for s in scenarios::all() {
        let ix = support::index(&s);
        for e in &s.expectations {
            let (d, _) = support::diagnose(&ix, &e.target);
            let md = layer_core::render::markdown(&d);
            let table = md.find("| layer | state |").expect("layer table");
            let block_at = md.find("```mermaid").expect("mermaid block");
            assert!(
                block_at > table,
                "{}: the picture comes after the table",
                e.target
            );
            let block = mermaid_block(&md);
            let classes = classes(&block);
            let what = format!("{} {}", s.name, e.target);
            for l in &d.layers {
                let c = classes.get(l.layer.as_str()).unwrap_or_else(|| {
                    panic!("{what}: no class for {}:\n{}", l.layer, block.join("\n"))
                });
                assert_eq!(c[0], l.state.as_str(), "{what}: {}'s state class", l.layer);
                let blocking =
                    d.verdict.state == LayerState::Blocked && d.verdict.layer == Some(l.layer);
                assert_eq!(
                    c.contains(&BLOCKING_CLASS),
                    blocking,
                    "{what}: blocking mark on {}",
                    l.layer
                );
                let node = block
                    .iter()
                    .find(|n| n.trim().starts_with(&format!("{}[\"", l.layer.as_str())))
                    .unwrap_or_else(|| panic!("{what}: no node {}", l.layer));
                assert!(
                    node.contains(picture::state_words(l.state)),
                    "{what}: {} shows its state word: {node}",
                    l.layer
                );
                assert_eq!(node.contains("blocks here"), blocking, "{what}: {node}");
            }
            with_block += usize::from(d.verdict.state == LayerState::Blocked);
            let expected: Vec<(&str, &str)> = d
                .verdict
                .misalignment
                .iter()
                .map(|m| (m.said_yes.as_str(), m.said_no.as_str()))
                .collect();
            assert_eq!(arrows(&block), expected, "{what}:\n{}", block.join("\n"));
            with_arrow += expected.len();
            checked += 1;
        }
    }
    assert!(checked > 100, "{checked} targets");
    assert!(
        with_arrow > 0 && with_block > 0 && with_arrow < checked,
        "{with_arrow} arrows, {with_block} blocked of {checked}"
    );
}

#[test]
fn the_path_runs_in_order_with_device_under_placement_and_runtime() {
    let s = scenarios::get("healthy-gpu-job").expect("scenario");
    let (d, _) = support::diagnose(&support::index(&s), &s.expectations[0].target);
    let md = layer_core::render::markdown(&d);
    let block = mermaid_block(&md);
    assert!(block.contains(&"  admission --> grouping --> placement --> runtime --> serving"));
    assert!(block.contains(&"  placement --- device") && block.contains(&"  runtime --- device"));
}

const HOSTILE: &str = "x\"] --> y[\"owned\"]\n```\n<img src=x onerror=alert(1)>|`tick`|;#quot;";

/// A placed pod whose scheduler name (what the placement layer says decided) is hostile.
fn hostile_bundle() -> String {
    let name = serde_json::to_string(HOSTILE).expect("json");
    format!(
        r#"{{"apiVersion":"v1","kind":"List","items":[
        {{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"p","namespace":"ml","uid":"u1","creationTimestamp":"2026-01-01T00:00:00Z"}},
          "spec":{{"schedulerName":{name},"nodeName":"n1","containers":[{{"name":"c","image":"i"}}]}},
          "status":{{"phase":"Running","conditions":[{{"type":"PodScheduled","status":"True"}}]}}}}]}}"#
    )
}

/// The block's lines hold nothing but what the picture itself writes: each line is a node, a
/// link or a class statement, and every label's quotes are the picture's own.
fn assert_contained(block: &[&str], md: &str) {
    for l in block {
        let l = l.trim();
        let quotes = l.matches('"').count();
        let shape = l == "flowchart LR"
            || l.starts_with("classDef ")
            || l.starts_with("class ")
            || (quotes == 2 && (l.ends_with("\"]") || l.contains(" -.->|\"")))
            || (quotes == 0 && (l.contains(" --> ") || l.contains(" --- ")));
        assert!(shape, "a line the picture did not write: {l}\n{md}");
        for raw in ['`', '<', '>', '|', '['] {
            if let Some((_, label)) = l.split_once('"') {
                let label = label.rsplit_once('"').map_or(label, |x| x.0);
                let label = label
                    .replace("<b>", "")
                    .replace("</b>", "")
                    .replace("<br/>", "");
                assert!(!label.contains(raw), "{raw:?} raw in a label: {l}");
            }
        }
    }
    assert_eq!(md.matches("```mermaid").count(), 1, "{md}");
}

#[test]
fn hostile_text_stays_in_its_label_and_in_the_block() {
    let ix = Index::new(Bundle::parse(hostile_bundle()).expect("parses"));
    let (mut d, _) = support::diagnose(&ix, "Pod/ml/p");
    let placement = d
        .layers
        .iter()
        .find(|l| l.layer == Layer::Placement)
        .expect("placement");
    assert!(
        placement.decided_by.iter().any(|b| b.contains("owned")),
        "the hostile scheduler name reaches the picture, so the test tests something: {:?}",
        placement.decided_by
    );
    // A misalignment's words, and a layer name from a translation file, are held the same way.
    d.verdict.misalignment = Some(layer_core::diagnosis::Misalignment {
        said_yes: Layer::Admission,
        said_no: Layer::Placement,
        why: HOSTILE.to_string(),
        said_yes_by_configuration: false,
    });
    let md = layer_core::render::markdown(&d);
    let block = mermaid_block(&md);
    assert_contained(&block, &md);
    assert_eq!(arrows(&block), [("admission", "placement")]);
    let hostile_name = |_: Layer| HOSTILE.to_string();
    let pictured = picture::mermaid(&d, &hostile_name);
    assert_contained(&mermaid_block(&pictured), &pictured);
    assert!(
        pictured.ends_with("```\n") && pictured.matches("```").count() == 2,
        "{pictured}"
    );
    // Nothing is lost: the words are there as entities.
    assert!(
        pictured.contains("#60;img src#61;x onerror#61;alert#40;1#41;#62;"),
        "{pictured}"
    );
}

#[test]
fn a_diagnosis_that_blocks_nowhere_marks_no_layer() {
    let s = scenarios::get("healthy-gpu-job").expect("scenario");
    let (d, _): (Diagnosis, _) = support::diagnose(&support::index(&s), &s.expectations[0].target);
    assert_eq!(d.verdict.state, LayerState::Ok);
    let md = layer_core::render::markdown(&d);
    let block = mermaid_block(&md);
    assert!(
        classes(&block)
            .values()
            .all(|c| !c.contains(&BLOCKING_CLASS))
    );
    assert!(arrows(&block).is_empty() && !md.contains("blocks here"));
}
