//! The one table of facts: every key under `$.facts`, the function that builds it and its file,
//! what it means, and (with the `schema` feature) its JSON Schema, taken from the builder's
//! return type. The view builds `$.facts` from this table and nothing else; `docs/view.md`,
//! the rule pages' "Facts it reads" and the check of every rule path are generated from it. A
//! fact added anywhere else is not in the view.

use super::{Ctx, to_json};
use serde_json::{Map, Value};

/// When a fact is built. A fact may read (as JSON, under `ctx.subjects["facts"]`) the facts of
/// earlier stages, never of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Stage {
    /// From the linked objects alone.
    Work,
    /// May read the work facts (the scheduler's message, the group).
    Derived,
    /// The layers' facts, which may read all the above.
    Area,
}

/// One entry of the table.
pub struct FactDef {
    /// The key under `$.facts`.
    pub name: &'static str,
    /// The function that builds it, from the crate root (`facts::device::facts`).
    pub built_by: &'static str,
    /// That function's file, from the repository root.
    pub source: &'static str,
    /// What it means, for the docs.
    pub meaning: &'static str,
    pub stage: Stage,
    pub(crate) build: fn(&Ctx) -> Value,
    #[cfg(feature = "schema")]
    pub(crate) schema: fn(&mut schemars::SchemaGenerator) -> schemars::Schema,
}

#[cfg(feature = "schema")]
fn schema_of_lending<T: schemars::JsonSchema>(
    _builder: fn(&Ctx) -> super::Lending<T>,
    generator: &mut schemars::SchemaGenerator,
) -> schemars::Schema {
    generator.subschema_for::<T>()
}

#[cfg(feature = "schema")]
fn schema_of<T: schemars::JsonSchema>(
    _builder: fn(&Ctx) -> T,
    generator: &mut schemars::SchemaGenerator,
) -> schemars::Schema {
    generator.subschema_for::<T>()
}

/// An entry whose builder is `$build` (a function `fn(&Ctx) -> T`, `T: Serialize +
/// JsonSchema`): the table learns the fact's type from the function itself, so the schema
/// cannot drift from what is built.
macro_rules! fact {
    ($name:literal, $stage:ident, $module:ident :: $build:ident, $source:literal, $meaning:literal) => {
        FactDef {
            name: $name,
            built_by: concat!("facts::", stringify!($module), "::", stringify!($build)),
            source: $source,
            meaning: $meaning,
            stage: Stage::$stage,
            build: |ctx| to_json(&super::$module::$build(ctx)),
            #[cfg(feature = "schema")]
            schema: |g| schema_of(super::$module::$build, g),
        }
    };
    // A builder returning [`super::Lending`]: the fact's type is what it lends parts of.
    (lending $name:literal, $stage:ident, $module:ident :: $build:ident, $source:literal, $meaning:literal) => {
        FactDef {
            name: $name,
            built_by: concat!("facts::", stringify!($module), "::", stringify!($build)),
            source: $source,
            meaning: $meaning,
            stage: Stage::$stage,
            build: |ctx| super::$module::$build(ctx).into_json(ctx),
            #[cfg(feature = "schema")]
            schema: |g| schema_of_lending(super::$module::$build, g),
        }
    };
}

/// Every fact, in the order the docs list them.
pub static FACTS: &[FactDef] = &[
    fact!(
        "target",
        Work,
        work::target,
        "core/src/facts/work.rs",
        "the target's kubectl-like status and what kind of work it is"
    ),
    fact!(
        "scheduler",
        Work,
        work::scheduler,
        "core/src/facts/work.rs",
        "the pod's `schedulerName` (`default-scheduler` when unset); null without a pod"
    ),
    fact!(
        "scheduling",
        Work,
        scheduling::fact,
        "core/src/facts/scheduling.rs",
        "the scheduler's last word (PodScheduled message, else the newest FailedScheduling / KAI Unschedulable event) parsed: kube-scheduler's `0/N nodes are available: …. preemption: …` in every 1.30–1.36 variant (both taint forms, PreFilter sentences, DRA post-filter text) and KAI's `no nodes with enough resources were found: …`"
    ),
    fact!(
        "resources",
        Derived,
        resources::fact,
        "core/src/facts/resources.rs",
        "per extended resource the pod asks for (names with `/`, plus any the scheduler called insufficient; a KAI `gpu-fraction` counts as `nvidia.com/gpu`): what nodes advertise and hold"
    ),
    fact!(
        "group",
        Work,
        group::fact,
        "core/src/facts/group.rs",
        "the pod's group: an LWS group (size from `leaderworkerset.sigs.k8s.io/size`), a JobSet (Σ replicas × parallelism), or a PodGroup (`minMember`)"
    ),
    fact!(
        "gang",
        Work,
        group::gang,
        "core/src/facts/group.rs",
        "the pod's gang PodGroup (KAI, Volcano, scheduler-plugins) against its own `minMember`: members in the bundle, finished, live and waiting, and whether fewer can ever run than the minimum"
    ),
    fact!(
        "selectorSource",
        Work,
        provenance::fact,
        "core/src/facts/provenance.rs",
        "for a pod not yet bound: the node labels it requires that no node carries, by who wrote them (a Kueue ResourceFlavor, a group's exclusive-topology pinning)"
    ),
    fact!(
        "gangMinimum",
        Work,
        gang_minimum::fact,
        "core/src/facts/gang_minimum.rs",
        "the view's gang PodGroup against its own members: the resources whose `minResources` asks more than the `minMember` members asking least of them need together"
    ),
    fact!(
        "queueCapability",
        Work,
        queue_capability::fact,
        "core/src/facts/queue_capability.rs",
        "the pod's Volcano gang against its Queue's `spec.capability`: the resources whose gang minimum (`minResources`, else the members' requests) exceeds the cap"
    ),
    fact!(
        "jobSet",
        Work,
        jobset::fact,
        "core/src/facts/jobset.rs",
        "the JobSet of the work: its replicated jobs against the child Jobs that exist"
    ),
    fact!(
        "fakeGpu",
        Work,
        fake_gpu::fact,
        "core/src/facts/fake_gpu.rs",
        "fake-gpu-operator's configured pools (ConfigMap `topology`, key `topology.yml`, legacy `gpuCount` or `gpu.overrides.devices`) against what each pool node advertises"
    ),
    fact!(
        "installed",
        Work,
        work::installed,
        "core/src/facts/work.rs",
        "which APIs the bundle shows at all"
    ),
    fact!(
        "now",
        Work,
        work::now,
        "core/src/facts/work.rs",
        "the \"now\" used (option, collection time, or newest timestamp), RFC 3339"
    ),
    fact!(
        "podAge",
        Work,
        work::pod_age,
        "core/src/facts/work.rs",
        "the pod's age at \"now\", in seconds"
    ),
    fact!(
        "podWaited",
        Work,
        work::pod_waited,
        "core/src/facts/work.rs",
        "how long the pod has waited, as a message quotes it (`300 s`): over a minute, or any age when \"now\" is only the newest time in a pasted bundle (a lower bound)"
    ),
    fact!(
        "nowSource",
        Work,
        work::now_source,
        "core/src/facts/work.rs",
        "where \"now\" came from: against the newest time in a pasted bundle an age is only a lower bound, so a rule that waits for something to be old must not read a young age as proof"
    ),
    fact!(
        "signals",
        Work,
        signals::fact,
        "core/src/facts/signals.rs",
        "the generic evidence floor: every Warning event, failing condition, KAI scheduling condition, failing container state and error field on the objects of the work, attributed to a layer by the one table in `core/src/attribution.rs`"
    ),
    fact!(
        "floor",
        Work,
        signals::floor,
        "core/src/facts/signals.rs",
        "per layer, the first current signal and how many more: what the `<layer>/reported-failure` rules quote"
    ),
    fact!(
        "component",
        Derived,
        component::component,
        "core/src/facts/component.rs",
        "the target as one of the registry's components (`rules/components.yaml`: the device plugin, the toolkit, Kueue's controller, a scheduler, an endpoint picker …), the layer it serves, and how it fails now: `notPlaced`, `notStarted` or `ownTerms` with the deciding signal's words"
    ),
    fact!(
        "deviceAdvertised",
        Area,
        device::advertised,
        "core/src/facts/device/mod.rs",
        "what the nodes advertise of each device resource, whatever the view's pod (work with no pod yet)"
    ),
    fact!(
        "volcano",
        Area,
        placement::volcano,
        "core/src/facts/placement/mod.rs",
        "the Volcano queue the work names (Job or PodGroup `spec.queue`, pod annotation) and whether its capability leaves out `pods`"
    ),
    fact!(
        lending "device",
        Area,
        device::facts,
        "core/src/facts/device/mod.rs",
        "GPU-labelled nodes that advertise nothing, allocatable below capacity, device-plugin and GPU Operator pods and ClusterPolicy state, shared-resource renames, GFD label values the selector asks for, fake-gpu pools and plugin crashes, DRA claims, classes, slices per driver and node"
    ),
    fact!(
        "admission",
        Area,
        admission::facts,
        "core/src/facts/admission/mod.rs",
        "queue name and where the label is; LocalQueue/ClusterQueue found, active, reason; whether Kueue objects exist; JobSet/LWS CRD age against now; no-conditions and workloads ahead; eviction, preemption and the preemptor; requeue timing; deactivation; admission checks not ready; the parsed flavor-assignment message; scheduling gates split into Kueue's and others'"
    ),
    fact!(
        "grouping",
        Area,
        grouping::facts,
        "core/src/facts/grouping/mod.rs",
        "JobSet restarts and leftovers, the replicated job being waited on; LWS leader state, worker StatefulSet, recreate events; FailedCreate on child Jobs/StatefulSets (webhook and Service named); the group's device request against eligible nodes; Grove PodGang and gated pods"
    ),
    fact!(
        "submission",
        Area,
        admission::submission,
        "core/src/facts/admission/api.rs",
        "for work `fit` placed as if submitted: the PriorityClass its pods name and the namespace's ResourceQuotas against what its pods ask, as the API server's admission would judge them"
    ),
    fact!(
        lending "placement",
        Area,
        placement::facts,
        "core/src/facts/placement/mod.rs",
        "untolerated taints (ten rows per distinct taint, every node named) and the missing toleration, for a pod not yet bound to a node; selector labels and who carries them; cordoned nodes (likewise); scheduler silence (the scheduling gates are admission's); containers adding up; volumes; KAI queue limit, parent queue, stale conditions; reservation namespaces; gang groups"
    ),
    fact!(
        "runtime",
        Area,
        runtime::facts,
        "core/src/facts/runtime/mod.rs",
        "container states (waiting/terminated reasons, exit codes, messages), probe and sandbox events, FailedCreate of the owner (RuntimeClass not found)"
    ),
    fact!(
        "serving",
        Area,
        serving::facts,
        "core/src/facts/serving/mod.rs",
        "the DGD's pods by component and Ready frontends/workers; what asks for NATS and whether it exists; InferencePool parent conditions, EPP Service, matched and Ready pods; simulators requesting GPUs"
    ),
];

/// The fact of this key.
pub fn fact(name: &str) -> Option<&'static FactDef> {
    FACTS.iter().find(|f| f.name == name)
}

/// Every key, for error messages.
pub fn fact_names() -> String {
    FACTS.iter().map(|f| f.name).collect::<Vec<_>>().join(", ")
}

/// Build the facts of one stage into `out`; what they hold on loan is added to `loans`, at its
/// place under `$.facts`.
pub(crate) fn build_stage(
    stage: Stage,
    ctx: &Ctx,
    out: &mut Map<String, Value>,
    loans: &mut crate::lend::Loans,
) {
    for def in FACTS.iter().filter(|f| f.stage == stage) {
        out.insert(def.name.to_string(), (def.build)(ctx));
        let lent = ctx.lent.take();
        if !lent.is_empty() {
            loans.extend(lent.under(&format!("/facts/{}", def.name)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One hop from a fact to its code: each entry's file exists and defines its function,
    /// and no key is registered twice.
    #[test]
    fn every_fact_names_a_function_in_its_file() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        for (i, f) in FACTS.iter().enumerate() {
            assert!(!FACTS[..i].iter().any(|x| x.name == f.name), "{}", f.name);
            let text = std::fs::read_to_string(root.join(f.source))
                .unwrap_or_else(|e| panic!("{}: {}: {e}", f.name, f.source));
            let function = f.built_by.rsplit("::").next().unwrap_or_default();
            assert!(
                text.contains(&format!("pub fn {function}(")),
                "{}: no `pub fn {function}` in {}",
                f.name,
                f.source
            );
            let module = f.built_by.split("::").nth(1).unwrap_or_default();
            assert!(
                f.source.contains(&format!("facts/{module}")),
                "{}: {} is not the file of module {module}",
                f.name,
                f.source
            );
        }
    }
}
