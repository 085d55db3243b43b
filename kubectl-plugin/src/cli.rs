//! The command line's shape: every subcommand, flag and value the parser accepts. Both
//! binaries build on it, `kubectl-layer` to parse and `kubectl_complete-layer` to complete, so
//! what a shell offers after `<TAB>` cannot drift from what the parser takes.

use clap::{Args, Parser, Subcommand, ValueEnum, ValueHint};
use layer_core::ReadLimits;
use std::time::Duration;

/// Default `--max-input-files`: a `cluster-info dump -A` of a cluster of about 50,000 pods
/// (a directory and a `logs.txt` each).
pub const DEFAULT_MAX_INPUT_FILES: usize = 100_000;

pub const EXIT_HELP: &str = "\
Exit status:
  0  diagnosed, and nothing blocks or warns
  1  diagnosed, and a layer blocks or warns; or a read the answer needs failed, so it is
     incomplete (the output names each failed read and what it could not judge)
  2  bad usage (a namespace or name Kubernetes would not accept too), unreadable input, or
     target not found
  3  the cluster could not be read, or the reads that failed left nothing to judge";

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

pub const FIT_EXIT_HELP: &str = "\
Exit status:
  0  every piece of work would run now
  1  some piece of work would wait, or would be refused, or the bundle cannot show that it
     would run (see its verdict: outlook `waiting`, `never`, or an unknown layer), or a read
     of the cluster failed (each diagnosis names it)
  2  bad usage, an unreadable manifest or bundle, a manifest with no work in it, or one the
     API server would refuse (a GPU request of 0.5, a request above its limit: the error
     names the field and the API server's reason)
  3  the cluster could not be read, or the reads that failed left nothing to judge";

/// `fit --help`'s examples and exit codes.
fn fit_after_help() -> String {
    format!(
        "What it does:
  Each Pod, Job, JobSet, LeaderWorkerSet, Deployment and StatefulSet of MANIFEST is placed
  into the cluster as if submitted now, with what its controllers would make of it (Kueue's
  suspension and a Workload not admitted yet, pods Pending and unscheduled, a JobSet's child
  Jobs, an LWS's leader and worker pods with their group labels, KAI's PodGroup), and judged
  by the same rules as `why`. The manifest's other objects (a LocalQueue, a
  ResourceClaimTemplate, a RuntimeClass) are applied with it. Work already in the cluster
  under the same name is set aside and judged anew. The output is one Diagnosis per piece of
  work, with status NotSubmitted: verdict.layer is the first layer that would stop it (null
  if it would run now), verdict.outlook says whether waiting would help (`waiting`) or not
  (`never`), and `missing` says what fit does not model (scheduler scores, preemption, DRA
  CEL selectors, inter-pod affinity against pods not yet created, the kube-scheduler filters
  it does not apply, what shows only once it runs). Nodes are filtered as kube-scheduler
  does (a node whose pod count is full has no room; a pod tolerating the cordon's taint may
  go to a cordoned node), and the work's pods are counted against the nodes' free room per
  node: a Job of 2^31-1 pods costs what the pods that fit cost.

Examples:
  kubectl layer fit train.yaml -n ml
  kubectl layer fit train.yaml -f bundle.json
  kubectl get {} -A -o json > bundle.json
  kubectl layer fit jobset.yaml -f bundle.json -o markdown
  helm template ./chart | kubectl layer fit - -f bundle.json -o json

{FIT_EXIT_HELP}",
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
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    /// The language of the explanations: `en` or `ko` (Korean, in the course note's words).
    /// Commands, rule ids and the headline stay English (the headline is meant for an upstream
    /// issue's title); `ko` shows its Korean beside it. Empty means `en`.
    #[arg(long, global = true, value_name = "LANG", env = "KUBECTL_LAYER_LANG",
          default_value = "en", value_parser = parse_lang, hide_env_values = true)]
    pub lang: layer_core::Lang,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Explain why one pod (or Job, JobSet, LeaderWorkerSet, Workload …) is not running.
    ///
    /// Without -f it reads the cluster of the current kubeconfig context, fetching only what
    /// this target's diagnosis needs.
    #[command(after_long_help = why_after_help())]
    Why(WhyArgs),
    /// Would this work run here? Which layer would stop it, and would waiting help?
    ///
    /// Judges a manifest before you apply it: against the cluster of the current kubeconfig
    /// context (read-only, the reads `scan -n` makes), or against a bundle with -f.
    #[command(after_long_help = fit_after_help())]
    Fit(FitArgs),
    /// List the work that is not running, grouped by the layer and the cause that block it.
    ///
    /// By default each cause (the rule and the object it rests on: a ClusterQueue and the
    /// flavor Kueue names, a RuntimeClass, a component) is one entry with how much work it
    /// holds, the namespaces and an example, and for a queue the places its work holds there
    /// and the wait outlook; --all (or -o wide) lists every piece of work. Live, the places come
    /// from Kueue's visibility API where the cluster serves it (else from the Workloads read,
    /// and it says which). Lists each top-level Job, JobSet, LeaderWorkerSet, Deployment, StatefulSet,
    /// DynamoGraphDeployment and ownerless Workload that is not fully running, and each pod
    /// without such an owner that is neither Running-and-Ready nor Succeeded.
    ///
    /// Without -f it reads the cluster: the context's namespace, or every namespace with -A.
    #[command(after_long_help = EXIT_HELP)]
    Scan(ScanArgs),
    /// Write the bundle `why` reads for a target, redacted, to attach to an issue.
    ///
    /// The output is what -f and the web page read. Redacted, wherever an object nests them
    /// (pod templates inside custom resources too): Secret data, environment variable values
    /// (names kept; lists, maps and a runtime environment's YAML), argument values (flag
    /// names kept), ConfigMap data except keys the rules read, managedFields, copies of an
    /// applied configuration (last-applied-configuration, objectset.rio.cattle.io/applied,
    /// ...), annotation values outside the domains the rules read, and the user and password
    /// of every URL. See SECURITY.md.
    ///
    /// Examples:
    ///   kubectl layer bundle job/trainer -n ml > trainer-bundle.json
    ///   kubectl layer bundle -f dump.json > dump-redacted.json
    #[command(after_long_help = EXIT_HELP, verbatim_doc_comment)]
    Bundle(BundleArgs),
    /// Print shell completions for `kubectl-layer …`: `source <(kubectl-layer completion bash)`.
    ///
    /// bash:  add `source <(kubectl-layer completion bash)` to ~/.bashrc
    /// zsh:   add `source <(kubectl-layer completion zsh)` to ~/.zshrc after `compinit`,
    ///        or save the output as `_kubectl-layer` in a directory on $fpath
    /// fish:  kubectl-layer completion fish > ~/.config/fish/completions/kubectl-layer.fish
    ///
    /// `kubectl layer <TAB>` is kubectl's to complete: kubectl 1.26 or later asks the
    /// `kubectl_complete-layer` program shipped beside kubectl-layer, if it is on $PATH.
    #[command(verbatim_doc_comment)]
    Completion {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Serve the diagnosis to AI agents: a Model Context Protocol server on standard input and
    /// output.
    ///
    /// Tools: `why` (one Diagnosis), `scan` (the scan report), `fit` (a manifest judged before
    /// it is applied: one Diagnosis per piece of work), `rules` and `explain`. Each answer
    /// carries the JSON the CLI's `-o json` prints as `structuredContent` and its Markdown
    /// rendering as text. A call that passes `bundle` (the text of `kubectl get -o json|yaml`)
    /// is diagnosed from it; one that does not reads the -f files, else the live cluster of the
    /// current kubeconfig context, read-only, with the reads and limits of `why`, `scan` and
    /// `fit`. --offline refuses live reads.
    ///
    /// Register it with an MCP client as the command `kubectl-layer` with the arguments
    /// `mcp --offline -f bundle.json` (or `mcp` alone, for the live cluster).
    #[command(after_long_help = crate::limits::mcp_help())]
    Mcp(McpArgs),
    /// Serve `scan` as Prometheus metrics: /metrics on --listen, from the live cluster.
    ///
    /// One scan at a time, every --interval, whatever the scrapes ask: a scrape answers with
    /// the last finished scan (503 until the first one ends). The series are those of `scan -o
    /// prometheus`, plus the exporter's own (`kubectl_layer_up`, the scan's duration, time and
    /// failures). deploy/exporter.yaml runs it in a cluster with the read-only ClusterRole.

    #[command(after_long_help = crate::limits::exporter_help())]
    Exporter(ExporterArgs),
    /// Print the read-only ClusterRole that lists every read the tool makes.
    Rbac,
    /// Print the six layers: the question each answers, who decides, where it shows.
    Layers,
    /// Print the version, the commit it was built from and how many rules it applies.
    ///
    /// The commit is the one `git` reported when the binary was built (`unknown` when it was
    /// built outside a git checkout); the rule count is that of the built-in rules.
    Version,
    /// List the rules (id, layer, severity, summary).
    Rules {
        /// Only the rules of this layer.
        #[arg(short, long, value_parser = layer_names(), ignore_case = true)]
        layer: Option<layer_core::Layer>,
        /// Output format.
        #[arg(short, long, value_enum, default_value_t = ListFormat::Text)]
        output: ListFormat,
    },
    /// Practise naming the layer: questions made from the project's own cases, answered here.
    ///
    /// Each question shows a case as you meet it (the status, conditions, container states
    /// and events of a scenario or a real incident) and asks which layer decided it, or asks
    /// where a finding is reported upstream and under which contribution rules. Answer with a
    /// number or a name, one per line (q quits); each answer is followed by the real diagnosis.
    /// Standard input may be a pipe: at its end the round ends with the score so far.
    #[command(after_long_help = PRACTICE_HELP)]
    Practice(PracticeArgs),
    /// Print one rule's documentation: what it detects, why, the fix and where to report.
    Explain {
        /// Rule id, e.g. placement/insufficient-extended-resource.
        rule: String,
        /// Output format.
        #[arg(short, long, value_enum, default_value_t = ListFormat::Text)]
        output: ListFormat,
    },
}

pub const PRACTICE_HELP: &str = "\
Examples:
  kubectl layer practice
  kubectl layer practice --kind layer --count 5 --seed 42
  kubectl layer practice --kind headline --count 3
  printf 'Kueue admitted the workload but the pod is Pending\nq\n' | kubectl layer practice --kind headline
  kubectl layer practice --lang ko
  printf '4\\n2\\nq\\n' | kubectl layer practice --seed 42 --count 3
  kubectl layer practice --export -o json > practice.json

Exit status:
  0  a round was played (whatever the score), or the bank was exported
  2  bad usage";

/// Which questions `practice` asks.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum PracticeKind {
    /// Which layer decided a case.
    Layer,
    /// What a project's contribution rules ask, and of which repository.
    Contributing,
    /// Write an issue title for a case; it is judged by whether it names the layer (or its
    /// tool) and the decisive observation, then the tool's own headline is shown.
    Headline,
    /// The layer and contributing questions.
    All,
}

#[derive(Args, Debug)]
pub struct PracticeArgs {
    /// Which questions to ask.
    #[arg(long, value_enum, default_value_t = PracticeKind::All)]
    pub kind: PracticeKind,
    /// How many questions in a round.
    #[arg(long, value_name = "N", default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..))]
    pub count: u32,
    /// Shuffle with this seed, to repeat a round (default: one from the clock, printed).
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    /// Print the question bank (of --kind) in --lang instead of asking: for other tools.
    #[arg(long)]
    pub export: bool,
    /// Output format of --export.
    #[arg(short, long, value_enum, default_value_t = PracticeFormat::Text, requires = "export")]
    pub output: PracticeFormat,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum PracticeFormat {
    Text,
    Json,
}

#[derive(Args, Debug)]
pub struct Input {
    /// Read the bundle from FILE instead of the cluster (`-` for standard input). Accepts
    /// `kubectl get … -o json` or `-o yaml` output (Lists, single objects, several documents
    /// one after another), `kubectl layer bundle` files, `kubectl describe` output as it is
    /// pasted (pods, nodes, Jobs, custom resources; its events' ages count back from --now,
    /// else from the time it is read), and a directory or a .tar.gz, .tgz or .tar of such
    /// files: `kubectl cluster-info dump --output-directory`, the GPU Operator's must-gather;
    /// also `kubectl cluster-info dump` printed to standard output (its logs set aside, and
    /// the closing line kubectl before 1.19 printed).
    /// In a directory or archive, .json, .yaml and .yml files are read (and .descr describe
    /// output), logs, tables and other files skipped; standard error says which (--verbose:
    /// each file). Repeat to merge several.
    #[arg(short = 'f', long = "filename", value_name = "FILE", value_hint = ValueHint::AnyPath)]
    pub files: Vec<String>,
    /// List every file of a -f directory or archive on standard error: read (with its number
    /// of objects) or skipped (with the reason).
    #[arg(short, long)]
    pub verbose: bool,
    /// Reason as if it were this time (RFC 3339). Default: the bundle's collection time, else
    /// its newest timestamp.
    #[arg(long, value_name = "TIME", value_parser = parse_now)]
    pub now: Option<String>,
    /// Refuse inputs larger than this many bytes: everything -f reads together, an archive
    /// counted whole as it is decompressed (the logs it skips too).
    #[arg(long, value_name = "BYTES", default_value_t = 2 << 30)]
    pub max_input_bytes: usize,
    /// Refuse -f directories and archives with more entries than this (files, directories and
    /// links of all of them together).
    #[arg(long, value_name = "N", default_value_t = crate::cli::DEFAULT_MAX_INPUT_FILES)]
    pub max_input_files: usize,
    /// Refuse inputs that nest arrays and objects deeper than this (Kubernetes objects stay
    /// far below the default; at most 512 for JSON, 128 for YAML).
    #[arg(long, value_name = "LEVELS", default_value_t = ReadLimits::DEFAULT_MAX_DEPTH,
          value_parser = parse_depth)]
    pub max_depth: usize,
    /// Threads to read, index and diagnose on; 0 means one per core. The output is the same
    /// for any number.
    #[arg(short = 'j', long, value_name = "N", default_value_t = 0)]
    pub threads: usize,
}

/// How to reach the cluster when no -f is given (kubectl's flags).
#[derive(Args, Debug, Clone)]
pub struct Live {
    /// Path to the kubeconfig file (default: $KUBECONFIG, which may list several files, then
    /// ~/.kube/config, then the in-cluster service account).
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub kubeconfig: Option<std::path::PathBuf>,
    /// The kubeconfig context to use.
    #[arg(long, value_name = "NAME")]
    pub context: Option<String>,
    /// Give up on the cluster after this long, for each request and for the whole read
    /// (`30s`, `2m`, or seconds). What did not arrive in time is listed under `missing`.
    #[arg(long, value_name = "DURATION", default_value = "60s", value_parser = parse_duration)]
    pub request_timeout: Duration,
}

pub fn parse_duration(s: &str) -> Result<Duration, String> {
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
pub struct BundleArgs {
    /// What to collect for: NAME (a pod) or KIND/NAME. With -f it may be left out (the whole
    /// file is redacted); given, it must be in the file.
    #[arg(required_unless_present = "files")]
    pub target: Option<String>,
    /// Redact FILE instead of reading the cluster (`-` for standard input): a dump you already
    /// have, made safe to attach; a directory or .tar.gz/.tgz/.tar as `why -f` reads it.
    /// Repeat to merge several.
    #[arg(short = 'f', long = "filename", value_name = "FILE", value_hint = ValueHint::AnyPath)]
    pub files: Vec<String>,
    /// List every file of a -f directory or archive on standard error: read or skipped, and why.
    #[arg(short, long)]
    pub verbose: bool,
    /// Refuse -f directories and archives with more entries than this.
    #[arg(long, value_name = "N", default_value_t = crate::cli::DEFAULT_MAX_INPUT_FILES)]
    pub max_input_files: usize,
    /// Namespace of the target (default: the context's).
    #[arg(short, long)]
    pub namespace: Option<String>,
    #[command(flatten)]
    pub live: Live,
    /// Refuse answers larger than this many bytes in all.
    #[arg(long, value_name = "BYTES", default_value_t = 2 << 30)]
    pub max_input_bytes: usize,
}

#[derive(Args, Debug)]
pub struct WhyArgs {
    /// What to explain: NAME (a pod) or KIND/NAME (kubectl spellings: pod, job, jobset, lws,
    /// workload, dgd, deployment, sts …).
    pub target: String,
    /// Namespace of the target. Live, the context's namespace by default; offline, it may be
    /// left out when the name is unique.
    #[arg(short, long)]
    pub namespace: Option<String>,
    #[command(flatten)]
    pub input: Input,
    #[command(flatten)]
    pub live: Live,
    /// Output format.
    #[arg(short, long, value_enum, default_value_t = Format::Text)]
    pub output: Format,
    /// Also print the timeline: the moments the bundle proves, oldest first (-o markdown and
    /// -o json always have it).
    #[arg(long)]
    pub timeline: bool,
}

#[derive(Args, Debug)]
pub struct McpArgs {
    /// Never read the cluster: a call without `bundle` uses the -f files, or fails.
    #[arg(long)]
    pub offline: bool,
    #[command(flatten)]
    pub input: Input,
    #[command(flatten)]
    pub live: Live,
}

#[derive(Args, Debug)]
pub struct ExporterArgs {
    /// Address to serve /metrics on (port 0: any free port, printed on stderr).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:9464")]
    pub listen: std::net::SocketAddr,
    /// Time between the end of one scan and the start of the next (`60s`, `5m`).
    #[arg(long, value_name = "DURATION", default_value = "60s", value_parser = parse_duration)]
    pub interval: Duration,
    /// Only this namespace (default: every namespace).
    #[arg(short, long)]
    pub namespace: Option<String>,
    /// Refuse answers larger than this many bytes in all.
    #[arg(long, value_name = "BYTES", default_value_t = 2 << 30)]
    pub max_input_bytes: usize,
    /// Threads to diagnose on; 0 means one per core.
    #[arg(short = 'j', long, value_name = "N", default_value_t = 0)]
    pub threads: usize,
    #[command(flatten)]
    pub live: Live,
}

#[derive(Args, Debug)]
pub struct FitArgs {
    /// The work as you would `kubectl apply` it (`-` for standard input): YAML or JSON, one
    /// object, a List or a stream of documents. Each Pod, Job, JobSet, LeaderWorkerSet,
    /// Deployment and StatefulSet in it is judged.
    #[arg(value_name = "MANIFEST", value_hint = ValueHint::FilePath)]
    pub manifest: String,
    /// Namespace for manifest objects that name none (live: the context's namespace by
    /// default; offline: `default`). An object naming another namespace is an error.
    #[arg(short, long)]
    pub namespace: Option<String>,
    #[command(flatten)]
    pub input: Input,
    #[command(flatten)]
    pub live: Live,
    /// Output format: text, markdown, or json (an array of Diagnosis objects, one per piece
    /// of work, each as `why -o json` prints one).
    #[arg(short, long, value_enum, default_value_t = Format::Text)]
    pub output: Format,
}

#[derive(Args, Debug)]
pub struct ScanArgs {
    /// Only this namespace.
    #[arg(short, long, conflicts_with = "all_namespaces")]
    pub namespace: Option<String>,
    /// Every namespace (the default offline).
    #[arg(short = 'A', long)]
    pub all_namespaces: bool,
    #[command(flatten)]
    pub input: Input,
    #[command(flatten)]
    pub live: Live,
    /// Output format. Text and Markdown group the work by cause; `wide` is text listing every
    /// piece of work (as --all).
    #[arg(short, long, value_enum, default_value_t = ScanFormat::Text)]
    pub output: ScanFormat,
    /// List every piece of work, one line each, instead of grouping it by cause.
    #[arg(long)]
    pub all: bool,
    /// JSON without the per-item diagnoses: the groups by cause only (for dashboards and
    /// agents).
    #[arg(long)]
    pub summary: bool,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
    Markdown,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScanFormat {
    /// The work grouped by cause (every piece of work with --all).
    Text,
    /// Every piece of work, one line each (text --all).
    Wide,
    /// `diagnoses[]` and `groups[]` (only `groups[]` with --summary).
    Json,
    Markdown,
    /// The Prometheus text exposition format.
    Prometheus,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ListFormat {
    Text,
    Json,
    Markdown,
}

/// A layer's name, as `rules --layer` takes it: one of the six, which clap lists in its
/// errors and the completion scripts offer.
fn layer_names() -> impl clap::builder::TypedValueParser<Value = layer_core::Layer> {
    use clap::builder::TypedValueParser as _;
    clap::builder::PossibleValuesParser::new(layer_core::Layer::ALL.map(|l| l.as_str())).try_map(
        |s| {
            layer_core::Layer::parse(&s.to_ascii_lowercase()).ok_or(format!("`{s}` is not a layer"))
        },
    )
}

/// `--max-depth` within what the reader can go: a larger number would be silently cut to 512,
/// and 0 would refuse every input.
pub fn parse_depth(s: &str) -> Result<usize, String> {
    let most = ReadLimits::MAX_DEPTH_JSON;
    match s.trim().parse::<usize>() {
        Ok(n) if (1..=most).contains(&n) => Ok(n),
        Ok(_) => Err(format!("`{s}` is out of range: 1 to {most}")),
        Err(_) => Err(format!("`{s}` is not a number of levels (1 to {most})")),
    }
}

/// `--lang`: a language the core has texts for (`ko`, `ko-KR` and `ko_KR.UTF-8` are Korean).
/// Empty means the default, as an empty `LANG` does: `KUBECTL_LAYER_LANG=` in a shell's rc file
/// (or a wrapper that sets it from a variable that is unset) must not make every command, the
/// completion script sourced at start included, exit 2.
pub fn parse_lang(s: &str) -> Result<layer_core::Lang, String> {
    if s.trim().is_empty() {
        return Ok(layer_core::Lang::default());
    }
    layer_core::Lang::from_code(s).map_err(|e| e.to_string())
}

/// `--now` must be a time: a typo must not silently turn every age-based rule off.
pub fn parse_now(s: &str) -> Result<String, String> {
    layer_core::time::parse_rfc3339(s)
        .map(|_| s.to_string())
        .ok_or_else(|| format!("`{s}` is not an RFC 3339 time like 2026-10-14T09:41:07Z"))
}

impl Input {
    pub fn limits(&self) -> ReadLimits {
        ReadLimits {
            max_bytes: self.max_input_bytes,
            max_depth: self.max_depth,
            now: Some(self.paste_time()),
            threads: self.threads,
        }
    }

    /// What the ages of a `kubectl describe` paste count back from: `--now`, else this moment
    /// (the CLI has a clock; the core does not).
    fn paste_time(&self) -> i64 {
        self.now
            .as_deref()
            .and_then(layer_core::time::parse_rfc3339)
            .unwrap_or_else(|| {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_secs() as i64)
            })
    }
}

#[cfg(test)]
mod tests {
    use super::{parse_depth, parse_duration, parse_lang, parse_now};

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
    fn an_empty_language_is_the_default_and_an_unknown_one_an_error() {
        assert_eq!(parse_lang(""), Ok(layer_core::Lang::En));
        assert_eq!(parse_lang("  "), Ok(layer_core::Lang::En));
        assert_eq!(parse_lang("ko_KR.UTF-8"), Ok(layer_core::Lang::Ko));
        assert!(parse_lang("fr").unwrap_err().contains("en and ko"));
    }

    #[test]
    fn now_must_be_a_time() {
        assert!(parse_now("2026-10-14T09:41:07Z").is_ok());
        assert!(parse_now("2026-13-45T00:00:00Z").is_err());
        assert!(parse_now("garbage").is_err());
    }
}
