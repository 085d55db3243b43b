//! What the JavaScript functions do, in plain Rust: parse the inputs, call the core, serialize
//! the answer. Errors carry the CLI's stable codes (`parse`, `input-too-large`,
//! `target-not-found`, `target-ambiguous`, `usage`, `rules`).

use layer_core::{Bundle, Engine, Index, Options, ReadLimits, TargetSpec};
use serde::Deserialize;
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
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct JsOptions {
    /// "Now" as RFC 3339.
    now: Option<String>,
    /// Refuse larger inputs (bytes).
    max_input_bytes: Option<usize>,
    /// Refuse inputs whose arrays and objects nest deeper (the CLI's `--max-depth`).
    max_depth: Option<usize>,
}

/// A target: `"Kind/namespace/name"`, `"KIND/NAME"`, `"NAME"`, or `{kind?, namespace?, name}`.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum JsTarget {
    Text(String),
    Object {
        kind: Option<String>,
        namespace: Option<String>,
        name: String,
    },
}

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

fn options(json: &str) -> Result<JsOptions, ApiError> {
    if json.trim().is_empty() || json.trim() == "null" {
        return Ok(JsOptions::default());
    }
    serde_json::from_str(json).map_err(|e| usage(format!("invalid options: {e}")))
}

/// Several inputs (files dropped together, several pastes) arrive joined by NUL, a character
/// neither JSON nor YAML text may contain; each is read on its own and merged, so JSON and YAML
/// can be mixed, and an error names the input it came from.
fn index(bundle: &str, opts: &JsOptions) -> Result<Index, ApiError> {
    let defaults = ReadLimits::default();
    let limits = ReadLimits {
        max_bytes: opts.max_input_bytes.unwrap_or(defaults.max_bytes),
        max_depth: opts.max_depth.unwrap_or(defaults.max_depth),
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
    let b = Bundle::read_all(inputs, limits).map_err(layer_core::Error::from)?;
    Ok(Index::new(b))
}

fn to_json<T: serde::Serialize>(v: &T) -> Result<String, ApiError> {
    serde_json::to_string(v).map_err(|e| ApiError {
        code: "internal".into(),
        message: e.to_string(),
    })
}

/// `diagnose(bundle, target?, options?)`.
pub fn diagnose(bundle: &str, target: &str, options_json: &str) -> Result<String, ApiError> {
    let opts = options(options_json)?;
    let target: Option<JsTarget> = if target.trim().is_empty() {
        None
    } else {
        serde_json::from_str(target).map_err(|e| usage(format!("invalid target: {e}")))?
    };
    let ix = index(bundle, &opts)?;
    let core_opts = Options {
        now: opts.now,
        ..Options::default()
    };
    let d = match target {
        None => layer_core::diagnose_first(engine()?, &ix, &core_opts)
            .map_err(layer_core::Error::from)?,
        Some(t) => {
            let spec = match t {
                JsTarget::Text(s) => TargetSpec::parse(&s, None),
                JsTarget::Object {
                    kind,
                    namespace,
                    name,
                } => TargetSpec {
                    kind,
                    namespace: namespace.filter(|n| !n.is_empty()),
                    name,
                },
            };
            layer_core::diagnose(engine()?, &ix, &spec, &core_opts)
                .map_err(layer_core::Error::from)?
        }
    };
    to_json(&d)
}

/// `scan(bundle, options?)`.
pub fn scan(bundle: &str, options_json: &str) -> Result<String, ApiError> {
    let opts = options(options_json)?;
    let ix = index(bundle, &opts)?;
    to_json(&layer_core::scan(
        engine()?,
        &ix,
        &Options {
            now: opts.now,
            ..Options::default()
        },
    ))
}

/// `targets(bundle)`.
pub fn targets(bundle: &str, options_json: &str) -> Result<String, ApiError> {
    let opts = options(options_json)?;
    let ix = index(bundle, &opts)?;
    to_json(&layer_core::targets(&ix))
}

/// `rules()`.
pub fn rules() -> Result<String, ApiError> {
    let infos: Vec<_> = engine()?
        .rules()
        .iter()
        .map(layer_core::render::rule_info)
        .collect();
    to_json(&infos)
}

/// `object(bundle, ref)`: one object of the bundle as JSON (the evidence's source), found by
/// `{apiVersion?, kind, namespace?, name}`.
pub fn object(bundle: &str, reference: &str) -> Result<String, ApiError> {
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Ref {
        api_version: Option<String>,
        kind: String,
        namespace: Option<String>,
        name: String,
    }
    let r: Ref = serde_json::from_str(reference)
        .map_err(|e| usage(format!("invalid object reference: {e}")))?;
    let ix = index(bundle, &JsOptions::default())?;
    let ns = r.namespace.as_deref().filter(|n| !n.is_empty());
    let id = match &r.api_version {
        Some(av) => ix.get(layer_core::bundle::group_of(av), &r.kind, ns, &r.name),
        None => ix.find(&r.kind, ns, &r.name),
    };
    let id = id.ok_or_else(|| ApiError {
        code: "target-not-found".into(),
        message: format!("{} {} is not in the bundle", r.kind, r.name),
    })?;
    to_json(&ix.value(id))
}

fn parse_diagnosis(json: &str) -> Result<layer_core::Diagnosis, ApiError> {
    serde_json::from_str(json).map_err(|e| usage(format!("not a Diagnosis: {e}")))
}

/// `markdown(diagnosis)`.
pub fn markdown(diagnosis: &str) -> Result<String, ApiError> {
    Ok(layer_core::render::markdown(&parse_diagnosis(diagnosis)?))
}

/// `text(diagnosis)`.
pub fn text(diagnosis: &str) -> Result<String, ApiError> {
    Ok(layer_core::render::text(
        &parse_diagnosis(diagnosis)?,
        layer_core::render::Style { color: false },
    ))
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

    #[test]
    fn renders_and_lists() {
        let d = diagnose(POD, "", "").unwrap();
        assert!(markdown(&d).unwrap().starts_with("### "));
        assert!(text(&d).unwrap().contains("Pod ml/p"));
        let r: Vec<serde_json::Value> = serde_json::from_str(&rules().unwrap()).unwrap();
        assert!(r.iter().all(|x| x["id"].is_string()));
        let s: serde_json::Value = serde_json::from_str(&scan(POD, "").unwrap()).unwrap();
        assert_eq!(s["schemaVersion"], "kubectl-layer/v1");
        let t: serde_json::Value = serde_json::from_str(&targets(POD, "").unwrap()).unwrap();
        assert_eq!(t[0]["value"], "Pod/ml/p");
    }
}
