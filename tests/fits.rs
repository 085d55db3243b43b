//! `fit`: every case of `tests/fits/` is judged as its `expected.json` says, every scenario's
//! work taken out of its bundle and fitted back gives the layer `why` gives for it (or a
//! reason listed in `tests/fits/roundtrip.json`, whose premise is checked here), and the
//! contract holds: one diagnosis per piece of work, status NotSubmitted, what is not modelled
//! said in `missing`, the same answer on any number of threads.

use crate::support;
use layer_core::fit::{FitOptions, evaluate};
use layer_core::{Bundle, Diagnosis, FitError, Index, Layer, LayerState};
use serde::Deserialize;
use serde_json::Value;

fn fit_texts(
    cluster: &str,
    manifest: &str,
    opts: &FitOptions,
) -> Result<Vec<(Diagnosis, Vec<String>)>, FitError> {
    let cluster = Bundle::parse(cluster).unwrap_or_else(|e| panic!("cluster: {e}"));
    let manifest = Bundle::parse(manifest).unwrap_or_else(|e| panic!("manifest: {e}"));
    evaluate(support::engine(), cluster, &manifest, opts)
}

fn fit_case(c: &scenarios::fits::FitCase) -> Vec<(Diagnosis, Vec<String>)> {
    fit_texts(
        &c.cluster_text(),
        &c.manifest_text(),
        &FitOptions::default(),
    )
    .unwrap_or_else(|e| panic!("fit {}: {e}", c.name))
}

fn target_of(d: &Diagnosis) -> String {
    format!(
        "{}/{}/{}",
        d.target.kind,
        d.target.namespace.as_deref().unwrap_or(""),
        d.target.name
    )
}

#[test]
fn every_fit_case_matches_its_expectations() {
    let cases = scenarios::fits::all();
    assert!(
        cases.len() >= 12,
        "a dozen fit cases at least: {}",
        cases.len()
    );
    let mut failures = Vec::new();
    for c in &cases {
        let got = fit_case(c);
        let targets: Vec<String> = got.iter().map(|(d, _)| target_of(d)).collect();
        let wanted: Vec<&str> = c.expectations.iter().map(|e| e.target.as_str()).collect();
        if targets != wanted {
            failures.push(format!(
                "{}: judged {targets:?}, expected {wanted:?}",
                c.name
            ));
            continue;
        }
        for ((d, _), e) in got.iter().zip(&c.expectations) {
            assert_eq!(d.target.status, "NotSubmitted", "{} {}", c.name, e.target);
            let diffs = support::differences(d, e, support::fit_exit(d));
            if !diffs.is_empty() {
                failures.push(format!(
                    "{} {}:\n    {}",
                    c.name,
                    e.target,
                    diffs.join("\n    ")
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Each outcome the issue names has a case: runs now, waits for quota, more than the queue
/// could ever give, larger than any node, a missing toleration, a missing RuntimeClass and
/// DeviceClass, an LWS that can never be placed whole, a KAI queue with an empty limit.
#[test]
fn the_cases_cover_every_outcome_the_contract_names() {
    let verdict = |name: &str| {
        let c = scenarios::fits::get(name).unwrap_or_else(|| panic!("fit case {name}"));
        let (d, _) = fit_case(&c).remove(0);
        (d.verdict.state, d.verdict.layer, d.verdict.outlook)
    };
    use layer_core::Outlook::{Never, Waiting};
    let cases = [
        ("job-fits-now", LayerState::Ok, None, None),
        (
            "job-waits-for-quota",
            LayerState::Blocked,
            Some(Layer::Admission),
            Some(Waiting),
        ),
        (
            "job-exceeds-quota",
            LayerState::Blocked,
            Some(Layer::Admission),
            Some(Never),
        ),
        (
            "pod-larger-than-any-node",
            LayerState::Blocked,
            Some(Layer::Placement),
            Some(Never),
        ),
        (
            "job-missing-toleration",
            LayerState::Blocked,
            Some(Layer::Placement),
            Some(Never),
        ),
        (
            "pod-runtimeclass-missing",
            LayerState::Blocked,
            Some(Layer::Runtime),
            Some(Never),
        ),
        (
            "pod-deviceclass-missing",
            LayerState::Blocked,
            Some(Layer::Device),
            Some(Never),
        ),
        (
            "lws-never-whole",
            LayerState::Blocked,
            Some(Layer::Grouping),
            Some(Never),
        ),
        (
            "kai-queue-empty-limit",
            LayerState::Blocked,
            Some(Layer::Placement),
            Some(Never),
        ),
        (
            "job-busy-now",
            LayerState::Blocked,
            Some(Layer::Placement),
            Some(Waiting),
        ),
    ];
    for (name, state, layer, outlook) in cases {
        assert_eq!(verdict(name), (state, layer, outlook), "{name}");
    }
}

/// A rule for work not submitted yet: its first condition is `$.facts.target.notSubmitted`.
fn fit_only(rule: &layer_core::rule::Rule) -> bool {
    use layer_core::rule::{Cond, Op};
    matches!(&rule.when, Cond::All(cs) if matches!(cs.first(), Some(Cond::Test(t))
        if t.source == "$.facts.target.notSubmitted" && matches!(&t.op, Op::Equals(v) if v == &Value::Bool(true))))
}

#[test]
fn fit_rules_fire_only_on_work_not_submitted() {
    let fit_only: Vec<&str> = support::engine()
        .rules()
        .iter()
        .filter(|r| fit_only(r))
        .map(|r| r.id.as_str())
        .collect();
    assert!(fit_only.len() >= 15, "{fit_only:?}");
    for s in scenarios::all() {
        let ix = support::index(&s);
        for e in &s.expectations {
            let (_, matched) = support::diagnose(&ix, &e.target);
            for r in &matched {
                assert!(
                    !fit_only.contains(&r.as_str()),
                    "{} {}: fit rule {r} fired for submitted work",
                    s.name,
                    e.target
                );
            }
        }
    }
}

#[test]
fn a_manifest_without_work_or_with_a_clashing_namespace_is_refused() {
    let c = scenarios::fits::get("job-fits-now").expect("case");
    let lq = "apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: q, namespace: ml}\nspec: {clusterQueue: gpu-cq}\n";
    match fit_texts(&c.cluster_text(), lq, &FitOptions::default()) {
        Err(e @ FitError::NoWork { .. }) => {
            assert!(e.to_string().contains("LocalQueue ml/q"), "{e}");
            assert_eq!(layer_core::Error::from(e).code(), "manifest");
        }
        other => panic!("expected NoWork, got {:?}", other.map(|v| v.len())),
    }
    let opts = FitOptions {
        namespace: Some("research".into()),
        ..FitOptions::default()
    };
    match fit_texts(&c.cluster_text(), &c.manifest_text(), &opts) {
        Err(e @ FitError::NamespaceMismatch { .. }) => {
            assert!(
                e.to_string().contains("`ml`") && e.to_string().contains("`research`"),
                "{e}"
            );
        }
        other => panic!(
            "expected NamespaceMismatch, got {:?}",
            other.map(|v| v.len())
        ),
    }
    // An object naming no namespace takes -n's, else `default`.
    let no_ns = c.manifest_text().replace("  namespace: ml\n", "");
    let got = fit_texts(&c.cluster_text(), &no_ns, &opts).expect("fits");
    assert_eq!(got[0].0.target.namespace.as_deref(), Some("research"));
    let got = fit_texts(&c.cluster_text(), &no_ns, &FitOptions::default()).expect("fits");
    assert_eq!(got[0].0.target.namespace.as_deref(), Some("default"));
}

#[test]
fn every_fit_diagnosis_says_what_it_does_not_model() {
    let c = scenarios::fits::get("job-fits-now").expect("case");
    let (d, _) = fit_case(&c).remove(0);
    for what in layer_core::fit::NOT_MODELLED {
        assert!(
            d.missing
                .iter()
                .any(|m| m.why == format!("not modelled: {what}")),
            "missing lacks {what}"
        );
    }
    // The same `why` of the same cluster says nothing of the kind.
    let ix = Index::new(Bundle::parse(c.cluster_text()).expect("parses"));
    let (w, _) = support::diagnose(&ix, "Job/ml/pretrain");
    assert!(!w.missing.iter().any(|m| m.why.starts_with("not modelled")));
}

#[test]
fn fit_gives_the_same_answer_on_any_number_of_threads_and_every_time() {
    for name in [
        "job-waits-for-quota",
        "lws-never-whole",
        "job-resourcequota",
    ] {
        let c = scenarios::fits::get(name).expect("case");
        let json = |threads| {
            let opts = FitOptions {
                threads,
                ..FitOptions::default()
            };
            let got = fit_texts(&c.cluster_text(), &c.manifest_text(), &opts).expect("fits");
            serde_json::to_string(&got.into_iter().map(|(d, _)| d).collect::<Vec<_>>())
                .expect("json")
        };
        let one = json(1);
        assert_eq!(one, json(4), "{name}: 1 against 4 threads");
        assert_eq!(one, json(1), "{name}: twice");
    }
}

#[test]
fn the_manifests_other_objects_are_applied_with_its_work() {
    // A LocalQueue the manifest brings along is the one its Job names: Kueue would admit it.
    let c = scenarios::fits::get("job-fits-now").expect("case");
    let manifest = format!(
        "apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {{name: team-new, namespace: ml}}\nspec: {{clusterQueue: gpu-cq}}\n---\n{}",
        c.manifest_text()
            .replace("queue-name: team-a", "queue-name: team-new")
    );
    let got = fit_texts(&c.cluster_text(), &manifest, &FitOptions::default()).expect("fits");
    assert_eq!(got.len(), 1, "only the Job is judged");
    assert_eq!(
        got[0].0.verdict.state,
        LayerState::Ok,
        "{}",
        got[0].0.verdict.headline
    );
    // Without it the LocalQueue is missing.
    let alone = c
        .manifest_text()
        .replace("queue-name: team-a", "queue-name: team-new");
    let got = fit_texts(&c.cluster_text(), &alone, &FitOptions::default()).expect("fits");
    assert!(
        got[0]
            .1
            .contains(&"admission/localqueue-missing".to_string()),
        "{:?}",
        got[0].1
    );
}

/// Why a scenario's work fitted back may not give the layer `why` gives, and the check of it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Divergence {
    scenario: String,
    target: String,
    /// The layer fit gives (null: it would run now, or none when the work is no fit kind).
    fit: Option<String>,
    because: Because,
    note: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
enum Because {
    /// The work is a serving object (DynamoGraphDeployment, InferencePool) or a kind fit does
    /// not take (a Volcano Job): fit refuses the manifest.
    NotAFitKind,
    /// `why`'s verdict rests on what exists only once the work was submitted: its pods'
    /// containers and the kubelet's word, its controllers' FailedCreate events, its Workload's
    /// and PodGroup's conditions. A new submission has none of it.
    AfterSubmission,
    /// The scenario writes the work's pod template short: it asks for other devices than the
    /// work's pods do. fit makes pods from the template, as the controller would.
    TemplateShort,
    /// fit judges the group whole (`grouping/group-never-placed-whole`); `why` judges its pods
    /// one by one and only warns that the group is larger than the nodes.
    WholeGroup,
    /// fit finds the layer `why` names too, and an earlier one besides (a pod no one created
    /// has no scheduler's word, so the earlier layer's first-principles finding shows).
    EarlierLayer,
    /// The work's own running pods hold what a new submission would need; set aside, they
    /// free it.
    OwnUsage,
    /// Kueue turns a JobSet or LeaderWorkerSet integration on only minutes after its CRD
    /// appears (`admission/integration-not-active-yet`); fit judges the work as Kueue takes it
    /// once it is on.
    KueueTiming,
}

fn divergences() -> Vec<Divergence> {
    let path = scenarios::fits::fits_dir().join("roundtrip.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

const FIT_KINDS: &[(&str, &str)] = &[
    ("", "Pod"),
    ("batch", "Job"),
    ("jobset.x-k8s.io", "JobSet"),
    ("leaderworkerset.x-k8s.io", "LeaderWorkerSet"),
    ("apps", "Deployment"),
    ("apps", "StatefulSet"),
];

/// The device resources a pod spec asks for (requests, else limits), summed over containers.
fn devices(spec: &Value) -> std::collections::BTreeMap<String, String> {
    let mut out = std::collections::BTreeMap::new();
    for c in spec["containers"].as_array().into_iter().flatten() {
        for k in ["limits", "requests"] {
            for (r, q) in c["resources"][k].as_object().into_iter().flatten() {
                if r.contains('/') {
                    out.insert(r.clone(), q.to_string());
                }
            }
        }
    }
    out
}

/// The pod template of a piece of work, by kind.
fn templates(v: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    for ptr in [
        "/spec/template/spec",
        "/spec/leaderWorkerTemplate/workerTemplate/spec",
        "/spec/leaderWorkerTemplate/leaderTemplate/spec",
    ] {
        out.extend(v.pointer(ptr).cloned());
    }
    for rj in v
        .pointer("/spec/replicatedJobs")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        out.extend(rj.pointer("/template/spec/template/spec").cloned());
    }
    if v["kind"] == "Pod" {
        out.extend(v.get("spec").cloned());
    }
    out
}

#[test]
fn every_scenarios_work_fitted_back_gives_the_layer_why_gives() {
    let listed = divergences();
    let mut seen = Vec::new();
    let mut failures = Vec::new();
    let (mut agree, mut total) = (0, 0);
    for s in scenarios::all() {
        let ix = support::index(&s);
        for e in &s.expectations {
            total += 1;
            let key = (s.name.clone(), e.target.clone());
            let reason = listed
                .iter()
                .find(|d| (d.scenario.clone(), d.target.clone()) == key);
            if reason.is_some() {
                seen.push(key.clone());
            }
            let (why, _) = support::diagnose(&ix, &e.target);
            let id =
                layer_core::target::resolve(&ix, &layer_core::TargetSpec::parse(&e.target, None))
                    .expect("target");
            let work = ix.owner_chain(id).last().copied().unwrap_or(id);
            let wo = ix.object(work);
            let manifest = serde_json::to_string(&ix.value(work)).expect("json");
            let why_layer = why.verdict.layer.map(|l| l.as_str().to_string());
            if !FIT_KINDS.contains(&(wo.group(), wo.kind().as_str())) {
                let refused = matches!(
                    fit_texts(&s.bundle_text(), &manifest, &FitOptions::default()),
                    Err(FitError::NoWork { .. })
                );
                match reason {
                    Some(d) if d.because == Because::NotAFitKind && d.fit.is_none() && refused => {}
                    _ => failures.push(format!(
                        "{} {}: its work {} {} is no fit kind; list it as notAFitKind",
                        s.name,
                        e.target,
                        wo.kind(),
                        wo.name
                    )),
                }
                continue;
            }
            let got = fit_texts(&s.bundle_text(), &manifest, &FitOptions::default())
                .unwrap_or_else(|err| panic!("{} {}: {err}", s.name, e.target));
            let (fit, fit_rules) = &got[0];
            // The work was taken out of the bundle before it was fitted back.
            assert!(
                fit.missing.iter().any(|m| m
                    .why
                    .starts_with("already in the cluster: fit set that copy aside")),
                "{} {}: the cluster's copy was not set aside",
                s.name,
                e.target
            );
            let fit_layer = fit.verdict.layer.map(|l| l.as_str().to_string());
            match reason {
                None if fit_layer == why_layer => agree += 1,
                None => failures.push(format!(
                    "{} {}: why says {why_layer:?}, fit says {fit_layer:?} ({}); agree, or list the reason in tests/fits/roundtrip.json",
                    s.name, e.target, fit.verdict.headline
                )),
                Some(d) => {
                    if d.fit != fit_layer {
                        failures.push(format!("{} {}: roundtrip.json says fit gives {:?}, it gives {fit_layer:?} ({})", s.name, e.target, d.fit, fit.verdict.headline));
                    }
                    if d.note.trim().is_empty() {
                        failures.push(format!("{} {}: the reason has no note", s.name, e.target));
                    }
                    if let Err(why_not) = premise(d.because, &ix, work, &why, fit, fit_rules) {
                        failures.push(format!("{} {}: {:?} does not hold: {why_not}", s.name, e.target, d.because));
                    }
                }
            }
            // A healthy scenario's work would run now: exit 0.
            if s.name == "healthy-gpu-job" {
                assert_eq!(
                    support::fit_exit(fit),
                    0,
                    "{}: {}",
                    e.target,
                    fit.verdict.headline
                );
            }
        }
    }
    for d in &listed {
        if !seen.contains(&(d.scenario.clone(), d.target.clone())) {
            failures.push(format!(
                "roundtrip.json lists {} {}, which is no scenario target",
                d.scenario, d.target
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {total}:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        agree * 3 >= total,
        "fit agrees with why on {agree} of {total} only"
    );
}

/// Whether a listed reason's premise holds of this work, its `why` and its fit.
fn premise(
    because: Because,
    ix: &Index,
    work: usize,
    why: &Diagnosis,
    fit: &Diagnosis,
    fit_rules: &[String],
) -> Result<(), String> {
    let why_layer = why.verdict.layer;
    let at_layer = || {
        why.findings
            .iter()
            .filter(move |f| Some(f.layer) == why_layer && f.severity != layer_core::Severity::Info)
    };
    match because {
        Because::NotAFitKind => Err("the work is of a fit kind".into()),
        Because::AfterSubmission => {
            let own = layer_core::fit::own_objects(ix, work);
            let own_refs: Vec<_> = own
                .iter()
                .map(|&id| layer_core::view::object_ref(ix, id))
                .collect();
            // Facts read from the work's own objects (the scheduler's word on its pods, their
            // containers, its controllers' failures, its Workload's conditions, the signals).
            const OWN_FACTS: &[&str] = &[
                "scheduling.",
                "runtime.",
                "grouping.",
                "floor.",
                "signals",
                "admission.",
            ];
            let own_fact = |e: &layer_core::Evidence| {
                e.fact
                    .as_deref()
                    .is_some_and(|f| OWN_FACTS.iter().any(|p| f.starts_with(p)))
            };
            let on_own = at_layer()
                .flat_map(|f| f.evidence.iter())
                .filter(|e| e.path.is_some() || own_fact(e))
                .any(|e| own_refs.contains(&e.object));
            let repeated = at_layer().any(|f| fit_rules.contains(&f.rule));
            match (on_own, repeated) {
                (true, false) => Ok(()),
                (false, _) => {
                    Err("no finding at why's layer cites an object of the work itself".into())
                }
                (true, true) => {
                    Err("fit repeats why's finding: it is no after-submission evidence".into())
                }
            }
        }
        Because::TemplateShort => {
            let v = ix.value(work);
            let pods = ix.descendant_pods(work);
            let pod = pods
                .first()
                .map(|&p| ix.value(p))
                .ok_or("the work has no pod in the bundle")?;
            let from_pod = devices(&pod["spec"]);
            if templates(&v).iter().any(|t| devices(t) == from_pod) {
                Err(format!(
                    "a template asks for what its pod does: {from_pod:?}"
                ))
            } else {
                Ok(())
            }
        }
        Because::WholeGroup => {
            let warned = why
                .findings
                .iter()
                .any(|f| f.rule == "grouping/group-larger-than-cluster");
            let never = fit_rules
                .iter()
                .any(|r| r == "grouping/group-never-placed-whole");
            if warned && never {
                Ok(())
            } else {
                Err(format!("why warns: {warned}, fit never: {never}"))
            }
        }
        Because::EarlierLayer => {
            let l = why_layer.ok_or("why names no layer")?;
            let row = fit.layers.iter().find(|r| r.layer == l).map(|r| r.state);
            let earlier = fit.verdict.layer.is_some_and(|f| f < l);
            if matches!(row, Some(LayerState::Blocked | LayerState::Warn)) && earlier {
                Ok(())
            } else {
                Err(format!(
                    "fit's {l} row is {row:?}, its verdict {:?}",
                    fit.verdict.layer
                ))
            }
        }
        Because::KueueTiming => {
            if why
                .findings
                .iter()
                .any(|f| f.rule == "admission/integration-not-active-yet")
            {
                Ok(())
            } else {
                Err("why does not say the integration is not on yet".into())
            }
        }
        Because::OwnUsage => {
            let bound = ix
                .descendant_pods(work)
                .iter()
                .any(|&p| ix.pod(p).is_some_and(|i| i.node.is_some() && !i.terminal()));
            if bound && fit.verdict.layer.is_none_or(|l| Some(l) != why_layer) {
                Ok(())
            } else {
                Err("the work has no running pod holding nodes' resources".into())
            }
        }
    }
}
