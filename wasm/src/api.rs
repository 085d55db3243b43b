//! What the JavaScript functions do, in plain Rust: parse the inputs, call the core, serialize
//! the answer. Errors carry the CLI's stable codes (`parse`, `input-too-large`,
//! `target-not-found`, `target-ambiguous`, `usage`, `rules`).

use layer_core::{Bundle, Engine, Index, Lang, Options, ReadLimits, TargetSpec};
use std::sync::OnceLock;

/// A failure, as JavaScript will see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    pub code: String,
    pub message: String,
}

impl From<layer_core::Error> for ApiError {
    fn from(e: layer_core::Error) -> Self {
        ApiError {
            code: e.code().to_string(),
            message: e.to_string(),
        }
    }
}

fn usage(message: String) -> ApiError {
    ApiError {
        code: "usage".into(),
        message,
    }
}

/// Options shared by the functions (all optional).
#[derive(Debug, Default)]
struct JsOptions {
    /// "Now" as RFC 3339.
    now: Option<String>,
    /// Refuse larger inputs (bytes).
    max_input_bytes: Option<usize>,
    /// Refuse inputs whose arrays and objects nest deeper (the CLI's `--max-depth`).
    max_depth: Option<usize>,
    /// `fit` only: for manifest objects that name none (the CLI's `-n`); one naming another is
    /// refused.
    namespace: Option<String>,
    /// The language of the explanations (the CLI's `--lang`).
    lang: Lang,
    /// `scan` only: the groups by cause without the per-item diagnoses (the CLI's
    /// `--summary`).
    summary: bool,
}

/// The option keys of every function; `fit` also takes `namespace`, `scan` `summary`.
const OPTION_KEYS: &[&str] = &["now", "maxInputBytes", "maxDepth", "lang"];
const FIT_OPTION_KEYS: &[&str] = &["now", "maxInputBytes", "maxDepth", "lang", "namespace"];
const SCAN_OPTION_KEYS: &[&str] = &["now", "maxInputBytes", "maxDepth", "lang", "summary"];

fn engine() -> Result<&'static Engine, ApiError> {
    static ENGINE: OnceLock<Result<Engine, ApiError>> = OnceLock::new();
    ENGINE
        .get_or_init(|| {
            Engine::builtin().map_err(|e| ApiError {
                code: e.code().into(),
                message: e.to_string(),
            })
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// The builtin rules writing in `lang`. The module carries no Korean texts of its own: the
/// package hands them over first ([`install_language`]); until then a Korean call fails with
/// `not-initialized`, never silently in English. A Korean engine is built once, the first time
/// one is asked for after the texts arrived.
pub fn engine_in(lang: Lang) -> Result<&'static Engine, ApiError> {
    if lang == Lang::En {
        return engine();
    }
    if !layer_core::lang::available(lang) {
        return Err(ApiError {
            code: "not-initialized".into(),
            message: format!(
                "the {lang} texts are not loaded: `await loadLanguage('{lang}')` first (Node loads them by itself)"
            ),
        });
    }
    static KOREAN: OnceLock<Result<Engine, ApiError>> = OnceLock::new();
    KOREAN
        .get_or_init(|| {
            engine()?.in_lang(lang).map_err(|e| ApiError {
                code: e.code().into(),
                message: e.to_string(),
            })
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// `loadLanguage(lang)`'s second half: the texts of a language (the package's `web/ko.json`,
/// which `cargo xtask wasm` writes from the rule files), handed to the core once. Handing the
/// same texts again is not an error: a page may load them from two places.
pub fn install_language(lang: &str, pack_json: &str) -> Result<(), ApiError> {
    match lang_of(lang)? {
        Lang::En => Ok(()),
        Lang::Ko => match layer_core::lang::install(pack_json) {
            Ok(()) | Err(layer_core::lang::LangError::AlreadyInstalled) => Ok(()),
            Err(e) => Err(usage(format!("the {lang} texts: {e}"))),
        },
    }
}

/// A language code as the package takes it; an unknown one is a usage error.
fn lang_of(code: &str) -> Result<Lang, ApiError> {
    Lang::from_code(code).map_err(|e| usage(e.to_string()))
}

// The small JSON arguments (options, targets, object references) are read by hand from a
// `Value`, whose reader the module has anyway: serde's derived readers for them (an untagged
// enum among them) would be code of their own for what is read once per call.

type JsonMap = serde_json::Map<String, serde_json::Value>;

/// A JSON object argument's fields; `what` names the argument in errors.
fn object_fields(json: &str, what: &str) -> Result<JsonMap, ApiError> {
    match serde_json::from_str(json) {
        Ok(serde_json::Value::Object(m)) => Ok(m),
        Ok(_) => Err(usage(format!("invalid {what}: expected an object"))),
        Err(e) => Err(usage(format!("invalid {what}: {e}"))),
    }
}

/// A text field of an object argument: absent or null is `None`.
fn text_field(m: &JsonMap, key: &str, what: &str) -> Result<Option<String>, ApiError> {
    match m.get(key) {
        None | Some(serde_json::Value::Null) => Ok(None),
        Some(serde_json::Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(usage(format!("invalid {what}: `{key}` is not a string"))),
    }
}

fn options(json: &str) -> Result<JsOptions, ApiError> {
    options_of(json, OPTION_KEYS)
}

/// The options object `json`, refusing a key outside `keys`.
fn options_of(json: &str, keys: &[&str]) -> Result<JsOptions, ApiError> {
    if json.trim().is_empty() || json.trim() == "null" {
        return Ok(JsOptions::default());
    }
    let m = object_fields(json, "options")?;
    let count = |key: &str| match m.get(key) {
        None | Some(serde_json::Value::Null) => Ok(None),
        Some(v) => v
            .as_u64()
            .and_then(|n| usize::try_from(n).ok())
            .map(Some)
            .ok_or_else(|| usage(format!("invalid options: `{key}` is not a whole number"))),
    };
    if let Some(k) = m.keys().find(|k| !keys.contains(&k.as_str())) {
        let expected: Vec<String> = keys.iter().map(|k| format!("`{k}`")).collect();
        return Err(usage(format!(
            "invalid options: unknown field `{k}`, expected one of {}",
            expected.join(", ")
        )));
    }
    let lang = match text_field(&m, "lang", "options")? {
        None => Lang::En,
        Some(code) => {
            Lang::from_code(&code).map_err(|e| usage(format!("invalid options: `lang`: {e}")))?
        }
    };
    Ok(JsOptions {
        now: text_field(&m, "now", "options")?,
        max_input_bytes: count("maxInputBytes")?,
        max_depth: count("maxDepth")?,
        namespace: text_field(&m, "namespace", "options")?,
        lang,
        summary: match m.get("summary") {
            None | Some(serde_json::Value::Null) => false,
            Some(serde_json::Value::Bool(b)) => *b,
            Some(_) => return Err(usage("invalid options: `summary` is not a boolean".into())),
        },
    })
}

/// What the ages of a `kubectl describe` paste count back from: the `now` option, else the
/// moment it is read (the page's clock in a browser or Node; the core has none).
fn paste_time(opts: &JsOptions) -> i64 {
    if let Some(t) = opts
        .now
        .as_deref()
        .and_then(layer_core::time::parse_rfc3339)
    {
        return t;
    }
    #[cfg(target_arch = "wasm32")]
    let secs = (js_sys::Date::now() / 1000.0) as i64;
    #[cfg(not(target_arch = "wasm32"))]
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    secs
}

/// The bundle of several inputs joined by NUL (see [`index`]), read under the options' limits.
fn read_bundle(bundle: &str, opts: &JsOptions) -> Result<Bundle, ApiError> {
    let defaults = ReadLimits::default();
    let limits = ReadLimits {
        max_bytes: opts.max_input_bytes.unwrap_or(defaults.max_bytes),
        max_depth: opts.max_depth.unwrap_or(defaults.max_depth),
        now: Some(paste_time(opts)),
        // Threads: the module has one, which `par` knows.
        ..defaults
    };
    if bundle.len() > limits.max_bytes {
        return Err(layer_core::Error::from(layer_core::BundleError::TooLarge {
            size: bundle.len(),
            limit: limits.max_bytes,
        })
        .into());
    }
    let parts: Vec<&str> = bundle
        .split('\0')
        .filter(|p| !p.trim().is_empty())
        .collect();
    let n = parts.len();
    // One input is read as it came (an empty one says so); several are named by position.
    let inputs: Vec<(Option<String>, &str)> = if n <= 1 {
        vec![(None, bundle.trim_matches('\0'))]
    } else {
        parts
            .iter()
            .enumerate()
            .map(|(i, p)| (Some(format!("input {} of {n}", i + 1)), *p))
            .collect()
    };
    Ok(Bundle::read_all(inputs, limits).map_err(layer_core::Error::from)?)
}

/// Several inputs (files dropped together, several pastes) arrive joined by NUL, a character
/// neither JSON nor YAML text may contain; each is read on its own and merged, so JSON and YAML
/// can be mixed, and an error names the input it came from.
fn index(bundle: &str, opts: &JsOptions) -> Result<Index, ApiError> {
    Ok(Index::new(read_bundle(bundle, opts)?))
}

fn to_json<T: serde::Serialize>(v: &T) -> Result<String, ApiError> {
    serde_json::to_string(v).map_err(|e| ApiError {
        code: "internal".into(),
        message: e.to_string(),
    })
}

/// A scan's report as compact JSON text.
fn scan_text(report: &layer_core::scan_json::ScanJson) -> Result<String, ApiError> {
    report.to_compact_string().map_err(|e| ApiError {
        code: "internal".into(),
        message: e.to_string(),
    })
}

/// A target: `"Kind/namespace/name"`, `"KIND/NAME"`, `"NAME"`, or `{kind?, namespace?, name}`
/// (JSON text; empty for none).
fn parse_target(target: &str) -> Result<Option<TargetSpec>, ApiError> {
    const FORMS: &str =
        "a target is \"Kind/namespace/name\", \"KIND/NAME\", \"NAME\" or {kind?, namespace?, name}";
    if target.trim().is_empty() {
        return Ok(None);
    }
    if let Ok(serde_json::Value::String(s)) = serde_json::from_str(target) {
        return Ok(Some(TargetSpec::parse(&s, None)));
    }
    let what = "target";
    let m = object_fields(target, what).map_err(|e| usage(format!("{}; {FORMS}", e.message)))?;
    Ok(Some(TargetSpec {
        kind: text_field(&m, "kind", what)?,
        namespace: text_field(&m, "namespace", what)?.filter(|n| !n.is_empty()),
        name: text_field(&m, "name", what)?
            .ok_or_else(|| usage(format!("invalid target: `name` is missing; {FORMS}")))?,
    }))
}

fn core_options(opts: &JsOptions) -> Options {
    Options {
        now: opts.now.clone(),
        ..Options::default()
    }
}

/// One target of an index (the first candidate for `None`).
fn diagnose_in(
    engine: &Engine,
    ix: &Index,
    spec: Option<&TargetSpec>,
    opts: &Options,
) -> Result<layer_core::Diagnosis, ApiError> {
    let d = match spec {
        None => layer_core::diagnose_first(engine, ix, opts),
        Some(spec) => layer_core::diagnose(engine, ix, spec, opts),
    };
    d.map_err(|e| layer_core::Error::from(e).into())
}

/// A bundle handed over as UTF-8 bytes: JavaScript encodes a large text natively
/// (`TextEncoder`), where wasm-bindgen copies a string in a loop of its own glue.
pub fn utf8(bundle: &[u8]) -> Result<&str, ApiError> {
    std::str::from_utf8(bundle).map_err(|e| ApiError {
        code: "parse".into(),
        message: format!("the input is not UTF-8 text: {e}"),
    })
}

/// `diagnose(bundle, target?, options?)`.
pub fn diagnose(bundle: &str, target: &str, options_json: &str) -> Result<String, ApiError> {
    let opts = options(options_json)?;
    let spec = parse_target(target)?;
    let engine = engine_in(opts.lang)?;
    let ix = index(bundle, &opts)?;
    to_json(&diagnose_in(
        engine,
        &ix,
        spec.as_ref(),
        &core_options(&opts),
    )?)
}

/// `fit(cluster, manifest, options?)`: each piece of work of the manifest judged against the
/// cluster as if submitted now; a JSON array of Diagnosis objects.
pub fn fit(cluster: &str, manifest: &str, options_json: &str) -> Result<String, ApiError> {
    let opts = options_of(options_json, FIT_OPTION_KEYS)?;
    let engine = engine_in(opts.lang)?;
    let cluster = read_bundle(cluster, &opts)?;
    let manifest = read_bundle(manifest, &opts).map_err(|e| ApiError {
        message: format!("manifest: {}", e.message),
        ..e
    })?;
    let fit_opts = layer_core::fit::FitOptions {
        namespace: opts.namespace,
        now: opts.now,
        ..Default::default()
    };
    let diagnoses = layer_core::fit::fit(engine, cluster, &manifest, &fit_opts)
        .map_err(layer_core::Error::from)?;
    to_json(&diagnoses)
}

/// `scan(bundle, options?)`.
pub fn scan(bundle: &str, options_json: &str) -> Result<String, ApiError> {
    let opts = options_of(options_json, SCAN_OPTION_KEYS)?;
    let engine = engine_in(opts.lang)?;
    let ix = index(bundle, &opts)?;
    let report = layer_core::target::scan_json(engine, &ix, &core_options(&opts), None);
    scan_text(&if opts.summary {
        report.summary()
    } else {
        report
    })
}

/// `targets(bundle)`.
pub fn targets(bundle: &str, options_json: &str) -> Result<String, ApiError> {
    let opts = options(options_json)?;
    let ix = index(bundle, &opts)?;
    to_json(&layer_core::targets(&ix))
}

/// `words(lang)`: the words the renderers write around a diagnosis (layer and state names,
/// the verdict line, section titles), by key, in `lang`: a page shows the same words.
pub fn words(lang: &str) -> Result<String, ApiError> {
    let lang = lang_of(lang)?;
    engine_in(lang)?;
    to_json(&layer_core::lang::Words::of(lang).all())
}

/// `rules(options?)`: every rule's metadata and documentation, in `options.lang`.
pub fn rules(options_json: &str) -> Result<String, ApiError> {
    let opts = options_of(options_json, &["lang"])?;
    let infos: Vec<_> = engine_in(opts.lang)?
        .rules()
        .iter()
        .map(|r| layer_core::render::rule_info_in(r, opts.lang))
        .collect();
    to_json(&infos)
}

/// `object(bundle, ref)`: one object of the bundle as JSON (the evidence's source), found by
/// `{apiVersion?, kind, namespace?, name}`.
pub fn object(bundle: &str, reference: &str) -> Result<String, ApiError> {
    let ix = index(bundle, &JsOptions::default())?;
    object_in(&ix, reference)
}

fn object_in(ix: &Index, reference: &str) -> Result<String, ApiError> {
    let what = "object reference";
    let m = object_fields(reference, what)?;
    let required = |key: &str| {
        text_field(&m, key, what)?
            .ok_or_else(|| usage(format!("invalid {what}: `{key}` is missing")))
    };
    let (kind, name) = (required("kind")?, required("name")?);
    let namespace = text_field(&m, "namespace", what)?;
    let ns = namespace.as_deref().filter(|n| !n.is_empty());
    let id = match text_field(&m, "apiVersion", what)? {
        Some(av) => ix.get(layer_core::bundle::group_of(&av), &kind, ns, &name),
        None => ix.find(&kind, ns, &name),
    };
    let id = id.ok_or_else(|| ApiError {
        code: "target-not-found".into(),
        message: format!("{kind} {name} is not in the bundle"),
    })?;
    // Shown beside the evidence: without a URL's password, as every other answer.
    let mut object = ix.value(id);
    layer_core::credentials::in_value(&mut object);
    to_json(&object)
}

/// A Diagnosis from JSON text, through a `Value`: the text renderer reads a Diagnosis from a
/// `Value` anyway (it cleans every string on the way), and a second reader, driven by text,
/// would be more code in the module. JavaScript hands over `JSON.stringify` of an object, so the one
/// difference (a repeated key is not refused) cannot arise.
fn parse_diagnosis(json: &str) -> Result<layer_core::Diagnosis, ApiError> {
    let not = |e: serde_json::Error| usage(format!("not a Diagnosis: {e}"));
    serde_json::from_value(serde_json::from_str(json).map_err(not)?).map_err(not)
}

fn text_of(d: &layer_core::Diagnosis) -> String {
    layer_core::render::text(d, layer_core::render::Style { color: false })
}

/// `markdown(diagnosis)`.
pub fn markdown(diagnosis: &str) -> Result<String, ApiError> {
    Ok(layer_core::render::markdown(&parse_diagnosis(diagnosis)?))
}

/// `text(diagnosis)`.
pub fn text(diagnosis: &str) -> Result<String, ApiError> {
    Ok(text_of(&parse_diagnosis(diagnosis)?))
}

/// `Bundle.parse(bundle, options?)`: one bundle read and indexed once, for every question a
/// page asks about it (its targets, a diagnosis per chosen target, the scan, the Markdown of
/// what is on screen, the source of a piece of evidence). The answers are the per-call
/// functions' answers, without reading the text again or sending a diagnosis back as JSON.
pub struct Parsed {
    ix: Index,
    opts: Options,
    lang: Lang,
    /// The last diagnosis asked for, by the target text it was asked with: the page renders a
    /// diagnosis, then asks for its Markdown or text.
    last: Option<(String, layer_core::Diagnosis)>,
}

impl Parsed {
    /// `bundle` as UTF-8 bytes (see [`utf8`]).
    pub fn from_utf8(bundle: &[u8], options_json: &str) -> Result<Parsed, ApiError> {
        Parsed::new(utf8(bundle)?, options_json)
    }

    pub fn new(bundle: &str, options_json: &str) -> Result<Parsed, ApiError> {
        let opts = options(options_json)?;
        // Refused now rather than at the first question: the texts must be loaded first.
        engine_in(opts.lang)?;
        Ok(Parsed {
            ix: index(bundle, &opts)?,
            opts: core_options(&opts),
            lang: opts.lang,
            last: None,
        })
    }

    /// Answer later questions in `lang` (a page's language switch), without reading the
    /// bundle again.
    pub fn set_lang(&mut self, lang: &str) -> Result<(), ApiError> {
        let lang = lang_of(lang)?;
        engine_in(lang)?;
        if lang != self.lang {
            self.lang = lang;
            self.last = None;
        }
        Ok(())
    }

    /// The diagnosis of `target` (JSON text as for [`diagnose`]), kept for the next question.
    fn diagnosis(&mut self, target: &str) -> Result<&layer_core::Diagnosis, ApiError> {
        if !matches!(&self.last, Some((t, _)) if t == target) {
            let spec = parse_target(target)?;
            let d = diagnose_in(engine_in(self.lang)?, &self.ix, spec.as_ref(), &self.opts)?;
            return Ok(&self.last.insert((target.to_string(), d)).1);
        }
        self.last.as_ref().map(|(_, d)| d).ok_or_else(|| ApiError {
            code: "internal".into(),
            message: "no diagnosis kept".into(),
        })
    }

    pub fn diagnose(&mut self, target: &str) -> Result<String, ApiError> {
        to_json(self.diagnosis(target)?)
    }

    pub fn markdown(&mut self, target: &str) -> Result<String, ApiError> {
        Ok(layer_core::render::markdown(self.diagnosis(target)?))
    }

    pub fn text(&mut self, target: &str) -> Result<String, ApiError> {
        Ok(text_of(self.diagnosis(target)?))
    }

    pub fn scan(&self) -> Result<String, ApiError> {
        let engine = engine_in(self.lang)?;
        scan_text(&layer_core::target::scan_json(
            engine, &self.ix, &self.opts, None,
        ))
    }

    pub fn targets(&self) -> Result<String, ApiError> {
        to_json(&layer_core::targets(&self.ix))
    }

    pub fn object(&self, reference: &str) -> Result<String, ApiError> {
        object_in(&self.ix, reference)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const POD: &str = r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"ml"},"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}}"#;

    #[test]
    fn diagnoses_by_every_target_form() {
        for t in [
            "",
            "\"p\"",
            "\"Pod/ml/p\"",
            r#"{"name":"p"}"#,
            r#"{"kind":"pod","namespace":"ml","name":"p"}"#,
        ] {
            let d: serde_json::Value =
                serde_json::from_str(&diagnose(POD, t, "").unwrap()).unwrap();
            assert_eq!(d["verdict"]["state"], "ok", "target {t}");
        }
    }

    #[test]
    fn errors_carry_stable_codes() {
        assert_eq!(diagnose("{", "", "").unwrap_err().code, "parse");
        assert_eq!(
            diagnose(POD, "\"nope\"", "").unwrap_err().code,
            "target-not-found"
        );
        assert_eq!(
            diagnose(POD, "", r#"{"maxInputBytes": 5}"#)
                .unwrap_err()
                .code,
            "input-too-large"
        );
        let deep = diagnose(POD, "", r#"{"maxDepth": 2}"#).unwrap_err();
        assert_eq!(deep.code, "input-too-deep");
        assert!(deep.message.contains("--max-depth"), "{}", deep.message);
        assert_eq!(
            diagnose(POD, "", r#"{"bogus": 1}"#).unwrap_err().code,
            "usage"
        );
        assert_eq!(markdown("{}").unwrap_err().code, "usage");
    }

    #[test]
    fn a_language_is_one_the_core_writes_and_its_texts_must_read() {
        let fr = diagnose(POD, "", r#"{"lang": "fr"}"#).unwrap_err();
        assert_eq!(fr.code, "usage");
        assert!(fr.message.contains("`fr`"), "{}", fr.message);
        assert_eq!(rules(r#"{"lang": 7}"#).unwrap_err().code, "usage");
        assert_eq!(words("xx").unwrap_err().code, "usage");
        assert_eq!(install_language("xx", "{}").unwrap_err().code, "usage");
        // English needs no texts and never changes what was installed.
        install_language("en", "not json").unwrap();
        let en: serde_json::Value = serde_json::from_str(&words("en").unwrap()).unwrap();
        assert_eq!(en["layer.placement"], "placement");
        let mut b = Parsed::new(POD, r#"{"lang": "en-US"}"#).unwrap();
        assert_eq!(b.set_lang("klingon").unwrap_err().code, "usage");
        let d: serde_json::Value = serde_json::from_str(&b.diagnose("").unwrap()).unwrap();
        assert_eq!(d["verdict"]["state"], "ok");
        assert!(d.get("lang").is_none(), "English carries no lang");
    }

    #[test]
    fn several_inputs_merge_and_errors_name_the_input() {
        let yaml_node = "apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n";
        let t: serde_json::Value =
            serde_json::from_str(&targets(&format!("{POD}\0{yaml_node}"), "").unwrap()).unwrap();
        assert_eq!(t.as_array().unwrap().len(), 1);
        let o: serde_json::Value = serde_json::from_str(
            &object(
                &format!("{POD}\0{yaml_node}"),
                r#"{"kind":"Node","name":"n1"}"#,
            )
            .unwrap(),
        )
        .unwrap();
        assert_eq!(o["metadata"]["name"], "n1");
        let e = diagnose(&format!("{POD}\0{{oops"), "", "").unwrap_err();
        assert!(e.message.starts_with("input 2 of 2:"), "{}", e.message);
        assert_eq!(
            object(POD, r#"{"kind":"Node","name":"x"}"#)
                .unwrap_err()
                .code,
            "target-not-found"
        );
    }

    /// Every scenario bundle, read once through [`Parsed`], answers exactly as the per-call
    /// functions do, for every expected target, the first candidate, the scan and the renderings.
    #[test]
    fn a_parsed_bundle_answers_as_the_functions_do() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/scenarios");
        let mut checked = 0;
        for e in std::fs::read_dir(&dir).expect("scenarios").flatten() {
            let Ok(expected) = std::fs::read_to_string(e.path().join("expected.json")) else {
                continue;
            };
            let Some(input) = ["bundle.json", "bundle.yaml"]
                .iter()
                .find_map(|f| std::fs::read_to_string(e.path().join(f)).ok())
            else {
                continue;
            };
            let expected: Vec<serde_json::Value> = serde_json::from_str(&expected).expect("json");
            let mut b = Parsed::new(&input, "").expect("parses");
            assert_eq!(b.targets().unwrap(), targets(&input, "").unwrap());
            assert_eq!(b.scan().unwrap(), scan(&input, "").unwrap());
            let mut targets: Vec<String> = expected
                .iter()
                .filter_map(|x| x["target"].as_str())
                .map(|t| serde_json::to_string(t).unwrap())
                .collect();
            targets.push(String::new());
            for t in &targets {
                let d = diagnose(&input, t, "").unwrap();
                // Asked twice, and in the order a page asks: the kept diagnosis is the same.
                assert_eq!(b.diagnose(t).unwrap(), d, "{t}");
                assert_eq!(b.markdown(t).unwrap(), markdown(&d).unwrap(), "{t}");
                assert_eq!(b.text(t).unwrap(), text(&d).unwrap(), "{t}");
                assert_eq!(b.diagnose(t).unwrap(), d, "{t}");
                checked += 1;
            }
        }
        assert!(checked > 100, "targets checked: {checked}");
    }

    /// A `kubectl describe` paste of a pending pod: its events' ages count from the `now`
    /// option, the scheduler's message decides, and the notes say what describe cannot show.
    #[test]
    fn a_describe_paste_is_read_with_its_notes() {
        let paste = "Name:         p\nNamespace:    ml\nNode:         <none>\nLabels:       <none>\nStatus:       Pending\nContainers:\n  c:\n    Image:      x\n    Limits:\n      nvidia.com/gpu:  16\n    Requests:\n      nvidia.com/gpu:  16\nConditions:\n  Type           Status\n  PodScheduled   False \nQoS Class:      BestEffort\nEvents:\n  Type     Reason            Age   From               Message\n  ----     ------            ----  ----               -------\n  Warning  FailedScheduling  2m    default-scheduler  0/4 nodes are available: 4 Insufficient nvidia.com/gpu.\n";
        let now = r#"{"now": "2030-01-01T00:10:00Z"}"#;
        let d: serde_json::Value =
            serde_json::from_str(&diagnose(paste, "", now).unwrap()).unwrap();
        assert_eq!(d["verdict"]["layer"], "placement", "{d}");
        assert!(d["inputNotes"][0].as_str().unwrap().contains("describe"));
        let event = d["timeline"]["moments"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["text"].as_str().unwrap_or("").contains("Insufficient"))
            .expect("the event is a moment");
        assert_eq!(event["time"], "2030-01-01T00:08:00Z");
    }

    #[test]
    fn a_parsed_bundle_keeps_its_options_and_its_errors_carry_codes() {
        let now = r#"{"now": "2030-01-01T00:00:00Z"}"#;
        let mut b = Parsed::new(POD, now).unwrap();
        assert_eq!(b.diagnose("").unwrap(), diagnose(POD, "", now).unwrap());
        assert_ne!(
            b.diagnose("").unwrap(),
            diagnose(POD, "", "").unwrap(),
            "now is used"
        );
        assert_eq!(b.diagnose("\"nope\"").unwrap_err().code, "target-not-found");
        assert_eq!(b.markdown("\"nope\"").unwrap_err().code, "target-not-found");
        assert_eq!(b.diagnose("{").unwrap_err().code, "usage");
        for bad in [
            "5",
            "{}",
            r#"{"name": 5}"#,
            r#"{"kind": 1, "name": "p"}"#,
            "null",
        ] {
            let e = b.diagnose(bad).unwrap_err();
            assert_eq!(e.code, "usage", "{bad}");
            assert!(e.message.starts_with("invalid target: "), "{}", e.message);
        }
        assert_eq!(
            b.diagnose(r#"{"kind": null, "namespace": "", "name": "p"}"#)
                .unwrap(),
            diagnose(POD, "\"p\"", now).unwrap()
        );
        for bad in [
            "{}",
            r#"{"kind": "Pod"}"#,
            r#"{"kind": "Pod", "name": 1}"#,
            "[]",
            "{",
        ] {
            let e = b.object(bad).unwrap_err();
            assert_eq!(e.code, "usage", "{bad}");
            assert!(
                e.message.starts_with("invalid object reference"),
                "{}",
                e.message
            );
        }
        for (bad, why) in [
            (r#"{"nope": 1}"#, "unknown field `nope`"),
            (r#"{"maxDepth": -1}"#, "`maxDepth` is not a whole number"),
            (
                r#"{"maxInputBytes": 1.5}"#,
                "`maxInputBytes` is not a whole number",
            ),
            (r#"{"now": 5}"#, "`now` is not a string"),
            // Only fit places a manifest in a namespace.
            (r#"{"namespace": "ml"}"#, "unknown field `namespace`"),
            ("[1]", "expected an object"),
        ] {
            let e = Parsed::new(POD, bad).err().expect(bad);
            assert_eq!(e.code, "usage", "{bad}");
            assert!(e.message.contains(why), "{bad}: {}", e.message);
        }
        assert!(Parsed::new(POD, r#"{"now": null, "maxDepth": 64}"#).is_ok());
        assert_eq!(Parsed::new("{", "").err().unwrap().code, "parse");
        assert_eq!(
            Parsed::from_utf8(POD.as_bytes(), now)
                .unwrap()
                .diagnose("")
                .unwrap(),
            diagnose(POD, "", now).unwrap()
        );
        let not_utf8 = Parsed::from_utf8(b"{\"kind\": \"\xff\"}", "")
            .err()
            .unwrap();
        assert_eq!(not_utf8.code, "parse");
        assert!(
            not_utf8.message.contains("not UTF-8"),
            "{}",
            not_utf8.message
        );
        assert_eq!(
            Parsed::new(POD, r#"{"maxInputBytes": 5}"#)
                .err()
                .unwrap()
                .code,
            "input-too-large"
        );
        let o: serde_json::Value = serde_json::from_str(
            &b.object(r#"{"kind":"Pod","namespace":"ml","name":"p"}"#)
                .unwrap(),
        )
        .unwrap();
        assert_eq!(o["metadata"]["name"], "p");
    }

    #[test]
    fn fits_a_manifest_and_refuses_one_without_work() {
        let node = r#"{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"},"status":{"allocatable":{"cpu":"8","memory":"32Gi","nvidia.com/gpu":"4"}}}"#;
        let pod = r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"i","resources":{"limits":{"nvidia.com/gpu":"2"}}}]}}"#;
        let out: serde_json::Value =
            serde_json::from_str(&fit(node, pod, r#"{"namespace":"ml"}"#).unwrap()).unwrap();
        assert_eq!(out[0]["target"]["status"], "NotSubmitted");
        assert_eq!(out[0]["target"]["namespace"], "ml");
        assert_eq!(out[0]["verdict"]["state"], "ok");
        let big = pod.replace("\"2\"", "\"8\"");
        let out: serde_json::Value = serde_json::from_str(&fit(node, &big, "").unwrap()).unwrap();
        assert_eq!(out[0]["verdict"]["outlook"], "never");
        let cm = r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"}}"#;
        assert_eq!(fit(node, cm, "").unwrap_err().code, "manifest");
        assert!(
            fit(node, "{", "")
                .unwrap_err()
                .message
                .starts_with("manifest:")
        );
        let bogus = fit(node, pod, r#"{"bogus":1}"#).unwrap_err();
        assert_eq!(bogus.code, "usage");
        assert!(bogus.message.contains("`namespace`"), "{}", bogus.message);
        // fit reads its limits from the same options.
        assert_eq!(
            fit(node, pod, r#"{"maxInputBytes": 10}"#).unwrap_err().code,
            "input-too-large"
        );
    }

    #[test]
    fn renders_and_lists() {
        let d = diagnose(POD, "", "").unwrap();
        assert!(markdown(&d).unwrap().starts_with("### "));
        assert!(text(&d).unwrap().contains("Pod ml/p"));
        let r: Vec<serde_json::Value> = serde_json::from_str(&rules("").unwrap()).unwrap();
        assert!(r.iter().all(|x| x["id"].is_string()));
        let s: serde_json::Value = serde_json::from_str(&scan(POD, "").unwrap()).unwrap();
        assert_eq!(s["schemaVersion"], "kubectl-layer/v1");
        let t: serde_json::Value = serde_json::from_str(&targets(POD, "").unwrap()).unwrap();
        assert_eq!(t[0]["value"], "Pod/ml/p");
    }

    /// The package prints no password of a URL a bundle quotes: the diagnosis and the scan
    /// as JSON, their text and Markdown renderings, and an object shown as evidence's source
    /// (issue 38).
    #[test]
    fn no_answer_holds_the_password_of_a_url() {
        let bundle = include_str!("../../tests/scenarios/srv-dgd-nats-no-workers/bundle.json")
            .replace(
                "nats://dynamo-platform-nats",
                "nats://u:SECRET-38@dynamo-platform-nats",
            );
        let d = diagnose(&bundle, "\"DynamoGraphDeployment/llm/llama-agg\"", "").unwrap();
        // A Diagnosis handed back with the password in it (another tool's, an older one's)
        // is rendered without it too.
        let handed = d.replace(
            "nats://dynamo-platform-nats",
            "nats://u:SECRET-38@dynamo-platform-nats",
        );
        let source = r#"{"kind":"DynamoGraphDeployment","namespace":"llm","name":"llama-agg"}"#;
        let answers = [
            object(&bundle, source).unwrap(),
            scan(&bundle, "").unwrap(),
            text(&handed).unwrap(),
            markdown(&handed).unwrap(),
            d,
        ];
        for a in answers {
            assert!(!a.contains("SECRET-38"), "{a}");
            assert!(a.contains("nats://dynamo-platform-nats"), "{a}");
        }
    }
}
