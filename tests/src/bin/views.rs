//! Every view and diagnosis of the repository's cases as JSON lines: each candidate target of
//! every scenario and every incident, with its view (subjects, facts, what is missing) and its
//! diagnosis. A refactoring of the view that must not change behaviour is checked by running
//! this before and after and comparing the two files byte for byte:
//!
//! ```sh
//! cargo run -q -p kubectl-layer-tests --bin views > /tmp/before.jsonl
//! # … change …
//! cargo run -q -p kubectl-layer-tests --bin views > /tmp/after.jsonl && cmp /tmp/before.jsonl /tmp/after.jsonl
//! ```

use layer_core::{Bundle, Engine, Index, Options};
use serde_json::json;
use std::io::Write as _;
use std::path::PathBuf;

fn main() {
    let engine = match Engine::builtin() {
        Ok(e) => e,
        Err(e) => {
            eprintln!("views: the built-in rules do not load: {e}");
            std::process::exit(2);
        }
    };
    // Each case with the targets it must cover beyond the candidate list: an incident's own
    // target may be one `targets()` does not offer (a healthy-looking object).
    let mut cases: Vec<(String, PathBuf, Option<String>)> = scenarios::all()
        .into_iter()
        .map(|s| (format!("scenario/{}", s.name), s.bundle_path, None))
        .collect();
    match scenarios::incidents::all() {
        Ok(all) => cases.extend(all.into_iter().map(|i| {
            (
                format!("incident/{}", i.name),
                i.bundle_path,
                Some(i.thread.target),
            )
        })),
        Err(e) => {
            eprintln!("views: {e}");
            std::process::exit(2);
        }
    }
    let opts = Options::default();
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    // `views --fit CLUSTER MANIFEST`: only the views of that manifest's work, fitted.
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [flag, cluster, manifest] = args.as_slice()
        && flag == "--fit"
    {
        let read = |p: &str| {
            std::fs::read_to_string(p).unwrap_or_else(|e| {
                eprintln!("views: {p}: {e}");
                std::process::exit(2);
            })
        };
        fit_views(&engine, &mut out, "fit", &read(cluster), &read(manifest));
        return;
    }
    for (case, path, own) in cases {
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("views: {}: {e}", path.display());
                std::process::exit(2);
            }
        };
        let ix = match Bundle::parse(text) {
            Ok(b) => Index::new(b),
            Err(e) => {
                let _ = writeln!(out, "{}", json!({"case": case, "error": e.to_string()}));
                continue;
            }
        };
        let mut specs: Vec<layer_core::TargetSpec> = layer_core::targets(&ix)
            .into_iter()
            .map(|t| layer_core::TargetSpec {
                kind: Some(t.kind),
                namespace: t.namespace,
                name: t.name,
            })
            .collect();
        specs.extend(own.map(|t| layer_core::TargetSpec::parse(&t, None)));
        for spec in specs {
            let Ok(id) = layer_core::target::resolve(&ix, &spec) else {
                continue;
            };
            let now = engine.now(&ix, &opts);
            let now_secs = now
                .as_ref()
                .and_then(|n| layer_core::time::parse_rfc3339(&n.time));
            let view = layer_core::view::build(&ix, id, now_secs);
            let refs: Vec<String> = view.refs.keys().cloned().collect();
            let line = json!({
                "case": case,
                "target": format!("{}/{}/{}", spec.kind.clone().unwrap_or_default(), spec.namespace.clone().unwrap_or_default(), spec.name),
                "subjects": refs,
                "facts": view.value.get("facts"),
                "missing": view.missing,
                "status": view.status,
                "diagnosis": engine.diagnose(&ix, id, &opts),
            });
            let _ = writeln!(out, "{line}");
        }
    }
    // The fit cases: each piece of work of each manifest, placed into its cluster.
    for c in scenarios::fits::all() {
        fit_views(
            &engine,
            &mut out,
            &format!("fit/{}", c.name),
            &c.cluster_text(),
            &c.manifest_text(),
        );
    }
}

/// One line per piece of work of `manifest` fitted into `cluster`: its view and diagnosis.
fn fit_views(
    engine: &Engine,
    out: &mut impl std::io::Write,
    case: &str,
    cluster: &str,
    manifest: &str,
) {
    let (Ok(cluster), Ok(manifest)) = (Bundle::parse(cluster), Bundle::parse(manifest)) else {
        let _ = writeln!(out, "{}", json!({"case": case, "error": "does not parse"}));
        return;
    };
    let placed = match layer_core::fit::place(cluster, &manifest, &Default::default()) {
        Ok(p) => p,
        Err(e) => {
            let _ = writeln!(out, "{}", json!({"case": case, "error": e.to_string()}));
            return;
        }
    };
    let opts = Options::default();
    for (id, _) in &placed.works {
        let ix = &placed.index;
        let now = engine.now(ix, &opts);
        let now_secs = now
            .as_ref()
            .and_then(|n| layer_core::time::parse_rfc3339(&n.time));
        let view = layer_core::view::build(ix, *id, now_secs);
        let o = ix.object(*id);
        let line = json!({
            "case": case,
            "target": format!("{}/{}/{}", o.kind(), o.namespace().unwrap_or_default(), o.name),
            "subjects": view.refs.keys().cloned().collect::<Vec<_>>(),
            "facts": view.value.get("facts"),
            "missing": view.missing,
            "status": view.status,
            "diagnosis": engine.diagnose(ix, *id, &opts),
        });
        let _ = writeln!(out, "{line}");
    }
}
