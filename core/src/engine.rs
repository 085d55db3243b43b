//! The one rule driver: build the view of a target, evaluate every rule that applies, and turn
//! what matched into a Diagnosis (six layers, findings, verdict, misalignment, headline, next).
//!
//! How a verdict is chosen (documented for users in `docs/rules.md`):
//! - Blocking findings make the verdict `blocked`; otherwise warnings make it `warn`.
//! - A finding that `explains` another matched finding is its cause: the explained one is a
//!   symptom and cannot be the verdict. Among the rest a specific finding beats a layer's
//!   evidence floor (`floor: true`), then higher `priority` wins, then layer order (device
//!   first), then rule id.
//! - A floor is dropped where a specific finding of its own layer fired, and only warns where
//!   one fired in another layer. History (finished work, a superseded pod: `View::history`)
//!   turns every finding into `info`.
//! - The layer that said yes in a misalignment, when the cause is elsewhere, warns rather
//!   than blocks; when it is the cause itself, the misalignment says its configuration said yes.
//! - A matched misalignment rule whose two layers include the verdict's layer supplies the
//!   misalignment and the headline; otherwise the headline is the verdict finding's own.
//! - With nothing blocking or warning, the verdict is `ok` if the work is settled (running,
//!   ready or finished) and `unknown` if it is not: the bundle lacks what explains it.
//! - A blocked verdict's `outlook` (does waiting help?) is the deciding rule's `outlook:`.

use crate::diagnosis::*;
use crate::eval::{Captured, Match, eval};
use crate::index::{Index, ObjId};
use crate::lang::Lang;
use crate::layer::{Layer, LayerState, Severity};
use crate::rule::{Rule, RuleKind};
use crate::template::{command_if_safe, render};
use crate::view::{self, SubjectRef, View};
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// Engine-wide texts (kept in `rules/engine.yaml`, not in code, so they can be translated).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct EngineTexts {
    pub layer_no_evidence: String,
    pub layer_not_reached: String,
    pub healthy_headline: String,
    pub blocked_headline: String,
    pub unexplained_headline: String,
    /// The same three for work `fit` placed as if submitted now.
    pub fit_healthy_headline: String,
    pub fit_blocked_headline: String,
    pub fit_unexplained_headline: String,
    /// Work `fit` placed that would run as far as the bundle shows, but names objects whose
    /// kind the bundle holds none of (`{unchecked}`).
    pub fit_unchecked_headline: String,
    /// A layer row whose decision depends on such a name.
    pub layer_unchecked: String,
}

/// Options of one diagnosis.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// "Now" as RFC 3339; overrides the bundle's collection time and newest timestamp.
    pub now: Option<String>,
    /// Threads `scan` may diagnose on: 0 means one per core the platform reports (one where it
    /// reports none, as in WASM). The report is the same for any number.
    pub threads: usize,
}

/// The compiled rule set and texts. Build once, use for many diagnoses.
#[derive(Debug, Clone)]
pub struct Engine {
    rules: Vec<Rule>,
    /// How many head slots the rules' tests use ([`crate::eval::assign_heads`]).
    head_slots: usize,
    texts: EngineTexts,
    /// The language its texts are in.
    lang: Lang,
    /// For another language than English: the same rules in English, which write the headline
    /// (it stays English, for an upstream issue's title).
    english: Option<Box<Engine>>,
}

struct Fired<'r> {
    rule: &'r Rule,
    /// What matched; its captures are in `vars`.
    m: Match<'r>,
    /// The rule's captures, and its `absent` words for names neither they nor the built-ins
    /// hold. The built-ins stay in one map per diagnosis ([`Fired::vars`] looks there next).
    vars: Captures<'r>,
    builtins: &'r Vars,
    /// The rule's commands, rendered; those naming an absent value are left out.
    next: Vec<String>,
}

type Vars = BTreeMap<String, Vec<Value>>;

/// A rule's captures, by name.
struct Captures<'v>(BTreeMap<String, Captured<'v>>);

impl crate::template::Vars for Captures<'_> {
    fn values(&self, name: &str) -> Option<crate::template::Values<'_>> {
        self.0.get(name).map(Captured::values)
    }
}

impl Fired<'_> {
    /// The names this rule's texts see: its captures, then the diagnosis's built-ins.
    fn vars(&self) -> (&Captures<'_>, &Vars) {
        (&self.vars, self.builtins)
    }
}

impl Engine {
    /// The rules compiled into this build (from `rules/`).
    pub fn builtin() -> Result<Engine, crate::error::RuleError> {
        let rules = crate::embedded::RULES
            .iter()
            .map(|r| match r.json {
                true => Rule::load_builtin(r.path, r.text, r.paths),
                false => Rule::load_unread(r.path, r.text),
            })
            .collect::<Result<Vec<_>, _>>()?;
        Engine::assemble(rules, crate::embedded::ENGINE_TEXTS)
    }

    /// An engine from rule files given as (path relative to `rules/`, text).
    pub fn from_files(
        files: &[(&str, &str)],
        texts: &str,
    ) -> Result<Engine, crate::error::RuleError> {
        let rules = files
            .iter()
            .map(|(p, t)| Rule::load(p, t))
            .collect::<Result<Vec<_>, _>>()?;
        Engine::assemble(rules, texts)
    }

    /// Rules that loaded, checked as a set (unique ids, `explains` naming rules), and the
    /// engine's texts.
    fn assemble(mut rules: Vec<Rule>, texts: &str) -> Result<Engine, crate::error::RuleError> {
        let texts: EngineTexts = crate::embedded::from_yaml(texts).map_err(|message| {
            crate::error::RuleError::Invalid {
                file: "engine.yaml".into(),
                message,
            }
        })?;
        rules.sort_by(|a, b| a.id.cmp(&b.id));
        for w in rules.windows(2) {
            if w[0].id == w[1].id {
                return Err(crate::error::RuleError::Invalid {
                    file: w[0].id.clone(),
                    message: "duplicate rule id".into(),
                });
            }
        }
        let ids: Vec<&str> = rules.iter().map(|r| r.id.as_str()).collect();
        for r in &rules {
            for e in &r.explains {
                if !ids.contains(&e.as_str()) {
                    return Err(crate::error::RuleError::Invalid {
                        file: r.id.clone(),
                        message: format!("explains `{e}`, which is not a rule"),
                    });
                }
            }
        }
        let head_slots = crate::eval::assign_heads(&mut rules);
        Ok(Engine {
            rules,
            head_slots,
            texts,
            lang: Lang::En,
            english: None,
        })
    }

    /// The same rules writing in `lang`: every text a rule, the engine and the facts write,
    /// from the language pack, checked against the English when it is taken (a rule the pack
    /// has no texts for keeps its English). The headline stays English and the Korean one is
    /// `verdict.headlineKo`.
    pub fn in_lang(&self, lang: Lang) -> Result<Engine, crate::error::RuleError> {
        let english = self.english.as_deref().unwrap_or(self);
        if lang == Lang::En {
            return Ok(english.clone());
        }
        let pack = crate::lang::pack().map_err(|e| crate::error::RuleError::Invalid {
            file: format!("the {lang} texts"),
            message: e.to_string(),
        })?;
        let texts: EngineTexts = crate::embedded::from_yaml(&pack.engine).map_err(|message| {
            crate::error::RuleError::Invalid {
                file: format!("engine.{lang}.yaml"),
                message,
            }
        })?;
        let rules = english
            .rules
            .iter()
            .map(|r| match pack.rules.get(&r.id) {
                Some(t) => r.translated(lang, t),
                None => Ok(r.clone()),
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Engine {
            rules,
            head_slots: english.head_slots,
            texts,
            lang,
            english: Some(Box::new(english.clone())),
        })
    }

    /// The language this engine writes in.
    pub fn lang(&self) -> Lang {
        self.lang
    }

    pub fn rules(&self) -> &[Rule] {
        &self.rules
    }

    /// How many head slots its rules' tests use: the room a [`crate::eval::Scope`] needs.
    pub fn head_slots(&self) -> usize {
        self.head_slots
    }

    pub fn rule(&self, id: &str) -> Option<&Rule> {
        self.rules.iter().find(|r| r.id == id)
    }

    /// "Now" for a bundle: the option, else the bundle's collection time, else its newest
    /// timestamp.
    pub fn now(&self, ix: &Index, opts: &Options) -> Option<Now> {
        if let Some(t) = &opts.now {
            return Some(Now {
                time: t.clone(),
                source: "option".into(),
            });
        }
        if let Some(t) = ix.bundle().meta().and_then(|m| m.collected_at.clone()) {
            return Some(Now {
                time: t,
                source: "collectedAt".into(),
            });
        }
        ix.newest_timestamp().map(|t| Now {
            time: crate::time::format_rfc3339(t),
            source: "newestInBundle".into(),
        })
    }

    /// Diagnose one object of the index.
    pub fn diagnose(&self, ix: &Index, target: ObjId, opts: &Options) -> Diagnosis {
        self.evaluate(ix, target, opts).0
    }

    /// Diagnose, and also return the id of every rule that matched (findings, layer statuses and
    /// misalignments alike): what the rule fixtures and `--explain` look at.
    /// Every diagnosis leaves here without the credentials of a URL it quotes
    /// ([`Diagnosis::without_credentials`]), whichever door prints it.
    pub fn evaluate(&self, ix: &Index, target: ObjId, opts: &Options) -> (Diagnosis, Vec<String>) {
        let (mut d, matched) = self.evaluate_in_langs(ix, target, opts);
        d.without_credentials();
        (d, matched)
    }

    /// What a scan's grouped outputs need of `target`'s diagnosis: its target, verdict (state,
    /// layer, rule, outlook, cause), language and place in a queue, exactly as
    /// [`Engine::diagnose`] gives them, but with an empty headline; or None where only the
    /// whole diagnosis can say (work `fit` placed: its verdict reads the layers).
    ///
    /// Why: a backlog's grouped scan prints one headline a cause, yet every diagnosis wrote
    /// every finding's words and evidence, every layer, its timeline and its commands. The
    /// view is the same and the verdict comes from the same [`settle`]; only the finding
    /// rules are evaluated, and evidence is mapped for the verdict's finding alone.
    pub fn verdict_line(&self, ix: &Index, target: ObjId, opts: &Options) -> Option<Diagnosis> {
        let mut d = crate::lang::scoped(self.lang, || self.verdict_in_own_lang(ix, target, opts))?;
        d.lang = self
            .english
            .is_some()
            .then(|| self.lang.as_str().to_string());
        d.without_credentials();
        Some(d)
    }

    fn verdict_in_own_lang(&self, ix: &Index, target: ObjId, opts: &Options) -> Option<Diagnosis> {
        let (view, now) = self.view(ix, target, opts);
        if view.not_submitted || !view.unchecked.is_empty() {
            return None;
        }
        let scope = crate::eval::Scope::new(&view.value, view.lent(), self.head_slots);
        let fired: Vec<(&Rule, Match)> = self
            .rules
            .iter()
            .filter(|r| r.kind == RuleKind::Finding && view.subjects.holds(r.applies_set))
            .filter_map(|r| Some((r, eval(&r.when, &scope)?)))
            .collect();
        let rules: Vec<&Rule> = fired.iter().map(|(r, _)| *r).collect();
        let (kept, verdict_at) = settle(&rules, view.history);
        let verdict = verdict_at.map(|k| kept[k]);
        let (state, layer) = match verdict {
            Some((i, severity)) => (verdict_state(severity), Some(rules[i].layer)),
            None if view.settled => (LayerState::Ok, None),
            None => (LayerState::Unknown, None),
        };
        let t = ix.object(target);
        let cause = verdict.and_then(|(i, _)| {
            let evidence = evidence(&view, &fired[i].1);
            cause_of(&view, rules[i], &evidence, t.namespace())
        });
        Some(Diagnosis {
            schema_version: SCHEMA_VERSION.into(),
            target: target_of(ix, &view),
            verdict: Verdict {
                state,
                layer,
                headline: String::new(),
                headline_ko: None,
                misalignment: None,
                rule: verdict.map(|(i, _)| rules[i].id.clone()),
                outlook: verdict
                    .filter(|_| state == LayerState::Blocked)
                    .and_then(|(i, _)| rules[i].outlook)
                    .and_then(crate::rule::RuleOutlook::verdict),
                cause,
            },
            layers: Vec::new(),
            findings: Vec::new(),
            next: Vec::new(),
            missing: Vec::new(),
            pods: Vec::new(),
            now,
            timeline: Timeline::default(),
            lang: None,
            incomplete: None,
            queue: queue_standing(&view),
            input_notes: Vec::new(),
        })
    }

    fn evaluate_in_langs(
        &self,
        ix: &Index,
        target: ObjId,
        opts: &Options,
    ) -> (Diagnosis, Vec<String>) {
        let Some(english) = &self.english else {
            return crate::lang::scoped(Lang::En, || self.evaluate_in_own_lang(ix, target, opts));
        };
        let headline = english.evaluate(ix, target, opts).0.verdict.headline;
        let (mut d, matched) =
            crate::lang::scoped(self.lang, || self.evaluate_in_own_lang(ix, target, opts));
        d.verdict.headline_ko = Some(std::mem::replace(&mut d.verdict.headline, headline));
        d.lang = Some(self.lang.as_str().to_string());
        (d, matched)
    }

    fn evaluate_in_own_lang(
        &self,
        ix: &Index,
        target: ObjId,
        opts: &Options,
    ) -> (Diagnosis, Vec<String>) {
        let (view, now) = self.view(ix, target, opts);
        self.diagnose_view(ix, &view, now)
    }

    /// The view a diagnosis of `target` reads, and the "now" it is built at.
    fn view(&self, ix: &Index, target: ObjId, opts: &Options) -> (View, Option<Now>) {
        let now = self.now(ix, opts);
        let now_secs = now
            .as_ref()
            .and_then(|n| crate::time::parse_rfc3339(&n.time));
        // Where "now" came from is a fact: an age measured against the newest time in a pasted
        // bundle is only a lower bound, and rules that wait for something to be old must know it.
        let view = view::build_at(
            ix,
            target,
            now_secs,
            now.as_ref().map(|n| n.source.as_str()),
        );
        (view, now)
    }

    fn diagnose_view(&self, ix: &Index, view: &View, now: Option<Now>) -> (Diagnosis, Vec<String>) {
        let t = ix.object(view.target);
        let builtins = builtins(ix, view);
        let scope = crate::eval::Scope::new(&view.value, view.lent(), self.head_slots);
        let mut fired: Vec<Fired> = Vec::new();
        for rule in &self.rules {
            if !view.subjects.holds(rule.applies_set) {
                continue;
            }
            if let Some(mut m) = eval(&rule.when, &scope) {
                let mut vars = Captures(std::mem::take(&mut m.captures));
                let known =
                    |vars: &Captures, k: &str| vars.0.contains_key(k) || builtins.contains_key(k);
                let unknown: Vec<&str> = rule
                    .absent
                    .keys()
                    .filter(|k| !known(&vars, k.as_str()))
                    .map(String::as_str)
                    .collect();
                // A command naming a value the bundle lacks cannot be run: leave it out.
                let next = rule
                    .next
                    .iter()
                    .filter(|n| {
                        crate::template::placeholders(n)
                            .iter()
                            .all(|p| !unknown.contains(p))
                    })
                    .filter_map(|n| command_if_safe(n, &(&vars, &builtins)))
                    .collect();
                for (k, words) in &rule.absent {
                    if !known(&vars, k) {
                        vars.0.insert(
                            k.clone(),
                            Captured::Words(vec![Value::String(words.clone())]),
                        );
                    }
                }
                fired.push(Fired {
                    rule,
                    m,
                    vars,
                    builtins: &builtins,
                    next,
                });
            }
        }

        // Findings, their severities settled and sorted as the contract says ([`settle`]).
        let finding_fired: Vec<&Fired> = fired
            .iter()
            .filter(|f| f.rule.kind == RuleKind::Finding)
            .collect();
        let rules: Vec<&Rule> = finding_fired.iter().map(|f| f.rule).collect();
        let (kept, verdict_at) = settle(&rules, view.history);
        let findings: Vec<(&Fired, Finding)> = kept
            .iter()
            .map(|&(i, severity)| {
                let f = finding_fired[i];
                let finding = Finding {
                    rule: f.rule.id.clone(),
                    layer: f.rule.layer,
                    severity,
                    message: render(&f.rule.message, &f.vars()),
                    evidence: evidence(view, &f.m),
                    next: f.next.clone(),
                    upstream: f.rule.upstream.clone(),
                    fix_in: f.rule.fix_in,
                };
                (f, finding)
            })
            .collect();
        let verdict_finding = verdict_at.map(|k| &findings[k]);

        // Layers.
        let blocked_first = findings
            .iter()
            .filter(|(_, x)| x.severity == Severity::Block)
            .filter_map(|(_, x)| x.layer.path_position())
            .min();
        let mut layers: Vec<LayerReport> = Layer::ALL
            .iter()
            .map(|&layer| self.layer_report(layer, view, &fired, &findings, blocked_first))
            .map(|report| crate::reads::layer_unjudged(report, ix))
            .collect();

        // Verdict, misalignment, headline: the verdict's observation before the built-ins.
        let mut vars = Vars::new();
        if let Some(names) = self.unchecked_makes_unknown(&mut layers, &view.unchecked) {
            vars.insert("unchecked".into(), vec![Value::String(names)]);
        }
        let (state, layer) = match verdict_finding {
            Some((_, x)) => (verdict_state(x.severity), Some(x.layer)),
            None if view.settled => (LayerState::Ok, None),
            // Work not submitted yet runs now when nothing blocks and some node can take it:
            // placement says so from the nodes (a status rule), not from a scheduler.
            None if view.not_submitted
                && view.unchecked.is_empty()
                && layers
                    .iter()
                    .any(|l| l.layer == Layer::Placement && l.state == LayerState::Ok) =>
            {
                (LayerState::Ok, None)
            }
            None => (LayerState::Unknown, None),
        };
        let observation = verdict_finding.map(|(f, x)| {
            f.rule
                .observation
                .as_ref()
                .map_or_else(|| x.message.clone(), |o| render(o, &f.vars()))
        });
        if let Some(o) = &observation {
            vars.insert("observation".into(), vec![Value::String(o.clone())]);
        }
        let misfired = layer.and_then(|l| {
            fired
                .iter()
                .filter(|f| f.rule.kind == RuleKind::Misalignment)
                .filter(|f| f.rule.said_yes == Some(l) || f.rule.said_no == Some(l))
                .min_by(|a, b| (-a.rule.priority, &a.rule.id).cmp(&(-b.rule.priority, &b.rule.id)))
        });
        // The layer that said yes, when the cause is elsewhere, shows its own trouble as a
        // consequence (a DGD not ready because its workers cannot be placed): it warns, and
        // never reads "blocked" beside "said yes".
        if let Some(f) = misfired
            && let Some(yes) = f.rule.said_yes
            && Some(yes) != layer
        {
            for l in layers.iter_mut().filter(|l| l.layer == yes) {
                if l.state == LayerState::Blocked {
                    l.state = LayerState::Warn;
                }
            }
        }
        let misalignment = misfired.map(|f| Misalignment {
            said_yes: f.rule.said_yes.unwrap_or(Layer::Admission),
            said_no: f.rule.said_no.unwrap_or(Layer::Placement),
            why: render(&f.rule.message, &(&vars, &f.vars())),
            said_yes_by_configuration: f.rule.said_yes == layer,
        });
        let texts = &self.texts;
        let (healthy, blocked, unexplained) = if view.not_submitted {
            (
                &texts.fit_healthy_headline,
                &texts.fit_blocked_headline,
                &texts.fit_unexplained_headline,
            )
        } else {
            (
                &texts.healthy_headline,
                &texts.blocked_headline,
                &texts.unexplained_headline,
            )
        };
        let headline = match (misfired, verdict_finding) {
            // The built-ins before the rule's captures here, as they always were.
            (Some(f), _) => render(
                f.rule.headline.as_deref().unwrap_or(&f.rule.message),
                &(&(&vars, &builtins), &f.vars),
            ),
            (None, Some((f, _))) => match &f.rule.headline {
                Some(h) => render(h, &f.vars()),
                None => render(blocked, &(&vars, &builtins)),
            },
            (None, None) if state == LayerState::Ok => render(healthy, &(&vars, &builtins)),
            (None, None) if view.not_submitted && !view.unchecked.is_empty() => {
                render(&texts.fit_unchecked_headline, &(&vars, &builtins))
            }
            (None, None) => render(unexplained, &(&vars, &builtins)),
        };

        // Whether waiting helps is the deciding rule's to say, and only of a block.
        let outlook = verdict_finding
            .filter(|_| state == LayerState::Blocked)
            .and_then(|(f, _)| f.rule.outlook)
            .and_then(crate::rule::RuleOutlook::verdict);

        let mut next: Vec<String> = Vec::new();
        for (_, x) in &findings {
            for n in &x.next {
                add_command(&mut next, n);
            }
        }
        let mut missing = view.missing.clone();
        for u in &view.unchecked {
            // The view may already say the named object is not in the bundle: one line each.
            missing.retain(|m| !(m.kind == u.kind && m.name.as_deref() == Some(u.name.as_str())));
            missing.push(u.missing(t.namespace()));
        }
        missing.extend(crate::reads::as_missing(ix));
        missing.sort();
        missing.dedup();
        let matched = fired.iter().map(|f| f.rule.id.clone()).collect();
        let words = crate::lang::Words::of(crate::lang::current());
        let incomplete = crate::reads::of_diagnosis(ix, &layers, state, words);
        let diagnosis = Diagnosis {
            schema_version: SCHEMA_VERSION.into(),
            target: target_of(ix, view),
            verdict: Verdict {
                state,
                layer,
                headline,
                headline_ko: None,
                misalignment,
                rule: verdict_finding.map(|(f, _)| f.rule.id.clone()),
                outlook,
                cause: verdict_finding
                    .and_then(|(f, x)| cause_of(view, f.rule, &x.evidence, t.namespace())),
            },
            layers,
            findings: findings.into_iter().map(|(_, x)| x).collect(),
            next,
            missing,
            pods: view.pods.clone(),
            now,
            timeline: crate::timeline::build(ix, view),
            lang: None,
            incomplete,
            queue: queue_standing(view),
            input_notes: ix
                .bundle()
                .meta()
                .map(|m| m.input_notes.clone())
                .unwrap_or_default(),
        };
        (diagnosis, matched)
    }

    /// What `fit` could not check is unknown at its layer, whatever else that layer said; the
    /// names, joined, for the headline.
    fn unchecked_makes_unknown(
        &self,
        layers: &mut [LayerReport],
        unchecked: &[view::unchecked::Unchecked],
    ) -> Option<String> {
        if unchecked.is_empty() {
            return None;
        }
        let named = |u: &view::unchecked::Unchecked| format!("{} {}", u.kind, u.name);
        for l in layers
            .iter_mut()
            .filter(|l| !matches!(l.state, LayerState::Blocked | LayerState::Warn))
        {
            let here: Vec<String> = unchecked
                .iter()
                .filter(|u| u.layer == l.layer)
                .map(named)
                .collect();
            if here.is_empty() {
                continue;
            }
            l.state = LayerState::Unknown;
            let mut v = Vars::new();
            v.insert("unchecked".into(), vec![Value::String(here.join(", "))]);
            l.summary = render(&self.texts.layer_unchecked, &v);
        }
        Some(unchecked.iter().map(named).collect::<Vec<_>>().join(", "))
    }

    fn layer_report(
        &self,
        layer: Layer,
        view: &View,
        fired: &[Fired],
        findings: &[(&Fired, Finding)],
        blocked_first: Option<usize>,
    ) -> LayerReport {
        let status = fired
            .iter()
            .filter(|f| f.rule.kind == RuleKind::Status && f.rule.layer == layer)
            .min_by(|a, b| (-a.rule.priority, &a.rule.id).cmp(&(-b.rule.priority, &b.rule.id)));
        let own: Vec<&(&Fired, Finding)> = findings
            .iter()
            .filter(|(_, x)| x.layer == layer && x.severity != Severity::Info)
            .collect();
        let mut decided_by: Vec<String> = Vec::new();
        let mut add_deciders = |f: &Fired| {
            for d in &f.rule.decided_by {
                let d = render(d, &f.vars());
                if !d.is_empty() && !decided_by.contains(&d) {
                    decided_by.push(d);
                }
            }
        };
        if let Some(s) = status {
            add_deciders(s);
        }
        for (f, _) in &own {
            add_deciders(f);
        }
        decided_by.sort();
        // The layer speaks through its most specific findings: those that no other finding of
        // the same layer explains. A warn-level cause (preemption under way, a scale-up pending)
        // that explains a blocking symptom in its own layer makes the layer warn, not blocked.
        let generic = |id: &str| {
            own.iter()
                .any(|(f, _)| f.rule.explains.iter().any(|e| e == id))
        };
        let specific: Vec<&&(&Fired, Finding)> =
            own.iter().filter(|(_, x)| !generic(&x.rule)).collect();
        let judged: Vec<&&(&Fired, Finding)> = if specific.is_empty() {
            own.iter().collect()
        } else {
            specific
        };
        let worst = judged.iter().map(|(_, x)| x.severity).min();
        let (state, summary, evidence) = match (worst, status) {
            (Some(sev), _) => {
                let first = judged
                    .iter()
                    .find(|(_, x)| x.severity == sev)
                    .expect("worst severity exists");
                let state = if sev == Severity::Block {
                    LayerState::Blocked
                } else {
                    LayerState::Warn
                };
                let mut ev = first.1.evidence.clone();
                if let Some(s) = status {
                    ev.extend(evidence(view, &s.m));
                }
                (state, first.1.message.clone(), ev)
            }
            (None, Some(s)) => (
                s.rule.state.unwrap_or(LayerState::Ok),
                render(&s.rule.message, &s.vars()),
                evidence(view, &s.m),
            ),
            (None, None) => {
                let not_reached = match (layer.path_position(), blocked_first) {
                    (Some(p), Some(b)) => p > b,
                    _ => false,
                };
                let text = if not_reached {
                    &self.texts.layer_not_reached
                } else {
                    &self.texts.layer_no_evidence
                };
                (LayerState::Unknown, text.clone(), Vec::new())
            }
        };
        LayerReport {
            layer,
            state,
            decided_by,
            summary,
            evidence,
        }
    }
}

fn builtins(ix: &Index, view: &View) -> BTreeMap<String, Vec<Value>> {
    let t = ix.object(view.target);
    let r = view::object_ref(ix, view.target);
    let mut m = BTreeMap::new();
    let s = |x: &str| vec![Value::String(x.to_string())];
    m.insert("target".into(), s(&r.display()));
    m.insert("target.kind".into(), s(t.kind()));
    m.insert("target.name".into(), s(&t.name));
    m.insert("target.namespace".into(), s(t.namespace().unwrap_or("")));
    m.insert("namespace".into(), s(t.namespace().unwrap_or("default")));
    m.insert(
        "pod".into(),
        s(view.pod.map_or("", |p| ix.object(p).name.as_str())),
    );
    m.insert("status".into(), s(&view.status));
    m
}

/// The object the verdict's rule rests on ([`crate::groups::rests_on`]): of the objects its
/// finding cites, then of those its paths read (a capture kept out of the evidence still reads
/// its object: the ClusterQueue a Workload waits in), the first that is not the work's own.
fn cause_of(
    view: &View,
    rule: &Rule,
    evidence: &[Evidence],
    namespace: Option<&str>,
) -> Option<Cause> {
    let read = rule.when.tests().into_iter().filter_map(|t| {
        let subject = t.source.strip_prefix("$.")?;
        let end = subject.find(['.', '[']).unwrap_or(subject.len());
        match view.refs.get(&subject[..end])? {
            SubjectRef::One(r) => Some(r),
            SubjectRef::Many(_) => None,
        }
    });
    let mut cause =
        crate::groups::rests_on(evidence.iter().map(|e| &e.object).chain(read), namespace)?;
    if cause.kind == "ClusterQueue" {
        // Kueue's message names the flavor whose quota (taints, labels) held the work back:
        // the work short of one flavor is a cause apart from the work short of another.
        let mut flavors = std::collections::BTreeSet::new();
        for e in evidence {
            if let Value::String(text) = &e.value {
                crate::facts::admission::flavors_named(text, &mut flavors);
            }
        }
        if !flavors.is_empty() {
            cause.flavor = Some(flavors.into_iter().collect::<Vec<_>>().join(", "));
        }
    }
    Some(cause)
}

/// The fired findings' `rules` (in rule order) settled: the index of each that stays with
/// its severity, sorted as the contract says (severity, layer, id), and the place in that list
/// of the verdict's finding. One place for both a whole diagnosis and a scan's verdict line
/// ([`Engine::verdict_line`]): they read only the rules, never a finding's words.
fn settle(rules: &[&Rule], history: bool) -> (Vec<(usize, Severity)>, Option<usize>) {
    let fired_ids: Vec<&str> = rules.iter().map(|r| r.id.as_str()).collect();
    let explained: Vec<&str> = rules
        .iter()
        .flat_map(|r| r.explains.iter().map(String::as_str))
        .filter(|e| fired_ids.contains(e))
        .collect();
    // A layer's evidence floor is refined by any specific finding of the same layer: it adds
    // nothing a reader needs there, so it goes. A floor that a rule of another layer
    // explains stays, as that layer's own words, but cannot be the verdict.
    let refined = |r: &Rule| {
        r.floor
            && rules
                .iter()
                .any(|g| !g.floor && g.layer == r.layer && g.severity != Severity::Info)
    };
    let mut kept: Vec<(usize, Severity)> = (0..rules.len())
        .filter(|&i| !refined(rules[i]))
        .map(|i| (i, rules[i].severity))
        .collect();
    // History (finished work, a superseded pod) is told, never a block.
    if history {
        kept.iter_mut().for_each(|k| k.1 = Severity::Info);
    }
    // Beside a specific finding in another layer, a floor corroborates: it warns, so the
    // layer is not silent, but it does not outrank what a rule recognised.
    if kept
        .iter()
        .any(|&(i, s)| !rules[i].floor && s != Severity::Info)
    {
        for (i, s) in kept.iter_mut() {
            if rules[*i].floor && *s == Severity::Block {
                *s = Severity::Warn;
            }
        }
    }
    kept.sort_by(|a, b| {
        let (ra, rb) = (rules[a.0], rules[b.0]);
        (a.1, ra.layer, &ra.id).cmp(&(b.1, rb.layer, &rb.id))
    });
    // The verdict finding: blocking first, then warnings; causes over symptoms.
    // A specific finding over a floor, then priority, layer order and id.
    let pick = |sev: Severity| {
        kept.iter()
            .enumerate()
            .filter(|(_, (i, s))| *s == sev && !explained.contains(&rules[*i].id.as_str()))
            .min_by_key(|(_, (i, _))| {
                let r = rules[*i];
                (r.floor, -r.priority, r.layer, &r.id)
            })
            .map(|(k, _)| k)
    };
    let verdict = pick(Severity::Block).or_else(|| pick(Severity::Warn));
    (kept, verdict)
}

/// A diagnosis's target: the view's object, with the status the view judged.
fn target_of(ix: &Index, view: &View) -> Target {
    let t = ix.object(view.target);
    Target {
        kind: t.kind().to_string(),
        namespace: t.namespace().map(str::to_string),
        name: t.name.clone(),
        api_version: Some(t.api_version().to_string()),
        status: view.status.clone(),
    }
}

/// The verdict's state when a finding of `severity` decides it.
fn verdict_state(severity: Severity) -> LayerState {
    if severity == Severity::Block {
        LayerState::Blocked
    } else {
        LayerState::Warn
    }
}

/// The target's place in a scheduler's queue, as the view's facts hold it.
fn queue_standing(view: &View) -> Option<crate::standing::QueueStanding> {
    [
        "/facts/admission/queue/standing",
        "/facts/placement/kai/standing",
    ]
    .iter()
    .filter_map(|at| view.value.pointer(at))
    .find(|v| !v.is_null())
    .and_then(|v| serde_json::from_value(v.clone()).ok())
}

/// Turn view paths into evidence on the object each subject came from.
fn evidence(view: &View, m: &Match) -> Vec<Evidence> {
    m.evidence
        .iter()
        .filter_map(|(path, value)| map_evidence(view, path, value.clone()))
        .collect()
}

fn map_evidence(view: &View, path: &str, value: Value) -> Option<Evidence> {
    let segs = split_path(path)?;
    let (subject, rest) = segs.split_first()?;
    let subject = subject.trim_start_matches('\'').trim_end_matches('\'');
    if subject == "facts" {
        // Written into one string: every finding of every diagnosis maps its evidence here.
        let mut fact = String::new();
        for s in rest.iter().map(|s| s.trim_matches('\'')) {
            if s.bytes().all(|b| b.is_ascii_digit()) {
                fact.push('[');
                fact.push_str(s);
                fact.push(']');
            } else {
                if !fact.is_empty() {
                    fact.push('.');
                }
                fact.push_str(s);
            }
        }
        return Some(Evidence {
            object: view.fact_owner().clone(),
            path: None,
            fact: Some(fact),
            value,
        });
    }
    let (object, rest) = match view.refs.get(subject)? {
        SubjectRef::One(r) => (r.clone(), rest),
        SubjectRef::Many(rs) => {
            let (i, rest) = rest.split_first()?;
            (rs.get(i.parse::<usize>().ok()?)?.clone(), rest)
        }
    };
    let mut rest: Vec<String> = rest.iter().map(|s| s.to_string()).collect();
    if subject == "events" {
        rest = event_field(&object, rest);
    }
    let mut p = String::with_capacity(1 + rest.iter().map(|s| s.len() + 2).sum::<usize>());
    p.push('$');
    for s in &rest {
        p.push('[');
        p.push_str(s);
        p.push(']');
    }
    Some(Evidence {
        object,
        path: Some(p),
        fact: None,
        value,
    })
}

/// Events in the view are normalized; point evidence at the field of the event's own shape
/// ([`crate::index::EVENT_FIELDS`]).
fn event_field(object: &ObjectRef, mut rest: Vec<String>) -> Vec<String> {
    let new_api = object.api_version.starts_with("events.k8s.io");
    let Some(first) = rest.first() else {
        return rest;
    };
    let Some(field) = crate::index::EVENT_FIELDS
        .iter()
        .find(|f| first.as_str() == format!("'{}'", f.view))
    else {
        return rest;
    };
    let own = if new_api {
        field.events_v1
    } else {
        field.core_v1
    };
    rest.splice(0..1, own.iter().map(|k| format!("'{k}'")));
    rest
}

/// `$['a'][0]['b.c']` → ["'a'", "0", "'b.c'"].
pub(crate) fn split_path(path: &str) -> Option<Vec<&str>> {
    let mut rest = path.strip_prefix('$')?;
    let mut out = Vec::new();
    while !rest.is_empty() {
        rest = rest.strip_prefix('[')?;
        let end = if rest.starts_with('\'') {
            // quoted name: find the closing quote not escaped
            let b = rest.as_bytes();
            let mut i = 1;
            while i < b.len() && !(b[i] == b'\'' && b[i - 1] != b'\\') {
                i += 1;
            }
            i + 1
        } else {
            rest.find(']')?
        };
        out.push(&rest[..end]);
        rest = rest.get(end..)?.strip_prefix(']')?;
    }
    Some(out)
}

/// Add a next command unless it is already there, also as the same command that only says how
/// much to print: `logs X` and `logs X --tail=100` are one step, and the bounded one (the rule
/// that wrote it knew how much is worth reading) stands where the first of them stood.
/// `logs X --previous` reads something else and stays.
fn add_command(next: &mut Vec<String>, n: &str) {
    const HOW_MUCH: &[&str] = &["--tail=", "--since=", "--limit-bytes=", "--timestamps"];
    let only_flags = |rest: &str| {
        rest.strip_prefix(' ').is_some_and(|r| {
            r.split(' ')
                .all(|w| HOW_MUCH.iter().any(|f| w.starts_with(f)))
        })
    };
    for have in next.iter_mut() {
        if have == n || have.strip_prefix(n).is_some_and(only_flags) {
            return;
        }
        if n.strip_prefix(have.as_str()).is_some_and(only_flags) {
            *have = n.to_string();
            return;
        }
    }
    next.push(n.to_string());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engine_texts_read_the_same_through_a_value() {
        let typed: EngineTexts =
            serde_yaml_ng::from_str(crate::embedded::ENGINE_TEXTS).expect("typed");
        let through: EngineTexts =
            crate::embedded::from_yaml(crate::embedded::ENGINE_TEXTS).expect("value");
        assert_eq!(format!("{through:?}"), format!("{typed:?}"));
    }

    #[test]
    fn splits_normalized_paths() {
        assert_eq!(
            split_path("$['pod']['status']['conditions'][0]['message']").unwrap(),
            vec!["'pod'", "'status'", "'conditions'", "0", "'message'"]
        );
        assert_eq!(
            split_path("$['a']['nvidia.com/gpu']").unwrap(),
            vec!["'a'", "'nvidia.com/gpu'"]
        );
    }

    #[test]
    fn a_command_with_more_flags_stands_for_the_bare_one() {
        let mut next = Vec::new();
        for n in [
            "kubectl -n ml logs p",
            "kubectl -n ml describe pod p",
            "kubectl -n ml logs p --tail=100",
            "kubectl -n ml logs p",
            "kubectl -n ml logs p-2",
            "kubectl -n ml logs p --previous",
            "kubectl -n ml logs p-2 --tail=50 --timestamps",
        ] {
            add_command(&mut next, n);
        }
        assert_eq!(
            next,
            [
                "kubectl -n ml logs p --tail=100",
                "kubectl -n ml describe pod p",
                "kubectl -n ml logs p-2 --tail=50 --timestamps",
                "kubectl -n ml logs p --previous",
            ]
        );
    }
}

#[cfg(test)]
mod builtin_tests {
    #[test]
    fn event_evidence_points_at_each_apis_own_field() {
        let core = crate::diagnosis::ObjectRef {
            api_version: "v1".into(),
            kind: "Event".into(),
            namespace: None,
            name: "e".into(),
        };
        let new = crate::diagnosis::ObjectRef {
            api_version: "events.k8s.io/v1".into(),
            ..core.clone()
        };
        let path = |p: &[&str]| p.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            super::event_field(&core, path(&["'component'"])),
            path(&["'source'", "'component'"])
        );
        assert_eq!(
            super::event_field(&new, path(&["'message'"])),
            path(&["'note'"])
        );
        assert_eq!(
            super::event_field(&new, path(&["'involvedObject'", "'name'"])),
            path(&["'regarding'", "'name'"])
        );
        assert_eq!(
            super::event_field(&core, path(&["'message'"])),
            path(&["'message'"])
        );
        // The view writes exactly the table's keys.
        let ev = crate::index::EventInfo {
            reason: "r".into(),
            message: "m".into(),
            type_: "Warning".into(),
            component: "c".into(),
            count: 2,
            last: Some(0),
            involved_kind: "Pod".into(),
            involved_api_version: "v1".into(),
            involved_namespace: None,
            involved_name: "p".into(),
            involved_uid: None,
        };
        let v = ev.to_view();
        let keys: Vec<&str> = v
            .as_object()
            .expect("object")
            .keys()
            .map(String::as_str)
            .collect();
        let mut want: Vec<&str> = crate::index::EVENT_FIELDS.iter().map(|f| f.view).collect();
        want.sort();
        assert_eq!(keys, want);
    }

    #[test]
    fn builtin_rules_load() {
        let e = super::Engine::builtin().unwrap_or_else(|e| panic!("{e}"));
        assert!(!e.rules().is_empty());
    }

    /// The view of the pending pod `ml/train`.
    fn silent_nodes_view(ix: &crate::Index) -> crate::view::View {
        let id = ix.get("", "Pod", Some("ml"), "train").expect("the pod");
        crate::view::build(ix, id, None)
    }

    #[test]
    fn a_capture_of_a_list_on_loan_holds_what_the_same_list_found_would() {
        // Twelve nodes labelled with GPUs that advertise none, and a pod waiting for one: the
        // silent nodes are on loan in its view.
        let items: Vec<serde_json::Value> = (0..12)
            .map(|i| {
                serde_json::json!({"apiVersion": "v1", "kind": "Node",
                    "metadata": {"name": format!("gpu-{i:02}"), "labels": {"nvidia.com/gpu.present": "true"}},
                    "status": {"allocatable": {"cpu": "8"}, "capacity": {"cpu": "8"}}})
            })
            .chain([serde_json::json!({"apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": "train", "namespace": "ml"},
                "spec": {"containers": [{"name": "c", "resources": {"limits": {"nvidia.com/gpu": "1"}}}]},
                "status": {"phase": "Pending"}})])
            .collect();
        let text =
            serde_json::json!({"apiVersion": "v1", "kind": "List", "items": items}).to_string();
        let ix = crate::Index::new(crate::Bundle::parse(text).expect("parses"));
        let view = silent_nodes_view(&ix);
        let builtin = crate::embedded::RULES
            .iter()
            .find(|r| r.path == "device/gpu-not-advertised.yaml")
            .expect("the rule is built in");
        let rule = crate::rule::Rule::load_builtin(builtin.path, builtin.text, builtin.paths)
            .expect("loads");
        let lent = crate::eval::Scope::new(&view.value, view.lent(), 0);
        assert!(!lent.lent.is_empty(), "the silent nodes are on loan");
        let held = crate::eval::Scope::new(&view.value, Vec::new(), 0);
        let (on_loan, found) = (
            crate::eval::eval(&rule.when, &lent).expect("fires"),
            crate::eval::eval(&rule.when, &held).expect("fires"),
        );
        assert_eq!(on_loan.evidence, found.evidence);
        assert_eq!(
            on_loan
                .evidence
                .iter()
                .filter(|(p, _)| p.contains("silentDetail"))
                .count(),
            crate::eval::MAX_EVIDENCE_PER_TEST
        );
        let values = |m: &crate::eval::Match, name: &str| -> Vec<serde_json::Value> {
            m.captures[name].values().iter().cloned().collect()
        };
        for name in ["nodes", "nodeNames", "labels", "request"] {
            assert_eq!(values(&on_loan, name), values(&found, name), "{name}");
        }
        assert_eq!(values(&on_loan, "nodeNames").len(), 12);
        assert!(matches!(
            on_loan.captures["nodeNames"],
            crate::eval::Captured::Lent(..)
        ));
        assert!(matches!(
            found.captures["nodeNames"],
            crate::eval::Captured::Found(..)
        ));
    }
}
