//! The whole pipeline on arbitrary bytes: read, index, resolve and diagnose every candidate
//! target, render each diagnosis, and scan. Whatever the input, no panic, no stack overflow and
//! no hang; every diagnosis has its six layers.

#![no_main]

use layer_core::render::Style;
use layer_core::{Bundle, Engine, Index, Options, TargetError, TargetSpec};
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

fn engine() -> &'static Engine {
    static ENGINE: OnceLock<Engine> = OnceLock::new();
    ENGINE.get_or_init(|| Engine::builtin().expect("the built-in rules load"))
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data).into_owned();
    let Ok(bundle) = Bundle::parse(text) else {
        return;
    };
    let ix = Index::new(bundle);
    let opts = Options::default();
    for t in layer_core::targets(&ix) {
        let spec = TargetSpec {
            kind: Some(t.kind),
            namespace: t.namespace,
            name: t.name,
        };
        // A target listed by `targets` resolves, unless two API groups share its kind and name.
        let d = match layer_core::diagnose(engine(), &ix, &spec, &opts) {
            Ok(d) => d,
            Err(TargetError::Ambiguous { .. }) => continue,
            Err(e) => panic!("listed target {} does not resolve: {e}", t.value),
        };
        assert_eq!(d.layers.len(), 6);
        let _ = layer_core::render::text(&d, Style { color: false });
        let _ = layer_core::render::markdown(&d);
        serde_json::to_string(&d).expect("a diagnosis serializes");
    }
    let report = layer_core::scan(engine(), &ix, &opts);
    let _ = serde_json::to_string(&report).expect("a scan serializes");
});
