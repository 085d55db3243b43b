//! A failed read is never an all-clear, in any output: with the pods of a live `scan -A`
//! forbidden (which once printed "Every piece of work … is running" with exit status 0), or
//! the nodes of a `why` or a `fit`, text, JSON, Markdown, Prometheus and the MCP tools each say
//! which read failed and what it left unjudged, and the exit status is 1; when the reads that
//! failed leave nothing to judge, it is 3. Against the in-process API server's faults.

use super::live::{Cluster, scenario_objects, serve};
use super::{TempDir, mcp_client, stderr, stdout};
use apiserver::Options;
use serde_json::{Value, json};
use std::ffi::OsStr;
use std::process::Output;

/// The healthy job's cluster (every piece of work runs), with `forbidden` answered 403.
fn forbidding(forbidden: &[&str]) -> Cluster {
    let opts = Options {
        forbidden: forbidden.iter().map(|s| s.to_string()).collect(),
        ..Options::default()
    };
    serve(scenario_objects("healthy-gpu-job"), opts, "ml")
}

/// Every list of work, and the pods: a scan without them can judge nothing.
pub const WORK: &[&str] = &[
    "pods",
    "deployments",
    "jobs",
    "jobsets",
    "leaderworkersets",
    "statefulsets",
    "dynamographdeployments",
    "podcliquesets",
    "inferencepools",
    "workloads",
];

fn json_of(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}\n{}", stdout(o), stderr(o)))
}

/// The failed read of `resource` in an answer's `incomplete`.
fn failed<'a>(incomplete: &'a Value, resource: &str) -> &'a Value {
    incomplete["reads"]
        .as_array()
        .unwrap_or_else(|| panic!("no incomplete reads: {incomplete}"))
        .iter()
        .find(|r| r["read"]["resource"] == resource)
        .unwrap_or_else(|| panic!("{resource} not named: {incomplete}"))
}

fn exit(o: &Output) -> Option<i32> {
    o.status.code()
}

/// The pods of `scan -A` forbidden: every output opens with what failed and what it left
/// unjudged, and the exit status is 1, where it was "Every piece of work … is running" and 0.
#[test]
fn a_scan_whose_pods_are_forbidden_is_no_all_clear_in_any_output() {
    let c = forbidding(&["pods"]);
    let text = c.run(&["scan", "-A"]);
    let out = stdout(&text);
    assert_eq!(exit(&text), Some(1), "{out}{}", stderr(&text));
    assert!(out.starts_with("NOT AN ALL-CLEAR"), "{out}");
    assert!(
        out.contains(
            "pods: forbidden. Not judged: work made of pods in any namespace was not listed"
        ),
        "{out}"
    );
    assert!(!out.contains("Every piece of work"), "{out}");

    let o = c.run(&["scan", "-A", "-o", "json"]);
    assert_eq!(exit(&o), Some(1), "{}", stderr(&o));
    let report = json_of(&o);
    let pods = failed(&report["incomplete"], "pods");
    assert_eq!(pods["read"]["why"], "forbidden");
    assert_eq!(pods["workUnlisted"], true);
    assert!(pods["layers"].as_array().is_some_and(|l| !l.is_empty()));
    assert_eq!(report["incomplete"]["nothingJudged"], false);

    let o = c.run(&["scan", "-A", "-o", "markdown"]);
    assert_eq!(exit(&o), Some(1), "{}", stderr(&o));
    let md = stdout(&o);
    assert!(
        md.contains("#### Not an all-clear") && md.contains("pods: forbidden"),
        "{md}"
    );

    let o = c.run(&["scan", "-A", "-o", "prometheus"]);
    assert_eq!(exit(&o), Some(1), "{}", stderr(&o));
    let prom = stdout(&o);
    assert!(prom.contains("\nkubectl_layer_scan_complete 0\n"), "{prom}");
    assert!(
        prom.contains("kubectl_layer_scan_read_failed{resource=\"pods\",namespace=\"\",name=\"\",why=\"forbidden\","),
        "{prom}"
    );

    let kubeconfig = [OsStr::new("--kubeconfig"), c.kubeconfig.as_os_str()];
    let result = mcp_client::call(&kubeconfig, "scan", json!({}));
    let pods = failed(&result["structuredContent"]["incomplete"], "pods");
    assert_eq!(pods["workUnlisted"], true, "{result}");
    assert!(
        mcp_client::text(&result).contains("Not an all-clear"),
        "{result}"
    );
}

/// With every list of work forbidden a scan judges nothing: exit status 3, said in words and
/// in `nothingJudged`.
#[test]
fn a_scan_that_can_read_no_work_judged_nothing() {
    let c = forbidding(WORK);
    let o = c.run(&["scan", "-A"]);
    assert_eq!(exit(&o), Some(3), "{}{}", stdout(&o), stderr(&o));
    assert!(
        stdout(&o).starts_with("NOTHING COULD BE JUDGED"),
        "{}",
        stdout(&o)
    );
    let o = c.run(&["scan", "-A", "-o", "json"]);
    assert_eq!(exit(&o), Some(3), "{}", stderr(&o));
    assert_eq!(json_of(&o)["incomplete"]["nothingJudged"], true);
    let o = c.run(&["scan", "-A", "-o", "prometheus"]);
    assert_eq!(exit(&o), Some(3), "{}", stderr(&o));
}

/// `why` and `fit` with the nodes forbidden: `why`'s diagnosis still stands on what was read,
/// but it is not an all-clear (exit status 1); `fit` could judge nothing (3); every output
/// names the read and the layers it left unjudged.
#[test]
fn why_and_fit_with_a_forbidden_read_are_no_all_clear() {
    let c = forbidding(&["nodes"]);
    let text = c.run(&["why", "job/resnet"]);
    assert_eq!(exit(&text), Some(1), "{}", stderr(&text));
    let out = stdout(&text);
    assert!(
        out.contains("NOT AN ALL-CLEAR")
            && out.contains("nodes: forbidden. Not judged: the layers device, placement"),
        "{out}"
    );
    let o = c.run(&["why", "job/resnet", "-o", "json"]);
    assert_eq!(exit(&o), Some(1));
    let d = json_of(&o);
    assert_eq!(
        d["verdict"]["state"], "ok",
        "the job runs: still its verdict"
    );
    let nodes = failed(&d["incomplete"], "nodes");
    assert_eq!(nodes["layers"], json!(["device", "placement"]));
    let o = c.run(&["why", "job/resnet", "-o", "markdown"]);
    assert_eq!(exit(&o), Some(1));
    assert!(
        stdout(&o).contains("#### Not an all-clear"),
        "{}",
        stdout(&o)
    );

    let dir = TempDir::new("fit-forbidden");
    let manifest = dir.0.join("job.yaml");
    std::fs::write(
        &manifest,
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: probe\nspec:\n  template:\n    spec:\n      \
         restartPolicy: Never\n      containers:\n      - name: c\n        image: busybox\n",
    )
    .unwrap();
    let manifest = manifest.to_string_lossy().to_string();
    // Without nodes, fit can place the work nowhere and judge no layer: nothing judged.
    let o = c.run(&["fit", &manifest, "-o", "json"]);
    assert_eq!(exit(&o), Some(3), "{}", stderr(&o));
    let d = &json_of(&o)[0];
    failed(&d["incomplete"], "nodes");
    assert_eq!(d["incomplete"]["nothingJudged"], true, "{}", d["layers"]);
    let o = c.run(&["fit", &manifest]);
    assert!(
        stdout(&o).contains("NOTHING COULD BE JUDGED"),
        "{}",
        stdout(&o)
    );

    let kubeconfig = [OsStr::new("--kubeconfig"), c.kubeconfig.as_os_str()];
    let result = mcp_client::call(&kubeconfig, "why", json!({"target": "job/resnet"}));
    failed(&result["structuredContent"]["incomplete"], "nodes");
    let result = mcp_client::call(
        &kubeconfig,
        "fit",
        json!({"manifest": std::fs::read_to_string(&manifest).unwrap()}),
    );
    failed(
        &result["structuredContent"]["diagnoses"][0]["incomplete"],
        "nodes",
    );
}
