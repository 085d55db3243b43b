//! Would Kueue admit work no Kueue controller has seen yet, at `$.facts.admission.intake` and
//! `$.facts.admission.quotaFit`: how Kueue would take the work in (from what `fit` decided),
//! and its Workload's pod sets against the ClusterQueue's quota: per resource the nominal
//! quota, what its cohort could lend, what admitted Workloads use now, and what would be
//! left. Only for work `fit` placed as if submitted; a real Workload has Kueue's own word.

use crate::facts::Num;
use crate::facts::texts::say;
use crate::index::{Index, ObjId};
use crate::json::At as _;
use crate::json::str_at as s;
use serde::Serialize;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// How Kueue would take the work in.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Intake {
    /// Kueue would suspend the work and create a Workload for it.
    pub managed: bool,
    /// Kueue's integration for the kind (`batch/job`, `jobset.x-k8s.io/jobset`, `pod` …).
    pub framework: String,
    /// Why Kueue would not manage it; empty when it would.
    pub reason: String,
}

/// The work's pod sets against its ClusterQueue's quota.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct QuotaFit {
    /// The ClusterQueue the LocalQueue points at.
    pub cluster_queue: String,
    /// Its cohort (`spec.cohort`, `spec.cohortName`); null when it borrows from no one.
    pub cohort: Option<String>,
    /// Where `used` comes from: `clusterQueueStatus` (its `flavorsReservation`, less what fit
    /// set aside) or `workloads` (the admitted Workloads of the bundle).
    pub usage_from: String,
    /// `fitsNow` (a flavor has every request left now), `waitsForQuota` (a flavor could hold
    /// it, none has it left now), `neverFits` (more than any flavor's nominal quota plus what
    /// it may borrow), `noFlavor` (no flavor suits the pods: node labels or taints),
    /// `notCovered` (a resource no flavor covers), `namespaceNotSelected` (the ClusterQueue's
    /// namespaceSelector leaves the namespace out) or `clusterQueueMissing`.
    pub fit: String,
    /// The flavor it would be admitted to (`fitsNow`) or would wait for (`waitsForQuota`).
    pub flavor: Option<String>,
    /// Requested resources no flavor of the ClusterQueue covers.
    pub not_covered: Vec<String>,
    /// The rows that decide: for `fitsNow` every request in the flavor, otherwise those that
    /// do not fit.
    pub rows: Vec<QuotaRow>,
    /// The same rows, each as one sentence.
    pub rows_text: Vec<String>,
    /// Why it would never be admitted, in one sentence; null unless it never would.
    pub never: Option<String>,
    /// The admission checks the ClusterQueue runs before it admits (`spec.admissionChecks`,
    /// `spec.admissionChecksStrategy`): a ProvisioningRequest, MultiKueue. With quota reserved
    /// the Workload would wait for them.
    pub checks: Vec<String>,
}

/// One resource of one flavor.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct QuotaRow {
    pub resource: String,
    pub flavor: String,
    /// What the Workload asks for in all (pods × per-pod request, over its pod sets).
    pub request: Num,
    /// The flavor's `nominalQuota`.
    pub nominal: Num,
    /// What it could borrow from its cohort now (others' unused nominal quota within their
    /// `lendingLimit`, up to its own `borrowingLimit`).
    pub borrowable: Num,
    /// What admitted Workloads use of it now.
    pub used: Num,
    /// `nominal + borrowable - used`, at least 0.
    pub left: Num,
    /// The most it could ever have: `nominal` plus all the cohort could lend, up to
    /// `borrowingLimit`.
    pub maximum: Num,
}

/// How Kueue would take the work in; None unless `fit` placed it.
pub(super) fn intake(ix: &Index, target: ObjId) -> Option<Intake> {
    let k = ix.hypothesis()?.kueue_for(target)?;
    Some(Intake {
        managed: k.managed,
        framework: k.framework.clone(),
        reason: k.reason.clone(),
    })
}

/// The quota fit of a Workload `fit` made; None for any other.
pub(super) fn quota_fit(
    ix: &Index,
    sub: &Map<String, Value>,
    queues: &super::QueueNames,
) -> Option<QuotaFit> {
    let wl = sub.get("workload")?;
    let wl_id = ix.get(
        "kueue.x-k8s.io",
        "Workload",
        s(wl, "/metadata/namespace"),
        s(wl, "/metadata/name")?,
    )?;
    if !ix.not_submitted(wl_id) {
        return None;
    }
    let cq_name = queues.cluster.clone()?;
    let Some(cq) = sub.get("clusterQueue") else {
        return Some(verdict_only(&cq_name, "clusterQueueMissing", None));
    };
    let ns = s(wl, "/metadata/namespace").unwrap_or("default");
    if let Some(sel) = cq.at("/spec/namespaceSelector")
        && let Some(labels) = namespace_labels(ix, ns)
        && !crate::facts::selectors::label_selector_matches(sel, &labels)
    {
        let never = say(
            "quotaNamespaceNotSelected",
            &[("cq", cq_name.clone().into()), ("namespace", ns.into())],
        );
        return Some(verdict_only(&cq_name, "namespaceNotSelected", Some(never)));
    }
    let pod_sets = pod_sets(wl);
    Some(judge(ix, &cq_name, cq, &pod_sets))
}

fn verdict_only(cq: &str, fit: &str, never: Option<String>) -> QuotaFit {
    let never = never.or_else(|| {
        (fit == "clusterQueueMissing")
            .then(|| say("quotaClusterQueueMissing", &[("cq", cq.into())]))
    });
    QuotaFit {
        cluster_queue: cq.to_string(),
        cohort: None,
        usage_from: String::new(),
        fit: fit.to_string(),
        flavor: None,
        not_covered: Vec::new(),
        rows: Vec::new(),
        rows_text: Vec::new(),
        never,
        checks: Vec::new(),
    }
}

/// A Namespace's labels, when the bundle holds it (with the name label the API server sets).
fn namespace_labels(ix: &Index, ns: &str) -> Option<BTreeMap<String, String>> {
    let v = ix.value(ix.get("", "Namespace", None, ns)?);
    let mut labels: BTreeMap<String, String> = v
        .at("/metadata/labels")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
        .collect();
    labels
        .entry("kubernetes.io/metadata.name".into())
        .or_insert_with(|| ns.to_string());
    Some(labels)
}

/// One pod set: how many pods, what each asks for, and the pod template (for flavors' node
/// labels and taints).
struct PodSet {
    count: f64,
    per_pod: BTreeMap<String, f64>,
    template: Value,
}

fn pod_sets(wl: &Value) -> Vec<PodSet> {
    wl.at("/spec/podSets")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|p| PodSet {
            count: p["count"].as_f64().unwrap_or(1.0),
            per_pod: crate::facts::effective_requests(&p["template"]["spec"]),
            template: p["template"].clone(),
        })
        .collect()
}

/// Amount by flavor and resource ([`key`]).
type ByFlavor = BTreeMap<String, f64>;

/// The key of a flavor's resource in [`ByFlavor`] and [`Quotas`]: neither name holds a NUL.
fn key(flavor: &str, resource: &str) -> String {
    format!("{flavor}\0{resource}")
}

/// One flavor's quota of one resource.
#[derive(Clone, Copy)]
struct Quota {
    nominal: f64,
    borrowing_limit: Option<f64>,
    lending_limit: Option<f64>,
}

/// A ClusterQueue's quotas by flavor and resource ([`key`]).
type Quotas = BTreeMap<String, Quota>;

/// A ClusterQueue's resource groups and its quota per flavor and resource.
fn quotas(cq: &Value) -> (Vec<Group>, Quotas) {
    let mut groups = Vec::new();
    let mut q = BTreeMap::new();
    for rg in cq
        .at("/spec/resourceGroups")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let covered: Vec<String> = rg["coveredResources"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|r| r.as_str().map(str::to_string))
            .collect();
        let mut flavors = Vec::new();
        for f in rg["flavors"].as_array().into_iter().flatten() {
            let Some(fname) = f["name"].as_str() else {
                continue;
            };
            flavors.push(fname.to_string());
            for r in f["resources"].as_array().into_iter().flatten() {
                let Some(rname) = r["name"].as_str() else {
                    continue;
                };
                let num = |k: &str| crate::quantity::from_value(&r[k]);
                q.insert(
                    key(fname, rname),
                    Quota {
                        nominal: num("nominalQuota").unwrap_or(0.0),
                        borrowing_limit: num("borrowingLimit"),
                        lending_limit: num("lendingLimit"),
                    },
                );
            }
        }
        groups.push(Group { covered, flavors });
    }
    (groups, q)
}

/// A resource group: the resources it covers and its flavors, in order.
struct Group {
    covered: Vec<String>,
    flavors: Vec<String>,
}

/// What a ClusterQueue reports reserved: `status.flavorsReservation`, else `flavorsUsage`.
fn reported_usage(cq: &Value) -> Option<ByFlavor> {
    let list = cq
        .at("/status/flavorsReservation")
        .or_else(|| cq.at("/status/flavorsUsage"))
        .and_then(Value::as_array)?;
    let mut out = ByFlavor::new();
    for f in list {
        let Some(fname) = f["name"].as_str() else {
            continue;
        };
        for r in f["resources"].as_array().into_iter().flatten() {
            if let (Some(rname), Some(t)) =
                (r["name"].as_str(), crate::quantity::from_value(&r["total"]))
            {
                *out.entry(key(fname, rname)).or_default() += t;
            }
        }
    }
    Some(out)
}

/// What the admitted Workloads of the bundle hold in a ClusterQueue.
fn workload_usage(ix: &Index, cq: &str) -> ByFlavor {
    let mut out = ByFlavor::new();
    for &id in ix.of_kind("Workload") {
        if ix.object(id).group() != "kueue.x-k8s.io" || ix.not_submitted(id) {
            continue;
        }
        let w = ix.value(id);
        let reserved = w
            .at("/status/conditions")
            .and_then(Value::as_array)
            .is_some_and(|cs| {
                cs.iter()
                    .any(|c| c["type"] == "QuotaReserved" && c["status"] == "True")
            });
        if !reserved || s(&w, "/status/admission/clusterQueue") != Some(cq) {
            continue;
        }
        for psa in w
            .at("/status/admission/podSetAssignments")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            for (r, q) in psa["resourceUsage"].as_object().into_iter().flatten() {
                if let (Some(f), Some(q)) = (
                    psa["flavors"][r.as_str()].as_str(),
                    crate::quantity::from_value(q),
                ) {
                    *out.entry(key(f, r)).or_default() += q;
                }
            }
        }
    }
    out
}

/// Usage of one ClusterQueue, and where it was read.
fn usage(ix: &Index, name: &str, cq: &Value) -> (ByFlavor, &'static str) {
    match reported_usage(cq) {
        Some(mut u) => {
            // The cluster's copy of the work fit judges anew still counts in the status.
            for (c, f, r, q) in ix
                .hypothesis()
                .map(|h| h.set_aside_usage.as_slice())
                .unwrap_or(&[])
            {
                if c == name
                    && let Some(x) = u.get_mut(&key(f, r))
                {
                    *x = (*x - q).max(0.0);
                }
            }
            (u, "clusterQueueStatus")
        }
        None => (workload_usage(ix, name), "workloads"),
    }
}

fn cohort_of(cq: &Value) -> Option<String> {
    s(cq, "/spec/cohortName")
        .or_else(|| s(cq, "/spec/cohort"))
        .map(str::to_string)
}

/// What the other ClusterQueues of the cohort could lend, per flavor and resource: now (their
/// unused nominal quota within `lendingLimit`) and at most (their `lendingLimit`, else all of
/// their nominal quota).
fn cohort_lending(ix: &Index, me: &str, cohort: &str) -> (ByFlavor, ByFlavor) {
    let (mut now, mut most) = (ByFlavor::new(), ByFlavor::new());
    for &id in ix.of_kind("ClusterQueue") {
        let o = ix.object(id);
        if o.group() != "kueue.x-k8s.io" || o.name == me {
            continue;
        }
        let v = ix.value(id);
        if cohort_of(&v).as_deref() != Some(cohort) {
            continue;
        }
        let (_, q) = quotas(&v);
        let (used, _) = usage(ix, &o.name, &v);
        for (k, quota) in q {
            let nominal = quota.nominal;
            let lendable = quota.lending_limit.unwrap_or(nominal).min(nominal);
            let unused = (nominal - used.get(&k).copied().unwrap_or(0.0)).max(0.0);
            *now.entry(k.clone()).or_default() += unused.min(lendable);
            *most.entry(k).or_default() += lendable;
        }
    }
    (now, most)
}

/// Whether a flavor suits every pod set: its node labels do not contradict their
/// nodeSelector, and they tolerate its node taints.
fn flavor_suits(ix: &Index, flavor: &str, sets: &[PodSet]) -> bool {
    let Some(f) = ix
        .get("kueue.x-k8s.io", "ResourceFlavor", None, flavor)
        .map(|id| ix.value(id))
    else {
        return true;
    };
    let labels = f.at("/spec/nodeLabels").and_then(Value::as_object);
    let taints: Vec<crate::index::Taint> = f
        .at("/spec/nodeTaints")
        .and_then(|t| serde_json::from_value(t.clone()).ok())
        .unwrap_or_default();
    sets.iter().all(|p| {
        let selector = p
            .template
            .at("/spec/nodeSelector")
            .and_then(Value::as_object);
        let labels_ok = match (labels, selector) {
            (Some(l), Some(sel)) => sel
                .iter()
                .all(|(k, v)| l.get(k).is_none_or(|have| have == v)),
            _ => true,
        };
        let tols = p
            .template
            .at("/spec/tolerations")
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice);
        labels_ok
            && crate::index::untolerated(tols, taints.iter().filter(|t| t.is_hard()))
                .next()
                .is_none()
    })
}

/// The quota verdict of the pod sets in ClusterQueue `cq`.
fn judge(ix: &Index, name: &str, cq: &Value, sets: &[PodSet]) -> QuotaFit {
    let mut request: BTreeMap<String, f64> = BTreeMap::new();
    for p in sets {
        for (r, q) in &p.per_pod {
            *request.entry(r.clone()).or_default() += q * p.count;
        }
        *request.entry("pods".into()).or_default() += p.count;
    }
    request.retain(|_, q| *q > 0.0);
    let (groups, q) = quotas(cq);
    let cohort = cohort_of(cq);
    let (used, usage_from) = usage(ix, name, cq);
    let (lend_now, lend_most) = cohort
        .as_deref()
        .map(|c| cohort_lending(ix, name, c))
        .unwrap_or_default();
    // `pods` counts only when a group covers it; other resources must be covered.
    let covered = |r: &str| groups.iter().any(|g| g.covered.iter().any(|c| c == r));
    let not_covered: Vec<String> = request
        .keys()
        .filter(|r| r.as_str() != "pods" && !covered(r))
        .cloned()
        .collect();
    request.retain(|r, _| covered(r));
    let row = |f: &str, r: &str, want: f64| {
        let k = key(f, r);
        // A covered resource a flavor lists no quota for has none, and borrows none.
        let quota = q.get(&k).copied().unwrap_or(Quota {
            nominal: 0.0,
            borrowing_limit: Some(0.0),
            lending_limit: None,
        });
        let (nominal, borrowing) = (quota.nominal, quota.borrowing_limit);
        let cap = |x: f64| borrowing.map_or(x, |b| x.min(b));
        let borrowable = if cohort.is_some() {
            cap(lend_now.get(&k).copied().unwrap_or(0.0))
        } else {
            0.0
        };
        let most = if cohort.is_some() {
            cap(lend_most.get(&k).copied().unwrap_or(0.0))
        } else {
            0.0
        };
        let u = used.get(&k).copied().unwrap_or(0.0);
        QuotaRow {
            resource: r.to_string(),
            flavor: f.to_string(),
            request: Num(want),
            nominal: Num(nominal),
            borrowable: Num(borrowable),
            used: Num(u),
            left: Num((nominal + borrowable - u).max(0.0)),
            maximum: Num(nominal + most),
        }
    };
    let mut fit = "fitsNow";
    let mut flavor = None;
    let mut rows = Vec::new();
    let rank = |f: &str| match f {
        "fitsNow" => 0,
        "waitsForQuota" => 1,
        "neverFits" => 2,
        _ => 3,
    };
    for g in &groups {
        let wanted: Vec<(&String, f64)> = request
            .iter()
            .filter(|(r, _)| g.covered.contains(r))
            .map(|(r, q)| (r, *q))
            .collect();
        if wanted.is_empty() {
            continue;
        }
        let suits: Vec<&String> = g
            .flavors
            .iter()
            .filter(|f| flavor_suits(ix, f, sets))
            .collect();
        let all = |f: &str, ok: &dyn Fn(&QuotaRow) -> bool| {
            wanted.iter().all(|(r, w)| ok(&row(f, r, *w)))
        };
        let now = suits.iter().find(|f| all(f, &|x| x.request.0 <= x.left.0));
        let ever = suits
            .iter()
            .find(|f| all(f, &|x| x.request.0 <= x.maximum.0));
        let (g_fit, g_flavor) = match (now, ever, suits.first()) {
            (Some(f), _, _) => ("fitsNow", Some(*f)),
            (None, Some(f), _) => ("waitsForQuota", Some(*f)),
            (None, None, Some(f)) => ("neverFits", Some(*f)),
            (None, None, None) => ("noFlavor", None),
        };
        // The rows that decide: all for a fit, else those that do not fit.
        let keep = |x: &QuotaRow| match g_fit {
            "waitsForQuota" => x.request.0 > x.left.0,
            "neverFits" => x.request.0 > x.maximum.0,
            _ => true,
        };
        if rank(g_fit) >= rank(fit) {
            if rank(g_fit) > rank(fit) {
                rows.clear();
            }
            fit = g_fit;
            flavor = g_flavor.cloned();
            if let Some(f) = g_flavor {
                rows.extend(
                    wanted
                        .iter()
                        .map(|(r, w)| row(f, r, *w))
                        .filter(|x| keep(x)),
                );
            }
        }
    }
    if !not_covered.is_empty() {
        fit = "notCovered";
        flavor = None;
        rows.clear();
    }
    let rows_text: Vec<String> = rows.iter().map(row_text).collect();
    let never = match fit {
        "neverFits" => Some(say(
            "quotaNeverFits",
            &[
                ("cq", name.into()),
                ("rows", Value::from(rows_text.join("; "))),
            ],
        )),
        "noFlavor" => Some(say("quotaNoFlavor", &[("cq", name.into())])),
        "notCovered" => Some(say(
            "quotaNotCovered",
            &[
                ("cq", name.into()),
                ("resources", Value::from(not_covered.join(", "))),
            ],
        )),
        _ => None,
    };
    QuotaFit {
        cluster_queue: name.to_string(),
        cohort,
        usage_from: usage_from.to_string(),
        fit: fit.to_string(),
        flavor,
        not_covered,
        rows,
        rows_text,
        never,
        checks: admission_checks(cq),
    }
}

/// The admission checks a ClusterQueue names, in both of its spellings.
fn admission_checks(cq: &Value) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let names = cq
        .at("/spec/admissionChecks")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .chain(
            cq.at("/spec/admissionChecksStrategy/admissionChecks")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|c| c["name"].as_str()),
        );
    for n in names {
        if !out.iter().any(|o| o == n) {
            out.push(n.to_string());
        }
    }
    out
}

fn row_text(r: &QuotaRow) -> String {
    let n = |x: &Num| Value::from(crate::facts::human_quantity(&r.resource, x.0));
    say(
        "quotaRow",
        &[
            ("resource", r.resource.clone().into()),
            ("flavor", r.flavor.clone().into()),
            ("request", n(&r.request)),
            ("left", n(&r.left)),
            ("nominal", n(&r.nominal)),
            ("borrowable", n(&r.borrowable)),
            ("used", n(&r.used)),
            ("maximum", n(&r.maximum)),
        ],
    )
}
