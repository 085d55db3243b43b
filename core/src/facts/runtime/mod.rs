//! Facts of the runtime layer, at `$.facts.runtime`.
//!
//! Shape:
//! - `createFailures`: `[{object, kind, name, source, message, count, runtimeClass}]` — pods a
//!   controller could not create: `FailedCreate` Warning events on the target and the
//!   controllers below it (a Deployment's ReplicaSets, a JobSet's Jobs), and `ReplicaFailure`
//!   conditions (reason `FailedCreate`) on them. `runtimeClass` is the RuntimeClass named by a
//!   `pod rejected: RuntimeClass "<rc>" not found` admission error, else null.
//! - `missingRuntimeClasses`: the distinct RuntimeClass names of those rejections that the
//!   bundle holds no RuntimeClass object for.
//! - `podsCreated`: how many pods exist below the target.
//! - `containers`: per container of the view's pod (init containers first): `{name, init,
//!   waitingReason, waitingMessage, restarts, lastExitCode, lastReason, lastMessage, summary}`;
//!   `summary` reads like `exit code 137 (OOMKilled)`; messages are cut at 400 characters.
//! - `hookError`: the first line starting at `nvidia-container-cli:` found in the pod's
//!   container statuses or its events (the NVIDIA container runtime hook's own error), or null.
//! - `cdiError`: likewise from `unresolvable CDI devices` (a CDI device name that no CDI spec on
//!   the node defines), without a trailing `: unknown`, or null.

use super::Ctx;
use regex::Regex;
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::sync::LazyLock;

static RC_NOT_FOUND: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"RuntimeClass "([^"]+)" not found"#).expect("static regex"));

/// The runtime layer's facts for one view.
pub fn facts(ctx: &Ctx) -> Value {
    let ix = ctx.ix;
    // The target and the controllers below it (two levels: Deployment → ReplicaSet, JobSet → Job).
    let mut objs = vec![ctx.target];
    for &c in ix.children(ctx.target) {
        if ix.object(c).kind != "Pod" {
            objs.push(c);
            for &g in ix.children(c) {
                if ix.object(g).kind != "Pod" {
                    objs.push(g);
                }
            }
        }
    }
    let mut failures = Vec::new();
    let mut missing = BTreeSet::new();
    let mut push = |kind: &str, name: &str, source: &str, message: &str, count: u64| {
        let rc = RC_NOT_FOUND.captures(message).map(|c| c[1].to_string());
        if let Some(r) = &rc
            && ix.get("node.k8s.io", "RuntimeClass", None, r).is_none()
        {
            missing.insert(r.clone());
        }
        failures.push(json!({
            "object": format!("{kind}/{name}"), "kind": kind, "name": name, "source": source,
            "message": message, "count": count, "runtimeClass": rc,
        }));
    };
    for &o in &objs {
        let obj = ix.object(o);
        for e in ix.events_for(o).into_iter().rev() {
            let Some(ev) = ix.event(e) else { continue };
            if ev.reason == "FailedCreate" && ev.type_ == "Warning" {
                push(&obj.kind, &obj.name, "event", &ev.message, ev.count.max(1));
                break;
            }
        }
        let v = ix.value(o);
        for c in v
            .pointer("/status/conditions")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if c["type"] == "ReplicaFailure" && c["status"] == "True" {
                let msg = c["message"].as_str().unwrap_or("");
                push(&obj.kind, &obj.name, "condition", msg, 1);
            }
        }
    }
    let (containers, hook, cdi) =
        ctx.pod
            .map(|p| containers(ctx, p))
            .unwrap_or((Vec::new(), None, None));
    json!({
        "containers": containers,
        "hookError": hook,
        "cdiError": cdi,
        "createFailures": failures,
        "missingRuntimeClasses": missing.into_iter().collect::<Vec<_>>(),
        "podsCreated": ix.descendant_pods(ctx.target).len(),
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

type ContainerFacts = (Vec<Value>, Option<String>, Option<String>);

fn containers(ctx: &Ctx, pod: crate::index::ObjId) -> ContainerFacts {
    let ix = ctx.ix;
    let pv = ix.value(pod);
    let mut out = Vec::new();
    let mut hook = None;
    let mut cdi = None;
    for (key, init) in [
        ("initContainerStatuses", true),
        ("containerStatuses", false),
    ] {
        for c in pv
            .pointer(&format!("/status/{key}"))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let waiting = c.pointer("/state/waiting");
            let last = c
                .pointer("/lastState/terminated")
                .or_else(|| c.pointer("/state/terminated"));
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
                (Some(c), Some(r)) => format!("exit code {c} ({r})"),
                (Some(c), None) => format!("exit code {c}"),
                _ => String::new(),
            };
            out.push(json!({
                "name": c["name"], "init": init,
                "waitingReason": waiting.and_then(|w| w["reason"].as_str()),
                "waitingMessage": cut(wmsg),
                "restarts": c["restartCount"].as_u64().unwrap_or(0),
                "lastExitCode": code, "lastReason": reason, "lastMessage": cut(lmsg),
                "summary": summary,
            }));
        }
    }
    let events: Vec<crate::index::EventInfo> = ix
        .events_for(pod)
        .into_iter()
        .rev()
        .filter_map(|e| ix.event(e))
        .collect();
    if hook.is_none() {
        hook = events.iter().find_map(|e| hook_line(&e.message));
    }
    if cdi.is_none() {
        cdi = events.iter().find_map(|e| cdi_line(&e.message));
    }
    (out, hook, cdi)
}
