//! Every rule is proven by fixtures listed in its own file: scenario, incident or fit targets
//! where it must match and where it must not. Every rule has at least one of each, and every
//! fixture names a bundle and a target that exist.

use crate::support;
use std::collections::BTreeMap;

#[test]
fn every_rule_fires_and_stays_quiet_where_its_fixtures_say() {
    let mut indexes = BTreeMap::new();
    let mut failures = Vec::new();
    let mut fits: BTreeMap<String, Vec<(String, Vec<String>)>> = BTreeMap::new();
    for rule in support::engine().rules() {
        for f in &rule.fixtures {
            let where_ = f.bundle_dir();
            if let Some(name) = &f.fit {
                let judged = fits.entry(name.clone()).or_insert_with(|| {
                    let c = scenarios::fits::get(name).unwrap_or_else(|| {
                        panic!(
                            "rule {} names fit case {name}, which does not exist",
                            rule.id
                        )
                    });
                    let parse = |t: String| {
                        layer_core::Bundle::parse(t).unwrap_or_else(|e| panic!("{where_}: {e}"))
                    };
                    layer_core::fit::evaluate(
                        support::engine(),
                        parse(c.cluster_text()),
                        &parse(c.manifest_text()),
                        &Default::default(),
                    )
                    .unwrap_or_else(|e| panic!("{where_}: {e}"))
                    .into_iter()
                    .map(|(d, m)| {
                        let t = &d.target;
                        (
                            format!(
                                "{}/{}/{}",
                                t.kind,
                                t.namespace.as_deref().unwrap_or(""),
                                t.name
                            ),
                            m,
                        )
                    })
                    .collect()
                });
                let matched = judged
                    .iter()
                    .find(|(t, _)| t == &f.target)
                    .map(|(_, m)| m.clone())
                    .unwrap_or_else(|| panic!("rule {}: {where_} judges no {}", rule.id, f.target));
                if matched.contains(&rule.id) != f.fires {
                    failures.push(format!(
                        "{} on {} {}: {}",
                        rule.id,
                        where_,
                        f.target,
                        if f.fires {
                            "expected to fire, did not"
                        } else {
                            "fired, must not"
                        }
                    ));
                }
                continue;
            }
            let ix = indexes.entry(where_.clone()).or_insert_with(|| {
                let text = match (&f.scenario, &f.incident) {
                    (Some(name), _) => scenarios::get(name)
                        .unwrap_or_else(|| {
                            panic!(
                                "rule {} names scenario {name}, which does not exist",
                                rule.id
                            )
                        })
                        .bundle_text(),
                    (None, Some(name)) => {
                        let inc = scenarios::incidents::all()
                            .unwrap_or_else(|e| panic!("{e}"))
                            .into_iter()
                            .find(|i| &i.name == name)
                            .unwrap_or_else(|| {
                                panic!(
                                    "rule {} names incident {name}, which does not exist",
                                    rule.id
                                )
                            });
                        std::fs::read_to_string(&inc.bundle_path)
                            .unwrap_or_else(|e| panic!("{}: {e}", inc.bundle_path.display()))
                    }
                    (None, None) => unreachable!("fit fixtures are judged above"),
                };
                layer_core::Index::new(
                    layer_core::Bundle::parse(text).unwrap_or_else(|e| panic!("{where_}: {e}")),
                )
            });
            let (_, matched) = support::diagnose(ix, &f.target);
            let fired = matched.contains(&rule.id);
            if fired != f.fires {
                failures.push(format!(
                    "{} on {} {}: {}",
                    rule.id,
                    where_,
                    f.target,
                    if f.fires {
                        "expected to fire, did not"
                    } else {
                        "fired, must not"
                    }
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} fixture(s) failed:\n  {}",
        failures.len(),
        failures.join("\n  ")
    );
}

#[test]
fn every_rule_has_a_firing_and_a_quiet_fixture_and_documentation() {
    let mut problems = Vec::new();
    for rule in support::engine().rules() {
        if !rule.fixtures.iter().any(|f| f.fires) {
            problems.push(format!("{}: no fixture where it fires", rule.id));
        }
        if !rule.fixtures.iter().any(|f| !f.fires) {
            problems.push(format!("{}: no fixture where it must not fire", rule.id));
        }
        if rule.versions.as_deref().is_none_or(|v| v.trim().is_empty()) {
            problems.push(format!(
                "{}: no `versions` (which upstream versions it knows)",
                rule.id
            ));
        }
        if rule.summary.trim().is_empty() {
            problems.push(format!("{}: no summary", rule.id));
        }
        if rule.kind == layer_core::rule::RuleKind::Finding {
            if rule.why.is_empty() || rule.fix.is_empty() {
                problems.push(format!("{}: a finding needs why and fix", rule.id));
            }
            if rule.upstream.is_none() {
                problems.push(format!(
                    "{}: a finding names the upstream project that owns the behaviour",
                    rule.id
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn rule_files_are_where_their_ids_say() {
    // The id comes from the path; a file outside rules/<layer>/ would not load at all.
    for rule in support::engine().rules() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../rules")
            .join(format!("{}.yaml", rule.id));
        assert!(
            path.exists(),
            "{} has no file at {}",
            rule.id,
            path.display()
        );
    }
}

#[test]
fn a_typo_in_a_rule_is_a_load_error() {
    let bad_path = "placement/x.yaml";
    let base = "severity: block\noutlook: never\nsummary: s\nwhy: w\nfix: f\nmessage: m\n";
    let cases = [
        (format!("{base}when: {{path: $.pod.status.phse}}\nextra: 1\n"), "unknown field"),
        (format!("{base}when: {{path: \"$.pod[?@.x==]\"}}\n"), "does not parse"),
        (format!("{base}when: {{path: $.nosuchsubject.x}}\n"), "not a view subject"),
        // A misspelt fact names the rule file and the path, not just "never fires".
        (
            format!("{base}when: {{all: [{{path: $.pod.x}}, {{path: $.facts.schedulng.kinds}}]}}\n"),
            "placement/x.yaml: path `$.facts.schedulng.kinds` reads `$.facts.schedulng`, which no code builds",
        ),
        ("severity: block\noutlook: waiting\nsummary: s\nwhy: w\nfix: f\nmessage: \"{nope}\"\nwhen: {path: $.pod.x}\n".to_string(), "no condition captures"),
        // A block says whether waiting helps; nothing else does.
        (
            "severity: block\nsummary: s\nwhy: w\nfix: f\nmessage: m\nwhen: {path: $.pod.x}\n".to_string(),
            "a blocking finding states its `outlook`",
        ),
        (
            "severity: warn\noutlook: waiting\nsummary: s\nwhy: w\nfix: f\nmessage: m\nwhen: {path: $.pod.x}\n".to_string(),
            "only blocking findings have an `outlook`",
        ),
        (
            "severity: block\noutlook: soon\nsummary: s\nwhy: w\nfix: f\nmessage: m\nwhen: {path: $.pod.x}\n".to_string(),
            "unknown variant `soon`",
        ),
    ];
    for (text, want) in cases {
        let err = layer_core::rule::Rule::load(bad_path, &text)
            .expect_err(&text)
            .to_string();
        assert!(err.contains(want), "{err} should mention {want}");
    }
}

/// MultiKueue's check messages were reworded in Kueue v0.19 ("reservation" became
/// "admitted"): a Workload from either version, with nothing else that names MultiKueue (no
/// nominated clusters, no managedBy, as a pasted Workload alone shows), is still recognised,
/// and a check with another message is not taken for MultiKueue.
#[test]
fn multikueue_is_recognised_by_its_messages_before_and_after_v0_19() {
    let s = scenarios::all()
        .into_iter()
        .find(|s| s.name == "adm-kueue-holds-and-checks")
        .expect("scenario");
    let bundle: serde_json::Value = serde_json::from_str(&s.bundle_text()).expect("json");
    let workload_only = |message: &str| {
        let mut wl = bundle["items"]
            .as_array()
            .expect("items")
            .iter()
            .find(|o| o["kind"] == "Workload" && o["metadata"]["name"] == "job-mk-train-7b86d")
            .expect("workload")
            .clone();
        wl["metadata"]
            .as_object_mut()
            .expect("metadata")
            .remove("ownerReferences");
        let status = wl["status"].as_object_mut().expect("status");
        status.remove("nominatedClusterNames");
        status["admissionChecks"][0]["message"] = serde_json::json!(message);
        let ix = layer_core::Index::new(
            layer_core::Bundle::parse(serde_json::to_string(&wl).expect("json")).expect("parses"),
        );
        crate::support::diagnose(&ix, "Workload/ml/job-mk-train-7b86d").1
    };
    for message in [
        "The workload got reservation on \"worker-east\"",
        "The workload was admitted on \"worker-east\"",
        "Admitting remote lost",
        "Remote workload on worker cluster \"worker-east\" is out of sync with its user job, resetting for re-dispatch",
    ] {
        let fired = workload_only(message);
        assert!(
            fired
                .iter()
                .any(|r| r == "admission/multikueue-check-pending"),
            "{message}: {fired:?}"
        );
    }
    let fired = workload_only("waiting for the provisioning request");
    assert!(
        !fired
            .iter()
            .any(|r| r == "admission/multikueue-check-pending"),
        "{fired:?}"
    );
}

/// Every rule compiled into the build holds, for each condition, the path jsonpath-rust's
/// parser reads from its source: build.rs parsed them in the order the loader meets them, and
/// the WASM module, which has no parser, uses them as they are.
#[test]
fn every_builtin_rule_path_is_what_the_parser_reads() {
    let mut paths = 0;
    for rule in support::engine().rules() {
        for t in rule.when.tests() {
            let parsed = jsonpath_rust::parser::parse_json_path(&t.source)
                .unwrap_or_else(|e| panic!("{}: {}: {e}", rule.id, t.source));
            assert_eq!(t.path, parsed, "{}: {}", rule.id, t.source);
            paths += 1;
        }
    }
    assert!(paths > 100, "the rules' paths: {paths}");
    for r in layer_core::embedded::RULES {
        assert!(r.json, "{} is compiled into the build", r.path);
        assert!(
            r.paths.iter().all(|p| !p.is_empty()),
            "{}: every path parsed",
            r.path
        );
    }
}
