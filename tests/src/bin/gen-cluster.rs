//! `gen-cluster`: writes a realistic synthetic cluster as one kubectl `List`, deterministic for a
//! seed. GPU and CPU nodes with labels and taints; Kueue queues, flavors and Workloads; Jobs,
//! JobSets, LeaderWorkerSets, KAI PodGroups and Queues, DRA slices and claims, Dynamo
//! deployments, Deployments; events; and a mix of running and blocked work across all six
//! layers. Used by `cargo xtask gen-cluster` and the benchmarks.
//!
//! `--shape` picks the day the cluster is having (the tool is reached for when work does not
//! run, so the benchmarks measure those days too):
//! - `usual` (default): most work runs; a few pods of every layer are blocked.
//! - `backlog`: about 90% of the pods are Pending GPU pods of Kueue-managed Jobs, each with a
//!   Workload whose quota is not reserved and a FailedScheduling event.
//! - `taint-storm`: every GPU node carries a NoSchedule taint no pod tolerates, so GPU pods wait.
//! - `plugin-down`: the device plugin crash-loops on every GPU node, which advertise no GPUs.
//! - `mixed`: each node and each piece of work takes one of the three above in turn.
//!
//! Usage: gen-cluster --nodes N --pods M [--seed S] [--shape SHAPE] [--out FILE]
//!
//! Exit status: 0 when the bundle is written (or the reader of standard output closed it
//! early, as `| head` does); 1 when writing fails; 2 for a flag it does not know or a value it
//! cannot read.

use serde_json::{Value, json};
use std::io::{BufWriter, Write};

/// SplitMix64: small, fast, and the same stream for the same seed on every platform.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    fn suffix(&mut self, len: usize) -> String {
        const A: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
        (0..len)
            .map(|_| A[self.below(A.len() as u64) as usize] as char)
            .collect()
    }
    fn uid(&mut self) -> String {
        let (a, b) = (self.next(), self.next());
        format!(
            "{:08x}-{:04x}-4{:03x}-8{:03x}-{:012x}",
            a >> 32,
            (a >> 16) & 0xffff,
            a & 0xfff,
            b >> 52,
            b & 0xffff_ffff_ffff
        )
    }
}

struct Gen {
    rng: Rng,
    rv: u64,
    out: BufWriter<Box<dyn Write>>,
    /// The first write that failed: nothing more is written once one has.
    failed: Option<std::io::Error>,
    first: bool,
    gpu_nodes: Vec<(String, u64)>, // (name, free GPUs)
    cpu_nodes: Vec<String>,
    node_count: usize,
    objects: u64,
    /// A ResourceClaim the next pod names in `spec.resourceClaims` (DRA), taken by `pod`.
    claim: Option<String>,
    /// GPU nodes where the DRA driver publishes a ResourceSlice.
    dra_nodes: Vec<String>,
    /// UIDs of the GPU nodes, in `gpu_nodes` order.
    node_uids: Vec<String>,
    shape: Shape,
    /// GPU nodes whose device plugin is down (`plugin-down`).
    plugin_down: Vec<String>,
}

/// The day the cluster is having (see the module docs).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    Usual,
    Backlog,
    TaintStorm,
    PluginDown,
    Mixed,
}

impl Shape {
    fn parse(s: &str) -> Option<Shape> {
        Some(match s {
            "usual" => Shape::Usual,
            "backlog" => Shape::Backlog,
            "taint-storm" => Shape::TaintStorm,
            "plugin-down" => Shape::PluginDown,
            "mixed" => Shape::Mixed,
            _ => return None,
        })
    }

    /// The shape of the `i`-th node or piece of work: `mixed` takes the three in turn.
    fn at(self, i: usize) -> Shape {
        match (self, i % 3) {
            (Shape::Mixed, 0) => Shape::Backlog,
            (Shape::Mixed, 1) => Shape::TaintStorm,
            (Shape::Mixed, _) => Shape::PluginDown,
            (s, _) => s,
        }
    }
}

/// The taint of a taint storm: GPU health checks marking nodes, which no pod tolerates.
const STORM_TAINT: &str = "nvidia.com/gpu.unhealthy";

const T0: &str = "2026-11-20T09:";

impl Gen {
    fn ts(&mut self) -> String {
        format!("{T0}{:02}:{:02}Z", self.rng.below(60), self.rng.below(60))
    }

    fn write(&mut self, bytes: &[u8]) {
        if self.failed.is_none()
            && let Err(e) = self.out.write_all(bytes)
        {
            self.failed = Some(e);
        }
    }

    fn emit(&mut self, v: &Value) {
        if !self.first {
            self.write(b",\n");
        }
        self.first = false;
        if self.failed.is_none()
            && let Err(e) = serde_json::to_writer(&mut self.out, v)
        {
            self.failed = Some(e.into());
        }
        self.objects += 1;
    }

    fn meta(
        &mut self,
        name: &str,
        ns: Option<&str>,
        labels: Value,
        owner: Option<(&str, &str, &str, &str)>,
    ) -> (Value, String) {
        self.rv += 1;
        let uid = self.rng.uid();
        let mut m = json!({"name": name, "uid": uid, "resourceVersion": self.rv.to_string(), "creationTimestamp": self.ts(), "labels": labels});
        if let Some(ns) = ns {
            m["namespace"] = json!(ns);
        }
        if let Some((av, kind, oname, ouid)) = owner {
            m["ownerReferences"] = json!([{"apiVersion": av, "kind": kind, "name": oname, "uid": ouid, "controller": true, "blockOwnerDeletion": true}]);
        }
        (m, uid)
    }

    #[allow(clippy::too_many_arguments)]
    fn event(
        &mut self,
        kind: &str,
        ns: &str,
        name: &str,
        uid: &str,
        reason: &str,
        message: &str,
        warning: bool,
        component: &str,
    ) {
        let event_name = format!("{name}.{:x}", self.rng.next() & 0xffff_ffff_ffff);
        let (m, _) = self.meta(&event_name, Some(ns), json!({}), None);
        let t = self.ts();
        let count = 1 + self.rng.below(5);
        self.emit(&json!({"apiVersion": "v1", "kind": "Event", "metadata": m,
            "involvedObject": {"apiVersion": "v1", "kind": kind, "namespace": ns, "name": name, "uid": uid},
            "reason": reason, "message": message, "type": if warning { "Warning" } else { "Normal" },
            "source": {"component": component}, "count": count, "firstTimestamp": t, "lastTimestamp": t}));
    }

    fn nodes(&mut self, n: usize) {
        for i in 0..n {
            let (name, gpu) = if i == 0 {
                ("cp-1".to_string(), false)
            } else if i % 5 < 3 {
                (format!("gpu-{i:05}"), true)
            } else {
                (format!("cpu-{i:05}"), false)
            };
            let mut labels = json!({"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64", "topology.kubernetes.io/zone": format!("zone-{}", i % 3)});
            let mut taints = vec![];
            let mut cap = json!({"cpu": "96", "memory": "1056318Mi", "pods": "110", "ephemeral-storage": "1Ti"});
            if i == 0 {
                labels["node-role.kubernetes.io/control-plane"] = json!("");
                taints.push(
                    json!({"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"}),
                );
            }
            if gpu {
                let product = if i % 2 == 0 {
                    "NVIDIA-H100-80GB-HBM3"
                } else {
                    "NVIDIA-A100-SXM4-80GB"
                };
                for (k, v) in [
                    ("nvidia.com/gpu.present", "true"),
                    ("nvidia.com/gpu.count", "8"),
                    ("nvidia.com/gpu.product", product),
                    ("nvidia.com/gpu.memory", "81559"),
                ] {
                    labels[k] = json!(v);
                }
                if i % 4 == 0 {
                    taints.push(json!({"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}));
                }
                let shape = self.shape.at(i);
                if shape == Shape::TaintStorm {
                    taints
                        .push(json!({"key": STORM_TAINT, "value": "true", "effect": "NoSchedule"}));
                }
                // A node whose plugin is down advertises nothing; a tainted one has no room for
                // any pod that does not tolerate it.
                let free = match shape {
                    Shape::PluginDown => {
                        self.plugin_down.push(name.clone());
                        0
                    }
                    Shape::TaintStorm => 0,
                    _ => {
                        cap["nvidia.com/gpu"] = json!("8");
                        8
                    }
                };
                if shape == Shape::TaintStorm {
                    cap["nvidia.com/gpu"] = json!("8");
                }
                self.gpu_nodes.push((name.clone(), free));
            } else if i > 0 {
                self.cpu_nodes.push(name.clone());
            }
            let (m, uid) = self.meta(&name, None, labels, None);
            if gpu {
                self.node_uids.push(uid);
            }
            let t = self.ts();
            self.emit(&json!({"apiVersion": "v1", "kind": "Node", "metadata": m, "spec": {"taints": taints},
                "status": {"capacity": cap, "allocatable": cap,
                    "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady", "message": "kubelet is posting ready status", "lastTransitionTime": t}],
                    "nodeInfo": {"kubeletVersion": "v1.34.2", "containerRuntimeVersion": "containerd://2.1.4", "osImage": "Ubuntu 24.04.3 LTS"}}}));
        }
        self.node_count = n;
    }

    /// The NVIDIA device plugin's DaemonSet, and its crash-looping pod on every node whose
    /// plugin is down.
    fn device_plugin(&mut self) {
        if self.plugin_down.is_empty() {
            return;
        }
        let ns = "gpu-operator";
        let ds = "nvidia-device-plugin-daemonset";
        let labels = json!({"app": ds});
        let (dm, duid) = self.meta(ds, Some(ns), labels.clone(), None);
        let desired = self.plugin_down.len();
        self.emit(&json!({"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": dm,
            "spec": {"selector": {"matchLabels": labels}},
            "status": {"desiredNumberScheduled": desired, "currentNumberScheduled": desired, "numberReady": 0, "numberUnavailable": desired}}));
        for node in self.plugin_down.clone() {
            let name = format!("{ds}-{}", self.rng.suffix(5));
            let (m, uid) = self.meta(
                &name,
                Some(ns),
                labels.clone(),
                Some(("apps/v1", "DaemonSet", ds, &duid)),
            );
            let t = self.ts();
            self.event(
                "Pod",
                ns,
                &name,
                &uid,
                "BackOff",
                "Back-off restarting failed container nvidia-device-plugin-ctr in pod",
                true,
                "kubelet",
            );
            self.emit(&json!({"apiVersion": "v1", "kind": "Pod", "metadata": m,
                "spec": {"nodeName": node, "containers": [{"name": "nvidia-device-plugin-ctr", "image": "nvcr.io/nvidia/k8s-device-plugin:v0.17.1"}]},
                "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "False", "lastTransitionTime": t}],
                    "containerStatuses": [{"name": "nvidia-device-plugin-ctr", "ready": false, "restartCount": 12, "image": "nvcr.io/nvidia/k8s-device-plugin:v0.17.1",
                        "state": {"waiting": {"reason": "CrashLoopBackOff", "message": "back-off 5m0s restarting failed container"}},
                        "lastState": {"terminated": {"exitCode": 1, "reason": "Error", "message": "failed to initialize NVML: could not load NVML library"}}}]}}));
        }
    }

    /// A pod: running on a node with room, or blocked in one of several ways.
    #[allow(clippy::too_many_arguments)]
    fn pod(
        &mut self,
        ns: &str,
        name: &str,
        labels: Value,
        annotations: Value,
        owner: Option<(&str, &str, &str, &str)>,
        gpus: u64,
        blocked: Option<&str>,
        scheduler: &str,
    ) -> String {
        let (mut m, uid) = self.meta(name, Some(ns), labels, owner);
        m["annotations"] = annotations;
        let mut resources =
            json!({"requests": {"cpu": "2", "memory": "8Gi"}, "limits": {"memory": "8Gi"}});
        if gpus > 0 {
            resources["requests"]["nvidia.com/gpu"] = json!(gpus.to_string());
            resources["limits"]["nvidia.com/gpu"] = json!(gpus.to_string());
        }
        let mut spec = json!({"schedulerName": scheduler, "containers": [{"name": "main", "image": "registry.example.com/ml/trainer:2.4.1", "resources": resources,
            "env": [{"name": "MODEL", "value": "llama-70b"}]}], "restartPolicy": "Never",
            "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]});
        if let Some(claim) = self.claim.take() {
            spec["resourceClaims"] = json!([{"name": "gpu", "resourceClaimName": claim}]);
        }
        let t = self.ts();
        let node = match blocked {
            Some("unschedulable") | Some("gated") => None,
            _ if gpus > 0 => {
                let free = self.gpu_nodes.iter().position(|(_, f)| *f >= gpus);
                free.map(|i| {
                    self.gpu_nodes[i].1 -= gpus;
                    self.gpu_nodes[i].0.clone()
                })
            }
            _ => {
                let c = self.cpu_nodes.len() as u64;
                Some(self.cpu_nodes[self.rng.below(c) as usize].clone())
            }
        };
        let status = match (blocked, &node) {
            (Some("gated"), _) => {
                spec["schedulingGates"] = json!([{"name": "kueue.x-k8s.io/admission"}]);
                json!({"phase": "Pending", "qosClass": "Burstable", "conditions": [{"type": "PodScheduled", "status": "False", "reason": "SchedulingGated", "message": "Scheduling is blocked due to non-empty scheduling gates", "lastTransitionTime": t}]})
            }
            (_, None) => {
                let n = self.node_count;
                let gpu = self.gpu_nodes.len();
                let msg = if self.shape == Shape::TaintStorm && gpus > 0 {
                    format!(
                        "0/{n} nodes are available: {gpu} node(s) had untolerated taint {{{STORM_TAINT}: true}}, {} node(s) had untolerated taint(s), {} node(s) didn't match Pod's node affinity/selector. preemption: 0/{n} nodes are available: {n} Preemption is not helpful for scheduling.",
                        1,
                        n - gpu - 1,
                    )
                } else {
                    format!(
                        "0/{n} nodes are available: 1 node(s) had untolerated taint(s), {} Insufficient nvidia.com/gpu, {} node(s) didn't match Pod's node affinity/selector. preemption: 0/{n} nodes are available: {} No preemption victims found for incoming pod, {} Preemption is not helpful for scheduling.",
                        gpu,
                        n - gpu - 1,
                        gpu,
                        n - gpu
                    )
                };
                self.event(
                    "Pod",
                    ns,
                    name,
                    &uid,
                    "FailedScheduling",
                    &msg,
                    true,
                    "default-scheduler",
                );
                json!({"phase": "Pending", "qosClass": "Burstable", "conditions": [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": msg, "lastTransitionTime": t}]})
            }
            (Some("sandbox"), Some(n)) => {
                spec["nodeName"] = json!(n);
                spec["runtimeClassName"] = json!("nvidia");
                self.event("Pod", ns, name, &uid, "FailedCreatePodSandBox", "Failed to create pod sandbox: rpc error: code = Unknown desc = failed to get sandbox runtime: no runtime for \"nvidia\" is configured", true, "kubelet");
                json!({"phase": "Pending", "qosClass": "Burstable", "conditions": [{"type": "PodScheduled", "status": "True", "lastTransitionTime": t}],
                    "containerStatuses": [{"name": "main", "ready": false, "restartCount": 0, "image": "registry.example.com/ml/trainer:2.4.1", "state": {"waiting": {"reason": "ContainerCreating"}}}]})
            }
            (Some("crash"), Some(n)) => {
                spec["nodeName"] = json!(n);
                self.event(
                    "Pod",
                    ns,
                    name,
                    &uid,
                    "BackOff",
                    "Back-off restarting failed container main in pod",
                    true,
                    "kubelet",
                );
                json!({"phase": "Running", "qosClass": "Burstable", "conditions": [{"type": "PodScheduled", "status": "True", "lastTransitionTime": t}, {"type": "Ready", "status": "False", "lastTransitionTime": t}],
                    "containerStatuses": [{"name": "main", "ready": false, "restartCount": 7, "image": "registry.example.com/ml/trainer:2.4.1",
                        "state": {"waiting": {"reason": "CrashLoopBackOff", "message": "back-off 5m0s restarting failed container"}},
                        "lastState": {"terminated": {"exitCode": 1, "reason": "Error", "message": "CUDA error: out of memory"}}}]})
            }
            (_, Some(n)) => {
                spec["nodeName"] = json!(n);
                self.event(
                    "Pod",
                    ns,
                    name,
                    &uid,
                    "Scheduled",
                    &format!("Successfully assigned {ns}/{name} to {n}"),
                    false,
                    scheduler,
                );
                self.event(
                    "Pod",
                    ns,
                    name,
                    &uid,
                    "Started",
                    "Started container main",
                    false,
                    "kubelet",
                );
                json!({"phase": "Running", "qosClass": "Burstable", "hostIP": "10.0.0.1", "podIP": "10.1.0.1", "startTime": t,
                    "conditions": [{"type": "PodScheduled", "status": "True", "lastTransitionTime": t}, {"type": "Initialized", "status": "True", "lastTransitionTime": t},
                        {"type": "ContainersReady", "status": "True", "lastTransitionTime": t}, {"type": "Ready", "status": "True", "lastTransitionTime": t}],
                    "containerStatuses": [{"name": "main", "ready": true, "started": true, "restartCount": 0, "image": "registry.example.com/ml/trainer:2.4.1", "state": {"running": {"startedAt": t}}}]})
            }
        };
        self.emit(&json!({"apiVersion": "v1", "kind": "Pod", "metadata": m, "spec": spec, "status": status}));
        uid
    }

    /// DRA: the example driver's DeviceClass and one ResourceSlice on every tenth GPU node.
    fn dra(&mut self) {
        let (m, _) = self.meta("gpu.example.com", None, json!({}), None);
        self.emit(&json!({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": m,
            "spec": {"selectors": [{"cel": {"expression": "device.driver == 'gpu.example.com'"}}]}}));
        let pool: Vec<(String, String)> = self
            .gpu_nodes
            .iter()
            .zip(&self.node_uids)
            .step_by(10)
            .map(|((n, _), uid)| (n.clone(), uid.clone()))
            .collect();
        for (node, node_uid) in pool {
            let name = format!("{node}-gpu.example.com-{}", self.rng.suffix(5));
            let (m, _) = self.meta(
                &name,
                None,
                json!({}),
                Some(("v1", "Node", &node, &node_uid)),
            );
            let devices: Vec<Value> = (0..2)
                .map(|i| json!({"name": format!("gpu-{i}"), "attributes": {"index": {"int": i}, "model": {"string": "LATEST-GPU-MODEL"}}, "capacity": {"memory": {"value": "80Gi"}}}))
                .collect();
            self.emit(&json!({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": m,
                "spec": {"driver": "gpu.example.com", "nodeName": node, "pool": {"generation": 1, "name": node, "resourceSliceCount": 1}, "devices": devices}}));
            self.dra_nodes.push(node);
        }
    }

    /// A Kueue-managed JobSet: two replicated-job Jobs of two pods each.
    fn jobset(&mut self, ns: &str, w: usize, blocked: Option<&str>) {
        let name = format!("pretrain-{w}");
        let held = blocked == Some("gated");
        let (jm, juid) = self.meta(
            &name,
            Some(ns),
            json!({"kueue.x-k8s.io/queue-name": "default"}),
            None,
        );
        let rj = json!([{"name": "workers", "replicas": 2, "template": {"spec": {"parallelism": 2, "completions": 2,
            "template": {"spec": {"containers": [{"name": "main", "image": "registry.example.com/ml/trainer:2.4.1", "resources": {"limits": {"nvidia.com/gpu": "2"}}}]}}}}}]);
        let status = if held {
            json!({"restarts": 0, "conditions": [{"type": "Suspended", "status": "True", "reason": "SuspendedJobs", "message": "jobset is suspended"}]})
        } else {
            json!({"restarts": 0, "replicatedJobsStatus": [{"name": "workers", "ready": if blocked.is_some() { 1 } else { 2 }, "active": 2, "succeeded": 0, "failed": 0, "suspended": 0}]})
        };
        self.emit(&json!({"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": jm,
            "spec": {"suspend": held, "replicatedJobs": rj, "failurePolicy": {"maxRestarts": 3}}, "status": status}));
        let wl = format!("jobset-{name}-{}", self.rng.suffix(5));
        let (wm, _) = self.meta(
            &wl,
            Some(ns),
            json!({"kueue.x-k8s.io/job-uid": juid}),
            Some(("jobset.x-k8s.io/v1alpha2", "JobSet", &name, &juid)),
        );
        let conds = if held {
            json!([{"type": "QuotaReserved", "status": "False", "reason": "Pending", "message": "couldn't assign flavors to pod set workers: insufficient unused quota for nvidia.com/gpu in flavor h100, 8 more needed"}])
        } else {
            json!([{"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved", "message": "Quota reserved in ClusterQueue gpu-cq"}, {"type": "Admitted", "status": "True", "reason": "Admitted", "message": "The workload is admitted"}])
        };
        self.emit(&json!({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload", "metadata": wm, "spec": {"queueName": "default", "podSets": [{"name": "workers", "count": 4}]},
            "status": {"conditions": conds, "admission": if held { Value::Null } else { json!({"clusterQueue": "gpu-cq"}) }}}));
        if held {
            return;
        }
        for j in 0..2 {
            let job = format!("{name}-workers-{j}");
            let labels = json!({"jobset.sigs.k8s.io/jobset-name": name, "jobset.sigs.k8s.io/replicatedjob-name": "workers", "jobset.sigs.k8s.io/job-index": j.to_string(), "jobset.sigs.k8s.io/restart-attempt": "0"});
            let (m, juid2) = self.meta(
                &job,
                Some(ns),
                labels.clone(),
                Some(("jobset.x-k8s.io/v1alpha2", "JobSet", &name, &juid)),
            );
            self.emit(&json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": m, "spec": {"parallelism": 2, "completions": 2, "suspend": false}, "status": {"active": 2}}));
            for i in 0..2 {
                let pn = format!("{job}-{i}-{}", self.rng.suffix(5));
                let mut pl = labels.clone();
                pl["batch.kubernetes.io/job-name"] = json!(job);
                let b = if j == 1 && i == 1 { blocked } else { None };
                let _ = self.pod(
                    ns,
                    &pn,
                    pl,
                    json!({}),
                    Some(("batch/v1", "Job", &job, &juid2)),
                    2,
                    b,
                    "default-scheduler",
                );
            }
        }
    }

    /// A Dynamo graph: a frontend and two GPU workers, each behind its component Deployment.
    fn dynamo(&mut self, ns: &str, w: usize, blocked: Option<&str>) {
        let name = format!("llm-{w}");
        let (dm, duid) = self.meta(&name, Some(ns), json!({}), None);
        let ready = blocked.is_none();
        self.emit(&json!({"apiVersion": "nvidia.com/v1alpha1", "kind": "DynamoGraphDeployment", "metadata": dm,
            "spec": {"backendFramework": "vllm", "services": {
                "Frontend": {"componentType": "frontend", "replicas": 1},
                "VllmWorker": {"componentType": "worker", "replicas": 2, "resources": {"limits": {"gpu": "2"}},
                    "extraPodSpec": {"mainContainer": {"image": "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.6.0", "command": ["python3", "-m", "dynamo.vllm"], "args": ["--model", "meta-llama/Llama-3.3-70B-Instruct"]}}}}},
            "status": {"state": if ready { "successful" } else { "pending" },
                "conditions": [{"type": "Ready", "status": if ready { "True" } else { "False" }, "reason": if ready { "all_resources_are_ready" } else { "some_resources_are_not_ready" }, "message": if ready { "All resources are ready" } else { "Resources not ready: VllmWorker" }}]}}));
        for (comp, ty, replicas, gpus) in [
            ("Frontend", "frontend", 1, 0),
            ("VllmWorker", "worker", 2, 2),
        ] {
            let dcd = format!("{name}-{}", comp.to_ascii_lowercase());
            let labels = json!({"nvidia.com/dynamo-component": comp, "nvidia.com/dynamo-component-type": ty, "nvidia.com/dynamo-graph-deployment-name": name, "nvidia.com/dynamo-namespace": format!("{ns}-{name}")});
            let (cm, cuid) = self.meta(
                &dcd,
                Some(ns),
                labels.clone(),
                Some(("nvidia.com/v1alpha1", "DynamoGraphDeployment", &name, &duid)),
            );
            self.emit(&json!({"apiVersion": "nvidia.com/v1alpha1", "kind": "DynamoComponentDeployment", "metadata": cm, "spec": {"componentType": ty, "replicas": replicas}}));
            let (dpm, dpuid) = self.meta(
                &dcd,
                Some(ns),
                labels.clone(),
                Some((
                    "nvidia.com/v1alpha1",
                    "DynamoComponentDeployment",
                    &dcd,
                    &cuid,
                )),
            );
            let ready_n = if ty == "worker" && !ready {
                replicas - 1
            } else {
                replicas
            };
            self.emit(&json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": dpm, "spec": {"replicas": replicas, "selector": {"matchLabels": {"nvidia.com/selector": dcd}}}, "status": {"replicas": replicas, "readyReplicas": ready_n}}));
            let rs = format!("{dcd}-{}", self.rng.suffix(9));
            let (rm, ruid) = self.meta(
                &rs,
                Some(ns),
                labels.clone(),
                Some(("apps/v1", "Deployment", &dcd, &dpuid)),
            );
            self.emit(&json!({"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": rm, "spec": {"replicas": replicas}, "status": {"replicas": replicas, "readyReplicas": ready_n}}));
            for r in 0..replicas {
                let pn = format!("{rs}-{}", self.rng.suffix(5));
                let mut pl = labels.clone();
                pl["nvidia.com/selector"] = json!(dcd);
                let b = if ty == "worker" && r == 0 {
                    blocked.filter(|b| *b != "gated")
                } else {
                    None
                };
                let _ = self.pod(
                    ns,
                    &pn,
                    pl,
                    json!({}),
                    Some(("apps/v1", "ReplicaSet", &rs, &ruid)),
                    gpus,
                    b,
                    "default-scheduler",
                );
            }
        }
    }

    fn run(&mut self, nodes: usize, pods: usize) {
        self.write(b"{\"apiVersion\": \"v1\", \"kind\": \"List\", \"metadata\": {\"resourceVersion\": \"\"}, \"items\": [\n");
        self.nodes(nodes);
        self.device_plugin();
        self.dra();
        let namespaces: Vec<String> = (0..16).map(|i| format!("team-{i:02}")).collect();
        // Kueue: one ClusterQueue and flavor, a LocalQueue per namespace.
        let (m, _) = self.meta("h100", None, json!({}), None);
        self.emit(&json!({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": m, "spec": {"nodeLabels": {"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3"}}}));
        let (m, _) = self.meta("gpu-cq", None, json!({}), None);
        self.emit(&json!({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": m, "spec": {"namespaceSelector": {}, "resourceGroups": [{"coveredResources": ["cpu", "memory", "nvidia.com/gpu"], "flavors": [{"name": "h100", "resources": [{"name": "cpu", "nominalQuota": "100000"}, {"name": "memory", "nominalQuota": "1000Ti"}, {"name": "nvidia.com/gpu", "nominalQuota": "4096"}]}]}]},
            "status": {"conditions": [{"type": "Active", "status": "True", "reason": "Ready", "message": "Can admit new workloads"}]}}));
        for ns in &namespaces {
            let (m, _) = self.meta("default", Some(ns), json!({}), None);
            self.emit(&json!({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue", "metadata": m, "spec": {"clusterQueue": "gpu-cq"}}));
        }
        let (m, _) = self.meta("team-queue", None, json!({}), None);
        self.emit(&json!({"apiVersion": "scheduling.run.ai/v2", "kind": "Queue", "metadata": m, "spec": {"resources": {"gpu": {"quota": 64, "limit": -1, "overQuotaWeight": 1}, "cpu": {"quota": -1, "limit": -1, "overQuotaWeight": 1}, "memory": {"quota": -1, "limit": -1, "overQuotaWeight": 1}}}}));
        let (m, _) = self.meta("nvidia", None, json!({}), None);
        self.emit(&json!({"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass", "metadata": m, "handler": "nvidia"}));

        let mut made = 0usize;
        let mut w = 0usize;
        while made < pods {
            w += 1;
            let ns = namespaces[w % namespaces.len()].clone();
            let blocked = match self.rng.below(100) {
                0..=3 => Some("unschedulable"),
                4..=5 => Some("gated"),
                6 => Some("sandbox"),
                7..=8 => Some("crash"),
                _ => None,
            };
            // A backlog: most work is a Kueue Job whose GPU pod waits for room.
            let backlog = self.shape.at(w) == Shape::Backlog && self.rng.below(100) < 90;
            let kind = if backlog { 60 } else { w % 100 };
            let blocked = if backlog {
                Some("unschedulable")
            } else {
                blocked
            };
            match kind {
                0..=59 => {
                    // A Deployment of CPU services.
                    let name = format!("svc-{w}");
                    let (dm, duid) = self.meta(&name, Some(&ns), json!({"app": name}), None);
                    let replicas = 1 + self.rng.below(8);
                    let ready = if blocked.is_some() {
                        replicas - 1
                    } else {
                        replicas
                    };
                    self.emit(&json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": dm, "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}}}, "status": {"replicas": replicas, "readyReplicas": ready}}));
                    let rs = format!("{name}-{}", self.rng.suffix(9));
                    let (rm, ruid) = self.meta(
                        &rs,
                        Some(&ns),
                        json!({"app": name}),
                        Some(("apps/v1", "Deployment", &name, &duid)),
                    );
                    self.emit(&json!({"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": rm, "spec": {"replicas": replicas}, "status": {"replicas": replicas, "readyReplicas": ready}}));
                    for r in 0..replicas {
                        let pn = format!("{rs}-{}", self.rng.suffix(5));
                        let b = if r == 0 {
                            blocked.filter(|b| *b != "gated")
                        } else {
                            None
                        };
                        let _ = self.pod(
                            &ns,
                            &pn,
                            json!({"app": name}),
                            json!({}),
                            Some(("apps/v1", "ReplicaSet", &rs, &ruid)),
                            0,
                            b,
                            "default-scheduler",
                        );
                        made += 1;
                    }
                }
                60..=76 => {
                    // A Kueue-managed training Job.
                    let name = format!("train-{w}");
                    let gpus = 1 << self.rng.below(3);
                    let held = blocked == Some("gated");
                    let (jm, juid) = self.meta(
                        &name,
                        Some(&ns),
                        json!({"kueue.x-k8s.io/queue-name": "default"}),
                        None,
                    );
                    self.emit(&json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": jm, "spec": {"suspend": held, "parallelism": 1, "completions": 1}, "status": if held { json!({"conditions": [{"type": "Suspended", "status": "True", "reason": "JobSuspended", "message": "Job suspended"}]}) } else { json!({"active": 1}) }}));
                    let wl = format!("job-{name}-{}", self.rng.suffix(5));
                    let (wm, _) = self.meta(
                        &wl,
                        Some(&ns),
                        json!({"kueue.x-k8s.io/job-uid": juid}),
                        Some(("batch/v1", "Job", &name, &juid)),
                    );
                    let conds = if held || backlog {
                        json!([{"type": "QuotaReserved", "status": "False", "reason": "Pending", "message": format!("couldn't assign flavors to pod set main: insufficient unused quota for nvidia.com/gpu in flavor h100, {gpus} more needed")}])
                    } else {
                        json!([{"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved", "message": "Quota reserved in ClusterQueue gpu-cq"}, {"type": "Admitted", "status": "True", "reason": "Admitted", "message": "The workload is admitted"}])
                    };
                    self.emit(&json!({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload", "metadata": wm, "spec": {"queueName": "default", "podSets": [{"name": "main", "count": 1}]},
                        "status": {"conditions": conds, "admission": if held || backlog { Value::Null } else { json!({"clusterQueue": "gpu-cq"}) }}}));
                    if held {
                        made += 1; // the held job stands for its one pod
                        continue;
                    }
                    let pn = format!("{name}-{}", self.rng.suffix(5));
                    let _ = self.pod(&ns, &pn, json!({"batch.kubernetes.io/job-name": name, "kueue.x-k8s.io/queue-name": "default"}), json!({}), Some(("batch/v1", "Job", &name, &juid)), gpus, blocked, "default-scheduler");
                    made += 1;
                }
                77..=79 => {
                    self.jobset(&ns, w, blocked);
                    made += 4;
                }
                80..=84 => {
                    // A LeaderWorkerSet group of four.
                    let name = format!("serve-{w}");
                    let (lm, luid) = self.meta(&name, Some(&ns), json!({}), None);
                    self.emit(&json!({"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet", "metadata": lm, "spec": {"replicas": 1, "leaderWorkerTemplate": {"size": 4}}, "status": {"replicas": 1, "readyReplicas": if blocked.is_some() { 0 } else { 1 }}}));
                    let (sm, suid) = self.meta(
                        &name,
                        Some(&ns),
                        json!({"leaderworkerset.sigs.k8s.io/name": name}),
                        Some((
                            "leaderworkerset.x-k8s.io/v1",
                            "LeaderWorkerSet",
                            &name,
                            &luid,
                        )),
                    );
                    self.emit(&json!({"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": sm, "spec": {"replicas": 1}, "status": {"replicas": 1}}));
                    let leader = format!("{name}-0");
                    let labels = |wi: u64| json!({"leaderworkerset.sigs.k8s.io/name": name, "leaderworkerset.sigs.k8s.io/group-index": "0", "leaderworkerset.sigs.k8s.io/worker-index": wi.to_string()});
                    let leader_uid = self.pod(
                        &ns,
                        &leader,
                        labels(0),
                        json!({"leaderworkerset.sigs.k8s.io/size": "4"}),
                        Some(("apps/v1", "StatefulSet", &name, &suid)),
                        1,
                        None,
                        "default-scheduler",
                    );
                    let (wm2, wuid) = self.meta(
                        &leader,
                        Some(&ns),
                        json!({"leaderworkerset.sigs.k8s.io/name": name}),
                        Some(("v1", "Pod", &leader, &leader_uid)),
                    );
                    self.emit(&json!({"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": wm2, "spec": {"replicas": 3}, "status": {"replicas": 3}}));
                    for i in 1..4 {
                        let _ = self.pod(&ns, &format!("{leader}-{i}"), labels(i), json!({"leaderworkerset.sigs.k8s.io/size": "4", "leaderworkerset.sigs.k8s.io/leader-name": leader}), Some(("apps/v1", "StatefulSet", &leader, &wuid)), 1, blocked, "default-scheduler");
                    }
                    made += 4;
                }
                85..=89 => {
                    // A KAI-scheduled pod with its PodGroup.
                    let name = format!("kai-{w}-{}", self.rng.suffix(5));
                    let pg = format!("pg-{name}-{}", self.rng.uid());
                    let (pm, _) = self.meta(
                        &pg,
                        Some(&ns),
                        json!({"kai.scheduler/queue": "team-queue"}),
                        None,
                    );
                    self.emit(&json!({"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup", "metadata": pm, "spec": {"minMember": 1, "queue": "team-queue"}}));
                    let _ = self.pod(
                        &ns,
                        &name,
                        json!({"kai.scheduler/queue": "team-queue"}),
                        json!({"pod-group-name": pg}),
                        None,
                        1,
                        blocked.filter(|b| *b != "gated"),
                        "kai-scheduler",
                    );
                    made += 1;
                }
                90 => {
                    self.dynamo(&ns, w, blocked);
                    made += 3;
                }
                _ => {
                    // A bare pod, sometimes with a DRA claim.
                    let name = format!("adhoc-{w}-{}", self.rng.suffix(5));
                    if self.rng.chance(30) {
                        let claim = format!("{name}-gpu");
                        let (cm, _) = self.meta(&claim, Some(&ns), json!({}), None);
                        // Allocated on a DRA node unless the pod is blocked.
                        let status = match (blocked, self.dra_nodes.len()) {
                            (None, n) if n > 0 => {
                                let node =
                                    self.dra_nodes[self.rng.below(n as u64) as usize].clone();
                                json!({"allocation": {"devices": {"results": [{"request": "gpu", "driver": "gpu.example.com", "pool": node, "device": "gpu-0"}]},
                                    "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node]}]}]}}})
                            }
                            _ => json!({}),
                        };
                        self.emit(&json!({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": cm, "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com", "allocationMode": "ExactCount", "count": 1}}]}}, "status": status}));
                        self.claim = Some(claim);
                    }
                    let _ = self.pod(
                        &ns,
                        &name,
                        json!({"run": name}),
                        json!({}),
                        None,
                        0,
                        blocked.filter(|b| *b != "gated"),
                        "default-scheduler",
                    );
                    made += 1;
                }
            }
        }
        self.write(b"\n]}\n");
        if self.failed.is_none()
            && let Err(e) = self.out.flush()
        {
            self.failed = Some(e);
        }
    }
}

const USAGE: &str = "usage: gen-cluster --nodes N --pods M [--seed S] [--shape SHAPE] [--out FILE]

Writes a synthetic cluster as one kubectl List (JSON), the same for the same flags.
  --nodes N      nodes, at least 3 (default 500)
  --pods M       pods (default 10000)
  --seed S       the random stream (default 1)
  --shape SHAPE  the day the cluster is having: usual (default), backlog, taint-storm,
                 plugin-down or mixed
  --out FILE     where to write it (default: standard output)";

/// The flags, each read whole; an error names the flag and what was wrong with it.
struct Flags {
    nodes: usize,
    pods: usize,
    seed: u64,
    shape: Shape,
    shape_name: String,
    out: Option<String>,
}

fn flags(args: &[String]) -> Result<Option<Flags>, String> {
    fn number<T: std::str::FromStr>(flag: &str, v: &str) -> Result<T, String> {
        v.parse()
            .map_err(|_| format!("{flag} {v}: not a whole number"))
    }
    let mut f = Flags {
        nodes: 500,
        pods: 10_000,
        seed: 1,
        shape: Shape::Usual,
        shape_name: "usual".into(),
        out: None,
    };
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        if flag == "--help" || flag == "-h" {
            return Ok(None);
        }
        let value = |it: &mut std::slice::Iter<String>| {
            it.next()
                .cloned()
                .ok_or_else(|| format!("{flag}: a value must follow it"))
        };
        match flag.as_str() {
            "--nodes" => f.nodes = number(flag, &value(&mut it)?)?,
            "--pods" => f.pods = number(flag, &value(&mut it)?)?,
            "--seed" => f.seed = number(flag, &value(&mut it)?)?,
            "--shape" => {
                let name = value(&mut it)?;
                f.shape = Shape::parse(&name).ok_or_else(|| {
                    format!(
                        "--shape {name}: not a shape (usual, backlog, taint-storm, plugin-down, mixed)"
                    )
                })?;
                f.shape_name = name;
            }
            "--out" => f.out = Some(value(&mut it)?),
            other => return Err(format!("{other}: not a flag it knows")),
        }
    }
    Ok(Some(f))
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let f = match flags(&args) {
        Ok(Some(f)) => f,
        Ok(None) => {
            println!("{USAGE}");
            return;
        }
        Err(e) => {
            eprintln!("gen-cluster: {e}\n{USAGE}");
            std::process::exit(2);
        }
    };
    let out: Box<dyn Write> = match &f.out {
        Some(p) => match std::fs::File::create(p) {
            Ok(file) => Box::new(file),
            Err(e) => {
                eprintln!("gen-cluster: --out {p}: {e}");
                std::process::exit(1);
            }
        },
        None => Box::new(std::io::stdout().lock()),
    };
    let mut g = Gen {
        rng: Rng(f.seed),
        rv: 1000,
        out: BufWriter::with_capacity(1 << 20, out),
        failed: None,
        first: true,
        gpu_nodes: Vec::new(),
        cpu_nodes: Vec::new(),
        node_count: 0,
        objects: 0,
        claim: None,
        dra_nodes: Vec::new(),
        node_uids: Vec::new(),
        shape: f.shape,
        plugin_down: Vec::new(),
    };
    g.run(f.nodes.max(3), f.pods);
    match g.failed {
        // The reader had all it wanted (`gen-cluster | head`): not a failure.
        Some(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        Some(e) => {
            let to = f.out.as_deref().unwrap_or("standard output");
            eprintln!("gen-cluster: writing {to}: {e}");
            std::process::exit(1);
        }
        None => eprintln!(
            "gen-cluster: {} objects ({} nodes, {} pods, seed {}, shape {})",
            g.objects, f.nodes, f.pods, f.seed, f.shape_name
        ),
    }
}
