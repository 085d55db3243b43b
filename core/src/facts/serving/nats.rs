//! What a DynamoGraphDeployment needs of NATS, at `$.facts.serving.nats`: which settings ask for
//! it, the Service the server URL names, and whether the bundle holds any NATS at all.

use super::dgd_pods;
use crate::index::{Index, ObjId};
use serde::Serialize;
use serde_json::Value;

/// NATS as the DGD's spec and pods (container env and args) ask for it.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ServingNats {
    /// Each distinct setting that asks for NATS, as written: `DYN_EVENT_PLANE=nats`,
    /// `DYN_REQUEST_PLANE=nats`, `NATS_SERVER=<url>`, `--kv-events-config with
    /// "publisher":"nats"`, `--event-plane nats`.
    pub uses: Vec<String>,
    /// The first non-empty `NATS_SERVER` value.
    pub server: Option<String>,
    /// `<namespace>/<service>` of the Service that URL names (`nats://<svc>[.<ns>[.svc…]]:<port>`,
    /// the DGD's namespace when it names none); null for an IP address, `localhost` or a host
    /// outside the cluster, which no bundle could show.
    pub server_service: Option<String>,
    /// Whether the bundle holds that Service; null without `serverService`.
    pub server_service_found: Option<bool>,
    /// Live pods anywhere in the bundle named like NATS (`nats`, starting `nats-` or
    /// containing `-nats`).
    pub nats_pods: usize,
    /// Services anywhere in the bundle named like NATS.
    pub nats_services: usize,
}

/// Live NATS pods and NATS Services anywhere in the bundle: the same for every graph, so
/// counted once per index rather than over every pod for each DGD a scan meets.
fn nats_in_cluster(ix: &Index) -> std::sync::Arc<(usize, usize)> {
    ix.once("serving.natsInCluster", || {
        let pods = ix
            .of_kind("Pod")
            .iter()
            .filter(|&&p| is_nats_name(&ix.object(p).name))
            .filter(|&&p| !ix.pod(p).is_some_and(|i| i.terminal()))
            .count();
        let services = ix
            .of_kind("Service")
            .iter()
            .filter(|&&s| is_nats_name(&ix.object(s).name))
            .count();
        (pods, services)
    })
}

fn is_nats_name(n: &str) -> bool {
    n == "nats" || n.starts_with("nats-") || n.contains("-nats")
}

/// Collect env entries `(name, value)` from any JSON under `v` shaped like an EnvVar list.
fn envs(v: &Value, out: &mut Vec<(String, String)>) {
    match v {
        Value::Object(m) => {
            if let (Some(Value::String(n)), Some(Value::String(val))) =
                (m.get("name"), m.get("value"))
            {
                out.push((n.clone(), val.clone()));
            }
            for x in m.values() {
                envs(x, out);
            }
        }
        Value::Array(a) => a.iter().for_each(|x| envs(x, out)),
        _ => {}
    }
}

fn args(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                if (k == "args" || k == "command")
                    && let Value::Array(a) = x
                {
                    out.extend(a.iter().filter_map(|s| s.as_str().map(str::to_string)));
                } else {
                    args(x, out);
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|x| args(x, out)),
        _ => {}
    }
}

/// The NATS fact of the DGD `dgd`.
pub(super) fn nats(ix: &Index, dgd: ObjId) -> ServingNats {
    let ns = ix.object(dgd).namespace().map(str::to_string);
    let mut env = Vec::new();
    let mut argv = Vec::new();
    let dv = ix.value(dgd);
    envs(&dv["spec"], &mut env);
    args(&dv["spec"], &mut argv);
    for (_, pv) in dgd_pods(ix, dgd) {
        envs(&pv["spec"], &mut env);
        args(&pv["spec"], &mut argv);
    }
    let mut uses: Vec<String> = Vec::new();
    let mut server: Option<String> = None;
    for (n, v) in &env {
        let hit = match n.as_str() {
            "DYN_EVENT_PLANE" | "DYN_REQUEST_PLANE" if v.eq_ignore_ascii_case("nats") => {
                Some(format!("{n}={v}"))
            }
            "NATS_SERVER" if !v.is_empty() => {
                server.get_or_insert_with(|| v.clone());
                Some(format!("{n}={v}"))
            }
            _ => None,
        };
        if let Some(h) = hit.filter(|h| !uses.contains(h)) {
            uses.push(h);
        }
    }
    let joined = argv.join(" ");
    let compact: String = joined.chars().filter(|c| !c.is_whitespace()).collect();
    if compact.contains("\"publisher\":\"nats\"") {
        uses.push("--kv-events-config with \"publisher\":\"nats\"".into());
    }
    if joined.contains("--event-plane nats") || joined.contains("--event-plane=nats") {
        uses.push("--event-plane nats".into());
    }
    let (svc, svc_ns) = server
        .as_deref()
        .and_then(|s| server_service(s, ns))
        .unwrap_or((None, None));
    let svc_found = svc
        .as_deref()
        .map(|n| ix.get("", "Service", svc_ns.as_deref(), n).is_some());
    let (nats_pods, nats_services) = *nats_in_cluster(ix);
    ServingNats {
        uses,
        server,
        server_service: svc.map(|n| format!("{}/{}", svc_ns.unwrap_or_default(), n)),
        server_service_found: svc_found,
        nats_pods,
        nats_services,
    }
}

/// The Service (and its namespace, `ns` when the URL names none) a NATS server URL names:
/// `nats://<svc>[.<ns>[.svc...]]:<port>`. An IP address or an outside host name is not a
/// Service this bundle could show (none: unknown).
fn server_service(url: &str, ns: Option<String>) -> Option<(Option<String>, Option<String>)> {
    let host = url
        .split("://")
        .last()
        .unwrap_or(url)
        .split([':', '/'])
        .next()
        .unwrap_or("");
    let labels: Vec<&str> = host.split('.').collect();
    let ip = host.chars().all(|c| c.is_ascii_digit() || c == '.');
    let in_cluster = labels.len() <= 2 || labels.get(2) == Some(&"svc");
    if host.is_empty() || ip || host == "localhost" || !in_cluster {
        return None;
    }
    let sns = labels.get(1).map(|x| x.to_string()).or(ns);
    Some((Some(labels[0].to_string()), sns))
}
