//! Facts of the grouping layer, at `$.facts.grouping`: null when the work is not a JobSet, a
//! LeaderWorkerSet or made by Grove.
//!
//! Every field is documented on [`GroupingFacts`] and its parts, from which `docs/view.md` and
//! the schema rule paths are checked against are generated. Each part is built in its own file:
//! the JobSet's progress (`jobset`), the LeaderWorkerSet's group (`lws`), whether the whole group
//! fits (`fit`) and Grove's gang (`grove`); the controllers' create failures are built here.

mod fit;
mod grove;
mod jobset;
mod lws;

pub use fit::GroupFit;
pub use grove::GroveGang;
pub use jobset::{GroupingJobSet, ReplicatedJobReadiness};
pub use lws::{GroupingLws, LwsLeader, LwsRollout, LwsSubGroup, LwsWorkerStatefulSet};

use super::Ctx;
use crate::index::{Index, ObjId};
use crate::json::At as _;
use serde::Serialize;
use serde_json::Value;

/// What the grouping layer shows of the work: the JobSet or LeaderWorkerSet it belongs to, what
/// their controllers failed to create, whether the whole group could fit, and Grove's gang.
/// A key is present only when it applies.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct GroupingFacts {
    /// The view's JobSet (subject `jobSet`); absent when there is none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub job_set: Option<GroupingJobSet>,
    /// The view's LeaderWorkerSet (subject `lws`), seen from the view's pod's group; absent when
    /// there is none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lws: Option<GroupingLws>,
    /// Warning `FailedCreate` (and JobSet `JobCreationFailed`) events on the group's
    /// controllers: the JobSet and its child Jobs; the LWS, its leader StatefulSet and the
    /// group's worker StatefulSet. Present (maybe empty) whenever `jobSet` or `lws` is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub create_failures: Option<Vec<GroupCreateFailure>>,
    /// Whether the whole group could ever fit, per device resource the view's pod asks for
    /// (`$.facts.resources`). Present with `jobSet` or `lws` when `$.facts.group` is an LWS or
    /// JobSet group of more than one pod and the view has a pod.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fit: Option<Vec<GroupFit>>,
    /// Grove's gang, for pods made by Grove (a `grove.io/podgang` label or Grove's scheduling
    /// gate on the view's pod or `$.pods`); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grove: Option<GroveGang>,
}

/// One Warning event of a group's controller that says it could not create a Job or pod.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct GroupCreateFailure {
    /// The controller's kind: `JobSet`, `Job`, `LeaderWorkerSet` or `StatefulSet`.
    pub kind: String,
    /// The controller's name.
    pub name: String,
    /// The event's reason: `FailedCreate` or `JobCreationFailed`.
    pub reason: String,
    /// The event's message.
    pub message: String,
    /// The event's count (at least 1).
    pub count: u64,
    /// The admission webhook the message names (`failed calling webhook "<webhook>"`).
    pub webhook: Option<String>,
    /// The Service the message names as having no endpoints (`no endpoints available for
    /// service "<service>"`): the webhook's backend is down.
    pub service: Option<String>,
}

/// The grouping layer's facts for one view: none when the work has no JobSet, no
/// LeaderWorkerSet and no Grove gang.
pub fn facts(ctx: &Ctx) -> Option<GroupingFacts> {
    let ix = ctx.ix;
    let mut failures = Vec::new();
    let job_set = subject_id(ctx, "jobSet", "jobset.x-k8s.io", "JobSet").map(|js| {
        failures.extend(create_failures(ix, js));
        for c in crate::facts::child_jobs(ix, js) {
            failures.extend(create_failures(ix, c));
        }
        jobset::job_set(ix, js)
    });
    let lws = subject_id(ctx, "lws", "leaderworkerset.x-k8s.io", "LeaderWorkerSet").map(|id| {
        let (fact, controllers) = lws::lws(ctx, id);
        failures.extend(create_failures(ix, id));
        for c in controllers {
            failures.extend(create_failures(ix, c));
        }
        fact
    });
    let grouped = job_set.is_some() || lws.is_some();
    let fit = if grouped {
        let topology = lws.as_ref().and_then(|l| l.exclusive_topology.as_deref());
        fit::group_fit(ctx, topology)
    } else {
        None
    };
    let grove = grove::grove(ctx);
    (grouped || grove.is_some()).then(|| GroupingFacts {
        job_set,
        lws,
        create_failures: grouped.then_some(failures),
        fit,
        grove,
    })
}

/// The object of a view subject, as the view linked it, when it is of this group and kind.
fn subject_id(ctx: &Ctx, subject: &str, group: &str, kind: &str) -> Option<ObjId> {
    ctx.id(subject).filter(|&id| {
        let o = ctx.ix.object(id);
        o.kind() == kind && o.group() == group
    })
}

/// A label's value, empty ones included (unlike `crate::json::label`): an empty group index or
/// PodGang name is kept as written.
fn label<'v>(v: &'v Value, key: &str) -> Option<&'v str> {
    v.at("/metadata/labels")
        .and_then(|l| l.get(key))
        .and_then(Value::as_str)
}

/// What a failed creation names, by the controllers' words: the LWS controller's worker
/// StatefulSet is named after its leader pod, the StatefulSet controller names the pod.
const MADE_NAMES: &[(&str, &str)] = &[("for leader pod ", "StatefulSet"), ("create Pod ", "Pod")];

/// Whether the object a failed creation names is in the bundle: the controller retried and
/// made it (the real LWS controller reports a worker StatefulSet it then creates on its next
/// pass), so the failure is past.
fn made_since(ix: &Index, namespace: Option<&str>, message: &str) -> bool {
    MADE_NAMES.iter().any(|(marker, kind)| {
        let name = message
            .find(marker)
            .map(|i| &message[i + marker.len()..])
            .and_then(|rest| rest.split([' ', ':', ',']).next())
            .filter(|n| !n.is_empty());
        let group = if *kind == "Pod" { "" } else { "apps" };
        name.is_some_and(|n| ix.get(group, kind, namespace, n).is_some())
    })
}

fn quoted_after(msg: &str, marker: &str) -> Option<String> {
    msg.find(marker)
        .map(|i| &msg[i + marker.len()..])
        .and_then(|rest| rest.split('"').next())
        .map(str::to_string)
}

fn create_failures(ix: &Index, id: ObjId) -> Vec<GroupCreateFailure> {
    let o = ix.object(id);
    ix.events_about(id)
        .into_iter()
        .map(|(_, e)| e)
        .filter(|e| {
            e.type_ == "Warning" && (e.reason == "FailedCreate" || e.reason == "JobCreationFailed")
        })
        .filter(|e| !made_since(ix, o.namespace(), &e.message))
        .map(|e| GroupCreateFailure {
            kind: o.kind().to_string(),
            name: o.name.clone(),
            webhook: quoted_after(&e.message, "failed calling webhook \""),
            service: quoted_after(&e.message, "no endpoints available for service \""),
            reason: e.reason,
            message: e.message,
            count: e.count.max(1),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::made_since;
    use crate::bundle::Bundle;
    use crate::index::Index;
    use serde_json::json;

    fn index(items: serde_json::Value) -> Index {
        let list = json!({"apiVersion": "v1", "kind": "List", "items": items});
        Index::new(Bundle::parse(list.to_string()).expect("parses"))
    }

    #[test]
    fn a_failed_creation_is_past_once_what_it_names_exists() {
        // The real LWS controller's words when a pass races the one that creates the worker
        // StatefulSet (seen in the lab, one run in three).
        let lws = "Failed to create worker statefulset for leader pod infer-0";
        let made = index(json!([{"apiVersion": "apps/v1", "kind": "StatefulSet",
            "metadata": {"name": "infer-0", "namespace": "serve"}}]));
        assert!(made_since(&made, Some("serve"), lws));
        assert!(!made_since(&made, Some("other"), lws));
        let elsewhere = index(json!([{"apiVersion": "apps/v1", "kind": "StatefulSet",
            "metadata": {"name": "infer-1", "namespace": "serve"}}]));
        assert!(!made_since(&elsewhere, Some("serve"), lws));
        // The StatefulSet controller names the pod it could not create.
        let sts = "create Pod infer-0-1 in StatefulSet infer-0 failed error: pods \"infer-0-1\" is forbidden";
        let pod = index(json!([{"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "infer-0-1", "namespace": "serve"}}]));
        assert!(made_since(&pod, Some("serve"), sts));
        assert!(!made_since(&made, Some("serve"), sts));
        // A message naming nothing it made is never past.
        assert!(!made_since(
            &made,
            Some("serve"),
            "Error creating: pods is forbidden"
        ));
    }
}
