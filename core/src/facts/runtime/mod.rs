//! Facts of the runtime layer, at `$.facts.runtime`.
//!
//! Every field is documented on [`RuntimeFacts`] and its parts, from which `docs/view.md` and the
//! schema rule paths are checked against are generated.

use super::Ctx;
use crate::json::At as _;
use crate::pattern::Pattern;
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeSet;
use std::sync::LazyLock;

mod silence;
pub use silence::KubeletSilence;

static RC_NOT_FOUND: LazyLock<Pattern> =
    LazyLock::new(|| Pattern::new(r#"RuntimeClass "([^"]+)" not found"#).expect("static pattern"));

/// What the runtime layer shows of the work: the pods its controllers could not create, and the
/// view's pod's containers.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct RuntimeFacts {
    /// Pods a controller could not create: `FailedCreate` Warning events on the target and the
    /// controllers below it (a Deployment's ReplicaSets, a JobSet's Jobs), and `ReplicaFailure`
    /// conditions (reason `FailedCreate`) on them.
    pub create_failures: Vec<CreateFailure>,
    /// Pods the gang's other members could not create, while the view's pods wait for that gang:
    /// Grove's `ERR_CREATE_POD` (or `FailedCreate`) Warning events on the PodCliques of the
    /// pod's PodGang (`<podgang>-<clique>`), when the PodGang is not in the bundle. Grove makes
    /// the gang only once every clique has its pods, so one clique's rejection holds them all.
    pub gang_create_failures: Vec<CreateFailure>,
    /// The distinct RuntimeClass names of those rejections that the bundle holds no
    /// RuntimeClass object for.
    pub missing_runtime_classes: Vec<String>,
    /// How many pods exist below the target.
    pub pods_created: usize,
    /// Each container of the view's pod, init containers first.
    pub containers: Vec<Container>,
    /// The first line starting at `nvidia-container-cli:` in the pod's container statuses or
    /// its events: the NVIDIA container runtime hook's own error.
    pub hook_error: Option<String>,
    /// Likewise from `unresolvable CDI devices` (a CDI device name that no CDI spec on the node
    /// defines), without a trailing `: unknown`.
    pub cdi_error: Option<String>,
    /// A server run as a plain init container: the view's pod's first init container without
    /// `restartPolicy: Always` that declares container ports and is running while the pod is
    /// not initialized. Init containers must exit before the next starts; a proxy or server
    /// there never does, so the pod's own containers never start. Null otherwise.
    pub server_init: Option<ServerInit>,
    /// The view's pod placed on a node that has said nothing about starting it (its containers
    /// wait to be created, no event after the scheduler's); null otherwise.
    pub kubelet_silent: Option<KubeletSilence>,
    /// The RuntimeClass the view's pod names (`spec.runtimeClassName`); null when it names
    /// none.
    pub runtime_class: Option<PodRuntimeClass>,
}

/// An init container that serves on ports and so never exits.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ServerInit {
    pub name: String,
    pub image: String,
    /// The ports it declares.
    pub ports: Vec<u64>,
    /// The component that injects a container of that name (rules/components.yaml
    /// `containers`), and its layer; null when none does.
    pub component: Option<String>,
    pub component_layer: Option<crate::Layer>,
}

/// The RuntimeClass a pod names, against the bundle.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct PodRuntimeClass {
    /// Its name.
    pub name: String,
    /// The bundle holds it.
    pub exists: bool,
    /// Its `handler`: the runtime the nodes' containerd or CRI-O must be configured with.
    pub handler: Option<String>,
    /// How many RuntimeClasses the bundle holds: with some, an absent one was read and is not
    /// there.
    pub in_bundle: usize,
    /// Nodes that report their runtime handlers (`status.runtimeHandlers`), and those of them
    /// without this handler.
    pub nodes_reporting_handlers: usize,
    pub nodes_without_handler: Vec<String>,
    /// Some node reports its handlers, and none of them has this one.
    pub handler_on_no_node: bool,
}

/// One controller's failure to create pods.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct CreateFailure {
    /// `Kind/name` of the controller.
    pub object: String,
    pub kind: String,
    pub name: String,
    /// `event` or `condition`.
    pub source: String,
    pub message: String,
    /// The event's count (1 for a condition).
    pub count: u64,
    /// The RuntimeClass named by a `pod rejected: RuntimeClass "<rc>" not found` admission
    /// error.
    pub runtime_class: Option<String>,
}

/// One container's state, as the runtime left it.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Container {
    /// The container's name as its status gives it.
    pub name: Value,
    /// An init container.
    pub init: bool,
    pub waiting_reason: Option<String>,
    /// Cut at 400 characters.
    pub waiting_message: String,
    pub restarts: u64,
    /// Of the last termination (`lastState.terminated`, else `state.terminated`).
    pub last_exit_code: Option<i64>,
    pub last_reason: Option<String>,
    /// Cut at 400 characters.
    pub last_message: String,
    /// Reads like `exit code 137 (OOMKilled)`; empty without a termination.
    pub summary: String,
}

/// The runtime layer's facts for one view.
pub fn facts(ctx: &Ctx) -> RuntimeFacts {
    let ix = ctx.ix;
    // The target and the controllers below it (two levels: Deployment → ReplicaSet, JobSet → Job).
    let mut objs = vec![ctx.target];
    for &c in ix.children(ctx.target) {
        if ix.object(c).kind() != "Pod" {
            objs.push(c);
            for &g in ix.children(c) {
                if ix.object(g).kind() != "Pod" {
                    objs.push(g);
                }
            }
        }
    }
    let mut failures = Vec::new();
    let mut push = |kind: &str, name: &str, source: &str, message: &str, count: u64| {
        let rc = RC_NOT_FOUND.captures(message).map(|c| c[1].to_string());
        failures.push(CreateFailure {
            object: format!("{kind}/{name}"),
            kind: kind.to_string(),
            name: name.to_string(),
            source: source.to_string(),
            message: message.to_string(),
            count,
            runtime_class: rc,
        });
    };
    for &o in &objs {
        let obj = ix.object(o);
        for (_, ev) in ctx.events_about(o).iter().rev() {
            if ev.reason == "FailedCreate" && ev.type_ == "Warning" {
                push(obj.kind(), &obj.name, "event", &ev.message, ev.count.max(1));
                break;
            }
        }
        let v = ctx.value(o);
        for c in v
            .at("/status/conditions")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if c["type"] == "ReplicaFailure" && c["status"] == "True" {
                let msg = c["message"].as_str().unwrap_or("");
                push(obj.kind(), &obj.name, "condition", msg, 1);
            }
        }
    }
    let gang_failures = gang_create_failures(ctx);
    // The work's own rejections and its gang's, one way: each RuntimeClass named and absent.
    let missing: BTreeSet<String> = failures
        .iter()
        .chain(&gang_failures)
        .filter_map(|f| f.runtime_class.clone())
        .filter(|r| ix.get("node.k8s.io", "RuntimeClass", None, r).is_none())
        .collect();
    let (containers, hook, cdi) =
        ctx.pod
            .map(|p| containers(ctx, p))
            .unwrap_or((Vec::new(), None, None));
    RuntimeFacts {
        runtime_class: runtime_class(ctx),
        containers,
        hook_error: hook,
        cdi_error: cdi,
        create_failures: failures,
        gang_create_failures: gang_failures,
        server_init: ctx.pod_value().and_then(|pv| server_init(&pv)),
        kubelet_silent: silence::kubelet_silence(ctx),
        missing_runtime_classes: missing.into_iter().collect(),
        pods_created: ix.descendant_pods(ctx.target).len(),
    }
}

/// The RuntimeClass the pod names, whether the bundle holds it, and which nodes report its
/// handler.
fn runtime_class(ctx: &Ctx) -> Option<PodRuntimeClass> {
    let ix = ctx.ix;
    let pv = ctx.pod_value()?;
    let name = pv
        .at("/spec/runtimeClassName")
        .and_then(Value::as_str)
        .filter(|n| !n.is_empty())?;
    let rc = ix
        .get("node.k8s.io", "RuntimeClass", None, name)
        .map(|id| ix.value(id));
    let handler = rc
        .as_ref()
        .and_then(|v| v.get("handler"))
        .and_then(Value::as_str)
        .map(str::to_string);
    let in_bundle = ix
        .of_kind("RuntimeClass")
        .iter()
        .filter(|&&id| ix.object(id).group() == "node.k8s.io")
        .count();
    let (mut reporting, mut without) = (0, Vec::new());
    if let Some(h) = &handler {
        // Nodes report their handlers from Kubernetes 1.30; read once per index.
        let handlers = ix.once("runtime.nodeHandlers", || {
            ix.of_kind("Node")
                .iter()
                .filter_map(|&id| {
                    let v = ix.value(id);
                    let hs: Vec<String> = v
                        .at("/status/runtimeHandlers")?
                        .as_array()?
                        .iter()
                        .filter_map(|x| x["name"].as_str().map(str::to_string))
                        .collect();
                    Some((ix.object(id).name.clone(), hs))
                })
                .collect::<Vec<(String, Vec<String>)>>()
        });
        reporting = handlers.len();
        without = handlers
            .iter()
            .filter(|(_, hs)| !hs.contains(h))
            .map(|(n, _)| n.clone())
            .collect();
    }
    Some(PodRuntimeClass {
        name: name.to_string(),
        exists: rc.is_some(),
        handler,
        in_bundle,
        nodes_reporting_handlers: reporting,
        handler_on_no_node: reporting > 0 && without.len() == reporting,
        nodes_without_handler: without,
    })
}

fn cut(s: &str) -> String {
    let s = s.trim();
    match s.char_indices().nth(400) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

/// The NVIDIA hook's error line in a text, if any.
fn hook_line(s: &str) -> Option<String> {
    from_marker(s, "nvidia-container-cli:")
}

/// A CDI resolution error in a text, if any.
fn cdi_line(s: &str) -> Option<String> {
    from_marker(s, "unresolvable CDI devices")
}

fn from_marker(s: &str, marker: &str) -> Option<String> {
    let i = s.find(marker)?;
    let line = s[i..].lines().next().unwrap_or("").trim();
    Some(line.trim_end_matches(": unknown").to_string())
}

type ContainerFacts = (Vec<Container>, Option<String>, Option<String>);

fn containers(ctx: &Ctx, pod: crate::index::ObjId) -> ContainerFacts {
    let pv = ctx.value(pod);
    let mut out = Vec::new();
    let mut hook = None;
    let mut cdi = None;
    for (key, init) in [
        ("initContainerStatuses", true),
        ("containerStatuses", false),
    ] {
        for c in pv
            .at(&format!("/status/{key}"))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let waiting = c.at("/state/waiting");
            let last = c
                .at("/lastState/terminated")
                .or_else(|| c.at("/state/terminated"));
            let code = last.and_then(|t| t["exitCode"].as_i64());
            let reason = last.and_then(|t| t["reason"].as_str());
            let lmsg = last.and_then(|t| t["message"].as_str()).unwrap_or("");
            let wmsg = waiting.and_then(|w| w["message"].as_str()).unwrap_or("");
            if hook.is_none() {
                hook = hook_line(lmsg).or_else(|| hook_line(wmsg));
            }
            if cdi.is_none() {
                cdi = cdi_line(lmsg).or_else(|| cdi_line(wmsg));
            }
            let summary = match (code, reason) {
                (Some(c), Some(r)) => crate::facts::texts::say(
                    "exitCodeReason",
                    &[
                        ("code", Value::from(c.to_string())),
                        ("reason", Value::from(r)),
                    ],
                ),
                (Some(c), None) => {
                    crate::facts::texts::say("exitCode", &[("code", Value::from(c.to_string()))])
                }
                _ => String::new(),
            };
            out.push(Container {
                name: c["name"].clone(),
                init,
                waiting_reason: waiting
                    .and_then(|w| w["reason"].as_str())
                    .map(str::to_string),
                waiting_message: cut(wmsg),
                restarts: c["restartCount"].as_u64().unwrap_or(0),
                last_exit_code: code,
                last_reason: reason.map(str::to_string),
                last_message: cut(lmsg),
                summary,
            });
        }
    }
    let about = ctx.events_about(pod);
    let events: Vec<&crate::index::EventInfo> = about.iter().rev().map(|(_, e)| e).collect();
    if hook.is_none() {
        hook = events.iter().find_map(|e| hook_line(&e.message));
    }
    if cdi.is_none() {
        cdi = events.iter().find_map(|e| cdi_line(&e.message));
    }
    (out, hook, cdi)
}

/// Grove's reasons for a pod it could not create, and the API server's controllers' own.
const GANG_CREATE_REASONS: &[&str] = &["ERR_CREATE_POD", "FailedCreate"];

/// [`RuntimeFacts::gang_create_failures`]: only for a pod that names a Grove PodGang the bundle
/// does not hold, so the events are searched only when the gang is in doubt.
fn gang_create_failures(ctx: &Ctx) -> Vec<CreateFailure> {
    let ix = ctx.ix;
    let Some(pod) = ctx.pod_value() else {
        return Vec::new();
    };
    let Some(gang) = crate::json::label(&pod, "grove.io/podgang") else {
        return Vec::new();
    };
    // Only while Grove's gate still holds the pod: past it, the gang was made.
    if !crate::gates::on_pod(&pod).any(|g| g == "grove.io/podgang-pending-creation") {
        return Vec::new();
    }
    let ns = pod.at("/metadata/namespace").and_then(Value::as_str);
    if ix.get("scheduler.grove.io", "PodGang", ns, gang).is_some() {
        return Vec::new();
    }
    let prefix = format!("{gang}-");
    let mut out: Vec<CreateFailure> = ix
        .event_ids()
        .filter_map(|e| ix.event(e))
        .filter(|e| {
            e.type_ == "Warning"
                && e.involved_kind == "PodClique"
                && e.involved_namespace.as_deref() == ns
                && e.involved_name.starts_with(&prefix)
                && GANG_CREATE_REASONS.contains(&e.reason.as_str())
        })
        .map(|e| CreateFailure {
            object: format!("PodClique/{}", e.involved_name),
            kind: "PodClique".into(),
            name: e.involved_name.clone(),
            source: "event".into(),
            runtime_class: RC_NOT_FOUND.captures(&e.message).map(|c| c[1].to_string()),
            message: e.message,
            count: e.count.max(1),
        })
        .collect();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    // One event of each clique is enough: its retries repeat the same refusal.
    out.dedup_by(|a, b| a.name == b.name);
    out
}

/// [`RuntimeFacts::server_init`] of a pod.
fn server_init(pv: &Value) -> Option<ServerInit> {
    let initialized = pv
        .at("/status/conditions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .any(|c| c["type"] == "Initialized" && c["status"] == "True");
    if initialized {
        return None;
    }
    let running = |name: &str| {
        pv.at("/status/initContainerStatuses")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .any(|s| s["name"] == name && s.at("/state/running").is_some())
    };
    pv.at("/spec/initContainers")
        .and_then(Value::as_array)?
        .iter()
        .filter(|c| c["restartPolicy"] != "Always")
        .find_map(|c| {
            let name = c["name"].as_str()?;
            let ports: Vec<u64> = c["ports"]
                .as_array()?
                .iter()
                .filter_map(|p| p["containerPort"].as_u64())
                .collect();
            if ports.is_empty() || !running(name) {
                return None;
            }
            let component = crate::components::by_container(name);
            Some(ServerInit {
                name: name.to_string(),
                image: c["image"].as_str().unwrap_or("").to_string(),
                ports,
                component: component.map(|c| c.id.clone()),
                component_layer: component.map(|c| c.layer),
            })
        })
}
