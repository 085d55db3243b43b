//! Scheduling gates and who owns them. A gate (`spec.schedulingGates`) keeps a pod away from
//! every scheduler until the controller that put it there removes it; the gate's name is the
//! only sign of who that is. This table names the owner, the layer its decision belongs to and
//! what it waits for, so a gated pod is judged by the layer that holds it, not by the
//! scheduler that is not allowed to look at it.

use crate::layer::Layer;
use serde_json::Value;

/// One gate (or every gate under a prefix ending in `/`) and its owner.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GateOwner {
    /// The gate's name, or a prefix ending in `/` for every gate of that owner.
    pub gate: &'static str,
    /// The layer whose decision the gate waits for.
    pub layer: Layer,
    /// The component that removes it (an id of `rules/components.yaml`).
    pub owner: &'static str,
    /// Where its issues go.
    pub project: &'static str,
    /// What the owner waits for before it removes the gate.
    pub until: &'static str,
}

/// The gates of the components the tool knows, narrow entries first.
pub const GATES: &[GateOwner] = &[
    GateOwner {
        gate: "kueue.x-k8s.io/",
        layer: Layer::Admission,
        owner: "kueue",
        project: "kubernetes-sigs/kueue",
        until: "Kueue admits the workload (and, for topology, assigns its domain)",
    },
    GateOwner {
        gate: "grove.io/podgang-pending-creation",
        layer: Layer::Grouping,
        owner: "grove-operator",
        project: "ai-dynamo/grove",
        until: "Grove has created the PodGang the pod belongs to",
    },
    GateOwner {
        gate: "grove.io/gate-old-pending-pods",
        layer: Layer::Grouping,
        owner: "grove-operator",
        project: "ai-dynamo/grove",
        until: "Grove's rolling update of the PodCliqueSet replaces the pod",
    },
    GateOwner {
        gate: "scheduling.volcano.sh/queue-allocation-gate",
        layer: Layer::Admission,
        owner: "volcano",
        project: "volcano-sh/volcano",
        until: "the Volcano scheduler finds room for the pod in its Queue's capacity",
    },
];

/// The owner of `gate`, if the table knows it.
pub fn owner(gate: &str) -> Option<&'static GateOwner> {
    GATES.iter().find(|g| {
        if g.gate.ends_with('/') {
            gate.starts_with(g.gate)
        } else {
            gate == g.gate
        }
    })
}

/// The names of a pod's scheduling gates, as its JSON holds them.
pub fn on_pod(pod: &Value) -> impl Iterator<Item = &str> {
    pod.pointer("/spec/schedulingGates")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|g| g["name"].as_str())
}

/// Whether Kueue owns `gate` (its admission, topology and elastic-job gates).
pub fn kueues(gate: &str) -> bool {
    owner(gate).is_some_and(|o| o.owner == "kueue")
}

/// How a signal about a gated pod words the gate, so attribution can read it back.
pub const HELD_BY: &str = "held by scheduling gate ";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gates_have_owners_by_name_or_prefix() {
        assert_eq!(
            owner("kueue.x-k8s.io/admission").map(|g| g.layer),
            Some(Layer::Admission)
        );
        assert_eq!(
            owner("kueue.x-k8s.io/topology").map(|g| g.owner),
            Some("kueue")
        );
        assert_eq!(
            owner("grove.io/podgang-pending-creation").map(|g| g.layer),
            Some(Layer::Grouping)
        );
        assert_eq!(
            owner("scheduling.volcano.sh/queue-allocation-gate").map(|g| g.owner),
            Some("volcano")
        );
        // A name is matched whole; only a prefix entry takes what follows it.
        assert_eq!(owner("grove.io/podgang-pending-creation-x"), None);
        assert_eq!(owner("checkpoint.example.com/restore"), None);
    }

    #[test]
    fn every_owner_is_a_component_of_the_registry() {
        for g in GATES {
            let c = crate::components::registry()
                .iter()
                .find(|c| c.id == g.owner);
            assert!(c.is_some(), "{}: owner {} is no component", g.gate, g.owner);
            assert_eq!(c.map(|c| c.project.as_str()), Some(g.project), "{}", g.gate);
        }
    }
}
