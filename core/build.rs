//! Embeds every rule file of `rules/` into the core, so each front end (CLI, WASM, web page)
//! carries the same set. New files are noticed because the whole folder is watched. The texts
//! are written into the generated file itself rather than `include_str!`ed: with incremental
//! compilation, an edited rule file was seen to leave the old text in a debug build.
//!
//! Each rule file is compiled here as far as it can be without the core: read from YAML into a
//! `serde_json::Value` (what the rule loader does with a rule text) and written as JSON, and
//! every condition's JSONPath parsed and written in [`pathcode`]'s compact form. Loading the
//! builtin rules then reads JSON and decodes paths, and builds without the `rule-authoring`
//! feature (the WASM module) leave out jsonpath-rust's parser and a typed YAML reader for rule
//! files. A file or path that does not read here is embedded as it is: the loader reports why.

// The same codec the library decodes with; the build script only encodes.
#[allow(dead_code)]
#[path = "src/pathcode.rs"]
mod pathcode;

use serde_json::Value;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// A rule's documentation fields: `why`, `fix`, `versions` and `references` are read by
/// nothing but the rule's documentation (`explain`, `rules()`), never by a diagnosis. The core's
/// `rule::DOCS_EMBEDDED` says whether a build has them.
const DOC_FIELDS: [&str; 4] = ["why", "fix", "versions", "references"];

fn main() {
    // Read when the script runs, not when it was compiled: cargo shares a compiled build
    // script between checkouts of this workspace that build into one CARGO_TARGET_DIR, and a
    // path fixed at compile time read another checkout's rules (or failed once it was gone).
    let manifest_dir =
        std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let root = Path::new(&manifest_dir).join("../rules");
    println!("cargo:rerun-if-changed={}", root.display());
    let mut files: Vec<PathBuf> = Vec::new();
    collect(&root, &mut files);
    files.sort();
    let mut out = String::from(
        "/// Every rule file of `rules/<layer>/`, as the build compiled it.\npub static RULES: &[BuiltinRule] = &[\n",
    );
    // The Korean pack (`lang::Pack`): each rule's `ko:` block by rule id, and the twins.
    let korean = std::env::var_os("CARGO_FEATURE_KO_EMBEDDED").is_some();
    // A rule's fixtures are test data: the tests and the generated docs read them on the host,
    // and nothing in the WASM module does, so its budget does not carry them. Nor does it carry
    // the rules' documentation ([`DOC_FIELDS`]): only `rules()` shows it, and the npm package
    // ships it beside the module (`web/rules.<lang>.json`, written by `cargo xtask wasm`).
    let wasm = std::env::var("CARGO_CFG_TARGET_ARCH").is_ok_and(|a| a == "wasm32");
    let mut ko_rules = serde_json::Map::new();
    for f in &files {
        println!("cargo:rerun-if-changed={}", f.display());
        let rel = f
            .strip_prefix(&root)
            .expect("under rules/")
            .to_string_lossy()
            .replace('\\', "/");
        if !rel.contains('/') {
            continue;
        }
        let text = read(f);
        let (text, json, paths) = match serde_yaml_ng::from_str::<Value>(&text) {
            Ok(mut v) => {
                // The rule's own text stays English; its Korean goes to the pack, which only
                // builds with `ko-embedded` carry (the WASM module is handed it at run time).
                if let Value::Object(m) = &mut v
                    && let Some(ko) = m.remove("ko")
                {
                    let id = rel.strip_suffix(".yaml").unwrap_or(&rel).to_string();
                    ko_rules.insert(id, ko);
                }
                if let (Value::Object(m), true) = (&mut v, wasm) {
                    m.remove("fixtures");
                    DOC_FIELDS.iter().for_each(|f| drop(m.remove(*f)));
                }
                (v.to_string(), true, condition_paths(&v))
            }
            Err(_) => (text, false, Vec::new()),
        };
        writeln!(
            out,
            "    BuiltinRule {{ path: {rel:?}, text: {text:?}, json: {json}, paths: &{paths:?} }},"
        )
        .unwrap();
    }
    out.push_str("];\n");
    let engine = root.join("engine.yaml");
    println!("cargo:rerun-if-changed={}", engine.display());
    writeln!(
        out,
        "/// Engine-wide texts.\npub static ENGINE_TEXTS: &str = {:?};",
        read(&engine)
    )
    .unwrap();
    let fact_texts = root.join("facts.yaml");
    println!("cargo:rerun-if-changed={}", fact_texts.display());
    writeln!(
        out,
        "/// Texts the facts write.\npub static FACT_TEXTS: &str = {:?};",
        read(&fact_texts)
    )
    .unwrap();
    let upstreams = root.join("upstreams.yaml");
    println!("cargo:rerun-if-changed={}", upstreams.display());
    writeln!(
        out,
        "/// Upstream projects' contribution rules.\npub static UPSTREAMS: &str = {:?};",
        read(&upstreams)
    )
    .unwrap();
    let mut pack = serde_json::Map::new();
    pack.insert("rules".into(), Value::Object(ko_rules));
    for (key, file) in [
        ("engine", "engine.ko.yaml"),
        ("facts", "facts.ko.yaml"),
        ("ui", "ui.ko.yaml"),
    ] {
        let path = root.join(file);
        println!("cargo:rerun-if-changed={}", path.display());
        let text = read(&path);
        // The engine reads its texts as YAML (as it reads engine.yaml); the others are maps.
        let value = match key {
            "engine" => Value::String(text),
            _ => {
                serde_yaml_ng::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
            }
        };
        pack.insert(key.into(), value);
    }
    let pack = if korean {
        Value::Object(pack).to_string()
    } else {
        String::new()
    };
    writeln!(
        out,
        "/// The Korean texts (`lang::Pack` as JSON); empty without the `ko-embedded` feature.\npub static KO_PACK: &str = {pack:?};"
    )
    .unwrap();
    let components = root.join("components.yaml");
    println!("cargo:rerun-if-changed={}", components.display());
    writeln!(
        out,
        "/// The component registry (`rules/components.yaml` as JSON).\npub static COMPONENTS: &str = {:?};",
        serde_yaml_ng::from_str::<Value>(&read(&components))
            .unwrap_or_else(|e| panic!("{}: {e}", components.display()))
            .to_string()
    )
    .unwrap();
    let ui = root.join("ui.yaml");
    println!("cargo:rerun-if-changed={}", ui.display());
    writeln!(
        out,
        "/// The words renderers write around the diagnosis (`rules/ui.yaml` as JSON, which every\n/// build reads with the JSON reader it has anyway).\npub static UI_TEXTS: &str = {:?};",
        serde_yaml_ng::from_str::<Value>(&read(&ui))
            .unwrap_or_else(|e| panic!("{}: {e}", ui.display()))
            .to_string()
    )
    .unwrap();
    let dest = Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR")).join("embedded.rs");
    std::fs::write(dest, out).expect("write embedded.rs");
}

/// Every condition's path under `when`, parsed and encoded, in the order the rule loader
/// compiles conditions (`all`, then `any`, then `not`, then a test on `path`); an empty entry
/// for a path that does not parse.
fn condition_paths(rule: &Value) -> Vec<String> {
    fn walk(c: &Value, out: &mut Vec<String>) {
        for form in ["all", "any"] {
            if let Some(list) = c.get(form).and_then(Value::as_array) {
                list.iter().for_each(|x| walk(x, out));
                return;
            }
        }
        if let Some(not) = c.get("not").filter(|n| !n.is_null()) {
            return walk(not, out);
        }
        if let Some(source) = c.get("path").and_then(Value::as_str) {
            let code = jsonpath_rust::parser::parse_json_path(source)
                .map(|q| pathcode::encode(&q))
                .unwrap_or_default();
            out.push(code);
        }
    }
    let mut out = Vec::new();
    if let Some(when) = rule.get("when") {
        walk(when, &mut out);
    }
    out
}

fn read(f: &Path) -> String {
    std::fs::read_to_string(f).unwrap_or_else(|e| panic!("{}: {e}", f.display()))
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            println!("cargo:rerun-if-changed={}", p.display());
            collect(&p, out);
        } else if p.extension().is_some_and(|x| x == "yaml") {
            out.push(p);
        }
    }
}
