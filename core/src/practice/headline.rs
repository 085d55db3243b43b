//! The headline exercise (issue 42): the person writes an upstream issue's title for a case,
//! and it is judged by two written rules, not by taste.
//!
//! The course says: name the layer and the observation together ("Kueue admitted the workload
//! but the pod is Pending"). So a title passes when it holds
//! 1. a *layer term*: the layer's name (English or Korean), one of its tools as
//!    `practice.tools.<layer>` in `rules/ui.yaml`/`ui.ko.yaml` lists them, or the id of one of
//!    its components in `rules/components.yaml`; and
//! 2. an *observation term*: a word or number of the tool's own headline that the case shows in
//!    its prompt (a status, a reason, a node, a count), leaving out the target's own name, any
//!    word holding a layer term of any layer (`router-container` holds `router`: naming it
//!    would name a layer) and common words, which say nothing about this case.
//!
//! Both lists are computed when the bank is generated and written into it (the layer terms once
//! per layer in `layerTerms`, the observation terms with each layer question), so the CLI and
//! the web page judge by the same data. A term matches where it stands
//! alone: case-insensitive, with no ASCII letter or digit right before or after it ("lws" does
//! not match inside "flows"; Korean particles may follow a Korean term).

use crate::diagnosis::Diagnosis;
use crate::lang::{Lang, Words};
use crate::layer::Layer;
use serde::{Deserialize, Serialize};

/// What a headline question judges a title by.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HeadlineCheck {
    /// The tool's own headline, in English (the language of an upstream title).
    pub headline: String,
    /// The same in Korean, where the rules have it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headline_ko: Option<String>,
    /// Terms of the decisive observation.
    pub observation_terms: Vec<String>,
}

/// What a title named: the first layer term and the first observation term found in it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Judgement {
    pub layer: Option<String>,
    pub observation: Option<String>,
}

impl Judgement {
    /// A good title names both.
    pub fn passes(&self) -> bool {
        self.layer.is_some() && self.observation.is_some()
    }
}

/// Words of four letters or more that any headline may hold and no case decides by.
const COMMON: &[&str] = &[
    "about", "after", "also", "because", "been", "before", "but", "does", "each", "every", "from",
    "have", "into", "just", "more", "most", "node", "nodes", "none", "only", "other", "over",
    "pods", "same", "some", "still", "than", "that", "their", "them", "then", "there", "they",
    "this", "under", "were", "what", "when", "where", "which", "while", "will", "with", "would",
];

impl HeadlineCheck {
    /// Judge a title by the two rules of this module; `layer_terms`: the answer's layer's.
    pub fn judge(&self, layer_terms: &[String], title: &str) -> Judgement {
        let t = title.to_lowercase();
        let first = |terms: &[String]| terms.iter().find(|x| stands_in(&t, x)).cloned();
        Judgement {
            layer: first(layer_terms),
            observation: first(&self.observation_terms),
        }
    }
}

/// Whether `term` stands alone in `lower` (already lowercased): no ASCII letter or digit
/// right before or after an occurrence.
pub fn stands_in(lower: &str, term: &str) -> bool {
    let term = term.to_lowercase();
    if term.is_empty() {
        return false;
    }
    let alnum = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric());
    lower.match_indices(&term).any(|(i, _)| {
        !alnum(lower[..i].chars().next_back()) && !alnum(lower[i + term.len()..].chars().next())
    })
}

/// The layer's terms: its name in each language, its tools in each language's words, and the
/// ids of its components. Each once, case-insensitively, in that order.
pub fn layer_terms(layer: Layer) -> Vec<String> {
    let key = format!("practice.tools.{}", layer.as_str());
    let mut out: Vec<String> = Vec::new();
    let mut add = |t: &str| {
        let t = t.trim();
        if !t.is_empty() && !out.iter().any(|x| x.eq_ignore_ascii_case(t)) {
            out.push(t.to_string());
        }
    };
    for lang in [Lang::En, Lang::Ko] {
        add(Words::of(lang).layer(layer));
    }
    for lang in [Lang::En, Lang::Ko] {
        Words::of(lang).get(&key).split(',').for_each(&mut add);
    }
    for c in crate::components::registry()
        .iter()
        .filter(|c| c.layer == layer)
    {
        add(&c.id);
    }
    out
}

/// The words and numbers of `text`: runs of letters, digits and `._/-`, trimmed of the
/// punctuation at their ends.
fn tokens(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || "._/-".contains(c)))
        .map(|t| t.trim_matches(|c: char| "._/-".contains(c)))
        .filter(|t| !t.is_empty())
}

/// The check of a case: `en` is its English diagnosis, `ko` its Korean one, `prompt` what the
/// English question shows. None when the headline shares no
/// decisive term with the prompt (a title could not be judged fairly).
pub fn check(en: &Diagnosis, ko: &Diagnosis, prompt: &str) -> Option<HeadlineCheck> {
    // Every layer's terms: naming a tool (the right one or another) is no observation.
    let layer_terms: Vec<String> = Layer::ALL.iter().flat_map(|l| layer_terms(*l)).collect();
    let shown = prompt.to_lowercase();
    let target = en.target.name.to_lowercase();
    let mut observation_terms: Vec<String> = Vec::new();
    for t in tokens(&en.verdict.headline) {
        let lower = t.to_lowercase();
        let digits = lower.chars().any(|c| c.is_ascii_digit());
        let telling = if digits {
            lower.len() >= 2
        } else {
            lower.len() >= 4
        };
        let names_target = lower.contains(&target)
            || en.target.namespace.as_deref() == Some(lower.as_str())
            || lower == en.target.kind.to_lowercase();
        if !telling
            || names_target
            || COMMON.contains(&lower.as_str())
            || layer_terms.iter().any(|x| stands_in(&lower, x))
            || observation_terms
                .iter()
                .any(|x| x.eq_ignore_ascii_case(&lower))
            || !stands_in(&shown, &lower)
        {
            continue;
        }
        observation_terms.push(t.to_string());
    }
    if observation_terms.is_empty() {
        return None;
    }
    Some(HeadlineCheck {
        headline: en.verdict.headline.clone(),
        headline_ko: ko.verdict.headline_ko.clone(),
        observation_terms,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> HeadlineCheck {
        HeadlineCheck {
            headline: "Kueue admitted the workload but the pod is Pending".into(),
            headline_ko: None,
            observation_terms: vec!["Pending".into(), "Insufficient".into()],
        }
    }

    #[test]
    fn a_title_passes_with_the_layer_and_the_observation_and_fails_without_either() {
        let c = sample();
        let terms = layer_terms(Layer::Placement);
        let judge = |t: &str| c.judge(&terms, t);
        let good = judge("kube-scheduler leaves the pod Pending on Insufficient nvidia.com/gpu");
        assert!(good.passes(), "{good:?}");
        assert_eq!(good.layer.as_deref(), Some("kube-scheduler"));
        let no_layer = judge("The pod is Pending forever");
        assert_eq!(no_layer.layer, None);
        assert!(!no_layer.passes());
        let no_observation = judge("Placement is broken");
        assert_eq!(no_observation.layer.as_deref(), Some("placement"));
        assert!(!no_observation.passes());
        assert!(judge("배치 층에서 Pending 으로 멈춤").passes());
    }

    #[test]
    fn a_term_matches_only_where_it_stands_alone() {
        assert!(stands_in("the lws group", "LWS"));
        assert!(!stands_in("data flows slowly", "lws"));
        assert!(stands_in("gpu-1: pending", "gpu-1"));
        assert!(!stands_in("gpu-10 pending", "gpu-1"));
        assert!(stands_in("스케줄러가 거절", "스케줄러"));
        assert!(!stands_in("anything", ""));
    }

    #[test]
    fn every_layer_has_its_names_and_tools_in_both_languages() {
        for l in Layer::ALL {
            let terms = layer_terms(l);
            assert!(terms.iter().any(|t| t == l.as_str()), "{l}: {terms:?}");
            let ko = Words::of(Lang::Ko).layer(l);
            assert!(terms.iter().any(|t| t == ko), "{l}: {terms:?}");
            assert!(terms.len() >= 5, "{l}: {terms:?}");
        }
    }
}
