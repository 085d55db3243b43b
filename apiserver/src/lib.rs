//! An in-process Kubernetes API server for tests: it serves a fixed set of objects with real
//! API semantics to kube-rs clients and to the real `kubectl`.
//!
//! No kube-apiserver can be installed on the project's machines, so the live-cluster paths of
//! `kubectl layer` are tested against this instead. It answers what a read-only client needs:
//!
//! - discovery: `/version`, `/api`, `/apis`, `/apis/<g>`, `/api/v1`, `/apis/<g>/<v>` (legacy
//!   documents; aggregated `apidiscovery.k8s.io/v2` too if [`Options::aggregated_discovery`]);
//! - GET of one object, LIST in a namespace or across all namespaces, with `labelSelector`,
//!   `fieldSelector` and `limit`/`continue` paging;
//! - server-side Tables (Name, Age) when kubectl asks for human output;
//! - errors as `Status` objects worded like the real server's (NotFound, Forbidden, …);
//! - faults per resource: 403, 500, 429 with `Retry-After`, a cut-off body, a dropped or reset
//!   connection, an answer far larger than any real one streamed without end in sight; a delay
//!   per request; stopping the server. Writes and watches get 405.
//!
//! What it serves: each object at its own apiVersion only (no conversion between versions);
//! a group/version exists only if some object lives in it, or it is core `v1`, or
//! [`Options::extra_apis`] names it, so "this API is not installed" is tested by leaving its
//! objects out. A Namespace object is made up for every namespace the objects use (and the
//! four every cluster has) unless the caller gave one, because kubectl looks the namespace up
//! after a NotFound.
//!
//! ```no_run
//! # async fn demo() -> std::io::Result<()> {
//! use apiserver::{Options, Server};
//! let pod = serde_json::json!({"apiVersion": "v1", "kind": "Pod",
//!                              "metadata": {"name": "trainer-0", "namespace": "ml"}});
//! let server = Server::start(vec![pod], Options::default()).await?;
//! let dir = std::env::temp_dir().join("apiserver-demo");
//! std::fs::create_dir_all(&dir)?;
//! server.write_kubeconfig(&dir.join("kubeconfig"), "ml")?;
//! // … run kube-rs or `kubectl --kubeconfig … --cache-dir …` against server.url() …
//! assert!(server.requests().iter().all(|r| r.status < 500));
//! server.stop().await;
//! # Ok(())
//! # }
//! ```
//!
//! Map: `catalog` decides which resources exist and writes discovery, `store` files the
//! objects, `selector` parses selectors, `table` prints Tables, `handler` routes and answers
//! requests; this file holds the public API.

use std::io;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

mod catalog;
mod handler;
mod selector;
mod store;
mod table;

/// How the server behaves, beyond the objects it serves. Start from `Options::default()`.
///
/// Resource names in `forbidden`, `fail`, `truncate`, `drop_connection`, `reset_connection`,
/// `huge` and `throttle` are plurals
/// (`"nodes"`), or `plural.group` (`"workloads.kueue.x-k8s.io"`) when two APIs share a plural,
/// or `"*"` for every resource. They apply to GET and LIST of that resource, not to discovery.
#[derive(Clone, Debug)]
pub struct Options {
    /// Answered with 403 Forbidden, worded as the RBAC authorizer words it.
    pub forbidden: Vec<String>,
    /// Answered with 500 InternalError.
    pub fail: Vec<String>,
    /// Answered 200 with a `Content-Length` for the whole body, but only the headers and half
    /// the body are sent before the connection is closed.
    pub truncate: Vec<String>,
    /// The connection is closed before any byte of the answer is sent. Note that kubectl
    /// (client-go) retries a GET that ends like this up to 10 times, about 10 s in all.
    pub drop_connection: Vec<String>,
    /// The connection is reset (TCP RST) before any byte of the answer is sent, as a load
    /// balancer or a crashing server does. Every connection lingers zero seconds on close
    /// while this is set, which is what makes the close a reset.
    pub reset_connection: Vec<String>,
    /// A LIST is answered 200 with a typed list of `huge_bytes` bytes, streamed in chunks
    /// without a `Content-Length`, made up as it is sent (the server never holds it).
    /// [`Server::bytes_streamed`] says how much of it the client took before it hung up.
    pub huge: Vec<String>,
    /// Size of a `huge` answer.
    pub huge_bytes: usize,
    /// Requests answered 429 Too Many Requests, as API Priority and Fairness answers them.
    pub throttle: Vec<Throttle>,
    /// Waited before answering every request, discovery included.
    pub delay: Option<Duration>,
    /// After this many answered requests, every further connection is closed before an
    /// answer: a server that goes away in the middle of a read.
    pub vanish_after: Option<usize>,
    /// `gitVersion` of `/version`; major and minor are derived from it.
    pub server_version: String,
    /// The user named in 403 messages.
    pub user: String,
    /// Group/versions served even though no object lives in them, e.g. `"kueue.x-k8s.io/v1beta2"`
    /// for "Kueue is installed but has no objects". Without this, a group/version exists only
    /// if an object does (core `v1` always exists).
    pub extra_apis: Vec<String>,
    /// Answer `/api` and `/apis` with aggregated discovery (`apidiscovery.k8s.io/v2`) when the
    /// client asks for it, as real 1.30+ servers do. Off by default: clients then get legacy
    /// discovery and fall back to one request per group/version.
    pub aggregated_discovery: bool,
    /// Kueue's visibility API, served when set (see [`KueueVisibility`]). `forbidden` naming
    /// `clusterqueues/pendingworkloads` (or `*`) answers its reads with 403.
    pub kueue_visibility: Option<KueueVisibility>,
}

/// Kueue's visibility API as the server answers it: `visibility.kueue.x-k8s.io` at `version`,
/// `GET /apis/visibility.kueue.x-k8s.io/<version>/clusterqueues/<name>/pendingworkloads` with
/// `limit` (1000 when absent, as Kueue's default) and `offset`, from each ClusterQueue's
/// pending Workloads given in Kueue's order. Each is an object with `metadata.name`,
/// `metadata.namespace`, `priority` and `localQueueName`; the server fills in
/// `positionInClusterQueue` and `positionInLocalQueue`, 0-based, as Kueue does. A ClusterQueue
/// not named is answered 404, as Kueue answers one it does not know.
#[derive(Clone, Debug, Default)]
pub struct KueueVisibility {
    pub version: String,
    pub queues: Vec<(String, Vec<Value>)>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            forbidden: Vec::new(),
            fail: Vec::new(),
            truncate: Vec::new(),
            drop_connection: Vec::new(),
            reset_connection: Vec::new(),
            huge: Vec::new(),
            huge_bytes: 300 << 20,
            throttle: Vec::new(),
            delay: None,
            vanish_after: None,
            server_version: "v1.34.2".to_owned(),
            user: "system:serviceaccount:default:test".to_owned(),
            extra_apis: Vec::new(),
            aggregated_discovery: false,
            kueue_visibility: None,
        }
    }
}

/// 429 answers for one resource (see [`Options::throttle`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Throttle {
    /// A plural, `plural.group`, or `"*"`.
    pub resource: String,
    /// How many of its requests are answered 429 before it is served (`usize::MAX`: all).
    pub times: usize,
    /// The `Retry-After` header sent with each, as written (seconds, normally), if any.
    pub retry_after: Option<String>,
}

/// One request the server answered, for tests that count or inspect calls.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequestRecord {
    /// `GET`, `POST`, …
    pub method: String,
    /// The URL path, e.g. `/api/v1/namespaces/ml/pods`.
    pub path: String,
    /// The raw query string without `?` (still percent-encoded), `""` if none.
    pub query: String,
    /// The Accept header, `""` if none.
    pub accept: String,
    /// The HTTP status sent (200 also for truncated or dropped answers).
    pub status: u16,
}

/// A running server. Dropping it stops it too, without waiting.
pub struct Server {
    addr: SocketAddr,
    shared: Arc<handler::Shared>,
    shutdown: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<()>>,
    /// The runtime of a server started with [`Server::start_blocking`].
    runtime: Option<tokio::runtime::Runtime>,
}

impl Server {
    /// Serves `objects` (each with `apiVersion`, `kind`, `metadata.name`) on `127.0.0.1` at a
    /// free port. Must be called inside a Tokio runtime; if the test then blocks its thread
    /// (e.g. `std::process::Command` running kubectl), use a multi-thread runtime so the
    /// server keeps answering, or use [`Server::start_blocking`].
    ///
    /// Fails if an object lacks one of those fields or the port cannot be bound.
    pub async fn start(objects: Vec<Value>, opts: Options) -> io::Result<Server> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        Self::serve(listener, objects, opts)
    }

    /// Same as [`Server::start`] for tests without a runtime: the server gets a runtime of its
    /// own, which lives as long as the returned value.
    pub fn start_blocking(objects: Vec<Value>, opts: Options) -> io::Result<Server> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .thread_name("apiserver")
            .build()?;
        let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))?;
        let mut server = {
            let _guard = runtime.enter();
            Self::serve(listener, objects, opts)?
        };
        server.runtime = Some(runtime);
        Ok(server)
    }

    fn serve(
        listener: tokio::net::TcpListener,
        objects: Vec<Value>,
        opts: Options,
    ) -> io::Result<Server> {
        let mut extra = opts.extra_apis.clone();
        if let Some(v) = &opts.kueue_visibility {
            extra.push(format!("{}/{}", handler::VISIBILITY, v.version));
        }
        let (catalog, store) = store::load(objects, &extra)?;
        let addr = listener.local_addr()?;
        let reset = !opts.reset_connection.is_empty();
        let shared = Arc::new(handler::Shared {
            catalog,
            store,
            opts,
            address: addr.to_string(),
            log: Mutex::new(Vec::new()),
            throttled: Mutex::new(std::collections::HashMap::new()),
            streamed: Arc::new(std::sync::atomic::AtomicUsize::new(0)),
        });
        let app = axum::Router::new()
            .fallback(handler::handle)
            .with_state(Arc::clone(&shared));
        let (tx, rx) = oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            let shutdown = async {
                let _ = rx.await;
            };
            // Serving errors end the task; a test then sees connection errors, which is the
            // same thing a crashed API server would show.
            // A socket that lingers zero seconds is reset, not closed, when it is dropped.
            let listener = axum::serve::ListenerExt::tap_io(listener, move |io| {
                if reset {
                    let _ = io.set_zero_linger();
                }
            });
            let _ = axum::serve(listener, app)
                .with_graceful_shutdown(shutdown)
                .await;
        });
        Ok(Server {
            addr,
            shared,
            shutdown: Some(tx),
            task: Some(task),
            runtime: None,
        })
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The bound address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// A kubeconfig with one context, `test`, pointing at this server over plain HTTP with no
    /// credentials, and `namespace` as the context's namespace.
    pub fn kubeconfig(&self, namespace: &str) -> String {
        format!(
            "apiVersion: v1
kind: Config
clusters:
- name: test
  cluster:
    server: {url}
contexts:
- name: test
  context:
    cluster: test
    user: test
    namespace: {namespace:?}
current-context: test
users:
- name: test
  user: {{}}
preferences: {{}}
",
            url = self.url()
        )
    }

    /// Writes [`Server::kubeconfig`] to `path`.
    pub fn write_kubeconfig(&self, path: &Path, namespace: &str) -> io::Result<()> {
        std::fs::write(path, self.kubeconfig(namespace))
    }

    /// Every request answered so far, in the order the answers were made.
    pub fn requests(&self) -> Vec<RequestRecord> {
        self.shared
            .log
            .lock()
            .map(|l| l.clone())
            .unwrap_or_default()
    }

    /// Bytes of `huge` answers sent so far (what clients read before they hung up, plus what
    /// the network buffers held).
    pub fn bytes_streamed(&self) -> usize {
        self.shared
            .streamed
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Stops accepting connections, lets open ones finish (at most 5 s) and frees the port.
    pub async fn stop(mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(mut task) = self.task.take()
            && tokio::time::timeout(Duration::from_secs(5), &mut task)
                .await
                .is_err()
        {
            task.abort();
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(task) = self.task.take() {
            task.abort();
        }
        if let Some(runtime) = self.runtime.take() {
            // shutdown_background never blocks, so dropping is safe inside async code too.
            runtime.shutdown_background();
        }
    }
}
