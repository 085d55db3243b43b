//! The npm package `kubectl-layer`: the same core, byte for byte, in JavaScript.
//!
//! The exports take a bundle as UTF-8 bytes and return JSON text; the package's hand-written
//! ES modules (`wasm/npm/*.mjs`) encode the input, parse the answer into plain objects and turn
//! failures into JS `Error`s with a stable `code` (the same codes the CLI prints). [`api`] is the pure-Rust layer behind
//! the exports, so native tests exercise exactly what JavaScript calls.

pub mod api;

use wasm_bindgen::prelude::*;

/// Every failure the package throws: its message quotes the input, shown without the user
/// information of a URL in it, as every other door shows it.
fn js_error(e: api::ApiError) -> JsValue {
    let err = js_sys::Error::new(&layer_core::credentials::without_userinfo(&e.message));
    // A stable machine-readable code beside the CLI's message.
    let _ = js_sys::Reflect::set(&err, &"code".into(), &e.code.into());
    err.into()
}

/// Diagnose one target (`null` for the first candidate). Returns Diagnosis JSON.
#[wasm_bindgen(js_name = diagnoseJson)]
pub fn diagnose_json(bundle: &[u8], target: &str, options: &str) -> Result<String, JsValue> {
    api::diagnose(api::utf8(bundle).map_err(js_error)?, target, options).map_err(js_error)
}

/// Would the manifest's work run in this cluster? Returns a JSON array of Diagnosis objects.
#[wasm_bindgen(js_name = fitJson)]
pub fn fit_json(cluster: &[u8], manifest: &[u8], options: &str) -> Result<String, JsValue> {
    let (cluster, manifest) = (api::utf8(cluster), api::utf8(manifest));
    api::fit(
        cluster.map_err(js_error)?,
        manifest.map_err(js_error)?,
        options,
    )
    .map_err(js_error)
}

/// Every piece of work that is not running. Returns `{schemaVersion, diagnoses}` JSON.
#[wasm_bindgen(js_name = scanJson)]
pub fn scan_json(bundle: &[u8], options: &str) -> Result<String, JsValue> {
    api::scan(api::utf8(bundle).map_err(js_error)?, options).map_err(js_error)
}

/// Candidate targets, work that needs attention first. Returns a JSON array.
#[wasm_bindgen(js_name = targetsJson)]
pub fn targets_json(bundle: &[u8], options: &str) -> Result<String, JsValue> {
    api::targets(api::utf8(bundle).map_err(js_error)?, options).map_err(js_error)
}

/// Every rule's metadata and documentation, in `options.lang`. Returns a JSON array.
#[wasm_bindgen(js_name = rulesJson)]
pub fn rules_json(options: &str) -> Result<String, JsValue> {
    api::rules(options).map_err(js_error)
}

/// The renderers' words in a language, by key. Returns a JSON object.
#[wasm_bindgen(js_name = wordsJson)]
pub fn words_json(lang: &str) -> Result<String, JsValue> {
    api::words(lang).map_err(js_error)
}

/// Hand the core the texts of a language (`web/ko.json` for `ko`), once per module.
#[wasm_bindgen(js_name = installLanguage)]
pub fn install_language(lang: &str, texts: &str) -> Result<(), JsValue> {
    api::install_language(lang, texts).map_err(js_error)
}

/// One object of the bundle, found by `{apiVersion?, kind, namespace?, name}` (JSON).
#[wasm_bindgen(js_name = objectJson)]
pub fn object_json(bundle: &[u8], reference: &str) -> Result<String, JsValue> {
    api::object(api::utf8(bundle).map_err(js_error)?, reference).map_err(js_error)
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

/// One bundle read and indexed once (`Bundle.parse` in the package): every method answers from
/// the same index, so a page that shows targets, a diagnosis and its Markdown reads a pasted
/// bundle once. JavaScript frees it with `free()` (or the garbage collector does).
#[wasm_bindgen(js_name = RawBundle)]
pub struct RawBundle(api::Parsed);

#[wasm_bindgen(js_class = RawBundle)]
impl RawBundle {
    /// Read and index `bundle` (JSON or YAML text as UTF-8; several inputs joined by NUL) with
    /// `options`.
    #[wasm_bindgen(constructor)]
    pub fn new(bundle: &[u8], options: &str) -> Result<RawBundle, JsValue> {
        api::Parsed::from_utf8(bundle, options)
            .map(RawBundle)
            .map_err(js_error)
    }

    /// Answer later questions in another language (`en` or `ko`), the bundle read once.
    #[wasm_bindgen(js_name = setLang)]
    pub fn set_lang(&mut self, lang: &str) -> Result<(), JsValue> {
        self.0.set_lang(lang).map_err(js_error)
    }

    /// Candidate targets. Returns a JSON array.
    #[wasm_bindgen(js_name = targetsJson)]
    pub fn targets_json(&self) -> Result<String, JsValue> {
        self.0.targets().map_err(js_error)
    }

    /// Diagnose one target (empty for the first candidate). Returns Diagnosis JSON.
    #[wasm_bindgen(js_name = diagnoseJson)]
    pub fn diagnose_json(&mut self, target: &str) -> Result<String, JsValue> {
        self.0.diagnose(target).map_err(js_error)
    }

    /// Every piece of work that is not running. Returns `{schemaVersion, diagnoses}` JSON.
    #[wasm_bindgen(js_name = scanJson)]
    pub fn scan_json(&self) -> Result<String, JsValue> {
        self.0.scan().map_err(js_error)
    }

    /// One object, found by `{apiVersion?, kind, namespace?, name}` (JSON).
    #[wasm_bindgen(js_name = objectJson)]
    pub fn object_json(&self, reference: &str) -> Result<String, JsValue> {
        self.0.object(reference).map_err(js_error)
    }

    /// The diagnosis of a target as Markdown, from the diagnosis kept when it was asked for.
    pub fn markdown(&mut self, target: &str) -> Result<String, JsValue> {
        self.0.markdown(target).map_err(js_error)
    }

    /// The diagnosis of a target as the CLI's plain text.
    pub fn text(&mut self, target: &str) -> Result<String, JsValue> {
        self.0.text(target).map_err(js_error)
    }
}

/// The package version (the crate's).
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}
