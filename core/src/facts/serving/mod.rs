//! Facts of the serving layer, at `$.facts.serving`: null when no DynamoGraphDeployment or
//! InferencePool is linked and no pod belongs to a serving stack or runs a known simulator.
//!
//! Every field is documented on [`ServingFacts`] and its parts, from which `docs/view.md` and
//! the schema rule paths are checked against are generated. The DGD's components (`dgd`), its
//! need for NATS (`nats`) and the InferencePool (`pool`) are built in their own files; the view's
//! pods' stack and simulators here.

mod backends;
mod dgd;
mod monitor;
mod nats;
mod pool;
mod router;
mod routes;

pub use backends::KnativeRoute;
pub use dgd::{DgdComponent, ServingDgd};
pub use monitor::MonitorGap;
pub use nats::ServingNats;
pub use pool::{PICKER_ARGS, PoolCondition, PoolEpp, ServingPool};
pub use router::ServingRouter;
pub(crate) use router::{arg, container_args};
pub use routes::RouteGap;

use super::Ctx;
use crate::index::{Index, ObjId};
use crate::json::At as _;
use serde::Serialize;
use serde_json::Value;

/// What the serving layer shows of the work: the Dynamo graph or InferencePool it belongs to,
/// the serving stack of its pod, and simulators that ask for GPUs. A key is present only when
/// it applies.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ServingFacts {
    /// The view's DynamoGraphDeployment (subject `dynamoGraphDeployment`) by component;
    /// absent when there is none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dgd: Option<ServingDgd>,
    /// What in that DGD asks for NATS and whether NATS is there; present with `dgd`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nats: Option<ServingNats>,
    /// The view's InferencePool (subject `inferencePool`); absent when there is none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inference_pool: Option<ServingPool>,
    /// `dynamo`, `llm-d` or `kserve` when the view's pod belongs to a serving stack, by a label
    /// key or container image containing a mark of it (such as `nvidia.com/dynamo-`,
    /// `ai-dynamo/`, `llm-d.ai/`, `/llm-d/`, `serving.kserve.io/`): the stack's operator or
    /// chart wrote the pod, its probes included. Absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stack: Option<String>,
    /// The view's serving router (its pod, or the Deployment that makes it) and the model
    /// servers its own discovery selector finds; absent when the view is no router whose
    /// registry entry names a selector argument.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub router: Option<ServingRouter>,
    /// The target's backend references (`spec.backendRef`, `spec.backendRefs`,
    /// `spec.rules[].backendRefs`) that name a Serverless InferenceService's Knative route
    /// Service; absent when none does.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub knative_routes: Vec<KnativeRoute>,
    /// Where the target's Gateway API routes (the target itself, an HTTPRoute or GRPCRoute,
    /// or the routes it owns) lead requests nowhere: a rule with no backend, a backend named
    /// under the wrong API group. Absent when none does.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub route_gaps: Vec<RouteGap>,
    /// With a PodMonitor target that selects a serving stack's pods: the pod labels its
    /// relabelings copy (`__meta_kubernetes_pod_label_<name>`) that none of those pods carries;
    /// absent when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub monitor_gaps: Vec<MonitorGap>,
    /// Containers of the view's pods (`pod` and `$.pods`) whose image is the llm-d inference
    /// simulator (`llm-d-inference-sim`) and that request or limit `nvidia.com/gpu` above 0;
    /// absent when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub simulator_gpu: Vec<SimulatorGpu>,
}

/// A simulator container that asks for GPUs it never uses.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct SimulatorGpu {
    /// The pod's name.
    pub pod: String,
    /// The container's name as the pod spec gives it.
    pub container: Value,
    /// The container's image.
    pub image: String,
    /// The larger of its `nvidia.com/gpu` request and limit.
    pub gpus: f64,
}

/// Label prefixes and image fragments that mark a pod as part of a serving stack, with the
/// stack's name.
const STACK_MARKS: &[(&str, &str)] = &[
    ("nvidia.com/dynamo-", "dynamo"),
    ("ai-dynamo/", "dynamo"),
    ("llm-d.ai/", "llm-d"),
    ("/llm-d/", "llm-d"),
    ("serving.kserve.io/", "kserve"),
];

/// The serving layer's facts for one view: none when nothing of a serving stack is linked.
pub fn facts(ctx: &Ctx) -> Option<ServingFacts> {
    // These depend on the DGD or pool alone: computed once per index for all views that link it.
    let (dgd, nats) = match subject(ctx, "dynamoGraphDeployment") {
        Some(dgd) => {
            let f = ctx.ix.once_for("serving.dgd", dgd, || {
                (dgd::dgd(ctx.ix, dgd), nats::nats(ctx.ix, dgd))
            });
            (Some(f.0.clone()), Some(f.1.clone()))
        }
        None => (None, None),
    };
    let inference_pool = subject(ctx, "inferencePool").map(|pool| {
        let f = ctx
            .ix
            .once_for("serving.pool", pool, || pool::pool(ctx.ix, pool));
        f.as_ref().clone()
    });
    let simulator_gpu: Vec<SimulatorGpu> = ctx
        .view_pods()
        .iter()
        .flat_map(|&(p, v)| simulator_gpu(ctx.ix, p, v))
        .collect();
    let stack = ctx
        .pod_value()
        .and_then(|p| stack_of(&p))
        .map(str::to_string);
    let router = router::router(ctx);
    let knative_routes = backends::knative_routes(ctx);
    let route_gaps = routes::route_gaps(ctx);
    let monitor_gaps = monitor::monitor_gaps(ctx);
    let linked = !monitor_gaps.is_empty()
        || dgd.is_some()
        || inference_pool.is_some()
        || router.is_some()
        || !knative_routes.is_empty()
        || !route_gaps.is_empty();
    (linked || stack.is_some() || !simulator_gpu.is_empty()).then_some(ServingFacts {
        dgd,
        nats,
        inference_pool,
        stack,
        router,
        knative_routes,
        route_gaps,
        monitor_gaps,
        simulator_gpu,
    })
}

/// The object a view subject stands for, found again in the index by its kind.
fn subject(ctx: &Ctx, name: &str) -> Option<ObjId> {
    let s = ctx.subjects.get(name)?;
    let ns = s.at("/metadata/namespace").and_then(Value::as_str);
    let n = s.at("/metadata/name").and_then(Value::as_str)?;
    let kind = s.get("kind").and_then(Value::as_str)?;
    ctx.ix.find(kind, ns, n)
}

/// A label's value, empty ones included (unlike `crate::json::label`).
fn label<'v>(v: &'v Value, key: &str) -> Option<&'v str> {
    v.at("/metadata/labels")
        .and_then(|l| l.get(key))
        .and_then(Value::as_str)
}

/// The bundle's live (not finished) pods in the namespaces `in_ns` accepts: the pods a pool, a
/// router or a monitor can select.
fn live_pods<'i>(
    ix: &'i Index,
    in_ns: impl Fn(&str) -> bool + 'i,
) -> impl Iterator<Item = ObjId> + 'i {
    ix.of_kind("Pod")
        .iter()
        .copied()
        .filter(move |&p| in_ns(ix.object(p).namespace().unwrap_or("")))
        .filter(move |&p| !ix.pod(p).is_some_and(|i| i.terminal()))
}

/// The DGD's live pods, by label in its namespace, with their JSON.
fn dgd_pods(ix: &Index, dgd: ObjId) -> Vec<(ObjId, Value)> {
    let o = ix.object(dgd);
    // The index keeps pods by this label, so only the DGD's own pods are parsed.
    ix.pods_of_dgd(o.namespace(), &o.name)
        .iter()
        .copied()
        .map(|p| (p, ix.value(p)))
        .filter(|(_, v)| label(v, "nvidia.com/dynamo-graph-deployment-name") == Some(&o.name))
        .filter(|(p, _)| !ix.pod(*p).is_some_and(|i| i.terminal()))
        .collect()
}

/// The serving stack a pod belongs to, by its labels or its containers' images: the stack's
/// operator or chart wrote the pod, its probes included.
fn stack_of(pod: &Value) -> Option<&'static str> {
    let labels = pod
        .at("/metadata/labels")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|l| l.keys().map(String::as_str));
    let images = pod
        .at("/spec/containers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|c| c["image"].as_str());
    labels.chain(images).find_map(|s| {
        STACK_MARKS
            .iter()
            .find(|(m, _)| s.contains(m))
            .map(|(_, n)| *n)
    })
}

/// The pod's simulator containers that ask for GPUs.
fn simulator_gpu(ix: &Index, pod: ObjId, v: &Value) -> Vec<SimulatorGpu> {
    let name = ix.object(pod).name.clone();
    v.at("/spec/containers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|c| {
            let image = c["image"]
                .as_str()
                .filter(|i| i.contains("llm-d-inference-sim"))?;
            let gpus = ["requests", "limits"]
                .iter()
                .filter_map(|k| c.at(&format!("/resources/{k}/nvidia.com~1gpu")))
                .filter_map(crate::quantity::from_value)
                .fold(0.0_f64, f64::max);
            (gpus > 0.0).then(|| SimulatorGpu {
                pod: name.clone(),
                container: c["name"].clone(),
                image: image.to_string(),
                gpus,
            })
        })
        .collect()
}
