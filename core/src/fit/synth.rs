//! What the controllers would make of a piece of work once it is submitted: a Job's pods
//! (parallelism), a JobSet's child Jobs and their pods (replicas × parallelism, with JobSet's
//! labels), a LeaderWorkerSet's leader and worker StatefulSets and pods per group (with the
//! group labels LWS writes), a Deployment's ReplicaSet and pods, a StatefulSet's ordinal pods;
//! for KAI-Scheduler pods the PodGroup its pod-grouper makes, and for DRA claims from a
//! template the ResourceClaim the resourceclaim controller makes. Every pod is Pending with no
//! node: not scheduled yet. Names follow each controller where facts read them (`<lws>-<g>`,
//! `<sts>-<i>`), else end in `-fit-<i>`.

use super::kueue::PodSet;
use super::lookup::Lookup;
use super::meta::owner_ref;
use crate::json::At as _;
use crate::json::str_at;
use serde_json::{Map, Value, json};

/// At most this many pods are made for one piece of work: its size is read from its spec by
/// the facts that need it (group sizes, Kueue pod-set counts, how many of its pods the nodes
/// hold), and a view shows 64 pods. Every loop over what a spec declares (replicas,
/// parallelism, group size) stops with the pods made ([`Ctx::worth_making`]), so placing a
/// million replicas costs what placing 256 pods costs.
pub(super) const MAX_PODS: u64 = 256;

/// The objects made for one piece of work.
pub(super) struct Made {
    /// The work itself (as given, with Kueue's suspension when Kueue manages it) first.
    pub objects: Vec<Value>,
    /// The pod sets a Kueue Workload would count.
    pub pod_sets: Vec<PodSet>,
    /// Pods the controllers would make, and how many of them were made (at most
    /// [`MAX_PODS`]).
    pub pods_wanted: u64,
    pub pods_made: u64,
    /// Each pod set's first pod made (by name), in `pod_sets`' order: what stands for the
    /// set's `count` pods when the nodes' room is counted.
    pub first_pods: Vec<Option<String>>,
    /// The manifest suspends the work and nothing would resume it: no pod is made.
    pub held_by_manifest: bool,
}

/// Unique, stable uids for made objects.
pub(super) struct Uids(u64);

impl Uids {
    pub fn new() -> Uids {
        Uids(0)
    }

    pub fn next(&mut self) -> String {
        self.0 += 1;
        format!("00000000-0000-4000-8000-{:012x}", self.0)
    }
}

/// Where the made objects go and what they share.
pub(super) struct Ctx<'a, 'b> {
    pub uids: &'a mut Uids,
    /// The made objects' creation time: "now".
    pub created: Option<&'a str>,
    pub look: &'a Lookup<'b>,
    pub out: Vec<Value>,
    pub pods_made: u64,
    /// Every pod and controller object asked for, made or not: the work placing did, which
    /// tests hold to what was placed rather than what the manifest declares.
    pub attempts: u64,
    /// The pod set the pods made next belong to (its place in the pod sets returned), and
    /// each set's first pod made.
    pub set: usize,
    pub first_pods: Vec<Option<String>>,
    /// The API server adds a toleration for each extended resource a pod asks for
    /// (ExtendedResourceToleration admission plugin).
    pub extended_tolerations: bool,
}

/// A controller object to make: what [`Ctx::controller`] writes.
struct Controller<'a> {
    api_version: &'a str,
    kind: &'a str,
    name: &'a str,
    ns: &'a str,
    labels: Map<String, Value>,
    annotations: Map<String, Value>,
    owner: Value,
    spec: Value,
}

fn obj_map(v: Option<&Value>) -> Map<String, Value> {
    v.and_then(Value::as_object).cloned().unwrap_or_default()
}

/// A count the spec declares (replicas, parallelism, size), as given: products and sums of
/// them saturate, since a manifest may declare up to 2^64-1.
fn count_at(v: &Value, ptr: &str, default: u64) -> u64 {
    v.at(ptr).and_then(Value::as_u64).unwrap_or(default)
}

/// Pods a Job runs at once: `parallelism` (1 when unset), no more than `completions`.
fn job_pods(job_spec: &Value) -> u64 {
    let parallelism = count_at(job_spec, "/parallelism", 1);
    match job_spec.at("/completions").and_then(Value::as_u64) {
        Some(c) => parallelism.min(c),
        None => parallelism,
    }
}

impl Ctx<'_, '_> {
    /// Of `units` that would each have `per` pods (child Jobs, groups, replicas), how many are
    /// worth making: as many as the pods left to make can fill, and no more than [`MAX_PODS`]
    /// when they have none.
    fn worth_making(&self, units: u64, per: u64) -> u64 {
        let left = MAX_PODS.saturating_sub(self.pods_made);
        match per {
            0 => units.min(MAX_PODS),
            per => units.min(left.div_ceil(per)),
        }
    }

    /// Metadata of a made object.
    fn meta(
        &mut self,
        name: &str,
        ns: &str,
        labels: Map<String, Value>,
        annotations: Map<String, Value>,
        owner: Option<Value>,
    ) -> (Value, String) {
        let uid = self.uids.next();
        let mut m = json!({"name": name, "namespace": ns, "uid": uid});
        if !labels.is_empty() {
            m["labels"] = Value::Object(labels);
        }
        if !annotations.is_empty() {
            m["annotations"] = Value::Object(annotations);
        }
        if let Some(o) = owner {
            m["ownerReferences"] = json!([o]);
        }
        if let Some(t) = self.created {
            m["creationTimestamp"] = json!(t);
        }
        (m, uid)
    }

    /// A pod from a template, Pending and unscheduled, with the controller's labels and
    /// annotations added to the template's. None once [`MAX_PODS`] are made.
    fn pod(
        &mut self,
        template: &Value,
        name: &str,
        ns: &str,
        labels: &[(&str, String)],
        annotations: &[(&str, String)],
        owner: Value,
    ) -> Option<String> {
        self.attempts += 1;
        if self.pods_made >= MAX_PODS {
            return None;
        }
        self.pods_made += 1;
        if self.first_pods.len() <= self.set {
            self.first_pods.resize(self.set + 1, None);
        }
        self.first_pods[self.set].get_or_insert_with(|| name.to_string());
        let mut l = obj_map(template.at("/metadata/labels"));
        for (k, v) in labels {
            l.insert(k.to_string(), json!(v));
        }
        let mut a = obj_map(template.at("/metadata/annotations"));
        for (k, v) in annotations {
            a.insert(k.to_string(), json!(v));
        }
        let (meta, uid) = self.meta(name, ns, l, a, Some(owner));
        let mut pod = json!({
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": meta,
            "spec": template.get("spec").cloned().unwrap_or_else(|| json!({})),
            "status": {"phase": "Pending"},
        });
        without_kueue_gates(&mut pod);
        self.claims_from_templates(&mut pod, &uid, name, ns);
        if self.extended_tolerations {
            add_extended_tolerations(&mut pod);
        }
        self.out.push(pod);
        Some(uid)
    }

    /// The ResourceClaims the resourceclaim controller makes from the pod's templates (those
    /// the bundle or the manifest holds), recorded in the pod's status as it does. A claim
    /// whose template is nowhere stays ungenerated: the device layer says so.
    fn claims_from_templates(&mut self, pod: &mut Value, pod_uid: &str, pod_name: &str, ns: &str) {
        let entries = pod
            .at("/spec/resourceClaims")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let mut statuses = Vec::new();
        for e in entries {
            let (Some(entry), Some(t)) =
                (e["name"].as_str(), e["resourceClaimTemplateName"].as_str())
            else {
                continue;
            };
            let Some(template) =
                self.look
                    .find("resource.k8s.io", "ResourceClaimTemplate", Some(ns), t)
            else {
                continue;
            };
            let claim = format!("{pod_name}-{entry}-fit");
            let owner = json!({"apiVersion": "v1", "kind": "Pod", "name": pod_name, "uid": pod_uid, "controller": true});
            let (meta, _) = self.meta(&claim, ns, Map::new(), Map::new(), Some(owner));
            self.out.push(json!({
                "apiVersion": template["apiVersion"],
                "kind": "ResourceClaim",
                "metadata": meta,
                "spec": template.at("/spec/spec").cloned().unwrap_or_else(|| json!({})),
            }));
            statuses.push(json!({"name": entry, "resourceClaimName": claim}));
        }
        if !statuses.is_empty() {
            pod["status"]["resourceClaimStatuses"] = Value::Array(statuses);
        }
    }

    /// A controller object (Job, StatefulSet, ReplicaSet) made for the work.
    fn controller(&mut self, c: Controller) -> (Value, String) {
        self.attempts += 1;
        let (meta, uid) = self.meta(c.name, c.ns, c.labels, c.annotations, Some(c.owner));
        let v =
            json!({"apiVersion": c.api_version, "kind": c.kind, "metadata": meta, "spec": c.spec});
        self.out.push(v.clone());
        (v, uid)
    }
}

/// The objects the work's controllers would make. `work` is the manifest's object as it will
/// be indexed (namespace and uid set), `kueue` whether Kueue would suspend it and admit it
/// later.
pub(super) fn make(ctx: &mut Ctx, work: &mut Value, kind: &str, uid: &str, kueue: bool) -> Made {
    let suspended = work.at("/spec/suspend") == Some(&Value::Bool(true));
    if kueue && matches!(kind, "Job" | "JobSet") {
        work["spec"]["suspend"] = json!(true);
    }
    // A Job or JobSet suspended by its own manifest runs only once someone resumes it: with
    // Kueue that is Kueue, on admission; without, nobody.
    let held = suspended && !kueue && matches!(kind, "Job" | "JobSet");
    let before = ctx.out.len();
    let (pod_sets, wanted) = if held {
        (Vec::new(), 0)
    } else {
        match kind {
            "Job" => job(ctx, work, uid),
            "JobSet" => job_set(ctx, work, uid),
            "LeaderWorkerSet" => lws(ctx, work, uid),
            "Deployment" => deployment(ctx, work, uid),
            "StatefulSet" => stateful_set(ctx, work, uid),
            _ => bare_pod(ctx, work, uid),
        }
    };
    let mut objects = vec![work.clone()];
    objects.extend(ctx.out.drain(before..));
    kai_pod_group(ctx, &mut objects, uid, kind);
    let made = objects.iter().filter(|o| o["kind"] == "Pod").count() as u64;
    // A bare Pod is its own first pod.
    let mut first_pods = std::mem::take(&mut ctx.first_pods);
    if kind == "Pod" && !held {
        first_pods = vec![str_at(work, "/metadata/name").map(str::to_string)];
    }
    first_pods.resize(pod_sets.len(), None);
    Made {
        objects,
        pod_sets,
        pods_wanted: wanted,
        pods_made: made,
        first_pods,
        held_by_manifest: held,
    }
}

fn name_ns(v: &Value) -> (String, String) {
    (
        str_at(v, "/metadata/name").unwrap_or("").to_string(),
        str_at(v, "/metadata/namespace")
            .unwrap_or("default")
            .to_string(),
    )
}

fn job(ctx: &mut Ctx, work: &Value, uid: &str) -> (Vec<PodSet>, u64) {
    let (name, ns) = name_ns(work);
    let spec = work.get("spec").cloned().unwrap_or_default();
    let template = spec.get("template").cloned().unwrap_or_default();
    let n = job_pods(&spec);
    let indexed = spec["completionMode"] == "Indexed";
    for i in 0..ctx.worth_making(n, 1) {
        let mut labels = job_labels(&name, uid);
        if indexed {
            labels.push(("batch.kubernetes.io/job-completion-index", i.to_string()));
        }
        let pod = format!("{name}-fit-{i}");
        ctx.pod(&template, &pod, &ns, &labels, &[], owner_ref(work, uid));
    }
    (
        vec![PodSet {
            name: "main".into(),
            count: n,
            template,
        }],
        n,
    )
}

/// The labels the Job controller writes on its pods.
fn job_labels(job: &str, uid: &str) -> Vec<(&'static str, String)> {
    vec![
        ("batch.kubernetes.io/job-name", job.to_string()),
        ("job-name", job.to_string()),
        ("batch.kubernetes.io/controller-uid", uid.to_string()),
        ("controller-uid", uid.to_string()),
    ]
}

fn job_set(ctx: &mut Ctx, work: &Value, uid: &str) -> (Vec<PodSet>, u64) {
    let (name, ns) = name_ns(work);
    let suspend = work.at("/spec/suspend").cloned().unwrap_or(json!(false));
    let rjobs = work
        .at("/spec/replicatedJobs")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    // JobSet copies its exclusive-topology annotations onto its Jobs and their pods.
    let topology: Vec<(String, Value)> = obj_map(work.at("/metadata/annotations"))
        .into_iter()
        .filter(|(k, _)| k.starts_with("alpha.jobset.sigs.k8s.io/"))
        .collect();
    let global = rjobs.iter().fold(0u64, |sum, r| {
        sum.saturating_add(count_at(r, "/replicas", 1))
    });
    let (mut sets, mut wanted, mut global_index) = (Vec::new(), 0, 0u64);
    for (k, rj) in rjobs.iter().enumerate() {
        ctx.set = k;
        let rname = rj["name"].as_str().unwrap_or("job");
        let replicas = count_at(rj, "/replicas", 1);
        let jt = rj.get("template").cloned().unwrap_or_default();
        let mut jspec = jt.get("spec").cloned().unwrap_or_else(|| json!({}));
        jspec["suspend"] = suspend.clone();
        let per_job = job_pods(&jspec);
        let indexed = jspec["completionMode"] == "Indexed";
        let ptemplate = jspec.get("template").cloned().unwrap_or_default();
        let first_index = global_index;
        // Child Jobs past the pods made would hold none: they are counted, not made.
        for j in 0..ctx.worth_making(replicas, per_job) {
            let job_name = format!("{name}-{rname}-{j}");
            let js_labels: Vec<(&str, String)> = vec![
                ("jobset.sigs.k8s.io/jobset-name", name.clone()),
                ("jobset.sigs.k8s.io/jobset-uid", uid.to_string()),
                ("jobset.sigs.k8s.io/replicatedjob-name", rname.to_string()),
                (
                    "jobset.sigs.k8s.io/replicatedjob-replicas",
                    replicas.to_string(),
                ),
                ("jobset.sigs.k8s.io/job-index", j.to_string()),
                (
                    "jobset.sigs.k8s.io/job-global-index",
                    global_index.to_string(),
                ),
                ("jobset.sigs.k8s.io/global-replicas", global.to_string()),
                ("jobset.sigs.k8s.io/job-key", format!("{job_name}-fit")),
                ("jobset.sigs.k8s.io/restart-attempt", "0".to_string()),
            ];
            global_index = global_index.saturating_add(1);
            let mut labels = obj_map(jt.at("/metadata/labels"));
            let mut annotations = obj_map(jt.at("/metadata/annotations"));
            for (k, v) in &js_labels {
                labels.insert(k.to_string(), json!(v));
                annotations.insert(k.to_string(), json!(v));
            }
            annotations.extend(topology.iter().cloned());
            let (job_v, job_uid) = ctx.controller(Controller {
                api_version: "batch/v1",
                kind: "Job",
                name: &job_name,
                ns: &ns,
                labels,
                annotations,
                owner: owner_ref(work, uid),
                spec: jspec.clone(),
            });
            let mut pod_labels = js_labels.clone();
            pod_labels.extend(job_labels(&job_name, &job_uid));
            let pod_annotations: Vec<(&str, String)> = topology
                .iter()
                .filter_map(|(k, v)| Some((k.as_str(), v.as_str()?.to_string())))
                .collect();
            for p in 0..ctx.worth_making(per_job, 1) {
                let pod = format!("{job_name}-fit-{p}");
                let mut labels = pod_labels.clone();
                if indexed {
                    labels.push(("batch.kubernetes.io/job-completion-index", p.to_string()));
                }
                ctx.pod(
                    &ptemplate,
                    &pod,
                    &ns,
                    &labels,
                    &pod_annotations,
                    owner_ref(&job_v, &job_uid),
                );
            }
        }
        let count = replicas.saturating_mul(per_job);
        wanted = count.saturating_add(wanted);
        // The next replicated Job's indexes follow every Job of this one, made or not.
        global_index = first_index.saturating_add(replicas);
        sets.push(PodSet {
            name: rname.to_string(),
            count,
            template: ptemplate,
        });
    }
    (sets, wanted)
}

fn lws(ctx: &mut Ctx, work: &Value, uid: &str) -> (Vec<PodSet>, u64) {
    let (name, ns) = name_ns(work);
    let replicas = count_at(work, "/spec/replicas", 1);
    let tmpl = work
        .at("/spec/leaderWorkerTemplate")
        .cloned()
        .unwrap_or_default();
    let size = count_at(&tmpl, "/size", 1).max(1);
    let worker_t = tmpl.get("workerTemplate").cloned().unwrap_or_default();
    let leader_t = tmpl
        .get("leaderTemplate")
        .cloned()
        .unwrap_or_else(|| worker_t.clone());
    let name_label = ("leaderworkerset.sigs.k8s.io/name", name.clone());
    let mut sts_labels = Map::new();
    sts_labels.insert(name_label.0.into(), json!(name));
    let (leader_sts, leader_sts_uid) = ctx.controller(Controller {
        api_version: "apps/v1",
        kind: "StatefulSet",
        name: &name,
        ns: &ns,
        labels: sts_labels.clone(),
        annotations: Map::new(),
        owner: owner_ref(work, uid),
        spec: json!({"replicas": replicas}),
    });
    for g in 0..ctx.worth_making(replicas, size) {
        let leader = format!("{name}-{g}");
        let group = |worker: u64, pod: &str| -> Vec<(&'static str, String)> {
            vec![
                ("leaderworkerset.sigs.k8s.io/name", name.clone()),
                ("leaderworkerset.sigs.k8s.io/group-index", g.to_string()),
                (
                    "leaderworkerset.sigs.k8s.io/worker-index",
                    worker.to_string(),
                ),
                (
                    "leaderworkerset.sigs.k8s.io/group-key",
                    format!("{name}-{g}-fit"),
                ),
                ("statefulset.kubernetes.io/pod-name", pod.to_string()),
                (
                    "apps.kubernetes.io/pod-index",
                    if worker == 0 { g } else { worker }.to_string(),
                ),
            ]
        };
        let size_a = ("leaderworkerset.sigs.k8s.io/size", size.to_string());
        ctx.set = 0;
        let Some(leader_uid) = ctx.pod(
            &leader_t,
            &leader,
            &ns,
            &group(0, &leader),
            std::slice::from_ref(&size_a),
            owner_ref(&leader_sts, &leader_sts_uid),
        ) else {
            break;
        };
        if size < 2 {
            continue;
        }
        let leader_v = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": leader}});
        let mut wl = sts_labels.clone();
        wl.insert(
            "leaderworkerset.sigs.k8s.io/group-index".into(),
            json!(g.to_string()),
        );
        let (wsts, wsts_uid) = ctx.controller(Controller {
            api_version: "apps/v1",
            kind: "StatefulSet",
            name: &leader,
            ns: &ns,
            labels: wl,
            annotations: Map::new(),
            owner: owner_ref(&leader_v, &leader_uid),
            spec: json!({"replicas": size - 1}),
        });
        ctx.set = 1;
        for w in 1..=ctx.worth_making(size - 1, 1) {
            let pod = format!("{leader}-{w}");
            ctx.pod(
                &worker_t,
                &pod,
                &ns,
                &group(w, &pod),
                &[
                    size_a.clone(),
                    ("leaderworkerset.sigs.k8s.io/leader-name", leader.clone()),
                ],
                owner_ref(&wsts, &wsts_uid),
            );
        }
    }
    let mut sets = vec![PodSet {
        name: "leader".into(),
        count: replicas,
        template: leader_t,
    }];
    if size > 1 {
        sets.push(PodSet {
            name: "workers".into(),
            count: replicas.saturating_mul(size - 1),
            template: worker_t,
        });
    }
    (sets, replicas.saturating_mul(size))
}

fn deployment(ctx: &mut Ctx, work: &Value, uid: &str) -> (Vec<PodSet>, u64) {
    let (name, ns) = name_ns(work);
    let replicas = count_at(work, "/spec/replicas", 1);
    let template = work.at("/spec/template").cloned().unwrap_or_default();
    let rs_name = format!("{name}-fit");
    let mut labels = obj_map(template.at("/metadata/labels"));
    labels.insert("pod-template-hash".into(), json!("fit"));
    let (rs, rs_uid) = ctx.controller(Controller {
        api_version: "apps/v1",
        kind: "ReplicaSet",
        name: &rs_name,
        ns: &ns,
        labels,
        annotations: Map::new(),
        owner: owner_ref(work, uid),
        spec: json!({"replicas": replicas, "template": template}),
    });
    for i in 0..ctx.worth_making(replicas, 1) {
        let pod = format!("{rs_name}-{i}");
        ctx.pod(
            &template,
            &pod,
            &ns,
            &[("pod-template-hash", "fit".into())],
            &[],
            owner_ref(&rs, &rs_uid),
        );
    }
    (
        vec![PodSet {
            name: "main".into(),
            count: replicas,
            template,
        }],
        replicas,
    )
}

fn stateful_set(ctx: &mut Ctx, work: &Value, uid: &str) -> (Vec<PodSet>, u64) {
    let (name, ns) = name_ns(work);
    let replicas = count_at(work, "/spec/replicas", 1);
    let template = work.at("/spec/template").cloned().unwrap_or_default();
    for i in 0..ctx.worth_making(replicas, 1) {
        let pod = format!("{name}-{i}");
        ctx.pod(
            &template,
            &pod,
            &ns,
            &[
                ("statefulset.kubernetes.io/pod-name", pod.clone()),
                ("apps.kubernetes.io/pod-index", i.to_string()),
                ("controller-revision-hash", format!("{name}-fit")),
            ],
            &[],
            owner_ref(work, uid),
        );
    }
    (
        vec![PodSet {
            name: "main".into(),
            count: replicas,
            template,
        }],
        replicas,
    )
}

/// What the ExtendedResourceToleration admission plugin does to a pod: a `NoSchedule`
/// toleration with `Exists` for each extended resource its containers ask for.
fn add_extended_tolerations(pod: &mut Value) {
    let wanted = super::lookup::extended_resources(pod);
    if wanted.is_empty() {
        return;
    }
    let spec = &mut pod["spec"];
    if !spec["tolerations"].is_array() {
        spec["tolerations"] = json!([]);
    }
    if let Some(ts) = spec["tolerations"].as_array_mut() {
        for r in wanted {
            let t = super::lookup::extended_resource_toleration(&r);
            if !ts.contains(&t) {
                ts.push(t);
            }
        }
    }
}

/// KAI-Scheduler's pod-grouper puts every pod naming `kai-scheduler` in a PodGroup of its top
/// owner (one per pod for a Deployment's), with the queue of the `kai.scheduler/queue` label:
/// made here with the pods' `pod-group-name` annotation, as the grouper writes them.
fn kai_pod_group(ctx: &mut Ctx, objects: &mut Vec<Value>, uid: &str, kind: &str) {
    let kai = |o: &Value| {
        o["kind"] == "Pod" && o.at("/spec/schedulerName") == Some(&json!("kai-scheduler"))
    };
    let pods: Vec<usize> = (0..objects.len()).filter(|&i| kai(&objects[i])).collect();
    let Some(&first) = pods.first() else {
        return;
    };
    let work = objects[0].clone();
    let queue = ["kai.scheduler/queue", "runai/queue"].iter().find_map(|k| {
        crate::json::label(&work, k)
            .or_else(|| crate::json::label(&objects[first], k))
            .map(|q| (*k, q.to_string()))
    });
    let (name, ns) = name_ns(&work);
    // A Deployment's or StatefulSet's pods are grouped one by one; other work as one gang.
    let per_pod = matches!(kind, "Deployment" | "StatefulSet");
    let groups: Vec<(Vec<usize>, String, Value)> = if per_pod {
        pods.iter()
            .map(|&i| {
                let pod_name = str_at(&objects[i], "/metadata/name")
                    .unwrap_or("")
                    .to_string();
                let pod_uid = str_at(&objects[i], "/metadata/uid")
                    .unwrap_or("")
                    .to_string();
                let owner = owner_ref(&objects[i], &pod_uid);
                (vec![i], format!("pg-{pod_name}-{pod_uid}"), owner)
            })
            .collect()
    } else {
        vec![(
            pods.clone(),
            format!("pg-{name}-{uid}"),
            owner_ref(&work, uid),
        )]
    };
    for (members, pg, owner) in groups {
        let mut labels = Map::new();
        let mut spec = json!({"minMember": members.len()});
        if let Some((k, q)) = &queue {
            labels.insert(k.to_string(), json!(q));
            spec["queue"] = json!(q);
        }
        let (meta, _) = ctx.meta(&pg, &ns, labels, Map::new(), Some(owner));
        objects.push(json!({
            "apiVersion": "scheduling.run.ai/v2alpha2",
            "kind": "PodGroup",
            "metadata": meta,
            "spec": spec,
        }));
        for i in members {
            objects[i]["metadata"]["annotations"]["pod-group-name"] = json!(pg);
        }
    }
}

/// A bare Pod is its own work: it is made Pending and unscheduled where it stands.
fn bare_pod(ctx: &mut Ctx, work: &mut Value, uid: &str) -> (Vec<PodSet>, u64) {
    work["status"] = json!({"phase": "Pending"});
    without_kueue_gates(work);
    let (name, ns) = name_ns(work);
    ctx.claims_from_templates(work, uid, &name, &ns);
    if ctx.extended_tolerations {
        add_extended_tolerations(work);
    }
    let template = json!({"metadata": work.get("metadata").cloned().unwrap_or_default(), "spec": work.get("spec").cloned().unwrap_or_default()});
    (
        vec![PodSet {
            name: "main".into(),
            count: 1,
            template,
        }],
        1,
    )
}

/// A pod made from a template of work already admitted carries Kueue's gates; Kueue adds and
/// removes its own as it admits, and fit judges that admission itself (`$.facts.admission`),
/// so they are not copied. Any other gate stays: the pod would wait for its owner.
fn without_kueue_gates(pod: &mut Value) {
    let Some(spec) = pod.pointer_mut("/spec").and_then(Value::as_object_mut) else {
        return;
    };
    if let Some(gates) = spec
        .get_mut("schedulingGates")
        .and_then(Value::as_array_mut)
    {
        gates.retain(|g| !g["name"].as_str().is_some_and(crate::gates::kueues));
        if gates.is_empty() {
            spec.remove("schedulingGates");
        }
    }
}
