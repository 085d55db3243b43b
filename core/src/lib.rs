//! kubectl-layer's core: a bundle of Kubernetes objects in, a six-layer diagnosis out.
//!
//! "Name the layer before you name the tool." This crate reads what the layers of a GPU stack
//! write (device, admission, grouping, placement, runtime, serving) and says which layer blocked
//! the work, the observation that proves it, where two layers disagree and what to look at next.
//! It has no I/O, no clock and no global mutable state (but for the language a diagnosis is
//! written in, set on its thread while it runs: see [`lang`]); the CLI, the WASM package and
//! the web page all call it, so they all give the same answer.
//!
//! ```
//! let bundle = layer_core::Bundle::parse(r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"ml"},"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}}"#).unwrap();
//! let engine = layer_core::Engine::builtin().unwrap();
//! let ix = layer_core::Index::new(bundle);
//! let d = layer_core::diagnose(&engine, &ix, &layer_core::TargetSpec::parse("p", None), &Default::default()).unwrap();
//! assert_eq!(d.verdict.state, layer_core::LayerState::Ok);
//! ```
//!
//! Map of the crate: [`bundle`] reads input, [`index`] joins objects, [`view`] links one target's
//! objects and [`facts`] computes what paths cannot (by area), [`rule`]/[`eval`]/[`template`] are the rule
//! engine, [`engine`] turns matches into a [`Diagnosis`], [`target`] resolves names and scans, [`timeline`] orders the moments the bundle proves,
//! [`par`] spreads the index's decoding and scan's diagnoses over the cores (one thread in WASM),
//! [`reads`] says what a failed read of the live cluster leaves unjudged.

pub mod attribution;
pub mod bundle;
pub mod catalog;
pub mod components;
pub mod credentials;
pub mod describe;
pub mod diagnosis;
pub mod embedded;
pub mod engine;
pub mod error;
pub mod escape;
pub mod eval;
pub mod facts;
pub mod fit;
mod fnv;
pub mod gates;
pub mod groups;
pub mod index;
pub mod json;
pub mod kinds;
pub mod lang;
pub mod layer;
pub mod lend;
pub mod par;
pub mod pathcode;
pub mod pattern;
pub mod picture;
pub mod practice;
pub mod quantity;
pub mod reads;
pub mod reasons;
pub mod render;
pub mod rule;
pub mod scan_json;
pub mod scan_lines;
pub mod standing;
pub mod target;
pub mod template;
pub mod time;
pub mod timeline;
pub mod view;
pub mod walk;

pub use bundle::{Bundle, BundleMeta, ReadLimits};
pub use diagnosis::{
    Diagnosis, Evidence, FailedRead, Finding, FixIn, Incomplete, LayerReport, Misalignment, Moment,
    MomentKind, ObjectRef, Outlook, SCHEMA_VERSION, ScanReport, TargetEntry, Timeline,
};
pub use engine::{Engine, Options};
pub use error::{BundleError, Error, FitError, RuleError, TargetError};
pub use index::Index;
pub use lang::Lang;
pub use layer::{Layer, LayerState, Severity};
pub use target::TargetSpec;

/// Resolve a target and diagnose it.
pub fn diagnose(
    engine: &Engine,
    ix: &Index,
    spec: &TargetSpec,
    opts: &Options,
) -> Result<Diagnosis, TargetError> {
    let id = target::resolve(ix, spec)?;
    Ok(engine.diagnose(ix, id, opts))
}

/// Diagnose the first candidate target (what the web page and `diagnose(bundle)` do with no
/// target given).
pub fn diagnose_first(
    engine: &Engine,
    ix: &Index,
    opts: &Options,
) -> Result<Diagnosis, TargetError> {
    let first = target::first_target(ix).ok_or(TargetError::NoTargets)?;
    let spec = TargetSpec {
        kind: Some(first.kind),
        namespace: first.namespace,
        name: first.name,
    };
    diagnose(engine, ix, &spec, opts)
}

/// Every piece of work that is not running, diagnosed.
pub fn scan(engine: &Engine, ix: &Index, opts: &Options) -> ScanReport {
    target::scan(engine, ix, opts)
}

/// Candidate targets, work that needs attention first.
pub fn targets(ix: &Index) -> Vec<TargetEntry> {
    target::targets(ix)
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};

    /// The modules import each other in one direction, from the bundle reader up to the
    /// renderers: a cycle makes every module of it depend on all the others, and the flow
    /// Bundle → Index → View → Rules → Diagnosis unreadable. A module's files below it
    /// (`facts/**/*.rs`, `bundle/*.rs`) count as the module.
    #[test]
    fn modules_import_each_other_in_one_direction() {
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        let mut files = Vec::new();
        let mut dirs = vec![src.clone()];
        while let Some(dir) = dirs.pop() {
            for e in std::fs::read_dir(&dir)
                .expect("readable directory")
                .flatten()
            {
                let p = e.path();
                if p.is_dir() {
                    dirs.push(p);
                } else {
                    files.push(p);
                }
            }
        }
        for f in files
            .iter()
            .filter(|f| f.extension().is_some_and(|x| x == "rs"))
        {
            let rel = f.strip_prefix(&src).expect("under src");
            let module = rel
                .components()
                .next()
                .and_then(|c| c.as_os_str().to_str())
                .unwrap_or_default()
                .trim_end_matches(".rs")
                .to_string();
            if module == "lib" {
                continue;
            }
            let text = std::fs::read_to_string(f).expect("readable");
            let mut deps = BTreeSet::new();
            for (i, _) in text.match_indices("crate::") {
                let rest = &text[i + "crate::".len()..];
                if let Some(group) = rest.strip_prefix('{') {
                    for item in group.split('}').next().unwrap_or("").split(',') {
                        deps.insert(item.trim().split("::").next().unwrap_or("").to_string());
                    }
                } else {
                    let end = rest
                        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                        .unwrap_or(rest.len());
                    deps.insert(rest[..end].to_string());
                }
            }
            deps.remove(&module);
            deps.remove("");
            edges.entry(module).or_default().extend(deps);
        }
        // Depth-first search for a way back to a module already on the path.
        fn back_edge(
            at: &str,
            edges: &BTreeMap<String, BTreeSet<String>>,
            path: &mut Vec<String>,
            done: &mut BTreeSet<String>,
        ) -> Option<Vec<String>> {
            if let Some(i) = path.iter().position(|p| p == at) {
                let mut cycle = path[i..].to_vec();
                cycle.push(at.to_string());
                return Some(cycle);
            }
            if !done.insert(at.to_string()) {
                return None;
            }
            path.push(at.to_string());
            for next in edges.get(at).into_iter().flatten() {
                if let Some(c) = back_edge(next, edges, path, done) {
                    return Some(c);
                }
            }
            path.pop();
            None
        }
        let mut done = BTreeSet::new();
        for m in edges.keys() {
            if let Some(cycle) = back_edge(m, &edges, &mut Vec::new(), &mut done) {
                panic!("core modules import in a cycle: {}", cycle.join(" → "));
            }
        }
        assert!(edges.len() > 10, "the scan read the modules: {edges:?}");
    }
}
