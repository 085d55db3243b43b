//! A Deployment's rolling update that waits for room its own old pods hold, at
//! `$.facts.placement.rollout`: with `maxUnavailable` 0 the old pods stop only once a new one is
//! ready, and the new one cannot be placed while they hold the node's GPUs. Nothing but the
//! strategy (Recreate, or `maxUnavailable` ≥ 1) or a node more ends it.

use super::Ctx;
use crate::json::At as _;
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// The pod's Deployment, its rollout budget and the old pods that hold their nodes.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Rollout {
    /// The Deployment the pod's ReplicaSet belongs to.
    pub deployment: String,
    /// Its desired replicas (1 when unset).
    pub replicas: u64,
    /// `maxSurge` and `maxUnavailable` as pod counts (a percentage of the replicas, the surge
    /// rounded up and the unavailable down, as the Deployment controller resolves them).
    pub max_surge: u64,
    pub max_unavailable: u64,
    /// Running pods of the Deployment's other ReplicaSets, bound to nodes, in name order.
    pub old_pods: Vec<String>,
    /// Their nodes, sorted and distinct.
    pub old_nodes: Vec<String>,
}

/// For a pending pod of a Deployment rolled out with `RollingUpdate` (the default) while pods of
/// its older ReplicaSets still run: the rollout; None for any other pod. The ReplicaSets need
/// not be in the bundle (a paste often holds the Deployment and its pods only): a pod names its
/// ReplicaSet, `<deployment>-<pod-template-hash>`.
pub(super) fn rollout(ctx: &Ctx, pv: &Value) -> Option<Rollout> {
    if pv.at("/spec/nodeName").is_some() {
        return None;
    }
    let ix = ctx.ix;
    let pod = ctx.pod?;
    let ns = ix.object(pod).namespace()?.to_string();
    let rs = replica_set_of(ix, pod)?;
    let hash = pv
        .at("/metadata/labels/pod-template-hash")
        .and_then(Value::as_str)?;
    let name = rs.strip_suffix(hash)?.strip_suffix('-')?;
    let dep = ix.get("apps", "Deployment", Some(&ns), name)?;
    let dv = ctx.value(dep);
    let strategy = dv.at("/spec/strategy/type").and_then(Value::as_str);
    if strategy.is_some_and(|t| t != "RollingUpdate") {
        return None;
    }
    let replicas = dv.at("/spec/replicas").and_then(Value::as_u64).unwrap_or(1);
    let budget = |field: &str, up: bool| {
        let v = dv.at(&format!("/spec/strategy/rollingUpdate/{field}"));
        resolve(v, replicas, up)
    };
    let (mut max_surge, mut max_unavailable) =
        (budget("maxSurge", true), budget("maxUnavailable", false));
    if max_surge == 0 && max_unavailable == 0 {
        // The controller's own rule: both zero would never move, so one may be unavailable.
        (max_surge, max_unavailable) = (0, 1);
    }
    let running = ix.once("placement.rollout.running", || running_by_replica_set(ix));
    let prefix = format!("{name}-");
    let mut old_pods: Vec<(String, String)> = running
        .range((ns.clone(), prefix.clone())..)
        .take_while(|((n, r), _)| *n == ns && r.starts_with(&prefix))
        .filter(|((_, r), _)| *r != rs && !r[prefix.len()..].contains('-'))
        .flat_map(|(_, pods)| pods.iter().cloned())
        .collect();
    if old_pods.is_empty() {
        return None;
    }
    old_pods.sort();
    let mut old_nodes: Vec<String> = old_pods.iter().map(|(_, n)| n.clone()).collect();
    old_nodes.sort();
    old_nodes.dedup();
    Some(Rollout {
        deployment: name.to_string(),
        replicas,
        max_surge,
        max_unavailable,
        old_pods: old_pods.into_iter().map(|(p, _)| p).collect(),
        old_nodes,
    })
}

/// The name of the ReplicaSet a pod names as its owner, in the bundle or not.
fn replica_set_of(ix: &crate::index::Index, pod: crate::index::ObjId) -> Option<String> {
    let resolved = ix
        .owners(pod)
        .into_iter()
        .find(|&o| ix.object(o).kind() == "ReplicaSet")
        .map(|o| ix.object(o).name.clone());
    resolved.or_else(|| {
        ix.unresolved_owner_refs(pod)
            .find(|r| r.kind == "ReplicaSet")
            .map(|r| r.name.clone())
    })
}

/// Running pods bound to a node, by namespace and the ReplicaSet they name: (pod, node).
fn running_by_replica_set(
    ix: &crate::index::Index,
) -> BTreeMap<(String, String), Vec<(String, String)>> {
    let mut out: BTreeMap<(String, String), Vec<(String, String)>> = BTreeMap::new();
    for &p in ix.of_kind("Pod") {
        let Some(info) = ix.pod(p).filter(|i| i.phase == "Running") else {
            continue;
        };
        let (Some(node), Some(ns), Some(rs)) = (
            info.node.clone(),
            ix.object(p).namespace(),
            replica_set_of(ix, p),
        ) else {
            continue;
        };
        out.entry((ns.to_string(), rs))
            .or_default()
            .push((ix.object(p).name.clone(), node));
    }
    out
}

/// `maxSurge`/`maxUnavailable` as a pod count: an integer, or a percentage of `replicas`
/// rounded up (`up`, the surge) or down (the unavailable); 25% when unset.
fn resolve(v: Option<&Value>, replicas: u64, up: bool) -> u64 {
    let percent = match v {
        Some(Value::Number(n)) => return n.as_u64().unwrap_or(0),
        Some(Value::String(s)) => match s.strip_suffix('%').and_then(|p| p.parse::<u64>().ok()) {
            Some(p) => p,
            None => return s.parse().unwrap_or(0),
        },
        _ => 25,
    };
    // A manifest may ask for any number of replicas: never overflow on it.
    let scaled = percent.saturating_mul(replicas);
    if up {
        scaled.div_ceil(100)
    } else {
        scaled / 100
    }
}

#[cfg(test)]
mod tests {
    use super::resolve;
    use serde_json::json;

    #[test]
    fn budgets_resolve_as_the_deployment_controller_does() {
        // The defaults on one replica: one pod more, none less.
        assert_eq!(resolve(None, 1, true), 1);
        assert_eq!(resolve(None, 1, false), 0);
        assert_eq!(resolve(None, 8, false), 2);
        assert_eq!(resolve(Some(&json!("50%")), 3, true), 2);
        assert_eq!(resolve(Some(&json!("50%")), 3, false), 1);
        assert_eq!(resolve(Some(&json!(0)), 4, false), 0);
        assert_eq!(resolve(Some(&json!("2")), 4, false), 2);
        // Absurd replica counts saturate rather than overflow.
        assert_eq!(resolve(None, u64::MAX, true), u64::MAX / 100 + 1);
    }
}
