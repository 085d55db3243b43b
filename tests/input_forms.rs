//! The same objects in every form people paste give the same diagnosis: a List, a JSON array,
//! concatenated documents, YAML, a YAML stream, and the tool's own bundle.

use crate::support;
use layer_core::{Bundle, Index};
use serde_json::Value;

fn items(s: &scenarios::Scenario) -> Vec<Value> {
    let b = Bundle::parse(s.bundle_text()).expect("parses");
    b.objects().iter().map(|o| b.value(o)).collect()
}

fn verdicts(text: String, s: &scenarios::Scenario) -> Vec<String> {
    let ix = Index::new(Bundle::parse(text).unwrap_or_else(|e| panic!("{}: {e}", s.name)));
    s.expectations
        .iter()
        .map(|e| serde_json::to_string(&support::diagnose(&ix, &e.target).0).expect("serializes"))
        .collect()
}

#[test]
fn every_input_form_gives_the_same_diagnosis() {
    for s in scenarios::all() {
        // A bundle the tool wrote carries collection metadata (time, the APIs the cluster
        // served) that only its own form can hold; the other forms would be different input.
        if Bundle::parse(s.bundle_text()).is_ok_and(|b| b.meta().is_some()) {
            continue;
        }
        let baseline = verdicts(s.bundle_text(), &s);
        let objs = items(&s);
        let list = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": objs});
        let forms = [
            ("array", serde_json::to_string(&objs).unwrap()),
            ("concatenated", objs.iter().map(|o| serde_json::to_string_pretty(o).unwrap()).collect::<Vec<_>>().join("\n")),
            ("nested list", serde_json::to_string(&serde_json::json!({"apiVersion": "v1", "kind": "List", "items": [list.clone()]})).unwrap()),
            ("yaml list", serde_yaml_ng::to_string(&list).unwrap()),
            ("yaml stream", objs.iter().map(|o| format!("---\n{}", serde_yaml_ng::to_string(o).unwrap())).collect::<String>()),
            ("own bundle", serde_json::to_string(&serde_json::json!({"apiVersion": "v1", "kind": "List", "items": objs, "kubectlLayer": {"bundleVersion": 1}})).unwrap()),
            // What PowerShell's `>` and Notepad write: a byte-order mark first, CRLF lines.
            ("json with a BOM", format!("\u{feff}{}", serde_json::to_string_pretty(&list).unwrap().replace('\n', "\r\n"))),
            ("yaml with a BOM", format!("\u{feff}{}", serde_yaml_ng::to_string(&list).unwrap().replace('\n', "\r\n"))),
        ];
        for (form, text) in forms {
            assert_eq!(
                verdicts(text, &s),
                baseline,
                "scenario {} as {form}",
                s.name
            );
        }
    }
}

/// `kubectl cluster-info dump` printed to standard output: each scenario's objects as the
/// dump prints them (one List of them, then a log section for every pod: one whose log holds
/// an object of its own, one whose last line has no line end), with and without the line
/// kubectl before 1.19 printed last. The logs are set aside and counted in the input notes;
/// the verdicts are those of the objects alone, and an error names the line as given.
#[test]
fn a_printed_cluster_info_dump_gives_its_objects_diagnosis() {
    let mut checked = 0;
    for s in scenarios::all() {
        if Bundle::parse(s.bundle_text()).is_ok_and(|b| b.meta().is_some()) {
            continue;
        }
        let objs = items(&s);
        let pods: Vec<&Value> = objs.iter().filter(|o| o["kind"] == "Pod").collect();
        if pods.is_empty() {
            continue;
        }
        let list = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": objs});
        let mut dump = serde_json::to_string_pretty(&list).unwrap() + "\n";
        for (i, p) in pods.iter().enumerate() {
            let what = format!(
                "main of pod {}/{}",
                p["metadata"]["namespace"].as_str().unwrap_or(""),
                p["metadata"]["name"].as_str().unwrap_or("")
            );
            let log = if i % 2 == 0 {
                "{\"kind\": \"Pod\", \"metadata\": {\"name\": \"from-a-log\"}}\n"
            } else {
                "no line end"
            };
            dump += &format!(
                "==== START logs for container {what} ====\n{log}==== END logs for container {what} ====\n"
            );
        }
        let baseline = verdicts(s.bundle_text(), &s);
        for text in [
            dump.clone(),
            format!("{dump}Cluster info dumped to standard output\n"),
        ] {
            let b = Bundle::parse(text).unwrap_or_else(|e| panic!("{}: {e}", s.name));
            let note = &b.meta().expect("a note").input_notes;
            assert!(
                note[0].contains(&format!("{} container log section", pods.len())),
                "{}: {note:?}",
                s.name
            );
            assert_eq!(b.set_aside().len(), pods.len());
            let ix = Index::new(b);
            let got: Vec<String> = s
                .expectations
                .iter()
                .map(|e| {
                    let mut d = support::diagnose(&ix, &e.target).0;
                    d.input_notes.clear();
                    serde_json::to_string(&d).expect("serializes")
                })
                .collect();
            assert_eq!(got, baseline, "scenario {} as a printed dump", s.name);
        }
        let broken = format!("{dump}{{\"kind\": \"PodList\", \"items\": [}}\n");
        let e = Bundle::parse(broken).unwrap_err().to_string();
        assert!(
            e.contains(&format!("line {},", dump.lines().count() + 1)),
            "{e}"
        );
        checked += 1;
    }
    assert!(checked >= 5, "{checked} scenarios as dumps");
}

#[test]
fn later_copies_win_unless_resource_versions_say_otherwise() {
    let pod = |rv: &str, phase: &str| {
        format!(
            r#"{{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"p","namespace":"n","resourceVersion":"{rv}"}},"status":{{"phase":"{phase}"}}}}"#
        )
    };
    let b = Bundle::parse(format!(
        "{}\n{}",
        pod("20", "Running"),
        pod("10", "Pending")
    ))
    .unwrap();
    assert_eq!(
        b.value(&b.objects()[0])["status"]["phase"],
        "Running",
        "higher resourceVersion wins"
    );
    let b = Bundle::parse(format!("{}\n{}", pod("x", "Running"), pod("y", "Pending"))).unwrap();
    assert_eq!(
        b.value(&b.objects()[0])["status"]["phase"],
        "Pending",
        "later copy wins"
    );
}

#[test]
fn the_same_kind_in_two_api_groups_stays_two_objects() {
    let pg = |group: &str| {
        format!(
            r#"{{"apiVersion":"{group}","kind":"PodGroup","metadata":{{"name":"g","namespace":"n"}}}}"#
        )
    };
    let b = Bundle::parse(format!(
        "{}{}",
        pg("scheduling.run.ai/v2alpha2"),
        pg("scheduling.volcano.sh/v1beta1")
    ))
    .unwrap();
    assert_eq!(b.objects().len(), 2);
}

#[test]
fn both_event_shapes_are_read() {
    let text = r#"[
      {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"n","uid":"u1"},"status":{"phase":"Pending"}},
      {"apiVersion":"v1","kind":"Event","metadata":{"name":"e1","namespace":"n"},"involvedObject":{"kind":"Pod","name":"p","namespace":"n","uid":"u1"},"reason":"A","message":"old shape","type":"Warning","source":{"component":"kubelet"},"lastTimestamp":"2026-01-01T00:00:00Z"},
      {"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":"e2","namespace":"n"},"regarding":{"kind":"Pod","name":"p","namespace":"n","uid":"u1"},"reason":"B","note":"new shape","type":"Normal","reportingController":"kueue","eventTime":"2026-01-01T00:00:01.000000Z"}
    ]"#;
    let ix = Index::new(Bundle::parse(text).unwrap());
    let pod = ix.find("Pod", Some("n"), "p").unwrap();
    let evs: Vec<_> = ix
        .events_for(pod)
        .into_iter()
        .map(|e| ix.event(e).unwrap().message.clone())
        .collect();
    assert_eq!(evs, vec!["old shape", "new shape"]);
    assert_eq!(
        ix.newest_timestamp(),
        layer_core::time::parse_rfc3339("2026-01-01T00:00:01Z")
    );
}

/// An event is about an object when it names its uid, or names it by kind, namespace and name
/// without another uid (that would be an earlier object of the same name); one found both ways
/// counts once. `events_about` reads each once and agrees with `events_for` and `event`.
#[test]
fn events_about_an_object_are_its_own_and_each_once() {
    let ev = |name: &str, involved: &str, time: &str| {
        format!(
            r#"{{"apiVersion":"v1","kind":"Event","metadata":{{"name":"{name}","namespace":"n"}},"involvedObject":{involved},"reason":"{name}","message":"m","type":"Warning","lastTimestamp":"2026-01-01T00:00:0{time}Z"}}"#
        )
    };
    let text = format!(
        "[{}]",
        [
            r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"n","uid":"u1"},"status":{"phase":"Pending"}}"#.to_string(),
            ev("byBoth", r#"{"kind":"Pod","name":"p","namespace":"n","uid":"u1"}"#, "3"),
            ev("byName", r#"{"kind":"Pod","name":"p","namespace":"n"}"#, "1"),
            ev("earlierPod", r#"{"kind":"Pod","name":"p","namespace":"n","uid":"u0"}"#, "2"),
            ev("otherPod", r#"{"kind":"Pod","name":"q","namespace":"n"}"#, "4"),
            ev("otherKind", r#"{"kind":"Job","name":"p","namespace":"n"}"#, "5"),
        ]
        .join(",")
    );
    let ix = Index::new(Bundle::parse(text).unwrap());
    let pod = ix.find("Pod", Some("n"), "p").unwrap();
    let about = ix.events_about(pod);
    let reasons: Vec<&str> = about.iter().map(|(_, e)| e.reason.as_str()).collect();
    assert_eq!(reasons, ["byName", "byBoth"], "oldest first, each once");
    let ids: Vec<_> = about.iter().map(|(e, _)| *e).collect();
    assert_eq!(ix.events_for(pod), ids);
    for (e, info) in &about {
        assert_eq!(ix.event(*e).as_ref(), Some(info));
    }
}

/// One mistyped field costs that field, never the object's facts: an unquoted number as a
/// label value (`version: 2` in pasted YAML) or a boolean annotation once made a Pending GPU
/// pod "Unknown" that "asks for no GPU". The verdict stays, and the diagnosis says what it read
/// leniently.
#[test]
fn a_mistyped_label_costs_only_that_label() {
    let mut compared = 0;
    for s in scenarios::all() {
        let Ok(mut bundle) = serde_json::from_str::<Value>(&s.bundle_text()) else {
            continue;
        };
        let ix = Index::new(Bundle::parse(s.bundle_text()).expect("parses"));
        for e in s
            .expectations
            .iter()
            .filter(|e| e.target.starts_with("Pod/"))
        {
            let name = e.target.rsplit('/').next().unwrap_or_default();
            let Some(items) = bundle["items"].as_array_mut() else {
                continue;
            };
            for o in items.iter_mut() {
                if o["kind"] == "Pod" && o["metadata"]["name"] == name {
                    o["metadata"]["labels"]["version"] = serde_json::json!(2);
                    o["metadata"]["annotations"]["checked"] = serde_json::json!(true);
                }
            }
            let (before, _) = support::diagnose(&ix, &e.target);
            let mended = Index::new(Bundle::parse(bundle.to_string()).expect("parses"));
            let (after, _) = support::diagnose(&mended, &e.target);
            assert_eq!(
                (
                    after.verdict.state,
                    after.verdict.layer,
                    &after.target.status
                ),
                (
                    before.verdict.state,
                    before.verdict.layer,
                    &before.target.status
                ),
                "{} {}",
                s.name,
                e.target
            );
            assert!(
                after
                    .missing
                    .iter()
                    .any(|m| m.why.contains("read leniently")),
                "{} {}: the lenient reading is reported",
                s.name,
                e.target
            );
            compared += 1;
        }
    }
    assert!(compared > 20, "only {compared} pods compared");
}

/// A number no f64 holds (`1e400`) is valid JSON: the object is still read (the number kept as
/// its text, which the quantity reader takes as the largest quantity), not lost whole; and a
/// request that is no quantity at all is named under "not in the bundle" instead of vanishing
/// from the sums.
#[test]
fn huge_numbers_keep_their_object_and_unreadable_requests_are_named() {
    let pod = |limit: &str| {
        format!(
            r#"{{"apiVersion":"v1","kind":"List","items":[
            {{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"p","namespace":"ml"}},
              "spec":{{"containers":[{{"name":"c","resources":{{"limits":{{"nvidia.com/gpu":{limit}}}}}}}]}},
              "status":{{"phase":"Pending"}}}}]}}"#
        )
    };
    let ix = Index::new(Bundle::parse(pod("1e400")).expect("parses"));
    let id = ix.find("Pod", Some("ml"), "p").expect("pod");
    let v = ix.value(id);
    assert_eq!(
        v["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"],
        "1e400"
    );
    assert_eq!(
        v["status"]["phase"], "Pending",
        "the rest of the pod is read"
    );

    let ix = Index::new(Bundle::parse(pod(r#""lots""#)).expect("parses"));
    let (d, _) = support::diagnose(&ix, "Pod/ml/p");
    assert!(
        d.missing.iter().any(|m| m
            .why
            .contains(r#"resources.limits["nvidia.com/gpu"] `lots` is not a quantity"#)),
        "{:?}",
        d.missing
    );
    let ix = Index::new(Bundle::parse(pod(r#""1""#)).expect("parses"));
    let (d, _) = support::diagnose(&ix, "Pod/ml/p");
    assert!(
        !d.missing.iter().any(|m| m.why.contains("not a quantity")),
        "{:?}",
        d.missing
    );
}

/// A quantity no f64 holds digit for digit once printed the float's digits as the bundle's
/// (`99999999999999999999999999` as `100000000000000004764729344`): now it says it is
/// approximate, whether the bundle wrote it as a string, a JSON number or a YAML integer.
#[test]
fn an_overflowing_quantity_is_never_printed_as_another_exact_number() {
    let json = |limit: &str| {
        format!(
            r#"{{"apiVersion":"v1","kind":"List","items":[
            {{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"p","namespace":"ml"}},
              "spec":{{"containers":[{{"name":"c","resources":{{"limits":{{"nvidia.com/gpu":{limit}}}}}}}]}},
              "status":{{"phase":"Pending","conditions":[{{"type":"PodScheduled","status":"False","reason":"Unschedulable","message":"0/1 nodes are available: 1 Insufficient nvidia.com/gpu."}}]}}}},
            {{"apiVersion":"v1","kind":"Node","metadata":{{"name":"n"}},
              "status":{{"allocatable":{{"nvidia.com/gpu":"8"}},"capacity":{{"nvidia.com/gpu":"8"}}}}}}]}}"#
        )
    };
    let yaml = "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ml}\nspec:\n  containers:\n  - name: c\n    resources: {limits: {nvidia.com/gpu: 99999999999999999999999999}}\nstatus: {phase: Pending, conditions: [{type: PodScheduled, status: 'False', reason: Unschedulable, message: '0/1 nodes are available: 1 Insufficient nvidia.com/gpu.'}]}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: n}\nstatus: {allocatable: {nvidia.com/gpu: '8'}, capacity: {nvidia.com/gpu: '8'}}\n".to_string();
    for text in [
        json(r#""99999999999999999999999999""#),
        json("99999999999999999999999999"),
        yaml,
    ] {
        let ix = Index::new(Bundle::parse(text).expect("parses"));
        let (d, _) = support::diagnose(&ix, "Pod/ml/p");
        let all = serde_json::to_string(&d).expect("serializes");
        assert!(!all.contains("100000000000000004764729344"), "{all}");
        assert!(
            d.findings.iter().any(|f| f.message.contains("about 1e26")),
            "{:?}",
            d.findings
        );
    }
}
