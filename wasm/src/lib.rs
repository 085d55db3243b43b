//! The npm package `kubectl-layer`: the same core, byte for byte, in JavaScript.
//!
//! The exports take and return JSON text; the package's hand-written ES module
//! (`wasm/npm/index.*.mjs`) parses it into plain objects and turns failures into JS `Error`s
//! with a stable `code` (the same codes the CLI prints). [`api`] is the pure-Rust layer behind
//! the exports, so native tests exercise exactly what JavaScript calls.

pub mod api;

use wasm_bindgen::prelude::*;

fn js_error(e: api::ApiError) -> JsValue {
    let err = js_sys::Error::new(&e.message);
    // A stable machine-readable code beside the CLI's message.
    let _ = js_sys::Reflect::set(&err, &"code".into(), &e.code.into());
    err.into()
}

/// Diagnose one target (`null` for the first candidate). Returns Diagnosis JSON.
#[wasm_bindgen(js_name = diagnoseJson)]
pub fn diagnose_json(bundle: &str, target: &str, options: &str) -> Result<String, JsValue> {
    api::diagnose(bundle, target, options).map_err(js_error)
}

/// Every piece of work that is not running. Returns `{schemaVersion, diagnoses}` JSON.
#[wasm_bindgen(js_name = scanJson)]
pub fn scan_json(bundle: &str, options: &str) -> Result<String, JsValue> {
    api::scan(bundle, options).map_err(js_error)
}

/// Candidate targets, work that needs attention first. Returns a JSON array.
#[wasm_bindgen(js_name = targetsJson)]
pub fn targets_json(bundle: &str, options: &str) -> Result<String, JsValue> {
    api::targets(bundle, options).map_err(js_error)
}

/// Every rule's metadata and documentation. Returns a JSON array.
#[wasm_bindgen(js_name = rulesJson)]
pub fn rules_json() -> Result<String, JsValue> {
    api::rules().map_err(js_error)
}

/// One object of the bundle, found by `{apiVersion?, kind, namespace?, name}` (JSON).
#[wasm_bindgen(js_name = objectJson)]
pub fn object_json(bundle: &str, reference: &str) -> Result<String, JsValue> {
    api::object(bundle, reference).map_err(js_error)
}

/// A diagnosis (JSON) as Markdown for an upstream issue.
#[wasm_bindgen(js_name = markdownJson)]
pub fn markdown_json(diagnosis: &str) -> Result<String, JsValue> {
    api::markdown(diagnosis).map_err(js_error)
}

/// A diagnosis (JSON) as the CLI's plain text.
#[wasm_bindgen(js_name = textJson)]
pub fn text_json(diagnosis: &str) -> Result<String, JsValue> {
    api::text(diagnosis).map_err(js_error)
}

/// The package version (the crate's).
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}
