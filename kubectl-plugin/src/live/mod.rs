//! Reading a live cluster with kube-rs: what `why`, `scan` and `bundle` do without `-f`.
//!
//! The reader never judges: it collects objects as the API server prints them and hands them
//! to the core like a file. What it could not read goes into the bundle's `unreadable` list, so
//! a forbidden or failing read makes a layer `unknown` instead of stopping the diagnosis. Only a
//! cluster that cannot be reached at all (or a target that cannot be read) ends with exit
//! status 3.
//!
//! One job per file, in the order a read runs:
//! - [`connect`]: the kubeconfig (or the in-cluster service account), the client, discovery of
//!   the APIs the tool reads;
//! - [`rounds`]: which requests to make, round after round, from the plan (`plan.rs`, itself
//!   the core's kinds table) and from what earlier rounds found;
//! - [`fetch`]: one request (a GET, or a list page by page) bounded in time, its failure worded
//!   for `missing`, and a round of requests run together;
//! - [`request`]: the one place a request's URI is written: every namespace and name checked
//!   as the API server checks them, every resource checked against `kubectl layer rbac`;
//! - [`links`]: what the answers say about each object that the next round needs (identity,
//!   owners, node), read once per answer;
//! - [`visibility`]: Kueue's own order of each ClusterQueue's pending Workloads, where the
//!   cluster serves its visibility API, asked once the ClusterQueues are known;
//! - [`assemble`]: every answer, in the order the reads were planned, read by the core once into
//!   the bundle and index the diagnosis uses.

mod assemble;
mod connect;
mod fetch;
mod links;
mod progress;
mod request;
mod rounds;
mod visibility;

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use kube::Client;
use kube::discovery::ApiResource;
use layer_core::Index;

pub use connect::ConnectOptions;

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

/// A namespace the user gave, checked as every request checks it ([`request`]): refused with
/// where it came from (`source`: `-n/--namespace`, an MCP argument) and what is wrong with it,
/// exit status 2.
pub fn check_namespace(source: &str, value: &str) -> Result<(), crate::Failure> {
    request::namespace(value).map_err(|e| usage(source, e))
}

/// A target the user named (`source`: `TARGET`, an MCP argument): its name, and the namespace
/// its `KIND/NAMESPACE/NAME` form may carry.
pub fn check_target(source: &str, spec: &layer_core::TargetSpec) -> Result<(), crate::Failure> {
    if let Some(ns) = &spec.namespace {
        check_namespace(source, ns)?;
    }
    request::name(&spec.name).map_err(|e| usage(source, e))
}

fn usage(source: &str, e: request::Refused) -> crate::Failure {
    crate::Failure::new(2, "usage", format!("{source}: {e}"))
}

/// A connected cluster with its discovered APIs.
pub struct Cluster {
    client: Client,
    url: String,
    pub default_namespace: String,
    pub context: Option<String>,
    pub server_version: Option<String>,
    /// Each kind the server offers among those the tool reads, at one version, and whether
    /// it is namespaced.
    apis: Vec<(ApiResource, bool)>,
    group_versions: BTreeSet<String>,
    deadline: Instant,
    timeout: Duration,
    progress: progress::Progress,
    /// `KUBECTL_LAYER_TRACE=1`: print every request and its outcome on stderr.
    trace: bool,
}

/// The outcome of a live read, ready for the core.
pub struct Collected {
    pub index: Index,
    /// Requests made, a paginated list counted once.
    pub requests: usize,
}
