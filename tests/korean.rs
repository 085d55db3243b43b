//! `--lang ko`: on every scenario target and every incident, the Korean diagnosis is the English
//! one in other words. It reaches the same verdict, layer states and findings; every layer
//! summary and finding message has Hangul; the headline stays English (it is meant for an
//! upstream issue's title) with its Korean in `headlineKo`. English output does not change
//! for Korean having run first on the same index.

use crate::support;
use layer_core::{Diagnosis, Engine, Lang, Options, TargetSpec};
use std::sync::OnceLock;

fn korean() -> &'static Engine {
    static KO: OnceLock<Engine> = OnceLock::new();
    KO.get_or_init(|| {
        support::engine()
            .in_lang(Lang::Ko)
            .unwrap_or_else(|e| panic!("Korean rules: {e}"))
    })
}

fn has_hangul(s: &str) -> bool {
    s.chars().any(|c| ('\u{ac00}'..='\u{d7a3}').contains(&c))
}

/// What must be the same in both languages: the decisions, not the words.
fn decisions(d: &Diagnosis) -> String {
    let layers: Vec<String> = d
        .layers
        .iter()
        .map(|l| format!("{}={}", l.layer.as_str(), l.state.as_str()))
        .collect();
    let findings: Vec<&str> = d.findings.iter().map(|f| f.rule.as_str()).collect();
    format!(
        "{:?} {:?} {:?} {:?} {layers:?} {findings:?} {:?}",
        d.verdict.state, d.verdict.layer, d.verdict.rule, d.verdict.outlook, d.next
    )
}

/// Korean against English on one target: `what` names it in a failure.
fn compare(what: &str, en: &Diagnosis, ko: &Diagnosis) -> Vec<String> {
    let mut wrong = Vec::new();
    if decisions(en) != decisions(ko) {
        wrong.push(format!(
            "{what}: decisions differ\n  en {}\n  ko {}",
            decisions(en),
            decisions(ko)
        ));
    }
    if ko.verdict.headline != en.verdict.headline {
        wrong.push(format!(
            "{what}: the headline is not the English one: {:?}",
            ko.verdict.headline
        ));
    }
    match &ko.verdict.headline_ko {
        Some(h) if has_hangul(h) => {}
        other => wrong.push(format!("{what}: headlineKo without Hangul: {other:?}")),
    }
    if ko.lang.as_deref() != Some("ko") || en.lang.is_some() || en.verdict.headline_ko.is_some() {
        wrong.push(format!(
            "{what}: lang {:?} / {:?}, English headlineKo {:?}",
            ko.lang, en.lang, en.verdict.headline_ko
        ));
    }
    for l in &ko.layers {
        if !has_hangul(&l.summary) {
            wrong.push(format!(
                "{what}: {} summary has no Hangul: {}",
                l.layer.as_str(),
                l.summary
            ));
        }
    }
    for f in &ko.findings {
        if !has_hangul(&f.message) {
            wrong.push(format!(
                "{what}: {} message has no Hangul: {}",
                f.rule, f.message
            ));
        }
    }
    if let (Some(m), Some(e)) = (&ko.verdict.misalignment, &en.verdict.misalignment)
        && (!has_hangul(&m.why) || m.said_yes != e.said_yes || m.said_no != e.said_no)
    {
        wrong.push(format!("{what}: misalignment {m:?} against {e:?}"));
    }
    wrong
}

#[test]
fn every_scenario_reads_in_korean_with_the_same_decisions() {
    let mut wrong = Vec::new();
    let mut checked = 0;
    for s in scenarios::all() {
        let ix = support::index(&s);
        for e in &s.expectations {
            let spec = TargetSpec::parse(&e.target, None);
            let id = layer_core::target::resolve(&ix, &spec).expect("target resolves");
            // Korean first: the English after it on the same index must be what it always is.
            let (ko, _) = korean().evaluate(&ix, id, &Options::default());
            let (en, _) = support::engine().evaluate(&ix, id, &Options::default());
            let fresh = support::diagnose(&support::index(&s), &e.target).0;
            assert_eq!(
                serde_json::to_string(&en).unwrap(),
                serde_json::to_string(&fresh).unwrap(),
                "{}: English after Korean on one index differs from English alone",
                e.target
            );
            wrong.extend(compare(&format!("{} {}", s.name, e.target), &en, &ko));
            checked += 1;
        }
    }
    assert!(checked > 60, "only {checked} targets");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn every_incident_reads_in_korean_with_the_same_decisions() {
    let mut wrong = Vec::new();
    let mut checked = 0;
    for inc in scenarios::incidents::all().expect("incidents read") {
        let (Ok(en), Ok(ko)) = (inc.diagnose(support::engine()), inc.diagnose(korean())) else {
            continue;
        };
        wrong.extend(compare(&inc.name, &en, &ko));
        checked += 1;
    }
    assert!(checked > 50, "only {checked} incidents");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn korean_renderings_keep_the_english_title_and_commands() {
    let s = scenarios::all()
        .into_iter()
        .find(|s| s.name == "kueue-admitted-no-gpu-room")
        .expect("scenario");
    let ix = support::index(&s);
    let target = &s.expectations[0].target;
    let id = layer_core::target::resolve(&ix, &TargetSpec::parse(target, None)).unwrap();
    let (ko, _) = korean().evaluate(&ix, id, &Options::default());
    let md = layer_core::render::markdown(&ko);
    let title = md.lines().next().unwrap();
    assert_eq!(
        title,
        format!(
            "### {}",
            layer_core::render::for_markdown(&ko.verdict.headline)
        )
    );
    assert!(!has_hangul(title), "{title}");
    assert!(md.contains("| 층 | 상태 |"), "{md}");
    assert!(
        md.contains("placement[\"<b>배치</b><br/>막힘<br/>⛔ 여기서 막힘"),
        "Korean layer names in the picture:\n{md}"
    );
    for n in &ko.next {
        assert!(md.contains(n.as_str()), "command {n} kept as it is");
        assert!(!has_hangul(n), "a command in Korean: {n}");
    }
    let text = layer_core::render::text(&ko, layer_core::render::Style { color: false });
    assert!(text.contains("배치 층에서 막힘"), "{text}");
    assert!(text.contains(&ko.verdict.headline), "{text}");
    assert!(
        text.contains(ko.verdict.headline_ko.as_deref().unwrap()),
        "{text}"
    );
}

/// The renderers' words: the Korean file has every key of the English one, with the same
/// placeholders, and every key a renderer asks for is in the English file.
#[test]
fn renderer_words_have_korean_twins() {
    let read = |f: &str| -> std::collections::BTreeMap<String, String> {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../rules")
            .join(f);
        serde_yaml_ng::from_str(&std::fs::read_to_string(&path).unwrap())
            .unwrap_or_else(|e| panic!("{f}: {e}"))
    };
    let (en, ko) = (read("ui.yaml"), read("ui.ko.yaml"));
    assert_eq!(
        en.keys().collect::<Vec<_>>(),
        ko.keys().collect::<Vec<_>>(),
        "ui.ko.yaml's keys against ui.yaml's"
    );
    let names = |t: &str| {
        let mut v: Vec<String> = t
            .split('{')
            .skip(1)
            .filter_map(|p| p.split_once('}').map(|(n, _)| n.to_string()))
            .collect();
        v.sort();
        v
    };
    for (k, e) in &en {
        assert_eq!(names(e), names(&ko[k]), "placeholders of {k}");
        assert!(!ko[k].trim().is_empty(), "{k} is empty in ui.ko.yaml");
    }
    let src = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../core/src/render.rs"),
    )
    .unwrap();
    for call in [
        "words.get(\"",
        "words.fill(\"",
        ".get(\"column.",
        "words.get(if",
    ] {
        for (i, _) in src.match_indices(call) {
            let rest = &src[i + call.len()..];
            if let Some(end) = rest.find('"') {
                let key = &rest[..end];
                if call.ends_with("column.") {
                    continue;
                }
                if !key.is_empty() && !key.contains(' ') {
                    assert!(
                        en.contains_key(key),
                        "render.rs asks for `{key}`, not in ui.yaml"
                    );
                }
            }
        }
    }
}
