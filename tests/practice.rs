//! The practice bank (`rules/practice.json`, issue 19): the committed file is what the generator
//! makes now; it asks enough of each kind; every layer question's answer is the core's verdict
//! on its case, diagnosed again here; no prompt gives its answer away; the Korean reads Korean.

use layer_core::practice::{Bank, Kind, Question};
use layer_core::{Bundle, Engine, Index, Layer, LayerState, Options, TargetSpec};
use std::collections::BTreeMap;
use std::sync::OnceLock;

fn committed() -> &'static Bank {
    static BANK: OnceLock<Bank> = OnceLock::new();
    BANK.get_or_init(|| {
        let path = scenarios::practice::bank_path();
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        Bank::parse(&text).unwrap_or_else(|e| panic!("rules/practice.json: {e}"))
    })
}

fn has_hangul(s: &str) -> bool {
    s.chars().any(|c| ('\u{ac00}'..='\u{d7a3}').contains(&c))
}

#[test]
fn the_committed_bank_is_what_the_generator_makes_now() {
    let made = scenarios::practice::bank().unwrap_or_else(|e| panic!("{e}"));
    let path = scenarios::practice::bank_path();
    let text = std::fs::read_to_string(&path).unwrap();
    if made.to_json() != text {
        let old: BTreeMap<&str, &Question> = committed()
            .questions
            .iter()
            .map(|q| (q.id.as_str(), q))
            .collect();
        let changed: Vec<&str> = made
            .questions
            .iter()
            .filter(|q| old.get(q.id.as_str()) != Some(q))
            .map(|q| q.id.as_str())
            .take(10)
            .collect();
        panic!(
            "rules/practice.json is stale ({} questions now, {} committed; first changed: {changed:?}); run `cargo xtask docs`",
            made.questions.len(),
            committed().questions.len()
        );
    }
}

#[test]
fn the_bank_asks_every_layer_and_enough_of_each_kind() {
    let bank = committed();
    let mut by_layer: BTreeMap<Layer, usize> = BTreeMap::new();
    let mut contributing = 0;
    for q in &bank.questions {
        match q.kind {
            Kind::Layer => *by_layer.entry(Layer::ALL[q.answer]).or_default() += 1,
            Kind::Contributing => contributing += 1,
        }
    }
    let layer: usize = by_layer.values().sum();
    assert!(layer >= 30, "{layer} layer questions: {by_layer:?}");
    for l in Layer::ALL {
        assert!(
            by_layer.contains_key(&l),
            "no question answers {l}: {by_layer:?}"
        );
    }
    assert!(contributing >= 8, "{contributing} contributing questions");
    let mut ids: Vec<&str> = bank.questions.iter().map(|q| q.id.as_str()).collect();
    let sorted = ids.clone();
    ids.sort();
    ids.dedup();
    assert_eq!(ids, sorted, "ids are unique and sorted");
    for q in &bank.questions {
        for t in [&q.en, &q.ko] {
            assert_eq!(t.choices.len(), t.names.len(), "{}", q.id);
            assert_eq!(t.choices[q.answer], t.answer_text, "{}", q.id);
        }
        assert_eq!(q.en.choices.len(), q.ko.choices.len(), "{}", q.id);
        let prefix = format!("{}/", q.kind.as_str());
        assert!(q.id.starts_with(&prefix), "{}", q.id);
    }
}

/// Each layer question's case, read and diagnosed again: the answer is the verdict's layer, the
/// verdict blocks or warns, an incident's thread names the same layer, and neither prompt holds
/// the headline (either language) or the deciding rule's id.
#[test]
fn every_layer_answer_is_the_cores_verdict_and_no_prompt_gives_it_away() {
    let engine = Engine::builtin().unwrap();
    let incidents: BTreeMap<String, scenarios::incidents::Incident> = scenarios::incidents::all()
        .unwrap()
        .into_iter()
        .map(|i| (i.name.clone(), i))
        .collect();
    let scenarios: BTreeMap<String, scenarios::Scenario> = scenarios::all()
        .into_iter()
        .map(|s| (s.name.clone(), s))
        .collect();
    let mut indexes: BTreeMap<String, Index> = BTreeMap::new();
    let mut wrong = Vec::new();
    for q in committed()
        .questions
        .iter()
        .filter(|q| q.kind == Kind::Layer)
    {
        let target = q
            .source
            .target
            .as_deref()
            .expect("a layer question names its target");
        let path = match q.source.kind.as_str() {
            "scenario" => scenarios[&q.source.name].bundle_path.clone(),
            "incident" => {
                let i = &incidents[&q.source.name];
                assert_eq!(q.source.url.as_deref(), Some(i.thread.url.as_str()));
                if i.thread.layer.as_deref() != Some(Layer::ALL[q.answer].as_str()) {
                    wrong.push(format!("{}: the thread says {:?}", q.id, i.thread.layer));
                }
                i.bundle_path.clone()
            }
            other => panic!("{}: source kind {other}", q.id),
        };
        let key = path.display().to_string();
        let ix = indexes.entry(key).or_insert_with(|| {
            Index::new(Bundle::parse(std::fs::read_to_string(&path).unwrap()).unwrap())
        });
        let ko = engine.in_lang(layer_core::Lang::Ko).unwrap();
        let spec = TargetSpec::parse(target, None);
        let d = layer_core::diagnose(&engine, ix, &spec, &Options::default()).unwrap();
        let d_ko = layer_core::diagnose(&ko, ix, &spec, &Options::default()).unwrap();
        if d.verdict.layer != Some(Layer::ALL[q.answer])
            || !matches!(d.verdict.state, LayerState::Blocked | LayerState::Warn)
        {
            wrong.push(format!(
                "{}: answer {}, the core says {:?} at {:?}",
                q.id,
                Layer::ALL[q.answer],
                d.verdict.state,
                d.verdict.layer
            ));
        }
        let rule = d.verdict.rule.clone().unwrap_or_default();
        let mut giveaways = vec![d.verdict.headline.clone(), rule.clone()];
        giveaways.extend(d_ko.verdict.headline_ko.clone());
        for (lang, prompt) in [("en", &q.en.prompt), ("ko", &q.ko.prompt)] {
            for g in giveaways.iter().filter(|g| !g.is_empty()) {
                if prompt.contains(g.as_str()) {
                    wrong.push(format!("{} ({lang}): the prompt shows `{g}`", q.id));
                }
            }
        }
        // The explanation is the real diagnosis.
        if !q.en.explanation.contains(&d.verdict.headline) || !q.en.explanation.contains(&rule) {
            wrong.push(format!("{}: the explanation lacks headline or rule", q.id));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn korean_questions_read_korean() {
    let ko_layers: Vec<&str> = Layer::ALL
        .iter()
        .map(|l| layer_core::lang::Words::of(layer_core::Lang::Ko).layer(*l))
        .collect();
    let mut wrong = Vec::new();
    for q in &committed().questions {
        // The stem (the prompt's last line for a layer question, its whole text for a
        // contributing one) and the explanation are Korean; the quoted events may stay English.
        let stem = q.ko.prompt.lines().last().unwrap_or_default();
        if !has_hangul(stem) || !has_hangul(q.ko.prompt.lines().next().unwrap_or_default()) {
            wrong.push(format!(
                "{}: Korean prompt without Hangul: {}",
                q.id, q.ko.prompt
            ));
        }
        if !has_hangul(&q.ko.explanation) {
            wrong.push(format!("{}: Korean explanation without Hangul", q.id));
        }
        if has_hangul(&q.en.prompt) || has_hangul(&q.en.explanation) {
            wrong.push(format!("{}: English with Hangul", q.id));
        }
        if q.kind == Kind::Layer && q.ko.choices != ko_layers {
            wrong.push(format!("{}: Korean choices {:?}", q.id, q.ko.choices));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Every word the practice code asks ui.yaml for is there (a missing one would print as empty).
#[test]
fn practice_words_are_in_ui_yaml() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let en: BTreeMap<String, String> =
        serde_yaml_ng::from_str(&std::fs::read_to_string(root.join("rules/ui.yaml")).unwrap())
            .unwrap();
    let mut used = 0;
    for file in ["core/src/practice.rs", "kubectl-plugin/src/practice.rs"] {
        let src = std::fs::read_to_string(root.join(file)).unwrap();
        for (i, _) in src.match_indices("\"practice.") {
            let key = src[i + 1..].split('"').next().unwrap();
            assert!(
                en.contains_key(key),
                "{file} asks for `{key}`, not in ui.yaml"
            );
            used += 1;
        }
    }
    assert!(used > 15, "the scan found the keys: {used}");
}

/// Content words of a text: runs of letters of four or more (Hangul of two or more), lowercased.
fn content_words(s: &str) -> std::collections::BTreeSet<String> {
    s.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= if has_hangul(w) { 2 } else { 4 })
        .map(str::to_lowercase)
        .collect()
}

/// Issue 42's three checks on the whole bank: no prompt twice; no contribution question whose
/// prompt names the project (or repository) it answers with; no question with two choices of
/// the same text. And a contribution question's answer is not the choice that shares the most
/// words with its prompt, so it cannot be found by matching words.
#[test]
fn no_prompt_twice_no_answer_named_in_its_prompt_no_choice_twice() {
    let bank = committed();
    let mut wrong = Vec::new();
    for lang in ["en", "ko"] {
        let mut seen: BTreeMap<&str, &str> = BTreeMap::new();
        for q in &bank.questions {
            let t = if lang == "en" { &q.en } else { &q.ko };
            if let Some(other) = seen.insert(t.prompt.as_str(), q.id.as_str()) {
                wrong.push(format!("{lang}: {} asks what {other} asks", q.id));
            }
            let mut choices = t.choices.clone();
            choices.sort();
            choices.dedup();
            if choices.len() != t.choices.len() {
                wrong.push(format!("{} ({lang}): two choices read the same", q.id));
            }
        }
    }
    for q in bank
        .questions
        .iter()
        .filter(|q| q.kind == Kind::Contributing)
    {
        for (lang, t) in [("en", &q.en), ("ko", &q.ko)] {
            let answer = &t.names[q.answer];
            // The answer is a repository: neither it, its name, nor its project's shows.
            if let Some(u) =
                layer_core::render::upstream_for(answer).filter(|_| answer.contains('/'))
            {
                let short = answer.rsplit('/').next().unwrap();
                let project = u.project.split(" (").next().unwrap();
                for name in [answer.as_str(), short, project] {
                    if t.prompt.to_lowercase().contains(&name.to_lowercase()) {
                        wrong.push(format!("{} ({lang}): the prompt names `{name}`", q.id));
                    }
                }
            }
            if t.prompt.contains(&t.answer_text) {
                wrong.push(format!("{} ({lang}): the prompt holds the answer", q.id));
            }
            let prompt = content_words(&t.prompt);
            let shared: Vec<usize> = t
                .choices
                .iter()
                .map(|c| content_words(c).intersection(&prompt).count())
                .collect();
            let best_other = (0..shared.len())
                .filter(|i| *i != q.answer)
                .map(|i| shared[i])
                .max();
            if shared[q.answer] > 0 && Some(shared[q.answer]) > best_other {
                wrong.push(format!(
                    "{} ({lang}): the answer shares the most words with the prompt: {shared:?}",
                    q.id
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Every headline check judges its own case: a title with the layer and the first observation
/// term passes, one with the layer's name alone or the observation alone does not, and the
/// observation is in the case shown. Most of the tool's own headlines pass their check (the
/// ones that do not name the layer by a tool leave the judge a term it could add).
#[test]
fn headline_checks_judge_their_own_case_and_fail_half_a_title() {
    let bank = committed();
    let mut checked = 0;
    let mut wrong = Vec::new();
    for q in bank.questions.iter().filter(|q| q.kind == Kind::Layer) {
        let Some(h) = &q.headline else { continue };
        let judge = |t: &str| bank.judge(q, t).unwrap();
        checked += 1;
        let layer = Layer::ALL[q.answer].as_str();
        let observation = &h.observation_terms[0];
        let both = format!("{layer}: {observation}");
        if !judge(&both).passes() {
            wrong.push(format!("{}: `{both}` fails", q.id));
        }
        if judge(&format!("the {layer} layer is broken"))
            .observation
            .is_some()
            && !h
                .observation_terms
                .iter()
                .any(|t| t.eq_ignore_ascii_case("broken"))
        {
            wrong.push(format!("{}: an empty title names an observation", q.id));
        }
        if judge(&format!("{layer} is broken")).passes() || judge(observation).passes() {
            wrong.push(format!("{}: half a title passes", q.id));
        }
        if !q
            .en
            .prompt
            .to_lowercase()
            .contains(&observation.to_lowercase())
        {
            wrong.push(format!(
                "{}: observation `{observation}` not in the case",
                q.id
            ));
        }
    }
    let layers = bank
        .questions
        .iter()
        .filter(|q| q.kind == Kind::Layer)
        .count();
    assert!(
        checked * 4 >= layers * 3,
        "{checked} of {layers} layer questions have a headline check"
    );
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
