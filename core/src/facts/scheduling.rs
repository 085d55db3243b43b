//! The scheduler's last word about a pod, parsed: `$.facts.scheduling`.

use super::Ctx;
use crate::json::At as _;
use crate::json::str_at;
use crate::pattern::Pattern;
use serde::Serialize;
use serde_json::Value;
use std::sync::LazyLock;

static AVAILABLE: LazyLock<Pattern> =
    LazyLock::new(|| Pattern::new(r"^0/(\d+) nodes are available:?\s*").expect("static pattern"));
static ENTRY: LazyLock<Pattern> =
    LazyLock::new(|| Pattern::new(r"^(\d+) (.+)$").expect("static pattern"));
static KAI_PREFIX: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(r"(?i)^no nodes with enough resources were found:\s*").expect("static pattern")
});

/// `$.facts.scheduling`: the scheduler's last word on the pod, parsed.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Scheduling {
    /// The message as the scheduler wrote it.
    pub message: String,
    /// Where it was read: `condition` (PodScheduled) or `event`.
    pub source: String,
    /// The pod's `schedulerName` (`default-scheduler` when unset).
    pub scheduler: String,
    /// kube-scheduler's `0/N`: how many nodes it considered (absent in KAI's form).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nodes: Option<u64>,
    /// Each `COUNT REASON` entry of the filter histogram, in the message's order.
    pub reasons: Vec<Reason>,
    /// The distinct kinds of those reasons, sorted.
    pub kinds: Vec<String>,
    /// The distinct resources named `Insufficient`, sorted.
    pub insufficient: Vec<String>,
    /// A PreFilter rejection: one sentence without counts
    /// (`pod has unbound immediate PersistentVolumeClaims`).
    pub pre_filter: Option<String>,
    /// The PostFilter's own text before `preemption:` (DRA's `still not schedulable`).
    pub post_filter: Option<String>,
    /// The `preemption: 0/N nodes are available: …` part.
    pub preemption: Option<Preemption>,
}

/// One `COUNT REASON` entry.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Reason {
    pub count: u64,
    pub reason: String,
    /// One of `insufficient, taint, affinity, cordoned, nodeName, volume, podAffinity,
    /// topologySpread, dra, podsFull, nodeCondition, other`.
    pub kind: String,
    /// The resource an `insufficient` reason names (KAI's `GPUs` read as `nvidia.com/gpu`).
    pub resource: Option<String>,
}

/// What the scheduler says of preempting other pods.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Preemption {
    pub nodes: u64,
    pub reasons: Vec<Reason>,
    /// Some entry is neither `Preemption is not helpful…` nor `No preemption victims…`.
    pub helpful: bool,
}

/// `$.facts.scheduling`: the PodScheduled condition's message, else the newest
/// FailedScheduling (or KAI `Unschedulable`) event, parsed; null when the scheduler said
/// nothing.
pub fn fact(ctx: &Ctx) -> Option<Scheduling> {
    let pod = ctx.pod?;
    let pv = ctx.pod_value()?;
    let cond = pv
        .at("/status/conditions")
        .and_then(Value::as_array)
        .and_then(|cs| {
            cs.iter().find(|c| {
                c["type"] == "PodScheduled"
                    && c["status"] == "False"
                    && c["reason"] == "Unschedulable"
            })
        });
    let scheduler = str_at(&pv, "/spec/schedulerName").unwrap_or("default-scheduler");
    let from_event = || {
        ctx.events_about(pod)
            .iter()
            .rev()
            .map(|(_, e)| e)
            .find(|e| crate::reasons::is_scheduler_refusal(&e.reason, &e.type_))
            .cloned()
    };
    let (message, source) = match cond
        .and_then(|c| c["message"].as_str())
        .filter(|m| !m.is_empty())
    {
        Some(m) => (m.to_string(), "condition"),
        None => {
            let e = from_event()?;
            (e.message.clone(), "event")
        }
    };
    Some(parse_scheduling_message(&message, source, scheduler))
}

/// Parse a scheduler's "why not" message.
///
/// kube-scheduler (`FitError.Error()`, 1.30–1.36): `0/N nodes are available: <sorted "COUNT
/// REASON" entries>. [<post-filter text>, ]preemption: 0/N nodes are available: <entries>.`
/// A PreFilter rejection has one sentence and no counts. KAI-Scheduler: `no nodes with enough
/// resources were found: COUNT REASON[. COUNT REASON].`
pub fn parse_scheduling_message(message: &str, source: &str, scheduler: &str) -> Scheduling {
    let msg = message.trim();
    let (head, preemption) = match msg.find("preemption: ") {
        Some(i) => (&msg[..i], Some(&msg[i + "preemption: ".len()..])),
        None => (msg, None),
    };
    let mut nodes = None;
    let mut reasons = Vec::new();
    let mut pre_filter = None;
    let mut post_filter = None;
    if let Some(caps) = AVAILABLE.captures(head) {
        nodes = Some(caps[1].parse::<u64>().unwrap_or(0));
        let body = &head[caps[0].len()..];
        // The histogram ends at the first ". "; what follows before `preemption:` is the
        // PostFilter's own text (e.g. DRA's "still not schedulable, ").
        let (hist, rest) = split_sentence(body);
        let parsed = parse_entries(hist);
        if parsed.is_empty() && !hist.is_empty() {
            pre_filter = Some(hist.to_string());
        }
        reasons = parsed;
        let rest = rest.trim().trim_end_matches(',').trim();
        if !rest.is_empty() {
            post_filter = Some(rest.to_string());
        }
    } else if let Some(m) = KAI_PREFIX.find(head) {
        let body = &head[m.end..];
        reasons = body
            .split(['\n'])
            .flat_map(|s| s.split(". "))
            .flat_map(|s| parse_entries(s.trim().trim_end_matches('.')))
            .collect();
    }
    let mut kinds: Vec<String> = reasons.iter().map(|r| r.kind.clone()).collect();
    kinds.sort_unstable();
    kinds.dedup();
    let mut insufficient: Vec<String> = reasons.iter().filter_map(|r| r.resource.clone()).collect();
    insufficient.sort();
    insufficient.dedup();
    let preemption = preemption.map(|p| {
        let p = p.trim();
        let (nodes, body) = match AVAILABLE.captures(p) {
            Some(c) => (c[1].parse::<u64>().unwrap_or(0), &p[c[0].len()..]),
            None => (0, p),
        };
        let (hist, _) = split_sentence(body);
        let reasons = parse_entries(hist);
        let helpful = !reasons.iter().all(|r| {
            r.reason.starts_with("Preemption is not helpful")
                || r.reason.starts_with("No preemption victims")
        });
        Preemption {
            nodes,
            reasons,
            helpful,
        }
    });
    Scheduling {
        message: message.to_string(),
        source: source.to_string(),
        scheduler: scheduler.to_string(),
        nodes,
        reasons,
        kinds,
        insufficient,
        pre_filter,
        post_filter,
        preemption,
    }
}

/// Split at the end of the first sentence: a "." followed by a space or the end.
fn split_sentence(s: &str) -> (&str, &str) {
    let b = s.as_bytes();
    for i in 0..b.len() {
        if b[i] == b'.' && (i + 1 == b.len() || b[i + 1] == b' ' || b[i + 1] == b'.') {
            let rest = s[i + 1..].trim_start_matches('.');
            return (s[..i].trim(), rest);
        }
    }
    (s.trim(), "")
}

fn parse_entries(hist: &str) -> Vec<Reason> {
    let mut out = Vec::new();
    // Entries are "COUNT REASON" joined by ", "; a reason may itself contain ", " (taint
    // values), so a fragment without a leading count continues the previous reason.
    for part in hist.split(", ") {
        match ENTRY.captures(part) {
            Some(c) => {
                let reason = c[2].trim().to_string();
                out.push((c[1].parse::<u64>().unwrap_or(0), reason));
            }
            None => match out.last_mut() {
                Some(last) => {
                    last.1.push_str(", ");
                    last.1.push_str(part);
                }
                None => return Vec::new(),
            },
        }
    }
    out.into_iter()
        .map(|(count, reason)| {
            let (kind, resource) = classify(&reason);
            Reason {
                count,
                reason,
                kind: kind.to_string(),
                resource,
            }
        })
        .collect()
}

/// Which kind of node-level rejection a reason is, and the resource it names if any.
fn classify(reason: &str) -> (&'static str, Option<String>) {
    if let Some(r) = reason.strip_prefix("Insufficient ") {
        return ("insufficient", Some(r.trim().to_string()));
    }
    if let Some(r) = reason.strip_prefix("node(s) didn't have enough resources: ") {
        let r = match r.trim() {
            "GPUs" => "nvidia.com/gpu",
            "CPU cores" => "cpu",
            "memory" => "memory",
            other => other,
        };
        return ("insufficient", Some(r.to_string()));
    }
    let table: &[(&str, &str)] = &[
        ("untolerated taint", "taint"),
        ("didn't match Pod's node affinity/selector", "affinity"),
        ("didn't match scheduler-enforced node affinity", "affinity"),
        ("were unschedulable", "cordoned"),
        ("had unknown conditions", "cordoned"),
        ("didn't match the requested node name", "nodeName"),
        ("persistent volume", "volume"),
        ("PersistentVolume", "volume"),
        ("volume node affinity", "volume"),
        ("enough free storage", "volume"),
        ("pvc(s)", "volume"),
        ("pod affinity rules", "podAffinity"),
        ("pod anti-affinity rules", "podAffinity"),
        ("anti-affinity rules", "podAffinity"),
        ("topology spread", "topologySpread"),
        ("claims", "dra"),
        ("resourceclaim", "dra"),
        ("allocate devices", "dra"),
        ("cannot fit resource", "dra"),
        ("extended resource claim", "dra"),
        ("Too many pods", "podsFull"),
        ("pod number exceeded", "podsFull"),
        ("mig profile", "insufficient"),
        ("node(s) had", "nodeCondition"),
    ];
    let kind = table
        .iter()
        .find(|(needle, _)| reason.contains(needle))
        .map_or("other", |(_, k)| k);
    (kind, None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parsed(message: &str) -> Value {
        crate::facts::to_json(&parse_scheduling_message(
            message,
            "event",
            "default-scheduler",
        ))
    }

    #[test]
    fn parses_the_scheduler_grammar() {
        let f = parsed(
            "0/4 nodes are available: 1 node(s) had untolerated taint(s), 3 Insufficient nvidia.com/gpu. preemption: 0/4 nodes are available: 1 Preemption is not helpful for scheduling, 3 No preemption victims found for incoming pod.",
        );
        assert_eq!(f["nodes"], 4);
        assert_eq!(f["reasons"][1]["count"], 3);
        assert_eq!(f["insufficient"], json!(["nvidia.com/gpu"]));
        assert_eq!(f["kinds"], json!(["insufficient", "taint"]));
        assert_eq!(f["preemption"]["nodes"], 4);
        assert_eq!(f["preemption"]["helpful"], false);
    }

    #[test]
    fn parses_old_taint_form_prefilter_and_dra_postfilter() {
        let f = parsed(
            "0/4 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 1 node(s) were unschedulable, 2 Insufficient nvidia.com/gpu. preemption: 0/4 nodes are available: 2 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling.",
        );
        assert_eq!(
            f["reasons"][0]["reason"],
            "node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }"
        );
        assert_eq!(f["reasons"][1]["kind"], "cordoned");
        let f = parsed(
            "0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
        );
        assert_eq!(
            f["preFilter"],
            "pod has unbound immediate PersistentVolumeClaims"
        );
        assert_eq!(f["reasons"], json!([]));
        let f = parsed(
            "0/2 nodes are available: 2 cannot allocate all claims. still not schedulable, preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.",
        );
        assert_eq!(f["kinds"], json!(["dra"]));
        assert_eq!(f["postFilter"], "still not schedulable");
        let f = parsed(
            "0/3 nodes are available: 3 Insufficient nvidia.com/gpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod..",
        );
        assert_eq!(f["preemption"]["reasons"][0]["count"], 3);
    }

    #[test]
    fn parses_kai_messages() {
        let f = parsed(
            "No nodes with enough resources were found: 2 node(s) didn't have enough resources: GPUs.",
        );
        assert_eq!(f["insufficient"], json!(["nvidia.com/gpu"]));
        assert_eq!(f["reasons"][0]["count"], 2);
    }
}
