//! Dynamic Resource Allocation as the device layer sees it, at `$.facts.device.dra`: the pod's
//! claims (generated or not), what they request of which DeviceClass, and which drivers publish
//! ResourceSlices on which nodes.

use super::Ctx;
use crate::facts::texts::say;
use crate::json::At as _;
use crate::pattern::Pattern;
use serde::Serialize;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::LazyLock;

static CEL_DRIVER: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(r#"device\.driver\s*==\s*["']([^"']+)["']"#).expect("static pattern")
});

/// The pod's DRA claims and the drivers they need; null when the pod has no
/// `spec.resourceClaims`.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Dra {
    /// One per entry of the pod's `spec.resourceClaims`, in the pod's order.
    pub claims: Vec<DraClaim>,
    /// The DeviceClass names the requests ask for that the bundle holds no DeviceClass of, sorted;
    /// only when the bundle shows a device inventory (a DeviceClass or ResourceSlice) or the
    /// scheduler says the class does not exist.
    pub missing_classes: Vec<String>,
    /// One sentence per claim to be made from a template that is not created yet:
    /// `<entry> (from ResourceClaimTemplate <t>, which exists)` or `…, which is not in the bundle)`.
    pub ungenerated: Vec<String>,
    /// The names of the claims that exist but are not allocated (no `status.allocation`).
    pub unallocated: Vec<String>,
    /// One row per driver the pod needs, sorted by name: a driver its DeviceClasses select, or
    /// the name of a missing class (which is the driver's name for dra-example-driver and
    /// NVIDIA's DRA driver).
    pub drivers: Vec<DraDriver>,
    /// The names of the needed drivers that publish no ResourceSlice.
    pub drivers_without_slices: Vec<String>,
    /// The drivers the pod's DeviceClasses select (`device.driver == "…"` in a CEL selector),
    /// sorted.
    pub class_drivers: Vec<String>,
}

/// One entry of the pod's `spec.resourceClaims`.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct DraClaim {
    /// The entry's `name` in the pod.
    pub entry: String,
    /// The ResourceClaim it stands for: its `resourceClaimName`, or for a template claim the name
    /// the pod's `status.resourceClaimStatuses` records (null until generated).
    pub claim: Option<String>,
    /// Its `resourceClaimTemplateName` (`source.resourceClaimTemplateName` before Kubernetes 1.31).
    pub template: Option<String>,
    /// The template is in the bundle; null without a template.
    pub template_exists: Option<bool>,
    /// The claim has a name (given, or generated from the template).
    pub generated: bool,
    /// The bundle holds the ResourceClaim.
    pub exists: bool,
    /// The ResourceClaim has a `status.allocation`.
    pub allocated: bool,
    /// Its device requests, read from the claim, else from the template's spec: one row per
    /// DeviceClass a request names (`exactly`, v1beta1 or each `firstAvailable` alternative).
    pub requests: Vec<DraRequest>,
}

/// One device request of a claim, against one DeviceClass it names.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct DraRequest {
    /// The request's `name`, as the claim gives it.
    pub name: Value,
    pub device_class_name: String,
    /// The bundle holds the DeviceClass.
    pub class_exists: bool,
    /// The driver the class selects in a CEL selector (`device.driver == "…"`).
    pub driver: Option<String>,
}

/// What the bundle shows of one DRA driver.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct DraDriver {
    pub name: String,
    /// How many ResourceSlices it publishes.
    pub slices: u64,
    /// The nodes its slices are on, sorted (`(all or selected nodes)` for a slice without
    /// `nodeName`).
    pub nodes: Vec<String>,
    /// Worker nodes (no `node-role.kubernetes.io/control-plane` label) without a slice of it, in
    /// name order.
    pub missing_on: Vec<String>,
    /// The same in words, node lists stopping at ten names: `driver <d> publishes N
    /// ResourceSlices on <nodes> but none on <nodes>`, `…, on every worker node (…)` or
    /// `driver <d> publishes no ResourceSlice on any node`.
    pub coverage: String,
    /// It publishes a slice on the pod's node; null when the pod is not bound.
    pub on_bound_node: Option<bool>,
}

/// Slices per driver: how many, and on which nodes.
type SlicesByDriver = BTreeMap<String, (u64, BTreeSet<String>)>;

/// DRA: the pod's claims (generated or not), their requests and classes, and which drivers
/// publish ResourceSlices where.
pub(super) fn dra(ctx: &Ctx, pv: &Value) -> Option<Dra> {
    let ix = ctx.ix;
    let entries = pv.at("/spec/resourceClaims").and_then(Value::as_array);
    let entries = entries.filter(|e| !e.is_empty())?;
    let ns = pv.at("/metadata/namespace").and_then(Value::as_str);
    let bound = pv.at("/spec/nodeName").and_then(Value::as_str);
    // The same for every view: read once.
    let drivers = ix.once("device.sliceDrivers", || slices_by_driver(ctx));
    // Worker nodes (no control-plane label), in name order.
    let workers = ix.once("device.workerNodes", || {
        ix.nodes()
            .values()
            .filter(|n| {
                !n.labels
                    .contains_key("node-role.kubernetes.io/control-plane")
            })
            .map(|n| n.name.clone())
            .collect::<Vec<String>>()
    });
    // A scheduler that judged the pod (PodScheduled=False, Unschedulable, about anything but
    // the claim's creation) had its claims: they exist, whatever a pasted pod's status omits.
    let judged = pv
        .at("/status/conditions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .any(|c| {
            c["type"] == "PodScheduled"
                && c["reason"] == "Unschedulable"
                && !c["message"]
                    .as_str()
                    .is_some_and(|m| m.contains("not created yet"))
        });
    // A bundle with no DeviceClass and no ResourceSlice at all shows no device inventory: a
    // class it lacks was left out of the paste, not missing from the cluster, unless the
    // scheduler says so itself.
    let inventory =
        !ix.of_kind("DeviceClass").is_empty() || !ix.of_kind("ResourceSlice").is_empty();
    let mut claims = Vec::new();
    let mut missing_classes = BTreeSet::new();
    let mut ungenerated = Vec::new();
    let mut unallocated = Vec::new();
    let mut class_drivers = BTreeSet::new();
    // Drivers that allocated one of the pod's claims: they were installed and had slices then.
    let mut allocating_drivers = BTreeSet::new();
    for e in entries {
        let entry = e["name"].as_str().unwrap_or("");
        let template = crate::json::claim_template(e);
        let claim_name = crate::json::claim_name(pv, e);
        let template_exists = template.map(|t| ix.find("ResourceClaimTemplate", ns, t).is_some());
        let claim_id = claim_name
            .as_deref()
            .and_then(|n| ix.find("ResourceClaim", ns, n));
        let generated = claim_name.is_some();
        if let (Some(t), false, false) = (template, generated, judged) {
            let vars = [
                ("entry", Value::from(entry.to_string())),
                ("template", Value::from(t.to_string())),
            ];
            ungenerated.push(if template_exists == Some(true) {
                say("claimFromTemplate", &vars)
            } else {
                say("claimFromMissingTemplate", &vars)
            });
        }
        // Requests come from the claim, else from the template's spec.
        let spec = match claim_id {
            Some(id) => ix.value(id).at("/spec").cloned(),
            None => template
                .and_then(|t| ix.find("ResourceClaimTemplate", ns, t))
                .and_then(|id| ix.value(id).at("/spec/spec").cloned()),
        };
        let allocated = claim_id
            .map(|id| ix.value(id).at("/status/allocation").is_some())
            .unwrap_or(false);
        if let Some(id) = claim_id {
            allocating_drivers.extend(
                ix.value(id)
                    .at("/status/allocation/devices/results")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(|r| r["driver"].as_str().map(str::to_string)),
            );
        }
        if claim_id.is_some() && !allocated {
            unallocated.push(claim_name.clone().unwrap_or_default());
        }
        let mut requests = Vec::new();
        for r in spec
            .as_ref()
            .and_then(|s| s.at("/devices/requests"))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            for c in crate::json::request_device_classes(r) {
                let (exists, driver) = class_driver(ctx, c);
                // An allocated claim had its class and its driver's devices when the scheduler
                // allocated it: a bundle without them is a paste that left them out.
                if !exists && !allocated && (inventory || scheduler_lacks_class(ctx, pv, c)) {
                    missing_classes.insert(c.to_string());
                }
                if let Some(d) = &driver {
                    class_drivers.insert(d.clone());
                }
                requests.push(DraRequest {
                    name: r["name"].clone(),
                    device_class_name: c.to_string(),
                    class_exists: exists,
                    driver,
                });
            }
        }
        claims.push(DraClaim {
            entry: entry.to_string(),
            claim: claim_name,
            template: template.map(str::to_string),
            template_exists,
            generated,
            exists: claim_id.is_some(),
            allocated,
            requests,
        });
    }
    // Drivers the pod needs: named by its classes, or (class missing) the class name itself,
    // which is the driver name for dra-example-driver and NVIDIA's DRA driver.
    let mut needed: BTreeSet<String> = class_drivers.clone();
    needed.extend(missing_classes.iter().cloned());
    // A driver's row is the same for every pod but for `onBoundNode`: built once per index.
    let rows = ix.once("device.driverRows", || {
        drivers
            .iter()
            .map(|(d, (count, nodes))| (d.clone(), driver_row(d, *count, nodes, &workers)))
            .collect::<BTreeMap<String, DraDriver>>()
    });
    let driver_rows: Vec<DraDriver> = needed
        .iter()
        .map(|d| {
            let mut row = rows
                .get(d)
                .cloned()
                .unwrap_or_else(|| driver_row(d, 0, &BTreeSet::new(), &workers));
            row.on_bound_node = bound.map(|b| drivers.get(d).is_some_and(|(_, n)| n.contains(b)));
            row
        })
        .collect();
    let drivers_without_slices = needed
        .iter()
        .filter(|d| drivers.get(*d).is_none_or(|x| x.0 == 0) && !allocating_drivers.contains(*d))
        .cloned()
        .collect();
    Some(Dra {
        claims,
        missing_classes: missing_classes.into_iter().collect(),
        ungenerated,
        unallocated,
        drivers: driver_rows,
        drivers_without_slices,
        class_drivers: class_drivers.into_iter().collect(),
    })
}

/// Every `resource.k8s.io` ResourceSlice's driver: how many slices, on which nodes.
fn slices_by_driver(ctx: &Ctx) -> SlicesByDriver {
    let ix = ctx.ix;
    let mut drivers = SlicesByDriver::new();
    for &s in ix.of_kind("ResourceSlice") {
        if ix.object(s).group() != "resource.k8s.io" {
            continue;
        }
        let Some(spec) = ix.typed::<crate::index::SliceIdx>(s).map(|x| x.spec) else {
            continue;
        };
        let Some(d) = spec.driver.as_ref().and_then(Value::as_str) else {
            continue;
        };
        let e = drivers.entry(d.to_string()).or_default();
        e.0 += 1;
        let node = spec
            .node_name
            .as_ref()
            .and_then(Value::as_str)
            .map(str::to_string)
            .unwrap_or_else(|| "(all or selected nodes)".into());
        e.1.insert(node);
    }
    drivers
}

/// Whether the bundle holds DeviceClass `class`, and the driver its CEL selectors name.
fn class_driver(ctx: &Ctx, class: &str) -> (bool, Option<String>) {
    let ix = ctx.ix;
    match ix
        .named("DeviceClass", class)
        .into_iter()
        .find(|&id| ix.object(id).group() == "resource.k8s.io")
    {
        Some(id) => {
            let v = ix.value(id);
            let d = v
                .at("/spec/selectors")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|s| s.at("/cel/expression").and_then(Value::as_str))
                .find_map(|e| CEL_DRIVER.captures(e).map(|c| c[1].to_string()));
            (true, d)
        }
        None => (false, None),
    }
}

/// What the bundle shows of one DRA driver: its slices, the nodes they are on, and the worker
/// nodes without one (node lists in the sentence stop at ten names). `onBoundNode` is the
/// view's to fill.
fn driver_row(d: &str, count: u64, nodes: &BTreeSet<String>, workers: &[String]) -> DraDriver {
    let missing_on: Vec<String> = workers
        .iter()
        .filter(|n| !nodes.contains(*n))
        .cloned()
        .collect();
    let on = || crate::template::join_names(nodes.iter().map(String::as_str));
    let driver = ("driver", Value::from(d.to_string()));
    let slices = ("count", Value::from(count.to_string()));
    let coverage = match (count, missing_on.is_empty()) {
        (0, _) => say("driverWithoutSlices", &[driver]),
        (_, true) => say(
            "driverOnEveryWorker",
            &[driver, slices, ("nodes", Value::from(on()))],
        ),
        (_, false) => say(
            "driverMissingOn",
            &[
                driver,
                slices,
                ("nodes", Value::from(on())),
                (
                    "missing",
                    Value::from(crate::template::join_names(
                        missing_on.iter().map(String::as_str),
                    )),
                ),
            ],
        ),
    };
    DraDriver {
        name: d.to_string(),
        slices: count,
        nodes: nodes.iter().cloned().collect(),
        missing_on,
        coverage,
        on_bound_node: None,
    }
}

/// Whether the scheduler's words about the pod (its conditions or events) say the DeviceClass
/// does not exist (`device class <c> does not exist`, `deviceclass.resource.k8s.io "<c>" not
/// found`).
fn scheduler_lacks_class(ctx: &Ctx, pv: &Value, class: &str) -> bool {
    let missing = format!("device class {class} does not exist");
    let not_found = format!("deviceclass.resource.k8s.io \"{class}\" not found");
    crate::facts::pods::pod_says(ctx, pv, &[&missing, &not_found])
}

#[cfg(test)]
mod driver_row_tests {
    use super::*;

    #[test]
    fn coverage_names_ten_nodes_and_counts_the_rest() {
        let workers: Vec<String> = (0..40).map(|i| format!("gpu-{i:02}")).collect();
        let with_slices: BTreeSet<String> = workers[..25].iter().cloned().collect();
        let row = driver_row("gpu.example.com", 25, &with_slices, &workers);
        let coverage = &row.coverage;
        assert!(
            coverage.starts_with("driver gpu.example.com publishes 25 ResourceSlices on gpu-00, "),
            "{coverage}"
        );
        assert!(
            coverage.contains("gpu-09, and 15 more but none on gpu-25"),
            "{coverage}"
        );
        assert!(coverage.ends_with("gpu-34, and 5 more"), "{coverage}");
        // The lists themselves stay whole for rules that count them.
        assert_eq!(row.nodes.len(), 25);
        assert_eq!(row.missing_on.len(), 15);
        let none = driver_row("gpu.example.com", 0, &BTreeSet::new(), &workers);
        assert_eq!(
            none.coverage,
            "driver gpu.example.com publishes no ResourceSlice on any node"
        );
    }
}
