//! KAI-Scheduler in the full lab: its podgrouper, scheduler, binder and queue controller, run
//! out of cluster as the admin, as KAI's own env-tests run its components against a bare API
//! server. Its CRDs are installed in every tier with the other integrations' (`build`).
//! Each component's every listening address is set to a free port on 127.0.0.1 (their defaults
//! are `:8080`, `:8081`, `:9443`, on every interface); the queue controller's validating
//! webhook is off (nothing would serve it a certificate), so the API server takes any Queue, as
//! it does without KAI's admission.

use super::build::{self, Bins, KAI, KAI_COMPONENTS, KAI_MODULE};
use super::cluster::{self, Lab};
use super::procs::{self, free_port};
use serde_json::{Value, json};
use std::net::TcpStream;
use std::path::Path;
use std::time::{Duration, Instant};

/// The namespaces KAI's components assume: its own (the scheduler's) and the binder's for GPU
/// reservation pods.
const NAMESPACES: [&str; 2] = ["kai-scheduler", "kai-resource-reservation"];

/// Start every component of [`KAI_COMPONENTS`] and wait until each listens.
pub fn start(lab: &Lab, bins: &Bins) -> Result<(), String> {
    let namespaces: Vec<String> = NAMESPACES
        .iter()
        .map(|n| format!("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {n}\n"))
        .collect();
    cluster::apply(lab, "kai-namespaces", &namespaces.join("---\n"))?;
    topology_v1alpha1(lab)?;
    let env = [("KUBECONFIG", lab.admin())];
    for (component, name) in KAI_COMPONENTS {
        let port = free_port()?;
        let args = args(component, port)?;
        let p = procs::start_with(&lab.dir, name, &bins.path(name), &args, &env)?;
        procs::wait(&lab.dir, &p, &format!("{name} listens"), 180, || {
            TcpStream::connect(("127.0.0.1", port)).is_ok()
        })?;
    }
    Ok(())
}

/// Kueue's Topology CRD, which every tier installs from Kueue's module.
const TOPOLOGY: &str = "topologies.kueue.x-k8s.io";

/// KAI at this version lists Kueue's Topology as `kueue.x-k8s.io/v1alpha1` and waits for that
/// list before it schedules anything; Kueue 0.17's CRD serves only v1beta1 and v1beta2, and
/// KAI's installer leaves a Topology CRD that exists alone (its crd-upgrader's
/// `apply-crds.sh`), so beside this Kueue, KAI never schedules a pod (its log repeats "failed
/// to list *v1alpha1.Topology"). The lab adds the v1alpha1 of KAI's own copy of the CRD
/// (`deployments/external-crds`) to Kueue's, served and not stored: the CRD converts with
/// `None`, and the lab makes no Topology, so nothing is ever converted.
fn topology_v1alpha1(lab: &Lab) -> Result<(), String> {
    let crd: Value =
        serde_json::from_str(&lab.kubectl_out(&["get", "crd", TOPOLOGY, "-o", "json"])?)
            .map_err(|e| format!("{TOPOLOGY}: {e}"))?;
    let versions = crd["spec"]["versions"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    if versions.iter().any(|v| v["name"] == "v1alpha1") {
        return Ok(());
    }
    let dir = build::downloaded(&std::env::temp_dir(), &format!("{KAI_MODULE}@{KAI}"), "Dir")?;
    let path = Path::new(&dir).join("deployments/external-crds/kueue.x-k8s.io_topologies.yaml");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let theirs: Value =
        serde_yaml_ng::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut version = theirs["spec"]["versions"]
        .as_array()
        .and_then(|v| v.iter().find(|v| v["name"] == "v1alpha1"))
        .cloned()
        .ok_or_else(|| format!("{}: no v1alpha1", path.display()))?;
    version["served"] = json!(true);
    version["storage"] = json!(false);
    let patch = json!([{"op": "add", "path": "/spec/versions/-", "value": version}]);
    lab.kubectl_out(&[
        "patch",
        "crd",
        TOPOLOGY,
        "--type=json",
        "-p",
        &patch.to_string(),
    ])?;
    // Served once the API server's discovery has it: KAI's first list must not miss it (its
    // retries back off to a minute).
    let start = Instant::now();
    while lab
        .kubectl_out(&["get", "topologies.v1alpha1.kueue.x-k8s.io"])
        .is_err()
    {
        if start.elapsed() > Duration::from_secs(60) {
            return Err(format!(
                "{TOPOLOGY}: v1alpha1 not served 60 s after it was added"
            ));
        }
        std::thread::sleep(Duration::from_millis(250));
    }
    Ok(())
}

/// The flags of `component`, whose first loopback listener (waited for) is on `port`.
fn args(component: &str, port: u16) -> Result<Vec<String>, String> {
    let at = |p: u16| format!("127.0.0.1:{p}");
    let args = match component {
        // The plugin server's address has no host flag (`:<port>`, every interface): port -1
        // cannot be bound, so it serves nothing (it carries debug endpoints only).
        "scheduler" => vec![
            format!("--listen-address={}", at(port)),
            "--plugin-server-port=-1".into(),
        ],
        "queuecontroller" => vec![
            format!("--metrics-listen-address={}", at(port)),
            "--enable-webhook=false".into(),
        ],
        "podgrouper" | "binder" => vec![
            format!("--metrics-bind-address={}", at(port)),
            format!("--health-probe-bind-address={}", at(free_port()?)),
        ],
        other => {
            return Err(format!(
                "KAI component {other}: the lab has no flags for it"
            ));
        }
    };
    Ok(args)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_component_listens_on_loopback_only() {
        for (component, _) in KAI_COMPONENTS {
            let args = args(component, 4242).unwrap();
            let addresses: Vec<&String> = args.iter().filter(|a| a.contains("address=")).collect();
            assert!(!addresses.is_empty(), "{component}");
            for a in addresses {
                assert!(a.contains("=127.0.0.1:"), "{component}: {a}");
            }
            assert!(
                args.iter().any(|a| a.ends_with("127.0.0.1:4242")),
                "{component}"
            );
        }
        assert!(args("admission", 1).is_err());
    }
}
