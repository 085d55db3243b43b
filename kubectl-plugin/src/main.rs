//! `kubectl-layer`: the command line. Reads a bundle (a file, standard input, or the live
//! cluster through `live/`), asks the core for a diagnosis and prints it. All judgement lives
//! in the core; this file only reads input and chooses a rendering (the arguments' shape is
//! `cli.rs`, shared with the completion helper).

mod exporter;
mod httpd;
mod inputs;
mod live;
mod mcp;
mod mcp_lines;
mod metrics;
mod plan;
mod practice;
mod redact;

use clap::Parser;
use kubectl_layer::cli::{Cli, Command, Format, Input, ListFormat, Live, ScanFormat};
use layer_core::render::{self, Style};
use layer_core::{Bundle, Engine, Index, LayerState, Options, ReadLimits, TargetSpec};
use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::sync::Arc;

// Diagnosing builds and drops many small JSON values: with mimalloc a scan of 100k pods takes
// about 0.7 of its time with the system allocator (docs/benchmarks.md).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// A failure with its exit status and stable code.
pub(crate) struct Failure {
    pub exit: u8,
    pub code: &'static str,
    pub message: String,
    /// Lines to print under the message (commands to try), each escaped like it.
    pub hints: Vec<String>,
}

impl Failure {
    /// A failure with nothing to print under its message.
    pub(crate) fn new(exit: u8, code: &'static str, message: impl Into<String>) -> Failure {
        Failure {
            exit,
            code,
            message: message.into(),
            hints: Vec::new(),
        }
    }
}

impl From<live::LiveError> for Failure {
    fn from(e: live::LiveError) -> Self {
        Failure::new(3, "cluster", e.to_string())
    }
}

/// Connect to the cluster and run `f` on a runtime made for it.
fn with_cluster<T>(
    live: &Live,
    progress: bool,
    server_version: bool,
    f: impl AsyncFnOnce(Arc<live::Cluster>) -> Result<T, Failure>,
) -> Result<T, Failure> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| {
            Failure::new(
                3,
                "cluster",
                format!("cannot start the network runtime: {e}"),
            )
        })?;
    let opts = live::ConnectOptions {
        kubeconfig: live.kubeconfig.clone(),
        context: live.context.clone(),
        timeout: live.request_timeout,
        progress,
        server_version,
    };
    rt.block_on(async {
        let cluster = Arc::new(live::Cluster::connect(&opts).await?);
        f(cluster).await
    })
}

impl From<layer_core::Error> for Failure {
    fn from(e: layer_core::Error) -> Self {
        Failure::new(2, e.code(), e.to_string())
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let color = std::io::stdout().is_terminal()
        && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    let style = Style { color };
    let outcome = match cli.command {
        // The MCP transport writes standard output from its own threads: no lock held here.
        Command::Mcp(args) => mcp::serve(args, cli.lang),
        command => run(
            Cli {
                command,
                lang: cli.lang,
            },
            style,
            &mut std::io::stdout().lock(),
        ),
    };
    match outcome {
        Ok(code) => ExitCode::from(code),
        Err(f) => {
            let _ = std::io::stdout().flush();
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

pub(crate) fn engine() -> Result<Engine, Failure> {
    Engine::builtin().map_err(|e| Failure::new(2, "rules", e.to_string()))
}

/// The builtin rules writing in `lang` (English ones as they load, not a copy of them).
pub(crate) fn engine_in(lang: layer_core::Lang) -> Result<Engine, Failure> {
    let english = engine()?;
    match lang {
        layer_core::Lang::En => Ok(english),
        _ => translated(&english, lang),
    }
}

/// `english`'s rules writing in `lang`.
pub(crate) fn translated(english: &Engine, lang: layer_core::Lang) -> Result<Engine, Failure> {
    english
        .in_lang(lang)
        .map_err(|e| Failure::new(2, "rules", e.to_string()))
}

fn run(cli: Cli, style: Style, out: &mut impl Write) -> Result<u8, Failure> {
    let write = |out: &mut dyn Write, s: &str| written(out.write_all(s.as_bytes()));
    match cli.command {
        Command::Why(args) => {
            let engine = engine_in(cli.lang)?;
            let mut spec = TargetSpec::parse(&args.target, args.namespace.as_deref());
            let ix = if args.input.files.is_empty() {
                live_target(args.namespace.as_deref(), &spec)?;
                let limits = args.input.limits();
                let (ix, ns) = with_cluster(&args.live, false, false, async |c| {
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
                Format::Text if args.timeline => {
                    render::text(&d, style) + &render::timeline_text(&d.timeline, cli.lang)
                }
                Format::Text => render::text(&d, style),
                Format::Json => json(&d),
                Format::Markdown => render::markdown(&d),
            };
            write(out, &body)?;
            Ok(exit_status(
                exit_for(d.verdict.state),
                d.incomplete.as_ref(),
            ))
        }
        Command::Fit(args) => fit(args, cli.lang, style, out),
        Command::Scan(args) => {
            if args.summary && args.output != ScanFormat::Json {
                return Err(Failure::new(
                    2,
                    "usage",
                    String::from(
                        "--summary: only with -o json (text and Markdown are grouped by cause already)",
                    ),
                ));
            }
            let engine = engine_in(cli.lang)?;
            let mut namespace = args.namespace.clone();
            let ix = if args.input.files.is_empty() {
                live_namespace(namespace.as_deref())?;
                let limits = args.input.limits();
                let (ix, ns) = with_cluster(&args.live, true, false, async |c| {
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
            let namespace = namespace.as_deref();
            if args.output == ScanFormat::Json {
                // Each diagnosis is written as JSON on the thread that made it, and the report
                // streamed: a backlog's report is larger than its bundle.
                let mut report = layer_core::target::scan_json(&engine, &ix, &opts, namespace);
                if args.summary {
                    report = report.summary();
                }
                let mut w = std::io::BufWriter::with_capacity(1 << 16, out);
                written(
                    report
                        .write_pretty(&mut w)
                        .and_then(|()| w.write_all(b"\n"))
                        .and_then(|()| w.flush()),
                )?;
                let worst = report.parts().iter().map(|p| exit_for(p.state)).max();
                return Ok(exit_status(worst.unwrap_or(0), report.incomplete()));
            }
            // The other outputs print a line per piece of work: each diagnosis is cut down to
            // its line on the thread that made it (`layer_core::scan_lines`), and written out
            // as it is rendered. The grouped text and Markdown need a headline per cause only:
            // each piece of work is judged to its verdict line, and a group's examples are
            // diagnosed whole (`scan_group_lines`; the same output, byte for byte).
            let grouped =
                !args.all && matches!(args.output, ScanFormat::Text | ScanFormat::Markdown);
            let lines = if grouped {
                layer_core::target::scan_group_lines(&engine, &ix, &opts, namespace)
            } else {
                layer_core::target::scan_lines(&engine, &ix, &opts, namespace)
            };
            let mut w = std::io::BufWriter::with_capacity(1 << 16, out);
            let done = match args.output {
                ScanFormat::Markdown if args.all => render::scan_markdown_to(&mut w, &lines),
                ScanFormat::Markdown => render::scan_groups_markdown_to(&mut w, &lines),
                ScanFormat::Prometheus => {
                    let unreadable = ix.bundle().meta().map_or(0, |m| m.unreadable.len());
                    w.write_all(metrics::exposition(&lines, ix.len(), unreadable).as_bytes())
                }
                // (JSON was written above.)
                ScanFormat::Text if !args.all => render::scan_groups_text_to(&mut w, &lines, style),
                ScanFormat::Text | ScanFormat::Wide | ScanFormat::Json => {
                    render::scan_text_to(&mut w, &lines, style)
                }
            };
            written(done.and_then(|()| w.flush()))?;
            let worst = lines.lines.iter().map(|l| exit_for(l.state)).max();
            Ok(exit_status(worst.unwrap_or(0), lines.incomplete.as_ref()))
        }
        Command::Bundle(args) if !args.files.is_empty() => {
            let input = Input {
                files: args.files.clone(),
                now: None,
                max_input_bytes: args.max_input_bytes,
                max_input_files: args.max_input_files,
                verbose: args.verbose,
                max_depth: ReadLimits::DEFAULT_MAX_DEPTH,
                threads: 0,
            };
            let ix = read_index(&input)?;
            // A target, when named, must be in the file: a typo must not pass as "redacted".
            let mut work_namespace = None;
            if let Some(t) = &args.target {
                let spec = TargetSpec::parse(t, args.namespace.as_deref());
                let id =
                    layer_core::target::resolve(&ix, &spec).map_err(layer_core::Error::from)?;
                work_namespace = ix.object(id).namespace_name().cloned();
            }
            redact::bundle_to(out, &ix, work_namespace.as_deref())
                .map_err(|e| Failure::new(2, "io", format!("writing the redacted bundle: {e}")))?;
            eprintln!(
                "bundle: {} objects from {}, redacted",
                ix.len(),
                args.files.join(", ")
            );
            Ok(0)
        }
        Command::Bundle(args) => {
            let target = args.target.as_deref().unwrap_or_default();
            let spec = TargetSpec::parse(target, args.namespace.as_deref());
            live_target(args.namespace.as_deref(), &spec)?;
            let limits = ReadLimits {
                max_bytes: args.max_input_bytes,
                ..Default::default()
            };
            let collected = with_cluster(&args.live, true, true, async |c| {
                c.collect_target(&spec, limits).await
            })?;
            let work_namespace = layer_core::target::resolve(&collected.index, &spec)
                .ok()
                .and_then(|id| collected.index.object(id).namespace_name().cloned());
            let left_out = redact::live_bundle(out, &collected.index, work_namespace.as_deref())
                .map_err(|e| match e.is_io() {
                    true => Failure::new(2, "io", format!("writing the redacted bundle: {e}")),
                    false => Failure::new(3, "cluster", format!("the cluster's answers: {e}")),
                })?;
            let missing = collected
                .index
                .bundle()
                .meta()
                .map_or(0, |m| m.unreadable.len());
            eprintln!(
                "bundle: {} objects from {} requests, {} unreadable, redacted",
                collected.index.len() - left_out,
                collected.requests,
                missing
            );
            if left_out > 0 {
                eprintln!("bundle: {left_out} objects of kinds the tool never reads left out");
            }
            Ok(0)
        }
        Command::Mcp(args) => mcp::serve(args, cli.lang),
        Command::Exporter(args) => exporter::serve(args),
        Command::Completion { shell } => {
            write(out, &kubectl_layer::complete::script(shell))?;
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
        Command::Version => {
            let rules = engine_in(layer_core::Lang::En)?.rules().len();
            write(
                out,
                &format!(
                    "kubectl-layer {}\ncommit  {}\nrules   {rules}\n",
                    env!("CARGO_PKG_VERSION"),
                    env!("KUBECTL_LAYER_COMMIT"),
                ),
            )?;
            Ok(0)
        }
        Command::Rules { layer, output } => {
            let engine = engine_in(cli.lang)?;
            let rules: Vec<&layer_core::rule::Rule> = engine
                .rules()
                .iter()
                .filter(|r| layer.is_none_or(|l| r.layer == l))
                .collect();
            let body = match output {
                ListFormat::Json => json(
                    &rules
                        .iter()
                        .map(|r| render::rule_info_in(r, cli.lang))
                        .collect::<Vec<_>>(),
                ),
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
        Command::Practice(args) => practice::run(args, cli.lang, &mut std::io::stdin().lock(), out),
        Command::Explain { rule, output } => {
            let engine = engine_in(cli.lang)?;
            let r = find_rule(&engine, &rule)?;
            let body = match output {
                ListFormat::Json => json(&render::rule_info_in(r, cli.lang)),
                _ => render::rule_doc_in(r, render::Words::of(cli.lang)),
            };
            write(out, &body)?;
            Ok(0)
        }
    }
}

/// The rule `explain` names: by id, else by its last part; not found, the close ones as
/// commands to paste.
pub(crate) fn find_rule<'e>(
    engine: &'e Engine,
    rule: &str,
) -> Result<&'e layer_core::rule::Rule, Failure> {
    if let Some(r) = engine.rule(rule).or_else(|| {
        engine
            .rules()
            .iter()
            .find(|r| r.id.ends_with(&format!("/{rule}")))
    }) {
        return Ok(r);
    }
    let mut close: Vec<&str> = engine
        .rules()
        .iter()
        .map(|r| r.id.as_str())
        .filter(|id| id.contains(rule.split('/').next_back().unwrap_or(rule)))
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
    Err(Failure {
        exit: 2,
        code: "rule-not-found",
        message,
        hints,
    })
}

/// A target that is not there, with the closest ones as whole commands to paste: the same
/// input (`-f` files) and another target.
pub(crate) fn not_found_with_commands(e: layer_core::Error, files: &[String]) -> Failure {
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

/// `-n` for a live read: refused, naming the flag, when it is not a namespace.
pub(crate) fn live_namespace(namespace: Option<&str>) -> Result<(), Failure> {
    namespace.map_or(Ok(()), |ns| live::check_namespace("-n/--namespace", ns))
}

/// `-n` and TARGET for a live read: each refused, naming where it came from, when it is not a
/// namespace or a name.
fn live_target(namespace: Option<&str>, spec: &TargetSpec) -> Result<(), Failure> {
    live_namespace(namespace)?;
    live::check_target("TARGET", spec)
}

fn exit_for(state: LayerState) -> u8 {
    match state {
        LayerState::Blocked | LayerState::Warn => 1,
        _ => 0,
    }
}

/// The exit status of an answer whose verdicts give `worst`: a failed read is never an
/// all-clear, so an answer resting on one is 1 at least, and 3 ("the cluster could not be
/// read") when nothing could be judged. What a failed read leaves unjudged is the core's to
/// say (`layer_core::reads`); every command's status comes through here.
pub(crate) fn exit_status(worst: u8, incomplete: Option<&layer_core::Incomplete>) -> u8 {
    match incomplete {
        Some(i) if i.nothing_judged => 3,
        Some(_) => worst.max(1),
        None => worst,
    }
}

/// The outcome of writing the output. A closed pipe (`| head`) is not an error.
fn written(done: std::io::Result<()>) -> Result<(), Failure> {
    match done {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(Failure::new(2, "io", e.to_string())),
        Ok(()) => Ok(()),
    }
}

fn json<T: serde::Serialize + ?Sized>(v: &T) -> String {
    let mut s = serde_json::to_string_pretty(v).unwrap_or_default();
    s.push('\n');
    s
}

pub(crate) fn read_index(input: &Input) -> Result<Index, Failure> {
    Ok(Index::build(read_bundle(input)?, input.threads))
}

/// `kubectl layer fit`: the manifest judged against the bundle (`-f`) or the live cluster.
fn fit(
    args: kubectl_layer::cli::FitArgs,
    lang: layer_core::Lang,
    style: Style,
    out: &mut impl Write,
) -> Result<u8, Failure> {
    if args.manifest == "-" && args.input.files.iter().any(|f| f == "-") {
        return Err(Failure::new(
            2,
            "usage",
            "the manifest and -f cannot both be standard input: give one of them as a file",
        ));
    }
    let engine = engine_in(lang)?;
    let manifest = read_manifest(&args.manifest, &args.input)?;
    let mut opts = layer_core::fit::FitOptions {
        namespace: args.namespace.clone(),
        default_namespace: None,
        now: args.input.now.clone(),
        threads: args.input.threads,
    };
    let cluster = if args.input.files.is_empty() {
        live_namespace(args.namespace.as_deref())?;
        let limits = args.input.limits();
        let (bundle, default) = with_cluster(&args.live, true, false, async |c| {
            fit_cluster_bundle(&c, &manifest, &opts, limits).await
        })?;
        opts.default_namespace = Some(default);
        bundle
    } else {
        read_bundle(&args.input)?
    };
    let diagnoses = layer_core::fit::fit(&engine, cluster, &manifest, &opts)
        .map_err(layer_core::Error::from)?;
    let body = match args.output {
        Format::Json => json(&diagnoses),
        Format::Text => diagnoses
            .iter()
            .map(|d| render::text(d, style))
            .collect::<Vec<_>>()
            .join("\n"),
        Format::Markdown => fit_markdown(&diagnoses),
    };
    write_all(out, &body)?;
    // Only work shown to run now passes: a wait, a refusal or an unknown is 1.
    let status = diagnoses.iter().map(|d| {
        let runs = d.verdict.state == LayerState::Ok;
        exit_status(u8::from(!runs), d.incomplete.as_ref())
    });
    Ok(status.max().unwrap_or(0))
}

/// What a live `fit` judges the manifest against: the reads `scan` makes, in the one namespace
/// the manifest's objects go to, or in all of them when they go to several; with the context's
/// namespace, where objects naming none go.
pub(crate) async fn fit_cluster_bundle(
    c: &Arc<live::Cluster>,
    manifest: &Bundle,
    opts: &layer_core::fit::FitOptions,
    limits: ReadLimits,
) -> Result<(Bundle, String), Failure> {
    for ns in manifest.objects().iter().filter_map(|o| o.namespace()) {
        live::check_namespace("the manifest's metadata.namespace", ns)?;
    }
    let probe = layer_core::fit::FitOptions {
        default_namespace: Some(c.default_namespace.clone()),
        ..opts.clone()
    };
    let spaces = layer_core::fit::namespaces(manifest, &probe).map_err(layer_core::Error::from)?;
    let one = if spaces.len() == 1 {
        spaces.into_iter().next()
    } else {
        None
    };
    let collected = c.collect_scan(one.as_deref(), limits).await?;
    Ok((collected.index.into_bundle(), c.default_namespace.clone()))
}

/// Each fitted piece of work's Markdown, apart by a rule.
pub(crate) fn fit_markdown(diagnoses: &[layer_core::Diagnosis]) -> String {
    diagnoses
        .iter()
        .map(render::markdown)
        .collect::<Vec<_>>()
        .join("\n---\n\n")
}

fn write_all(out: &mut impl Write, s: &str) -> Result<(), Failure> {
    written(out.write_all(s.as_bytes()))
}

/// The manifest `fit` judges: a file or standard input, read like a bundle.
fn read_manifest(path: &str, input: &Input) -> Result<Bundle, Failure> {
    let manifest_input = Input {
        files: vec![path.to_string()],
        now: None,
        max_input_bytes: input.max_input_bytes,
        max_input_files: input.max_input_files,
        verbose: input.verbose,
        max_depth: input.max_depth,
        threads: 0,
    };
    read_bundle(&manifest_input)
}

/// Every `-f` input read as one bundle (`inputs.rs`), and what it read of each directory or
/// archive said on standard error, which the diagnosis does not use.
fn read_bundle(input: &Input) -> Result<Bundle, Failure> {
    let bounds = inputs::Bounds {
        max_bytes: input.max_input_bytes,
        max_files: input.max_input_files,
    };
    let (bundle, sources) = inputs::read(&input.files, bounds, input.limits())?;
    for line in inputs::report_lines(&sources, input.verbose) {
        eprintln!("{}", layer_core::render::for_terminal(&line));
    }
    Ok(bundle)
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
