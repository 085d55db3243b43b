//! The scenario catalogue: every directory of `tests/scenarios/` with its bundle and the
//! diagnosis it must produce (`expected.json`). The core's tests, the CLI's tests and the
//! build tasks all read scenarios through here, so they can never disagree on what one is.
//! [`incidents`] is the same for the real-incident corpus.

pub mod fits;
pub mod incidents;
pub mod practice;

use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What one target of a scenario must be diagnosed as.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Expectation {
    /// `Kind/namespace/name`.
    pub target: String,
    /// CLI exit status of `why`.
    pub exit: i32,
    pub verdict: ExpectedVerdict,
    /// `{saidYes, saidNo}` or null.
    pub misalignment: Option<ExpectedMisalignment>,
    /// The headline starts with this.
    pub headline: String,
    /// State of every layer.
    pub layers: BTreeMap<String, String>,
    /// Exactly the rule ids of the findings.
    pub findings: Vec<String>,
    /// Moments the timeline must hold, in this order (others may come between): each is
    /// `TIME LAYER Kind namespace/name: TEXT`, the text matched as a prefix.
    #[serde(default)]
    pub timeline: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectedVerdict {
    pub state: String,
    pub layer: Option<String>,
    /// `never`, `waiting` or null: written out for every target (a missing key is an error),
    /// so a new scenario says whether waiting helps.
    #[serde(deserialize_with = "present")]
    pub outlook: Option<String>,
}

/// A nullable field that must be written: `null` is a value, a missing key is an error.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Option::<String>::deserialize(d)
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ExpectedMisalignment {
    pub said_yes: String,
    pub said_no: String,
}

/// One scenario directory.
#[derive(Debug, Clone)]
pub struct Scenario {
    pub name: String,
    pub dir: PathBuf,
    pub bundle_path: PathBuf,
    pub expectations: Vec<Expectation>,
}

impl Scenario {
    pub fn bundle_text(&self) -> String {
        std::fs::read_to_string(&self.bundle_path)
            .unwrap_or_else(|e| panic!("{}: {e}", self.bundle_path.display()))
    }
}

/// The `tests/scenarios` directory.
pub fn scenarios_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios")
}

/// Every scenario, sorted by name. Panics with a clear message on a malformed one: a broken
/// scenario is a broken test.
pub fn all() -> Vec<Scenario> {
    all_in(&scenarios_dir())
}

/// The `tests/lab` directory: incidents the real components of `cargo xtask lab` wrote, in the
/// scenarios' form (a bundle and `expected.json`), plus a README naming who wrote them.
pub fn lab_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("lab")
}

/// The `tests/describe` directory: `kubectl describe` output of the scenarios and incidents as
/// the lab's kubectl printed it, beside the same objects as JSON (`scenarios/<name>/`,
/// `incidents/<name>/`: `describe.txt`, `objects.json`, `case.json`).
pub fn describe_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("describe")
}

/// The `- ` lines a document of `docs/` (`lab.md`) lists between the markers `begin` and `end`,
/// without the `- `; none when the markers are missing. The lists tests hold themselves to.
pub fn documented(doc: &str, begin: &str, end: &str) -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../docs")
        .join(doc);
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let Some((_, rest)) = text.split_once(begin) else {
        return Vec::new();
    };
    let section = rest.split_once(end).map_or(rest, |(s, _)| s);
    section
        .lines()
        .filter_map(|l| l.strip_prefix("- "))
        .map(str::to_string)
        .collect()
}

/// The targets docs/describe.md lists as giving another verdict read from describe output
/// than from JSON: each `- ` line between its markers, the part before ` — ` (the reason).
/// Both the lab's test and the offline one hold their differences to this list.
pub fn describe_differences() -> Vec<String> {
    let listed = documented(
        "describe.md",
        "<!-- describe differences: begin -->",
        "<!-- describe differences: end -->",
    );
    listed
        .iter()
        .map(|l| {
            l.split(" — ")
                .next()
                .unwrap_or(l)
                .trim_matches('`')
                .to_string()
        })
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect()
}

/// Every folder of `tests/lab`, read as a scenario.
pub fn lab() -> Vec<Scenario> {
    all_in(&lab_dir())
}

/// Every scenario-shaped folder of `root`, sorted by name.
fn all_in(root: &Path) -> Vec<Scenario> {
    let mut out = Vec::new();
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root)
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    for dir in dirs {
        let name = dir
            .file_name()
            .expect("named")
            .to_string_lossy()
            .to_string();
        let bundle_path = ["bundle.json", "bundle.yaml"]
            .iter()
            .map(|f| dir.join(f))
            .find(|p| p.exists())
            .unwrap_or_else(|| panic!("scenario {name} has no bundle.json or bundle.yaml"));
        let exp_path = dir.join("expected.json");
        let text = std::fs::read_to_string(&exp_path)
            .unwrap_or_else(|e| panic!("scenario {name}: {}: {e}", exp_path.display()));
        let expectations: Vec<Expectation> = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("scenario {name}: expected.json: {e}"));
        assert!(
            !expectations.is_empty(),
            "scenario {name}: expected.json lists no target"
        );
        out.push(Scenario {
            name,
            dir,
            bundle_path,
            expectations,
        });
    }
    out
}

/// A scenario by name.
pub fn get(name: &str) -> Option<Scenario> {
    all().into_iter().find(|s| s.name == name)
}
