//! Targets: resolving what the user named (`pod/x`, `lws/y`, `trainer-0`) to an object, listing
//! candidate targets, and `scan` (every piece of work that is not running).

use crate::diagnosis::{SCHEMA_VERSION, ScanReport, TargetEntry};
use crate::engine::{Engine, Options};
use crate::error::TargetError;
use crate::index::{Index, ObjId};
use crate::lang::Words;
use crate::view::object_ref;

/// What the user asked for: an optional kind (any spelling kubectl accepts), an optional
/// namespace and a name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TargetSpec {
    pub kind: Option<String>,
    pub namespace: Option<String>,
    pub name: String,
}

impl TargetSpec {
    /// Parse `KIND/NAME` or `NAME` (a bare name is a pod), or the web page's `Kind/ns/name`.
    pub fn parse(s: &str, namespace: Option<&str>) -> TargetSpec {
        let parts: Vec<&str> = s.split('/').collect();
        match parts.as_slice() {
            [name] => TargetSpec {
                kind: Some("pod".into()),
                namespace: namespace.map(str::to_string),
                name: (*name).to_string(),
            },
            [kind, name] => TargetSpec {
                kind: Some((*kind).to_string()),
                namespace: namespace.map(str::to_string),
                name: (*name).to_string(),
            },
            [kind, ns, name] => TargetSpec {
                kind: Some((*kind).to_string()),
                namespace: if ns.is_empty() {
                    namespace.map(str::to_string)
                } else {
                    Some((*ns).to_string())
                },
                name: (*name).to_string(),
            },
            _ => TargetSpec {
                kind: None,
                namespace: namespace.map(str::to_string),
                name: s.to_string(),
            },
        }
    }
}

/// Does a user's kind spelling name this object's kind? Case-insensitive by kind, plural or
/// short name, optionally group-qualified (`podgroups.scheduling.run.ai`).
pub fn kind_matches(spelling: &str, kind: &str, api_version: &str) -> bool {
    let s = spelling.to_ascii_lowercase();
    let (word, group) = match s.split_once('.') {
        Some((w, g)) => (w.to_string(), Some(g.to_string())),
        None => (s.clone(), None),
    };
    if let Some(g) = group
        && crate::bundle::group_of(api_version) != g
    {
        return false;
    }
    let k = kind.to_ascii_lowercase();
    if word == k || word == format!("{k}s") || (k.ends_with('s') && word == format!("{k}es")) {
        return true;
    }
    crate::kinds::KINDS
        .iter()
        .any(|k| k.kind.eq_ignore_ascii_case(kind) && k.names.contains(&word.as_str()))
}

/// Whether a spelling names any kind we know of (for a clear usage error).
pub fn known_kind(spelling: &str, ix: &Index) -> bool {
    let word = spelling
        .split('.')
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    crate::kinds::spellings().any(|n| n == word)
        || ix.kinds().iter().any(|k| kind_matches(spelling, k, ""))
        || ix
            .bundle()
            .objects()
            .iter()
            .any(|o| kind_matches(spelling, o.kind(), o.api_version()))
        || named_without_object(spelling, ix)
}

/// Whether the bundle names the kind without holding an object of it: an owner reference to
/// something missing, or the subject of an event (a pasted TFJob's events, without the TFJob).
/// Read only when a target is not found, so the events' text is parsed then and not before.
fn named_without_object(spelling: &str, ix: &Index) -> bool {
    (0..ix.bundle().objects().len()).any(|id| {
        ix.unresolved_owner_refs(id)
            .any(|r| kind_matches(spelling, &r.kind, &r.api_version))
            || ix
                .event(id)
                .is_some_and(|e| kind_matches(spelling, &e.involved_kind, &e.involved_api_version))
    })
}

/// Resolve a target in the bundle.
pub fn resolve(ix: &Index, spec: &TargetSpec) -> Result<ObjId, TargetError> {
    let what = match &spec.kind {
        Some(k) => format!("{k}/{}", spec.name),
        None => spec.name.clone(),
    };
    let what = match &spec.namespace {
        Some(ns) => format!("{what} in namespace {ns}"),
        None => what,
    };
    let kind_ok = |id: ObjId| {
        let o = ix.object(id);
        spec.kind
            .as_deref()
            .is_none_or(|k| kind_matches(k, o.kind(), o.api_version()))
    };
    let mut hits: Vec<ObjId> = ix
        .bundle()
        .objects()
        .iter()
        .enumerate()
        .filter(|(_, o)| o.name == spec.name && o.kind() != "Event")
        .map(|(id, _)| id)
        .filter(|&id| kind_ok(id))
        .filter(|&id| {
            spec.namespace
                .as_deref()
                .is_none_or(|ns| ix.object(id).namespace().is_none_or(|n| n == ns))
        })
        .collect();
    if hits.len() > 1 && spec.kind.is_none() {
        // A bare name prefers pods, then work kinds.
        let pods: Vec<ObjId> = hits
            .iter()
            .copied()
            .filter(|&id| ix.object(id).kind() == "Pod")
            .collect();
        if !pods.is_empty() {
            hits = pods;
        }
    }
    match hits.len() {
        1 => Ok(hits[0]),
        0 => {
            if let Some(k) = &spec.kind
                && !known_kind(k, ix)
            {
                return Err(TargetError::UnknownKind {
                    kind: k.clone(),
                    closest: closest_kind(k),
                });
            }
            Err(TargetError::NotFound {
                what,
                closest: closest(ix, spec),
            })
        }
        _ => {
            let mut candidates = ambiguous_candidates(ix, &hits);
            candidates.sort();
            Err(TargetError::Ambiguous { what, candidates })
        }
    }
}

/// The objects a target matches, as one can paste them after `why`: `Kind/namespace/name`,
/// and `Kind.group/namespace/name` where another of them has the same kind, namespace and name
/// in another API group (a kueue.x-k8s.io Workload and a scheduling.k8s.io one), so that every
/// candidate names one object.
fn ambiguous_candidates(ix: &Index, hits: &[ObjId]) -> Vec<String> {
    let plain: Vec<(String, &str)> = hits
        .iter()
        .map(|&id| (object_ref(ix, id).target_value(), ix.object(id).group()))
        .collect();
    plain
        .iter()
        .map(|(value, group)| {
            let twin = plain.iter().any(|(v, g)| v == value && g != group);
            match value.split_once('/') {
                Some((kind, rest)) if twin && !group.is_empty() => format!("{kind}.{group}/{rest}"),
                _ => value.clone(),
            }
        })
        .collect()
}

/// Up to five names of the same kind closest to what was asked for, after any work object of
/// another kind with exactly that name (`why trainer` when `trainer` is a Job: a bare name is
/// a pod, and the Job is what was meant).
fn closest(ix: &Index, spec: &TargetSpec) -> Vec<String> {
    let mut scored: Vec<(usize, String)> = ix
        .bundle()
        .objects()
        .iter()
        .enumerate()
        .filter(|(_, o)| o.kind() != "Event")
        .filter(|&(id, o)| {
            spec.kind
                .as_deref()
                .is_none_or(|k| kind_matches(k, o.kind(), o.api_version()))
                || (o.name == spec.name && is_work(ix, id))
        })
        .map(|(_, o)| {
            let d = levenshtein(&o.name, &spec.name);
            // As one would type it after `why`: a shell word each, the namespace as -n.
            let kind = o.kind().to_ascii_lowercase();
            let shown = match &o.namespace() {
                Some(ns) => format!(
                    "{}/{} -n {}",
                    crate::template::shell_quote(&kind),
                    crate::template::shell_quote(&o.name),
                    crate::template::shell_quote(ns)
                ),
                None => format!(
                    "{}/{}",
                    crate::template::shell_quote(&kind),
                    crate::template::shell_quote(&o.name)
                ),
            };
            let bonus = usize::from(!(o.name.contains(&spec.name) || spec.name.contains(&o.name)));
            (d + bonus * 2, shown)
        })
        .filter(|(d, _)| *d <= spec.name.len().max(4))
        .collect();
    scored.sort();
    scored.into_iter().take(5).map(|(_, s)| s).collect()
}

/// The kind spelling nearest to a mistyped one (`jb` → `job`, `jobsets` → `jobset`), when one is
/// near enough to be what was meant: at most two edits, and fewer than the word's length.
fn closest_kind(spelling: &str) -> Option<String> {
    let word = spelling.to_ascii_lowercase();
    crate::kinds::spellings()
        .map(|n| (levenshtein(&word, n), n))
        .filter(|(d, n)| *d <= 2 && *d < word.len().max(n.len()) && *d < word.len())
        .min()
        .map(|(_, n)| n.to_string())
}

fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != *cb))
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

fn is_work(ix: &Index, id: ObjId) -> bool {
    let o = ix.object(id);
    crate::kinds::is_work(o.group(), o.kind())
}

/// The topmost work object above an object (through any owners), if any. Owners that form a
/// cycle (a hand-edited or hostile bundle: Job a owns Job b owns Job a) have no top: the
/// lowest-numbered work object of the cycle stands for it, so scan still lists the work once.
pub fn top_work(ix: &Index, id: ObjId) -> Option<ObjId> {
    let chain = ix.owner_chain(id);
    let last = chain.last().copied().unwrap_or(id);
    let cycle_start = ix.owners(last).first().and_then(|&next| {
        std::iter::once(id)
            .chain(chain.iter().copied())
            .position(|o| o == next)
    });
    if let Some(start) = cycle_start {
        let members: Vec<ObjId> = std::iter::once(id)
            .chain(chain.iter().copied())
            .skip(start)
            .collect();
        let top = members.iter().copied().filter(|&o| is_work(ix, o)).min();
        if let Some(top) = top {
            return (top != id).then_some(top);
        }
    }
    chain.into_iter().rfind(|&o| is_work(ix, o))
}

/// Whether scan lists this object as a piece of work: a top-level work object, or a pod without
/// a work owner (a Kueue Workload owned by a job is the job's business).
fn is_work_item(ix: &Index, id: ObjId) -> bool {
    let o = ix.object(id);
    let is_pod = o.kind() == "Pod" && o.group().is_empty();
    let owned_workload = o.kind() == "Workload" && ix.has_owner_refs(id);
    (is_pod || (is_work(ix, id) && !owned_workload)) && top_work(ix, id).is_none()
}

/// Scan's list of work: each top-level work object that is not settled, and each pod without a
/// work owner that is neither Running-and-Ready nor Succeeded.
/// (object, status, settled) for each item, in id order, judged on up to `threads` threads:
/// judging reads each piece of work and finds its pods, a pass over the whole bundle that
/// held up every diagnosis of a scan.
pub fn work_items(ix: &Index, threads: usize) -> Vec<(ObjId, String, bool)> {
    const SPAN: usize = 1024;
    let n = ix.bundle().objects().len();
    crate::par::map(n.div_ceil(SPAN), threads, 1, |span| {
        (span * SPAN..((span + 1) * SPAN).min(n))
            .filter(|&id| is_work_item(ix, id))
            .map(|id| {
                let (status, settled) = crate::view::status_of(ix, id);
                (id, status, settled)
            })
            .collect::<Vec<_>>()
    })
    .into_iter()
    .flatten()
    .collect()
}

/// Every candidate target with its rank, in the order [`targets`] keeps equal ones. Rank 0:
/// what scan lists (top-level work, ownerless pods). Rank 1: what lies below it (owned
/// Workloads, child Jobs, worker StatefulSets). Rank 2: their pods.
fn candidates(ix: &Index) -> Vec<(u8, ObjId)> {
    let objects = ix.bundle().objects();
    let listed: Vec<bool> = (0..objects.len()).map(|id| is_work_item(ix, id)).collect();
    let mut out: Vec<(u8, ObjId)> = (0..objects.len())
        .filter(|&id| listed[id])
        .map(|id| (0, id))
        .collect();
    for (id, o) in objects.iter().enumerate() {
        let pod = o.kind() == "Pod" && o.group().is_empty();
        // Pod-making owners that are not work of their own still explain pod-less failures
        // (a ReplicaSet whose pods are rejected at creation).
        let owner = o.group() == "apps" && matches!(o.kind().as_str(), "ReplicaSet" | "DaemonSet");
        if listed[id] || !(pod || owner || is_work(ix, id)) {
            continue;
        }
        out.push((if pod { 2 } else { 1 }, id));
    }
    out
}

fn entry(ix: &Index, id: ObjId, status: String, settled: bool) -> TargetEntry {
    let r = object_ref(ix, id);
    TargetEntry {
        value: r.target_value(),
        kind: r.kind,
        api_version: r.api_version,
        namespace: r.namespace,
        name: r.name,
        status,
        needs_attention: !settled,
    }
}

/// Candidate targets: work that needs attention first, then the rest; each with its status.
pub fn targets(ix: &Index) -> Vec<TargetEntry> {
    let mut ranked: Vec<(u8, TargetEntry)> = candidates(ix)
        .into_iter()
        .map(|(rank, id)| {
            let (status, settled) = crate::view::status_of(ix, id);
            (rank, entry(ix, id, status, settled))
        })
        .collect();
    ranked.sort_by(|(ra, a), (rb, b)| {
        (!a.needs_attention, ra, &a.namespace, &a.kind, &a.name).cmp(&(
            !b.needs_attention,
            rb,
            &b.namespace,
            &b.kind,
            &b.name,
        ))
    });
    ranked.into_iter().map(|(_, e)| e).collect()
}

/// `targets(ix)[0]` without judging every candidate: the candidates in the list's order but for
/// whether they need attention, judged one by one until one does (else the first of all). On a
/// cluster of thousands of pods the first unsettled piece of work comes early, so the page can
/// show its verdict before the whole list is built.
pub fn first_target(ix: &Index) -> Option<TargetEntry> {
    let mut order = candidates(ix);
    // Stable, like the sort in `targets`: ties keep the candidates' order in both.
    order.sort_by(|&(ra, a), &(rb, b)| {
        let (oa, ob) = (ix.object(a), ix.object(b));
        (ra, &oa.namespace(), &oa.kind(), &oa.name).cmp(&(
            rb,
            &ob.namespace(),
            &ob.kind(),
            &ob.name,
        ))
    });
    let mut first = None;
    for (_, id) in order {
        let (status, settled) = crate::view::status_of(ix, id);
        if !settled {
            return Some(entry(ix, id, status, settled));
        }
        first.get_or_insert_with(|| entry(ix, id, status, settled));
    }
    first
}

/// Diagnose every piece of work that is not settled, ordered by blocking layer (layer order,
/// blocked before warn), then namespace, then name.
pub fn scan(engine: &Engine, ix: &Index, opts: &Options) -> ScanReport {
    scan_namespace(engine, ix, opts, None)
}

/// [`scan`] of the work in one namespace only (all of it for `None`): the same diagnoses as
/// the whole scan's for that namespace, without diagnosing the rest.
pub fn scan_namespace(
    engine: &Engine,
    ix: &Index,
    opts: &Options,
    namespace: Option<&str>,
) -> ScanReport {
    let (work, any_work) = scan_work(ix, opts, namespace);
    let diagnoses = scan_each(engine, ix, opts, &work, |d| d);
    let lines: Vec<_> = diagnoses
        .iter()
        .map(crate::scan_lines::ScanLine::of)
        .collect();
    ScanReport {
        schema_version: SCHEMA_VERSION.into(),
        groups: crate::groups::of_lines(&lines),
        diagnoses,
        incomplete: crate::reads::of_scan(ix, any_work, Words::of(engine.lang())),
    }
}

/// [`scan_namespace`] as the JSON text of its report, each diagnosis written on the thread
/// that made it and held packed (see [`crate::scan_json`]). A backlog's report is larger than
/// its bundle (14,496 diagnoses from a 66 MB bundle), and holding every diagnosis as Rust
/// values until the last one is sorted cost twice the memory of holding its compact text.
pub fn scan_json(
    engine: &Engine,
    ix: &Index,
    opts: &Options,
    namespace: Option<&str>,
) -> crate::scan_json::ScanJson {
    let (work, any_work) = scan_work(ix, opts, namespace);
    // The first piece of work's diagnosis is what the others are packed against: made once
    // more below if it is listed, which costs one diagnosis of thousands.
    let dictionary = work.first().map_or_else(String::new, |&(id, _)| {
        crate::scan_json::compact(&engine.diagnose(ix, id, opts))
    });
    let parts = scan_each(engine, ix, opts, &work, |d| {
        crate::scan_json::Part::of(&d, &dictionary)
    });
    let incomplete = crate::reads::of_scan(ix, any_work, Words::of(engine.lang()));
    crate::scan_json::ScanJson::new(dictionary, parts, crate::par::threads(opts.threads))
        .with_incomplete(incomplete)
}

/// [`scan_namespace`] as the listing scan's text, Markdown and Prometheus outputs print: each
/// diagnosis cut down to its line on the thread that made it (see [`crate::scan_lines`]).
pub fn scan_lines(
    engine: &Engine,
    ix: &Index,
    opts: &Options,
    namespace: Option<&str>,
) -> crate::scan_lines::ScanLines {
    let (work, any_work) = scan_work(ix, opts, namespace);
    let lines = scan_each(engine, ix, opts, &work, |d| {
        crate::scan_lines::ScanLine::of(&d)
    });
    listing(engine, ix, any_work, lines)
}

/// A scan's listing of `lines`, with what failed reads left unjudged.
fn listing(
    engine: &Engine,
    ix: &Index,
    any_work: bool,
    lines: Vec<crate::scan_lines::ScanLine>,
) -> crate::scan_lines::ScanLines {
    crate::scan_lines::ScanLines {
        lines,
        incomplete: crate::reads::of_scan(ix, any_work, Words::of(engine.lang())),
    }
}

/// [`scan_lines`] for the outputs that print the work grouped by cause (scan's default text
/// and Markdown, [`crate::groups`]): the same groups, counts, namespaces, queue lines and
/// examples, byte for byte. Each piece of work is judged by its verdict line
/// ([`Engine::verdict_line`]: the view and the finding rules, not the words of every finding,
/// layer and moment); only the work a group names as an example is then diagnosed whole, for
/// its headline. The other lines' headlines are empty: this listing is for grouping only, never
/// for a line-per-work output (`--all`, `-o wide`, Prometheus use [`scan_lines`]).
pub fn scan_group_lines(
    engine: &Engine,
    ix: &Index,
    opts: &Options,
    namespace: Option<&str>,
) -> crate::scan_lines::ScanLines {
    use crate::scan_lines::ScanLine;
    let (work, any_work) = scan_work(ix, opts, namespace);
    // (id, whether the line is already a whole diagnosis's, the line). A verdict line's
    // headline is empty; a line taken for one is only diagnosed again, to the same line.
    let judged = scan_each_by(
        ix,
        opts,
        &work,
        |id| {
            engine
                .verdict_line(ix, id, opts)
                .unwrap_or_else(|| engine.diagnose(ix, id, opts))
        },
        |id, d| (id, !d.verdict.headline.is_empty(), ScanLine::of(&d)),
    );
    // A group's examples are its first lines in the report's order: as `groups::of_lines`
    // takes them.
    let mut named: std::collections::HashMap<crate::groups::GroupKey, usize> = Default::default();
    let lines = judged
        .into_iter()
        .map(|(id, whole, line)| {
            let taken = named.entry(crate::groups::GroupKey::of(&line)).or_default();
            *taken += 1;
            if whole || *taken > crate::groups::EXAMPLES {
                return line;
            }
            let full = ScanLine::of(&engine.diagnose(ix, id, opts));
            debug_assert_eq!(
                crate::groups::GroupKey::of(&full),
                crate::groups::GroupKey::of(&line)
            );
            full
        })
        .collect();
    listing(engine, ix, any_work, lines)
}

/// What a scan diagnoses, in the index's order: each piece of work that is not settled, and
/// the settled serving objects (with `true`), in `namespace` only when given; and whether
/// there is any work there at all, settled or not (a scan that could read none judged
/// nothing).
fn scan_work(ix: &Index, opts: &Options, namespace: Option<&str>) -> (Vec<(ObjId, bool)>, bool) {
    // Serving objects whose pods run can still route nowhere (a pool no gateway took): they
    // are diagnosed even when settled, and listed if a layer blocks or warns. They are few.
    let serving = |id: ObjId| {
        matches!(
            ix.object(id).kind().as_str(),
            "InferencePool" | "DynamoGraphDeployment" | "PodCliqueSet"
        )
    };
    let here: Vec<(ObjId, bool)> = work_items(ix, opts.threads)
        .into_iter()
        .filter(|&(id, _, _)| namespace.is_none_or(|ns| ix.object(id).namespace() == Some(ns)))
        .map(|(id, _, settled)| (id, settled))
        .collect();
    let any_work = !here.is_empty();
    let listed = here
        .into_iter()
        .filter(|&(id, settled)| !settled || serving(id))
        .collect();
    (listed, any_work)
}

/// The `work` a scan lists, diagnosed, each turned into a `T` by `finish` on its thread, in
/// the report's order: blocking layer (layer order, blocked before warn), then namespace, then
/// name. Settled work is listed only if a layer blocks or warns.
fn scan_each<T: Send>(
    engine: &Engine,
    ix: &Index,
    opts: &Options,
    work: &[(ObjId, bool)],
    finish: impl Fn(crate::diagnosis::Diagnosis) -> T + Sync,
) -> Vec<T> {
    scan_each_by(
        ix,
        opts,
        work,
        |id| engine.diagnose(ix, id, opts),
        |_, d| finish(d),
    )
}

/// [`scan_each`], each piece of work judged by `judge` and turned into a `T` by `finish` (given
/// its id too).
fn scan_each_by<T: Send>(
    ix: &Index,
    opts: &Options,
    work: &[(ObjId, bool)],
    judge: impl Fn(ObjId) -> crate::diagnosis::Diagnosis + Sync,
    finish: impl Fn(ObjId, crate::diagnosis::Diagnosis) -> T + Sync,
) -> Vec<T> {
    // Diagnoses are independent; the index's shared tables are computed once, by whichever
    // thread asks first. A handful per batch: one diagnosis takes about a millisecond.
    let threads = crate::par::threads(opts.threads);
    let named = named_order(ix, work);
    let mut listed: Vec<(ScanKey, T)> = crate::par::map(work.len(), threads, 4, |i| {
        let (id, settled) = work[i];
        let d = judge(id);
        let listed = !settled
            || matches!(
                d.verdict.state,
                crate::layer::LayerState::Blocked | crate::layer::LayerState::Warn
            );
        listed.then(|| (ScanKey::of(&d, named[i]), finish(id, d)))
    })
    .into_iter()
    .flatten()
    .collect();
    // Stable: equal keys keep the work's order.
    listed.sort_by_key(|(key, _)| *key);
    listed.into_iter().map(|(_, t)| t).collect()
}

/// Each piece of work's place in the order of its target's namespace, name and kind (equal
/// targets share one): what the report orders by after the verdict, as a number, so the keys
/// kept until every diagnosis is made hold no strings (130 bytes a diagnosis, 2 MB of a
/// backlog scan's peak). A diagnosis's target names its object as the object does.
fn named_order(ix: &Index, work: &[(ObjId, bool)]) -> Vec<u32> {
    let named: Vec<(Option<&str>, &str, &str)> = work
        .iter()
        .map(|&(id, _)| {
            let o = ix.object(id);
            (o.namespace(), o.name.as_str(), o.kind().as_str())
        })
        .collect();
    let mut by_name: Vec<usize> = (0..work.len()).collect();
    by_name.sort_by_key(|&i| named[i]);
    let mut place = vec![0u32; work.len()];
    let mut at = 0u32;
    for (k, &i) in by_name.iter().enumerate() {
        if k > 0 && named[by_name[k - 1]] != named[i] {
            at += 1;
        }
        place[i] = at;
    }
    place
}

/// Where a diagnosis goes in a scan's report: by its verdict, then by its target's namespace,
/// name and kind ([`named_order`]).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct ScanKey {
    layer: u8,
    state: u8,
    named: u32,
}

impl ScanKey {
    fn of(d: &crate::diagnosis::Diagnosis, named: u32) -> ScanKey {
        ScanKey {
            layer: d.verdict.layer.map_or(7, |l| l as u8),
            state: match d.verdict.state {
                crate::layer::LayerState::Blocked => 0,
                crate::layer::LayerState::Warn => 1,
                _ => 2,
            },
            named,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::scan_json::ScanJson;
    use serde_json::json;

    /// `n` pending GPU pods of one namespace, alike but for their names: how a backlog looks.
    fn backlog(n: usize) -> crate::Index {
        let pods: Vec<serde_json::Value> = (0..n)
            .map(|i| {
                json!({
                    "apiVersion": "v1", "kind": "Pod",
                    "metadata": {"name": format!("train-{i:05}"), "namespace": "team-a",
                                 "uid": format!("00000000-0000-0000-0000-{i:012}")},
                    "spec": {"containers": [{"name": "main",
                             "resources": {"limits": {"nvidia.com/gpu": "8"}}}]},
                    "status": {"phase": "Pending", "conditions": [{"type": "PodScheduled",
                        "status": "False", "reason": "Unschedulable",
                        "message": "0/3 nodes are available: 3 Insufficient nvidia.com/gpu."}]}
                })
            })
            .collect();
        let list = json!({"apiVersion": "v1", "kind": "List", "items": pods});
        crate::Index::new(crate::Bundle::parse(list.to_string()).unwrap())
    }

    #[test]
    fn a_backlog_s_report_is_held_packed_against_its_first_diagnosis() {
        let engine = crate::Engine::builtin().unwrap();
        let ix = backlog(200);
        let report = super::scan_json(&engine, &ix, &crate::Options::default(), None);
        assert_eq!(report.parts().len(), 200);
        let text = report.to_compact_string().unwrap();
        let want = serde_json::to_string(&crate::scan(&engine, &ix, &crate::Options::default()));
        assert_eq!(text, want.unwrap());
        // Each part alone packs about 3 to 1; against a dictionary of a diagnosis like it,
        // over 10 to 1.
        assert!(
            report.packed_bytes() * 8 < text.len(),
            "{} packed bytes for {} of text",
            report.packed_bytes(),
            text.len()
        );
        let first: serde_json::Value =
            serde_json::from_str(&report.json(0).unwrap().unwrap()).unwrap();
        assert_eq!(first["target"]["name"], "train-00000");
        assert!(report.json(200).is_none());
    }

    #[test]
    fn a_report_of_many_blocks_writes_as_serde_json_does_on_any_threads() {
        let engine = crate::Engine::builtin().unwrap();
        let ix = backlog(300);
        let want = crate::scan(&engine, &ix, &crate::Options::default());
        let want = serde_json::to_string_pretty(&want).unwrap();
        for threads in [1, 2, 3] {
            let opts = crate::Options {
                threads,
                ..Default::default()
            };
            let mut out = Vec::new();
            super::scan_json(&engine, &ix, &opts, None)
                .write_pretty(&mut out)
                .unwrap();
            assert!(String::from_utf8(out).unwrap() == want, "{threads} threads");
        }
    }

    #[test]
    fn a_damaged_part_is_an_error_naming_it_not_a_panic() {
        let engine = crate::Engine::builtin().unwrap();
        let ix = backlog(3);
        let mut report = super::scan_json(&engine, &ix, &crate::Options::default(), None);
        let packed = report.packed_mut(1);
        // The length prefix says more than the block holds, then a block cut short.
        packed[0] = packed[0].wrapping_add(7);
        for write in [ScanJson::write_compact, ScanJson::write_pretty] {
            let err = write(&report, &mut Vec::new()).unwrap_err();
            assert_eq!(err.kind(), std::io::ErrorKind::InvalidData);
            assert!(
                err.to_string().contains("diagnosis 2 of 3 does not unpack"),
                "{err}"
            );
        }
        let last = report.packed_mut(2);
        *last = last[..last.len() / 2].into();
        assert!(report.json(2).unwrap().is_err());
        assert!(report.json(0).unwrap().is_ok());
    }
}
