//! What a real kube-apiserver does to a read that the project's own `apiserver/` only imitates
//! (issue 39, point 2), in any tier of the lab: nodes forbidden to a second reader, an
//! aggregated API registered but unavailable (a stale Kueue visibility APIService), a list
//! longer than a page followed across `continue`, and API Priority and Fairness answering 429.
//! Each fault is made for a user of its own (the admin's certificate impersonating it, which
//! API Priority and Fairness and RBAC both judge as that user) or undone when the test ends, so
//! the other live tests running beside it are not touched.

use super::lab::{ClusterScoped, Lab, Namespace, json, lab_of, same_live_and_offline};
use super::{TempDir, bin, stderr, stdout};
use serde_json::Value;
use std::path::PathBuf;
use std::process::Output;
use std::time::{Duration, Instant};

const ANY_TIER: &[&str] = &["bare", "core", "full"];

/// A user of its own: a kubeconfig that is the admin's certificate impersonating `user`, and the
/// reader's role without the resources in `without`, bound to it.
struct Identity<'a> {
    kubeconfig: PathBuf,
    _cleanup: ClusterScoped<'a>,
}

impl<'a> Identity<'a> {
    fn new(lab: &'a Lab, dir: &TempDir, user: &str, without: &[&str]) -> Identity<'a> {
        let mut role: Value = serde_json::from_str(&lab.kubectl_ok(&[
            "get",
            "clusterrole",
            "kubectl-layer-reader",
            "-o",
            "json",
        ]))
        .unwrap();
        for rule in role["rules"].as_array_mut().unwrap() {
            if let Some(rs) = rule["resources"].as_array_mut() {
                rs.retain(|r| !without.contains(&r.as_str().unwrap_or("")));
            }
        }
        role["rules"]
            .as_array_mut()
            .unwrap()
            .retain(|r| r["resources"].as_array().is_some_and(|a| !a.is_empty()));
        let objects = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": [
            {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
             "metadata": {"name": user}, "rules": role["rules"]},
            {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
             "metadata": {"name": user},
             "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": user},
             "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": user}]},
        ]});
        let file = dir.0.join(format!("{user}.json"));
        std::fs::write(&file, objects.to_string()).unwrap();
        lab.kubectl_ok(&["create", "-f", &file.to_string_lossy()]);
        let admin = std::fs::read_to_string(lab.dir.join("kubeconfig")).unwrap();
        let (head, tail) = admin.split_once("    client-key-data:").unwrap();
        let (key, rest) = tail.split_once('\n').unwrap();
        let kubeconfig = dir.0.join(format!("{user}.kubeconfig"));
        std::fs::write(
            &kubeconfig,
            format!("{head}    client-key-data:{key}\n    as: {user}\n{rest}"),
        )
        .unwrap();
        Identity {
            kubeconfig,
            _cleanup: ClusterScoped(
                lab,
                vec![
                    format!("clusterrole/{user}"),
                    format!("clusterrolebinding/{user}"),
                ],
            ),
        }
    }

    /// `kubectl-layer` as this user.
    fn layer(&self, args: &[&str], env: &[(&str, &str)]) -> Output {
        bin()
            .env("KUBECONFIG", &self.kubeconfig)
            .envs(env.iter().copied())
            .args(args)
            .output()
            .unwrap()
    }
}

/// A namespace of its own holding one small Job: a target every tier can read.
fn with_job<'a>(lab: &'a Lab, tag: &str) -> Namespace<'a> {
    let ns = Namespace(lab, format!("lab-{tag}-{}", std::process::id()));
    lab.kubectl_ok(&["create", "namespace", &ns.1]);
    lab.kubectl_ok(&[
        "create",
        "job",
        "small",
        "-n",
        &ns.1,
        "--image=registry.k8s.io/pause:3.10",
    ]);
    ns
}

/// The failed reads an answer names: (resource, why).
fn failed_reads(answer: &Value) -> Vec<(String, String)> {
    answer["incomplete"]["reads"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|r| {
            (
                r["read"]["resource"].as_str().unwrap_or("").to_string(),
                r["read"]["why"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

/// A second reader whose role lacks nodes: `why` and `scan -A` name the forbidden read of the
/// nodes and exit 1, never 0 (issue 38's failed-read contract, against a real RBAC).
#[test]
fn nodes_forbidden_to_a_reader_is_named_and_no_all_clear() {
    let Some(lab) = lab_of(ANY_TIER) else { return };
    let dir = TempDir::new("lab-no-nodes");
    let who = Identity::new(
        &lab,
        &dir,
        &format!("lab-no-nodes-{}", std::process::id()),
        &["nodes"],
    );
    let ns = with_job(&lab, "no-nodes");
    for args in [
        vec!["why", "job/small", "-n", &ns.1, "-o", "json"],
        vec!["scan", "-A", "-o", "json"],
    ] {
        let o = who.layer(&args, &[]);
        let answer = json(&o, "as the reader without nodes");
        let reads = failed_reads(&answer);
        eprintln!(
            "lab: {} → exit {:?}, failed reads {reads:?}",
            args[0],
            o.status.code()
        );
        assert!(
            reads.contains(&("nodes".to_string(), "forbidden".to_string())),
            "{}: {reads:?}\n{}",
            args[0],
            stdout(&o)
        );
        assert!(
            matches!(o.status.code(), Some(1 | 3)),
            "{}: exit {:?}",
            args[0],
            o.status
        );
    }
    let text = who.layer(&["why", "job/small", "-n", &ns.1], &[]);
    assert!(
        stdout(&text).contains("nodes: forbidden"),
        "{}",
        stdout(&text)
    );
}

/// An APIService registered for a Service that does not exist, as a Kueue uninstalled without
/// its visibility APIService leaves: the API server marks it unavailable and keeps it in
/// discovery; `why` as the reader still reads and says what `why -f` says of the same objects.
#[test]
fn an_unavailable_aggregated_api_breaks_neither_discovery_nor_the_verdict() {
    let Some(lab) = lab_of(ANY_TIER) else { return };
    let dir = TempDir::new("lab-apiservice");
    let ns = with_job(&lab, "stale-api");
    let name = "v1beta1.visibility.kueue.x-k8s.io";
    if lab.kubectl(&["get", "apiservice", name]).status.success() {
        eprintln!("skipped: {name} is registered already (a visibility server runs)");
        return;
    }
    let file = dir.0.join("apiservice.json");
    let apiservice = serde_json::json!({
        "apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
        "metadata": {"name": name},
        "spec": {"group": "visibility.kueue.x-k8s.io", "version": "v1beta1",
                 "service": {"name": "kueue-visibility-server", "namespace": ns.1, "port": 443},
                 "insecureSkipTLSVerify": true, "groupPriorityMinimum": 100, "versionPriority": 100}
    });
    std::fs::write(&file, apiservice.to_string()).unwrap();
    lab.kubectl_ok(&["create", "-f", &file.to_string_lossy()]);
    let _cleanup = ClusterScoped(&lab, vec![format!("apiservice/{name}")]);
    lab.wait_for(
        "the APIService marked unavailable",
        &["get", "apiservice", name, "-o", "json"],
        60,
        |v| {
            v["status"]["conditions"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|c| c["type"] == "Available" && c["status"] == "False")
        },
    );
    let legacy = lab.kubectl(&["get", "--raw", "/apis/visibility.kueue.x-k8s.io/v1beta1"]);
    eprintln!(
        "lab: the unavailable group answers: {}",
        stderr(&legacy).trim()
    );
    let live = same_live_and_offline(&lab, &dir, &ns.1, "job/small", "pods,nodes,events,jobs");
    assert!(
        !live.to_string().contains("visibility.kueue"),
        "the unavailable API shows in the answer: {live}"
    );
}

/// Cluster-scoped objects of one kind and label, deleted in one request when the test ends.
struct Labelled<'a>(&'a Lab, &'static str, String);

impl Drop for Labelled<'_> {
    fn drop(&mut self) {
        let _ = self
            .0
            .kubectl(&["delete", self.1, "-l", &self.2, "--wait=false"]);
    }
}

/// More RuntimeClasses than one page holds (500): `scan -A` follows `continue` (the trace shows
/// the second page asked and answered) and says what `scan -A -f` says of the same objects.
#[test]
fn a_list_longer_than_a_page_is_followed_across_continue() {
    let Some(lab) = lab_of(ANY_TIER) else { return };
    let dir = TempDir::new("lab-pages");
    let prefix = format!("lab-page-{}", std::process::id());
    let items: Vec<Value> = (0..520)
        .map(|i| {
            serde_json::json!({"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass",
                "metadata": {"name": format!("{prefix}-{i}"), "labels": {"kubectl-layer-lab": prefix}},
                "handler": "lab"})
        })
        .collect();
    let file = dir.0.join("runtimeclasses.json");
    std::fs::write(
        &file,
        serde_json::json!({"apiVersion": "v1", "kind": "List", "items": items}).to_string(),
    )
    .unwrap();
    lab.kubectl_ok(&["create", "-f", &file.to_string_lossy()]);
    let _cleanup = Labelled(
        &lab,
        "runtimeclasses",
        format!("kubectl-layer-lab={prefix}"),
    );
    let o = bin()
        .env("KUBECONFIG", lab.dir.join("kubeconfig-layer"))
        .env("KUBECTL_LAYER_TRACE", "1")
        .args(["scan", "-A", "-o", "json"])
        .output()
        .unwrap();
    let trace = stderr(&o);
    let pages: Vec<&str> = trace
        .lines()
        .filter(|l| l.contains("/runtimeclasses?"))
        .collect();
    eprintln!("lab: {}", pages.join("\nlab: "));
    assert!(
        pages
            .iter()
            .any(|l| l.contains("continue=") && l.contains(" bytes in ")),
        "no second page of runtimeclasses was read:\n{trace}"
    );
    assert!(failed_reads(&json(&o, "scan")).is_empty(), "{}", stdout(&o));
}

/// API Priority and Fairness giving a user the least a priority level can have (no nominal
/// shares, nothing lent or borrowed, no queue: what it cannot run at once is answered 429 with
/// Retry-After). The tool asks again within its bound and then either answers as the reader
/// unthrottled does, or names each read that stayed refused and exits 1 or 3: never an answer
/// that passes for complete.
#[test]
fn priority_and_fairness_429_is_retried_then_named_never_an_all_clear() {
    let Some(lab) = lab_of(ANY_TIER) else { return };
    let dir = TempDir::new("lab-apf");
    let user = format!("lab-throttled-{}", std::process::id());
    let who = Identity::new(&lab, &dir, &user, &[]);
    let ns = with_job(&lab, "apf");
    let objects = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": [
        {"apiVersion": "flowcontrol.apiserver.k8s.io/v1", "kind": "PriorityLevelConfiguration",
         "metadata": {"name": user},
         "spec": {"type": "Limited", "limited": {"nominalConcurrencyShares": 0,
                  "lendablePercent": 0, "borrowingLimitPercent": 0,
                  "limitResponse": {"type": "Reject"}}}},
        {"apiVersion": "flowcontrol.apiserver.k8s.io/v1", "kind": "FlowSchema",
         "metadata": {"name": user},
         "spec": {"matchingPrecedence": 100, "priorityLevelConfiguration": {"name": user},
                  "distinguisherMethod": {"type": "ByUser"},
                  "rules": [{"subjects": [{"kind": "User", "user": {"name": user}}],
                             "resourceRules": [{"verbs": ["*"], "apiGroups": ["*"],
                                                "resources": ["*"], "clusterScope": true,
                                                "namespaces": ["*"]}],
                             "nonResourceRules": [{"verbs": ["*"], "nonResourceURLs": ["*"]}]}]}},
    ]});
    let file = dir.0.join("apf.json");
    std::fs::write(&file, objects.to_string()).unwrap();
    lab.kubectl_ok(&["create", "-f", &file.to_string_lossy()]);
    let _cleanup = ClusterScoped(
        &lab,
        vec![
            format!("flowschema/{user}"),
            format!("prioritylevelconfiguration/{user}"),
        ],
    );
    // The API server applies a new flow schema within a second or two.
    let start = Instant::now();
    let o = loop {
        let started = Instant::now();
        let o = who.layer(
            &["why", "job/small", "-n", &ns.1, "-o", "json"],
            &[("KUBECTL_LAYER_TRACE", "1")],
        );
        eprintln!(
            "lab: throttled why: exit {:?} after {:.1} s",
            o.status.code(),
            started.elapsed().as_secs_f64()
        );
        if stderr(&o).contains("429") || start.elapsed() > Duration::from_secs(30) {
            break o;
        }
        std::thread::sleep(Duration::from_secs(1));
    };
    let trace = stderr(&o);
    assert!(trace.contains("429"), "no 429 in 30 s:\n{trace}");
    assert!(
        trace.contains("again in"),
        "a 429 was not asked again:\n{trace}"
    );
    let answer = json(&o, "throttled");
    let reads = failed_reads(&answer);
    eprintln!(
        "lab: after 429s: exit {:?}, failed reads {reads:?}",
        o.status.code()
    );
    if reads.is_empty() {
        // Asked again within the bound and answered: the same as the reader unthrottled.
        let now = answer["now"]["time"].as_str().unwrap();
        let plain = lab.layer(&["why", "job/small", "-n", &ns.1, "--now", now, "-o", "json"]);
        assert_eq!(o.status.code(), plain.status.code());
        assert_eq!(answer["verdict"], json(&plain, "unthrottled")["verdict"]);
    } else {
        assert!(matches!(o.status.code(), Some(1 | 3)), "{}", stdout(&o));
        assert!(
            reads
                .iter()
                .all(|(_, why)| why.contains("rate limited (429)")),
            "{reads:?}"
        );
    }
}
