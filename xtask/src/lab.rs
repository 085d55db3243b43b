//! `cargo xtask lab up|down|status|env|test`: a real Kubernetes control plane on 127.0.0.1 for
//! the live tests, built from the Go module proxy (see `build`) and run from
//! `<target-dir>/lab`. Tiers:
//! - `bare`: etcd and kube-apiserver (TLS, RBAC, aggregated discovery), with the CRDs of
//!   Kueue, JobSet and LWS from their module zips;
//! - `core`: bare, plus kube-controller-manager, kube-scheduler and kwok serving `--nodes N`
//!   fake GPU nodes;
//! - `full`: core, plus the Kueue, JobSet and LWS controllers with their webhooks on loopback
//!   (see `controllers`), and KAI-Scheduler's components (see `kai`; `--no-kai` leaves them
//!   out, and their ~7 CPU-minutes of cold build with them).
//!
//! `up` writes `kubeconfig` (cluster admin) and `kubeconfig-layer` (only the role `kubectl
//! layer rbac` prints) and returns once the API server is ready (and, for core, the nodes);
//! `down` stops what `up` started, by the ids in the pid file.

mod bench;
pub mod build;
mod cluster;
mod controllers;
mod kai;
mod pki;
mod procs;
mod replay;
mod stages;

use crate::{cargo, run, target_dir, tools};
use cluster::Lab;
use std::path::{Path, PathBuf};

const HELP: &str = "\
cargo xtask lab <command>

  up [--tier bare|core|full] [--nodes N] [--jobset-after-kueue] [--no-kai]
          build what the tier needs (cached in ~/.cache/kubectl-layer-lab, or
          $KUBECTL_LAYER_LAB_CACHE) and start it on 127.0.0.1; default: core, 4 nodes;
          --jobset-after-kueue (full): no JobSet, for the test that installs it after Kueue;
          --no-kai (full): without KAI-Scheduler's components (every tier installs its CRDs)
  build [--tier bare|core|full] [--no-kai]
          only build (or find cached) what the tier runs
  down    stop every process `up` started (by the ids it recorded)
  status  what runs
  env     shell lines: KUBECONFIG, KUBECTL_LAYER_LAB and the lab's kubectl first on PATH
          (eval \"$(cargo xtask lab env)\")
  test [--tier core|full] [--no-kai]
          up (default core), the live tests against it (full: and `bench` at 50 nodes,
          500 pods, figures printed), down
  replay  up a bare lab, write every scenario, incident and fit cluster into it and
          check the live verdicts against the offline ones (docs/lab.md), down
  bench [--nodes N] [--pods M] [--rounds R] [--quick] [--measure-only] [--write]
          a Kueue backlog of M one-GPU pods on N kwok nodes, then scan -A and why against
          the kubectl reads they replace (default 1000 nodes, 20000 pods, 3 rounds; --quick:
          50 nodes, 500 pods, 1 round). Uses the running full lab, or starts one (full tier
          without KAI) and stops it after; a backlog of that size already made is measured
          again, not remade (--measure-only: whatever the running lab holds, as it is).
          --write puts the figures in docs/benchmarks.md
";

/// What a lab runs: each tier adds to the one before.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Tier {
    Bare,
    Core,
    Full,
}

impl Tier {
    fn parse(s: &str) -> Result<Tier, String> {
        match s {
            "bare" => Ok(Tier::Bare),
            "core" => Ok(Tier::Core),
            "full" => Ok(Tier::Full),
            _ => Err(format!("unknown tier `{s}` (bare, core, full)")),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Tier::Bare => "bare",
            Tier::Core => "core",
            Tier::Full => "full",
        }
    }
}

pub fn from_args(args: &[String]) -> Result<(), String> {
    let flag = |name: &str| args.iter().skip_while(|a| *a != name).nth(1);
    let tier = flag("--tier").map_or(Ok(Tier::Core), |t| Tier::parse(t))?;
    let nodes = match flag("--nodes") {
        Some(n) => n
            .parse()
            .map_err(|_| format!("--nodes {n}: not a number"))?,
        None => 4,
    };
    let late = args.iter().any(|a| a == "--jobset-after-kueue");
    let kai = with_kai(args.iter().any(|a| a == "--no-kai"), tier)?;
    match args.first().map(String::as_str) {
        Some("build") => build::ensure(tier, kai).map(|_| ()),
        Some("up") => up(tier, nodes, late, kai).map(|_| ()),
        Some("down") => down(),
        Some("status") => status(),
        Some("env") => env(),
        Some("test") => test(tier, nodes, kai),
        Some("replay") => replay::replay(),
        Some("bench") => bench_cmd(args),
        Some("help" | "-h" | "--help") | None => {
            print!("{HELP}");
            Ok(())
        }
        Some(other) => Err(format!("unknown lab command `{other}`\n\n{HELP}")),
    }
}

/// Whether the lab runs KAI-Scheduler's components: the full tier does, unless `--no-kai`.
fn with_kai(no_kai: bool, tier: Tier) -> Result<bool, String> {
    match (tier, no_kai) {
        (Tier::Full, no) => Ok(!no),
        (_, true) => Err("--no-kai: only the full tier runs KAI".into()),
        (_, false) => Ok(false),
    }
}

/// What `<lab>/with` records of a lab that runs KAI (the live tests read it).
const WITH_KAI: &str = "kai";

fn lab() -> Lab {
    Lab {
        dir: target_dir().join("lab"),
    }
}

/// The tier a running lab was started with; None when nothing it started still runs.
fn running(lab: &Lab) -> Option<String> {
    let up = procs::read(&lab.dir).iter().any(procs::alive);
    let tier = std::fs::read_to_string(lab.dir.join("tier")).ok();
    up.then(|| tier.unwrap_or_default().trim().to_string())
}

/// Whether the lab in `lab` was started with KAI.
fn runs_kai(lab: &Lab) -> bool {
    std::fs::read_to_string(lab.dir.join("with")).is_ok_and(|w| w.lines().any(|l| l == WITH_KAI))
}

/// Start a lab of `tier` (with KAI if `kai`); true if this call started it (false: the same lab
/// already ran).
fn up(tier: Tier, nodes: usize, jobset_late: bool, kai: bool) -> Result<bool, String> {
    let lab = lab();
    if let Some(t) = running(&lab) {
        if t == tier.name() && runs_kai(&lab) == kai {
            eprintln!("==> lab: already up ({t}) in {}", lab.dir.display());
            return Ok(false);
        }
        let with = if runs_kai(&lab) { " (with KAI)" } else { "" };
        return Err(format!(
            "a {t} lab{with} runs in {}: `cargo xtask lab down` first",
            lab.dir.display()
        ));
    }
    tools::ensure(&[tools::Tool::Openssl])?;
    let bins = build::ensure(tier, kai)?;
    let start = std::time::Instant::now();
    timed("certificates", || fresh(&lab, &bins))?;
    let started = start_tier(&lab, &bins, tier, nodes, jobset_late).and_then(|()| {
        if kai {
            timed("KAI-Scheduler", || kai::start(&lab, &bins))?;
        }
        Ok(())
    });
    if let Err(e) = started {
        let _ = procs::stop_all(&lab.dir);
        return Err(format!("{e}\n(logs in {})", lab.dir.join("logs").display()));
    }
    let with = if kai { WITH_KAI } else { "" };
    std::fs::write(lab.dir.join("with"), with).map_err(|e| e.to_string())?;
    std::fs::write(lab.dir.join("tier"), tier.name()).map_err(|e| e.to_string())?;
    eprintln!(
        "==> lab: {} up in {:.0} s; `eval \"$(cargo xtask lab env)\"` to use it",
        tier.name(),
        start.elapsed().as_secs_f64()
    );
    Ok(true)
}

/// An empty lab directory with new certificates and `bin/` linking the tier's binaries (what
/// `env` puts on PATH: the lab's own kubectl, the server's version).
fn fresh(lab: &Lab, bins: &build::Bins) -> Result<(), String> {
    let _ = procs::stop_all(&lab.dir);
    let _ = std::fs::remove_dir_all(&lab.dir);
    let bin = lab.dir.join("bin");
    std::fs::create_dir_all(&bin).map_err(|e| format!("{}: {e}", bin.display()))?;
    for name in bins.names() {
        std::os::unix::fs::symlink(bins.path(name), bin.join(name)).map_err(|e| e.to_string())?;
    }
    pki::make(&lab.dir.join("pki"))
}

fn start_tier(
    lab: &Lab,
    bins: &build::Bins,
    tier: Tier,
    nodes: usize,
    jobset_late: bool,
) -> Result<(), String> {
    let (_, etcd_port) = cluster::etcd(lab, bins)?;
    cluster::apiserver(lab, bins, etcd_port)?;
    timed("reader role and CRDs established", || {
        cluster::reader_role(lab)?;
        cluster::crds(lab, tier == Tier::Full && jobset_late)
    })?;
    if tier >= Tier::Core {
        cluster::controller_manager(lab, bins)?;
        cluster::scheduler(lab, bins)?;
        let kwok = cluster::kwok(lab, bins)?;
        cluster::nodes(lab, &kwok, nodes)?;
    }
    if tier == Tier::Full {
        timed("controllers", || {
            controllers::start_all(lab, bins, jobset_late)
        })?;
    }
    Ok(())
}

/// Run a step and print how long it took (start-up time is part of the lab's cost in CI).
fn timed(what: &str, step: impl FnOnce() -> Result<(), String>) -> Result<(), String> {
    let start = std::time::Instant::now();
    step()?;
    eprintln!("    {what}: {:.1} s", start.elapsed().as_secs_f64());
    Ok(())
}

fn down() -> Result<(), String> {
    let lab = lab();
    if procs::read(&lab.dir).is_empty() {
        eprintln!(
            "==> lab: nothing recorded in {}",
            procs::pid_file(&lab.dir).display()
        );
    }
    procs::stop_all(&lab.dir)?;
    let _ = std::fs::remove_file(lab.dir.join("tier"));
    let _ = std::fs::remove_file(lab.dir.join("with"));
    Ok(())
}

fn status() -> Result<(), String> {
    let lab = lab();
    let recorded = procs::read(&lab.dir);
    if recorded.is_empty() {
        println!("lab: down ({})", lab.dir.display());
        return Ok(());
    }
    let tier = std::fs::read_to_string(lab.dir.join("tier")).unwrap_or_else(|_| "starting".into());
    let with = if runs_kai(&lab) { " with KAI" } else { "" };
    println!("lab: {}{with} in {}", tier.trim(), lab.dir.display());
    for p in &recorded {
        let state = if procs::alive(p) { "running" } else { "exited" };
        println!("  {:<24} pid {:<8} {state}", p.name, p.pid);
    }
    let ready = lab.kubectl_out(&["get", "--raw", "/readyz"]);
    println!(
        "  /readyz: {}",
        ready.as_deref().map_or("unreachable", str::trim)
    );
    if let Ok(nodes) = lab.kubectl_out(&["get", "nodes", "--no-headers"]) {
        let ready = nodes
            .lines()
            .filter(|l| l.split_whitespace().nth(1) == Some("Ready"))
            .count();
        println!("  nodes: {} ({ready} Ready)", nodes.lines().count());
    }
    Ok(())
}

/// The shell lines that point a terminal at the lab.
fn env() -> Result<(), String> {
    let lab = lab();
    if running(&lab).is_none() {
        return Err("the lab is not up: `cargo xtask lab up`".into());
    }
    print!("{}", env_lines(&lab.dir));
    Ok(())
}

fn env_lines(dir: &Path) -> String {
    let q = |p: PathBuf| format!("'{}'", p.display().to_string().replace('\'', "'\\''"));
    format!(
        "export KUBECONFIG={}\nexport KUBECTL_LAYER_LAB={}\nexport PATH={}:\"$PATH\"\n",
        q(dir.join("kubeconfig")),
        q(dir.to_path_buf()),
        q(dir.join("bin"))
    )
}

/// `up`, the live tests with `KUBECTL_LAYER_LAB` set (each skips, saying so, below the tier
/// it needs), then `down` if this call started the lab, whatever the tests said.
fn test(tier: Tier, nodes: usize, kai: bool) -> Result<(), String> {
    let started = up(tier, nodes, false, kai)?;
    let lab = lab();
    // One at a time: the tests share the lab's nodes, and each compares every field of two
    // reads of them, which another test's pods would make differ.
    let result = live_tests(
        &lab,
        &[
            "lab::",
            "lab_faults::",
            "lab_course::",
            "lab_doors::",
            "lab_kai::",
            "--test-threads=1",
        ],
    );
    // The benchmark at CI's size: it runs, and its figures are printed; nothing is asserted.
    let result = result.and_then(|()| {
        if tier < Tier::Full {
            return Ok(());
        }
        let (_, summary) = bench::run(&lab, bench::SMALL, 1, true)?;
        summary.iter().for_each(|s| eprintln!("==> lab bench: {s}"));
        Ok(())
    });
    if started {
        down()?;
    }
    result?;
    if tier == Tier::Full {
        jobset_after_kueue(started, nodes)?;
    }
    Ok(())
}

/// The course's "JobSet installed after Kueue" needs a lab of its own, where Kueue starts
/// without JobSet: up with `--jobset-after-kueue` (and no KAI, which it does not need), that
/// one test, down.
fn jobset_after_kueue(fresh: bool, nodes: usize) -> Result<(), String> {
    if !fresh {
        eprintln!(
            "==> lab: JobSet-after-Kueue skipped: it needs a lab of its own, and one was already up"
        );
        return Ok(());
    }
    up(Tier::Full, nodes, true, false)?;
    let result = run(cargo()
        .args(["test", "-p", "kubectl-layer", "--test", "cli", "--"])
        .args(["lab_course::jobset_installed_after_kueue", "--nocapture"])
        .env("KUBECTL_LAYER_LAB", lab().dir));
    down()?;
    result
}

/// `lab bench`: the benchmark, printed (and with `--write`, put in docs/benchmarks.md), on
/// the running full lab or on one started for it (see [`bench_in_lab`]).
fn bench_cmd(args: &[String]) -> Result<(), String> {
    let number = |name: &str, default: usize| -> Result<usize, String> {
        match args.iter().skip_while(|a| *a != name).nth(1) {
            Some(n) => n.parse().map_err(|_| format!("{name} {n}: not a number")),
            None => Ok(default),
        }
    };
    let quick = args.iter().any(|a| a == "--quick");
    let (base, rounds) = if quick {
        (bench::SMALL, 1)
    } else {
        (bench::FULL, 3)
    };
    let size = bench::Size {
        nodes: number("--nodes", base.nodes)?,
        pods: number("--pods", base.pods)?,
    };
    let make = !args.iter().any(|a| a == "--measure-only");
    let (section, summary) = bench_in_lab(size, number("--rounds", rounds)?, make)?;
    print!("{section}");
    summary.iter().for_each(|s| eprintln!("==> lab bench: {s}"));
    if args.iter().any(|a| a == "--write") {
        write_section(&section)?;
    }
    Ok(())
}

/// The benchmark in a full lab: the one running, or one started here with `size`'s nodes and
/// stopped after. A lab of another tier is an error, not stopped (it is someone's). Full, not
/// core: the backlog must be judged by the real Kueue (its webhook gates the pods, its
/// controller writes the Workloads and admits), which only the full tier runs. Without KAI:
/// its scheduler snapshots every pod each second, load the benchmark would measure.
fn bench_in_lab(
    size: bench::Size,
    rounds: usize,
    make: bool,
) -> Result<(String, Vec<String>), String> {
    let lab = lab();
    let started = match running(&lab).as_deref() {
        Some("full") => false,
        Some(other) => {
            return Err(format!(
                "lab bench needs a full lab and a {other} lab runs: `cargo xtask lab down` first"
            ));
        }
        None => up(Tier::Full, size.nodes, false, false)?,
    };
    let result = bench::run(&lab, size, rounds, make);
    if started {
        down()?;
    }
    result
}

/// docs/benchmarks.md with its live section replaced by `section` (added at the end if none).
fn write_section(section: &str) -> Result<(), String> {
    let path = crate::root().join("docs/benchmarks.md");
    let old = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let (begin, end) = bench::LIVE_SECTION;
    let kept = match (old.find(begin), old.find(end)) {
        (Some(a), Some(z)) if a < z => format!("{}{}", &old[..a], &old[z + end.len()..]),
        _ => old,
    };
    std::fs::write(&path, format!("{}\n\n{section}", kept.trim_end()))
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// For `cargo xtask bench`: the benchmark at full size (see [`bench_in_lab`]); its section
/// and summary lines.
pub fn bench_at_scale() -> Result<(String, Vec<String>), String> {
    bench_in_lab(bench::FULL, 3, true)
}

/// The CLI's live tests whose names contain one of `filters`, against `lab`. The filters go
/// after `--`: cargo takes one, the test binary several.
fn live_tests(lab: &Lab, filters: &[&str]) -> Result<(), String> {
    run(cargo()
        .args(["test", "-p", "kubectl-layer", "--test", "cli", "--"])
        .args(filters)
        .arg("--nocapture")
        .env("KUBECTL_LAYER_LAB", &lab.dir))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_quotes_paths_for_the_shell() {
        let text = env_lines(Path::new("/t/it's/lab"));
        assert_eq!(
            text,
            "export KUBECONFIG='/t/it'\\''s/lab/kubeconfig'\n\
             export KUBECTL_LAYER_LAB='/t/it'\\''s/lab'\n\
             export PATH='/t/it'\\''s/lab/bin':\"$PATH\"\n"
        );
    }

    #[test]
    fn kai_runs_in_the_full_tier_unless_left_out() {
        assert_eq!(with_kai(false, Tier::Full), Ok(true));
        assert_eq!(with_kai(true, Tier::Full), Ok(false));
        assert_eq!(with_kai(false, Tier::Core), Ok(false));
        assert!(with_kai(true, Tier::Bare).is_err());
    }

    #[test]
    fn tiers_parse() {
        assert_eq!(Tier::parse("bare"), Ok(Tier::Bare));
        assert_eq!(Tier::parse("core"), Ok(Tier::Core));
        assert_eq!(Tier::parse("full"), Ok(Tier::Full));
        assert!(Tier::parse("huge").is_err());
    }
}
