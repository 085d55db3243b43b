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

/// A namespace of its own holding one small suspended Job: a target every tier can read, and
/// one no controller changes while a test reads it twice (a running Job of the core tier would
/// complete in between).
fn with_job<'a>(lab: &'a Lab, tag: &str) -> Namespace<'a> {
    let ns = Namespace(lab, format!("lab-{tag}-{}", std::process::id()));
    lab.kubectl_ok(&["create", "namespace", &ns.1]);
    let job = serde_json::json!({"apiVersion": "batch/v1", "kind": "Job",
        "metadata": {"name": "small", "namespace": ns.1},
        "spec": {"suspend": true, "template": {"spec": {"restartPolicy": "Never",
            "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10"}]}}}});
    let file = std::env::temp_dir().join(format!("{}.json", ns.1));
    std::fs::write(&file, job.to_string()).unwrap();
    lab.kubectl_ok(&["create", "-f", &file.to_string_lossy()]);
    let _ = std::fs::remove_file(&file);
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
        // Asked again within the bound and answered: the same judgement as the reader
        // unthrottled (in the core and full tiers the Job may finish in between, so its
        // headline may move from Running to Complete; its state and layer may not).
        let now = answer["now"]["time"].as_str().unwrap();
        let plain = lab.layer(&["why", "job/small", "-n", &ns.1, "--now", now, "-o", "json"]);
        assert_eq!(o.status.code(), plain.status.code());
        let judged = |v: &Value| (v["verdict"]["state"].clone(), v["verdict"]["layer"].clone());
        assert_eq!(judged(&answer), judged(&json(&plain, "unthrottled")));
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

/// Between the tool and `kubectl proxy` (as the reader), a forwarder that, before it passes on
/// a request for a later page (`continue=`) of `events`, writes a key to etcd and compacts etcd
/// to that revision, `times` times: the list's snapshot is gone and the real API server answers
/// 410 Gone ("The provided continue parameter is too old …"). The API server keeps no watch
/// cache of events, so their pages are read from etcd. Everything is on 127.0.0.1.
struct Expirer {
    kubeconfig: PathBuf,
    proxy: std::process::Child,
    compactions: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

impl Drop for Expirer {
    fn drop(&mut self) {
        let _ = self.proxy.kill();
        let _ = self.proxy.wait();
    }
}

impl Expirer {
    fn new(lab: &Lab, dir: &TempDir, times: usize) -> Expirer {
        use std::io::{BufRead, BufReader};
        let mut proxy = std::process::Command::new(lab.dir.join("bin/kubectl"))
            .arg("--kubeconfig")
            .arg(lab.dir.join("kubeconfig-layer"))
            .args(["proxy", "--port=0", "--address=127.0.0.1"])
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(proxy.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let upstream = line.trim().rsplit(' ').next().unwrap().to_string();
        let etcd = etcd_url(lab);
        let compactions = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let seen = compactions.clone();
        std::thread::spawn(move || {
            for conn in listener.incoming().flatten() {
                let (upstream, etcd, seen) = (upstream.clone(), etcd.clone(), seen.clone());
                std::thread::spawn(move || forward(conn, &upstream, &etcd, &seen, times));
            }
        });
        let kubeconfig = dir.0.join("expirer.kubeconfig");
        std::fs::write(
            &kubeconfig,
            format!(
                "apiVersion: v1\nkind: Config\nclusters:\n- name: p\n  cluster:\n    server: http://127.0.0.1:{port}\n\
                 users:\n- name: p\n  user: {{}}\ncontexts:\n- name: p\n  context:\n    cluster: p\n    user: p\n\
                 current-context: p\n"
            ),
        )
        .unwrap();
        Expirer {
            kubeconfig,
            proxy,
            compactions,
        }
    }
}

/// The lab's etcd client URL, from the command line of the etcd it started.
fn etcd_url(lab: &Lab) -> String {
    let pids = std::fs::read_to_string(lab.dir.join("pids")).unwrap();
    let pid = pids
        .lines()
        .find(|l| l.split(' ').nth(1) == Some("etcd"))
        .and_then(|l| l.split(' ').next())
        .unwrap()
        .to_string();
    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap();
    String::from_utf8_lossy(&cmdline)
        .split('\0')
        .find_map(|a| a.strip_prefix("--listen-client-urls="))
        .unwrap()
        .to_string()
}

/// One POST to etcd's JSON gateway; its answer.
fn etcd_post(etcd: &str, path: &str, body: &str) -> Value {
    use std::io::{Read, Write};
    let host = etcd.trim_start_matches("http://");
    let mut s = std::net::TcpStream::connect(host).unwrap();
    write!(
        s,
        "POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    let json_at = out.find("\r\n\r\n").map_or(0, |i| i + 4);
    // Chunked or not, the JSON object is the one braces span.
    let text = &out[json_at..];
    let (from, to) = (text.find('{').unwrap(), text.rfind('}').unwrap());
    serde_json::from_str(&text[from..=to]).unwrap()
}

/// Pass one request on (with `Connection: close`) and its answer back, compacting etcd first
/// when it asks for a later page of events and `times` compactions have not been made yet.
fn forward(
    mut client: std::net::TcpStream,
    upstream: &str,
    etcd: &str,
    seen: &std::sync::atomic::AtomicUsize,
    times: usize,
) {
    use std::io::{Read, Write};
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        if client.read(&mut byte).unwrap_or(0) == 0 {
            return;
        }
        head.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&head).to_string();
    let first = head.lines().next().unwrap_or("");
    if first.contains("/events?") && first.contains("continue=") {
        let n = seen.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        if n < times {
            let put = etcd_post(
                etcd,
                "/v3/kv/put",
                r#"{"key":"bGFiLWJ1bXA=","value":"MQ=="}"#,
            );
            let rev = put["header"]["revision"].as_str().unwrap().to_string();
            etcd_post(
                etcd,
                "/v3/kv/compaction",
                &format!(r#"{{"revision":"{rev}","physical":true}}"#),
            );
        }
    }
    let mut out = String::new();
    for l in head.lines().filter(|l| !l.is_empty()) {
        if !l.to_ascii_lowercase().starts_with("connection:") {
            out.push_str(l);
            out.push_str("\r\n");
        }
    }
    out.push_str("Connection: close\r\n\r\n");
    let Ok(mut up) = std::net::TcpStream::connect(upstream) else {
        return;
    };
    if up.write_all(out.as_bytes()).is_ok() {
        let _ = std::io::copy(&mut up, &mut client);
    }
}

/// 520 events in a namespace: more than one page of `scan -n`'s list of them.
fn with_events<'a>(lab: &'a Lab, dir: &TempDir, tag: &str) -> Namespace<'a> {
    let ns = with_job(lab, tag);
    let items: Vec<Value> = (0..520)
        .map(|i| {
            serde_json::json!({"apiVersion": "v1", "kind": "Event",
                "metadata": {"name": format!("small.{i}"), "namespace": ns.1},
                "involvedObject": {"apiVersion": "batch/v1", "kind": "Job", "name": "small", "namespace": ns.1},
                "reason": "LabNote", "message": format!("note {i}"), "type": "Normal",
                "source": {"component": "lab"}})
        })
        .collect();
    let file = dir.0.join("events.json");
    std::fs::write(
        &file,
        serde_json::json!({"apiVersion": "v1", "kind": "List", "items": items}).to_string(),
    )
    .unwrap();
    lab.kubectl_ok(&["create", "-f", &file.to_string_lossy()]);
    ns
}

/// A `continue` that expires between two pages (etcd compacted past the list's snapshot, as the
/// API server's own compaction does every 5 minutes): the real API server answers 410 Gone; the
/// tool drops the pages it had and reads the list again from its start, so the answer is
/// complete. When it expires again, the read is named as failed and the exit is not 0: never a
/// partial list taken for the whole.
#[test]
fn an_expired_continue_restarts_the_list_or_is_named() {
    let Some(lab) = lab_of(ANY_TIER) else { return };
    let dir = TempDir::new("lab-410");
    let ns = with_events(&lab, &dir, "expired");
    let scan = |via: &Expirer| {
        let o = bin()
            .env("KUBECONFIG", &via.kubeconfig)
            .env("KUBECTL_LAYER_TRACE", "1")
            .args(["scan", "-n", &ns.1, "-o", "json"])
            .output()
            .unwrap();
        let events: Vec<String> = stderr(&o)
            .lines()
            .filter(|l| l.contains(&format!("/namespaces/{}/events?", ns.1)))
            .map(str::to_string)
            .collect();
        eprintln!(
            "lab: exit {:?}\nlab: {}",
            o.status.code(),
            events.join("\nlab: ")
        );
        (o, events)
    };
    let once = Expirer::new(&lab, &dir, 1);
    let (o, events) = scan(&once);
    assert_eq!(
        once.compactions.load(std::sync::atomic::Ordering::SeqCst),
        2,
        "{events:?}"
    );
    assert!(
        events.iter().any(|l| l.contains("expired (410)")),
        "{events:?}"
    );
    assert!(failed_reads(&json(&o, "scan")).is_empty(), "{}", stdout(&o));
    let pages = events.iter().filter(|l| l.contains(" bytes in ")).count();
    assert_eq!(
        pages, 3,
        "one page before the expiry, dropped, then two: {events:?}"
    );
    drop(once);

    let always = Expirer::new(&lab, &dir, usize::MAX);
    let (o, _) = scan(&always);
    let reads = failed_reads(&json(&o, "scan"));
    assert!(
        reads
            .iter()
            .any(|(r, why)| r == "events" && why.contains("expired twice")),
        "{reads:?}"
    );
    assert!(matches!(o.status.code(), Some(1 | 3)), "{}", stdout(&o));
}
