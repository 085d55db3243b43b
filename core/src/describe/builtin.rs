//! The kinds kubectl describes in a layout of its own: Pod, Node and Job. Each is read back
//! into the fields of the object that layout prints; what it leaves out is said in
//! [`super::NOT_SHOWN`].

use super::lines::{Entry, cells_at, column_starts, copy_texts, present, split_key};
use serde_json::{Map, Value, json};

/// `Mon, 06 Dec 2026 19:00:00 +0000` (Go's RFC1123Z, kubectl's timestamps) as RFC 3339.
pub(crate) fn rfc1123z(s: &str) -> Option<String> {
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let rest = s.trim().split_once(", ").map_or(s.trim(), |(_, r)| r);
    let p: Vec<&str> = rest.split_whitespace().collect();
    let [day, mon, year, time, zone] = p.as_slice() else {
        return None;
    };
    let month = MONTHS.iter().position(|m| m == mon)? + 1;
    let zone = match *zone {
        "+0000" | "UTC" | "GMT" | "Z" => "Z".to_string(),
        z if z.len() == 5 && z.is_ascii() => format!("{}:{}", &z[..3], &z[3..]),
        _ => return None,
    };
    let text = format!("{year:0>4}-{month:02}-{day:0>2}T{time}{zone}");
    crate::time::parse_rfc3339(&text).map(crate::time::format_rfc3339)
}

/// `a=b` lines (labels, node selectors) as a map.
pub(crate) fn pairs(e: Option<&Entry>) -> Map<String, Value> {
    let mut m = Map::new();
    for line in all_values(e) {
        if let Some((k, v)) = line.split_once('=') {
            m.insert(k.to_string(), json!(v));
        }
    }
    m
}

/// An entry's value and its keyless continuation lines, without kubectl's `<none>`.
fn all_values<'a>(e: Option<&Entry<'a>>) -> Vec<&'a str> {
    let Some(e) = e else { return Vec::new() };
    std::iter::once(e.value)
        .chain(e.children.iter().map(|c| c.value))
        .filter_map(present)
        .collect()
}

/// `Annotations:` as a map: `key: value` lines, or `key:` and the value's lines under it.
pub(crate) fn annotations(e: Option<&Entry>) -> Map<String, Value> {
    let mut m = Map::new();
    let Some(e) = e else { return m };
    let first = present(e.value).map(split_key);
    let rest = e.children.iter().map(|c| (c.key, c.value));
    let mut last: Option<String> = None;
    for (key, value) in first.into_iter().chain(rest) {
        match (key, &last) {
            (Some(k), _) => {
                m.insert(k.to_string(), json!(value));
                last = Some(k.to_string());
            }
            (None, Some(k)) => {
                let prev = m.get(k).and_then(Value::as_str).unwrap_or("");
                let joined = if prev.is_empty() {
                    value.to_string()
                } else {
                    format!("{prev}\n{value}")
                };
                m.insert(k.clone(), json!(joined));
            }
            (None, None) => {}
        }
    }
    m
}

/// Name, namespace, labels, annotations and the controller of `Controlled By: Kind/name`.
pub(crate) fn metadata(top: &Entry) -> Value {
    let mut m = json!({"name": top.text("Name").unwrap_or("")});
    if let Some(ns) = top.text("Namespace") {
        m["namespace"] = json!(ns);
    }
    let labels = pairs(top.child("Labels"));
    if !labels.is_empty() {
        m["labels"] = Value::Object(labels);
    }
    let ann = annotations(top.child("Annotations"));
    if !ann.is_empty() {
        m["annotations"] = Value::Object(ann);
    }
    if let Some((kind, name)) = top.text("Controlled By").and_then(|c| c.split_once('/')) {
        m["ownerReferences"] = json!([{
            "apiVersion": api_version_of(kind),
            "kind": kind,
            "name": name,
            "uid": "",
            "controller": true,
        }]);
    }
    if let Some(t) = top.text("CreationTimestamp").and_then(rfc1123z) {
        m["creationTimestamp"] = json!(t);
    }
    m
}

/// The apiVersion of a kind kubectl names without its group (`Job`): from the tool's kind table.
fn api_version_of(kind: &str) -> String {
    match crate::kinds::KINDS
        .iter()
        .find(|k| k.kind == kind)
        .map(|k| k.group)
    {
        Some("") | None => "v1".into(),
        Some(g) => format!("{g}/v1"),
    }
}

/// The `key: value` lines under `e` (limits, capacity) as a map of texts.
fn keyed(e: &Entry) -> Map<String, Value> {
    e.children
        .iter()
        .filter_map(|x| Some((x.key?.to_string(), json!(x.value))))
        .collect()
}

/// `Limits:`/`Requests:` under a container.
fn resources(c: &Entry) -> Value {
    let mut r = Map::new();
    for (label, field) in [("Limits", "limits"), ("Requests", "requests")] {
        let Some(e) = c.child(label) else { continue };
        r.insert(field.into(), Value::Object(keyed(e)));
    }
    Value::Object(r)
}

/// A container's spec and, when kubectl printed it, its status.
fn container(c: &Entry) -> (Value, Option<Value>) {
    let name = c.key.unwrap_or("");
    let mut spec = json!({"name": name, "resources": resources(c)});
    if let Some(i) = c.text("Image") {
        spec["image"] = json!(i);
    }
    let env = env(c);
    if !env.is_empty() {
        spec["env"] = json!(env);
    }
    let ports = ports(c);
    if !ports.is_empty() {
        spec["ports"] = json!(ports);
    }
    // kubectl prints each line of a multi-line argument as a line of its own, so each line read
    // back is one argument: flags and their values stay as the facts read them.
    for (label, field) in [("Command", "command"), ("Args", "args")] {
        if let Some(e) = c.child(label) {
            spec[field] = json!(e.lines_below());
        }
    }
    let state = c.child("State");
    let status = state.map(|s| {
        let mut st = json!({
            "name": name,
            "state": container_state(s),
            "ready": c.text("Ready") == Some("True"),
            "restartCount": c.text("Restart Count").and_then(|n| n.parse::<i64>().ok()).unwrap_or(0),
        });
        if let Some(i) = c.text("Image") {
            st["image"] = json!(i);
        }
        if let Some(last) = c.child("Last State").filter(|l| present(l.value).is_some()) {
            st["lastState"] = container_state(last);
        }
        st
    });
    (spec, status)
}

/// `Port:`/`Ports:` under a container: `8000/TCP (http), 9090/TCP`, each as the spec's port.
fn ports(c: &Entry) -> Vec<Value> {
    let Some(text) = c.text("Ports").or_else(|| c.text("Port")) else {
        return Vec::new();
    };
    text.split(", ")
        .filter_map(|p| {
            let (number, rest) = p.split_once('/')?;
            let mut port = json!({"containerPort": number.trim().parse::<u64>().ok()?});
            let (protocol, name) = rest
                .split_once(" (")
                .map_or((rest, None), |(a, b)| (a, Some(b)));
            port["protocol"] = json!(protocol.trim());
            if let Some(n) = name.and_then(|n| n.strip_suffix(')')) {
                port["name"] = json!(n);
            }
            Some(port)
        })
        .collect()
}

/// `Environment:` under a container: the variables kubectl printed with a value of their own
/// (`NAME:  value`). One whose value comes from elsewhere is left out, its value not being the
/// spec's: `<set to the key 'k' in secret 's'>` (a secret's or config map's key) and a value
/// ending in its source in parentheses (`node-1 (v1:spec.nodeName)`, `(limits.cpu)`). So is a
/// value of several lines (kubectl prints the lines after the first under it, where a line
/// holding `: ` cannot be told from a key).
fn env(c: &Entry) -> Vec<Value> {
    let Some(e) = c.child("Environment") else {
        return Vec::new();
    };
    e.children
        .iter()
        .filter(|v| v.children.is_empty())
        .filter_map(|v| {
            let (name, value) = (v.key?, v.value.trim());
            let from_elsewhere = value.starts_with("<set to the key ")
                || (value.ends_with(')') && (value.starts_with('(') || value.contains(" (")));
            (!from_elsewhere).then(|| json!({"name": name, "value": value}))
        })
        .collect()
}

/// `State: Waiting` and its `Reason`, `Message`, `Exit Code`, `Started`, `Finished` lines.
fn container_state(s: &Entry) -> Value {
    let key = s.value.trim().to_ascii_lowercase();
    let mut inner = Map::new();
    let texts = [
        ("Reason", "reason"),
        ("Message", "message"),
        ("Signal", "signal"),
    ];
    copy_texts(s, &texts, &mut inner);
    if let Some(code) = s.text("Exit Code").and_then(|n| n.parse::<i64>().ok()) {
        inner.insert("exitCode".into(), json!(code));
    }
    for (label, field) in [("Started", "startedAt"), ("Finished", "finishedAt")] {
        if let Some(t) = s.text(label).and_then(rfc1123z) {
            inner.insert(field.into(), json!(t));
        }
    }
    json!({ key: inner })
}

/// The containers of a `Containers:` (or `Init Containers:`) section: specs and statuses.
fn containers(section: Option<&Entry>) -> (Vec<Value>, Vec<Value>) {
    let (mut specs, mut statuses) = (Vec::new(), Vec::new());
    for c in section.map_or(&[][..], |s| &s.children) {
        if c.key.is_none() {
            continue;
        }
        let (spec, status) = container(c);
        specs.push(spec);
        statuses.extend(status);
    }
    (specs, statuses)
}

/// `key=value:Effect op=Exists for 300s` (a toleration) or `key=value:Effect` (a taint).
fn toleration(line: &str) -> Value {
    let mut t = Map::new();
    let mut words = line.split_whitespace();
    let head = words.next().unwrap_or("");
    let (head, op) = if let Some(op) = head.strip_prefix("op=") {
        ("", Some(op))
    } else {
        (head, None)
    };
    let (kv, effect) = head
        .rsplit_once(':')
        .map_or((head, None), |(a, b)| (a, Some(b)));
    let (key, value) = kv.split_once('=').map_or((kv, None), |(k, v)| (k, Some(v)));
    if !key.is_empty() {
        t.insert("key".into(), json!(key));
    }
    if let Some(v) = value {
        t.insert("value".into(), json!(v));
    }
    if let Some(e) = effect {
        t.insert("effect".into(), json!(e));
    }
    let rest: Vec<&str> = words.collect();
    let op = op.or_else(|| rest.iter().find_map(|w| w.strip_prefix("op=")));
    t.insert("operator".into(), json!(op.unwrap_or("Equal")));
    if let Some(secs) = rest
        .windows(2)
        .find(|w| w[0] == "for")
        .and_then(|w| w[1].strip_suffix('s')?.parse::<i64>().ok())
    {
        t.insert("tolerationSeconds".into(), json!(secs));
    }
    Value::Object(t)
}

/// `Volumes:`: each volume's name, and the claim of a PersistentVolumeClaim volume (the one
/// source placement reads; the others are named only).
fn volumes(e: Option<&Entry>) -> Vec<Value> {
    let vols = e.map_or(&[][..], |e| &e.children);
    vols.iter()
        .filter_map(|v| {
            let mut out = json!({"name": v.key?});
            if let Some(claim) = v.text("ClaimName") {
                out["persistentVolumeClaim"] = json!({"claimName": claim});
            }
            Some(out)
        })
        .collect()
}

/// A PersistentVolumeClaim from its describe block: its phase, class and volume.
pub(crate) fn claim(top: &Entry) -> Value {
    let mut spec = Map::new();
    if let Some(c) = top.text("StorageClass") {
        spec.insert("storageClassName".into(), json!(c));
    }
    if let Some(v) = top.text("Volume") {
        spec.insert("volumeName".into(), json!(v));
    }
    let phase = top.text("Status").unwrap_or("");
    json!({
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": metadata(top),
        "spec": spec,
        "status": {"phase": phase.split_whitespace().next().unwrap_or("")},
    })
}

/// A Pod from its describe block.
pub(crate) fn pod(top: &Entry) -> Value {
    let mut spec = Map::new();
    let mut status = Map::new();
    let (cs, css) = containers(top.child("Containers"));
    let (ics, icss) = containers(top.child("Init Containers"));
    spec.insert("containers".into(), json!(cs));
    if !ics.is_empty() {
        spec.insert("initContainers".into(), json!(ics));
    }
    if let Some(node) = top.text("Node") {
        let (name, ip) = node.split_once('/').unwrap_or((node, ""));
        spec.insert("nodeName".into(), json!(name));
        if !ip.is_empty() {
            status.insert("hostIP".into(), json!(ip));
        }
    }
    let texts = [
        ("Priority Class Name", "priorityClassName"),
        ("Runtime Class Name", "runtimeClassName"),
        ("Service Account", "serviceAccountName"),
    ];
    copy_texts(top, &texts, &mut spec);
    if let Some(p) = top.text("Priority").and_then(|p| p.parse::<i64>().ok()) {
        spec.insert("priority".into(), json!(p));
    }
    let vols = volumes(top.child("Volumes"));
    if !vols.is_empty() {
        spec.insert("volumes".into(), json!(vols));
    }
    let sel = pairs(top.child("Node-Selectors"));
    if !sel.is_empty() {
        spec.insert("nodeSelector".into(), Value::Object(sel));
    }
    let tol: Vec<Value> = all_values(top.child("Tolerations"))
        .into_iter()
        .map(toleration)
        .collect();
    if !tol.is_empty() {
        spec.insert("tolerations".into(), json!(tol));
    }
    let phase = top.text("Status").unwrap_or("");
    status.insert(
        "phase".into(),
        json!(phase.split_whitespace().next().unwrap_or("")),
    );
    let texts = [
        ("Reason", "reason"),
        ("Message", "message"),
        ("IP", "podIP"),
        ("NominatedNodeName", "nominatedNodeName"),
        ("QoS Class", "qosClass"),
    ];
    copy_texts(top, &texts, &mut status);
    if let Some(t) = top.text("Start Time").and_then(rfc1123z) {
        status.insert("startTime".into(), json!(t));
    }
    let conds = conditions(top.child("Conditions"));
    if !conds.is_empty() {
        status.insert("conditions".into(), json!(conds));
    }
    if !css.is_empty() {
        status.insert("containerStatuses".into(), json!(css));
    }
    if !icss.is_empty() {
        status.insert("initContainerStatuses".into(), json!(icss));
    }
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": metadata(top), "spec": spec, "status": status})
}

/// A Node from its describe block.
pub(crate) fn node(top: &Entry) -> Value {
    let mut status = Map::new();
    for (label, field) in [("Capacity", "capacity"), ("Allocatable", "allocatable")] {
        let Some(e) = top.child(label) else { continue };
        status.insert(field.into(), Value::Object(keyed(e)));
    }
    let conds = conditions(top.child("Conditions"));
    if !conds.is_empty() {
        status.insert("conditions".into(), json!(conds));
    }
    if let Some(a) = top.child("Addresses") {
        let addrs: Vec<Value> = a
            .children
            .iter()
            .filter_map(|x| Some(json!({"type": x.key?, "address": x.value})))
            .collect();
        status.insert("addresses".into(), json!(addrs));
    }
    if let Some(info) = top.child("System Info") {
        let m: Map<String, Value> = info
            .children
            .iter()
            .filter_map(|x| Some((super::generic::field_name(x.key?), json!(x.value))))
            .collect();
        status.insert("nodeInfo".into(), Value::Object(m));
    }
    let mut spec = Map::new();
    let taints: Vec<Value> = all_values(top.child("Taints"))
        .into_iter()
        .map(|t| {
            let mut v = toleration(t);
            if let Some(m) = v.as_object_mut() {
                m.remove("operator");
            }
            v
        })
        .collect();
    if !taints.is_empty() {
        spec.insert("taints".into(), json!(taints));
    }
    if top.text("Unschedulable") == Some("true") {
        spec.insert("unschedulable".into(), json!(true));
    }
    json!({"apiVersion": "v1", "kind": "Node", "metadata": metadata(top), "spec": spec, "status": status})
}

/// A `Conditions:` table (`Type Status [Reason …]`: pods, nodes, Deployments, ReplicaSets),
/// cut at its header's columns (a node's times hold spaces).
pub(crate) fn conditions(e: Option<&Entry>) -> Vec<Value> {
    let Some(e) = e else { return Vec::new() };
    let Some(header) = e.children.first() else {
        return Vec::new();
    };
    let names: Vec<&str> = header.value.split_whitespace().collect();
    let cols = column_starts(header.value);
    if names.len() != cols.len() || names.first() != Some(&"Type") {
        return Vec::new();
    }
    e.children[1..]
        .iter()
        .filter(|r| !r.value.starts_with("----"))
        .map(|r| {
            let mut c = Map::new();
            for (name, cell) in names.iter().zip(cells_at(r.value, &cols)) {
                let field = super::generic::field_name(name);
                let cell = if field.ends_with("Time") {
                    rfc1123z(&cell).unwrap_or(cell)
                } else {
                    cell
                };
                c.insert(field, json!(cell));
            }
            Value::Object(c)
        })
        .collect()
}

/// A Job from its describe block.
pub(crate) fn job(top: &Entry) -> Value {
    let mut spec = Map::new();
    for (label, field) in [
        ("Parallelism", "parallelism"),
        ("Completions", "completions"),
        ("Backoff Limit", "backoffLimit"),
    ] {
        if let Some(n) = top.text(label).and_then(|n| n.parse::<i64>().ok()) {
            spec.insert(field.into(), json!(n));
        }
    }
    if let Some(m) = top.text("Completion Mode") {
        spec.insert("completionMode".into(), json!(m));
    }
    if let Some(s) = top.text("Suspend") {
        spec.insert("suspend".into(), json!(s == "true"));
    }
    if let Some(t) = top.child("Pod Template") {
        spec.insert("template".into(), template(t));
    }
    let mut status = Map::new();
    if let Some(t) = top.text("Start Time").and_then(rfc1123z) {
        status.insert("startTime".into(), json!(t));
    }
    if let Some(t) = top.text("Completed At").and_then(rfc1123z) {
        status.insert("completionTime".into(), json!(t));
    }
    if let Some(p) = top.text("Pods Statuses") {
        pod_counts(p, &mut status);
    }
    json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": metadata(top), "spec": spec, "status": status})
}

/// `1 Active (0 Ready) / 0 Succeeded / 0 Failed`.
fn pod_counts(text: &str, status: &mut Map<String, Value>) {
    let words: Vec<&str> = text.split_whitespace().collect();
    for w in words.windows(2) {
        let n = w[0].trim_start_matches('(').parse::<i64>();
        let field = match w[1].trim_end_matches(')') {
            "Active" => "active",
            "Ready" => "ready",
            "Succeeded" => "succeeded",
            "Failed" => "failed",
            _ => continue,
        };
        if let Ok(n) = n {
            status.insert(field.into(), json!(n));
        }
    }
}

/// `Pod Template:` (labels, containers, node selectors, tolerations, priority class).
pub(crate) fn template(t: &Entry) -> Value {
    let (cs, _) = containers(t.child("Containers"));
    let mut spec = json!({"containers": cs});
    let sel = pairs(t.child("Node-Selectors"));
    if !sel.is_empty() {
        spec["nodeSelector"] = Value::Object(sel);
    }
    let tol: Vec<Value> = all_values(t.child("Tolerations"))
        .into_iter()
        .map(toleration)
        .collect();
    if !tol.is_empty() {
        spec["tolerations"] = json!(tol);
    }
    if let Some(p) = t.text("Priority Class Name") {
        spec["priorityClassName"] = json!(p);
    }
    let mut meta = Map::new();
    let labels = pairs(t.child("Labels"));
    if !labels.is_empty() {
        meta.insert("labels".into(), Value::Object(labels));
    }
    json!({"metadata": meta, "spec": spec})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_rfc1123z_times_read_as_rfc3339() {
        assert_eq!(
            rfc1123z("Sun, 06 Dec 2026 19:25:46 +0000").as_deref(),
            Some("2026-12-06T19:25:46Z")
        );
        assert_eq!(
            rfc1123z("Sun, 06 Dec 2026 21:25:46 +0200").as_deref(),
            Some("2026-12-06T19:25:46Z")
        );
        assert_eq!(rfc1123z("yesterday"), None);
    }

    #[test]
    fn tolerations_and_taints_read_back() {
        assert_eq!(
            toleration("node.kubernetes.io/not-ready:NoExecute op=Exists for 300s"),
            json!({"key": "node.kubernetes.io/not-ready", "effect": "NoExecute", "operator": "Exists", "tolerationSeconds": 300})
        );
        assert_eq!(
            toleration("nvidia.com/gpu=present:NoSchedule"),
            json!({"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule", "operator": "Equal"})
        );
        assert_eq!(toleration("op=Exists"), json!({"operator": "Exists"}));
    }

    #[test]
    fn job_pod_counts() {
        let mut m = Map::new();
        pod_counts("1 Active (0 Ready) / 2 Succeeded / 3 Failed", &mut m);
        assert_eq!(
            Value::Object(m),
            json!({"active": 1, "ready": 0, "succeeded": 2, "failed": 3})
        );
    }
}
