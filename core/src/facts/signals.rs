//! The generic evidence floor, at `$.facts.signals` and `$.facts.floor`: every piece of negative
//! evidence on an object linked to the target, attributed to a layer by the one table in
//! [`crate::attribution`]. Specific rules know particular cases; this fact lets every layer
//! speak from what the bundle shows when none of them does (the `<layer>/reported-failure`
//! rules read it).
//!
//! What counts as negative evidence:
//! - a Warning event about a linked object;
//! - a condition that reports failure: `status: "False"` on a positive type ([`POSITIVE`]),
//!   `"True"` on a negative one ([`NEGATIVE`]);
//! - a KAI PodGroup's `status.schedulingConditions`;
//! - a container waiting for a reason other than creation, or terminated (now or last) with a
//!   non-zero exit code;
//! - an error field: a pod's `status.reason`/`status.message` (kubelet rejections, evictions),
//!   `status.lastErrors`, a `status.state` of `failed`/`error`.
//!
//! A signal is `current` when the work is not settled and the object it is about is part of
//! the work now: a terminal pod beside its replacement, or anything about work that runs, is
//! history, and history never blocks.

use crate::attribution::{About, KIN_LABELS, attribute};
use crate::index::{Index, ObjId};
use crate::json::At as _;
use crate::layer::Layer;
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// Condition types whose `"False"` reports failure.
pub const POSITIVE: &[&str] = &[
    "Ready",
    "Available",
    "Admitted",
    "QuotaReserved",
    "PodScheduled",
    "Accepted",
    "ResolvedRefs",
    "Programmed",
    "PodCliqueScheduled",
    "Initialized",
    "Registered",
    "Launched",
];

/// Condition types whose `"True"` reports failure.
pub const NEGATIVE: &[&str] = &[
    "Failed",
    "Stalled",
    "Evicted",
    "Preempted",
    "Degraded",
    "ReplicaFailure",
    "Unschedulable",
    "MinAvailableBreached",
    "Error",
];

/// Reasons that report a refusal whatever type the event was given: KAI-Scheduler writes its
/// `Unschedulable` on a PodGroup as a Normal event.
const FAILING_WHATEVER_TYPE: &[&str] = &["Unschedulable", "FailedScheduling"];

/// Whether an event reports a failure: a Warning, or a refusal written as Normal.
pub fn failing_event(type_: &str, reason: &str) -> bool {
    type_ == "Warning" || FAILING_WHATEVER_TYPE.contains(&reason)
}

/// Whether a status condition reports failure, in words worth quoting: `"False"` on a
/// positive type, `"True"` on a negative one, or `Unknown` on a positive type with a reason (the
/// controller could not confirm it: a NodeClaim whose node never registered). A condition with
/// neither reason nor message says only its type: too little to quote, except `Ready=False`,
/// which is the controller's own summary that the object is not done (a NodeClaim whose
/// instance never launched says nothing more).
pub fn failing_condition(c: &Value) -> bool {
    let ty = c["type"].as_str().unwrap_or("");
    let status = c["status"].as_str().unwrap_or("");
    let failing = (POSITIVE.contains(&ty)
        && (status == "False" || (status == "Unknown" && c["reason"].is_string())))
        || ((NEGATIVE.contains(&ty) || names_a_failure(ty)) && status == "True");
    let said = |k: &str| c[k].as_str().is_some_and(|t| !t.is_empty());
    failing && (said("reason") || said("message") || (ty == "Ready" && status == "False"))
}

/// A condition type that names a failed step in its last word, in any case or separator
/// (`ReconcileFailed`, `NIM_CACHE_RECONCILE_FAILED`, `DeploymentFailure`): `True` says the step
/// failed, whatever the controller's vocabulary.
fn names_a_failure(ty: &str) -> bool {
    let t = ty.to_ascii_lowercase();
    ["failed", "failure"]
        .iter()
        .any(|w| t.len() > w.len() && t.ends_with(w))
}

/// Pod conditions that only echo what the containers say (their state is read instead).
const POD_ECHOES: &[&str] = &["Ready", "ContainersReady", "Initialized"];

/// Container reasons that are steps of a normal start, not failures.
const NORMAL_WAITING: &[&str] = &["ContainerCreating", "PodInitializing"];

/// Messages are cut here: a container's termination message can be 4 KiB.
const MESSAGE_LIMIT: usize = 400;

/// At most this many linked objects are read for signals (a JobSet of 1,000 pods); the view
/// links no more than this.
pub const OBJECT_LIMIT: usize = 64;

/// Where on its object a signal was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub enum Source {
    Container,
    Condition,
    Status,
    Event,
}

/// One piece of negative evidence.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Signal {
    pub layer: Layer,
    /// The deciding component (`decidedBy`).
    pub by: String,
    /// `Kind namespace/name` of the object it is about.
    pub object: String,
    pub kind: String,
    /// The arguments `kubectl describe` takes to show the object: `[pod/x, -n, ml]`,
    /// `[node/gpu-1]` (separate words, so a command quotes each).
    pub describe: Vec<String>,
    pub source: Source,
    /// The condition type, container name or field it was read from.
    pub field: String,
    pub reason: String,
    pub message: String,
    /// `reason: message`, or the reason alone: what a finding quotes.
    pub text: String,
    pub count: u64,
    pub current: bool,
    /// The signal is about the target itself, not an object linked to it.
    pub on_target: bool,
}

/// The strongest current signal of one layer, and how many more it has.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Floor {
    #[serde(flatten)]
    pub first: Signal,
    pub more: usize,
}

/// Every signal of the linked objects, and per layer its strongest current one.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Signals {
    pub signals: Vec<Signal>,
    pub floor: BTreeMap<Layer, Floor>,
}

/// `$.facts.signals`: every signal of the work's objects.
pub fn fact(ctx: &super::Ctx) -> Vec<Signal> {
    ctx.signals().signals.clone()
}

/// `$.facts.floor`: per layer, its strongest current signal and how many more it has.
pub fn floor(ctx: &super::Ctx) -> BTreeMap<Layer, Floor> {
    ctx.signals().floor.clone()
}

/// The signals of `objects` (the view's linked objects, target first, without repeats).
/// `settled` is the target's: settled work has history, never a current signal.
pub fn signals<'v>(
    ix: &Index,
    objects: &[ObjId],
    settled: bool,
    value: &dyn Fn(ObjId) -> std::borrow::Cow<'v, Value>,
    events: &dyn Fn(ObjId) -> std::borrow::Cow<'v, [(ObjId, crate::index::EventInfo)]>,
) -> Signals {
    let mut out: Vec<Signal> = Vec::new();
    for (i, &id) in objects.iter().take(OBJECT_LIMIT).enumerate() {
        let current = !settled && !crate::facts::superseded_pod(ix, id);
        let o = ix.object(id);
        let owner = ix
            .owner_chain(id)
            .first()
            .map_or(String::new(), |&d| ix.object(d).name.to_string());
        let serves = crate::components::of(o.kind(), &o.name, &owner, &value(id));
        let on = On { current, serves };
        let first = out.len();
        read_object(ix, id, value, on, &mut out);
        let pod = value(id);
        let backoff = match restarted_after_success(&pod) {
            true => Backoff::Success,
            false => Backoff::Cause(last_failure(&pod).to_string()),
        };
        read_events(ix, id, &events(id), on, &backoff, &mut out);
        for s in &mut out[first..] {
            s.on_target = i == 0;
        }
    }
    // A pasted pod of a custom resource's work asking for a device the work does not: the
    // work's controller wrote it (facts/drift.rs), said on the work.
    if let Some((&work, rest)) = objects.split_first() {
        let unasked = rest
            .iter()
            .take(OBJECT_LIMIT)
            .filter(|&&p| ix.object(p).kind() == "Pod")
            .find_map(|&p| super::drift::pod_request_not_from_work(ix, work, p));
        if let Some(message) = unasked {
            let on = On {
                current: !settled,
                serves: None,
            };
            let first = out.len();
            let raw = Raw::status("spec", super::drift::NOT_FROM_OWNER, &message);
            push(ix, work, on, raw, &mut out);
            out[first..].iter_mut().for_each(|s| s.on_target = true);
        }
    }
    // A layer's floor quotes its strongest signal: the target's own before a linked object's,
    // then what a component wrote in words (a container's state, a condition, an event) before
    // what the numbers say (a DaemonSet short of pods).
    let mut ranked: Vec<&Signal> = out.iter().filter(|s| s.current).collect();
    ranked.sort_by_key(|s| {
        (
            !s.on_target,
            s.reason.is_empty() && s.source == Source::Status,
        )
    });
    let mut floor: BTreeMap<Layer, Floor> = BTreeMap::new();
    for s in ranked {
        match floor.get_mut(&s.layer) {
            Some(f) => f.more += 1,
            None => {
                floor.insert(
                    s.layer,
                    Floor {
                        first: s.clone(),
                        more: 0,
                    },
                );
            }
        }
    }
    Signals {
        signals: out,
        floor,
    }
}

fn cut(s: &str) -> String {
    if s.len() <= MESSAGE_LIMIT {
        return s.trim().to_string();
    }
    let mut end = MESSAGE_LIMIT;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", s[..end].trim())
}

struct Raw<'a> {
    source: Source,
    field: &'a str,
    reason: &'a str,
    message: &'a str,
    component: &'a str,
    count: u64,
    /// What the layer is read from when it is not the message itself: a container backing off
    /// is judged by why it last ended (an OCI hook that could not start it is the runtime's,
    /// whatever component the container belongs to).
    cause: &'a str,
}

impl<'a> Raw<'a> {
    /// A signal read from an object's status fields (not an event, condition or container).
    fn status(field: &'a str, reason: &'a str, message: &'a str) -> Raw<'a> {
        Raw {
            source: Source::Status,
            field,
            reason,
            message,
            component: "",
            count: 1,
            cause: "",
        }
    }
}

/// What every signal of one object shares: whether it is current, and the registry's
/// component the object is (whose failures are named by how it fails).
#[derive(Clone, Copy)]
struct On {
    current: bool,
    serves: Option<&'static crate::components::Component>,
}

fn push(ix: &Index, id: ObjId, on: On, r: Raw, out: &mut Vec<Signal>) {
    let current = on.current;
    let o = ix.object(id);
    let top = ix.owner_chain(id).last().map(|&top| ix.object(top));
    let (owner_group, owner_kind) = top.map_or(("", ""), |t| (t.group(), t.kind().as_str()));
    let about = About {
        group: o.group(),
        kind: o.kind(),
        name: &o.name,
        component: r.component,
        owner_group,
        owner_kind,
        reason: r.reason,
        message: r.message,
        field: r.field,
        // A container the serving or another layer's controller injected into the work's pod
        // fails as that component, not as the work.
        serves: on.serves.or_else(|| {
            (r.source == Source::Container)
                .then(|| crate::components::by_container(r.field))
                .flatten()
        }),
    };
    // A cause that names the runtime (a hook or the OCI runtime could not start the container)
    // decides; any other cause leaves the signal to its own words.
    let by_cause = Some(r.cause)
        .filter(|c| !c.is_empty())
        .and_then(|cause| {
            attribute(&About {
                message: cause,
                ..about
            })
        })
        .filter(|a| a.layer == Layer::Runtime);
    let Some(at) = by_cause.or_else(|| attribute(&about)) else {
        return;
    };
    let object = match &o.namespace() {
        Some(ns) => format!("{} {ns}/{}", o.kind(), o.name),
        None => format!("{} {}", o.kind(), o.name),
    };
    let message = cut(r.message);
    let text = match (r.reason.is_empty(), message.is_empty()) {
        (false, false) => format!("{}: {message}", r.reason),
        (false, true) => r.reason.to_string(),
        (true, _) => message.clone(),
    };
    if text.is_empty() {
        return;
    }
    if let Some(dup) = out
        .iter_mut()
        .find(|s| s.object == object && s.text == text)
    {
        dup.count += r.count;
        return;
    }
    let by = if r.component.is_empty() || r.source != Source::Event {
        at.by.to_string()
    } else {
        r.component.to_string()
    };
    let resource = o.kind().to_lowercase();
    let mut describe = vec![format!("{resource}/{}", o.name)];
    if let Some(ns) = &o.namespace() {
        describe.extend(["-n".to_string(), ns.to_string()]);
    }
    out.push(Signal {
        layer: at.layer,
        by,
        object,
        kind: o.kind().to_string(),
        describe,
        source: r.source,
        field: r.field.to_string(),
        reason: r.reason.to_string(),
        message,
        text,
        count: r.count.max(1),
        current,
        on_target: false,
    });
}

fn read_object<'v>(
    ix: &Index,
    id: ObjId,
    value: &dyn Fn(ObjId) -> std::borrow::Cow<'v, Value>,
    on: On,
    out: &mut Vec<Signal>,
) {
    let o = ix.object(id);
    if o.kind() == "Event" {
        return;
    }
    let v = value(id);
    let is_pod = o.kind() == "Pod" && o.group().is_empty();
    read_counts(ix, id, &v, on, out);
    if is_pod {
        read_containers(ix, id, &v, on, out);
        let reason = v.at("/status/reason").and_then(Value::as_str).unwrap_or("");
        let message = v
            .at("/status/message")
            .and_then(Value::as_str)
            .unwrap_or("");
        if !reason.is_empty() || !message.is_empty() {
            push(ix, id, on, Raw::status("status", reason, message), out);
        }
    }
    // Each gate names who holds the pod (`gates`): its own signal, in that owner's layer,
    // instead of the scheduler's `SchedulingGated` condition, which names none.
    let gates: Vec<&str> = match is_pod {
        true => crate::gates::on_pod(&v).collect(),
        false => Vec::new(),
    };
    let gated = !gates.is_empty();
    for gate in gates {
        let held = format!("{}{gate}", crate::gates::HELD_BY);
        let raw = Raw::status("schedulingGates", "SchedulingGated", &held);
        push(ix, id, on, raw, out);
    }
    // Gateway API routes and InferencePool v1 report per parent (each Gateway).
    let per_parent = v
        .at("/status/parents")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|p| p["conditions"].as_array())
        .flatten();
    for c in v
        .at("/status/conditions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .chain(per_parent)
    {
        let ty = c["type"].as_str().unwrap_or("");
        if !failing_condition(c) || (is_pod && POD_ECHOES.contains(&ty)) {
            continue;
        }
        let reason = c["reason"].as_str().unwrap_or("");
        if gated && reason == "SchedulingGated" {
            continue;
        }
        if waits_on_a_ready_child(ix, id, c["message"].as_str().unwrap_or("")) {
            continue;
        }
        // A bare `Ready=False` is still the controller's word that the object is not ready.
        let bare;
        let message = match c["message"].as_str().unwrap_or("") {
            "" if reason.is_empty() => {
                bare = format!("{ty}=False, with no reason given");
                bare.as_str()
            }
            m => m,
        };
        let raw = Raw {
            source: Source::Condition,
            field: ty,
            reason,
            message,
            component: "",
            count: 1,
            cause: "",
        };
        push(ix, id, on, raw, out);
    }
    // KAI-Scheduler writes why a PodGroup is not scheduled as a list of reasons per condition.
    for c in v
        .at("/status/schedulingConditions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let own = c["message"].is_string().then_some(c);
        for r in c["reasons"].as_array().into_iter().flatten().chain(own) {
            let raw = Raw {
                source: Source::Condition,
                field: "schedulingConditions",
                reason: r["reason"].as_str().unwrap_or("Unschedulable"),
                message: r["message"].as_str().unwrap_or(""),
                component: "",
                count: 1,
                cause: "",
            };
            push(ix, id, on, raw, out);
        }
    }
    if !is_pod {
        for e in v
            .at("/status/lastErrors")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            // Grove writes `{code, description}`; others a string or `{reason, message}`.
            let message = e
                .as_str()
                .or_else(|| e["message"].as_str())
                .or_else(|| e["description"].as_str())
                .unwrap_or("");
            let raw = Raw::status(
                "lastErrors",
                e["reason"]
                    .as_str()
                    .or_else(|| e["code"].as_str())
                    .unwrap_or(""),
                message,
            );
            push(ix, id, on, raw, out);
        }
        // KubeRay before v1.3 said where a RayService's serving stands in one word
        // (`WaitForServeDeploymentReady`, `FailedServeDeploy`, …); anything but `Running` is
        // serving not reached.
        if o.kind() == "RayService" && o.group() == "ray.io" {
            let said = v.at("/status/serviceStatus").and_then(Value::as_str);
            if let Some(word) = said.filter(|w| !w.is_empty() && *w != "Running") {
                push(ix, id, on, Raw::status("serviceStatus", word, ""), out);
            }
        }
        // KServe says why an InferenceService's model does not load in `status.modelStatus`
        // (no runtime supports it, the load failed), not in a condition.
        if let Some((reason, message)) = model_failure(&v) {
            push(ix, id, on, Raw::status("modelStatus", reason, message), out);
        }
        // A device request lost on its way: pruned by the API server, or written by the
        // controller that makes this object without its owner asking (facts/drift.rs).
        if let Some(path) = super::drift::pruned_device_request(&v) {
            let message = format!(
                "{path} is in the last-applied configuration and not in the stored object: the API \
                 server dropped it (the kind's schema has no such field)"
            );
            push(
                ix,
                id,
                on,
                Raw::status("spec", "DeviceRequestPruned", &message),
                out,
            );
        }
        if let Some(message) = super::drift::request_not_from_owner(ix, id, &v) {
            let raw = Raw::status("spec.template", super::drift::NOT_FROM_OWNER, &message);
            push(ix, id, on, raw, out);
        }
        if let Some((field, word)) = failed_status_word(&v) {
            // KubeRay writes why in `status.reason`, others in `status.message`.
            let message = v
                .at("/status/message")
                .or_else(|| v.at("/status/reason"))
                .and_then(Value::as_str)
                .filter(|m| *m != word)
                .unwrap_or("");
            push(ix, id, on, Raw::status(field, word, message), out);
        }
    }
}

/// Whether a condition's message says the object waits for an object of its own that is
/// ready by now (`Waiting for InferenceService "m" reporting Predictor readiness` while the
/// InferenceService it owns says `Ready=True`): a wait its controller has not looked at again
/// since it ended, no failure. A wait for an object not yet ready is that object's to explain.
fn waits_on_a_ready_child(ix: &Index, id: ObjId, message: &str) -> bool {
    let Some(rest) = message.strip_prefix("Waiting for ") else {
        return false;
    };
    let mut words = rest.splitn(2, ' ');
    let (Some(kind), Some(tail)) = (words.next(), words.next()) else {
        return false;
    };
    let Some(name) = tail
        .strip_prefix('"')
        .and_then(|t| t.split_once('"'))
        .map(|(n, _)| n)
    else {
        return false;
    };
    ix.children(id).iter().any(|&child| {
        let o = ix.object(child);
        o.kind() == kind && o.name == name && super::ready(&ix.value(child))
    })
}

/// The first of an object's top-level status words that says its controller failed: a
/// `state` of `Failed` or `Error` (NIM, Dynamo), or in any top-level status field a word that
/// names a failed step (`ValidationFailed`, `FailedServeDeploy`): a controller's own phase
/// that could not be done, which waiting does not change. A bare `Failed` elsewhere (a
/// `phase`, a job's status) is often the work's own outcome, so it is left to the conditions
/// and the pods.
fn failed_status_word(v: &Value) -> Option<(&str, &str)> {
    let status = v.get("status")?.as_object()?;
    if let Some(state) = status.get("state").and_then(Value::as_str)
        && (state.eq_ignore_ascii_case("failed") || state.eq_ignore_ascii_case("error"))
    {
        return Some(("state", state));
    }
    status.iter().find_map(|(field, word)| {
        let word = word.as_str()?;
        // The step is one CamelCase word of its own: `Validation`, `ServeDeploy`.
        let step = |rest: &str| {
            rest.len() > 2
                && rest.starts_with(|c: char| c.is_ascii_uppercase())
                && rest.chars().all(|c| c.is_ascii_alphabetic())
        };
        let named = word.strip_suffix("Failed").is_some_and(step)
            || word.strip_prefix("Failed").is_some_and(step);
        named.then_some((field.as_str(), word))
    })
}

/// A node whose capacity names no device resource (none with a vendor prefix) while a device
/// plugin of the registry runs on it: the plugin found no device it can offer (no kernel
/// driver for it, a filter that left none), and the node has none for Kubernetes.
fn plugin_without_devices(ix: &Index, node: &str, v: &Value) -> Option<String> {
    let capacity = v.at("/status/capacity").and_then(Value::as_object)?;
    let devices = capacity
        .keys()
        .any(|r| r.contains('/') && !r.starts_with("hugepages-"));
    if devices {
        return None;
    }
    let plugins = ix.once("signals.devicePluginsByNode", || running_plugins(ix));
    let plugin = plugins.get(node)?;
    Some(format!(
        "device plugin pod {plugin} runs on this node, and status.capacity names no device resource"
    ))
}

/// Node name → the first running device-plugin pod on it (by the registry's names).
fn running_plugins(ix: &Index) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for &p in ix.of_kind("Pod") {
        let Some(node) = ix
            .pod(p)
            .filter(|i| i.phase == "Running")
            .and_then(|i| i.node.clone())
        else {
            continue;
        };
        let name = &ix.object(p).name;
        let plugin = crate::components::by_name("Pod", name)
            .is_some_and(|c| c.layer == Layer::Device && c.id.contains("device-plugin"));
        if plugin {
            out.entry(node).or_insert_with(|| name.to_string());
        }
    }
    out
}

/// KServe's `status.modelStatus.lastFailureInfo` while the model is not up to date
/// (`transitionStatus` InvalidSpec or BlockedByFailedLoad; a failure of a load since
/// replaced by a good one stays written, and is no failure).
fn model_failure(v: &Value) -> Option<(&str, &str)> {
    let ms = v.at("/status/modelStatus")?;
    let transition = ms["transitionStatus"].as_str().unwrap_or("");
    if !matches!(transition, "InvalidSpec" | "BlockedByFailedLoad") {
        return None;
    }
    let f = &ms["lastFailureInfo"];
    let reason = f["reason"].as_str().unwrap_or(transition);
    Some((reason, f["message"].as_str().unwrap_or("")))
}

/// What a Node or a DaemonSet says in numbers: devices the node holds back as unhealthy
/// (capacity above allocatable), a device resource advertised with none (a MIG profile at 0),
/// a DaemonSet that should run on no node or runs short. Written in the API's own field names.
fn read_counts(ix: &Index, id: ObjId, v: &Value, on: On, out: &mut Vec<Signal>) {
    let o = ix.object(id);
    let mut notes: Vec<(String, String)> = Vec::new();
    match (o.group(), o.kind().as_str()) {
        ("", "Node") => {
            if let Some(note) = plugin_without_devices(ix, &o.name, v) {
                notes.push(("device-plugin".into(), note));
            }
            let capacity = v.at("/status/capacity").and_then(Value::as_object);
            for (res, cap) in capacity.into_iter().flatten() {
                if !res.contains('/') {
                    continue;
                }
                let cap_n = crate::quantity::from_value(cap).unwrap_or(0.0);
                let alloc = v.at("/status/allocatable").and_then(|a| a.get(res));
                let alloc_n = alloc.and_then(crate::quantity::from_value).unwrap_or(0.0);
                let shown = |x: Option<&Value>| x.map_or("-".to_string(), crate::template::display);
                if cap_n == 0.0 || alloc_n < cap_n {
                    notes.push((
                        res.clone(),
                        format!(
                            "status.capacity['{res}']={}, status.allocatable['{res}']={}",
                            crate::template::display(cap),
                            shown(alloc)
                        ),
                    ));
                }
            }
        }
        ("apps", "DaemonSet") => {
            let n = |k: &str| v.at(&format!("/status/{k}")).and_then(Value::as_u64);
            let (desired, ready) = (n("desiredNumberScheduled"), n("numberReady"));
            // Pods not ready while the bundle holds the pods: their own words say why (a
            // container its node could not create, a refusal), and the count is only the sum.
            let short = matches!((desired, ready), (Some(d), Some(r)) if r < d)
                && ix.descendant_pods(id).is_empty();
            if desired == Some(0) || short {
                let mut note = format!(
                    "status.desiredNumberScheduled={}, status.numberReady={}",
                    desired.unwrap_or(0),
                    ready.unwrap_or(0)
                );
                // Wanting no pod, the node labels it chooses its nodes by say why (and whose
                // labels they are: attribution reads them).
                let wanted = v
                    .at("/spec/template")
                    .map(crate::facts::required_node_labels)
                    .unwrap_or_default();
                if desired == Some(0) && !wanted.is_empty() {
                    let labels: Vec<String> = wanted
                        .iter()
                        .map(|(k, vals)| format!("{k}={}", vals.join("|")))
                        .collect();
                    note.push_str(&format!("; its nodes must carry {}", labels.join(", ")));
                    let kin = kin_labels(&ix.node_tables(), wanted.iter().map(|(k, _)| k.as_str()));
                    if !kin.is_empty() {
                        note.push_str(&format!("{KIN_LABELS}{}", kin.join(", ")));
                    }
                }
                notes.push(("DaemonSet".into(), note));
            }
        }
        _ => {}
    }
    for (field, message) in &notes {
        push(ix, id, on, Raw::status(field, "", message), out);
    }
}

/// Node label keys no wanted key equals that share a wanted key's prefix and first word
/// (`feature.node.kubernetes.io/pci-0300_10de.present` beside a wanted
/// `feature.node.kubernetes.io/pci-10de.present`): the labeller ran and wrote another
/// spelling. Sorted, at most five.
fn kin_labels<'a>(
    tables: &crate::index::NodeTables,
    wanted: impl Iterator<Item = &'a str> + Clone,
) -> Vec<String> {
    let stems: Vec<_> = wanted.clone().filter_map(label_stem).collect();
    let mut kin: Vec<String> = tables
        .labels
        .keys()
        .filter(|k| !wanted.clone().any(|w| w == k.as_str()))
        .filter(|k| label_stem(k).is_some_and(|s| stems.contains(&s)))
        .cloned()
        .collect();
    kin.sort();
    kin.truncate(5);
    kin
}

/// A label key's prefix and the first word of its name (`pci` of `…/pci-10de.present`).
fn label_stem(k: &str) -> Option<(&str, &str)> {
    let (domain, name) = k.split_once('/')?;
    let word = name.split(['-', '.', '_']).next().unwrap_or(name);
    (!word.is_empty()).then_some((domain, word))
}

fn read_containers(ix: &Index, id: ObjId, v: &Value, on: On, out: &mut Vec<Signal>) {
    if let Some(raw) = injected_not_ready(v) {
        push(ix, id, on, raw, out);
    }
    let finished = restarted_after_success(v);
    for list in ["/status/initContainerStatuses", "/status/containerStatuses"] {
        for cs in v.at(list).and_then(Value::as_array).into_iter().flatten() {
            let name = cs["name"].as_str().unwrap_or("");
            if let Some(w) = cs.at("/state/waiting") {
                let reason = w["reason"].as_str().unwrap_or("");
                let success = finished && reason == "CrashLoopBackOff";
                if !reason.is_empty() && !NORMAL_WAITING.contains(&reason) && !success {
                    let raw = Raw {
                        source: Source::Container,
                        field: name,
                        reason,
                        message: w["message"].as_str().unwrap_or(""),
                        component: "",
                        count: 1,
                        cause: last_failure(v),
                    };
                    push(ix, id, on, raw, out);
                }
            }
            for state in ["/state/terminated", "/lastState/terminated"] {
                let Some(t) = cs.at(state) else { continue };
                if t["exitCode"].as_i64().unwrap_or(0) == 0 {
                    continue;
                }
                let raw = Raw {
                    source: Source::Container,
                    field: name,
                    reason: t["reason"].as_str().unwrap_or("Error"),
                    message: t["message"].as_str().unwrap_or(""),
                    component: "",
                    count: cs["restartCount"].as_u64().unwrap_or(1),
                    cause: "",
                };
                push(ix, id, on, raw, out);
            }
        }
    }
}

/// A running pod held from Ready by a container a layer's controller injected (KServe's
/// `agent`, Knative's `queue-proxy`) alone, while every container of the work's own is ready:
/// the injected container's probe or program is its component's, so is the pod's refusal of
/// traffic. Told in the kubelet's words (the pod's `Ready` condition) when it has them.
fn injected_not_ready(pod: &Value) -> Option<Raw<'_>> {
    let statuses = pod
        .at("/status/containerStatuses")
        .and_then(Value::as_array)?;
    let injected = |cs: &Value| {
        cs["name"]
            .as_str()
            .and_then(crate::components::by_container)
            .is_some()
    };
    let unready: Vec<&Value> = statuses.iter().filter(|cs| cs["ready"] == false).collect();
    let first = unready.first()?;
    let held_by_injected = unready
        .iter()
        .all(|cs| injected(cs) && cs.at("/state/running").is_some());
    if !held_by_injected || statuses.iter().all(injected) {
        return None;
    }
    let ready = pod
        .at("/status/conditions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .find(|c| c["type"] == "Ready" && c["status"] == "False");
    Some(Raw {
        source: Source::Container,
        field: first["name"].as_str().unwrap_or(""),
        reason: ready
            .and_then(|c| c["reason"].as_str())
            .unwrap_or("ContainersNotReady"),
        message: ready.and_then(|c| c["message"].as_str()).unwrap_or(""),
        component: "",
        count: 1,
        cause: "",
    })
}

/// What a pod's restart back-off (a waiting `CrashLoopBackOff`, a `BackOff` event) means.
enum Backoff {
    /// Its programs ended well and are started again by restartPolicy Always: no failure.
    Success,
    /// Why its last failed run ended (empty when unknown): what the back-off is judged by.
    Cause(String),
}

/// Whether every container backing off last ended with exit code 0 under restartPolicy Always
/// (the default): the kubelet restarts finished programs with the same back-off as crashes.
fn restarted_after_success(pod: &Value) -> bool {
    let always = pod
        .at("/spec/restartPolicy")
        .and_then(Value::as_str)
        .is_none_or(|p| p == "Always");
    let mut backing_off = ["/status/initContainerStatuses", "/status/containerStatuses"]
        .iter()
        .flat_map(|list| pod.at(list).and_then(Value::as_array).into_iter().flatten())
        .filter(|cs| cs.at("/state/waiting/reason") == Some(&Value::from("CrashLoopBackOff")))
        .peekable();
    always
        && backing_off.peek().is_some()
        && backing_off.all(|cs| cs.at("/lastState/terminated/exitCode") == Some(&Value::from(0)))
}

/// Why a pod's container last ended, for the first container whose last run failed.
fn last_failure(pod: &Value) -> &str {
    ["/status/initContainerStatuses", "/status/containerStatuses"]
        .iter()
        .flat_map(|list| pod.at(list).and_then(Value::as_array).into_iter().flatten())
        .filter_map(|cs| cs.at("/lastState/terminated"))
        .filter(|t| t["exitCode"].as_i64().unwrap_or(0) != 0)
        .find_map(|t| t["message"].as_str().filter(|m| !m.is_empty()))
        .unwrap_or("")
}

fn read_events(
    ix: &Index,
    id: ObjId,
    events: &[(ObjId, crate::index::EventInfo)],
    on: On,
    backoff: &Backoff,
    out: &mut Vec<Signal>,
) {
    for (_, ev) in events.iter().rev().take(50) {
        if !failing_event(&ev.type_, &ev.reason) {
            continue;
        }
        let cause = match (ev.reason.as_str(), backoff) {
            ("BackOff", Backoff::Success) => continue,
            ("BackOff", Backoff::Cause(c)) => c.as_str(),
            _ => "",
        };
        let raw = Raw {
            source: Source::Event,
            field: "event",
            reason: &ev.reason,
            message: &ev.message,
            component: &ev.component,
            count: ev.count,
            cause,
        };
        push(ix, id, on, raw, out);
    }
}

#[cfg(test)]
mod tests {
    use super::{
        failed_status_word, failing_condition, injected_not_ready, label_stem,
        plugin_without_devices,
    };
    use crate::bundle::Bundle;
    use crate::index::Index;
    use serde_json::{Value, json};

    fn index(items: Value) -> Index {
        let list = json!({"apiVersion": "v1", "kind": "List", "items": items});
        Index::new(Bundle::parse(list.to_string()).expect("parses"))
    }

    fn node(capacity: Value) -> Value {
        json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
            "status": {"capacity": capacity}})
    }

    fn pod(name: &str, phase: &str) -> Value {
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "kube-system"},
            "spec": {"nodeName": "n1", "containers": [{"name": "c"}]}, "status": {"phase": phase}})
    }

    #[test]
    fn a_running_device_plugin_on_a_node_without_devices_is_named() {
        let bare = json!({"cpu": "12", "hugepages-2Mi": "0", "pods": "110"});
        let plugin = pod("intel-gpu-plugin-q7rzt", "Running");
        let ix = index(json!([node(bare.clone()), plugin.clone()]));
        let v = ix.value(ix.find("Node", None, "n1").expect("node"));
        let said = plugin_without_devices(&ix, "n1", &v).expect("named");
        assert!(said.contains("intel-gpu-plugin-q7rzt"), "{said}");
        // A node that offers a device, a plugin not running, or no plugin at all: nothing.
        let gpus = json!({"cpu": "12", "nvidia.com/gpu": "8"});
        let ix = index(json!([node(gpus), plugin]));
        let v = ix.value(ix.find("Node", None, "n1").expect("node"));
        assert_eq!(plugin_without_devices(&ix, "n1", &v), None);
        let ix = index(json!([
            node(bare.clone()),
            pod("intel-gpu-plugin-q7rzt", "Pending")
        ]));
        let v = ix.value(ix.find("Node", None, "n1").expect("node"));
        assert_eq!(plugin_without_devices(&ix, "n1", &v), None);
        let ix = index(json!([node(bare), pod("trainer-0", "Running")]));
        let v = ix.value(ix.find("Node", None, "n1").expect("node"));
        assert_eq!(plugin_without_devices(&ix, "n1", &v), None);
    }

    #[test]
    fn a_labels_stem_is_its_prefix_and_first_word() {
        let stem = label_stem("feature.node.kubernetes.io/pci-0300_10de.present");
        assert_eq!(stem, Some(("feature.node.kubernetes.io", "pci")));
        assert_eq!(
            stem,
            label_stem("feature.node.kubernetes.io/pci-10de.present")
        );
        assert_ne!(
            stem,
            label_stem("feature.node.kubernetes.io/cpu-model.vendor_id")
        );
        assert_ne!(stem, label_stem("example.com/pci-10de.present"));
        // No prefix, no labeller to tell apart.
        assert_eq!(label_stem("pool"), None);
    }

    #[test]
    fn a_failed_step_in_a_status_word_is_read_and_a_bare_outcome_is_not() {
        let status = |s: Value| json!({"status": s});
        let ray = status(json!({"jobDeploymentStatus": "ValidationFailed", "message": "m"}));
        assert_eq!(
            failed_status_word(&ray),
            Some(("jobDeploymentStatus", "ValidationFailed"))
        );
        let serve = status(json!({"serviceStatus": "FailedServeDeploy"}));
        assert_eq!(
            failed_status_word(&serve),
            Some(("serviceStatus", "FailedServeDeploy"))
        );
        let nim = status(json!({"state": "Failed"}));
        assert_eq!(failed_status_word(&nim), Some(("state", "Failed")));
        for quiet in [
            json!({"phase": "Failed"}),
            json!({"jobStatus": "FAILED"}),
            json!({"state": "Running", "reason": "AllGood"}),
            json!({"reason": "Failed"}),
            json!({"message": "the validation Failed"}),
            json!({"reason": "xFailed"}),
        ] {
            assert_eq!(failed_status_word(&status(quiet.clone())), None, "{quiet}");
        }
    }

    #[test]
    fn a_bare_ready_false_fails_and_other_bare_conditions_do_not() {
        let c = |ty: &str, status: &str| json!({"type": ty, "status": status});
        assert!(failing_condition(&c("Ready", "False")));
        for quiet in [
            c("Ready", "True"),
            c("Ready", "Unknown"),
            c("Available", "False"),
            c("Launched", "False"),
        ] {
            assert!(!failing_condition(&quiet), "{quiet}");
        }
        let said = json!({"type": "Launched", "status": "False", "reason": "InsufficientCapacity"});
        assert!(failing_condition(&said));
    }

    #[test]
    fn a_type_naming_a_failed_step_fails_when_true() {
        let c = |ty: &str, status: &str| json!({"type": ty, "status": status, "reason": "R"});
        for failing in [
            "NIM_CACHE_RECONCILE_FAILED",
            "ReconcileFailed",
            "DeploymentFailure",
        ] {
            assert!(failing_condition(&c(failing, "True")), "{failing}");
            assert!(!failing_condition(&c(failing, "False")), "{failing}");
        }
        for quiet in ["Failing", "FailedOver", "Progressing", "failed"] {
            assert!(!failing_condition(&c(quiet, "True")), "{quiet}");
        }
    }

    fn served(containers: Value) -> Value {
        json!({"status": {"phase": "Running", "containerStatuses": containers, "conditions": [
            {"type": "Ready", "status": "False", "reason": "ContainersNotReady",
             "message": "containers with unready status: [agent]"}]}})
    }

    fn cs(name: &str, ready: bool) -> Value {
        json!({"name": name, "ready": ready, "state": {"running": {}}})
    }

    #[test]
    fn an_injected_container_alone_holding_the_pod_from_ready_is_its_component() {
        let held = served(json!([cs("agent", false), cs("kserve-container", true)]));
        let raw = injected_not_ready(&held).expect("the agent alone is not ready");
        assert_eq!((raw.field, raw.reason), ("agent", "ContainersNotReady"));
        assert_eq!(raw.message, "containers with unready status: [agent]");
        // The work's own container not ready too: the injected one may wait on it.
        let both = served(json!([cs("agent", false), cs("kserve-container", false)]));
        assert!(injected_not_ready(&both).is_none());
        // A container of the work's own alone, every container ready, or only injected ones.
        let own = served(json!([cs("agent", true), cs("kserve-container", false)]));
        assert!(injected_not_ready(&own).is_none());
        let all = served(json!([cs("agent", true), cs("kserve-container", true)]));
        assert!(injected_not_ready(&all).is_none());
        let only = served(json!([cs("agent", false), cs("queue-proxy", true)]));
        assert!(injected_not_ready(&only).is_none());
        // Not yet running (waiting) is the container states' to tell, not this.
        let waiting = served(json!([
            {"name": "agent", "ready": false, "state": {"waiting": {"reason": "ContainerCreating"}}},
            cs("kserve-container", true)]));
        assert!(injected_not_ready(&waiting).is_none());
    }
}
