//! Facts a JSON path cannot express, computed in Rust and placed in the view under `$.facts`.
//! Every fact is a documented type built by one function from a [`Ctx`], registered in
//! [`registry::FACTS`]; `docs/view.md` and the schema every rule path is checked against are
//! generated from those types. The layers' facts live in their own directories
//! (`device/`, `admission/`, …); facts about the work as a whole beside them.

pub mod admission;
pub mod component;
pub mod device;
pub mod drift;
pub mod fake_gpu;
pub mod gang_minimum;
pub mod group;
pub mod grouping;
pub mod jobset;
pub mod placement;
pub mod pods;
pub mod provenance;
pub mod queue_capability;
pub mod registry;
pub mod resources;
pub mod runtime;
pub mod scheduling;
#[cfg(feature = "schema")]
pub mod schema;
pub mod selectors;
pub mod serving;
pub mod signals;
pub mod texts;
pub mod work;

pub use fake_gpu::{FAKE_GPU_POOL_LABEL, fake_gpu, fake_gpu_state};
pub use jobset::{ReplicatedJob, child_jobs, replicated_jobs};
pub(crate) use pods::superseded_pod;
pub use pods::{pod_rank, pod_status, required_node_labels, unreadable_quantities};
pub use registry::{FACTS, FactDef, Stage};
pub use resources::{Eligibility, node_eligible, resources};
pub use scheduling::parse_scheduling_message;

use crate::index::{Index, ObjId};
use crate::json::At as _;
use crate::quantity;
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;

/// A quantity as a person reads it: bytes of memory and storage in Gi or Mi.
pub fn human_quantity(resource: &str, v: f64) -> String {
    const GI: f64 = 1024.0 * 1024.0 * 1024.0;
    const MI: f64 = 1024.0 * 1024.0;
    let bytes =
        resource == "memory" || resource.ends_with("storage") || resource.starts_with("hugepages-");
    match bytes {
        true if v >= GI => format!(
            "{}Gi",
            crate::quantity::format((v / GI * 10.0).round() / 10.0)
        ),
        true if v >= MI => format!("{}Mi", crate::quantity::format((v / MI).round())),
        _ => crate::quantity::format(v),
    }
}

/// A quantity as JSON: an integer when whole (GPU counts read `4`, not `4.0`).
pub fn num(v: f64) -> Value {
    if v.fract() == 0.0 && v.abs() < 9e15 {
        json!(v as i64)
    } else {
        json!(v)
    }
}

/// A pod spec's effective requests, as the index reads a pod's: the containers' (and
/// sidecars') sum, at least the largest init container's, plus overhead; limits stand in for
/// unset requests.
pub fn effective_requests(spec: &Value) -> BTreeMap<String, f64> {
    let of = |c: &Value| requested(&c["resources"]);
    let list = |k: &str| spec[k].as_array().cloned().unwrap_or_default();
    let mut sum: BTreeMap<String, f64> = BTreeMap::new();
    let inits = list("initContainers");
    let sidecar = |c: &Value| c["restartPolicy"] == "Always";
    for c in list("containers")
        .iter()
        .chain(inits.iter().filter(|c| sidecar(c)))
    {
        for (k, v) in of(c) {
            *sum.entry(k).or_default() += v;
        }
    }
    for c in inits.iter().filter(|c| !sidecar(c)) {
        for (k, v) in of(c) {
            let e = sum.entry(k).or_default();
            *e = e.max(v);
        }
    }
    for (k, v) in quantity_map(&spec["overhead"]) {
        *sum.entry(k).or_default() += v;
    }
    sum
}

/// What a `resources` block (`{requests, limits}`) asks for: its requests, with its limits
/// standing in where a request is unset, as the API server defaults them.
pub fn requested(resources: &Value) -> BTreeMap<String, f64> {
    let mut r = quantity_map(&resources["limits"]);
    r.extend(quantity_map(&resources["requests"]));
    r
}

/// Whether an object's `Ready` condition is `True` (a pod, an InferenceService, any object
/// that reports readiness the Kubernetes way).
pub(crate) fn ready(v: &Value) -> bool {
    v.at("/status/conditions")
        .and_then(Value::as_array)
        .is_some_and(|cs| {
            cs.iter()
                .any(|c| c["type"] == "Ready" && c["status"] == "True")
        })
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

/// The objects a view has parsed: those not (yet) a subject, and where each one that became
/// a subject sits among the subjects (the subject, and the index in a list subject). A subject
/// takes its object's JSON rather than a copy, and each object is parsed once per view.
#[derive(Default)]
pub(crate) struct Parsed {
    pub(crate) aside: BTreeMap<ObjId, Value>,
    pub(crate) placed: BTreeMap<ObjId, (String, Option<usize>)>,
    /// The events about each object linking read them for (its event sources): the facts ask
    /// again of the same objects, and each ask read every event from its JSON.
    /// A list: a view has a handful of event sources.
    pub(crate) events: Vec<(ObjId, Vec<(ObjId, crate::index::EventInfo)>)>,
}

impl Parsed {
    /// The events linking read about `id`, if it did.
    pub(crate) fn events(&self, id: ObjId) -> Option<&[(ObjId, crate::index::EventInfo)]> {
        self.events
            .iter()
            .find(|(of, _)| *of == id)
            .map(|(_, events)| events.as_slice())
    }

    /// The events about `id`, read from the index the first time.
    pub(crate) fn read_events(
        &mut self,
        ix: &Index,
        id: ObjId,
    ) -> &[(ObjId, crate::index::EventInfo)] {
        let at = match self.events.iter().position(|(of, _)| *of == id) {
            Some(at) => at,
            None => {
                self.events.push((id, ix.events_about(id)));
                self.events.len() - 1
            }
        };
        &self.events[at].1
    }

    /// An object's JSON, wherever the view holds it.
    pub(crate) fn get<'m>(
        &'m self,
        subjects: &'m Map<String, Value>,
        id: ObjId,
    ) -> Option<&'m Value> {
        self.aside.get(&id).or_else(|| {
            let (subject, at) = self.placed.get(&id)?;
            let v = subjects.get(subject)?;
            match at {
                Some(i) => v.get(i),
                None => Some(v),
            }
        })
    }

    /// [`Parsed::get`], else the object read from the index.
    pub(crate) fn value<'m>(
        &'m self,
        subjects: &'m Map<String, Value>,
        ix: &Index,
        id: ObjId,
    ) -> Cow<'m, Value> {
        match self.get(subjects, id) {
            Some(v) => Cow::Borrowed(v),
            None => Cow::Owned(ix.value(id)),
        }
    }
}

/// What a fact may look at: the index, the target and what the view linked to it.
pub struct Ctx<'a> {
    pub ix: &'a Index,
    pub target: ObjId,
    pub pod: Option<ObjId>,
    /// The pods of the work (the target itself when it is a pod).
    pub pods: &'a [ObjId],
    /// The view's subjects so far (`pod`, `workload`, `node`, `events`, …), as rules see them,
    /// with `facts` holding the facts of earlier stages ([`registry::Stage`]).
    pub subjects: &'a Map<String, Value>,
    /// The objects of each subject, as the view linked them.
    pub ids: &'a BTreeMap<String, Vec<ObjId>>,
    /// The objects the view parsed while linking: facts read these rather than parse the same
    /// object again ([`Ctx::value`]).
    pub(crate) parsed: &'a Parsed,
    /// The objects the work is made of, target first (what the signals are read from).
    pub linked: &'a [ObjId],
    /// The LocalQueue and ClusterQueue the work names, as the view linked them.
    pub queues: &'a admission::QueueNames,
    /// What the work is now.
    pub state: &'a work::WorkState,
    /// "Now", epoch seconds, when known, and where it came from.
    pub now: Option<i64>,
    pub now_source: Option<&'a str>,
    /// The signals, read once for both facts that show them.
    pub(crate) signals: std::cell::OnceCell<signals::Signals>,
    /// What the fact being built holds on loan ([`Lending`]), until the table moves it under
    /// the fact's key.
    pub(crate) lent: std::cell::RefCell<crate::lend::Loans>,
}

impl<'a> Ctx<'a> {
    /// The object of a one-object subject (`jobSet`, `workload`, …).
    pub fn id(&self, subject: &str) -> Option<ObjId> {
        self.ids.get(subject).and_then(|ids| ids.first().copied())
    }

    /// The work's signals, read once.
    pub fn signals(&self) -> &signals::Signals {
        self.signals.get_or_init(|| {
            signals::signals(
                self.ix,
                self.linked,
                self.state.settled || self.state.history,
                &|id| self.value(id),
                &|id| self.events_about(id),
            )
        })
    }

    /// One object's JSON: the view's copy when linking parsed it, else read from the index. On
    /// a backlog every pending Job is diagnosed, and parsing its objects once per fact that
    /// reads them was a tenth of each diagnosis.
    pub fn value(&self, id: ObjId) -> Cow<'a, Value> {
        self.parsed.value(self.subjects, self.ix, id)
    }

    /// [`Index::events_about`] an object, as linking read them when it did.
    pub fn events_about(&self, id: ObjId) -> Cow<'a, [(ObjId, crate::index::EventInfo)]> {
        match self.parsed.events(id) {
            Some(events) => Cow::Borrowed(events),
            None => Cow::Owned(self.ix.events_about(id)),
        }
    }

    /// The messages of the view's events, oldest first (as the view orders them).
    pub fn event_messages(&self) -> impl DoubleEndedIterator<Item = &'a str> + use<'a> {
        self.subjects
            .get("events")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|e| e["message"].as_str())
    }

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
                let ns = p.at("/metadata/namespace").and_then(Value::as_str);
                let name = p.at("/metadata/name").and_then(Value::as_str);
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

/// The metadata a queue order reads of an object: its UID and creation time.
#[derive(serde::Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub(crate) struct MetaLite {
    pub(crate) uid: Option<String>,
    pub(crate) creation_timestamp: Option<String>,
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

/// A fact whose cluster-sized parts every view holds alike: `fact` with those parts left empty,
/// and the value of each, built once per index and lent to the view ([`crate::lend`]).
pub struct Lending<T> {
    pub fact: T,
    pub parts: Vec<(&'static str, std::sync::Arc<crate::lend::Shared>)>,
}

impl<T: serde::Serialize> Lending<T> {
    /// The fact as the view holds it: its parts put in on loan, recorded in `ctx`.
    pub(crate) fn into_json(self, ctx: &Ctx) -> Value {
        let mut v = to_json(&self.fact);
        if let Value::Object(m) = &mut v {
            let mut lent = ctx.lent.borrow_mut();
            for (key, shared) in &self.parts {
                lent.lend(m, key, format!("/{key}"), shared);
            }
        }
        v
    }
}

/// A fact as the view holds it. Facts are plain data with string keys, so writing one into a
/// JSON value cannot fail; a failure would be a bug in a fact's type, shown as null.
pub fn to_json<T: serde::Serialize>(fact: &T) -> Value {
    serde_json::to_value(fact).unwrap_or(Value::Null)
}
