//! The full tier's controllers: Kueue, JobSet and LWS, each run out of cluster as the admin with
//! its webhooks served on 127.0.0.1. What each installs comes from its own module zip, rendered
//! by kubectl's built-in kustomize from `config/default` (the upstream install, with its webhook
//! selectors and CRD conversion patches); of that, the lab applies the namespace, the CRDs and
//! the webhook configurations, with every webhook's Service reference rewritten to
//! `https://127.0.0.1:<port><path>` and the lab's CA (what envtest does), and the controller's
//! own configuration (the ConfigMap) with loopback addresses, no leader election and the lab's
//! certificate instead of its internal certificate management.

use super::build::{self, Bins};
use super::cluster::{self, Lab};
use super::pki;
use super::procs::{self, Proc, free_port};
use serde::Deserialize as _;
use serde_json::{Value, json};
use std::net::TcpStream;
use std::path::{Path, PathBuf};

/// One controller: its binary (named as in [`build::CONTROLLERS`]) and module.
struct Controller {
    name: &'static str,
    module: &'static str,
    version: &'static str,
}

const ALL: [Controller; 3] = [
    Controller {
        name: "kueue",
        module: "sigs.k8s.io/kueue",
        version: build::KUEUE,
    },
    Controller {
        name: "jobset",
        module: "sigs.k8s.io/jobset",
        version: build::JOBSET,
    },
    Controller {
        name: "lws",
        module: "sigs.k8s.io/lws",
        version: build::LWS,
    },
];

/// Start every controller and install what it serves. JobSet and LWS first: Kueue's JobSet and
/// LWS integrations look for their CRDs when it starts. With `jobset_late`, no JobSet at all:
/// its controller cannot start without its CRDs, which a test installs after Kueue.
pub fn start_all(lab: &Lab, bins: &Bins, jobset_late: bool) -> Result<(), String> {
    let certs = cert_dir(lab)?;
    for c in ALL.iter().rev() {
        if !(jobset_late && c.name == "jobset") {
            start(lab, bins, c, &certs)?;
        }
    }
    Ok(())
}

/// `<lab>/webhook-certs/tls.{crt,key}`: the names controller-runtime's webhook server reads.
fn cert_dir(lab: &Lab) -> Result<PathBuf, String> {
    let dir = lab.dir.join("webhook-certs");
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    for (from, to) in [("webhook.crt", "tls.crt"), ("webhook.key", "tls.key")] {
        std::fs::copy(lab.pki(from), dir.join(to)).map_err(|e| format!("{to}: {e}"))?;
    }
    Ok(dir)
}

fn start(lab: &Lab, bins: &Bins, c: &Controller, certs: &Path) -> Result<Proc, String> {
    let objects = rendered(lab, c)?;
    let port = free_port()?;
    let (ns, others): (Vec<Value>, Vec<Value>) =
        objects.into_iter().partition(|o| o["kind"] == "Namespace");
    cluster::apply(lab, &format!("{}-namespace", c.name), &list(ns))?;
    let config = configuration(&others, c, port, certs)?;
    let path = lab.dir.join(format!("{}-config.json", c.name));
    std::fs::write(&path, config.to_string()).map_err(|e| e.to_string())?;
    let mut args = vec![format!("--config={}", path.display())];
    if c.name == "kueue" {
        // Its visibility API server reads a certificate from /visibility; the lab installs no
        // APIService for it (one nothing serves breaks discovery), so it is not started.
        args.push("--feature-gates=VisibilityOnDemand=false".into());
        kueue_metrics_certs(certs)?;
    }
    let env = [("KUBECONFIG", lab.admin())];
    let p = procs::start_with(&lab.dir, c.name, &bins.path(c.name), &args, &env)?;
    procs::wait(
        &lab.dir,
        &p,
        &format!("{} webhooks served", c.name),
        180,
        || TcpStream::connect(("127.0.0.1", port)).is_ok(),
    )?;
    let ca = std::fs::read(lab.pki("ca.crt")).map_err(|e| format!("ca.crt: {e}"))?;
    let ca = pki::base64(&ca);
    let installed = others.into_iter().filter_map(|o| installed(o, port, &ca));
    cluster::apply(lab, c.name, &list(installed.collect()))?;
    Ok(p)
}

/// The controller's `config/default`, rendered by the lab's kubectl from a copy of the module's
/// `config/` (kustomize reads a path with `@version` in it as a remote repository).
fn rendered(lab: &Lab, c: &Controller) -> Result<Vec<Value>, String> {
    let module = build::downloaded(
        &std::env::temp_dir(),
        &format!("{}@{}", c.module, c.version),
        "Dir",
    )?;
    let copy = lab.dir.join("kustomize").join(c.name);
    copy_dir(&Path::new(&module).join("config"), &copy.join("config"))?;
    let dir = copy.join("config/default").display().to_string();
    let yaml = lab.kubectl_out(&["kustomize", &dir])?;
    serde_yaml_ng::Deserializer::from_str(&yaml)
        .map(|doc| Value::deserialize(doc).map_err(|e| format!("{} kustomize output: {e}", c.name)))
        .filter(|v| !matches!(v, Ok(Value::Null)))
        .collect()
}

/// A copy of a folder of the module cache (read-only there), writable.
fn copy_dir(from: &Path, to: &Path) -> Result<(), String> {
    std::fs::create_dir_all(to).map_err(|e| format!("{}: {e}", to.display()))?;
    for entry in std::fs::read_dir(from).map_err(|e| format!("{}: {e}", from.display()))? {
        let entry = entry.map_err(|e| e.to_string())?;
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target)?;
        } else {
            std::fs::write(
                &target,
                std::fs::read(entry.path()).map_err(|e| e.to_string())?,
            )
            .map_err(|e| format!("{}: {e}", target.display()))?;
        }
    }
    Ok(())
}

/// The upstream configuration (the manager ConfigMap's one file) with every address on
/// loopback, no leader election, and the webhook served from the lab's certificate.
fn configuration(
    objects: &[Value],
    c: &Controller,
    port: u16,
    certs: &Path,
) -> Result<Value, String> {
    let map = objects
        .iter()
        .find(|o| {
            o["kind"] == "ConfigMap" && o["data"]["controller_manager_config.yaml"].is_string()
        })
        .ok_or_else(|| format!("{}: no manager ConfigMap in config/default", c.name))?;
    let text = map["data"]["controller_manager_config.yaml"]
        .as_str()
        .unwrap_or_default();
    let mut config: Value =
        serde_yaml_ng::from_str(text).map_err(|e| format!("{} configuration: {e}", c.name))?;
    let o = config.as_object_mut().ok_or("configuration is not a map")?;
    o.insert(
        "webhook".into(),
        json!({"host": "127.0.0.1", "port": port, "certDir": certs}),
    );
    o.insert(
        "health".into(),
        json!({"healthProbeBindAddress": format!("127.0.0.1:{}", free_port()?)}),
    );
    // "0": no metrics endpoint (it would want its own certificate and RBAC for its filter).
    o.insert("metrics".into(), json!({"bindAddress": "0"}));
    o.insert("leaderElection".into(), json!({"leaderElect": false}));
    o.insert("internalCertManagement".into(), json!({"enable": false}));
    if c.name == "kueue" {
        scaled_kueue(o);
    }
    Ok(config)
}

/// Kueue with room for `lab bench`'s backlog: upstream's 50 requests a second and 5 pod and
/// Workload reconcilers judged 5 pods a second of a 20,000-pod backlog on the 2 busy cores
/// here, mostly waiting on the API server; with 500 and 20 each, 12 a second (2026-12-07).
/// A cluster admin raises them the same way; no verdict depends on them.
fn scaled_kueue(o: &mut serde_json::Map<String, Value>) {
    o.insert(
        "clientConnection".into(),
        json!({"qps": 500, "burst": 1000}),
    );
    let kinds = o
        .entry("controller")
        .or_insert_with(|| json!({}))
        .as_object_mut()
        .map(|c| c.entry("groupKindConcurrency").or_insert_with(|| json!({})));
    if let Some(Value::Object(kinds)) = kinds {
        for kind in ["Pod", "Workload.kueue.x-k8s.io"] {
            kinds.insert(kind.into(), json!(20));
        }
    }
}

/// Kueue 0.17 without its internal certificate management reads its metrics server's
/// certificate from a fixed path, `/etc/kueue/metrics/certs` (cmd/kueue/main.go), even with
/// metrics off, and exits if it is missing: the lab's webhook certificate is put there when
/// nothing is (and left: it is the one file the lab writes outside its folder).
fn kueue_metrics_certs(certs: &Path) -> Result<(), String> {
    let dir = Path::new("/etc/kueue/metrics/certs");
    if dir.join("tls.crt").exists() && dir.join("tls.key").exists() {
        return Ok(());
    }
    let fail = |e: std::io::Error| {
        format!(
            "{}: {e} (Kueue 0.17 reads its metrics certificate there)",
            dir.display()
        )
    };
    std::fs::create_dir_all(dir).map_err(fail)?;
    for f in ["tls.crt", "tls.key"] {
        std::fs::copy(certs.join(f), dir.join(f)).map_err(fail)?;
    }
    Ok(())
}

/// What the lab installs of the rendered objects, its webhooks pointed at `port` on loopback;
/// None for the rest (the Deployment, its RBAC, Services, Secrets, APIServices: the controller
/// runs here as the admin, and an APIService nothing serves would break discovery).
fn installed(mut o: Value, port: u16, ca: &str) -> Option<Value> {
    let kind = o["kind"].as_str()?.to_string();
    if !matches!(
        kind.as_str(),
        "CustomResourceDefinition"
            | "MutatingWebhookConfiguration"
            | "ValidatingWebhookConfiguration"
    ) {
        return None;
    }
    // `pointer_mut`, never `o[..]` on a `&mut Value`: indexing inserts the keys it lacks.
    if let Some(meta) = o
        .pointer_mut("/metadata/annotations")
        .and_then(Value::as_object_mut)
    {
        meta.retain(|k, _| !k.starts_with("cert-manager.io/"));
    }
    // kustomize leaves `conversion: {webhook: null}` on the CRDs without a conversion patch,
    // which server-side apply rejects (no strategy): they convert with None, as without it.
    if let Some(spec) = o.pointer_mut("/spec").and_then(Value::as_object_mut)
        && spec
            .get("conversion")
            .is_some_and(|c| c["strategy"].is_null())
    {
        spec.remove("conversion");
    }
    let webhooks: Vec<&mut serde_json::Map<String, Value>> = match kind.as_str() {
        "CustomResourceDefinition" => o
            .pointer_mut("/spec/conversion/webhook")
            .and_then(Value::as_object_mut)
            .into_iter()
            .collect(),
        _ => o
            .pointer_mut("/webhooks")
            .and_then(Value::as_array_mut)
            .into_iter()
            .flatten()
            .filter_map(Value::as_object_mut)
            .collect(),
    };
    for w in webhooks {
        let path = w["clientConfig"]["service"]["path"]
            .as_str()
            .unwrap_or("/")
            .to_string();
        w.insert(
            "clientConfig".into(),
            json!({"url": format!("https://127.0.0.1:{port}{path}"), "caBundle": ca}),
        );
    }
    Some(o)
}

fn list(items: Vec<Value>) -> String {
    json!({"apiVersion": "v1", "kind": "List", "items": items}).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kueue_is_given_room_and_keeps_its_other_reconcilers() {
        let mut config = json!({"clientConnection": {"qps": 50, "burst": 100},
            "controller": {"groupKindConcurrency": {"Pod": 5, "Job.batch": 5}}});
        scaled_kueue(config.as_object_mut().unwrap());
        assert_eq!(
            config["clientConnection"],
            json!({"qps": 500, "burst": 1000})
        );
        assert_eq!(
            config["controller"]["groupKindConcurrency"],
            json!({"Pod": 20, "Job.batch": 5, "Workload.kueue.x-k8s.io": 20})
        );
        let mut bare = json!({});
        scaled_kueue(bare.as_object_mut().unwrap());
        assert_eq!(bare["controller"]["groupKindConcurrency"]["Pod"], 20);
    }

    #[test]
    fn a_service_webhook_becomes_a_loopback_url_and_the_rest_is_left_out() {
        let hook = json!({"kind": "ValidatingWebhookConfiguration", "metadata": {"name": "v"},
            "webhooks": [{"name": "a", "clientConfig": {"service": {"name": "s", "namespace": "n", "path": "/validate"}}}]});
        let got = installed(hook, 9443, "Q0E=").unwrap();
        assert_eq!(
            got["webhooks"][0]["clientConfig"],
            json!({"url": "https://127.0.0.1:9443/validate", "caBundle": "Q0E="})
        );
        let crd = json!({"kind": "CustomResourceDefinition", "spec": {"conversion": {"strategy": "Webhook",
            "webhook": {"clientConfig": {"service": {"name": "s", "namespace": "n", "path": "/convert"}}, "conversionReviewVersions": ["v1"]}}}});
        let got = installed(crd, 9444, "Q0E=").unwrap();
        assert_eq!(
            got["spec"]["conversion"]["webhook"]["clientConfig"]["url"],
            "https://127.0.0.1:9444/convert"
        );
        assert_eq!(
            got["spec"]["conversion"]["webhook"]["conversionReviewVersions"],
            json!(["v1"])
        );
        for kind in [
            "Deployment",
            "Service",
            "APIService",
            "ClusterRole",
            "Secret",
        ] {
            assert!(
                installed(json!({"kind": kind}), 9443, "Q0E=").is_none(),
                "{kind}"
            );
        }
    }
}
