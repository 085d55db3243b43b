//! Facts a JSON path cannot express, computed in Rust and placed in the view under `$.facts`.
//! Each function documents the shape it returns; `docs/view.md` lists them for rule authors.

pub mod signals;

use crate::index::{Index, NodeInfo, NodeTables, ObjId, untolerated};
use crate::quantity;
use regex::Regex;
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use std::sync::LazyLock;

static AVAILABLE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^0/(\d+) nodes are available:?\s*").expect("static regex"));
static ENTRY: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(\d+) (.+)$").expect("static regex"));
static KAI_PREFIX: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^no nodes with enough resources were found:\s*").expect("static regex")
});

/// Parse a scheduler's "why not" message.
///
/// kube-scheduler (`FitError.Error()`, 1.30–1.36): `0/N nodes are available: <sorted "COUNT
/// REASON" entries>. [<post-filter text>, ]preemption: 0/N nodes are available: <entries>.`
/// A PreFilter rejection has one sentence and no counts. KAI-Scheduler: `no nodes with enough
/// resources were found: COUNT REASON[. COUNT REASON].`
///
/// Returns `{message, nodes, reasons: [{count, reason, kind}], kinds: [..], insufficient: [..],
/// preFilter, postFilter, preemption: {nodes, reasons, helpful} | null}`.
pub fn parse_scheduling_message(message: &str) -> Value {
    let msg = message.trim();
    let (head, preemption) = match msg.find("preemption: ") {
        Some(i) => (&msg[..i], Some(&msg[i + "preemption: ".len()..])),
        None => (msg, None),
    };
    let mut out = Map::new();
    out.insert("message".into(), json!(message));
    let mut reasons = Vec::new();
    let mut pre_filter = Value::Null;
    let mut post_filter = Value::Null;
    if let Some(caps) = AVAILABLE.captures(head) {
        out.insert("nodes".into(), json!(caps[1].parse::<u64>().unwrap_or(0)));
        let body = &head[caps[0].len()..];
        // The histogram ends at the first ". "; what follows before `preemption:` is the
        // PostFilter's own text (e.g. DRA's "still not schedulable, ").
        let (hist, rest) = split_sentence(body);
        let parsed = parse_entries(hist);
        if parsed.is_empty() && !hist.is_empty() {
            pre_filter = json!(hist);
        }
        reasons = parsed;
        let rest = rest.trim().trim_end_matches(',').trim();
        if !rest.is_empty() {
            post_filter = json!(rest);
        }
    } else if let Some(m) = KAI_PREFIX.find(head) {
        let body = &head[m.end()..];
        reasons = body
            .split(['\n'])
            .flat_map(|s| s.split(". "))
            .flat_map(|s| parse_entries(s.trim().trim_end_matches('.')))
            .collect();
    }
    let kinds: Vec<&str> = {
        let mut k: Vec<&str> = reasons.iter().filter_map(|r| r["kind"].as_str()).collect();
        k.sort_unstable();
        k.dedup();
        k
    };
    let mut insufficient: Vec<String> = reasons
        .iter()
        .filter_map(|r| r["resource"].as_str().map(str::to_string))
        .collect();
    insufficient.sort();
    insufficient.dedup();
    out.insert("kinds".into(), json!(kinds));
    out.insert("insufficient".into(), json!(insufficient));
    out.insert("reasons".into(), Value::Array(reasons));
    out.insert("preFilter".into(), pre_filter);
    out.insert("postFilter".into(), post_filter);
    let pre = preemption.map(|p| {
        let p = p.trim();
        let (nodes, body) = match AVAILABLE.captures(p) {
            Some(c) => (c[1].parse::<u64>().unwrap_or(0), &p[c[0].len()..]),
            None => (0, p),
        };
        let (hist, _) = split_sentence(body);
        let reasons = parse_entries(hist);
        let helpful = !reasons.iter().all(|r| {
            r["reason"].as_str().is_some_and(|s| {
                s.starts_with("Preemption is not helpful") || s.starts_with("No preemption victims")
            })
        });
        json!({"nodes": nodes, "reasons": reasons, "helpful": helpful})
    });
    out.insert("preemption".into(), pre.unwrap_or(Value::Null));
    Value::Object(out)
}

/// Split at the end of the first sentence: a "." followed by a space or the end.
fn split_sentence(s: &str) -> (&str, &str) {
    let b = s.as_bytes();
    for i in 0..b.len() {
        if b[i] == b'.' && (i + 1 == b.len() || b[i + 1] == b' ' || b[i + 1] == b'.') {
            let rest = s[i + 1..].trim_start_matches('.');
            return (s[..i].trim(), rest);
        }
    }
    (s.trim(), "")
}

fn parse_entries(hist: &str) -> Vec<Value> {
    let mut out = Vec::new();
    // Entries are "COUNT REASON" joined by ", "; a reason may itself contain ", " (taint
    // values), so a fragment without a leading count continues the previous reason.
    for part in hist.split(", ") {
        match ENTRY.captures(part) {
            Some(c) => {
                let reason = c[2].trim().to_string();
                out.push((c[1].parse::<u64>().unwrap_or(0), reason));
            }
            None => match out.last_mut() {
                Some(last) => {
                    last.1.push_str(", ");
                    last.1.push_str(part);
                }
                None => return Vec::new(),
            },
        }
    }
    out.into_iter()
        .map(|(count, reason)| {
            let (kind, resource) = classify(&reason);
            json!({"count": count, "reason": reason, "kind": kind, "resource": resource})
        })
        .collect()
}

/// Which kind of node-level rejection a reason is, and the resource it names if any.
fn classify(reason: &str) -> (&'static str, Option<String>) {
    if let Some(r) = reason.strip_prefix("Insufficient ") {
        return ("insufficient", Some(r.trim().to_string()));
    }
    if let Some(r) = reason.strip_prefix("node(s) didn't have enough resources: ") {
        let r = match r.trim() {
            "GPUs" => "nvidia.com/gpu",
            "CPU cores" => "cpu",
            "memory" => "memory",
            other => other,
        };
        return ("insufficient", Some(r.to_string()));
    }
    let table: &[(&str, &str)] = &[
        ("untolerated taint", "taint"),
        ("didn't match Pod's node affinity/selector", "affinity"),
        ("didn't match scheduler-enforced node affinity", "affinity"),
        ("were unschedulable", "cordoned"),
        ("had unknown conditions", "cordoned"),
        ("didn't match the requested node name", "nodeName"),
        ("persistent volume", "volume"),
        ("PersistentVolume", "volume"),
        ("volume node affinity", "volume"),
        ("enough free storage", "volume"),
        ("pvc(s)", "volume"),
        ("pod affinity rules", "podAffinity"),
        ("pod anti-affinity rules", "podAffinity"),
        ("anti-affinity rules", "podAffinity"),
        ("topology spread", "topologySpread"),
        ("claims", "dra"),
        ("resourceclaim", "dra"),
        ("allocate devices", "dra"),
        ("cannot fit resource", "dra"),
        ("extended resource claim", "dra"),
        ("Too many pods", "podsFull"),
        ("pod number exceeded", "podsFull"),
        ("mig profile", "insufficient"),
        ("node(s) had", "nodeCondition"),
    ];
    let kind = table
        .iter()
        .find(|(needle, _)| reason.contains(needle))
        .map_or("other", |(_, k)| k);
    (kind, None)
}

/// Does a node pass the pod's nodeSelector and tolerate the node's NoSchedule/NoExecute taints?
/// (Required node affinity is not evaluated; the scheduler's own message covers it.)
pub fn node_eligible(node: &NodeInfo, pod: &Value) -> bool {
    Eligibility::of(pod).admits(node)
}

/// A pod's nodeSelector and tolerations, read once to test many nodes (what [`node_eligible`]
/// tests).
pub struct Eligibility<'v> {
    selector: Option<Vec<(&'v str, Option<&'v str>)>>,
    tolerations: Option<&'v Vec<Value>>,
    /// [`NodeTables::tolerated_sets`] for these tolerations, once asked
    /// ([`Eligibility::tolerates_at`]).
    tolerated_sets: std::cell::OnceCell<Vec<bool>>,
}

impl<'v> Eligibility<'v> {
    pub fn of(pod: &'v Value) -> Eligibility<'v> {
        Eligibility {
            selector: pod
                .pointer("/spec/nodeSelector")
                .and_then(Value::as_object)
                .map(|sel| sel.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect()),
            tolerations: pod.pointer("/spec/tolerations").and_then(Value::as_array),
            tolerated_sets: std::cell::OnceCell::new(),
        }
    }

    /// [`Eligibility::admits`] for the node at `pos` of `tables` (always the same tables).
    pub fn admits_at(&self, tables: &NodeTables, pos: usize) -> bool {
        self.selects(&tables.nodes[pos]) && self.tolerates_at(tables, pos)
    }

    /// [`Eligibility::tolerates_taints`] for the node at `pos` of `tables` (always the same
    /// tables): tested once per distinct set of taints, not per node.
    pub fn tolerates_at(&self, tables: &NodeTables, pos: usize) -> bool {
        let Some(set) = tables.taint_set_of[pos] else {
            return true;
        };
        self.tolerated_sets
            .get_or_init(|| tables.tolerated_sets(self.tolerations()))[set]
    }

    fn tolerations(&self) -> &'v [Value] {
        self.tolerations.map_or(&[], Vec::as_slice)
    }

    /// The node carries every label the nodeSelector asks for.
    pub fn selects(&self, node: &NodeInfo) -> bool {
        self.selector.as_ref().is_none_or(|sel| {
            sel.iter()
                .all(|(k, v)| node.labels.get(*k).map(String::as_str) == *v)
        })
    }

    /// Whether the pod has a nodeSelector (else only taints decide).
    pub fn has_selector(&self) -> bool {
        self.selector.is_some()
    }

    pub fn admits(&self, node: &NodeInfo) -> bool {
        self.selects(node) && self.tolerates_taints(node)
    }

    /// Every NoSchedule/NoExecute taint of the node is tolerated.
    pub fn tolerates_taints(&self, node: &NodeInfo) -> bool {
        untolerated(
            self.tolerations(),
            node.taints.iter().filter(|t| t.is_hard()),
        )
        .next()
        .is_none()
    }
}

/// Per extended resource the pod asks for: what the nodes advertise and hold.
///
/// For each resource (names with a `/`, plus any the scheduler called insufficient):
/// `{name, request, advertisingNodes, allocatable, capacity, requested, free, maxFree,
/// maxAllocatable, eligibleNodes, eligibleMaxFree, fit, capacityWithoutAllocatable, closest:
/// [{node, allocatable, requested, free}]}` where `fit` is `noneAdvertised` (no node has any
/// allocatable), `neverFits` (no node could ever hold the request), `noneFreeNow` (some node
/// could, none has it free now) or `fitsSomewhere` (a node has it free: the reason is elsewhere);
/// `schedulerInsufficient` says whether the scheduler's message named this resource.
pub fn resources(
    ix: &Index,
    requests: &BTreeMap<String, f64>,
    extra: &[String],
    pod: &Value,
) -> Value {
    let mut names: Vec<&String> = requests.keys().filter(|r| r.contains('/')).collect();
    for r in extra {
        if requests.contains_key(r) && !names.contains(&r) {
            names.push(r);
        }
    }
    names.sort();
    // The per-node sums and the ranking are the same for every pod (computed once per index);
    // only which nodes the pod may use is its own.
    let tables = ix.node_tables();
    let elig = Eligibility::of(pod);
    let none = crate::index::ResourceTable::default();
    let mut out = Vec::new();
    for name in names {
        let want = requests[name];
        let t = tables.resources.get(name.as_str()).unwrap_or(&none);
        let node = |pos: usize| &tables.nodes[pos];
        let advertising = t.rows.len() as u64;
        let (alloc_total, cap_total, req_total) = (t.allocatable, t.capacity, t.requested);
        let (max_free, max_alloc) = (t.max_free, t.max_allocatable);
        let (mut eligible, mut elig_max_free) = (0u64, 0.0f64);
        if elig.has_selector() {
            for r in &t.rows {
                if elig.admits_at(&tables, r.pos) {
                    eligible += 1;
                    elig_max_free = elig_max_free.max(r.free);
                }
            }
        } else {
            // Without a nodeSelector an untainted node always admits the pod.
            eligible = t.untainted;
            elig_max_free = t.untainted_max_free;
            for r in t.rows.iter().filter(|r| r.hard_tainted) {
                if elig.tolerates_at(&tables, r.pos) {
                    eligible += 1;
                    elig_max_free = elig_max_free.max(r.free);
                }
            }
        }
        let cap_no_alloc: Vec<&String> = t
            .capacity_without_allocatable
            .iter()
            .map(|&p| &node(p).name)
            .collect();
        let fit = if advertising == 0 {
            "noneAdvertised"
        } else if max_alloc < want {
            "neverFits"
        } else if max_free < want {
            "noneFreeNow"
        } else {
            "fitsSomewhere"
        };
        let closest: Vec<Value> = t
            .rows
            .iter()
            .take(3)
            .map(|r| json!({"node": node(r.pos).name, "allocatable": num(r.allocatable), "requested": num(r.requested), "free": num(r.free)}))
            .collect();
        out.push(json!({
            "name": name, "request": num(want), "advertisingNodes": advertising,
            "allocatable": num(alloc_total), "capacity": num(cap_total), "requested": num(req_total),
            "free": num((alloc_total - req_total).max(0.0)), "maxFree": num(max_free), "maxAllocatable": num(max_alloc),
            "eligibleNodes": eligible, "eligibleMaxFree": num(elig_max_free), "fit": fit,
            "capacityWithoutAllocatable": cap_no_alloc, "closest": closest,
            "schedulerInsufficient": extra.contains(name),
        }));
    }
    Value::Array(out)
}

/// Status of a pod as kubectl's STATUS column would show it, and whether it is settled
/// (Running and Ready, or Succeeded).
pub fn pod_status(pod: &Value) -> (String, bool) {
    use serde::Deserialize as _;
    // The same typed reader the index uses for every pod, so both agree by construction.
    match crate::index::PodIdx::deserialize(pod) {
        Ok(p) => p.status(),
        // One mistyped field (a label `version: 2`) must not make the pod "Unknown".
        Err(_) => {
            let mended = crate::index::lenient(pod.clone());
            crate::index::PodIdx::deserialize(&mended)
                .map_or_else(|_| ("Unknown".into(), false), |p| p.status())
        }
    }
}

/// How bad a pod's state is, for picking the pod that best explains its owner (lower = worse).
pub fn pod_rank(ix: &Index, id: ObjId) -> u8 {
    let Some(p) = ix.pod(id) else { return 9 };
    match (p.phase.as_str(), p.node.is_some(), p.ready) {
        ("Pending", false, _) => 0,
        ("Pending", true, _) => 1,
        ("Failed", _, _) => 2,
        ("Running", _, false) | ("Unknown", _, _) => 3,
        ("Succeeded", _, _) => 5,
        _ => 4,
    }
}

/// Members of the pod's group: `{kind, name, expected, present, running, ready, pending,
/// members: [{name, status, node}]}`; `expected` is null when nothing states a size.
pub fn group(
    kind: &str,
    name: &str,
    expected: Option<u64>,
    members: &[(String, String, bool, Option<String>)],
) -> Value {
    let running = members
        .iter()
        .filter(|m| m.1 == "Running" || m.1 == "Running (not ready)")
        .count();
    let ready = members.iter().filter(|m| m.2).count();
    let pending = members
        .iter()
        .filter(|m| !m.2 && m.1 != "Running" && m.1 != "Running (not ready)" && m.1 != "Completed")
        .count();
    json!({
        "kind": kind, "name": name, "expected": expected, "present": members.len(),
        "running": running, "ready": ready, "pending": pending,
        "missing": expected.map(|e| e.saturating_sub(members.len() as u64)),
        "members": members.iter().take(64).map(|m| json!({"name": m.0, "status": m.1, "ready": m.2, "node": m.3})).collect::<Vec<_>>(),
    })
}

/// Each resource request or limit of a pod's containers that is not a quantity, as
/// `container c: resources.limits["nvidia.com/gpu"] \`1e400\``, in spec order.
pub fn unreadable_quantities(pod: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for list in ["initContainers", "containers"] {
        for c in pod["spec"][list].as_array().into_iter().flatten() {
            for kind in ["requests", "limits"] {
                for (k, v) in c["resources"][kind].as_object().into_iter().flatten() {
                    if crate::quantity::from_value(v).is_none_or(|q| !q.is_finite()) {
                        let shown = match v {
                            Value::String(s) => s.clone(),
                            other => other.to_string(),
                        };
                        out.push(format!(
                            "container {}: resources.{kind}[\"{k}\"] `{shown}`",
                            c["name"].as_str().unwrap_or("?")
                        ));
                    }
                }
            }
        }
    }
    out
}

/// One `spec.replicatedJobs` entry of a JobSet, with JobSet's defaults (one replica, one pod
/// per Job). The one reading of a JobSet's spec: the group's size, the jobSet fact and the
/// grouping facts all count from it.
pub struct ReplicatedJob<'v> {
    pub name: &'v str,
    pub replicas: u64,
    /// The Job template's `parallelism`.
    pub pods_per_job: u64,
}

impl ReplicatedJob<'_> {
    /// How many of these Jobs (JobSet's children, as JSON) exist: by the
    /// `jobset.sigs.k8s.io/replicatedjob-name` label JobSet writes on each.
    pub fn present_in(&self, jobs: &[Value]) -> usize {
        jobs.iter()
            .filter(|j| {
                crate::json::label(j, "jobset.sigs.k8s.io/replicatedjob-name") == Some(self.name)
            })
            .count()
    }
}

/// A JobSet's child Jobs (by ownerReference), what [`ReplicatedJob::present_in`] counts in.
pub fn child_jobs(ix: &Index, jobset: ObjId) -> impl Iterator<Item = ObjId> + '_ {
    ix.children(jobset)
        .iter()
        .copied()
        .filter(move |&c| ix.object(c).kind == "Job")
}

/// A JobSet's replicated jobs, in spec order.
pub fn replicated_jobs(jobset: &Value) -> Vec<ReplicatedJob<'_>> {
    jobset
        .pointer("/spec/replicatedJobs")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|rj| ReplicatedJob {
            name: rj["name"].as_str().unwrap_or(""),
            replicas: rj["replicas"].as_u64().unwrap_or(1),
            pods_per_job: rj
                .pointer("/template/spec/parallelism")
                .and_then(Value::as_u64)
                .unwrap_or(1),
        })
        .collect()
}

/// The node labels a pod requires, in the order its spec gives them: each `nodeSelector` entry
/// (one value) and each `In` expression of its required node affinity (the values it allows).
/// Values that are not strings are left out. The one reading of a pod's label requirements:
/// the placement and device facts both build on it.
pub fn required_node_labels(pod: &Value) -> Vec<(String, Vec<String>)> {
    let mut wanted = Vec::new();
    if let Some(sel) = pod.pointer("/spec/nodeSelector").and_then(Value::as_object) {
        for (k, v) in sel {
            if let Some(v) = v.as_str() {
                wanted.push((k.clone(), vec![v.to_string()]));
            }
        }
    }
    let terms = pod
        .pointer("/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms")
        .and_then(Value::as_array);
    for t in terms.into_iter().flatten() {
        for e in t["matchExpressions"].as_array().into_iter().flatten() {
            if e["operator"] != "In" {
                continue;
            }
            let Some(k) = e["key"].as_str() else { continue };
            let vals = e["values"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect();
            wanted.push((k.to_string(), vals));
        }
    }
    wanted
}

/// The node label fake-gpu-operator reads a node's pool from, unless its topology names
/// another (`nodePoolLabelKey`). The live reader looks for it too, to know whether to read the
/// operator's ConfigMaps at all.
pub const FAKE_GPU_POOL_LABEL: &str = "run.ai/simulated-gpu-node-pool";

/// [`fake_gpu`], computed once per index: the view's `fakeGpu` fact and the install facts read
/// the same state.
pub fn fake_gpu_state(ix: &Index) -> std::sync::Arc<(Value, Option<ObjId>, Vec<ObjId>)> {
    ix.once("facts.fakeGpu", || fake_gpu(ix))
}

/// fake-gpu-operator: the pools the Helm values configure (ConfigMap `topology`, key
/// `topology.yml`) against what each pool node advertises and what its per-node ConfigMap
/// `topology-<node>` lists. Returns `{namespace, configMap, poolLabelKey, pools: [{name,
/// gpuCount}], nodes: [{node, pool, configured, advertised, nodeTopologyConfigMap,
/// nodeTopologyGpus, poolDefined, stale}], staleNodes: [..], unpooledGpuNodes: [..]}` or null
/// when the operator's topology is not in the bundle.
pub fn fake_gpu(ix: &Index) -> (Value, Option<ObjId>, Vec<ObjId>) {
    let Some((cm_id, cm)) = ix
        .named("ConfigMap", "topology")
        .into_iter()
        .map(|id| (id, ix.value(id)))
        .find(|(_, v)| v.pointer("/data/topology.yml").is_some())
    else {
        return (Value::Null, None, Vec::new());
    };
    let ns = ix.object(cm_id).namespace.clone();
    let topo: Value = cm
        .pointer("/data/topology.yml")
        .and_then(Value::as_str)
        .and_then(|t| serde_yaml_ng::from_str(t).ok())
        .unwrap_or(Value::Null);
    let label_key = topo["nodePoolLabelKey"]
        .as_str()
        .unwrap_or(FAKE_GPU_POOL_LABEL)
        .to_string();
    let mut pools = BTreeMap::new();
    if let Some(ps) = topo["nodePools"].as_object() {
        for (name, p) in ps {
            // Legacy values: gpuCount. Newer: gpu.overrides.devices lists each device.
            let count = p["gpuCount"].as_f64().or_else(|| {
                p.pointer("/gpu/overrides/devices")
                    .and_then(Value::as_array)
                    .map(|d| d.len() as f64)
            });
            pools.insert(name.clone(), count);
        }
    }
    let mut nodes = Vec::new();
    let mut stale = Vec::new();
    let mut cms = Vec::new();
    for node in ix.nodes().values() {
        let Some(pool) = node.labels.get(&label_key) else {
            continue;
        };
        let advertised = node.capacity.get("nvidia.com/gpu").copied();
        let configured = pools.get(pool).copied().flatten();
        let cm_name = format!("topology-{}", node.name);
        let node_cm = ix.find("ConfigMap", ns.as_deref(), &cm_name);
        let node_gpus = node_cm.and_then(|id| {
            cms.push(id);
            let v = ix.value(id);
            let t: Value = v
                .pointer("/data/topology.yml")
                .and_then(Value::as_str)
                .and_then(|t| serde_yaml_ng::from_str(t).ok())?;
            t["gpus"].as_array().map(|g| g.len() as f64)
        });
        let is_stale =
            matches!((configured, advertised.or(node_gpus)), (Some(c), Some(a)) if c != a);
        if is_stale {
            stale.push(node.name.clone());
        }
        nodes.push(json!({
            "node": node.name, "pool": pool, "poolDefined": pools.contains_key(pool),
            "configured": configured.map(num), "advertised": advertised.map(num),
            "nodeTopologyConfigMap": node_cm.map(|_| cm_name), "nodeTopologyGpus": node_gpus.map(num), "stale": is_stale,
        }));
    }
    let unpooled: Vec<&String> = ix
        .nodes()
        .values()
        .filter(|n| {
            !n.labels.contains_key(&label_key)
                && n.labels.get("run.ai/fake.gpu").map(String::as_str) == Some("true")
        })
        .map(|n| &n.name)
        .collect();
    let fact = json!({
        "namespace": ns, "configMap": "topology", "poolLabelKey": label_key,
        "pools": pools.iter().map(|(k, v)| json!({"name": k, "gpuCount": v.map(num)})).collect::<Vec<_>>(),
        "nodes": nodes, "staleNodes": stale, "unpooledGpuNodes": unpooled,
    });
    (fact, Some(cm_id), cms)
}

/// A quantity as JSON: an integer when whole (GPU counts read `4`, not `4.0`).
pub fn num(v: f64) -> Value {
    if v.fract() == 0.0 && v.abs() < 9e15 {
        json!(v as i64)
    } else {
        json!(v)
    }
}

/// Requests of a pod per resource, read from its spec (same rules as the index).
pub fn quantity_map(v: &Value) -> BTreeMap<String, f64> {
    v.as_object()
        .map(|m| {
            m.iter()
                .filter_map(|(k, q)| quantity::from_value(q).map(|q| (k.clone(), q)))
                .collect()
        })
        .unwrap_or_default()
}

/// A terminal pod whose controller has another pod that runs: the replacement took over, and
/// this one is history. The one definition: the work's state and its signals' currency both
/// ask it.
pub(crate) fn superseded_pod(ix: &Index, id: ObjId) -> bool {
    let Some(p) = ix.pod(id) else { return false };
    if !p.terminal() {
        return false;
    }
    // Only a replacement that runs makes the failure history; one still Pending leaves it the
    // work's story (its failure may be why the replacement waits).
    let live = |c: ObjId| c != id && ix.pod(c).is_some_and(|q| !q.terminal() && q.settled);
    if ix
        .owners(id)
        .into_iter()
        .any(|o| ix.children(o).iter().any(|&c| live(c)))
    {
        return true;
    }
    // The controller itself may be missing from a pasted bundle: its pods still name it.
    let missing: Vec<&str> = ix
        .unresolved_owner_refs(id)
        .map(|o| o.uid.as_str())
        .collect();
    !missing.is_empty()
        && pods_by_namespace(ix)
            .get(&ix.object(id).namespace)
            .is_some_and(|pods| {
                pods.iter().any(|&c| {
                    live(c)
                        && ix
                            .unresolved_owner_refs(c)
                            .any(|o| missing.contains(&o.uid.as_str()))
                })
            })
}

type PodsByNamespace = std::collections::HashMap<Option<String>, Vec<ObjId>>;

/// The pods of each namespace, read once per index.
pub(crate) fn pods_by_namespace(ix: &Index) -> std::sync::Arc<PodsByNamespace> {
    ix.once("view.podsByNamespace", || {
        let mut m = PodsByNamespace::default();
        for &p in ix.of_kind("Pod") {
            m.entry(ix.object(p).namespace.clone()).or_default().push(p);
        }
        m
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn required_node_labels_read_the_selector_and_required_affinity() {
        let pod = json!({"spec": {
            "nodeSelector": {"nvidia.com/gpu.product": "A100", "bad": 3},
            "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": [
                    {"key": "zone", "operator": "In", "values": ["a", "b", 7]},
                    {"key": "pool", "operator": "NotIn", "values": ["x"]}]}]}}}}});
        assert_eq!(
            required_node_labels(&pod),
            vec![
                (
                    "nvidia.com/gpu.product".to_string(),
                    vec!["A100".to_string()]
                ),
                ("zone".to_string(), vec!["a".to_string(), "b".to_string()]),
            ]
        );
        assert!(required_node_labels(&json!({})).is_empty());
    }

    /// Nodes sharing their taints share one set; a pod's tolerations are judged per set and
    /// give the same answer per node as testing the node itself.
    #[test]
    fn taint_sets_group_nodes_and_judge_tolerations_like_each_node() {
        let node = |name: &str, taints: Value| {
            json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
                   "spec": {"taints": taints}})
        };
        let gpu = json!([{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]);
        let items = vec![
            node("a", gpu.clone()),
            node(
                "b",
                json!([{"key": "spot", "effect": "NoExecute"}, {"key": "x", "effect": "PreferNoSchedule"}]),
            ),
            node("c", gpu.clone()),
            node("d", json!([{"key": "x", "effect": "PreferNoSchedule"}])),
            node("e", gpu),
        ];
        let text = json!({"apiVersion": "v1", "kind": "List", "items": items}).to_string();
        let ix = Index::new(crate::Bundle::parse(text).expect("parses"));
        let tables = ix.node_tables();
        assert_eq!(tables.taint_sets.len(), 2);
        let sets: Vec<Option<usize>> = tables.taint_set_of.clone();
        assert_eq!(sets[0], sets[2]);
        assert_eq!(sets[0], sets[4]);
        assert_ne!(sets[0], sets[1]);
        assert_eq!(sets[3], None, "a soft taint alone is no set");
        for tolerations in [
            json!([]),
            json!([{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]),
            json!([{"key": "spot", "operator": "Exists"}]),
            json!([{"operator": "Exists"}]),
        ] {
            let pod = json!({"spec": {"tolerations": tolerations}});
            let elig = Eligibility::of(&pod);
            for pos in 0..tables.nodes.len() {
                assert_eq!(
                    elig.tolerates_at(&tables, pos),
                    elig.tolerates_taints(&tables.nodes[pos]),
                    "node {} with {tolerations}",
                    tables.nodes[pos].name
                );
            }
        }
    }

    #[test]
    fn parses_the_scheduler_grammar() {
        let f = parse_scheduling_message(
            "0/4 nodes are available: 1 node(s) had untolerated taint(s), 3 Insufficient nvidia.com/gpu. preemption: 0/4 nodes are available: 1 Preemption is not helpful for scheduling, 3 No preemption victims found for incoming pod.",
        );
        assert_eq!(f["nodes"], 4);
        assert_eq!(f["reasons"][1]["count"], 3);
        assert_eq!(f["insufficient"], json!(["nvidia.com/gpu"]));
        assert_eq!(f["kinds"], json!(["insufficient", "taint"]));
        assert_eq!(f["preemption"]["nodes"], 4);
        assert_eq!(f["preemption"]["helpful"], false);
    }

    #[test]
    fn parses_old_taint_form_prefilter_and_dra_postfilter() {
        let f = parse_scheduling_message(
            "0/4 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 1 node(s) were unschedulable, 2 Insufficient nvidia.com/gpu. preemption: 0/4 nodes are available: 2 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling.",
        );
        assert_eq!(
            f["reasons"][0]["reason"],
            "node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }"
        );
        assert_eq!(f["reasons"][1]["kind"], "cordoned");
        let f = parse_scheduling_message(
            "0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
        );
        assert_eq!(
            f["preFilter"],
            "pod has unbound immediate PersistentVolumeClaims"
        );
        assert_eq!(f["reasons"], json!([]));
        let f = parse_scheduling_message(
            "0/2 nodes are available: 2 cannot allocate all claims. still not schedulable, preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.",
        );
        assert_eq!(f["kinds"], json!(["dra"]));
        assert_eq!(f["postFilter"], "still not schedulable");
        let f = parse_scheduling_message(
            "0/3 nodes are available: 3 Insufficient nvidia.com/gpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod..",
        );
        assert_eq!(f["preemption"]["reasons"][0]["count"], 3);
    }

    #[test]
    fn parses_kai_messages() {
        let f = parse_scheduling_message(
            "No nodes with enough resources were found: 2 node(s) didn't have enough resources: GPUs.",
        );
        assert_eq!(f["insufficient"], json!(["nvidia.com/gpu"]));
        assert_eq!(f["reasons"][0]["count"], 2);
    }
}
