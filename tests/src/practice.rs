//! The practice bank's generator (issue 19): every scenario target and every incident whose
//! verdict blocks or warns becomes a "which layer?" question, and every upstream repository a
//! rule names a "contributing" one (`layer_core::practice` builds each). `cargo xtask docs`
//! writes it to `rules/practice.json`, which the CLI embeds; a test holds the file equal to what
//! this makes now, so the quiz never drifts from the diagnoses it teaches. Layer questions also
//! carry their headline exercise (`layer_core::practice::headline`); contribution questions
//! ask situations and rules, never naming the project they answer with (issue 42).

use layer_core::practice::{Bank, Case, contributing_questions, layer_question};
use layer_core::{Bundle, Engine, Index, Lang, Options, TargetSpec};
use std::path::PathBuf;

/// Where the committed bank lives.
pub fn bank_path() -> PathBuf {
    crate::scenarios_dir().join("../../rules/practice.json")
}

/// The bank as the scenarios, the incidents and the rules make it now.
pub fn bank() -> Result<Bank, String> {
    let en = Engine::builtin().map_err(|e| e.to_string())?;
    let ko = en.in_lang(Lang::Ko).map_err(|e| e.to_string())?;
    let mut questions = Vec::new();
    for s in crate::all() {
        let ix = index(&s.bundle_path)?;
        for e in &s.expectations {
            let case = Case {
                kind: "scenario".into(),
                name: s.name.clone(),
                target: e.target.clone(),
                url: None,
                title: None,
            };
            let (d_en, d_ko) = both(&en, &ko, &ix, &case)?;
            questions.extend(layer_question(&case, &d_en, &d_ko, &en, &ko));
        }
    }
    for i in crate::incidents::all()? {
        let ix = index(&i.bundle_path)?;
        let case = Case {
            kind: "incident".into(),
            name: i.name.clone(),
            target: i.thread.target.clone(),
            url: Some(i.thread.url.clone()),
            title: Some(i.thread.title.clone()),
        };
        let (d_en, d_ko) = both(&en, &ko, &ix, &case)?;
        // Only where the core names the layer the thread established: the quiz must never
        // teach a wrong answer.
        if d_en.verdict.layer.map(|l| l.as_str()) != i.thread.layer.as_deref() {
            continue;
        }
        questions.extend(layer_question(&case, &d_en, &d_ko, &en, &ko));
    }
    questions.extend(contributing_questions(&en).map_err(|e| e.to_string())?);
    // Cases that show the same evidence are asked once (issue 42).
    Bank::merged(questions)
}

fn index(path: &std::path::Path) -> Result<Index, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let bundle = Bundle::parse(text).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(Index::new(bundle))
}

fn both(
    en: &Engine,
    ko: &Engine,
    ix: &Index,
    case: &Case,
) -> Result<(layer_core::Diagnosis, layer_core::Diagnosis), String> {
    let spec = TargetSpec::parse(&case.target, None);
    let run = |engine: &Engine| {
        layer_core::diagnose(engine, ix, &spec, &Options::default())
            .map_err(|e| format!("{} {}: {}: {e}", case.kind, case.name, case.target))
    };
    Ok((run(en)?, run(ko)?))
}
