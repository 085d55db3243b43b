//! Robustness properties: whatever is wrong with the objects (fields removed, wrong types,
//! absurd values, huge sizes, deep nesting), the core gives a diagnosis or a clear error, never
//! a panic; and quantities are read exactly as Kubernetes reads them.

use layer_core::quantity;
use layer_core::{Bundle, BundleError, Diagnosis, Index, Options, ReadLimits, TargetSpec};
use proptest::prelude::*;
use serde_json::{Value, json};

use crate::support;

/// Read a bundle and diagnose every candidate target, then scan; check what every diagnosis
/// must hold. `Err` is a bundle error, which must carry a code and say something.
fn diagnose_all(text: String) -> Result<Vec<Diagnosis>, BundleError> {
    let bundle = match Bundle::parse(text) {
        Ok(b) => b,
        Err(e) => {
            assert!(!e.to_string().is_empty());
            assert!(["parse", "input-too-large", "input-too-deep"].contains(&e.code()));
            return Err(e);
        }
    };
    let ix = Index::new(bundle);
    let opts = Options::default();
    let mut out = Vec::new();
    let targets = layer_core::targets(&ix);
    // The first candidate, found without judging every candidate, is the list's first.
    assert_eq!(
        layer_core::target::first_target(&ix).as_ref(),
        targets.first()
    );
    for t in targets {
        let spec = TargetSpec {
            kind: Some(t.kind.clone()),
            namespace: t.namespace.clone(),
            name: t.name.clone(),
        };
        match layer_core::diagnose(support::engine(), &ix, &spec, &opts) {
            Ok(d) => {
                check(&d);
                out.push(d);
            }
            // Two API groups may share a kind and a name; anything else is a bug.
            Err(layer_core::TargetError::Ambiguous { .. }) => {}
            Err(e) => panic!("listed target {} does not resolve: {e}", t.value),
        }
    }
    let scan = layer_core::scan(support::engine(), &ix, &opts);
    for d in &scan.diagnoses {
        check(d);
    }
    Ok(out)
}

fn check(d: &Diagnosis) {
    assert_eq!(d.layers.len(), 6, "{}", d.target.name);
    assert!(
        !d.verdict.headline.is_empty(),
        "{}: empty headline",
        d.target.name
    );
    serde_json::to_string(d).expect("a diagnosis serializes");
    layer_core::render::text(d, layer_core::render::Style { color: false });
    layer_core::render::markdown(d);
}

fn list(items: Vec<Value>) -> String {
    json!({"apiVersion": "v1", "kind": "List", "items": items}).to_string()
}

fn node(gpus: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "gpu-1", "labels": {"nvidia.com/gpu.present": "true"}},
           "status": {"allocatable": {"nvidia.com/gpu": gpus, "cpu": "16", "memory": "64Gi"},
                      "capacity": {"nvidia.com/gpu": "8"},
                      "conditions": [{"type": "Ready", "status": "True"}]}})
}

fn pod(request: Value, conditions: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "trainer-0", "namespace": "ml", "uid": "u1"},
           "spec": {"containers": [{"name": "main", "image": "x",
                                    "resources": {"limits": {"nvidia.com/gpu": request}, "requests": {"cpu": request}}}]},
           "status": {"phase": "Pending", "conditions": conditions}})
}

fn unschedulable() -> Value {
    json!([{"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
            "message": "0/1 nodes are available: 1 Insufficient nvidia.com/gpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."}])
}

#[test]
fn absurd_quantities_give_a_diagnosis() {
    for (request, allocatable) in [
        (json!(1e308), json!("8")),
        (json!("1e308"), json!("8")),
        (json!(-4), json!("8")),
        (json!("-4"), json!("-8")),
        (json!("4"), json!(1e308)),
        (json!("1e999"), json!("1e999")),
        (json!("0.000000000001"), json!("0")),
        (json!("9Ei"), json!("9223372036854775807Ki")),
        (json!("lots"), json!(true)),
        (json!(null), json!([1, 2])),
        (json!({"a": 1}), json!({})),
    ] {
        let text = list(vec![
            node(allocatable.clone()),
            pod(request.clone(), unschedulable()),
        ]);
        let ds = diagnose_all(text).unwrap_or_else(|e| panic!("{request} / {allocatable}: {e}"));
        let pod = ds
            .iter()
            .find(|d| d.target.kind == "Pod")
            .unwrap_or_else(|| panic!("{request} / {allocatable}: the pod was not diagnosed"));
        // The scheduler said no: whatever the numbers, the pod is not judged fine.
        assert_ne!(
            pod.verdict.state,
            layer_core::LayerState::Ok,
            "{request} / {allocatable}"
        );
    }
}

#[test]
fn ten_thousand_conditions_and_long_strings_give_a_diagnosis() {
    let mut conditions: Vec<Value> = (0..10_000)
        .map(|i| json!({"type": format!("Custom{i}"), "status": "False", "reason": "R", "message": "m"}))
        .collect();
    conditions.extend(unschedulable().as_array().cloned().unwrap_or_default());
    let ds = diagnose_all(list(vec![
        node(json!("8")),
        pod(json!("4"), Value::Array(conditions)),
    ]))
    .expect("reads");
    assert!(ds.iter().any(|d| d.target.kind == "Pod"));

    let long = "x".repeat(1 << 20);
    let mut p = pod(json!("4"), unschedulable());
    p["metadata"]["name"] = json!(long.clone());
    p["metadata"]["annotations"] = json!({"note": long.clone()});
    p["status"]["conditions"][0]["message"] = json!(format!("0/1 nodes are available: {long}"));
    let ds = diagnose_all(list(vec![node(json!("8")), p])).expect("reads");
    assert!(ds.iter().any(|d| d.target.name == long));
}

#[test]
fn deep_nesting_inside_an_object_is_read_or_refused_by_the_limit() {
    // Inside the default limit (a List and a pod take 4 levels): read and diagnosed.
    let deep = |n: usize| -> Value {
        let mut v = json!("leaf");
        for _ in 0..n {
            v = json!([v]);
        }
        v
    };
    let mut p = pod(json!("4"), unschedulable());
    p["spec"]["deep"] = deep(120);
    assert!(diagnose_all(list(vec![node(json!("8")), p.clone()])).is_ok());
    // Past it: the error names the limit and the flag, as JSON and as YAML.
    p["spec"]["deep"] = deep(200);
    let value = json!({"apiVersion": "v1", "kind": "List", "items": [node(json!("8")), p]});
    let text = value.to_string();
    let e = diagnose_all(text.clone()).unwrap_err();
    assert_eq!(e.code(), "input-too-deep");
    assert!(
        e.to_string().contains("more than 128 levels") && e.to_string().contains("--max-depth"),
        "{e}"
    );
    let yaml = serde_yaml_ng::to_string(&value).expect("serializes as YAML");
    let e = diagnose_all(yaml).unwrap_err();
    assert_eq!(e.code(), "input-too-deep", "{e}");
    // Raised to the ceiling, a field nested right up to it reads in full, diagnoses and scans
    // (on a test thread's 2 MiB stack, unoptimized: the ceiling is safe).
    let limits = ReadLimits {
        max_depth: ReadLimits::MAX_DEPTH_JSON,
        ..ReadLimits::default()
    };
    let mut p = pod(json!("4"), unschedulable());
    p["spec"]["deep"] = deep(ReadLimits::MAX_DEPTH_JSON - 4);
    p["metadata"]["annotations"] = json!({"deep": deep(ReadLimits::MAX_DEPTH_JSON - 5)});
    let text = list(vec![node(json!("8")), p]);
    let ix = Index::new(Bundle::parse_with(text, limits).expect("reads under a raised limit"));
    for d in &layer_core::scan(support::engine(), &ix, &Options::default()).diagnoses {
        check(d);
    }
    let d = layer_core::diagnose(
        support::engine(),
        &ix,
        &TargetSpec::parse("trainer-0", Some("ml")),
        &Options::default(),
    )
    .expect("diagnoses");
    check(&d);
}

#[test]
fn wrong_shapes_give_a_diagnosis_or_an_error_that_says_where() {
    let cases = [
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": []}),
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": 7}}),
        json!({"apiVersion": "v1", "kind": 3, "metadata": {"name": "p"}}),
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": "nope", "status": 5}),
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "ownerReferences": "x"}, "status": {"conditions": "x", "containerStatuses": [1, null, "a"]}}),
        json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n", "labels": []}, "status": {"allocatable": [], "capacity": "8"}}),
        json!({"apiVersion": "v1", "kind": "Event", "metadata": {"name": "e", "namespace": "ml"}, "involvedObject": "p", "count": -1}),
        json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j", "namespace": "ml"}, "spec": {"parallelism": -5, "completions": 1e308, "suspend": "yes"}}),
        json!({"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "Workload", "metadata": {"name": "w", "namespace": "ml"}, "spec": {"podSets": [{"count": -1e308}]}, "status": {"admission": {"podSetAssignments": "x"}}}),
    ];
    for c in cases {
        match diagnose_all(list(vec![c.clone()])) {
            Ok(_) => {}
            Err(e) => assert!(e.to_string().contains("document 1, items[0]"), "{c}: {e}"),
        }
    }
}

/// The objects of the smaller scenarios (fast enough to diagnose hundreds of mutations).
fn corpora() -> &'static Vec<(String, Vec<Value>)> {
    static C: std::sync::OnceLock<Vec<(String, Vec<Value>)>> = std::sync::OnceLock::new();
    C.get_or_init(|| {
        let mut all: Vec<_> = scenarios::all()
            .into_iter()
            .map(|s| {
                let text = s.bundle_text();
                let b = Bundle::parse(text.clone()).expect("scenario reads");
                (
                    text.len(),
                    s.name,
                    b.objects().iter().map(|o| b.value(o)).collect::<Vec<_>>(),
                )
            })
            .collect();
        all.sort_by_key(|(len, _, _)| *len);
        all.into_iter().take(6).map(|(_, n, o)| (n, o)).collect()
    })
}

/// Every JSON pointer inside a value.
fn pointers(v: &Value, at: String, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, c) in m {
                let p = format!("{at}/{}", k.replace('~', "~0").replace('/', "~1"));
                out.push(p.clone());
                pointers(c, p, out);
            }
        }
        Value::Array(a) => {
            for (i, c) in a.iter().enumerate() {
                let p = format!("{at}/{i}");
                out.push(p.clone());
                pointers(c, p, out);
            }
        }
        _ => {}
    }
}

#[derive(Debug, Clone)]
enum Mutation {
    Remove,
    Replace(Value),
}

fn absurd() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        prop_oneof![
            Just(1e308),
            Just(-1e308),
            Just(-1.0),
            Just(0.5),
            any::<f64>().prop_filter("finite", |f| f.is_finite())
        ]
        .prop_map(|f| json!(f)),
        prop_oneof![
            Just("-4".to_string()),
            Just("1e308".to_string()),
            Just("NaN".to_string()),
            Just("".to_string()),
            Just("<script>alert(1)</script>".to_string()),
            Just("9Ei".to_string()),
            "\\PC{0,40}",
        ]
        .prop_map(Value::from),
        (1usize..200_000).prop_map(|n| Value::from("y".repeat(n))),
        Just(json!([])),
        Just(json!({})),
        (0usize..10_000)
            .prop_map(|n| Value::Array(vec![json!({"type": "Ready", "status": "False"}); n])),
        (1usize..110).prop_map(|n| {
            let mut v = json!({});
            for _ in 0..n {
                v = json!({"a": v});
            }
            v
        }),
    ]
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![Just(Mutation::Remove), absurd().prop_map(Mutation::Replace)]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    /// Real scenario objects with fields removed or replaced by wrong types and absurd values.
    #[test]
    fn mutated_scenarios_give_a_diagnosis_or_a_clear_error(
        scenario in any::<prop::sample::Index>(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<prop::sample::Index>(), mutation()), 1..6),
    ) {
        let (name, objects) = scenario.get(corpora());
        let mut objects = objects.clone();
        for (obj, path, m) in &edits {
            let i = obj.index(objects.len());
            let mut ps = Vec::new();
            pointers(&objects[i], String::new(), &mut ps);
            if ps.is_empty() {
                continue;
            }
            let p = path.get(&ps).clone();
            let (parent, key) = p.rsplit_once('/').expect("pointers start with /");
            let key = key.replace("~1", "/").replace("~0", "~");
            let Some(target) = objects[i].pointer_mut(parent) else { continue };
            match (target, m) {
                (Value::Object(map), Mutation::Remove) => { map.remove(&key); }
                (Value::Object(map), Mutation::Replace(v)) => { map.insert(key, v.clone()); }
                (Value::Array(a), Mutation::Remove) => { a.remove(key.parse::<usize>().expect("index")); }
                (Value::Array(a), Mutation::Replace(v)) => { a[key.parse::<usize>().expect("index")] = v.clone(); }
                _ => {}
            }
        }
        match diagnose_all(list(objects)) {
            Ok(_) => {}
            Err(e) => prop_assert!(
                e.code() == "input-too-deep" || e.to_string().starts_with("document 1, items["),
                "{name}: {e}"
            ),
        }
    }

    /// Any text at all: a diagnosis or an error, never a panic.
    #[test]
    fn any_text_is_read_or_refused(text in "\\PC{0,400}") {
        let _ = diagnose_all(text);
    }
}

// ---------------------------------------------------------------------------------------------
// Quantities, against k8s.io/apimachinery resource.ParseQuantity (its quantity_test.go tables).

#[test]
fn quantities_parse_as_apimachinery_parses_them() {
    let gi = 1024f64.powi(3);
    for (text, want) in [
        ("0", 0.0),
        ("0n", 0.0),
        ("0Ki", 0.0),
        ("1", 1.0),
        ("8Ki", 8.0 * 1024.0),
        ("7Mi", 7.0 * 1024.0 * 1024.0),
        ("6Gi", 6.0 * gi),
        ("5Ti", 5.0 * 1024.0 * gi),
        ("4Pi", 4.0 * 1024.0 * 1024.0 * gi),
        ("3Ei", 3.0 * 1024f64.powi(6)),
        ("5n", 5e-9),
        ("4u", 4e-6),
        ("3m", 3e-3),
        ("500m", 0.5),
        ("8k", 8e3),
        ("50k", 5e4),
        ("7M", 7e6),
        ("6G", 6e9),
        ("5T", 5e12),
        ("2P", 2e15),
        ("1E", 1e18),
        ("12E", 12e18),
        ("1E-3", 1e-3),
        ("1e3", 1e3),
        ("1E6", 1e6),
        ("1e+3", 1e3),
        ("1.3E+6", 1.3e6),
        ("1.53E12", 1.53e12),
        ("100.035k", 100_035.0),
        ("0.5e-2", 0.005),
        ("10.035M", 10_035_000.0),
        ("1.5", 1.5),
        ("100.035Ki", 102_435.84),
        ("0.5Mi", 524_288.0),
        ("0.05Gi", 53_687_091.2),
        // Rounded away from zero to the nano, as apimachinery does.
        ("3.001n", 4e-9),
        ("1.1E-9", 2e-9),
        ("0.0000000001", 1e-9),
        ("0.9n", 1e-9),
        ("0.00000012345", 124e-9),
        ("0.000000000001Ki", 2e-9),
        // Binary values are capped at 2^63-1.
        ("9Ei", 9_223_372_036_854_775_807.0),
        ("9223372036854775807Ki", 9_223_372_036_854_775_807.0),
        // What apimachinery accepts beyond its grammar comment.
        (".001", 0.001),
        (".0001k", 0.1),
        ("1.", 1.0),
        ("1.G", 1e9),
        (".", 0.0),
        ("-.", 0.0),
        ("+", 0.0),
        // The JSON decoder trims white space before parsing.
        (" 1", 1.0),
        ("1 ", 1.0),
        // Beyond f64: the largest f64, never infinity.
        ("1e400", f64::MAX),
    ] {
        let got = quantity::parse(text).unwrap_or_else(|| panic!("`{text}` is a quantity"));
        assert!(
            got == want || (got - want).abs() <= want.abs() * 1e-15,
            "`{text}`: {got} != {want}"
        );
        if want != 0.0 && !text.starts_with([' ', '+', '-']) {
            assert_eq!(quantity::parse(&format!("-{text}")), Some(-got), "-{text}");
            assert_eq!(quantity::parse(&format!("+{text}")), Some(got), "+{text}");
        }
    }
}

#[test]
fn quantities_kubernetes_rejects_are_rejected() {
    for text in [
        "",
        "1.1.M",
        "1+1.0M",
        "0.1mi",
        "0.1am",
        "aoeu",
        ".5i",
        "1i",
        "-3.01i",
        "-3.01e-",
        "1e",
        "1K",
        "1 Gi",
        "0x10",
        "1e3.5",
        "1Mi3",
        "1m3",
        "--1",
        "+-1",
        "1e3Ki",
        "NaN",
        "inf",
        "Infinity",
        "1_000",
        "١",
        "1e99999999999999999999",
    ] {
        assert_eq!(quantity::parse(text), None, "`{text}` is not a quantity");
    }
}

#[test]
fn json_numbers_read_like_their_text() {
    for (v, want) in [
        (json!(4), Some(4.0)),
        (json!(-1), Some(-1.0)),
        (json!(1.5), Some(1.5)),
        (json!(1e308), Some(1e308)),
        (json!(1e-12), Some(1e-9)),
        (json!("2Gi"), Some(2.0 * 1024f64.powi(3))),
        (json!(null), None),
        (json!(true), None),
        (json!([1]), None),
    ] {
        assert_eq!(quantity::from_value(&v), want, "{v}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, failure_persistence: None, ..ProptestConfig::default() })]

    /// Any string: a finite number or `None`, never a panic.
    #[test]
    fn any_string_is_a_finite_quantity_or_none(s in "\\PC{0,64}") {
        if let Some(v) = quantity::parse(&s) {
            prop_assert!(v.is_finite(), "`{s}` gave {v}");
        }
    }

    /// Strings built from the grammar: the value is the mantissa times the suffix's factor.
    #[test]
    fn built_quantities_have_the_value_of_their_parts(
        negative in any::<bool>(),
        int in 0u64..10_000_000,
        frac in prop::option::of(0u32..1000),
        suffix in prop::sample::select(vec![
            ("", 1.0), ("m", 1e-3), ("k", 1e3), ("M", 1e6), ("G", 1e9), ("T", 1e12), ("P", 1e15),
            ("E", 1e18), ("Ki", 1024.0), ("Mi", 1048576.0), ("Gi", 1073741824.0),
            ("Ti", 1099511627776.0), ("e3", 1e3), ("E-2", 1e-2), ("e+6", 1e6),
        ]),
    ) {
        let (sfx, factor) = suffix;
        let (text, mantissa) = match frac {
            Some(f) => (format!("{int}.{f:03}{sfx}"), int as f64 + f64::from(f) / 1000.0),
            None => (format!("{int}{sfx}"), int as f64),
        };
        let text = if negative { format!("-{text}") } else { text };
        let mut want = mantissa * factor;
        if sfx.ends_with('i') {
            // apimachinery caps binary-suffixed values at 2^63-1.
            want = want.min(9_223_372_036_854_775_807.0);
        }
        let want = if negative { -want } else { want };
        let got = quantity::parse(&text).expect("a quantity");
        prop_assert!((got - want).abs() <= want.abs() * 1e-12, "`{text}`: {got} != {want}");
    }

    /// A character outside the grammar anywhere makes the string invalid.
    #[test]
    fn foreign_characters_are_rejected(
        head in "[0-9]{1,4}",
        bad in "[^0-9eEinumkKMGTP.+\\- \\t\\n\\r\\x0b\\x0c\\u{85}\\u{a0}\\u{1680}\\u{2000}-\\u{200a}\\u{2028}\\u{2029}\\u{202f}\\u{205f}\\u{3000}]",
        tail in "[0-9]{0,3}",
    ) {
        let text = format!("{head}{bad}{tail}");
        prop_assert_eq!(quantity::parse(&text), None, "`{}`", text);
    }
}
