//! `cargo xtask wasm`: build the npm package into `wasm/pkg/`. The wasm module is built with the
//! `wasm-release` profile and bound with wasm-bindgen-cli (whose version must equal the
//! `wasm-bindgen` in Cargo.lock) once, as an ES module: browsers `await init()`, and Node's
//! entry instantiates the same .wasm synchronously from its file, so the tarball ships it once.
//! The hand-written ES modules in `wasm/npm/` give both one API. `index.d.ts` is generated from the contract's JSON Schemas, so the TypeScript types
//! are the Rust types.

use crate::{root, run, target_dir};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

const CRATE: &str = "kubectl-layer-wasm";
/// The module cargo builds for the npm package, in cargo's target directory.
fn wasm_module() -> PathBuf {
    target_dir().join("wasm32-unknown-unknown/wasm-release/layer_wasm.wasm")
}

/// The wasm-bindgen version pinned in Cargo.lock.
pub fn locked_bindgen_version() -> Result<String, String> {
    let lock = std::fs::read_to_string(root().join("Cargo.lock")).map_err(|e| e.to_string())?;
    let mut lines = lock.lines();
    while let Some(l) = lines.next() {
        if l == "name = \"wasm-bindgen\""
            && let Some(v) = lines.next().and_then(|v| v.strip_prefix("version = \""))
        {
            return Ok(v.trim_end_matches('"').to_string());
        }
    }
    Err("wasm-bindgen is not in Cargo.lock".into())
}

/// (the version Cargo.lock needs, the `wasm-bindgen --version` on PATH, whether they match).
pub fn bindgen_versions() -> Result<(String, String, bool), String> {
    let want = locked_bindgen_version()?;
    let have = Command::new("wasm-bindgen")
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    let ok = have == format!("wasm-bindgen {want}");
    Ok((want, have, ok))
}

pub fn build() -> Result<(), String> {
    crate::tools::ensure(&[
        crate::tools::Tool::WasmTarget,
        crate::tools::Tool::WasmBindgen,
    ])?;
    run(crate::cargo().args([
        "build",
        "-p",
        CRATE,
        "--profile",
        "wasm-release",
        "--target",
        "wasm32-unknown-unknown",
    ]))?;
    let pkg = root().join("wasm/pkg");
    let _ = std::fs::remove_dir_all(&pkg);
    // One module for both entry points: Node instantiates the browser build's module itself
    // (index.node.mjs), so the tarball carries the .wasm once.
    run(Command::new("wasm-bindgen")
        .args([
            "--target",
            "web",
            "--remove-name-section",
            "--remove-producers-section",
            "--out-dir",
            "wasm/pkg/web",
        ])
        .arg(wasm_module()))?;
    let npm = root().join("wasm/npm");
    for f in ["api.mjs", "index.node.mjs", "index.web.mjs", "README.md"] {
        std::fs::copy(npm.join(f), pkg.join(f)).map_err(|e| format!("{f}: {e}"))?;
    }
    std::fs::copy(root().join("LICENSE"), pkg.join("LICENSE"))
        .map_err(|e| format!("LICENSE: {e}"))?;
    let version = env!("CARGO_PKG_VERSION");
    let template =
        std::fs::read_to_string(npm.join("package.template.json")).map_err(|e| e.to_string())?;
    write(
        &pkg.join("package.json"),
        &template.replace("@VERSION@", version),
    )?;
    write(&pkg.join("index.d.ts"), &typescript()?)?;
    let wasm = pkg.join("web/layer_wasm_bg.wasm");
    let raw = std::fs::metadata(&wasm).map_err(|e| e.to_string())?.len();
    let gz = gzip_size(&wasm)?;
    eprintln!(
        "==> wasm/pkg: kubectl-layer {version}; layer_wasm_bg.wasm {raw} bytes raw, {gz} bytes gzip -9"
    );
    if gz > 1024 * 1024 {
        return Err(format!(
            "the wasm module is {gz} bytes gzipped, over the 1 MiB budget"
        ));
    }
    Ok(())
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

pub fn gzip_size(path: &Path) -> Result<u64, String> {
    let out = Command::new("gzip")
        .args(["-9", "-c"])
        .arg(path)
        .output()
        .map_err(|e| format!("gzip: {e}"))?;
    Ok(out.stdout.len() as u64)
}

/// TypeScript declarations: the contract's types from the JSON Schemas, then the functions.
pub fn typescript() -> Result<String, String> {
    let mut defs: BTreeMap<String, Value> = BTreeMap::new();
    for (_, schema) in layer_core::diagnosis::schemas() {
        if let Some(d) = schema.get("$defs").and_then(Value::as_object) {
            for (k, v) in d {
                defs.insert(k.clone(), v.clone());
            }
        }
        if let Some(title) = schema.get("title").and_then(Value::as_str)
            && !title.starts_with("Array_of_")
        {
            let mut root_def = schema.clone();
            if let Some(o) = root_def.as_object_mut() {
                o.remove("$defs");
                o.remove("$schema");
            }
            defs.insert(title.to_string(), root_def);
        }
    }
    let mut out = String::from(
        "// Generated by `cargo xtask wasm` from the Rust types (docs/schema/); do not edit.\n\n",
    );
    for (name, def) in &defs {
        if let Some(d) = def.get("description").and_then(Value::as_str) {
            out.push_str(&doc(d, ""));
        }
        match def.get("properties").and_then(Value::as_object) {
            Some(props) => {
                let required: Vec<&str> = def
                    .get("required")
                    .and_then(Value::as_array)
                    .map(|r| r.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                out.push_str(&format!("export interface {name} {{\n"));
                for (k, v) in props {
                    if let Some(d) = v.get("description").and_then(Value::as_str) {
                        out.push_str(&doc(d, "  "));
                    }
                    let opt = if required.contains(&k.as_str()) {
                        ""
                    } else {
                        "?"
                    };
                    out.push_str(&format!("  {k}{opt}: {};\n", ts_type(v)));
                }
                out.push_str("}\n\n");
            }
            None => out.push_str(&format!("export type {name} = {};\n\n", ts_type(def))),
        }
    }
    out.push_str(FUNCTIONS);
    Ok(out)
}

fn doc(text: &str, indent: &str) -> String {
    let mut s = format!("{indent}/**\n");
    for l in text.lines() {
        s.push_str(&format!("{indent} * {}\n", l.replace("*/", "*\\/")));
    }
    s.push_str(&format!("{indent} */\n"));
    s
}

fn ts_type(s: &Value) -> String {
    if let Some(r) = s.get("$ref").and_then(Value::as_str) {
        return r.rsplit('/').next().unwrap_or("unknown").to_string();
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(alts) = s.get(key).and_then(Value::as_array) {
            return alts.iter().map(ts_type).collect::<Vec<_>>().join(" | ");
        }
    }
    if let Some(vals) = s.get("enum").and_then(Value::as_array) {
        return vals
            .iter()
            .map(|v| v.to_string())
            .collect::<Vec<_>>()
            .join(" | ");
    }
    if let Some(c) = s.get("const") {
        return c.to_string();
    }
    let one = |t: &str| -> String {
        match t {
            "string" => "string".into(),
            "integer" | "number" => "number".into(),
            "boolean" => "boolean".into(),
            "null" => "null".into(),
            "array" => {
                let item = s
                    .get("items")
                    .map_or_else(|| "unknown".to_string(), ts_type);
                if item.contains(' ') {
                    format!("Array<{item}>")
                } else {
                    format!("{item}[]")
                }
            }
            "object" => match s.get("additionalProperties") {
                Some(ap) if ap.is_object() => format!("Record<string, {}>", ts_type(ap)),
                _ => "Record<string, unknown>".into(),
            },
            _ => "unknown".into(),
        }
    };
    match s.get("type") {
        Some(Value::String(t)) => one(t),
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .map(one)
            .collect::<Vec<_>>()
            .join(" | "),
        _ => "unknown".into(),
    }
}

const FUNCTIONS: &str = r#"/** A target: `"Kind/namespace/name"`, `"KIND/NAME"`, `"NAME"` (a pod), or an object. */
export type TargetSpec = string | { kind?: string; namespace?: string; name: string };

/** Options shared by the functions. */
export interface Options {
  /** Reason as if it were this time (RFC 3339). */
  now?: string;
  /** Refuse larger inputs (bytes). */
  maxInputBytes?: number;
  /** Refuse inputs whose arrays and objects nest deeper (default 128; at most 512 for JSON,
   * 128 for YAML). */
  maxDepth?: number;
}

/** What the package throws: an Error with a stable code (the CLI's codes). */
export interface LayerError extends Error {
  code: 'parse' | 'input-too-large' | 'input-too-deep' | 'target-not-found' | 'target-ambiguous' | 'usage' | 'rules' | 'not-initialized' | 'internal';
}

/** `kubectl get … -o json` or `-o yaml` output (any of the accepted forms), an object, or an
 * array of them (several files read as one bundle; JSON and YAML may be mixed). */
export type BundleInput = string | Uint8Array | object | Array<string | Uint8Array | object>;

/** Load the WebAssembly module (browser); resolves at once in Node. */
export function init(input?: string | URL | Request | Response | BufferSource | WebAssembly.Module): Promise<void>;
/** Diagnose one target; without one, the first candidate of `targets()`. */
export function diagnose(bundle: BundleInput, target?: TargetSpec | null, options?: Options): Diagnosis;
/** Every piece of work that is not running, diagnosed. */
export function scan(bundle: BundleInput, options?: Options): ScanReport;
/** Candidate targets, work that needs attention first. */
export function targets(bundle: BundleInput, options?: Options): TargetEntry[];
/** Every rule's metadata and documentation. */
export function rules(): RuleInfo[];
/** One object of the bundle (e.g. the source of a piece of evidence). */
export function object(bundle: BundleInput, ref: { apiVersion?: string; kind: string; namespace?: string | null; name: string }): Record<string, unknown>;
/** A diagnosis as Markdown for an upstream issue. */
export function markdown(diagnosis: Diagnosis): string;
/** A diagnosis as the CLI's plain text. */
export function text(diagnosis: Diagnosis): string;
/** The package version. */
export function version(): string;
"#;

/// Build the package, pack it, and install the tarball into a fresh scratch project, as a user
/// would. Returns the project directory (its parent is the scratch area to delete).
pub fn scratch_consumer(tag: &str) -> Result<std::path::PathBuf, String> {
    build()?;
    let work = std::env::temp_dir().join(format!("kubectl-layer-npm-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(work.join("consumer")).map_err(|e| e.to_string())?;
    let packed = crate::output(
        Command::new("npm")
            .args(["pack", "--silent", "--pack-destination"])
            .arg(&work)
            .current_dir(root().join("wasm/pkg")),
        "npm pack",
    )?;
    let tarball = work.join(
        String::from_utf8_lossy(&packed)
            .trim()
            .lines()
            .last()
            .unwrap_or_default(),
    );
    let consumer = work.join("consumer");
    write(
        &consumer.join("package.json"),
        "{\"name\": \"consumer\", \"private\": true, \"type\": \"module\"}\n",
    )?;
    run(Command::new("npm")
        .args([
            "install",
            "--no-audit",
            "--no-fund",
            "--offline",
            "--silent",
        ])
        .arg(&tarball)
        .current_dir(&consumer))?;
    Ok(consumer)
}

/// `cargo xtask wasm-test`: pack the package, install the tarball into a throwaway consumer
/// project, type-check a TypeScript consumer, and replay every scenario through it against the
/// native CLI (node:test).
pub fn test() -> Result<(), String> {
    let consumer = scratch_consumer("test")?;
    let work = consumer.parent().expect("scratch area").to_path_buf();
    run(crate::cargo().args(["build", "-p", "kubectl-layer"]))?;
    for f in ["package.test.mjs", "consumer.ts"] {
        std::fs::copy(root().join("wasm/tests").join(f), consumer.join(f))
            .map_err(|e| format!("{f}: {e}"))?;
    }
    // The declarations must type-check for a strict TypeScript consumer.
    run(Command::new("npm")
        .args([
            "install",
            "--no-audit",
            "--no-fund",
            "--silent",
            "typescript@5",
        ])
        .current_dir(&consumer))?;
    run(Command::new("npx")
        .args([
            "--no-install",
            "tsc",
            "--noEmit",
            "--strict",
            "--target",
            "es2022",
            "--module",
            "nodenext",
            "--moduleResolution",
            "nodenext",
            "--lib",
            "es2022,dom",
            "consumer.ts",
        ])
        .current_dir(&consumer))?;
    let result = run(Command::new("node")
        .args(["--test", "--test-reporter=spec", "package.test.mjs"])
        .env("KL_SCENARIOS", root().join("tests/scenarios"))
        .env("KL_CLI", target_dir().join("debug/kubectl-layer"))
        .current_dir(&consumer));
    let _ = std::fs::remove_dir_all(&work);
    result
}
