//! The rounds of reads that collect one target's bundle (or a namespace's, for `scan`), each
//! round's requests issued together (at most [`super::fetch::CONCURRENCY`] at a time):
//!
//! 1. discovery ([`super::connect`]): one request on a current server;
//! 2. the target, then its owners one by one (owners by name, a handful at most), each only
//!    where the role allows a GET of its kind ([`plan::may_get`]); a JobSet's or a
//!    LeaderWorkerSet's pod reads the top its labels name instead of the Job (StatefulSet)
//!    between, which round 3 lists with the others of the namespace;
//! 3. for a pod, the kinds its diagnosis can read, chosen by what the pod and its owners show
//!    ([`plan::POD_NEEDS`], [`PodSigns`]), and the pods bound to a node (what each node holds);
//!    for any other target, every row of [`plan::wants`] whose API exists, the namespace's pods,
//!    every pod not finished and the Namespace;
//! 4. events (for a namespaced target: its namespace's, and its nodes'; for a cluster-scoped
//!    one, those of the objects that make it up, by uid, unless there are many), the CRDs Kueue
//!    integrations depend on, fake-gpu-operator's topology ConfigMaps when its nodes exist,
//!    and for a KAI pod whose binder waits on a reservation, where the reservation is made;
//! 5. where the cluster serves Kueue's visibility API, each ClusterQueue found's pending
//!    Workloads in Kueue's own order (`visibility.rs`), page by page.
//!
//! A target's lists come from the API server's cache in one answer each, so the number of
//! requests depends on which APIs are installed and what the target shows, never on the
//! cluster's size (except Kueue's visibility API: one request per ClusterQueue found and per
//! 500 of its pending Workloads): at most 15 for a pod on a server with aggregated discovery
//! and no visibility API (the live tests
//! hold every scenario's pods and generated clusters of 12 and 400 nodes to it).

use std::collections::BTreeSet;
use std::sync::Arc;

use kube::discovery::ApiResource;
use layer_core::{ReadLimits, TargetSpec};

use super::fetch::{FetchError, Haul, Read, core, qualified};
use super::links::{self, Family, Found, Links};
use super::{Cluster, Collected, LiveError};
use crate::plan::{self, PodSigns, Scope};

/// Above this many objects, a cluster-scoped target's events are read in one list instead of
/// one field-selected request per object.
const EVENTS_PER_OBJECT_MAX: usize = 40;
/// How far up an owner chain the owners are read.
const OWNER_ROUNDS: usize = 8;
/// The field selector's terms for a node's events, before the node's name.
const NODE_EVENTS: &str = "involvedObject.kind=Node,";

/// A read that stands for a target's owners of a kind (see [`Cluster::owner_shortcuts`]).
struct Shortcut {
    instead_of: (&'static str, &'static str),
    read: Read,
}

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
        let namespace = self.namespace_or_default(spec.namespace.as_deref())?;
        super::check_target("the target", spec)?;
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
            Err(FetchError::Refused(r)) => {
                self.progress.finish();
                return Err(crate::Failure::new(2, "usage", format!("the target: {r}")));
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
        let (target, seq) = target;
        let is_pod = target
            .as_ref()
            .is_some_and(|t| t.kind == "Pod" && t.group.is_empty());
        let shortcuts = if is_pod {
            let labels = haul.text(seq).map(|t| links::pod_signs(&t).labels);
            self.owner_shortcuts(&labels.unwrap_or_default(), &namespace)
        } else {
            Vec::new()
        };
        let (owners, owner_keys) = self
            .read_owners(&target, &namespace, shortcuts, &haul)
            .await?;
        let signs = is_pod.then(|| {
            let mut signs = self.pod_signs(haul.text(seq).as_deref(), &owners);
            signs.owner_keys = owner_keys;
            signs
        });
        let reads = match &signs {
            Some(signs) => self.pod_fan_out(signs, &namespace),
            None => self.fan_out(Some(&namespace), true),
        };
        self.fetch_all(reads, &haul).await?;
        match &signs {
            Some(signs) => {
                self.pod_follow_ups(&haul, signs, &owners, &namespace)
                    .await?
            }
            None => {
                self.follow_ups(&haul, Some(&target), Some(&namespace))
                    .await?
            }
        }
        self.queue_places(&haul).await?;
        let target_meta = serde_json::json!({
            "kind": spec.kind, "namespace": namespace, "name": spec.name,
        });
        self.index(&haul, Some(target_meta), limits)
    }

    /// Round 2: the target, by name, among the kinds its spelling may name, and the number
    /// of its read. `Ok(None)` when none has it; no `Found` when it was read but says nothing
    /// planning can use.
    async fn read_target(
        &self,
        candidates: &[&(ApiResource, bool)],
        spec: &TargetSpec,
        namespace: &str,
        haul: &Haul,
    ) -> Result<Option<(Option<Found>, usize)>, FetchError> {
        let mut last_failure: Option<FetchError> = None;
        for (ar, namespaced) in candidates {
            let ns = namespaced.then_some(namespace);
            let read = Read::get(ar, ns, &spec.name).because("the target");
            self.progress.planned(1);
            let seq = haul.plan(1);
            match self.fetch(&read, seq.start, haul).await {
                Ok(_) => {
                    self.progress.done(1);
                    return Ok(Some((
                        haul.found(seq.clone()).into_iter().next(),
                        seq.start,
                    )));
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
            .map(|(ar, namespaced)| {
                Read::list(ar, namespaced.then_some(namespace))
                    .because("the target is not there: the closest names of its kind")
            })
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
    ///
    /// `shortcuts` stand for the target's own owners of a kind: read instead of them, by name.
    async fn read_owners(
        self: &Arc<Self>,
        target: &Option<Found>,
        namespace: &str,
        shortcuts: Vec<Shortcut>,
        haul: &Arc<Haul>,
    ) -> Result<(Vec<Found>, Vec<String>), crate::Failure> {
        let mut owners = Vec::new();
        let mut keys = Vec::new();
        let mut seen_uids: BTreeSet<String> = BTreeSet::new();
        let mut frontier: Vec<Found> = target.iter().cloned().collect();
        for round in 0..OWNER_ROUNDS {
            let mut next = Vec::new();
            for f in &frontier {
                for o in &f.owners {
                    let group = layer_core::bundle::group_of(&o.api_version);
                    if let Some(s) = shortcuts
                        .iter()
                        .find(|s| round == 0 && s.instead_of == (group, o.kind.as_str()))
                    {
                        if !next
                            .iter()
                            .any(|r: &Read| r.name == s.read.name && r.kind == s.read.kind)
                        {
                            next.push(s.read.clone());
                        }
                        continue;
                    }
                    if !seen_uids.insert(o.uid.clone()) {
                        continue;
                    }
                    if o.api_version.is_empty() || o.kind.is_empty() || o.name.is_empty() {
                        continue;
                    }
                    if !plan::may_get(group, &o.kind) {
                        continue;
                    }
                    if let Some((ar, namespaced)) = self.resource(group, &o.kind) {
                        let ns = namespaced.then_some(namespace);
                        next.push(
                            Read::get(ar, ns, &o.name)
                                .because(format!("owner of {}/{}", f.kind, f.name)),
                        );
                    }
                }
            }
            if next.is_empty() {
                break;
            }
            let seqs = self.fetch_all(next, haul).await?;
            frontier = haul.found(seqs.clone());
            owners.extend(frontier.iter().cloned());
            keys.extend(haul.texts(seqs).iter().flat_map(|t| links::meta_keys(t)));
        }
        Ok((owners, keys))
    }

    /// For a pod of a JobSet or a LeaderWorkerSet: its labels name the top of its chain, and
    /// the fan-out lists the Jobs (StatefulSets) between in the namespace anyway, so the owner
    /// between is not read by itself: one request and one round fewer.
    fn owner_shortcuts(
        &self,
        labels: &std::collections::BTreeMap<String, String>,
        namespace: &str,
    ) -> Vec<Shortcut> {
        let mut out = Vec::new();
        for (label, group, kind, instead_of) in [
            (
                "jobset.sigs.k8s.io/jobset-name",
                "jobset.x-k8s.io",
                "JobSet",
                ("batch", "Job"),
            ),
            (
                "leaderworkerset.sigs.k8s.io/name",
                "leaderworkerset.x-k8s.io",
                "LeaderWorkerSet",
                ("apps", "StatefulSet"),
            ),
        ] {
            let (Some(name), Some((ar, namespaced))) =
                (labels.get(label), self.resource(group, kind))
            else {
                continue;
            };
            let ns = namespaced.then_some(namespace);
            out.push(Shortcut {
                instead_of,
                read: Read::get(ar, ns, name).because(format!(
                    "the {kind} the pod's label names (the {} between is in the namespace's list)",
                    instead_of.1
                )),
            });
        }
        out
    }

    /// `namespace`, or the context's, checked as every request checks it: a namespace that
    /// is not one is refused here, before any read, with where it came from.
    fn namespace_or_default(&self, namespace: Option<&str>) -> Result<String, crate::Failure> {
        match namespace {
            Some(ns) => super::check_namespace("the namespace", ns).map(|()| ns.to_string()),
            None => super::check_namespace(
                "the kubeconfig context's namespace",
                &self.default_namespace,
            )
            .map(|()| self.default_namespace.clone()),
        }
    }

    /// Read everything `scan` looks at in one namespace, or in all of them.
    pub async fn collect_scan(
        self: &Arc<Self>,
        namespace: Option<&str>,
        limits: ReadLimits,
    ) -> Result<Collected, crate::Failure> {
        if let Some(ns) = namespace {
            super::check_namespace("the namespace", ns)?;
        }
        let haul = Arc::new(Haul::new(limits.max_bytes));
        self.fetch_all(self.fan_out(namespace, false), &haul)
            .await?;
        self.follow_ups(&haul, None, namespace).await?;
        self.queue_places(&haul).await?;
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

    /// What the pod and its owners show, and which of the APIs that depend on no sign of the
    /// pod the server has.
    fn pod_signs(&self, text: Option<&str>, owners: &[Found]) -> PodSigns {
        let mut signs = text.map(links::pod_signs).unwrap_or_default();
        signs.owners = owners
            .iter()
            .map(|o| (o.group.clone(), o.kind.clone()))
            .collect();
        signs.kueue = self.resource("kueue.x-k8s.io", "Workload").is_some();
        signs.inference_pools = self.apis.iter().any(|(ar, _)| {
            ar.kind == "InferencePool" && ar.group.starts_with("inference.networking")
        });
        signs
    }

    /// Round 3 for a pod: the kinds of the plan its diagnosis can read ([`plan::POD_NEEDS`]),
    /// each in one answer from the API server's cache, and the pods bound to a node (what
    /// they hold is each node's used capacity; the device stack's pods are among them)
    /// without the Pending ones, which hold no node's capacity.
    fn pod_fan_out(&self, signs: &PodSigns, namespace: &str) -> Vec<Read> {
        let mut reads = Vec::new();
        for want in plan::wants() {
            if !signs.needs(want.group, plan::pod_need(want.group, want.kind)) {
                continue;
            }
            let Some((ar, namespaced)) = self.resource(want.group, want.kind) else {
                continue; // not installed: its absence is in `apis`
            };
            let ns = (*namespaced && want.scope == Scope::Namespace).then_some(namespace);
            reads.push(
                Read::list(ar, ns)
                    .cached()
                    .because(format!("{}: {}", want.kind, want.why)),
            );
        }
        let pods = core("Pod", "pods");
        reads.push(
            Read::list(&pods, None)
                .with(
                    "fieldSelector",
                    "spec.nodeName!=,status.phase!=Succeeded,status.phase!=Failed",
                )
                .cached()
                .final_read()
                .because("pods bound to a node: what each node holds, the device stack's pods"),
        );
        if signs.needs_namespace_pods() {
            reads.push(Read::list(&pods, Some(namespace)).cached().because(
                "the namespace's pods: the pod's group, leader, endpoints or replacement",
            ));
        }
        reads
    }

    /// Round 4 for a pod: the events of its namespace (the pod's, its owners', its
    /// Workload's and PodGroup's, in one answer) and of the node it is bound to, the CRDs of
    /// the integrations that own it, and fake-gpu-operator's topology when its nodes exist.
    async fn pod_follow_ups(
        self: &Arc<Self>,
        haul: &Arc<Haul>,
        signs: &PodSigns,
        owners: &[Found],
        namespace: &str,
    ) -> Result<(), crate::Failure> {
        let events = core("Event", "events");
        let mut reads = vec![
            Read::list(&events, Some(namespace))
                .cached()
                .final_read()
                .because("events of the namespace: what each component said about the pod, its owners, Workload and PodGroup"),
        ];
        if let Some(node) = &signs.node {
            reads.push(
                Read::list(&events, None)
                    .selecting(NODE_EVENTS, "involvedObject.name", node)
                    .because("events of the pod's node"),
            );
        }
        let kinds: BTreeSet<(String, String)> = owners
            .iter()
            .map(|o| (o.group.clone(), o.kind.clone()))
            .collect();
        // Their age matters only to a Kueue that may manage the pod.
        if signs.needs("", plan::Need::Kueue) {
            reads.extend(self.integration_crds(Some(&kinds)));
        }
        let fake_gpu = haul.found_in(ALL, |found| found.iter().any(|f| f.fake_gpu_pool));
        if fake_gpu {
            reads.push(self.fake_gpu_topology());
            // fake-gpu-operator's install: the `nvidia` RuntimeClass it relies on.
            if !signs.runtime_class
                && let Some((ar, _)) = self.resource("node.k8s.io", "RuntimeClass")
            {
                reads.push(
                    Read::list(ar, None)
                        .cached()
                        .because("RuntimeClass: fake-gpu-operator's `nvidia` handler"),
                );
            }
        }
        let seqs = self.fetch_all(reads, haul).await?;
        if fake_gpu {
            self.fake_gpu_node_topologies(haul).await?;
        }
        if signs.kai_reservation || haul.any_text(seqs, |t| t.contains(plan::KAI_RESERVATION)) {
            self.fetch_all(self.reservation_reads(), haul).await?;
        }
        self.progress.finish();
        Ok(())
    }

    /// The Deployments and DaemonSets that may say where fake-gpu-operator reserves GPUs.
    fn reservation_reads(&self) -> Vec<Read> {
        plan::wants()
            .filter(|w| plan::pod_need(w.group, w.kind) == plan::Need::Reservation)
            .filter_map(|w| {
                let (ar, _) = self.resource(w.group, w.kind)?;
                Some(Read::list(ar, None).cached().because(format!(
                    "{}: where fake-gpu-operator reserves GPUs, which KAI's binder waits on",
                    w.kind
                )))
            })
            .collect()
    }

    /// Round 3: every kind of the plan whose API exists, the pods, the Namespace. `cached`:
    /// each list in one answer from the API server's cache (for a target, so the number of
    /// requests does not grow with the cluster), else page by page (for `scan`, whose lists
    /// are the cluster's every object).
    fn fan_out(&self, namespace: Option<&str>, cached: bool) -> Vec<Read> {
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
            let read = Read::list(ar, ns).because(format!("{}: {}", want.kind, want.why));
            reads.push(if want.kind == "Node" || cached {
                read.cached()
            } else {
                read
            });
        }
        let pods = core("Pod", "pods");
        match namespace {
            Some(ns) => {
                let pods_here = Read::list(&pods, Some(ns)).because("the namespace's pods");
                reads.push(if cached {
                    pods_here.cached()
                } else {
                    pods_here
                });
                // What runs on every node, for free capacity and the device plugin's pods.
                reads.push(
                    Read::list(&pods, None)
                        .with(
                            "fieldSelector",
                            "status.phase!=Succeeded,status.phase!=Failed",
                        )
                        .cached()
                        .because(
                            "pods not finished: what each node holds, the device stack's pods",
                        ),
                );
                reads.push(
                    Read::get(&core("Namespace", "namespaces"), None, ns)
                        .because("the namespace: its labels"),
                );
            }
            None => {
                // `scan` plans nothing from its pods (its later rounds read Nodes and ConfigMaps).
                reads.push(Read::list(&pods, None).final_read().because("every pod"));
                reads.push(
                    Read::list(&core("Namespace", "namespaces"), None)
                        .because("the namespaces: their labels"),
                );
            }
        }
        reads
    }

    /// Round 4: events of the target's namespace or objects (of a whole namespace for `scan`), the CRDs of
    /// the integrations among them, fake-gpu-operator's topology when its nodes exist.
    fn follow_up(
        &self,
        family: Option<&Family>,
        target_namespace: Option<&str>,
        namespace: Option<&str>,
        fake_gpu: bool,
    ) -> Vec<Read> {
        let events = core("Event", "events");
        let mut reads = Vec::new();
        match (family, target_namespace) {
            // A namespaced target's view links objects no owner reference reaches (an
            // InferencePool's pods by selector, a Job's Workload by label), and their events
            // are all in its namespace: one list holds them whatever the view links.
            (Some(_), Some(ns)) => reads.push(
                Read::list(&events, Some(ns))
                    .cached()
                    .because("events of the target's namespace: what each component said about the objects its diagnosis links"),
            ),
            (Some(f), None) if f.uids.len() <= EVENTS_PER_OBJECT_MAX => {
                for uid in &f.uids {
                    reads.push(
                        Read::list(&events, None)
                            .selecting("", "involvedObject.uid", uid)
                            .because("events of an object of the target"),
                    );
                }
            }
            _ => reads.push(Read::list(&events, namespace).because("events of the namespace")),
        }
        for node in family
            .iter()
            .flat_map(|f| f.nodes.iter())
            .take(EVENTS_PER_OBJECT_MAX)
        {
            reads.push(
                Read::list(&events, None)
                    .selecting(NODE_EVENTS, "involvedObject.name", node)
                    .because("events of a node the target's pods run on"),
            );
        }
        reads.extend(self.integration_crds(family.map(|f| &f.kinds)));
        if fake_gpu {
            reads.push(self.fake_gpu_topology());
        }
        reads
    }

    /// The CRDs whose age tells whether Kueue has noticed an integration yet: of the
    /// integrations among `kinds` (all of them for `scan`).
    fn integration_crds(&self, kinds: Option<&BTreeSet<(String, String)>>) -> Vec<Read> {
        let crd = ApiResource {
            group: "apiextensions.k8s.io".into(),
            version: "v1".into(),
            api_version: "apiextensions.k8s.io/v1".into(),
            kind: "CustomResourceDefinition".into(),
            plural: "customresourcedefinitions".into(),
        };
        let mut reads = Vec::new();
        for (group, kind) in [
            ("jobset.x-k8s.io", "JobSet"),
            ("leaderworkerset.x-k8s.io", "LeaderWorkerSet"),
        ] {
            let wanted = kinds.is_none_or(|k| k.contains(&(group.to_string(), kind.to_string())));
            if wanted && let Some((ar, _)) = self.resource(group, kind) {
                reads.push(
                    Read::get(&crd, None, &qualified(ar))
                        .because(format!("the {kind} CRD: when Kueue could notice it")),
                );
            }
        }
        reads
    }

    /// fake-gpu-operator keeps its topology in ConfigMaps next to it: the `topology` one first.
    fn fake_gpu_topology(&self) -> Read {
        Read::list(&core("ConfigMap", "configmaps"), None)
            .with("fieldSelector", "metadata.name=topology")
            .because("fake-gpu-operator's topology ConfigMap")
    }

    /// fake-gpu-operator's per-node ConfigMaps, in the namespaces its `topology` ConfigMap is in.
    async fn fake_gpu_node_topologies(
        self: &Arc<Self>,
        haul: &Arc<Haul>,
    ) -> Result<(), crate::Failure> {
        let namespaces: BTreeSet<String> = haul.found_in(ALL, |found| {
            found
                .iter()
                .filter(|f| f.kind == "ConfigMap" && f.name == "topology")
                .filter_map(|f| f.namespace.clone())
                .collect()
        });
        let reads = namespaces
            .iter()
            .map(|ns| {
                Read::list(&core("ConfigMap", "configmaps"), Some(ns))
                    .because("fake-gpu-operator's per-node topology ConfigMaps")
            })
            .collect();
        self.fetch_all(reads, haul).await?;
        Ok(())
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
        let target_namespace = target
            .and_then(Option::as_ref)
            .and_then(|t| t.namespace.as_deref());
        let reads = self.follow_up(family.as_ref(), target_namespace, namespace, fake_gpu);
        let fake_gpu = reads.iter().any(|r| r.kind == "ConfigMap");
        self.fetch_all(reads, haul).await?;
        if fake_gpu {
            self.fake_gpu_node_topologies(haul).await?;
        }
        self.progress.finish();
        Ok(())
    }
}
