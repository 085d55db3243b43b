//! Connecting: the kubeconfig as kubectl reads it (`--kubeconfig`, `KUBECONFIG` with several
//! files, `--context`, the in-cluster service account), the client, and discovery of the APIs
//! the tool reads, so that a read is planned only for a kind the server offers.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::discovery::{ApiCapabilities, ApiResource, Discovery, Scope as KubeScope};
use kube::{Client, Config};

use super::fetch::{ReadFailure, describe};
use super::progress::Progress;
use super::{Cluster, LiveError};
use crate::plan;

/// How to reach the cluster (the kubectl flags of the same names).
#[derive(Clone, Debug, Default)]
pub struct ConnectOptions {
    pub kubeconfig: Option<PathBuf>,
    pub context: Option<String>,
    /// Bounds every request and the whole read.
    pub timeout: Duration,
    /// Print progress on stderr (only when it is a terminal).
    pub progress: bool,
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
        let url = config.cluster_url.to_string();
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
        cluster.discover().await?;
        Ok(cluster)
    }

    async fn discover(&mut self) -> Result<(), LiveError> {
        let groups = plan::groups();
        let unreachable = |f: ReadFailure| match f.status {
            Some(_) => LiveError::Read {
                what: "API discovery".into(),
                why: f.why,
            },
            None => LiveError::Unreachable {
                url: self.url.clone(),
                why: f.why,
            },
        };
        let version = self.bounded(self.client.apiserver_version()).await;
        let version = version.map_err(unreachable)?;
        self.server_version = Some(version.git_version);
        let aggregated = self
            .bounded(
                Discovery::new(self.client.clone())
                    .filter(&groups)
                    .run_aggregated(),
            )
            .await;
        // A server without aggregated discovery answers the same URL with the legacy document,
        // which decodes to an empty list; every real cluster serves `apps`, so its absence
        // means "ask the legacy way".
        let discovery = match aggregated {
            Ok(d) if d.has_group("apps") => d,
            _ => self
                .bounded(Discovery::new(self.client.clone()).filter(&groups).run())
                .await
                .map_err(|f| LiveError::Read {
                    what: "API discovery".into(),
                    why: f.why,
                })?,
        };
        for g in discovery.groups() {
            for v in g.versions() {
                self.group_versions.insert(if g.name().is_empty() {
                    v.to_string()
                } else {
                    format!("{}/{v}", g.name())
                });
            }
            // One version of each kind: the group's preferred version when it has the kind,
            // else the most stable one that does (a real server serves every object at every
            // version of its group, so one read sees them all).
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
        // Discovery lists groups in no fixed order: sorted, a target spelling two groups
        // share (`inferencepool`) is looked for in the same order on every run.
        self.apis
            .sort_by(|a, b| (&a.0.group, &a.0.kind).cmp(&(&b.0.group, &b.0.kind)));
        Ok(())
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
