//! The Diagnosis contract (`kubectl-layer/v1`): the JSON every front end prints and every
//! embedder reads. Field names and meanings follow `design.md` ("Diagnosis"); add fields freely,
//! never rename or remove one. The JSON Schema in `docs/diagnosis.schema.json` is generated from
//! these types (feature `schema`) and a test keeps it current.

pub use crate::bundle::Missing;
use crate::layer::{Layer, LayerState, Severity};
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub const SCHEMA_VERSION: &str = "kubectl-layer/v1";

/// The target's `status` in a `fit` diagnosis: the manifest's work as if submitted now.
pub const NOT_SUBMITTED: &str = "NotSubmitted";

/// A reference to one Kubernetes object.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ObjectRef {
    pub api_version: String,
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    pub name: String,
}

impl ObjectRef {
    /// `Kind ns/name`, or `Kind name` for cluster-scoped objects.
    pub fn display(&self) -> String {
        match &self.namespace {
            Some(ns) => format!("{} {}/{}", self.kind, ns, self.name),
            None => format!("{} {}", self.kind, self.name),
        }
    }

    /// The web page's target value: `Kind/namespace/name` (empty namespace when cluster-scoped).
    pub fn target_value(&self) -> String {
        format!(
            "{}/{}/{}",
            self.kind,
            self.namespace.as_deref().unwrap_or(""),
            self.name
        )
    }
}

/// The object a diagnosis is about.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Target {
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_version: Option<String>,
    /// A short status as kubectl would show it (`Pending`, `Running`, `Suspended`, `2/4 ready` …);
    /// `NotSubmitted` for the work a `fit` judges as if submitted now.
    pub status: String,
}

/// One observation backing a finding or a layer's state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Evidence {
    pub object: ObjectRef,
    /// Normalized JSONPath into `object`, or `null` for a computed fact.
    pub path: Option<String>,
    /// The computed fact's name, when `path` is `null`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fact: Option<String>,
    /// The raw JSON value observed.
    pub value: Value,
}

/// Two layers that disagree: one granted or promised something, the next refused it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Misalignment {
    pub said_yes: Layer,
    pub said_no: Layer,
    pub why: String,
    /// The layer that said yes is also where the cause sits: its configuration promised what it
    /// does not deliver (a pool's GPU count the nodes never took up). Renderers say "device's
    /// configuration said yes", never "device said yes" beside a blocked device row.
    #[serde(default)]
    pub said_yes_by_configuration: bool,
}

/// The overall answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Verdict {
    /// `blocked`, `warn`, `ok` or `unknown`.
    pub state: LayerState,
    /// The layer where the cause sits; `null` when nothing blocks or warns.
    pub layer: Option<Layer>,
    /// One line, fit for an upstream issue title: layer plus observation.
    pub headline: String,
    /// The headline in the reader's language when the diagnosis is written in another one
    /// (`--lang ko`): `headline` itself stays English, for an upstream issue's title. Absent in
    /// English.
    #[serde(
        default,
        rename = "headlineKo",
        skip_serializing_if = "Option::is_none"
    )]
    pub headline_ko: Option<String>,
    pub misalignment: Option<Misalignment>,
    /// The id of the rule whose finding the verdict rests on; `null` when nothing blocks or
    /// warns. What a metric or an alert names as the cause.
    #[serde(default)]
    pub rule: Option<String>,
    /// Whether waiting would let the blocked work run: `never` (the request exceeds what any
    /// node or quota could ever give, a RuntimeClass or DeviceClass is missing, nobody
    /// advertises the resource: something must change first), `waiting` (it runs once what it
    /// waits for frees up or arrives: quota in use, devices busy), or `null` when nothing
    /// blocks, or when what blocks is a layer's generic reported failure, whose outcome the
    /// tool cannot tell. Taken from the rule of the finding that decided the verdict (its
    /// `outlook:`); the headline is not changed, renderers say it after the headline.
    #[serde(default)]
    pub outlook: Option<Outlook>,
}

/// Whether waiting would let blocked work run (see [`Verdict::outlook`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub enum Outlook {
    /// Waiting will not change it: something in the spec or the cluster must change first.
    Never,
    /// It runs once what it waits for (quota, devices, another component) frees up or arrives.
    Waiting,
}

impl Outlook {
    pub fn as_str(self) -> &'static str {
        match self {
            Outlook::Never => "never",
            Outlook::Waiting => "waiting",
        }
    }

    pub fn parse(s: &str) -> Option<Outlook> {
        [Outlook::Never, Outlook::Waiting]
            .into_iter()
            .find(|o| o.as_str() == s)
    }
}

/// One layer's own decision, as observed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct LayerReport {
    pub layer: Layer,
    pub state: LayerState,
    /// Lowercase component names as the components call themselves.
    pub decided_by: Vec<String>,
    pub summary: String,
    pub evidence: Vec<Evidence>,
}

/// One rule that fired.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Finding {
    /// Stable rule id, `<layer>/<name>`.
    pub rule: String,
    pub layer: Layer,
    pub severity: Severity,
    pub message: String,
    pub evidence: Vec<Evidence>,
    pub next: Vec<String>,
    /// GitHub `owner/repo` that owns the behaviour.
    pub upstream: Option<String>,
    /// Where the fix belongs: `cluster` (the user's own setup or configuration) or `upstream`
    /// (a known behaviour of that project, or its docs and its behaviour differing: worth a
    /// report under its contribution rules).
    #[serde(default)]
    pub fix_in: FixIn,
}

/// Where a finding's fix belongs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub enum FixIn {
    /// The user's own cluster: setup, configuration, capacity.
    #[default]
    Cluster,
    /// The project named by `upstream`: a known bug or a documented-vs-actual difference.
    Upstream,
}

/// Which "now" the diagnosis reasoned with (the core has no clock).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Now {
    /// RFC 3339 UTC timestamp.
    pub time: String,
    /// `option` (given by the caller), `collectedAt` (the tool's own bundle) or `newestInBundle`.
    pub source: String,
}

/// The whole answer for one target.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Diagnosis {
    pub schema_version: String,
    pub target: Target,
    pub verdict: Verdict,
    /// Always all six layers, in contract order.
    pub layers: Vec<LayerReport>,
    /// Sorted by severity, then layer order, then rule id.
    pub findings: Vec<Finding>,
    /// Commands to run next, most useful first, without repeats.
    pub next: Vec<String>,
    pub missing: Vec<Missing>,
    /// Pods the diagnosis looked at (for targets that are not pods).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pods: Vec<PodSummary>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub now: Option<Now>,
    /// The moments the bundle proves about this work, oldest first: creation times, condition
    /// transitions, events, container starts and ends. Events expire after an hour; what is
    /// kept here is what a later reader can still check.
    #[serde(default)]
    pub timeline: Timeline,
    /// The language the texts are written in (`ko`); absent for English, the default, so
    /// English output is what it was before languages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lang: Option<String>,
    /// Reads this diagnosis needed that failed, and what they left unjudged: present, the
    /// verdict is not an all-clear (the CLI's exit status is then 1 at least). Absent when
    /// every read worked, or the input is a file without the reader's record.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub incomplete: Option<Incomplete>,
}

/// Reads that failed (forbidden, failing, too slow, not requested) and what they leave
/// unjudged (the `reads` module decides).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Incomplete {
    /// Nothing could be judged: no verdict of this answer stands (the CLI's exit status 3,
    /// "the cluster could not be read").
    pub nothing_judged: bool,
    /// Each failed read, with what it leaves unjudged.
    pub reads: Vec<FailedRead>,
}

/// One failed read and what it leaves unjudged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct FailedRead {
    /// The read, as the reader named it under `kubectlLayer.unreadable`.
    pub read: Missing,
    /// The layers whose judgement needs what it would have read: `unknown` wherever no
    /// finding proves them from what was read.
    pub layers: Vec<Layer>,
    /// Work of its kind (or made of its pods) could not be listed: such work may not run,
    /// and is in no answer.
    pub work_unlisted: bool,
    /// What could not be judged, in words.
    pub unjudged: String,
}

/// The moments of one diagnosis, in order: by time, then layer order, then object, then text.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Timeline {
    /// The newest moments, at most `timeline::MAX_MOMENTS`, oldest first.
    pub moments: Vec<Moment>,
    /// How many older moments were left out to keep it readable.
    pub earlier: usize,
}

/// One moment the bundle proves.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Moment {
    /// RFC 3339, as the object wrote it.
    pub time: String,
    pub layer: Layer,
    /// The object the moment is about (an event's is the object it reports on).
    pub object: ObjectRef,
    /// `created`, `started`, `finished`, `condition`, `container` or `event`.
    pub kind: MomentKind,
    /// What happened, in a few words (`PodScheduled=False (Unschedulable): 0/4 nodes …`).
    pub text: String,
    /// For an event: how many times it was seen in all (the first and the last time each
    /// appear as a moment of their own).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u64>,
}

/// What kind of moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub enum MomentKind {
    /// `metadata.creationTimestamp`.
    Created,
    /// `status.startTime` of a Job or a Pod.
    Started,
    /// `status.completionTime` of a Job.
    Finished,
    /// A condition's `lastTransitionTime` (a Workload's admission and eviction are these).
    Condition,
    /// A container's `startedAt` or `finishedAt`.
    Container,
    /// An event's first or last time.
    Event,
}

/// A pod named by a diagnosis of its owner.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct PodSummary {
    pub namespace: String,
    pub name: String,
    pub status: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
}

/// `scan`'s answer: every piece of work that is not running.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ScanReport {
    pub schema_version: String,
    pub diagnoses: Vec<Diagnosis>,
    /// Reads the scan needed that failed, and what they left unjudged: present, an empty or
    /// short list is not an all-clear.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub incomplete: Option<Incomplete>,
}

/// One candidate target, as `targets()` lists them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct TargetEntry {
    pub kind: String,
    pub api_version: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    pub name: String,
    pub status: String,
    /// False when the work is running, ready or finished.
    pub needs_attention: bool,
    /// `Kind/namespace/name`.
    pub value: String,
}

/// The JSON Schemas of the contract, generated from these types: (file name, schema).
#[cfg(feature = "schema")]
pub fn schemas() -> Vec<(&'static str, serde_json::Value)> {
    let diag = schemars::schema_for!(Diagnosis);
    let scan = schemars::schema_for!(ScanReport);
    let targets = schemars::schema_for!(Vec<TargetEntry>);
    let rules = schemars::schema_for!(Vec<RuleInfo>);
    vec![
        (
            "diagnosis.schema.json",
            serde_json::to_value(diag).unwrap_or_default(),
        ),
        (
            "scan.schema.json",
            serde_json::to_value(scan).unwrap_or_default(),
        ),
        (
            "targets.schema.json",
            serde_json::to_value(targets).unwrap_or_default(),
        ),
        (
            "rules.schema.json",
            serde_json::to_value(rules).unwrap_or_default(),
        ),
    ]
}

/// A rule's metadata and documentation, as `kubectl layer rules -o json` and the npm package's
/// `rules()` return it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct RuleInfo {
    pub id: String,
    pub layer: crate::layer::Layer,
    /// `finding`, `status` or `misalignment`.
    pub kind: String,
    /// For findings.
    pub severity: Option<Severity>,
    /// For status rules: the layer state it sets.
    pub state: Option<LayerState>,
    pub said_yes: Option<crate::layer::Layer>,
    pub said_no: Option<crate::layer::Layer>,
    pub summary: String,
    pub message: String,
    pub why: String,
    pub fix: String,
    pub next: Vec<String>,
    pub upstream: Option<String>,
    /// The upstream project's contribution rules.
    pub contributing: Option<UpstreamInfo>,
    pub decided_by: Vec<String>,
    pub versions: Option<String>,
    pub references: Vec<String>,
    pub explains: Vec<String>,
    /// For blocking findings: `never`, `waiting` or `unknown`, what the verdict's `outlook`
    /// becomes when this finding decides it (`unknown` leaves it null).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outlook: Option<String>,
    /// The rule's documentation as Markdown (what `kubectl layer explain` prints).
    pub documentation: String,
}

/// An upstream project's contribution rules.
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct UpstreamInfo {
    pub project: String,
    pub rules: Vec<String>,
}
