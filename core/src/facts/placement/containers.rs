//! Extended resources that several containers of the view's pod ask for, at
//! `$.facts.placement.containers`.

use super::arr;
use crate::facts::Num;
use crate::index::NodeTables;
use crate::json::At as _;
use crate::quantity;
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// An extended resource requested by two or more containers of the pod (containers and
/// sidecar init containers): the scheduler needs their sum on one node.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct SharedResource {
    /// A resource name with a `/`, e.g. `nvidia.com/gpu`.
    pub resource: String,
    /// The containers' requests summed.
    pub total: Num,
    /// The most any one node has allocatable of it (0 without such a node).
    pub largest_node: Num,
    /// Each container's request, containers first, then sidecars.
    pub containers: Vec<ContainerRequest>,
    /// Every container's request alone fits the largest node.
    pub each_fits: bool,
    /// Each request alone fits the largest node but together they exceed it.
    pub adds_up_past: bool,
}

/// One container's request of a resource.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ContainerRequest {
    /// The container's name, as its spec gives it.
    pub name: Value,
    /// `container` or `sidecar` (an init container with `restartPolicy: Always`).
    pub kind: String,
    /// Its request (the request when set, else the limit).
    pub request: Num,
}

/// The extended resources two or more of the pod's containers ask for, in name order.
pub(super) fn containers(tables: &NodeTables, pv: &Value) -> Vec<SharedResource> {
    let mut per: BTreeMap<String, Vec<ContainerRequest>> = BTreeMap::new();
    let mut add = |c: &Value, kind: &str| {
        let mut r: BTreeMap<String, f64> = BTreeMap::new();
        for src in ["/resources/limits", "/resources/requests"] {
            if let Some(m) = c.at(src).and_then(Value::as_object) {
                for (k, q) in m {
                    if let Some(q) = quantity::from_value(q) {
                        r.insert(k.clone(), q);
                    }
                }
            }
        }
        for (k, q) in r {
            if k.contains('/') && q > 0.0 {
                per.entry(k).or_default().push(ContainerRequest {
                    name: c["name"].clone(),
                    kind: kind.to_string(),
                    request: Num(q),
                });
            }
        }
    };
    for c in arr(pv, "/spec/containers") {
        add(c, "container");
    }
    for c in arr(pv, "/spec/initContainers").filter(|c| c["restartPolicy"] == "Always") {
        add(c, "sidecar");
    }
    per.into_iter()
        .filter(|(_, r)| r.len() > 1)
        .map(|(res, rows)| {
            let total: f64 = rows.iter().map(|r| r.request.0).sum();
            let each_max = rows.iter().map(|r| r.request.0).fold(0.0f64, f64::max);
            let largest = tables
                .resources
                .get(&res)
                .map_or(0.0, |t| t.max_allocatable);
            SharedResource {
                resource: res,
                total: Num(total),
                largest_node: Num(largest),
                containers: rows,
                each_fits: each_max <= largest,
                adds_up_past: largest > 0.0 && each_max <= largest && total > largest,
            }
        })
        .collect()
}
