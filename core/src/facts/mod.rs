//! Facts a JSON path cannot express, computed in Rust and placed in the view under `$.facts`.
//! Each function documents the shape it returns; `docs/view.md` lists them for rule authors.

pub mod admission;
pub mod device;
pub mod fake_gpu;
pub mod group;
pub mod grouping;
pub mod jobset;
pub mod placement;
pub mod pods;
pub mod resources;
pub mod runtime;
pub mod scheduling;
pub mod serving;
pub mod signals;

pub use fake_gpu::{FAKE_GPU_POOL_LABEL, fake_gpu, fake_gpu_state};
pub use group::group;
pub use jobset::{ReplicatedJob, child_jobs, replicated_jobs};
pub use pods::{pod_rank, pod_status, required_node_labels, unreadable_quantities};
pub(crate) use pods::{pods_by_namespace, superseded_pod};
pub use resources::{Eligibility, node_eligible, resources};
pub use scheduling::parse_scheduling_message;

use crate::index::{Index, ObjId};
use crate::quantity;
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;

/// A quantity as JSON: an integer when whole (GPU counts read `4`, not `4.0`).
pub fn num(v: f64) -> Value {
    if v.fract() == 0.0 && v.abs() < 9e15 {
        json!(v as i64)
    } else {
        json!(v)
    }
}

/// Requests of a pod per resource, read from its spec (same rules as the index).
pub fn quantity_map(v: &Value) -> BTreeMap<String, f64> {
    v.as_object()
        .map(|m| {
            m.iter()
                .filter_map(|(k, q)| quantity::from_value(q).map(|q| (k.clone(), q)))
                .collect()
        })
        .unwrap_or_default()
}

use std::borrow::Cow;

/// What an area's facts may look at.
pub struct Ctx<'a> {
    pub ix: &'a Index,
    pub target: ObjId,
    pub pod: Option<ObjId>,
    /// The view's subjects so far (`pod`, `workload`, `node`, `events`, …), as rules see them.
    pub subjects: &'a Map<String, Value>,
    /// "Now", epoch seconds, when known.
    pub now: Option<i64>,
}

impl<'a> Ctx<'a> {
    /// The representative pod's JSON: the view's copy when it holds one, else read from the
    /// index.
    pub fn pod_value(&self) -> Option<Cow<'a, Value>> {
        match self.subjects.get("pod") {
            Some(v) => Some(Cow::Borrowed(v)),
            None => self.pod.map(|p| Cow::Owned(self.ix.value(p))),
        }
    }

    /// The view's pods with their ids (`pod`, then each of `pods`, without repeats), from the
    /// JSON the view already holds rather than read again.
    pub fn view_pods(&self) -> Vec<(ObjId, &'a Value)> {
        let mut pods: Vec<(ObjId, &'a Value)> = Vec::new();
        if let (Some(p), Some(v)) = (self.pod, self.subjects.get("pod")) {
            pods.push((p, v));
        }
        if let Some(Value::Array(ps)) = self.subjects.get("pods") {
            for p in ps {
                let ns = p.pointer("/metadata/namespace").and_then(Value::as_str);
                let name = p.pointer("/metadata/name").and_then(Value::as_str);
                if let Some(id) = name.and_then(|n| self.ix.get("", "Pod", ns, n))
                    && !pods.iter().any(|(x, _)| *x == id)
                {
                    pods.push((id, p));
                }
            }
        }
        pods
    }
}

/// Every area's facts: (key under `$.facts`, value).
pub fn all(ctx: &Ctx) -> Vec<(&'static str, Value)> {
    vec![
        ("device", device::facts(ctx)),
        ("deviceAdvertised", device::advertised(ctx)),
        ("admission", to_json(&admission::facts(ctx))),
        ("grouping", grouping::facts(ctx)),
        ("placement", to_json(&placement::facts(ctx))),
        ("volcano", to_json(&placement::volcano(ctx))),
        ("runtime", to_json(&runtime::facts(ctx))),
        ("serving", serving::facts(ctx)),
    ]
}

/// A quantity in a fact: written as an integer when whole (GPU counts read `4`, not `4.0`), as
/// [`num`] writes it into JSON.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd, Default)]
pub struct Num(pub f64);

impl serde::Serialize for Num {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let v = self.0;
        if v.fract() == 0.0 && v.abs() < 9e15 {
            s.serialize_i64(v as i64)
        } else {
            s.serialize_f64(v)
        }
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for Num {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Quantity".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": "number", "description": "a quantity; an integer when whole"})
    }
}

/// A fact as the view holds it. Facts are plain data with string keys, so writing one into a
/// JSON value cannot fail; a failure would be a bug in a fact's type, shown as null.
pub fn to_json<T: serde::Serialize>(fact: &T) -> Value {
    serde_json::to_value(fact).unwrap_or(Value::Null)
}
