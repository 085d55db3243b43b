//! Rule files: their format, loading and compilation.
//!
//! A rule is one YAML file `rules/<layer>/<name>.yaml`; its id `<layer>/<name>` comes from the
//! path, never from the file. Loading compiles every JSONPath once and checks every template
//! placeholder against what the conditions capture, so a typo fails the tests (and `cargo
//! build` of anything that loads rules), never a user's run. `docs/rules.md` documents the
//! format; `rules/README.md` is the author's guide.

use crate::error::RuleError;
use crate::layer::{Layer, LayerState, Severity};
use crate::pattern::Pattern;
use jsonpath_rust::parser::model::JpQuery;
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
    /// The rule's Korean texts, for `--lang ko`. Checked whenever the file is read; build.rs
    /// moves them from the builtin rule into the language pack (`lang::Pack`), which the WASM
    /// module is handed only when a page asks for Korean.
    #[serde(default)]
    ko: Option<Translation>,
}

/// A rule's texts in another language: the keys of its English texts, no more and no fewer,
/// each with the same placeholders (a count's word forms may differ: Korean needs none).
type Translation = crate::lang::RuleTexts;

/// Whether this build's builtin rules carry their documentation (`why`, `fix`, `versions`,
/// `references`): every build but the WASM module's, whose package ships it beside the module
/// (`web/rules.<lang>.json`) so that the module's size budget carries code and not prose.
pub const DOCS_EMBEDDED: bool = !cfg!(target_arch = "wasm32");

/// A rule's English texts, as a translation must mirror them.
struct English<'a> {
    summary: &'a str,
    message: &'a str,
    observation: Option<&'a str>,
    headline: Option<&'a str>,
    why: &'a str,
    fix: &'a str,
    absent: &'a std::collections::BTreeMap<String, String>,
}

impl RuleFile {
    fn english(&self) -> English<'_> {
        English {
            summary: &self.summary,
            message: &self.message,
            observation: self.observation.as_deref(),
            headline: self.headline.as_deref(),
            why: &self.why,
            fix: &self.fix,
            absent: &self.absent,
        }
    }
}

/// A text's placeholder names, sorted, each once: what a translation must use.
fn placeholder_names(t: &str) -> Vec<&str> {
    let mut names = crate::template::placeholders(t);
    names.sort_unstable();
    names.dedup();
    names
}

/// Why a rule's translation does not mirror its English texts, if it does not.
fn check_translation(file: English<'_>, lang: &str, t: &Translation) -> Result<(), String> {
    fn some(s: &str) -> Option<&str> {
        Some(s).filter(|s| !s.trim().is_empty())
    }
    let mut pairs = vec![
        (
            "summary",
            some(file.summary),
            t.summary.as_deref().and_then(some),
        ),
        (
            "message",
            some(file.message),
            t.message.as_deref().and_then(some),
        ),
        (
            "observation",
            file.observation.and_then(some),
            t.observation.as_deref().and_then(some),
        ),
        (
            "headline",
            file.headline.and_then(some),
            t.headline.as_deref().and_then(some),
        ),
    ];
    // Without the documentation (the WASM module), there is no English `why` and `fix` for a
    // translation's to mirror: the package's documentation file was checked where it was made.
    if DOCS_EMBEDDED {
        pairs.push(("why", some(file.why), t.why.as_deref().and_then(some)));
        pairs.push(("fix", some(file.fix), t.fix.as_deref().and_then(some)));
    }
    if file.absent.keys().ne(t.absent.keys()) {
        return Err(format!(
            "{lang}.absent names {:?}; the English names {:?}",
            t.absent.keys().collect::<Vec<_>>(),
            file.absent.keys().collect::<Vec<_>>()
        ));
    }
    pairs.extend(file.absent.iter().map(|(k, en)| {
        (
            "absent",
            some(en),
            t.absent.get(k).map(String::as_str).and_then(some),
        )
    }));
    for (key, en, other) in pairs {
        match (en, other) {
            (None, None) => {}
            (Some(_), None) => return Err(format!("{lang}.{key} is missing or empty")),
            (None, Some(_)) => {
                return Err(format!("{lang}.{key} has no English text to translate"));
            }
            (Some(en), Some(other)) => {
                let (want, got) = (placeholder_names(en), placeholder_names(other));
                if want != got {
                    return Err(format!(
                        "{lang}.{key} uses placeholders {got:?}; the English uses {want:?}"
                    ));
                }
            }
        }
    }
    Ok(())
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
    /// A regular expression as regex-lite reads it in every build (`crate::pattern`): `\d \s
    /// \w \b` and `(?i)` are ASCII, and Unicode classes (`\p{L}`) are refused when rules load.
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
    /// Otherwise the path compiled for [`crate::walk`] (wildcards and simple filters), when it
    /// can be.
    pub walk: Option<crate::walk::Walk>,
    pub op: Op,
    pub capture: Option<String>,
    pub evidence: bool,
    /// It captures a value that only the rule's words use (`absent:`): when it does not hold,
    /// the `all` it stands in still can.
    pub optional: bool,
    /// Where its first two member names lead is looked up once per view, in this slot of the
    /// view's scope (see `eval::assign_heads`, which gives it when the engine is assembled).
    pub head: Option<usize>,
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
    Matches(Pattern),
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
    /// `applies_to` as a set, checked against each view's.
    pub applies_set: crate::catalog::SubjectSet,
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
    /// The text the rule was read from (for a builtin rule, build.rs's JSON form of its file).
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
    /// This rule with its texts in `lang` (`t`, its translation), after checking that `t`
    /// mirrors the English; a text the rule lacks in English stays absent.
    pub fn translated(
        &self,
        lang: crate::lang::Lang,
        t: &crate::lang::RuleTexts,
    ) -> Result<Rule, RuleError> {
        let english = English {
            summary: &self.summary,
            message: &self.message,
            observation: self.observation.as_deref(),
            headline: self.headline.as_deref(),
            why: &self.why,
            fix: &self.fix,
            absent: &self.absent,
        };
        check_translation(english, lang.as_str(), t).map_err(|message| RuleError::Invalid {
            file: format!("{}.yaml", self.id),
            message,
        })?;
        let or = |own: &Option<String>, en: &String| own.clone().unwrap_or_else(|| en.clone());
        Ok(Rule {
            summary: or(&t.summary, &self.summary),
            message: or(&t.message, &self.message),
            observation: t.observation.clone().or_else(|| self.observation.clone()),
            headline: t.headline.clone().or_else(|| self.headline.clone()),
            why: or(&t.why, &self.why),
            fix: or(&t.fix, &self.fix),
            absent: if t.absent.is_empty() {
                self.absent.clone()
            } else {
                t.absent.clone()
            },
            ..self.clone()
        })
    }

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
        Rule::read(rel_path, text, || crate::embedded::from_yaml(text), &[])
    }

    /// A builtin rule file build.rs could not read: loaded now, to say why (builds that cannot
    /// read rule texts say that it did not build).
    pub fn load_unread(rel_path: &str, text: &str) -> Result<Rule, RuleError> {
        #[cfg(feature = "rule-authoring")]
        return Rule::load(rel_path, text);
        #[cfg(not(feature = "rule-authoring"))]
        return Err(RuleError::Invalid {
            file: rel_path.to_string(),
            message: format!(
                "not compiled into this build ({} bytes of YAML that build.rs could not read)",
                text.len()
            ),
        });
    }

    /// Load a rule compiled into the build: its file as build.rs read it (`json`), and every
    /// condition's path as build.rs parsed it, in the order the conditions are compiled (an
    /// empty entry for a path that did not parse: it is parsed now, to say why).
    pub fn load_builtin(rel_path: &str, json: &str, paths: &[&str]) -> Result<Rule, RuleError> {
        let read = || {
            let value: Value = serde_json::from_str(json).map_err(|e| e.to_string())?;
            serde_json::from_value(value).map_err(|e| e.to_string())
        };
        Rule::read(rel_path, json, read, paths)
    }

    fn read(
        rel_path: &str,
        text: &str,
        read: impl FnOnce() -> Result<RuleFile, String>,
        paths: &[&str],
    ) -> Result<Rule, RuleError> {
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
        let file: RuleFile = read().map_err(invalid)?;
        if let Some(ko) = &file.ko {
            check_translation(file.english(), "ko", ko).map_err(invalid)?;
        }
        let mut captures = BTreeSet::new();
        let mut paths = paths.iter().copied();
        let when = compile(
            rel_path,
            &file.when,
            &mut captures,
            &file.absent,
            &mut paths,
        )?;
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
        if DOCS_EMBEDDED
            && file.kind == RuleKind::Finding
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
            applies_set: crate::catalog::SubjectSet::of(file.applies_to.iter().map(String::as_str)),
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

/// Compile a condition; `paths` holds the build's parsed form of each path, in the order met
/// here (none for rule texts read at run time).
fn compile<'p>(
    file: &str,
    c: &CondSpec,
    captures: &mut BTreeSet<String>,
    absent: &std::collections::BTreeMap<String, String>,
    paths: &mut impl Iterator<Item = &'p str>,
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
                .map(|x| compile(file, x, captures, absent, paths))
                .collect::<Result<_, _>>()?,
        ));
    }
    if let Some(any) = &c.any {
        return Ok(Cond::Any(
            any.iter()
                .map(|x| compile(file, x, captures, absent, paths))
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
            paths,
        )?)));
    }
    let compiled = paths.next().filter(|code| !code.is_empty());
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
    let parsed = match compiled {
        Some(code) => crate::pathcode::decode(code),
        None => crate::embedded::parse_path(&source),
    };
    let path = parsed.map_err(|message| RuleError::Path {
        file: file.to_string(),
        path: source.clone(),
        message,
    })?;
    let ops = [
        c.exists.map(Op::Exists),
        c.equals.clone().map(Op::Equals),
        c.in_.clone().map(Op::In),
        c.matches
            .as_ref()
            .map(|m| {
                Pattern::new(m)
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
    let walk = match steps {
        Some(_) => None,
        None => crate::walk::Walk::compile(&path),
    };
    if cfg!(not(feature = "rule-authoring")) && steps.is_none() && walk.is_none() {
        return Err(invalid(&format!(
            "path `{source}` needs jsonpath-rust's general engine, which this build leaves out \
             (it reads builtin rules only; every builtin path walks)"
        )));
    }
    Ok(Cond::Test(Test {
        source,
        path,
        steps,
        walk,
        op,
        capture: c.capture.clone(),
        evidence: c.evidence.unwrap_or(true),
        optional: c.capture.as_ref().is_some_and(|k| absent.contains_key(k)),
        head: None,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every rule file reads, in the JSON form build.rs compiles into the build and through a
    /// `Value` as rule texts are read at run time, exactly as the typed YAML reader reads the
    /// file itself.
    #[test]
    fn every_rule_file_reads_the_same_in_every_form() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../rules");
        assert!(crate::embedded::RULES.len() > 100);
        for r in crate::embedded::RULES {
            let yaml = std::fs::read_to_string(root.join(r.path)).expect("rule file");
            let typed: RuleFile =
                serde_yaml_ng::from_str(&yaml).unwrap_or_else(|e| panic!("{}: {e}", r.path));
            let through: RuleFile =
                crate::embedded::from_yaml(&yaml).unwrap_or_else(|e| panic!("{}: {e}", r.path));
            assert_eq!(format!("{through:?}"), format!("{typed:?}"), "{}", r.path);
            assert!(r.json, "{} is compiled", r.path);
            let value: Value = serde_json::from_str(r.text).expect("json");
            let built: RuleFile = serde_json::from_value(value).expect("rule file");
            let english = RuleFile {
                ko: None,
                ..typed.clone()
            };
            assert_eq!(format!("{built:?}"), format!("{english:?}"), "{}", r.path);
        }
    }

    fn hangul(s: &str) -> bool {
        s.chars().any(|c| ('\u{ac00}'..='\u{d7a3}').contains(&c))
    }

    /// Every rule file carries Korean for every English text it has, with the same
    /// placeholders (checked by the loader), and each Korean text is Korean.
    #[test]
    fn every_rule_file_has_whole_korean_texts() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../rules");
        let mut missing = Vec::new();
        for r in crate::embedded::RULES {
            let yaml = std::fs::read_to_string(root.join(r.path)).expect("rule file");
            if let Err(e) = Rule::load(r.path, &yaml) {
                panic!("{e}");
            }
            let file: RuleFile = serde_yaml_ng::from_str(&yaml).expect("typed");
            let Some(ko) = &file.ko else {
                missing.push(r.path);
                continue;
            };
            let texts = [
                &ko.summary,
                &ko.message,
                &ko.observation,
                &ko.headline,
                &ko.why,
                &ko.fix,
            ];
            for t in texts.into_iter().flatten().chain(ko.absent.values()) {
                assert!(hangul(t), "{}: `{t}` has no Hangul", r.path);
            }
        }
        assert!(missing.is_empty(), "no ko: block in {missing:?}");
    }

    /// A translation that does not mirror the English is refused, naming the key; a rule with
    /// none still loads.
    #[test]
    fn a_translation_that_does_not_mirror_the_english_is_refused() {
        let base = "severity: block\noutlook: never\nsummary: s\nwhy: w\nfix: f\nmessage: \"m {x}\"\nwhen: {path: $.pod.x, capture: x}\n";
        Rule::load("placement/x.yaml", base).expect("no translation: loads");
        let whole = "ko: {summary: 가, why: 나, fix: 다, message: \"라 {x}\"}\n";
        Rule::load("placement/x.yaml", &format!("{base}{whole}")).expect("whole: loads");
        for (ko, says) in [
            (
                "ko: {summary: 가, why: 나, fix: 다, message: \"라 {y}\"}",
                "ko.message uses placeholders [\"y\"]",
            ),
            (
                "ko: {summary: 가, why: 나, fix: 다, message: 라}",
                "ko.message uses placeholders []",
            ),
            (
                "ko: {summary: 가, why: 나, message: \"라 {x}\"}",
                "ko.fix is missing",
            ),
            (
                "ko: {summary: 가, why: 나, fix: 다, message: \"라 {x}\", headline: 마}",
                "ko.headline has no English",
            ),
            (
                "ko: {summary: 가, why: 나, fix: 다, message: \"라 {x}\", absent: {x: 바}}",
                "ko.absent names",
            ),
            (
                "ko: {summary: 가, why: 나, fix: 다, message: \"라 {x}\", note: 사}",
                "unknown field `note`",
            ),
        ] {
            let err = Rule::load("placement/x.yaml", &format!("{base}{ko}\n"))
                .expect_err(ko)
                .to_string();
            assert!(
                err.contains(says) && err.contains("placement/x.yaml"),
                "{ko}: {err}"
            );
        }
    }

    /// The engine's and the facts' Korean texts have every English key, no other, and the
    /// same placeholders.
    #[test]
    fn engine_and_fact_texts_have_korean_twins() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../rules");
        for name in ["engine", "facts"] {
            let read = |file: String| -> std::collections::BTreeMap<String, String> {
                let text = std::fs::read_to_string(root.join(&file)).expect(&file);
                serde_yaml_ng::from_str(&text).unwrap_or_else(|e| panic!("{file}: {e}"))
            };
            let (en, ko) = (
                read(format!("{name}.yaml")),
                read(format!("{name}.ko.yaml")),
            );
            assert!(
                en.keys().eq(ko.keys()),
                "{name}.ko.yaml keys differ from {name}.yaml"
            );
            for (k, text) in &en {
                let names = |t: &str| {
                    let mut v = crate::template::placeholders(t);
                    v.sort_unstable();
                    v.dedup();
                    v.into_iter().map(str::to_string).collect::<Vec<_>>()
                };
                assert_eq!(names(&ko[k]), names(text), "{name}.ko.yaml {k}");
                let only_placeholders = names(text)
                    .iter()
                    .fold(text.clone(), |t, p| t.replace(p, ""));
                if only_placeholders.chars().any(char::is_alphabetic) {
                    assert!(hangul(&ko[k]), "{name}.ko.yaml {k}: no Hangul");
                }
            }
        }
    }

    /// Where the two readers differ, the rule does not load in any build: a number where a text
    /// goes reads as text to the typed reader only.
    #[test]
    fn what_only_the_typed_reader_accepts_does_not_load() {
        let text =
            "severity: block\nsummary: 1.30\nwhy: w\nfix: f\nmessage: m\nwhen: {path: $.pod.x}\n";
        assert!(serde_yaml_ng::from_str::<RuleFile>(text).is_ok());
        let err = Rule::load("placement/x.yaml", text)
            .expect_err("refused")
            .to_string();
        assert!(err.contains("invalid type"), "{err}");
    }

    /// A pattern only the Unicode engine reads is refused in every build, with the rule's
    /// condition named, not answered in one build and refused in another.
    #[test]
    fn a_pattern_regex_lite_does_not_read_is_refused_when_rules_load() {
        let rule = |m: &str| {
            format!(
                "severity: block\noutlook: never\nsummary: s\nwhy: w\nfix: f\nmessage: m\nwhen: {{path: $.pod.x, matches: '{m}'}}\n"
            )
        };
        let err = Rule::load("placement/x.yaml", &rule(r"\p{Greek}"))
            .expect_err("refused")
            .to_string();
        assert!(err.contains(r"`matches: \p{Greek}`"), "{err}");
        let read = Rule::load("placement/x.yaml", &rule(r"^\S+ (?i)failed\b"));
        assert!(read.is_ok(), "{:?}", read.err());
    }
}
