//! `kubectl layer exporter`: `scan` of the live cluster as a Prometheus target.
//!
//! Scrapes never read the cluster: one task scans (the same reads and diagnosis as `kubectl
//! layer scan -A`), then waits `--interval` after it ends, then scans again, so there is never
//! more than one scan at a time and a busy Prometheus (or several) cannot multiply the load on
//! the API server. `/metrics` answers with the last finished scan's series (`metrics.rs`) and
//! the exporter's own: whether the last scan worked, when the last good one ended, how long it
//! took, how many ran and failed. A failed scan keeps the last good series (their time says how
//! old they are) and sets `kubectl_layer_up` to 0; so does a scan that could judge nothing (its
//! lists of work all failed). A scan whose reads partly failed is served with
//! `kubectl_layer_scan_complete 0` and each failed read named. Until the first scan ends, 503.
//!
//! Every scan connects anew: the reader's deadline covers one read, and a rotated service
//! account token or kubeconfig is picked up.

use crate::{Failure, live, metrics};
use kubectl_layer::cli::ExporterArgs;
use layer_core::{Engine, Options, ReadLimits};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// What the scans have produced so far.
#[derive(Default)]
struct State {
    /// The series of the last scan that worked.
    last_good: Option<String>,
    /// When it ended, in seconds since the epoch.
    last_good_at: f64,
    /// Whether the last scan worked.
    up: bool,
    /// How long the last scan took, good or not.
    duration: Duration,
    scans: u64,
    failures: u64,
}

impl State {
    /// The whole answer to a scrape, or `None` before the first scan has ended.
    fn exposition(&self) -> Option<String> {
        if self.scans == 0 {
            return None;
        }
        let mut out = self.last_good.clone().unwrap_or_default();
        own_series(&mut out, self);
        Some(out)
    }
}

/// The exporter's own series.
fn own_series(out: &mut String, s: &State) {
    let gauge = |out: &mut String, name: &str, help: &str, v: String| {
        metrics::family(out, name, help);
        metrics::sample(out, name, &[], v);
    };
    let counter = |out: &mut String, name: &str, help: &str, v: u64| {
        metrics::family_of(out, name, help, "counter");
        metrics::sample(out, name, &[], v);
    };
    gauge(
        out,
        "kubectl_layer_up",
        "1 if the last scan read the cluster, 0 if it failed (the series above are then those of \
         the last scan that worked).",
        u8::from(s.up).to_string(),
    );
    gauge(
        out,
        "kubectl_layer_scan_duration_seconds",
        "How long the last scan took: reading the cluster and diagnosing.",
        format!("{:.3}", s.duration.as_secs_f64()),
    );
    gauge(
        out,
        "kubectl_layer_scan_timestamp_seconds",
        "When the last scan that worked ended (0: none has).",
        format!("{:.3}", s.last_good_at),
    );
    counter(
        out,
        "kubectl_layer_scans_total",
        "Scans run since the exporter started.",
        s.scans,
    );
    counter(
        out,
        "kubectl_layer_scan_failures_total",
        "Scans that could not read the cluster.",
        s.failures,
    );
}

/// Serve until killed.
pub fn serve(args: ExporterArgs) -> Result<u8, Failure> {
    crate::live_namespace(args.namespace.as_deref())?;
    let engine = Arc::new(crate::engine()?);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| Failure::new(3, "cluster", format!("cannot start the runtime: {e}")))?;
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::bind(args.listen)
            .await
            .map_err(|e| Failure::new(2, "usage", format!("--listen {}: {e}", args.listen)))?;
        let addr = listener
            .local_addr()
            .map_err(|e| Failure::new(2, "usage", format!("--listen {}: {e}", args.listen)))?;
        eprintln!("exporter: serving http://{addr}/metrics");
        let state = Arc::new(Mutex::new(State::default()));
        tokio::spawn(scan_forever(args, engine, state.clone()));
        let app = axum::Router::new()
            .route("/metrics", axum::routing::get(scrape))
            .route("/", axum::routing::get(index))
            .with_state(state);
        axum::serve(listener, app)
            .await
            .map_err(|e| Failure::new(2, "io", format!("serving {addr}: {e}")))?;
        Ok(0)
    })
}

async fn index() -> &'static str {
    "kubectl-layer exporter: the metrics are at /metrics\n"
}

async fn scrape(
    axum::extract::State(state): axum::extract::State<Arc<Mutex<State>>>,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    let answer = state.lock().map(|s| s.exposition()).unwrap_or(None);
    match answer {
        Some(body) => (
            [(
                http::header::CONTENT_TYPE,
                "text/plain; version=0.0.4; charset=utf-8",
            )],
            body,
        )
            .into_response(),
        None => (
            http::StatusCode::SERVICE_UNAVAILABLE,
            "the first scan has not ended yet\n",
        )
            .into_response(),
    }
}

/// Scan, record, wait, forever: one scan at a time, whatever the scrapes do.
async fn scan_forever(args: ExporterArgs, engine: Arc<Engine>, state: Arc<Mutex<State>>) {
    loop {
        let started = Instant::now();
        let outcome = scan_once(&args, &engine).await;
        let duration = started.elapsed();
        let number = {
            let mut s = state.lock().unwrap_or_else(|p| p.into_inner());
            s.scans += 1;
            s.duration = duration;
            s.up = outcome.is_ok();
            match &outcome {
                Ok(series) => {
                    s.last_good = Some(series.clone());
                    s.last_good_at = SystemTime::now()
                        .duration_since(UNIX_EPOCH)
                        .map_or(0.0, |d| d.as_secs_f64());
                }
                Err(_) => s.failures += 1,
            }
            s.scans
        };
        // One line per scan, so a log (and the tests) can follow the exporter.
        match outcome {
            Ok(_) => eprintln!(
                "exporter: scan {number} done in {:.1}s",
                duration.as_secs_f64()
            ),
            Err(f) => eprintln!(
                "exporter: scan {number} failed: error[{}]: {}",
                f.code,
                layer_core::render::for_terminal(&f.message)
            ),
        }
        tokio::time::sleep(args.interval).await;
    }
}

/// One scan of the cluster, as exposition text.
async fn scan_once(args: &ExporterArgs, engine: &Arc<Engine>) -> Result<String, Failure> {
    let opts = live::ConnectOptions {
        kubeconfig: args.live.kubeconfig.clone(),
        context: args.live.context.clone(),
        timeout: args.live.request_timeout,
        progress: false,
        server_version: false,
    };
    let limits = ReadLimits {
        max_bytes: args.max_input_bytes,
        ..Default::default()
    };
    let cluster = Arc::new(live::Cluster::connect(&opts).await?);
    let collected = cluster
        .collect_scan(args.namespace.as_deref(), limits)
        .await?;
    let engine = engine.clone();
    let namespace = args.namespace.clone();
    let threads = args.threads;
    // Diagnosing is CPU work: off the threads that answer scrapes.
    tokio::task::spawn_blocking(move || {
        let ix = collected.index;
        let opts = Options { now: None, threads };
        let report = layer_core::target::scan_namespace(&engine, &ix, &opts, namespace.as_deref());
        judged(&report)?;
        let unreadable = ix.bundle().meta().map_or(0, |m| m.unreadable.len());
        Ok(metrics::exposition(&report, ix.len(), unreadable))
    })
    .await
    .map_err(|e| Failure::new(3, "internal", format!("the scan stopped: {e}")))?
}

/// A scan that could judge nothing (its lists of work failed) fails as an unreachable cluster
/// does: its totals of zero would read as an all-clear.
fn judged(report: &layer_core::ScanReport) -> Result<(), Failure> {
    let Some(i) = report.incomplete.as_ref().filter(|i| i.nothing_judged) else {
        return Ok(());
    };
    let reads: Vec<String> = i
        .reads
        .iter()
        .map(|r| {
            let m = &r.read;
            format!("{}: {}", m.resource.as_deref().unwrap_or(&m.kind), m.why)
        })
        .collect();
    Err(Failure::new(
        3,
        "cluster",
        format!("nothing could be judged: {}", reads.join("; ")),
    ))
}
