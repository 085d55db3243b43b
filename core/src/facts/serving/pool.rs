//! An InferencePool as the Gateway and its endpoint picker see it, at
//! `$.facts.serving.inferencePool`: its parents and their conditions, its EPP Service, and the
//! pods its selector matches.

use crate::facts::ready;
use crate::index::{Index, ObjId};
use crate::json::At as _;
use serde::Serialize;
use serde_json::Value;

/// An InferencePool (v1 `inference.networking.k8s.io` or v1alpha2
/// `inference.networking.x-k8s.io`).
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ServingPool {
    /// The pool's name.
    pub name: String,
    /// The pool's `apiVersion`.
    pub api_version: String,
    /// Entries of its status's parents (v1 `status.parents[]`, v1alpha2 `status.parent[]`)
    /// other than a `parentRef` of kind `Status`.
    pub parents: usize,
    /// Some InferencePool or HTTPRoute of the bundle has a parent in its status: a Gateway
    /// controller that writes status is at work. Without one, a pool's empty status proves
    /// nothing.
    pub gateway_writes_status: bool,
    /// The first parent's `Accepted` condition; null when there is none.
    pub accepted: Option<PoolCondition>,
    /// The first parent's `ResolvedRefs` condition; null when there is none.
    pub resolved_refs: Option<PoolCondition>,
    /// The endpoint picker the pool names (v1 `spec.endpointPickerRef`, v1alpha2
    /// `spec.extensionRef`); null when it names none.
    pub epp: Option<PoolEpp>,
    /// Live pods of the pool's namespace its selector matches (v1 `matchLabels`, v1alpha2 a
    /// plain map); 0 with an empty selector.
    pub pods: usize,
    /// The bundle holds some Pod of the pool's namespace: a pool pasted without its
    /// namespace's pods selects none of them, which proves nothing.
    pub pods_in_bundle: bool,
    /// Of `pods`, those whose `Ready` condition is `True`.
    pub ready_pods: usize,
    /// The matched pods that are not Ready.
    pub not_ready_pods: Vec<String>,
    /// The pool's `targetPorts` (v1; `targetPortNumber` of v1alpha2).
    pub target_ports: Vec<u64>,
    /// Selected pods that declare container ports but none of the pool's target ports: the
    /// endpoint picker makes no endpoint of them, so no request reaches them.
    pub off_port_pods: Vec<OffPort>,
}

/// A condition of the pool's first parent, its fields copied as written (null when absent).
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct PoolCondition {
    /// `True`, `False` or `Unknown`.
    pub status: Value,
    /// The condition's `reason`.
    pub reason: Value,
    /// The condition's `message`.
    pub message: Value,
}

/// The pool's endpoint picker reference.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct PoolEpp {
    /// The referenced object's name; empty when unset.
    pub name: String,
    /// The referenced object's kind, `Service` when unset.
    pub kind: String,
    /// v1 `port.number` or v1alpha2 `portNumber`, as written; null when unset.
    pub port: Value,
    /// Whether the bundle holds the Service, in the pool's namespace (true for a kind other
    /// than `Service`); null when the bundle holds no Service of that namespace at all (a
    /// pasted pool alone proves no Service absent).
    pub service_found: Option<bool>,
    /// The picker that serves this pool, found by its arguments (`--pool-name <pool>` in the
    /// pool's namespace): a Deployment, else a Pod; null when the bundle holds none.
    pub picker: Option<Picker>,
    /// The reference's port is not served: the referenced Service exposes no such port, or,
    /// without the Service in the bundle, the picker declares ports and none is that one. The
    /// gateway's ext-proc call then reaches nothing (`ext_proc_error_gRPC_error_14`,
    /// `Cluster_not_available`).
    pub port_not_served: bool,
    /// The picker watches another API group than the pool's (`--pool-group`), so it never sees
    /// this pool and has no endpoints to pick.
    pub group_mismatch: bool,
}

/// The endpoint picker that names the pool in its arguments.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Picker {
    /// `Deployment/<name>` or `Pod/<name>`.
    pub object: String,
    /// Its `--pool-group` argument; null when it gives none (the picker's default).
    pub pool_group: Option<String>,
    /// Its containers' declared ports.
    pub ports: Vec<u64>,
}

/// The ports the referenced Service exposes (`spec.ports[].port`); none when the reference is
/// not a Service or the bundle does not hold it.
fn service_ports(ix: &Index, ns: Option<&str>, kind: &str, name: &str) -> Option<Vec<u64>> {
    if kind != "Service" {
        return None;
    }
    let v = ix.value(ix.get("", "Service", ns, name)?);
    Some(
        v.at("/spec/ports")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|p| p["port"].as_u64())
            .collect(),
    )
}

/// The picker's flag naming its pool, in the two spellings its releases used.
const POOL_NAME_FLAGS: &[&str] = &["--pool-name", "-poolName", "--poolName"];
const POOL_GROUP_FLAGS: &[&str] = &["--pool-group", "-poolGroup", "--poolGroup"];

/// Every picker argument the pool fact reads (names, not secrets): redaction keeps their values.
pub const PICKER_ARGS: [&[&str]; 2] = [POOL_NAME_FLAGS, POOL_GROUP_FLAGS];

/// The first Deployment, else Pod, of the namespace whose arguments name the pool.
fn picker(ix: &Index, ns: Option<&str>, pool: &str) -> Option<Picker> {
    ["Deployment", "Pod"].iter().find_map(|kind| {
        ix.of_kind(kind).iter().find_map(|&id| {
            let o = ix.object(id);
            if o.namespace() != ns {
                return None;
            }
            let v = ix.value(id);
            let args = super::router::container_args(&v);
            let named = POOL_NAME_FLAGS
                .iter()
                .any(|f| super::router::arg(&args, f).as_deref() == Some(pool));
            named.then(|| Picker {
                object: format!("{kind}/{}", o.name),
                pool_group: POOL_GROUP_FLAGS
                    .iter()
                    .find_map(|f| super::router::arg(&args, f)),
                ports: container_ports(v.at("/spec/template").unwrap_or(&v)),
            })
        })
    })
}

/// A selected pod that listens on none of the pool's target ports.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct OffPort {
    pub pod: String,
    /// The container ports it declares.
    pub ports: Vec<u64>,
}

/// The ports a pool sends requests to.
fn target_ports(v: &Value) -> Vec<u64> {
    let mut ports: Vec<u64> = v
        .at("/spec/targetPorts")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|p| p["number"].as_u64())
        .chain(v.at("/spec/targetPortNumber").and_then(Value::as_u64))
        .collect();
    ports.sort_unstable();
    ports.dedup();
    ports
}

/// The container ports a pod declares (its containers' and native sidecars').
fn container_ports(pv: &Value) -> Vec<u64> {
    let mut ports: Vec<u64> = ["/spec/containers", "/spec/initContainers"]
        .iter()
        .filter_map(|k| pv.at(k).and_then(Value::as_array))
        .flatten()
        .filter_map(|c| c["ports"].as_array())
        .flatten()
        .filter_map(|p| p["containerPort"].as_u64())
        .collect();
    ports.sort_unstable();
    ports.dedup();
    ports
}

fn parents_of(v: &Value) -> Option<&Vec<Value>> {
    v.at("/status/parents")
        .or_else(|| v.at("/status/parent"))
        .and_then(Value::as_array)
}

fn first_parent(v: &Value) -> Option<&Value> {
    v.at("/status/parents/0")
        .or_else(|| v.at("/status/parent/0"))
}

fn condition(parent: Option<&Value>, ty: &str) -> Option<PoolCondition> {
    parent
        .and_then(|p| p["conditions"].as_array())
        .and_then(|cs| cs.iter().find(|c| c["type"] == ty))
        .map(|c| PoolCondition {
            status: c["status"].clone(),
            reason: c["reason"].clone(),
            message: c["message"].clone(),
        })
}

/// Whether the bundle shows a Gateway controller that writes route and pool status: a parent
/// in any InferencePool's or HTTPRoute's status. Some implementations never write a pool's
/// status, so a pool without parents proves nothing unless this holds. Once per index.
fn gateway_writes_status(ix: &Index) -> bool {
    *ix.once("serving.gatewayWritesStatus", || {
        ["InferencePool", "HTTPRoute"].iter().any(|k| {
            ix.of_kind(k)
                .iter()
                .any(|&id| parents_of(&ix.value(id)).is_some_and(|a| !a.is_empty()))
        })
    })
}

/// The endpoint picker a pool references, none when it references none.
fn epp(ix: &Index, pool: ObjId, v: &Value) -> Option<PoolEpp> {
    let r = v
        .at("/spec/endpointPickerRef")
        .or_else(|| v.at("/spec/extensionRef"))?;
    let ns = ix.object(pool).namespace();
    let name = r["name"].as_str().unwrap_or("");
    let kind = r["kind"].as_str().unwrap_or("Service");
    let port = r
        .at("/port/number")
        .or_else(|| r.get("portNumber"))
        .cloned()
        .unwrap_or(Value::Null);
    // Unknown (null) when the bundle holds no Service of the namespace at all: a pasted pool
    // alone says nothing about which Services exist.
    let services_read = ix
        .of_kind("Service")
        .iter()
        .any(|&id| ix.object(id).namespace() == ns);
    let found = if kind != "Service" || ix.get("", "Service", ns, name).is_some() {
        Some(true)
    } else if services_read {
        Some(false)
    } else {
        None
    };
    let picker = picker(ix, ns, &ix.object(pool).name);
    let port_not_served = match (port.as_u64(), service_ports(ix, ns, kind, name)) {
        (Some(port), Some(ports)) => !ports.is_empty() && !ports.contains(&port),
        (Some(port), None) => picker
            .as_ref()
            .is_some_and(|p| !p.ports.is_empty() && !p.ports.contains(&port)),
        (None, _) => false,
    };
    let group = ix.object(pool).group();
    let group_mismatch = picker
        .as_ref()
        .and_then(|p| p.pool_group.as_deref())
        .is_some_and(|g| g != group);
    Some(PoolEpp {
        name: name.to_string(),
        kind: kind.to_string(),
        port,
        service_found: found,
        picker,
        port_not_served,
        group_mismatch,
    })
}

/// The InferencePool fact of the pool `pool`.
pub(super) fn pool(ix: &Index, pool: ObjId) -> ServingPool {
    let o = ix.object(pool);
    let v = ix.value(pool);
    let parents = parents_of(&v).map_or(0, |a| {
        a.iter()
            .filter(|p| p.at("/parentRef/kind").and_then(Value::as_str) != Some("Status"))
            .count()
    });
    let parent = first_parent(&v);
    let mut pods = 0;
    let mut ready_pods = 0;
    let mut not_ready = Vec::new();
    let targets = target_ports(&v);
    let mut off_port = Vec::new();
    if let Some(sel) = crate::json::match_labels(&v, true) {
        let ns = o.namespace().unwrap_or("");
        for p in super::live_pods(ix, |n| n == ns) {
            let pv = ix.value(p);
            if crate::json::selects(sel, crate::json::labels(&pv)) {
                pods += 1;
                // A pod that declares no port may still listen on one: only a declared list
                // without the target port is evidence.
                let declared = container_ports(&pv);
                if !targets.is_empty()
                    && !declared.is_empty()
                    && !targets.iter().any(|t| declared.contains(t))
                {
                    off_port.push(OffPort {
                        pod: ix.object(p).name.clone(),
                        ports: declared,
                    });
                }
                if ready(&pv) {
                    ready_pods += 1;
                } else {
                    not_ready.push(ix.object(p).name.clone());
                }
            }
        }
    }
    ServingPool {
        name: o.name.clone(),
        api_version: o.api_version().to_string(),
        parents,
        gateway_writes_status: gateway_writes_status(ix),
        accepted: condition(parent, "Accepted"),
        resolved_refs: condition(parent, "ResolvedRefs"),
        epp: epp(ix, pool, &v),
        pods,
        pods_in_bundle: ix
            .of_kind("Pod")
            .iter()
            .any(|&p| ix.object(p).namespace() == o.namespace()),
        ready_pods,
        not_ready_pods: not_ready,
        target_ports: targets,
        off_port_pods: off_port,
    }
}
