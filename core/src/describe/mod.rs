//! `kubectl describe` output, pasted as it is: pods, nodes, Jobs and any custom resource, one
//! after another, with their `Events:` tables. Each block is read back into the object it
//! describes (as JSON, the shape every other input has), and what describe output cannot show
//! is said in notes that reach the diagnosis ([`crate::Diagnosis::input_notes`]).
//!
//! Times: describe prints events' ages ("2m (x5 over 10m)"), not their times. They are counted
//! back from the paste's "now" (the caller's, `--now` in the CLI); the core has no clock.

mod builtin;
mod controllers;
mod events;
mod generic;
mod lines;

use lines::{Entry, Numbered};
use serde_json::{Value, json};

/// What describe output of each kind leaves out, said once per kind found.
pub const NOT_SHOWN: [(&str, &str); 7] = [
    (
        "Pod",
        "kubectl describe of a pod does not show its UID, owner UIDs, scheduling gates, managedFields, \
         its scheduler's name, its containers' restartPolicy (a sidecar reads as a plain init container), \
         its resourceClaims (given back from the DRA claims made for it, when they are pasted too), \
         nor its conditions' reasons and messages (a PodScheduled=False reason and message are \
         taken from the newest FailedScheduling or KAI Unschedulable event, which carries the \
         scheduler's same message, and the scheduler's name from its source)",
    ),
    (
        "Node",
        "kubectl describe of a node lists its pods by name only (their requests are not read) and \
         does not show its UID or managedFields",
    ),
    (
        "Job",
        "kubectl describe of a Job does not show its conditions, UID, selector's owner UIDs or managedFields",
    ),
    (
        "controller",
        "kubectl describe of a Deployment, ReplicaSet, StatefulSet or DaemonSet does not show its \
         UID, its conditions' messages, nor a selector other than equalities",
    ),
    (
        "ConfigMap",
        "kubectl describe of a ConfigMap prints its values raw: a value's trailing empty lines \
         and binary data are not read",
    ),
    (
        "custom",
        "kubectl describe of a custom resource prints its field names as labels (`Queue Name`); they \
         are turned back into names (`queueName`), and a list of one map reads as a list only under \
         a plural name",
    ),
    (
        "events",
        "kubectl describe prints events' ages rounded (`2m` is two to three minutes), so their times \
         are approximate",
    ),
];

/// The objects of a describe paste and the notes on what it could not show.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Read {
    pub objects: Vec<Value>,
    pub notes: Vec<String>,
}

/// Whether `text` is `kubectl describe` output: its first line (after any shell prompt line)
/// is `Name:` at the start of a line, and another top-level describe field follows. YAML
/// objects never begin with a capitalised `Name:`.
pub fn looks_like(text: &str) -> bool {
    let mut lines = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .skip_while(|l| is_prompt(l));
    let Some(first) = lines.next() else {
        return false;
    };
    first.starts_with("Name:")
        && lines.take(8).any(|l| {
            ["Namespace:", "Labels:", "Roles:", "Annotations:"]
                .iter()
                .any(|k| l.starts_with(k))
        })
}

/// A line of the command that made the paste (`$ kubectl describe pod x`), not of its output.
fn is_prompt(line: &str) -> bool {
    let l = line.trim_start();
    ["$ ", "# ", "% ", "> ", "kubectl "]
        .iter()
        .any(|p| l.starts_with(p))
}

/// Read a describe paste. `now` is the paste time (seconds since the epoch); `max_depth` bounds
/// the nesting. Err: the line (1-based) and what is wrong there.
pub fn read(text: &str, now: Option<i64>, max_depth: usize) -> Result<Read, (usize, String)> {
    let numbered: Vec<Numbered> = text.lines().enumerate().map(|(i, l)| (i + 1, l)).collect();
    let mut out = Read::default();
    let mut kinds: Vec<&str> = Vec::new();
    let mut any_events = false;
    let mut skipped: Vec<(usize, &str)> = Vec::new();
    for block in blocks(&numbered)? {
        let (head, ev) = split_events(block);
        // A ConfigMap's data is printed raw: only the lines before it are `Key: value`.
        let data = controllers::config_map_data(head);
        let head = data.as_ref().map_or(head, |(at, _)| &head[..*at]);
        let roots = lines::tree(head, max_depth)?;
        let top = Entry {
            line: block[0].0,
            indent: 0,
            key: None,
            value: "",
            raw: "",
            children: roots,
        };
        if top.text("Name").is_none() {
            return Err((block[0].0, "`Name:` without a name".into()));
        }
        let found = match data {
            Some((_, data)) => Some(("ConfigMap", controllers::config_map(&top, data))),
            None => object(&top),
        };
        let Some((kind, mut obj)) = found else {
            skipped.push((block[0].0, top.text("Name").unwrap_or("?")));
            continue;
        };
        let rows = events::rows(ev)?;
        any_events |= !rows.is_empty();
        let involved = involved(&obj);
        let evs = events::objects(&rows, &involved, now);
        if kind == "Pod" {
            scheduled_from_events(&mut obj, &evs);
            waiting_from_events(&mut obj, &evs);
        }
        let group = match kind {
            "Deployment" | "ReplicaSet" | "StatefulSet" | "DaemonSet" => "controller",
            k => k,
        };
        if !kinds.contains(&group) {
            kinds.push(group);
        }
        truncated_annotations(&obj, block[0].0, &mut out.notes);
        out.objects.push(obj);
        out.objects.extend(evs);
    }
    if let Some(note) = skipped_note(&skipped) {
        out.notes.push(note);
    }
    claims_to_pods(&mut out.objects);
    if out.objects.is_empty() {
        return Err((
            1,
            "no object this reader knows was found in the describe output".into(),
        ));
    }
    for (k, note) in NOT_SHOWN {
        if kinds.contains(&k) || (k == "events" && any_events) {
            out.notes.push(note.to_string());
        }
    }
    if any_events && now.is_none() {
        out.notes
            .push("no paste time was given (`--now`): events carry no times".into());
    }
    Ok(out)
}

/// One note for the blocks of kinds this reader does not know (a Deployment, a Service…).
fn skipped_note(skipped: &[(usize, &str)]) -> Option<String> {
    let ((line, name), more) = skipped.split_first()?;
    let more = match more.len() {
        0 => String::new(),
        n => format!(" and {n} more"),
    };
    Some(format!(
        "not read: `{}` at line {line}{more}, of kinds kubectl describes in a layout this reader \
         does not know (it reads pods, nodes, Jobs and objects printed with `Kind:`)",
        quote(name).trim_matches('"')
    ))
}

/// The blocks of the paste: each begins with `Name:` at the start of a line.
fn blocks<'t, 'a>(lines: &'t [Numbered<'a>]) -> Result<Vec<&'t [Numbered<'a>]>, (usize, String)> {
    let starts: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, (_, l))| l.starts_with("Name:"))
        .map(|(i, _)| i)
        .collect();
    let Some(&first) = starts.first() else {
        return Err((1, "no `Name:` line: not kubectl describe output".into()));
    };
    if let Some((no, l)) = lines[..first]
        .iter()
        .find(|(_, l)| !l.trim().is_empty() && !is_prompt(l))
    {
        return Err((
            *no,
            format!("text before the first `Name:` line: {}", quote(l)),
        ));
    }
    let ends = starts.iter().skip(1).copied().chain([lines.len()]);
    Ok(starts
        .iter()
        .zip(ends)
        .map(|(&a, b)| &lines[a..b])
        .collect())
}

/// The block's lines before its top-level `Events:` line, and the table's lines after it.
fn split_events<'t, 'a>(block: &'t [Numbered<'a>]) -> (&'t [Numbered<'a>], &'t [Numbered<'a>]) {
    match block.iter().position(|(_, l)| l.starts_with("Events:")) {
        Some(i) => (&block[..i], &block[i + 1..]),
        None => (block, &[]),
    }
}

/// The kind of a block and its object.
fn object<'a>(top: &Entry<'a>) -> Option<(&'static str, Value)> {
    let has = |k: &str| top.child(k).is_some();
    if has("Kind") && has("API Version") {
        return Some(("custom", custom(top)));
    }
    if has("Containers") && (has("QoS Class") || has("Node")) {
        return Some(("Pod", builtin::pod(top)));
    }
    // A claim prints `Capacity:` too (empty while unbound), and a PersistentVolume both
    // `Capacity:` and `StorageClass:`; only a claim prints `Used By:`, and no node prints
    // `StorageClass:`.
    if has("StorageClass") {
        return (has("Used By") && !has("Reclaim Policy"))
            .then(|| ("PersistentVolumeClaim", builtin::claim(top)));
    }
    if has("Capacity") || has("Allocatable") || has("System Info") || has("Roles") {
        return Some(("Node", builtin::node(top)));
    }
    if has("Pods Statuses") || has("Completion Mode") || has("Parallelism") {
        return Some(("Job", builtin::job(top)));
    }
    let kind = controllers::kind_of(top)?;
    Some((kind, controllers::controller(kind, top)))
}

/// A custom resource: every top-level field but the ones kubectl prints first.
fn custom(top: &Entry) -> Value {
    let mut obj = serde_json::Map::new();
    for c in &top.children {
        let Some(k) = c.key else { continue };
        if matches!(k, "Name" | "Namespace" | "Labels" | "Annotations") {
            continue;
        }
        obj.insert(generic::field_name(k), generic::value_of(c));
    }
    let mut meta = builtin::metadata(top);
    if let Some(Value::Object(m)) = obj.remove("metadata") {
        for (k, v) in m {
            meta[k] = v;
        }
    }
    obj.insert("metadata".into(), meta);
    for f in ["apiVersion", "kind"] {
        if let Some(v) = obj.get(f).and_then(Value::as_i64) {
            obj.insert(f.into(), json!(v.to_string()));
        }
    }
    Value::Object(obj)
}

/// A bit of the paste, quoted for a message: at most 80 characters, escapes shown.
fn quote(s: &str) -> String {
    let cut: String = s.chars().take(80).collect();
    format!("{cut:?}")
}

/// The event's `involvedObject` for `obj`.
/// Describe of a pod prints neither its `resourceClaims` nor its UID, but describe of a claim
/// made from the pod's template prints both: its owner (the pod, by name and UID) and the
/// claim's name in the pod (`resource.kubernetes.io/pod-claim-name`). Each such claim is given
/// back to its pod: the pod's claim entry, the status naming the claim made for it, and the UID
/// its claim's owner reference holds (so the claim is the pod's child again).
fn claims_to_pods(objects: &mut [Value]) {
    let mut links: Vec<(String, String, String, String, String)> = Vec::new();
    for o in objects.iter().filter(|o| o["kind"] == "ResourceClaim") {
        let m = &o["metadata"];
        let in_pod = m["annotations"]["resource.kubernetes.io/pod-claim-name"].as_str();
        let owner = m["ownerReferences"]
            .as_array()
            .and_then(|rs| rs.iter().find(|r| r["kind"] == "Pod"));
        let (Some(in_pod), Some(owner), Some(ns), Some(claim)) =
            (in_pod, owner, m["namespace"].as_str(), m["name"].as_str())
        else {
            continue;
        };
        links.push((
            ns.to_string(),
            owner["name"].as_str().unwrap_or("").to_string(),
            owner["uid"].as_str().unwrap_or("").to_string(),
            in_pod.to_string(),
            claim.to_string(),
        ));
    }
    for (ns, pod, uid, in_pod, claim) in links {
        let Some(p) = objects.iter_mut().find(|o| {
            o["kind"] == "Pod"
                && o["metadata"]["namespace"] == ns.as_str()
                && o["metadata"]["name"] == pod.as_str()
        }) else {
            continue;
        };
        if !uid.is_empty() && p["metadata"]["uid"].as_str().is_none_or(str::is_empty) {
            p["metadata"]["uid"] = json!(uid);
        }
        push_unique(&mut p["spec"]["resourceClaims"], json!({"name": in_pod}));
        push_unique(
            &mut p["status"]["resourceClaimStatuses"],
            json!({"name": in_pod, "resourceClaimName": claim}),
        );
    }
}

/// Append `item` to the list at `at` (made when absent) unless an item of its name is there.
fn push_unique(at: &mut Value, item: Value) {
    if !at.is_array() {
        *at = json!([]);
    }
    let list = at.as_array_mut().expect("made a list above");
    if !list.iter().any(|x| x["name"] == item["name"]) {
        list.push(item);
    }
}

fn involved(obj: &Value) -> Value {
    let m = &obj["metadata"];
    let mut r = json!({"apiVersion": obj["apiVersion"], "kind": obj["kind"], "name": m["name"]});
    if let Some(ns) = m["namespace"].as_str() {
        r["namespace"] = json!(ns);
    }
    if let Some(uid) = m["uid"].as_str() {
        r["uid"] = json!(uid);
    }
    r
}

/// A scheduler writes the same message to a pod's PodScheduled=False condition and to the event
/// that refuses it (kube-scheduler's FailedScheduling, KAI's Unschedulable); describe shows
/// only the event's, so the condition takes it back. The event's source is the scheduler's
/// name (each scheduler records its events under it), which describe of a pod does not print
/// otherwise: `spec.schedulerName` takes it back too.
fn scheduled_from_events(pod: &mut Value, events: &[Value]) {
    let newest = events
        .iter()
        .filter(|e| {
            crate::reasons::is_scheduler_refusal(
                e["reason"].as_str().unwrap_or(""),
                e["type"].as_str().unwrap_or(""),
            )
        })
        .max_by_key(|e| e["lastTimestamp"].as_str().map(str::to_string));
    let Some(e) = newest else { return };
    if let Some(by) = e["source"]["component"].as_str().filter(|s| !s.is_empty())
        && pod["spec"].get("schedulerName").is_none()
    {
        pod["spec"]["schedulerName"] = json!(by);
    }
    let Some(conds) = pod
        .pointer_mut("/status/conditions")
        .and_then(Value::as_array_mut)
    else {
        return;
    };
    for c in conds {
        if c["type"] == "PodScheduled" && c["status"] == "False" {
            c["reason"] = json!("Unschedulable");
            c["message"] = e["message"].clone();
            if let Some(t) = e["lastTimestamp"].as_str() {
                c["lastTransitionTime"] = json!(t);
            }
        }
    }
}

/// The waiting reasons whose message the kubelet also records about the container, as a
/// Warning `Failed` event reading `Error: <message>` (it fails to start the container with
/// it). Others differ: an image pull's `Failed` event says `Error: ErrImagePull`, its reason.
const KUBELET_ERROR_REASONS: [&str; 2] = ["CreateContainerConfigError", "CreateContainerError"];

/// describe prints a waiting container's reason but not its message; for the reasons above the
/// container's newest `Failed` event carries it, and the container status takes it back.
fn waiting_from_events(pod: &mut Value, events: &[Value]) {
    for (statuses, specs) in [
        ("containerStatuses", "containers"),
        ("initContainerStatuses", "initContainers"),
    ] {
        // `get_mut`, not indexing: indexing a map for writing adds the key it looks for.
        let Some(list) = pod
            .pointer_mut(&format!("/status/{statuses}"))
            .and_then(Value::as_array_mut)
        else {
            continue;
        };
        for st in list {
            let path = format!("spec.{specs}{{{}}}", st["name"].as_str().unwrap_or(""));
            let Some(waiting) = st
                .pointer_mut("/state/waiting")
                .and_then(Value::as_object_mut)
            else {
                continue;
            };
            let reason = waiting.get("reason").and_then(Value::as_str).unwrap_or("");
            if !KUBELET_ERROR_REASONS.contains(&reason) || waiting.contains_key("message") {
                continue;
            }
            let message = events
                .iter()
                .filter(|e| {
                    e["reason"] == "Failed"
                        && e["type"] == "Warning"
                        && e["involvedObject"]["fieldPath"] == path.as_str()
                })
                .max_by_key(|e| e["lastTimestamp"].as_str().map(str::to_string))
                .and_then(|e| e["message"].as_str()?.strip_prefix("Error: "));
            if let Some(m) = message {
                waiting.insert("message".into(), json!(m));
            }
        }
    }
}

/// kubectl cuts long annotation values and ends them with `...`: say which.
fn truncated_annotations(obj: &Value, line: usize, notes: &mut Vec<String>) {
    let Some(a) = obj["metadata"]["annotations"].as_object() else {
        return;
    };
    for (k, v) in a {
        if v.as_str().is_some_and(|s| s.ends_with("...")) {
            notes.push(format!(
                "line {line}: annotation `{}` was shortened by kubectl (ends in `...`)",
                quote(k)
            ));
        }
    }
}

/// The JSON text of the tool's own bundle holding `read`'s objects, its notes, and `now` as
/// the time the paste was collected.
pub fn bundle_json(read: &Read, now: Option<i64>) -> String {
    let mut meta = json!({"inputNotes": read.notes});
    if let Some(n) = now {
        meta["collectedAt"] = json!(crate::time::format_rfc3339(n));
    }
    json!({"apiVersion": "v1", "kind": "List", "kubectlLayer": meta, "items": read.objects})
        .to_string()
}

#[cfg(test)]
mod tests;
