//! Every scenario's targets are diagnosed exactly as `expected.json` says: verdict, layer states,
//! misalignment, headline and the set of findings.

use crate::support;

#[test]
fn every_scenario_matches_its_expectations() {
    let (checked, failures) = support::mismatches(&scenarios::all());
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
