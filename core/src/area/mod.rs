//! Facts by area, each in its own file so rule families can grow independently: every function
//! gets the same context (the index, the target, the representative pod, and the subjects the
//! view linked) and returns a JSON value placed at `$.facts.<area>` (null when nothing applies).
//! Document each fact's shape in the file's `//!` and register it in `core/src/catalog.rs`
//! (which `docs/view.md` is generated from; a test fails on a fact it does not list).

use crate::index::{Index, ObjId};
use serde_json::{Map, Value};
use std::borrow::Cow;

pub mod admission;
pub mod device;
pub mod grouping;
pub mod placement;
pub mod runtime;
pub mod serving;

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
        ("admission", admission::facts(ctx)),
        ("grouping", grouping::facts(ctx)),
        ("placement", placement::facts(ctx)),
        ("volcano", placement::volcano(ctx)),
        ("runtime", runtime::facts(ctx)),
        ("serving", serving::facts(ctx)),
    ]
}
