//! The rounds of reads that collect one target's bundle (or a namespace's, for `scan`), each
//! round's requests issued together (at most [`super::fetch::CONCURRENCY`] at a time):
//!
//! 1. discovery (aggregated when the server offers it) and `/version` ([`super::connect`]);
//! 2. the target, then its owners one by one (owners by name, a handful at most), each only
//!    where the role allows a GET of its kind ([`plan::may_get`]);
//! 3. every row of [`plan::wants`] whose API exists, plus the pods (the target's namespace,
//!    and every pod still running or pending anywhere, from the API server's cache) and the
//!    target's Namespace;
//! 4. events of the objects that make up the target (field selector on the involved object's
//!    uid; the whole namespace when there are too many), the CRDs Kueue integrations depend
//!    on, and fake-gpu-operator's topology ConfigMaps when its nodes exist.
//!
//! The number of requests depends on which APIs are installed, not on the cluster's size: a
//! paginated list is one request in the counts the tests and benchmarks make.

use std::collections::BTreeSet;
use std::sync::Arc;

use kube::discovery::ApiResource;
use layer_core::{ReadLimits, TargetSpec};

use super::fetch::{FetchError, Haul, Read, core, qualified};
use super::links::{Family, Found, Links};
use super::{Cluster, Collected, LiveError};
use crate::plan::{self, Scope};

/// Above this many objects, the target's events are read for its whole namespace at once
/// instead of one field-selected request per object.
const EVENTS_PER_OBJECT_MAX: usize = 40;
/// How far up an owner chain the owners are read.
const OWNER_ROUNDS: usize = 8;

/// Every read, from the first.
const ALL: std::ops::Range<usize> = 0..usize::MAX;

impl Cluster {
    /// Read what the diagnosis of one target needs. `Err` only when the target itself cannot
    /// be read.
    pub async fn collect_target(
        self: &Arc<Self>,
        spec: &TargetSpec,
        limits: ReadLimits,
    ) -> Result<Collected, crate::Failure> {
        let haul = Arc::new(Haul::new(limits.max_bytes));
        let namespace = spec
            .namespace
            .clone()
            .unwrap_or_else(|| self.default_namespace.clone());
        let spelling = spec.kind.clone().unwrap_or_else(|| "pod".to_string());
        let candidates = self.resources_named(&spelling);
        if candidates.is_empty() {
            return Err(crate::Failure::new(
                2,
                "target-not-found",
                format!(
                    "the cluster offers no kind named `{spelling}` among those kubectl-layer reads (see `kubectl layer rbac` for the list)"
                ),
            ));
        }
        let target = match self.read_target(&candidates, spec, &namespace, &haul).await {
            Ok(Some(t)) => t,
            Ok(None) => {
                return Err(self
                    .not_found(&candidates, spec, &namespace, &haul, limits)
                    .await);
            }
            Err(FetchError::TooLarge(why)) => {
                self.progress.finish();
                return Err(crate::Failure::new(3, "input-too-large", why));
            }
            Err(FetchError::Failed(f)) => {
                self.progress.finish();
                let what = format!("{}/{} in namespace {namespace}", spelling, spec.name);
                return Err(crate::Failure::new(
                    3,
                    "cluster",
                    LiveError::Read { what, why: f.why }.to_string(),
                ));
            }
        };
        self.read_owners(&target, &namespace, &haul).await?;
        self.fetch_all(self.fan_out(Some(&namespace)), &haul)
            .await?;
        self.follow_ups(&haul, Some(&target), Some(&namespace))
            .await?;
        let target_meta = serde_json::json!({
            "kind": spec.kind, "namespace": namespace, "name": spec.name,
        });
        self.index(&haul, Some(target_meta), limits)
    }

    /// Round 2: the target, by name, among the kinds its spelling may name. `Ok(None)` when
    /// none has it; `Ok(Some(None))` when it was read but says nothing planning can use.
    async fn read_target(
        &self,
        candidates: &[&(ApiResource, bool)],
        spec: &TargetSpec,
        namespace: &str,
        haul: &Haul,
    ) -> Result<Option<Option<Found>>, FetchError> {
        let mut last_failure: Option<FetchError> = None;
        for (ar, namespaced) in candidates {
            let ns = namespaced.then_some(namespace);
            let read = Read::get(ar, ns, &spec.name);
            self.progress.planned(1);
            let seq = haul.plan(1);
            match self.fetch(&read, seq.start, haul).await {
                Ok(_) => {
                    self.progress.done(1);
                    return Ok(Some(haul.found(seq).into_iter().next()));
                }
                Err(FetchError::Failed(f)) if f.status == Some(404) => self.progress.done(0),
                Err(e @ FetchError::TooLarge(_)) => return Err(e),
                Err(e) => {
                    self.progress.done(0);
                    last_failure = Some(e)
                }
            }
        }
        match last_failure {
            Some(f) => Err(f),
            None => Ok(None),
        }
    }

    /// The target is not there: list its kind, where the role allows, so the core can name the
    /// closest matches.
    async fn not_found(
        self: &Arc<Self>,
        candidates: &[&(ApiResource, bool)],
        spec: &TargetSpec,
        namespace: &str,
        haul: &Arc<Haul>,
        limits: ReadLimits,
    ) -> crate::Failure {
        let reads = candidates
            .iter()
            .filter(|(ar, _)| plan::may_list(&ar.group, &ar.kind))
            .map(|(ar, namespaced)| Read::list(ar, namespaced.then_some(namespace)))
            .collect();
        if let Err(f) = self.fetch_all(reads, haul).await {
            return f;
        }
        self.progress.finish();
        let spelling = spec.kind.clone().unwrap_or_else(|| "pod".to_string());
        let fallback = crate::Failure::new(
            2,
            "target-not-found",
            format!(
                "{spelling}/{} not found in namespace {namespace}",
                spec.name
            ),
        );
        let ix = match self.index(haul, None, limits) {
            Ok(c) => c.index,
            Err(f) => return f,
        };
        let spec = TargetSpec {
            namespace: Some(namespace.to_string()),
            ..spec.clone()
        };
        layer_core::target::resolve(&ix, &spec)
            .err()
            .map(layer_core::Error::from)
            .map(crate::Failure::from)
            .unwrap_or(fallback)
    }

    /// Round 2b: owners, by name, up the chain, each where the role allows its kind (never a
    /// Secret).
    async fn read_owners(
        self: &Arc<Self>,
        target: &Option<Found>,
        namespace: &str,
        haul: &Arc<Haul>,
    ) -> Result<(), crate::Failure> {
        let mut seen_uids: BTreeSet<String> = BTreeSet::new();
        let mut frontier: Vec<Found> = target.iter().cloned().collect();
        for _ in 0..OWNER_ROUNDS {
            let mut next = Vec::new();
            for f in &frontier {
                for o in &f.owners {
                    if !seen_uids.insert(o.uid.clone()) {
                        continue;
                    }
                    if o.api_version.is_empty() || o.kind.is_empty() || o.name.is_empty() {
                        continue;
                    }
                    let group = layer_core::bundle::group_of(&o.api_version);
                    if !plan::may_get(group, &o.kind) {
                        continue;
                    }
                    if let Some((ar, namespaced)) = self.resource(group, &o.kind) {
                        let ns = namespaced.then_some(namespace);
                        next.push(Read::get(ar, ns, &o.name));
                    }
                }
            }
            if next.is_empty() {
                break;
            }
            let seqs = self.fetch_all(next, haul).await?;
            frontier = haul.found(seqs);
        }
        Ok(())
    }

    /// Read everything `scan` looks at in one namespace, or in all of them.
    pub async fn collect_scan(
        self: &Arc<Self>,
        namespace: Option<&str>,
        limits: ReadLimits,
    ) -> Result<Collected, crate::Failure> {
        let haul = Arc::new(Haul::new(limits.max_bytes));
        self.fetch_all(self.fan_out(namespace), &haul).await?;
        self.follow_ups(&haul, None, namespace).await?;
        if let Some(why) = haul.first_failure().filter(|_| !haul.has_objects()) {
            return Err(crate::Failure::new(
                3,
                "cluster",
                LiveError::Read {
                    what: "the cluster".into(),
                    why,
                }
                .to_string(),
            ));
        }
        self.index(&haul, None, limits)
    }

    /// Round 3: every kind of the plan whose API exists, the pods, the Namespace.
    fn fan_out(&self, namespace: Option<&str>) -> Vec<Read> {
        let mut reads = Vec::new();
        for want in plan::wants() {
            let Some((ar, namespaced)) = self.resource(want.group, want.kind) else {
                continue; // not installed: its absence is in `apis`
            };
            let ns = if *namespaced && want.scope == Scope::Namespace {
                namespace
            } else {
                None
            };
            let read = Read::list(ar, ns);
            reads.push(if want.kind == "Node" {
                read.cached()
            } else {
                read
            });
        }
        let pods = core("Pod", "pods");
        match namespace {
            Some(ns) => {
                reads.push(Read::list(&pods, Some(ns)));
                // What runs on every node, for free capacity and the device plugin's pods.
                reads.push(
                    Read::list(&pods, None)
                        .with(
                            "fieldSelector",
                            "status.phase!=Succeeded,status.phase!=Failed",
                        )
                        .cached(),
                );
                reads.push(Read::get(&core("Namespace", "namespaces"), None, ns));
            }
            None => {
                reads.push(Read::list(&pods, None));
                reads.push(Read::list(&core("Namespace", "namespaces"), None));
            }
        }
        reads
    }

    /// Round 4: events of the target's objects (of a whole namespace for `scan`), the CRDs of
    /// the integrations among them, fake-gpu-operator's topology when its nodes exist.
    fn follow_up(
        &self,
        family: Option<&Family>,
        namespace: Option<&str>,
        fake_gpu: bool,
    ) -> Vec<Read> {
        let events = core("Event", "events");
        let mut reads = Vec::new();
        match family {
            Some(f) if f.uids.len() <= EVENTS_PER_OBJECT_MAX => {
                for uid in &f.uids {
                    reads.push(
                        Read::list(&events, None)
                            .with("fieldSelector", &format!("involvedObject.uid={uid}")),
                    );
                }
            }
            _ => reads.push(Read::list(&events, namespace)),
        }
        for node in family
            .iter()
            .flat_map(|f| f.nodes.iter())
            .take(EVENTS_PER_OBJECT_MAX)
        {
            reads.push(Read::list(&events, None).with(
                "fieldSelector",
                &format!("involvedObject.kind=Node,involvedObject.name={node}"),
            ));
        }
        // The CRDs whose age tells whether Kueue has noticed an integration yet.
        let crd = ApiResource {
            group: "apiextensions.k8s.io".into(),
            version: "v1".into(),
            api_version: "apiextensions.k8s.io/v1".into(),
            kind: "CustomResourceDefinition".into(),
            plural: "customresourcedefinitions".into(),
        };
        for (group, kind) in [
            ("jobset.x-k8s.io", "JobSet"),
            ("leaderworkerset.x-k8s.io", "LeaderWorkerSet"),
        ] {
            let wanted =
                family.is_none_or(|f| f.kinds.contains(&(group.to_string(), kind.to_string())));
            if wanted && let Some((ar, _)) = self.resource(group, kind) {
                reads.push(Read::get(&crd, None, &qualified(ar)));
            }
        }
        // fake-gpu-operator keeps its topology in ConfigMaps next to it.
        if fake_gpu {
            reads.push(
                Read::list(&core("ConfigMap", "configmaps"), None)
                    .with("fieldSelector", "metadata.name=topology"),
            );
        }
        reads
    }

    /// Round 4 and its tail: events and CRDs for what the fan-out found (for one target, or
    /// for a whole scan), then fake-gpu-operator's per-node ConfigMaps once its `topology`
    /// ConfigMap shows where they live.
    async fn follow_ups(
        self: &Arc<Self>,
        haul: &Arc<Haul>,
        target: Option<&Option<Found>>,
        namespace: Option<&str>,
    ) -> Result<(), crate::Failure> {
        let (family, fake_gpu) = haul.found_in(ALL, |found| {
            let fake_gpu = found.iter().any(|f| f.fake_gpu_pool);
            let family = target.and_then(|t| {
                let links = Links::new(found);
                let t = t.as_ref()?;
                links.find(t).map(|id| links.family(id))
            });
            (family, fake_gpu)
        });
        let reads = self.follow_up(family.as_ref(), namespace, fake_gpu);
        let fake_gpu = reads.iter().any(|r| r.kind == "ConfigMap");
        self.fetch_all(reads, haul).await?;
        if fake_gpu {
            let namespaces: BTreeSet<String> = haul.found_in(ALL, |found| {
                found
                    .iter()
                    .filter(|f| f.kind == "ConfigMap" && f.name == "topology")
                    .filter_map(|f| f.namespace.clone())
                    .collect()
            });
            let reads = namespaces
                .iter()
                .map(|ns| Read::list(&core("ConfigMap", "configmaps"), Some(ns)))
                .collect();
            self.fetch_all(reads, haul).await?;
        }
        self.progress.finish();
        Ok(())
    }
}
