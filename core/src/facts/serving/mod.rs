//! Facts of the serving layer, at `$.facts.serving` (null when no DynamoGraphDeployment or
//! InferencePool is linked and no pod runs a known simulator).
//!
//! Shape (every key present only when it applies):
//!
//! - `dgd`: `{name, components: [{name, type, pods, ready, pending, notReady: [pod]}],
//!   frontendsReady, workers, workersReady, workersNotReady: [pod], workersPending}` — the DGD's pods (label
//!   `nvidia.com/dynamo-graph-deployment-name`, same namespace) grouped by
//!   `nvidia.com/dynamo-component` with the type from `nvidia.com/dynamo-component-type`.
//!   Workers are every type other than `frontend`, `planner` and `epp`.
//! - `nats`: `{uses: [why], server, serverService, serverServiceFound, natsPods, natsServices}` —
//!   what in the DGD's pods (container env and args) or the DGD spec asks for NATS
//!   (`DYN_EVENT_PLANE=nats`, `DYN_REQUEST_PLANE=nats`, `NATS_SERVER=<url>`, a `"publisher":"nats"`
//!   KV-events config, `--event-plane nats`), the Service the `NATS_SERVER` URL names
//!   (`nats://<svc>[.<ns>[.svc…]]:<port>`; null for an IP address or an outside host) and whether
//!   it is in the bundle, and the number of
//!   `nats` pods and Services in the bundle (name `nats`, starting `nats-` or containing `-nats`).
//! - `inferencePool`: `{name, apiVersion, parents, accepted, resolvedRefs, epp: {name, kind,
//!   port, serviceFound}, pods, readyPods, notReadyPods: [pod]}` — `accepted` / `resolvedRefs`
//!   are the first parent's condition `{status, reason, message}` (v1 `status.parents[]`,
//!   v1alpha2 `status.parent[]`) or null; `epp` comes from v1 `spec.endpointPickerRef` or
//!   v1alpha2 `spec.extensionRef`; `pods` counts the pods the selector matches in the pool's
//!   namespace (v1 `matchLabels`, v1alpha2 plain map). `gatewayWritesStatus`: some pool or
//!   HTTPRoute of the bundle has a parent in its status (a Gateway controller that writes status
//!   is at work; without one, a pool's empty status proves nothing). `podsInBundle`: the bundle
//!   holds some Pod of the pool's namespace. `serviceFound` is null when the bundle
//!   holds no Service of the pool's namespace (a pasted pool alone proves no Service absent).
//! - `stack`: `dynamo`, `llm-d` or `kserve` when the view's pod belongs to a serving stack (by
//!   a label prefix such as `nvidia.com/dynamo-` or `llm-d.ai/`, or its image), else absent.
//! - `simulatorGpu`: `[{pod, container, image, gpus}]` — containers of the view's pods whose
//!   image is the llm-d inference simulator (`llm-d-inference-sim`) and that request or limit
//!   `nvidia.com/gpu` above 0.

use super::Ctx;
use crate::index::{Index, ObjId};
use serde_json::{Map, Value, json};

/// The serving layer's facts for one view.
/// Label prefixes and image fragments that mark a pod as part of a serving stack, with the
/// stack's name.
const STACK_MARKS: &[(&str, &str)] = &[
    ("nvidia.com/dynamo-", "dynamo"),
    ("ai-dynamo/", "dynamo"),
    ("llm-d.ai/", "llm-d"),
    ("/llm-d/", "llm-d"),
    ("serving.kserve.io/", "kserve"),
];

/// The serving stack a pod belongs to, by its labels or its containers' images: the stack's
/// operator or chart wrote the pod, its probes included.
fn stack_of(pod: &Value) -> Option<&'static str> {
    let labels = pod
        .pointer("/metadata/labels")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|l| l.keys().map(String::as_str));
    let images = pod
        .pointer("/spec/containers")
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

pub fn facts(ctx: &Ctx) -> Value {
    let mut out = Map::new();
    // These depend on the DGD or pool alone: computed once per index for all views that link it.
    if let Some(dgd) = subject(ctx, "dynamoGraphDeployment") {
        let f = ctx.ix.once_for("serving.dgd", dgd, || {
            (dgd_fact(ctx.ix, dgd), nats_fact(ctx.ix, dgd))
        });
        out.insert("dgd".into(), f.0.clone());
        out.insert("nats".into(), f.1.clone());
    }
    if let Some(pool) = subject(ctx, "inferencePool") {
        let f = ctx
            .ix
            .once_for("serving.pool", pool, || pool_fact(ctx.ix, pool));
        out.insert("inferencePool".into(), f.as_ref().clone());
    }
    let pods = ctx.view_pods();
    let sims: Vec<Value> = pods
        .iter()
        .flat_map(|&(p, v)| simulator_gpu(ctx.ix, p, v))
        .collect();
    if !sims.is_empty() {
        out.insert("simulatorGpu".into(), Value::Array(sims));
    }
    if let Some(stack) = ctx.pod_value().and_then(|p| stack_of(&p)) {
        out.insert("stack".into(), json!(stack));
    }
    if out.is_empty() {
        Value::Null
    } else {
        Value::Object(out)
    }
}

fn subject(ctx: &Ctx, name: &str) -> Option<ObjId> {
    let s = ctx.subjects.get(name)?;
    let ns = s.pointer("/metadata/namespace").and_then(Value::as_str);
    let n = s.pointer("/metadata/name").and_then(Value::as_str)?;
    let kind = s.get("kind").and_then(Value::as_str)?;
    ctx.ix.find(kind, ns, n)
}

fn label<'v>(v: &'v Value, key: &str) -> Option<&'v str> {
    v.pointer("/metadata/labels")
        .and_then(|l| l.get(key))
        .and_then(Value::as_str)
}

fn ready(v: &Value) -> bool {
    v.pointer("/status/conditions")
        .and_then(Value::as_array)
        .is_some_and(|cs| {
            cs.iter()
                .any(|c| c["type"] == "Ready" && c["status"] == "True")
        })
}

fn dgd_pods(ix: &Index, dgd: ObjId) -> Vec<(ObjId, Value)> {
    let o = ix.object(dgd);
    // The index keeps pods by this label, so only the DGD's own pods are parsed.
    ix.pods_of_dgd(o.namespace.as_deref(), &o.name)
        .iter()
        .copied()
        .map(|p| (p, ix.value(p)))
        .filter(|(_, v)| label(v, "nvidia.com/dynamo-graph-deployment-name") == Some(&o.name))
        .filter(|(p, _)| !ix.pod(*p).is_some_and(|i| i.terminal()))
        .collect()
}

/// A pod of a component: (name, ready, pending).
type PodRow = (String, bool, bool);

fn dgd_fact(ix: &Index, dgd: ObjId) -> Value {
    let pods = dgd_pods(ix, dgd);
    let mut comps: Vec<(String, String, Vec<PodRow>)> = Vec::new();
    for (p, v) in &pods {
        let comp = label(v, "nvidia.com/dynamo-component")
            .unwrap_or("")
            .to_string();
        let ty = label(v, "nvidia.com/dynamo-component-type")
            .unwrap_or("")
            .to_string();
        let pending = v.pointer("/status/phase").and_then(Value::as_str) == Some("Pending");
        let row = (ix.object(*p).name.clone(), ready(v), pending);
        match comps.iter_mut().find(|c| c.0 == comp) {
            Some(c) => c.2.push(row),
            None => comps.push((comp, ty, vec![row])),
        }
    }
    comps.sort_by(|a, b| a.0.cmp(&b.0));
    let is_worker = |t: &str| !matches!(t, "frontend" | "planner" | "epp");
    let mut frontends_ready = 0;
    let mut workers = 0;
    let mut workers_ready = 0;
    let mut workers_not_ready = Vec::new();
    let mut workers_pending = 0;
    let rows: Vec<Value> = comps
        .iter()
        .map(|(name, ty, ps)| {
            let r = ps.iter().filter(|x| x.1).count();
            if ty == "frontend" {
                frontends_ready += r;
            } else if is_worker(ty) {
                workers += ps.len();
                workers_ready += r;
                workers_not_ready.extend(ps.iter().filter(|x| !x.1).map(|x| x.0.clone()));
                workers_pending += ps.iter().filter(|x| x.2).count();
            }
            json!({"name": name, "type": ty, "pods": ps.len(), "ready": r,
                "pending": ps.iter().filter(|x| x.2).count(),
                "notReady": ps.iter().filter(|x| !x.1).map(|x| x.0.clone()).collect::<Vec<_>>()})
        })
        .collect();
    json!({
        "name": ix.object(dgd).name,
        "components": rows,
        "frontendsReady": frontends_ready,
        "workers": workers,
        "workersReady": workers_ready,
        "workersNotReady": workers_not_ready,
        "workersPending": workers_pending,
    })
}

/// Live NATS pods and NATS Services anywhere in the bundle: the same for every graph, so
/// counted once per index rather than over every pod for each DGD a scan meets.
fn nats_in_cluster(ix: &Index) -> std::sync::Arc<(usize, usize)> {
    ix.once("serving.natsInCluster", || {
        let pods = ix
            .of_kind("Pod")
            .iter()
            .filter(|&&p| is_nats_name(&ix.object(p).name))
            .filter(|&&p| !ix.pod(p).is_some_and(|i| i.terminal()))
            .count();
        let services = ix
            .of_kind("Service")
            .iter()
            .filter(|&&s| is_nats_name(&ix.object(s).name))
            .count();
        (pods, services)
    })
}

fn is_nats_name(n: &str) -> bool {
    n == "nats" || n.starts_with("nats-") || n.contains("-nats")
}

/// Collect env entries `(name, value)` from any JSON under `v` shaped like an EnvVar list.
fn envs(v: &Value, out: &mut Vec<(String, String)>) {
    match v {
        Value::Object(m) => {
            if let (Some(Value::String(n)), Some(Value::String(val))) =
                (m.get("name"), m.get("value"))
            {
                out.push((n.clone(), val.clone()));
            }
            for x in m.values() {
                envs(x, out);
            }
        }
        Value::Array(a) => a.iter().for_each(|x| envs(x, out)),
        _ => {}
    }
}

fn args(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                if (k == "args" || k == "command")
                    && let Value::Array(a) = x
                {
                    out.extend(a.iter().filter_map(|s| s.as_str().map(str::to_string)));
                } else {
                    args(x, out);
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|x| args(x, out)),
        _ => {}
    }
}

fn nats_fact(ix: &Index, dgd: ObjId) -> Value {
    let ns = ix.object(dgd).namespace.clone();
    let mut env = Vec::new();
    let mut argv = Vec::new();
    let dv = ix.value(dgd);
    envs(&dv["spec"], &mut env);
    args(&dv["spec"], &mut argv);
    for (_, pv) in dgd_pods(ix, dgd) {
        envs(&pv["spec"], &mut env);
        args(&pv["spec"], &mut argv);
    }
    let mut uses: Vec<String> = Vec::new();
    let mut server: Option<String> = None;
    for (n, v) in &env {
        let hit = match n.as_str() {
            "DYN_EVENT_PLANE" | "DYN_REQUEST_PLANE" if v.eq_ignore_ascii_case("nats") => {
                Some(format!("{n}={v}"))
            }
            "NATS_SERVER" if !v.is_empty() => {
                server.get_or_insert_with(|| v.clone());
                Some(format!("{n}={v}"))
            }
            _ => None,
        };
        if let Some(h) = hit.filter(|h| !uses.contains(h)) {
            uses.push(h);
        }
    }
    let joined = argv.join(" ");
    let compact: String = joined.chars().filter(|c| !c.is_whitespace()).collect();
    if compact.contains("\"publisher\":\"nats\"") {
        uses.push("--kv-events-config with \"publisher\":\"nats\"".into());
    }
    if joined.contains("--event-plane nats") || joined.contains("--event-plane=nats") {
        uses.push("--event-plane nats".into());
    }
    // nats://<svc>[.<ns>[.svc...]]:<port>; an IP address or an outside host name is not a
    // Service this bundle could show (null: unknown).
    let (svc, svc_ns) = server
        .as_deref()
        .and_then(|s| {
            let host = s
                .split("://")
                .last()
                .unwrap_or(s)
                .split([':', '/'])
                .next()
                .unwrap_or("");
            let labels: Vec<&str> = host.split('.').collect();
            let ip = host.chars().all(|c| c.is_ascii_digit() || c == '.');
            let in_cluster = labels.len() <= 2 || labels.get(2) == Some(&"svc");
            if host.is_empty() || ip || host == "localhost" || !in_cluster {
                return None;
            }
            let sns = labels.get(1).map(|x| x.to_string()).or_else(|| ns.clone());
            Some((Some(labels[0].to_string()), sns))
        })
        .unwrap_or((None, None));
    let svc_found = svc
        .as_deref()
        .map(|n| ix.get("", "Service", svc_ns.as_deref(), n).is_some());
    let (nats_pods, nats_services) = *nats_in_cluster(ix);
    json!({
        "uses": uses,
        "server": server,
        "serverService": svc.map(|n| format!("{}/{}", svc_ns.unwrap_or_default(), n)),
        "serverServiceFound": svc_found,
        "natsPods": nats_pods,
        "natsServices": nats_services,
    })
}

fn first_parent(v: &Value) -> Option<&Value> {
    v.pointer("/status/parents/0")
        .or_else(|| v.pointer("/status/parent/0"))
}

fn condition(parent: Option<&Value>, ty: &str) -> Value {
    parent
        .and_then(|p| p["conditions"].as_array())
        .and_then(|cs| cs.iter().find(|c| c["type"] == ty))
        .map_or(
            Value::Null,
            |c| json!({"status": c["status"], "reason": c["reason"], "message": c["message"]}),
        )
}

/// Whether the bundle shows a Gateway controller that writes route and pool status: a parent
/// in any InferencePool's or HTTPRoute's status. Some implementations never write a pool's
/// status, so a pool without parents proves nothing unless this holds. Once per index.
fn gateway_writes_status(ix: &Index) -> bool {
    *ix.once("serving.gatewayWritesStatus", || {
        ["InferencePool", "HTTPRoute"].iter().any(|k| {
            ix.of_kind(k).iter().any(|&id| {
                let v = ix.value(id);
                v.pointer("/status/parents")
                    .or_else(|| v.pointer("/status/parent"))
                    .and_then(Value::as_array)
                    .is_some_and(|a| !a.is_empty())
            })
        })
    })
}

fn pool_fact(ix: &Index, pool: ObjId) -> Value {
    let o = ix.object(pool);
    let v = ix.value(pool);
    let parents = v
        .pointer("/status/parents")
        .or_else(|| v.pointer("/status/parent"))
        .and_then(Value::as_array)
        .map_or(0, |a| {
            a.iter()
                .filter(|p| p.pointer("/parentRef/kind").and_then(Value::as_str) != Some("Status"))
                .count()
        });
    let parent = first_parent(&v);
    let epp_ref = v
        .pointer("/spec/endpointPickerRef")
        .or_else(|| v.pointer("/spec/extensionRef"));
    let epp = epp_ref.map_or(Value::Null, |r| {
        let name = r["name"].as_str().unwrap_or("");
        let kind = r["kind"].as_str().unwrap_or("Service");
        let port = r
            .pointer("/port/number")
            .or_else(|| r.get("portNumber"))
            .cloned()
            .unwrap_or(Value::Null);
        // Unknown (null) when the bundle holds no Service of the namespace at all: a pasted pool
        // alone says nothing about which Services exist.
        let services_read = ix
            .of_kind("Service")
            .iter()
            .any(|&id| ix.object(id).namespace == o.namespace);
        let found = if kind != "Service"
            || ix
                .get("", "Service", o.namespace.as_deref(), name)
                .is_some()
        {
            json!(true)
        } else if services_read {
            json!(false)
        } else {
            Value::Null
        };
        json!({"name": name, "kind": kind, "port": port, "serviceFound": found})
    });
    let mut pods = 0;
    let mut ready_pods = 0;
    let mut not_ready = Vec::new();
    if let Some(sel) = crate::json::match_labels(&v, true) {
        for &p in ix.of_kind("Pod") {
            if ix.object(p).namespace != o.namespace || ix.pod(p).is_some_and(|i| i.terminal()) {
                continue;
            }
            let pv = ix.value(p);
            if crate::json::selects(sel, crate::json::labels(&pv)) {
                pods += 1;
                if ready(&pv) {
                    ready_pods += 1;
                } else {
                    not_ready.push(ix.object(p).name.clone());
                }
            }
        }
    }
    json!({
        "name": o.name,
        "apiVersion": o.api_version,
        "parents": parents,
        "gatewayWritesStatus": gateway_writes_status(ix),
        "accepted": condition(parent, "Accepted"),
        "resolvedRefs": condition(parent, "ResolvedRefs"),
        "epp": epp,
        "pods": pods,
        // A pool pasted without its namespace's pods selects none of them, which proves nothing.
        "podsInBundle": ix.of_kind("Pod").iter().any(|&p| ix.object(p).namespace == o.namespace),
        "readyPods": ready_pods,
        "notReadyPods": not_ready,
    })
}

fn simulator_gpu(ix: &Index, pod: ObjId, v: &Value) -> Vec<Value> {
    let name = ix.object(pod).name.clone();
    v.pointer("/spec/containers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|c| {
            c["image"]
                .as_str()
                .is_some_and(|i| i.contains("llm-d-inference-sim"))
        })
        .filter_map(|c| {
            let gpus = ["requests", "limits"]
                .iter()
                .filter_map(|k| c.pointer(&format!("/resources/{k}/nvidia.com~1gpu")))
                .filter_map(crate::quantity::from_value)
                .fold(0.0_f64, f64::max);
            (gpus > 0.0).then(
                || json!({"pod": name, "container": c["name"], "image": c["image"], "gpus": gpus}),
            )
        })
        .collect()
}
