//! Every key a rule's path names must appear in some view: a misspelt fact or field in a rule
//! file (`$.facts.grouping.lws.nestedWorkerSet`) would make the rule silently never fire, and
//! only its firing fixture would notice. The views of every scenario target and every real
//! incident are the catalogue of keys that exist; a rule path whose keys none of them has fails
//! here with the rule and the path named.

use crate::support;
use serde_json::Value;
use std::collections::BTreeSet;

/// The view of every case's target (scenario targets and real incidents): the case's name,
/// the target, the view.
fn case_views() -> Vec<(String, String, Value)> {
    crate::verdicts::cases()
        .into_iter()
        .map(|(name, ix, target)| {
            let spec = layer_core::TargetSpec::parse(&target, None);
            let id = layer_core::target::resolve(&ix, &spec).expect("targets resolve");
            let view = layer_core::view::build(&ix, id, None).into_value();
            (name, target, view)
        })
        .collect()
}

/// The built-in rules' path tests that `pick` chooses.
fn builtin_tests(
    engine: &layer_core::Engine,
    pick: fn(&layer_core::rule::Test) -> bool,
) -> Vec<&layer_core::rule::Test> {
    engine
        .rules()
        .iter()
        .flat_map(|r| r.when.tests())
        .filter(|t| pick(t))
        .collect()
}

/// Key paths of a JSON value: `facts.resources[].name`, array elements folded into `[]`.
fn keys(v: &Value, at: &str, out: &mut BTreeSet<String>) {
    match v {
        Value::Object(m) => {
            // A filter or `*` over an object selects its members: `services[]` is any member.
            let any = format!("{at}[]");
            for (k, x) in m {
                let p = if at.is_empty() {
                    k.clone()
                } else {
                    format!("{at}.{k}")
                };
                out.insert(p.clone());
                keys(x, &p, out);
                if !at.is_empty() {
                    out.insert(any.clone());
                    keys(x, &any, out);
                }
            }
        }
        Value::Array(a) => {
            let p = format!("{at}[]");
            out.insert(p.clone());
            for x in a {
                keys(x, &p, out);
            }
        }
        _ => {}
    }
}

/// The key paths a rule path names: its own (`$.facts.resources[?@.fit=='x'].name` →
/// `facts.resources[].name`) and those its filters read (`facts.resources[].fit`).
fn named_keys(path: &str) -> Vec<String> {
    let filter_key = regex::Regex::new(r"@\.([A-Za-z_][A-Za-z0-9_]*)").expect("regex");
    let mut out = Vec::new();
    let mut cur = String::new();
    let b = path.as_bytes();
    let mut i = 1; // after `$`
    while i < b.len() {
        match b[i] {
            b'.' => {
                let start = i + 1;
                let mut j = start;
                while j < b.len() && b[j] != b'.' && b[j] != b'[' {
                    j += 1;
                }
                let name = &path[start..j];
                if name == "*" {
                    cur.push_str(".*");
                } else {
                    if !cur.is_empty() {
                        cur.push('.');
                    }
                    cur.push_str(name);
                    out.push(cur.clone());
                }
                i = j;
            }
            b'[' => {
                // Find the matching `]`, minding quotes and nested brackets.
                let mut depth = 0;
                let mut j = i;
                let mut quote = None;
                while j < b.len() {
                    match (quote, b[j]) {
                        (Some(q), c) if c == q => quote = None,
                        (Some(_), _) => {}
                        (None, b'\'' | b'"') => quote = Some(b[j]),
                        (None, b'[') => depth += 1,
                        (None, b']') => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                    j += 1;
                }
                let inner = &path[i + 1..j];
                if let Some(name) = inner.strip_prefix('\'').and_then(|s| s.strip_suffix('\'')) {
                    if !cur.is_empty() {
                        cur.push('.');
                    }
                    cur.push_str(name);
                    out.push(cur.clone());
                } else {
                    cur.push_str("[]");
                    if let Some(filter) = inner.strip_prefix('?') {
                        for c in filter_key.captures_iter(filter) {
                            out.push(format!("{cur}.{}", &c[1]));
                        }
                    }
                }
                i = j + 1;
            }
            _ => i += 1,
        }
    }
    out
}

#[test]
fn every_key_a_rule_names_appears_in_some_view() {
    let mut seen = BTreeSet::new();
    let mut views = 0;
    for (_, _, view) in case_views() {
        keys(&view, "", &mut seen);
        views += 1;
    }
    // The views of work `fit` placed, which the fit rules read.
    for c in scenarios::fits::all() {
        let parse = |t: String| layer_core::Bundle::parse(t).expect("fit case parses");
        let placed = layer_core::fit::place(
            parse(c.cluster_text()),
            &parse(c.manifest_text()),
            &Default::default(),
        )
        .unwrap_or_else(|e| panic!("fit {}: {e}", c.name));
        for (id, _) in &placed.works {
            keys(
                &layer_core::view::build(&placed.index, *id, None).value,
                "",
                &mut seen,
            );
            views += 1;
        }
    }
    // `nowSource` is added by the engine after the view is built.
    seen.insert("facts.nowSource".into());
    // Fields of the Kubernetes APIs that rules read and that no bundle here happens to carry;
    // each is in its API's types, so a rule may name it.
    for k in [
        "workload.status.clusterName", // Kueue MultiKueue: the worker that won
        "owners[].spec.managedBy",     // batch/v1 Job spec.managedBy (1.30+)
        "pod.status.initContainerStatuses[].state.waiting.message", // core/v1 ContainerStateWaiting
        "dynamoGraphDeployment.spec.components[].multinode", // Dynamo v1beta1 component
    ] {
        seen.insert(k.into());
    }
    let mut unknown = Vec::new();
    for rule in support::engine().rules() {
        for p in rule.when.tests().iter().map(|t| t.source.clone()) {
            for k in named_keys(&p) {
                // Keys under a Kubernetes object's own maps (labels, annotations, allocatable,
                // capacity) are the cluster's, not the view's: any name is valid there.
                let open = [
                    "labels",
                    "annotations",
                    "allocatable",
                    "capacity",
                    "nodeSelector",
                    "limits",
                    "requests",
                ];
                if k.split('.')
                    .any(|seg| open.contains(&seg.trim_end_matches("[]")))
                    && !open.contains(&k.rsplit('.').next().unwrap_or("").trim_end_matches("[]"))
                {
                    continue;
                }
                if !seen.contains(&k) {
                    unknown.push(format!("{}: {p}: `{k}` is in no view", rule.id));
                }
            }
        }
    }
    unknown.sort();
    unknown.dedup();
    assert!(views > 200, "only {views} views built");
    assert!(
        unknown.is_empty(),
        "{} unknown key(s):\n{}",
        unknown.len(),
        unknown.join("\n")
    );
}

#[test]
fn named_keys_reads_dots_brackets_and_filters() {
    assert_eq!(
        named_keys(
            "$.facts.resources[?@.fit=='noneFreeNow' && @.schedulerInsufficient==true].name"
        ),
        vec![
            "facts",
            "facts.resources",
            "facts.resources[].fit",
            "facts.resources[].schedulerInsufficient",
            "facts.resources[].name"
        ]
    );
    assert_eq!(
        named_keys("$.pod.metadata.annotations['gpu-memory']"),
        vec![
            "pod",
            "pod.metadata",
            "pod.metadata.annotations",
            "pod.metadata.annotations.gpu-memory"
        ]
    );
}

/// The catalog (`core/src/catalog.rs`, what docs/view.md and the rule pages are made from)
/// names exactly the facts the view builds: a fact added in Rust without its entry, or an entry
/// whose fact is gone, fails here.
#[test]
fn the_catalog_lists_exactly_the_facts_views_hold() {
    let want: BTreeSet<&str> = layer_core::facts::FACTS.iter().map(|f| f.name).collect();
    for (name, target, view) in case_views() {
        let facts = view["facts"].as_object().expect("facts");
        let mut have: BTreeSet<&str> = facts.keys().map(String::as_str).collect();
        // The engine adds where "now" came from once it has chosen the time (Engine::evaluate).
        have.insert("nowSource");
        assert_eq!(
            have, want,
            "{name} {target}: the view's facts and the catalog differ"
        );
        for s in view.as_object().expect("view").keys() {
            assert!(
                layer_core::catalog::subject(s).is_some(),
                "{name}: subject `{s}` is not in the catalog"
            );
        }
    }
}

/// Every path of every built-in rule is in the view's contract: a subject the view links, and
/// below `$.facts` a field of the fact's type (filters' `@.…` included). The rules also load
/// through this check, so this names every bad path at once rather than the first.
#[test]
fn every_rule_path_is_a_field_of_the_facts_schema() {
    let engine = layer_core::Engine::builtin().expect("the built-in rules load");
    let schema = layer_core::facts::schema::cached();
    let mut bad = Vec::new();
    let mut checked = 0;
    for rule in engine.rules() {
        for t in rule.when.tests() {
            checked += 1;
            if let Err(e) = layer_core::facts::schema::check_path(&t.source, schema) {
                bad.push(format!("{}: {}: {e}", rule.id, t.source));
            }
        }
    }
    assert!(checked > 500, "only {checked} paths were read");
    assert!(
        bad.is_empty(),
        "rule paths outside the schema:\n{}",
        bad.join("\n")
    );
}

/// A misspelt field below `$.facts`, in a path or in a filter, is a load error that names the
/// rule file, the path and the field; the correct spelling loads.
#[test]
fn a_misspelt_fact_field_fails_to_load_with_rule_and_path_named() {
    let file = "runtime/cdi-device-unresolvable.yaml";
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../rules")
            .join(file),
    )
    .expect("the rule file is readable");
    assert!(text.contains("$.facts.runtime.cdiError"));
    layer_core::rule::Rule::load(file, &text).expect("the rule as written loads");
    for (good, typo, field) in [
        (
            "$.facts.runtime.cdiError",
            "$.facts.runtime.cdiEror",
            "cdiEror",
        ),
        (
            "$.facts.runtime.cdiError",
            "$.facts.runtime.containers[?@.waitingReasn=='ErrImagePull'].name",
            "waitingReasn",
        ),
        (
            "$.facts.runtime.cdiError",
            "$.facts.scheduling.reasons[*].count.value",
            "value",
        ),
    ] {
        let bad = text.replacen(good, typo, 1);
        let err = layer_core::rule::Rule::load(file, &bad)
            .expect_err("a misspelt field must not load")
            .to_string();
        for want in [file, typo, field] {
            assert!(err.contains(want), "`{err}` does not name `{want}`");
        }
    }
    let schema = layer_core::facts::schema::cached();
    for typo in [
        "$.facts.device.silentGpuNodez",
        "$.facts.admission.queue.aheadd",
        "$.facts.grouping.lws.leader.phasee",
        "$.facts.placement.taints.relevant[*].nodee",
        "$.facts.serving.inferencePool.eppp",
        "$.facts.device.dra.claims[?@.allocatedd==false].claim",
    ] {
        assert!(
            layer_core::facts::schema::check_path(typo, schema).is_err(),
            "{typo} passed the schema"
        );
    }
    for ok in [
        "$.facts.scheduling.reasons[?@.kind=='taint'].count",
        "$.facts.resources[0].closest[*].node",
        "$.facts.floor.placement.text",
        "$.facts.signals[?@.layer=='device' && @.current==true].message",
    ] {
        layer_core::facts::schema::check_path(ok, schema).unwrap_or_else(|e| panic!("{ok}: {e}"));
    }
}

/// The plain-path walk (`eval::walk`, for paths of names and indexes) finds exactly what the
/// general JSONPath engine finds, with the same normalized path, on every rule's plain paths
/// over the view of every case, and on names that need escaping.
#[test]
fn plain_paths_walk_like_the_jsonpath_engine() {
    let engine = layer_core::Engine::builtin().expect("the built-in rules load");
    let tests = builtin_tests(&engine, |t| t.steps.is_some());
    assert!(tests.len() > 300, "only {} plain paths", tests.len());
    let check = |view: &Value, t: &layer_core::rule::Test| {
        let steps = t.steps.as_deref().expect("plain");
        let fast = layer_core::eval::walk(view, steps)
            .map(|v| (layer_core::eval::normalized(view, steps), v.clone()));
        assert_eq!(
            fast,
            general(&t.path, view).into_iter().next(),
            "{}",
            t.source
        );
    };
    let views = case_views();
    for (_, _, view) in &views {
        for t in &tests {
            check(view, t);
        }
    }
    assert!(views.len() > 50);
    let odd = serde_json::json!({"a": {"it's \\ \n\u{1}": [1, {"b": 2}]}});
    for path in [
        "$.a['it\\'s \\\\ \\n\\u0001'][1].b",
        "$.a['it\\'s \\\\ \\n\\u0001'][-1].b",
        "$.a.x[0]",
    ] {
        let parsed = jsonpath_rust::parser::parse_json_path(path).expect("parses");
        let steps = layer_core::rule::plain_steps(&parsed).expect("plain");
        let fast = layer_core::eval::walk(&odd, &steps)
            .map(|v| (layer_core::eval::normalized(&odd, &steps), v.clone()));
        assert_eq!(fast, general(&parsed, &odd).into_iter().next(), "{path}");
    }
}

/// A test whose path starts with two member names reads them once per view, from its head slot
/// (`core/src/eval.rs`): every rule matches, captures and cites the same through the slots as
/// walked from the root, on the view of every case. The slots are shared: a test that finds
/// its head missing must not hide it from one that finds it present, whatever the order.
#[test]
fn rules_read_the_same_through_head_slots_as_from_the_root() {
    let engine = layer_core::Engine::builtin().expect("the built-in rules load");
    let slotted = builtin_tests(&engine, |t| t.head.is_some()).len();
    assert!(slotted > 500, "only {slotted} tests have a head slot");
    assert!(
        engine.head_slots() < slotted / 4,
        "slots are shared by tests that start alike"
    );
    let said = |m: Option<layer_core::eval::Match>| {
        m.map(|m| format!("{:?} {:?}", m.evidence, m.captures))
    };
    let views = case_views();
    let mut fired = 0;
    for (_, _, view) in &views {
        let slots = layer_core::eval::Scope::new(view, Vec::new(), engine.head_slots());
        let root = layer_core::eval::Scope::new(view, Vec::new(), 0);
        // Backwards too, so that each slot is first filled by another test.
        for rule in engine.rules().iter().chain(engine.rules().iter().rev()) {
            let through = said(layer_core::eval::eval(&rule.when, &slots));
            fired += usize::from(through.is_some());
            assert_eq!(
                through,
                said(layer_core::eval::eval(&rule.when, &root)),
                "{}",
                rule.id
            );
        }
    }
    assert!(
        views.len() > 50 && fired > 500,
        "{} views, {fired} fired",
        views.len()
    );
}

/// Every hit of a walked path (`core/src/walk.rs`): value and normalized path, in order.
fn walked(walk: &layer_core::walk::Walk, view: &Value) -> Vec<(String, Value)> {
    let mut hits = Vec::new();
    walk.each(view, &mut |trail, v| {
        hits.push((layer_core::walk::normalized(trail), v.clone()));
        true
    });
    hits
}

fn general(path: &jsonpath_rust::parser::model::JpQuery, view: &Value) -> Vec<(String, Value)> {
    jsonpath_rust::query::js_path_process(path, view)
        .unwrap_or_default()
        .into_iter()
        .map(|h| (h.path.clone(), h.val.clone()))
        .collect()
}

/// The WASM module leaves jsonpath-rust's general engine out and refuses a builtin path that
/// needs it: every builtin rule path must be plain or walked.
#[test]
fn every_builtin_path_is_plain_or_walked() {
    let engine = layer_core::Engine::builtin().expect("the built-in rules load");
    let general: Vec<String> = engine
        .rules()
        .iter()
        .flat_map(|r| r.when.tests().into_iter().map(move |t| (r, t)))
        .filter(|(_, t)| t.steps.is_none() && t.walk.is_none())
        .map(|(r, t)| format!("{}: {}", r.id, t.source))
        .collect();
    assert!(
        general.is_empty(),
        "these paths need the general engine, which the WASM module does not have; write them \
         with names, indexes, [*] and filters of comparisons, existence, search() and match(): \
         {general:#?}"
    );
}

#[test]
fn walked_paths_find_what_the_jsonpath_engine_finds() {
    let engine = layer_core::Engine::builtin().expect("the built-in rules load");
    let tests = builtin_tests(&engine, |t| t.walk.is_some());
    // Most paths with a wildcard or a filter compile; a change that quietly sends them all
    // back to the general engine shows here.
    assert!(tests.len() > 200, "only {} walked paths", tests.len());
    let views = case_views();
    let mut hits = 0;
    for (_, _, view) in &views {
        for t in &tests {
            let fast = walked(t.walk.as_ref().expect("walked"), view);
            assert_eq!(fast, general(&t.path, view), "{}", t.source);
            hits += fast.len();
        }
    }
    assert!(
        views.len() > 50 && hits > 1_000,
        "{} views, {hits} hits",
        views.len()
    );

    // What the cases may not hold: filters over an object's members, a missing member against
    // `!=`, numbers written two ways, negation, existence of a null, literals on the left,
    // ordering of strings and of mixed types, names that need escaping, negative indexes.
    let odd = serde_json::json!({
        "list": [
            {"type": "Ready", "status": "True", "n": 1, "s": "b"},
            {"type": "Ready", "n": 1.0, "s": "a", "nil": null},
            {"status": "False", "n": 3, "s": 2, "it's \\ \n": {"x": true}},
            "text",
            4
        ],
        "map": {"b": {"state": "Ready"}, "a": {"state": "Pending"}, "c": {}},
        "text": [{"s": "a\rb"}, {"s": "a\nb"}, {"s": "axb"}, {"s": "a.b"}]
    });
    let paths = [
        "$.list[?@.status!='True'].type",
        "$.list[?@.status=='True' && @.n==1].s",
        "$.list[?@.n==1].s",
        "$.list[?@.n>=1 && @.n<3]",
        "$.list[?@.n>1 || @.s=='a']",
        "$.list[?!(@.status=='True')]",
        "$.list[?@.nil]",
        "$.list[?!@.status]",
        "$.list[?'Ready'==@.type].n",
        "$.list[?@.s<'b']",
        "$.list[?@.s>1]",
        "$.list[?@.n<=1.0]",
        "$.list[?@.missing==@.other]",
        "$.list[*]['it\\'s \\\\ \\n'].x",
        "$.list[-1]",
        "$.list[-9]",
        "$.map[?@.state!='Ready']",
        "$.map[*].state",
        "$.map[?@.state=='Ready'].state",
        "$.nothing[*].at.all",
        "$.list[*][*]",
        "$.list[?search(@.type, 'ead')].n",
        "$.list[?match(@.type, 'ead')].n",
        "$.list[?match(@.type, 'R.a[.]y|x')].n",
        "$.list[?match(@.type, 'Ready|x')].n",
        "$.list[?!search(@.status, '^T') && @.n>0]",
        "$.list[?search(@.n, '1')]",
        "$.list[?search(@.type, '(')]",
        "$.text[?search(@.s, 'a.b')]",
        "$.text[?match(@.s, 'a\\\\.b')]",
    ];
    for path in paths {
        let parsed = jsonpath_rust::parser::parse_json_path(path).expect("parses");
        let walk = layer_core::walk::Walk::compile(&parsed).unwrap_or_else(|| panic!("{path}"));
        assert_eq!(walked(&walk, &odd), general(&parsed, &odd), "{path}");
    }
    // What stays with the general engine.
    for path in [
        "$..x",
        "$.list[0:2]",
        "$.list[?length(@.s)==1]",
        "$.list[?@.n==$.x]",
    ] {
        let parsed = jsonpath_rust::parser::parse_json_path(path).expect("parses");
        assert!(layer_core::walk::Walk::compile(&parsed).is_none(), "{path}");
    }
}

/// Every string in a JSON value.
fn strings<'a>(v: &'a Value, out: &mut Vec<&'a str>) {
    match v {
        Value::String(s) => out.push(s),
        Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
        Value::Object(m) => m.values().for_each(|x| strings(x, out)),
        _ => {}
    }
}

/// Natively, a rule's `matches:` asks `regex` when the text is ASCII (faster) and `regex-lite`
/// otherwise, and the module asks `regex-lite` alone: one answer in every build only if the
/// two engines agree on ASCII text. Held here for every builtin pattern against every string of
/// every case's view, ASCII or not, including texts made to sit on the patterns' edges.
#[test]
fn every_builtin_pattern_answers_as_regex_lite_on_every_case_s_strings() {
    let engine = layer_core::Engine::builtin().expect("rules");
    let patterns: Vec<&layer_core::pattern::Pattern> = builtin_tests(&engine, |t| {
        matches!(t.op, layer_core::rule::Op::Matches(_))
    })
    .into_iter()
    .map(|t| match &t.op {
        layer_core::rule::Op::Matches(p) => p,
        _ => unreachable!("picked for Matches"),
    })
    .collect();
    assert!(patterns.len() > 30, "{} patterns", patterns.len());
    let views = case_views();
    let mut texts: BTreeSet<&str> = BTreeSet::new();
    for (_, _, view) in &views {
        let mut all = Vec::new();
        strings(view, &mut all);
        texts.extend(all);
    }
    // Texts on the edges where Unicode and ASCII meanings part: a Kelvin sign for `k`, a
    // no-break space for white space, a Greek letter beside a word boundary.
    let edges = [
        "Liveness probe failed: HTTP probe failed with statuscode: 404",
        "Liveness probe failed: \u{212A}\u{212A} not found",
        "readiness PROBE FAILED: file not found\u{a0}",
        "LocalQueue\u{a0}team-a doesn't exist",
        "LocalQueue team-δ doesn't exist",
        "probe failed: δnot foundδ",
    ];
    texts.extend(edges);
    let (mut ascii, mut matched, mut parted) = (0, 0, 0);
    for p in &patterns {
        let lite = regex_lite::Regex::new(p.as_str()).expect("regex-lite compiles it");
        let unicode = regex::Regex::new(p.as_str()).expect("regex compiles it");
        for t in &texts {
            let answer = p.is_match(t);
            assert_eq!(answer, lite.is_match(t), "`{}` on {t:?}", p.as_str());
            if unicode.is_match(t) != answer {
                // Where the engines part, the text is not ASCII: the premise of the split.
                assert!(!t.is_ascii(), "`{}` on {t:?}", p.as_str());
                parted += 1;
            }
            ascii += usize::from(t.is_ascii());
            matched += usize::from(answer);
        }
    }
    // Both engines were asked, and the patterns do match some of the texts.
    assert!(ascii > 0 && ascii < patterns.len() * texts.len(), "{ascii}");
    assert!(matched > patterns.len(), "{matched}");
    assert!(parted > 0, "the edge texts part the two engines somewhere");
}
