//! Contribution questions (issue 42) that test the rules, not word matching.
//!
//! The first version asked "this finding belongs upstream in owner/repo: which project?", with
//! every choice opening on a project's name, so the answer was found by matching words. Here
//! the prompt never names the answer:
//! - a *situation* per repository a rule reports to ("You found a bug in fake-gpu-operator: what
//!   comes before the PR?"): the answer is one of that project's rules, the other choices are
//!   rules the project does not hold, so only knowing the rules tells them apart;
//! - *which repository* holds a rule ("… runs its tests only on signed, Verified commits?"):
//!   the choices are repositories, one of a project that holds it, the rest of projects that
//!   do not, and the prompt names none of them;
//! - *first response*: where an answer comes the same day, from the dated figures.
//!
//! Rules are told apart by their `topics` in `rules/upstreams.yaml`: one topic is one text
//! (checked when the facts load), so no two choices of a question say the same rule.

use super::{Kind, Question, Source, Text};
use crate::engine::Engine;
use crate::error::RuleError;
use crate::lang::{Lang, Words};
use crate::render::{Upstream, first_response_line, upstreams};
use std::collections::BTreeMap;

/// At most this many choices in a contribution question.
const MAX_CHOICES: usize = 4;

/// One rule as projects share it: its topic, its text in each language, and the
/// `upstreams.yaml` keys of the projects that hold it.
struct Fact {
    topic: String,
    en: String,
    ko: String,
    holders: Vec<String>,
}

fn invalid(message: String) -> RuleError {
    RuleError::Invalid {
        file: "upstreams.yaml".into(),
        message,
    }
}

/// Every topic once, in the order projects first name it. An error when a project's
/// `topics` do not match its `rules` one for one, or one topic has two texts.
fn facts(all: &BTreeMap<String, Upstream>) -> Result<Vec<Fact>, RuleError> {
    let mut out: Vec<Fact> = Vec::new();
    for (key, u) in all.iter().filter(|(_, u)| !u.rules.is_empty()) {
        if u.topics.len() != u.rules.len() || u.rules_ko.len() != u.rules.len() {
            return Err(invalid(format!(
                "{key}: {} rules, {} rulesKo, {} topics: give one of each per rule",
                u.rules.len(),
                u.rules_ko.len(),
                u.topics.len()
            )));
        }
        for ((topic, en), ko) in u.topics.iter().zip(&u.rules).zip(&u.rules_ko) {
            match out.iter_mut().find(|f| &f.topic == topic) {
                Some(f) if f.en != *en || f.ko != *ko => {
                    return Err(invalid(format!(
                        "{key}: topic {topic} reads `{en}`, elsewhere `{}`: one topic, one text",
                        f.en
                    )));
                }
                Some(f) => f.holders.push(key.clone()),
                None => out.push(Fact {
                    topic: topic.clone(),
                    en: en.clone(),
                    ko: ko.clone(),
                    holders: vec![key.clone()],
                }),
            }
        }
    }
    Ok(out)
}

/// The `upstreams.yaml` key that covers `repo`: its own, else `owner/*`.
fn key_of<'a>(all: &'a BTreeMap<String, Upstream>, repo: &str) -> Option<&'a String> {
    let owner = repo.split('/').next()?;
    all.get_key_value(repo)
        .or_else(|| all.get_key_value(&format!("{owner}/*")))
        .map(|(k, _)| k)
}

/// A stable number from text (FNV-1a), to rotate choices without a random source.
fn spread(s: &str) -> usize {
    s.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    }) as usize
}

/// `picks` from `pool`, starting at a place `id` chooses, then the answer put at a place `id`
/// chooses: the answer's position is not always the same. Returns (items, answer index).
fn arrange<T: Clone>(id: &str, answer: T, pool: &[T]) -> (Vec<T>, usize) {
    let start = spread(id);
    let mut items: Vec<T> = (0..pool.len().min(MAX_CHOICES - 1))
        .map(|i| pool[(start + i) % pool.len()].clone())
        .collect();
    let at = spread(&format!("{id}#")) % (items.len() + 1);
    items.insert(at, answer);
    (items, at)
}

/// The stem `key` in `lang`, an error where the words files lack it.
fn stem(words: Words, key: &str, vars: &[(&str, &str)]) -> Result<String, RuleError> {
    if words.get(key).is_empty() {
        return Err(invalid(format!("rules/ui.yaml has no `{key}`")));
    }
    Ok(words.fill(key, vars))
}

/// Every contribution question: a situation per repository rules report to, a "which
/// repository?" per topic not every project holds, and the first-response question.
pub fn questions(engine: &Engine) -> Result<Vec<Question>, RuleError> {
    let all = upstreams()?;
    let facts = facts(&all)?;
    // Repositories rules report to, grouped under the key whose rules apply to them.
    let mut repos: BTreeMap<&String, Vec<String>> = BTreeMap::new();
    for r in engine.rules() {
        let Some(repo) = r.upstream.as_deref() else {
            continue;
        };
        if let Some(key) = key_of(&all, repo).filter(|k| !all[*k].rules.is_empty()) {
            let list = repos.entry(key).or_default();
            if !list.iter().any(|x| x == repo) {
                list.push(repo.to_string());
            }
        }
    }
    repos.values_mut().for_each(|l| l.sort());
    let mut out = Vec::new();
    for (key, list) in &repos {
        for (i, repo) in list.iter().enumerate() {
            out.push(situation(&all, &facts, key, repo, i)?);
        }
    }
    for fact in &facts {
        if let Some(q) = which(&all, fact, &repos)? {
            out.push(q);
        }
    }
    out.extend(first_response(&all)?);
    Ok(out)
}

/// The rule texts of `key`'s project in `lang`, as a list.
fn rule_lines(u: &Upstream, lang: Lang) -> String {
    let rules = match lang {
        Lang::Ko => &u.rules_ko,
        Lang::En => &u.rules,
    };
    rules.iter().map(|r| format!("  - {r}\n")).collect()
}

/// "{repo} is reported to {project}. Its rules: …" and its dated first-response figure.
fn project_lines(repo: &str, u: &Upstream, words: Words) -> String {
    let mut s = words.fill(
        "practice.reportTo",
        &[("repo", repo), ("project", &u.project)],
    );
    s.push('\n');
    s.push_str(&rule_lines(u, words.lang()));
    if let Some(line) = first_response_line(repo, u, words.lang()) {
        s.push_str(&line);
        s.push('\n');
    }
    s
}

fn text_of(f: &Fact, lang: Lang) -> &str {
    match lang {
        Lang::Ko => &f.ko,
        Lang::En => &f.en,
    }
}

/// "You found a bug in {component}: what comes before the PR?": the `i`th repository of
/// `key` asks its project's `i`th topic (in turn), so one project's repositories ask
/// different rules. The other choices are rules the project does not hold.
fn situation(
    all: &BTreeMap<String, Upstream>,
    facts: &[Fact],
    key: &str,
    repo: &str,
    i: usize,
) -> Result<Question, RuleError> {
    let u = &all[key];
    let component = repo.rsplit('/').next().unwrap_or(repo);
    // The project's topics in turn from the `i`th, skipping a rule whose text holds the
    // component's name (`kubernetes` and "Kubernetes AI guidance"): the prompt names the
    // component, and the answer must not be found by that word.
    let n = u.topics.len();
    let fact = |t: &String| {
        facts
            .iter()
            .find(|f| &f.topic == t)
            .expect("facts hold every topic")
    };
    let answer = (0..n)
        .map(|k| fact(&u.topics[(i + k) % n]))
        .find(|f| {
            !format!("{} {}", f.en, f.ko)
                .to_lowercase()
                .contains(&component.to_lowercase())
        })
        .unwrap_or_else(|| fact(&u.topics[i % n]));
    let topic = &answer.topic;
    let others: Vec<&Fact> = facts
        .iter()
        .filter(|f| !f.holders.iter().any(|h| h == key))
        .collect();
    let id = format!("contributing/situation/{repo}");
    let (choices, at) = arrange(&id, answer, &others);
    let text = |lang: Lang| -> Result<Text, RuleError> {
        let words = Words::of(lang);
        let texts: Vec<String> = choices.iter().map(|f| text_of(f, lang).into()).collect();
        let mut explanation = words.fill(
            "practice.answerIs",
            &[("answer", texts[at].trim_end_matches('.'))],
        );
        explanation.push('\n');
        explanation.push_str(&project_lines(repo, u, words));
        Ok(Text {
            prompt: stem(
                words,
                &format!("practice.situation.{topic}"),
                &[("component", component)],
            )?,
            names: choices.iter().map(|f| f.topic.clone()).collect(),
            answer_text: texts[at].clone(),
            choices: texts,
            explanation: explanation.trim_end().into(),
        })
    };
    contribution(
        id,
        at,
        repo.into(),
        Some(format!("https://github.com/{repo}")),
        Some(format!("situation/{topic}")),
        text,
    )
}

/// "Which of these repositories …?" for a topic that some projects hold and others do not:
/// one repository of a holder (in turn by topic), the rest one each of projects that do not.
fn which(
    all: &BTreeMap<String, Upstream>,
    fact: &Fact,
    repos: &BTreeMap<&String, Vec<String>>,
) -> Result<Option<Question>, RuleError> {
    let first = |key: &String| repos.get(key).and_then(|l| l.first()).cloned();
    let holders: Vec<String> = fact.holders.iter().filter_map(first).collect();
    let others: Vec<String> = repos
        .keys()
        .filter(|k| !fact.holders.contains(k))
        .filter_map(|k| first(k))
        .collect();
    if holders.is_empty() || others.is_empty() {
        return Ok(None);
    }
    let id = format!("contributing/which/{}", fact.topic);
    let repo = holders[spread(&id) % holders.len()].clone();
    let (choices, at) = arrange(&id, repo.clone(), &others);
    let key = key_of(all, &repo).expect("a holder's repository has its key");
    let u = &all[key];
    let text = |lang: Lang| -> Result<Text, RuleError> {
        let words = Words::of(lang);
        let mut explanation = words.fill("practice.answerIs", &[("answer", &repo)]);
        explanation.push('\n');
        explanation.push_str(&project_lines(&repo, u, words));
        explanation.push_str(&words.fill("practice.holders", &[("repos", &holders.join(", "))]));
        Ok(Text {
            prompt: stem(words, &format!("practice.which.{}", fact.topic), &[])?,
            names: choices.clone(),
            answer_text: repo.clone(),
            choices: choices.clone(),
            explanation,
        })
    };
    Ok(Some(contribution(
        id,
        at,
        fact.topic.clone(),
        Some(format!("https://github.com/{repo}")),
        None,
        text,
    )?))
}

/// A contribution question from its parts, its text made in each language by `text`.
fn contribution(
    id: String,
    answer: usize,
    name: String,
    url: Option<String>,
    asks: Option<String>,
    text: impl Fn(Lang) -> Result<Text, RuleError>,
) -> Result<Question, RuleError> {
    Ok(Question {
        id,
        kind: Kind::Contributing,
        answer,
        source: Source {
            kind: "upstreams".into(),
            name,
            target: None,
            url,
            also: Vec::new(),
        },
        asks,
        headline: None,
        en: text(Lang::En)?,
        ko: text(Lang::Ko)?,
    })
}

/// Hours in a median figure such as `0.6 h` or `about 20 h`; None for another unit.
fn hours(median: &str) -> Option<f64> {
    let mut words = median.split_whitespace().rev();
    (words.next()? == "h").then_some(())?;
    words.next()?.parse().ok()
}

/// Under this many hours, an answer comes the same day; a repository whose median is over
/// twice that, or that answered few PRs at all, is a wrong choice.
const SAME_DAY_HOURS: f64 = 8.0;

/// "Where should a first contribution start if you want an answer the same day?": the
/// repository with the shortest median, against those whose median is over a day's half or
/// that answered few outside PRs at all. None when the figures have no such pair.
fn first_response(all: &BTreeMap<String, Upstream>) -> Result<Option<Question>, RuleError> {
    let mut figures: Vec<(Option<f64>, &str, &Upstream)> = Vec::new();
    let mut counted = None;
    for u in all.values() {
        let Some(f) = &u.first_response else { continue };
        counted.get_or_insert((f.counted.clone(), f.days));
        for (repo, figure) in &f.repos {
            figures.push((figure.median.as_deref().and_then(hours), repo, u));
        }
    }
    let fastest = figures
        .iter()
        .filter_map(|(h, repo, u)| Some((h.as_ref()?, *repo, *u)))
        .min_by(|a, b| a.0.total_cmp(b.0));
    let slow: Vec<(&str, &Upstream)> = figures
        .iter()
        .filter(|(h, _, _)| h.is_none_or(|h| h > 2.0 * SAME_DAY_HOURS))
        .map(|(_, repo, u)| (*repo, *u))
        .collect();
    let (Some((&h, repo, u)), Some((day, days))) = (fastest, counted) else {
        return Ok(None);
    };
    if h >= SAME_DAY_HOURS || slow.is_empty() {
        return Ok(None);
    }
    let id = "contributing/first-response".to_string();
    let slow_repos: Vec<&str> = slow.iter().map(|(r, _)| *r).collect();
    let (choices, at) = arrange(&id, repo, &slow_repos);
    let text = |lang: Lang| -> Result<Text, RuleError> {
        let words = Words::of(lang);
        let mut explanation = words.fill("practice.answerIs", &[("answer", repo)]);
        explanation.push('\n');
        explanation.push_str(&words.fill("practice.figures", &[("counted", &day)]));
        explanation.push('\n');
        for (r, up) in std::iter::once((repo, u)).chain(slow.iter().copied()) {
            if let Some(line) = first_response_line(r, up, lang) {
                explanation.push_str(&format!("  - {line}\n"));
            }
        }
        explanation.push_str(&project_lines(repo, u, words));
        let names: Vec<String> = choices.iter().map(|c| c.to_string()).collect();
        Ok(Text {
            prompt: stem(
                words,
                "practice.firstResponse",
                &[("days", &days.to_string()), ("counted", &day)],
            )?,
            answer_text: repo.into(),
            choices: names.clone(),
            names,
            explanation: explanation.trim_end().into(),
        })
    };
    Ok(Some(contribution(
        id,
        at,
        "firstResponse".into(),
        None,
        None,
        text,
    )?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_topic_is_one_text_and_every_project_with_rules_names_its_topics() {
        let all = upstreams().unwrap();
        let f = facts(&all).unwrap_or_else(|e| panic!("{e}"));
        assert!(f.len() >= 8, "{}", f.len());
        let mut texts: Vec<&str> = f.iter().map(|x| x.en.as_str()).collect();
        texts.sort();
        texts.dedup();
        assert_eq!(texts.len(), f.len(), "two topics share a text");
    }

    #[test]
    fn hours_reads_the_figures_as_written() {
        assert_eq!(hours("0.6 h"), Some(0.6));
        assert_eq!(hours("about 20 h"), Some(20.0));
        assert_eq!(hours("3 days"), None);
    }

    #[test]
    fn arrange_keeps_the_answer_once_and_moves_it_by_id() {
        let pool = ["b", "c", "d", "e"];
        let places: std::collections::BTreeSet<usize> = (0..20)
            .map(|n| {
                let (items, at) = arrange(&format!("q{n}"), "a", &pool);
                assert_eq!(items[at], "a");
                assert_eq!(items.iter().filter(|x| **x == "a").count(), 1);
                assert_eq!(items.len(), MAX_CHOICES);
                at
            })
            .collect();
        assert!(places.len() > 1, "the answer sits in one place: {places:?}");
    }
}
