//! Grove's gang of the view's pods, at `$.facts.grouping.grove`: the PodGang they name, whether
//! it is in the bundle, and which pods still wait for it behind Grove's scheduling gate.

use super::{Ctx, label};
use serde::Serialize;

/// The scheduling gate Grove puts on its pods until it has created their PodGang.
const GATE: &str = "grove.io/podgang-pending-creation";

/// The PodGang of pods made by Grove.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct GroveGang {
    /// Grove's scheduling gate, `grove.io/podgang-pending-creation`.
    pub gate: String,
    /// The PodGang named by the first `grove.io/podgang` label among the view's pods (`pod`,
    /// then `$.pods`); null when none carries one.
    pub pod_gang: Option<String>,
    /// Whether a `scheduler.grove.io` PodGang of that name is in the bundle, in the pod's
    /// namespace; null without `podGang`.
    pub pod_gang_found: Option<bool>,
    /// The view's pods that still carry the gate.
    pub gated_pods: Vec<String>,
}

/// Grove's gang of the view's pods; none when no pod carries the label or the gate.
pub(super) fn grove(ctx: &Ctx) -> Option<GroveGang> {
    let pods = ctx.view_pods();
    let mut gang: Option<(String, Option<String>)> = None;
    let mut gated = Vec::new();
    for &(p, v) in &pods {
        let has_gate = crate::gates::on_pod(v).any(|g| g == GATE);
        let name = label(v, "grove.io/podgang");
        if !has_gate && name.is_none() {
            continue;
        }
        if has_gate {
            gated.push(ctx.ix.object(p).name.clone());
        }
        if let Some(n) = name
            && gang.is_none()
        {
            gang = Some((
                n.to_string(),
                ctx.ix.object(p).namespace().map(str::to_string),
            ));
        }
    }
    if gang.is_none() && gated.is_empty() {
        return None;
    }
    let found = gang.as_ref().map(|(n, ns)| {
        ctx.ix
            .get("scheduler.grove.io", "PodGang", ns.as_deref(), n)
            .is_some()
    });
    Some(GroveGang {
        gate: GATE.to_string(),
        pod_gang: gang.map(|g| g.0),
        pod_gang_found: found,
        gated_pods: gated,
    })
}
