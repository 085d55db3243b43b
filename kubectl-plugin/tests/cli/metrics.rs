//! Metrics as Prometheus reads them: `scan -o prometheus` on every scenario, and the exporter's
//! /metrics against the in-process API server, parsed by the Python `prometheus_client`'s own
//! exposition-format parser (`exposition.py`) and compared with `scan -o json` on the same input.
//!
//! A missing `prometheus_client` fails the test when `CI` is set (`cargo xtask ci` installs it)
//! and skips it with a notice otherwise.

use super::live::{objects, serve};
use super::{TempDir, bin, run, stderr, stdout};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};

const PARSER: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/cli/exposition.py");

/// Whether the parser can run; in CI its absence is a failure.
fn parser_here() -> bool {
    let found = Command::new("python3")
        .args(["-c", "import prometheus_client.parser"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        assert!(
            std::env::var_os("CI").is_none_or(|v| v.is_empty()),
            "python3 with prometheus_client is required in CI (`cargo xtask ci` installs it)"
        );
        eprintln!("note: python3 -c 'import prometheus_client' failed, skipping this test");
    }
    found
}

/// The families the real parser reads in `text`, by name.
fn parse(text: &str) -> BTreeMap<String, Value> {
    let mut child = Command::new("python3")
        .arg(PARSER)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python3 runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(text.as_bytes())
        .expect("written");
    let out = child.wait_with_output().expect("parser ends");
    assert!(
        out.status.success(),
        "the exposition parser refused the text: {}\n{text}",
        String::from_utf8_lossy(&out.stderr)
    );
    let families: Vec<Value> = serde_json::from_slice(&out.stdout).expect("parser prints JSON");
    families
        .into_iter()
        .map(|f| (f["name"].as_str().unwrap_or_default().to_string(), f))
        .collect()
}

/// The samples of one family: (labels, value).
fn samples(families: &BTreeMap<String, Value>, name: &str) -> Vec<(Value, f64)> {
    let f = families
        .get(name)
        .unwrap_or_else(|| panic!("no family {name} in {:?}", families.keys()));
    f["samples"]
        .as_array()
        .expect("samples")
        .iter()
        .map(|s| (s["labels"].clone(), s["value"].as_f64().expect("a number")))
        .collect()
}

/// The one unlabelled sample of a family: the exporter's own gauges and counters.
fn single(families: &BTreeMap<String, Value>, name: &str) -> f64 {
    match samples(families, name).as_slice() {
        [(labels, v)] if labels == &json!({}) => *v,
        other => panic!("{name}: not one unlabelled sample: {other:?}"),
    }
}

/// The labels `scan -o prometheus` must give one diagnosis of `scan -o json`.
fn labels_of(d: &Value) -> Value {
    let s = |v: &Value| v.as_str().unwrap_or_default().to_string();
    json!({
        "layer": s(&d["verdict"]["layer"]),
        "state": s(&d["verdict"]["state"]),
        "outlook": s(&d["verdict"]["outlook"]),
        "rule": s(&d["verdict"]["rule"]),
        "kind": s(&d["target"]["kind"]),
        "group": s(&d["target"]["apiVersion"]).rsplit_once('/').map_or(String::new(), |(g, _)| g.to_string()),
        "namespace": s(&d["target"]["namespace"]),
        "name": s(&d["target"]["name"]),
    })
}

/// The work series and the totals of an exposition agree with the scan report `report`.
fn agrees_with_report(families: &BTreeMap<String, Value>, report: &Value, what: &str) {
    let diagnoses = report["diagnoses"].as_array().expect("diagnoses");
    let mut want: Vec<String> = diagnoses.iter().map(|d| labels_of(d).to_string()).collect();
    let mut got: Vec<String> = samples(families, "kubectl_layer_blocked")
        .into_iter()
        .map(|(l, v)| {
            assert_eq!(v, 1.0, "{what}: {l}");
            l.to_string()
        })
        .collect();
    want.sort();
    got.sort();
    assert_eq!(got, want, "{what}: one series per piece of work");
    let totals = samples(families, "kubectl_layer_blocked_work");
    assert_eq!(
        totals.len(),
        13,
        "{what}: six layers × blocked/warn, and unknown"
    );
    for (l, v) in totals {
        let n = diagnoses
            .iter()
            .filter(|d| {
                d["verdict"]["layer"].as_str().unwrap_or_default() == l["layer"]
                    && d["verdict"]["state"] == l["state"]
            })
            .count();
        assert_eq!(v, n as f64, "{what}: total {l}");
    }
}

#[test]
fn scan_prometheus_on_every_scenario_reads_back_as_the_json_scan() {
    if !parser_here() {
        return;
    }
    let mut listed = 0;
    for s in scenarios::all() {
        let path = s.bundle_path.to_string_lossy().to_string();
        let prom = run(&["scan", "-f", &path, "-o", "prometheus"]);
        let json_run = run(&["scan", "-f", &path, "-o", "json"]);
        assert_eq!(prom.status.code(), json_run.status.code(), "{}", s.name);
        let report: Value = serde_json::from_slice(&json_run.stdout).expect("scan JSON");
        let families = parse(&stdout(&prom));
        agrees_with_report(&families, &report, &s.name);
        let n = objects(&s.bundle_text()).len() as f64;
        assert_eq!(
            samples(&families, "kubectl_layer_scan_objects"),
            vec![(json!({}), n)],
            "{}",
            s.name
        );
        listed += report["diagnoses"].as_array().map_or(0, Vec::len);
    }
    assert!(listed > 50, "the scenarios list {listed} pieces of work");
}

#[test]
fn label_values_survive_quotes_backslashes_and_unicode() {
    if !parser_here() {
        return;
    }
    let name = r#"we"ird\pod-ü"#;
    let bundle = json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": "ml", "uid": "u1",
                     "creationTimestamp": "2026-01-01T00:00:00Z"},
        "spec": {"containers": [{"name": "c", "image": "i"}]},
        "status": {"phase": "Pending"}});
    let dir = TempDir::new("prom");
    let file = dir.0.join("b.json");
    std::fs::write(&file, bundle.to_string()).unwrap();
    let o = run(&["scan", "-f", file.to_str().unwrap(), "-o", "prometheus"]);
    let text = stdout(&o);
    assert!(text.contains(r#"name="we\"ird\\pod-ü""#), "{text}");
    let work = samples(&parse(&text), "kubectl_layer_blocked");
    assert_eq!(work.len(), 1, "{text}");
    assert_eq!(work[0].0["name"], name);
}

#[test]
fn nothing_blocked_writes_zero_totals_and_no_work_series() {
    if !parser_here() {
        return;
    }
    let bundle = json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "fine", "namespace": "ml", "uid": "u1"},
        "spec": {"containers": [{"name": "c", "image": "i"}]},
        "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}});
    let dir = TempDir::new("prom-ok");
    let file = dir.0.join("b.json");
    std::fs::write(&file, bundle.to_string()).unwrap();
    let o = run(&["scan", "-f", file.to_str().unwrap(), "-o", "prometheus"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let families = parse(&stdout(&o));
    assert!(samples(&families, "kubectl_layer_blocked").is_empty());
    let totals = samples(&families, "kubectl_layer_blocked_work");
    assert_eq!(totals.len(), 13);
    assert!(totals.iter().all(|(_, v)| *v == 0.0), "{totals:?}");
}

/// A running exporter: its address, and its stderr to follow scan by scan.
pub(super) struct Exporter {
    child: std::process::Child,
    addr: String,
    log: std::io::Lines<BufReader<std::process::ChildStderr>>,
}

impl Exporter {
    pub(super) fn start(kubeconfig: &std::path::Path, extra: &[&str]) -> Exporter {
        let mut child = bin()
            .args(["exporter", "--listen", "127.0.0.1:0", "--kubeconfig"])
            .arg(kubeconfig)
            .args(extra)
            .stderr(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .expect("exporter starts");
        let mut log = BufReader::new(child.stderr.take().expect("stderr")).lines();
        let first = log.next().expect("a line").expect("text");
        let addr = first
            .strip_prefix("exporter: serving http://")
            .and_then(|r| r.strip_suffix("/metrics"))
            .unwrap_or_else(|| panic!("first line: {first}"))
            .to_string();
        Exporter { child, addr, log }
    }

    /// Wait for the line the exporter writes when scan `n` ends; that line.
    pub(super) fn scan_ended(&mut self, n: usize) -> String {
        let prefix = format!("exporter: scan {n} ");
        for line in self.log.by_ref() {
            let line = line.expect("text");
            if line.starts_with(&prefix) {
                return line;
            }
        }
        panic!("the exporter ended before scan {n}");
    }

    /// GET `path`: (status, body).
    pub(super) fn get(&self, path: &str) -> (u16, String) {
        let mut s = std::net::TcpStream::connect(&self.addr).expect("connects");
        write!(
            s,
            "GET {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
            self.addr
        )
        .unwrap();
        let mut answer = String::new();
        s.read_to_string(&mut answer).expect("an answer");
        let (head, body) = answer.split_once("\r\n\r\n").expect("head and body");
        let status = head
            .split_whitespace()
            .nth(1)
            .and_then(|c| c.parse().ok())
            .expect("a status");
        assert!(
            status != 200 || head.contains("text/plain; version=0.0.4"),
            "{head}"
        );
        (status, body.to_string())
    }
}

impl Drop for Exporter {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn the_exporter_serves_the_live_scan_and_scrapes_never_read_the_cluster() {
    if !parser_here() {
        return;
    }
    let s = scenarios::all()
        .into_iter()
        .find(|s| s.name == "kueue-admitted-no-gpu-room")
        .expect("scenario");
    let cluster = serve(
        objects(&s.bundle_text()),
        apiserver::Options::default(),
        "default",
    );
    let mut exporter = Exporter::start(&cluster.kubeconfig, &["--interval", "1h"]);
    let line = exporter.scan_ended(1);
    assert!(line.contains("done"), "{line}");
    let before = cluster.server.requests().len();
    let (status, body) = exporter.get("/metrics");
    assert_eq!(status, 200, "{body}");
    // Scrapes answer from the last scan: however many come, the API server hears nothing.
    for _ in 0..3 {
        assert_eq!(exporter.get("/metrics").0, 200);
    }
    assert_eq!(cluster.server.requests().len(), before);
    let families = parse(&body);
    let live = cluster.run(&["scan", "-A", "-o", "json"]);
    let report: Value = serde_json::from_slice(&live.stdout).expect("scan JSON");
    assert!(!report["diagnoses"].as_array().unwrap().is_empty());
    agrees_with_report(&families, &report, "exporter");
    assert_eq!(single(&families, "kubectl_layer_up"), 1.0);
    assert_eq!(single(&families, "kubectl_layer_scans"), 1.0);
    assert_eq!(single(&families, "kubectl_layer_scan_failures"), 0.0);
    assert_eq!(families["kubectl_layer_scans"]["type"], "counter");
    assert_eq!(exporter.get("/nothing").0, 404);
}

#[test]
fn an_exporter_that_cannot_read_the_cluster_says_so_in_its_series() {
    if !parser_here() {
        return;
    }
    // A kubeconfig whose server is gone: every scan fails, the exporter keeps answering.
    let cluster = serve(Vec::new(), apiserver::Options::default(), "default");
    let kubeconfig = cluster.kubeconfig.clone();
    let dir = TempDir::new("exporter-gone");
    let kept = dir.0.join("kubeconfig");
    std::fs::copy(&kubeconfig, &kept).unwrap();
    drop(cluster);
    let mut exporter = Exporter::start(&kept, &["--interval", "1h", "--request-timeout", "5s"]);
    let line = exporter.scan_ended(1);
    assert!(line.contains("failed: error[cluster]"), "{line}");
    let (status, body) = exporter.get("/metrics");
    assert_eq!(status, 200, "{body}");
    let families = parse(&body);
    assert_eq!(single(&families, "kubectl_layer_up"), 0.0);
    assert_eq!(single(&families, "kubectl_layer_scan_failures"), 1.0);
    assert!(!families.contains_key("kubectl_layer_blocked"), "{body}");
}

/// An exporter whose reads partly fail serves what it could judge, with
/// `kubectl_layer_scan_complete` 0 and the failed read named; one whose reads leave nothing to
/// judge (every list of work forbidden) is down, as if the cluster could not be read.
#[test]
fn an_exporter_whose_reads_fail_names_them_and_is_down_when_nothing_was_judged() {
    if !parser_here() {
        return;
    }
    let forbidding = |forbidden: &[&str]| {
        let healthy = scenarios::get("healthy-gpu-job").expect("scenario");
        let opts = apiserver::Options {
            forbidden: forbidden.iter().map(|s| s.to_string()).collect(),
            ..apiserver::Options::default()
        };
        serve(objects(&healthy.bundle_text()), opts, "default")
    };
    let partial = forbidding(&["pods"]);
    let mut exporter = Exporter::start(&partial.kubeconfig, &["--interval", "1h"]);
    assert!(exporter.scan_ended(1).contains("done"));
    let families = parse(&exporter.get("/metrics").1);
    assert_eq!(single(&families, "kubectl_layer_up"), 1.0);
    assert_eq!(single(&families, "kubectl_layer_scan_complete"), 0.0);
    let failed = samples(&families, "kubectl_layer_scan_read_failed");
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert_eq!(failed[0].0["resource"], "pods");
    assert_eq!(failed[0].0["why"], "forbidden");
    assert_eq!(failed[0].0["work_unlisted"], "true");

    let nothing = forbidding(super::failed_reads::WORK);
    let mut exporter = Exporter::start(&nothing.kubeconfig, &["--interval", "1h"]);
    let line = exporter.scan_ended(1);
    assert!(
        line.contains("failed: error[cluster]: nothing could be judged: "),
        "{line}"
    );
    let families = parse(&exporter.get("/metrics").1);
    assert_eq!(single(&families, "kubectl_layer_up"), 0.0);
    assert_eq!(single(&families, "kubectl_layer_scan_failures"), 1.0);
}

/// deploy/exporter.yaml's objects by kind.
fn deploy_objects() -> BTreeMap<String, Value> {
    use serde::Deserialize as _;
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../deploy/exporter.yaml");
    let text = std::fs::read_to_string(&path).expect("deploy/exporter.yaml");
    serde_yaml_ng::Deserializer::from_str(&text)
        .map(|d| Value::deserialize(d).expect("YAML"))
        .map(|v| (v["kind"].as_str().unwrap_or_default().to_string(), v))
        .collect()
}

#[test]
fn deploy_exporter_yaml_holds_together_and_its_arguments_parse() {
    let o = deploy_objects();
    let sa = &o["ServiceAccount"];
    let binding = &o["ClusterRoleBinding"];
    let deployment = &o["Deployment"];
    let service = &o["Service"];
    let monitor = &o["ServiceMonitor"];
    let ns = o["Namespace"]["metadata"]["name"].clone();
    for v in [sa, deployment, service, monitor] {
        assert_eq!(v["metadata"]["namespace"], ns, "{}", v["kind"]);
    }
    // Bound to the ClusterRole `kubectl layer rbac` prints, for its own ServiceAccount.
    let role = stdout(&run(&["rbac"]));
    let role_name = binding["roleRef"]["name"].as_str().unwrap();
    assert!(role.contains(&format!("name: {role_name}\n")), "{role}");
    assert_eq!(binding["subjects"][0]["name"], sa["metadata"]["name"]);
    assert_eq!(binding["subjects"][0]["namespace"], ns);
    let pod = &deployment["spec"]["template"];
    assert_eq!(pod["spec"]["serviceAccountName"], sa["metadata"]["name"]);
    // The Deployment's selector, the Service's and the ServiceMonitor's find the same pods.
    let labels = &pod["metadata"]["labels"];
    assert_eq!(&deployment["spec"]["selector"]["matchLabels"], labels);
    assert_eq!(&service["spec"]["selector"], labels);
    assert_eq!(&monitor["spec"]["selector"]["matchLabels"], labels);
    assert_eq!(&service["metadata"]["labels"], labels);
    // The arguments are the CLI's, and the port they listen on is the one exposed.
    let container = &pod["spec"]["containers"][0];
    let args: Vec<&str> = container["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    let parsed = <kubectl_layer::cli::Cli as clap::Parser>::try_parse_from(
        std::iter::once("kubectl-layer").chain(args.iter().copied()),
    )
    .unwrap_or_else(|e| panic!("deploy/exporter.yaml args: {e}"));
    let kubectl_layer::cli::Command::Exporter(exporter) = parsed.command else {
        panic!("deploy/exporter.yaml does not run the exporter: {args:?}");
    };
    let port = container["ports"][0]["containerPort"].as_u64().unwrap();
    assert_eq!(u64::from(exporter.listen.port()), port);
    assert!(
        exporter.listen.ip().is_unspecified(),
        "reachable from the Service"
    );
    let port_name = &container["ports"][0]["name"];
    assert_eq!(&service["spec"]["ports"][0]["targetPort"], port_name);
    assert_eq!(
        &monitor["spec"]["endpoints"][0]["port"],
        &service["spec"]["ports"][0]["name"]
    );
    assert_eq!(monitor["spec"]["endpoints"][0]["path"], "/metrics");
}
