//! Every bundle replayed into a real kube-apiserver (issue 39, point 3): each scenario, each
//! incident and each cluster of `tests/fits/clusters` is written to a bare lab (`cargo xtask lab
//! replay`), one bundle at a time and removed before the next, so cluster-scoped objects (nodes,
//! queues) never mix and no namespace is renamed. For each bundle: its namespaces first, then
//! its objects, owners before what they own (each owner's new uid replaces the bundle's in
//! everything written after it), then each status through the status subresource, then the
//! events. Then the objects the API server kept are read back as the admin, like `kubectl get -A
//! -o json`, and every target's `why` (and `scan -A`) as the least-privileged reader must say
//! what `why -f` says of the read-back objects. What the API server refused is listed with its
//! message, and the list must equal the one in docs/lab.md: a fixture a real API server would
//! not store is either corrected or listed there.

use super::lab::{Lab, comparable, lab_of};
use super::{TempDir, bin, stderr};
use serde::Deserialize as _;
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// What the replay's report is written to, beside the lab's logs.
const REPORT: &str = "replay.md";
/// Where docs/lab.md lists the refusals this test expects.
const DOC_BEGIN: &str = "<!-- replay refusals: begin -->";
const DOC_END: &str = "<!-- replay refusals: end -->";
/// Where docs/lab.md lists the targets whose live and offline answers are known to differ.
const DIFF_BEGIN: &str = "<!-- replay differences: begin -->";
const DIFF_END: &str = "<!-- replay differences: end -->";

/// The lab's API as the admin: raw requests, answered with JSON or the server's message.
pub(super) struct Api {
    rt: tokio::runtime::Runtime,
    client: kube::Client,
}

impl Api {
    pub(super) fn new(lab: &Lab) -> Api {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let path = lab.dir.join("kubeconfig");
        let client = rt.block_on(async {
            let kc = kube::config::Kubeconfig::read_from(&path).unwrap();
            let config = kube::Config::from_custom_kubeconfig(kc, &Default::default())
                .await
                .unwrap();
            kube::Client::try_from(config).unwrap()
        });
        Api { rt, client }
    }

    /// One request; the answer's JSON, or the API server's message.
    fn call(&self, method: &str, uri: &str, kind: Body) -> Result<Value, String> {
        let mut req = http::Request::builder()
            .method(method)
            .uri(uri)
            .header("Accept", kind.accept());
        let body = match kind {
            Body::Json(v) => {
                req = req.header("Content-Type", "application/json");
                serde_json::to_vec(v).unwrap()
            }
            Body::Merge(v) => {
                req = req.header("Content-Type", "application/merge-patch+json");
                serde_json::to_vec(v).unwrap()
            }
            Body::None | Body::Discovery => Vec::new(),
        };
        let req = req.body(body).unwrap();
        match self.rt.block_on(self.client.request_text(req)) {
            Ok(text) => serde_json::from_str(&text).map_err(|e| format!("not JSON: {e}")),
            Err(kube::Error::Api(s)) => Err(format!("{} {}", s.code, s.message)),
            Err(e) => Err(e.to_string()),
        }
    }
}

enum Body<'a> {
    None,
    Discovery,
    Json(&'a Value),
    Merge(&'a Value),
}

impl Body<'_> {
    fn accept(&self) -> &'static str {
        match self {
            Body::Discovery => {
                "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
            }
            _ => "application/json",
        }
    }
}

/// One kind the API server serves, at one version.
#[derive(Clone, Debug)]
pub(super) struct Resource {
    /// `/api/v1` or `/apis/<group>/<version>`.
    prefix: String,
    pub(super) api_version: String,
    pub(super) kind: String,
    pub(super) plural: String,
    pub(super) namespaced: bool,
    status: bool,
    /// The first of its group's versions, in the server's order, that serves this resource.
    preferred: bool,
}

impl Resource {
    fn collection(&self, ns: Option<&str>) -> String {
        match ns.filter(|_| self.namespaced) {
            Some(ns) => format!("{}/namespaces/{}/{}", self.prefix, enc(ns), self.plural),
            None => format!("{}/{}", self.prefix, self.plural),
        }
    }
}

/// Percent-encoding of everything but RFC 3986's unreserved characters (a name from a bundle is
/// data, and must stay one path segment).
fn enc(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// Every kind the lab serves, by (apiVersion, kind), from aggregated discovery.
pub(super) fn discover(api: &Api) -> BTreeMap<(String, String), Resource> {
    let mut out = BTreeMap::new();
    // A resource's preferred version is the first of its group's versions (in the server's
    // order) that serves it, as kubectl reads it: a group's versions may serve different
    // resources (KAI's scheduling.run.ai: queues in v2, podgroups in v2alpha2, bindrequests in
    // v1alpha2), so the group's first version alone would leave some out.
    let mut seen: BTreeSet<(String, String)> = BTreeSet::new();
    for root in ["/api", "/apis"] {
        let list = api.call("GET", root, Body::Discovery).unwrap();
        for group in list["items"].as_array().into_iter().flatten() {
            let name = group["metadata"]["name"].as_str().unwrap_or("");
            for v in group["versions"].as_array().into_iter().flatten() {
                let version = v["version"].as_str().unwrap_or("");
                let (prefix, api_version) = if name.is_empty() {
                    (format!("/api/{version}"), version.to_string())
                } else {
                    (
                        format!("/apis/{name}/{version}"),
                        format!("{name}/{version}"),
                    )
                };
                for r in v["resources"].as_array().into_iter().flatten() {
                    let kind = r["responseKind"]["kind"].as_str().unwrap_or("").to_string();
                    let status = r["subresources"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .any(|s| s["subresource"] == "status");
                    let plural = r["resource"].as_str().unwrap_or("").to_string();
                    let preferred = seen.insert((name.to_string(), plural.clone()));
                    let res = Resource {
                        prefix: prefix.clone(),
                        api_version: api_version.clone(),
                        kind: kind.clone(),
                        plural,
                        namespaced: r["scope"] == "Namespaced",
                        status,
                        preferred,
                    };
                    out.insert((api_version.clone(), kind), res);
                }
            }
        }
    }
    out
}

/// One bundle to replay, and the targets its tests diagnose.
pub(super) struct Bundle {
    pub(super) name: String,
    pub(super) path: PathBuf,
    pub(super) targets: Vec<String>,
    /// What the tests expect of each target offline (scenarios only): state, layer, outlook.
    verdicts: Vec<Value>,
}

/// Every scenario, incident and fit cluster, in a stable order.
pub(super) fn bundles() -> Vec<Bundle> {
    let mut out: Vec<Bundle> = scenarios::all()
        .into_iter()
        .map(|s| Bundle {
            name: format!("scenarios/{}", s.name),
            path: s.bundle_path,
            targets: s.expectations.iter().map(|e| e.target.clone()).collect(),
            verdicts: s
                .expectations
                .iter()
                .map(|e| {
                    let v = &e.verdict;
                    json!({"state": v.state, "layer": v.layer, "outlook": v.outlook})
                })
                .collect(),
        })
        .collect();
    out.extend(
        scenarios::incidents::all()
            .unwrap()
            .into_iter()
            .map(|i| Bundle {
                name: format!("incidents/{}", i.name),
                path: i.bundle_path,
                targets: vec![i.thread.target],
                verdicts: Vec::new(),
            }),
    );
    let clusters = scenarios::scenarios_dir().join("../fits/clusters");
    let mut fits: Vec<PathBuf> = std::fs::read_dir(&clusters)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    fits.sort();
    out.extend(fits.into_iter().map(|path| Bundle {
        name: format!(
            "fits/clusters/{}",
            path.file_name().unwrap().to_string_lossy()
        ),
        path,
        targets: Vec::new(),
        verdicts: Vec::new(),
    }));
    out
}

/// The objects of a bundle file (JSON, or YAML of one or more documents), Lists flattened.
pub(super) fn objects(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap();
    // A bundle saved by an editor may begin with a byte-order mark, which the tool skips.
    let text = text.trim_start_matches('\u{feff}');
    // A `.json` bundle may hold several documents (what `kubectl get` printed twice): YAML
    // reads those as it reads JSON.
    let docs: Vec<Value> = if let Ok(one) = serde_json::from_str(text) {
        vec![one]
    } else {
        serde_yaml_ng::Deserializer::from_str(text)
            .map(|d| Value::deserialize(d).unwrap())
            .collect()
    };
    let mut out = Vec::new();
    let mut stack: Vec<Value> = docs.into_iter().rev().collect();
    while let Some(v) = stack.pop() {
        if let Some(items) = v["items"].as_array().filter(|_| {
            v.get("kind")
                .is_some_and(|k| k.as_str().is_some_and(|k| k.ends_with("List")))
        }) {
            stack.extend(items.iter().rev().cloned());
        } else if v.is_object() {
            out.push(v);
        }
    }
    out
}

fn meta<'a>(o: &'a Value, field: &str) -> &'a str {
    o["metadata"][field].as_str().unwrap_or("")
}

fn kind_of(o: &Value) -> (String, String) {
    (
        o["apiVersion"].as_str().unwrap_or("").to_string(),
        o["kind"].as_str().unwrap_or("").to_string(),
    )
}

/// Every string equal to a key of `uids` replaced by its value: owner references, events'
/// involved objects, controller-uid labels and selectors.
fn remap(v: &mut Value, uids: &BTreeMap<String, String>) {
    match v {
        Value::String(s) => {
            if let Some(new) = uids.get(s.as_str()) {
                *s = new.clone();
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|x| remap(x, uids)),
        Value::Object(m) => m.values_mut().for_each(|x| remap(x, uids)),
        _ => {}
    }
}

/// What the server writes itself: removed before a create, as any re-creation of `kubectl get`
/// output must (a `resourceVersion` is refused; the others are replaced).
const SERVER_SET: &[&str] = &[
    "uid",
    "resourceVersion",
    "creationTimestamp",
    "generation",
    "managedFields",
    "selfLink",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
];

/// The body of a create: without the server's fields and the status; a Job without the
/// selector the server generates from its (new) uid; a Service without the cluster IPs it
/// allocates from its own range.
fn create_body(o: &Value, res: &Resource, uids: &BTreeMap<String, String>) -> Value {
    let mut body = o.clone();
    remap(&mut body, uids);
    let m = body["metadata"].as_object_mut().unwrap();
    for f in SERVER_SET {
        m.remove(*f);
    }
    if !res.namespaced {
        m.remove("namespace");
    }
    let obj = body.as_object_mut().unwrap();
    obj.remove("status");
    let (group, kind) = (res.prefix.as_str(), res.kind.as_str());
    if group == "/apis/batch/v1" && kind == "Job" && body["spec"]["manualSelector"] != true {
        let spec = body["spec"].as_object_mut().unwrap();
        spec.remove("selector");
        if let Some(labels) = spec
            .get_mut("template")
            .and_then(|t| t["metadata"]["labels"].as_object_mut())
        {
            labels.remove("controller-uid");
            labels.remove("batch.kubernetes.io/controller-uid");
        }
    }
    if group == "/api/v1"
        && kind == "Service"
        && body["spec"]["clusterIP"] != "None"
        && let Some(spec) = body["spec"].as_object_mut()
    {
        spec.remove("clusterIP");
        spec.remove("clusterIPs");
    }
    body
}

/// How deep an object sits under owners of the same bundle (0: no owner in it).
fn depths(objs: &[Value]) -> Vec<usize> {
    let by_uid: BTreeMap<&str, usize> = objs
        .iter()
        .enumerate()
        .filter(|(_, o)| !meta(o, "uid").is_empty())
        .map(|(i, o)| (meta(o, "uid"), i))
        .collect();
    let mut memo = vec![None; objs.len()];
    fn depth(
        i: usize,
        objs: &[Value],
        by_uid: &BTreeMap<&str, usize>,
        memo: &mut Vec<Option<usize>>,
        seen: &mut BTreeSet<usize>,
    ) -> usize {
        if let Some(d) = memo[i] {
            return d;
        }
        if !seen.insert(i) {
            return 0; // an ownership cycle: no order helps
        }
        let d = objs[i]["metadata"]["ownerReferences"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|r| by_uid.get(r["uid"].as_str().unwrap_or("")))
            .map(|&j| 1 + depth(j, objs, by_uid, memo, seen))
            .max()
            .unwrap_or(0);
        memo[i] = Some(d);
        d
    }
    (0..objs.len())
        .map(|i| depth(i, objs, &by_uid, &mut memo, &mut BTreeSet::new()))
        .collect()
}

/// What one bundle's replay did.
#[derive(Default)]
pub(super) struct Outcome {
    accepted: usize,
    refused: Vec<String>,
    skipped: BTreeMap<String, usize>,
    statuses: usize,
    namespaces_added: usize,
    service_accounts_added: usize,
    classes_lent: usize,
    /// What to delete afterwards: each object's path and whether it holds finalizers.
    created: Vec<(String, bool)>,
    namespaces: Vec<String>,
}

fn is_event(o: &Value) -> bool {
    o["kind"] == "Event"
}

/// Write one bundle's objects to the lab, in the order a cluster would have written them.
pub(super) fn replay(
    api: &Api,
    kinds: &BTreeMap<(String, String), Resource>,
    objs: &[Value],
) -> Outcome {
    let mut out = Outcome::default();
    let existing: BTreeSet<String> =
        api.call("GET", "/api/v1/namespaces", Body::None).unwrap()["items"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|n| meta(n, "name").to_string())
            .collect();
    let mut uids = BTreeMap::new();
    // Namespaces: the bundle's, then every other one its objects live in.
    let mut wanted: Vec<Value> = objs
        .iter()
        .filter(|o| o["kind"] == "Namespace" && o["apiVersion"] == "v1")
        .cloned()
        .collect();
    let declared: BTreeSet<String> = wanted.iter().map(|n| meta(n, "name").to_string()).collect();
    let mut used = BTreeSet::new();
    for o in objs {
        if kinds.get(&kind_of(o)).is_some_and(|r| r.namespaced) {
            used.insert(namespace_of(o).to_string());
        }
    }
    for ns in used.difference(&declared) {
        out.namespaces_added += 1;
        wanted.push(json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}}));
    }
    let ns_res = &kinds[&("v1".to_string(), "Namespace".to_string())];
    for ns in &wanted {
        let name = meta(ns, "name");
        if existing.contains(name) {
            continue;
        }
        match api.call(
            "POST",
            "/api/v1/namespaces",
            Body::Json(&create_body(ns, ns_res, &uids)),
        ) {
            Ok(made) => {
                learn(&mut uids, ns, &made);
                out.namespaces.push(name.to_string());
                out.accepted += usize::from(declared.contains(name));
            }
            Err(e) => out.refused.push(format!("Namespace {name}: {e}")),
        }
    }
    add_service_accounts(api, objs, &mut out);
    // Objects, owners first; then statuses; then events.
    let rest: Vec<&Value> = objs
        .iter()
        .filter(|o| o["kind"] != "Namespace" || o["apiVersion"] != "v1")
        .collect();
    let owned: Vec<Value> = rest
        .iter()
        .filter(|o| !is_event(o))
        .map(|o| (*o).clone())
        .collect();
    let d = depths(&owned);
    let mut order: Vec<usize> = (0..owned.len()).collect();
    // Cluster-scoped objects before namespaced ones of the same depth: a pod's RuntimeClass
    // and PriorityClass must exist when it is created.
    let namespaced = |o: &Value| kinds.get(&kind_of(o)).is_some_and(|r| r.namespaced);
    order.sort_by_key(|&i| (d[i], namespaced(&owned[i])));
    let lent = lend_classes(api, &owned, &mut out);
    let mut made: Vec<(usize, String)> = Vec::new();
    for i in order {
        if let Some(path) = create(api, kinds, &owned[i], &mut uids, &mut out) {
            made.push((i, path));
        }
    }
    for path in lent {
        let _ = api.call("DELETE", &path, Body::None);
    }
    for (i, path) in &made {
        let o = &owned[*i];
        let res = &kinds[&kind_of(o)];
        if res.status && o.get("status").is_some_and(|s| s.is_object()) {
            let mut status = json!({"status": o["status"].clone()});
            remap(&mut status, &uids);
            match api.call("PATCH", &format!("{path}/status"), Body::Merge(&status)) {
                Ok(_) => out.statuses += 1,
                Err(e) => out.refused.push(format!("{} status: {e}", label(o))),
            }
        }
    }
    for o in rest.iter().filter(|o| is_event(o)) {
        create(api, kinds, o, &mut uids, &mut out);
    }
    out
}

/// The uid the API server gave `made`, in place of the one the bundle gave it (if any).
fn learn(uids: &mut BTreeMap<String, String>, o: &Value, made: &Value) {
    let old = meta(o, "uid");
    if !old.is_empty() {
        uids.insert(old.to_string(), meta(made, "uid").to_string());
    }
}

/// The RuntimeClasses and PriorityClasses the bundle's pods name and it does not hold: the API
/// server refuses a pod whose class does not exist, so a bundle where the class was removed
/// after the pod started (what `runtime/runtimeclass-missing` diagnoses) is replayed as it
/// happened: each class is lent (a PriorityClass with the pod's priority) while the pods are
/// created, then removed. Returns the paths to remove.
fn lend_classes(api: &Api, objs: &[Value], out: &mut Outcome) -> Vec<String> {
    let held = |kind: &str, name: &str| {
        objs.iter()
            .any(|o| o["kind"] == kind && meta(o, "name") == name)
    };
    let mut lent = Vec::new();
    for pod in objs
        .iter()
        .filter(|o| o["kind"] == "Pod" && o["apiVersion"] == "v1")
    {
        let spec = &pod["spec"];
        let mut lend = |coll: &str, kind: &str, body: Value| {
            let name = body["metadata"]["name"].as_str().unwrap_or("").to_string();
            let path = format!("{coll}/{}", enc(&name));
            if held(kind, &name) || lent.contains(&path) {
                return;
            }
            if api.call("POST", coll, Body::Json(&body)).is_ok() {
                out.classes_lent += 1;
                lent.push(path);
            }
        };
        if let Some(rc) = spec["runtimeClassName"].as_str() {
            lend(
                "/apis/node.k8s.io/v1/runtimeclasses",
                "RuntimeClass",
                json!({"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass", "metadata": {"name": rc}, "handler": rc}),
            );
        }
        if let Some(pc) = spec["priorityClassName"]
            .as_str()
            .filter(|p| !p.starts_with("system-"))
        {
            lend(
                "/apis/scheduling.k8s.io/v1/priorityclasses",
                "PriorityClass",
                json!({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": pc}, "value": spec["priority"].as_i64().unwrap_or(0)}),
            );
        }
    }
    lent
}

/// The service accounts the bundle's pods run as and it does not hold (a cluster's own
/// `default`, a chart's): the API server refuses a pod whose account does not exist. A mirror
/// pod names none (the API server refuses one that does).
fn add_service_accounts(api: &Api, objs: &[Value], out: &mut Outcome) {
    let declared: BTreeSet<(&str, &str)> = objs
        .iter()
        .filter(|o| o["kind"] == "ServiceAccount")
        .map(|o| (namespace_of(o), meta(o, "name")))
        .collect();
    let mut wanted = BTreeSet::new();
    for pod in objs
        .iter()
        .filter(|o| o["kind"] == "Pod" && o["apiVersion"] == "v1")
    {
        if !pod["metadata"]["annotations"]["kubernetes.io/config.mirror"].is_null() {
            continue;
        }
        let sa = pod["spec"]["serviceAccountName"]
            .as_str()
            .unwrap_or("default");
        wanted.insert((namespace_of(pod), sa));
    }
    for (ns, name) in wanted.difference(&declared) {
        let coll = format!("/api/v1/namespaces/{}/serviceaccounts", enc(ns));
        let body =
            json!({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": name}});
        if api.call("POST", &coll, Body::Json(&body)).is_ok() {
            out.service_accounts_added += 1;
            out.created.push((format!("{coll}/{}", enc(name)), false));
        }
    }
}

fn namespace_of(o: &Value) -> &str {
    let ns = meta(o, "namespace");
    if ns.is_empty() { "default" } else { ns }
}

/// `Kind namespace/name` (or `Kind name`), as the report names an object.
fn label(o: &Value) -> String {
    let ns = meta(o, "namespace");
    let name = meta(o, "name");
    let kind = o["kind"].as_str().unwrap_or("?");
    if ns.is_empty() {
        format!("{kind} {name}")
    } else {
        format!("{kind} {ns}/{name}")
    }
}

/// Create one object; its path, or None (refused or skipped, and counted).
fn create(
    api: &Api,
    kinds: &BTreeMap<(String, String), Resource>,
    o: &Value,
    uids: &mut BTreeMap<String, String>,
    out: &mut Outcome,
) -> Option<String> {
    let (api_version, kind) = kind_of(o);
    if kind == "CustomResourceDefinition" {
        // The lab serves its own CRDs; a bundle's would add kinds the lab does not run.
        *out.skipped
            .entry(format!("{api_version} {kind} (the lab serves its own)"))
            .or_default() += 1;
        return None;
    }
    let Some(res) = kinds.get(&(api_version.clone(), kind.clone())) else {
        *out.skipped
            .entry(format!("{api_version} {kind}"))
            .or_default() += 1;
        return None;
    };
    let ns = namespace_of(o);
    let mut body = create_body(o, res, uids);
    if res.namespaced {
        body["metadata"]["namespace"] = json!(ns);
    }
    let coll = res.collection(Some(ns));
    match api.call("POST", &coll, Body::Json(&body)) {
        Ok(made) => {
            out.accepted += 1;
            learn(uids, o, &made);
            let path = format!("{coll}/{}", enc(meta(&made, "name")));
            let held = made["metadata"]["finalizers"]
                .as_array()
                .is_some_and(|f| !f.is_empty());
            out.created.push((path.clone(), held));
            Some(path)
        }
        Err(e) if e.starts_with("409 ") && e.ends_with("already exists") => {
            // What the API server makes itself (system-node-critical), or an object the bundle
            // holds twice.
            *out.skipped
                .entry(format!("{api_version} {kind} (already there)"))
                .or_default() += 1;
            None
        }
        Err(e) => {
            out.refused.push(format!("{}: {e}", label(o)));
            None
        }
    }
}

/// Remove what one replay made: finalizers first (no controller will), at once (no kubelet will
/// finish a pod) and in the background (a Job's default, orphaning, waits for a garbage
/// collector a bare lab does not run), then the namespaces through their finalize subresource (no namespace
/// controller in a bare lab).
fn clean(api: &Api, out: &Outcome) {
    for (path, finalizers) in out.created.iter().rev() {
        remove(api, path, *finalizers);
    }
    // What is still there (a finalizer added since, a request the loaded machine dropped) is
    // removed again, finalizers first: the next bundle must not meet it.
    for (path, _) in &out.created {
        if api.call("GET", path, Body::None).is_ok() {
            remove(api, path, true);
        }
    }
    for ns in &out.namespaces {
        let path = format!("/api/v1/namespaces/{}", enc(ns));
        let _ = api.call("DELETE", &path, Body::None);
        let body = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}, "spec": {"finalizers": []}});
        let _ = api.call("PUT", &format!("{path}/finalize"), Body::Json(&body));
    }
}

/// Delete one object at once, in the background, its finalizers cleared first if it has any.
fn remove(api: &Api, path: &str, finalizers: bool) {
    if finalizers {
        let none = json!({"metadata": {"finalizers": null}});
        let _ = api.call("PATCH", path, Body::Merge(&none));
    }
    let query = "gracePeriodSeconds=0&propagationPolicy=Background";
    let _ = api.call("DELETE", &format!("{path}?{query}"), Body::None);
}

/// One bundle's replay, removed when its checks end, even by a panic: the next bundle (or the
/// next run) starts from an empty lab.
pub(super) struct Replayed<'a>(pub(super) &'a Api, pub(super) Outcome);

impl Drop for Replayed<'_> {
    fn drop(&mut self) {
        clean(self.0, &self.1);
    }
}

/// The resources the reader's role may list (deploy/clusterrole.yaml, what `kubectl layer rbac`
/// prints) and the CRDs: what a read-back holds.
pub(super) fn readable(kinds: &BTreeMap<(String, String), Resource>) -> Vec<Resource> {
    let role: Value = serde_yaml_ng::from_str(
        &std::fs::read_to_string(scenarios::scenarios_dir().join("../../deploy/clusterrole.yaml"))
            .unwrap(),
    )
    .unwrap();
    let mut listed: BTreeSet<(String, String)> = BTreeSet::new();
    for rule in role["rules"].as_array().into_iter().flatten() {
        let verbs: Vec<&str> = rule["verbs"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        if !verbs.contains(&"list") && !verbs.contains(&"get") {
            continue;
        }
        for g in rule["apiGroups"].as_array().into_iter().flatten() {
            for r in rule["resources"].as_array().into_iter().flatten() {
                listed.insert((g.as_str().unwrap().into(), r.as_str().unwrap().into()));
            }
        }
    }
    kinds
        .values()
        .filter(|r| r.preferred)
        .filter(|r| {
            let group = r.api_version.rsplit_once('/').map_or("", |(g, _)| g);
            listed.contains(&(group.to_string(), r.plural.clone()))
        })
        .cloned()
        .collect()
}

/// Every object of `resources` in the lab, typed, in one List: `kubectl get -A -o json`.
pub(super) fn read_back(api: &Api, resources: &[Resource], file: &Path) {
    let mut items = Vec::new();
    for r in resources {
        let Ok(list) = api.call("GET", &r.collection(None), Body::None) else {
            continue;
        };
        for mut it in list["items"].as_array().cloned().unwrap_or_default() {
            it["apiVersion"] = json!(r.api_version);
            it["kind"] = json!(r.kind);
            items.push(it);
        }
    }
    let all = json!({"apiVersion": "v1", "kind": "List", "items": items});
    std::fs::write(file, serde_json::to_vec(&all).unwrap()).unwrap();
}

/// One command offline on `file` and live as the reader at the same `now`: whether the exit
/// codes and verdicts agree, whether the whole answers do, what each said, and the offline
/// verdict. A target the
/// API server did not store is a failure both ways (no JSON): then the exit codes must agree.
fn agree(
    lab: &Lab,
    file: &Path,
    args: &[&str],
    verdict: &dyn Fn(&Value) -> Value,
) -> (bool, bool, String, Value) {
    let off_o = bin()
        .args(args)
        .args(["-o", "json", "-f"])
        .arg(file)
        .output()
        .unwrap();
    let Ok(off) = serde_json::from_slice::<Value>(&off_o.stdout) else {
        let live_o = lab.layer(&[args, &["-o", "json"]].concat());
        let same = live_o.status.code() == off_o.status.code() && live_o.stdout.is_empty();
        let detail = format!(
            "not stored: offline exit {:?} ({}), live exit {:?} ({})",
            off_o.status.code(),
            stderr(&off_o).trim(),
            live_o.status.code(),
            stderr(&live_o).trim()
        );
        return (same, same, detail, Value::Null);
    };
    // A scan gives its time in each diagnosis, and none when nothing is blocked.
    let now = off["now"]["time"]
        .as_str()
        .or(off["diagnoses"][0]["now"]["time"].as_str())
        .map(str::to_string);
    let at: Vec<&str> = now.as_deref().map_or(vec![], |n| vec!["--now", n]);
    // Both sides at the same "now" given the same way: read as only the file's newest time, an
    // age is a lower bound (a pod created at that moment has waited for a time the file does
    // not show), where a given time is a clock; the API server wrote every creation time at
    // the replay's own moment, so only a given time tells the two sides the objects are young.
    let (off_o, off) = match now.is_some() {
        false => (off_o, off),
        true => {
            let o = bin()
                .args(args)
                .args(&at)
                .args(["-o", "json", "-f"])
                .arg(file)
                .output()
                .unwrap();
            let v = serde_json::from_slice::<Value>(&o.stdout).unwrap_or(Value::Null);
            (o, v)
        }
    };
    let live_o = lab.layer(&[args, &at, &["-o", "json"]].concat());
    let Ok(live) = serde_json::from_slice::<Value>(&live_o.stdout) else {
        let detail = format!(
            "live exit {:?} ({}) / offline exit {:?} {}",
            live_o.status.code(),
            stderr(&live_o).trim(),
            off_o.status.code(),
            verdict(&off)
        );
        return (false, false, detail, off["verdict"].clone());
    };
    let same_verdict =
        live_o.status.code() == off_o.status.code() && verdict(&live) == verdict(&off);
    let same = same_verdict && comparable(live.clone()) == comparable(off.clone());
    let detail = format!(
        "live exit {:?} {} / offline exit {:?} {}",
        live_o.status.code(),
        verdict(&live),
        off_o.status.code(),
        verdict(&off)
    );
    (same_verdict, same, detail, off["verdict"].clone())
}

/// What one target's checks found.
struct Judged {
    /// Live and offline exit codes and verdicts agree.
    verdict: bool,
    /// The whole answers agree.
    whole: bool,
    detail: String,
    /// The read-back objects give the verdict a scenario's expectations give (informative:
    /// what the API server changed, such as creation times).
    as_bundle: bool,
}

/// Every target of `b` judged live and offline, two at a time (each check is two processes of
/// the CLI; the order of the answers is the targets').
fn judge_all(lab: &Lab, file: &Path, b: &Bundle) -> Vec<Judged> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let done = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(target) = b.targets.get(i) else {
                        break;
                    };
                    let j = judge(lab, file, b.verdicts.get(i), target);
                    done.lock().unwrap().push((i, j));
                }
            });
        }
    });
    let mut done = done.into_inner().unwrap();
    done.sort_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, j)| j).collect()
}

fn judge(lab: &Lab, file: &Path, own: Option<&Value>, target: &str) -> Judged {
    let (verdict, whole, detail, read_back) =
        agree(lab, file, &["why", target], &|d| d["verdict"].clone());
    let keys = |v: &Value| json!([v["state"], v["layer"], v["outlook"]]);
    Judged {
        verdict,
        whole,
        detail,
        as_bundle: own.is_some_and(|own| keys(own) == keys(&read_back)),
    }
}

/// A scan's verdicts: each diagnosis's target and verdict.
fn scan_verdicts(s: &Value) -> Value {
    Value::Array(
        s["diagnoses"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|d| json!([d["target"], d["verdict"]]))
            .collect(),
    )
}

/// The lines docs/lab.md lists between `begin` and `end`, one `- ` line each.
fn documented(begin: &str, end: &str) -> Vec<String> {
    scenarios::documented("lab.md", begin, end)
}

/// Tallies over every bundle, for the report.
#[derive(Default)]
struct Tally {
    bundles: usize,
    objects: usize,
    accepted: usize,
    statuses: usize,
    namespaces_added: usize,
    service_accounts_added: usize,
    classes_lent: usize,
    skipped: BTreeMap<String, usize>,
    refusals: Vec<String>,
    targets: usize,
    verdicts_equal: usize,
    answers_equal: usize,
    scans_equal: usize,
    as_bundle: usize,
    /// Targets with an expected verdict (the scenarios').
    expected: usize,
    different: Vec<String>,
    /// What each of `different` said, live and offline.
    details: Vec<String>,
    not_stored: Vec<String>,
    bundle_changed: Vec<String>,
}

#[test]
fn every_bundle_replays_into_a_real_api_server_and_reads_back_to_the_same_verdict() {
    let Some(lab) = lab_of(&["bare"]) else { return };
    let start = Instant::now();
    let api = Api::new(&lab);
    let kinds = discover(&api);
    let resources = readable(&kinds);
    let dir = TempDir::new("replay");
    let file = dir.0.join("read-back.json");
    let mut t = Tally::default();
    for b in bundles() {
        let objs = objects(&b.path);
        t.bundles += 1;
        t.objects += objs.len();
        let out = Replayed(&api, replay(&api, &kinds, &objs));
        let out = &out.1;
        t.accepted += out.accepted;
        t.statuses += out.statuses;
        t.namespaces_added += out.namespaces_added;
        t.service_accounts_added += out.service_accounts_added;
        t.classes_lent += out.classes_lent;
        for (k, n) in &out.skipped {
            *t.skipped.entry(k.clone()).or_default() += n;
        }
        t.refusals
            .extend(out.refused.iter().map(|r| format!("{}: {r}", b.name)));
        eprintln!(
            "replay: {} ({} objects): {} accepted, {} refused, {} targets",
            b.name,
            objs.len(),
            out.accepted,
            out.refused.len(),
            b.targets.len()
        );
        read_back(&api, &resources, &file);
        for (target, j) in b.targets.iter().zip(judge_all(&lab, &file, &b)) {
            t.targets += 1;
            t.verdicts_equal += usize::from(j.verdict);
            t.answers_equal += usize::from(j.whole);
            if !j.verdict {
                t.different.push(format!("{} {target}", b.name));
                t.details.push(format!("{} {target}: {}", b.name, j.detail));
            }
            if j.detail.starts_with("not stored") {
                t.not_stored.push(format!("{} {target}", b.name));
            }
            t.expected += usize::from(!b.verdicts.is_empty());
            if j.as_bundle {
                t.as_bundle += 1;
            } else if !b.verdicts.is_empty() {
                t.bundle_changed.push(format!("{} {target}", b.name));
            }
        }
        let (verdict, _, detail, _) = agree(&lab, &file, &["scan", "-A"], &scan_verdicts);
        t.scans_equal += usize::from(verdict);
        if !verdict {
            t.different.push(format!("{} scan -A", b.name));
            t.details.push(format!("{} scan -A: {detail}", b.name));
        }
    }
    let report = report(&t, start.elapsed().as_secs_f64());
    std::fs::write(lab.dir.join(REPORT), &report).unwrap();
    eprintln!("{report}");
    assert_eq!(
        t.different,
        documented(DIFF_BEGIN, DIFF_END),
        "live and offline differ where docs/lab.md does not say so (between `{DIFF_BEGIN}` and `{DIFF_END}`):\n{}",
        t.details.join("\n")
    );
    assert_eq!(
        t.refusals,
        documented(DOC_BEGIN, DOC_END),
        "the API server's refusals are not those docs/lab.md lists (between `{DOC_BEGIN}` and `{DOC_END}`): correct the fixture or list it; the report is in {}",
        lab.dir.join(REPORT).display()
    );
}

fn report(t: &Tally, secs: f64) -> String {
    let skipped: usize = t.skipped.values().sum();
    let mut s = format!(
        "replay: {} bundles, {} objects: {} accepted, {} refused, {skipped} skipped; {} statuses \
         written; {} namespaces and {} service accounts added, {} classes lent; targets {}: live = offline verdict {}, whole answer {}; \
         scan -A live = offline {}/{}; scenario verdicts as expected {}/{}; {secs:.0} s\n",
        t.bundles,
        t.objects,
        t.accepted,
        t.refusals.len(),
        t.statuses,
        t.namespaces_added,
        t.service_accounts_added,
        t.classes_lent,
        t.targets,
        t.verdicts_equal,
        t.answers_equal,
        t.scans_equal,
        t.bundles,
        t.as_bundle,
        t.expected,
    );
    s.push_str("\nskipped (kinds the lab does not serve):\n");
    for (k, n) in &t.skipped {
        s.push_str(&format!("- {k}: {n}\n"));
    }
    s.push_str("\nrefused:\n");
    for r in &t.refusals {
        s.push_str(&format!("- {r}\n"));
    }
    s.push_str("\ntargets the API server did not store:\n");
    for r in &t.not_stored {
        s.push_str(&format!("- {r}\n"));
    }
    s.push_str("\nscenario verdicts (state, layer, outlook) not as expected:\n");
    for r in &t.bundle_changed {
        s.push_str(&format!("- {r}\n"));
    }
    s.push_str("\nlive and offline differ:\n");
    for r in &t.details {
        s.push_str(&format!("- {r}\n"));
    }
    s
}
