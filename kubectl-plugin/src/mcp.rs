//! `kubectl layer mcp`: the diagnosis (and `fit`'s what-if) as Model Context Protocol tools, served on standard input
//! and output with `rmcp`, for agents that would otherwise guess the layer from a prompt.
//!
//! Every tool answers what the CLI prints for the same input: `structuredContent` is the JSON of
//! `-o json` (a rule list is wrapped as `{"rules": [...]}`, because MCP wants an object), the text
//! content is the Markdown of `-o markdown`, and the output schemas are the contract's own
//! (`docs/schema/`). A failure is a tool error whose text starts `error[CODE]:` with the CLI's
//! codes, so an agent can branch on them as a script does on `kubectl layer`'s stderr.
//!
//! Where the objects come from, per call: the call's `bundle` text; else the files given with
//! `-f` at start; else the live cluster, connected anew for each call (the reader's deadline is
//! per read, and a changed kubeconfig is picked up), unless `--offline`.
//!
//! Limits: a request is one line of at most `mcp_lines::MAX_REQUEST_BYTES`, nested at most
//! `mcp_lines::MAX_REQUEST_DEPTH` deep, and one refused for either (or for not being JSON) is
//! answered with a JSON-RPC error (`mcp_lines.rs`). An answer carries at most
//! [`ANSWER_MAX_BYTES`], its JSON and its text together ([`bounded`]): a list is cut to the
//! items that fit, the answer says so with a hint to narrow the call, and an answer that cannot
//! be cut is a tool error with that hint.

use crate::{Failure, live};
use kubectl_layer::cli::{Live, McpArgs};
use layer_core::render;
use layer_core::{Bundle, Engine, Index, Options, ReadLimits, TargetSpec};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorData,
    Implementation, JsonObject, ListToolsResult, PaginatedRequestParams, ServerCapabilities,
    ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ServerHandler, ServiceExt};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use std::sync::Arc;

/// `why`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct WhyInput {
    /// What to explain: NAME (a pod) or KIND/NAME (kubectl spellings: pod, job, jobset, lws,
    /// workload, dgd, deployment, sts …).
    target: String,
    /// Namespace of the target. Live, the context's namespace by default; from a bundle, it may
    /// be left out when the name is unique.
    #[serde(default)]
    namespace: Option<String>,
    /// The text of `kubectl get … -o json` or `-o yaml` output (or a `kubectl layer bundle`
    /// file) to diagnose instead of the cluster.
    #[serde(default)]
    bundle: Option<String>,
    /// The language of the explanations: `en` or `ko` (Korean). Rule ids, commands and the
    /// headline stay English. Default: the server's `--lang`.
    #[serde(default)]
    lang: Option<layer_core::Lang>,
}
/// `scan`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ScanInput {
    /// Only this namespace (default: every namespace of the bundle; live, every namespace).
    #[serde(default)]
    namespace: Option<String>,
    /// At most this many pieces of work, the first in the scan's order (default: as many as
    /// fit in one answer), with `summary: false`. The answer's `truncated` says how many there
    /// are.
    #[serde(default)]
    limit: Option<usize>,
    /// The work grouped by cause only, without the per-item diagnoses (default: true). Each
    /// group: layer, rule, the object the cause rests on, how many, namespaces, examples.
    #[serde(default)]
    summary: Option<bool>,
    /// Only the work blocked (or warned about) at this layer.
    #[serde(default)]
    layer: Option<layer_core::Layer>,
    /// Only the work whose verdict rests on this rule (a group's `rule`, e.g.
    /// `admission/waiting-for-quota`).
    #[serde(default)]
    rule: Option<String>,
    /// The text of `kubectl get … -o json` or `-o yaml` output to scan instead of the cluster.
    #[serde(default)]
    bundle: Option<String>,
    /// The language of the explanations: `en` or `ko` (Korean). Rule ids, commands and the
    /// headline stay English. Default: the server's `--lang`.
    #[serde(default)]
    lang: Option<layer_core::Lang>,
}
/// `fit`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct FitInput {
    /// The work as it would be applied (`kubectl apply -f`): a Pod, Job, JobSet,
    /// LeaderWorkerSet, Deployment or StatefulSet, as YAML or JSON; one object, a List, or a
    /// stream of them. Each piece of work is judged.
    manifest: String,
    /// Where objects that name no namespace go; an object naming another is refused. Default:
    /// the context's namespace live, `default` against a bundle.
    #[serde(default)]
    namespace: Option<String>,
    /// The cluster to judge against, as the text of `kubectl get … -o json` or `-o yaml` output,
    /// instead of the live cluster.
    #[serde(default)]
    bundle: Option<String>,
    /// The language of the explanations: `en` or `ko` (Korean). Rule ids, commands and the
    /// headline stay English. Default: the server's `--lang`.
    #[serde(default)]
    lang: Option<layer_core::Lang>,
}
/// `fit`'s answer: one Diagnosis per piece of work, in the manifest's order (target status
/// `NotSubmitted`; `verdict.layer` the first layer that would stop it, null if it would run now).
#[derive(serde::Serialize, JsonSchema)]
struct FitOutput {
    /// What `kubectl layer fit -o json` prints.
    diagnoses: Vec<layer_core::Diagnosis>,
}

/// `rules`' arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct RulesInput {
    /// Only the rules of this layer.
    #[serde(default)]
    layer: Option<layer_core::Layer>,
    /// The language of the explanations: `en` or `ko` (Korean). Rule ids, commands and the
    /// headline stay English. Default: the server's `--lang`.
    #[serde(default)]
    lang: Option<layer_core::Lang>,
}
/// `explain`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ExplainInput {
    /// A rule id (`placement/insufficient-extended-resource`) or its last part.
    rule: String,
    /// The language of the explanations: `en` or `ko` (Korean). Rule ids, commands and the
    /// headline stay English. Default: the server's `--lang`.
    #[serde(default)]
    lang: Option<layer_core::Lang>,
}
/// `rules`' answer: MCP's structured content is an object, so the CLI's list goes in one.
#[derive(serde::Serialize, JsonSchema)]
struct RulesOutput {
    /// What `kubectl layer rules -o json` prints.
    rules: Vec<layer_core::diagnosis::RuleInfo>,
}

/// One answer: the JSON and its Markdown.
struct Answer {
    json: Value,
    markdown: String,
}

/// The most one answer carries (`kubectl_layer::limits`).
pub(crate) use kubectl_layer::limits::MCP_ANSWER_BYTES as ANSWER_MAX_BYTES;

/// How a tool's answer is narrowed: the JSON list that may be cut (none: the answer is one
/// object) and what to tell the caller.
fn narrowing(tool: &str) -> (Option<&'static str>, &'static str) {
    match tool {
        "scan" => (
            Some("diagnoses"),
            "Narrow it: `namespace` for one namespace, `layer` or `rule` for one cause's work, \
             `limit` for the first pieces of work, or `why` with a `target` for one of them.",
        ),
        "fit" => (
            Some("diagnoses"),
            "Narrow it: judge fewer pieces of work at a time (a manifest of one Job, JobSet or \
             Deployment).",
        ),
        "rules" => (
            Some("rules"),
            "Narrow it: `layer` for one layer's rules, or `explain` for one rule.",
        ),
        _ => (
            None,
            "Narrow it: ask `why` about one pod of the work (its name as `target`, with \
             `namespace`), or pass a `bundle` of only the objects it needs.",
        ),
    }
}

/// What a `scan` summary tells the caller it can ask next.
const SCAN_SUMMARY_HINT: &str = "The work grouped by cause. For one cause's pieces of work: \
     `summary: false` with its `rule` (and `layer` or `namespace`), `limit` for the first few; \
     `why` with a `target` for one of them.";

/// A Markdown rendering into a string (written to memory: it cannot fail).
fn into_markdown(write: impl FnOnce(&mut Vec<u8>) -> std::io::Result<()>) -> String {
    let mut out = Vec::new();
    let _ = write(&mut out);
    String::from_utf8_lossy(&out).into_owned()
}

/// Mark `json`'s list `field` as cut to `shown` of `total` items, and say why and what to do.
fn note_cut(json: &mut Value, field: &str, shown: usize, total: usize, why: String) {
    if let Value::Object(o) = json {
        o.insert(
            "truncated".to_string(),
            serde_json::json!({"field": field, "shown": shown, "total": total, "why": why}),
        );
    }
}

/// `answer` within [`ANSWER_MAX_BYTES`]: the JSON's list cut to the items that fit (the first
/// ones, in the tool's order) and the text cut at a line, each saying so with `hint`; an
/// answer whose JSON cannot be cut to fit is a failure carrying the hint.
fn bounded(tool: &str, mut answer: Answer) -> Result<Answer, Failure> {
    let (list, hint) = narrowing(tool);
    let json_len = serde_json::to_vec(&answer.json).map_or(0, |v| v.len());
    let md_len = answer.markdown.len();
    let total = json_len + md_len;
    if total <= ANSWER_MAX_BYTES {
        return Ok(answer);
    }
    let why = format!(
        "The whole answer is {total} bytes; one answer carries at most {ANSWER_MAX_BYTES}. {hint}"
    );
    // Each side keeps up to half the bound, and whatever the other does not use.
    let half = ANSWER_MAX_BYTES / 2;
    let md_budget = half
        .max(ANSWER_MAX_BYTES.saturating_sub(json_len))
        .min(md_len);
    let json_budget = ANSWER_MAX_BYTES - md_budget;
    if json_len > json_budget {
        // A summary has no per-item list: its groups are what is cut.
        let list = list.map(|f| match answer.json.get(f) {
            None if f == "diagnoses" => "groups",
            _ => f,
        });
        let fits = list.is_some_and(|field| cut_list(&mut answer.json, field, json_budget, &why));
        if !fits {
            return Err(Failure::new(2, "answer-too-large", why));
        }
    }
    if md_len > md_budget {
        answer.markdown = cut_text(&answer.markdown, md_budget, &why);
    }
    Ok(answer)
}

/// Keep the first items of `json[field]` whose JSON fits in `budget` with the rest of
/// `json` and the note; false if not even none of them do.
fn cut_list(json: &mut Value, field: &str, budget: usize, why: &str) -> bool {
    let Some(items) = json
        .get_mut(field)
        .and_then(Value::as_array_mut)
        .map(std::mem::take)
    else {
        return false;
    };
    let total = items.len();
    note_cut(json, field, total, total, why.to_string());
    let rest = serde_json::to_vec(&*json).map_or(usize::MAX, |v| v.len());
    let mut used = rest;
    let shown = items
        .iter()
        .take_while(|item| {
            used += serde_json::to_vec(item).map_or(usize::MAX, |v| v.len()) + 1;
            used <= budget
        })
        .count();
    note_cut(json, field, shown, total, why.to_string());
    json[field] = Value::Array(items.into_iter().take(shown).collect());
    rest <= budget
}

/// `text` cut at the last line that fits in `budget` with the note saying why.
fn cut_text(text: &str, budget: usize, why: &str) -> String {
    let note = format!("\n\n_Cut here. {why}_\n");
    let mut end = budget.saturating_sub(note.len()).min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let end = text[..end].rfind('\n').unwrap_or(0);
    format!("{}{note}", &text[..end])
}

/// The server: the engine and where objects come from when a call brings none.
struct Server {
    engine: Arc<Engine>,
    /// The same rules in Korean (`lang: "ko"`).
    korean: Arc<Engine>,
    /// The language of a call that names none (`--lang`).
    lang: layer_core::Lang,
    /// The -f files, read once at start.
    files: Option<Arc<Index>>,
    offline: bool,
    live: Live,
    limits: ReadLimits,
    now: Option<String>,
    threads: usize,
}

/// Serve until the client closes standard input.
pub fn serve(args: McpArgs, lang: layer_core::Lang) -> Result<u8, Failure> {
    // The builtin rules load once; the Korean engine is made from them.
    let english = crate::engine()?;
    let korean = Arc::new(crate::translated(&english, layer_core::Lang::Ko)?);
    let engine = Arc::new(english);
    let files = if args.input.files.is_empty() {
        None
    } else {
        Some(Arc::new(crate::read_index(&args.input)?))
    };
    let server = Server {
        engine,
        korean,
        lang,
        files,
        offline: args.offline,
        live: args.live,
        limits: args.input.limits(),
        now: args.input.now.clone(),
        threads: args.input.threads,
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| Failure::new(2, "io", format!("cannot start the runtime: {e}")))?;
    rt.block_on(async {
        let running = server
            .serve(crate::mcp_lines::Lines::new(
                tokio::io::stdin(),
                tokio::io::stdout(),
                crate::mcp_lines::MAX_REQUEST_BYTES,
            ))
            .await
            .map_err(|e| Failure::new(2, "mcp", format!("MCP handshake: {e}")))?;
        running
            .waiting()
            .await
            .map_err(|e| Failure::new(2, "mcp", format!("MCP session: {e}")))?;
        Ok(0)
    })
}

/// The JSON Schema of `T`, as MCP wants it: an object without the `$schema` key, which clients
/// that validate with a draft-07 validator do not know for 2020-12.
fn schema_of<T: JsonSchema>() -> Arc<JsonObject> {
    let mut v = serde_json::to_value(schemars::schema_for!(T)).unwrap_or_default();
    object_schema(&mut v)
}

fn object_schema(v: &mut Value) -> Arc<JsonObject> {
    let mut o = v.as_object().cloned().unwrap_or_default();
    o.remove("$schema");
    Arc::new(o)
}

/// The contract's schema by its file name in `docs/schema/`.
fn contract_schema(file: &str) -> Arc<JsonObject> {
    let mut v = layer_core::diagnosis::schemas()
        .into_iter()
        .find(|(name, _)| *name == file)
        .map(|(_, s)| s)
        .unwrap_or_default();
    object_schema(&mut v)
}

/// Every tool, with its input and output schema.
fn tools() -> Vec<Tool> {
    // Every tool only reads: the cluster, if at all, through the read-only reader.
    let read_only = |title: &str, open_world: bool| {
        ToolAnnotations::with_title(title)
            .read_only(true)
            .destructive(false)
            .idempotent(true)
            .open_world(open_world)
    };
    vec![
        Tool::new(
            "why",
            "Which layer (device, admission, grouping, placement, runtime, serving) keeps one \
             GPU workload from running: a pod, Job, JobSet, LeaderWorkerSet, Workload … . Returns \
             one Diagnosis: the verdict, all six layers, the findings with their evidence, \
             commands to run next. Without `bundle` it reads the live cluster (read-only).",
            schema_of::<WhyInput>(),
        )
        .with_raw_output_schema(contract_schema("diagnosis.schema.json"))
        .with_annotations(read_only("Why is this work not running?", true)),
        Tool::new(
            "scan",
            "The work that is not running, grouped by cause: layer, rule, the object the cause \
             rests on (a ClusterQueue, a RuntimeClass, a component), how much work, namespaces \
             and examples. `summary: false` adds each piece's Diagnosis; `layer`, `rule` and \
             `namespace` narrow it. Without `bundle` it reads the live cluster (read-only).",
            schema_of::<ScanInput>(),
        )
        .with_raw_output_schema(contract_schema("scan.schema.json"))
        .with_annotations(read_only("What is not running, and why?", true)),
        Tool::new(
            "fit",
            "Would this work run here, and which layer would stop it? Judges a manifest not yet \
             applied (Pod, Job, JobSet, LeaderWorkerSet, Deployment, StatefulSet) against the \
             cluster as if submitted now: one Diagnosis per piece of work, with \
             `verdict.outlook` `never` (waiting will not help) or `waiting`. Without `bundle` it \
             reads the live cluster (read-only).",
            schema_of::<FitInput>(),
        )
        .with_raw_output_schema(schema_of::<FitOutput>())
        .with_annotations(read_only("Would this work fit?", true)),
        Tool::new(
            "rules",
            "The rules the diagnosis applies (id, layer, severity, summary, documentation).",
            schema_of::<RulesInput>(),
        )
        .with_raw_output_schema(schema_of::<RulesOutput>())
        .with_annotations(read_only("List the rules", false)),
        Tool::new(
            "explain",
            "One rule's documentation: what it detects, why it happens, the fix, where to \
             report it.",
            schema_of::<ExplainInput>(),
        )
        .with_raw_output_schema(schema_of::<layer_core::diagnosis::RuleInfo>())
        .with_annotations(read_only("Explain a rule", false)),
    ]
}

/// The call's arguments as `T`; a bad argument is a usage error, as on the command line.
fn arguments<T: for<'de> Deserialize<'de>>(
    tool: &str,
    args: Option<JsonObject>,
) -> Result<T, Failure> {
    serde_json::from_value(Value::Object(args.unwrap_or_default()))
        .map_err(|e| Failure::new(2, "usage", format!("{tool}: {e}")))
}

/// The text of a failure as the CLI prints it on stderr: `error[CODE]: message`, then hints,
/// without the user information of a URL they quote (the API server's, a bundle's), as the
/// CLI's `for_terminal` leaves it out.
fn failure_text(f: &Failure) -> String {
    let mut s = format!("error[{}]: {}", f.code, f.message);
    for h in &f.hints {
        s.push('\n');
        s.push_str(h);
    }
    layer_core::credentials::without_userinfo(&s).into_owned()
}

/// Run CPU-bound work (reading a bundle, diagnosing) off the protocol's threads.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, Failure> + Send + 'static,
) -> Result<T, Failure> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| Failure::new(2, "internal", format!("the diagnosis stopped: {e}")))?
}

impl Server {
    /// The engine writing in the call's language (the server's when it names none).
    fn engine_for(&self, lang: Option<layer_core::Lang>) -> Arc<Engine> {
        match lang.unwrap_or(self.lang) {
            layer_core::Lang::En => self.engine.clone(),
            layer_core::Lang::Ko => self.korean.clone(),
        }
    }

    fn options(&self) -> Options {
        Options {
            now: self.now.clone(),
            threads: self.threads,
        }
    }

    fn connect_options(&self) -> live::ConnectOptions {
        live::ConnectOptions {
            kubeconfig: self.live.kubeconfig.clone(),
            context: self.live.context.clone(),
            timeout: self.live.request_timeout,
            progress: false,
            server_version: false,
        }
    }

    /// The call's bundle, indexed.
    async fn bundle_index(&self, text: String) -> Result<Arc<Index>, Failure> {
        let limits = self.limits;
        let threads = self.threads;
        blocking(move || {
            if text.len() > limits.max_bytes {
                return Err(layer_core::Error::from(layer_core::BundleError::TooLarge {
                    size: text.len(),
                    limit: limits.max_bytes,
                })
                .into());
            }
            let bundle = Bundle::read_all(vec![(Some("bundle".to_string()), text)], limits)
                .map_err(layer_core::Error::from)?;
            Ok(Arc::new(Index::build(bundle, threads)))
        })
        .await
    }

    /// The objects a call reads when it brings none: the -f files, else nothing (live).
    fn without_bundle(&self) -> Result<Option<Arc<Index>>, Failure> {
        if let Some(ix) = &self.files {
            return Ok(Some(ix.clone()));
        }
        if self.offline {
            return Err(Failure::new(
                2,
                "offline",
                "the server runs with --offline and was given no -f file: pass the objects as \
                 `bundle` (the text of `kubectl get … -o json`)",
            ));
        }
        Ok(None)
    }

    async fn why(&self, input: WhyInput) -> Result<Answer, Failure> {
        let mut spec = TargetSpec::parse(&input.target, input.namespace.as_deref());
        let ix = match input.bundle {
            Some(text) => self.bundle_index(text).await?,
            None => match self.without_bundle()? {
                Some(ix) => ix,
                None => {
                    live_arguments(input.namespace.as_deref())?;
                    live::check_target("the `target` argument", &spec)?;
                    let cluster = Arc::new(live::Cluster::connect(&self.connect_options()).await?);
                    spec.namespace = Some(
                        spec.namespace
                            .clone()
                            .unwrap_or_else(|| cluster.default_namespace.clone()),
                    );
                    Arc::new(cluster.collect_target(&spec, self.limits).await?.index)
                }
            },
        };
        let engine = self.engine_for(input.lang);
        let opts = self.options();
        blocking(move || {
            let d = layer_core::diagnose(&engine, &ix, &spec, &opts)
                .map_err(|e| crate::not_found_with_commands(e.into(), &[]))?;
            Ok(Answer {
                json: to_json(&d)?,
                markdown: render::markdown(&d),
            })
        })
        .await
    }

    async fn scan(&self, input: ScanInput) -> Result<Answer, Failure> {
        let engine = self.engine_for(input.lang);
        let ix = match input.bundle {
            Some(text) => self.bundle_index(text).await?,
            None => match self.without_bundle()? {
                Some(ix) => ix,
                None => {
                    live_arguments(input.namespace.as_deref())?;
                    let cluster = Arc::new(live::Cluster::connect(&self.connect_options()).await?);
                    let collected = cluster
                        .collect_scan(input.namespace.as_deref(), self.limits)
                        .await?;
                    Arc::new(collected.index)
                }
            },
        };
        let opts = self.options();
        let (namespace, limit) = (input.namespace, input.limit);
        let (layer, rule) = (input.layer, input.rule);
        blocking(move || {
            let mut report =
                layer_core::target::scan_namespace(&engine, &ix, &opts, namespace.as_deref());
            if layer.is_some() || rule.is_some() {
                report.diagnoses.retain(|d| {
                    layer.is_none_or(|l| d.verdict.layer == Some(l))
                        && rule
                            .as_ref()
                            .is_none_or(|r| d.verdict.rule.as_ref() == Some(r))
                });
                report.groups.retain(|g| {
                    layer.is_none_or(|l| g.layer == Some(l))
                        && rule.as_ref().is_none_or(|r| g.rule.as_ref() == Some(r))
                });
            }
            let lines = layer_core::scan_lines::ScanLines::of_report(&report);
            let markdown = into_markdown(|out| render::scan_groups_markdown_to(out, &lines));
            if input.summary.unwrap_or(true) {
                let mut json = to_json(&report)?;
                if let Value::Object(o) = &mut json {
                    o.remove("diagnoses");
                    o.insert("hint".into(), Value::String(SCAN_SUMMARY_HINT.into()));
                }
                return Ok(Answer { json, markdown });
            }
            let total = report.diagnoses.len();
            let shown = limit.map_or(total, |n| n.min(total));
            report.diagnoses.truncate(shown);
            let mut json = to_json(&report)?;
            if shown < total {
                let why = format!("`limit` is {shown}; the scan found {total} pieces of work.");
                note_cut(&mut json, "diagnoses", shown, total, why);
            }
            Ok(Answer {
                json,
                markdown: render::scan_markdown(&report),
            })
        })
        .await
    }

    async fn fit(&self, input: FitInput) -> Result<Answer, Failure> {
        let engine = self.engine_for(input.lang);
        let limits = self.limits;
        let manifest = blocking(move || {
            Bundle::read_all(vec![(Some("manifest".to_string()), input.manifest)], limits)
                .map_err(|e| layer_core::Error::from(e).into())
        })
        .await?;
        let mut opts = layer_core::fit::FitOptions {
            namespace: input.namespace,
            default_namespace: None,
            now: self.now.clone(),
            threads: self.threads,
        };
        let cluster = match input.bundle {
            Some(text) => Some(self.bundle_index(text).await?),
            None => self.without_bundle()?,
        };
        let cluster = match cluster {
            // fit adds the manifest's objects to the bundle and indexes it anew.
            Some(ix) => match Arc::try_unwrap(ix) {
                Ok(ix) => ix.into_bundle(),
                Err(shared) => shared.bundle().clone(),
            },
            None => {
                live_arguments(opts.namespace.as_deref())?;
                let c = Arc::new(live::Cluster::connect(&self.connect_options()).await?);
                let (bundle, default) =
                    crate::fit_cluster_bundle(&c, &manifest, &opts, self.limits).await?;
                opts.default_namespace = Some(default);
                bundle
            }
        };
        blocking(move || {
            let diagnoses = layer_core::fit::fit(&engine, cluster, &manifest, &opts)
                .map_err(layer_core::Error::from)?;
            Ok(Answer {
                markdown: crate::fit_markdown(&diagnoses),
                json: to_json(&FitOutput { diagnoses })?,
            })
        })
        .await
    }

    fn rules(&self, input: RulesInput) -> Result<Answer, Failure> {
        let engine = self.engine_for(input.lang);
        let lang = engine.lang();
        let rules: Vec<&layer_core::rule::Rule> = engine
            .rules()
            .iter()
            .filter(|r| input.layer.is_none_or(|l| r.layer == l))
            .collect();
        Ok(Answer {
            json: to_json(&RulesOutput {
                rules: rules
                    .iter()
                    .map(|r| render::rule_info_in(r, lang))
                    .collect(),
            })?,
            markdown: render::rules_markdown(&rules),
        })
    }

    fn explain(&self, input: ExplainInput) -> Result<Answer, Failure> {
        let engine = self.engine_for(input.lang);
        let r = crate::find_rule(&engine, &input.rule)?;
        Ok(Answer {
            json: to_json(&render::rule_info_in(r, engine.lang()))?,
            markdown: render::rule_doc_in(r, render::Words::of(engine.lang())),
        })
    }

    async fn call(&self, params: CallToolRequestParams) -> Result<Answer, Failure> {
        let name = params.name.as_ref();
        let args = params.arguments;
        match name {
            "why" => self.why(arguments(name, args)?).await,
            "scan" => self.scan(arguments(name, args)?).await,
            "fit" => self.fit(arguments(name, args)?).await,
            "rules" => self.rules(arguments(name, args)?),
            "explain" => self.explain(arguments(name, args)?),
            other => Err(Failure::new(
                2,
                "usage",
                format!("no tool `{other}`: the tools are why, scan, fit, rules and explain"),
            )),
        }
    }
}

/// A call's `namespace` argument for a live read: refused, naming the argument, when it is
/// not a namespace.
fn live_arguments(namespace: Option<&str>) -> Result<(), Failure> {
    namespace.map_or(Ok(()), |ns| {
        live::check_namespace("the `namespace` argument", ns)
    })
}

fn to_json<T: serde::Serialize>(v: &T) -> Result<Value, Failure> {
    serde_json::to_value(v).map_err(|e| Failure::new(2, "internal", e.to_string()))
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new(
                "kubectl-layer",
                env!("CARGO_PKG_VERSION"),
            ))
            .with_instructions(
                "Ask `why` which layer (device, admission, grouping, placement, runtime, \
                 serving) keeps a GPU workload from running, or `scan` for everything that does \
                 not run. Pass `bundle` (the text of `kubectl get … -o json`) to diagnose \
                 objects you have; without it the server reads its own cluster, read-only. The \
                 answers are deterministic: the same objects give the same diagnosis.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        tools().into_iter().find(|t| t.name == name)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let tool = request.name.to_string();
        let result = match self.call(request).await.and_then(|a| bounded(&tool, a)) {
            Ok(a) => {
                let mut r = CallToolResult::success(vec![ContentBlock::text(a.markdown)]);
                r.structured_content = Some(a.json);
                r
            }
            Err(f) => {
                let mut text = failure_text(&f);
                if text.len() > ANSWER_MAX_BYTES {
                    let why = format!("The error is {} bytes.", text.len());
                    text = cut_text(&text, ANSWER_MAX_BYTES, &why);
                }
                CallToolResult::error(vec![ContentBlock::text(text)])
            }
        };
        Ok(result.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An answer of `n` items of about 1 KiB each, in JSON and as text lines.
    fn answer_of(n: usize) -> Answer {
        let item = |i: usize| serde_json::json!({"name": format!("w{i}"), "pad": "p".repeat(1000)});
        Answer {
            json: serde_json::json!({"schemaVersion": "1", "diagnoses": (0..n).map(item).collect::<Vec<_>>()}),
            markdown: (0..n)
                .map(|i| format!("| w{i} | {} |\n", "p".repeat(1000)))
                .collect(),
        }
    }

    fn size(a: &Answer) -> usize {
        serde_json::to_vec(&a.json).unwrap().len() + a.markdown.len()
    }

    #[test]
    fn an_answer_within_the_bound_is_left_as_it_is() {
        let a = bounded("scan", answer_of(10)).ok().unwrap();
        assert_eq!(a.json["diagnoses"].as_array().unwrap().len(), 10);
        assert!(a.json.get("truncated").is_none() && !a.markdown.contains("Cut here"));
    }

    #[test]
    fn a_list_over_the_bound_is_cut_to_what_fits_and_says_so() {
        let a = bounded("scan", answer_of(1000)).ok().unwrap();
        assert!(size(&a) <= ANSWER_MAX_BYTES, "{}", size(&a));
        let shown = a.json["diagnoses"].as_array().unwrap().len();
        // The JSON's half of the bound holds about 60 of these items: not far fewer.
        assert!(shown > ANSWER_MAX_BYTES / 2 / 1100, "{shown}");
        assert_eq!(a.json["truncated"]["shown"], shown);
        assert_eq!(a.json["truncated"]["total"], 1000);
        assert!(
            a.json["truncated"]["why"]
                .as_str()
                .unwrap()
                .contains("`namespace`")
        );
        assert!(a.markdown.ends_with("_\n") && a.markdown.contains("Cut here"));
        // Cut at a line: every row before the note is whole.
        let rows = a.markdown.split("\n\n_Cut here").next().unwrap();
        assert!(rows.lines().all(|l| l.ends_with(" |")), "a row cut in two");
    }

    /// A summary has no per-item list: a cluster with more causes than fit has its groups cut.
    #[test]
    fn a_summary_over_the_bound_has_its_groups_cut() {
        let mut a = answer_of(1000);
        let groups = a.json["diagnoses"].take();
        a.json = serde_json::json!({"schemaVersion": "1", "groups": groups});
        let a = bounded("scan", a).ok().unwrap();
        assert!(size(&a) <= ANSWER_MAX_BYTES, "{}", size(&a));
        assert_eq!(a.json["truncated"]["field"], "groups");
        assert_eq!(a.json["truncated"]["total"], 1000);
        assert!(
            a.json["truncated"]["why"]
                .as_str()
                .unwrap()
                .contains("`rule`")
        );
    }

    #[test]
    fn one_object_over_the_bound_is_an_error_with_the_hint() {
        let a = Answer {
            json: serde_json::json!({"kind": "Job", "pad": "p".repeat(ANSWER_MAX_BYTES)}),
            markdown: String::new(),
        };
        let f = bounded("why", a).err().expect("refused");
        assert_eq!(f.code, "answer-too-large");
        assert!(f.message.contains("`target`"), "{}", f.message);
    }
}
