//! `$.facts.component`: the target as one of the registry's components (`rules/components.yaml`)
//! and how it fails now; for a work that is none, a component's container injected into its
//! pod (KServe's `storage-initializer`) that fails. The `<layer>/component-failing` rules read it: a component that fails
//! on its own terms is its own layer's block, not the runtime's, although its container is what
//! shows it.

use super::Ctx;
use super::signals::Signal;
use crate::layer::Layer;
use serde::Serialize;

/// How a component fails, as `$.facts.component.failure` writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub enum Failing {
    /// Never placed: the placement layer's.
    NotPlaced,
    /// Its node could not start it: the runtime's.
    NotStarted,
    /// It runs, or tries to, and fails on its own terms: the layer it serves.
    OwnTerms,
}

/// The target as a component.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ComponentFact {
    /// The registry's id (`endpoint-picker`, `kueue`, …).
    pub id: String,
    /// The layer it serves.
    pub layer: Layer,
    /// Where its issues go (`owner/repo`).
    pub project: String,
    /// How it fails now; absent while nothing of it fails.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<Failing>,
    /// The deciding signal's words (`reason: message`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// `Kind namespace/name` of the object that shows it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub object: Option<String>,
    /// The arguments `kubectl describe` (and `kubectl logs`) take for that object.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub describe: Vec<String>,
    /// It loads the NVIDIA driver's libraries, which the runtime injects (the registry's
    /// `driverLibraries`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub driver_libraries: bool,
    /// The `runtimeClassName` its pods run with; absent: the node's default runtime.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runtime_class: Option<String>,
    /// For a device plugin: the extended resource it registers (the registry's `resource`,
    /// else its `resourceArg` argument).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resource: Option<String>,
    /// Other device-plugin DaemonSets of the bundle, of another component, that register the
    /// same resource and are scheduled somewhere (`<namespace>/<name> (<component>)`): on a node
    /// both run on, whichever registers last with the kubelet owns the name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shares_resource_with: Vec<String>,
}

/// The registry's entry the target is, by its name, its owner's, its labels and its images.
pub(super) fn of_target(ctx: &Ctx) -> Option<&'static crate::components::Component> {
    let t = ctx.ix.object(ctx.target);
    let owner = ctx
        .ix
        .owner_chain(ctx.target)
        .first()
        .map_or(String::new(), |&o| ctx.ix.object(o).name.to_string());
    crate::components::of(t.kind(), &t.name, &owner, &ctx.value(ctx.target))
}

/// `$.facts.component`: none when the target is no component.
pub fn component(ctx: &Ctx) -> Option<ComponentFact> {
    let signals = &ctx.signals().signals;
    let Some(c) = of_target(ctx) else {
        return injected(signals);
    };
    // The target's own words first, then its pods'; among them, what the component said (a
    // container's exit message) before the kubelet's back-off notice that repeats it.
    let mut candidates: Vec<&Signal> = signals
        .iter()
        .filter(|s| s.current && (s.on_target || s.kind == "Pod"))
        .collect();
    candidates.sort_by_key(|s| {
        (
            count_only(s),
            !s.on_target,
            back_off(s),
            s.message.is_empty(),
        )
    });
    let runtime_class = runtime_class(ctx);
    let first = candidates
        .into_iter()
        .find_map(|s| failing(s, c.layer).map(|f| (without_libraries(f, s, c, &runtime_class), s)));
    let target_value = ctx.value(ctx.target);
    let resource = registered_resource(c, &target_value);
    let shares = resource
        .as_deref()
        .map(|r| plugins_registering(ctx, r, &c.id))
        .unwrap_or_default();
    Some(ComponentFact {
        id: c.id.clone(),
        layer: c.layer,
        project: c.project.clone(),
        failure: first.map(|(f, _)| f),
        text: first.map(|(_, s)| s.text.clone()),
        object: first.map(|(_, s)| s.object.clone()),
        describe: first.map(|(_, s)| s.describe.clone()).unwrap_or_default(),
        driver_libraries: c.driver_libraries,
        runtime_class,
        resource,
        shares_resource_with: shares,
    })
}

/// The resource a device-plugin component registers: its `resourceArg` as its object's
/// containers pass it, else the registry's default.
fn registered_resource(c: &crate::components::Component, v: &serde_json::Value) -> Option<String> {
    let by_arg = c.resource_arg.as_deref().and_then(|flag| {
        let args = crate::facts::serving::container_args(v);
        crate::facts::serving::arg(&args, flag)
    });
    by_arg.or_else(|| c.resource.clone())
}

/// DaemonSets of another device-plugin component that register `resource` and are scheduled
/// on some node (or say nothing of it), by namespace and name.
fn plugins_registering(ctx: &Ctx, resource: &str, own: &str) -> Vec<String> {
    let ix = ctx.ix;
    let mut out: Vec<String> = ix
        .of_kind("DaemonSet")
        .iter()
        .filter(|&&id| id != ctx.target)
        .filter_map(|&id| {
            let o = ix.object(id);
            let v = ix.value(id);
            let c = crate::components::of("DaemonSet", &o.name, "", &v)?;
            let scheduled = v
                .pointer("/status/desiredNumberScheduled")
                .and_then(serde_json::Value::as_u64)
                .is_none_or(|n| n > 0);
            (c.id != own && scheduled && registered_resource(c, &v).as_deref() == Some(resource))
                .then(|| format!("{}/{} ({})", o.namespace().unwrap_or(""), o.name, c.id))
        })
        .collect();
    out.sort();
    out
}

/// The `runtimeClassName` the target's pods run with: the pod's own, or its template's.
fn runtime_class(ctx: &Ctx) -> Option<String> {
    let v = ctx.value(ctx.target);
    [
        "/spec/runtimeClassName",
        "/spec/template/spec/runtimeClassName",
    ]
    .iter()
    .find_map(|p| v.pointer(p).and_then(serde_json::Value::as_str))
    .filter(|c| !c.is_empty())
    .map(str::to_string)
}

/// A component that needs the driver's libraries, crashing on a pod that names no
/// RuntimeClass, was started without them unless the node's default runtime is NVIDIA's (k3s's
/// and plain containerd's is runc): its crash is how the missing injection shows, so it was
/// not started as it needs to be, the runtime's. With a RuntimeClass named, the runtime was
/// asked, and a crash stays the component's own.
fn without_libraries(
    f: Failing,
    s: &Signal,
    c: &crate::components::Component,
    runtime_class: &Option<String>,
) -> Failing {
    let crashed = s.source == super::signals::Source::Container;
    if f == Failing::OwnTerms && crashed && c.driver_libraries && runtime_class.is_none() {
        return Failing::NotStarted;
    }
    f
}

/// A work that is no component, whose pod's failing container is one a component injected
/// (KServe's `storage-initializer`): that component fails inside the work's pod.
fn injected(signals: &[Signal]) -> Option<ComponentFact> {
    let mut found: Vec<(&Signal, &'static crate::components::Component)> = signals
        .iter()
        .filter(|s| s.current && s.kind == "Pod" && s.source == super::signals::Source::Container)
        .filter_map(|s| crate::components::by_container(&s.field).map(|c| (s, c)))
        .collect();
    found.sort_by_key(|(s, _)| (back_off(s), s.message.is_empty()));
    let (s, c, f) = found
        .into_iter()
        .find_map(|(s, c)| failing(s, c.layer).map(|f| (s, c, f)))?;
    Some(ComponentFact {
        id: c.id.clone(),
        layer: c.layer,
        project: c.project.clone(),
        failure: Some(f),
        text: Some(s.text.clone()),
        object: Some(format!("container {} of {}", s.field, s.object)),
        describe: s.describe.clone(),
        driver_libraries: false,
        runtime_class: None,
        resource: None,
        shares_resource_with: Vec::new(),
    })
}

/// A DaemonSet's or Deployment's count of pods not ready: that they fail, not why. Its pods'
/// own words (a container the runtime could not create, a scheduler's refusal) say how, so they
/// come first.
fn count_only(s: &Signal) -> bool {
    s.field == "DaemonSet" || s.reason == "MinimumReplicasUnavailable"
}

/// The kubelet's notice that it waits before restarting a container: it says the container
/// failed, not why.
fn back_off(s: &Signal) -> bool {
    matches!(s.reason.as_str(), "CrashLoopBackOff" | "BackOff")
}

/// How a signal of a component serving `serves` fails: its attribution already names the layer
/// of the cause (`attribution::attribute` judged the component's failure).
fn failing(s: &Signal, serves: Layer) -> Option<Failing> {
    match s.layer {
        l if l == serves => Some(Failing::OwnTerms),
        Layer::Placement | Layer::Admission | Layer::Grouping => Some(Failing::NotPlaced),
        Layer::Runtime => Some(Failing::NotStarted),
        _ => None,
    }
}
