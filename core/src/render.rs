//! Renderings of a diagnosis shared by every front end: the terminal text of `kubectl layer
//! why`, and Markdown fit for an upstream issue (with where to report and that project's
//! contribution rules, from `rules/upstreams.yaml`).

use crate::diagnosis::{Diagnosis, Evidence, Outlook, ScanReport};
pub use crate::diagnosis::{RuleInfo, UpstreamInfo};
use crate::layer::{LayerState, Severity};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// One upstream project's contribution rules.
#[derive(Debug, Clone, Deserialize, serde::Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Upstream {
    pub project: String,
    pub rules: Vec<String>,
    /// How fast the project's repositories answered outside contributors, when counted.
    #[serde(
        default,
        rename = "firstResponse",
        skip_serializing_if = "Option::is_none"
    )]
    pub first_response: Option<FirstResponse>,
}

/// The course note's count of maintainers' first responses to outside PRs, dated.
#[derive(Debug, Clone, Deserialize, serde::Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FirstResponse {
    /// The day it was counted (YYYY-MM-DD): every figure is shown with it.
    pub counted: String,
    /// How many days before `counted` the sample covers.
    pub days: u32,
    /// Figures by `owner/repo`.
    pub repos: BTreeMap<String, ResponseFigure>,
}

/// One repository's figure: a median time to the first human response, or, where most outside
/// PRs got none, how many were answered.
#[derive(Debug, Clone, Deserialize, serde::Serialize, PartialEq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ResponseFigure {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub median: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answered: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub out_of: Option<u32>,
}

/// Contribution rules by `owner/repo` or `owner/*`, from `rules/upstreams.yaml`.
pub fn upstreams() -> Result<BTreeMap<String, Upstream>, crate::error::RuleError> {
    crate::embedded::from_yaml(crate::embedded::UPSTREAMS).map_err(|message| {
        crate::error::RuleError::Invalid {
            file: "upstreams.yaml".into(),
            message,
        }
    })
}

/// The contribution rules that apply to a repository.
pub fn upstream_for(repo: &str) -> Option<Upstream> {
    // A broken upstreams.yaml fails the tests (see below); users just see no contribution rules.
    let all = upstreams().ok()?;
    all.get(repo).cloned().or_else(|| {
        let owner = repo.split('/').next()?;
        all.get(&format!("{owner}/*")).cloned()
    })
}

/// The dated figure of how fast `repo`'s maintainers answered outside contributors, as one
/// sentence, when the course note counted it (`upstream`: what [`upstream_for`] gave for it).
pub fn first_response_line(repo: &str, upstream: &Upstream) -> Option<String> {
    let counted = upstream.first_response.as_ref()?;
    let figure = counted.repos.get(repo)?;
    let how = match (&figure.median, figure.answered, figure.out_of) {
        (Some(median), _, _) => {
            format!("gave outside PRs a first human response in {median} (median)")
        }
        (None, Some(answered), Some(out_of)) => {
            format!("answered {answered} of {out_of} outside PRs")
        }
        _ => return None,
    };
    Some(format!(
        "In the {} days to {}, {repo} {how}. Start a first contribution where answers come fast (the course note).",
        counted.days, counted.counted
    ))
}

/// ANSI styling, or none.
#[derive(Debug, Clone, Copy)]
pub struct Style {
    pub color: bool,
}

impl Style {
    fn paint(self, code: &str, s: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    }
    fn state(self, st: LayerState) -> String {
        let (label, code) = match st {
            LayerState::Ok => ("ok", "32"),
            LayerState::Blocked => ("BLOCKED", "1;31"),
            LayerState::Warn => ("WARN", "33"),
            LayerState::Unknown => ("unknown", "2"),
            LayerState::NotInvolved => ("-", "2"),
        };
        // Pad before painting so escape codes do not break the columns.
        self.paint(code, &format!("{label:<8}"))
    }
}

/// A normalized JSONPath (`$['status']['conditions'][0]['message']`, what JSON output keeps) as
/// a person reads and kubectl/jq write it: `.status.conditions[0].message`, with keys that are
/// not plain words quoted (`.status.allocatable["nvidia.com/gpu"]`). A path it cannot read is
/// shown as it is.
pub fn kubectl_path(path: &str) -> String {
    let Some(parts) = crate::engine::split_path(path) else {
        return path.to_string();
    };
    let mut out = String::with_capacity(path.len());
    for p in parts {
        match p.strip_prefix('\'').and_then(|q| q.strip_suffix('\'')) {
            Some(key) => {
                let key = key.replace("\\'", "'");
                let plain = key
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                    && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
                if plain {
                    out.push('.');
                    out.push_str(&key);
                } else {
                    out.push_str(&format!("[{}]", serde_json::Value::String(key)));
                }
            }
            None => out.push_str(&format!("[{p}]")),
        }
    }
    if out.is_empty() { ".".to_string() } else { out }
}

fn evidence_line(e: &Evidence) -> String {
    let at = e
        .path
        .as_deref()
        .map(kubectl_path)
        .or_else(|| e.fact.as_ref().map(|f| format!("fact {f}")))
        .unwrap_or_default();
    let value = match &e.value {
        serde_json::Value::String(s) => s.clone(),
        v => v.to_string(),
    };
    // One line per evidence: multi-line values (embedded YAML) are folded.
    let value = value.trim_end().replace('\n', " ↵ ");
    let value = if value.chars().count() > 160 {
        format!("{}…", value.chars().take(160).collect::<String>())
    } else {
        value
    };
    format!("{} {}: {}", e.object.display(), at, value)
}

/// The terminal rendering.
/// Who said yes, as a sentence names it: the layer, or its configuration when the layer that
/// promised is also where the cause sits.
fn said_yes_words(m: &crate::diagnosis::Misalignment) -> String {
    if m.said_yes_by_configuration {
        format!("{}'s configuration", m.said_yes.as_str())
    } else {
        m.said_yes.as_str().to_string()
    }
}

/// A character a terminal would act on rather than show: C0 and C1 controls (ESC starts colour,
/// cursor and OSC title sequences; BEL, CR and backspace rewrite what was shown), DEL, and the
/// bidirectional and line-separator formatting marks that reorder or break a line (U+202E
/// shows the rest of a line backwards).
fn acts_on_terminal(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{2028}' | '\u{2029}'
        )
        || ('\u{202a}'..='\u{202e}').contains(&c)
        || ('\u{2066}'..='\u{2069}').contains(&c)
}

/// Text from a bundle, made safe to print on a terminal: every character a terminal would act
/// on is written as a visible escape (`\u{1b}`), a newline as `↵`, so nothing is lost and
/// nothing is obeyed. Any pod can set its own termination message; the admin who runs `why`
/// must not have their terminal driven by it.
pub fn for_terminal(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.chars().any(acts_on_terminal) {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\n' => out.push('↵'),
            c if acts_on_terminal(c) => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Every string of a serializable value, through [`for_terminal`]: the renderers for
/// terminals work on a cleaned copy, so no field a future change adds can slip through.
fn cleaned<T: serde::Serialize + serde::de::DeserializeOwned + Clone>(v: &T) -> T {
    fn walk(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::String(s) => {
                if let std::borrow::Cow::Owned(c) = for_terminal(s) {
                    *s = c;
                }
            }
            serde_json::Value::Array(a) => a.iter_mut().for_each(walk),
            serde_json::Value::Object(m) => m.values_mut().for_each(walk),
            _ => {}
        }
    }
    let Ok(mut value) = serde_json::to_value(v) else {
        return v.clone();
    };
    walk(&mut value);
    serde_json::from_value(value).unwrap_or_else(|_| v.clone())
}

pub fn text(d: &Diagnosis, style: Style) -> String {
    let d = &cleaned(d);
    let mut out = String::new();
    let t = &d.target;
    let name = match &t.namespace {
        Some(ns) => format!("{ns}/{}", t.name),
        None => t.name.clone(),
    };
    let not_submitted = t.status == crate::diagnosis::NOT_SUBMITTED;
    let would = if not_submitted { "would be " } else { "" };
    let verdict = match (d.verdict.state, d.verdict.layer) {
        (LayerState::Blocked, Some(l)) => style.paint(
            "1;31",
            &format!("{would}blocked at {}", l.as_str().to_uppercase()),
        ),
        (LayerState::Warn, Some(l)) => {
            style.paint("33", &format!("warning at {}", l.as_str().to_uppercase()))
        }
        (LayerState::Ok, _) if not_submitted => style.paint("32", "would run now"),
        (LayerState::Ok, _) => style.paint("32", "ok"),
        _ => style.paint("2", "unknown"),
    };
    if not_submitted {
        let _ = writeln!(
            out,
            "{} {}, not submitted: {}\n",
            t.kind,
            style.paint("1", &name),
            verdict
        );
    } else {
        let _ = writeln!(
            out,
            "{} {} is {}: {}\n",
            t.kind,
            style.paint("1", &name),
            t.status,
            verdict
        );
    }
    for l in &d.layers {
        let _ = writeln!(
            out,
            "  {:<10} {} {}",
            l.layer.as_str(),
            style.state(l.state),
            l.summary
        );
    }
    out.push('\n');
    if let Some(m) = &d.verdict.misalignment {
        let _ = writeln!(
            out,
            "{} said yes, {} said no: {}",
            capitalize(&said_yes_words(m)),
            m.said_no.as_str(),
            m.why
        );
    }
    match outlook_words(d) {
        Some(words) => {
            let _ = writeln!(
                out,
                "{} {} ({words})",
                style.paint("1", "Headline:"),
                d.verdict.headline
            );
        }
        None => {
            let _ = writeln!(
                out,
                "{} {}",
                style.paint("1", "Headline:"),
                d.verdict.headline
            );
        }
    }
    let shown: Vec<_> = d
        .findings
        .iter()
        .filter(|f| f.severity != Severity::Info || d.findings.len() < 6)
        .collect();
    if !shown.is_empty() {
        let _ = writeln!(out, "\nFindings:");
        for f in shown {
            let sev = match f.severity {
                Severity::Block => style.paint("31", "block"),
                Severity::Warn => style.paint("33", "warn "),
                Severity::Info => style.paint("2", "info "),
            };
            // The finding that wrote its layer's line says so instead of repeating it.
            let repeats = d
                .layers
                .iter()
                .any(|l| l.layer == f.layer && l.summary == f.message);
            let message = if repeats {
                format!("(the {} line above)", f.layer.as_str())
            } else {
                f.message.clone()
            };
            let _ = writeln!(out, "  {sev} {}  {message}", style.paint("36", &f.rule));
            for e in f.evidence.iter().take(4) {
                let _ = writeln!(out, "          {}", style.paint("2", &evidence_line(e)));
            }
        }
    }
    if !d.pods.is_empty() {
        let _ = writeln!(out, "\nPods:");
        let pods = &d.pods[..d.pods.len().min(12)];
        let name_width = column_width(pods.iter().map(|p| p.name.as_str()));
        let status_width = column_width(pods.iter().map(|p| p.status.as_str()));
        for p in pods {
            let _ = writeln!(
                out,
                "  {:<name_width$}  {:<status_width$}  {}",
                p.name,
                p.status,
                p.node.as_deref().unwrap_or("-")
            );
        }
        if d.pods.len() > 12 {
            let _ = writeln!(out, "  … and {} more", d.pods.len() - 12);
        }
    }
    if !d.next.is_empty() {
        let _ = writeln!(out, "\nNext:");
        for n in &d.next {
            let _ = writeln!(out, "  {n}");
        }
    }
    if !d.missing.is_empty() {
        let heading = if not_submitted {
            "Not in the bundle, or not modelled:"
        } else {
            "Not in the bundle:"
        };
        let _ = writeln!(out, "\n{heading}");
        for m in &d.missing {
            let what = [m.namespace.as_deref(), m.name.as_deref()]
                .into_iter()
                .flatten()
                .collect::<Vec<_>>()
                .join("/");
            // A note about no object in particular (what fit does not model) is its words.
            if m.kind.is_empty() && what.is_empty() {
                let _ = writeln!(out, "  {}", m.why);
            } else {
                let _ = writeln!(out, "  {} {}: {}", m.kind, what, m.why);
            }
        }
    }
    out
}

/// A blocked verdict's outlook in words, as renderers add it to the headline: "will" for work
/// that exists, "would" for work not submitted yet (`fit`).
pub fn outlook_words(d: &Diagnosis) -> Option<&'static str> {
    let would = d.target.status == crate::diagnosis::NOT_SUBMITTED;
    Some(match (d.verdict.outlook?, would) {
        (Outlook::Never, false) => "waiting will not change this",
        (Outlook::Never, true) => "waiting would not change this",
        (Outlook::Waiting, false) => "it runs once what it waits for frees up or arrives",
        (Outlook::Waiting, true) => "it would run once what it waits for frees up or arrives",
    })
}

/// A rule's `outlook:` in words, for its documentation.
fn rule_outlook_words(o: crate::rule::RuleOutlook) -> &'static str {
    match o {
        crate::rule::RuleOutlook::Never => "waiting will not change it",
        crate::rule::RuleOutlook::Waiting => "it runs once what it waits for frees up or arrives",
        crate::rule::RuleOutlook::Unknown => "the finding cannot tell whether waiting helps",
    }
}

/// The width of a text column: its longest entry, counted in characters (names may be any
/// text, and `{:<N}` pads by characters too), at most [`MAX_COLUMN`]: a longer entry runs past
/// its column rather than pushing every row out (and a width past u16 would stop the
/// formatter).
fn column_width<'a>(cells: impl Iterator<Item = &'a str>) -> usize {
    cells
        .map(|c| c.chars().count())
        .max()
        .unwrap_or(0)
        .min(MAX_COLUMN)
}

/// The widest a text column gets.
const MAX_COLUMN: usize = 64;

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    c.next().map_or_else(String::new, |f| {
        f.to_uppercase().collect::<String>() + c.as_str()
    })
}

/// Markdown for an upstream issue: headline as title, the trace, evidence, and where to report.
/// Bundle text for a Markdown paragraph, list item or table cell: on one line (controls shown
/// as [`for_terminal`] shows them), with every character Markdown or HTML would act on
/// escaped, so the text cannot start a heading, a table row, a link, an image or an HTML tag,
/// nor leave its cell or list item.
pub fn for_markdown(s: &str) -> String {
    let s = for_terminal(s);
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            // Brackets open links and images; with no newline, `#`, `-` and `>` cannot start
            // a block, and parentheses mean nothing without a bracket before them.
            '\\' | '`' | '*' | '_' | '[' | ']' | '|' | '~' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// The longest run of backticks in a text: a code span or fence must be longer to hold it.
fn longest_backtick_run(s: &str) -> usize {
    s.split(|c| c != '`').map(str::len).max().unwrap_or(0)
}

/// Bundle text as an inline code span, whole: delimited by more backticks than it holds.
fn md_code(s: &str) -> String {
    let s = for_terminal(s);
    let fence = "`".repeat(longest_backtick_run(&s) + 1);
    let pad = if s.starts_with('`') || s.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{s}{pad}{fence}")
}

pub fn markdown(d: &Diagnosis) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "### {}\n", for_markdown(&d.verdict.headline));
    if let (Some(o), Some(words)) = (d.verdict.outlook, outlook_words(d)) {
        let _ = writeln!(out, "**Outlook:** `{}` — {words}\n", o.as_str());
    }
    let t = &d.target;
    let name = match &t.namespace {
        Some(ns) => format!("{ns}/{}", t.name),
        None => t.name.clone(),
    };
    let _ = writeln!(
        out,
        "**Target:** {} {} — status {}\n",
        md_code(&t.kind),
        md_code(&name),
        md_code(&t.status)
    );
    if let Some(m) = &d.verdict.misalignment {
        let _ = writeln!(
            out,
            "**Misalignment:** {} said yes, {} said no — {}\n",
            said_yes_words(m),
            m.said_no.as_str(),
            for_markdown(&m.why)
        );
    }
    let _ = writeln!(
        out,
        "| layer | state | decided by | observation |\n|---|---|---|---|"
    );
    for l in &d.layers {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} |",
            l.layer.as_str(),
            l.state.as_str(),
            for_markdown(&l.decided_by.join(", ")),
            for_markdown(&l.summary)
        );
    }
    let _ = write!(
        out,
        "\n{}",
        crate::picture::mermaid(d, &|l| l.as_str().to_string())
    );
    if !d.findings.is_empty() {
        let _ = writeln!(out, "\n#### Findings\n");
        for f in &d.findings {
            let _ = writeln!(
                out,
                "- **{}** `{}` — {}",
                f.severity.as_str(),
                f.rule,
                for_markdown(&f.message)
            );
            for e in &f.evidence {
                let _ = writeln!(out, "  - {}", md_code(&evidence_line(e)));
            }
        }
    }
    if !d.next.is_empty() {
        // A fence longer than any backtick run in the commands: a command cannot close it.
        let commands: Vec<String> = d
            .next
            .iter()
            .map(|n| for_terminal(n).into_owned())
            .collect();
        let fence = "`".repeat(
            commands
                .iter()
                .map(|c| longest_backtick_run(c) + 1)
                .max()
                .unwrap_or(0)
                .max(3),
        );
        let _ = writeln!(out, "\n#### Next\n\n{fence}sh");
        for n in &commands {
            let _ = writeln!(out, "{n}");
        }
        let _ = writeln!(out, "{fence}");
    }
    timeline_markdown(&mut out, &d.timeline);
    // Configuration is fixed in the user's cluster; only a known upstream behaviour goes to
    // the project, under its contribution rules.
    // The cause's findings: those at the verdict's layer (the others are its symptoms).
    let acting = || {
        d.findings
            .iter()
            .filter(|f| f.severity != Severity::Info && Some(f.layer) == d.verdict.layer)
    };
    let own: Vec<&str> = acting()
        .filter(|f| f.fix_in == crate::diagnosis::FixIn::Cluster)
        .map(|f| f.rule.as_str())
        .collect();
    if !own.is_empty() {
        let _ = writeln!(out, "\n#### Where to fix: your cluster\n");
        let _ = writeln!(
            out,
            "These findings are this cluster's own setup or configuration, not a bug to report: \
             fix them here (`kubectl layer explain RULE` says how): {}.",
            own.iter()
                .map(|r| format!("`{r}`"))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let mut seen = Vec::new();
    for repo in acting()
        .filter(|f| f.fix_in == crate::diagnosis::FixIn::Upstream)
        .filter_map(|f| f.upstream.as_deref())
    {
        if seen.contains(&repo) {
            continue;
        }
        seen.push(repo);
        let _ = writeln!(out, "\n#### Where to report: `{repo}`\n");
        let upstream = upstream_for(repo);
        match &upstream {
            Some(u) if !u.rules.is_empty() => {
                let _ = writeln!(out, "Contribution rules of {}:", u.project);
                for r in &u.rules {
                    let _ = writeln!(out, "- {r}");
                }
            }
            _ => {
                let _ = writeln!(
                    out,
                    "Read the project's CONTRIBUTING guide before opening an issue or PR."
                );
            }
        }
        if let Some(line) = upstream.and_then(|u| first_response_line(repo, &u)) {
            let _ = writeln!(out, "\n{line}");
        }
    }
    let _ = writeln!(
        out,
        "\n<sub>Diagnosed by kubectl-layer ({}).</sub>",
        d.schema_version
    );
    out
}

/// The timeline as a Markdown table, oldest first, with the count of moments left out.
fn timeline_markdown(out: &mut String, t: &crate::diagnosis::Timeline) {
    if t.moments.is_empty() {
        return;
    }
    let _ = writeln!(out, "\n#### Timeline\n");
    if t.earlier > 0 {
        let _ = writeln!(out, "{} earlier moments left out.\n", t.earlier);
    }
    let _ = writeln!(out, "| time | layer | object | what |\n|---|---|---|---|");
    for m in &t.moments {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} |",
            md_code(&m.time),
            m.layer.as_str(),
            for_markdown(&m.object.display()),
            for_markdown(&m.text)
        );
    }
}

/// `why --timeline`'s section: one line per moment, oldest first, after what [`text`] prints.
pub fn timeline_text(t: &crate::diagnosis::Timeline) -> String {
    let mut out = String::new();
    if t.moments.is_empty() {
        let _ = writeln!(out, "\nTimeline: the bundle proves no moment of this work");
        return out;
    }
    let _ = writeln!(out, "\nTimeline:");
    if t.earlier > 0 {
        let _ = writeln!(out, "  … {} earlier moments left out", t.earlier);
    }
    let objects: Vec<String> = t.moments.iter().map(|m| m.object.display()).collect();
    let width = column_width(objects.iter().map(String::as_str));
    let time_width = column_width(t.moments.iter().map(|m| m.time.as_str()));
    for (m, object) in t.moments.iter().zip(&objects) {
        let _ = writeln!(
            out,
            "  {:<time_width$}  {:<9}  {:<width$}  {}",
            for_terminal(&m.time),
            m.layer.as_str(),
            for_terminal(object),
            for_terminal(&m.text)
        );
    }
    out
}

/// What every scan rendering says of a report with nothing to list.
const NOTHING_TO_SCAN: &str = "Every piece of work in the bundle is running, ready or finished.\n";

/// scan's groups in report order: the blocking layer, else the verdict state, and its work.
fn scan_groups(r: &ScanReport) -> impl Iterator<Item = (String, &[Diagnosis])> {
    let key = |d: &Diagnosis| {
        d.verdict
            .layer
            .map_or_else(|| d.verdict.state.as_str(), |l| l.as_str())
    };
    r.diagnoses
        .chunk_by(move |a, b| key(a) == key(b))
        .map(move |g| (key(&g[0]).to_string(), g))
}

/// One line per piece of work, grouped by blocking layer (scan's text output).
pub fn scan_text(r: &ScanReport, style: Style) -> String {
    let r = &cleaned(r);
    if r.diagnoses.is_empty() {
        return NOTHING_TO_SCAN.to_string();
    }
    let mut out = String::new();
    let names: Vec<String> = r.diagnoses.iter().map(work_name).collect();
    let name_width = column_width(names.iter().map(String::as_str));
    let status_width = column_width(r.diagnoses.iter().map(|d| d.target.status.as_str()));
    for (i, (group, work)) in scan_groups(r).enumerate() {
        let gap = if i > 0 { "\n" } else { "" };
        let _ = writeln!(out, "{gap}{}", style.paint("1", &group.to_uppercase()));
        for d in work {
            let _ = writeln!(
                out,
                "  {} {:<name_width$}  {:<status_width$}  {}{}",
                style.state(d.verdict.state),
                work_name(d),
                d.target.status,
                d.verdict.headline,
                d.verdict
                    .outlook
                    .map_or_else(String::new, |o| format!(" ({})", o.as_str()))
            );
        }
    }
    out
}

/// How scan names a piece of work: `kind/namespace/name`, the kind as kubectl spells it.
fn work_name(d: &Diagnosis) -> String {
    let kind = d.target.kind.to_ascii_lowercase();
    match &d.target.namespace {
        Some(ns) => format!("{kind}/{ns}/{}", d.target.name),
        None => format!("{kind}/{}", d.target.name),
    }
}

/// What `rules` says a rule is: a finding's severity, or `status` / `mismatch`.
pub fn rule_kind_label(r: &crate::rule::Rule) -> &'static str {
    match r.kind {
        crate::rule::RuleKind::Finding => r.severity.as_str(),
        crate::rule::RuleKind::Status => "status",
        crate::rule::RuleKind::Misalignment => "mismatch",
    }
}

/// scan's Markdown output: one table per blocking layer, for an issue or a chat message.
pub fn scan_markdown(r: &ScanReport) -> String {
    if r.diagnoses.is_empty() {
        return NOTHING_TO_SCAN.to_string();
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "### {} not running\n",
        crate::template::counted(r.diagnoses.len() as u64, "piece of work", "pieces of work")
    );
    for (i, (group, work)) in scan_groups(r).enumerate() {
        let gap = if i > 0 { "\n" } else { "" };
        let _ = writeln!(
            out,
            "{gap}#### {group}\n\n| work | status | verdict | headline |\n|---|---|---|---|"
        );
        for d in work {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} |",
                md_code(&work_name(d)),
                for_markdown(&d.target.status),
                match d.verdict.outlook {
                    Some(o) => format!("{} ({})", d.verdict.state.as_str(), o.as_str()),
                    None => d.verdict.state.as_str().to_string(),
                },
                for_markdown(&d.verdict.headline)
            );
        }
    }
    let _ = writeln!(out, "\n<sub>Diagnosed by kubectl-layer.</sub>");
    out
}

/// `kubectl layer rules -o markdown`: a table of the rules given.
pub fn rules_markdown(rules: &[&crate::rule::Rule]) -> String {
    let mut out = String::from("| rule | layer | kind | summary |\n|---|---|---|---|\n");
    for r in rules {
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {} |",
            r.id,
            r.layer.as_str(),
            rule_kind_label(r),
            for_markdown(&r.summary)
        );
    }
    out
}

/// A rule's metadata.
pub fn rule_info(r: &crate::rule::Rule) -> RuleInfo {
    use crate::rule::RuleKind;
    RuleInfo {
        id: r.id.clone(),
        layer: r.layer,
        kind: match r.kind {
            RuleKind::Finding => "finding",
            RuleKind::Status => "status",
            RuleKind::Misalignment => "misalignment",
        }
        .into(),
        severity: (r.kind == RuleKind::Finding).then_some(r.severity),
        state: r.state,
        said_yes: r.said_yes,
        said_no: r.said_no,
        summary: r.summary.clone(),
        message: r.message.clone(),
        why: r.why.clone(),
        fix: r.fix.clone(),
        next: r.next.clone(),
        upstream: r.upstream.clone(),
        contributing: r
            .upstream
            .as_deref()
            .and_then(upstream_for)
            .map(|u| UpstreamInfo {
                project: u.project,
                rules: u.rules,
            }),
        decided_by: r.decided_by.clone(),
        versions: r.versions.clone(),
        references: r.references.clone(),
        explains: r.explains.clone(),
        outlook: r.outlook.map(|o| o.as_str().to_string()),
        documentation: rule_doc(r),
    }
}

/// A rule's documentation as Markdown (`kubectl layer explain` and `docs/rules/`).
pub fn rule_doc(r: &crate::rule::Rule) -> String {
    use crate::rule::RuleKind;
    let mut out = String::new();
    let _ = writeln!(out, "# {}\n", r.id);
    let kind = match r.kind {
        RuleKind::Finding => format!("finding, severity `{}`", r.severity.as_str()),
        RuleKind::Status => format!(
            "layer status, sets `{}`",
            r.state.map_or("ok", |s| s.as_str())
        ),
        RuleKind::Misalignment => format!(
            "misalignment: {} said yes, {} said no",
            r.said_yes.map_or("", |l| l.as_str()),
            r.said_no.map_or("", |l| l.as_str())
        ),
    };
    let _ = writeln!(
        out,
        "{}\n\n- layer: `{}`\n- kind: {kind}",
        r.summary,
        r.layer.as_str()
    );
    if let Some(o) = r.outlook {
        let _ = writeln!(
            out,
            "- outlook: `{}` ({})",
            o.as_str(),
            rule_outlook_words(o)
        );
    }
    if let Some(v) = &r.versions {
        let _ = writeln!(out, "- versions: {v}");
    }
    if !r.explains.is_empty() {
        let _ = writeln!(
            out,
            "- explains: {}",
            r.explains
                .iter()
                .map(|e| format!("`{e}`"))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let _ = writeln!(out, "\n## Message\n\n> {}", r.message);
    if !r.why.is_empty() {
        let _ = writeln!(out, "\n## Why\n\n{}", r.why);
    }
    if !r.fix.is_empty() {
        let _ = writeln!(out, "\n## Fix\n\n{}", r.fix);
    }
    if !r.next.is_empty() {
        let _ = writeln!(out, "\n## Next\n\n```sh\n{}\n```", r.next.join("\n"));
    }
    if let Some(repo) = &r.upstream {
        let _ = writeln!(out, "\n## Where to report\n\n`{repo}`");
        let upstream = upstream_for(repo);
        if let Some(u) = upstream.as_ref().filter(|u| !u.rules.is_empty()) {
            let _ = writeln!(out, "\nContribution rules of {}:", u.project);
            for x in &u.rules {
                let _ = writeln!(out, "- {x}");
            }
        }
        if let Some(line) = upstream.and_then(|u| first_response_line(repo, &u)) {
            let _ = writeln!(out, "\n{line}");
        }
    }
    let facts = r.facts_read();
    if !facts.is_empty() {
        // One hop from a path to the code: each fact with the function and file that build it.
        let _ = writeln!(out, "\n## Facts it reads\n");
        for f in facts {
            let _ = writeln!(
                out,
                "- `$.facts.{}` — built by `{}` in `{}`",
                f.name, f.built_by, f.source
            );
        }
    }
    if !r.references.is_empty() {
        let _ = writeln!(out, "\n## References\n");
        for x in &r.references {
            let _ = writeln!(out, "- {x}");
        }
    }
    if !r.fixtures.is_empty() {
        let _ = writeln!(out, "\n## Fixtures\n");
        for f in &r.fixtures {
            let _ = writeln!(
                out,
                "- `{}` — `{}` — {}",
                f.bundle_dir(),
                f.target,
                if f.fires { "fires" } else { "must not fire" }
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn paths_read_as_kubectl_writes_them() {
        use super::kubectl_path;
        assert_eq!(
            kubectl_path("$['status']['conditions'][0]['message']"),
            ".status.conditions[0].message"
        );
        assert_eq!(
            kubectl_path("$['status']['allocatable']['nvidia.com/gpu']"),
            r#".status.allocatable["nvidia.com/gpu"]"#
        );
        assert_eq!(
            kubectl_path(r"$['metadata']['it\'s']"),
            r#".metadata["it's"]"#
        );
        assert_eq!(kubectl_path("$"), ".");
        // Not a normalized path: shown as it came.
        assert_eq!(kubectl_path("status.phase"), "status.phase");
    }

    #[test]
    fn upstreams_load_and_cover_every_rule() {
        let all = super::upstreams().unwrap_or_else(|e| panic!("{e}"));
        let typed: std::collections::BTreeMap<String, super::Upstream> =
            serde_yaml_ng::from_str(crate::embedded::UPSTREAMS).expect("typed");
        assert_eq!(
            all, typed,
            "read through a Value as the typed reader reads it"
        );
        assert!(!all.is_empty());
        let engine = crate::Engine::builtin().unwrap();
        for r in engine.rules() {
            if let Some(repo) = &r.upstream {
                assert!(
                    super::upstream_for(repo).is_some(),
                    "{}: no contribution rules for {repo} in rules/upstreams.yaml",
                    r.id
                );
            }
        }
    }

    /// The course note's response figures are all there, each one kind of figure, each under
    /// the entry that owns its repository (so `upstream_for` finds it), each dated.
    #[test]
    fn first_response_figures_are_whole_and_where_their_repo_looks() {
        let all = super::upstreams().unwrap();
        let mut repos = Vec::new();
        for (key, u) in &all {
            let Some(f) = &u.first_response else { continue };
            assert!(
                f.counted.len() == 10 && f.counted.as_bytes()[4] == b'-' && f.days > 0,
                "{key}: firstResponse needs a YYYY-MM-DD date and a window"
            );
            for (repo, figure) in &f.repos {
                let median = figure.median.is_some();
                let answered = figure.answered.is_some() && figure.out_of.is_some();
                assert!(median != answered, "{key} {repo}: one kind of figure");
                let found = super::upstream_for(repo).and_then(|u| u.first_response);
                assert!(
                    found.is_some_and(|f| f.repos.contains_key(repo)),
                    "{repo}: its figure is not where upstream_for looks"
                );
                repos.push(repo.as_str());
            }
        }
        let line = |repo: &str| super::first_response_line(repo, &super::upstream_for(repo)?);
        let kueue = line("kubernetes-sigs/kueue").unwrap();
        assert!(
            kueue.contains("0.6 h") && kueue.contains("2026-10-27"),
            "{kueue}"
        );
        let fake = line("run-ai/fake-gpu-operator").unwrap();
        assert!(fake.contains("answered 1 of 10"), "{fake}");
        // Same owner entry, never counted: no figure borrowed from a sibling repository.
        assert_eq!(line("kubernetes-sigs/kwok"), None);
        assert_eq!(line("volcano-sh/volcano"), None);
        repos.sort_unstable();
        assert_eq!(
            repos,
            [
                "kai-scheduler/KAI-Scheduler",
                "kubernetes-sigs/jobset",
                "kubernetes-sigs/kueue",
                "kubernetes-sigs/lws",
                "run-ai/fake-gpu-operator"
            ],
            "the five projects the course note counted"
        );
    }
}
