//! `cargo xtask lab bench`: the tool live at scale against the full lab (issue 39, point 5).
//! kwok serves `--nodes` GPU nodes; `--pods` one-GPU pods go through the real Kueue into a
//! ClusterQueue holding a quarter of the nodes' GPUs, so Kueue admits that many and gates the
//! rest: a backlog, written by the real Kueue, scheduler and kwok. Then, as the reader:
//! - `scan -A` against its floor, the lab's kubectl reading the same objects (`kubectl get
//!   <the kinds scan read> -A -o json`, and by name what scan read by name): wall time, requests
//!   and peak memory (RSS, from GNU time), and that memory against the JSON scan read;
//! - `why` on a gated pod deep in the backlog against the kubectl commands a person runs to
//!   find the same (listed in [`by_hand`]).
//!
//! Requests: the tool's own trace (`KUBECTL_LAYER_TRACE=1`, a line a request, each page
//! counted) and kubectl's `-v=6` (a `"Response"` line a request), each in a run of its own,
//! since logging costs time. kubectl's discovery cache is warmed first, as a user's is. Figures
//! are ratios against the floor measured in the same run; nothing is asserted.

use super::cluster::{self, Lab};
use super::procs;
use crate::{output, tools};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// How large a backlog: nodes and pods.
#[derive(Clone, Copy)]
pub struct Size {
    pub nodes: usize,
    pub pods: usize,
}

/// The size `cargo xtask bench` runs, and the one `lab test --tier full` runs in CI.
pub const FULL: Size = Size {
    nodes: 1_000,
    pods: 20_000,
};
pub const SMALL: Size = Size {
    nodes: 50,
    pods: 500,
};

/// Pods per namespace (each with its LocalQueue), as teams share a cluster.
const PODS_PER_NAMESPACE: usize = 1_000;
const QUEUE: &str = "bench";

impl Size {
    /// GPUs of quota: a quarter of what the nodes hold, so most of the work waits.
    fn quota(self) -> usize {
        self.nodes * cluster::GPUS_PER_NODE as usize / 4
    }
    fn namespaces(self) -> Vec<String> {
        let n = self.pods.div_ceil(PODS_PER_NAMESPACE).max(1);
        (0..n).map(|i| format!("bench-{i:02}")).collect()
    }
}

/// One measured process: wall time, peak RSS, the bytes it printed, what it logged.
struct Run {
    secs: f64,
    rss_kb: u64,
    out_bytes: u64,
    log: String,
}

/// Run the benchmark on the running full lab; its report in Markdown, and the summary lines.
/// `make`: false measures the backlog the lab holds as it is (`--measure-only`), never
/// making or deleting it.
pub fn run(
    lab: &Lab,
    size: Size,
    rounds: usize,
    make: bool,
) -> Result<(String, Vec<String>), String> {
    tools::ensure(&[tools::Tool::GnuTime])?;
    let tool = crate::target_dir().join("release/kubectl-layer");
    crate::run(crate::cargo().args(["build", "--quiet", "--release", "-p", "kubectl-layer"]))?;
    let start = Instant::now();
    let made = make && populate(lab, size)?;
    let settled = made.then(|| start.elapsed().as_secs_f64());
    let figures = measure(lab, &tool, size, rounds)?;
    Ok(report(size, settled, &figures))
}

/// Pods a creator sends in one `kubectl create` (one request each), and creators at once:
/// the API server and Kueue's webhook are the bound, and they serve requests side by side
/// (measured on 2 busy cores: 14 pods/s from one creator, 43/s from eight).
const PODS_PER_CREATOR: usize = 250;
const CREATORS: usize = 8;

/// The nodes, the queue, the pods; back once Kueue has judged every pod and the admitted ones
/// run. A backlog of this size already judged (an earlier run's, in the running lab) is kept:
/// making it again costs minutes and changes no figure. True if it was made now.
fn populate(lab: &Lab, size: Size) -> Result<bool, String> {
    let kwok = procs::read(&lab.dir)
        .into_iter()
        .find(|p| p.name == "kwok")
        .ok_or("the lab runs no kwok: `cargo xtask lab up --tier full`")?;
    cluster::nodes(lab, &kwok, size.nodes)?;
    if settled(lab, size).unwrap_or(false) {
        eprintln!(
            "    the backlog of {} pods is there already: kept",
            size.pods
        );
        return Ok(false);
    }
    // A run before this one's objects would change every count: gone first, waited for.
    let mut gone = vec![
        "delete",
        "--ignore-not-found",
        "--timeout=600s",
        "clusterqueue/bench",
    ];
    let namespaces: Vec<String> = size
        .namespaces()
        .iter()
        .map(|n| format!("namespace/{n}"))
        .collect();
    gone.extend(namespaces.iter().map(String::as_str));
    lab.kubectl_out(&gone)?;
    cluster::apply(lab, "bench-queues", &queues(size))?;
    let started = Instant::now();
    create_pods(lab, size)?;
    eprintln!(
        "    {} pods created: {:.0} s",
        size.pods,
        started.elapsed().as_secs_f64()
    );
    procs::wait(
        &lab.dir,
        &kwok,
        "Kueue's verdict on every pod",
        1_800,
        || settled(lab, size).unwrap_or(false),
    )?;
    Ok(true)
}

/// The pods, in files of [`PODS_PER_CREATOR`], sent by [`CREATORS`] `kubectl create` at once.
fn create_pods(lab: &Lab, size: Size) -> Result<(), String> {
    let names = size.namespaces();
    let files: Vec<PathBuf> = (0..size.pods)
        .collect::<Vec<_>>()
        .chunks(PODS_PER_CREATOR)
        .enumerate()
        .map(|(i, ids)| {
            let pods: Vec<Value> = ids
                .iter()
                .map(|&n| pod(&names[n / PODS_PER_NAMESPACE], n))
                .collect();
            let path = lab.dir.join(format!("bench-pods-{i:03}.json"));
            let list = json!({"apiVersion": "v1", "kind": "List", "items": pods});
            std::fs::write(&path, list.to_string())
                .map(|()| path)
                .map_err(|e| e.to_string())
        })
        .collect::<Result<_, String>>()?;
    let next = std::sync::Mutex::new(files.iter());
    std::thread::scope(|s| {
        let creators: Vec<_> = (0..CREATORS)
            .map(|_| {
                s.spawn(|| {
                    loop {
                        // Taken in a statement of its own: the lock is released before the
                        // request, so the creators send side by side.
                        let taken = next.lock().map_err(|_| "a creator panicked")?.next();
                        let Some(p) = taken else { break };
                        let mut c = lab.kubectl();
                        c.args(["create", "-o", "name", "-f"]).arg(p);
                        // One line of what went wrong, not one per pod.
                        output(&mut c, "kubectl create (bench pods)")
                            .map_err(|e| e.lines().take(3).collect::<Vec<_>>().join("\n"))?;
                    }
                    Ok::<(), String>(())
                })
            })
            .collect();
        creators
            .into_iter()
            .try_for_each(|h| h.join().map_err(|_| "a creator panicked".to_string())?)
    })
}

/// Kueue has a Workload for every pod, admitted as many as the quota holds, and those run.
fn settled(lab: &Lab, size: Size) -> Result<bool, String> {
    let cq: Value =
        serde_json::from_str(&lab.kubectl_out(&["get", "clusterqueue", QUEUE, "-o", "json"])?)
            .map_err(|e| e.to_string())?;
    let admitted = cq["status"]["admittedWorkloads"].as_u64().unwrap_or(0) as usize;
    let pending = cq["status"]["pendingWorkloads"].as_u64().unwrap_or(0) as usize;
    let want = size.quota().min(size.pods);
    if admitted != want || admitted + pending != size.pods {
        return Ok(false);
    }
    let running = lab.kubectl_out(&[
        "get",
        "pods",
        "-A",
        "-l",
        "app=bench",
        "--field-selector=status.phase=Running",
        "-o",
        "name",
    ])?;
    Ok(running.lines().count() == want)
}

/// The flavor of the kwok nodes, the ClusterQueue holding a quarter of their GPUs, and a
/// LocalQueue in each namespace.
fn queues(size: Size) -> String {
    let mut docs = vec![
        json!({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor",
            "metadata": {"name": "bench-h100"},
            "spec": {"nodeLabels": {"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3"}}}),
        json!({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue",
            "metadata": {"name": QUEUE},
            "spec": {"namespaceSelector": {}, "resourceGroups": [{
                "coveredResources": ["cpu", "memory", "nvidia.com/gpu"],
                "flavors": [{"name": "bench-h100", "resources": [
                    {"name": "cpu", "nominalQuota": size.quota()},
                    {"name": "memory", "nominalQuota": format!("{}Gi", size.quota())},
                    {"name": "nvidia.com/gpu", "nominalQuota": size.quota()}]}]}]}}),
    ];
    for ns in size.namespaces() {
        docs.push(json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}}));
        docs.push(
            json!({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue",
            "metadata": {"name": QUEUE, "namespace": ns}, "spec": {"clusterQueue": QUEUE}}),
        );
    }
    json!({"apiVersion": "v1", "kind": "List", "items": docs}).to_string()
}

/// A training pod of one GPU sent to Kueue (its pod integration gates it until admitted). No
/// Job owns it, so kwok keeps it running once admitted.
fn pod(ns: &str, n: usize) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": format!("train-{n:05}"), "namespace": ns,
            "labels": {"app": "bench", "kueue.x-k8s.io/queue-name": QUEUE}},
        "spec": {"restartPolicy": "Never", "containers": [{"name": "train",
            "image": "registry.k8s.io/pause:3.10",
            "resources": {"requests": {"cpu": "1", "memory": "1Gi"},
                "limits": {"nvidia.com/gpu": "1"}}}]}})
}

/// Every figure of one run.
struct Figures {
    scan: Run,
    scan_requests: usize,
    scan_read_bytes: u64,
    floor: Run,
    floor_requests: usize,
    /// `scan -f` of the floor's JSON: the same objects read offline, and that file's size.
    offline: Run,
    offline_file: u64,
    why: Run,
    why_requests: usize,
    why_target: String,
    by_hand: Run,
    by_hand_requests: usize,
    by_hand_commands: usize,
}

fn measure(lab: &Lab, tool: &Path, size: Size, rounds: usize) -> Result<Figures, String> {
    let reader = lab.layer();
    let cache = lab.dir.join("bench-kube-cache");
    let kubectl = |args: &[String], verbose: bool| {
        let mut c = Command::new(lab.dir.join("bin/kubectl"));
        c.arg("--kubeconfig")
            .arg(&reader)
            .arg("--cache-dir")
            .arg(&cache)
            .args(args);
        if verbose {
            c.arg("-v=6");
        }
        c
    };
    let layer = |args: &[&str]| {
        let mut c = Command::new(tool);
        c.env("KUBECONFIG", &reader)
            .env("KUBECTL_LAYER_TRACE", "1")
            .args(args);
        c
    };
    let scan = best(rounds, || timed(&mut layer(&["scan", "-A", "-o", "json"])))?;
    let (scan_requests, scan_read_bytes) = traced(&scan.log);
    let floor_cmds = floor(&scan.log);
    // The floor in one process when it can be (one `kubectl get` of every kind); what scan
    // read by name is a second `kubectl get`.
    let _ = timed(&mut kubectl(&floor_cmds[0], false))?; // warms kubectl's discovery cache
    let floor = best(rounds, || {
        sum(floor_cmds.iter().map(|a| timed(&mut kubectl(a, false))))
    })?;
    let floor_requests = sum_requests(floor_cmds.iter().map(|a| timed(&mut kubectl(a, true))))?;
    // The same lists, once, kept in a file for the tool to read offline: what of scan's
    // memory is the live reader's, and what the engine's on any input.
    let file = lab.dir.join("bench-floor.json");
    saved(&mut kubectl(&floor_cmds[0], false), &file)?;
    let offline_file = std::fs::metadata(&file).map_err(|e| e.to_string())?.len();
    let file_arg = file.display().to_string();
    let offline = best(rounds, || {
        timed(&mut layer(&["scan", "-A", "-o", "json", "-f", &file_arg]))
    })?;
    let last_ns = size.namespaces().pop().unwrap_or_default();
    let target = format!("train-{:05}", size.pods - 1);
    let why = best(rounds, || {
        timed(&mut layer(&["why", &target, "-n", &last_ns]))
    })?;
    let (why_requests, _) = traced(&why.log);
    let hand = by_hand(&last_ns, &target, QUEUE);
    let by_hand_run = best(rounds, || {
        sum(hand.iter().map(|a| timed(&mut kubectl(a, false))))
    })?;
    let by_hand_requests = sum_requests(hand.iter().map(|a| timed(&mut kubectl(a, true))))?;
    Ok(Figures {
        scan,
        scan_requests,
        scan_read_bytes,
        floor,
        floor_requests,
        offline,
        offline_file,
        why,
        why_requests,
        why_target: format!("Pod/{last_ns}/{target}"),
        by_hand: by_hand_run,
        by_hand_requests,
        by_hand_commands: hand.len(),
    })
}

/// The kubectl commands a person runs to learn what `why` says of a pod Kueue holds: the pod
/// and its events, its Workload (found by listing the namespace's), the queues and the flavor
/// it names, and the nodes' GPUs (is there room at all?).
fn by_hand(ns: &str, pod: &str, queue: &str) -> Vec<Vec<String>> {
    let cmds: [&[&str]; 7] = [
        &["describe", "pod", pod, "-n", ns],
        &["get", "workloads.kueue.x-k8s.io", "-n", ns, "-o", "json"],
        &[
            "describe",
            "workloads.kueue.x-k8s.io",
            "-n",
            ns,
            &format!("pod-{pod}"),
        ],
        &["get", "localqueue", queue, "-n", ns, "-o", "yaml"],
        &["describe", "clusterqueue", queue],
        &["get", "resourceflavors", "-o", "yaml"],
        &[
            "get",
            "nodes",
            "-o",
            "custom-columns=NAME:.metadata.name,GPU:.status.allocatable.nvidia\\.com/gpu",
        ],
    ];
    cmds.iter()
        .map(|c| c.iter().map(|s| s.to_string()).collect())
        .collect()
}

/// One request of the tool's trace: its resource (`pods`, `workloads.kueue.x-k8s.io`), the
/// namespace and name it asked for, if any, and the bytes of its answer.
struct Traced {
    resource: String,
    namespace: Option<String>,
    name: Option<String>,
    bytes: u64,
}

/// A trace line's request; None for discovery and subresources.
fn traced_read(line: &str) -> Option<Traced> {
    let rest = line.strip_prefix("GET ")?;
    let path = rest.split_whitespace().next()?.split('?').next()?;
    let bytes = answer_bytes(line).unwrap_or(0);
    let parts: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    let (group, rest) = match parts.as_slice() {
        ["api", "v1", rest @ ..] => (String::new(), rest),
        ["apis", group, _version, rest @ ..] => (format!(".{group}"), rest),
        _ => return None,
    };
    let (namespace, rest) = match rest {
        ["namespaces", ns, tail @ ..] if !tail.is_empty() => (Some(ns.to_string()), tail),
        other => (None, other),
    };
    let (plural, name) = match rest {
        [plural] => (plural, None),
        [plural, name] => (plural, Some(name.to_string())),
        _ => return None,
    };
    Some(Traced {
        resource: format!("{plural}{group}"),
        namespace,
        name,
        bytes,
    })
}

/// `kubectl get` of what scan read, from its trace: every list in one command (`-A`), and
/// what it read by name (the integrations' CRDs) in a second.
fn floor(trace: &str) -> Vec<Vec<String>> {
    let mut lists: Vec<String> = Vec::new();
    let mut named: Vec<(String, String)> = Vec::new();
    // Cluster-wide reads only: `-A` covers a namespace's list, and scan -A reads no
    // namespaced object by name.
    let reads = trace.lines().filter_map(traced_read);
    for t in reads.filter(|t| t.namespace.is_none()) {
        match t.name {
            None => lists.push(t.resource),
            Some(name) => named.push((t.resource, name)),
        }
    }
    lists.sort();
    lists.dedup();
    let mut cmds = vec![vec![
        "get".into(),
        lists.join(","),
        "-A".into(),
        "-o".into(),
        "json".into(),
    ]];
    for (kind, name) in named {
        cmds.push(vec![
            "get".into(),
            format!("{kind}/{name}"),
            "-o".into(),
            "json".into(),
        ]);
    }
    cmds
}

/// The resources that answered the most bytes, largest first: `pods: 40 requests, 61.2 MB`.
fn largest_reads(trace: &str, top: usize) -> Vec<String> {
    let mut by: std::collections::BTreeMap<String, (usize, u64)> = Default::default();
    for t in trace.lines().filter_map(traced_read) {
        let e = by.entry(t.resource).or_default();
        e.0 += 1;
        e.1 += t.bytes;
    }
    let mut rows: Vec<_> = by.into_iter().collect();
    rows.sort_by(|a, b| b.1.1.cmp(&a.1.1).then_with(|| a.0.cmp(&b.0)));
    rows.into_iter()
        .take(top)
        .map(|(r, (n, bytes))| format!("{r}: {n} requests, {}", mb(bytes as f64)))
        .collect()
}

/// Requests and response bytes in the tool's trace (`GET <path> -> <n> bytes in …`).
fn traced(log: &str) -> (usize, u64) {
    let gets: Vec<&str> = log.lines().filter(|l| l.starts_with("GET ")).collect();
    let bytes = gets.iter().filter_map(|l| answer_bytes(l)).sum();
    (gets.len(), bytes)
}

/// The bytes of a traced answer (`GET <path> -> <n> bytes in …`).
fn answer_bytes(line: &str) -> Option<u64> {
    line.split("-> ").nth(1)?.split(' ').next()?.parse().ok()
}

/// Run `cmd` under GNU time: wall, peak RSS, output size. A failure (exit ≥ 2: `why`/`scan`
/// exit 1 when something blocks, as here) is an error with its standard error.
fn timed(cmd: &mut Command) -> Result<Run, String> {
    let stats = std::env::temp_dir().join(format!("kubectl-layer-bench-{}", std::process::id()));
    let program = cmd.get_program().to_owned();
    let mut timed = Command::new("/usr/bin/time");
    timed
        .args(["-f", "%e %M", "-o"])
        .arg(&stats)
        .arg(&program)
        .args(cmd.get_args());
    for (k, v) in cmd.get_envs() {
        if let Some(v) = v {
            timed.env(k, v);
        }
    }
    let out = timed
        .output()
        .map_err(|e| format!("{}: {e}", program.display()))?;
    let log = String::from_utf8_lossy(&out.stderr).into_owned();
    if out.status.code().is_none_or(|c| c >= 2) {
        return Err(format!(
            "{} {:?} failed: {log}",
            program.display(),
            cmd.get_args().collect::<Vec<_>>()
        ));
    }
    let text = std::fs::read_to_string(&stats).map_err(|e| e.to_string())?;
    let mut f = text.lines().last().unwrap_or_default().split_whitespace();
    let secs = f
        .next()
        .and_then(|s| s.parse().ok())
        .ok_or("GNU time: no wall time")?;
    let rss_kb = f
        .next()
        .and_then(|s| s.parse().ok())
        .ok_or("GNU time: no RSS")?;
    Ok(Run {
        secs,
        rss_kb,
        out_bytes: out.stdout.len() as u64,
        log,
    })
}

/// Run `cmd` with its standard output written to `path`.
fn saved(cmd: &mut Command, path: &Path) -> Result<(), String> {
    let out = std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let status = cmd
        .stdout(out)
        .status()
        .map_err(|e| format!("{:?}: {e}", cmd.get_program()))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!(
            "{:?} {:?}: {status}",
            cmd.get_program(),
            cmd.get_args().collect::<Vec<_>>()
        ))
    }
}

/// Several commands as one: times and output added, the largest RSS, logs joined.
fn sum(runs: impl Iterator<Item = Result<Run, String>>) -> Result<Run, String> {
    let mut all = Run {
        secs: 0.0,
        rss_kb: 0,
        out_bytes: 0,
        log: String::new(),
    };
    for r in runs {
        let r = r?;
        all.secs += r.secs;
        all.rss_kb = all.rss_kb.max(r.rss_kb);
        all.out_bytes += r.out_bytes;
        all.log.push_str(&r.log);
    }
    Ok(all)
}

/// Requests kubectl made (`-v=6`: one `"Response"` line each) over several commands.
fn sum_requests(runs: impl Iterator<Item = Result<Run, String>>) -> Result<usize, String> {
    Ok(sum(runs)?
        .log
        .lines()
        .filter(|l| l.contains("\"Response\""))
        .count())
}

/// The fastest of `rounds` runs.
fn best(rounds: usize, mut once: impl FnMut() -> Result<Run, String>) -> Result<Run, String> {
    let mut best = once()?;
    for _ in 1..rounds {
        let r = once()?;
        if r.secs < best.secs {
            best = r;
        }
    }
    Ok(best)
}

fn ratio(a: f64, b: f64) -> String {
    if b > 0.0 {
        format!("{:.2}×", a / b)
    } else {
        "n/a".into()
    }
}

fn mb(bytes: f64) -> String {
    format!("{:.1} MB", bytes / 1e6)
}

/// The Markdown section (between the markers `cargo xtask bench` keeps) and summary lines.
fn report(size: Size, settled: Option<f64>, x: &Figures) -> (String, Vec<String>) {
    let ready = match settled {
        Some(secs) => format!("ready {secs:.0} s after the nodes were asked for"),
        None => "made by an earlier run in the same lab".to_string(),
    };
    let read = x.scan_read_bytes as f64;
    let rss = |r: &Run| r.rss_kb as f64 * 1024.0;
    let summary = vec![
        format!(
            "live at scale ({} nodes, {} pods): scan -A ÷ kubectl get of the same kinds **{}** (goal ≤ 1.2×), peak memory ÷ the JSON it read **{}** (goal ≤ 2×)",
            size.nodes,
            size.pods,
            ratio(x.scan.secs, x.floor.secs),
            ratio(rss(&x.scan), read)
        ),
        format!(
            "live why on a gated pod: **{}** requests (goal ≤ 10) against {} for the {} kubectl commands it replaces",
            x.why_requests, x.by_hand_requests, x.by_hand_commands
        ),
    ];
    let row = |what: &str, r: &Run, req: usize| {
        format!(
            "| {what} | {:.2} s | {req} | {} | {} |\n",
            r.secs,
            mb(rss(r)),
            mb(r.out_bytes as f64)
        )
    };
    let section = format!(
        "{begin} written by `cargo xtask bench` or `cargo xtask lab bench --nodes {n} --pods {p} --write` -->\n\
         ## Live at scale: the lab\n\n\
         `cargo xtask lab bench --nodes {n} --pods {p}` on the full lab (issue 39): kwok serves {n} GPU nodes (8 each); {p} one-GPU pods go through the real Kueue (pod integration) into a ClusterQueue of {q} GPUs, so the real Kueue admits {q} (the real scheduler places them, kwok runs them) and holds the rest, gated: a Kueue backlog, {ready}. Everything runs as the least-privileged reader. Wall time and peak RSS from GNU time, best of the rounds; requests from the tool's trace (`KUBECTL_LAYER_TRACE=1`, every page) and kubectl's `-v=6`, in runs of their own. kubectl's discovery cache is warm, as a user's is; the tool has none and asks `/apis` each time.\n\n\
         | command | wall | requests | peak RSS | printed |\n|---|---:|---:|---:|---:|\n\
         {scan}{floor}{offline}{why}{hand}\n\
         - `scan -A` ÷ its floor (`kubectl get` of the {kinds} kinds scan read, `-A -o json`, and what it read by name): **{t}** wall (goal ≤ 1.2×); scan read {read} of JSON, its peak RSS is **{m}** of that (goal ≤ 2×), kubectl's {km}. The same objects offline (`scan -f` of the floor's {file} of JSON): peak RSS {om} of the file, so the live reader adds {live} to what the engine holds on any input. Largest reads: {largest}.\n\
         - `why {target}` (deep in the backlog): **{wr}** requests (goal ≤ 10), {ws:.2} s, against {hr} requests and {hs:.2} s for the {hc} kubectl commands it replaces: `describe pod`, `get workloads -n` (to find the pod's), `describe workload`, `get localqueue`, `describe clusterqueue`, `get resourceflavors`, `get nodes` with their GPUs.\n\
         {end}\n",
        begin = LIVE_SECTION.0,
        end = LIVE_SECTION.1,
        n = size.nodes,
        p = size.pods,
        q = size.quota(),
        scan = row("`kubectl layer scan -A -o json`", &x.scan, x.scan_requests),
        floor = row(
            "floor: `kubectl get … -A -o json`",
            &x.floor,
            x.floor_requests
        ),
        offline = row(
            "offline: `kubectl layer scan -f <the floor's JSON>`",
            &x.offline,
            0
        ),
        why = row("`kubectl layer why <pod>`", &x.why, x.why_requests),
        hand = row(
            "the same by hand (kubectl, 7 commands)",
            &x.by_hand,
            x.by_hand_requests
        ),
        kinds = floor(&x.scan.log)[0][1].split(',').count(),
        t = ratio(x.scan.secs, x.floor.secs),
        read = mb(read),
        m = ratio(rss(&x.scan), read),
        km = ratio(rss(&x.floor), read),
        file = mb(x.offline_file as f64),
        om = ratio(rss(&x.offline), x.offline_file as f64),
        live = mb(rss(&x.scan) - rss(&x.offline)),
        largest = largest_reads(&x.scan.log, 4).join("; "),
        target = x.why_target,
        wr = x.why_requests,
        ws = x.why.secs,
        hr = x.by_hand_requests,
        hs = x.by_hand.secs,
        hc = x.by_hand_commands,
    );
    (section, summary)
}

/// The markers of this section in docs/benchmarks.md.
pub const LIVE_SECTION: (&str, &str) = ("<!-- live-lab:", "<!-- /live-lab -->");

#[cfg(test)]
mod tests {
    use super::*;

    const TRACE: &str = "\
GET /apis -> 5120 bytes in 3 ms
GET /api/v1/pods?limit=500 -> 1500000 bytes in 90 ms (the pods)
GET /api/v1/pods?limit=500&continue=abc -> 700000 bytes in 40 ms (the pods)
GET /apis/kueue.x-k8s.io/v1beta2/workloads?limit=500 -> 900000 bytes in 60 ms (Workload: quota)
GET /api/v1/nodes?resourceVersion=0 -> 300000 bytes in 20 ms (Node: capacity)
GET /apis/apiextensions.k8s.io/v1/customresourcedefinitions/jobsets.jobset.x-k8s.io -> 4000 bytes in 2 ms
GET /apis/visibility.kueue.x-k8s.io/v1beta1/clusterqueues/bench/pendingworkloads -> 100 bytes in 2 ms
GET /api/v1/namespaces/team-a/pods?limit=500 -> 10 bytes in 1 ms
";

    #[test]
    fn the_floor_reads_every_list_once_and_each_named_object() {
        let cmds = floor(TRACE);
        assert_eq!(
            cmds[0],
            [
                "get",
                "nodes,pods,workloads.kueue.x-k8s.io",
                "-A",
                "-o",
                "json"
            ]
        );
        assert_eq!(
            cmds[1],
            [
                "get",
                "customresourcedefinitions.apiextensions.k8s.io/jobsets.jobset.x-k8s.io",
                "-o",
                "json"
            ]
        );
        assert_eq!(cmds.len(), 2);
    }

    #[test]
    fn the_largest_reads_add_up_pages_per_resource() {
        assert_eq!(
            largest_reads(TRACE, 2),
            [
                "pods: 3 requests, 2.2 MB",
                "workloads.kueue.x-k8s.io: 1 requests, 0.9 MB"
            ]
        );
        assert_eq!(traced(TRACE), (8, 3_409_230));
    }
}
