//! The parts of Kueue's `QuotaReserved=False` flavor-assignment message a rule needs, at
//! `$.facts.admission.flavorAssignment`.

use crate::pattern::Pattern;
use serde::Serialize;
use std::sync::LazyLock;

// Kueue's flavor-assignment reasons (`pkg/scheduler/flavorassigner/flavorassigner.go`). The
// "exceeds" form is matched loosely: v0.13 wrote `request > maximum capacity (%s > %s)`, v0.15+
// `previously considered podsets requests (%s) + current podset request (%s) > maximum capacity (%s)`.
static UNAVAILABLE: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(r"resource (\S+) unavailable in ClusterQueue").expect("static pattern")
});
static EXCEEDS: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(
        r"insufficient quota for (\S+) in flavor (\S+?),[^;]*?(?:current podset request \(([^)]*)\) )?> maximum capacity \(([^)]*)\)",
    )
    .expect("static pattern")
});
static TAINT: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(r"untolerated taint (\{[^}]*\}|\S+) in flavor (\S+?)(?:,|;|$)")
        .expect("static pattern")
});
static AFFINITY: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(r"flavor (\S+) doesn't match node affinity").expect("static pattern")
});
static PODSET: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(r"couldn't assign flavors to pod set (\S+?):").expect("static pattern")
});

/// Why Kueue could not assign a flavor, parsed from the Workload's `QuotaReserved=False`
/// message. Each list holds distinct values in message order and may be empty.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct FlavorAssignment {
    /// The pod sets named by `couldn't assign flavors to pod set <name>:`.
    pub pod_sets: Vec<String>,
    /// Resources no flavor of the ClusterQueue covers (`resource <name> unavailable in
    /// ClusterQueue`).
    pub unavailable_resources: Vec<String>,
    /// Requests larger than a flavor's quota can ever hold (`insufficient quota for <resource>
    /// in flavor <flavor>, … > maximum capacity (<maximum>)`), one per occurrence.
    pub exceeds_maximum: Vec<ExceedsMaximum>,
    /// The taints of `untolerated taint <taint> in flavor <flavor>`, as the message writes them
    /// (`{key: value}` or a bare word).
    pub untolerated_taints: Vec<String>,
    /// The flavors of those taints.
    pub tainted_flavors: Vec<String>,
    /// Flavors whose node labels the pods' required node affinity rejects (`flavor <name>
    /// doesn't match node affinity`).
    pub affinity_mismatch_flavors: Vec<String>,
}

/// One request over a flavor's maximum capacity.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ExceedsMaximum {
    /// The resource asked for, e.g. `nvidia.com/gpu`.
    pub resource: String,
    /// The ResourceFlavor whose quota it exceeds.
    pub flavor: String,
    /// The current pod set's request, as Kueue v0.15+ writes it (`current podset request
    /// (<request>)`); null in the older wording.
    pub request: Option<String>,
    /// The flavor's maximum capacity, as the message writes it.
    pub maximum: String,
}

/// The parts of a `QuotaReserved=False` flavor-assignment message a rule needs.
pub(super) fn flavor_assignment(msg: &str) -> FlavorAssignment {
    let list = |re: &Pattern, g: usize| -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for c in re.captures_iter(msg) {
            if let Some(m) = c.get(g) {
                let v = m.trim_end_matches(['.', ',']).to_string();
                if !out.contains(&v) {
                    out.push(v);
                }
            }
        }
        out
    };
    let exceeds = EXCEEDS
        .captures_iter(msg)
        .map(|c| {
            let g = |i: usize| c.get(i).map(str::to_string);
            // Groups 1, 2 and 4 are not optional: a match always has them.
            ExceedsMaximum {
                resource: g(1).unwrap_or_default(),
                flavor: g(2).unwrap_or_default(),
                request: g(3),
                maximum: g(4).unwrap_or_default(),
            }
        })
        .collect();
    FlavorAssignment {
        pod_sets: list(&PODSET, 1),
        unavailable_resources: list(&UNAVAILABLE, 1),
        exceeds_maximum: exceeds,
        untolerated_taints: list(&TAINT, 1),
        tainted_flavors: list(&TAINT, 2),
        affinity_mismatch_flavors: list(&AFFINITY, 1),
    }
}
