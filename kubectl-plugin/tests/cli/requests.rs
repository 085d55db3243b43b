//! Hostile namespaces and names never change which resource a live read asks for: what a user
//! types (`-n`, TARGET, an MCP argument, the exporter's `-n`, a manifest's own
//! `metadata.namespace`) is refused before any request, naming where it came from (exit
//! status 2); what the cluster says (an owner's name, a node's name) is not requested and is
//! named under `missing`. Against the in-process API server, which records every request.

use super::live::{Cluster, authorization, scenario_objects, serve};
use super::{TempDir, bin, mcp_client, stderr};
use apiserver::Options;
use serde_json::{Value, json};
use std::ffi::OsStr;

/// What is planted in every Secret: never in an output, never asked for.
const MARK: &str = "MARKER-secret-5d1e";

/// Namespaces that are not one: each would move a path, end it, start a query, or name no
/// namespace the API server could hold.
const NOT_NAMESPACES: &[&str] = &[
    "x/secrets?",
    "x/secrets#",
    "x?watch=true",
    "..",
    "ml/../x",
    "x%2Fsecrets",
    "ML",
    "",
];

/// The healthy job's cluster, with Secrets beside it in `ml` and in `x`.
fn cluster_with_secrets() -> Cluster {
    let mut objects = scenario_objects("healthy-gpu-job");
    for ns in ["ml", "x"] {
        objects.push(json!({"apiVersion": "v1", "kind": "Secret",
            "metadata": {"name": "hf", "namespace": ns}, "data": {"token": MARK}}));
    }
    serve(objects, Options::default(), "ml")
}

/// The requests for a resource (discovery left out) made since the `from`th request.
fn resource_reads(c: &Cluster, from: usize) -> Vec<String> {
    c.server.requests()[from..]
        .iter()
        .filter(|r| authorization(r).is_some())
        .map(|r| format!("{}?{}", r.path, r.query))
        .collect()
}

/// Runs `args` live and checks it was refused as bad usage, naming `source`, without a read.
fn refused(c: &Cluster, args: &[&str], source: &str) {
    let before = c.server.requests().len();
    let o = c.run(args);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    assert!(
        err.contains(&format!("error[usage]: {source}: `")),
        "{args:?} names {source}: {err}"
    );
    assert!(
        err.contains("is not a namespace") || err.contains("is not the name of an object"),
        "{args:?} says what is wrong: {err}"
    );
    let reads = resource_reads(c, before);
    assert!(reads.is_empty(), "{args:?} read {reads:?}");
}

/// A GPU Job as it would be applied, in `namespace` when given.
fn manifest(dir: &TempDir, namespace: Option<&str>) -> String {
    let ns = namespace.map_or(String::new(), |n| format!("  namespace: {n:?}\n"));
    let path = dir.0.join(format!("job-{}.yaml", ns.len()));
    std::fs::write(
        &path,
        format!(
            "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: probe\n{ns}spec:\n  template:\n    \
             spec:\n      restartPolicy: Never\n      containers:\n      - name: c\n        \
             image: busybox\n        resources:\n          limits:\n            nvidia.com/gpu: 1\n"
        ),
    )
    .unwrap();
    path.to_string_lossy().to_string()
}

/// `scan -n 'x/secrets?'` once listed the Secrets of `x` (the path ended at `secrets`, the rest
/// became the query), and `bundle` then wrote them out. Every command that reads the cluster
/// refuses such a namespace, and a TARGET whose name or namespace is not one, before reading.
#[test]
fn a_namespace_or_target_that_is_not_one_is_refused_before_any_read() {
    let c = cluster_with_secrets();
    let dir = TempDir::new("hostile");
    let job = manifest(&dir, None);
    for &ns in NOT_NAMESPACES {
        for args in [
            vec!["scan", "-n", ns],
            vec!["scan", "-n", ns, "-o", "json"],
            vec!["why", "resnet-h5v8c", "-n", ns],
            vec!["bundle", "resnet-h5v8c", "-n", ns],
            vec!["fit", &job, "-n", ns],
        ] {
            refused(&c, &args, "-n/--namespace");
        }
    }
    for target in [
        "..",
        "pod/..",
        "job/ml/..",
        "job/x%2Fsecrets/resnet",
        "pod/x/secrets?/hf",
        "a/b/c/d",
    ] {
        refused(&c, &["why", target], "TARGET");
        refused(&c, &["bundle", target], "TARGET");
    }
    let hostile = manifest(&dir, Some("x/secrets?"));
    let before = c.server.requests().len();
    refused(&c, &["fit", &hostile], "the manifest's metadata.namespace");
    // Only discovery ran, before the manifest's namespaces were known.
    assert!(resource_reads(&c, before).is_empty());
    let secrets: Vec<String> = c
        .server
        .requests()
        .into_iter()
        .map(|r| r.path)
        .filter(|p| p.contains("secrets"))
        .collect();
    assert!(secrets.is_empty(), "{secrets:?}");
}

/// The exporter refuses its `-n` before it serves or reads anything.
#[test]
fn the_exporter_refuses_a_namespace_that_is_not_one() {
    let c = cluster_with_secrets();
    let mut child = bin()
        .args(["exporter", "--listen", "127.0.0.1:0", "-n", "x/secrets?"])
        .arg("--kubeconfig")
        .arg(&c.kubeconfig)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // An exporter that took the namespace would serve until killed: a few seconds decide.
    let started = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() && started.elapsed().as_secs() < 20 {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let _ = child.kill();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("error[usage]: -n/--namespace: `x/secrets?` is not a namespace"),
        "{}",
        stderr(&o)
    );
    assert!(c.server.requests().is_empty());
}

/// The MCP tools refuse a `namespace` or `target` argument that is not one, as a tool error
/// with the CLI's code, before any read.
#[test]
fn mcp_tools_refuse_a_namespace_or_target_that_is_not_one() {
    let c = cluster_with_secrets();
    let dir = TempDir::new("mcp-hostile");
    let job = std::fs::read_to_string(manifest(&dir, None)).unwrap();
    let hostile_job = std::fs::read_to_string(manifest(&dir, Some("x/secrets?"))).unwrap();
    let kubeconfig = [OsStr::new("--kubeconfig"), c.kubeconfig.as_os_str()];
    let calls: Vec<(&str, Value, &str)> = vec![
        (
            "scan",
            json!({"namespace": "x/secrets?"}),
            "the `namespace` argument",
        ),
        (
            "why",
            json!({"target": "resnet-h5v8c", "namespace": "x/secrets?"}),
            "the `namespace` argument",
        ),
        ("why", json!({"target": "pod/.."}), "the `target` argument"),
        (
            "fit",
            json!({"manifest": job, "namespace": "x/secrets?"}),
            "the `namespace` argument",
        ),
        (
            "fit",
            json!({"manifest": hostile_job}),
            "the manifest's metadata.namespace",
        ),
    ];
    for (tool, arguments, source) in calls {
        let before = c.server.requests().len();
        let result = mcp_client::call(&kubeconfig, tool, arguments.clone());
        let text = mcp_client::text(&result);
        assert_eq!(result["isError"], true, "{tool} {arguments}: {text}");
        assert!(
            text.starts_with(&format!("error[usage]: {source}: `")),
            "{tool} {arguments}: {text}"
        );
        assert!(resource_reads(&c, before).is_empty(), "{tool} {arguments}");
    }
}

/// Names read from the cluster are checked like a user's: an owner named `..` or with a `/`,
/// a node name that would add a term to a field selector, are not requested, and the reads
/// are named under `missing` with the reason; the diagnosis goes on.
#[test]
fn names_from_the_cluster_that_would_move_a_path_are_not_requested() {
    let owner = |name: &str, uid: &str| json!({"apiVersion": "batch/v1", "kind": "Job", "name": name, "uid": uid, "controller": false});
    let pod = json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "p", "namespace": "ml", "uid": "up", "ownerReferences": [
            owner("..", "u1"), owner("x/../../../../api/v1/namespaces/ml/secrets", "u2")]},
        "spec": {"nodeName": "gpu-1,involvedObject.kind=Secret",
                 "containers": [{"name": "c", "image": "i"}]},
        "status": {"phase": "Pending"}});
    let mut objects = scenario_objects("healthy-gpu-job");
    objects.push(pod);
    objects.push(json!({"apiVersion": "v1", "kind": "Secret",
        "metadata": {"name": "hf", "namespace": "ml"}, "data": {"token": MARK}}));
    let c = serve(objects, Options::default(), "ml");
    let o = c.run(&["why", "p", "-o", "json"]);
    let d: Value = serde_json::from_slice(&o.stdout).expect("a diagnosis");
    // Reads not made are reads that failed: the answer is no all-clear.
    assert!(matches!(o.status.code(), Some(1 | 3)), "{}", stderr(&o));
    assert!(d["incomplete"]["reads"].is_array(), "{}", d["incomplete"]);
    let not_requested: Vec<String> = d["missing"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["why"].as_str())
        .filter(|w| w.starts_with("not requested: "))
        .map(str::to_string)
        .collect();
    for said in [
        "`..` is not the name of an object",
        "`x/../../../../api/v1/namespaces/ml/secrets` is not the name of an object",
        "`gpu-1,involvedObject.kind=Secret` cannot be matched in a field selector",
    ] {
        assert!(
            not_requested.iter().any(|w| w.contains(said)),
            "{said}: {not_requested:?}"
        );
    }
    for r in c.server.requests() {
        let segments: Vec<&str> = r.path.split('/').collect();
        assert!(
            !segments.contains(&"..") && !r.path.contains("secrets") && !r.path.contains('%'),
            "{} {}",
            r.path,
            r.query
        );
        assert!(!r.query.contains("Secret"), "{}?{}", r.path, r.query);
    }
}
