//! Practice mode's questions (issue 19): "which layer decided this?" asked of the project's own
//! cases, and "where does this finding go upstream?" asked of `rules/upstreams.yaml`.
//!
//! Why here and why generated: a quiz written by hand drifts from what the tool says, and then
//! teaches a wrong answer. Every question is built from a diagnosis the core itself made (the
//! answer is its verdict's layer, the explanation its headline, deciding finding and `why`) or
//! from the contribution rules the Markdown renderer cites, so the bank changes when the rules
//! do, and a test holds the committed bank (`rules/practice.json`) equal to what this builds.
//! The prompt is the symptom as a person meets it (status, conditions, container states,
//! events), never the verdict, headline, rule id or layer that would give the answer away.
//!
//! Pure, like the rest of the core: the caller (the tests crate's `practice::bank`) walks the
//! scenarios and incidents, diagnoses them in English and Korean and hands the diagnoses here.
//! The CLI embeds the generated file; the core does not (the WASM module has a size budget).

use crate::diagnosis::{Diagnosis, MomentKind};
use crate::engine::Engine;
use crate::lang::{Lang, Words};
use crate::layer::{Layer, LayerState};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

mod contributing;
pub mod headline;

pub use contributing::questions as contributing_questions;
pub use headline::{HeadlineCheck, Judgement};

/// The bank's format, written into the file.
pub const BANK_SCHEMA: &str = "kubectl-layer/practice-v1";

/// At most this many symptom lines in a prompt, and this many characters in one.
pub const MAX_SYMPTOMS: usize = 6;
pub const MAX_LINE: usize = 140;
/// At most this many evidence lines in an explanation.
pub const MAX_EVIDENCE: usize = 4;

/// Every question, sorted by id.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Bank {
    pub schema_version: String,
    /// The headline exercise's layer terms, by layer (`headline::layer_terms`): kept once
    /// here, not with each question.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub layer_terms: BTreeMap<String, Vec<String>>,
    pub questions: Vec<Question>,
}

/// What a question asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Kind {
    /// Which of the six layers decided a case.
    Layer,
    /// Which project a finding is reported to, under which contribution rules.
    Contributing,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Layer => "layer",
            Kind::Contributing => "contributing",
        }
    }
}

/// Where a question comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Source {
    /// `scenario`, `incident` or `upstreams`.
    pub kind: String,
    /// The scenario's or incident's folder, or the repository.
    pub name: String,
    /// `Kind/namespace/name` of the case's target.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// The incident's upstream thread.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Ids of the questions merged into this one because they showed the same evidence
    /// (issue 42: a prompt is asked once).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub also: Vec<String>,
}

/// One question in one language.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Text {
    pub prompt: String,
    pub choices: Vec<String>,
    /// The short name of each choice, which an answer may be given as (`placement`, `배치`,
    /// `Kubernetes`).
    pub names: Vec<String>,
    /// `choices[answer]`.
    pub answer_text: String,
    pub explanation: String,
}

/// One question, in English and Korean.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Question {
    /// `layer/<case>/<target>` or `contributing/<repo>`.
    pub id: String,
    pub kind: Kind,
    /// Index into the choices (the same in both languages).
    pub answer: usize,
    pub source: Source,
    /// What the question asks where other questions ask the same in another setting
    /// (`situation/dco`: every repository whose situation is its DCO sign-off): a round asks
    /// each such thing once (see [`round`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asks: Option<String>,
    /// A layer question's headline exercise: what a title written for the case is judged by.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headline: Option<HeadlineCheck>,
    pub en: Text,
    pub ko: Text,
}

/// One question as a language shows it: what `kubectl layer practice --export -o json` prints.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Shown {
    pub id: String,
    pub kind: Kind,
    pub prompt: String,
    pub choices: Vec<String>,
    pub names: Vec<String>,
    pub answer: ShownAnswer,
    pub explanation: String,
    pub source: Source,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headline: Option<HeadlineCheck>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShownAnswer {
    pub index: usize,
    pub text: String,
}

impl Question {
    pub fn text(&self, lang: Lang) -> &Text {
        match lang {
            Lang::En => &self.en,
            Lang::Ko => &self.ko,
        }
    }

    /// This question in `lang`.
    pub fn shown(&self, lang: Lang) -> Shown {
        let t = self.text(lang);
        Shown {
            id: self.id.clone(),
            kind: self.kind,
            prompt: t.prompt.clone(),
            choices: t.choices.clone(),
            names: t.names.clone(),
            answer: ShownAnswer {
                index: self.answer,
                text: t.answer_text.clone(),
            },
            explanation: t.explanation.clone(),
            source: self.source.clone(),
            headline: self.headline.clone(),
        }
    }

    /// The case a layer question shows, without its closing question (the prompt's last line):
    /// what the headline exercise shows before asking for a title.
    pub fn case_text(&self, lang: Lang) -> &str {
        let p = self.text(lang).prompt.trim_end();
        p.rsplit_once('\n').map_or(p, |(case, _)| case)
    }

    /// Which choice an answer names: a number from 1, or a choice's name in either language
    /// (case-insensitive); None when it names none.
    pub fn choice_of(&self, answer: &str) -> Option<usize> {
        let a = answer.trim();
        let n = self.en.choices.len();
        if let Ok(i) = a.parse::<usize>() {
            return (1..=n).contains(&i).then(|| i - 1);
        }
        let a = a.to_lowercase();
        (0..n).find(|&i| {
            [&self.en, &self.ko].iter().any(|t| {
                t.names.get(i).is_some_and(|x| x.to_lowercase() == a)
                    || t.choices.get(i).is_some_and(|x| x.to_lowercase() == a)
            })
        })
    }
}

impl Bank {
    /// A bank of these questions, sorted by id.
    pub fn new(mut questions: Vec<Question>) -> Bank {
        questions.sort_by(|a, b| a.id.cmp(&b.id));
        let layer_terms = Layer::ALL
            .iter()
            .map(|l| (l.as_str().to_string(), headline::layer_terms(*l)))
            .collect();
        Bank {
            schema_version: BANK_SCHEMA.into(),
            layer_terms,
            questions,
        }
    }

    /// The file's text: pretty JSON ending in a newline.
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).unwrap_or_default();
        s.push('\n');
        s
    }

    /// A bank of these questions in which no prompt is asked twice: questions whose English
    /// prompts are the same (two cases that show the same evidence) become the first of them by
    /// id, naming the others in `source.also`. An error when such questions answer differently,
    /// since then the evidence shown cannot decide.
    pub fn merged(questions: Vec<Question>) -> Result<Bank, String> {
        let mut bank = Bank::new(questions);
        let mut first: BTreeMap<String, usize> = BTreeMap::new();
        let mut kept: Vec<Question> = Vec::new();
        for q in bank.questions {
            match first.get(&q.en.prompt) {
                Some(&i) if kept[i].answer == q.answer && kept[i].kind == q.kind => {
                    kept[i].source.also.push(q.id);
                }
                Some(&i) => {
                    return Err(format!(
                        "{} and {} show the same prompt but answer differently",
                        kept[i].id, q.id
                    ));
                }
                None => {
                    first.insert(q.en.prompt.clone(), kept.len());
                    kept.push(q);
                }
            }
        }
        bank.questions = kept;
        Ok(bank)
    }

    /// A title written for a layer question's case, judged by its headline check and its
    /// layer's terms; None for a question without a check.
    pub fn judge(&self, q: &Question, title: &str) -> Option<Judgement> {
        let check = q.headline.as_ref()?;
        let layer = Layer::ALL.get(q.answer)?.as_str();
        let terms = self.layer_terms.get(layer).map_or(&[][..], Vec::as_slice);
        Some(check.judge(terms, title))
    }

    pub fn parse(text: &str) -> Result<Bank, String> {
        let b: Bank = serde_json::from_str(text).map_err(|e| e.to_string())?;
        if b.schema_version != BANK_SCHEMA {
            return Err(format!(
                "practice bank {}, this build reads {BANK_SCHEMA}",
                b.schema_version
            ));
        }
        Ok(b)
    }
}

/// A round of at most `count` from `questions`, taken in their order, asking each thing once:
/// a question is left out when one before it has the same prompt or asks the same thing
/// (`asks`) in another setting.
pub fn round<'a>(
    questions: impl IntoIterator<Item = &'a Question>,
    count: usize,
) -> Vec<&'a Question> {
    let mut seen = std::collections::BTreeSet::new();
    questions
        .into_iter()
        .filter(|q| seen.insert(q.asks.clone().unwrap_or_else(|| q.en.prompt.clone())))
        .take(count)
        .collect()
}

/// A case a layer question is asked of.
#[derive(Debug, Clone)]
pub struct Case {
    /// `scenario` or `incident`.
    pub kind: String,
    pub name: String,
    /// `Kind/namespace/name`, as the case names it.
    pub target: String,
    pub url: Option<String>,
    /// The incident thread's title (a scenario has none: its README names the answer).
    pub title: Option<String>,
}

/// The layer question of a case, from its diagnosis in English and in Korean and the engines
/// that made them; None when nothing blocks or warns (there is no layer to name).
pub fn layer_question(
    case: &Case,
    en: &Diagnosis,
    ko: &Diagnosis,
    engine_en: &Engine,
    engine_ko: &Engine,
) -> Option<Question> {
    if !matches!(en.verdict.state, LayerState::Blocked | LayerState::Warn) {
        return None;
    }
    let layer = en.verdict.layer?;
    let answer = Layer::ALL.iter().position(|l| *l == layer)?;
    let text = |d: &Diagnosis, engine: &Engine, lang: Lang| {
        let words = Words::of(lang);
        let choices: Vec<String> = Layer::ALL
            .iter()
            .map(|l| words.layer(*l).to_string())
            .collect();
        Text {
            prompt: symptom_prompt(case, d, words),
            names: choices.clone(),
            answer_text: choices[answer].clone(),
            explanation: layer_explanation(d, engine, words, &choices[answer]),
            choices,
        }
    };
    let id_target = case.target.replace("//", "/");
    let en_text = text(en, engine_en, Lang::En);
    let headline = headline::check(en, ko, &en_text.prompt);
    Some(Question {
        id: format!("layer/{}/{}", case.name, id_target),
        kind: Kind::Layer,
        answer,
        source: Source {
            kind: case.kind.clone(),
            name: case.name.clone(),
            target: Some(case.target.clone()),
            url: case.url.clone(),
            also: Vec::new(),
        },
        asks: None,
        headline,
        en: en_text,
        ko: text(ko, engine_ko, Lang::Ko),
    })
}

fn cut(s: &str, most: usize) -> String {
    let s = s.trim().replace('\n', " ↵ ");
    if s.chars().count() > most {
        format!("{}…", s.chars().take(most).collect::<String>())
    } else {
        s
    }
}

/// What a person sees of the case: a line saying where it comes from, the target and its
/// status, then its newest conditions, container states and events (at most
/// [`MAX_SYMPTOMS`]), and the question. No line shows the headline or the deciding rule's id.
fn symptom_prompt(case: &Case, d: &Diagnosis, words: Words) -> String {
    let name = match &d.target.namespace {
        Some(ns) => format!("{ns}/{}", d.target.name),
        None => d.target.name.clone(),
    };
    let mut out = match &case.title {
        Some(title) => words.fill("practice.fromIncident", &[("title", &cut(title, 100))]),
        None => words.get("practice.fromScenario").to_string(),
    };
    out.push('\n');
    out.push_str(&words.fill(
        "practice.target",
        &[
            ("kind", &d.target.kind),
            ("name", &name),
            ("status", &d.target.status),
        ],
    ));
    out.push('\n');
    let giveaway = |s: &str| {
        let lower = s.to_lowercase();
        let mut keys = vec![d.verdict.headline.to_lowercase()];
        keys.extend(d.verdict.headline_ko.iter().map(|h| h.to_lowercase()));
        keys.extend(d.verdict.rule.iter().map(|r| r.to_lowercase()));
        keys.iter()
            .any(|k| !k.is_empty() && lower.contains(k.as_str()))
    };
    // The pods the work made, as `kubectl get pods` shows them (a waiting reason such as
    // CrashLoopBackOff is their status): at most two, so the events keep their room.
    let pods: Vec<String> = d
        .pods
        .iter()
        .filter(|p| !(d.target.kind == "Pod" && p.name == d.target.name))
        .take(2)
        .map(|p| cut(&format!("Pod {}: {}", p.name, p.status), MAX_LINE))
        .filter(|l| !giveaway(l))
        .collect();
    let mut lines: Vec<String> = Vec::new();
    for m in d.timeline.moments.iter().rev() {
        if lines.len() + pods.len() >= MAX_SYMPTOMS {
            break;
        }
        if !matches!(
            m.kind,
            MomentKind::Condition | MomentKind::Container | MomentKind::Event
        ) {
            continue;
        }
        // An event seen many times is one symptom: its first and last moments are one line.
        let text = match m.count.filter(|c| *c > 1) {
            Some(c) => {
                let what = [format!(" (first of {c})"), format!(" (last of {c})")]
                    .iter()
                    .find_map(|suffix| m.text.strip_suffix(suffix.as_str()))
                    .unwrap_or(&m.text);
                format!("{what} (×{c})")
            }
            None => m.text.clone(),
        };
        let line = cut(
            &format!("{} {}: {text}", m.object.kind, m.object.name),
            MAX_LINE,
        );
        if giveaway(&line) || lines.contains(&line) {
            continue;
        }
        lines.push(line);
    }
    // Oldest first, as they happened, after the pods.
    lines.reverse();
    let lines = [pods, lines].concat();
    out.push_str(words.get("practice.whatYouSee"));
    out.push('\n');
    if lines.is_empty() {
        out.push_str("  ");
        out.push_str(words.get("practice.nothingToSee"));
        out.push('\n');
    }
    for l in lines {
        out.push_str("  ");
        out.push_str(&l);
        out.push('\n');
    }
    out.push_str(words.get("practice.whichLayer"));
    out
}

/// The real diagnosis: the answer, the headline (in the reader's language), the deciding
/// finding with its evidence, and the rule's `why`.
fn layer_explanation(d: &Diagnosis, engine: &Engine, words: Words, answer: &str) -> String {
    let mut out = words.fill("practice.answerIs", &[("answer", answer)]);
    out.push('\n');
    let headline = d
        .verdict
        .headline_ko
        .as_deref()
        .unwrap_or(&d.verdict.headline);
    out.push_str(&words.fill("practice.diagnosis", &[("headline", headline)]));
    out.push('\n');
    let rule_id = d.verdict.rule.as_deref();
    if let Some(f) = rule_id.and_then(|r| d.findings.iter().find(|f| f.rule == r)) {
        out.push_str(&words.fill(
            "practice.finding",
            &[("rule", &f.rule), ("message", &f.message)],
        ));
        out.push('\n');
        for e in f.evidence.iter().take(MAX_EVIDENCE) {
            out.push_str("  ");
            out.push_str(&cut(&crate::render::evidence_line(e), MAX_LINE));
            out.push('\n');
        }
    }
    if let Some(r) = rule_id
        .and_then(|r| engine.rule(r))
        .filter(|r| !r.why.trim().is_empty())
    {
        out.push_str(&words.fill("practice.why", &[("why", &unwrapped(&r.why))]));
        out.push('\n');
    }
    out.trim_end().to_string()
}

/// A rule file's text with its hard line breaks taken out (paragraphs stay apart), so a
/// terminal wraps it at its own width.
fn unwrapped(s: &str) -> String {
    s.trim()
        .split("\n\n")
        .map(|p| p.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contributing_questions_never_name_a_project_they_answer_with() {
        let en = Engine::builtin().unwrap();
        let qs = contributing_questions(&en).unwrap();
        assert!(qs.len() >= 20, "{}", qs.len());
        for q in &qs {
            for t in [&q.en, &q.ko] {
                let answer = &t.names[q.answer];
                if let Some(u) = answer
                    .contains('/')
                    .then(|| crate::render::upstream_for(answer))
                    .flatten()
                {
                    assert!(!t.prompt.contains(answer.as_str()), "{}", q.id);
                    assert!(!t.prompt.contains(&u.project), "{}", q.id);
                }
                assert!(!t.prompt.contains(&t.answer_text), "{}", q.id);
            }
            assert_eq!(q.choice_of(&(q.answer + 1).to_string()), Some(q.answer));
        }
    }

    #[test]
    fn a_round_asks_each_thing_once() {
        let en = Engine::builtin().unwrap();
        let qs = contributing_questions(&en).unwrap();
        let dco = |r: &[&Question]| {
            r.iter()
                .filter(|q| q.asks.as_deref() == Some("situation/dco"))
                .count()
        };
        assert!(dco(&qs.iter().collect::<Vec<_>>()) > 1);
        let all = round(&qs, 1000);
        assert_eq!(dco(&all), 1);
        let twice: Vec<Question> = qs.iter().chain(&qs).cloned().collect();
        assert_eq!(round(&twice, 1000).len(), all.len());
        assert_eq!(round(&qs, 2).len(), 2);
    }
}
