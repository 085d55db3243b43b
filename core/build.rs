//! Embeds every rule file of `rules/` into the core, so each front end (CLI, WASM, web page)
//! carries the same set. New files are noticed because the whole folder is watched. The texts
//! are written into the generated file itself rather than `include_str!`ed: with incremental
//! compilation, an edited rule file was seen to leave the old text in a debug build.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../rules");
    println!("cargo:rerun-if-changed={}", root.display());
    let mut files: Vec<PathBuf> = Vec::new();
    collect(&root, &mut files);
    files.sort();
    let mut out = String::from(
        "/// Every rule file: (path relative to `rules/`, text).\npub static RULE_FILES: &[(&str, &str)] = &[\n",
    );
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
        writeln!(out, "    ({rel:?}, {:?}),", read(f)).unwrap();
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
    let dest = Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR")).join("embedded.rs");
    std::fs::write(dest, out).expect("write embedded.rs");
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
