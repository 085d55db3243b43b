//! The view: for one target, the linked objects of every layer plus computed facts, as one JSON
//! document that rules query with JSONPath (`$.pod…`, `$.workload…`, `$.facts…`).
//!
//! Each top-level key is a *subject* (see [`crate::catalog`] and `docs/view.md`). A subject is one
//! object or a list of objects; `facts` holds what Rust computed ([`crate::facts`]). Every
//! subject remembers which object it came from, so a match at `$['pod']['status']…` becomes
//! evidence on that Pod at `$['status']…`. [`links`] finds the objects; this file runs the fact
//! table over them.

mod links;
pub mod unchecked;

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
    /// The subjects `refs` names, and `facts`.
    pub subjects: crate::catalog::SubjectSet,
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
    /// For such work: the names it depends on that the bundle cannot check.
    pub unchecked: Vec<unchecked::Unchecked>,
    pub missing: Vec<Missing>,
    /// What `value` holds on loan ([`crate::lend`]), given back when the view is dropped.
    loans: crate::lend::Loans,
}

impl Drop for View {
    fn drop(&mut self) {
        self.loans.give_back(&mut self.value);
    }
}

impl View {
    pub fn has(&self, subject: &str) -> bool {
        subject == "facts" || self.refs.contains_key(subject)
    }

    /// The view's JSON, kept: what it holds on loan is no longer given back.
    pub fn into_value(mut self) -> Value {
        self.loans = crate::lend::Loans::default();
        std::mem::take(&mut self.value)
    }

    /// Each value the view holds on loan ([`crate::lend`]), and whose it is.
    pub fn lent(&self) -> Vec<(&Value, &crate::lend::Shared)> {
        self.loans.in_doc(&self.value)
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
        api_version: o.api_version().to_string(),
        kind: o.kind().to_string(),
        namespace: o.namespace().map(str::to_string),
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
        queues,
    } = links::link(ix, target);
    let state = facts::work::judge(ix, target, &b.parsed.value(&b.map, ix, target), &pods);
    let linked = links::linked_objects(ix, target, pod, &chain, &b.ids);

    // The facts, stage by stage: each stage reads the subjects and the facts of the stages
    // before it.
    b.map.insert("facts".into(), Value::Object(Map::new()));
    let mut loans = std::mem::take(&mut b.loans);
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
            parsed: &b.parsed,
            linked: &linked,
            queues: &queues,
            state: &state,
            now,
            now_source,
            signals: Default::default(),
            lent: Default::default(),
        };
        facts::registry::build_stage(stage, &ctx, &mut built, &mut loans);
        if let Some(Value::Object(f)) = b.map.get_mut("facts") {
            f.extend(built);
        }
    }
    links::cite_nodes(&mut b, pod_value.as_ref());
    // The cited nodes are lent too: without their loans the view would drop its copies, and
    // the next view would copy them again (a backlog's scan copied 43,000 nodes).
    loans.extend(std::mem::take(&mut b.loans));
    View {
        value: Value::Object(b.map),
        subjects: crate::catalog::SubjectSet::of(
            b.refs.keys().map(String::as_str).chain(["facts"]),
        ),
        refs: b.refs,
        target,
        pod,
        pods: pod_summaries,
        status: state.status,
        settled: state.settled,
        history: state.history,
        not_submitted: ix.not_submitted(target),
        unchecked: if ix.not_submitted(target) {
            unchecked::unchecked(ix, target, &work_pods(ix, target))
        } else {
            Vec::new()
        },
        missing: {
            let mut m = b.missing;
            m.sort();
            m.dedup();
            m
        },
        loans,
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
    // A pod's status is in the index: judging reads the object itself for other kinds only, and
    // reading a pod back from the bundle's text costs more than the rest of its judgement.
    let (v, pods) = match ix.pod(target) {
        Some(_) => (Value::Null, Vec::new()),
        None => (ix.value(target), links::work_pods(ix, target)),
    };
    let w = facts::work::judge(ix, target, &v, &pods);
    (w.status, w.settled)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    /// Views of Workloads in one queue hold its LocalQueue, ClusterQueue and flavors on loan,
    /// each the object as parsed; their own Workload and pod are theirs; a dropped view gives
    /// its copies back, whole, and the next view takes them again.
    #[test]
    fn queue_objects_are_lent_to_every_view_of_their_work() {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/scenarios/kueue-admitted-no-gpu-room/bundle.json"
        ))
        .expect("the scenario's bundle");
        let ix = crate::Index::new(crate::Bundle::parse(text).expect("parses"));
        let job = ix
            .get("batch", "Job", Some("ml"), "trainer")
            .expect("the Job");
        let lent_at = |view: &crate::view::View| -> Vec<String> {
            let mut at: Vec<String> = view
                .value
                .as_object()
                .expect("an object")
                .iter()
                .flat_map(|(k, v)| match v {
                    serde_json::Value::Array(vs) => {
                        (0..vs.len()).map(|i| format!("{k}/{i}")).collect()
                    }
                    _ => vec![k.clone()],
                })
                .filter(|k| {
                    let v = view.value.pointer(&format!("/{k}")).expect("there");
                    view.lent().iter().any(|(l, _)| std::ptr::eq(*l, v))
                })
                .collect();
            at.sort();
            at
        };
        let first = super::build(&ix, job, None);
        let lent = lent_at(&first);
        assert!(lent.contains(&"clusterQueue".to_string()), "{lent:?}");
        assert!(lent.contains(&"localQueue".to_string()), "{lent:?}");
        assert!(
            lent.iter().any(|k| k.starts_with("resourceFlavors/")),
            "{lent:?}"
        );
        assert!(
            !lent
                .iter()
                .any(|k| k == "workload" || k == "pod" || k == "target")
        );
        let Some(super::SubjectRef::One(cq)) = first.refs.get("clusterQueue") else {
            panic!("the ClusterQueue is one object")
        };
        let cq = ix
            .get("kueue.x-k8s.io", &cq.kind, None, &cq.name)
            .expect("in the index");
        assert_eq!(first.value["clusterQueue"], ix.value(cq));
        let whole = first.value.clone();
        drop(first);
        let second = super::build(&ix, job, None);
        assert_eq!(lent_at(&second), lent);
        assert_eq!(second.value, whole, "the copies came back whole");
    }

    /// A Workload's place in a long line: every older pending Workload of its queue counts, a
    /// finished one, a younger one and one of another queue do not, and the names stop at
    /// [`crate::facts::admission::AHEAD_NAMES`], oldest first.
    #[test]
    fn counts_every_workload_ahead_and_names_the_oldest() {
        let wl = |name: &str, queue: &str, minute: u32, reserved: bool| {
            json!({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
                "metadata": {"name": name, "namespace": "ml", "creationTimestamp": format!("2026-11-20T09:{minute:02}:00Z")},
                "spec": {"queueName": queue},
                "status": {"conditions": if reserved { json!([{"type": "QuotaReserved", "status": "True"}]) } else { json!([]) }}})
        };
        let mut items: Vec<serde_json::Value> = (0..40)
            .map(|i| wl(&format!("w{i:02}"), "default", i, false))
            .collect();
        items.push(wl("done", "default", 0, true));
        items.push(wl("other", "other", 0, false));
        // Created in the same second as w29: ahead of it too, whatever the order of names.
        items.push(wl("a-tie", "default", 29, false));
        let text = json!({"apiVersion": "v1", "kind": "List", "items": items}).to_string();
        let ix = crate::Index::new(crate::Bundle::parse(text).expect("parses"));
        let id = ix
            .get("kueue.x-k8s.io", "Workload", Some("ml"), "w29")
            .expect("w29 is in the index");
        let view = crate::view::build(&ix, id, crate::time::parse_rfc3339("2026-11-20T10:00:00Z"));
        let queue = &view.value["facts"]["admission"]["queue"];
        assert_eq!(queue["ahead"], 30, "{queue}");
        let names = queue["aheadNames"].as_array().expect("names");
        assert_eq!(names.len(), crate::facts::admission::AHEAD_NAMES);
        assert_eq!(names[0], "ml/w00");
        assert_eq!(names[15], "ml/w15");
        // "Now" before the Workload was created: only what was pending by then is ahead, and
        // the Workload itself is not among it.
        let early = crate::view::build(&ix, id, crate::time::parse_rfc3339("2026-11-20T09:10:00Z"));
        assert_eq!(early.value["facts"]["admission"]["queue"]["ahead"], 11);
        let first = ix
            .get("kueue.x-k8s.io", "Workload", Some("ml"), "w00")
            .expect("w00 is in the index");
        let first = crate::view::build(
            &ix,
            first,
            crate::time::parse_rfc3339("2026-11-20T10:00:00Z"),
        );
        assert_eq!(first.value["facts"]["admission"]["queue"]["ahead"], 0);
        assert_eq!(
            first.value["facts"]["admission"]["queue"]["aheadNames"],
            json!([])
        );
    }
    /// The ClusterQueue is resolved once, when the view links it: a Workload whose LocalQueue
    /// is not in the bundle but whose `QuotaReserved` message names its ClusterQueue gets that
    /// ClusterQueue as a subject, and the admission facts name the same one and find it (they
    /// used to resolve the name again, finding it named but not linked). The LocalQueue's own
    /// `spec.clusterQueue` wins over the message when the bundle has it.
    #[test]
    fn the_cluster_queue_is_the_one_the_view_links() {
        let bundle = |with_local_queue: bool| {
            let mut items = vec![
                json!({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
                    "metadata": {"name": "job-train", "namespace": "ml"},
                    "spec": {"queueName": "team-a"},
                    "status": {"conditions": [{"type": "QuotaReserved", "status": "False",
                        "reason": "Inadmissible", "message": "ClusterQueue gpu-cq is inactive"}]}}),
                json!({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue",
                    "metadata": {"name": "gpu-cq"}, "spec": {}}),
                json!({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue",
                    "metadata": {"name": "other-cq"}, "spec": {}}),
            ];
            if with_local_queue {
                items.push(
                    json!({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue",
                    "metadata": {"name": "team-a", "namespace": "ml"},
                    "spec": {"clusterQueue": "other-cq"}}),
                );
            }
            let text = json!({"apiVersion": "v1", "kind": "List", "items": items}).to_string();
            crate::Index::new(crate::Bundle::parse(text).expect("parses"))
        };
        for (with_local_queue, want) in [(false, "gpu-cq"), (true, "other-cq")] {
            let ix = bundle(with_local_queue);
            let id = ix
                .get("kueue.x-k8s.io", "Workload", Some("ml"), "job-train")
                .expect("the Workload is in the index");
            let view = crate::view::build(&ix, id, None);
            let linked = &view.value["clusterQueue"]["metadata"]["name"];
            let fact = &view.value["facts"]["admission"]["clusterQueue"];
            assert_eq!(linked, want, "with LocalQueue: {with_local_queue}");
            assert_eq!(fact["name"], want, "{fact}");
            assert_eq!(fact["found"], true, "{fact}");
        }
    }
}
