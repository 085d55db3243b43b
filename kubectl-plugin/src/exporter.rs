//! `kubectl layer exporter`: `scan` of the live cluster as a Prometheus target.
//!
//! Scrapes never read the cluster: one task scans (the same reads and diagnosis as `kubectl
//! layer scan -A`), then waits `--interval` after it ends, then scans again, so there is never
//! more than one scan at a time and a busy Prometheus (or several) cannot multiply the load on
//! the API server. `/metrics` answers with the last finished scan's series (`metrics.rs`) and
//! the exporter's own: whether the last scan worked, when the last good one ended, how long it
//! took, how many ran and failed. A failed scan keeps the last good series (their time says how
//! old they are) and sets `kubectl_layer_up` to 0; so does a scan that could judge nothing (its
//! lists of work all failed), and a scan loop that is not running: a panic in it ends it, `up`
//! is 0 from then on, and it starts again after `--interval` ([`supervise`]). A scan whose
//! reads partly failed is served with `kubectl_layer_scan_complete 0` and each failed read
//! named. Until the first scan ends, 503.
//!
//! Every scan connects anew: the reader's deadline covers one read, and a rotated service
//! account token or kubeconfig is picked up.
//!
//! The HTTP side and its limits (connections held, request and write timeouts) are
//! `httpd.rs`'s; a scrape is answered with the last scan's series shared, not copied.

use crate::httpd::{self, Reply};
use crate::{Failure, live, metrics};
use hyper::body::Bytes;
use kubectl_layer::cli::ExporterArgs;
use layer_core::{Engine, Options, ReadLimits};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// What the scans have produced so far.
#[derive(Default)]
struct State {
    /// The series of the last scan that worked, shared by every scrape that sends them.
    last_good: Option<Bytes>,
    /// When it ended, in seconds since the epoch.
    last_good_at: f64,
    /// Whether the last scan worked.
    up: bool,
    /// Whether the scan loop runs: `up` is 0 whenever it does not.
    running: bool,
    /// How long the last scan took, good or not.
    duration: Duration,
    scans: u64,
    failures: u64,
}

impl State {
    /// The whole answer to a scrape, in pieces (the last good series, then the exporter's
    /// own), or `None` before the first scan has ended.
    fn exposition(&self) -> Option<Vec<Bytes>> {
        if self.scans == 0 && self.running {
            return None;
        }
        let mut own = String::new();
        own_series(&mut own, self);
        Some(vec![
            self.last_good.clone().unwrap_or_default(),
            Bytes::from(own),
        ])
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
        "1 if the last scan read the cluster and the scan loop runs; 0 if the scan failed or \
         judged nothing, or the loop stopped (the series above are then those of the last scan \
         that worked).",
        u8::from(s.up && s.running).to_string(),
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
        let interval = args.interval;
        let (args, looping) = (Arc::new(args), state.clone());
        tokio::spawn(supervise(state.clone(), interval, move || {
            scan_forever(args.clone(), engine.clone(), looping.clone())
        }));
        let held = Arc::new(httpd::Held::default());
        httpd::serve(
            listener,
            httpd::Limits::DEFAULT,
            held,
            move |method, path| answer(&state, method, path),
        )
        .await;
        Ok(0)
    })
}

/// The answer to one request: /metrics, the index page, or why not.
fn answer(state: &Mutex<State>, method: &http::Method, path: &str) -> Reply {
    use http::StatusCode;
    let text = |status, s: &'static str| Reply {
        status,
        content_type: "text/plain; charset=utf-8",
        body: vec![Bytes::from_static(s.as_bytes())],
    };
    if method != http::Method::GET && method != http::Method::HEAD {
        return text(StatusCode::METHOD_NOT_ALLOWED, "only GET is served\n");
    }
    match path {
        "/metrics" => match lock(state).exposition() {
            Some(body) => Reply {
                status: StatusCode::OK,
                content_type: "text/plain; version=0.0.4; charset=utf-8",
                body,
            },
            None => text(
                StatusCode::SERVICE_UNAVAILABLE,
                "the first scan has not ended yet\n",
            ),
        },
        "/" => text(
            StatusCode::OK,
            "kubectl-layer exporter: the metrics are at /metrics\n",
        ),
        _ => text(
            StatusCode::NOT_FOUND,
            "not found: the metrics are at /metrics\n",
        ),
    }
}

fn lock(state: &Mutex<State>) -> std::sync::MutexGuard<'_, State> {
    state.lock().unwrap_or_else(|p| p.into_inner())
}

/// Run the scan loop that `start` makes, and make it anew after it ends (a panic ends it):
/// while it is not running, `up` is 0 and stays 0 until a scan of the next loop works, so a
/// dead loop never goes on serving its last figures as current.
async fn supervise<F, L>(state: Arc<Mutex<State>>, interval: Duration, mut start: F)
where
    F: FnMut() -> L,
    L: std::future::Future<Output = ()> + Send + 'static,
{
    loop {
        lock(&state).running = true;
        let ended = tokio::spawn(start()).await;
        {
            let mut s = lock(&state);
            s.running = false;
            s.up = false;
        }
        let why = match ended {
            Err(e) if e.is_panic() => panic_message(e.into_panic()),
            _ => "it ended".to_string(),
        };
        eprintln!(
            "exporter: the scan loop stopped ({}); kubectl_layer_up is 0, and it starts again in {}s",
            layer_core::render::for_terminal(&why),
            interval.as_secs()
        );
        tokio::time::sleep(interval).await;
    }
}

/// What a panic said, when it said it in words.
fn panic_message(payload: Box<dyn std::any::Any + Send>) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".to_string())
}

/// Scan, record, wait, forever: one scan at a time, whatever the scrapes do.
async fn scan_forever(args: Arc<ExporterArgs>, engine: Arc<Engine>, state: Arc<Mutex<State>>) {
    loop {
        let started = Instant::now();
        let outcome = scan_once(&args, &engine).await.map(Bytes::from);
        let duration = started.elapsed();
        let number = {
            let mut s = lock(&state);
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
        let report = layer_core::target::scan_lines(&engine, &ix, &opts, namespace.as_deref());
        judged(&report)?;
        let unreadable = ix.bundle().meta().map_or(0, |m| m.unreadable.len());
        Ok(metrics::exposition(&report, ix.len(), unreadable))
    })
    .await
    .map_err(|e| Failure::new(3, "internal", format!("the scan stopped: {e}")))?
}

/// A scan that could judge nothing (its lists of work failed) fails as an unreachable cluster
/// does: its totals of zero would read as an all-clear.
fn judged(report: &layer_core::scan_lines::ScanLines) -> Result<(), Failure> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// What a scrape is answered with now, as one text.
    fn served(state: &Mutex<State>) -> String {
        let parts = lock(state).exposition().expect("served");
        parts.iter().map(|b| String::from_utf8_lossy(b)).collect()
    }

    /// Polls `state` every few milliseconds until `done` holds (at most 10 s).
    async fn until(state: &Mutex<State>, done: impl Fn(&State) -> bool) {
        let start = Instant::now();
        while !done(&lock(state)) {
            assert!(start.elapsed() < Duration::from_secs(10), "timed out");
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    /// A scan loop that panics right after a good scan: `up` is 0 as soon as it is gone (the
    /// good series stay, with their time), and stays 0 after it is made again until a scan of
    /// the new loop works. A loop that dies before any scan ends is served as down, not as
    /// "not ready yet".
    #[test]
    fn up_goes_0_when_the_scan_loop_dies() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        rt.block_on(async {
            let state = Arc::new(Mutex::new(State::default()));
            let loops = Arc::new(AtomicUsize::new(0));
            let (looping, counted) = (state.clone(), loops.clone());
            tokio::spawn(supervise(
                state.clone(),
                Duration::from_millis(300),
                move || {
                    let (state, n) = (looping.clone(), counted.fetch_add(1, Ordering::SeqCst));
                    async move {
                        if n == 1 {
                            tokio::time::sleep(Duration::from_millis(100)).await;
                            {
                                let mut s = lock(&state);
                                s.scans += 1;
                                s.up = true;
                                s.last_good =
                                    Some(Bytes::from_static(b"kubectl_layer_scan_objects 7\n"));
                            }
                            tokio::time::sleep(Duration::from_millis(200)).await;
                        }
                        if n < 2 {
                            panic!("a bug in scan {n}");
                        }
                        std::future::pending::<()>().await
                    }
                },
            ));
            // The first loop dies before any scan: down, not 503.
            until(&state, |s| !s.running && loops.load(Ordering::SeqCst) == 1).await;
            let body = served(&state);
            assert!(body.contains("kubectl_layer_up 0\n"), "{body}");
            // The second scans once, then dies: down at once, its series kept.
            until(&state, |s| s.running && loops.load(Ordering::SeqCst) == 2).await;
            assert!(lock(&state).exposition().is_none(), "no scan yet: 503");
            until(&state, |s| s.scans == 1 && s.up).await;
            let body = served(&state);
            assert!(body.contains("kubectl_layer_up 1\n"), "{body}");
            until(&state, |s| !s.running).await;
            let body = served(&state);
            assert!(body.contains("kubectl_layer_up 0\n"), "{body}");
            assert!(body.contains("kubectl_layer_scan_objects 7\n"), "{body}");
            // Made again, it is up only once a scan of its own works.
            until(&state, |s| s.running && loops.load(Ordering::SeqCst) == 3).await;
            let body = served(&state);
            assert!(body.contains("kubectl_layer_up 0\n"), "{body}");
        });
    }
}
