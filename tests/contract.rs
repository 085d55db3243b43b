//! The published contract: the JSON Schema in docs/schema/ is the one the Rust types generate,
//! every diagnosis validates against its shape, output is deterministic, and targets resolve as
//! the design says.

use crate::support;
use layer_core::{Bundle, Index, TargetError, TargetSpec};

#[test]
fn committed_schemas_are_generated_from_the_types() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/schema");
    for (name, schema) in layer_core::diagnosis::schemas() {
        let text = std::fs::read_to_string(dir.join(name))
            .unwrap_or_else(|e| panic!("docs/schema/{name}: {e}; run `cargo xtask docs`"));
        let committed: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
        assert_eq!(
            committed, schema,
            "docs/schema/{name} is stale; run `cargo xtask docs`"
        );
    }
}

#[test]
fn diagnoses_use_the_contract_names_and_are_deterministic() {
    for s in scenarios::all() {
        let ix = support::index(&s);
        for e in &s.expectations {
            let a = serde_json::to_value(support::diagnose(&ix, &e.target).0).unwrap();
            let b =
                serde_json::to_value(support::diagnose(&support::index(&s), &e.target).0).unwrap();
            assert_eq!(a, b, "{} {} is deterministic", s.name, e.target);
            assert_eq!(a["schemaVersion"], "kubectl-layer/v1");
            for key in ["target", "verdict", "layers", "findings", "next", "missing"] {
                assert!(a.get(key).is_some(), "{}: {key} present", s.name);
            }
            for key in ["state", "layer", "headline", "misalignment"] {
                assert!(
                    a["verdict"].get(key).is_some(),
                    "{}: verdict.{key} present (may be null)",
                    s.name
                );
            }
            let states = ["ok", "blocked", "warn", "unknown", "notInvolved"];
            for l in a["layers"].as_array().unwrap() {
                assert!(states.contains(&l["state"].as_str().unwrap()));
                assert!(l["decidedBy"].is_array() && l["evidence"].is_array());
            }
        }
    }
}

/// `verdict.rule` names the finding the verdict rests on: one of the findings, of the verdict's
/// layer and severity, and nothing when nothing blocks or warns.
#[test]
fn the_verdict_names_the_rule_it_rests_on() {
    let mut named = 0;
    for s in scenarios::all() {
        let ix = support::index(&s);
        for e in &s.expectations {
            let d = support::diagnose(&ix, &e.target).0;
            let what = format!("{} {}", s.name, e.target);
            let severity = match d.verdict.state {
                layer_core::LayerState::Blocked => layer_core::Severity::Block,
                layer_core::LayerState::Warn => layer_core::Severity::Warn,
                _ => {
                    assert_eq!(d.verdict.rule, None, "{what}");
                    continue;
                }
            };
            let rule = d
                .verdict
                .rule
                .as_deref()
                .unwrap_or_else(|| panic!("{what}: no rule"));
            let f = d
                .findings
                .iter()
                .find(|f| f.rule == rule)
                .unwrap_or_else(|| panic!("{what}: {rule} is not among the findings"));
            assert_eq!(Some(f.layer), d.verdict.layer, "{what}: {rule}");
            assert_eq!(f.severity, severity, "{what}: {rule}");
            named += 1;
        }
    }
    assert!(named > 50, "only {named} verdicts name a rule");
}

/// Every scenario target's timeline: each moment's time is written in the bundle, moments are
/// in time order without repeats, at most `MAX_MOMENTS` with the rest counted, and the same
/// whatever order the bundle lists its events in.
#[test]
fn timelines_are_ordered_proven_and_independent_of_event_order() {
    let mut moments = 0;
    for s in scenarios::all() {
        let text = s.bundle_text();
        let ix = support::index(&s);
        let reversed = {
            let b = layer_core::Bundle::parse(text.as_str()).unwrap();
            let values: Vec<serde_json::Value> = b.objects().iter().map(|o| b.value(o)).collect();
            // The events in reverse: the timeline sorts them itself. (The other objects keep
            // their order: which of two equal pods a view cites may follow it.)
            let (mut events, rest): (Vec<_>, Vec<_>) =
                values.into_iter().partition(|v| v["kind"] == "Event");
            events.reverse();
            let values: Vec<serde_json::Value> = rest.into_iter().chain(events).collect();
            let list = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": values});
            layer_core::Index::new(layer_core::Bundle::parse(list.to_string().as_str()).unwrap())
        };
        for e in &s.expectations {
            let what = format!("{} {}", s.name, e.target);
            let t = support::diagnose(&ix, &e.target).0.timeline;
            assert!(
                t.moments.len() <= layer_core::timeline::MAX_MOMENTS,
                "{what}"
            );
            assert!(t.earlier == 0 || t.moments.len() == layer_core::timeline::MAX_MOMENTS);
            for m in &t.moments {
                assert!(
                    text.contains(&m.time),
                    "{what}: {} is not in the bundle",
                    m.time
                );
            }
            let secs: Vec<i64> = t
                .moments
                .iter()
                .map(|m| layer_core::time::parse_rfc3339(&m.time).unwrap())
                .collect();
            assert!(
                secs.windows(2).all(|w| w[0] <= w[1]),
                "{what}: not in time order"
            );
            for (i, m) in t.moments.iter().enumerate() {
                assert!(!t.moments[..i].contains(m), "{what}: {m:?} twice");
            }
            let again = support::diagnose(&reversed, &e.target).0.timeline;
            assert_eq!(t, again, "{what}: the event order changed the timeline");
            moments += t.moments.len();
        }
    }
    assert!(moments > 500, "only {moments} moments in all the scenarios");
}

#[test]
fn targets_resolve_by_kubectl_spellings_and_report_what_is_close() {
    let text = r#"[
      {"apiVersion":"v1","kind":"Pod","metadata":{"name":"trainer-0","namespace":"ml"}},
      {"apiVersion":"v1","kind":"Pod","metadata":{"name":"trainer-0","namespace":"dev"}},
      {"apiVersion":"leaderworkerset.x-k8s.io/v1","kind":"LeaderWorkerSet","metadata":{"name":"vllm","namespace":"serving"}},
      {"apiVersion":"scheduling.run.ai/v2alpha2","kind":"PodGroup","metadata":{"name":"g","namespace":"ml"}},
      {"apiVersion":"scheduling.volcano.sh/v1beta1","kind":"PodGroup","metadata":{"name":"g","namespace":"ml"}}
    ]"#;
    let ix = Index::new(Bundle::parse(text).unwrap());
    let resolve =
        |s: &str, ns: Option<&str>| layer_core::target::resolve(&ix, &TargetSpec::parse(s, ns));
    assert!(resolve("lws/vllm", None).is_ok());
    assert!(resolve("LeaderWorkerSets/vllm", None).is_ok());
    assert!(resolve("leaderworkerset.leaderworkerset.x-k8s.io/vllm", None).is_ok());
    assert!(resolve("trainer-0", Some("ml")).is_ok());
    assert!(resolve("po/trainer-0", Some("dev")).is_ok());
    assert!(resolve("podgroups.scheduling.run.ai/g", None).is_ok());
    match resolve("trainer-0", None) {
        Err(TargetError::Ambiguous { candidates, .. }) => {
            assert_eq!(candidates, vec!["Pod/dev/trainer-0", "Pod/ml/trainer-0"])
        }
        other => panic!("expected ambiguity, got {other:?}"),
    }
    // Two PodGroups of one name in two API groups: each candidate names its group, and
    // resolves to that one object.
    match resolve("pg/g", None) {
        Err(TargetError::Ambiguous { candidates, .. }) => {
            assert_eq!(
                candidates,
                vec![
                    "PodGroup.scheduling.run.ai/ml/g",
                    "PodGroup.scheduling.volcano.sh/ml/g"
                ]
            );
            for c in &candidates {
                let id = resolve(c, None).unwrap_or_else(|e| panic!("{c}: {e}"));
                let group = c.split_once('.').unwrap().1.split_once('/').unwrap().0;
                assert_eq!(ix.object(id).group(), group, "{c}");
            }
        }
        other => panic!("expected ambiguity, got {other:?}"),
    }
    match resolve("trainer-1", Some("ml")) {
        // Suggested as arguments one can paste after `why`.
        Err(TargetError::NotFound { closest, .. }) => assert!(
            closest.iter().any(|c| c == "pod/trainer-0 -n ml"),
            "{closest:?}"
        ),
        other => panic!("expected not found, got {other:?}"),
    }
    assert!(matches!(
        resolve("flurb/x", None),
        Err(TargetError::UnknownKind { closest: None, .. })
    ));
    // A typo gets the kind it was near, as one would type it.
    match resolve("jb/x", None) {
        Err(e @ TargetError::UnknownKind { .. }) => {
            assert_eq!(e.to_string(), "unknown kind `jb`; did you mean `job`?")
        }
        other => panic!("expected unknown kind, got {other:?}"),
    }
    match resolve("jobsett/x", None) {
        Err(TargetError::UnknownKind { closest, .. }) => {
            assert_eq!(closest.as_deref(), Some("jobset"))
        }
        other => panic!("expected unknown kind, got {other:?}"),
    }
}

/// A kind the bundle only names (an event's subject, a missing owner) is a kind, not a typo:
/// the target is said to be missing, not misspelt.
#[test]
fn a_kind_named_only_by_an_event_or_an_owner_is_known() {
    let bundle = r#"{"apiVersion": "v1", "kind": "List", "items": [
      {"apiVersion": "v1", "kind": "Event", "metadata": {"name": "e1", "namespace": "aios"},
       "involvedObject": {"apiVersion": "kubeflow.org/v1", "kind": "TFJob", "namespace": "aios", "name": "train"},
       "reason": "FailedCreatePod", "type": "Warning", "message": "denied"},
      {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "w-0", "namespace": "aios",
       "ownerReferences": [{"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob", "name": "pt", "uid": "u1", "controller": true}]},
       "spec": {"containers": [{"name": "c", "image": "i"}]}, "status": {"phase": "Pending"}}
    ]}"#;
    let ix = Index::new(Bundle::parse(bundle).unwrap());
    let resolve = |t: &str| layer_core::target::resolve(&ix, &TargetSpec::parse(t, None));
    for t in [
        "TFJob/train",
        "tfjob/train",
        "tfjobs.kubeflow.org/train",
        "PyTorchJob/pt",
    ] {
        match resolve(t) {
            Err(e @ TargetError::NotFound { .. }) => {
                assert!(e.to_string().contains("is not in the bundle"), "{e}")
            }
            other => panic!("{t}: expected not found, got {other:?}"),
        }
    }
    assert!(matches!(
        resolve("TFJb/train"),
        Err(TargetError::UnknownKind { .. })
    ));
}

#[test]
fn malformed_input_names_what_and_where() {
    let cases = [
        ("", "empty"),
        (
            "{\"kind\": \"Pod\",\n \"metadata\": {\"name\": }}",
            "line 2",
        ),
        (
            r#"{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a"}},{"kind":"Pod","metadata":{"name":"b"}}]}"#,
            "items[1]",
        ),
        (
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: [unclosed\n",
            "YAML",
        ),
        ("42", "found a number"),
    ];
    for (text, want) in cases {
        let e = Bundle::parse(text).expect_err(text).to_string();
        assert!(e.contains(want), "{e:?} should mention {want:?}");
    }
}

#[test]
fn own_bundle_metadata_feeds_missing_and_now() {
    let s = scenarios::get("kueue-admitted-no-gpu-room").expect("scenario");
    let mut list: serde_json::Value = serde_json::from_str(&s.bundle_text()).unwrap();
    list["items"]
        .as_array_mut()
        .unwrap()
        .retain(|o| o["kind"] != "Node");
    list["kubectlLayer"] = serde_json::json!({
        "bundleVersion": 1, "collectedAt": "2026-11-20T10:30:00Z", "serverVersion": "v1.34.2",
        "unreadable": [{"resource": "nodes", "why": "forbidden"}], "redacted": true
    });
    let ix = Index::new(Bundle::parse(list.to_string()).unwrap());
    let (d, _) = support::diagnose(&ix, "Job/ml/trainer");
    assert!(
        d.missing.iter().any(|m| m.kind == "Node"
            && m.resource.as_deref() == Some("nodes")
            && m.why == "forbidden"),
        "{:?}",
        d.missing
    );
    let now = d.now.expect("now");
    assert_eq!(
        (now.time.as_str(), now.source.as_str()),
        ("2026-11-20T10:30:00Z", "collectedAt")
    );
    // Without nodes the device layer cannot be judged: unknown, never a guess.
    assert_eq!(d.layers[0].state, layer_core::LayerState::Unknown);
    let opts = layer_core::Options {
        now: Some("2026-12-01T00:00:00Z".into()),
        ..Default::default()
    };
    let id = layer_core::target::resolve(&ix, &TargetSpec::parse("Job/ml/trainer", None)).unwrap();
    assert_eq!(
        support::engine()
            .diagnose(&ix, id, &opts)
            .now
            .unwrap()
            .source,
        "option"
    );
}

/// The first target, found by judging candidates in the list's order until one needs
/// attention, is the first of the whole list: on every scenario and every real incident.
#[test]
fn the_first_target_is_the_first_of_the_list() {
    let mut texts: Vec<(String, String)> = scenarios::all()
        .into_iter()
        .map(|s| (s.name.clone(), s.bundle_text()))
        .collect();
    for inc in scenarios::incidents::all().expect("incidents") {
        let text = std::fs::read_to_string(&inc.bundle_path).expect("incident bundle");
        texts.push((inc.name.clone(), text));
    }
    let mut checked = 0;
    for (name, text) in texts {
        let Ok(b) = Bundle::parse(text) else { continue };
        let ix = Index::new(b);
        let all = layer_core::targets(&ix);
        assert_eq!(
            layer_core::target::first_target(&ix).as_ref(),
            all.first(),
            "{name}"
        );
        // With no target, diagnose explains that first one.
        if let Some(first) = all.first() {
            let d = layer_core::diagnose_first(support::engine(), &ix, &Default::default())
                .expect("diagnosable");
            assert_eq!(
                (d.target.kind.as_str(), d.target.name.as_str()),
                (first.kind.as_str(), first.name.as_str()),
                "{name}"
            );
            checked += 1;
        }
    }
    assert!(checked > 100, "bundles checked: {checked}");
}

/// Threads change how fast, never what: every scenario indexed and scanned on one thread and
/// on three gives the same report, byte for byte, and the same targets.
#[test]
fn scan_output_does_not_depend_on_the_number_of_threads() {
    let mut diagnosed = 0;
    for s in scenarios::all() {
        let run = |threads: usize| {
            let b = Bundle::parse(s.bundle_text()).expect("scenario parses");
            let ix = Index::build(b, threads);
            let opts = layer_core::Options {
                threads,
                ..Default::default()
            };
            let report = layer_core::scan(support::engine(), &ix, &opts);
            let targets = serde_json::to_string(&layer_core::targets(&ix)).expect("targets");
            (report, targets)
        };
        let (one, one_targets) = run(1);
        let (three, three_targets) = run(3);
        diagnosed += one.diagnoses.len();
        assert_eq!(
            serde_json::to_string(&one).expect("report"),
            serde_json::to_string(&three).expect("report"),
            "scenario {}",
            s.name
        );
        assert_eq!(one_targets, three_targets, "scenario {}", s.name);
    }
    // Enough diagnoses per scenario that the threads really shared the work.
    assert!(diagnosed > 100, "{diagnosed} diagnoses");
}

/// An ownerReference to an object the bundle lacks is named under `missing`; one that
/// resolves (by uid, or by kind and name when the uid is absent) is not.
#[test]
fn owners_absent_from_the_bundle_are_named_missing() {
    let text = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": [
        {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "train", "namespace": "ml", "uid": "00000000-0000-4000-8000-000000000001"}},
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "train-x", "namespace": "ml", "ownerReferences": [
            {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "gone-7f9c", "uid": "00000000-0000-4000-8000-000000000009"},
            {"apiVersion": "batch/v1", "kind": "Job", "name": "train", "controller": true}
        ]}, "status": {"phase": "Pending"}}
    ]})
    .to_string();
    let ix = Index::new(Bundle::parse(text).expect("parses"));
    let (d, _) = support::diagnose(&ix, "Pod/ml/train-x");
    let missing: Vec<(String, Option<String>, String)> = d
        .missing
        .iter()
        .filter(|m| m.why == "owner not in the bundle")
        .map(|m| (m.kind.clone(), m.name.clone(), m.why.clone()))
        .collect();
    assert_eq!(
        missing,
        vec![(
            "ReplicaSet".to_string(),
            Some("gone-7f9c".to_string()),
            "owner not in the bundle".to_string()
        )]
    );
    let pod = layer_core::target::resolve(&ix, &TargetSpec::parse("Pod/ml/train-x", None))
        .expect("resolves");
    let job = layer_core::target::resolve(&ix, &TargetSpec::parse("Job/ml/train", None))
        .expect("resolves");
    assert_eq!(ix.owners(pod), vec![job]);
    assert!(ix.has_owner_refs(pod));
    assert!(!ix.has_owner_refs(job));
}

/// On a large cluster a capture can hold hundreds of nodes. The message names ten and counts
/// the rest, commands act on ten, and evidence stays short.
#[test]
fn long_captures_are_cut_in_messages_commands_and_evidence() {
    let nodes = 300;
    let mut items: Vec<serde_json::Value> = (0..nodes)
        .map(|i| {
            serde_json::json!({"apiVersion": "v1", "kind": "Node",
                "metadata": {"name": format!("gpu-{i:04}"), "labels": {"nvidia.com/gpu.present": "true"}},
                "spec": {"taints": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]},
                "status": {"allocatable": {"nvidia.com/gpu": "8", "cpu": "64", "memory": "512Gi"},
                           "capacity": {"nvidia.com/gpu": "8", "cpu": "64", "memory": "512Gi"},
                           "conditions": [{"type": "Ready", "status": "True"}]}})
        })
        .collect();
    items.push(serde_json::json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "train-0", "namespace": "ml", "creationTimestamp": "2026-11-20T09:00:00Z"},
        "spec": {"containers": [{"name": "main", "image": "trainer:1",
                 "resources": {"limits": {"nvidia.com/gpu": "1"}}}]},
        "status": {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False",
            "reason": "Unschedulable", "lastTransitionTime": "2026-11-20T09:01:00Z",
            "message": format!("0/{nodes} nodes are available: {nodes} node(s) had untolerated taint(s). preemption: 0/{nodes} nodes are available: {nodes} Preemption is not helpful for scheduling.")}]}}));
    let text = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": items}).to_string();
    let ix = Index::new(Bundle::parse(text).expect("parses"));
    let (d, _) = support::diagnose(&ix, "Pod/ml/train-0");
    let f = d
        .findings
        .iter()
        .find(|f| f.rule == "placement/untolerated-taint")
        .unwrap_or_else(|| panic!("untolerated-taint fires: {:?}", d.findings));
    assert!(
        f.message.contains(&format!("and {} more", nodes - 10)),
        "{}",
        f.message
    );
    assert!(f.message.len() < 1000, "{} chars", f.message.len());
    assert!(
        f.evidence.len() <= 16,
        "{} evidence entries",
        f.evidence.len()
    );
    for cmd in &f.next {
        assert!(cmd.len() < 400, "{cmd}");
    }
    assert!(d.verdict.headline.len() < 1000, "{}", d.verdict.headline);
    // The view keeps ten rows per distinct taint, and names every node.
    let id = layer_core::target::resolve(&ix, &TargetSpec::parse("Pod/ml/train-0", None))
        .expect("resolves");
    let view = layer_core::view::build(&ix, id, None);
    let taints = &view.value["facts"]["placement"]["taints"];
    assert_eq!(taints["relevant"].as_array().map(Vec::len), Some(10));
    assert_eq!(taints["untolerated"].as_array().map(Vec::len), Some(10));
    assert_eq!(
        taints["relevantNodes"].as_array().map(Vec::len),
        Some(nodes)
    );
}

/// The report written from each diagnosis's compact text (`kubectl layer scan -o json`, the
/// npm package's `scan()`) is byte for byte what serde_json writes for the whole report,
/// pretty and compact, on every scenario and on one and two threads.
#[test]
fn the_scan_report_written_from_each_diagnosis_is_serde_jsons() {
    let mut parts = 0;
    for s in scenarios::all() {
        for threads in [1, 2] {
            let ix = Index::build(Bundle::parse(s.bundle_text()).expect("parses"), threads);
            let opts = layer_core::Options {
                threads,
                ..Default::default()
            };
            let report = layer_core::scan(support::engine(), &ix, &opts);
            let json = layer_core::target::scan_json(support::engine(), &ix, &opts, None);
            let mut pretty = Vec::new();
            json.write_pretty(&mut pretty).expect("writes");
            assert_eq!(
                String::from_utf8(pretty).expect("utf-8"),
                serde_json::to_string_pretty(&report).expect("report"),
                "scenario {}",
                s.name
            );
            assert_eq!(
                json.to_compact_string().expect("unpacks"),
                serde_json::to_string(&report).expect("report"),
                "scenario {}",
                s.name
            );
            let states: Vec<_> = json.parts().iter().map(|p| p.state).collect();
            let want: Vec<_> = report.diagnoses.iter().map(|d| d.verdict.state).collect();
            assert_eq!(states, want, "scenario {}", s.name);
            parts += json.parts().len();
        }
    }
    assert!(parts > 100, "only {parts} diagnoses written");
}

/// Scanning one namespace gives exactly the whole scan's diagnoses in that namespace.
#[test]
fn scan_of_one_namespace_is_the_whole_scan_filtered() {
    let mut compared = 0;
    for s in scenarios::all() {
        let ix = support::index(&s);
        let opts = layer_core::Options::default();
        let all = layer_core::scan(support::engine(), &ix, &opts);
        let namespaces: std::collections::BTreeSet<Option<String>> = all
            .diagnoses
            .iter()
            .map(|d| d.target.namespace.clone())
            .collect();
        for ns in namespaces.iter().flatten() {
            let one = layer_core::target::scan_namespace(support::engine(), &ix, &opts, Some(ns));
            let want: Vec<_> = all
                .diagnoses
                .iter()
                .filter(|d| d.target.namespace.as_deref() == Some(ns.as_str()))
                .collect();
            assert_eq!(
                serde_json::to_string(&one.diagnoses).expect("json"),
                serde_json::to_string(&want).expect("json"),
                "scenario {} namespace {ns}",
                s.name
            );
            compared += 1;
        }
    }
    assert!(compared > 40, "{compared} namespaces compared");
}

/// fake-gpu-operator's pool label is read from its topology (`nodePoolLabelKey`) once, and
/// every fact about the operator uses that key: the pool facts and the install facts agree.
#[test]
fn fake_gpu_facts_share_the_configured_pool_label() {
    let text = r#"{"apiVersion":"v1","kind":"List","items":[
      {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"topology","namespace":"gpu-operator"},
       "data":{"topology.yml":"nodePoolLabelKey: example.com/gpu-pool\nnodePools:\n  a100:\n    gpuCount: 4\n"}},
      {"apiVersion":"v1","kind":"Node","metadata":{"name":"n1","labels":{"example.com/gpu-pool":"a100"}},
       "status":{"allocatable":{"nvidia.com/gpu":"4"},"capacity":{"nvidia.com/gpu":"4"}}},
      {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"ml","uid":"u1"},
       "spec":{"containers":[{"name":"c","image":"i","resources":{"limits":{"nvidia.com/gpu":"1"}}}]},
       "status":{"phase":"Pending"}}]}"#;
    let ix = Index::new(Bundle::parse(text).unwrap());
    let id = layer_core::target::resolve(&ix, &TargetSpec::parse("pod/p", Some("ml"))).unwrap();
    let view = layer_core::view::build(&ix, id, None).into_value();
    assert_eq!(
        view["facts"]["fakeGpu"]["poolLabelKey"],
        "example.com/gpu-pool"
    );
    let install = &view["facts"]["device"]["fakeGpuInstall"];
    assert_eq!(install["poolLabelKey"], "example.com/gpu-pool", "{install}");
    assert_eq!(install["poolNodes"], serde_json::json!(["n1"]), "{install}");
}
