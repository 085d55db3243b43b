//! Reading a live cluster with kube-rs: the kubeconfig, discovery, and the rounds of requests
//! that build one target's bundle (or a whole namespace's, for `scan`).
//!
//! The reader never judges: it collects objects as the API server prints them, in the same
//! `List` shape `kubectl get -o json` gives, and hands them to the core like a file. What it
//! could not read goes into the bundle's `unreadable` list, so a forbidden or failing read
//! makes a layer `unknown` instead of stopping the diagnosis. Only a cluster that cannot be
//! reached at all (or a target that cannot be read) ends with exit status 3.
//!
//! Rounds, each with its requests issued together (at most [`CONCURRENCY`] at a time):
//! 1. discovery (aggregated when the server offers it) and `/version`;
//! 2. the target, then its owners one by one (owners by name, a handful at most);
//! 3. every row of `plan::wants()` whose API exists, plus the pods (the target's namespace, and
//!    every pod still running or pending anywhere, from the API server's cache) and the
//!    target's Namespace;
//! 4. events of the objects that make up the target (field selector on the involved object's
//!    uid; the whole namespace when there are too many), the CRDs Kueue integrations depend
//!    on, and fake-gpu-operator's topology ConfigMaps when its nodes exist.
//!
//! The number of requests depends on which APIs are installed, not on the cluster's size: a
//! paginated list is one request in the counts the tests and benchmarks make.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::discovery::{ApiCapabilities, ApiResource, Discovery, Scope as KubeScope};
use kube::{Client, Config};
use layer_core::diagnosis::Missing;
use layer_core::{Bundle, Index, ReadLimits, TargetSpec};
use serde::Deserialize;
use serde_json::value::RawValue;

use crate::plan::{self, Scope};

/// How many requests are in flight at once.
pub const CONCURRENCY: usize = 8;
/// Items per page of a paginated list.
const PAGE: usize = 500;
/// Above this many objects, the target's events are read for its whole namespace at once
/// instead of one field-selected request per object.
const EVENTS_PER_OBJECT_MAX: usize = 40;

/// How to reach the cluster (the kubectl flags of the same names).
#[derive(Clone, Debug, Default)]
pub struct ConnectOptions {
    pub kubeconfig: Option<PathBuf>,
    pub context: Option<String>,
    /// Bounds every request and the whole read.
    pub timeout: Duration,
    /// Print progress on stderr (only when it is a terminal).
    pub progress: bool,
}

/// Why the cluster could not be read at all (exit status 3).
#[derive(Debug, thiserror::Error)]
pub enum LiveError {
    #[error("no cluster configuration: {0}")]
    Config(String),
    #[error("cannot reach the API server at {url}: {why}")]
    Unreachable { url: String, why: String },
    #[error("cannot read {what}: {why}")]
    Read { what: String, why: String },
}

/// A connected cluster with its discovered APIs.
pub struct Cluster {
    client: Client,
    url: String,
    pub default_namespace: String,
    pub context: Option<String>,
    pub server_version: Option<String>,
    apis: Vec<(ApiResource, bool)>,
    group_versions: BTreeSet<String>,
    deadline: Instant,
    timeout: Duration,
    progress: Progress,
    /// `KUBECTL_LAYER_TRACE=1`: print every request and its outcome on stderr.
    trace: bool,
}

/// What one read produced: objects (JSON texts as the server sent them, with apiVersion and
/// kind filled in for list items) and what could not be read.
#[derive(Default)]
struct Haul {
    items: Mutex<Vec<String>>,
    unreadable: Mutex<Vec<Missing>>,
    requests: AtomicUsize,
}

/// The outcome of a live read, ready for the core.
pub struct Collected {
    pub index: Index,
    /// Requests made, a paginated list counted once.
    pub requests: usize,
}

/// One failed read, worded for `missing`.
#[derive(Debug, Clone)]
struct ReadFailure {
    status: Option<u16>,
    why: String,
}

fn describe(e: &kube::Error) -> ReadFailure {
    match e {
        kube::Error::Api(s) => {
            let why = match s.code {
                403 => "forbidden".to_string(),
                404 => "not found".to_string(),
                401 => "unauthorized".to_string(),
                c => format!("server error {c}: {}", s.message),
            };
            ReadFailure {
                status: Some(s.code),
                why,
            }
        }
        kube::Error::SerdeError(e) => ReadFailure {
            status: None,
            why: format!("unreadable response ({e}); was the answer cut off?"),
        },
        other => {
            // Hyper and tower errors nest the useful part (connection refused, reset) in
            // their sources.
            let mut why = other.to_string();
            let mut src = std::error::Error::source(other);
            while let Some(s) = src {
                let t = s.to_string();
                if !why.contains(&t) {
                    why = format!("{why}: {t}");
                }
                src = s.source();
            }
            if why.contains("reading a body") || why.contains("end of file before message") {
                why = format!("the answer was cut off ({why})");
            }
            ReadFailure { status: None, why }
        }
    }
}

/// Progress on stderr, one line rewritten in place.
#[derive(Clone)]
struct Progress {
    on: bool,
    state: Arc<Mutex<(usize, usize, usize)>>,
}

impl Progress {
    fn new(on: bool) -> Progress {
        Progress {
            on: on && std::io::stderr().is_terminal(),
            state: Arc::new(Mutex::new((0, 0, 0))),
        }
    }
    fn planned(&self, n: usize) {
        if let Ok(mut s) = self.state.lock() {
            s.1 += n;
        }
    }
    fn done(&self, objects: usize) {
        if !self.on {
            return;
        }
        if let Ok(mut s) = self.state.lock() {
            s.0 += 1;
            s.2 += objects;
            let _ = write!(
                std::io::stderr(),
                "\rreading the cluster: {}/{} requests, {} objects\x1b[K",
                s.0,
                s.1.max(s.0),
                s.2
            );
        }
    }
    fn finish(&self) {
        if self.on {
            let _ = write!(std::io::stderr(), "\r\x1b[K");
        }
    }
}

#[derive(Deserialize)]
struct PageMeta {
    #[serde(rename = "continue", default)]
    cont: Option<String>,
}

#[derive(Deserialize)]
struct Page<'a> {
    #[serde(rename = "apiVersion", default)]
    api_version: Option<&'a str>,
    #[serde(default)]
    kind: Option<&'a str>,
    #[serde(default)]
    metadata: Option<PageMeta>,
    #[serde(borrow, default)]
    items: Option<Vec<&'a RawValue>>,
}

#[derive(Deserialize)]
struct Head<'a> {
    #[serde(rename = "apiVersion", default, borrow)]
    api_version: Option<&'a str>,
    #[serde(default, borrow)]
    kind: Option<&'a str>,
}

/// A list item with the apiVersion and kind the server leaves out of list items.
fn with_type(raw: &str, api_version: &str, kind: &str) -> String {
    let head: Head = serde_json::from_str(raw).unwrap_or(Head {
        api_version: None,
        kind: None,
    });
    let raw = raw.trim_start();
    if head.kind.is_some() && head.api_version.is_some() {
        return raw.to_string();
    }
    let Some(rest) = raw.strip_prefix('{') else {
        return raw.to_string();
    };
    let mut out = String::with_capacity(raw.len() + api_version.len() + kind.len() + 32);
    out.push('{');
    if head.api_version.is_none() {
        out.push_str(&format!(
            "\"apiVersion\":{},",
            serde_json::json!(api_version)
        ));
    }
    if head.kind.is_none() {
        out.push_str(&format!("\"kind\":{},", serde_json::json!(kind)));
    }
    if rest.trim_start().starts_with('}') {
        out.pop();
    }
    out.push_str(rest);
    out
}

/// A request's path and query.
#[derive(Clone, Debug)]
struct Read {
    /// Shown in `missing` and errors: `pods`, `workloads.kueue.x-k8s.io`.
    resource: String,
    kind: String,
    api_version: String,
    path: String,
    query: Vec<(String, String)>,
    /// Follow `continue` pages.
    paginate: bool,
    namespace: Option<String>,
    name: Option<String>,
}

fn qualified(ar: &ApiResource) -> String {
    if ar.group.is_empty() {
        ar.plural.clone()
    } else {
        format!("{}.{}", ar.plural, ar.group)
    }
}

fn base_path(ar: &ApiResource, namespace: Option<&str>) -> String {
    let root = if ar.group.is_empty() {
        format!("/api/{}", ar.version)
    } else {
        format!("/apis/{}/{}", ar.group, ar.version)
    };
    match namespace {
        Some(ns) => format!("{root}/namespaces/{ns}/{}", ar.plural),
        None => format!("{root}/{}", ar.plural),
    }
}

fn encode(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

impl Read {
    fn list(ar: &ApiResource, namespace: Option<&str>) -> Read {
        Read {
            resource: qualified(ar),
            kind: ar.kind.clone(),
            api_version: ar.api_version.clone(),
            path: base_path(ar, namespace),
            query: Vec::new(),
            paginate: true,
            namespace: namespace.map(str::to_string),
            name: None,
        }
    }
    fn get(ar: &ApiResource, namespace: Option<&str>, name: &str) -> Read {
        Read {
            path: format!("{}/{}", base_path(ar, namespace), encode(name)),
            paginate: false,
            name: Some(name.to_string()),
            ..Read::list(ar, namespace)
        }
    }
    fn with(mut self, key: &str, value: &str) -> Read {
        self.query.push((key.to_string(), value.to_string()));
        self
    }
    /// Served from the API server's watch cache, in one answer (no paging).
    fn cached(mut self) -> Read {
        self.paginate = false;
        self.with("resourceVersion", "0")
    }
    fn missing(&self, why: String) -> Missing {
        Missing {
            kind: self.kind.clone(),
            api_version: Some(self.api_version.clone()),
            resource: Some(self.resource.clone()),
            namespace: self.namespace.clone(),
            name: self.name.clone(),
            why,
        }
    }
}

fn core(kind: &str, plural: &str) -> ApiResource {
    ApiResource {
        group: String::new(),
        version: "v1".into(),
        api_version: "v1".into(),
        kind: kind.into(),
        plural: plural.into(),
    }
}

impl Cluster {
    /// Load the kubeconfig (or the in-cluster service account), as kubectl does, and run
    /// discovery.
    pub async fn connect(opts: &ConnectOptions) -> Result<Cluster, LiveError> {
        let start = Instant::now();
        let kube_opts = KubeConfigOptions {
            context: opts.context.clone(),
            ..Default::default()
        };
        let (mut config, context) = match &opts.kubeconfig {
            Some(path) => {
                let kc = Kubeconfig::read_from(path)
                    .map_err(|e| LiveError::Config(format!("{}: {e}", path.display())))?;
                let ctx = opts.context.clone().or(kc.current_context.clone());
                let config = Config::from_custom_kubeconfig(kc, &kube_opts)
                    .await
                    .map_err(|e| LiveError::Config(format!("{}: {e}", path.display())))?;
                (config, ctx)
            }
            None => {
                let kc = Kubeconfig::read().ok();
                let ctx = opts
                    .context
                    .clone()
                    .or_else(|| kc.as_ref().and_then(|k| k.current_context.clone()));
                let config = if opts.context.is_some() {
                    Config::from_kubeconfig(&kube_opts)
                        .await
                        .map_err(|e| LiveError::Config(e.to_string()))?
                } else {
                    Config::infer().await.map_err(|e| {
                        LiveError::Config(format!(
                            "{e} (set KUBECONFIG or pass --kubeconfig, or read a file with -f)"
                        ))
                    })?
                };
                (config, ctx)
            }
        };
        config.connect_timeout = Some(opts.timeout);
        config.read_timeout = Some(opts.timeout);
        config.write_timeout = Some(opts.timeout);
        let url = config.cluster_url.to_string();
        let default_namespace = config.default_namespace.clone();
        let client = Client::try_from(config).map_err(|e| LiveError::Unreachable {
            url: url.clone(),
            why: describe(&e).why,
        })?;
        let deadline = start + opts.timeout;
        let mut cluster = Cluster {
            client,
            url,
            default_namespace,
            context,
            server_version: None,
            apis: Vec::new(),
            group_versions: BTreeSet::new(),
            deadline,
            timeout: opts.timeout,
            progress: Progress::new(opts.progress),
            trace: std::env::var_os("KUBECTL_LAYER_TRACE").is_some_and(|v| v == "1"),
        };
        cluster.discover().await?;
        Ok(cluster)
    }

    fn remaining(&self) -> Duration {
        self.deadline
            .saturating_duration_since(Instant::now())
            .max(Duration::from_millis(1))
    }

    async fn bounded<T>(
        &self,
        fut: impl std::future::Future<Output = Result<T, kube::Error>>,
    ) -> Result<T, ReadFailure> {
        match tokio::time::timeout(self.remaining(), fut).await {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(e)) => Err(describe(&e)),
            Err(_) => Err(ReadFailure {
                status: None,
                why: format!("timed out (--request-timeout {}s)", self.timeout.as_secs()),
            }),
        }
    }

    async fn discover(&mut self) -> Result<(), LiveError> {
        let groups = plan::groups();
        let unreachable = |f: ReadFailure| match f.status {
            Some(_) => LiveError::Read {
                what: "API discovery".into(),
                why: f.why,
            },
            None => LiveError::Unreachable {
                url: self.url.clone(),
                why: f.why,
            },
        };
        let version = self.bounded(self.client.apiserver_version()).await;
        let version = version.map_err(unreachable)?;
        self.server_version = Some(version.git_version);
        let aggregated = self
            .bounded(
                Discovery::new(self.client.clone())
                    .filter(&groups)
                    .run_aggregated(),
            )
            .await;
        // A server without aggregated discovery answers the same URL with the legacy document,
        // which decodes to an empty list; every real cluster serves `apps`, so its absence
        // means "ask the legacy way".
        let discovery = match aggregated {
            Ok(d) if d.has_group("apps") => d,
            _ => self
                .bounded(Discovery::new(self.client.clone()).filter(&groups).run())
                .await
                .map_err(|f| LiveError::Read {
                    what: "API discovery".into(),
                    why: f.why,
                })?,
        };
        for g in discovery.groups() {
            for v in g.versions() {
                self.group_versions.insert(if g.name().is_empty() {
                    v.to_string()
                } else {
                    format!("{}/{v}", g.name())
                });
            }
            // One version of each kind: the group's preferred version when it has the kind,
            // else the most stable one that does (a real server serves every object at every
            // version of its group, so one read sees them all).
            let mut kinds: BTreeMap<String, (ApiResource, ApiCapabilities)> = g
                .recommended_resources()
                .into_iter()
                .map(|(ar, caps)| (ar.kind.clone(), (ar, caps)))
                .collect();
            for (ar, caps) in g.resources_by_stability() {
                kinds.entry(ar.kind.clone()).or_insert((ar, caps));
            }
            for (ar, caps) in kinds.into_values() {
                self.apis
                    .push((ar, matches!(caps.scope, KubeScope::Namespaced)));
            }
        }
        Ok(())
    }

    /// The group/versions the server offers among those the tool reads.
    pub fn apis(&self) -> Vec<String> {
        self.group_versions.iter().cloned().collect()
    }

    fn resource(&self, group: &str, kind: &str) -> Option<&(ApiResource, bool)> {
        self.apis
            .iter()
            .find(|(ar, _)| ar.group == group && ar.kind == kind)
    }

    /// Resources a user's kind spelling may name (`pod`, `lws`, `podgroups.scheduling.run.ai`).
    fn resources_named(&self, spelling: &str) -> Vec<&(ApiResource, bool)> {
        let word = spelling.to_ascii_lowercase();
        self.apis
            .iter()
            .filter(|(ar, _)| plan::may_get(&ar.group, &ar.kind))
            .filter(|(ar, _)| {
                layer_core::target::kind_matches(spelling, &ar.kind, &ar.api_version)
                    || word == ar.plural
                    || word == format!("{}.{}", ar.plural, ar.group)
            })
            .collect()
    }

    /// Run one read: a GET, or a list followed page by page. Adds what it got to the haul.
    async fn fetch(&self, read: &Read, haul: &Haul) -> Result<usize, ReadFailure> {
        haul.requests.fetch_add(1, Ordering::Relaxed);
        let mut count = 0;
        let mut cont: Option<String> = None;
        let mut pages = 0usize;
        loop {
            let mut query: Vec<String> = read
                .query
                .iter()
                .map(|(k, v)| format!("{k}={}", encode(v)))
                .collect();
            if read.paginate {
                query.push(format!("limit={PAGE}"));
                if let Some(c) = &cont {
                    query.push(format!("continue={}", encode(c)));
                }
            }
            let uri = if query.is_empty() {
                read.path.clone()
            } else {
                format!("{}?{}", read.path, query.join("&"))
            };
            let req = http::Request::get(uri.as_str())
                .header("Accept", "application/json")
                .body(Vec::new())
                .map_err(|e| ReadFailure {
                    status: None,
                    why: e.to_string(),
                })?;
            let sent = Instant::now();
            let answer = self.bounded(self.client.request_text(req)).await;
            if self.trace {
                let ms = sent.elapsed().as_millis();
                match &answer {
                    Ok(t) => eprintln!("GET {uri} -> {} bytes in {ms} ms", t.len()),
                    Err(f) => eprintln!(
                        "GET {uri} -> {} after {ms} ms",
                        layer_core::render::for_terminal(&f.why)
                    ),
                }
            }
            let text = answer?;
            pages += 1;
            if read.name.is_some() {
                // One object.
                let typed = with_type(&text, &read.api_version, &read.kind);
                serde_json::from_str::<serde::de::IgnoredAny>(&typed).map_err(|e| ReadFailure {
                    status: None,
                    why: format!("unreadable response ({e}); was the answer cut off?"),
                })?;
                haul.items.lock().expect("not poisoned").push(typed);
                return Ok(1);
            }
            let page: Page = serde_json::from_str(&text).map_err(|e| ReadFailure {
                status: None,
                why: format!("unreadable response ({e}); was the answer cut off?"),
            })?;
            let list_kind = page.kind.unwrap_or("");
            let kind = list_kind.strip_suffix("List").unwrap_or(&read.kind);
            let kind = if kind.is_empty() { &read.kind } else { kind };
            let api_version = page.api_version.unwrap_or(&read.api_version);
            let items: Vec<String> = page
                .items
                .unwrap_or_default()
                .into_iter()
                .map(|raw| with_type(raw.get(), api_version, kind))
                .collect();
            count += items.len();
            haul.items.lock().expect("not poisoned").extend(items);
            cont = page.metadata.and_then(|m| m.cont).filter(|c| !c.is_empty());
            if !read.paginate || cont.is_none() || pages > 100_000 {
                return Ok(count);
            }
        }
    }

    /// Run reads together, at most [`CONCURRENCY`] at a time; failures go to `unreadable`,
    /// except a 404 on a GET (the object does not exist, which the core sees by its absence).
    async fn fetch_all(self: &Arc<Self>, reads: Vec<Read>, haul: &Arc<Haul>) {
        self.progress.planned(reads.len());
        let sem = Arc::new(tokio::sync::Semaphore::new(CONCURRENCY));
        let mut set = tokio::task::JoinSet::new();
        for read in reads {
            let sem = sem.clone();
            let this = self.clone();
            let haul = haul.clone();
            set.spawn(async move {
                let _permit = sem.acquire().await;
                let got = this.fetch(&read, &haul).await;
                match got {
                    Ok(n) => this.progress.done(n),
                    Err(f) => {
                        this.progress.done(0);
                        if !(read.name.is_some() && f.status == Some(404)) {
                            haul.unreadable
                                .lock()
                                .expect("not poisoned")
                                .push(read.missing(f.why));
                        }
                    }
                }
            });
        }
        while set.join_next().await.is_some() {}
    }

    /// The fan-out round: every kind of the plan whose API exists, the pods, the Namespace.
    fn fan_out(&self, namespace: Option<&str>) -> Vec<Read> {
        let mut reads = Vec::new();
        for want in plan::wants() {
            let Some((ar, namespaced)) = self.resource(want.group, want.kind) else {
                continue; // not installed: its absence is in `apis`
            };
            let ns = if *namespaced && want.scope == Scope::Namespace {
                namespace
            } else {
                None
            };
            let read = Read::list(ar, ns);
            reads.push(if want.kind == "Node" {
                read.cached()
            } else {
                read
            });
        }
        let pods = core("Pod", "pods");
        match namespace {
            Some(ns) => {
                reads.push(Read::list(&pods, Some(ns)));
                // What runs on every node, for free capacity and the device plugin's pods.
                reads.push(
                    Read::list(&pods, None)
                        .with(
                            "fieldSelector",
                            "status.phase!=Succeeded,status.phase!=Failed",
                        )
                        .cached(),
                );
                reads.push(Read::get(&core("Namespace", "namespaces"), None, ns));
            }
            None => {
                reads.push(Read::list(&pods, None));
                reads.push(Read::list(&core("Namespace", "namespaces"), None));
            }
        }
        reads
    }

    /// Round 4 for one target: events of its objects, CRDs, fake-gpu-operator ConfigMaps.
    fn follow_up(&self, ix: &Index, target: Option<usize>, namespace: Option<&str>) -> Vec<Read> {
        let events = core("Event", "events");
        let mut reads = Vec::new();
        let mut family: BTreeSet<usize> = BTreeSet::new();
        let mut nodes: BTreeSet<String> = BTreeSet::new();
        if let Some(id) = target {
            let chain = ix.owner_chain(id);
            family.extend(chain.iter().copied());
            family.insert(id);
            let mut stack: Vec<usize> = family.iter().copied().collect();
            while let Some(x) = stack.pop() {
                for &c in ix.children(x) {
                    if family.insert(c) {
                        stack.push(c);
                    }
                }
            }
            let uids: Vec<String> = family
                .iter()
                .filter_map(|&x| ix.object(x).uid.clone())
                .collect();
            for uid in &uids {
                family.extend(ix.workloads_for_job_uid(uid).iter().copied());
            }
            for &x in &family {
                if let Some(p) = ix.pod(x)
                    && let Some(n) = &p.node
                {
                    nodes.insert(n.clone());
                }
            }
        }
        let uids: Vec<String> = family
            .iter()
            .filter_map(|&x| ix.object(x).uid.clone())
            .collect();
        if target.is_some() && uids.len() <= EVENTS_PER_OBJECT_MAX {
            for uid in uids {
                reads.push(
                    Read::list(&events, None)
                        .with("fieldSelector", &format!("involvedObject.uid={uid}")),
                );
            }
        } else {
            reads.push(Read::list(&events, namespace));
        }
        if target.is_some() {
            for node in nodes.iter().take(EVENTS_PER_OBJECT_MAX) {
                reads.push(Read::list(&events, None).with(
                    "fieldSelector",
                    &format!("involvedObject.kind=Node,involvedObject.name={node}"),
                ));
            }
        }
        // The CRDs whose age tells whether Kueue has noticed an integration yet.
        let crd = ApiResource {
            group: "apiextensions.k8s.io".into(),
            version: "v1".into(),
            api_version: "apiextensions.k8s.io/v1".into(),
            kind: "CustomResourceDefinition".into(),
            plural: "customresourcedefinitions".into(),
        };
        let kinds: BTreeSet<(String, String)> = family
            .iter()
            .map(|&x| {
                let o = ix.object(x);
                (o.group().to_string(), o.kind.clone())
            })
            .collect();
        for (group, kind) in [
            ("jobset.x-k8s.io", "JobSet"),
            ("leaderworkerset.x-k8s.io", "LeaderWorkerSet"),
        ] {
            let wanted = target.is_none() || kinds.contains(&(group.to_string(), kind.to_string()));
            if wanted && let Some((ar, _)) = self.resource(group, kind) {
                reads.push(Read::get(&crd, None, &qualified(ar)));
            }
        }
        // fake-gpu-operator keeps its topology in ConfigMaps next to it.
        if ix.nodes().values().any(|n| {
            n.labels
                .contains_key(layer_core::facts::FAKE_GPU_POOL_LABEL)
        }) {
            reads.push(
                Read::list(&core("ConfigMap", "configmaps"), None)
                    .with("fieldSelector", "metadata.name=topology"),
            );
        }
        reads
    }

    /// Reads the fake-gpu-operator per-node ConfigMaps once the `topology` one is found.
    fn topology_follow_up(&self, ix: &Index) -> Vec<Read> {
        let namespaces: BTreeSet<String> = ix
            .named("ConfigMap", "topology")
            .into_iter()
            .filter_map(|id| ix.object(id).namespace.clone())
            .collect();
        namespaces
            .iter()
            .map(|ns| Read::list(&core("ConfigMap", "configmaps"), Some(ns)))
            .collect()
    }

    /// Round 4 and its tail: events and CRDs for what the fan-out found (for one target, or
    /// for a whole scan), then fake-gpu-operator's per-node ConfigMaps once its `topology`
    /// ConfigMap shows where they live.
    async fn follow_ups(
        self: &Arc<Self>,
        haul: &Arc<Haul>,
        spec: Option<&TargetSpec>,
        namespace: Option<&str>,
        limits: ReadLimits,
    ) -> Result<(), crate::Failure> {
        let partial = self.index(haul, None, limits)?.index;
        let target = spec.and_then(|s| layer_core::target::resolve(&partial, s).ok());
        let reads = self.follow_up(&partial, target, namespace);
        drop(partial);
        let fake_gpu = reads.iter().any(|r| r.kind == "ConfigMap");
        self.fetch_all(reads, haul).await;
        if fake_gpu {
            let ix = self.index(haul, None, limits)?.index;
            let reads = self.topology_follow_up(&ix);
            drop(ix);
            self.fetch_all(reads, haul).await;
        }
        self.progress.finish();
        Ok(())
    }

    /// Read what the diagnosis of one target needs. `Err` only when the target itself cannot
    /// be read.
    pub async fn collect_target(
        self: &Arc<Self>,
        spec: &TargetSpec,
        limits: ReadLimits,
    ) -> Result<Collected, crate::Failure> {
        let haul = Arc::new(Haul::default());
        let namespace = spec
            .namespace
            .clone()
            .unwrap_or_else(|| self.default_namespace.clone());
        let spelling = spec.kind.clone().unwrap_or_else(|| "pod".to_string());
        let candidates = self.resources_named(&spelling);
        if candidates.is_empty() {
            return Err(crate::Failure::new(
                2,
                "target-not-found",
                format!(
                    "the cluster offers no kind named `{spelling}` among those kubectl-layer reads (see `kubectl layer rbac` for the list)"
                ),
            ));
        }
        // Round 2: the target.
        let mut found = false;
        let mut last_failure: Option<ReadFailure> = None;
        for (ar, namespaced) in &candidates {
            let ns = namespaced.then_some(namespace.as_str());
            let read = Read::get(ar, ns, &spec.name);
            self.progress.planned(1);
            match self.fetch(&read, &haul).await {
                Ok(_) => {
                    self.progress.done(1);
                    found = true;
                    break;
                }
                Err(f) if f.status == Some(404) => self.progress.done(0),
                Err(f) => {
                    self.progress.done(0);
                    last_failure = Some(f)
                }
            }
        }
        if !found {
            if let Some(f) = last_failure {
                self.progress.finish();
                let what = format!("{}/{} in namespace {namespace}", spelling, spec.name);
                return Err(crate::Failure::new(
                    3,
                    "cluster",
                    LiveError::Read { what, why: f.why }.to_string(),
                ));
            }
            // Not there: list its kind so the core can name the closest matches.
            let reads = candidates
                .iter()
                .map(|(ar, namespaced)| Read::list(ar, namespaced.then_some(namespace.as_str())))
                .collect();
            self.fetch_all(reads, &haul).await;
            self.progress.finish();
            let ix = self.index(&haul, None, limits)?.index;
            let spec = TargetSpec {
                namespace: Some(namespace.clone()),
                ..spec.clone()
            };
            let err = layer_core::target::resolve(&ix, &spec)
                .err()
                .map(layer_core::Error::from)
                .map(crate::Failure::from);
            return Err(err.unwrap_or(crate::Failure::new(
                2,
                "target-not-found",
                format!(
                    "{spelling}/{} not found in namespace {namespace}",
                    spec.name
                ),
            )));
        }
        // Round 2b: owners, by name, up the chain.
        let mut seen_uids: BTreeSet<String> = BTreeSet::new();
        let mut frontier: Vec<String> = haul.items.lock().expect("not poisoned").clone();
        for _ in 0..8 {
            let mut next = Vec::new();
            for text in &frontier {
                let v: serde_json::Value = serde_json::from_str(text).unwrap_or_default();
                for o in v["metadata"]["ownerReferences"]
                    .as_array()
                    .into_iter()
                    .flatten()
                {
                    let uid = o["uid"].as_str().unwrap_or_default().to_string();
                    if !seen_uids.insert(uid) {
                        continue;
                    }
                    let (Some(api_version), Some(kind), Some(name)) = (
                        o["apiVersion"].as_str(),
                        o["kind"].as_str(),
                        o["name"].as_str(),
                    ) else {
                        continue;
                    };
                    let group = layer_core::bundle::group_of(api_version);
                    // An owner is read only where the role allows it (never a Secret).
                    if !plan::may_get(group, kind) {
                        continue;
                    }
                    if let Some((ar, namespaced)) = self.resource(group, kind) {
                        let ns = namespaced.then_some(namespace.as_str());
                        next.push(Read::get(ar, ns, name));
                    }
                }
            }
            if next.is_empty() {
                break;
            }
            let before = haul.items.lock().expect("not poisoned").len();
            self.fetch_all(next, &haul).await;
            frontier = haul.items.lock().expect("not poisoned")[before..].to_vec();
        }
        // Round 3: the fan-out.
        self.fetch_all(self.fan_out(Some(&namespace)), &haul).await;
        // Round 4: what the answers point to.
        let spec = TargetSpec {
            namespace: Some(namespace.clone()),
            ..spec.clone()
        };
        self.follow_ups(&haul, Some(&spec), Some(&namespace), limits)
            .await?;
        let target_meta = serde_json::json!({
            "kind": spec.kind, "namespace": namespace, "name": spec.name,
        });
        self.index(&haul, Some(target_meta), limits)
    }

    /// Read everything `scan` looks at in one namespace, or in all of them.
    pub async fn collect_scan(
        self: &Arc<Self>,
        namespace: Option<&str>,
        limits: ReadLimits,
    ) -> Result<Collected, crate::Failure> {
        let haul = Arc::new(Haul::default());
        self.fetch_all(self.fan_out(namespace), &haul).await;
        self.follow_ups(&haul, None, namespace, limits).await?;
        let unreadable_all = haul.unreadable.lock().expect("not poisoned").len();
        if unreadable_all > 0 && haul.items.lock().expect("not poisoned").is_empty() {
            let why = haul.unreadable.lock().expect("not poisoned")[0].why.clone();
            return Err(crate::Failure::new(
                3,
                "cluster",
                LiveError::Read {
                    what: "the cluster".into(),
                    why,
                }
                .to_string(),
            ));
        }
        self.index(&haul, None, limits)
    }

    /// The haul as the tool's own bundle, read by the core.
    fn index(
        &self,
        haul: &Haul,
        target: Option<serde_json::Value>,
        limits: ReadLimits,
    ) -> Result<Collected, crate::Failure> {
        let items = haul.items.lock().expect("not poisoned");
        let mut unreadable = haul.unreadable.lock().expect("not poisoned").clone();
        unreadable.sort_by(|a, b| {
            (&a.resource, &a.namespace, &a.name).cmp(&(&b.resource, &b.namespace, &b.name))
        });
        unreadable.dedup();
        let meta = serde_json::json!({
            "bundleVersion": 1,
            "collectedAt": layer_core::time::format_rfc3339(unix_now()),
            "serverVersion": self.server_version,
            "context": self.context,
            "target": target,
            "unreadable": unreadable,
            "apis": self.apis(),
            "redacted": false,
        });
        let mut text =
            String::with_capacity(items.iter().map(|s| s.len() + 1).sum::<usize>() + 512);
        text.push_str("{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[");
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                text.push(',');
            }
            text.push_str(item);
        }
        text.push_str("],\"kubectlLayer\":");
        text.push_str(&meta.to_string());
        text.push('}');
        let requests = haul.requests.load(Ordering::Relaxed);
        let bundle = Bundle::parse_with(text, limits).map_err(|e| {
            let mut f: crate::Failure = layer_core::Error::from(e).into();
            f.exit = 3;
            f.message = format!("the cluster's answers: {}", f.message);
            f
        })?;
        Ok(Collected {
            index: Index::new(bundle),
            requests,
        })
    }
}

fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}
