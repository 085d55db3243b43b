//! Live: `kubectl layer why|scan|bundle` against the in-process API server serving a scenario
//! bundle, with real API semantics (discovery, selectors, paging, faults). The live diagnosis
//! must equal the offline one for the same bundle; the real `kubectl` reads the same server.

use super::{TempDir, bin, stderr, stdout};
use apiserver::{Options, Server};
use serde_json::Value;
use std::path::PathBuf;
use std::process::Output;

/// A server for a bundle and a kubeconfig pointing at it.
pub struct Cluster {
    pub server: Server,
    pub kubeconfig: PathBuf,
    _dir: TempDir,
}

/// The objects of a bundle text, as the core reads them (de-duplicated).
pub fn objects(text: &str) -> Vec<Value> {
    let ix = layer_core::Index::new(layer_core::Bundle::parse(text).unwrap());
    (0..ix.len()).map(|i| ix.value(i)).collect()
}

pub fn serve(objects: Vec<Value>, opts: Options, namespace: &str) -> Cluster {
    let server = Server::start_blocking(objects, opts).expect("server starts");
    let dir = TempDir::new("kc");
    let kubeconfig = dir.0.join("kubeconfig");
    server.write_kubeconfig(&kubeconfig, namespace).unwrap();
    Cluster {
        server,
        kubeconfig,
        _dir: dir,
    }
}

impl Cluster {
    pub fn run(&self, args: &[&str]) -> Output {
        bin()
            .args(args)
            .arg("--kubeconfig")
            .arg(&self.kubeconfig)
            .output()
            .expect("runs")
    }
}

fn json(o: &Output, what: &str) -> Value {
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{what}: not JSON ({e}): {}\n{}", stdout(o), stderr(o)))
}

/// The offline diagnosis's `now`, so age-based rules see the same time live.
fn offline(path: &str, target: &str) -> (Value, Option<i32>) {
    let o = bin()
        .args(["why", target, "-f", path, "-o", "json"])
        .output()
        .unwrap();
    (json(&o, target), o.status.code())
}

/// For a failure message: the objects of the bundle that the live read of a target left out.
fn not_read(cluster: &Cluster, text: &str, target: &str) -> String {
    let ids = |t: &str| -> std::collections::BTreeSet<String> {
        let b = layer_core::Bundle::parse(t).unwrap();
        b.objects()
            .iter()
            .map(|o| {
                format!(
                    "{}/{} {}/{}",
                    o.group(),
                    o.kind(),
                    o.namespace().unwrap_or(""),
                    o.name
                )
            })
            .collect()
    };
    let o = cluster.run(&["bundle", target]);
    let live = ids(&stdout(&o));
    let all = ids(text);
    let left: Vec<String> = all.difference(&live).cloned().collect();
    format!("{} of {}: {}", left.len(), all.len(), left.join(", "))
}

/// The most requests `why` on a pod makes, discovery included, on a server with aggregated
/// discovery (Kubernetes 1.30+): the pod's plan reads only what its diagnosis can use.
const POD_REQUESTS_MAX: usize = 15;

/// Aggregated discovery, as every current API server offers it.
fn current() -> Options {
    Options {
        aggregated_discovery: true,
        ..Options::default()
    }
}

/// A diagnosis without where its `now` came from (an option live, the bundle offline).
pub(super) fn comparable(mut d: Value) -> Value {
    if let Some(now) = d.get_mut("now").and_then(Value::as_object_mut) {
        now.remove("source");
    }
    // Whether Kueue's visibility API was asked is the read's, not the cluster's: a file is
    // never asked (null), a live read says what the server answered.
    if let Some(queue) = d.get_mut("queue").and_then(Value::as_object_mut) {
        queue.remove("visibility");
        queue.remove("visibilityWhy");
    }
    d
}

/// Every target of every scenario, served by the test API server, diagnoses live exactly as
/// offline from the scenario's file: the whole diagnosis, layers, findings, evidence, next
/// steps and what is missing. A pod's diagnosis takes at most [`POD_REQUESTS_MAX`] requests.
#[test]
fn every_scenario_diagnoses_the_same_live_as_offline() {
    let mut failures = Vec::new();
    let mut pod_requests_max = (0usize, String::new());
    // LIVE_ONLY=<part of a scenario name> narrows the run when chasing a difference.
    let only = std::env::var("LIVE_ONLY").unwrap_or_default();
    for s in scenarios::all()
        .into_iter()
        .filter(|s| s.name.contains(&only))
    {
        let text = s.bundle_text();
        let cluster = serve(objects(&text), current(), "default");
        let path = s.bundle_path.to_string_lossy().to_string();
        for e in &s.expectations {
            let (off, off_code) = offline(&path, &e.target);
            let now = off["now"]["time"].as_str().unwrap_or_default().to_string();
            let before = cluster.server.requests().len();
            let o = cluster.run(&["why", &e.target, "--now", &now, "-o", "json"]);
            let used = cluster.server.requests().len() - before;
            if e.target.starts_with("Pod/") && used > pod_requests_max.0 {
                pod_requests_max = (used, format!("{} {}", s.name, e.target));
            }
            if o.status.code() != off_code {
                failures.push(format!(
                    "{} {}: exit {:?} live, {:?} offline\n{}",
                    s.name,
                    e.target,
                    o.status.code(),
                    off_code,
                    stderr(&o)
                ));
                continue;
            }
            let (live, off) = (comparable(json(&o, &e.target)), comparable(off.clone()));
            if let Some(field) = off
                .as_object()
                .into_iter()
                .flatten()
                .map(|(k, _)| k)
                .find(|k| live[k.as_str()] != off[k.as_str()])
            {
                failures.push(format!(
                    "{} {}: {field} differs\nlive:    {}\noffline: {}\nnot read live: {}",
                    s.name,
                    e.target,
                    live[field],
                    off[field],
                    not_read(&cluster, &text, &e.target)
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} differences:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    assert!(
        pod_requests_max.0 > 0 && pod_requests_max.0 <= POD_REQUESTS_MAX,
        "why on a pod: {} requests ({})",
        pod_requests_max.0,
        pod_requests_max.1
    );
}

fn scenario(name: &str) -> scenarios::Scenario {
    scenarios::get(name).unwrap_or_else(|| panic!("no scenario {name}"))
}

pub fn scenario_objects(name: &str) -> Vec<Value> {
    objects(&scenario(name).bundle_text())
}

fn layer_state(d: &Value, layer: &str) -> String {
    d["layers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["layer"] == layer)
        .map(|l| l["state"].as_str().unwrap_or("").to_string())
        .unwrap_or_default()
}

#[test]
fn forbidden_and_failing_reads_make_layers_unknown_and_are_named() {
    let baseline = serve(
        scenario_objects("healthy-gpu-job"),
        Options::default(),
        "ml",
    );
    let base = json(
        &baseline.run(&["why", "job/resnet", "-o", "json"]),
        "baseline",
    );
    let opts = Options {
        forbidden: vec!["nodes".into()],
        fail: vec!["clusterqueues".into()],
        truncate: vec!["daemonsets".into()],
        ..Options::default()
    };
    let cluster = serve(scenario_objects("healthy-gpu-job"), opts, "ml");
    let o = cluster.run(&["why", "job/resnet", "-o", "json"]);
    // The job runs, but what the failed reads would show was not judged: not an all-clear.
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let d = json(&o, "why");
    let missing = d["missing"].as_array().unwrap();
    let why_of = |resource: &str| {
        missing
            .iter()
            .find(|m| m["resource"].as_str().unwrap_or("").starts_with(resource))
            .and_then(|m| m["why"].as_str())
            .map(str::to_string)
            .unwrap_or_else(|| panic!("{resource} not in missing: {missing:?}"))
    };
    assert_eq!(why_of("nodes"), "forbidden");
    assert_eq!(
        missing.iter().find(|m| m["resource"] == "nodes").unwrap()["kind"],
        "Node"
    );
    assert!(why_of("clusterqueues").starts_with("server error 500"));
    assert!(
        why_of("daemonsets").contains("cut off"),
        "{}",
        why_of("daemonsets")
    );
    for layer in ["device", "placement", "admission"] {
        assert_eq!(layer_state(&base, layer), "ok", "baseline {layer}");
        assert_eq!(
            layer_state(&d, layer),
            "unknown",
            "{layer}: {}",
            d["layers"]
        );
    }
    // Grouping read everything it needs and still judges as before.
    assert_eq!(layer_state(&d, "grouping"), layer_state(&base, "grouping"));
    assert_eq!(
        d["verdict"]["state"], "ok",
        "the job runs: still its verdict"
    );
    let text = cluster.run(&["why", "job/resnet"]);
    assert!(
        stdout(&text).contains("nodes: forbidden") || stdout(&text).contains("nodes (forbidden)"),
        "text output names the unreadable read:\n{}",
        stdout(&text)
    );
}

#[test]
fn an_unreachable_or_hanging_cluster_is_exit_3() {
    let Cluster {
        server,
        kubeconfig,
        _dir,
    } = serve(
        scenario_objects("healthy-gpu-job"),
        Options::default(),
        "ml",
    );
    drop(server);
    let o = bin()
        .args([
            "why",
            "job/resnet",
            "--request-timeout",
            "5s",
            "--kubeconfig",
        ])
        .arg(&kubeconfig)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("error[cluster]: cannot reach the API server at http://127.0.0.1:"),
        "{}",
        stderr(&o)
    );

    let slow = serve(
        scenario_objects("healthy-gpu-job"),
        Options {
            delay: Some(std::time::Duration::from_secs(30)),
            ..Options::default()
        },
        "ml",
    );
    let start = std::time::Instant::now();
    let o = slow.run(&["why", "job/resnet", "--request-timeout", "1s"]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(stderr(&o).contains("timed out"), "{}", stderr(&o));
    // Bounded by the timeout, not by the server's 30 s (a behaviour check with slack, not a
    // speed limit).
    assert!(start.elapsed() < std::time::Duration::from_secs(20));

    let dropped = serve(
        scenario_objects("healthy-gpu-job"),
        Options {
            drop_connection: vec!["jobs".into()],
            ..Options::default()
        },
        "ml",
    );
    let o = dropped.run(&["why", "job/resnet"]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("cannot read job/resnet in namespace ml"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn absent_apis_are_skipped_and_not_found_names_the_closest() {
    // Only core objects: no Kueue, JobSet, LWS, KAI, DRA, Dynamo installed.
    let core_only: Vec<Value> = scenario_objects("healthy-gpu-job")
        .into_iter()
        .filter(|o| !o["apiVersion"].as_str().unwrap_or("").contains('/'))
        .collect();
    let cluster = serve(core_only, Options::default(), "ml");
    let o = cluster.run(&["why", "resnet-h5v8", "-o", "json"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("resnet-h5v8c"),
        "closest name: {}",
        stderr(&o)
    );
    let o = cluster.run(&["why", "resnet-h5v8c", "-o", "json"]);
    assert!(matches!(o.status.code(), Some(0 | 1)), "{}", stderr(&o));
    let b = cluster.run(&["bundle", "resnet-h5v8c"]);
    let b: Value = serde_json::from_slice(&b.stdout).unwrap();
    assert_eq!(
        b["kubectlLayer"]["unreadable"],
        serde_json::json!([]),
        "absent APIs are not failures"
    );
    let apis = b["kubectlLayer"]["apis"].as_array().unwrap();
    assert!(apis.contains(&Value::String("v1".into())));
    assert!(
        !apis
            .iter()
            .any(|a| a.as_str().unwrap().starts_with("kueue")),
        "{apis:?}"
    );
    let asked: Vec<String> = cluster
        .server
        .requests()
        .iter()
        .map(|r| r.path.clone())
        .collect();
    assert!(
        !asked.iter().any(|p| p.contains("kueue.x-k8s.io/v")),
        "no reads of an absent API"
    );
    let o = cluster.run(&["why", "workload/x"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("no kind named `workload`"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn bundle_is_redacted_and_reads_back_to_the_same_diagnosis() {
    const MARK: &str = "MARKER-7f3a9c";
    let mut objs = scenario_objects("kueue-admitted-no-gpu-room");
    // Plant markers wherever secrets hide: Secret data and stringData, a token Secret, env
    // values in the pod and its Job's template, ConfigMap data, annotations, last-applied.
    objs.push(serde_json::json!({"apiVersion": "v1", "kind": "Secret",
        "metadata": {"name": "hf-token", "namespace": "ml"},
        "type": "Opaque", "data": {"token": format!("{MARK}-secret-data")},
        "stringData": {"plain": format!("{MARK}-string-data")}}));
    objs.push(serde_json::json!({"apiVersion": "v1", "kind": "Secret",
        "metadata": {"name": "sa-token", "namespace": "ml",
                     "annotations": {"kubernetes.io/service-account.name": "default"}},
        "type": "kubernetes.io/service-account-token",
        "data": {"token": format!("{MARK}-sa-token")}}));
    objs.push(serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "app-config", "namespace": "ml"},
        "data": {"settings.json": format!("{MARK}-configmap")},
        "binaryData": {"blob": format!("{MARK}-binary")}}));
    for o in objs.iter_mut() {
        if o["kind"] == "Pod" || o["kind"] == "Job" {
            let meta = o["metadata"].as_object_mut().unwrap();
            let ann = meta
                .entry("annotations")
                .or_insert_with(|| serde_json::json!({}));
            ann["example.com/api-key"] = Value::String(format!("{MARK}-annotation"));
            ann["kubectl.kubernetes.io/last-applied-configuration"] =
                Value::String(format!("{{\"token\":\"{MARK}-last-applied\"}}"));
            meta.insert(
                "managedFields".into(),
                serde_json::json!([{"manager": format!("{MARK}-managed")}]),
            );
            let spec = if o["kind"] == "Pod" {
                &mut o["spec"]
            } else {
                &mut o["spec"]["template"]["spec"]
            };
            if let Some(cs) = spec["containers"].as_array_mut() {
                for c in cs {
                    c["env"] = serde_json::json!([
                        {"name": "HF_TOKEN", "value": format!("{MARK}-env")},
                        {"name": "FROM_SECRET", "valueFrom": {"secretKeyRef": {"name": "hf-token", "key": "token"}}}
                    ]);
                }
            }
        }
    }
    let cluster = serve(objs, Options::default(), "ml");
    let target = "job/trainer";
    let o = cluster.run(&["bundle", target]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    // The pod and job were read (the markers had a way in) …
    assert!(
        text.contains("HF_TOKEN")
            && text.contains("FROM_SECRET")
            && text.contains("example.com/api-key")
    );
    // … and nothing planted came out.
    assert!(
        !text.contains(MARK),
        "a marker leaked:\n{}",
        text.lines()
            .filter(|l| l.contains(MARK))
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert!(stderr(&o).contains("redacted"));
    let b: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(b["kubectlLayer"]["redacted"], true);
    assert_eq!(b["kubectlLayer"]["serverVersion"], "v1.34.2");
    assert_eq!(b["kubectlLayer"]["context"], "test");
    // The redacted bundle reads back offline to the same diagnosis as the live read.
    let dir = TempDir::new("bundle");
    let file = dir.0.join("bundle.json");
    std::fs::write(&file, &text).unwrap();
    let now = b["kubectlLayer"]["collectedAt"]
        .as_str()
        .unwrap()
        .to_string();
    let live = json(
        &cluster.run(&["why", target, "--now", &now, "-o", "json"]),
        "live",
    );
    let off = bin()
        .args(["why", target, "-n", "ml", "-o", "json", "-f"])
        .arg(&file)
        .output()
        .unwrap();
    let off = json(&off, "offline");
    assert_eq!(live["verdict"], off["verdict"]);
    assert_eq!(live["findings"], off["findings"]);
}

/// Adds `extra` CPU nodes and twenty pods per node in another namespace.
fn grow(mut objs: Vec<Value>, extra: usize) -> Vec<Value> {
    for i in 0..extra {
        let node = format!("filler-{i:05}");
        objs.push(serde_json::json!({"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": node, "labels": {"node-role": "cpu"}},
            "status": {"capacity": {"cpu": "96"},
                       "allocatable": {"cpu": "96"},
                       "conditions": [{"type": "Ready", "status": "True"}]}}));
        for j in 0..20 {
            objs.push(serde_json::json!({"apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": format!("{node}-p{j}"), "namespace": "filler",
                             "uid": format!("uid-{node}-{j}")},
                "spec": {"nodeName": node, "containers": [{"name": "c",
                         "resources": {"requests": {"cpu": "1"}}}]},
                "status": {"phase": "Running",
                           "conditions": [{"type": "Ready", "status": "True"}]}}));
        }
    }
    objs
}

#[test]
fn requests_do_not_grow_with_the_cluster() {
    let mut counts = Vec::new();
    for extra in [0, 400] {
        let cluster = serve(
            grow(scenario_objects("kueue-admitted-no-gpu-room"), extra),
            Options::default(),
            "ml",
        );
        let o = cluster.run(&["why", "job/trainer", "-o", "json"]);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        let reqs = cluster.server.requests();
        // A paginated list is one request: count the first page only.
        let calls = reqs
            .iter()
            .filter(|r| !r.query.contains("continue="))
            .count();
        let pages = reqs.len() - calls;
        counts.push((calls, pages, json(&o, "why")["verdict"].clone()));
    }
    assert_eq!(counts[0].0, counts[1].0, "calls: {counts:?}");
    assert!(
        counts[1].1 >= counts[0].1,
        "the bigger cluster has more pages, not more calls"
    );
    assert_eq!(counts[0].2, counts[1].2, "same verdict");
}

#[test]
fn the_real_kubectl_reads_the_same_server_and_its_output_diagnoses_the_same() {
    let kubectl = ["kubectl", "/usr/bin/kubectl"].into_iter().find(|k| {
        std::process::Command::new(k)
            .arg("version")
            .arg("--client")
            .output()
            .is_ok_and(|o| o.status.success())
    });
    let Some(kubectl) = kubectl else {
        panic!("kubectl is required for this test (Debian: apt-get install kubernetes-client)");
    };
    let cluster = serve(
        scenario_objects("kueue-admitted-no-gpu-room"),
        Options::default(),
        "ml",
    );
    let cache = TempDir::new("kubectl-cache");
    let o = std::process::Command::new(kubectl)
        .arg("--kubeconfig")
        .arg(&cluster.kubeconfig)
        .arg("--cache-dir")
        .arg(&cache.0)
        .args([
            "get",
            "pods,nodes,events,jobs,workloads.kueue.x-k8s.io,localqueues,clusterqueues,resourceflavors",
            "-A",
            "-o",
            "json",
        ])
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "kubectl: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let dir = TempDir::new("kubectl-out");
    let file = dir.0.join("get.json");
    std::fs::write(&file, &o.stdout).unwrap();
    let off = bin()
        .args(["why", "job/trainer", "-n", "ml", "-o", "json", "-f"])
        .arg(&file)
        .output()
        .unwrap();
    let off = json(&off, "kubectl output");
    let now = off["now"]["time"].as_str().unwrap().to_string();
    let live = json(
        &cluster.run(&["why", "job/trainer", "--now", &now, "-o", "json"]),
        "live",
    );
    assert_eq!(live["verdict"], off["verdict"]);
    assert_eq!(off["verdict"]["layer"], "placement");
}

#[test]
fn scan_live_lists_the_same_work_as_offline() {
    for name in [
        "plc-kai-queues",
        "adm-queue-misconfigured",
        "srv-inferencepool-llmd",
    ] {
        let s = scenario(name);
        let path = &s.bundle_path;
        let cluster = serve(objects(&s.bundle_text()), Options::default(), "default");
        let off = bin()
            .args(["scan", "-o", "json", "-f"])
            .arg(path)
            .output()
            .unwrap();
        let off_json = json(&off, "offline scan");
        let now = off_json["diagnoses"][0]["now"]["time"]
            .as_str()
            .unwrap_or("")
            .to_string();
        let live = cluster.run(&["scan", "-A", "-o", "json", "--now", &now]);
        assert_eq!(
            live.status.code(),
            off.status.code(),
            "{name}: {}",
            stderr(&live)
        );
        let pick = |v: &Value| -> Vec<(Value, Value)> {
            v["diagnoses"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| (d["target"].clone(), d["verdict"].clone()))
                .collect()
        };
        assert_eq!(pick(&json(&live, "live scan")), pick(&off_json), "{name}");
    }
}

#[test]
fn a_server_that_vanishes_mid_read_gives_a_partial_diagnosis_or_exit_3() {
    // Vanishing after discovery and the target: the rest is missing, the diagnosis stands.
    let baseline = serve(
        scenario_objects("kueue-admitted-no-gpu-room"),
        Options::default(),
        "ml",
    );
    let o = baseline.run(&["why", "job/trainer", "-o", "json"]);
    assert_eq!(o.status.code(), Some(1));
    let reqs = baseline.server.requests();
    // Discovery, the target and its owners come first; cut right after the target's GET.
    let target_at = reqs
        .iter()
        .position(|r| r.path.ends_with("/jobs/trainer"))
        .expect("the target was read");
    let cut = serve(
        scenario_objects("kueue-admitted-no-gpu-room"),
        Options {
            vanish_after: Some(target_at + 1),
            ..Options::default()
        },
        "ml",
    );
    let o = cut.run(&[
        "why",
        "job/trainer",
        "-o",
        "json",
        "--request-timeout",
        "10s",
    ]);
    // What was read is diagnosed, but the reads after the cut failed: no all-clear (3 when
    // no layer could be judged).
    assert!(matches!(o.status.code(), Some(1 | 3)), "{}", stderr(&o));
    let d = json(&o, "partial");
    assert!(d["incomplete"]["reads"].is_array(), "{}", d["incomplete"]);
    let missing = d["missing"].as_array().unwrap();
    assert!(
        missing.iter().filter(|m| m["resource"].is_string()).count() > 5,
        "the reads after the cut are named: {missing:?}"
    );
    assert!(
        missing.iter().any(|m| m["resource"] == "nodes"),
        "{missing:?}"
    );
    for layer in ["device", "placement"] {
        assert_eq!(layer_state(&d, layer), "unknown", "{layer}");
    }
    // Vanishing before the target: nothing to diagnose, exit 3.
    let early = serve(
        scenario_objects("kueue-admitted-no-gpu-room"),
        Options {
            vanish_after: Some(target_at),
            ..Options::default()
        },
        "ml",
    );
    let o = early.run(&["why", "job/trainer", "--request-timeout", "10s"]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("cannot read job/trainer"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn kubeconfig_may_be_split_across_files_in_kubeconfig_env() {
    let cluster = serve(
        scenario_objects("healthy-gpu-job"),
        Options::default(),
        "ml",
    );
    let full = cluster.server.kubeconfig("ml");
    let (head, rest) = full.split_once("contexts:").unwrap();
    let (contexts, users) = rest.split_once("users:").unwrap();
    let dir = TempDir::new("split");
    let a = dir.0.join("clusters-users");
    let b = dir.0.join("contexts");
    std::fs::write(&a, format!("{head}users:{users}")).unwrap();
    std::fs::write(
        &b,
        format!("apiVersion: v1\nkind: Config\ncontexts:{contexts}"),
    )
    .unwrap();
    let joined = std::env::join_paths([&a, &b]).unwrap();
    let o = bin()
        .env("KUBECONFIG", &joined)
        .args(["why", "job/resnet", "-o", "json"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        json(&o, "why")["target"]["namespace"],
        "ml",
        "namespace from the context"
    );
    // --context picks a context by name; an unknown one is a clear error.
    let o = bin()
        .env("KUBECONFIG", &joined)
        .args(["why", "job/resnet", "--context", "nope"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(3));
    assert!(stderr(&o).contains("nope"), "{}", stderr(&o));
}

/// The reader makes only the reads the printed ClusterRole allows: naming a Secret as the
/// target, or a pod whose ownerReference names a Secret or a ConfigMap, reads no Secret and
/// GETs no ConfigMap by name.
#[test]
fn no_read_outside_the_role_even_when_the_bundle_points_there() {
    let objects: Vec<Value> = vec![
        serde_json::json!({"apiVersion":"v1","kind":"Secret","metadata":{"name":"hf","namespace":"ml","uid":"us"},"data":{"t":"aHVudGVyMg=="}}),
        serde_json::json!({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","namespace":"ml","uid":"uc"},"data":{"k":"v"}}),
        serde_json::json!({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"ml","uid":"up",
            "ownerReferences":[
                {"apiVersion":"v1","kind":"Secret","name":"hf","uid":"us","controller":true},
                {"apiVersion":"v1","kind":"ConfigMap","name":"cm","uid":"uc"}]},
            "spec":{"containers":[{"name":"c","image":"i"}]},"status":{"phase":"Pending"}}),
    ];
    let cluster = serve(objects, Options::default(), "ml");
    let o = cluster.run(&["why", "secret/hf"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let o = cluster.run(&["why", "p", "-o", "json"]);
    assert!(matches!(o.status.code(), Some(0 | 1)), "{}", stderr(&o));
    let bad: Vec<String> = cluster
        .server
        .requests()
        .into_iter()
        .map(|r| r.path)
        .filter(|p| p.contains("/secrets") || p.contains("/configmaps/"))
        .collect();
    assert!(bad.is_empty(), "reads outside the role: {bad:?}");
}

/// `--max-input-bytes` bounds what the reader holds of the cluster's answers while it reads
/// them: a list answer far past the limit, streamed without a length, stops the read at the
/// limit with an error naming the request and the limit, instead of being buffered whole.
#[test]
fn max_input_bytes_bounds_live_answers_while_they_are_read() {
    let limit = "10000000";
    let normal = serve(
        scenario_objects("healthy-gpu-job"),
        Options::default(),
        "ml",
    );
    let o = normal.run(&["why", "job/resnet", "--max-input-bytes", limit]);
    assert_eq!(o.status.code(), Some(0), "within the limit: {}", stderr(&o));
    let huge = serve(
        scenario_objects("healthy-gpu-job"),
        Options {
            huge: vec!["pods".into()],
            huge_bytes: 300 << 20,
            ..Options::default()
        },
        "ml",
    );
    let o = huge.run(&["why", "job/resnet", "--max-input-bytes", limit]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert!(
        err.contains("error[input-too-large]") && err.contains(limit),
        "names the limit: {err}"
    );
    assert!(err.contains("/pods"), "names the request: {err}");
    let sent = huge.server.bytes_streamed();
    assert!(
        sent < 100 << 20,
        "the reader stopped near the limit, not at the end of the 300 MB answer: {sent} bytes sent"
    );
}

fn missing_why(d: &Value, resource: &str) -> Option<String> {
    d["missing"]
        .as_array()?
        .iter()
        .find(|m| m["resource"] == resource)
        .and_then(|m| m["why"].as_str())
        .map(str::to_string)
}

fn requests_to(cluster: &Cluster, plural: &str) -> usize {
    cluster
        .server
        .requests()
        .iter()
        .filter(|r| r.path.ends_with(&format!("/{plural}")))
        .count()
}

/// A 429 is retried after the server's Retry-After while the deadline allows, a few times at
/// most; then the read is named "rate limited", not "timed out", and a wait past the deadline
/// is never started, so the other reads keep their time.
#[test]
fn rate_limited_reads_honour_retry_after_and_are_named() {
    let throttle = |times: usize, after: &str| Options {
        throttle: vec![apiserver::Throttle {
            resource: "clusterqueues".into(),
            times,
            retry_after: Some(after.into()),
        }],
        ..Options::default()
    };
    let base = serve(
        scenario_objects("healthy-gpu-job"),
        Options::default(),
        "ml",
    );
    let baseline = json(&base.run(&["why", "job/resnet", "-o", "json"]), "baseline");

    // Once, then served: the diagnosis is the one without throttling.
    let once = serve(scenario_objects("healthy-gpu-job"), throttle(1, "1"), "ml");
    let o = once.run(&["why", "job/resnet", "-o", "json"]);
    let d = json(&o, "throttled once");
    assert_eq!(d["missing"], baseline["missing"], "{}", stderr(&o));
    assert_eq!(d["verdict"], baseline["verdict"]);
    assert_eq!(requests_to(&once, "clusterqueues"), 2, "asked again once");

    // Always: a few tries, then named as what it is.
    let always = serve(
        scenario_objects("healthy-gpu-job"),
        throttle(usize::MAX, "1"),
        "ml",
    );
    let d = json(
        &always.run(&[
            "why",
            "job/resnet",
            "-o",
            "json",
            "--request-timeout",
            "60s",
        ]),
        "always throttled",
    );
    let why = missing_why(&d, "clusterqueues.kueue.x-k8s.io").expect("clusterqueues missing");
    assert!(
        why.starts_with("rate limited (429) by the API server"),
        "{why}"
    );
    let tries = requests_to(&always, "clusterqueues");
    assert!((2..=4).contains(&tries), "{tries} tries");
    assert_eq!(layer_state(&d, "admission"), "unknown");

    // A Retry-After past the deadline is not waited for: one try, and no other read runs out
    // of time because of it.
    let later = serve(
        scenario_objects("healthy-gpu-job"),
        throttle(usize::MAX, "3600"),
        "ml",
    );
    let d = json(
        &later.run(&[
            "why",
            "job/resnet",
            "-o",
            "json",
            "--request-timeout",
            "20s",
        ]),
        "retry after an hour",
    );
    let why = missing_why(&d, "clusterqueues.kueue.x-k8s.io").expect("clusterqueues missing");
    assert!(
        why.starts_with("rate limited (429) by the API server") && why.contains("3600"),
        "{why}"
    );
    assert_eq!(requests_to(&later, "clusterqueues"), 1);
    let others: Vec<&Value> = d["missing"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["resource"] != "clusterqueues.kueue.x-k8s.io" && m["resource"].is_string())
        .collect();
    assert!(
        others.is_empty(),
        "only the throttled read is missing: {others:?}"
    );
}

/// A connection the server resets is reported as a reset, for a read in the fan-out (named in
/// `missing`) and for the target (exit 3).
#[test]
fn a_reset_connection_is_named_as_a_reset() {
    let reset = |plural: &str| Options {
        reset_connection: vec![plural.into()],
        ..Options::default()
    };
    let fan_out = serve(
        scenario_objects("healthy-gpu-job"),
        reset("clusterqueues"),
        "ml",
    );
    let o = fan_out.run(&[
        "why",
        "job/resnet",
        "-o",
        "json",
        "--request-timeout",
        "20s",
    ]);
    let d = json(&o, "reset");
    let why = missing_why(&d, "clusterqueues.kueue.x-k8s.io").expect("clusterqueues missing");
    assert!(why.contains("connection reset"), "{why}");
    assert!(!why.contains("timed out"), "{why}");
    let target = serve(scenario_objects("healthy-gpu-job"), reset("jobs"), "ml");
    let o = target.run(&["why", "job/resnet", "--request-timeout", "20s"]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("cannot read job/resnet in namespace ml")
            && stderr(&o).contains("connection reset"),
        "{}",
        stderr(&o)
    );
}

/// One rule of a ClusterRole.
pub struct RoleRule {
    groups: Vec<String>,
    resources: Vec<String>,
    verbs: Vec<String>,
    names: Vec<String>,
}

/// The rules of the ClusterRole `kubectl layer rbac` prints, read as any bundle is.
pub fn printed_role() -> Vec<RoleRule> {
    let o = super::run(&["rbac"]);
    assert_eq!(o.status.code(), Some(0));
    let role = objects(&stdout(&o));
    assert_eq!(role.len(), 1, "one ClusterRole");
    assert_eq!(role[0]["kind"], "ClusterRole");
    let strings = |v: &Value| -> Vec<String> {
        v.as_array()
            .into_iter()
            .flatten()
            .filter_map(|s| s.as_str().map(str::to_string))
            .collect()
    };
    role[0]["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .map(|r| RoleRule {
            groups: strings(&r["apiGroups"]),
            resources: strings(&r["resources"]),
            verbs: strings(&r["verbs"]),
            names: strings(&r["resourceNames"]),
        })
        .collect()
}

/// What a request asks the authorizer for: (verb, group, resource, name), or `None` for the
/// discovery paths every authenticated user may read (`system:discovery`).
pub fn authorization(
    r: &apiserver::RequestRecord,
) -> Option<(String, String, String, Option<String>)> {
    let segs: Vec<&str> = r.path.split('/').filter(|s| !s.is_empty()).collect();
    let rest = match segs.as_slice() {
        ["version"] | ["api"] | ["api", _] | ["apis"] | ["apis", _] | ["apis", _, _] => {
            return None;
        }
        ["api", _, rest @ ..] => ("", rest),
        ["apis", g, _, rest @ ..] => (*g, rest),
        _ => panic!("a request outside the API: {}", r.path),
    };
    let (group, rest) = rest;
    let (resource, name) = match rest {
        ["namespaces", _, plural, name] => (*plural, Some(*name)),
        ["namespaces", _, plural] => (*plural, None),
        // A subresource is authorized as `plural/subresource`, as RBAC names it.
        [plural, name, sub] => {
            return Some((
                "get".into(),
                group.to_string(),
                format!("{plural}/{sub}"),
                Some(name.to_string()),
            ));
        }
        [plural, name] => (*plural, Some(*name)),
        [plural] => (*plural, None),
        _ => panic!("a path of no resource: {}", r.path),
    };
    let watch = r
        .query
        .split('&')
        .any(|q| q == "watch=true" || q == "watch=1");
    let verb = match (r.method.as_str(), name, watch) {
        ("GET", _, true) => "watch",
        ("GET", Some(_), _) => "get",
        ("GET", None, _) => "list",
        (m, _, _) => m,
    };
    Some((
        verb.to_string(),
        group.to_string(),
        resource.to_string(),
        name.map(str::to_string),
    ))
}

pub fn allowed(role: &[RoleRule], r: &apiserver::RequestRecord) -> bool {
    let Some((verb, group, resource, name)) = authorization(r) else {
        return r.method == "GET";
    };
    role.iter().any(|rule| {
        rule.groups.contains(&group)
            && rule.resources.contains(&resource)
            && rule.verbs.contains(&verb)
            && (rule.names.is_empty() || name.as_ref().is_some_and(|n| rule.names.contains(n)))
    })
}

/// Every request the reader makes, for `why` on a target of every kind the scenarios have, on
/// a name of every kind spelling that is not there, and for `scan` (one namespace and all),
/// is one the printed ClusterRole allows: verb, API group, resource and name.
#[test]
fn every_request_is_allowed_by_the_printed_role() {
    let role = printed_role();
    let secret = apiserver::RequestRecord {
        method: "GET".into(),
        path: "/api/v1/namespaces/ml/secrets/hf".into(),
        query: String::new(),
        accept: String::new(),
        status: 200,
    };
    assert!(
        !allowed(&role, &secret),
        "the check refuses what the role does not name"
    );
    let mut kinds_seen = std::collections::BTreeSet::new();
    let mut asked: Vec<(String, apiserver::RequestRecord)> = Vec::new();
    for (i, s) in scenarios::all().into_iter().enumerate() {
        let cluster = serve(objects(&s.bundle_text()), Options::default(), "default");
        for e in &s.expectations {
            let kind = e.target.split('/').next().unwrap_or_default().to_string();
            if kinds_seen.insert(kind) {
                cluster.run(&["why", &e.target, "-o", "json"]);
            }
        }
        cluster.run(&["scan", "-A", "-o", "json"]);
        if i == 0 {
            cluster.run(&["scan", "-o", "json"]);
            for k in layer_core::kinds::KINDS {
                let spelling = k.names.first().copied().unwrap_or(k.plural);
                cluster.run(&["why", &format!("{spelling}/not-there")]);
            }
            for t in ["secret/x", "configmap/x", "secrets/x", "not-there"] {
                cluster.run(&["why", t]);
            }
        }
        asked.extend(
            cluster
                .server
                .requests()
                .into_iter()
                .map(|r| (s.name.clone(), r)),
        );
    }
    let refused: Vec<String> = asked
        .iter()
        .filter(|(_, r)| !allowed(&role, r))
        .map(|(s, r)| format!("{s}: {} {}?{}", r.method, r.path, r.query))
        .collect();
    assert!(
        refused.is_empty(),
        "outside the role:\n{}",
        refused.join("\n")
    );
    let distinct: std::collections::BTreeSet<(String, String, String)> = asked
        .iter()
        .filter_map(|(_, r)| authorization(r))
        .map(|(v, g, res, _)| (v, g, res))
        .collect();
    assert!(
        kinds_seen.len() >= 10,
        "targets of {} kinds",
        kinds_seen.len()
    );
    assert!(
        distinct.len() >= 30 && distinct.iter().any(|d| d.0 == "get"),
        "{distinct:?}"
    );
}

/// With `-f` the cluster of the kubeconfig is not asked anything, not even its version.
#[test]
fn a_file_is_read_without_a_request_to_the_cluster() {
    let s = scenario("healthy-gpu-job");
    let cluster = serve(
        scenario_objects("healthy-gpu-job"),
        Options::default(),
        "ml",
    );
    for args in [
        vec!["why", "job/resnet", "-n", "ml", "-f"],
        vec!["scan", "-f"],
        vec!["bundle", "-f"],
    ] {
        let o = bin()
            .args(&args)
            .arg(&s.bundle_path)
            .arg("--kubeconfig")
            .arg(&cluster.kubeconfig)
            .output()
            .unwrap();
        assert!(
            matches!(o.status.code(), Some(0 | 1)),
            "{args:?}: {}",
            stderr(&o)
        );
    }
    assert_eq!(cluster.server.requests(), Vec::new(), "no request with -f");
    // The same kubeconfig is read when there is no -f: the server was reachable.
    let o = cluster.run(&["why", "job/resnet"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(!cluster.server.requests().is_empty());
}

/// `cargo xtask gen-cluster`'s generator, built for this run (the test binary cannot name
/// another package's binary), writing a cluster of this size into `dir`.
fn generated_cluster(dir: &std::path::Path, nodes: usize, pods: usize) -> PathBuf {
    generated_cluster_with(dir, nodes, pods, &[])
}

/// [`generated_cluster`] with more of the generator's flags (`--shape backlog`).
pub fn generated_cluster_with(
    dir: &std::path::Path,
    nodes: usize,
    pods: usize,
    flags: &[&str],
) -> PathBuf {
    let build = std::process::Command::new(env!("CARGO"))
        .args([
            "build",
            "--quiet",
            "-p",
            "kubectl-layer-tests",
            "--bin",
            "gen-cluster",
            "--message-format=json",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo runs");
    assert!(
        build.status.success(),
        "{}",
        String::from_utf8_lossy(&build.stderr)
    );
    let exe = String::from_utf8_lossy(&build.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find_map(|m| m["executable"].as_str().map(PathBuf::from))
        .expect("cargo names the gen-cluster executable");
    let out = dir.join(format!("cluster-{nodes}.json"));
    let o = std::process::Command::new(exe)
        .args([
            "--nodes",
            &nodes.to_string(),
            "--pods",
            &pods.to_string(),
            "--seed",
            "1",
        ])
        .args(flags)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    out
}

/// One pod of each shape a generated cluster has: a pending pod of a Kueue-managed Job, a
/// running pod of a Job, of a JobSet, of a LeaderWorkerSet, of a Deployment, one that claims
/// DRA devices, a Dynamo pod, a pod in a KAI gang. (shape, namespace, name).
fn pod_of_each_shape(ix: &layer_core::Index) -> Vec<(&'static str, String, String)> {
    let mut out: Vec<(&'static str, String, String)> = Vec::new();
    for &p in ix.of_kind("Pod") {
        let v = ix.value(p);
        let info = ix.pod(p).unwrap();
        let owner_kinds: Vec<String> = ix
            .owner_chain(p)
            .iter()
            .map(|&o| ix.object(o).kind().to_string())
            .collect();
        let owned = |k: &str| owner_kinds.iter().any(|o| o == k);
        let has_workload = ix.owner_chain(p).iter().any(|&o| {
            ix.children(o)
                .iter()
                .any(|&c| ix.object(c).kind() == "Workload")
        });
        let running = info.phase == "Running";
        let shape = if v["spec"]["resourceClaims"]
            .as_array()
            .is_some_and(|c| !c.is_empty())
        {
            "dra"
        } else if v.pointer("/metadata/annotations/pod-group-name").is_some() {
            "kai-gang"
        } else if v
            .pointer("/metadata/labels/nvidia.com~1dynamo-graph-deployment-name")
            .is_some()
        {
            "dynamo"
        } else if owned("LeaderWorkerSet") {
            "lws"
        } else if owned("JobSet") {
            "jobset"
        } else if owned("Deployment") && running {
            "deployment"
        } else if owned("Job") && has_workload && info.phase == "Pending" && info.node.is_none() {
            "kueue-pending"
        } else if owned("Job") && running {
            "job"
        } else {
            continue;
        };
        if !out.iter().any(|(s, _, _)| *s == shape) {
            let o = ix.object(p);
            out.push((
                shape,
                o.namespace().unwrap_or_default().to_string(),
                o.name.clone(),
            ));
        }
    }
    out.sort();
    out
}

/// `why` on a pod takes at most [`POD_REQUESTS_MAX`] requests (every HTTP request counted,
/// discovery included) on a small and on a large generated cluster, as many on both for a
/// pod of the same shape, and diagnoses as offline on the same file. What each node holds is
/// read from the pods bound to a node: never a list of every pod, Pending backlog included.
#[test]
fn why_on_a_pod_takes_few_requests_whatever_the_cluster_size() {
    let dir = TempDir::new("gen");
    let mut counts: Vec<std::collections::BTreeMap<&'static str, usize>> = Vec::new();
    for (nodes, pods) in [(12, 240), (400, 8000)] {
        let path = generated_cluster(&dir.0, nodes, pods);
        let text = std::fs::read_to_string(&path).unwrap();
        let ix = layer_core::Index::new(layer_core::Bundle::parse(text.as_str()).unwrap());
        let shapes = pod_of_each_shape(&ix);
        assert!(
            shapes.len() >= if nodes < 100 { 3 } else { 6 },
            "{nodes} nodes: shapes {shapes:?}"
        );
        let cluster = serve(
            (0..ix.len()).map(|i| ix.value(i)).collect(),
            current(),
            "default",
        );
        drop(ix);
        let mut by_shape = std::collections::BTreeMap::new();
        for (shape, ns, name) in &shapes {
            let target = format!("pod/{name}");
            let off = bin()
                .args(["why", &target, "-n", ns, "-o", "json", "-f"])
                .arg(&path)
                .output()
                .unwrap();
            let off = json(&off, "offline");
            let now = off["now"]["time"].as_str().unwrap().to_string();
            let before = cluster.server.requests().len();
            let o = cluster.run(&["why", &target, "-n", ns, "--now", &now, "-o", "json"]);
            let asked = cluster.server.requests()[before..].to_vec();
            let live = json(&o, "live");
            assert_eq!(
                comparable(live),
                comparable(off),
                "{nodes} nodes, {shape} pod {ns}/{name}: live and offline differ"
            );
            assert!(
                asked.len() <= POD_REQUESTS_MAX,
                "{nodes} nodes, {shape} pod: {} requests:\n{}",
                asked.len(),
                asked
                    .iter()
                    .map(|r| format!("{}?{}", r.path, r.query))
                    .collect::<Vec<_>>()
                    .join("\n")
            );
            for r in asked.iter().filter(|r| r.path == "/api/v1/pods") {
                assert!(
                    r.query.contains("spec.nodeName%21%3D"),
                    "a list of every pod: {}",
                    r.query
                );
            }
            by_shape.insert(*shape, asked.len());
        }
        counts.push(by_shape);
    }
    eprintln!("requests by pod shape, 12 and 400 nodes: {counts:?}");
    for (shape, small) in &counts[0] {
        if let Some(large) = counts[1].get(shape) {
            assert_eq!(small, large, "{shape}: {counts:?}");
        }
    }
}

/// `KUBECTL_LAYER_TRACE=1` prints every request the server answered, each with what it is for.
#[test]
fn the_trace_says_what_each_read_is_for() {
    let cluster = serve(
        scenario_objects("kueue-admitted-no-gpu-room"),
        current(),
        "ml",
    );
    for target in ["trainer-7mzq4", "job/trainer"] {
        let before = cluster.server.requests().len();
        let o = bin()
            .env("KUBECTL_LAYER_TRACE", "1")
            .args(["why", target, "--kubeconfig"])
            .arg(&cluster.kubeconfig)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        let asked = cluster.server.requests().len() - before;
        let lines: Vec<String> = stderr(&o)
            .lines()
            .filter(|l| l.starts_with("GET "))
            .map(str::to_string)
            .collect();
        assert_eq!(
            lines.len(),
            asked,
            "{target}: one line a request:\n{}",
            lines.join("\n")
        );
        for l in &lines {
            let why = l.rsplit_once(" (").map(|(_, w)| w.trim_end_matches(')'));
            assert!(
                why.is_some_and(|w| w.len() > 5 && !w.contains(" ms")),
                "{target}: no reason given: {l}"
            );
        }
    }
}
