//! `kubectl-layer`: the command line. Reads a bundle (a file, standard input, or the live
//! cluster through `live.rs`), asks the core for a diagnosis and prints it. All judgement lives
//! in the core; this file only parses arguments, reads input and chooses a rendering.

mod live;
mod plan;
mod redact;

use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};
use layer_core::render::{self, Style};
use layer_core::{Bundle, Engine, Index, LayerState, Options, ReadLimits, TargetSpec};
use std::io::{IsTerminal, Read, Write};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

// Diagnosing builds and drops many small JSON values: with mimalloc a scan of 100k pods takes
// about 0.7 of its time with the system allocator (docs/benchmarks.md).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

const EXIT_HELP: &str = "\
Exit status:
  0  diagnosed, and nothing blocks or warns
  1  diagnosed, and a layer blocks or warns
  2  bad usage, unreadable input, or target not found
  3  the cluster could not be read";

/// `why --help`'s examples (the kinds to collect quoted from the core's one list) and exit codes.
fn why_after_help() -> String {
    format!(
        "Examples:
  kubectl layer why trainer-0 -n ml
  kubectl layer why jobset/llm-pretrain -n research -o markdown
  kubectl get {} -A -o json > bundle.json
  kubectl layer why trainer-0 -n ml -f bundle.json
  kubectl layer why lws/vllm-70b -n serving -f bundle.yaml -o markdown
  cat bundle.json | kubectl layer why job/trainer -f -

{EXIT_HELP}",
        layer_core::bundle::GET_KINDS
    )
}

/// Name the layer before you name the tool.
///
/// Who gets a GPU, and when, is decided by layers: device (device plugin, DRA), admission
/// (Kueue), grouping (JobSet, LeaderWorkerSet), placement (kube-scheduler, KAI-Scheduler),
/// runtime (RuntimeClass, sandbox) and serving (Dynamo, llm-d). kubectl-layer reads the objects
/// those layers write and says which layer blocked the work, the observation that proves it,
/// where two layers disagree, and what to look at next.
#[derive(Parser, Debug)]
#[command(name = "kubectl-layer", bin_name = "kubectl layer", version, after_long_help = EXIT_HELP, max_term_width = 100)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Explain why one pod (or Job, JobSet, LeaderWorkerSet, Workload …) is not running.
    ///
    /// Without -f it reads the cluster of the current kubeconfig context, fetching only what
    /// this target's diagnosis needs.
    #[command(after_long_help = why_after_help())]
    Why(WhyArgs),
    /// List every piece of work that is not running, grouped by the layer that blocks it.
    ///
    /// Lists each top-level Job, JobSet, LeaderWorkerSet, Deployment, StatefulSet,
    /// DynamoGraphDeployment and ownerless Workload that is not fully running, and each pod
    /// without such an owner that is neither Running-and-Ready nor Succeeded.
    ///
    /// Without -f it reads the cluster: the context's namespace, or every namespace with -A.
    #[command(after_long_help = EXIT_HELP)]
    Scan(ScanArgs),
    /// Write the bundle `why` reads for a target, redacted, to attach to an issue.
    ///
    /// The output is what -f and the web page read. Redacted: Secret data, environment
    /// variable values (names kept), ConfigMap data except keys the rules read, managedFields,
    /// the last-applied-configuration annotation, and annotation values outside the domains
    /// the rules read.
    ///
    /// Example:
    ///   kubectl layer bundle job/trainer -n ml > trainer-bundle.json
    #[command(after_long_help = EXIT_HELP, verbatim_doc_comment)]
    Bundle(BundleArgs),
    /// Print shell completions: `source <(kubectl-layer completion bash)`.
    Completion {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Print the read-only ClusterRole that lists every read the tool makes.
    Rbac,
    /// Print the six layers: the question each answers, who decides, where it shows.
    Layers,
    /// List the rules (id, layer, severity, summary).
    Rules {
        /// Only the rules of this layer.
        #[arg(short, long, value_parser = parse_layer)]
        layer: Option<layer_core::Layer>,
        /// Output format.
        #[arg(short, long, value_enum, default_value_t = ListFormat::Text)]
        output: ListFormat,
    },
    /// Print one rule's documentation: what it detects, why, the fix and where to report.
    Explain {
        /// Rule id, e.g. placement/insufficient-extended-resource.
        rule: String,
        /// Output format.
        #[arg(short, long, value_enum, default_value_t = ListFormat::Text)]
        output: ListFormat,
    },
}

#[derive(Args, Debug)]
struct Input {
    /// Read the bundle from FILE instead of the cluster (`-` for standard input). Accepts
    /// `kubectl get … -o json` or `-o yaml` output (Lists, single objects, several documents
    /// one after another) and `kubectl layer bundle` files. Repeat to merge several files.
    #[arg(short = 'f', long = "filename", value_name = "FILE")]
    files: Vec<String>,
    /// Reason as if it were this time (RFC 3339). Default: the bundle's collection time, else
    /// its newest timestamp.
    #[arg(long, value_name = "TIME", value_parser = parse_now)]
    now: Option<String>,
    /// Refuse inputs larger than this many bytes.
    #[arg(long, value_name = "BYTES", default_value_t = 2 << 30)]
    max_input_bytes: usize,
    /// Refuse inputs that nest arrays and objects deeper than this (Kubernetes objects stay
    /// far below the default; at most 512 for JSON, 128 for YAML).
    #[arg(long, value_name = "LEVELS", default_value_t = ReadLimits::DEFAULT_MAX_DEPTH,
          value_parser = parse_depth)]
    max_depth: usize,
    /// Threads to index and diagnose on; 0 means one per core. The output is the same for any
    /// number.
    #[arg(short = 'j', long, value_name = "N", default_value_t = 0)]
    threads: usize,
}

/// How to reach the cluster when no -f is given (kubectl's flags).
#[derive(Args, Debug, Clone)]
struct Live {
    /// Path to the kubeconfig file (default: $KUBECONFIG, which may list several files, then
    /// ~/.kube/config, then the in-cluster service account).
    #[arg(long, value_name = "FILE")]
    kubeconfig: Option<std::path::PathBuf>,
    /// The kubeconfig context to use.
    #[arg(long, value_name = "NAME")]
    context: Option<String>,
    /// Give up on the cluster after this long, for each request and for the whole read
    /// (`30s`, `2m`, or seconds). What did not arrive in time is listed under `missing`.
    #[arg(long, value_name = "DURATION", default_value = "60s", value_parser = parse_duration)]
    request_timeout: Duration,
}

fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let (num, unit) = match s.find(|c: char| c.is_ascii_alphabetic()) {
        Some(i) => s.split_at(i),
        None => (s, "s"),
    };
    let n: f64 = num
        .parse()
        .map_err(|_| format!("`{s}` is not a duration like 30s, 2m or 1h"))?;
    let secs = match unit {
        "ms" => n / 1000.0,
        "s" => n,
        "m" => n * 60.0,
        "h" => n * 3600.0,
        _ => return Err(format!("`{s}`: unknown unit `{unit}` (use ms, s, m or h)")),
    };
    if secs.is_nan() || secs <= 0.0 {
        return Err(format!("`{s}` must be more than zero"));
    }
    if secs >= 1e7 {
        return Err(format!("`{s}` is too long: at most 1e7 s (about 115 days)"));
    }
    Ok(Duration::from_secs_f64(secs))
}

#[derive(Args, Debug)]
struct BundleArgs {
    /// What to collect for: NAME (a pod) or KIND/NAME.
    target: String,
    /// Namespace of the target (default: the context's).
    #[arg(short, long)]
    namespace: Option<String>,
    #[command(flatten)]
    live: Live,
    /// Refuse answers larger than this many bytes in all.
    #[arg(long, value_name = "BYTES", default_value_t = 2 << 30)]
    max_input_bytes: usize,
}

#[derive(Args, Debug)]
struct WhyArgs {
    /// What to explain: NAME (a pod) or KIND/NAME (kubectl spellings: pod, job, jobset, lws,
    /// workload, dgd, deployment, sts …).
    target: String,
    /// Namespace of the target. Live, the context's namespace by default; offline, it may be
    /// left out when the name is unique.
    #[arg(short, long)]
    namespace: Option<String>,
    #[command(flatten)]
    input: Input,
    #[command(flatten)]
    live: Live,
    /// Output format.
    #[arg(short, long, value_enum, default_value_t = Format::Text)]
    output: Format,
}

#[derive(Args, Debug)]
struct ScanArgs {
    /// Only this namespace.
    #[arg(short, long, conflicts_with = "all_namespaces")]
    namespace: Option<String>,
    /// Every namespace (the default offline).
    #[arg(short = 'A', long)]
    all_namespaces: bool,
    #[command(flatten)]
    input: Input,
    #[command(flatten)]
    live: Live,
    /// Output format.
    #[arg(short, long, value_enum, default_value_t = ScanFormat::Text)]
    output: ScanFormat,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    Text,
    Json,
    Markdown,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum ScanFormat {
    Text,
    Json,
    Markdown,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum ListFormat {
    Text,
    Json,
    Markdown,
}

/// A failure with its exit status and stable code.
pub(crate) struct Failure {
    pub exit: u8,
    pub code: &'static str,
    pub message: String,
    /// Lines to print under the message (commands to try), each escaped like it.
    pub hints: Vec<String>,
}

impl From<live::LiveError> for Failure {
    fn from(e: live::LiveError) -> Self {
        Failure {
            exit: 3,
            code: "cluster",
            message: e.to_string(),
            hints: Vec::new(),
        }
    }
}

/// Connect to the cluster and run `f` on a runtime made for it.
fn with_cluster<T>(
    live: &Live,
    progress: bool,
    f: impl AsyncFnOnce(Arc<live::Cluster>) -> Result<T, Failure>,
) -> Result<T, Failure> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| Failure {
            exit: 3,
            code: "cluster",
            message: format!("cannot start the network runtime: {e}"),
            hints: Vec::new(),
        })?;
    let opts = live::ConnectOptions {
        kubeconfig: live.kubeconfig.clone(),
        context: live.context.clone(),
        timeout: live.request_timeout,
        progress,
    };
    rt.block_on(async {
        let cluster = Arc::new(live::Cluster::connect(&opts).await?);
        f(cluster).await
    })
}

impl From<layer_core::Error> for Failure {
    fn from(e: layer_core::Error) -> Self {
        Failure {
            exit: 2,
            code: e.code(),
            message: e.to_string(),
            hints: Vec::new(),
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let mut stdout = std::io::stdout().lock();
    let color = std::io::stdout().is_terminal()
        && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    let style = Style { color };
    match run(cli, style, &mut stdout) {
        Ok(code) => ExitCode::from(code),
        Err(f) => {
            let _ = stdout.flush();
            // Errors quote the input and the API server's words: shown, never obeyed.
            eprintln!(
                "error[{}]: {}",
                f.code,
                layer_core::render::for_terminal(&f.message)
            );
            for h in &f.hints {
                eprintln!("{}", layer_core::render::for_terminal(h));
            }
            ExitCode::from(f.exit)
        }
    }
}

/// `--max-depth` within what the reader can go: a larger number would be silently cut to 512,
/// and 0 would refuse every input.
fn parse_layer(s: &str) -> Result<layer_core::Layer, String> {
    layer_core::Layer::parse(&s.to_ascii_lowercase()).ok_or_else(|| {
        let all: Vec<&str> = layer_core::Layer::ALL.iter().map(|l| l.as_str()).collect();
        format!("`{s}` is not a layer; one of: {}", all.join(", "))
    })
}

fn parse_depth(s: &str) -> Result<usize, String> {
    let most = ReadLimits::MAX_DEPTH_JSON;
    match s.trim().parse::<usize>() {
        Ok(n) if (1..=most).contains(&n) => Ok(n),
        Ok(_) => Err(format!("`{s}` is out of range: 1 to {most}")),
        Err(_) => Err(format!("`{s}` is not a number of levels (1 to {most})")),
    }
}

/// `--now` must be a time: a typo must not silently turn every age-based rule off.
fn parse_now(s: &str) -> Result<String, String> {
    layer_core::time::parse_rfc3339(s)
        .map(|_| s.to_string())
        .ok_or_else(|| format!("`{s}` is not an RFC 3339 time like 2026-10-14T09:41:07Z"))
}

fn engine() -> Result<Engine, Failure> {
    Engine::builtin().map_err(|e| Failure {
        exit: 2,
        code: "rules",
        message: e.to_string(),
        hints: Vec::new(),
    })
}

fn run(cli: Cli, style: Style, out: &mut impl Write) -> Result<u8, Failure> {
    let write = |out: &mut dyn Write, s: &str| written(out.write_all(s.as_bytes()));
    match cli.command {
        Command::Why(args) => {
            let engine = engine()?;
            let mut spec = TargetSpec::parse(&args.target, args.namespace.as_deref());
            let ix = if args.input.files.is_empty() {
                let limits = args.input.limits();
                let (ix, ns) = with_cluster(&args.live, false, async |c| {
                    let ns = spec
                        .namespace
                        .clone()
                        .unwrap_or_else(|| c.default_namespace.clone());
                    Ok((c.collect_target(&spec, limits).await?.index, ns))
                })?;
                spec.namespace = Some(ns);
                ix
            } else {
                read_index(&args.input)?
            };
            let opts = Options {
                now: args.input.now.clone(),
                ..Options::default()
            };
            let d = layer_core::diagnose(&engine, &ix, &spec, &opts)
                .map_err(|e| not_found_with_commands(e.into(), &args.input.files))?;
            let body = match args.output {
                Format::Text => render::text(&d, style),
                Format::Json => json(&d),
                Format::Markdown => render::markdown(&d),
            };
            write(out, &body)?;
            Ok(exit_for(d.verdict.state))
        }
        Command::Scan(args) => {
            let engine = engine()?;
            let mut namespace = args.namespace.clone();
            let ix = if args.input.files.is_empty() {
                let limits = args.input.limits();
                let (ix, ns) = with_cluster(&args.live, true, async |c| {
                    let ns = match (&namespace, args.all_namespaces) {
                        (_, true) => None,
                        (Some(ns), _) => Some(ns.clone()),
                        (None, false) => Some(c.default_namespace.clone()),
                    };
                    Ok((c.collect_scan(ns.as_deref(), limits).await?.index, ns))
                })?;
                namespace = ns;
                ix
            } else {
                read_index(&args.input)?
            };
            let opts = Options {
                now: args.input.now.clone(),
                threads: args.input.threads,
            };
            let report =
                layer_core::target::scan_namespace(&engine, &ix, &opts, namespace.as_deref());
            match args.output {
                ScanFormat::Text => write(out, &render::scan_text(&report, style))?,
                ScanFormat::Markdown => write(out, &render::scan_markdown(&report))?,
                // Streamed: a large cluster's report is tens of MB, and growing one string
                // that size costs more than writing it.
                ScanFormat::Json => stream_json(out, &report)?,
            }
            let worst = report
                .diagnoses
                .iter()
                .map(|d| exit_for(d.verdict.state))
                .max()
                .unwrap_or(0);
            Ok(worst)
        }
        Command::Bundle(args) => {
            let spec = TargetSpec::parse(&args.target, args.namespace.as_deref());
            let limits = ReadLimits {
                max_bytes: args.max_input_bytes,
                ..Default::default()
            };
            let collected = with_cluster(&args.live, true, async |c| {
                c.collect_target(&spec, limits).await
            })?;
            let text = redact::bundle(&collected.index).map_err(|e| Failure {
                exit: 3,
                code: "cluster",
                message: format!("the cluster's answers: {e}"),
                hints: Vec::new(),
            })?;
            write(out, &text)?;
            let missing = collected
                .index
                .bundle()
                .meta()
                .map_or(0, |m| m.unreadable.len());
            eprintln!(
                "bundle: {} objects from {} requests, {} unreadable, redacted",
                collected.index.len(),
                collected.requests,
                missing
            );
            Ok(0)
        }
        Command::Completion { shell } => {
            let mut buf = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "kubectl-layer", &mut buf);
            write(out, &String::from_utf8_lossy(&buf))?;
            Ok(0)
        }
        Command::Rbac => {
            write(out, &plan::cluster_role())?;
            Ok(0)
        }
        Command::Layers => {
            write(out, LAYERS)?;
            Ok(0)
        }
        Command::Rules { layer, output } => {
            let engine = engine()?;
            let rules: Vec<&layer_core::rule::Rule> = engine
                .rules()
                .iter()
                .filter(|r| layer.is_none_or(|l| r.layer == l))
                .collect();
            let body = match output {
                ListFormat::Json => json(&rules.iter().map(|r| rule_json(r)).collect::<Vec<_>>()),
                ListFormat::Markdown => render::rules_markdown(&rules),
                ListFormat::Text => {
                    let mut s = String::new();
                    for r in rules {
                        let sev = render::rule_kind_label(r);
                        s.push_str(&format!(
                            "{:<56} {:<9} {:<8} {}\n",
                            r.id,
                            r.layer.as_str(),
                            sev,
                            r.summary
                        ));
                    }
                    s
                }
            };
            write(out, &body)?;
            Ok(0)
        }
        Command::Explain { rule, output } => {
            let engine = engine()?;
            let Some(r) = engine.rule(&rule).or_else(|| {
                engine
                    .rules()
                    .iter()
                    .find(|r| r.id.ends_with(&format!("/{rule}")))
            }) else {
                let mut close: Vec<&str> = engine
                    .rules()
                    .iter()
                    .map(|r| r.id.as_str())
                    .filter(|id| id.contains(rule.split('/').next_back().unwrap_or(&rule)))
                    .collect();
                close.truncate(5);
                let (message, hints) = if close.is_empty() {
                    (
                        format!("no rule `{rule}`; `kubectl layer rules` lists them"),
                        Vec::new(),
                    )
                } else {
                    (
                        format!("no rule `{rule}`; did you mean:"),
                        close
                            .iter()
                            .map(|id| format!("  kubectl layer explain {id}"))
                            .collect(),
                    )
                };
                return Err(Failure {
                    exit: 2,
                    code: "rule-not-found",
                    message,
                    hints,
                });
            };
            let body = match output {
                ListFormat::Json => json(&rule_json(r)),
                _ => layer_core::render::rule_doc(r),
            };
            write(out, &body)?;
            Ok(0)
        }
    }
}

/// A target that is not there, with the closest ones as whole commands to paste: the same
/// input (`-f` files) and another target.
fn not_found_with_commands(e: layer_core::Error, files: &[String]) -> Failure {
    let layer_core::Error::Target(layer_core::TargetError::NotFound { closest, .. }) = &e else {
        return e.into();
    };
    if closest.is_empty() {
        return e.into();
    }
    let input: String = files
        .iter()
        .map(|f| format!(" -f {}", layer_core::template::shell_quote(f)))
        .collect();
    let tries: Vec<String> = closest
        .iter()
        .map(|c| format!("  kubectl layer why {c}{input}"))
        .collect();
    Failure {
        exit: 2,
        code: e.code(),
        // The core's words (the npm package says the same), then each as a whole command.
        message: e.to_string(),
        hints: tries,
    }
}

fn exit_for(state: LayerState) -> u8 {
    match state {
        LayerState::Blocked | LayerState::Warn => 1,
        _ => 0,
    }
}

/// `v` as pretty JSON and a newline, written as it is serialized.
fn stream_json<T: serde::Serialize + ?Sized>(out: &mut dyn Write, v: &T) -> Result<(), Failure> {
    let mut w = std::io::BufWriter::with_capacity(1 << 16, out);
    let done = serde_json::to_writer_pretty(&mut w, v)
        .map_err(std::io::Error::from)
        .and_then(|()| w.write_all(b"\n"))
        .and_then(|()| w.flush());
    written(done)
}

/// The outcome of writing the output. A closed pipe (`| head`) is not an error.
fn written(done: std::io::Result<()>) -> Result<(), Failure> {
    match done {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(Failure {
            exit: 2,
            code: "io",
            message: e.to_string(),
            hints: Vec::new(),
        }),
        Ok(()) => Ok(()),
    }
}

fn json<T: serde::Serialize + ?Sized>(v: &T) -> String {
    let mut s = serde_json::to_string_pretty(v).unwrap_or_default();
    s.push('\n');
    s
}

fn rule_json(r: &layer_core::rule::Rule) -> layer_core::render::RuleInfo {
    layer_core::render::rule_info(r)
}

impl Input {
    fn limits(&self) -> ReadLimits {
        ReadLimits {
            max_bytes: self.max_input_bytes,
            max_depth: self.max_depth,
        }
    }
}

fn read_index(input: &Input) -> Result<Index, Failure> {
    let limits = input.limits();
    let mut bundle: Option<Bundle> = None;
    for f in &input.files {
        let text = if f == "-" {
            let mut s = String::new();
            std::io::stdin()
                .read_to_string(&mut s)
                .map_err(|e| Failure {
                    exit: 2,
                    code: "io",
                    message: format!("standard input: {e}"),
                    hints: Vec::new(),
                })?;
            s
        } else {
            let meta = std::fs::metadata(f).map_err(|e| Failure {
                exit: 2,
                code: "io",
                message: format!("{f}: {e}"),
                hints: Vec::new(),
            })?;
            if meta.is_dir() {
                return Err(Failure {
                    exit: 2,
                    code: "usage",
                    message: format!(
                        "{f} is a directory: -f takes a file (repeat -f for several, or pipe \
                         them in with `cat {f}/*.json | kubectl layer … -f -`)"
                    ),
                    hints: Vec::new(),
                });
            }
            if meta.len() as usize > input.max_input_bytes {
                return Err(layer_core::Error::from(layer_core::BundleError::TooLarge {
                    size: meta.len() as usize,
                    limit: input.max_input_bytes,
                })
                .into());
            }
            std::fs::read_to_string(f).map_err(|e| Failure {
                exit: 2,
                code: "io",
                message: format!("{f}: {e}"),
                hints: Vec::new(),
            })?
        };
        let b = Bundle::parse_with(text, limits).map_err(|e| {
            let mut fail: Failure = layer_core::Error::from(e).into();
            fail.message = format!(
                "{}: {}",
                if f == "-" { "standard input" } else { f },
                fail.message
            );
            fail
        })?;
        match &mut bundle {
            Some(acc) => acc.merge(b),
            None => bundle = Some(b),
        }
    }
    Ok(Index::build(
        bundle.expect("at least one file"),
        input.threads,
    ))
}

const LAYERS: &str = "\
layer      question it answers                          who decides (examples)                         where its decision shows
device     what is on this node, and how many?          NVIDIA device plugin, fake-gpu-operator, DRA   Node allocatable/capacity, ResourceSlice, DeviceClass, ResourceClaim
admission  may this work enter now?                     Kueue                                          Workload conditions, Job spec.suspend, scheduling gates
grouping   which pods are one body?                     JobSet, LeaderWorkerSet, pod groups            restart-attempt label, group/worker index, LWS group size
placement  which node, and can they be placed together? kube-scheduler, KAI-Scheduler                  PodScheduled reason, FailedScheduling events, PodGroup conditions
runtime    can the chosen node start it?                kubelet, container runtime, RuntimeClass       RuntimeClass, FailedCreatePodSandBox, container waiting reasons
serving    where do requests go, split how many ways?   NVIDIA Dynamo, llm-d                           DynamoGraphDeployment state, InferencePool status

A pod's path: admission -> grouping -> placement -> runtime -> serving.
The device layer is the floor under placement and runtime.
";

#[cfg(test)]
mod tests {
    use super::{parse_depth, parse_duration, parse_now};

    #[test]
    fn durations_say_what_is_wrong_with_them() {
        assert_eq!(parse_duration("2m").unwrap().as_secs(), 120);
        assert_eq!(parse_duration("1500ms").unwrap().as_millis(), 1500);
        assert!(parse_duration("0s").unwrap_err().contains("more than zero"));
        assert!(
            parse_duration("-5s")
                .unwrap_err()
                .contains("more than zero")
        );
        // Too long is too long, not "less than zero" (it said so before).
        assert!(
            parse_duration("99999999999999999999s")
                .unwrap_err()
                .contains("too long")
        );
        assert!(parse_duration("3d").unwrap_err().contains("unknown unit"));
        assert!(
            parse_duration("soon")
                .unwrap_err()
                .contains("not a duration")
        );
    }

    #[test]
    fn depth_stays_within_what_the_reader_can_go() {
        assert_eq!(parse_depth("64"), Ok(64));
        assert_eq!(parse_depth("512"), Ok(512));
        assert!(parse_depth("100000").unwrap_err().contains("1 to 512"));
        assert!(parse_depth("0").unwrap_err().contains("out of range"));
        assert!(parse_depth("deep").unwrap_err().contains("not a number"));
    }

    #[test]
    fn now_must_be_a_time() {
        assert!(parse_now("2026-10-14T09:41:07Z").is_ok());
        assert!(parse_now("2026-13-45T00:00:00Z").is_err());
        assert!(parse_now("garbage").is_err());
    }
}
