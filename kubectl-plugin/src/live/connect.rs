//! Connecting: the kubeconfig as kubectl reads it (`--kubeconfig`, `KUBECONFIG` with several
//! files, `--context`, the in-cluster service account), the client, and discovery of the APIs
//! the tool reads, so that a read is planned only for a kind the server offers.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use std::cmp::Reverse;

use kube::client::{APIGroupDiscovery, APIGroupDiscoveryList, APIVersionDiscovery};
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::core::Version;
use kube::core::discovery::v2::ACCEPT_AGGREGATED_DISCOVERY_V2;
use kube::discovery::{ApiCapabilities, ApiResource, Discovery, Scope as KubeScope};
use kube::{Client, Config};

use super::fetch::{FetchError, Haul, ReadFailure, describe};
use super::progress::Progress;
use super::{Cluster, LiveError};
use crate::plan;

/// The most the discovery document may hold (a cluster with hundreds of CRDs serves a few MB).
const DISCOVERY_MAX: usize = 64 << 20;

/// The core kinds the tool reads that are not namespaced.
const CLUSTER_SCOPED_CORE: &[&str] = &["Node", "Namespace"];

fn group_name(g: &APIGroupDiscovery) -> &str {
    g.metadata
        .as_ref()
        .and_then(|m| m.name.as_deref())
        .unwrap_or("")
}

/// How to reach the cluster (the kubectl flags of the same names).
#[derive(Clone, Debug, Default)]
pub struct ConnectOptions {
    pub kubeconfig: Option<PathBuf>,
    pub context: Option<String>,
    /// Bounds every request and the whole read.
    pub timeout: Duration,
    /// Print progress on stderr (only when it is a terminal).
    pub progress: bool,
    /// Ask the server for its version (`/version`), which only `bundle` records: `why` and
    /// `scan` spare the request.
    pub server_version: bool,
}

/// The client configuration and the context's name, as kubectl would choose them.
async fn configure(opts: &ConnectOptions) -> Result<(Config, Option<String>), LiveError> {
    let kube_opts = KubeConfigOptions {
        context: opts.context.clone(),
        ..Default::default()
    };
    match &opts.kubeconfig {
        Some(path) => {
            let kc = Kubeconfig::read_from(path)
                .map_err(|e| LiveError::Config(format!("{}: {e}", path.display())))?;
            let ctx = opts.context.clone().or(kc.current_context.clone());
            let config = Config::from_custom_kubeconfig(kc, &kube_opts)
                .await
                .map_err(|e| LiveError::Config(format!("{}: {e}", path.display())))?;
            Ok((config, ctx))
        }
        None => {
            let kc = Kubeconfig::read().ok();
            let ctx = opts
                .context
                .clone()
                .or_else(|| kc.as_ref().and_then(|k| k.current_context.clone()));
            let config = if opts.context.is_some() {
                Config::from_kubeconfig(&kube_opts)
                    .await
                    .map_err(|e| LiveError::Config(e.to_string()))?
            } else {
                Config::infer().await.map_err(|e| {
                    LiveError::Config(format!(
                        "{e} (set KUBECONFIG or pass --kubeconfig, or read a file with -f)"
                    ))
                })?
            };
            Ok((config, ctx))
        }
    }
}

impl Cluster {
    /// Load the kubeconfig (or the in-cluster service account), as kubectl does, and run
    /// discovery.
    pub async fn connect(opts: &ConnectOptions) -> Result<Cluster, LiveError> {
        let start = Instant::now();
        let (mut config, context) = configure(opts).await?;
        config.connect_timeout = Some(opts.timeout);
        config.read_timeout = Some(opts.timeout);
        config.write_timeout = Some(opts.timeout);
        // The reader retries what the server asks it to retry itself, within its deadline
        // (fetch.rs); kube's own retries would wait out a Retry-After past it.
        config.default_retry = false;
        // Only ever quoted in errors: without the password a kubeconfig may give it.
        let url =
            layer_core::credentials::without_userinfo(&config.cluster_url.to_string()).into_owned();
        let default_namespace = config.default_namespace.clone();
        let client = Client::try_from(config).map_err(|e| LiveError::Unreachable {
            url: url.clone(),
            why: describe(&e).why,
        })?;
        let mut cluster = Cluster {
            client,
            url,
            default_namespace,
            context,
            server_version: None,
            apis: Vec::new(),
            group_versions: BTreeSet::new(),
            deadline: start + opts.timeout,
            timeout: opts.timeout,
            progress: Progress::new(opts.progress),
            trace: std::env::var_os("KUBECTL_LAYER_TRACE").is_some_and(|v| v == "1"),
        };
        cluster.discover(opts.server_version).await?;
        Ok(cluster)
    }

    /// The server's version when asked, and the kinds it offers among those the tool reads:
    /// one request (`/apis`, aggregated discovery, Kubernetes 1.30+) on a current server, the
    /// core group being the same on every cluster; the legacy documents, one per group and
    /// version, on an older one.
    async fn discover(&mut self, with_version: bool) -> Result<(), LiveError> {
        let unreachable = |url: &str, what: &str, f: ReadFailure| match f.status {
            Some(_) => LiveError::Read {
                what: what.into(),
                why: f.why,
            },
            None => LiveError::Unreachable {
                url: url.to_string(),
                why: f.why,
            },
        };
        if with_version {
            let version = self.bounded(self.client.apiserver_version()).await;
            self.trace_outcome("/version", "the server's version, for the bundle", &version);
            let version = version.map_err(|f| unreachable(&self.url, "the server's version", f))?;
            self.server_version = Some(version.git_version);
        }
        let groups = plan::groups();
        // Through the reader's own requests: bounded, asked again after a Retry-After, traced.
        let aggregated = self
            .request(
                "/apis",
                ACCEPT_AGGREGATED_DISCOVERY_V2,
                "discovery: the API groups and kinds the server offers",
                &Haul::new(DISCOVERY_MAX),
            )
            .await
            .map_err(|e| match e {
                FetchError::Failed(f) => f,
                FetchError::TooLarge(why) => ReadFailure {
                    status: Some(413),
                    why,
                },
                // A fixed path: never refused, but worded like any failure if it were.
                FetchError::Refused(r) => ReadFailure {
                    status: None,
                    why: r.to_string(),
                },
            })
            .map(|text| serde_json::from_str::<APIGroupDiscoveryList>(&text).ok());
        // A server without aggregated discovery answers the same URL with the legacy document,
        // which decodes to an empty list; every real cluster serves `apps`, so its absence
        // means "ask the legacy way".
        match aggregated {
            Ok(Some(list)) if list.items.iter().any(|g| group_name(g) == "apps") => {
                self.take_aggregated(list, &groups);
                self.take_core();
            }
            Err(f) if f.status.is_none() => {
                return Err(unreachable(&self.url, "API discovery", f));
            }
            _ => {
                let legacy = self
                    .bounded(Discovery::new(self.client.clone()).filter(&groups).run())
                    .await
                    .map_err(|f| LiveError::Read {
                        what: "API discovery".into(),
                        why: f.why,
                    })?;
                self.take_legacy(&legacy);
            }
        }
        // Discovery lists groups in no fixed order: sorted, a target spelling two groups
        // share (`inferencepool`) is looked for in the same order on every run.
        self.apis
            .sort_by(|a, b| (&a.0.group, &a.0.kind).cmp(&(&b.0.group, &b.0.kind)));
        Ok(())
    }

    /// One version of each kind: the group's preferred version when it has the kind, else
    /// the most stable one that does (a real server serves every object at every version of
    /// its group, so one read sees them all).
    fn take_aggregated(&mut self, list: APIGroupDiscoveryList, groups: &[&str]) {
        for g in list.items {
            let name = group_name(&g).to_string();
            if !groups.contains(&name.as_str()) {
                continue;
            }
            let mut kinds: BTreeMap<String, (ApiResource, bool)> = BTreeMap::new();
            let mut versions: Vec<(usize, &APIVersionDiscovery)> =
                g.versions.iter().enumerate().collect();
            // The preferred version (listed first) wins, then the most stable.
            versions.sort_by_key(|(i, v)| {
                (
                    *i != 0,
                    Reverse(Version::parse(v.version.as_deref().unwrap_or("")).priority()),
                )
            });
            for (_, v) in versions {
                let Some(version) = v.version.as_deref() else {
                    continue;
                };
                self.group_versions.insert(format!("{name}/{version}"));
                for r in &v.resources {
                    let kind = r.response_kind.as_ref().and_then(|k| k.kind.as_ref());
                    let (Some(plural), Some(kind)) = (r.resource.as_deref(), kind) else {
                        continue;
                    };
                    kinds.entry(kind.clone()).or_insert_with(|| {
                        let ar = ApiResource {
                            group: name.clone(),
                            version: version.to_string(),
                            api_version: format!("{name}/{version}"),
                            kind: kind.clone(),
                            plural: plural.to_string(),
                        };
                        (ar, r.scope.as_deref() == Some("Namespaced"))
                    });
                }
            }
            self.apis.extend(kinds.into_values());
        }
    }

    /// The core group's kinds the tool reads: `v1` on every cluster, so not asked for.
    fn take_core(&mut self) {
        self.group_versions.insert("v1".into());
        for k in layer_core::kinds::KINDS
            .iter()
            .filter(|k| k.group.is_empty())
        {
            let ar = super::fetch::core(k.kind, k.plural);
            self.apis.push((ar, !CLUSTER_SCOPED_CORE.contains(&k.kind)));
        }
    }

    fn take_legacy(&mut self, discovery: &Discovery) {
        for g in discovery.groups() {
            for v in g.versions() {
                self.group_versions.insert(if g.name().is_empty() {
                    v.to_string()
                } else {
                    format!("{}/{v}", g.name())
                });
            }
            let mut kinds: BTreeMap<String, (ApiResource, ApiCapabilities)> = g
                .recommended_resources()
                .into_iter()
                .map(|(ar, caps)| (ar.kind.clone(), (ar, caps)))
                .collect();
            for (ar, caps) in g.resources_by_stability() {
                kinds.entry(ar.kind.clone()).or_insert((ar, caps));
            }
            for (ar, caps) in kinds.into_values() {
                self.apis
                    .push((ar, matches!(caps.scope, KubeScope::Namespaced)));
            }
        }
    }

    fn trace_outcome<T>(&self, path: &str, why: &str, outcome: &Result<T, ReadFailure>) {
        if self.trace {
            let what = match outcome {
                Ok(_) => "answered".to_string(),
                Err(f) => f.why.clone(),
            };
            eprintln!(
                "GET {path} -> {} ({why})",
                layer_core::render::for_terminal(&what)
            );
        }
    }

    /// The group/versions the server offers among those the tool reads.
    pub fn apis(&self) -> Vec<String> {
        self.group_versions.iter().cloned().collect()
    }

    /// The API of a kind, and whether it is namespaced, if the server offers it.
    pub(super) fn resource(&self, group: &str, kind: &str) -> Option<&(ApiResource, bool)> {
        self.apis
            .iter()
            .find(|(ar, _)| ar.group == group && ar.kind == kind)
    }

    /// Resources a user's kind spelling may name (`pod`, `lws`, `podgroups.scheduling.run.ai`),
    /// among those the role lets the reader GET.
    pub(super) fn resources_named(&self, spelling: &str) -> Vec<&(ApiResource, bool)> {
        let word = spelling.to_ascii_lowercase();
        self.apis
            .iter()
            .filter(|(ar, _)| plan::may_get(&ar.group, &ar.kind))
            .filter(|(ar, _)| {
                layer_core::target::kind_matches(spelling, &ar.kind, &ar.api_version)
                    || word == ar.plural
                    || word == format!("{}.{}", ar.plural, ar.group)
            })
            .collect()
    }
}
