//! Every door against the lab (issue 39, point 2): the same objects, made by the real API
//! server and judged by the real scheduler, read live through `bundle`, `fit`, `mcp` and the
//! exporter as the least-privileged reader, give what `why` and `scan` give, live and offline.
//! `lab.rs` holds `why` live against offline; the replay (`lab_replay.rs`) holds `scan -A`.

use super::lab::{Lab, json, lab_of, same_live_and_offline, too_big_job};
use super::metrics::Exporter;
use super::{TempDir, bin, stderr, stdout};
use serde_json::{Value, json};

/// A Job of 16 GPUs on 8-GPU kwok nodes, judged by the real scheduler, read through each door.
#[test]
fn bundle_fit_mcp_and_the_exporter_agree_with_why_live() {
    let Some(lab) = lab_of(&["core", "full"]) else {
        return;
    };
    let (ns, dir, job) = too_big_job(&lab, "lab-doors");
    let live = same_live_and_offline(&lab, &dir, &ns.1, "job/too-big", "pods,nodes,events,jobs");
    assert_eq!(live["verdict"]["layer"], "placement", "{}", live["verdict"]);
    let now = live["now"]["time"].as_str().expect("now").to_string();
    bundle_reads_back_to_the_same_verdict(&lab, &dir, &ns.1, &now, &live);
    fit_live_is_fit_offline(&lab, &dir, &ns.1, &job);
    mcp_live_is_why_live(&lab, &ns.1, &now, &live);
    exporter_serves_the_live_scan(&lab, &ns.1);
}

/// `bundle` live, then `why -f` of it: the verdict the live `why` gave.
fn bundle_reads_back_to_the_same_verdict(
    lab: &Lab,
    dir: &TempDir,
    ns: &str,
    now: &str,
    live: &Value,
) {
    let o = lab.layer(&["bundle", "job/too-big", "-n", ns]);
    assert_eq!(o.status.code(), Some(0), "bundle: {}", stderr(&o));
    let file = dir.0.join("bundle.json");
    std::fs::write(&file, &o.stdout).unwrap();
    let back = bin()
        .args([
            "why",
            "job/too-big",
            "-n",
            ns,
            "--now",
            now,
            "-o",
            "json",
            "-f",
        ])
        .arg(&file)
        .output()
        .unwrap();
    let back = json(&back, "why -f bundle");
    assert_eq!(back["verdict"], live["verdict"], "the bundle read back");
    assert_eq!(back["headline"], live["headline"], "the bundle read back");
}

/// `fit` of the Job's manifest against the live cluster and against `kubectl get` of the kinds
/// its live read takes: the same verdicts.
fn fit_live_is_fit_offline(lab: &Lab, dir: &TempDir, ns: &str, job: &std::path::Path) {
    let manifest = dir.0.join("fit.yaml");
    let renamed = std::fs::read_to_string(job)
        .unwrap()
        .replace("name: too-big", "name: too-big-again");
    std::fs::write(&manifest, renamed).unwrap();
    let m = manifest.to_string_lossy().to_string();
    let live_o = lab.layer(&["fit", &m, "-n", ns, "-o", "json"]);
    let live = json(&live_o, "fit live");
    let got = lab.kubectl_ok(&[
        "get",
        "pods,nodes,events,jobs,runtimeclasses,priorityclasses,resourcequotas,limitranges",
        "-A",
        "-o",
        "json",
    ]);
    let file = dir.0.join("fit-cluster.json");
    std::fs::write(&file, got).unwrap();
    let off_o = bin()
        .args(["fit", &m, "-n", ns, "-o", "json", "-f"])
        .arg(&file)
        .output()
        .unwrap();
    let off = json(&off_o, "fit offline");
    assert_eq!(live_o.status.code(), off_o.status.code(), "fit exit codes");
    let verdicts = |v: &Value| -> Vec<Value> {
        v.as_array()
            .into_iter()
            .flatten()
            .map(|d| {
                json!([
                    d["target"]["name"],
                    d["verdict"]["state"],
                    d["verdict"]["layer"]
                ])
            })
            .collect()
    };
    assert_eq!(verdicts(&live), verdicts(&off), "fit live and offline");
    assert_eq!(
        verdicts(&live),
        vec![json!(["too-big-again", "blocked", "placement"])],
        "{live}"
    );
}

/// The MCP server's `why` on the live cluster: the CLI's live diagnosis.
fn mcp_live_is_why_live(lab: &Lab, ns: &str, now: &str, live: &Value) {
    let kubeconfig = lab.dir.join("kubeconfig-layer");
    let args: Vec<&std::ffi::OsStr> = vec![
        "--kubeconfig".as_ref(),
        kubeconfig.as_os_str(),
        "--now".as_ref(),
        now.as_ref(),
    ];
    let got = super::mcp_client::call(
        &args,
        "why",
        json!({"target": "job/too-big", "namespace": ns}),
    );
    assert_ne!(got["isError"], true, "{got}");
    let d = &got["structuredContent"];
    assert_eq!(
        d["verdict"],
        live["verdict"],
        "{}",
        super::mcp_client::text(&got)
    );
    assert_eq!(d["headline"], live["headline"]);
}

/// The exporter's series of the namespace: those `scan -o prometheus` prints live.
fn exporter_serves_the_live_scan(lab: &Lab, ns: &str) {
    let kubeconfig = lab.dir.join("kubeconfig-layer");
    let mut exporter = Exporter::start(&kubeconfig, &["--interval", "1h", "-n", ns]);
    let line = exporter.scan_ended(1);
    assert!(line.contains("done"), "{line}");
    let (status, body) = exporter.get("/metrics");
    assert_eq!(status, 200, "{body}");
    let scan = lab.layer(&["scan", "-n", ns, "-o", "prometheus"]);
    assert_eq!(scan.status.code(), Some(1), "{}", stderr(&scan));
    let blocked = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| l.starts_with("kubectl_layer_blocked{"))
            .map(str::to_string)
            .collect()
    };
    let served = blocked(&body);
    assert_eq!(served, blocked(&stdout(&scan)), "exporter and scan");
    assert!(
        served
            .iter()
            .any(|l| l.contains("name=\"too-big\"") && l.contains("layer=\"placement\"")),
        "{body}"
    );
}
