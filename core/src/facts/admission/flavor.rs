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
// Every phrase of those reasons that names a flavor: `… in flavor <f>, …` and `flavor <f>
// doesn't match node affinity`.
static NAMED: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(r"in flavor ([^\s,;]+)|flavor ([^\s,;]+) doesn't match").expect("static pattern")
});

/// The ResourceFlavors a Kueue flavor-assignment message names, added to `into` (without a
/// sentence's closing full stop).
pub fn flavors_named(msg: &str, into: &mut std::collections::BTreeSet<String>) {
    if !msg.contains("flavor ") {
        return;
    }
    for c in NAMED.captures_iter(msg) {
        if let Some(f) = c.get(1).or_else(|| c.get(2)) {
            into.insert(f.trim_end_matches('.').to_string());
        }
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flavors_a_message_names_in_each_of_kueues_phrasings() {
        let mut got = std::collections::BTreeSet::new();
        flavors_named(
            "couldn't assign flavors to pod set main: insufficient unused quota for nvidia.com/gpu \
             in flavor a100, 8 more needed; untolerated taint {gpu: h100 NoSchedule <nil>} in \
             flavor h100; flavor l4 doesn't match node affinity",
            &mut got,
        );
        assert_eq!(got.into_iter().collect::<Vec<_>>(), ["a100", "h100", "l4"]);
        let mut none = std::collections::BTreeSet::new();
        flavors_named(
            "couldn't assign flavors to pod set main: resource x unavailable",
            &mut none,
        );
        assert!(none.is_empty());
    }
}
