//! `$.facts.serving.router`: the model servers a serving router finds by its own discovery
//! selector (production-stack's `--k8s-label-selector`), and how many of them are Ready. A
//! router sends requests to what it discovers; one that counts a pod still loading its model
//! as an engine makes requests wait on it, which no Service or probe of the pod shows.

use super::Ctx;
use crate::components::Component;
use crate::facts::ready;
use crate::index::{Index, ObjId};
use crate::json::At as _;
use serde::Serialize;
use serde_json::{Map, Value};

/// The router of the view and the model-server pods its discovery selector matches.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ServingRouter {
    /// The router component's id in the registry (`vllm-router`).
    pub component: String,
    /// The object the router was read from (its pod, or the Deployment that makes it).
    pub name: String,
    /// Its discovery selector as its arguments give it (`environment=test,release=test`).
    pub selector: String,
    /// The namespace it discovers pods in (its `--k8s-namespace`-like argument, else its own).
    pub namespace: String,
    /// Whether the bundle holds any pod of that namespace (otherwise nothing can be said).
    pub pods_in_bundle: bool,
    /// Live pods the selector matches.
    pub pods: usize,
    pub ready_pods: usize,
    /// The matched pods whose `Ready` condition is not `True`, by name.
    pub not_ready_pods: Vec<String>,
}

/// The view's router: its pod, else the target when that is the object that makes it.
pub(super) fn router(ctx: &Ctx) -> Option<ServingRouter> {
    // Borrowed, not copied: this runs for every view of a scan.
    let (id, v) = match (ctx.pod, ctx.pod_value()) {
        (Some(p), Some(v)) => (p, v),
        _ => (ctx.target, ctx.value(ctx.target)),
    };
    let o = ctx.ix.object(id);
    let owner = ctx
        .ix
        .owner_chain(id)
        .last()
        .map_or(String::new(), |&t| ctx.ix.object(t).name.to_string());
    let c = crate::components::of(o.kind().as_str(), &o.name, &owner, &v)?;
    let flag = c.selector_arg.as_deref()?;
    let args = container_args(&v);
    let selector = arg(&args, flag)?;
    let namespace = c
        .namespace_arg
        .as_deref()
        .and_then(|f| arg(&args, f))
        .or_else(|| o.namespace().map(str::to_string))?;
    Some(backends(ctx.ix, c, &o.name, &selector, &namespace))
}

/// Every argument of every container (command and args), in order.
pub(crate) fn container_args(v: &Value) -> Vec<&str> {
    v.at("/spec/containers")
        .or_else(|| v.at("/spec/template/spec/containers"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .flat_map(|c| {
            ["command", "args"]
                .into_iter()
                .filter_map(move |k| c[k].as_array())
        })
        .flatten()
        .filter_map(Value::as_str)
        .collect()
}

/// A flag's value, as `--flag value` or `--flag=value`.
pub(crate) fn arg(args: &[&str], flag: &str) -> Option<String> {
    let eq = format!("{flag}=");
    args.iter()
        .enumerate()
        .find_map(|(i, a)| match a.strip_prefix(&eq) {
            Some(v) => Some(v),
            None if *a == flag => args.get(i + 1).copied(),
            None => None,
        })
        .filter(|v| !v.is_empty())
        .map(str::to_string)
}

/// An equality selector (`a=b,c=d`) as a label map; none when it holds other operators.
fn equality_selector(s: &str) -> Option<Map<String, Value>> {
    s.split(',')
        .map(|term| {
            let (k, v) = term.split_once('=')?;
            let v = v.strip_prefix('=').unwrap_or(v);
            (!k.is_empty() && !k.ends_with('!'))
                .then(|| (k.trim().to_string(), Value::from(v.trim())))
        })
        .collect()
}

fn backends(ix: &Index, c: &Component, name: &str, selector: &str, ns: &str) -> ServingRouter {
    let mut out = ServingRouter {
        component: c.id.clone(),
        name: name.to_string(),
        selector: selector.to_string(),
        namespace: ns.to_string(),
        pods_in_bundle: false,
        pods: 0,
        ready_pods: 0,
        not_ready_pods: Vec::new(),
    };
    let sel = equality_selector(selector);
    let live: Vec<ObjId> = super::live_pods(ix, |n| n == ns).collect();
    out.pods_in_bundle = !live.is_empty();
    let Some(sel) = sel else {
        return out;
    };
    for p in live {
        let pv = ix.value(p);
        if !crate::json::selects(&sel, crate::json::labels(&pv)) {
            continue;
        }
        out.pods += 1;
        if ready(&pv) {
            out.ready_pods += 1;
        } else {
            out.not_ready_pods.push(ix.object(p).name.to_string());
        }
    }
    out.not_ready_pods.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::{arg, equality_selector};
    use serde_json::json;

    #[test]
    fn a_flag_is_read_in_both_forms_and_a_selector_only_with_equalities() {
        let args = ["--port", "8000", "--k8s-label-selector=a=b,c=d", "--x"];
        assert_eq!(arg(&args, "--port").as_deref(), Some("8000"));
        assert_eq!(
            arg(&args, "--k8s-label-selector").as_deref(),
            Some("a=b,c=d")
        );
        assert_eq!(arg(&args, "--x"), None);
        let sel = equality_selector("a=b, c==d").expect("equalities");
        assert_eq!(serde_json::Value::Object(sel), json!({"a": "b", "c": "d"}));
        assert!(equality_selector("a!=b").is_none());
        assert!(equality_selector("tier in (x)").is_none());
    }
}
