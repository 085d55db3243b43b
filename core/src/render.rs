//! Renderings of a diagnosis shared by every front end: the terminal text of `kubectl layer
//! why`, and Markdown fit for an upstream issue (with where to report and that project's
//! contribution rules, from `rules/upstreams.yaml`).

use crate::diagnosis::{
    Diagnosis, Evidence, Example, Group, Incomplete, Missing, Outlook, ScanReport,
};
pub use crate::diagnosis::{RuleInfo, UpstreamInfo};
pub use crate::escape::for_terminal;
pub use crate::lang::{Lang, Words};
use crate::layer::{Layer, LayerState, Severity};
use crate::scan_lines::{ScanLine, ScanLines};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// One upstream project's contribution rules.
#[derive(Debug, Clone, Deserialize, serde::Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Upstream {
    pub project: String,
    pub rules: Vec<String>,
    /// The same rules in the course note's Korean, one for one (`--lang ko`).
    #[serde(default, rename = "rulesKo", skip_serializing_if = "Vec::is_empty")]
    pub rules_ko: Vec<String>,
    /// What each rule is about (`dco`, `ai-disclosure`…), one for one: the practice bank asks
    /// situations by topic (`layer_core::practice`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub topics: Vec<String>,
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
    /// The median as Korean writes it (`0.6시간`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub median_ko: Option<String>,
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
pub fn first_response_line(repo: &str, upstream: &Upstream, lang: Lang) -> Option<String> {
    let counted = upstream.first_response.as_ref()?;
    let figure = counted.repos.get(repo)?;
    let words = Words::of(lang);
    let days = counted.days.to_string();
    let common = [
        ("days", days.as_str()),
        ("counted", counted.counted.as_str()),
        ("repo", repo),
    ];
    match (&figure.median, figure.answered, figure.out_of) {
        (Some(median), _, _) => {
            let median = match lang {
                Lang::Ko => figure.median_ko.as_deref().unwrap_or(median),
                Lang::En => median,
            };
            Some(words.fill(
                "firstResponse.median",
                &[common.as_slice(), &[("median", median)]].concat(),
            ))
        }
        (None, Some(answered), Some(out_of)) => {
            let (answered, out_of) = (answered.to_string(), out_of.to_string());
            Some(
                words.fill(
                    "firstResponse.answered",
                    &[
                        common.as_slice(),
                        &[("answered", answered.as_str()), ("outOf", out_of.as_str())],
                    ]
                    .concat(),
                ),
            )
        }
        _ => None,
    }
}

/// The words a diagnosis is to be shown in (its `lang`).
pub fn words_for(d: &Diagnosis) -> Words {
    Words::of_code(d.lang.as_deref())
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
    fn state(self, st: LayerState, words: Words) -> String {
        let code = match st {
            LayerState::Ok => "32",
            LayerState::Blocked => "1;31",
            LayerState::Warn => "33",
            LayerState::Unknown | LayerState::NotInvolved => "2",
        };
        let label = words.get(&format!("column.{}", st.as_str()));
        // Pad before painting so escape codes do not break the columns.
        self.paint(code, &padded(label, 8))
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

/// One piece of evidence on one line: the object, where in it (or the fact), and the value,
/// multi-line values folded and long ones cut.
pub(crate) fn evidence_line(e: &Evidence) -> String {
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
fn said_yes_words(m: &crate::diagnosis::Misalignment, words: Words) -> String {
    if m.said_yes_by_configuration {
        words.fill(
            "saidYesByConfiguration",
            &[("layer", words.layer(m.said_yes))],
        )
    } else {
        words.layer(m.said_yes).to_string()
    }
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
    let words = words_for(d);
    let not_submitted = t.status == crate::diagnosis::NOT_SUBMITTED;
    // English shouts the layer's name; Korean has no capitals to shout with.
    let loud = |l: Layer| words.layer(l).to_uppercase();
    let verdict = match (d.verdict.state, d.verdict.layer) {
        (LayerState::Blocked, Some(l)) => style.paint(
            "1;31",
            &words.fill(
                if not_submitted {
                    "verdict.wouldBlock"
                } else {
                    "verdict.blocked"
                },
                &[("layer", &loud(l))],
            ),
        ),
        (LayerState::Warn, Some(l)) => {
            style.paint("33", &words.fill("verdict.warn", &[("layer", &loud(l))]))
        }
        (LayerState::Ok, _) if not_submitted => style.paint("32", words.get("verdict.wouldRun")),
        (LayerState::Ok, _) => style.paint("32", words.get("verdict.ok")),
        _ => style.paint("2", words.get("verdict.unknown")),
    };
    let name = style.paint("1", &name);
    let line = if not_submitted {
        words.fill(
            "targetNotSubmitted",
            &[("kind", &t.kind), ("name", &name), ("verdict", &verdict)],
        )
    } else {
        words.fill(
            "targetLine",
            &[
                ("kind", &t.kind),
                ("name", &name),
                ("status", &t.status),
                ("verdict", &verdict),
            ],
        )
    };
    let _ = writeln!(out, "{line}\n");
    if let Some(i) = &d.incomplete {
        out.push_str(&incomplete_text(i, words, style));
    }
    for l in &d.layers {
        let _ = writeln!(
            out,
            "  {} {} {}",
            padded(words.layer(l.layer), 10),
            style.state(l.state, words),
            l.summary
        );
    }
    out.push('\n');
    if let Some(m) = &d.verdict.misalignment {
        let said_yes = capitalize(&said_yes_words(m, words));
        let _ = writeln!(
            out,
            "{}",
            words.fill(
                "misalignment",
                &[
                    ("saidYes", &said_yes),
                    ("saidNo", words.layer(m.said_no)),
                    ("why", &m.why),
                ],
            )
        );
    }
    let headline_label = style.paint("1", words.get("headline"));
    match outlook_words(d) {
        Some(outlook) => {
            let _ = writeln!(out, "{headline_label} {} ({outlook})", d.verdict.headline);
        }
        None => {
            let _ = writeln!(out, "{headline_label} {}", d.verdict.headline);
        }
    }
    // In another language the headline stays English, for an upstream issue's title; its
    // explanation follows in the reader's words.
    if let Some(own) = &d.verdict.headline_ko {
        let _ = writeln!(
            out,
            "{} {own}",
            " ".repeat(display_width(words.get("headline")))
        );
    }
    if let Some(q) = &d.queue {
        let line = crate::standing::line(q, words);
        let _ = writeln!(out, "{}", words.fill("queue.line", &[("line", &line)]));
    }
    let shown: Vec<_> = d
        .findings
        .iter()
        .filter(|f| f.severity != Severity::Info || d.findings.len() < 6)
        .collect();
    if !shown.is_empty() {
        let _ = writeln!(out, "\n{}", words.get("findings"));
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
                words.fill("sameAsLayerLine", &[("layer", words.layer(f.layer))])
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
        let _ = writeln!(out, "\n{}", words.get("pods"));
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
            let more = (d.pods.len() - 12).to_string();
            let _ = writeln!(out, "  {}", words.fill("morePods", &[("count", &more)]));
        }
    }
    if !d.next.is_empty() {
        let _ = writeln!(out, "\n{}", words.get("next"));
        for n in &d.next {
            let _ = writeln!(out, "  {n}");
        }
    }
    if !d.missing.is_empty() {
        let heading = words.get(if not_submitted {
            "missingOrNotModelled"
        } else {
            "missing"
        });
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
    if !d.input_notes.is_empty() {
        let _ = writeln!(out, "\n{}", words.get("inputNotes"));
        for n in &d.input_notes {
            let _ = writeln!(out, "  {n}");
        }
    }
    out
}

/// A blocked verdict's outlook in words, as renderers add it to the headline: "will" for work
/// that exists, "would" for work not submitted yet (`fit`).
pub fn outlook_words(d: &Diagnosis) -> Option<&'static str> {
    let would = d.target.status == crate::diagnosis::NOT_SUBMITTED;
    let key = match (d.verdict.outlook?, would) {
        (Outlook::Never, false) => "outlook.never",
        (Outlook::Never, true) => "outlook.wouldNever",
        (Outlook::Waiting, false) => "outlook.waiting",
        (Outlook::Waiting, true) => "outlook.wouldWait",
    };
    Some(words_for(d).get(key))
}

/// A column's width on a terminal: wide (East Asian) characters take two cells.
fn display_width(s: &str) -> usize {
    s.chars()
        .map(|c| match c as u32 {
            0x1100..=0x115f
            | 0x2e80..=0xa4cf
            | 0xac00..=0xd7a3
            | 0xf900..=0xfaff
            | 0xfe30..=0xfe4f
            | 0xff00..=0xff60
            | 0xffe0..=0xffe6 => 2,
            _ => 1,
        })
        .sum()
}

/// `s` padded with spaces to `width` terminal cells (as `{:<width}` does for narrow text).
fn padded(s: &str, width: usize) -> String {
    let pad = width.saturating_sub(display_width(s));
    format!("{s}{}", " ".repeat(pad))
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
    let words = words_for(d);
    let _ = writeln!(out, "### {}\n", for_markdown(&d.verdict.headline));
    // The title stays English for the upstream issue; the reader's own words follow it.
    if let Some(own) = &d.verdict.headline_ko {
        let _ = writeln!(out, "> {}\n", for_markdown(own));
    }
    if let (Some(o), Some(outlook)) = (d.verdict.outlook, outlook_words(d)) {
        let _ = writeln!(
            out,
            "{} `{}` — {outlook}\n",
            words.get("md.outlook"),
            o.as_str()
        );
    }
    let t = &d.target;
    let name = match &t.namespace {
        Some(ns) => format!("{ns}/{}", t.name),
        None => t.name.clone(),
    };
    let _ = writeln!(
        out,
        "{}\n",
        words.fill(
            "md.target",
            &[
                ("kind", &md_code(&t.kind)),
                ("name", &md_code(&name)),
                ("status", &md_code(&t.status)),
            ],
        )
    );
    if let Some(i) = &d.incomplete {
        out.push_str(&incomplete_markdown(i, words));
    }
    if let Some(q) = &d.queue {
        let line = for_markdown(&crate::standing::line(q, words));
        let _ = writeln!(out, "{}\n", words.fill("md.queue", &[("line", &line)]));
    }
    if let Some(m) = &d.verdict.misalignment {
        let _ = writeln!(
            out,
            "{}\n",
            words.fill(
                "md.misalignment",
                &[
                    ("saidYes", &said_yes_words(m, words)),
                    ("saidNo", words.layer(m.said_no)),
                    ("why", &for_markdown(&m.why)),
                ],
            )
        );
    }
    let _ = writeln!(out, "{}\n|---|---|---|---|", words.get("md.layerTable"));
    for l in &d.layers {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} |",
            words.layer(l.layer),
            words.state(l.state),
            for_markdown(&l.decided_by.join(", ")),
            for_markdown(&l.summary)
        );
    }
    let _ = write!(
        out,
        "\n{}",
        crate::picture::mermaid(d, &|l| words.layer(l).to_string())
    );
    if !d.findings.is_empty() {
        let _ = writeln!(out, "\n{}\n", words.get("md.findings"));
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
        let _ = writeln!(out, "\n{}\n\n{fence}sh", words.get("md.next"));
        for n in &commands {
            let _ = writeln!(out, "{n}");
        }
        let _ = writeln!(out, "{fence}");
    }
    timeline_markdown(&mut out, &d.timeline, words);
    if !d.input_notes.is_empty() {
        let _ = writeln!(out, "\n{}\n", words.get("md.inputNotes"));
        for n in &d.input_notes {
            let _ = writeln!(out, "- {}", for_markdown(n));
        }
    }
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
        let _ = writeln!(out, "\n{}\n", words.get("md.fixHere"));
        let rules = own
            .iter()
            .map(|r| format!("`{r}`"))
            .collect::<Vec<_>>()
            .join(", ");
        let _ = writeln!(out, "{}", words.fill("md.fixHereWhy", &[("rules", &rules)]));
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
        let _ = writeln!(
            out,
            "\n{}\n",
            words.fill("md.report", &[("repo", &format!("`{repo}`"))])
        );
        let upstream = upstream_for(repo);
        match &upstream {
            Some(u) if !u.rules.is_empty() => {
                let _ = writeln!(
                    out,
                    "{}",
                    words.fill("md.rulesOf", &[("project", &u.project)])
                );
                for r in upstream_rules(u, words.lang()) {
                    let _ = writeln!(out, "- {r}");
                }
            }
            _ => {
                let _ = writeln!(out, "{}", words.get("md.readContributing"));
            }
        }
        if let Some(line) = upstream.and_then(|u| first_response_line(repo, &u, words.lang())) {
            let _ = writeln!(out, "\n{line}");
        }
    }
    let _ = writeln!(
        out,
        "\n{}",
        words.fill("md.diagnosedBy", &[("version", &d.schema_version)])
    );
    out
}

/// The timeline as a Markdown table, oldest first, with the count of moments left out.
fn timeline_markdown(out: &mut String, t: &crate::diagnosis::Timeline, words: Words) {
    if t.moments.is_empty() {
        return;
    }
    let _ = writeln!(out, "\n{}\n", words.get("md.timeline"));
    if t.earlier > 0 {
        let earlier = t.earlier.to_string();
        let _ = writeln!(
            out,
            "{}\n",
            words.fill("md.timelineEarlier", &[("count", &earlier)])
        );
    }
    let _ = writeln!(out, "{}\n|---|---|---|---|", words.get("md.timelineTable"));
    for m in &t.moments {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} |",
            md_code(&m.time),
            words.layer(m.layer),
            for_markdown(&m.object.display()),
            for_markdown(&m.text)
        );
    }
}

/// `why --timeline`'s section: one line per moment, oldest first, after what [`text`] prints.
pub fn timeline_text(t: &crate::diagnosis::Timeline, lang: Lang) -> String {
    let words = Words::of(lang);
    let mut out = String::new();
    if t.moments.is_empty() {
        let _ = writeln!(out, "\n{}", words.get("timelineNone"));
        return out;
    }
    let _ = writeln!(out, "\n{}", words.get("timeline"));
    if t.earlier > 0 {
        let earlier = t.earlier.to_string();
        let _ = writeln!(
            out,
            "  {}",
            words.fill("timelineEarlier", &[("count", &earlier)])
        );
    }
    let objects: Vec<String> = t.moments.iter().map(|m| m.object.display()).collect();
    let width = column_width(objects.iter().map(String::as_str));
    let time_width = column_width(t.moments.iter().map(|m| m.time.as_str()));
    for (m, object) in t.moments.iter().zip(&objects) {
        let _ = writeln!(
            out,
            "  {:<time_width$}  {}  {:<width$}  {}",
            for_terminal(&m.time),
            padded(words.layer(m.layer), 9),
            for_terminal(object),
            for_terminal(&m.text)
        );
    }
    out
}

/// What every scan rendering says of a report with nothing to list, when every read worked.
const NOTHING_TO_SCAN: &str = "Every piece of work in the bundle is running, ready or finished.\n";

/// A failed read as the answers name it: its resource (else its kind), then where and what.
fn read_label(m: &Missing) -> String {
    let what: Vec<&str> = [m.namespace.as_deref(), m.name.as_deref()]
        .into_iter()
        .flatten()
        .collect();
    let resource = m.resource.as_deref().unwrap_or(&m.kind);
    if what.is_empty() {
        resource.to_string()
    } else {
        format!("{resource} {}", what.join("/"))
    }
}

/// What says an answer is not an all-clear: its heading's key (terminal, Markdown), the
/// sentence under it, and one line per failed read.
fn incomplete_lines(
    i: &Incomplete,
    words: Words,
) -> ((&'static str, &'static str), String, Vec<String>) {
    let (heading, title) = if i.nothing_judged {
        (
            ("incomplete.nothingHeading", "md.nothingJudged"),
            words.get("incomplete.nothingJudged").to_string(),
        )
    } else {
        let count = i.reads.len().to_string();
        (
            ("incomplete.heading", "md.incomplete"),
            words.fill("incomplete.title", &[("count", &count)]),
        )
    };
    let lines = i
        .reads
        .iter()
        .map(|r| {
            words.fill(
                "incomplete.line",
                &[
                    ("read", &read_label(&r.read)),
                    ("why", &r.read.why),
                    ("unjudged", &r.unjudged),
                ],
            )
        })
        .collect();
    (heading, title, lines)
}

/// The terminal's block for an answer resting on failed reads (text already cleaned), and a
/// blank line after it.
fn incomplete_text(i: &Incomplete, words: Words, style: Style) -> String {
    let ((heading, _), title, lines) = incomplete_lines(i, words);
    let heading = style.paint("1;33", words.get(heading));
    let mut out = format!("{heading}: {title}\n");
    for l in lines {
        let _ = writeln!(out, "  {l}");
    }
    out.push('\n');
    out
}

/// The Markdown section for an answer resting on failed reads, and a blank line after it.
fn incomplete_markdown(i: &Incomplete, words: Words) -> String {
    let ((_, heading), title, lines) = incomplete_lines(i, words);
    let mut out = format!("{}\n\n{}\n\n", words.get(heading), for_markdown(&title));
    for l in lines {
        let _ = writeln!(out, "- {}", for_markdown(&l));
    }
    out.push('\n');
    out
}

/// The words of a scan listing: its diagnoses' language, English when it lists none.
fn report_words(r: &ScanLines) -> Words {
    r.lines.first().map_or(Words::of(Lang::En), line_words)
}

/// The words a line is to be shown in (its diagnosis's `lang`).
fn line_words(l: &ScanLine) -> Words {
    Words::of_code(l.lang.as_deref())
}

/// What a scan says when it lists nothing, after `failed` (what failed reads left unjudged,
/// ending with a blank line): an all-clear only when every read worked, and nothing more when
/// nothing could be judged.
fn nothing_listed(mut failed: String, r: &ScanLines) -> String {
    match &r.incomplete {
        Some(i) if i.nothing_judged => {
            failed.pop();
        }
        Some(_) => {
            failed.push_str(report_words(r).get("incomplete.noWorkRead"));
            failed.push('\n');
        }
        None => failed.push_str(NOTHING_TO_SCAN),
    }
    failed
}

/// scan's groups in report order: the blocking layer, else the verdict state, and its work;
/// each named in its work's language (in English, the layer's or state's own code).
fn scan_groups(lines: &[ScanLine]) -> impl Iterator<Item = (&'static str, &[ScanLine])> {
    let key = |l: &ScanLine| l.layer.ok_or(l.state);
    lines.chunk_by(move |a, b| key(a) == key(b)).map(move |g| {
        let words = line_words(&g[0]);
        let heading = match key(&g[0]) {
            Ok(layer) => words.layer(layer),
            Err(state) => words.state(state),
        };
        (heading, g)
    })
}

/// A rendering made into a string (it is written to memory: it cannot fail).
fn into_string(write: impl FnOnce(&mut Vec<u8>) -> std::io::Result<()>) -> String {
    let mut out = Vec::new();
    let _ = write(&mut out);
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// One line per piece of work, grouped by blocking layer (scan's text output).
pub fn scan_text(r: &ScanReport, style: Style) -> String {
    into_string(|out| scan_text_to(out, &ScanLines::of_report(r), style))
}

/// [`scan_text`] of a listing, written to `out` as it is made.
pub fn scan_text_to(
    out: &mut dyn std::io::Write,
    r: &ScanLines,
    style: Style,
) -> std::io::Result<()> {
    let mut failed = String::new();
    if let Some(i) = &r.incomplete {
        failed = incomplete_text(&cleaned(i), report_words(r), style);
    }
    if r.lines.is_empty() {
        return out.write_all(nothing_listed(failed, r).as_bytes());
    }
    out.write_all(failed.as_bytes())?;
    // Every string through the terminal's cleaning, a line at a time (a line is small).
    let lines: Vec<ScanLine> = r.lines.iter().map(cleaned).collect();
    let name_width = column_width(
        lines
            .iter()
            .map(work_name)
            .collect::<Vec<_>>()
            .iter()
            .map(String::as_str),
    );
    let status_width = column_width(lines.iter().map(|l| l.status.as_str()));
    for (i, (group, work)) in scan_groups(&lines).enumerate() {
        let gap = if i > 0 { "\n" } else { "" };
        writeln!(out, "{gap}{}", style.paint("1", &group.to_uppercase()))?;
        for l in work {
            writeln!(
                out,
                "  {} {:<name_width$}  {:<status_width$}  {}{}",
                style.state(l.state, line_words(l)),
                work_name(l),
                l.status,
                l.headline,
                l.outlook
                    .map_or_else(String::new, |o| format!(" ({})", o.as_str()))
            )?;
        }
    }
    Ok(())
}

/// How many namespaces a group's line names before "…".
const GROUP_NAMESPACES: usize = 3;

/// A group's namespaces as its line names them: `in namespace a`, or `in 12 namespaces: a, b,
/// c, …`; nothing for cluster-scoped work. `clean` makes each name safe for the output.
fn group_namespaces(g: &Group, words: Words, clean: impl Fn(&str) -> String) -> String {
    let mut names: Vec<String> = g
        .namespaces
        .iter()
        .take(GROUP_NAMESPACES)
        .map(|n| clean(n))
        .collect();
    if g.namespaces.len() > GROUP_NAMESPACES {
        names.push("…".into());
    }
    let count = g.namespaces.len().to_string();
    match g.namespaces.len() {
        0 => String::new(),
        1 => words.fill("scan.groupNamespace", &[("names", &names.join(", "))]),
        _ => words.fill(
            "scan.groupNamespaces",
            &[("count", &count), ("names", &names.join(", "))],
        ),
    }
}

/// The listing's words, heading and groups, layer by layer: `(heading, groups)` in report
/// order, each heading in the work's language as [`scan_groups`] names it.
fn layer_groups(groups: &[Group], words: Words) -> Vec<(&'static str, &[Group])> {
    let key = |g: &Group| g.layer.ok_or(g.state);
    groups
        .chunk_by(move |a, b| key(a) == key(b))
        .map(|gs| {
            let heading = match key(&gs[0]) {
                Ok(layer) => words.layer(layer),
                Err(state) => words.state(state),
            };
            (heading, gs)
        })
        .collect()
}

/// scan's default text: the work grouped by cause ([`crate::groups`]), two lines a cause
/// under its layer, and a last line that counts it all and says how to list every piece.
pub fn scan_groups_text_to(
    out: &mut dyn std::io::Write,
    r: &ScanLines,
    style: Style,
) -> std::io::Result<()> {
    let words = report_words(r);
    let mut failed = String::new();
    if let Some(i) = &r.incomplete {
        failed = incomplete_text(&cleaned(i), words, style);
    }
    if r.lines.is_empty() {
        return out.write_all(nothing_listed(failed, r).as_bytes());
    }
    out.write_all(failed.as_bytes())?;
    let groups: Vec<Group> = crate::groups::of_lines(&r.lines)
        .iter()
        .map(cleaned)
        .collect();
    let count_width = column_width(
        groups
            .iter()
            .map(|g| g.count.to_string())
            .collect::<Vec<_>>()
            .iter()
            .map(String::as_str),
    );
    for (i, (heading, gs)) in layer_groups(&groups, words).into_iter().enumerate() {
        let gap = if i > 0 { "\n" } else { "" };
        writeln!(out, "{gap}{}", style.paint("1", &heading.to_uppercase()))?;
        for g in gs {
            let mut head = format!(
                "{:>count_width$} × {}",
                g.count,
                g.rule.as_deref().unwrap_or("-")
            );
            if let Some(c) = &g.cause {
                head.push_str(&words.fill("scan.groupOn", &[("cause", &c.display())]));
            }
            if let Some(o) = g.outlook {
                let _ = write!(head, " ({})", o.as_str());
            }
            let namespaces = group_namespaces(g, words, str::to_string);
            if !namespaces.is_empty() {
                let _ = write!(head, ", {namespaces}");
            }
            writeln!(out, "  {} {head}", style.state(g.state, words))?;
            if let Some(e) = g.examples.first() {
                writeln!(
                    out,
                    "  {:8} {:count_width$}   {} {}: {}",
                    "",
                    "",
                    words.get("scan.groupExample"),
                    example_name(e),
                    e.headline
                )?;
            }
            if let Some(q) = &g.queue {
                let line = crate::groups::group_line(q, g.count, words);
                writeln!(
                    out,
                    "  {:8} {:count_width$}   {}",
                    "",
                    "",
                    words.fill("queue.line", &[("line", &line)])
                )?;
            }
        }
    }
    let (count, n) = (r.lines.len().to_string(), groups.len().to_string());
    writeln!(
        out,
        "\n{}",
        words.fill("scan.groupsFooter", &[("count", &count), ("groups", &n)])
    )
}

/// scan's default Markdown: a table of causes per layer.
pub fn scan_groups_markdown_to(out: &mut dyn std::io::Write, r: &ScanLines) -> std::io::Result<()> {
    let words = report_words(r);
    if !scan_markdown_head(out, r, words)? {
        return Ok(());
    }
    let groups = crate::groups::of_lines(&r.lines);
    for (i, (heading, gs)) in layer_groups(&groups, words).into_iter().enumerate() {
        let gap = if i > 0 { "\n" } else { "" };
        writeln!(
            out,
            "{gap}#### {heading}\n\n{}\n|---|---|---|---|---|---|",
            words.get("md.scanGroupTable")
        )?;
        for g in gs {
            let example = g.examples.first().map_or_else(String::new, |e| {
                format!(
                    "{}: {}",
                    md_code(&example_name(e)),
                    for_markdown(&e.headline)
                )
            });
            writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} |",
                g.count,
                g.rule.as_deref().map_or_else(|| "-".to_string(), md_code),
                g.cause
                    .as_ref()
                    .map_or_else(|| "-".to_string(), |c| for_markdown(&c.display())),
                match g.outlook {
                    Some(o) => format!("{} ({})", g.state.as_str(), o.as_str()),
                    None => g.state.as_str().to_string(),
                },
                group_namespaces(g, words, for_markdown),
                example
            )?;
        }
        group_queues_markdown(out, gs, words)?;
    }
    writeln!(out, "\n{}", words.get("md.scanDiagnosedBy"))
}

/// Under a layer's table, where each of its groups resting on a queue stands in it.
fn group_queues_markdown(
    out: &mut dyn std::io::Write,
    groups: &[Group],
    words: Words,
) -> std::io::Result<()> {
    let mut queued = groups
        .iter()
        .filter_map(|g| Some((g, g.queue.as_ref()?, g.cause.as_ref()?)))
        .peekable();
    if queued.peek().is_some() {
        writeln!(out)?;
    }
    for (g, q, cause) in queued {
        let line = crate::groups::group_line(q, g.count, words);
        writeln!(
            out,
            "- {} ({} × {}): {}",
            for_markdown(&cause.display()),
            g.count,
            g.rule.as_deref().map_or_else(|| "-".to_string(), md_code),
            for_markdown(&line)
        )?;
    }
    Ok(())
}

/// A scan's Markdown up to its tables: the title (how many pieces of work are not running)
/// and what failed reads left unjudged; or, when it lists nothing, all it says. True if the
/// tables follow.
fn scan_markdown_head(
    out: &mut dyn std::io::Write,
    r: &ScanLines,
    words: Words,
) -> std::io::Result<bool> {
    let incomplete = r.incomplete.as_ref().map(|i| incomplete_markdown(i, words));
    if r.lines.is_empty() {
        out.write_all(nothing_listed(incomplete.unwrap_or_default(), r).as_bytes())?;
        return Ok(false);
    }
    let title = if r.lines.len() == 1 {
        words.get("md.scanTitleOne").to_string()
    } else {
        words.fill("md.scanTitle", &[("count", &r.lines.len().to_string())])
    };
    writeln!(out, "{title}\n")?;
    out.write_all(incomplete.unwrap_or_default().as_bytes())?;
    Ok(true)
}

/// How a group names an example: as scan names a piece of work.
fn example_name(e: &Example) -> String {
    kind_namespace_name(&e.kind, e.namespace.as_deref(), &e.name)
}

/// How scan names a piece of work: `kind/namespace/name`, the kind as kubectl spells it.
fn work_name(l: &ScanLine) -> String {
    kind_namespace_name(&l.kind, l.namespace.as_deref(), &l.name)
}

/// `kind/namespace/name`, or `kind/name` for cluster-scoped objects, the kind in lower case.
fn kind_namespace_name(kind: &str, namespace: Option<&str>, name: &str) -> String {
    let kind = kind.to_ascii_lowercase();
    match namespace {
        Some(ns) => format!("{kind}/{ns}/{name}"),
        None => format!("{kind}/{name}"),
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
    into_string(|out| scan_markdown_to(out, &ScanLines::of_report(r)))
}

/// [`scan_markdown`] of a listing, written to `out` as it is made.
pub fn scan_markdown_to(out: &mut dyn std::io::Write, r: &ScanLines) -> std::io::Result<()> {
    // The report's language is its diagnoses' (a scan is made by one engine).
    let words = report_words(r);
    if !scan_markdown_head(out, r, words)? {
        return Ok(());
    }
    for (i, (group, work)) in scan_groups(&r.lines).enumerate() {
        let gap = if i > 0 { "\n" } else { "" };
        writeln!(
            out,
            "{gap}#### {group}\n\n{}\n|---|---|---|---|",
            words.get("md.scanTable")
        )?;
        for l in work {
            writeln!(
                out,
                "| {} | {} | {} | {} |",
                md_code(&work_name(l)),
                for_markdown(&l.status),
                match l.outlook {
                    Some(o) => format!("{} ({})", l.state.as_str(), o.as_str()),
                    None => l.state.as_str().to_string(),
                },
                for_markdown(&l.headline)
            )?;
        }
    }
    writeln!(out, "\n{}", words.get("md.scanDiagnosedBy"))
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
    rule_info_in(r, Lang::En)
}

/// A rule's metadata in `lang`: `r` is a rule of an engine writing in it.
pub fn rule_info_in(r: &crate::rule::Rule, lang: Lang) -> RuleInfo {
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
                rules: upstream_rules(&u, lang).to_vec(),
                project: u.project,
            }),
        decided_by: r.decided_by.clone(),
        versions: r.versions.clone(),
        references: r.references.clone(),
        explains: r.explains.clone(),
        outlook: r.outlook.map(|o| o.as_str().to_string()),
        // Without the rules' prose (the WASM module) the documentation comes whole from the
        // package's file beside the module, which `rules()` lays over this: none is written here.
        documentation: if crate::rule::DOCS_EMBEDDED {
            rule_doc_with(r, Words::of(lang), false)
        } else {
            String::new()
        },
    }
}

/// A rule's documentation as Markdown (`kubectl layer explain` and `docs/rules/`).
pub fn rule_doc(r: &crate::rule::Rule) -> String {
    rule_doc_in(r, Words::of(Lang::En))
}

/// A rule's documentation in `words`' language: the rule's own texts are already in it (an
/// engine's [`crate::Engine::in_lang`] rules), the headings come from `rules/ui*.yaml`; ids,
/// layer codes, paths and commands stay as they are.
pub fn rule_doc_in(r: &crate::rule::Rule, words: Words) -> String {
    rule_doc_with(r, words, true)
}

/// A rule's documentation, with its fixtures (the pages and `explain`) or without them (the
/// rule list the CLI's `rules -o json` and the WASM module's `rules()` give alike: the module
/// carries no fixtures, which are test data).
fn rule_doc_with(r: &crate::rule::Rule, words: Words, fixtures: bool) -> String {
    use crate::rule::{RuleKind, RuleOutlook};
    let mut out = String::new();
    let _ = writeln!(out, "# {}\n", r.id);
    let kind = match r.kind {
        RuleKind::Finding => words.fill("doc.kindFinding", &[("severity", r.severity.as_str())]),
        RuleKind::Status => words.fill(
            "doc.kindStatus",
            &[("state", r.state.map_or("ok", |s| s.as_str()))],
        ),
        RuleKind::Misalignment => words.fill(
            "doc.kindMisalignment",
            &[
                ("saidYes", r.said_yes.map_or("", |l| l.as_str())),
                ("saidNo", r.said_no.map_or("", |l| l.as_str())),
            ],
        ),
    };
    let _ = writeln!(
        out,
        "{}\n\n{}\n{}",
        r.summary,
        words.fill("doc.layer", &[("layer", r.layer.as_str())]),
        words.fill("doc.kind", &[("kind", &kind)])
    );
    if let Some(o) = r.outlook {
        let key = match o {
            RuleOutlook::Never => "doc.outlookNever",
            RuleOutlook::Waiting => "doc.outlookWaiting",
            RuleOutlook::Unknown => "doc.outlookUnknown",
        };
        let _ = writeln!(
            out,
            "{}",
            words.fill(
                "doc.outlook",
                &[("outlook", o.as_str()), ("words", words.get(key))]
            )
        );
    }
    if let Some(v) = &r.versions {
        let _ = writeln!(out, "{}", words.fill("doc.versions", &[("versions", v)]));
    }
    if !r.explains.is_empty() {
        let rules = r
            .explains
            .iter()
            .map(|e| format!("`{e}`"))
            .collect::<Vec<_>>()
            .join(", ");
        let _ = writeln!(out, "{}", words.fill("doc.explains", &[("rules", &rules)]));
    }
    let _ = writeln!(out, "\n{}\n\n> {}", words.get("doc.message"), r.message);
    if !r.why.is_empty() {
        let _ = writeln!(out, "\n{}\n\n{}", words.get("doc.why"), r.why);
    }
    if !r.fix.is_empty() {
        let _ = writeln!(out, "\n{}\n\n{}", words.get("doc.fix"), r.fix);
    }
    if !r.next.is_empty() {
        let _ = writeln!(
            out,
            "\n{}\n\n```sh\n{}\n```",
            words.get("doc.next"),
            r.next.join("\n")
        );
    }
    if let Some(repo) = &r.upstream {
        let _ = writeln!(out, "\n{}\n\n`{repo}`", words.get("doc.report"));
        let upstream = upstream_for(repo);
        if let Some(u) = upstream.as_ref().filter(|u| !u.rules.is_empty()) {
            let _ = writeln!(
                out,
                "\n{}",
                words.fill("doc.rulesOf", &[("project", &u.project)])
            );
            for x in upstream_rules(u, words.lang()) {
                let _ = writeln!(out, "- {x}");
            }
        }
        if let Some(line) = upstream.and_then(|u| first_response_line(repo, &u, words.lang())) {
            let _ = writeln!(out, "\n{line}");
        }
    }
    let facts = r.facts_read();
    if !facts.is_empty() {
        // One hop from a path to the code: each fact with the function and file that build it.
        let _ = writeln!(out, "\n{}\n", words.get("doc.facts"));
        for f in facts {
            let _ = writeln!(
                out,
                "{}",
                words.fill(
                    "doc.factLine",
                    &[
                        ("name", f.name),
                        ("function", f.built_by),
                        ("source", f.source)
                    ]
                )
            );
        }
    }
    if !r.references.is_empty() {
        let _ = writeln!(out, "\n{}\n", words.get("doc.references"));
        for x in &r.references {
            let _ = writeln!(out, "- {x}");
        }
    }
    if fixtures && !r.fixtures.is_empty() {
        let _ = writeln!(out, "\n{}\n", words.get("doc.fixtures"));
        for f in &r.fixtures {
            let _ = writeln!(
                out,
                "- `{}` — `{}` — {}",
                f.bundle_dir(),
                f.target,
                words.get(if f.fires {
                    "doc.fires"
                } else {
                    "doc.mustNotFire"
                })
            );
        }
    }
    out
}

/// A project's contribution rules in `lang` (its Korean list where it has one).
pub fn upstream_rules(u: &Upstream, lang: Lang) -> &[String] {
    match lang {
        Lang::Ko if !u.rules_ko.is_empty() => &u.rules_ko,
        _ => &u.rules,
    }
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
        let line = |repo: &str| {
            super::first_response_line(repo, &super::upstream_for(repo)?, super::Lang::En)
        };
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
