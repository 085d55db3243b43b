//! Redaction of a bundle before it leaves the machine: `kubectl layer bundle` output is made to
//! be attached to public issues.
//!
//! Removed: Secret data, ConfigMap data except the keys the rules read (by kind); then, by the
//! shape of each field wherever it is nested ([`shapes`]: pod templates inside any custom
//! resource included), environment values, argument values, copies of applied
//! configurations, annotation values outside the domains the rules read, header values,
//! termination messages the container itself wrote, `managedFields`; and the user information
//! of every URL. Pods and Deployments of other namespaces
//! than the work's (the tool reads every namespace's running pods and Deployments, for node
//! occupancy and the device stack) keep only the fields the diagnosis reads of them.
//! `tests::every_planted_secret_is_removed` and
//! `tests::every_planted_secret_is_removed_from_custom_resources` plant markers in each of
//! these places;
//! `tests::redaction_keeps_every_scenario_diagnosis` checks every scenario and incident
//! diagnoses the same before and after.

mod shapes;

use serde::Serialize;
use serde::ser::{SerializeMap as _, SerializeSeq as _};
use serde_json::Value;
use std::io::Write;

/// What replaces a removed value, so readers see that something was there.
pub const REDACTED: &str = "<redacted>";

/// ConfigMap keys kept, because rules read them: fake-gpu-operator's topology, Kueue's
/// configuration.
const CONFIGMAP_KEYS: &[&str] = &["topology.yml", "controller_manager_config.yaml"];

/// Redact one object in place: Secret and ConfigMap data by kind, every other field by its
/// shape wherever it is nested ([`shapes`]), then the user information of every URL in it.
pub fn object(v: &mut Value) {
    let kind = v["kind"].as_str().unwrap_or("").to_string();
    let core = v["apiVersion"].as_str().is_some_and(|a| !a.contains('/'));
    match (core, kind.as_str()) {
        (true, "Secret") => {
            for field in ["data", "stringData"] {
                if let Some(Value::Object(m)) = v.get_mut(field) {
                    for val in m.values_mut() {
                        *val = Value::String(REDACTED.into());
                    }
                }
            }
        }
        (true, "ConfigMap") => {
            if let Some(Value::Object(m)) = v.get_mut("data") {
                for (k, val) in m.iter_mut() {
                    if !CONFIGMAP_KEYS.contains(&k.as_str()) {
                        *val = Value::String(REDACTED.into());
                    }
                }
            }
            if let Some(Value::Object(m)) = v.get_mut("binaryData") {
                for val in m.values_mut() {
                    *val = Value::String(REDACTED.into());
                }
            }
        }
        _ => {}
    }
    shapes::walk(v);
    layer_core::credentials::in_value(v);
}

/// The fields the diagnosis reads of a pod that is context (another namespace's: what runs on
/// each node, the device stack), by level; everything else goes.
const CONTEXT_METADATA: &[&str] = &[
    "name",
    "namespace",
    "uid",
    "labels",
    "annotations",
    "ownerReferences",
    "creationTimestamp",
    "deletionTimestamp",
    "resourceVersion",
    "generateName",
];
const CONTEXT_POD_SPEC: &[&str] = &[
    "nodeName",
    "schedulerName",
    "priority",
    "priorityClassName",
    "nodeSelector",
    "affinity",
    "tolerations",
    "runtimeClassName",
    "overhead",
    "resourceClaims",
    "schedulingGates",
    "containers",
    "initContainers",
];
const CONTEXT_CONTAINER: &[&str] = &["name", "image", "resources", "restartPolicy", "env"];
const CONTEXT_POD_STATUS: &[&str] = &[
    "phase",
    "conditions",
    "containerStatuses",
    "initContainerStatuses",
    "reason",
    "nominatedNodeName",
    "startTime",
    "resourceClaimStatuses",
];
const CONTEXT_DEPLOYMENT_SPEC: &[&str] = &["replicas", "selector", "template", "paused"];

fn keep_only(v: &mut Value, keys: &[&str]) {
    if let Value::Object(m) = v {
        m.retain(|k, _| keys.contains(&k.as_str()));
    }
}

fn context_pod_spec(spec: &mut Value) {
    keep_only(spec, CONTEXT_POD_SPEC);
    for key in ["containers", "initContainers"] {
        if let Some(Value::Array(cs)) = spec.get_mut(key) {
            cs.iter_mut().for_each(|c| keep_only(c, CONTEXT_CONTAINER));
        }
    }
}

/// A Pod or Deployment of another namespace than the work's, cut to what the diagnosis reads.
fn context(v: &mut Value) {
    let kind = v["kind"].as_str().unwrap_or("").to_string();
    keep_only(v, &["apiVersion", "kind", "metadata", "spec", "status"]);
    keep_only(&mut v["metadata"], CONTEXT_METADATA);
    match kind.as_str() {
        "Pod" => {
            context_pod_spec(&mut v["spec"]);
            keep_only(&mut v["status"], CONTEXT_POD_STATUS);
        }
        _ => {
            keep_only(&mut v["spec"], CONTEXT_DEPLOYMENT_SPEC);
            if let Some(t) = v.pointer_mut("/spec/template") {
                keep_only(t, &["metadata", "spec"]);
                keep_only(&mut t["metadata"], CONTEXT_METADATA);
                context_pod_spec(&mut t["spec"]);
            }
        }
    }
}

/// Whether an object is another namespace's Pod or Deployment, read only as context.
fn is_context(o: &layer_core::bundle::RawObject, work_namespace: Option<&str>) -> bool {
    let kind = (o.group(), o.kind().as_str());
    matches!(kind, ("", "Pod") | ("apps", "Deployment"))
        && work_namespace.is_some_and(|ns| o.namespace() != Some(ns))
}

/// The objects the core read (each once, after de-duplication), redacted, as the tool's own
/// bundle with its metadata, pretty-printed. `work_namespace` is the target's: Pods and
/// Deployments of other namespaces are context ([`context`]).
#[cfg(test)]
pub fn bundle(
    ix: &layer_core::Index,
    work_namespace: Option<&str>,
) -> Result<String, serde_json::Error> {
    let mut out = Vec::new();
    bundle_to(&mut out, ix, work_namespace)?;
    String::from_utf8(out).map_err(|e| serde_json::Error::io(std::io::Error::other(e)))
}

/// [`bundle`], written to `out` an object at a time.
pub fn bundle_to(
    out: &mut dyn Write,
    ix: &layer_core::Index,
    work_namespace: Option<&str>,
) -> Result<(), serde_json::Error> {
    written(out, ix, work_namespace, |_, _| true).map(|_| ())
}

/// [`bundle_to`] of a live read: only objects of the kinds the reader reads
/// ([`crate::plan::reads_kind`]), whatever the answers held (a Secret in a list of pods is
/// left out), and how many were left out. The reader never asks for another kind; this holds
/// the promise at the last step too.
pub fn live_bundle(
    out: &mut dyn Write,
    ix: &layer_core::Index,
    work_namespace: Option<&str>,
) -> Result<usize, serde_json::Error> {
    written(out, ix, work_namespace, crate::plan::reads_kind)
}

/// The redacted bundle of the objects whose (group, kind) `keep` takes, written to `out`, and
/// how many it did not take. Each object is read, redacted, written and dropped before the
/// next: the bundle is never held whole a second time (nor as text), so writing it costs what
/// one object costs beyond the index (a backlog's bundle was 19 times its file's size at the
/// peak when the list was built and printed whole).
fn written(
    out: &mut dyn Write,
    ix: &layer_core::Index,
    work_namespace: Option<&str>,
    keep: impl Fn(&str, &str) -> bool,
) -> Result<usize, serde_json::Error> {
    let kept: Vec<usize> = (0..ix.len())
        .filter(|&id| keep(ix.object(id).group(), ix.object(id).kind().as_str()))
        .collect();
    let left_out = ix.len() - kept.len();
    let mut meta = serde_json::to_value(ix.bundle().meta().cloned().unwrap_or_default())?;
    meta["redacted"] = Value::Bool(true);
    // What could not be read quotes the API server's errors, which can name its URL.
    layer_core::credentials::in_value(&mut meta);
    // The list's members in the order a `Value` of it keeps them, the items written lazily.
    let list =
        serde_json::json!({"apiVersion": "v1", "kind": "List", "items": [], "kubectlLayer": meta});
    let items = Items {
        ix,
        kept: &kept,
        work_namespace,
    };
    let mut w = std::io::BufWriter::with_capacity(1 << 16, out);
    serde_json::to_writer_pretty(&mut w, &Members { list: &list, items })?;
    w.write_all(b"\n")
        .and_then(|()| w.flush())
        .map_err(serde_json::Error::io)?;
    Ok(left_out)
}

/// The tool's bundle as a JSON object: `list`'s members, with `items` written by [`Items`].
struct Members<'a> {
    list: &'a Value,
    items: Items<'a>,
}

impl Serialize for Members<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let members = self.list.as_object().into_iter().flatten();
        let mut map = s.serialize_map(None)?;
        for (k, v) in members {
            if k == "items" {
                map.serialize_entry(k, &self.items)?;
            } else {
                map.serialize_entry(k, v)?;
            }
        }
        map.end()
    }
}

/// The kept objects, each read from the index and redacted as it is written.
struct Items<'a> {
    ix: &'a layer_core::Index,
    kept: &'a [usize],
    work_namespace: Option<&'a str>,
}

impl Serialize for Items<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.kept.len()))?;
        for &id in self.kept {
            let mut v = self.ix.value(id);
            object(&mut v);
            if is_context(self.ix.object(id), self.work_namespace) {
                context(&mut v);
            }
            seq.serialize_element(&v)?;
        }
        seq.end()
    }
}

#[cfg(test)]
mod tests {
    use super::shapes::in_domain;
    use super::{bundle, live_bundle};
    use layer_core::{Bundle, Diagnosis, Engine, Index, Options, TargetSpec};
    use serde_json::json;

    const MARK: &str = "MARKER-2b9e";

    fn index(items: Vec<serde_json::Value>) -> Index {
        let list = json!({"apiVersion": "v1", "kind": "List", "items": items});
        Index::new(Bundle::parse(list.to_string()).expect("parses"))
    }

    /// A live bundle writes no object of a kind the reader never asks for, whatever the
    /// answers held: a Secret that came back in a list is left out, and counted.
    #[test]
    fn a_live_bundle_writes_no_kind_the_reader_never_reads() {
        let ix = index(vec![
            json!({"apiVersion": "v1", "kind": "Secret",
                   "metadata": {"name": "hf", "namespace": "ml"}, "data": {"t": MARK}}),
            json!({"apiVersion": "v1", "kind": "ServiceAccount",
                   "metadata": {"name": "sa", "namespace": "ml"}}),
            json!({"apiVersion": "v1", "kind": "Pod",
                   "metadata": {"name": "p", "namespace": "ml"}}),
        ]);
        let mut out = Vec::new();
        let left_out = live_bundle(&mut out, &ix, Some("ml")).expect("writes");
        let text = String::from_utf8(out).expect("UTF-8");
        assert_eq!(left_out, 2);
        assert!(!text.contains("\"Secret\"") && !text.contains("ServiceAccount"));
        assert!(text.contains("\"Pod\""));
        // A file the user has keeps them, redacted: what they attach is theirs to choose.
        assert!(
            bundle(&ix, Some("ml"))
                .expect("writes")
                .contains("\"Secret\"")
        );
    }

    /// A container with a secret in every place the issue named: flags, a script, an exec
    /// probe, a probe's and a hook's HTTP headers, an exec hook, env.
    fn container() -> serde_json::Value {
        json!({"name": "c", "image": "vllm", "command": ["sh", "-c", format!("serve --token {MARK}")],
            "args": ["--hf-token", format!("{MARK}-next"), format!("--api-key={MARK}-eq"),
                     "--event-plane", "nats", "--verbose"],
            "env": [{"name": "HF_TOKEN", "value": format!("{MARK}-env")},
                    {"name": "DYN_EVENT_PLANE", "value": "nats"},
                    {"name": "NATS_SERVER", "value": format!("nats://user:{MARK}@nats.dynamo:4222")}],
            "readinessProbe": {"exec": {"command": ["check", format!("{MARK}-probe")]}},
            "livenessProbe": {"httpGet": {"path": "/healthz", "port": 8000,
                "httpHeaders": [{"name": "Authorization", "value": format!("Bearer {MARK}-header")}]}},
            "lifecycle": {"preStop": {"exec": {"command": ["curl", format!("{MARK}-hook")]}},
                          "postStart": {"httpGet": {"port": 80,
                              "httpHeaders": [{"name": "X-Key", "value": format!("{MARK}-hook-header")}]}}},
            "resources": {"limits": {"nvidia.com/gpu": 1}}})
    }

    /// A pod whose container holds every secret above; `context` adds what only a context pod
    /// loses (its volumes, its IP), which the work's own pod keeps.
    fn pod(namespace: &str, context: bool) -> serde_json::Value {
        let mark = |what: &str| {
            if context {
                format!("{MARK}-{what}")
            } else {
                what.to_string()
            }
        };
        json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "p", "namespace": namespace},
            "spec": {"nodeName": "n1", "containers": [container()],
                     "volumes": [{"name": "v", "hostPath": {"path": mark("volume")}}]},
            "status": {"phase": "Running", "podIP": mark("ip"), "containerStatuses": [
                {"name": "c", "restartCount": 3,
                 "lastState": {"terminated": {"exitCode": 1, "reason": "Error",
                                              "message": format!("{MARK}-printed-by-the-app")}},
                 "state": {"terminated": {"exitCode": 128, "reason": "StartError",
                                          "message": "failed to create containerd task: nvidia-container-cli: initialization error"}}}]}})
    }

    /// The bundle written of `ix` for namespace `ml`, with no line holding a marker.
    fn redacted(ix: &Index) -> String {
        let text = bundle(ix, Some("ml")).expect("writes");
        let leaked: Vec<&str> = text.lines().filter(|l| l.contains(MARK)).collect();
        assert!(leaked.is_empty(), "leaked:\n{}", leaked.join("\n"));
        text
    }

    #[test]
    fn every_planted_secret_is_removed() {
        let deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "d", "namespace": "other"},
            "spec": {"replicas": 1, "template": {"metadata": {"labels": {"app": "d"}},
                     "spec": {"containers": [container()]}}},
            "status": {"replicas": 1}});
        let ix = index(vec![pod("ml", false), pod("other", true), deployment]);
        let text = redacted(&ix);
        // What the diagnosis reads stays: flag names, the event plane, the runtime's own error,
        // the NATS host, the resources.
        for kept in [
            "--hf-token",
            "--api-key=<redacted>",
            "--event-plane",
            "\"nats\"",
            "nats://nats.dynamo:4222",
            "nvidia-container-cli: initialization error",
            "nvidia.com/gpu",
            "HF_TOKEN",
            "Authorization",
        ] {
            assert!(text.contains(kept), "{kept} is gone:\n{text}");
        }
        // The other namespace's pod and Deployment keep only what the diagnosis reads.
        let b: serde_json::Value = serde_json::from_str(&text).unwrap();
        let other = &b["items"][1];
        assert_eq!(other["metadata"]["namespace"], "other");
        assert!(other["spec"].get("volumes").is_none() && other["status"].get("podIP").is_none());
        assert!(
            other["spec"]["containers"][0]
                .get("readinessProbe")
                .is_none()
        );
        assert_eq!(other["status"]["containerStatuses"][0]["restartCount"], 3);
        let d = &b["items"][2]["spec"]["template"]["spec"]["containers"][0];
        assert!(d.get("args").is_none() && d["env"][0]["value"] == "<redacted>");
        // The work's own pod keeps its shape (only values go).
        assert!(b["items"][0]["spec"].get("volumes").is_some());
    }

    /// A pod template as a custom resource nests one, with secrets in its metadata (an
    /// applied-configuration annotation of k3s, base64 and gzip; another tool's) and its
    /// container.
    fn template(what: &str) -> serde_json::Value {
        json!({"metadata": {"labels": {"app": what, "env": "prod"},
                            "annotations": {"objectset.rio.cattle.io/applied": format!("H4sIAAAAAAAA/{MARK}-{what}-rio"),
                                            "example.com/note": format!("{MARK}-{what}-note")}},
               "spec": {"nodeSelector": {"env": "gpu"}, "containers": [container()]}})
    }

    /// Every shape issue 38 named, each holding a marker: applied configurations in the
    /// domains rules read, pod templates nested in custom resources' specs (found by shape),
    /// flags with glued values and values that start with `-`, environment as a map, a
    /// RayJob's runtime environment and entrypoint, credentials of URLs anywhere.
    fn custom_resources() -> Vec<serde_json::Value> {
        let glued = json!({"name": "g", "image": "tool",
            "args": [format!("-p{MARK}-p"), format!("-uuser:{MARK}-u"), format!("-HAuthorization:Bearer-{MARK}-h"),
                     "--password", format!("-{MARK}-dash"), "-v", format!("{MARK}-v"), format!("-Dtoken={MARK}-d"),
                     "--event-plane", "nats"],
            "command": format!("python serve.py --token {MARK}-string-command")});
        vec![
            json!({"apiVersion": "v1", "kind": "RuntimeClass", "metadata": {"name": "nvidia", "annotations": {
                "objectset.rio.cattle.io/applied": format!("H4sIAAAAAAAA/{MARK}-applied"),
                "objectset.rio.cattle.io/owner-name": "runtimes",
                "nvidia.com/last-applied-configuration": format!("{{\"kind\":\"X\",\"t\":\"{MARK}-nv\"}}"),
                "nvidia.com/manifest": format!("{{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"data\":{{\"t\":\"{MARK}-json\"}}}}")}},
                "handler": "nvidia"}),
            json!({"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
                "metadata": {"name": "js", "namespace": "ml"},
                "spec": {"replicatedJobs": [{"name": "w", "template": {"spec": {"template": template("jobset")}}}]}}),
            json!({"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet",
                "metadata": {"name": "lws", "namespace": "ml"},
                "spec": {"leaderWorkerTemplate": {"size": 2, "leaderTemplate": template("leader"),
                                                  "workerTemplate": template("worker")}}}),
            json!({"apiVersion": "ray.io/v1", "kind": "RayJob", "metadata": {"name": "rj", "namespace": "ml"},
                "spec": {"entrypoint": format!("HF_TOKEN={MARK}-assign python train.py --token {MARK}-entry --epochs=3"),
                         "runtimeEnvYAML": format!("pip:\n  - torch==2.4\nworking_dir: https://u:{MARK}-wd@files.example.com/x.zip\nenv_vars:\n  HF_TOKEN: {MARK}-ray\n  MODE: train\n"),
                         "rayClusterSpec": {"headGroupSpec": {"template": template("head")},
                                            "workerGroupSpecs": [{"groupName": "g", "template": template("ray-worker")}]}}}),
            json!({"apiVersion": "serving.kserve.io/v1beta1", "kind": "InferenceService",
                "metadata": {"name": "isvc", "namespace": "ml"},
                "spec": {"predictor": {"annotations": {"example.com/key": format!("{MARK}-kserve-annotation")},
                                       "labels": {"team": "a"},
                                       "model": {"modelFormat": {"name": "hf"}, "args": ["--hf-token", format!("{MARK}-kserve")],
                                                 "env": [{"name": "HF_TOKEN", "value": format!("{MARK}-kserve-env")}]},
                                       "containers": [glued]}}}),
            json!({"apiVersion": "nvidia.com/v1alpha1", "kind": "DynamoGraphDeployment",
                "metadata": {"name": "dgd", "namespace": "ml"},
                "spec": {"envs": {"HF_TOKEN": format!("{MARK}-env-map"), "DYN_EVENT_PLANE": "nats",
                                  "NATS_SERVER": format!("nats://user:{MARK}-nats@nats.dynamo:4222")},
                         "services": {"Frontend": {
                             "env": [{"name": "X", "value": format!("{MARK}-frontend")}, format!("Y={MARK}-pair")],
                             "extraPodMetadata": {"annotations": {"example.com/k": format!("{MARK}-extra-meta")}},
                             "extraPodSpec": {"mainContainer": {"args": ["--api-key", format!("{MARK}-dynamo")],
                                                                "env": {"TOKEN": {"value": format!("{MARK}-nested-map")}}}}}}}}),
            json!({"apiVersion": "v1", "kind": "Event", "metadata": {"name": "e", "namespace": "ml"},
                "involvedObject": {"kind": "Pod", "name": "p", "namespace": "ml"}, "reason": "Failed",
                "message": format!("pulling from https://robot:{MARK}-event@registry.example.com/x failed")}),
        ]
    }

    /// Each shape of issue 38 loses its secret and keeps what is not one.
    #[test]
    fn every_planted_secret_is_removed_from_custom_resources() {
        let list = json!({"apiVersion": "v1", "kind": "List", "items": custom_resources(),
            "kubectlLayer": {"unreadable": [{"kind": "Node", "resource": "nodes",
                "why": format!("cannot reach https://admin:{MARK}-server@10.0.0.1:6443: refused")}]}});
        let ix = Index::new(Bundle::parse(list.to_string()).expect("parses"));
        let text = redacted(&ix);
        for kept in [
            "\"objectset.rio.cattle.io/owner-name\": \"runtimes\"",
            "\"app\": \"jobset\"",
            "\"env\": \"prod\"",
            "\"env\": \"gpu\"",
            "\"team\": \"a\"",
            "\"-p<redacted>\"",
            "\"-u<redacted>\"",
            "\"-H<redacted>\"",
            "\"-D<redacted>\"",
            "\"--password\"",
            "\"-v\"",
            "--token <redacted>",
            "--epochs=<redacted>",
            "torch==2.4",
            "https://files.example.com/x.zip",
            "HF_TOKEN: <redacted>",
            "MODE: <redacted>",
            "\"DYN_EVENT_PLANE\": \"nats\"",
            "nats://nats.dynamo:4222",
            "https://registry.example.com/x failed",
            "https://10.0.0.1:6443",
            "\"modelFormat\"",
        ] {
            assert!(text.contains(kept), "{kept} is gone:\n{text}");
        }
        for gone in [
            "objectset.rio.cattle.io/applied",
            "last-applied-configuration",
            "nvidia.com/manifest",
        ] {
            assert!(!text.contains(gone), "{gone} is still there");
        }
    }

    fn engine() -> &'static Engine {
        static ENGINE: std::sync::OnceLock<Engine> = std::sync::OnceLock::new();
        ENGINE.get_or_init(|| Engine::builtin().expect("rules load"))
    }

    /// What a redacted bundle must keep: the verdict, every layer's state and every finding.
    fn judged(d: &Diagnosis) -> String {
        let layers: Vec<String> = d.layers.iter().map(|l| format!("{:?}", l.state)).collect();
        let findings: Vec<String> = d
            .findings
            .iter()
            .map(|f| format!("{} {:?}", f.rule, f.severity))
            .collect();
        format!(
            "{:?} {:?} {layers:?} {findings:?}",
            d.verdict.state, d.verdict.layer
        )
    }

    /// The same target of a bundle before and after `bundle TARGET -f` redacts it.
    fn same_after_redaction(name: &str, text: &str, target: &str) -> Result<(), String> {
        let ix = Index::new(Bundle::parse(text).map_err(|e| format!("{name}: {e}"))?);
        let spec = TargetSpec::parse(target, None);
        let id = layer_core::target::resolve(&ix, &spec).map_err(|e| format!("{name}: {e}"))?;
        let before = engine().diagnose(&ix, id, &Options::default());
        let redacted = bundle(&ix, ix.object(id).namespace()).expect("writes");
        let rx = Index::new(Bundle::parse(redacted).map_err(|e| format!("{name}: {e}"))?);
        let rid = layer_core::target::resolve(&rx, &spec).map_err(|e| format!("{name}: {e}"))?;
        let after = engine().diagnose(&rx, rid, &Options::default());
        let (b, a) = (judged(&before), judged(&after));
        (b == a)
            .then_some(())
            .ok_or(format!("{name} {target}:\n  before {b}\n  after  {a}"))
    }

    /// Redaction removes values, never a diagnosis: every scenario target and every incident
    /// is judged the same from its redacted bundle.
    #[test]
    fn redaction_keeps_every_scenario_diagnosis() {
        let mut changed = Vec::new();
        for s in scenarios::all() {
            let text = s.bundle_text();
            for e in &s.expectations {
                if let Err(why) = same_after_redaction(&s.name, &text, &e.target) {
                    changed.push(why);
                }
            }
        }
        for i in scenarios::incidents::all().expect("incidents load") {
            let text = std::fs::read_to_string(&i.bundle_path).expect("reads");
            if let Err(why) = same_after_redaction(&i.name, &text, &i.thread.target) {
                changed.push(why);
            }
        }
        assert!(changed.is_empty(), "{}", changed.join("\n"));
    }

    #[test]
    fn annotation_domains_match_whole_labels_not_suffixes() {
        assert!(in_domain("nvidia.com/gpu.present", "nvidia.com/"));
        assert!(in_domain("gpu.nvidia.com/x", "nvidia.com/"));
        assert!(in_domain("kueue.x-k8s.io/queue-name", "kueue.x-k8s.io/"));
        assert!(!in_domain("evilnvidia.com/token", "nvidia.com/"));
        assert!(!in_domain("notkueue.x-k8s.io/secret", "kueue.x-k8s.io/"));
        assert!(!in_domain("nvidia.com", "nvidia.com/"));
    }
}
