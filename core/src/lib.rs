//! kubectl-layer's core: a bundle of Kubernetes objects in, a six-layer diagnosis out.
//!
//! "Name the layer before you name the tool." This crate reads what the layers of a GPU stack
//! write (device, admission, grouping, placement, runtime, serving) and says which layer blocked
//! the work, the observation that proves it, where two layers disagree and what to look at next.
//! It has no I/O, no clock and no global mutable state; the CLI, the WASM package and the web
//! page all call it, so they all give the same answer.
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
//! objects and [`facts`] computes what paths cannot, [`rule`]/[`eval`]/[`template`] are the rule
//! engine, [`engine`] turns matches into a [`Diagnosis`], [`target`] resolves names and scans,
//! [`par`] spreads the index's decoding and scan's diagnoses over the cores (one thread in WASM).

pub mod area;
pub mod attribution;
pub mod bundle;
pub mod catalog;
pub mod diagnosis;
pub mod embedded;
pub mod engine;
pub mod error;
pub mod eval;
pub mod facts;
pub mod index;
pub mod json;
pub mod kinds;
pub mod layer;
pub mod par;
pub mod quantity;
pub mod render;
pub mod rule;
pub mod target;
pub mod template;
pub mod time;
pub mod view;

pub use bundle::{Bundle, BundleMeta, ReadLimits};
pub use diagnosis::{
    Diagnosis, Evidence, Finding, FixIn, LayerReport, Misalignment, ObjectRef, SCHEMA_VERSION,
    ScanReport, TargetEntry,
};
pub use engine::{Engine, Options};
pub use error::{BundleError, Error, RuleError, TargetError};
pub use index::Index;
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
    let first = target::targets(ix)
        .into_iter()
        .next()
        .ok_or(TargetError::NoTargets)?;
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
