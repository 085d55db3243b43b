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
            .serve(rmcp::transport::stdio())
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
            "Every piece of work that is not running, each with its Diagnosis, ordered by the \
             layer that blocks it. Without `bundle` it reads the live cluster (read-only).",
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
        let namespace = input.namespace;
        blocking(move || {
            let report =
                layer_core::target::scan_namespace(&engine, &ix, &opts, namespace.as_deref());
            Ok(Answer {
                json: to_json(&report)?,
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
        let result = match self.call(request).await {
            Ok(a) => {
                let mut r = CallToolResult::success(vec![ContentBlock::text(a.markdown)]);
                r.structured_content = Some(a.json);
                r
            }
            Err(f) => CallToolResult::error(vec![ContentBlock::text(failure_text(&f))]),
        };
        Ok(result.into())
    }
}
