//! The course's incidents, made by the real components of the full lab (issue 39, point 4):
//! each test builds one incident through the API, waits for the real Kueue, LWS, scheduler or
//! kwok kubelet to write it, and checks `why` as the least-privileged reader against the layer
//! the course names. [`course_incident`] then reads the tool's own bundle of the target and
//! checks that the bundle gives the same verdict offline and the verdict `tests/lab/<name>/`
//! records; with `KUBECTL_LAYER_LAB_EXPORT=1` it (re)writes that folder instead, from what the
//! real components wrote (`docs/lab.md` has the command). The tests' namespaces carry the
//! process id, so a rerun against a lab still deleting the last run's never collides.

use super::lab::{
    ClusterScoped, Lab, Namespace, TOO_BIG_QUEUED_JOB, json, kueue_objects, lab_of,
    same_live_and_offline,
};
use super::{TempDir, bin, stderr};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// What the course says of one incident, for its README, and the layer it names.
pub(super) struct Course {
    /// The folder under `tests/lab/`.
    pub name: &'static str,
    /// What happened, in the course's terms.
    pub story: &'static str,
    /// The layer the course puts the cause in.
    pub layer: &'static str,
}

/// The kinds every incident is compared through `kubectl get` (the existing live contract).
const KINDS: &str = "pods,nodes,events,jobs,statefulsets,workloads.kueue.x-k8s.io,localqueues,\
clusterqueues,resourceflavors,leaderworkersets,runtimeclasses";

/// Judge `target` in `ns` as the course's incident `c`: the live verdict names the course's
/// layer; the tool's own bundle of it gives the same verdict offline; and that verdict is the
/// one `tests/lab/<name>/expected.json` records (or, when exporting, is written there with the
/// bundle). The live diagnosis.
pub(super) fn course_incident(lab: &Lab, ns: &str, target: &str, c: &Course) -> Value {
    let dir = TempDir::new(c.name);
    let o = lab.layer(&["bundle", target, "-n", ns]);
    assert!(o.status.success(), "bundle {target}: {}", stderr(&o));
    let bundle: Value = serde_json::from_slice(&o.stdout).expect("the bundle is JSON");
    let now = bundle["kubectlLayer"]["collectedAt"]
        .as_str()
        .expect("the tool's bundle says when it was collected")
        .to_string();
    let file = dir.0.join("bundle.json");
    std::fs::write(&file, &o.stdout).unwrap();
    let off_o = bin()
        .args(["why", target, "-n", ns, "-o", "json", "-f"])
        .arg(&file)
        .output()
        .unwrap();
    let live_o = lab.layer(&["why", target, "-n", ns, "--now", &now, "-o", "json"]);
    let (off, live) = (json(&off_o, "offline"), json(&live_o, "live"));
    eprintln!("lab course {}: live verdict {}", c.name, live["verdict"]);
    assert_eq!(live_o.status.code(), off_o.status.code(), "exit codes");
    assert_eq!(live["verdict"], off["verdict"], "live and bundle verdicts");
    assert_eq!(live["verdict"]["layer"], c.layer, "{}", live["verdict"]);
    let folder = incidents_dir().join(c.name);
    if std::env::var_os("KUBECTL_LAYER_LAB_EXPORT").is_some() {
        export(
            lab,
            &folder,
            c,
            [target, ns],
            &bundle,
            &expectation(&off, off_o.status.code()),
        );
    } else {
        assert_recorded(&folder, &live);
    }
    live
}

/// `tests/lab`, beside the scenarios and incidents.
fn incidents_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/lab")
}

/// One entry of `expected.json`, in the scenarios' format, from a diagnosis and `why`'s exit.
fn expectation(d: &Value, exit: Option<i32>) -> Value {
    let t = &d["target"];
    let v = &d["verdict"];
    let layers: serde_json::Map<String, Value> = d["layers"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|l| {
            (
                l["layer"].as_str().unwrap_or_default().into(),
                l["state"].clone(),
            )
        })
        .collect();
    let findings = rules(d);
    let misalignment = v["misalignment"]
        .as_object()
        .map(|m| json!({"saidYes": m["saidYes"], "saidNo": m["saidNo"]}));
    json!({
        "target": format!("{}/{}/{}", t["kind"].as_str().unwrap_or_default(),
            t["namespace"].as_str().unwrap_or_default(), t["name"].as_str().unwrap_or_default()),
        "exit": exit,
        "verdict": {"state": v["state"], "layer": v["layer"], "outlook": v["outlook"]},
        "misalignment": misalignment,
        "headline": v["headline"],
        "layers": layers,
        "findings": findings,
    })
}

/// The rule of every finding of a diagnosis.
fn rules(d: &Value) -> Vec<&Value> {
    let findings = d["findings"].as_array().into_iter().flatten();
    findings.map(|f| &f["rule"]).collect()
}

/// The live verdict is the one the committed folder records: state, layer and outlook (the
/// rest of the folder is checked offline by the tests crate).
fn assert_recorded(folder: &Path, live: &Value) {
    let path = folder.join("expected.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; export it with KUBECTL_LAYER_LAB_EXPORT=1 (docs/lab.md)",
            path.display()
        )
    });
    let expected: Value = serde_json::from_str(&text).expect("expected.json is JSON");
    let recorded = &expected[0]["verdict"];
    for field in ["state", "layer", "outlook"] {
        assert_eq!(
            live["verdict"][field],
            recorded[field],
            "{field}: live against {}",
            path.display()
        );
    }
}

/// Write the incident's folder: the bundle (the tool's own, redacted, managedFields already
/// gone), what it must be diagnosed as, and a README naming who wrote it.
fn export(lab: &Lab, folder: &Path, c: &Course, read: [&str; 2], bundle: &Value, expected: &Value) {
    std::fs::create_dir_all(folder).unwrap();
    let pretty = |v: &Value| serde_json::to_string_pretty(v).unwrap() + "\n";
    // Compact: the integrations' CRDs it holds (read for their creation time) are most of it.
    std::fs::write(folder.join("bundle.json"), format!("{bundle}\n")).unwrap();
    std::fs::write(folder.join("expected.json"), pretty(&json!([expected]))).unwrap();
    let readme = format!(
        "# {}\n\n{}\n\nExpected layer: **{}** (`expected.json`: verdict `{}`, outlook `{}`).\n\n\
         Written by the real components of `cargo xtask lab up --tier full`: {}. Kubernetes {} \
         (kube-apiserver, kube-controller-manager, kube-scheduler); the kubelet is kwok's. Read \
         back as the least-privileged reader with `kubectl layer bundle {} -n {}` (redacted, \
         no managedFields).\n\nRegenerate: `KUBECTL_LAYER_LAB_EXPORT=1 cargo xtask lab test --tier \
         full` (see `docs/lab.md`).\n",
        c.name,
        c.story,
        c.layer,
        expected["verdict"]["state"].as_str().unwrap_or_default(),
        expected["verdict"]["outlook"].as_str().unwrap_or("none"),
        versions(lab).join(", "),
        bundle["kubectlLayer"]["serverVersion"]
            .as_str()
            .unwrap_or("?"),
        read[0],
        read[1],
    );
    std::fs::write(folder.join("README.md"), readme).unwrap();
    eprintln!("lab course {}: exported to {}", c.name, folder.display());
}

/// `<component> <version>` of every binary the lab runs, read from where `lab/bin` links to:
/// the build cache's `<component>-<version>-<go>/bin/<binary>`.
fn versions(lab: &Lab) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(lab.dir.join("bin"))
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| std::fs::read_link(e.path()).ok())
        .filter_map(|target| {
            let cache = target
                .parent()?
                .parent()?
                .file_name()?
                .to_string_lossy()
                .to_string();
            // `<component>-<version>-<go>`; a component's name may hold a dash (kai-scheduler).
            let mut parts = cache.rsplitn(3, '-');
            let (_go, version, name) = (parts.next()?, parts.next()?, parts.next()?);
            (name != "kubernetes").then(|| format!("{name} {version}"))
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Apply a manifest as the admin.
pub(super) fn apply(lab: &Lab, dir: &TempDir, ns: &str, yaml: &str) {
    let file = dir.0.join("objects.yaml");
    std::fs::write(&file, yaml).unwrap();
    lab.kubectl_ok(&["apply", "-n", ns, "-f", &file.to_string_lossy()]);
}

/// A namespace of the test's own, made; deleted when the test ends, and waited for: its pods
/// hold GPUs of the shared nodes, which the next test's two reads must see alike.
pub(super) struct CourseNs<'a>(Namespace<'a>);

impl CourseNs<'_> {
    pub(super) fn name(&self) -> &str {
        &self.0.1
    }
}

impl Drop for CourseNs<'_> {
    fn drop(&mut self) {
        let ns = &self.0.1;
        let _ = self
            .0
            .0
            .kubectl(&["delete", "namespace", ns, "--timeout=120s"]);
    }
}

pub(super) fn namespace<'a>(lab: &'a Lab, tag: &str) -> CourseNs<'a> {
    let ns = Namespace(lab, format!("course-{tag}-{}", std::process::id()));
    lab.kubectl_ok(&["create", "namespace", &ns.1]);
    CourseNs(ns)
}

/// Wait until the Workload of Job `job` in `ns` has a condition that `done` accepts.
fn wait_workload(lab: &Lab, ns: &str, job: &str, what: &str, done: impl Fn(&Value) -> bool) {
    let prefix = format!("job-{job}-");
    let get = ["get", "workloads.kueue.x-k8s.io", "-n", ns, "-o", "json"];
    lab.wait_for(what, &get, 180, |v| {
        v["items"].as_array().into_iter().flatten().any(|w| {
            w["metadata"]["name"]
                .as_str()
                .is_some_and(|n| n.starts_with(&prefix))
                && w["status"]["conditions"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .any(&done)
        })
    });
}

/// The course: "LWS made the group, but only the leader came up" (grouping against placement).
/// The real LWS controller creates the leader's and the workers' StatefulSets; the leader (1
/// GPU) runs on a kwok node, the worker asks 16 GPUs of 8-GPU nodes and the real scheduler
/// cannot place it.
#[test]
fn an_lws_whose_leader_runs_and_whose_workers_wait_is_placement() {
    let Some(lab) = lab_of(&["full"]) else { return };
    let ns = namespace(&lab, "lws");
    let dir = TempDir::new("lab-lws");
    apply(&lab, &dir, ns.name(), LWS);
    lab.wait_for(
        "the leader Running and the worker's FailedScheduling",
        &["get", "pods,events", "-n", ns.name(), "-o", "json"],
        180,
        |v| {
            let items = v["items"].as_array().cloned().unwrap_or_default();
            let leader = items
                .iter()
                .any(|p| p["metadata"]["name"] == "infer-0" && p["status"]["phase"] == "Running");
            leader
                && items.iter().any(|e| {
                    e["reason"] == "FailedScheduling" && e["involvedObject"]["name"] == "infer-0-1"
                })
        },
    );
    same_live_and_offline(&lab, &dir, ns.name(), "lws/infer", KINDS);
    let live = course_incident(
        &lab,
        ns.name(),
        "lws/infer",
        &Course {
            name: "lws-leader-runs-workers-wait",
            story: "The course: LWS made the group, but only its leader came up (grouping against \
                placement). A LeaderWorkerSet of one group of two: the leader asks 1 GPU and runs; \
                the worker asks 16 GPUs of nodes that have 8, and the real kube-scheduler cannot \
                place it.",
            layer: "placement",
        },
    );
    let m = &live["verdict"]["misalignment"];
    assert_eq!(
        (&m["saidYes"], &m["saidNo"]),
        (&json!("grouping"), &json!("placement")),
        "{}",
        live["verdict"]
    );
}

const LWS: &str = "apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata:
  name: infer
spec:
  replicas: 1
  leaderWorkerTemplate:
    size: 2
    leaderTemplate:
      spec:
        containers:
        - name: leader
          image: registry.k8s.io/pause:3.10
          resources:
            limits:
              nvidia.com/gpu: 1
    workerTemplate:
      spec:
        containers:
        - name: worker
          image: registry.k8s.io/pause:3.10
          resources:
            limits:
              nvidia.com/gpu: 16
";

/// [`kueue_objects`] (the flavor, the ClusterQueue `cq` and the LocalQueue `team-a`) shrunk to
/// 8 GPUs, in a cohort of its own with a borrowing limit of 4: a lone queue's cohort lends
/// nothing, so 8 + 4 is the most it could ever give.
fn small_queue(ns: &str, cq: &str) -> String {
    let objects = kueue_objects(ns, cq);
    let small = objects
        .replace(
            "nominalQuota: 64",
            "nominalQuota: 8\n        borrowingLimit: 4",
        )
        .replace(
            "  namespaceSelector: {}",
            &format!("  cohortName: {cq}\n  namespaceSelector: {{}}"),
        );
    assert_ne!(small, objects, "kueue_objects changed shape");
    small
}

/// [`TOO_BIG_QUEUED_JOB`] (one pod, through the LocalQueue `team-a`) named `name`, asking
/// `gpus` GPUs.
fn queued_job(name: &str, gpus: u32) -> String {
    let job = TOO_BIG_QUEUED_JOB
        .replace("name: too-big", &format!("name: {name}"))
        .replace("nvidia.com/gpu: 16", &format!("nvidia.com/gpu: {gpus}"));
    assert!(
        job.contains(&format!("nvidia.com/gpu: {gpus}")),
        "TOO_BIG_QUEUED_JOB changed shape"
    );
    job
}

/// A namespace, a [`small_queue`] for it (deleted with the test) and a scratch folder.
fn quota_setup<'a>(lab: &'a Lab, tag: &str) -> (CourseNs<'a>, ClusterScoped<'a>, TempDir) {
    let ns = namespace(lab, tag);
    let cq = format!("course-{tag}-{}", std::process::id());
    let cleanup = ClusterScoped(lab, vec![format!("clusterqueue/{cq}")]);
    let dir = TempDir::new(tag);
    apply(lab, &dir, ns.name(), &small_queue(ns.name(), &cq));
    (ns, cleanup, dir)
}

/// A bare pod of 8 GPUs through the LocalQueue `team-a` (Kueue's pod integration): it holds the
/// queue's quota while it runs, since kwok finishes only pods that a Job owns.
const HOLDER: &str = "apiVersion: v1
kind: Pod
metadata:
  name: holder
  labels:
    kueue.x-k8s.io/queue-name: team-a
spec:
  containers:
  - name: serve
    image: registry.k8s.io/pause:3.10
    resources:
      requests:
        cpu: 1
        memory: 1Gi
      limits:
        nvidia.com/gpu: 8
";

/// The course's pair: quota that frees up later against quota that never can. Here the first:
/// the queue's 8 GPUs are held by an admitted pod, so the real Kueue keeps the Job (8 GPUs)
/// pending for quota; admission, waiting. When the holder ends, Kueue admits the Job.
#[test]
fn kueue_quota_in_use_frees_up_later() {
    let Some(lab) = lab_of(&["full"]) else { return };
    let (ns, _cq, dir) = quota_setup(&lab, "quota-later");
    apply(&lab, &dir, ns.name(), HOLDER);
    lab.wait_for(
        "the holder admitted and running",
        &["get", "pod/holder", "-n", ns.name(), "-o", "json"],
        180,
        |p| p["status"]["phase"] == "Running",
    );
    apply(&lab, &dir, ns.name(), &queued_job("waits", 8));
    wait_workload(
        &lab,
        ns.name(),
        "waits",
        "Kueue holding it for quota",
        |c| c["type"] == "QuotaReserved" && c["status"] == "False" && c["reason"] == "Pending",
    );
    same_live_and_offline(&lab, &dir, ns.name(), "job/waits", KINDS);
    let live = course_incident(
        &lab,
        ns.name(),
        "job/waits",
        &Course {
            name: "kueue-quota-frees-later",
            story: "The course's pair, first half: Kueue quota that frees up later. A ClusterQueue of \
                8 GPUs (borrowing limit 4, nothing to borrow) whose 8 GPUs an admitted pod holds; \
                a Job of 8 GPUs waits in the real Kueue for that quota, and is admitted once the \
                pod ends.",
            layer: "admission",
        },
    );
    assert_eq!(live["verdict"]["outlook"], "waiting", "{}", live["verdict"]);
    lab.kubectl_ok(&["delete", "pod/holder", "-n", ns.name(), "--wait=false"]);
    wait_workload(
        &lab,
        ns.name(),
        "waits",
        "Kueue admitting it once the holder ended",
        |c| c["type"] == "Admitted" && c["status"] == "True",
    );
    let after = lab.layer(&["why", "job/waits", "-n", ns.name(), "-o", "json"]);
    let after = json(&after, "after");
    assert_ne!(
        after["verdict"]["layer"], "admission",
        "{}",
        after["verdict"]
    );
}

/// The pair's second half: a Job of 16 GPUs against a ClusterQueue of 8 that may borrow 4 at
/// most; the real Kueue says it can never fit; admission, and waiting will not help.
#[test]
fn kueue_quota_that_never_can_is_admission_never() {
    let Some(lab) = lab_of(&["full"]) else { return };
    let (ns, _cq, dir) = quota_setup(&lab, "quota-never");
    apply(&lab, &dir, ns.name(), &queued_job("too-big", 16));
    wait_workload(&lab, ns.name(), "too-big", "Kueue's verdict", |c| {
        c["type"] == "QuotaReserved" && c["status"] == "False"
    });
    same_live_and_offline(&lab, &dir, ns.name(), "job/too-big", KINDS);
    let live = course_incident(
        &lab,
        ns.name(),
        "job/too-big",
        &Course {
            name: "kueue-quota-never",
            story: "The course's pair, second half: Kueue quota that never can. A Job of 16 GPUs \
                against a ClusterQueue of 8 GPUs with a borrowing limit of 4: the most it could \
                ever lend is 12, so the real Kueue never admits it.",
            layer: "admission",
        },
    );
    assert_eq!(live["verdict"]["outlook"], "never", "{}", live["verdict"]);
}

/// The course: "KAI split the GPU, but the container never started because of k3s's
/// RuntimeClass" (placement against runtime). A RuntimeClass `nvidia` (handler `nvidia`, as
/// k3s installs it) on nodes that have only runc: the scheduler places the pod, and the lab's
/// kwok stage answers as the kubelet and containerd do, FailedCreatePodSandBox "no runtime for
/// \"nvidia\" is configured".
#[test]
fn a_runtime_handler_the_node_lacks_is_runtime() {
    let Some(lab) = lab_of(&["core", "full"]) else {
        return;
    };
    let ns = namespace(&lab, "runtime");
    // The stage matches the class named `nvidia` (xtask/src/lab/stages.rs); shared by the
    // runs of this one test, so it is left in place.
    let dir = TempDir::new("lab-runtime");
    apply(&lab, &dir, ns.name(), RUNTIME_CLASS);
    apply(&lab, &dir, ns.name(), CUDA_POD);
    lab.wait_for(
        "the sandbox failure in the kubelet's words",
        &["get", "events", "-n", ns.name(), "-o", "json"],
        180,
        |v| {
            v["items"].as_array().into_iter().flatten().any(|e| {
                e["reason"] == "FailedCreatePodSandBox"
                    && e["message"]
                        .as_str()
                        .is_some_and(|m| m.contains("no runtime for \"nvidia\""))
            })
        },
    );
    same_live_and_offline(&lab, &dir, ns.name(), "cuda", KINDS);
    let live = course_incident(
        &lab,
        ns.name(),
        "cuda",
        &Course {
            name: "runtime-handler-missing",
            story: "The course: the GPU was handed out, but k3s's RuntimeClass kept the container from \
                starting (placement against runtime). RuntimeClass `nvidia` with handler `nvidia` \
                on nodes whose runtime has no such handler: the real scheduler places the pod; \
                the node (kwok, with the lab's stage in the kubelet's and containerd's words) \
                fails its sandbox, `no runtime for \"nvidia\" is configured`.",
            layer: "runtime",
        },
    );
    let findings = rules(&live);
    assert!(
        findings.contains(&&json!("runtime/runtime-handler-not-configured")),
        "{findings:?}"
    );
}

const RUNTIME_CLASS: &str = "apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata:
  name: nvidia
handler: nvidia
";

const CUDA_POD: &str = "apiVersion: v1
kind: Pod
metadata:
  name: cuda
spec:
  runtimeClassName: nvidia
  containers:
  - name: cuda
    image: nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04
    resources:
      limits:
        nvidia.com/gpu: 1
";

/// The course: "with Kueue up first, a JobSet installed later takes about a minute before
/// Kueue takes it up" (not in Kueue's docs). Needs a lab started with `--jobset-after-kueue`
/// (`lab test --tier full` starts one after the other tests): the real Kueue started without
/// the JobSet CRD and polls for it with a backoff (1 s doubling to 2 min). The test installs
/// the CRD between two polls, creates a queued JobSet at once, and reads it before Kueue's next
/// poll: suspended by Kueue's webhook, no Workload; admission, waiting. Then Kueue notices and
/// makes the Workload.
#[test]
fn jobset_installed_after_kueue_waits_for_kueue_to_notice() {
    let Some(lab) = lab_of(&["full"]) else { return };
    let Ok(crds) = std::fs::read_to_string(lab.dir.join("late-jobset")) else {
        eprintln!(
            "skipped: this lab has JobSet since its start (`lab up --tier full --jobset-after-kueue`)"
        );
        return;
    };
    let (ns, _cq, dir) = quota_setup(&lab, "jobset-late");
    between_kueue_polls(&lab);
    lab.kubectl_ok(&["apply", "--server-side", "-f", crds.trim()]);
    // Polled rather than `kubectl wait`: right after the apply the CRD can have no
    // `status.conditions` yet, and kubectl's wait fails on that instead of waiting (CI, stop 50).
    lab.wait_for(
        "the JobSet CRD established",
        &["get", "crd/jobsets.jobset.x-k8s.io", "-o", "json"],
        60,
        |v| {
            v["status"]["conditions"].as_array().is_some_and(|c| {
                c.iter()
                    .any(|c| c["type"] == "Established" && c["status"] == "True")
            })
        },
    );
    apply(&lab, &dir, ns.name(), JOBSET);
    let live = course_incident(
        &lab,
        ns.name(),
        "jobset/train",
        &Course {
            name: "jobset-installed-after-kueue",
            story: "The course: with Kueue already up, a JobSet installed later takes about a \
                    minute before Kueue manages it (not in Kueue's docs). The real Kueue started \
                    without the JobSet CRD and polls for it (1 s doubling to 2 min); the CRD is \
                    installed between two polls and a queued JobSet created at once: Kueue's \
                    webhook suspended it, and no Workload exists until the next poll. Only the \
                    CRD is installed (the JobSet controller cannot start before it), so \
                    grouping also warns that no JobSet controller has reconciled it.",
            layer: "admission",
        },
    );
    assert_eq!(
        live["verdict"]["rule"], "admission/integration-not-active-yet",
        "{}",
        live["verdict"]
    );
    lab.wait_for(
        "Kueue noticing the JobSet API and making the Workload",
        &[
            "get",
            "workloads.kueue.x-k8s.io",
            "-n",
            ns.name(),
            "-o",
            "json",
        ],
        200,
        |v| v["items"].as_array().is_some_and(|a| !a.is_empty()),
    );
    let log = std::fs::read_to_string(lab.dir.join("logs/kueue.log")).unwrap_or_default();
    assert!(
        log.lines()
            .any(|l| l.contains("API now available") && l.contains("jobset")),
        "Kueue's log does not say it started the JobSet integration"
    );
    let after = json(
        &lab.layer(&["why", "jobset/train", "-n", ns.name(), "-o", "json"]),
        "after",
    );
    assert_ne!(
        after["verdict"]["rule"], "admission/integration-not-active-yet",
        "{}",
        after["verdict"]
    );
}

/// Sleep, if need be, until Kueue's next poll for the JobSet API is at least 12 s away. Kueue
/// logs when it began waiting ("deferring setting up controller"); it polls 1, 3, 7, 15, 31,
/// 63 and 127 s after, then every 120 s.
fn between_kueue_polls(lab: &Lab) {
    let log = std::fs::read_to_string(lab.dir.join("logs/kueue.log")).unwrap_or_default();
    let began = log
        .lines()
        .filter(|l| l.contains("deferring setting up controller") && l.contains("jobset.x-k8s.io"))
        .find_map(|l| {
            let v: Value = serde_json::from_str(l).ok()?;
            layer_core::time::parse_rfc3339(v["ts"].as_str()?)
        })
        .expect("Kueue's log says it deferred the JobSet integration");
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    let elapsed = now - began;
    let polls = (1..).map(|k: u32| {
        if k <= 7 {
            (1i64 << k) - 1
        } else {
            127 + 120 * i64::from(k - 7)
        }
    });
    // The first moment from now (or 2 s past a poll) with 12 s to the poll after it.
    let mut at = elapsed;
    for poll in polls {
        if poll <= at {
            continue;
        }
        if poll - at >= 12 {
            break;
        }
        at = poll + 2;
    }
    if at > elapsed {
        eprintln!("lab course: waiting {} s, past Kueue's polls", at - elapsed);
        std::thread::sleep(std::time::Duration::from_secs((at - elapsed) as u64));
    }
}

/// One Job of one pod, through the LocalQueue `team-a`.
const JOBSET: &str = "apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  name: train
  labels:
    kueue.x-k8s.io/queue-name: team-a
spec:
  replicatedJobs:
  - name: workers
    replicas: 1
    template:
      spec:
        parallelism: 1
        completions: 1
        backoffLimit: 0
        template:
          spec:
            restartPolicy: Never
            containers:
            - name: train
              image: registry.k8s.io/pause:3.10
              resources:
                requests:
                  cpu: 1
                  memory: 1Gi
                limits:
                  nvidia.com/gpu: 1
";
