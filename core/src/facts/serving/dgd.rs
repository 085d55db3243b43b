//! A DynamoGraphDeployment's pods by component, at `$.facts.serving.dgd`: whether the frontends
//! that are Ready have workers to send requests to.

use super::{dgd_pods, label};
use crate::facts::ready;
use crate::index::{Index, ObjId};
use crate::json::At as _;
use serde::Serialize;
use serde_json::Value;

/// A DGD's live pods (label `nvidia.com/dynamo-graph-deployment-name`, same namespace),
/// grouped by component. Workers are the components of every type other than `frontend`,
/// `planner` and `epp`.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ServingDgd {
    /// The DGD's name.
    pub name: String,
    /// Each component (label `nvidia.com/dynamo-component`), by name.
    pub components: Vec<DgdComponent>,
    /// Ready pods of the `frontend` components.
    pub frontends_ready: usize,
    /// Pods of the worker components.
    pub workers: usize,
    /// Ready pods of the worker components.
    pub workers_ready: usize,
    /// The worker pods that are not Ready.
    pub workers_not_ready: Vec<String>,
    /// The worker pods in phase `Pending`.
    pub workers_pending: usize,
    /// The Grove objects it is made of are in the bundle and each reports every replica
    /// available: a `Ready=False` they contradict is from before.
    pub grove_parts_available: bool,
}

/// One component of the graph and its pods.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct DgdComponent {
    /// The `nvidia.com/dynamo-component` label; empty when the pod has none.
    pub name: String,
    /// The `nvidia.com/dynamo-component-type` label of its first pod (`frontend`, `worker`,
    /// `planner`, …); empty when it has none.
    #[serde(rename = "type")]
    pub type_: String,
    /// The component's live pods.
    pub pods: usize,
    /// Pods whose `Ready` condition is `True`.
    pub ready: usize,
    /// Pods in phase `Pending`.
    pub pending: usize,
    /// The pods that are not Ready.
    pub not_ready: Vec<String>,
}

/// A pod of a component.
struct PodRow {
    name: String,
    ready: bool,
    pending: bool,
}

/// The DGD fact of the DGD `dgd`.
pub(super) fn dgd(ix: &Index, dgd: ObjId) -> ServingDgd {
    let components = components(ix, dgd);
    let is_worker = |t: &str| !matches!(t, "frontend" | "planner" | "epp");
    let mut fact = ServingDgd {
        name: ix.object(dgd).name.clone(),
        components: Vec::new(),
        frontends_ready: 0,
        workers: 0,
        workers_ready: 0,
        workers_not_ready: Vec::new(),
        workers_pending: 0,
        grove_parts_available: crate::facts::work::grove_parts_available(ix, dgd),
    };
    for c in &components {
        if c.type_ == "frontend" {
            fact.frontends_ready += c.ready;
        } else if is_worker(&c.type_) {
            fact.workers += c.pods;
            fact.workers_ready += c.ready;
            fact.workers_not_ready.extend(c.not_ready.iter().cloned());
            fact.workers_pending += c.pending;
        }
    }
    fact.components = components;
    fact
}

/// The DGD's pods grouped by component, sorted by component name.
fn components(ix: &Index, dgd: ObjId) -> Vec<DgdComponent> {
    let mut comps: Vec<(String, String, Vec<PodRow>)> = Vec::new();
    for (p, v) in &dgd_pods(ix, dgd) {
        let comp = label(v, "nvidia.com/dynamo-component")
            .unwrap_or("")
            .to_string();
        let ty = label(v, "nvidia.com/dynamo-component-type")
            .unwrap_or("")
            .to_string();
        let row = PodRow {
            name: ix.object(*p).name.clone(),
            ready: ready(v),
            pending: v.at("/status/phase").and_then(Value::as_str) == Some("Pending"),
        };
        match comps.iter_mut().find(|c| c.0 == comp) {
            Some(c) => c.2.push(row),
            None => comps.push((comp, ty, vec![row])),
        }
    }
    comps.sort_by(|a, b| a.0.cmp(&b.0));
    comps
        .into_iter()
        .map(|(name, type_, ps)| DgdComponent {
            name,
            type_,
            pods: ps.len(),
            ready: ps.iter().filter(|x| x.ready).count(),
            pending: ps.iter().filter(|x| x.pending).count(),
            not_ready: ps
                .iter()
                .filter(|x| !x.ready)
                .map(|x| x.name.clone())
                .collect(),
        })
        .collect()
}
