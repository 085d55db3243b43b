//! Rule files: their format, loading and compilation.
//!
//! A rule is one YAML file `rules/<layer>/<name>.yaml`; its id `<layer>/<name>` comes from the
//! path, never from the file. Loading compiles every JSONPath once and checks every template
//! placeholder against what the conditions capture, so a typo fails the tests (and `cargo
//! build` of anything that loads rules), never a user's run. `docs/rules.md` documents the
//! format; `rules/README.md` is the author's guide.

use crate::error::RuleError;
use crate::layer::{Layer, LayerState, Severity};
use jsonpath_rust::parser::model::JpQuery;
use regex::Regex;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeSet;

/// What a rule contributes when it matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub enum RuleKind {
    /// A finding with a severity: something blocks, warns or is worth knowing.
    #[default]
    Finding,
    /// The layer's own decision as observed (e.g. "Kueue admitted the workload"): sets the
    /// layer's state and summary, and is not listed among findings.
    Status,
    /// Two layers disagree: names which said yes and which said no, and writes the headline.
    Misalignment,
}

/// What a blocking finding says of waiting, as its rule file states it (`outlook:`): the
/// verdict's [`crate::diagnosis::Outlook`] when the finding decides it, or `unknown` for a
/// finding that cannot tell (a layer's generic reported failure), which leaves it null.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum RuleOutlook {
    Never,
    Waiting,
    Unknown,
}

impl RuleOutlook {
    pub fn as_str(self) -> &'static str {
        match self {
            RuleOutlook::Never => "never",
            RuleOutlook::Waiting => "waiting",
            RuleOutlook::Unknown => "unknown",
        }
    }

    /// The verdict's outlook when this decides it.
    pub fn verdict(self) -> Option<crate::diagnosis::Outlook> {
        match self {
            RuleOutlook::Never => Some(crate::diagnosis::Outlook::Never),
            RuleOutlook::Waiting => Some(crate::diagnosis::Outlook::Waiting),
            RuleOutlook::Unknown => None,
        }
    }
}

/// A fixture: a bundle and a target on which the rule must fire, or must not. The bundle is a
/// scenario's (a whole cluster written to prove rules), a real incident's (what a user
/// pasted, `tests/incidents/`), or a fit's (a cluster and a manifest judged as if submitted,
/// `tests/fits/`): exactly one of the three.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fixture {
    /// Directory name under `tests/scenarios/`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scenario: Option<String>,
    /// Directory name under `tests/incidents/`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub incident: Option<String>,
    /// Directory name under `tests/fits/`: a cluster and a manifest, the target one of the
    /// manifest's pieces of work as `fit` judges it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fit: Option<String>,
    /// `Kind/namespace/name`.
    pub target: String,
    pub fires: bool,
}

/// A rule file as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RuleFile {
    #[serde(default)]
    kind: RuleKind,
    #[serde(default)]
    severity: Option<Severity>,
    /// For blocking findings (required there): whether waiting would let the work run.
    #[serde(default)]
    outlook: Option<RuleOutlook>,
    #[serde(default)]
    state: Option<String>,
    #[serde(default)]
    said_yes: Option<Layer>,
    #[serde(default)]
    said_no: Option<Layer>,
    summary: String,
    #[serde(default)]
    applies_to: Vec<String>,
    when: CondSpec,
    message: String,
    #[serde(default)]
    observation: Option<String>,
    #[serde(default)]
    headline: Option<String>,
    #[serde(default)]
    decided_by: Vec<String>,
    #[serde(default)]
    upstream: Option<String>,
    #[serde(default)]
    versions: Option<String>,
    #[serde(default)]
    why: String,
    #[serde(default)]
    fix: String,
    #[serde(default)]
    next: Vec<String>,
    #[serde(default)]
    explains: Vec<String>,
    #[serde(default)]
    priority: i32,
    #[serde(default)]
    references: Vec<String>,
    #[serde(default)]
    fixtures: Vec<Fixture>,
    /// Placeholder → the neutral words a text uses when the bundle lacks the value. A test that
    /// captures one of these only feeds the words, so it never gates the rule.
    #[serde(default)]
    absent: std::collections::BTreeMap<String, String>,
    /// The generic evidence floor of a layer: any other finding of the layer explains it.
    #[serde(default)]
    floor: bool,
    /// Where the fix belongs (`cluster` unless the finding is a known upstream behaviour).
    #[serde(default)]
    fix_in: crate::diagnosis::FixIn,
}

/// A condition as written: exactly one of `all`, `any`, `not`, or a test on `path`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct CondSpec {
    all: Option<Vec<CondSpec>>,
    any: Option<Vec<CondSpec>>,
    not: Option<Box<CondSpec>>,
    path: Option<String>,
    exists: Option<bool>,
    equals: Option<Value>,
    #[serde(rename = "in")]
    in_: Option<Vec<Value>>,
    matches: Option<String>,
    contains: Option<String>,
    gt: Option<f64>,
    ge: Option<f64>,
    lt: Option<f64>,
    le: Option<f64>,
    capture: Option<String>,
    evidence: Option<bool>,
}

/// A compiled condition.
#[derive(Debug, Clone)]
pub enum Cond {
    All(Vec<Cond>),
    Any(Vec<Cond>),
    Not(Box<Cond>),
    Test(Test),
}

/// A compiled test: a JSONPath into the view and what its values must satisfy.
#[derive(Debug, Clone)]
pub struct Test {
    pub source: String,
    pub path: JpQuery,
    /// The path as plain steps when it has no wildcard, filter or descendant segment (most
    /// rule paths): walked directly, without the general engine's bookkeeping.
    pub steps: Option<Vec<Step>>,
    pub op: Op,
    pub capture: Option<String>,
    pub evidence: bool,
    /// It captures a value that only the rule's words use (`absent:`): when it does not hold,
    /// the `all` it stands in still can.
    pub optional: bool,
}

/// One step of a plain path: a member name or an array index (negative from the end).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    Name(String),
    Index(i64),
}

/// A path of names and indexes only, as steps; None when it has any other segment.
pub fn plain_steps(path: &jsonpath_rust::parser::model::JpQuery) -> Option<Vec<Step>> {
    use jsonpath_rust::parser::model::{Segment, Selector};
    path.segments
        .iter()
        .map(|s| match s {
            Segment::Selector(Selector::Name(n)) => Some(Step::Name(n.clone())),
            Segment::Selector(Selector::Index(i)) => Some(Step::Index(*i)),
            _ => None,
        })
        .collect()
}

#[derive(Debug, Clone)]
pub enum Op {
    /// `exists: true` (some value) or `exists: false` (no value at all).
    Exists(bool),
    Equals(Value),
    In(Vec<Value>),
    Matches(Regex),
    Contains(String),
    Compare(Cmp, f64),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cmp {
    Gt,
    Ge,
    Lt,
    Le,
}

/// A loaded, compiled rule.
#[derive(Debug, Clone)]
pub struct Rule {
    pub id: String,
    pub layer: Layer,
    pub kind: RuleKind,
    pub severity: Severity,
    /// For blocking findings: whether waiting would let the work run (always stated there).
    pub outlook: Option<RuleOutlook>,
    /// For status rules: the state it sets.
    pub state: Option<LayerState>,
    pub said_yes: Option<Layer>,
    pub said_no: Option<Layer>,
    pub summary: String,
    pub applies_to: Vec<String>,
    pub when: Cond,
    pub message: String,
    pub observation: Option<String>,
    pub headline: Option<String>,
    pub decided_by: Vec<String>,
    pub upstream: Option<String>,
    pub versions: Option<String>,
    pub why: String,
    pub fix: String,
    pub next: Vec<String>,
    pub explains: Vec<String>,
    pub priority: i32,
    pub references: Vec<String>,
    pub fixtures: Vec<Fixture>,
    /// Placeholder → neutral words when the value is absent (see the file format's `absent`).
    pub absent: std::collections::BTreeMap<String, String>,
    /// The layer's generic evidence floor: explained by any other finding of its layer, and
    /// the verdict only when no specific finding blocks anywhere.
    pub floor: bool,
    /// Where a finding's fix belongs: the user's cluster or the upstream project.
    pub fix_in: crate::diagnosis::FixIn,
    /// The file's text, for `explain` and the docs.
    pub source_file: String,
}

/// Placeholders every template may use besides the rule's own captures.
pub const BUILTINS: &[&str] = &[
    "target",
    "target.kind",
    "target.name",
    "target.namespace",
    "namespace",
    "pod",
    "status",
    "observation",
];

impl Fixture {
    /// Where the fixture's bundle lives: `tests/scenarios/<name>` or `tests/incidents/<name>`.
    pub fn bundle_dir(&self) -> String {
        match (&self.scenario, &self.incident, &self.fit) {
            (Some(s), _, _) => format!("tests/scenarios/{s}"),
            (None, Some(i), _) => format!("tests/incidents/{i}"),
            (None, None, Some(f)) => format!("tests/fits/{f}"),
            (None, None, None) => String::new(),
        }
    }
}

impl Cond {
    /// Every test below this condition, in file order.
    pub fn tests(&self) -> Vec<&Test> {
        let mut out = Vec::new();
        let mut stack = vec![self];
        while let Some(c) = stack.pop() {
            match c {
                Cond::All(cs) | Cond::Any(cs) => stack.extend(cs.iter().rev()),
                Cond::Not(c) => stack.push(c),
                Cond::Test(t) => out.push(t),
            }
        }
        out
    }
}

impl Rule {
    /// The facts its paths read (`$.facts.<name>`), each once, in the catalog's order: what
    /// its documentation links to the code that builds them.
    pub fn facts_read(&self) -> Vec<&'static crate::facts::FactDef> {
        let read: Vec<&str> = self
            .when
            .tests()
            .into_iter()
            .filter_map(|t| crate::catalog::path_head(&t.source).and_then(|(_, f)| f))
            .collect();
        crate::facts::FACTS
            .iter()
            .filter(|f| read.contains(&f.name))
            .collect()
    }

    /// Load one rule from its path relative to `rules/` (e.g. `placement/insufficient.yaml`).
    pub fn load(rel_path: &str, text: &str) -> Result<Rule, RuleError> {
        let invalid = |message: String| RuleError::Invalid {
            file: rel_path.to_string(),
            message,
        };
        let stem = rel_path
            .strip_suffix(".yaml")
            .ok_or_else(|| invalid("a rule file must end in .yaml".into()))?;
        let (layer_name, name) = stem
            .split_once('/')
            .ok_or_else(|| invalid("a rule file lives in rules/<layer>/".into()))?;
        let layer = Layer::parse(layer_name)
            .ok_or_else(|| invalid(format!("`{layer_name}` is not a layer")))?;
        if name.is_empty()
            || !name
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        {
            return Err(invalid(format!(
                "rule name `{name}` must be lowercase words joined by '-'"
            )));
        }
        let file: RuleFile = serde_yaml_ng::from_str(text).map_err(|e| invalid(e.to_string()))?;
        let mut captures = BTreeSet::new();
        let when = compile(rel_path, &file.when, &mut captures, &file.absent)?;
        for k in file.absent.keys() {
            if !captures.contains(k) {
                return Err(invalid(format!(
                    "absent: `{k}` is not a capture of this rule"
                )));
            }
        }
        for f in &file.fixtures {
            let named = [f.scenario.is_some(), f.incident.is_some(), f.fit.is_some()];
            if named.iter().filter(|n| **n).count() != 1 {
                return Err(invalid(format!(
                    "fixture for {}: name exactly one of `scenario`, `incident` and `fit`",
                    f.target
                )));
            }
        }
        if file.fix_in == crate::diagnosis::FixIn::Upstream && file.upstream.is_none() {
            return Err(invalid(
                "`fixIn: upstream` names the project in `upstream`".into(),
            ));
        }
        if file.floor && file.kind != RuleKind::Finding {
            return Err(invalid("only findings can be a layer's `floor`".into()));
        }

        let severity = match (file.kind, file.severity) {
            (RuleKind::Finding, Some(s)) => s,
            (RuleKind::Finding, None) => {
                return Err(invalid("a finding needs a `severity`".into()));
            }
            (_, Some(_)) => return Err(invalid("only findings have a `severity`".into())),
            (_, None) => Severity::Info,
        };
        // Every blocking finding says whether waiting helps: the verdict it decides carries it.
        match (severity, file.kind, file.outlook) {
            (Severity::Block, RuleKind::Finding, None) => {
                return Err(invalid(
                    "a blocking finding states its `outlook`: never (waiting will not change it), waiting (it runs once something frees up or arrives) or unknown".into(),
                ));
            }
            (Severity::Block, RuleKind::Finding, Some(_)) | (_, _, None) => {}
            (_, _, Some(_)) => {
                return Err(invalid("only blocking findings have an `outlook`".into()));
            }
        }
        let state = match (file.kind, file.state.as_deref()) {
            (RuleKind::Status, Some(s)) => Some(
                LayerState::parse(s)
                    .ok_or_else(|| invalid(format!("`{s}` is not a layer state")))?,
            ),
            (RuleKind::Status, None) => {
                return Err(invalid("a status rule needs a `state`".into()));
            }
            (_, Some(_)) => return Err(invalid("only status rules have a `state`".into())),
            (_, None) => None,
        };
        if file.kind == RuleKind::Misalignment {
            let (Some(yes), Some(no)) = (file.said_yes, file.said_no) else {
                return Err(invalid(
                    "a misalignment names `saidYes` and `saidNo`".into(),
                ));
            };
            if yes == no {
                return Err(invalid(
                    "`saidYes` and `saidNo` must be two different layers".into(),
                ));
            }
            if file.headline.is_none() {
                return Err(invalid("a misalignment needs a `headline`".into()));
            }
        } else if file.said_yes.is_some() || file.said_no.is_some() {
            return Err(invalid("only misalignments have `saidYes`/`saidNo`".into()));
        }
        if file.summary.trim().is_empty() || file.summary.contains('\n') {
            return Err(invalid("`summary` is one non-empty line".into()));
        }
        if file.kind == RuleKind::Finding
            && (file.why.trim().is_empty() || file.fix.trim().is_empty())
        {
            return Err(invalid("a finding explains `why` and `fix`".into()));
        }
        for s in &file.applies_to {
            if crate::catalog::subject(s).is_none() {
                return Err(invalid(format!(
                    "appliesTo: `{s}` is not a view subject ({})",
                    crate::catalog::subject_names()
                )));
            }
        }
        let templates = std::iter::once(&file.message)
            .chain(file.observation.iter())
            .chain(file.headline.iter())
            .chain(file.next.iter())
            .chain(file.decided_by.iter());
        for t in templates {
            for p in crate::template::placeholders(t) {
                if !captures.contains(p) && !BUILTINS.contains(&p) {
                    return Err(invalid(format!(
                        "template `{t}` uses `{{{p}}}`, which no condition captures"
                    )));
                }
            }
        }
        Ok(Rule {
            id: stem.to_string(),
            layer,
            kind: file.kind,
            severity,
            outlook: file.outlook,
            state,
            said_yes: file.said_yes,
            said_no: file.said_no,
            summary: file.summary,
            applies_to: file.applies_to,
            when,
            message: file.message.trim().to_string(),
            observation: file.observation.map(|s| s.trim().to_string()),
            headline: file.headline.map(|s| s.trim().to_string()),
            decided_by: file.decided_by,
            upstream: file.upstream,
            versions: file.versions,
            why: file.why.trim().to_string(),
            fix: file.fix.trim().to_string(),
            next: file.next,
            explains: file.explains,
            priority: file.priority,
            references: file.references,
            fixtures: file.fixtures,
            absent: file.absent,
            floor: file.floor,
            fix_in: file.fix_in,
            source_file: text.to_string(),
        })
    }
}

fn compile(
    file: &str,
    c: &CondSpec,
    captures: &mut BTreeSet<String>,
    absent: &std::collections::BTreeMap<String, String>,
) -> Result<Cond, RuleError> {
    let invalid = |message: &str| RuleError::Invalid {
        file: file.to_string(),
        message: message.to_string(),
    };
    let forms = [
        c.all.is_some(),
        c.any.is_some(),
        c.not.is_some(),
        c.path.is_some(),
    ];
    if forms.iter().filter(|f| **f).count() != 1 {
        return Err(invalid(
            "a condition is exactly one of `all`, `any`, `not` or a `path` test",
        ));
    }
    if let Some(all) = &c.all {
        return Ok(Cond::All(
            all.iter()
                .map(|x| compile(file, x, captures, absent))
                .collect::<Result<_, _>>()?,
        ));
    }
    if let Some(any) = &c.any {
        return Ok(Cond::Any(
            any.iter()
                .map(|x| compile(file, x, captures, absent))
                .collect::<Result<_, _>>()?,
        ));
    }
    if let Some(not) = &c.not {
        // Captures under `not` never hold a value; do not offer them to templates.
        let mut discard = BTreeSet::new();
        return Ok(Cond::Not(Box::new(compile(
            file,
            not,
            &mut discard,
            &Default::default(),
        )?)));
    }
    let source = c.path.clone().unwrap_or_default();
    if source != source.trim() || !source.starts_with("$.") {
        return Err(invalid(&format!(
            "path `{source}` must start with `$.` and have no surrounding spaces"
        )));
    }
    let (subject, fact) = crate::catalog::path_head(&source).unwrap_or(("", None));
    if crate::catalog::subject(subject).is_none() {
        return Err(invalid(&format!(
            "path `{source}` starts at `{subject}`, not a view subject ({})",
            crate::catalog::subject_names()
        )));
    }
    if let Some(f) = fact
        && crate::facts::registry::fact(f).is_none()
    {
        return Err(invalid(&format!(
            "path `{source}` reads `$.facts.{f}`, which no code builds (facts: {})",
            crate::facts::registry::fact_names()
        )));
    }
    // Below the fact's key, the fact's type decides: with the schema compiled in (the tests and
    // `cargo xtask`), a misspelt field is a load error naming the rule and the path.
    #[cfg(feature = "schema")]
    if let Err(message) = crate::facts::schema::check_path(&source, crate::facts::schema::cached())
    {
        return Err(RuleError::Path {
            file: file.to_string(),
            path: source.clone(),
            message,
        });
    }
    let path = jsonpath_rust::parser::parse_json_path(&source).map_err(|e| RuleError::Path {
        file: file.to_string(),
        path: source.clone(),
        message: e.to_string(),
    })?;
    let ops = [
        c.exists.map(Op::Exists),
        c.equals.clone().map(Op::Equals),
        c.in_.clone().map(Op::In),
        c.matches
            .as_ref()
            .map(|m| {
                Regex::new(m)
                    .map(Op::Matches)
                    .map_err(|e| invalid(&format!("`matches: {m}`: {e}")))
            })
            .transpose()?,
        c.contains.clone().map(Op::Contains),
        c.gt.map(|v| Op::Compare(Cmp::Gt, v)),
        c.ge.map(|v| Op::Compare(Cmp::Ge, v)),
        c.lt.map(|v| Op::Compare(Cmp::Lt, v)),
        c.le.map(|v| Op::Compare(Cmp::Le, v)),
    ];
    let mut ops: Vec<Op> = ops.into_iter().flatten().collect();
    if ops.len() > 1 {
        return Err(invalid(&format!(
            "path `{source}`: one test per condition (use `all` to combine)"
        )));
    }
    let op = ops.pop().unwrap_or(Op::Exists(true));
    if let Some(cap) = &c.capture {
        if matches!(op, Op::Exists(false)) {
            return Err(invalid("`exists: false` has no value to capture"));
        }
        if BUILTINS.contains(&cap.as_str()) {
            return Err(invalid(&format!(
                "capture `{cap}` shadows a built-in placeholder"
            )));
        }
        captures.insert(cap.clone());
    }
    let steps = plain_steps(&path);
    Ok(Cond::Test(Test {
        source,
        path,
        steps,
        op,
        capture: c.capture.clone(),
        evidence: c.evidence.unwrap_or(true),
        optional: c.capture.as_ref().is_some_and(|k| absent.contains_key(k)),
    }))
}
