//! Live against the lab: a real kube-apiserver, kube-controller-manager and kube-scheduler with
//! kwok GPU nodes (`cargo xtask lab up`, core tier), read as the least-privileged user
//! (`kubeconfig-layer`, bound only to the role `kubectl layer rbac` prints). Objects are made
//! through the API and judged by the real components, so what is diagnosed is what a real
//! cluster writes. Skipped, saying so, when `KUBECTL_LAYER_LAB` (set by `cargo xtask lab test`,
//! printed by `cargo xtask lab env`) does not name a lab.

use super::{TempDir, bin, stderr, stdout};
use serde_json::Value;
use std::path::PathBuf;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// The lab directory, or None (after printing why) when no lab is up.
fn lab() -> Option<Lab> {
    lab_of(&["core", "full"])
}

/// The lab, or None (after printing why) when none is up or its tier is not one of `tiers`.
pub(super) fn lab_of(tiers: &[&str]) -> Option<Lab> {
    let Some(dir) = std::env::var_os("KUBECTL_LAYER_LAB") else {
        eprintln!("skipped: KUBECTL_LAYER_LAB is not set (no lab is up: `cargo xtask lab test`)");
        return None;
    };
    let dir = PathBuf::from(dir);
    assert!(
        dir.join("kubeconfig-layer").exists(),
        "KUBECTL_LAYER_LAB={} holds no kubeconfig-layer: is the lab up?",
        dir.display()
    );
    let tier = std::fs::read_to_string(dir.join("tier")).unwrap_or_default();
    if !tiers.contains(&tier.trim()) {
        eprintln!("skipped: the lab's tier is {tier:?}, this test needs {tiers:?}");
        return None;
    }
    Some(Lab { dir })
}

pub(super) struct Lab {
    pub(super) dir: PathBuf,
}

impl Lab {
    /// The lab's own kubectl (the server's version), as the cluster admin.
    pub(super) fn kubectl(&self, args: &[&str]) -> Output {
        Command::new(self.dir.join("bin/kubectl"))
            .arg("--kubeconfig")
            .arg(self.dir.join("kubeconfig"))
            .args(args)
            .output()
            .expect("the lab's kubectl runs")
    }

    pub(super) fn kubectl_ok(&self, args: &[&str]) -> String {
        let o = self.kubectl(args);
        assert!(
            o.status.success(),
            "kubectl {}: {}",
            args.join(" "),
            stderr(&o)
        );
        stdout(&o)
    }

    /// KAI-Scheduler runs in the lab (`<lab>/with` says so: a full lab without `--no-kai`).
    pub(super) fn runs_kai(&self) -> bool {
        std::fs::read_to_string(self.dir.join("with")).is_ok_and(|w| w.lines().any(|l| l == "kai"))
    }

    /// `kubectl-layer` as the lab's reader.
    pub(super) fn layer(&self, args: &[&str]) -> Output {
        bin()
            .env("KUBECONFIG", self.dir.join("kubeconfig-layer"))
            .args(args)
            .output()
            .expect("runs")
    }

    /// Poll `get` until `done` holds of its JSON, for at most `secs`.
    pub(super) fn wait_for(
        &self,
        what: &str,
        get: &[&str],
        secs: u64,
        done: impl Fn(&Value) -> bool,
    ) {
        let start = Instant::now();
        loop {
            let o = self.kubectl(get);
            if o.status.success()
                && serde_json::from_slice(&o.stdout).is_ok_and(|v: Value| done(&v))
            {
                return;
            }
            assert!(
                start.elapsed() < Duration::from_secs(secs),
                "{what}: not after {secs} s"
            );
            std::thread::sleep(Duration::from_millis(500));
        }
    }
}

/// A namespace of its own, deleted when the test ends.
pub(super) struct Namespace<'a>(pub(super) &'a Lab, pub(super) String);

impl Drop for Namespace<'_> {
    fn drop(&mut self) {
        let _ = self
            .0
            .kubectl(&["delete", "namespace", &self.1, "--wait=false"]);
    }
}

pub(super) fn json(o: &Output, what: &str) -> Value {
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{what}: not JSON ({e}): {}\n{}", stdout(o), stderr(o)))
}

/// A Job asking for more GPUs than a kwok node has (16 > 8): the real scheduler writes
/// FailedScheduling "Insufficient nvidia.com/gpu", and `why` names placement, live as the
/// least-privileged user and offline from `kubectl get -o json` of the same objects.
#[test]
fn a_job_wanting_more_gpus_than_any_node_is_placement_live_and_offline() {
    let Some(lab) = lab() else { return };
    let (ns, dir, _) = too_big_job(&lab, "lab-too-big");
    let live = same_live_and_offline(&lab, &dir, &ns.1, "job/too-big", "pods,nodes,events,jobs");
    assert_eq!(live["verdict"]["layer"], "placement", "{}", live["verdict"]);
}

/// `kubectl cluster-info dump --output-directory` of the lab by the real kubectl (a typed JSON
/// List per kind and namespace, `"items": null` for the kinds it has none of, a `logs.txt` per
/// pod), read as the directory and as a `.tar.gz` of it: `why` on the refused pod gives the
/// verdict it gives live, and the two give the same diagnosis. The same dump printed to
/// standard output (one text: the typed Lists one after another, the logs between their
/// `====` lines) and piped to `-f -` gives the live verdict too.
#[test]
fn a_cluster_info_dump_is_diagnosed_as_live() {
    let Some(lab) = lab() else { return };
    let (ns, dir, _) = too_big_job(&lab, "lab-dump");
    let pods = lab.kubectl_ok(&["get", "pods", "-n", &ns.1, "-o", "json"]);
    let pods: Value = serde_json::from_str(&pods).unwrap();
    let target = format!(
        "pod/{}",
        pods["items"][0]["metadata"]["name"].as_str().unwrap()
    );
    let out = dir.0.join("dump");
    let out_s = out.to_string_lossy().to_string();
    lab.kubectl_ok(&[
        "cluster-info",
        "dump",
        "--namespaces",
        &ns.1,
        "--output-directory",
        &out_s,
    ]);
    let mut tar = tar::Builder::new(flate2::write::GzEncoder::new(
        Vec::new(),
        flate2::Compression::fast(),
    ));
    tar.append_dir_all("dump", &out).unwrap();
    let tgz = dir.0.join("dump.tar.gz");
    std::fs::write(&tgz, tar.into_inner().unwrap().finish().unwrap()).unwrap();
    let why = |from: &std::path::Path| {
        bin()
            .args(["why", &target, "-n", &ns.1, "-o", "json", "-f"])
            .arg(from)
            .output()
            .unwrap()
    };
    let off_o = why(&out);
    let off = json(&off_o, "the dump's directory");
    assert!(stderr(&off_o).contains("logs: 1"), "{}", stderr(&off_o));
    let now = off["now"]["time"].as_str().unwrap().to_string();
    let live_o = lab.layer(&["why", &target, "-n", &ns.1, "--now", &now, "-o", "json"]);
    let live = json(&live_o, "live");
    assert_eq!(live_o.status.code(), off_o.status.code(), "exit codes");
    assert_eq!(live["verdict"], off["verdict"], "live and dumped verdicts");
    assert_eq!(off["verdict"]["layer"], "placement", "{}", off["verdict"]);
    let o = why(&tgz);
    assert_eq!(stdout(&o), stdout(&off_o), "{}", stderr(&o));
    let printed = lab.kubectl_ok(&["cluster-info", "dump", "--namespaces", &ns.1]);
    let o = super::with_stdin(
        bin().args(["why", &target, "-n", &ns.1, "-o", "json", "-f", "-"]),
        &printed,
    );
    assert!(stderr(&o).contains("skipped 1 (logs: 1)"), "{}", stderr(&o));
    assert_eq!(o.status.code(), live_o.status.code(), "exit codes");
    let piped = json(&o, "the dump printed to standard output");
    assert_eq!(
        piped["verdict"], live["verdict"],
        "live and printed-dump verdicts"
    );
}

/// [`TOO_BIG_JOB`] applied in a namespace of its own (`<tag>-<pid>`), once the real scheduler
/// has refused its pod for `nvidia.com/gpu`: the namespace, a directory for the test's files and
/// the manifest's file in it.
pub(super) fn too_big_job<'a>(lab: &'a Lab, tag: &str) -> (Namespace<'a>, TempDir, PathBuf) {
    let ns = Namespace(lab, format!("{tag}-{}", std::process::id()));
    lab.kubectl_ok(&["create", "namespace", &ns.1]);
    let dir = TempDir::new(tag);
    let job = dir.0.join("job.yaml");
    std::fs::write(&job, TOO_BIG_JOB).unwrap();
    lab.kubectl_ok(&["apply", "-n", &ns.1, "-f", &job.to_string_lossy()]);
    lab.wait_for(
        "the scheduler's FailedScheduling event",
        &["get", "events", "-n", &ns.1, "-o", "json"],
        180,
        |v| {
            v["items"].as_array().into_iter().flatten().any(|e| {
                e["reason"] == "FailedScheduling"
                    && e["message"]
                        .as_str()
                        .is_some_and(|m| m.contains("nvidia.com/gpu"))
            })
        },
    );
    (ns, dir, job)
}

/// `why <target>` live as the reader equals `why` offline on `kubectl get <kinds> -A -o json` of
/// the same objects: the exit code, the verdict, then every field. The live diagnosis.
/// The real controllers keep writing (Kueue re-emits a waiting Workload's event), so the two
/// reads can see different objects: a differing answer is read again, up to three times,
/// and only a difference that stays fails.
pub(super) fn same_live_and_offline(
    lab: &Lab,
    dir: &TempDir,
    ns: &str,
    target: &str,
    kinds: &str,
) -> Value {
    let mut last = None;
    for _ in 0..3 {
        let (live, off) = read_twice(lab, dir, ns, target, kinds);
        if live == off {
            return live;
        }
        last = Some((live, off));
    }
    let (live, off) = last.unwrap();
    for (field, value) in off.as_object().unwrap() {
        assert_eq!(&live[field], value, "{field} differs live and offline");
    }
    live
}

/// One offline read (`kubectl get`, then `why -f`) and one live read at the same `now`, each
/// made comparable; the exit codes and verdicts must agree on every read.
fn read_twice(lab: &Lab, dir: &TempDir, ns: &str, target: &str, kinds: &str) -> (Value, Value) {
    let file = dir.0.join("get.json");
    let got = lab.kubectl_ok(&["get", kinds, "-A", "-o", "json"]);
    std::fs::write(&file, got).unwrap();
    let off_o = bin()
        .args(["why", target, "-n", ns, "-o", "json", "-f"])
        .arg(&file)
        .output()
        .unwrap();
    let off = json(&off_o, "offline");
    let now = off["now"]["time"].as_str().unwrap().to_string();
    let live_o = lab.layer(&["why", target, "-n", ns, "--now", &now, "-o", "json"]);
    let live = json(&live_o, "live");
    eprintln!("lab: live verdict {}", live["verdict"]);
    assert_eq!(live_o.status.code(), off_o.status.code(), "exit codes");
    assert_eq!(live["verdict"], off["verdict"], "live and offline verdicts");
    (comparable(live), comparable(off))
}

/// A diagnosis without what only says how it was read (one place: the test API server's
/// comparison and the lab's are the same).
pub(super) use super::live::comparable;

/// One pod that cannot fit: no node has 16 GPUs. kwok never runs it, so the image is never
/// pulled.
const TOO_BIG_JOB: &str = "apiVersion: batch/v1
kind: Job
metadata:
  name: too-big
spec:
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: train
        image: registry.k8s.io/pause:3.10
        resources:
          limits:
            nvidia.com/gpu: 16
";

/// The full tier's real Kueue admits a Job whose quota (64 GPUs) is larger than any kwok node
/// (8): Kueue unsuspends it, the real scheduler cannot place its pod, and `why` says admission
/// said yes and placement no, live and offline alike.
#[test]
fn kueue_admits_what_no_node_can_hold_and_placement_says_no() {
    let Some(lab) = lab_of(&["full"]) else { return };
    let ns = Namespace(&lab, format!("lab-kueue-{}", std::process::id()));
    lab.kubectl_ok(&["create", "namespace", &ns.1]);
    let dir = TempDir::new("lab-kueue");
    let objects = dir.0.join("kueue.yaml");
    let cq = format!("lab-cq-{}", std::process::id());
    std::fs::write(&objects, kueue_objects(&ns.1, &cq)).unwrap();
    lab.kubectl_ok(&["apply", "-f", &objects.to_string_lossy()]);
    let _cleanup = ClusterScoped(&lab, vec![format!("clusterqueue/{cq}")]);
    let job = dir.0.join("job.yaml");
    std::fs::write(&job, TOO_BIG_QUEUED_JOB).unwrap();
    lab.kubectl_ok(&["apply", "-n", &ns.1, "-f", &job.to_string_lossy()]);
    lab.wait_for(
        "Kueue's admission and the scheduler's FailedScheduling",
        &[
            "get",
            "workloads.kueue.x-k8s.io,events",
            "-n",
            &ns.1,
            "-o",
            "json",
        ],
        180,
        |v| {
            let items = v["items"].as_array().cloned().unwrap_or_default();
            let admitted = items.iter().any(|w| {
                w["kind"] == "Workload"
                    && w["status"]["conditions"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .any(|c| c["type"] == "Admitted" && c["status"] == "True")
            });
            admitted && items.iter().any(|e| e["reason"] == "FailedScheduling")
        },
    );
    let kinds =
        "pods,nodes,events,jobs,workloads.kueue.x-k8s.io,localqueues,clusterqueues,resourceflavors";
    let live = same_live_and_offline(&lab, &dir, &ns.1, "job/too-big", kinds);
    assert_eq!(live["verdict"]["layer"], "placement", "{}", live["verdict"]);
    let admission = live["layers"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|l| l["layer"] == "admission");
    assert_eq!(
        admission.map(|l| &l["state"]),
        Some(&Value::from("ok")),
        "{}",
        live["layers"]
    );
    super::lab_course::course_incident(&lab, &ns.1, "job/too-big", &KUEUE_NO_ROOM);
}

/// The course's first incident, as `tests/lab/kueue-admitted-no-room/` records it.
const KUEUE_NO_ROOM: super::lab_course::Course = super::lab_course::Course {
    name: "kueue-admitted-no-room",
    story: "The course: Kueue admitted the work by quota, but no node had room (admission \
            against placement). A ClusterQueue of 64 GPUs admits a Job of one 16-GPU pod; the \
            real kube-scheduler finds no 8-GPU node that holds it.",
    layer: "placement",
};

/// Cluster-scoped objects a test made, deleted when it ends.
pub(super) struct ClusterScoped<'a>(pub(super) &'a Lab, pub(super) Vec<String>);

impl Drop for ClusterScoped<'_> {
    fn drop(&mut self) {
        for o in &self.1 {
            let _ = self.0.kubectl(&["delete", o, "--wait=false"]);
        }
    }
}

/// A flavor for the kwok nodes, a ClusterQueue with more GPU quota than any node has, and the
/// namespace's LocalQueue, in Kueue's storage version (v1beta2).
pub(super) fn kueue_objects(ns: &str, cq: &str) -> String {
    format!(
        "apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata:
  name: lab-h100
spec:
  nodeLabels:
    nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: {cq}
spec:
  namespaceSelector: {{}}
  resourceGroups:
  - coveredResources: [cpu, memory, nvidia.com/gpu]
    flavors:
    - name: lab-h100
      resources:
      - name: cpu
        nominalQuota: 640
      - name: memory
        nominalQuota: 5Ti
      - name: nvidia.com/gpu
        nominalQuota: 64
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata:
  name: team-a
  namespace: {ns}
spec:
  clusterQueue: {cq}
"
    )
}

/// [`TOO_BIG_JOB`] sent to Kueue's queue, suspended until Kueue admits it.
pub(super) const TOO_BIG_QUEUED_JOB: &str = "apiVersion: batch/v1
kind: Job
metadata:
  name: too-big
  labels:
    kueue.x-k8s.io/queue-name: team-a
spec:
  suspend: true
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
            nvidia.com/gpu: 16
";
