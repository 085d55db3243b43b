//! Starting the lab's components on 127.0.0.1 in dependency order, each waited for, and the
//! objects `up` installs: the reader role and its binding, the integrations' CRDs, the kwok
//! GPU nodes. Flags follow kwokctl's binary runtime; every address is loopback, and the fake
//! nodes' addresses are 127.0.0.1 too, so nothing dials anywhere else.

use super::build::{self, Bins};
use super::pki::{self, FRONT_PROXY, LAYER_USER};
use super::procs::{self, Proc, free_port};
use super::stages;
use crate::{output, root};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The lab's directory layout, under `<target-dir>/lab`.
pub struct Lab {
    pub dir: PathBuf,
}

impl Lab {
    pub fn pki(&self, f: &str) -> String {
        self.dir.join("pki").join(f).display().to_string()
    }
    pub fn admin(&self) -> PathBuf {
        self.dir.join("kubeconfig")
    }
    pub fn layer(&self) -> PathBuf {
        self.dir.join("kubeconfig-layer")
    }
    /// The lab's kubectl (a link into the cache), as the admin.
    pub fn kubectl(&self) -> Command {
        let mut c = Command::new(self.dir.join("bin/kubectl"));
        c.arg("--kubeconfig").arg(self.admin());
        c
    }
    /// Run the lab's kubectl; its standard output.
    pub fn kubectl_out(&self, args: &[&str]) -> Result<String, String> {
        let out = output(
            self.kubectl().args(args),
            &format!("kubectl {}", args.join(" ")),
        )?;
        Ok(String::from_utf8_lossy(&out).into_owned())
    }
}

/// etcd, with fsync off (a throwaway data dir; it halves start-up on a loaded disk).
pub fn etcd(lab: &Lab, bins: &Bins) -> Result<(Proc, u16), String> {
    let (client, peer) = (free_port()?, free_port()?);
    let peer_url = format!("http://127.0.0.1:{peer}");
    let client_url = format!("http://127.0.0.1:{client}");
    let args = [
        "--name=lab".to_string(),
        format!("--data-dir={}", lab.dir.join("etcd").display()),
        format!("--listen-client-urls={client_url}"),
        format!("--advertise-client-urls={client_url}"),
        format!("--listen-peer-urls={peer_url}"),
        format!("--initial-advertise-peer-urls={peer_url}"),
        format!("--initial-cluster=lab={peer_url}"),
        "--unsafe-no-fsync".into(),
        "--log-level=warn".into(),
    ];
    let p = procs::start(&lab.dir, "etcd", &bins.path("etcd"), &args)?;
    procs::wait(&lab.dir, &p, "etcd accepts connections", 60, || {
        TcpStream::connect(("127.0.0.1", client)).is_ok()
    })?;
    Ok((p, client))
}

/// kube-apiserver with TLS, RBAC (and the Node authorizer), service-account tokens and the
/// aggregation layer's front-proxy client; waits for `/readyz`.
pub fn apiserver(lab: &Lab, bins: &Bins, etcd_port: u16) -> Result<Proc, String> {
    let port = free_port()?;
    let server = format!("https://127.0.0.1:{port}");
    let pki_dir = lab.dir.join("pki");
    pki::kubeconfig(&pki_dir, "admin", &server, &lab.admin())?;
    pki::kubeconfig(&pki_dir, "layer", &server, &lab.layer())?;
    let args = [
        format!("--etcd-servers=http://127.0.0.1:{etcd_port}"),
        "--bind-address=127.0.0.1".into(),
        "--advertise-address=127.0.0.1".into(),
        // The `kubernetes` Service's Endpoints may not hold a loopback address: the default
        // reconciler would fail every 10 s. Nothing in the lab reaches the API that way.
        "--endpoint-reconciler-type=none".into(),
        format!("--secure-port={port}"),
        format!("--tls-cert-file={}", lab.pki("apiserver.crt")),
        format!("--tls-private-key-file={}", lab.pki("apiserver.key")),
        format!("--client-ca-file={}", lab.pki("ca.crt")),
        "--authorization-mode=Node,RBAC".into(),
        "--service-account-issuer=https://kubernetes.default.svc.cluster.local".into(),
        format!("--service-account-key-file={}", lab.pki("sa.pub")),
        format!("--service-account-signing-key-file={}", lab.pki("sa.key")),
        "--service-cluster-ip-range=10.96.0.0/16".into(),
        "--allow-privileged=true".into(),
        format!("--requestheader-client-ca-file={}", lab.pki("ca.crt")),
        format!("--requestheader-allowed-names={FRONT_PROXY}"),
        "--requestheader-username-headers=X-Remote-User".into(),
        "--requestheader-group-headers=X-Remote-Group".into(),
        "--requestheader-extra-headers-prefix=X-Remote-Extra-".into(),
        format!("--proxy-client-cert-file={}", lab.pki("front-proxy.crt")),
        format!("--proxy-client-key-file={}", lab.pki("front-proxy.key")),
        "--profiling=false".into(),
    ];
    let p = procs::start(
        &lab.dir,
        "kube-apiserver",
        &bins.path("kube-apiserver"),
        &args,
    )?;
    procs::wait(&lab.dir, &p, "kube-apiserver /readyz", 180, || {
        lab.kubectl_out(&["get", "--raw", "/readyz"])
            .is_ok_and(|o| o.trim() == "ok")
    })?;
    Ok(p)
}

/// The flags kube-controller-manager and kube-scheduler share: the admin kubeconfig for the
/// API and for checking their own clients, a loopback health port, no leader election (one of
/// each).
fn component_args(lab: &Lab, name: &str) -> Result<Vec<String>, String> {
    let kc = lab.admin().display().to_string();
    Ok(vec![
        format!("--kubeconfig={kc}"),
        format!("--authentication-kubeconfig={kc}"),
        format!("--authorization-kubeconfig={kc}"),
        "--bind-address=127.0.0.1".into(),
        format!("--secure-port={}", free_port()?),
        format!("--cert-dir={}", lab.dir.join(name).display()),
        "--leader-elect=false".into(),
    ])
}

/// kube-controller-manager: each controller under its own service account, as in a real
/// cluster, so what they write carries their names.
pub fn controller_manager(lab: &Lab, bins: &Bins) -> Result<Proc, String> {
    let name = "kube-controller-manager";
    let mut args = component_args(lab, name)?;
    args.extend([
        "--use-service-account-credentials=true".into(),
        format!("--service-account-private-key-file={}", lab.pki("sa.key")),
        format!("--root-ca-file={}", lab.pki("ca.crt")),
    ]);
    procs::start(&lab.dir, name, &bins.path(name), &args)
}

pub fn scheduler(lab: &Lab, bins: &Bins) -> Result<Proc, String> {
    let name = "kube-scheduler";
    let args = component_args(lab, name)?;
    procs::start(&lab.dir, name, &bins.path(name), &args)
}

/// kwok, managing only the nodes annotated as fake (those `up` creates), with every node and
/// pod address on loopback or in a range that is data only.
pub fn kwok(lab: &Lab, bins: &Bins) -> Result<Proc, String> {
    let stages = build::kwok_stages()?;
    let mut args = vec![
        format!("--kubeconfig={}", lab.admin().display()),
        "--manage-all-nodes=false".into(),
        "--manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake".into(),
        "--node-ip=127.0.0.1".into(),
        "--cidr=10.244.0.0/16".into(),
        format!("--server-address=127.0.0.1:{}", free_port()?),
        "--node-lease-duration-seconds=40".into(),
    ];
    let ours = stages::write(&lab.dir)?;
    args.extend(
        stages
            .iter()
            .chain(&ours)
            .map(|s| format!("--config={}", s.display())),
    );
    procs::start(&lab.dir, "kwok", &bins.path("kwok"), &args)
}

/// Apply a manifest text with the admin's kubectl, server-side (Kueue's CRDs are too large for
/// the client-side annotation).
pub fn apply(lab: &Lab, what: &str, yaml: &str) -> Result<(), String> {
    let path = lab.dir.join(format!("{what}.yaml"));
    std::fs::write(&path, yaml).map_err(|e| format!("{}: {e}", path.display()))?;
    apply_path(lab, &path)
}

fn apply_path(lab: &Lab, path: &Path) -> Result<(), String> {
    let p = path.display().to_string();
    lab.kubectl_out(&[
        "apply",
        "--server-side",
        "--field-manager=kubectl-layer-lab",
        "-f",
        &p,
    ])
    .map(|_| ())
}

/// The role `kubectl layer rbac` prints (deploy/clusterrole.yaml, kept equal to it by a test)
/// and its binding to the lab's reader, the only rights `kubeconfig-layer` has.
pub fn reader_role(lab: &Lab) -> Result<(), String> {
    let role = root().join("deploy/clusterrole.yaml");
    apply_path(lab, &role)?;
    apply(
        lab,
        "reader-binding",
        &format!(
            "apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: kubectl-layer-lab-reader
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: kubectl-layer-reader
subjects:
- apiGroup: rbac.authorization.k8s.io
  kind: User
  name: {LAYER_USER}
"
        ),
    )
}

/// The CRDs of Kueue, JobSet and LWS, read from their Go module zips, established. With
/// `jobset_late`, JobSet's are left for the test of the course's "JobSet installed after
/// Kueue", which applies them from the folder named in `<lab>/late-jobset`.
pub fn crds(lab: &Lab, jobset_late: bool) -> Result<(), String> {
    for dir in build::crd_dirs()? {
        if jobset_late && dir.to_string_lossy().contains("sigs.k8s.io/jobset@") {
            std::fs::write(lab.dir.join("late-jobset"), dir.display().to_string())
                .map_err(|e| e.to_string())?;
            continue;
        }
        apply_path(lab, &dir)?;
    }
    crds_established(lab, std::time::Duration::from_secs(120))
}

/// Polls until every CRD says `Established`. Not `kubectl wait --for=condition=Established`:
/// a CRD read before the API server wrote its first status has no `status.conditions`, and
/// kubectl's wait fails on that rather than waiting (a CI run failed so, stop 50).
fn crds_established(lab: &Lab, within: std::time::Duration) -> Result<(), String> {
    let start = std::time::Instant::now();
    loop {
        let list: serde_json::Value =
            serde_json::from_str(&lab.kubectl_out(&["get", "crd", "-o", "json"])?)
                .map_err(|e| format!("kubectl get crd: not JSON: {e}"))?;
        let waiting: Vec<&str> = list["items"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|crd| !established(crd))
            .map(|crd| crd["metadata"]["name"].as_str().unwrap_or("?"))
            .collect();
        if waiting.is_empty() {
            return Ok(());
        }
        if start.elapsed() > within {
            return Err(format!(
                "CRDs not established after {} s: {}",
                within.as_secs(),
                waiting.join(", ")
            ));
        }
        std::thread::sleep(std::time::Duration::from_millis(250));
    }
}

fn established(crd: &serde_json::Value) -> bool {
    crd["status"]["conditions"].as_array().is_some_and(|c| {
        c.iter()
            .any(|c| c["type"] == "Established" && c["status"] == "True")
    })
}

/// What each fake node holds: 8 GPUs of one product, as on an 8-GPU server.
pub const GPUS_PER_NODE: u32 = 8;

/// kwok nodes `lab-gpu-<i>` for each `i` of `ids`, with GPUs in capacity and allocatable and the
/// labels GPU feature discovery and node feature discovery write on a real GPU node, no taints
/// (pods need no tolerations).
pub fn gpu_nodes(ids: std::ops::Range<usize>) -> String {
    ids.map(gpu_node).collect::<Vec<_>>().join("---\n")
}

fn gpu_node(i: usize) -> String {
    let resources = format!(
        "cpu: \"96\"\n    memory: 1024Gi\n    pods: \"110\"\n    ephemeral-storage: 1Ti\n    nvidia.com/gpu: \"{GPUS_PER_NODE}\""
    );
    format!(
        "apiVersion: v1
kind: Node
metadata:
  name: lab-gpu-{i}
  annotations:
    kwok.x-k8s.io/node: fake
    node.alpha.kubernetes.io/ttl: \"0\"
  labels:
    kubernetes.io/hostname: lab-gpu-{i}
    kubernetes.io/os: linux
    kubernetes.io/arch: amd64
    type: kwok
    feature.node.kubernetes.io/pci-10de.present: \"true\"
    nvidia.com/gpu.present: \"true\"
    nvidia.com/gpu.count: \"{GPUS_PER_NODE}\"
    nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3
    nvidia.com/gpu.memory: \"81559\"
    nvidia.com/gpu.family: hopper
    nvidia.com/gpu.compute.major: \"9\"
    nvidia.com/gpu.compute.minor: \"0\"
    nvidia.com/cuda.driver.major: \"550\"
    nvidia.com/mig.capable: \"true\"
    nvidia.com/gpu.deploy.device-plugin: \"true\"
status:
  allocatable:
    {resources}
  capacity:
    {resources}
"
    )
}

/// The fake nodes created and Ready (kwok's heartbeat stage marks them).
pub fn nodes(lab: &Lab, kwok: &Proc, n: usize) -> Result<(), String> {
    // Only those not there yet (`lab bench` adds to a running lab): the controller manager
    // owns the TTL annotation of the others once the cluster grows, and applying them again
    // would conflict.
    let have = lab
        .kubectl_out(&["get", "nodes", "-l", "type=kwok", "-o", "name"])
        .map_or(0, |o| o.lines().count());
    if have < n {
        apply(lab, "nodes", &gpu_nodes(have..n))?;
    }
    procs::wait(
        &lab.dir,
        kwok,
        &format!("{n} kwok nodes Ready"),
        180,
        || {
            lab.kubectl_out(&[
            "get",
            "nodes",
            "-l",
            "type=kwok",
            "-o",
            "jsonpath={range .items[*]}{.status.conditions[?(@.type==\"Ready\")].status}{\"\\n\"}{end}",
        ])
        .is_ok_and(|o| o.lines().filter(|l| *l == "True").count() == n)
        },
    )
}
