//! `fit`: would this work run here, and which layer would stop it? The manifest's work (a Pod,
//! Job, JobSet, LeaderWorkerSet, Deployment or StatefulSet, as one would `kubectl apply` it) is
//! placed into the cluster's bundle as if submitted now, together with what its controllers
//! would make of it ([`synth`]: pods Pending and unscheduled, child Jobs and StatefulSets, a
//! KAI PodGroup) and how Kueue would take it in ([`kueue`]: suspended, with a Workload not
//! admitted yet). The whole is indexed once and each piece of work is diagnosed by the same
//! engine and rules as `why`; the facts a not-yet-scheduled pod needs (nodes that pass its
//! selectors, affinity and taints with room for it, quota left in its ClusterQueue, whether its
//! group can ever be placed whole) decide where no scheduler has spoken yet. The target's
//! status is `NotSubmitted`.
//!
//! Not a second scheduler: it says whether some node could take each pod and whether quota
//! would admit the work, not which node the scheduler would pick. What it does not model is
//! listed in every diagnosis's `missing` ([`NOT_MODELLED`]).

mod aside;
mod kueue;
mod lookup;
mod synth;

use crate::bundle::{Bundle, RawObject, group_of};
use crate::diagnosis::{Diagnosis, Missing};
use crate::engine::{Engine, Options};
use crate::error::FitError;
use crate::index::{Hypothesis, Index, ObjId};
use serde_json::{Value, json};

/// What `fit` does not model, said in every diagnosis it writes.
pub const NOT_MODELLED: &[&str] = &[
    "scheduler scores and preferences (preferred node affinity, soft topology spread, image locality): fit says whether some node could take each pod now, not which node the scheduler would pick",
    "preemption outcomes: work of higher priority may evict running pods or Workloads (kube-scheduler, Kueue, KAI); fit judges against what runs now",
    "DRA CEL selectors: a claim's DeviceClass and the drivers' ResourceSlices are checked, not whether a device matches the class's or the request's selectors",
    "inter-pod affinity, anti-affinity and topology spread against pods that do not exist yet, the submission's own included",
    "what shows only once it runs: image pulls, container start, probes, the GPU runtime hook, kubelet device admission",
    "Kueue beyond one ClusterQueue and its cohort's unused nominal quota: fair sharing, hierarchical Cohort objects, admission checks, topology-aware scheduling, pod sets split across flavors",
];

/// The kinds `fit` judges: (API group, kind).
const WORK_KINDS: &[(&str, &str)] = &[
    ("", "Pod"),
    ("batch", "Job"),
    ("jobset.x-k8s.io", "JobSet"),
    ("leaderworkerset.x-k8s.io", "LeaderWorkerSet"),
    ("apps", "Deployment"),
    ("apps", "StatefulSet"),
];

/// Kinds that live in no namespace: a manifest object of one is not put in `-n`'s.
const CLUSTER_SCOPED: &[&str] = &[
    "Namespace",
    "Node",
    "PersistentVolume",
    "StorageClass",
    "PriorityClass",
    "RuntimeClass",
    "DeviceClass",
    "ResourceSlice",
    "CustomResourceDefinition",
    "ClusterQueue",
    "ResourceFlavor",
    "Cohort",
    "WorkloadPriorityClass",
    "AdmissionCheck",
    "Queue",
    "ClusterRole",
    "ClusterRoleBinding",
    "ClusterPolicy",
];

/// Options of a fit.
#[derive(Debug, Clone, Default)]
pub struct FitOptions {
    /// The namespace of manifest objects that name none (`-n`); `default` when unset.
    pub namespace: Option<String>,
    /// "Now" as RFC 3339 (as for `why`).
    pub now: Option<String>,
    /// Threads to index on (0: one per core).
    pub threads: usize,
}

/// A manifest object ready to be placed.
struct Submitted {
    value: Value,
    group: String,
    kind: String,
    namespace: Option<String>,
    name: String,
}

impl Submitted {
    fn is_work(&self) -> bool {
        WORK_KINDS.contains(&(self.group.as_str(), self.kind.as_str()))
    }

    fn display(&self) -> String {
        match &self.namespace {
            Some(ns) => format!("{} {ns}/{}", self.kind, self.name),
            None => format!("{} {}", self.kind, self.name),
        }
    }
}

/// What fit notes for one piece of work, beyond the diagnosis.
#[derive(Default)]
struct Notes(Vec<Missing>);

impl Notes {
    fn say(&mut self, why: String) {
        self.0.push(Missing {
            kind: String::new(),
            api_version: None,
            resource: None,
            namespace: None,
            name: None,
            why,
        });
    }
}

/// Judge every piece of work of `manifest` against `cluster`, as if submitted now: one
/// diagnosis per Pod, Job, JobSet, LeaderWorkerSet, Deployment or StatefulSet, in manifest
/// order. The manifest's other objects (a LocalQueue, a ResourceClaimTemplate, a
/// RuntimeClass) are applied with it.
pub fn fit(
    engine: &Engine,
    cluster: Bundle,
    manifest: &Bundle,
    opts: &FitOptions,
) -> Result<Vec<Diagnosis>, FitError> {
    Ok(evaluate(engine, cluster, manifest, opts)?
        .into_iter()
        .map(|(d, _)| d)
        .collect())
}

/// [`fit`], with the id of every rule that matched each piece of work (what rule fixtures
/// look at).
pub fn evaluate(
    engine: &Engine,
    cluster: Bundle,
    manifest: &Bundle,
    opts: &FitOptions,
) -> Result<Vec<(Diagnosis, Vec<String>)>, FitError> {
    let placed = place(cluster, manifest, opts)?;
    let core_opts = Options {
        now: opts.now.clone(),
        threads: opts.threads,
    };
    Ok(placed
        .works
        .into_iter()
        .map(|(id, notes)| {
            let (mut d, matched) = engine.evaluate(&placed.index, id, &core_opts);
            d.missing.extend(notes);
            for why in NOT_MODELLED {
                d.missing.push(Missing {
                    kind: String::new(),
                    api_version: None,
                    resource: None,
                    namespace: None,
                    name: None,
                    why: format!("not modelled: {why}"),
                });
            }
            d.missing.sort();
            d.missing.dedup();
            (d, matched)
        })
        .collect())
}

/// The manifest placed into the cluster as if submitted now, indexed once.
pub struct Placed {
    pub index: Index,
    /// Each piece of work of the manifest, in manifest order, with what fit notes of it (what
    /// it assumed, what it set aside) for the diagnosis's `missing`.
    pub works: Vec<(ObjId, Vec<Missing>)>,
}

/// Place the manifest's work into the cluster as if submitted now, with what its controllers
/// and Kueue would make of it (see the module docs), and index the whole once: what [`fit`]
/// diagnoses, and what a view of the placed work is built from.
pub fn place(cluster: Bundle, manifest: &Bundle, opts: &FitOptions) -> Result<Placed, FitError> {
    let now = opts
        .now
        .clone()
        .or_else(|| cluster.meta().and_then(|m| m.collected_at.clone()));
    let mut uids = synth::Uids::new();
    let submitted = read_manifest(manifest, opts.namespace.as_deref(), &mut uids)?;
    let (cluster, aside, aside_notes) = set_aside_copies(cluster, &submitted, opts.threads);
    let values: Vec<Value> = submitted.iter().map(|s| s.value.clone()).collect();
    let look = lookup::Lookup {
        cluster: &cluster,
        manifest: &values,
    };
    let plugin = look.extended_resource_tolerations();
    // The controllers' work: each piece of work and what would be made of it.
    let mut made: Vec<Value> = Vec::new();
    let mut works: Vec<(usize, crate::index::KueueIntake, Notes)> = Vec::new();
    for (i, s) in submitted.iter().enumerate() {
        if !s.is_work() {
            made.push(s.value.clone());
            continue;
        }
        let mut notes = Notes::default();
        let (intake, assumed) = kueue::intake(&look, &s.value, &s.group, &s.kind);
        notes.0.extend(assumed.map(|why| Missing {
            kind: "ConfigMap".into(),
            api_version: Some("v1".into()),
            resource: None,
            namespace: Some("kueue-system".into()),
            name: Some("kueue-manager-config".into()),
            why,
        }));
        let uid = s.value["metadata"]["uid"]
            .as_str()
            .unwrap_or("")
            .to_string();
        let mut work = s.value.clone();
        let mut ctx = synth::Ctx {
            uids: &mut uids,
            created: now.as_deref(),
            look: &look,
            out: Vec::new(),
            pods_made: 0,
            extended_tolerations: plugin.is_some(),
        };
        let m = synth::make(&mut ctx, &mut work, &s.kind, &uid, intake.managed);
        if m.held_by_manifest {
            notes.say(format!(
                "{} sets spec.suspend: true and nothing would resume it (Kueue does not manage it: {}), so no pod would be created",
                s.display(),
                intake.reason
            ));
        }
        if m.pods_made < m.pods_wanted {
            notes.say(format!(
                "{} would make {} pods; fit placed the first {} (sizes and quota are read from the spec)",
                s.display(),
                m.pods_wanted,
                m.pods_made
            ));
        }
        if intake.managed && intake.queue_found {
            let wl_uid = uids.next();
            made.push(kueue::workload(
                &work,
                &s.kind,
                &uid,
                &wl_uid,
                now.as_deref(),
                &m.pod_sets,
            ));
        }
        made.extend(m.objects);
        notes.0.extend(aside_notes.iter().cloned());
        if let Some(why) = &plugin {
            notes.say(why.clone());
        }
        works.push((i, intake, notes));
    }
    if works.is_empty() {
        return Err(FitError::NoWork {
            found: submitted.iter().map(Submitted::display).collect(),
        });
    }
    let index = index_with(cluster, &made, &submitted, &works, aside, opts.threads);
    let works = works
        .into_iter()
        .filter_map(|(i, _, notes)| {
            let s = &submitted[i];
            let id = index.get(&s.group, &s.kind, s.namespace.as_deref(), &s.name)?;
            Some((id, notes.0))
        })
        .collect();
    Ok(Placed { index, works })
}

/// The objects that belong to a piece of work of the index (itself, its pods, controllers,
/// Workloads and the events about them): what `fit` sets aside when the manifest submits that
/// work again.
pub fn own_objects(ix: &Index, work: ObjId) -> Vec<ObjId> {
    aside::set_aside(ix, &[work]).positions
}

/// The manifest's objects, each with a namespace (unless cluster-scoped), a uid, no status.
fn read_manifest(
    manifest: &Bundle,
    namespace: Option<&str>,
    uids: &mut synth::Uids,
) -> Result<Vec<Submitted>, FitError> {
    let mut out = Vec::new();
    for o in manifest.objects() {
        let mut v = manifest.value(o);
        let ns = placed_namespace(o, namespace)?;
        let Some(meta) = v.get_mut("metadata").and_then(Value::as_object_mut) else {
            continue;
        };
        // As the API server keeps it on create: no status, no server-set fields.
        for k in [
            "resourceVersion",
            "generation",
            "managedFields",
            "creationTimestamp",
            "deletionTimestamp",
            "selfLink",
        ] {
            meta.remove(k);
        }
        meta.insert("uid".into(), json!(uids.next()));
        match &ns {
            Some(n) => meta.insert("namespace".into(), json!(n)),
            None => meta.remove("namespace"),
        };
        if let Some(m) = v.as_object_mut() {
            m.remove("status");
        }
        out.push(Submitted {
            value: v,
            group: o.group().to_string(),
            kind: o.kind.clone(),
            namespace: ns,
            name: o.name.clone(),
        });
    }
    Ok(out)
}

/// The namespace an object is created in: its own, else `-n`'s, else `default`; none for a
/// cluster-scoped kind. Its own and `-n`'s must agree.
fn placed_namespace(o: &RawObject, flag: Option<&str>) -> Result<Option<String>, FitError> {
    if CLUSTER_SCOPED.contains(&o.kind.as_str()) {
        return Ok(None);
    }
    match (o.namespace.as_deref(), flag) {
        (Some(own), Some(f)) if own != f => Err(FitError::NamespaceMismatch {
            object: format!("{} {}", o.kind, o.name),
            object_namespace: own.to_string(),
            namespace: f.to_string(),
        }),
        (Some(own), _) => Ok(Some(own.to_string())),
        (None, Some(f)) => Ok(Some(f.to_string())),
        (None, None) => Ok(Some("default".to_string())),
    }
}

/// Set aside the cluster's own copies of the manifest's work (and what belongs to them), so
/// the manifest is judged as a new submission. Indexes the cluster first only when there is
/// such a copy.
fn set_aside_copies(
    cluster: Bundle,
    submitted: &[Submitted],
    threads: usize,
) -> (Bundle, Option<aside::SetAside>, Vec<Missing>) {
    let same = |o: &RawObject, s: &Submitted| {
        o.name == s.name && o.kind == s.kind && o.namespace == s.namespace && o.group() == s.group
    };
    let copies: Vec<&Submitted> = submitted
        .iter()
        .filter(|s| s.is_work() && cluster.objects().iter().any(|o| same(o, s)))
        .collect();
    if copies.is_empty() {
        return (cluster, None, Vec::new());
    }
    let ix = Index::build(cluster, threads);
    let roots: Vec<usize> = copies
        .iter()
        .filter_map(|s| ix.get(&s.group, &s.kind, s.namespace.as_deref(), &s.name))
        .collect();
    let aside = aside::set_aside(&ix, &roots);
    let notes = copies
        .iter()
        .map(|s| Missing {
            kind: s.kind.clone(),
            api_version: s.value["apiVersion"].as_str().map(str::to_string),
            resource: None,
            namespace: s.namespace.clone(),
            name: Some(s.name.clone()),
            why: format!(
                "already in the cluster: fit set that copy aside, with {} objects of it (pods, controllers, Workloads, events), and judged the manifest as a new submission",
                aside.positions.len()
            ),
        })
        .collect();
    let mut bundle = ix.into_bundle();
    bundle.remove(&aside.positions);
    (bundle, Some(aside), notes)
}

/// The cluster with everything made added, indexed once, with what fit assumed recorded.
fn index_with(
    mut cluster: Bundle,
    made: &[Value],
    submitted: &[Submitted],
    works: &[(usize, crate::index::KueueIntake, Notes)],
    aside: Option<aside::SetAside>,
    threads: usize,
) -> Index {
    let list = json!({"apiVersion": "v1", "kind": "List", "items": made});
    // Made from parsed objects, so it parses; an error here would be a bug, and leaves the
    // cluster as it is.
    if let Ok(b) = Bundle::parse(list.to_string()) {
        cluster.merge(b);
    }
    let mut ix = Index::build(cluster, threads);
    let ident = |v: &Value| {
        let s = |p: &str| v.pointer(p).and_then(Value::as_str);
        (
            group_of(s("/apiVersion").unwrap_or("")).to_string(),
            s("/kind").unwrap_or("").to_string(),
            s("/metadata/namespace").map(str::to_string),
            s("/metadata/name").unwrap_or("").to_string(),
        )
    };
    let not_submitted = made
        .iter()
        .filter_map(|v| {
            let (g, k, ns, n) = ident(v);
            ix.get(&g, &k, ns.as_deref(), &n)
        })
        .collect();
    let kueue = works
        .iter()
        .filter_map(|(i, intake, _)| {
            let s = &submitted[*i];
            let id = ix.get(&s.group, &s.kind, s.namespace.as_deref(), &s.name)?;
            Some((id, intake.clone()))
        })
        .collect();
    let (set_aside_usage, set_aside_requests) =
        aside.map_or_else(Default::default, |a| (a.usage, a.pod_requests));
    ix.set_hypothesis(Hypothesis {
        not_submitted,
        kueue,
        set_aside_usage,
        set_aside_requests,
    });
    ix
}
