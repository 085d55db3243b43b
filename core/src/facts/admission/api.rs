//! What the API server's own admission would say of pods no one has created yet, at
//! `$.facts.submission`: the PriorityClass they name (the Priority plugin refuses a pod whose
//! class does not exist) and the namespace's ResourceQuotas (the ResourceQuota plugin refuses
//! a pod that would take `used` past `hard`). Only for work `fit` placed as if submitted: for
//! real pods the controllers' `FailedCreate` events say it.

use super::Ctx;
use crate::facts::Num;
use crate::facts::texts::say;
use crate::json::At as _;
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// The API server's admission of the work's pods.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Submission {
    /// The PriorityClass the pods name; null when they name none.
    pub priority_class: Option<PriorityClassCheck>,
    /// The namespace's ResourceQuotas, one row per resource they limit that the pods ask for.
    pub quotas: Vec<QuotaCheck>,
}

/// The PriorityClass the pods name.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct PriorityClassCheck {
    pub name: String,
    /// The bundle holds it (or it is one of the two the API server always has).
    pub exists: bool,
    /// How many PriorityClasses the bundle holds: with some, an absent one was read and is not
    /// there.
    pub in_bundle: usize,
}

/// One resource of one ResourceQuota against the work's pods.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct QuotaCheck {
    /// The ResourceQuota's name.
    pub name: String,
    /// The quota's resource name as written (`requests.nvidia.com/gpu`, `cpu`, `pods`).
    pub resource: String,
    /// `status.hard` (else `spec.hard`).
    pub hard: Num,
    /// `status.used`, 0 when unset.
    pub used: Num,
    /// The most one pod of the work asks for.
    pub per_pod: Num,
    /// What all the work's pods ask for together.
    pub total: Num,
    /// `fits`, `waits` (the next pod would take `used` past `hard`: none is created until
    /// usage falls), `partly` (some pods fit, not all) or `never` (one pod alone asks more than
    /// `hard`).
    pub verdict: String,
    /// The row as a sentence.
    pub text: String,
}

/// The two classes every API server has.
const BUILT_IN_CLASSES: &[&str] = &["system-cluster-critical", "system-node-critical"];

/// The API server's admission of the work's pods; None unless `fit` placed the work.
pub fn submission(ctx: &Ctx) -> Option<Submission> {
    let ix = ctx.ix;
    if !ix.not_submitted(ctx.target) || ctx.pods.is_empty() {
        return None;
    }
    let pv = ctx.pod_value()?;
    let priority_class = pv
        .at("/spec/priorityClassName")
        .and_then(Value::as_str)
        .filter(|n| !n.is_empty())
        .map(|name| PriorityClassCheck {
            name: name.to_string(),
            exists: BUILT_IN_CLASSES.contains(&name)
                || ix
                    .get("scheduling.k8s.io", "PriorityClass", None, name)
                    .is_some(),
            in_bundle: ix
                .of_kind("PriorityClass")
                .iter()
                .filter(|&&id| ix.object(id).group() == "scheduling.k8s.io")
                .count(),
        });
    let ns = ix.object(ctx.target).namespace();
    let mut quotas = Vec::new();
    for &id in ix.of_kind("ResourceQuota") {
        if ix.object(id).namespace() != ns || !ix.object(id).group().is_empty() {
            continue;
        }
        let q = ix.value(id);
        // Scoped quotas count only some pods: not judged here.
        if q.at("/spec/scopes").is_some() || q.at("/spec/scopeSelector").is_some() {
            continue;
        }
        let hard = q
            .at("/status/hard")
            .or_else(|| q.at("/spec/hard"))
            .map(crate::facts::quantity_map)
            .unwrap_or_default();
        let used = q
            .at("/status/used")
            .map(crate::facts::quantity_map)
            .unwrap_or_default();
        for (resource, h) in hard {
            let Some((per_pod, total)) = asked(ctx, &resource) else {
                continue;
            };
            let u = (used.get(&resource).copied().unwrap_or(0.0) - set_aside(ctx, ns, &resource))
                .max(0.0);
            quotas.push(check(&ix.object(id).name, &resource, h, u, per_pod, total));
        }
    }
    Some(Submission {
        priority_class,
        quotas,
    })
}

/// What one pod at most, and all the work's pods, ask of a quota's resource; None for a
/// resource the pods do not ask for (or a `limits.` one, not judged).
fn asked(ctx: &Ctx, resource: &str) -> Option<(f64, f64)> {
    let counted: Vec<BTreeMap<String, f64>> = ctx
        .pods
        .iter()
        .filter_map(|&p| ctx.ix.pod(p))
        .map(|i| i.requests.iter().cloned().collect())
        .collect();
    let of = |name: &str| -> (f64, f64) {
        let each: Vec<f64> = counted
            .iter()
            .map(|r| r.get(name).copied().unwrap_or(0.0))
            .collect();
        (each.iter().copied().fold(0.0, f64::max), each.iter().sum())
    };
    let (per, total) = match resource {
        "pods" | "count/pods" => (1.0, counted.len() as f64),
        r if r.starts_with("limits.") => return None,
        r => of(r.strip_prefix("requests.").unwrap_or(r)),
    };
    (total > 0.0).then_some((per, total))
}

/// What the cluster's own copy of the work (which `fit` set aside) counted in a quota's
/// `used`: its running pods' requests of the resource (or their number, for `pods`).
fn set_aside(ctx: &Ctx, ns: Option<&str>, resource: &str) -> f64 {
    let Some(h) = ctx.ix.hypothesis() else {
        return 0.0;
    };
    let ns = ns.unwrap_or("");
    let mine = h.set_aside_requests.iter().filter(|(n, _, _)| n == ns);
    match resource {
        // How many pods were set aside is not kept: a `pods` quota still counts them.
        "pods" | "count/pods" => 0.0,
        r => {
            let r = r.strip_prefix("requests.").unwrap_or(r);
            mine.filter(|(_, x, _)| x == r).map(|(_, _, q)| q).sum()
        }
    }
}

fn check(name: &str, resource: &str, hard: f64, used: f64, per_pod: f64, total: f64) -> QuotaCheck {
    let verdict = if per_pod > hard {
        "never"
    } else if used + per_pod > hard {
        "waits"
    } else if used + total > hard {
        "partly"
    } else {
        "fits"
    };
    let n = |v: f64| Value::from(crate::facts::human_quantity(resource, v));
    let text = say(
        "resourceQuotaRow",
        &[
            ("quota", name.into()),
            ("resource", resource.into()),
            ("hard", n(hard)),
            ("used", n(used)),
            ("perPod", n(per_pod)),
            ("total", n(total)),
        ],
    );
    QuotaCheck {
        name: name.to_string(),
        resource: resource.to_string(),
        hard: Num(hard),
        used: Num(used),
        per_pod: Num(per_pod),
        total: Num(total),
        verdict: verdict.to_string(),
        text,
    }
}
