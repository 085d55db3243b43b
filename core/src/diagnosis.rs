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
        named_object(&self.kind, self.namespace.as_deref(), &self.name)
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
    /// The object the verdict's rule rests on, what a scan groups work by
    /// (see the `groups` module); `None` when nothing blocks or the rule rests on the work's own
    /// objects only. Not written into a diagnosis (its groups say it): a diagnosis read back
    /// from JSON has none.
    #[serde(skip)]
    #[cfg_attr(feature = "schema", schemars(skip))]
    pub cause: Option<Cause>,
}

/// The object a cause rests on, as a scan's groups name it (see the `groups` module).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Cause {
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    pub name: String,
    /// For a ClusterQueue: the ResourceFlavors the verdict's evidence names (Kueue's
    /// flavor-assignment message: `… in flavor a100`), sorted and joined with `, `, so the work
    /// short of one flavor's quota is a group apart from the work short of another's. Absent
    /// when the evidence names none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flavor: Option<String>,
}

impl Cause {
    /// `Kind ns/name`, or `Kind name` for cluster-scoped objects, then `, flavor f` when it
    /// names one.
    pub fn display(&self) -> String {
        let object = named_object(&self.kind, self.namespace.as_deref(), &self.name);
        match &self.flavor {
            Some(f) => format!("{object}, flavor {f}"),
            None => object,
        }
    }
}

/// `Kind ns/name`, or `Kind name` for cluster-scoped objects.
fn named_object(kind: &str, namespace: Option<&str>, name: &str) -> String {
    match namespace {
        Some(ns) => format!("{kind} {ns}/{name}"),
        None => format!("{kind} {name}"),
    }
}

/// One example of a group's work.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Example {
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    pub name: String,
    pub status: String,
    pub headline: String,
}

/// Where a group's work stands in its queue: for a group resting on a Kueue ClusterQueue or a
/// KAI Queue, from its work's own places ([`crate::standing::QueueStanding`]) in that queue.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct GroupQueue {
    /// The first and last positions (1-based) of the group's work in its queue.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub positions: Option<(u64, u64)>,
    /// How many wait in that queue.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub of: Option<u64>,
    /// The wait outlook in the report's words (until the group's last piece of work has its
    /// turn), or what the bundle lacks to give one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait: Option<String>,
    /// The scheduler whose queue it is: `kueue` or `kai-scheduler`.
    #[serde(default)]
    pub by: String,
    /// The queue the positions count in: the ClusterQueue's (or KAI Queue's) name.
    #[serde(default)]
    pub queue: String,
    /// How many of the group's pieces of work hold a place in it (the rest: no position known).
    #[serde(default)]
    pub placed: usize,
    /// Where the positions come from: `bundle`, `visibilityApi`, or `mixed` when the group's
    /// work has both.
    #[serde(default)]
    pub source: String,
    /// The union of its work's `partial` codes (see [`crate::standing::QueueStanding::partial`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub partial: Vec<String>,
    /// The outlook of the group's last position: the rate, and the minutes until its turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outlook: Option<crate::standing::WaitOutlook>,
    /// Roughly how many minutes until the group's first position has its turn, at that rate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_minutes: Option<u64>,
    /// Why some of its positions are the bundle's order although a live read could have asked
    /// Kueue's visibility API: the distinct codes of its work's `visibility` other than `used`
    /// (see [`crate::standing::QueueStanding::visibility`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub visibility: Vec<String>,
    /// The first reason a visibility read failed, when one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub visibility_why: Option<String>,
}

/// Work that shares a cause.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Group {
    pub layer: Option<Layer>,
    pub state: LayerState,
    pub outlook: Option<Outlook>,
    pub rule: Option<String>,
    /// The object the rule rests on; `null` when it rests on the work's own objects only.
    pub cause: Option<Cause>,
    /// How many listed pieces of work share this cause.
    pub count: usize,
    /// Their namespaces, sorted (cluster-scoped work adds none).
    pub namespaces: Vec<String>,
    /// The first few of them in the report's order.
    pub examples: Vec<Example>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue: Option<GroupQueue>,
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
    /// For work a scheduler's queue holds (a Kueue Workload without quota yet): its place in
    /// the queue and the wait outlook, as the bundle (or Kueue's visibility API, read live)
    /// shows them. Absent for work no queue holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue: Option<crate::standing::QueueStanding>,
    /// What the input could not show, when it was not `kubectl get` output: a `kubectl
    /// describe` paste leaves out UIDs, scheduling gates, condition messages… A verdict read
    /// from such an input may miss what those would have said.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub input_notes: Vec<String>,
}

/// Every string of a diagnosis: what [`Diagnosis::without_credentials`] cleans. A field added
/// to the contract is added here too; `credentials_leave_every_field_of_a_diagnosis` fails
/// until it is.
impl Diagnosis {
    /// The diagnosis without the user information of any URL it quotes ([`crate::credentials`]):
    /// the engine calls it on every diagnosis it makes, so every door prints it clean.
    pub fn without_credentials(&mut self) {
        use crate::credentials::in_string as s;
        s(&mut self.schema_version);
        let t = &mut self.target;
        [&mut t.kind, &mut t.name, &mut t.status]
            .into_iter()
            .for_each(s);
        [&mut t.namespace, &mut t.api_version]
            .into_iter()
            .flatten()
            .for_each(s);
        let v = &mut self.verdict;
        s(&mut v.headline);
        [&mut v.headline_ko, &mut v.rule]
            .into_iter()
            .flatten()
            .for_each(s);
        if let Some(m) = &mut v.misalignment {
            s(&mut m.why);
        }
        for l in &mut self.layers {
            l.decided_by.iter_mut().for_each(s);
            s(&mut l.summary);
            l.evidence
                .iter_mut()
                .for_each(Evidence::without_credentials);
        }
        for f in &mut self.findings {
            [&mut f.rule, &mut f.message].into_iter().for_each(s);
            f.upstream.iter_mut().for_each(s);
            f.next.iter_mut().for_each(s);
            f.evidence
                .iter_mut()
                .for_each(Evidence::without_credentials);
        }
        self.next.iter_mut().for_each(s);
        self.missing
            .iter_mut()
            .for_each(Missing::without_credentials);
        for p in &mut self.pods {
            [&mut p.namespace, &mut p.name, &mut p.status]
                .into_iter()
                .for_each(s);
            p.node.iter_mut().for_each(s);
        }
        if let Some(n) = &mut self.now {
            [&mut n.time, &mut n.source].into_iter().for_each(s);
        }
        for m in &mut self.timeline.moments {
            [&mut m.time, &mut m.text].into_iter().for_each(s);
            m.object.without_credentials();
        }
        self.lang.iter_mut().for_each(s);
        self.incomplete
            .iter_mut()
            .for_each(Incomplete::without_credentials);
        self.queue
            .iter_mut()
            .for_each(crate::standing::QueueStanding::without_credentials);
        self.input_notes.iter_mut().for_each(s);
    }
}

impl ObjectRef {
    fn without_credentials(&mut self) {
        use crate::credentials::in_string as s;
        [&mut self.api_version, &mut self.kind, &mut self.name]
            .into_iter()
            .for_each(s);
        self.namespace.iter_mut().for_each(s);
    }
}

impl Evidence {
    fn without_credentials(&mut self) {
        self.object.without_credentials();
        let fields = [&mut self.path, &mut self.fact];
        fields
            .into_iter()
            .flatten()
            .for_each(crate::credentials::in_string);
        crate::credentials::in_value(&mut self.value);
    }
}

impl Missing {
    /// The failed read without the user information of a URL its error quoted.
    pub fn without_credentials(&mut self) {
        use crate::credentials::in_string as s;
        [&mut self.kind, &mut self.why].into_iter().for_each(s);
        let named = [
            &mut self.api_version,
            &mut self.resource,
            &mut self.namespace,
            &mut self.name,
        ];
        named.into_iter().flatten().for_each(s);
    }
}

impl Incomplete {
    /// Every failed read without the user information of a URL it quotes.
    pub fn without_credentials(&mut self) {
        for r in &mut self.reads {
            r.read.without_credentials();
            crate::credentials::in_string(&mut r.unjudged);
        }
    }
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
    /// Every listed piece of work's diagnosis; absent from a summary (`scan --summary`).
    #[serde(default)]
    pub diagnoses: Vec<Diagnosis>,
    /// The same work grouped by cause (see the `groups` module): every listed diagnosis counted in
    /// exactly one group.
    #[serde(default)]
    pub groups: Vec<Group>,
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

#[cfg(test)]
mod tests {
    use super::Diagnosis;
    use serde_json::{Value, json};

    /// A diagnosis with every field of the contract present; each string's value is replaced
    /// below by one that quotes a URL with a password.
    fn every_field() -> Value {
        let object = json!({"apiVersion": "v1", "kind": "Pod", "namespace": "ml", "name": "p"});
        let evidence = json!([{"object": object, "path": "$.x", "fact": "f",
                               "value": {"k": ["v"], "nats://u:SECRET@h:1": "v"}}]);
        let missing = json!({"kind": "Pod", "apiVersion": "v1", "resource": "pods",
                             "namespace": "ml", "name": "p", "why": "w"});
        json!({
            "schemaVersion": "s",
            "target": {"kind": "Pod", "namespace": "ml", "name": "p", "apiVersion": "v1", "status": "s"},
            "verdict": {"state": "blocked", "layer": "runtime", "headline": "h", "headlineKo": "h",
                        "misalignment": {"saidYes": "placement", "saidNo": "runtime", "why": "w",
                                         "saidYesByConfiguration": false},
                        "rule": "r", "outlook": "never"},
            "layers": [{"layer": "device", "state": "ok", "decidedBy": ["d"], "summary": "s",
                        "evidence": evidence}],
            "findings": [{"rule": "r", "layer": "runtime", "severity": "block", "message": "m",
                          "evidence": evidence, "next": ["n"], "upstream": "u", "fixIn": "cluster"}],
            "next": ["n"],
            "missing": [missing],
            "pods": [{"namespace": "ml", "name": "p", "status": "s", "node": "n"}],
            "now": {"time": "t", "source": "s"},
            "timeline": {"moments": [{"time": "t", "layer": "runtime", "object": object,
                                      "kind": "event", "text": "t", "count": 2}], "earlier": 0},
            "lang": "ko",
            "incomplete": {"nothingJudged": false, "reads": [{"read": missing, "layers": ["device"],
                           "workUnlisted": false, "unjudged": "u"}]},
            "queue": {"by": "kueue", "clusterQueue": "c", "localQueue": "n/l", "queue": "q", "position": 2,
                      "of": 3, "positionInLocalQueue": 1, "ofLocalQueue": 1, "source": "bundle",
                      "strategy": "StrictFIFO", "priority": 5, "priorityClass": "p",
                      "orderedBy": "creation", "orderedAt": "t", "aheadByPriority": 1,
                      "reportedPending": 4, "partial": ["fewerThanReported"],
                      "visibility": "failed", "visibilityWhy": "w",
                      "wait": {"windowMinutes": 60, "admissions": 0, "perMinute": 0.5,
                               "minutes": 4, "missing": "m"}}
        })
    }

    /// The paths of every member of a JSON value: what the test holds the contract to.
    fn members(v: &Value, at: &str, out: &mut Vec<String>) {
        match v {
            Value::Object(m) => m.iter().for_each(|(k, c)| {
                out.push(format!("{at}.{k}"));
                members(c, &format!("{at}.{k}"), out);
            }),
            Value::Array(a) => a.iter().for_each(|c| members(c, &format!("{at}[]"), out)),
            _ => {}
        }
    }

    /// Every string leaf that still reads as a Diagnosis with a credential in it gets one
    /// (an enum's value would not, and keeps its own).
    fn planted(mut d: Value, leaf: &mut usize) -> Value {
        let mut paths = Vec::new();
        strings(&d, "", &mut paths);
        for p in paths {
            let mut tried = d.clone();
            let s = tried.pointer_mut(&p).expect("a string");
            *s = Value::String(format!("see nats://user:SECRET{leaf}@nats:4222 now"));
            if serde_json::from_value::<Diagnosis>(tried.clone()).is_ok() {
                d = tried;
                *leaf += 1;
            }
        }
        d
    }

    fn strings(v: &Value, at: &str, out: &mut Vec<String>) {
        match v {
            Value::String(_) => out.push(at.to_string()),
            Value::Object(m) => m.iter().for_each(|(k, c)| {
                strings(
                    c,
                    &format!("{at}/{}", k.replace('~', "~0").replace('/', "~1")),
                    out,
                )
            }),
            Value::Array(a) => a
                .iter()
                .enumerate()
                .for_each(|(i, c)| strings(c, &format!("{at}/{i}"), out)),
            _ => {}
        }
    }

    /// No string of a diagnosis keeps a URL's password after `without_credentials`, and the
    /// test names every field the contract has: a field added to `Diagnosis` fails it until it
    /// is filled above (and cleaned, if it holds text).
    #[test]
    fn credentials_leave_every_field_of_a_diagnosis() {
        let filled = every_field();
        let d: Diagnosis = serde_json::from_value(filled.clone()).expect("reads as a Diagnosis");
        let (mut want, mut got) = (Vec::new(), Vec::new());
        members(&filled, "", &mut want);
        members(&serde_json::to_value(&d).unwrap(), "", &mut got);
        want.sort();
        got.sort();
        assert_eq!(
            got, want,
            "every member of a Diagnosis is filled in the test"
        );
        let mut leaves = 0;
        let mut d: Diagnosis = serde_json::from_value(planted(filled, &mut leaves)).unwrap();
        assert!(leaves > 40, "{leaves} strings planted");
        d.without_credentials();
        let shown = serde_json::to_string(&d).unwrap();
        assert!(!shown.contains("SECRET"), "{shown}");
        assert!(shown.contains("see nats://nats:4222 now"));
    }
}
