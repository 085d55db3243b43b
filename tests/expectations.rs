//! Every scenario's targets are diagnosed exactly as `expected.json` says: verdict, layer states,
//! misalignment, headline and the set of findings.

use crate::support;

#[test]
fn every_scenario_matches_its_expectations() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for s in scenarios::all() {
        let ix = support::index(&s);
        for e in &s.expectations {
            checked += 1;
            let (d, _) = support::diagnose(&ix, &e.target);
            let mut diffs = Vec::new();
            let state = d.verdict.state.as_str();
            let layer = d.verdict.layer.map(|l| l.as_str().to_string());
            if state != e.verdict.state || layer != e.verdict.layer {
                diffs.push(format!(
                    "verdict {state}/{layer:?}, expected {}/{:?}",
                    e.verdict.state, e.verdict.layer
                ));
            }
            let outlook = d.verdict.outlook.map(|o| o.as_str().to_string());
            if outlook != e.verdict.outlook {
                diffs.push(format!(
                    "outlook {outlook:?}, expected {:?}",
                    e.verdict.outlook
                ));
            }
            let mis = d.verdict.misalignment.as_ref().map(|m| {
                (
                    m.said_yes.as_str().to_string(),
                    m.said_no.as_str().to_string(),
                )
            });
            let want = e
                .misalignment
                .as_ref()
                .map(|m| (m.said_yes.clone(), m.said_no.clone()));
            if mis != want {
                diffs.push(format!("misalignment {mis:?}, expected {want:?}"));
            }
            if !d.verdict.headline.starts_with(&e.headline) {
                diffs.push(format!(
                    "headline {:?} does not start with {:?}",
                    d.verdict.headline, e.headline
                ));
            }
            for l in &d.layers {
                let want = e.layers.get(l.layer.as_str()).map(String::as_str);
                if want != Some(l.state.as_str()) {
                    diffs.push(format!(
                        "layer {} is {} ({}), expected {want:?}",
                        l.layer.as_str(),
                        l.state.as_str(),
                        l.summary
                    ));
                }
            }
            let mut got: Vec<&str> = d.findings.iter().map(|f| f.rule.as_str()).collect();
            got.sort_unstable();
            let mut want: Vec<&str> = e.findings.iter().map(String::as_str).collect();
            want.sort_unstable();
            if got != want {
                diffs.push(format!("findings {got:?}, expected {want:?}"));
            }
            let exit = if matches!(
                d.verdict.state,
                layer_core::LayerState::Blocked | layer_core::LayerState::Warn
            ) {
                1
            } else {
                0
            };
            if exit != e.exit {
                diffs.push(format!("exit {exit}, expected {}", e.exit));
            }
            if !diffs.is_empty() {
                failures.push(format!(
                    "{} {}:\n    {}",
                    s.name,
                    e.target,
                    diffs.join("\n    ")
                ));
            }
        }
    }
    assert!(checked > 0, "no scenario was checked");
    assert!(
        failures.is_empty(),
        "{} of {checked} targets differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn every_finding_carries_evidence_and_contract_order() {
    for s in scenarios::all() {
        let ix = support::index(&s);
        for e in &s.expectations {
            let (d, _) = support::diagnose(&ix, &e.target);
            assert_eq!(d.layers.len(), 6, "{}: six layers", s.name);
            let order: Vec<_> = d.layers.iter().map(|l| l.layer).collect();
            assert_eq!(order, layer_core::Layer::ALL.to_vec());
            for f in &d.findings {
                assert!(
                    !f.evidence.is_empty(),
                    "{} {}: finding {} has no evidence",
                    s.name,
                    e.target,
                    f.rule
                );
                assert!(
                    f.rule.starts_with(&format!("{}/", f.layer.as_str())),
                    "rule id prefix matches layer"
                );
            }
            let keys: Vec<_> = d
                .findings
                .iter()
                .map(|f| (f.severity, f.layer, f.rule.clone()))
                .collect();
            let mut sorted = keys.clone();
            sorted.sort();
            assert_eq!(
                keys, sorted,
                "{}: findings sorted by severity, layer, rule",
                s.name
            );
            let mut seen = std::collections::HashSet::new();
            assert!(
                d.next.iter().all(|n| seen.insert(n)),
                "{}: next has no repeats",
                s.name
            );
        }
    }
}
