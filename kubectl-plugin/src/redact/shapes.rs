//! Redaction by shape: every field of an object is judged by its name and its value, wherever
//! it is nested, never by the object's kind. A pod template sits at a different path in every
//! custom resource (a JobSet's `replicatedJobs[].template.spec.template`, an LWS's
//! `leaderWorkerTemplate`, a RayJob's `rayClusterSpec`, a KServe predictor, a Dynamo service's
//! `extraPodSpec`), so a list of kinds and paths always misses the next one; a field named
//! `env`, `args` or `annotations` is the same thing in all of them.
//!
//! The shapes, and what goes (labels and selectors, `labels`, `…Labels`, `selector`,
//! `…Selector`, stay whole: the diagnosis matches them, and they are no place for a secret):
//! - annotations (`annotations`, `…Annotations`, any map under such a name): a copy of an
//!   applied configuration goes whole ([`holds_configuration`]); other values outside the
//!   domains rules read are replaced.
//! - environment (`env`, `envs`, `env_vars`, `envVars`, `extraEnv`, `environment`, …), as a
//!   list of `{name, value}`, a list of `KEY=value`, or a map: values go, names and
//!   `valueFrom` references stay, except [`ENV_KEPT`].
//! - arguments (`args`, `command` lists; `args`, `command`, `cmd`, `entrypoint` strings, which
//!   are split into words): see [`arguments`].
//! - a runtime environment given as text (`runtimeEnv…`, `…YAML`, `serveConfigV2`): read as
//!   YAML and redacted by these same shapes; text that is no map goes whole.
//! - `httpHeaders` values; termination messages in any list of container statuses, except
//!   the runtime's own ([`RUNTIME_REASONS`]); `managedFields`.

use super::REDACTED;
use layer_core::facts::drift;
use serde_json::{Map, Value};

/// Environment variables whose values rules read (not secrets: a namespace name, which event
/// plane Dynamo uses). `NATS_SERVER` is kept without the user and password a URL may carry
/// (every URL of a redacted object loses them).
const ENV_KEPT: &[&str] = &[
    "RESOURCE_RESERVATION_NAMESPACE",
    "DYN_EVENT_PLANE",
    "DYN_REQUEST_PLANE",
    "NATS_SERVER",
];

/// Flags whose values the serving facts read in a container's arguments (which plane Dynamo's
/// events use); every other argument value is replaced, except a router's discovery selector
/// and namespace, which the component registry names ([`kept`]).
const ARGS_KEPT: &[&str] = &["--event-plane", "--kv-events-config"];

/// Whether a flag's value is kept: [`ARGS_KEPT`], an endpoint picker's pool arguments, or a
/// router's selector or namespace argument or a device plugin's resource argument in the
/// component registry (label selectors and names, no secrets).
fn kept(flag: &str) -> bool {
    ARGS_KEPT.contains(&flag)
        || layer_core::facts::serving::PICKER_ARGS
            .iter()
            .any(|set| set.contains(&flag))
        || layer_core::components::registry().iter().any(|c| {
            [&c.selector_arg, &c.namespace_arg, &c.resource_arg]
                .iter()
                .any(|a| a.as_deref() == Some(flag))
        })
}

/// Termination reasons the kubelet writes when the container never ran: its message is the
/// runtime's error (the device hook's, CDI's), which rules read, not the container's output.
const RUNTIME_REASONS: &[&str] = &["StartError", "ContainerCannotRun"];

/// Annotation key prefixes (domains) whose values rules read; every other annotation value is
/// replaced.
const ANNOTATION_DOMAINS: &[&str] = &[
    "kueue.x-k8s.io/",
    "jobset.sigs.k8s.io/",
    "alpha.jobset.sigs.k8s.io/",
    "leaderworkerset.sigs.k8s.io/",
    "scheduling.k8s.io/",
    "scheduling.x-k8s.io/",
    "scheduling.run.ai/",
    "run.ai/",
    "kai.scheduler/",
    "volcano.sh/",
    "scheduling.volcano.sh/",
    "batch.kubernetes.io/",
    "deployment.kubernetes.io/",
    "cluster-autoscaler.kubernetes.io/",
    "autoscaling.x-k8s.io/",
    "karpenter.sh/",
    "nvidia.com/",
    "grove.io/",
    "objectset.rio.cattle.io/",
    "resource.kubernetes.io/",
    "node.alpha.kubernetes.io/",
    "volume.kubernetes.io/",
    "pv.kubernetes.io/",
    "helm.sh/",
    "meta.helm.sh/",
];
/// Annotation keys without a domain that rules read (KAI's pod group link).
const ANNOTATION_KEYS: &[&str] = &["pod-group-name", "gpu-fraction", "gpu-memory"];

/// Every field of `v`, at any depth, redacted by its shape.
pub(super) fn walk(v: &mut Value) {
    match v {
        Value::Object(m) => {
            m.remove("managedFields");
            for (k, child) in m.iter_mut() {
                field(k, child);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(walk),
        _ => {}
    }
}

/// One member `k` of an object, by its name and the shape of its value.
fn field(k: &str, child: &mut Value) {
    match (k, child) {
        // Labels and selectors are names the diagnosis matches (`env: prod` on a node and in
        // a pod's nodeSelector): kept whole, never read as environment.
        (k, _) if is_labels(k) => {}
        (k, Value::Object(a)) if is_annotations(k) => annotations(a),
        (k, Value::String(s)) if is_runtime_env_text(k) => *s = runtime_env(s),
        (k, child) if is_env(k) && !is_runtime_env_text(k) => env(child),
        ("args" | "command", Value::Array(items)) => arguments(items),
        ("args" | "command" | "cmd" | "entrypoint", Value::String(s)) => *s = command_line(s),
        ("httpHeaders", Value::Array(items)) => items.iter_mut().for_each(|h| {
            if let Some(val) = h.get_mut("value") {
                *val = Value::String(REDACTED.into());
            }
        }),
        (
            "containerStatuses" | "initContainerStatuses" | "ephemeralContainerStatuses",
            Value::Array(items),
        ) => items.iter_mut().for_each(termination_messages),
        (_, child) => walk(child),
    }
}

fn is_labels(k: &str) -> bool {
    k == "labels" || k.ends_with("Labels") || k == "selector" || k.ends_with("Selector")
}

fn is_annotations(k: &str) -> bool {
    k == "annotations" || k.ends_with("Annotations")
}

/// A name for environment variables: `env`, `envs`, `env_vars`, `envVars`, `environment` and
/// any name ending so (`extraEnv`, `podEnvVars`).
fn is_env(k: &str) -> bool {
    // Asked of every member of every object: no copy of the name.
    let ends = |e: &str| {
        k.len() >= e.len()
            && k.is_char_boundary(k.len() - e.len())
            && k[k.len() - e.len()..].eq_ignore_ascii_case(e)
    };
    ["env", "envs", "env_vars", "envvars", "environment"]
        .into_iter()
        .any(ends)
}

/// A runtime environment or a configuration written as text: RayJob's `runtimeEnvYAML` (and
/// the older `runtimeEnv`, base64), RayService's `serveConfigV2`, any `…YAML` field.
fn is_runtime_env_text(k: &str) -> bool {
    k.starts_with("runtimeEnv") || k.ends_with("YAML") || k == "serveConfigV2"
}

/// A runtime environment's text, read as YAML and redacted by these same shapes (its
/// `env_vars`, its entrypoints), written back as YAML; anything else goes whole. Text with
/// an anchor (`&`) goes whole too: its aliases could expand without bound.
fn runtime_env(text: &str) -> String {
    if text.contains('&') {
        return REDACTED.into();
    }
    match serde_yaml_ng::from_str::<Value>(text) {
        Ok(mut v @ Value::Object(_)) => {
            walk(&mut v);
            serde_yaml_ng::to_string(&v).unwrap_or_else(|_| REDACTED.into())
        }
        _ => REDACTED.into(),
    }
}

/// Environment as a list of `{name, value}` or of `KEY=value`, or as a map of names to values
/// (or to `{value}`/`{valueFrom}`): values go, names and references stay, except
/// [`ENV_KEPT`]. Anything else under such a name goes whole.
fn env(v: &mut Value) {
    match v {
        Value::Array(items) => items.iter_mut().for_each(|item| match item {
            Value::Object(o) => {
                let name = o
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string();
                if let Some(val) = o.get_mut("value") {
                    env_value(&name, val);
                }
            }
            Value::String(s) => match s.split_once('=') {
                Some((name, _)) if ENV_KEPT.contains(&name) => {}
                Some((name, _)) => *s = format!("{name}={REDACTED}"),
                None => *s = REDACTED.into(),
            },
            other => *other = Value::String(REDACTED.into()),
        }),
        Value::Object(m) => m.iter_mut().for_each(|(name, val)| env_value(name, val)),
        Value::Null => {}
        other => *other = Value::String(REDACTED.into()),
    }
}

/// One variable's value: a `{value}` object loses its value, keeps its `valueFrom`.
fn env_value(name: &str, val: &mut Value) {
    if ENV_KEPT.contains(&name) {
        return;
    }
    match val {
        Value::Object(o) => {
            if let Some(x) = o.get_mut("value") {
                *x = Value::String(REDACTED.into());
            }
        }
        Value::Null => {}
        other => *other = Value::String(REDACTED.into()),
    }
}

/// One argument, by its shape.
enum Arg<'a> {
    /// `--name` (no value) or `--name=value`: `name` is the flag with its dashes.
    Long(&'a str, Option<&'a str>),
    /// `-x`, or `-xVALUE` with a value glued to the letter (`-pSECRET`, `-uuser:pass`,
    /// `-HAuthorization:…`, `-Dkey=value`): the flag is `-x`.
    Short(&'a str, &'a str),
    /// Anything else: a value, a script, a program, a number (`-1`).
    Value,
}

fn arg(a: &str) -> Arg<'_> {
    let word = |w: &str| {
        w.len() <= 64
            && w.starts_with(|c: char| c.is_ascii_alphanumeric())
            && w.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
    };
    if let Some(rest) = a.strip_prefix("--") {
        let name = rest.split_once('=').map_or(rest, |(n, _)| n);
        if word(name) {
            let value = rest.split_once('=').map(|(_, v)| v);
            return Arg::Long(&a[..2 + name.len()], value);
        }
        return Arg::Value;
    }
    match a.strip_prefix('-').and_then(|r| r.chars().next()) {
        Some(c) if c.is_ascii_alphabetic() => Arg::Short(&a[..2], &a[2..]),
        _ => Arg::Value,
    }
}

/// One argument list: a flag's name stays, every value goes, except the values of
/// [`kept`] flags. `--flag=value` keeps `--flag=`; `-xVALUE` keeps `-x`. After a flag without
/// a value of its own, which may take the next argument as its value, that argument is a
/// value unless it is a long flag: `--password -s3cret` loses `-s3cret` whole. (A value
/// shaped exactly like a long flag, `--password --word`, cannot be told from the next flag.)
fn arguments(items: &mut [Value]) {
    let mut keep_next = false;
    let mut after_bare_flag = false;
    for item in items.iter_mut() {
        let Value::String(a) = item else {
            *item = Value::String(REDACTED.into());
            continue;
        };
        if std::mem::take(&mut keep_next) {
            after_bare_flag = false;
            continue;
        }
        let (shown, bare) = match arg(a) {
            Arg::Long(name, None) => {
                keep_next = kept(name);
                (None, true)
            }
            Arg::Long(name, Some(_)) if kept(name) => (None, false),
            Arg::Long(name, Some(_)) => (Some(format!("{name}={REDACTED}")), false),
            Arg::Short(_, "") if !after_bare_flag => (None, true),
            Arg::Short(name, _) if !after_bare_flag => (Some(format!("{name}{REDACTED}")), false),
            _ => (Some(REDACTED.to_string()), false),
        };
        if let Some(shown) = shown {
            *a = shown;
        }
        after_bare_flag = bare;
    }
}

/// A command line given as one string (a RayJob's `entrypoint`, a CRD's `command: "…"`): its
/// words redacted as an argument list is ([`arguments`]), joined by spaces.
fn command_line(s: &str) -> String {
    let mut words: Vec<Value> = s
        .split_whitespace()
        .map(|w| Value::String(w.into()))
        .collect();
    arguments(&mut words);
    let words: Vec<&str> = words.iter().filter_map(Value::as_str).collect();
    words.join(" ")
}

/// A container status's termination messages, except those the runtime wrote
/// ([`RUNTIME_REASONS`]): any container can write its own (its last log lines, a token it
/// printed).
fn termination_messages(cs: &mut Value) {
    for state in ["state", "lastState"] {
        let Some(t) = cs.get_mut(state).and_then(|s| s.get_mut("terminated")) else {
            continue;
        };
        let by_runtime = t["reason"]
            .as_str()
            .is_some_and(|r| RUNTIME_REASONS.contains(&r));
        if let Some(m) = t.get_mut("message").filter(|_| !by_runtime) {
            *m = Value::String(REDACTED.into());
        }
    }
}

/// An annotation map: copies of an applied configuration go whole, values outside the domains
/// rules read are replaced.
fn annotations(a: &mut Map<String, Value>) {
    // kubectl's copy keeps what the pruned-request check reads (the branches that name a
    // device), so redaction does not change that verdict; the rest of it goes.
    let skeleton = a
        .get(drift::LAST_APPLIED)
        .and_then(Value::as_str)
        .and_then(drift::device_skeleton);
    a.retain(|k, v| !holds_configuration(k, v));
    for (k, val) in a.iter_mut() {
        let kept = ANNOTATION_KEYS.contains(&k.as_str())
            || ANNOTATION_DOMAINS.iter().any(|d| in_domain(k, d));
        if !kept {
            *val = Value::String(REDACTED.into());
        }
    }
    if let Some(s) = skeleton {
        a.insert(drift::LAST_APPLIED.into(), Value::String(s));
    }
}

/// Whether an annotation holds a copy of an object's configuration, as tools that apply
/// manifests keep one (it can hold a whole earlier manifest, Secrets included), in whatever
/// domain: its name (after the `/`) says `applied` or `original`
/// (`kubectl.kubernetes.io/last-applied-configuration`, k3s's `objectset.rio.cattle.io/applied`,
/// kapp's `kapp.k14s.io/original`), or its value is a manifest: text naming both `apiVersion`
/// and `kind`, or gzip in base64 (`H4sI…`, as k3s writes it).
fn holds_configuration(key: &str, value: &Value) -> bool {
    let name = key.rsplit('/').next().unwrap_or(key).to_ascii_lowercase();
    let text = value.as_str().unwrap_or("");
    name.contains("applied")
        || name.contains("original")
        || text.trim_start().starts_with("H4sI")
        || (text.contains("apiVersion") && text.contains("kind"))
}

/// Whether an annotation key is in a domain or one of its subdomains: `nvidia.com/x` and
/// `gpu.nvidia.com/x` are, `evilnvidia.com/x` is not (a suffix is not a subdomain).
pub(super) fn in_domain(key: &str, domain: &str) -> bool {
    let domain = domain.trim_end_matches('/');
    key.split_once('/').is_some_and(|(host, _)| {
        host == domain
            || host
                .strip_suffix(domain)
                .is_some_and(|sub| sub.ends_with('.'))
    })
}
