//! `tests/describe/*`: `kubectl describe` output the lab's kubectl printed of every scenario
//! (and of the incidents whose threads showed describe output), beside the same objects as
//! JSON (`kubectl-plugin/tests/cli/lab_describe.rs` makes and exports them). Offline, each
//! target's verdict (state, layer, rule) read from the describe text must be the one read from
//! the JSON at the same "now", except where docs/describe.md lists the difference and its reason.

use crate::support;
use layer_core::{Bundle, Index, Options, ReadLimits, TargetSpec};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Every case folder, `scenarios/<name>` and `incidents/<name>`, in a stable order.
fn cases() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for group in ["scenarios", "incidents"] {
        let Ok(dir) = std::fs::read_dir(scenarios::describe_dir().join(group)) else {
            continue;
        };
        out.extend(dir.flatten().map(|e| e.path()).filter(|p| p.is_dir()));
    }
    out.sort();
    out
}

/// A target's verdict as (state, layer, rule), or the error that stopped it.
fn verdict(ix: &Index, target: &str, now: &str) -> String {
    let spec = TargetSpec::parse(target, None);
    let opts = Options {
        now: Some(now.to_string()),
        ..Options::default()
    };
    match layer_core::target::resolve(ix, &spec) {
        Ok(id) => {
            let d = support::engine().diagnose(ix, id, &opts);
            let v = serde_json::to_value(&d.verdict).unwrap();
            format!("{} {} {}", v["state"], v["layer"], v["rule"])
        }
        Err(e) => format!("error: {e}"),
    }
}

/// The case's name as the lab test and docs/describe.md write it (`scenarios/<name>`).
fn name_of(case: &Path) -> String {
    let group = case.parent().and_then(Path::file_name).unwrap();
    format!(
        "{}/{}",
        group.to_string_lossy(),
        case.file_name().unwrap().to_string_lossy()
    )
}

#[test]
fn describe_output_gives_the_verdict_its_json_gives() {
    let cases = cases();
    assert!(!cases.is_empty(), "tests/describe holds no case");
    let (mut same, mut targets, mut different, mut details) = (0, 0, Vec::new(), Vec::new());
    for case in &cases {
        let meta: Value =
            serde_json::from_str(&std::fs::read_to_string(case.join("case.json")).unwrap())
                .unwrap();
        let now = meta["now"].as_str().unwrap();
        let json = Bundle::parse(std::fs::read_to_string(case.join("objects.json")).unwrap())
            .unwrap_or_else(|e| panic!("{}: {e}", case.display()));
        let limits = ReadLimits {
            now: layer_core::time::parse_rfc3339(now),
            ..ReadLimits::default()
        };
        let text = Bundle::parse_with(
            std::fs::read_to_string(case.join("describe.txt")).unwrap(),
            limits,
        )
        .unwrap_or_else(|e| panic!("{}: {e}", case.display()));
        let (json, text) = (Index::new(json), Index::new(text));
        for t in meta["targets"].as_array().unwrap() {
            let t = t.as_str().unwrap();
            targets += 1;
            let (want, got) = (verdict(&json, t, now), verdict(&text, t, now));
            // No diagnosis either way (a kind the tool does not diagnose, an object the API
            // server did not store) agrees: the reasons differ only by the file named.
            if want == got || (want.starts_with("error") && got.starts_with("error")) {
                same += 1;
            } else {
                different.push(format!("{} {t}", name_of(case)));
                details.push(format!(
                    "{} {t}: JSON {want} / describe {got}",
                    name_of(case)
                ));
            }
        }
    }
    eprintln!(
        "describe = JSON verdict (state, layer, rule): {same} of {targets} targets in {} cases",
        cases.len()
    );
    different.sort();
    assert_eq!(
        different,
        scenarios::describe_differences(),
        "describe and JSON verdicts differ where docs/describe.md does not say so:\n{}",
        details.join("\n")
    );
}

/// Every describe paste says what it could not show, and the JSON beside it says nothing.
#[test]
fn describe_output_carries_its_notes_into_the_diagnosis() {
    let case = cases().into_iter().next().expect("a case");
    let meta: Value =
        serde_json::from_str(&std::fs::read_to_string(case.join("case.json")).unwrap()).unwrap();
    let text = Bundle::parse(std::fs::read_to_string(case.join("describe.txt")).unwrap()).unwrap();
    let ix = Index::new(text);
    let target = meta["targets"][0].as_str().unwrap();
    let id = layer_core::target::resolve(&ix, &TargetSpec::parse(target, None)).unwrap();
    let d = support::engine().diagnose(&ix, id, &Options::default());
    assert!(
        d.input_notes.iter().any(|n| n.contains("describe")),
        "{:?}",
        d.input_notes
    );
    let json = Bundle::parse(std::fs::read_to_string(case.join("objects.json")).unwrap()).unwrap();
    let ix = Index::new(json);
    let id = layer_core::target::resolve(&ix, &TargetSpec::parse(target, None)).unwrap();
    assert!(
        support::engine()
            .diagnose(&ix, id, &Options::default())
            .input_notes
            .is_empty()
    );
}
