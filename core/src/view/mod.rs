//! The view: for one target, the linked objects of every layer plus computed facts, as one JSON
//! document that rules query with JSONPath (`$.pod…`, `$.workload…`, `$.facts…`).
//!
//! Each top-level key is a *subject* (see [`crate::catalog`] and `docs/view.md`). A subject is one
//! object or a list of objects; `facts` holds what Rust computed ([`crate::facts`]). Every
//! subject remembers which object it came from, so a match at `$['pod']['status']…` becomes
//! evidence on that Pod at `$['status']…`. [`links`] finds the objects; this file runs the fact
//! table over them.

mod links;

use crate::diagnosis::{Missing, ObjectRef, PodSummary};
use crate::facts;
use crate::index::{Index, ObjId};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// Where a subject's content came from.
#[derive(Debug, Clone)]
pub enum SubjectRef {
    One(ObjectRef),
    Many(Vec<ObjectRef>),
}

/// A built view.
#[derive(Debug, Clone)]
pub struct View {
    pub value: Value,
    pub refs: BTreeMap<String, SubjectRef>,
    pub target: ObjId,
    pub pod: Option<ObjId>,
    pub pods: Vec<PodSummary>,
    pub status: String,
    pub settled: bool,
    /// What the bundle shows is history (finished work, a superseded pod): findings are told
    /// as history, never as a block.
    pub history: bool,
    /// The target is work `fit` placed as if submitted now.
    pub not_submitted: bool,
    pub missing: Vec<Missing>,
}

impl View {
    pub fn has(&self, subject: &str) -> bool {
        subject == "facts" || self.refs.contains_key(subject)
    }

    /// The object the facts are about: the pod if there is one, else the target.
    pub fn fact_owner(&self) -> &ObjectRef {
        match self.refs.get("pod").or_else(|| self.refs.get("target")) {
            Some(SubjectRef::One(r)) => r,
            _ => unreachable!("a view always has a target"),
        }
    }
}

pub fn object_ref(ix: &Index, id: ObjId) -> ObjectRef {
    let o = ix.object(id);
    ObjectRef {
        api_version: o.api_version.clone(),
        kind: o.kind.clone(),
        namespace: o.namespace.clone(),
        name: o.name.clone(),
    }
}
/// Build the view of a target. `now` is epoch seconds (for ages).
pub fn build(ix: &Index, target: ObjId, now: Option<i64>) -> View {
    build_at(ix, target, now, None)
}

/// Build the view of a target: link its objects, then build every fact of
/// [`facts::FACTS`], stage by stage. `now` is epoch seconds (for ages), `now_source` where
/// it came from (`$.facts.nowSource`).
pub fn build_at(ix: &Index, target: ObjId, now: Option<i64>, now_source: Option<&str>) -> View {
    let links::Linked {
        mut b,
        pod,
        pods,
        chain,
        pod_value,
        pod_summaries,
    } = links::link(ix, target);
    let tv = b.value(target);
    let state = facts::work::judge(ix, target, &tv, &pods);
    let linked = links::linked_objects(ix, target, pod, &chain, &b.ids);

    // The facts, stage by stage: each stage reads the subjects and the facts of the stages
    // before it.
    b.map.insert("facts".into(), Value::Object(Map::new()));
    for stage in [
        facts::Stage::Work,
        facts::Stage::Derived,
        facts::Stage::Area,
    ] {
        let mut built = Map::new();
        let ctx = facts::Ctx {
            ix,
            target,
            pod,
            pods: &pods,
            subjects: &b.map,
            ids: &b.ids,
            linked: &linked,
            state: &state,
            now,
            now_source,
            signals: Default::default(),
        };
        facts::registry::build_stage(stage, &ctx, &mut built);
        if let Some(Value::Object(f)) = b.map.get_mut("facts") {
            f.extend(built);
        }
    }
    links::cite_nodes(&mut b, pod_value.as_ref());
    View {
        value: Value::Object(b.map),
        refs: b.refs,
        target,
        pod,
        pods: pod_summaries,
        status: state.status,
        settled: state.settled,
        history: state.history,
        not_submitted: ix.not_submitted(target),
        missing: b.missing,
    }
}

/// The pods of a piece of work, as a view finds them: below it by ownerReferences, else by the
/// labels its controller writes or its selector.
pub fn work_pods(ix: &Index, target: ObjId) -> Vec<ObjId> {
    links::work_pods(ix, target)
}

/// The target's status and whether it is settled, without building a whole view (for scan and
/// the target list).
pub fn status_of(ix: &Index, target: ObjId) -> (String, bool) {
    let v = ix.value(target);
    let pods = if ix.pod(target).is_none() {
        links::work_pods(ix, target)
    } else {
        Vec::new()
    };
    let w = facts::work::judge(ix, target, &v, &pods);
    (w.status, w.settled)
}
