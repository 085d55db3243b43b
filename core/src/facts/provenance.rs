//! `$.facts.selectorSource`: who wrote the node labels a pending pod requires that no node
//! carries. The scheduler only reports "didn't match Pod's node affinity/selector"; the layer of
//! the cause is whoever put the requirement there: Kueue, which copies the admitted
//! ResourceFlavor's labels into the pods (admission), or a group controller that pins every pod
//! of a group to its leader's topology domain (grouping). A requirement the work's own template
//! already had is the user's, and stays placement's.

use super::Ctx;
use crate::json::At as _;
use serde::Serialize;
use serde_json::Value;

/// The group annotations that name a topology key the group's controller pins its pods to.
const EXCLUSIVE_TOPOLOGY: &[(&str, &str)] = &[
    ("alpha.jobset.sigs.k8s.io/exclusive-topology", "JobSet"),
    (
        "leaderworkerset.sigs.k8s.io/exclusive-topology",
        "LeaderWorkerSet",
    ),
    (
        "leaderworkerset.sigs.k8s.io/subgroup-exclusive-topology",
        "LeaderWorkerSet",
    ),
];

/// Required node labels no node meets, by who injected them.
#[derive(Debug, Clone, Default, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct SelectorSource {
    /// `key=value` labels a ResourceFlavor of the bundle carries (in `spec.nodeLabels`, or in
    /// its own `metadata.labels`, which Kueue v0.2 copied too) and no node does.
    pub flavor: Vec<String>,
    /// The ResourceFlavors they come from.
    pub flavors: Vec<String>,
    /// `key=value` requirements on the group's exclusive-topology key that no node meets: an
    /// empty value (the leader's domain unknown when the pod was made) or a domain no node has.
    pub exclusive: Vec<String>,
    /// The group kind whose controller pins the pods (`JobSet`, `LeaderWorkerSet`).
    pub group: Option<String>,
    /// `key=value` requirements on a topology level of the domain Kueue's topology-aware
    /// scheduling assigned the pod's pod set (`topologyAssignment.levels`), which no node meets
    /// together with the rest of the pod's requirements: TAS chose a domain the pod cannot use.
    pub topology: Vec<String>,
}

/// None when the pod is bound, or every label it requires is met (or unknown: no nodes).
pub fn fact(ctx: &Ctx) -> Option<SelectorSource> {
    let pv = ctx.pod_value()?;
    if pv.at("/spec/nodeName").and_then(Value::as_str).is_some() {
        return None;
    }
    let tables = ctx.ix.node_tables();
    // Without nodes in the bundle, the scheduler's own words say that none matches.
    let no_nodes = tables.nodes.is_empty() && !scheduler_says_unmatched(ctx, &pv);
    let required = super::required_node_labels(&pv);
    let unmet: Vec<(String, String)> = required
        .iter()
        .filter(|&(k, vals)| tables.with_label_in(k, vals).is_empty())
        .cloned()
        .flat_map(|(k, vals)| vals.into_iter().map(move |v| (k.clone(), v)))
        .collect();
    let mut out = SelectorSource::default();
    let tas_levels = tas_levels(ctx, &pv);
    let exclusive = EXCLUSIVE_TOPOLOGY.iter().find_map(|(a, kind)| {
        let key = pv.at(&format!("/metadata/annotations/{}", a.replace('/', "~1")))?;
        Some((key.as_str()?.to_string(), *kind))
    });
    for (k, v) in &unmet {
        let label = format!("{k}={v}");
        if let Some((key, kind)) = &exclusive
            && key == k
            && (v.is_empty() || !no_nodes)
        {
            out.exclusive.push(label);
            out.group = Some(kind.to_string());
            continue;
        }
        // Kueue writes a flavor's labels only into work it admitted.
        if no_nodes || !kueue_work(ctx) {
            continue;
        }
        if tas_levels.contains(&k.as_str()) {
            out.topology.push(label);
            continue;
        }
        let from: Vec<String> = flavors_with(ctx, k, v);
        if !from.is_empty() {
            out.flavor.push(label);
            for f in from {
                if !out.flavors.contains(&f) {
                    out.flavors.push(f);
                }
            }
        }
    }
    // Each label is on some node, yet no node has them all: the domain TAS assigned and the
    // pod's own requirements do not overlap (a leader whose selector TAS never checked).
    if unmet.is_empty()
        && !tas_levels.is_empty()
        && kueue_work(ctx)
        && scheduler_says_unmatched(ctx, &pv)
        && !meets_all(&tables, &required)
    {
        out.topology = required
            .iter()
            .filter(|(k, _)| tas_levels.contains(&k.as_str()))
            .flat_map(|(k, vals)| vals.iter().map(move |v| format!("{k}={v}")))
            .collect();
    }
    (!out.flavor.is_empty() || !out.exclusive.is_empty() || !out.topology.is_empty()).then_some(out)
}

/// Whether one node carries every required label (one of the values of each key).
fn meets_all(tables: &crate::index::NodeTables, required: &[(String, Vec<String>)]) -> bool {
    let mut sets = required
        .iter()
        .map(|(k, vals)| tables.with_label_in(k, vals));
    let Some(first) = sets.next() else {
        return true;
    };
    let mut common = first;
    for set in sets {
        common.retain(|n| set.binary_search(n).is_ok());
    }
    !common.is_empty()
}

/// The node label keys of the topology levels Kueue assigned the pod's pod set (every pod
/// set's when the pod does not name its own): the keys Kueue's TAS writes into the pods'
/// nodeSelector when it ungates them. Read in both shapes (v1beta1 `domains`, v1beta2
/// `slices`): only `levels` is needed.
fn tas_levels<'v>(ctx: &'v Ctx, pod: &Value) -> Vec<&'v str> {
    let podset = pod
        .at("/metadata/labels/kueue.x-k8s.io~1podset")
        .and_then(Value::as_str);
    let Some(wl) = ctx.subjects.get("workload") else {
        return Vec::new();
    };
    wl.at("/status/admission/podSetAssignments")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|a| podset.is_none_or(|p| a["name"].as_str() == Some(p)))
        .filter_map(|a| a.at("/topologyAssignment/levels").and_then(Value::as_array))
        .flatten()
        .filter_map(Value::as_str)
        .collect()
}

/// The ResourceFlavors whose node labels (or own labels) hold `key=value`.
fn flavors_with(ctx: &Ctx, key: &str, value: &str) -> Vec<String> {
    let ix = ctx.ix;
    ix.of_kind("ResourceFlavor")
        .iter()
        .filter(|&&id| ix.object(id).group() == "kueue.x-k8s.io")
        .filter(|&&id| {
            let f = ix.value(id);
            ["/spec/nodeLabels", "/metadata/labels"]
                .iter()
                .any(|p| f.at(p).and_then(|l| l.get(key)).and_then(Value::as_str) == Some(value))
        })
        .map(|&id| ix.object(id).name.to_string())
        .collect()
}

/// Whether Kueue handles the pod's work: a Workload of it, or a queue name on it or its owners.
fn kueue_work(ctx: &Ctx) -> bool {
    ctx.subjects.get("workload").is_some() || ctx.queues.local.is_some()
}

/// The scheduler's refusal of the pod names its node selector or affinity (condition or event).
fn scheduler_says_unmatched(ctx: &Ctx, pv: &Value) -> bool {
    super::pods::pod_says(ctx, pv, &["didn't match Pod's node affinity/selector"])
}
