//! End-to-end tests of the test API server: a kube-rs client and the real `kubectl` (when
//! installed) talk to it over HTTP, with the `kueue-admitted-no-gpu-room` scenario as data.
//!
//! Expected values are computed from the bundle here rather than typed in, so the tests keep
//! holding if the scenario's objects are regenerated.

use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use apiserver::{Options, Server};
use k8s_openapi::api::core::v1::{Node, Pod};
use kube::api::{Api, DynamicObject, ListParams};
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::core::GroupVersionKind;
use kube::discovery::{Discovery, Scope};
use kube::{Client, Config, ResourceExt};
use serde_json::Value;

const KUBECTL: &str = "/usr/bin/kubectl";

fn scenario() -> Vec<Value> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/scenarios/kueue-admitted-no-gpu-room/bundle.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let list: Value = serde_json::from_str(&text).unwrap();
    list["items"].as_array().unwrap().clone()
}

/// Names of the scenario's objects of one kind that pass `keep`, sorted.
fn names_where(objects: &[Value], kind: &str, keep: impl Fn(&Value) -> bool) -> Vec<String> {
    let mut names: Vec<String> = objects
        .iter()
        .filter(|o| o["kind"] == kind && keep(o))
        .map(|o| o["metadata"]["name"].as_str().unwrap().to_owned())
        .collect();
    names.sort();
    names
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

fn client(server: &Server) -> Client {
    Client::try_from(Config::new(server.url().parse().unwrap())).unwrap()
}

fn api_error(err: kube::Error) -> Box<kube::core::Status> {
    match err {
        kube::Error::Api(status) => status,
        other => panic!("expected an API error, got {other:?}"),
    }
}

/// A directory removed when dropped; named by process and counter so parallel tests differ.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> TempDir {
        static N: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "apiserver-test-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs the real kubectl against `server` with a fresh kubeconfig and discovery cache.
/// Returns None (after saying so) when kubectl is not installed.
struct Kubectl {
    dir: TempDir,
}

impl Kubectl {
    fn new(server: &Server, namespace: &str) -> Option<Kubectl> {
        if !Path::new(KUBECTL).exists() {
            println!("NOTICE: {KUBECTL} not found; skipping the kubectl checks");
            return None;
        }
        let dir = TempDir::new();
        server
            .write_kubeconfig(&dir.0.join("kubeconfig"), namespace)
            .unwrap();
        Some(Kubectl { dir })
    }

    async fn run(&self, args: &[&str]) -> Output {
        let dir = self.dir.0.clone();
        let args: Vec<String> = args.iter().map(|s| (*s).to_owned()).collect();
        // kubectl blocks; run it off the runtime so the server task keeps answering.
        tokio::task::spawn_blocking(move || {
            std::process::Command::new(KUBECTL)
                .arg("--kubeconfig")
                .arg(dir.join("kubeconfig"))
                .arg("--cache-dir")
                .arg(dir.join("cache"))
                .args(&args)
                .env_remove("KUBECONFIG")
                .env("HOME", &dir)
                .output()
                .unwrap()
        })
        .await
        .unwrap()
    }

    /// Runs and expects success; returns stdout.
    async fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args).await;
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "kubectl {args:?} failed: {stderr}");
        String::from_utf8(out.stdout).unwrap()
    }

    /// `-o name` output as bare names, sorted.
    async fn names(&self, args: &[&str]) -> Vec<String> {
        let mut all = args.to_vec();
        all.extend(["-o", "name"]);
        let out = self.ok(&all).await;
        sorted(
            out.lines()
                .map(|l| l.rsplit('/').next().unwrap().to_owned())
                .collect(),
        )
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kube_lists_pods_with_label_and_field_selectors() {
    let objects = scenario();
    let server = Server::start(objects.clone(), Options::default())
        .await
        .unwrap();
    let all: Api<Pod> = Api::all(client(&server));
    let names = |list: kube::core::ObjectList<Pod>| {
        sorted(list.items.iter().map(|p| p.name_any()).collect())
    };

    let every = all.list(&ListParams::default()).await.unwrap();
    assert_eq!(names(every), names_where(&objects, "Pod", |_| true));

    let calico = all
        .list(&ListParams::default().labels("k8s-app=calico-node"))
        .await
        .unwrap();
    let want = names_where(&objects, "Pod", |p| {
        p["metadata"]["labels"]["k8s-app"] == "calico-node"
    });
    assert_eq!(want.len(), 4);
    assert_eq!(names(calico), want);

    let teams = all
        .list(
            &ListParams::default()
                .labels("team in (serving, research),app.kubernetes.io/name!=whisper"),
        )
        .await
        .unwrap();
    let want = names_where(&objects, "Pod", |p| {
        let l = &p["metadata"]["labels"];
        (l["team"] == "serving" || l["team"] == "research")
            && l["app.kubernetes.io/name"] != "whisper"
    });
    assert!(!want.is_empty());
    assert_eq!(names(teams), want);

    let running = all
        .list(&ListParams::default().fields("status.phase=Running"))
        .await
        .unwrap();
    assert_eq!(
        names(running),
        names_where(&objects, "Pod", |p| p["status"]["phase"] == "Running")
    );

    let unscheduled = all
        .list(&ListParams::default().fields("spec.nodeName="))
        .await
        .unwrap();
    assert_eq!(names(unscheduled), ["trainer-7mzq4"]);

    let ml: Api<Pod> = Api::namespaced(client(&server), "ml");
    let both = ml
        .list(
            &ListParams::default()
                .labels("job-name=trainer")
                .fields("metadata.name=trainer-7mzq4,status.phase!=Running"),
        )
        .await
        .unwrap();
    assert_eq!(names(both), ["trainer-7mzq4"]);

    // Events by involved object, the way the plugin looks them up.
    let events: Api<k8s_openapi::api::core::v1::Event> = Api::namespaced(client(&server), "ml");
    let fs = "involvedObject.kind=Pod,involvedObject.name=trainer-7mzq4";
    let got = events
        .list(&ListParams::default().fields(fs))
        .await
        .unwrap();
    assert_eq!(got.items.len(), 1);
    assert_eq!(
        got.items[0].involved_object.name.as_deref(),
        Some("trainer-7mzq4")
    );

    let bad = all
        .list(&ListParams::default().labels("a in (b"))
        .await
        .unwrap_err();
    assert_eq!(api_error(bad).code, 400);

    let paths: Vec<String> = server.requests().iter().map(|r| r.path.clone()).collect();
    assert!(paths.contains(&"/api/v1/pods".to_owned()));
    assert!(paths.contains(&"/api/v1/namespaces/ml/pods".to_owned()));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kube_gets_one_object_and_reports_not_found() {
    let server = Server::start(scenario(), Options::default()).await.unwrap();
    let nodes: Api<Node> = Api::all(client(&server));
    let node = nodes.get("gpu-1").await.unwrap();
    let gpus = &node.status.unwrap().allocatable.unwrap()["nvidia.com/gpu"];
    assert_eq!(gpus.0, "8");

    let pod = Api::<Pod>::namespaced(client(&server), "ml")
        .get("trainer-7mzq4")
        .await
        .unwrap();
    assert_eq!(pod.metadata.namespace.as_deref(), Some("ml"));
    // The same name in another namespace is a different object.
    let err = Api::<Pod>::namespaced(client(&server), "default")
        .get("trainer-7mzq4")
        .await
        .unwrap_err();
    assert_eq!(api_error(err).code, 404);

    let status = api_error(nodes.get("nope").await.unwrap_err());
    assert_eq!((status.code, status.reason.as_str()), (404, "NotFound"));
    assert_eq!(status.message, r#"nodes "nope" not found"#);

    let deploys: Api<k8s_openapi::api::apps::v1::Deployment> =
        Api::namespaced(client(&server), "ml");
    let status = api_error(deploys.get("nope").await.unwrap_err());
    assert_eq!(status.message, r#"deployments.apps "nope" not found"#);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kube_discovery_follows_the_objects() {
    let objects = scenario();
    let wl = GroupVersionKind::gvk("kueue.x-k8s.io", "v1beta2", "Workload");

    let server = Server::start(objects.clone(), Options::default())
        .await
        .unwrap();
    let discovery = Discovery::new(client(&server)).run().await.unwrap();
    assert!(discovery.has_group("kueue.x-k8s.io"));
    assert!(discovery.has_group("apps"));
    let (ar, caps) = discovery.resolve_gvk(&wl).expect("Workload is discovered");
    assert_eq!(ar.plural, "workloads");
    assert_eq!(caps.scope, Scope::Namespaced);
    // Only versions with objects are served: this bundle has v1beta2 Workloads only.
    let kueue = discovery.get("kueue.x-k8s.io").unwrap();
    assert_eq!(kueue.versions().collect::<Vec<_>>(), ["v1beta2"]);
    // Kinds the built-in table knows keep their scope and short names.
    let (cq, caps) = discovery
        .resolve_gvk(&GroupVersionKind::gvk(
            "kueue.x-k8s.io",
            "v1beta2",
            "ClusterQueue",
        ))
        .unwrap();
    assert_eq!(
        (cq.plural.as_str(), caps.scope),
        ("clusterqueues", Scope::Cluster)
    );

    let workloads: Api<DynamicObject> = Api::namespaced_with(client(&server), "ml", &ar);
    let list = workloads.list(&ListParams::default()).await.unwrap();
    let names: Vec<String> = list.items.iter().map(|o| o.name_any()).collect();
    assert_eq!(names, names_where(&objects, "Workload", |_| true));
    let admitted = list.items[0].data["status"]["admission"]["clusterQueue"].clone();
    assert_eq!(admitted, "gpu-cq");
    server.stop().await;

    // Without any kueue.x-k8s.io object the API is absent, as on a cluster without Kueue.
    let without: Vec<Value> = objects
        .iter()
        .filter(|o| {
            !o["apiVersion"]
                .as_str()
                .unwrap()
                .starts_with("kueue.x-k8s.io/")
        })
        .cloned()
        .collect();
    let server = Server::start(without.clone(), Options::default())
        .await
        .unwrap();
    let discovery = Discovery::new(client(&server)).run().await.unwrap();
    assert!(!discovery.has_group("kueue.x-k8s.io"));
    assert!(discovery.resolve_gvk(&wl).is_none());
    let err = Api::<DynamicObject>::namespaced_with(client(&server), "ml", &ar)
        .list(&ListParams::default())
        .await
        .unwrap_err();
    assert_eq!(api_error(err).code, 404);
    server.stop().await;

    // "Installed but empty": served on request, with an empty list.
    let opts = Options {
        extra_apis: vec!["kueue.x-k8s.io/v1beta2".into()],
        ..Options::default()
    };
    let server = Server::start(without, opts).await.unwrap();
    let discovery = Discovery::new(client(&server)).run().await.unwrap();
    let (ar, _) = discovery.resolve_gvk(&wl).unwrap();
    let list = Api::<DynamicObject>::all_with(client(&server), &ar)
        .list(&ListParams::default())
        .await
        .unwrap();
    assert!(list.items.is_empty());
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kube_aggregated_discovery_when_enabled() {
    let opts = Options {
        aggregated_discovery: true,
        ..Options::default()
    };
    let server = Server::start(scenario(), opts).await.unwrap();
    let discovery = Discovery::new(client(&server))
        .run_aggregated()
        .await
        .unwrap();
    let (ar, caps) = discovery
        .resolve_gvk(&GroupVersionKind::gvk(
            "kueue.x-k8s.io",
            "v1beta2",
            "Workload",
        ))
        .unwrap();
    assert_eq!(
        (ar.plural.as_str(), caps.scope),
        ("workloads", Scope::Namespaced)
    );
    let (pods, _) = discovery
        .resolve_gvk(&GroupVersionKind::gvk("", "v1", "Pod"))
        .unwrap();
    assert_eq!(pods.plural, "pods");
    // Two requests in all, which is the point of aggregated discovery.
    let paths: Vec<String> = server.requests().iter().map(|r| r.path.clone()).collect();
    assert_eq!(sorted(paths), ["/api", "/apis"]);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kube_paginates_with_limit_and_continue() {
    let objects = scenario();
    let server = Server::start(objects.clone(), Options::default())
        .await
        .unwrap();
    let pods: Api<Pod> = Api::all(client(&server));
    let mut names = Vec::new();
    let mut params = ListParams::default().limit(7);
    let mut pages = 0;
    loop {
        let page = pods.list(&params).await.unwrap();
        pages += 1;
        assert!(page.items.len() <= 7);
        names.extend(page.items.iter().map(|p| p.name_any()));
        match page.metadata.continue_.filter(|c| !c.is_empty()) {
            Some(token) => {
                let left = page.metadata.remaining_item_count.unwrap();
                assert_eq!(
                    left as usize,
                    objects.iter().filter(|o| o["kind"] == "Pod").count() - names.len()
                );
                params = ListParams::default().limit(7).continue_token(&token);
            }
            None => break,
        }
    }
    let total = names.len();
    assert_eq!(
        sorted(names.clone()),
        names_where(&objects, "Pod", |_| true)
    );
    assert_eq!(pages, total.div_ceil(7));
    // Pages follow key order (namespace, then name), like etcd's.
    let mut keyed = names_where(&objects, "Pod", |_| true);
    keyed.sort_by_key(|n| {
        let o = objects
            .iter()
            .find(|o| o["kind"] == "Pod" && o["metadata"]["name"] == n.as_str())
            .unwrap();
        (
            o["metadata"]["namespace"].as_str().unwrap().to_owned(),
            n.clone(),
        )
    });
    assert_eq!(names, keyed);

    // With a selector the count of remaining items is left out, as the real server does.
    let page = pods
        .list(
            &ListParams::default()
                .limit(1)
                .fields("status.phase=Running"),
        )
        .await
        .unwrap();
    assert!(page.metadata.continue_.is_some());
    assert_eq!(page.metadata.remaining_item_count, None);

    let err = pods
        .list(&ListParams::default().limit(1).continue_token("garbage"))
        .await
        .unwrap_err();
    assert_eq!(api_error(err).code, 400);

    let lists = server
        .requests()
        .iter()
        .filter(|r| r.path == "/api/v1/pods")
        .count();
    assert_eq!(lists, pages + 2);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kube_sees_forbidden_as_403() {
    let opts = Options {
        forbidden: vec!["nodes".into(), "workloads.kueue.x-k8s.io".into()],
        ..Options::default()
    };
    let server = Server::start(scenario(), opts).await.unwrap();
    let status = api_error(
        Api::<Node>::all(client(&server))
            .list(&ListParams::default())
            .await
            .unwrap_err(),
    );
    assert_eq!((status.code, status.reason.as_str()), (403, "Forbidden"));
    assert_eq!(
        status.message,
        r#"nodes is forbidden: User "system:serviceaccount:default:test" cannot list resource "nodes" in API group "" at the cluster scope"#
    );
    let status = api_error(
        Api::<Node>::all(client(&server))
            .get("gpu-1")
            .await
            .unwrap_err(),
    );
    assert_eq!(status.code, 403);
    assert!(
        status
            .message
            .starts_with(r#"nodes "gpu-1" is forbidden: User"#),
        "{}",
        status.message
    );

    let ar = kube::api::ApiResource::from_gvk_with_plural(
        &GroupVersionKind::gvk("kueue.x-k8s.io", "v1beta2", "Workload"),
        "workloads",
    );
    let wl: Api<DynamicObject> = Api::namespaced_with(client(&server), "ml", &ar);
    let status = api_error(wl.list(&ListParams::default()).await.unwrap_err());
    assert_eq!(status.code, 403);
    assert!(status.message.ends_with(
        r#"cannot list resource "workloads" in API group "kueue.x-k8s.io" in the namespace "ml""#
    ));

    // Other resources are unaffected.
    assert!(
        !Api::<Pod>::all(client(&server))
            .list(&ListParams::default())
            .await
            .unwrap()
            .items
            .is_empty()
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kube_meets_500_truncation_delay_and_a_stopped_server() {
    let opts = Options {
        fail: vec!["events".into()],
        truncate: vec!["nodes".into()],
        drop_connection: vec!["configmaps".into()],
        delay: Some(Duration::from_millis(150)),
        ..Options::default()
    };
    let server = Server::start(scenario(), opts).await.unwrap();
    let c = client(&server);

    let started = Instant::now();
    let status = api_error(
        Api::<k8s_openapi::api::core::v1::Event>::all(c.clone())
            .list(&ListParams::default())
            .await
            .unwrap_err(),
    );
    assert!(started.elapsed() >= Duration::from_millis(150));
    assert_eq!(
        (status.code, status.reason.as_str()),
        (500, "InternalError")
    );

    // A cut-off body is not an API error: the client sees the connection end mid-body.
    let err = Api::<Node>::all(c.clone())
        .list(&ListParams::default())
        .await
        .unwrap_err();
    assert!(!matches!(err, kube::Error::Api(_)), "{err:?}");
    let truncated = server
        .requests()
        .into_iter()
        .find(|r| r.path == "/api/v1/nodes")
        .unwrap();
    assert_eq!(truncated.status, 200);
    // A dropped connection is not one either.
    let err = Api::<k8s_openapi::api::core::v1::ConfigMap>::all(c.clone())
        .list(&ListParams::default())
        .await
        .unwrap_err();
    assert!(!matches!(err, kube::Error::Api(_)), "{err:?}");

    // Write verbs are refused.
    let err = Api::<Pod>::namespaced(c.clone(), "ml")
        .delete("trainer-7mzq4", &Default::default())
        .await
        .unwrap_err();
    assert_eq!(api_error(err).code, 405);

    let url = server.url();
    server.stop().await;
    let err = Api::<Pod>::all(client_for(&url))
        .list(&ListParams::default())
        .await
        .unwrap_err();
    assert!(!matches!(err, kube::Error::Api(_)), "{err:?}");
}

fn client_for(url: &str) -> Client {
    Client::try_from(Config::new(url.parse().unwrap())).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kube_reads_the_written_kubeconfig() {
    let server = Server::start(scenario(), Options::default()).await.unwrap();
    let dir = TempDir::new();
    let path = dir.0.join("kubeconfig");
    server.write_kubeconfig(&path, "ml").unwrap();
    let kubeconfig = Kubeconfig::read_from(&path).unwrap();
    let config = Config::from_custom_kubeconfig(kubeconfig, &KubeConfigOptions::default())
        .await
        .unwrap();
    assert_eq!(config.default_namespace, "ml");
    let client = Client::try_from(config).unwrap();
    let pods = Api::<Pod>::default_namespaced(client)
        .list(&ListParams::default())
        .await
        .unwrap();
    assert_eq!(
        pods.items.iter().map(|p| p.name_any()).collect::<Vec<_>>(),
        ["trainer-7mzq4"]
    );
    let version = client_for(&server.url()).apiserver_version().await.unwrap();
    assert_eq!(
        (
            version.major.as_str(),
            version.minor.as_str(),
            version.git_version.as_str()
        ),
        ("1", "34", "v1.34.2")
    );
    server.stop().await;
}

#[test]
fn blocking_start_serves_without_a_runtime() {
    let server = Server::start_blocking(scenario(), Options::default()).unwrap();
    let Some(kubectl) = Kubectl::new(&server, "ml") else {
        return;
    };
    // No runtime of our own here: drive kubectl through a throwaway one.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let names = rt.block_on(kubectl.names(&["get", "pods"]));
    assert_eq!(names, ["trainer-7mzq4"]);
    drop(server);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_gets_json_with_selectors() {
    let objects = scenario();
    let server = Server::start(objects.clone(), Options::default())
        .await
        .unwrap();
    let Some(kubectl) = Kubectl::new(&server, "default") else {
        return;
    };

    let out: Value =
        serde_json::from_str(&kubectl.ok(&["get", "pods", "-A", "-o", "json"]).await).unwrap();
    let got = sorted(
        out["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["metadata"]["name"].as_str().unwrap().to_owned())
            .collect(),
    );
    assert_eq!(got, names_where(&objects, "Pod", |_| true));

    let calico = kubectl
        .names(&["get", "pods", "-A", "-l", "k8s-app=calico-node"])
        .await;
    assert_eq!(
        calico,
        names_where(&objects, "Pod", |p| p["metadata"]["labels"]["k8s-app"]
            == "calico-node")
    );
    let pending = kubectl
        .names(&[
            "get",
            "pods",
            "-A",
            "--field-selector",
            "status.phase!=Running",
        ])
        .await;
    assert_eq!(pending, ["trainer-7mzq4"]);

    let wl: Value = serde_json::from_str(
        &kubectl
            .ok(&["get", "workloads.kueue.x-k8s.io", "-n", "ml", "-o", "json"])
            .await,
    )
    .unwrap();
    let items = wl["items"].as_array().unwrap();
    assert_eq!(items.len(), 1);
    assert_eq!(items[0]["kind"], "Workload");
    // Short names resolve through discovery.
    assert_eq!(
        kubectl.names(&["get", "wl", "-n", "ml"]).await,
        names_where(&objects, "Workload", |_| true)
    );
    assert_eq!(
        kubectl.names(&["get", "no"]).await,
        names_where(&objects, "Node", |_| true)
    );
    // kubectl pages with --chunk-size and follows the continue tokens.
    let chunked = kubectl
        .names(&["get", "pods", "-A", "--chunk-size", "4"])
        .await;
    assert_eq!(chunked, names_where(&objects, "Pod", |_| true));
    assert!(
        server
            .requests()
            .iter()
            .any(|r| r.query.contains("continue="))
    );

    let jp = kubectl
        .ok(&[
            "get",
            "workloads",
            "-n",
            "ml",
            "-o",
            r#"jsonpath={.items[*].status.conditions[?(@.type=="Admitted")].status}"#,
        ])
        .await;
    assert_eq!(jp, "True");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_prints_tables() {
    let objects = scenario();
    let server = Server::start(objects.clone(), Options::default())
        .await
        .unwrap();
    let Some(kubectl) = Kubectl::new(&server, "inference") else {
        return;
    };

    let out = kubectl.ok(&["get", "pods"]).await;
    let header: Vec<&str> = out.lines().next().unwrap().split_whitespace().collect();
    assert_eq!(header, ["NAME", "AGE"]);
    let want = names_where(&objects, "Pod", |p| {
        p["metadata"]["namespace"] == "inference"
    });
    let rows = sorted(
        out.lines()
            .skip(1)
            .map(|l| l.split_whitespace().next().unwrap().to_owned())
            .collect(),
    );
    assert_eq!(rows, want);

    let out = kubectl.ok(&["get", "pods", "-A", "--show-labels"]).await;
    assert!(out.starts_with("NAMESPACE"), "{out}");
    assert!(
        out.contains("kube-system") && out.contains("k8s-app=calico-node"),
        "{out}"
    );

    let out = kubectl.ok(&["get", "clusterqueue", "gpu-cq"]).await;
    assert!(out.lines().nth(1).unwrap().starts_with("gpu-cq "), "{out}");
    // kubectl asked for server-side Tables, and got them.
    let asked = |r: &apiserver::RequestRecord| {
        r.accept.contains("as=Table") && r.path == "/api/v1/namespaces/inference/pods"
    };
    assert!(server.requests().iter().any(asked));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_reports_server_errors() {
    let opts = Options {
        forbidden: vec!["nodes".into()],
        fail: vec!["events".into()],
        truncate: vec!["configmaps".into()],
        ..Options::default()
    };
    let server = Server::start(scenario(), opts).await.unwrap();
    let Some(kubectl) = Kubectl::new(&server, "ml") else {
        return;
    };

    let out = kubectl.run(&["get", "pod", "nope"]).await;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains(r#"Error from server (NotFound): pods "nope" not found"#),
        "{stderr}"
    );

    let out = kubectl.run(&["get", "nodes"]).await;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("Error from server (Forbidden): nodes is forbidden"),
        "{stderr}"
    );

    let out = kubectl.run(&["get", "widgets"]).await;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains(r#"the server doesn't have a resource type "widgets""#),
        "{stderr}"
    );

    let out = kubectl.run(&["get", "events"]).await;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("Error from server (InternalError): Internal error occurred"),
        "{stderr}"
    );

    let out = kubectl.run(&["get", "configmaps", "-o", "json"]).await;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("unexpected EOF"), "{stderr}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_uses_aggregated_discovery_when_enabled() {
    let opts = Options {
        aggregated_discovery: true,
        ..Options::default()
    };
    let server = Server::start(scenario(), opts).await.unwrap();
    let Some(kubectl) = Kubectl::new(&server, "ml") else {
        return;
    };
    assert_eq!(kubectl.names(&["get", "lq"]).await, ["team-a"]);
    let paths: Vec<String> = server.requests().iter().map(|r| r.path.clone()).collect();
    assert!(
        !paths.iter().any(|p| p == "/apis/kueue.x-k8s.io/v1beta2"),
        "{paths:?}"
    );
    server.stop().await;
}

/// Whether an error or one of its sources is a connection reset.
fn is_reset(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut src = Some(e);
    while let Some(s) = src {
        if s.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::ConnectionReset)
        {
            return true;
        }
        src = s.source();
    }
    false
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kube_meets_429_a_reset_and_a_huge_answer() {
    let opts = Options {
        throttle: vec![apiserver::Throttle {
            resource: "nodes".into(),
            times: 2,
            retry_after: Some("7".into()),
        }],
        reset_connection: vec!["configmaps".into()],
        huge: vec!["pods".into()],
        huge_bytes: 300_000,
        ..Options::default()
    };
    let server = Server::start(scenario(), opts).await.unwrap();
    let mut config = Config::new(server.url().parse().unwrap());
    // Without kube's own retries, every 429 reaches the caller.
    config.default_retry = false;
    let c = Client::try_from(config).unwrap();

    let raw = c
        .send(
            http::Request::get("/api/v1/nodes")
                .body(kube::client::Body::empty())
                .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(raw.status(), 429);
    assert_eq!(raw.headers()["retry-after"], "7");
    let status = api_error(
        Api::<Node>::all(c.clone())
            .list(&ListParams::default())
            .await
            .unwrap_err(),
    );
    assert_eq!(
        (status.code, status.reason.as_str()),
        (429, "TooManyRequests")
    );
    assert!(
        Api::<Node>::all(c.clone())
            .list(&ListParams::default())
            .await
            .is_ok()
    );
    let throttled: Vec<u16> = server
        .requests()
        .iter()
        .filter(|r| r.path == "/api/v1/nodes")
        .map(|r| r.status)
        .collect();
    assert_eq!(throttled, [429, 429, 200], "twice, then served");

    let err = Api::<k8s_openapi::api::core::v1::ConfigMap>::all(c.clone())
        .list(&ListParams::default())
        .await
        .unwrap_err();
    assert!(is_reset(&err), "{err:?}");

    // The huge answer is one valid list of about the size asked for, sent in chunks.
    let text = c
        .request_text(http::Request::get("/api/v1/pods").body(Vec::new()).unwrap())
        .await
        .unwrap();
    assert!((290_000..=310_000).contains(&text.len()), "{}", text.len());
    let list: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(list["kind"], "PodList");
    assert!(list["items"].as_array().unwrap().len() > 100);
    assert_eq!(server.bytes_streamed(), text.len());
    server.stop().await;
}
