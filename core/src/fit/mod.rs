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
mod meta;
mod refuse;
mod synth;

use crate::bundle::{Bundle, RawObject, group_of};
use crate::diagnosis::{Diagnosis, Missing};
use crate::engine::{Engine, Options};
use crate::error::FitError;
use crate::index::{Hypothesis, Index, ObjId};
use crate::json::At as _;
use serde_json::Value;

/// What `fit` does not model, said in every diagnosis it writes.
pub const NOT_MODELLED: &[&str] = &[
    "scheduler scores and preferences (preferred node affinity, soft topology spread, image locality): fit says whether some node could take each pod now, not which node the scheduler would pick",
    "preemption outcomes: work of higher priority may evict running pods or Workloads (kube-scheduler, Kueue, KAI); fit judges against what runs now",
    "DRA CEL selectors: a claim's DeviceClass and the drivers' ResourceSlices are checked, not whether a device matches the class's or the request's selectors",
    "inter-pod affinity, anti-affinity and topology spread against pods that do not exist yet, the submission's own included",
    "kube-scheduler filters other than NodeAffinity, TaintToleration, NodeUnschedulable and NodeResourcesFit (requests and pod count): NodeName (a pod naming its node skips the scheduler), NodePorts (host ports in use), VolumeBinding, VolumeZone, VolumeRestrictions and NodeVolumeLimits",
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
    /// The namespace given for the manifest (`-n`): objects that name none are placed there,
    /// and an object naming another is refused.
    pub namespace: Option<String>,
    /// Without `namespace`, where objects that name none go (the kubeconfig context's
    /// namespace for a live read); `default` when unset too.
    pub default_namespace: Option<String>,
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

/// A piece of work being placed: its place in the manifest, how Kueue would take it in, what
/// fit notes of it, and each pod set's first pod made (by name) with the set's pod count.
type Work = (usize, crate::index::KueueIntake, Notes, Vec<(String, u64)>);

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
        .map(|(id, mut notes)| {
            let (mut d, matched) = engine.evaluate(&placed.index, id, &core_opts);
            // The notes quote the manifest, which the engine did not clean.
            notes.iter_mut().for_each(Missing::without_credentials);
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
    /// Pods and controller objects the controllers' work asked to make, made or not: bounded
    /// by what is placed (at most [`synth::MAX_PODS`] pods a piece of work), never by the
    /// replicas or parallelism a manifest declares. Tests hold placing to it.
    pub attempts: u64,
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
    let submitted = read_manifest(manifest, opts, &mut uids)?;
    let (cluster, aside, aside_notes) = set_aside_copies(cluster, &submitted, opts.threads);
    let values: Vec<Value> = submitted.iter().map(|s| s.value.clone()).collect();
    let look = lookup::Lookup::new(&cluster, &values);
    let plugin = look.extended_resource_tolerations();
    // The controllers' work: each piece of work and what would be made of it.
    let mut made: Vec<Value> = Vec::new();
    let mut works: Vec<Work> = Vec::new();
    let mut attempts = 0u64;
    for (i, s) in submitted.iter().enumerate() {
        if !s.is_work() {
            made.push(s.value.clone());
            continue;
        }
        refuse::check(&s.value, &s.display())?;
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
            attempts: 0,
            set: 0,
            first_pods: Vec::new(),
            extended_tolerations: plugin.is_some(),
        };
        let m = synth::make(&mut ctx, &mut work, &s.kind, &uid, intake.managed);
        attempts += ctx.attempts;
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
        let pod_sets = m
            .pod_sets
            .iter()
            .zip(m.first_pods)
            .filter_map(|(set, first)| Some((first?, set.count)))
            .collect();
        works.push((i, intake, notes, pod_sets));
    }
    if works.is_empty() {
        return Err(FitError::NoWork {
            found: submitted.iter().map(Submitted::display).collect(),
        });
    }
    let index = index_with(cluster, &made, &submitted, &works, aside, opts.threads);
    let works = works
        .into_iter()
        .filter_map(|(i, _, notes, _)| {
            let s = &submitted[i];
            let id = index.get(&s.group, &s.kind, s.namespace.as_deref(), &s.name)?;
            Some((id, notes.0))
        })
        .collect();
    Ok(Placed {
        index,
        works,
        attempts,
    })
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
    opts: &FitOptions,
    uids: &mut synth::Uids,
) -> Result<Vec<Submitted>, FitError> {
    let mut out = Vec::new();
    for o in manifest.objects() {
        let mut v = manifest.value(o);
        let ns = placed_namespace(o, opts)?;
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
        meta.insert("uid".into(), uids.next().into());
        match &ns {
            Some(n) => meta.insert("namespace".into(), n.as_str().into()),
            None => meta.remove("namespace"),
        };
        if let Some(m) = v.as_object_mut() {
            m.remove("status");
        }
        out.push(Submitted {
            value: v,
            group: o.group().to_string(),
            kind: o.kind().to_string(),
            namespace: ns,
            name: o.name.clone(),
        });
    }
    Ok(out)
}

/// The namespace an object is created in: its own, else `-n`'s, else the default one
/// (`default` unless set); none for a cluster-scoped kind. Its own and `-n`'s must agree, as
/// kubectl requires.
fn placed_namespace(o: &RawObject, opts: &FitOptions) -> Result<Option<String>, FitError> {
    if CLUSTER_SCOPED.contains(&o.kind().as_str()) {
        return Ok(None);
    }
    match (o.namespace(), opts.namespace.as_deref()) {
        (Some(own), Some(f)) if own != f => Err(FitError::NamespaceMismatch {
            object: format!("{} {}", o.kind(), o.name),
            object_namespace: own.to_string(),
            namespace: f.to_string(),
        }),
        (Some(own), _) => Ok(Some(own.to_string())),
        (None, Some(f)) => Ok(Some(f.to_string())),
        (None, None) => Ok(Some(
            opts.default_namespace
                .clone()
                .unwrap_or_else(|| "default".to_string()),
        )),
    }
}

/// The namespaces the manifest's objects would be created in: what a live read must cover.
pub fn namespaces(
    manifest: &Bundle,
    opts: &FitOptions,
) -> Result<std::collections::BTreeSet<String>, FitError> {
    let mut out = std::collections::BTreeSet::new();
    for o in manifest.objects() {
        out.extend(placed_namespace(o, opts)?);
    }
    Ok(out)
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
        o.name == s.name
            && *o.kind() == s.kind
            && o.namespace() == s.namespace.as_deref()
            && o.group() == s.group
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
    works: &[Work],
    aside: Option<aside::SetAside>,
    threads: usize,
) -> Index {
    let mut list = String::from(r#"{"apiVersion":"v1","kind":"List","items":["#);
    for (i, v) in made.iter().enumerate() {
        if i > 0 {
            list.push(',');
        }
        list.push_str(&v.to_string());
    }
    list.push_str("]}");
    // Made from parsed objects, so it parses; an error here would be a bug, and leaves the
    // cluster as it is.
    if let Ok(b) = Bundle::parse(list) {
        cluster.merge(b);
    }
    let mut ix = Index::build(cluster, threads);
    let ident = |v: &Value| {
        let s = |p: &str| v.at(p).and_then(Value::as_str);
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
    let work_id = |i: usize| {
        let s = &submitted[i];
        ix.get(&s.group, &s.kind, s.namespace.as_deref(), &s.name)
    };
    let kueue = works
        .iter()
        .filter_map(|(i, intake, _, _)| Some((work_id(*i)?, intake.clone())))
        .collect();
    // Each pod set's first pod, found by name in the work's namespace.
    let pod_sets = works
        .iter()
        .filter_map(|(i, _, _, sets)| {
            let ns = submitted[*i].namespace.as_deref();
            let pods = sets
                .iter()
                .filter_map(|(pod, count)| Some((ix.get("", "Pod", ns, pod)?, *count)))
                .collect();
            Some((work_id(*i)?, pods))
        })
        .collect();
    let (set_aside_usage, set_aside_requests) =
        aside.map_or_else(Default::default, |a| (a.usage, a.pod_requests));
    ix.set_hypothesis(Hypothesis {
        not_submitted,
        kueue,
        pod_sets,
        set_aside_usage,
        set_aside_requests,
    });
    ix
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn bundle(items: Vec<Value>) -> Bundle {
        Bundle::parse(json!({"apiVersion": "v1", "kind": "List", "items": items}).to_string())
            .expect("parses")
    }

    fn node(name: &str, gpus: u32) -> Value {
        json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
               "status": {"allocatable": {"cpu": "64", "memory": "512Gi", "nvidia.com/gpu": gpus.to_string()}}})
    }

    fn gpu_container(gpus: u32) -> Value {
        json!([{"name": "c", "image": "i", "resources": {"limits": {"nvidia.com/gpu": gpus.to_string()}}}])
    }

    /// The placed objects of one kind, by name, from the index.
    fn placed(p: &Placed, kind: &str) -> Vec<Value> {
        let mut out: Vec<Value> = p
            .index
            .of_kind(kind)
            .iter()
            .filter(|&&id| p.index.not_submitted(id))
            .map(|&id| p.index.value(id))
            .collect();
        out.sort_by_key(|v| v["metadata"]["name"].as_str().unwrap_or("").to_string());
        out
    }

    #[test]
    fn an_lws_gets_its_leader_and_workers_per_group_with_the_labels_lws_writes() {
        let lws = json!({"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet",
            "metadata": {"name": "vllm", "namespace": "serving"},
            "spec": {"replicas": 2, "leaderWorkerTemplate": {"size": 3,
                "workerTemplate": {"metadata": {"labels": {"role": "worker"}}, "spec": {"containers": gpu_container(8)}}}}});
        let p = place(
            bundle(vec![node("n1", 8)]),
            &bundle(vec![lws]),
            &FitOptions::default(),
        )
        .expect("places");
        let pods = placed(&p, "Pod");
        let names: Vec<&str> = pods
            .iter()
            .map(|v| v["metadata"]["name"].as_str().unwrap_or(""))
            .collect();
        assert_eq!(
            names,
            [
                "vllm-0", "vllm-0-1", "vllm-0-2", "vllm-1", "vllm-1-1", "vllm-1-2"
            ]
        );
        let w = &pods[2]["metadata"];
        assert_eq!(w["labels"]["leaderworkerset.sigs.k8s.io/group-index"], "0");
        assert_eq!(w["labels"]["leaderworkerset.sigs.k8s.io/worker-index"], "2");
        assert_eq!(w["labels"]["role"], "worker", "the template's labels stay");
        assert_eq!(w["annotations"]["leaderworkerset.sigs.k8s.io/size"], "3");
        assert_eq!(
            w["annotations"]["leaderworkerset.sigs.k8s.io/leader-name"],
            "vllm-0"
        );
        assert!(
            pods.iter()
                .all(|v| v["status"]["phase"] == "Pending" && v["spec"].get("nodeName").is_none())
        );
        let sets: Vec<String> = placed(&p, "StatefulSet")
            .iter()
            .map(|v| v["metadata"]["name"].to_string())
            .collect();
        assert_eq!(sets, ["\"vllm\"", "\"vllm-0\"", "\"vllm-1\""]);
        // The view finds the group by those labels: a group of 3.
        let (work, _) = &p.works[0];
        assert_eq!(p.index.object(*work).kind(), "LeaderWorkerSet");
        let view = crate::view::build(&p.index, *work, None);
        assert_eq!(view.value["facts"]["group"]["expected"], 3);
        assert_eq!(view.status, crate::diagnosis::NOT_SUBMITTED);
    }

    #[test]
    fn a_jobset_gets_its_child_jobs_and_their_pods() {
        let js = json!({"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
            "metadata": {"name": "train", "namespace": "ml"},
            "spec": {"replicatedJobs": [
                {"name": "driver", "template": {"spec": {"template": {"spec": {"containers": gpu_container(0)}}}}},
                {"name": "workers", "replicas": 2, "template": {"spec": {"parallelism": 3, "completions": 2, "completionMode": "Indexed",
                    "template": {"spec": {"containers": gpu_container(4)}}}}}]}});
        let p = place(
            bundle(vec![node("n1", 8)]),
            &bundle(vec![js]),
            &FitOptions::default(),
        )
        .expect("places");
        let jobs: Vec<String> = placed(&p, "Job")
            .iter()
            .map(|v| v["metadata"]["name"].as_str().unwrap_or("").to_string())
            .collect();
        assert_eq!(
            jobs,
            ["train-driver-0", "train-workers-0", "train-workers-1"]
        );
        let pods = placed(&p, "Pod");
        // Parallelism 3 is capped by completions 2.
        assert_eq!(pods.len(), 1 + 2 * 2);
        let w = pods
            .iter()
            .find(|v| v["metadata"]["name"] == "train-workers-1-fit-1")
            .expect("a worker");
        let l = &w["metadata"]["labels"];
        assert_eq!(l["jobset.sigs.k8s.io/jobset-name"], "train");
        assert_eq!(l["jobset.sigs.k8s.io/replicatedjob-name"], "workers");
        assert_eq!(l["jobset.sigs.k8s.io/job-index"], "1");
        assert_eq!(l["batch.kubernetes.io/job-completion-index"], "1");
        assert_eq!(l["batch.kubernetes.io/job-name"], "train-workers-1");
    }

    #[test]
    fn kueue_suspends_what_it_manages_and_makes_an_unadmitted_workload() {
        let cluster = || {
            bundle(vec![
                node("n1", 8),
                json!({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": "cq"},
                       "spec": {"resourceGroups": [{"coveredResources": ["nvidia.com/gpu"], "flavors": [{"name": "f", "resources": [{"name": "nvidia.com/gpu", "nominalQuota": "8"}]}]}]}}),
                json!({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue", "metadata": {"name": "q", "namespace": "ml"}, "spec": {"clusterQueue": "cq"}}),
            ])
        };
        let job = |queue: &str, ns: &str| {
            json!({"apiVersion": "batch/v1", "kind": "Job",
                   "metadata": {"name": "j", "namespace": ns, "labels": {"kueue.x-k8s.io/queue-name": queue}},
                   "spec": {"parallelism": 2, "template": {"spec": {"containers": gpu_container(2)}}}})
        };
        let p = place(
            cluster(),
            &bundle(vec![job("q", "ml")]),
            &FitOptions::default(),
        )
        .expect("places");
        let wl = placed(&p, "Workload");
        assert_eq!(wl.len(), 1);
        assert_eq!(wl[0]["spec"]["queueName"], "q");
        assert_eq!(wl[0]["spec"]["podSets"][0]["count"], 2);
        assert!(wl[0].get("status").is_none(), "not admitted yet");
        assert_eq!(
            placed(&p, "Job")[0]["spec"]["suspend"],
            true,
            "Kueue's webhook suspends it"
        );
        assert_eq!(
            placed(&p, "Pod").len(),
            2,
            "its pods are judged as they would be once admitted"
        );
        // The missing Configuration is assumed, and said so.
        assert!(
            p.works[0]
                .1
                .iter()
                .any(|m| m.name.as_deref() == Some("kueue-manager-config"))
        );
        // A namespace Kueue always skips: no suspension, no Workload.
        let p = place(
            cluster(),
            &bundle(vec![job("q", "kube-system")]),
            &FitOptions::default(),
        )
        .expect("places");
        assert!(placed(&p, "Workload").is_empty());
        assert!(placed(&p, "Job")[0]["spec"].get("suspend").is_none());
        let intake = p
            .index
            .hypothesis()
            .and_then(|h| h.kueue_for(p.works[0].0))
            .expect("intake");
        assert!(
            !intake.managed && intake.reason.contains("kube-system"),
            "{}",
            intake.reason
        );
        // A LocalQueue that does not exist: suspended, no Workload to admit it.
        let p = place(
            cluster(),
            &bundle(vec![job("nope", "ml")]),
            &FitOptions::default(),
        )
        .expect("places");
        assert!(placed(&p, "Workload").is_empty());
        assert_eq!(placed(&p, "Job")[0]["spec"]["suspend"], true);
    }

    #[test]
    fn a_job_its_manifest_suspends_makes_no_pod_without_kueue_and_says_so() {
        let job = json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j", "namespace": "ml"},
                         "spec": {"suspend": true, "template": {"spec": {"containers": gpu_container(1)}}}});
        let p = place(
            bundle(vec![node("n1", 8)]),
            &bundle(vec![job]),
            &FitOptions::default(),
        )
        .expect("places");
        assert!(placed(&p, "Pod").is_empty());
        assert!(
            p.works[0]
                .1
                .iter()
                .any(|m| m.why.contains("spec.suspend: true"))
        );
    }

    #[test]
    fn the_extended_resource_toleration_plugin_is_read_from_the_clusters_pods() {
        let taint = json!([{"key": "nvidia.com/gpu", "effect": "NoSchedule"}]);
        let mut n = node("gpu-1", 8);
        n["spec"] = json!({"taints": taint});
        let rs = json!({"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "rs", "namespace": "ml"},
                        "spec": {"template": {"spec": {"containers": gpu_container(1)}}}});
        let marked = json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "rs-x", "namespace": "ml", "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs", "uid": "u"}]},
            "spec": {"nodeName": "gpu-1", "containers": gpu_container(1),
                     "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]}});
        let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "ml"},
                         "spec": {"containers": gpu_container(1)}});
        let with = place(
            bundle(vec![n.clone(), rs.clone(), marked]),
            &bundle(vec![pod.clone()]),
            &FitOptions::default(),
        )
        .expect("places");
        let tolerations = &placed(&with, "Pod")[0]["spec"]["tolerations"];
        assert_eq!(
            tolerations,
            &json!([{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}])
        );
        // Without such a pod, nothing is added.
        let without = place(
            bundle(vec![n, rs]),
            &bundle(vec![pod]),
            &FitOptions::default(),
        )
        .expect("places");
        assert!(
            placed(&without, "Pod")[0]["spec"]
                .get("tolerations")
                .is_none()
        );
    }

    #[test]
    fn a_work_larger_than_the_cap_is_placed_in_part_and_says_so() {
        let job = json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "wide", "namespace": "ml"},
                         "spec": {"parallelism": 300, "template": {"spec": {"containers": gpu_container(0)}}}});
        let p = place(
            bundle(vec![node("n1", 8)]),
            &bundle(vec![job]),
            &FitOptions::default(),
        )
        .expect("places");
        assert_eq!(placed(&p, "Pod").len() as u64, synth::MAX_PODS);
        assert!(
            p.works[0]
                .1
                .iter()
                .any(|m| m.why.contains("would make 300 pods"))
        );
    }

    #[test]
    fn the_clusters_copy_of_the_work_is_set_aside_with_what_belongs_to_it() {
        let job = json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j", "namespace": "ml", "uid": "old"},
                         "spec": {"template": {"spec": {"containers": gpu_container(8)}}}});
        let old_pod = json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "j-abc", "namespace": "ml", "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job", "name": "j", "uid": "old", "controller": true}]},
            "spec": {"nodeName": "n1", "containers": gpu_container(8)}, "status": {"phase": "Running"}});
        let p = place(
            bundle(vec![node("n1", 8), job.clone(), old_pod]),
            &bundle(vec![job]),
            &FitOptions::default(),
        )
        .expect("places");
        assert!(
            p.index.find("Pod", Some("ml"), "j-abc").is_none(),
            "the old pod is gone"
        );
        assert!(
            p.works[0]
                .1
                .iter()
                .any(|m| m.why.starts_with("already in the cluster"))
        );
        // Its GPUs are free again: the new pod would take them.
        let fit = crate::facts::placement::nodefit::node_fit(
            &p.index,
            p.index.find("Pod", Some("ml"), "j-fit-0").expect("new pod"),
        );
        assert_eq!(fit.stop, None);
    }

    /// Kueue's verdict on a Workload of `gpus`, in ClusterQueue `a` (8 nominal, borrowing at
    /// most 4) of a cohort whose other queue `b` (8 nominal, lending at most 6) has `used`.
    fn quota_verdict(gpus: u32, used: u32) -> (String, Value) {
        let cq = |name: &str, extra: Value, status: Value| {
            let mut r = json!({"name": "nvidia.com/gpu", "nominalQuota": "8"});
            if let (Some(r), Some(e)) = (r.as_object_mut(), extra.as_object()) {
                r.extend(e.clone());
            }
            json!({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": name},
                   "spec": {"cohortName": "c", "resourceGroups": [{"coveredResources": ["nvidia.com/gpu"], "flavors": [{"name": "f", "resources": [r]}]}]},
                   "status": status})
        };
        let cluster = bundle(vec![
            node("n1", 8),
            cq("a", json!({"borrowingLimit": "4"}), json!({})),
            cq(
                "b",
                json!({"lendingLimit": "6"}),
                json!({"flavorsReservation": [{"name": "f", "resources": [{"name": "nvidia.com/gpu", "total": used.to_string()}]}]}),
            ),
            json!({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue", "metadata": {"name": "q", "namespace": "ml"}, "spec": {"clusterQueue": "a"}}),
        ]);
        let job = json!({"apiVersion": "batch/v1", "kind": "Job",
            "metadata": {"name": "j", "namespace": "ml", "labels": {"kueue.x-k8s.io/queue-name": "q"}},
            "spec": {"template": {"spec": {"containers": gpu_container(gpus)}}}});
        let p = place(cluster, &bundle(vec![job]), &FitOptions::default()).expect("places");
        let view = crate::view::build(&p.index, p.works[0].0, None);
        let q = view.value["facts"]["admission"]["quotaFit"].clone();
        (
            q["fit"].as_str().unwrap_or("").to_string(),
            q["rows"][0].clone(),
        )
    }

    #[test]
    fn quota_counts_what_the_cohort_could_lend_now_and_ever() {
        // b lends min(8 - 4 used, 6) = 4, a borrows at most 4: 12 left now, 12 ever.
        let (fit, row) = quota_verdict(12, 4);
        assert_eq!(fit, "fitsNow");
        assert_eq!(
            (row["left"].clone(), row["maximum"].clone()),
            (json!(12), json!(12))
        );
        // b uses 6: it lends 2 now, so 12 waits; 12 is still within the most it could get.
        let (fit, row) = quota_verdict(12, 6);
        assert_eq!(fit, "waitsForQuota");
        assert_eq!(
            (row["left"].clone(), row["borrowable"].clone()),
            (json!(10), json!(2))
        );
        // More than nominal plus the borrowing limit: never.
        assert_eq!(quota_verdict(13, 0).0, "neverFits");
    }

    #[test]
    fn the_node_filter_that_keeps_a_pod_off_the_large_enough_nodes_is_its_stop() {
        let mut tainted = node("gpu", 8);
        tainted["spec"] = json!({"taints": [{"key": "gpu", "effect": "NoSchedule"}]});
        let mut cordoned = node("gpu-c", 8);
        cordoned["spec"] = json!({"unschedulable": true});
        cordoned["metadata"]["labels"] = json!({"pool": "c"});
        let small = node("cpu", 0);
        let stop = |cluster: Vec<Value>, spec: Value| {
            let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "ml"}, "spec": spec});
            let p =
                place(bundle(cluster), &bundle(vec![pod]), &FitOptions::default()).expect("places");
            crate::facts::placement::nodefit::node_fit(&p.index, p.works[0].0).stop
        };
        let asks = |gpus: u32| json!({"containers": gpu_container(gpus)});
        // A CPU node passes every filter, but only the tainted node is large enough.
        assert_eq!(
            stop(vec![tainted.clone(), small.clone()], asks(4)).as_deref(),
            Some("taints")
        );
        let mut tolerant = asks(4);
        tolerant["tolerations"] = json!([{"key": "gpu", "operator": "Exists"}]);
        assert_eq!(
            stop(vec![tainted.clone(), small.clone()], tolerant.clone()),
            None
        );
        let mut big = tolerant.clone();
        big["containers"] = gpu_container(16);
        assert_eq!(
            stop(vec![tainted.clone(), small.clone()], big).as_deref(),
            Some("size")
        );
        let mut pinned = asks(4);
        pinned["nodeSelector"] = json!({"pool": "c"});
        assert_eq!(
            stop(vec![cordoned.clone(), small.clone()], pinned).as_deref(),
            Some("cordon")
        );
        let mut elsewhere = asks(4);
        elsewhere["nodeSelector"] = json!({"pool": "x"});
        assert_eq!(
            stop(vec![cordoned, small], elsewhere).as_deref(),
            Some("selector")
        );
        let ns = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ml"}});
        assert_eq!(stop(vec![ns], asks(1)).as_deref(), Some("noNodes"));
    }

    /// What placing `work` into 8 GPUs (two nodes of 4) asked to make, and how many of its
    /// pods the nodes would hold now against how many it declares.
    fn placing(work: Value) -> (u64, Value) {
        let p = place(
            bundle(vec![node("n1", 4), node("n2", 4)]),
            &bundle(vec![work]),
            &FitOptions::default(),
        )
        .expect("places");
        let view = crate::view::build(&p.index, p.works[0].0, None);
        let whole = view.value["facts"]["placement"]["wholeFit"].clone();
        (p.attempts, whole)
    }

    /// The shapes a manifest can declare huge, each at `n` (the parallelism, replicas or group
    /// size it declares), every pod asking for one GPU.
    fn declared(n: u64) -> Vec<(&'static str, Value, u64)> {
        let pod = json!({"spec": {"containers": gpu_container(1)}});
        vec![
            (
                "Job",
                json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j", "namespace": "ml"},
                "spec": {"parallelism": n, "template": pod}}),
                n,
            ),
            (
                "JobSet",
                json!({"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "js", "namespace": "ml"},
                "spec": {"replicatedJobs": [{"name": "w", "replicas": n, "template": {"spec": {"template": pod}}}]}}),
                n,
            ),
            (
                "JobSet of wide Jobs",
                json!({"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "js", "namespace": "ml"},
                "spec": {"replicatedJobs": [{"name": "w", "replicas": n, "template": {"spec": {"parallelism": n, "template": pod}}}]}}),
                n.saturating_mul(n),
            ),
            (
                "LeaderWorkerSet",
                json!({"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet", "metadata": {"name": "l", "namespace": "ml"},
                "spec": {"replicas": n, "leaderWorkerTemplate": {"size": n, "workerTemplate": pod}}}),
                n.saturating_mul(n),
            ),
            (
                "Deployment",
                json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d", "namespace": "ml"},
                "spec": {"replicas": n, "template": pod}}),
                n,
            ),
            (
                "StatefulSet",
                json!({"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "s", "namespace": "ml"},
                "spec": {"replicas": n, "template": pod}}),
                n,
            ),
        ]
    }

    /// A million replicas, a parallelism of 2^31-1, counts whose product passes 2^64: placing
    /// asks to make no more than placing a work just over the cap does (the baseline, in the
    /// same run), and the nodes' room is counted per node, so the answer is exact.
    #[test]
    fn placing_costs_what_is_placed_not_what_the_manifest_declares() {
        let baseline: Vec<u64> = declared(synth::MAX_PODS + 10)
            .into_iter()
            .map(|(_, work, _)| placing(work).0)
            .collect();
        for n in [1_000_000, (1 << 31) - 1, u64::MAX / 2] {
            for ((what, work, wanted), base) in declared(n).into_iter().zip(&baseline) {
                let (attempts, whole) = placing(work);
                assert!(
                    attempts <= *base,
                    "{what} of {n}: {attempts} objects asked for, {base} at {}",
                    synth::MAX_PODS + 10
                );
                assert_eq!(
                    (whole["wanted"].as_u64(), whole["placedNow"].as_u64()),
                    (Some(wanted), Some(8)),
                    "{what} of {n}: {whole}"
                );
            }
        }
        // Before the bound, a JobSet made a child Job per replica: far past the baseline.
        assert!(
            baseline.iter().all(|&b| b <= 2 * synth::MAX_PODS + 2),
            "{baseline:?}"
        );
    }

    /// kube-scheduler's NodeResourcesFit counts pods against the node's allocatable `pods`,
    /// and NodeUnschedulable lets a pod tolerating the cordon's taint onto a cordoned node.
    #[test]
    fn a_full_pod_count_is_no_room_and_a_cordon_toleration_places() {
        let with_pods = |name: &str, pods: u32| {
            let mut n = node(name, 8);
            n["status"]["allocatable"]["pods"] = json!(pods.to_string());
            n
        };
        let bound = |i: u32| {
            json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": format!("b{i}"), "namespace": "ml"},
                   "spec": {"nodeName": "n1", "containers": gpu_container(0)}, "status": {"phase": "Running"}})
        };
        let fit_of = |cluster: Vec<Value>, spec: Value| {
            let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "ml"}, "spec": spec});
            let p =
                place(bundle(cluster), &bundle(vec![pod]), &FitOptions::default()).expect("places");
            crate::facts::placement::nodefit::node_fit(&p.index, p.works[0].0)
        };
        let asks = json!({"containers": gpu_container(1)});
        // Two pods bound to a node that takes two: full, though its GPUs are free.
        let full = fit_of(vec![with_pods("n1", 2), bound(1), bound(2)], asks.clone());
        assert_eq!(full.stop.as_deref(), Some("busy"));
        let short: Vec<&str> = full.short.iter().map(|r| r.resource.as_str()).collect();
        assert_eq!(short, ["pods"], "{:?}", full.short);
        // Room for one more: it fits; and a node that does not count pods is not full.
        assert_eq!(
            fit_of(vec![with_pods("n1", 3), bound(1), bound(2)], asks.clone()).stop,
            None
        );
        assert_eq!(
            fit_of(vec![node("n1", 8), bound(1), bound(2)], asks.clone()).stop,
            None
        );
        // A cordoned node: only a pod tolerating the cordon's taint goes there.
        let mut cordoned = node("n1", 8);
        cordoned["spec"] = json!({"unschedulable": true});
        assert_eq!(
            fit_of(vec![cordoned.clone()], asks.clone()).stop.as_deref(),
            Some("cordon")
        );
        for toleration in [
            json!({"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"}),
            json!({"operator": "Exists"}),
        ] {
            let mut tolerant = asks.clone();
            tolerant["tolerations"] = json!([toleration]);
            assert_eq!(
                fit_of(vec![cordoned.clone()], tolerant).stop,
                None,
                "{toleration}"
            );
        }
        let mut other = asks;
        other["tolerations"] =
            json!([{"key": "node.kubernetes.io/not-ready", "operator": "Exists"}]);
        assert_eq!(
            fit_of(vec![cordoned], other).stop.as_deref(),
            Some("cordon")
        );
    }

    #[test]
    fn a_manifest_the_api_server_would_refuse_is_refused() {
        let job = |limits: Value| {
            json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j", "namespace": "ml"},
                   "spec": {"template": {"spec": {"containers": [{"name": "c", "resources": {"limits": limits}}]}}}})
        };
        let err = place(
            bundle(vec![node("n1", 8)]),
            &bundle(vec![job(json!({"nvidia.com/gpu": "0.5"}))]),
            &FitOptions::default(),
        )
        .err()
        .expect("refused");
        assert!(matches!(err, FitError::Refused { .. }), "{err}");
        assert!(
            err.to_string().starts_with("the API server would refuse Job ml/j: spec.template.spec.containers[0].resources.limits[nvidia.com/gpu]: Invalid value: \"0.5\": must be an integer"),
            "{err}"
        );
        assert!(
            place(
                bundle(vec![node("n1", 8)]),
                &bundle(vec![job(json!({"nvidia.com/gpu": "1"}))]),
                &FitOptions::default()
            )
            .is_ok()
        );
    }
}
