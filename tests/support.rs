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
