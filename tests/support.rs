//! Helpers shared by the test modules: load a scenario into an index and diagnose a target.

use layer_core::{Bundle, Diagnosis, Engine, Index, Options, TargetSpec};
use std::sync::OnceLock;

pub fn engine() -> &'static Engine {
    static ENGINE: OnceLock<Engine> = OnceLock::new();
    ENGINE.get_or_init(|| Engine::builtin().unwrap_or_else(|e| panic!("builtin rules: {e}")))
}

pub fn index(s: &scenarios::Scenario) -> Index {
    let b = Bundle::parse(s.bundle_text()).unwrap_or_else(|e| panic!("scenario {}: {e}", s.name));
    Index::new(b)
}

/// Diagnose `Kind/namespace/name` and return the diagnosis and every rule that matched.
pub fn diagnose(ix: &Index, target: &str) -> (Diagnosis, Vec<String>) {
    let spec = TargetSpec::parse(target, None);
    let id =
        layer_core::target::resolve(ix, &spec).unwrap_or_else(|e| panic!("target {target}: {e}"));
    engine().evaluate(ix, id, &Options::default())
}

/// Every target of `cases` diagnosed against its expectation: how many were checked, and a line
/// per target that differs (the scenarios' check and the lab incidents' are this one).
pub fn mismatches(cases: &[scenarios::Scenario]) -> (usize, Vec<String>) {
    let mut failures = Vec::new();
    let mut checked = 0;
    for s in cases {
        let ix = index(s);
        for e in &s.expectations {
            checked += 1;
            let (d, _) = diagnose(&ix, &e.target);
            let diffs = differences(&d, e, why_exit(&d));
            if !diffs.is_empty() {
                failures.push(format!(
                    "{} {}:\n    {}",
                    s.name,
                    e.target,
                    diffs.join("\n    ")
                ));
            }
        }
    }
    (checked, failures)
}

/// The exit status `why` gives a diagnosis: 1 when a layer blocks or warns.
pub fn why_exit(d: &Diagnosis) -> i32 {
    i32::from(matches!(
        d.verdict.state,
        layer_core::LayerState::Blocked | layer_core::LayerState::Warn
    ))
}

/// The exit status `fit` gives a piece of work: 0 only when it would run now.
pub fn fit_exit(d: &Diagnosis) -> i32 {
    i32::from(d.verdict.state != layer_core::LayerState::Ok)
}

/// How a diagnosis differs from what an expectation says (empty when it matches): verdict,
/// outlook, misalignment, headline prefix, every layer's state, the set of findings, the
/// timeline's expected moments in order, and the
/// exit status `exit` (which `why_exit` or `fit_exit` gave).
pub fn differences(d: &Diagnosis, e: &scenarios::Expectation, exit: i32) -> Vec<String> {
    let mut diffs = Vec::new();
    let state = d.verdict.state.as_str();
    let layer = d.verdict.layer.map(|l| l.as_str().to_string());
    if state != e.verdict.state || layer != e.verdict.layer {
        diffs.push(format!(
            "verdict {state}/{layer:?}, expected {}/{:?}",
            e.verdict.state, e.verdict.layer
        ));
    }
    let outlook = d.verdict.outlook.map(|o| o.as_str().to_string());
    if outlook != e.verdict.outlook {
        diffs.push(format!(
            "outlook {outlook:?}, expected {:?}",
            e.verdict.outlook
        ));
    }
    let mis = d.verdict.misalignment.as_ref().map(|m| {
        (
            m.said_yes.as_str().to_string(),
            m.said_no.as_str().to_string(),
        )
    });
    let want = e
        .misalignment
        .as_ref()
        .map(|m| (m.said_yes.clone(), m.said_no.clone()));
    if mis != want {
        diffs.push(format!("misalignment {mis:?}, expected {want:?}"));
    }
    if !d.verdict.headline.starts_with(&e.headline) {
        diffs.push(format!(
            "headline {:?} does not start with {:?}",
            d.verdict.headline, e.headline
        ));
    }
    for l in &d.layers {
        let want = e.layers.get(l.layer.as_str()).map(String::as_str);
        if want != Some(l.state.as_str()) {
            diffs.push(format!(
                "layer {} is {} ({}), expected {want:?}",
                l.layer.as_str(),
                l.state.as_str(),
                l.summary
            ));
        }
    }
    let mut got: Vec<&str> = d.findings.iter().map(|f| f.rule.as_str()).collect();
    got.sort_unstable();
    let mut want: Vec<&str> = e.findings.iter().map(String::as_str).collect();
    want.sort_unstable();
    if got != want {
        diffs.push(format!("findings {got:?}, expected {want:?}"));
    }
    if let Some(missing) = timeline_gap(&d.timeline, &e.timeline) {
        diffs.push(format!(
            "timeline lacks, in order, {missing:?}; it is:\n      {}",
            moment_lines(&d.timeline).join("\n      ")
        ));
    }
    if exit != e.exit {
        diffs.push(format!("exit {exit}, expected {}", e.exit));
    }
    diffs
}

/// A timeline's moments as the expectations write them: `TIME LAYER Kind ns/name: TEXT`.
pub fn moment_lines(t: &layer_core::Timeline) -> Vec<String> {
    t.moments
        .iter()
        .map(|m| {
            format!(
                "{} {} {}: {}",
                m.time,
                m.layer.as_str(),
                m.object.display(),
                m.text
            )
        })
        .collect()
}

/// The first expected moment not found after the ones before it, if any.
fn timeline_gap(t: &layer_core::Timeline, want: &[String]) -> Option<String> {
    let lines = moment_lines(t);
    let mut at = lines.iter();
    want.iter()
        .find(|w| !at.any(|l| l.starts_with(w.as_str())))
        .cloned()
}
