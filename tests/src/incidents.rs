//! The real-incident corpus (`tests/incidents/*/`): incidents rebuilt from public upstream
//! threads, and the one scoring of a diagnosis against what the thread established. The
//! `incidents` binary (`cargo xtask incidents`) and the property tests both score through here,
//! so the number CI gates on and the number a test asserts are the same number.

use layer_core::{Bundle, Diagnosis, Engine, Index, Options, TargetSpec};
use serde::Deserialize;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// `incident.yaml`: the thread and what it established.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Thread {
    pub url: String,
    pub title: String,
    pub concluded: String,
    /// `Kind/namespace/name` (`Kind//name` when cluster-scoped).
    pub target: String,
    /// Where the cause sits; `None`: nothing blocks (a benign state a naive tool would flag).
    pub layer: Option<String>,
    #[serde(default)]
    pub other_layer: Option<String>,
    /// Phrases the right diagnosis must show, case-insensitive.
    #[serde(default)]
    pub contains: Vec<String>,
    /// False when the decisive evidence was only in a log.
    #[serde(default = "yes")]
    pub visible: bool,
    pub filled_in: String,
}

fn yes() -> bool {
    true
}

/// One incident folder.
#[derive(Debug, Clone)]
pub struct Incident {
    pub name: String,
    pub dir: PathBuf,
    pub bundle_path: PathBuf,
    pub thread: Thread,
}

/// The `tests/incidents` directory.
pub fn incidents_dir() -> PathBuf {
    // A batch that has just arrived is scored from where its authors left it, before any of
    // it enters the repository (`cargo xtask incidents --dir DIR`).
    match std::env::var_os("KUBECTL_LAYER_INCIDENTS") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => Path::new(env!("CARGO_MANIFEST_DIR")).join("incidents"),
    }
}

/// Every incident, sorted by name; an error names the folder and what is wrong with it.
pub fn all() -> Result<Vec<Incident>, String> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(incidents_dir())
        .map_err(|e| format!("{}: {e}", incidents_dir().display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs.into_iter().map(|dir| load(&dir)).collect()
}

fn load(dir: &Path) -> Result<Incident, String> {
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    let bundle_path = ["bundle.json", "bundle.yaml"]
        .iter()
        .map(|f| dir.join(f))
        .find(|p| p.exists())
        .ok_or_else(|| format!("incident {name}: no bundle.json or bundle.yaml"))?;
    let meta = dir.join("incident.yaml");
    let text = std::fs::read_to_string(&meta)
        .map_err(|e| format!("incident {name}: {}: {e}", meta.display()))?;
    let thread: Thread = serde_yaml_ng::from_str(&text)
        .map_err(|e| format!("incident {name}: incident.yaml: {e}"))?;
    for l in thread.layer.iter().chain(&thread.other_layer) {
        if layer_core::Layer::ALL.iter().all(|x| x.as_str() != l) {
            return Err(format!("incident {name}: `{l}` is not a layer"));
        }
    }
    if !dir.join("README.md").exists() {
        return Err(format!("incident {name}: no README.md"));
    }
    Ok(Incident {
        name,
        dir: dir.to_path_buf(),
        bundle_path,
        thread,
    })
}

impl Incident {
    /// Read, index and diagnose the incident's target with the built-in rules.
    pub fn diagnose(&self, engine: &Engine) -> Result<Diagnosis, String> {
        let text = std::fs::read_to_string(&self.bundle_path)
            .map_err(|e| format!("{}: {e}", self.bundle_path.display()))?;
        let bundle = Bundle::parse(text).map_err(|e| format!("incident {}: {e}", self.name))?;
        let ix = Index::new(bundle);
        let spec = TargetSpec::parse(&self.thread.target, None);
        layer_core::diagnose(engine, &ix, &spec, &Options::default())
            .map_err(|e| format!("incident {}: target {}: {e}", self.name, self.thread.target))
    }
}

/// How a diagnosis compares with what the thread established.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Score {
    /// The verdict names the thread's layer (or, for a benign incident, no layer).
    pub layer_right: bool,
    /// The phrases of `contains` that no text of the diagnosis shows.
    pub phrases_missing: Vec<String>,
    /// What the verdict said, for the report: `placement`, `-` for none.
    pub said: String,
}

/// Score one diagnosis. Phrases are looked for in every text a person reads: the headline, the
/// misalignment, the layer summaries, the findings and the evidence values.
pub fn score(thread: &Thread, d: &Diagnosis) -> Score {
    let said = d.verdict.layer.map(|l| l.as_str().to_string());
    let mut texts: Vec<String> = vec![d.verdict.headline.clone()];
    texts.extend(d.verdict.misalignment.iter().map(|m| m.why.clone()));
    for l in &d.layers {
        texts.push(l.summary.clone());
        texts.extend(l.evidence.iter().flat_map(|e| strings(&e.value)));
    }
    for f in &d.findings {
        texts.push(f.message.clone());
        texts.extend(f.evidence.iter().flat_map(|e| strings(&e.value)));
    }
    let haystack = texts.join("\n").to_lowercase();
    Score {
        layer_right: said.as_deref() == thread.layer.as_deref(),
        phrases_missing: thread
            .contains
            .iter()
            .filter(|p| !haystack.contains(&p.to_lowercase()))
            .cloned()
            .collect(),
        said: said.unwrap_or_else(|| "-".into()),
    }
}

fn strings(v: &Value) -> Vec<String> {
    match v {
        Value::String(s) => vec![s.clone()],
        Value::Array(a) => a.iter().flat_map(strings).collect(),
        Value::Object(o) => o.values().flat_map(strings).collect(),
        Value::Null => Vec::new(),
        other => vec![other.to_string()],
    }
}
