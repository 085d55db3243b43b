//! A scan's listing: one line per diagnosed piece of work, holding only what scan's text,
//! Markdown and Prometheus outputs print of it (its verdict and its target's identity).
//!
//! Why: those outputs print a line per diagnosis, yet they were written from the whole
//! [`ScanReport`], every diagnosis kept as Rust values until the last one was made and sorted
//! (on a backlog, 14,496 diagnoses of several kilobytes each), and the terminal text then
//! copied the whole report through a JSON tree to clean its strings: 13.6 times the bundle's
//! size at the peak, against 2 for the JSON output (the `scan_json` module). A [`ScanLine`] is made
//! on the thread that made its diagnosis, which is dropped there, so the listing holds a few
//! hundred bytes a piece of work, and the renderers write it straight to their writer.

use crate::diagnosis::{Diagnosis, Incomplete, Outlook, ScanReport};
use crate::layer::{Layer, LayerState};
use crate::standing::{QueueStanding, WaitOutlook};

/// What scan's line-per-work outputs print of one diagnosis.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ScanLine {
    pub state: LayerState,
    /// The blocking layer, if any.
    pub layer: Option<Layer>,
    pub outlook: Option<Outlook>,
    /// The rule the verdict rests on.
    pub rule: Option<String>,
    /// The object that rule rests on: what the `groups` module groups by, with the rule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cause: Option<crate::diagnosis::Cause>,
    pub headline: String,
    /// The target: its kind, namespace, name, API version and status, as the diagnosis says.
    pub kind: String,
    pub namespace: Option<String>,
    pub name: String,
    pub api_version: Option<String>,
    pub status: String,
    /// The diagnosis's language code (absent for English).
    pub lang: Option<String>,
    /// Its place in its scheduler's queue, when it holds one: what a group's queue line sums.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue: Option<LineQueue>,
}

/// A piece of work's place in a ClusterQueue or KAI Queue: the part of its
/// [`QueueStanding`] a group's queue line ([`crate::diagnosis::GroupQueue`]) is made of.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LineQueue {
    /// `kueue` or `kai-scheduler`.
    pub by: String,
    /// The ClusterQueue (Kueue) or Queue (KAI) the position counts in.
    pub queue: String,
    /// 1-based.
    pub position: u64,
    pub of: Option<u64>,
    pub source: String,
    pub partial: Vec<String>,
    pub wait: Option<WaitOutlook>,
    /// The standing's `visibility` and `visibilityWhy`.
    pub visibility: Option<String>,
    pub visibility_why: Option<String>,
}

impl LineQueue {
    /// The place a standing gives, when it names the queue and a position in it (a position in
    /// a LocalQueue alone counts in no queue a group rests on).
    pub fn of(q: &QueueStanding) -> Option<LineQueue> {
        let queue = match q.by.as_str() {
            "kueue" => q.cluster_queue.clone()?,
            _ => q.queue.clone()?,
        };
        Some(LineQueue {
            by: q.by.clone(),
            queue,
            position: q.position?,
            of: q.of,
            source: q.source.clone(),
            partial: q.partial.clone(),
            wait: q.wait.clone(),
            visibility: q.visibility.clone(),
            visibility_why: q.visibility_why.clone(),
        })
    }
}

impl ScanLine {
    /// The line of diagnosis `d`.
    pub fn of(d: &Diagnosis) -> ScanLine {
        let (t, v) = (&d.target, &d.verdict);
        ScanLine {
            state: v.state,
            layer: v.layer,
            outlook: v.outlook,
            rule: v.rule.clone(),
            cause: v.cause.clone(),
            headline: v.headline.clone(),
            kind: t.kind.clone(),
            namespace: t.namespace.clone(),
            name: t.name.clone(),
            api_version: t.api_version.clone(),
            status: t.status.clone(),
            lang: d.lang.clone(),
            queue: d.queue.as_ref().and_then(LineQueue::of),
        }
    }
}

/// A scan's listing, in the report's order, with what failed reads left unjudged.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ScanLines {
    pub lines: Vec<ScanLine>,
    pub incomplete: Option<Incomplete>,
}

impl ScanLines {
    /// The listing of a report already made (the renderers' one input).
    pub fn of_report(r: &ScanReport) -> ScanLines {
        ScanLines {
            lines: r.diagnoses.iter().map(ScanLine::of).collect(),
            incomplete: r.incomplete.clone(),
        }
    }
}
