//! Text from a bundle is data on a terminal: no character of it may drive the terminal of the
//! person who runs `why` or `scan` (escape sequences, BEL, CR, backspace, C1 controls, bidi
//! overrides), and none of it may be lost.

use crate::support;
use layer_core::render::{self, Style};
use layer_core::{Bundle, Index, Options};

/// Characters a terminal acts on, as the renderer must never emit them raw.
fn acts(c: char) -> bool {
    (c.is_control() && c != '\n')
        || matches!(
            c,
            '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{2028}' | '\u{2029}'
        )
        || ('\u{202a}'..='\u{202e}').contains(&c)
        || ('\u{2066}'..='\u{2069}').contains(&c)
}

const HOSTILE: &str = "boom \u{1b}]0;pwned\u{7} \u{1b}[2J\rfake line\u{8}\u{9b}31m \u{202e}gnp.exe\nHeadline: all good";

fn hostile_bundle() -> String {
    let msg = serde_json::to_string(HOSTILE).expect("json string");
    format!(
        r#"{{"apiVersion":"v1","kind":"List","items":[
        {{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"p","namespace":"ml","uid":"u1"}},
          "spec":{{"nodeName":"n1","containers":[{{"name":"c","image":"i"}}]}},
          "status":{{"phase":"Pending","message":{msg},"reason":"Evil",
            "containerStatuses":[{{"name":"c","ready":false,"restartCount":3,
              "state":{{"waiting":{{"reason":"CrashLoopBackOff","message":{msg}}}}},
              "lastState":{{"terminated":{{"exitCode":1,"reason":"Error","message":{msg}}}}}}}]}}}},
        {{"apiVersion":"v1","kind":"Event","metadata":{{"name":"e","namespace":"ml"}},"type":"Warning",
          "reason":"BackOff","message":{msg},"involvedObject":{{"kind":"Pod","name":"p","namespace":"ml","uid":"u1"}},
          "lastTimestamp":"2026-01-01T00:00:00Z","count":3}}]}}"#
    )
}

#[test]
fn text_and_scan_show_every_control_character_and_obey_none() {
    let ix = Index::new(Bundle::parse(hostile_bundle()).expect("parses"));
    let (d, _) = support::diagnose(&ix, "Pod/ml/p");
    // The raw diagnosis keeps the text as the bundle had it: JSON consumers get the data.
    assert!(
        serde_json::to_string(&d)
            .expect("json")
            .contains("\\u001b]0;pwned"),
        "the JSON keeps the bundle's text"
    );
    let text = render::text(&d, Style { color: false });
    let scan = render::scan_text(
        &layer_core::target::scan(support::engine(), &ix, &Options::default()),
        Style { color: false },
    );
    for (what, out) in [("text", &text), ("scan", &scan)] {
        let raw: Vec<String> = out
            .chars()
            .filter(|&c| acts(c))
            .map(|c| format!("U+{:04X}", c as u32))
            .collect();
        assert!(raw.is_empty(), "{what} writes raw {raw:?}:\n{out}");
    }
    // Nothing is lost: the escapes are visible, and the bundle's newline cannot start a line.
    assert!(text.contains("\\u{1b}]0;pwned\\u{7}"), "{text}");
    assert!(text.contains("\\u{202e}gnp.exe"), "{text}");
    assert!(
        !text.lines().any(|l| l.starts_with("Headline: all good")),
        "a bundle's newline started a line of its own:\n{text}"
    );
}

#[test]
fn colour_is_the_renderers_own_and_survives_cleaning() {
    let ix = Index::new(Bundle::parse(hostile_bundle()).expect("parses"));
    let (d, _) = support::diagnose(&ix, "Pod/ml/p");
    let coloured = render::text(&d, Style { color: true });
    assert!(
        coloured.contains("\u{1b}[1m"),
        "the renderer still paints its own text"
    );
    assert!(
        !coloured.contains("\u{1b}]0;pwned"),
        "but the bundle's sequences are shown, not sent"
    );
}

#[test]
fn clean_scenarios_render_unchanged() {
    // The cleaning copy changes nothing but the characters a terminal acts on: every finding
    // and headline is there, as for_terminal writes it (a scenario's multi-line container
    // message shows its newline as ↵).
    for s in scenarios::all() {
        let ix = support::index(&s);
        for e in &s.expectations {
            let (d, _) = support::diagnose(&ix, &e.target);
            let text = render::text(&d, Style { color: false });
            for f in &d.findings {
                let shown = render::for_terminal(&f.message);
                assert!(
                    text.contains(shown.as_ref()) || f.severity == layer_core::Severity::Info,
                    "{} {}: finding {} lost",
                    s.name,
                    e.target,
                    f.rule
                );
            }
            // Said once: a finding that wrote its layer's line points at it in Findings.
            let findings = text.split("\nFindings:\n").nth(1).unwrap_or("");
            for l in &d.layers {
                let line = render::for_terminal(&l.summary);
                assert!(
                    !findings.contains(&format!("  {line}\n")),
                    "{} {}: the {} line is repeated under Findings:\n{text}",
                    s.name,
                    e.target,
                    l.layer
                );
            }
            let headline = render::for_terminal(&d.verdict.headline);
            assert!(
                text.contains(headline.as_ref()),
                "{} {}: headline lost",
                s.name,
                e.target
            );
        }
    }
}

const HOSTILE_MD: &str = "x\n# Injected heading\n| fake | row |\n<script>alert(1)</script> <img src=x onerror=alert(1)> [click](javascript:alert(1)) ![i](http://e/x.png) ``` unclosed fence";

#[test]
fn markdown_keeps_bundle_text_inside_its_cell_or_item() {
    let bundle = hostile_bundle().replace(
        &serde_json::to_string(HOSTILE).expect("json"),
        &serde_json::to_string(HOSTILE_MD).expect("json"),
    );
    let ix = Index::new(Bundle::parse(bundle).expect("parses"));
    let (d, _) = support::diagnose(&ix, "Pod/ml/p");
    assert!(
        d.findings.iter().any(|f| f.message.contains("<script>")),
        "the hostile text reaches a finding, so the test tests something"
    );
    let md = render::markdown(&d);
    let headings = md.lines().filter(|l| l.starts_with('#')).count();
    let own_headings = md
        .lines()
        .filter(|l| l.starts_with("### ") || l.starts_with("#### "))
        .count();
    assert_eq!(
        headings, own_headings,
        "a bundle line became a heading:\n{md}"
    );
    assert!(!md.lines().any(|l| l.starts_with("# Injected")), "{md}");
    // The layer table has its header, its separator and six rows, the timeline's its header,
    // its separator and a row per moment, and each row its 4 cells.
    let rows: Vec<&str> = md.lines().filter(|l| l.starts_with('|')).collect();
    let timeline_rows = match d.timeline.moments.len() {
        0 => 0,
        n => n + 2,
    };
    assert!(
        d.timeline
            .moments
            .iter()
            .any(|m| m.text.contains("<script>")),
        "the hostile text reaches the timeline too"
    );
    assert_eq!(rows.len(), 8 + timeline_rows, "{md}");
    for r in &rows {
        let cells = r.replace("\\|", "").matches('|').count();
        assert_eq!(cells, 5, "a bundle `|` split a cell: {r}");
    }
    // Inside a code span HTML and links are literal text; outside one they must not appear.
    let prose = outside_code_spans(&md);
    for raw in ["<script>", "<img"] {
        assert!(!prose.contains(raw), "raw {raw} outside code in:\n{md}");
    }
    // A link or image needs an unescaped `]` before `(`; every bracket of the bundle's is escaped.
    let link = regex::Regex::new(r"(^|[^\\])\]\(").expect("regex");
    assert!(!link.is_match(&prose), "an unescaped link in:\n{md}");
    // Every fence the report opens it closes: an odd count would leave the rest as code.
    let fences = md
        .lines()
        .filter(|l| l.trim_start().starts_with("```"))
        .count();
    assert_eq!(fences % 2, 0, "{md}");
    // Nothing is lost: the words are there, escaped.
    assert!(md.contains("&lt;script&gt;alert"), "{md}");
    assert!(md.contains("\\[click\\]"), "{md}");

    // scan's Markdown: the same text in a table cell stays in its cell and makes no heading.
    let scan = render::scan_markdown(&layer_core::target::scan(
        support::engine(),
        &ix,
        &Options::default(),
    ));
    let rows: Vec<&str> = scan.lines().filter(|l| l.starts_with("| `")).collect();
    assert!(!rows.is_empty(), "{scan}");
    for r in &rows {
        assert_eq!(r.replace("\\|", "").matches('|').count(), 5, "{r}");
    }
    assert!(!outside_code_spans(&scan).contains("<script>"), "{scan}");
    assert!(
        scan.lines()
            .filter(|l| l.starts_with('#'))
            .all(|l| l.starts_with("### ") || l.starts_with("#### ")),
        "{scan}"
    );
}

/// The text of each line with its inline code spans removed (a span opens with a run of
/// backticks and closes with a run of the same length).
fn outside_code_spans(md: &str) -> String {
    let mut out = String::new();
    for line in md.lines() {
        let mut rest = line;
        // An escaped backtick (`\``) is text, not a delimiter.
        while let Some(i) = rest
            .char_indices()
            .find(|&(i, c)| c == '`' && !rest[..i].ends_with('\\'))
            .map(|(i, _)| i)
        {
            out.push_str(&rest[..i]);
            let run = rest[i..].chars().take_while(|&c| c == '`').count();
            let fence = "`".repeat(run);
            let after = &rest[i + run..];
            match after.find(&fence) {
                Some(j) => rest = &after[j + run..],
                None => {
                    rest = after;
                    break;
                }
            }
        }
        out.push_str(rest);
        out.push('\n');
    }
    out
}

#[test]
fn suggested_commands_pass_bundle_names_as_single_words() {
    // Names no API server would accept, but a bundle file can hold anything.
    let bundle = hostile_bundle()
        .replace(
            r#""name":"p","namespace":"ml""#,
            r#""name":"p$(id);x","namespace":"d;id""#,
        )
        .replace(
            r#""name":"p","namespace":"ml","uid":"u1""#,
            r#""name":"p$(id);x","namespace":"d;id","uid":"u1""#,
        )
        .replace(r#""namespace":"ml"}"#, r#""namespace":"d;id"}"#);
    let ix = Index::new(Bundle::parse(bundle).expect("parses"));
    let (d, _) = support::diagnose(&ix, "Pod/d;id/p$(id);x");
    assert!(!d.next.is_empty(), "the finding suggests commands");
    for n in &d.next {
        assert!(
            !n.contains("-n d;id") && !n.contains(" p$(id);x"),
            "unquoted: {n}"
        );
    }
    assert!(
        d.next.iter().any(|n| n.contains("'d;id'")),
        "the namespace is quoted: {:?}",
        d.next
    );
}

/// Text output is for reading: evidence paths as kubectl writes them (the JSON keeps the
/// normalized path), and the Pods and scan columns stay aligned whatever the names' lengths.
#[test]
fn text_reads_kubectl_paths_in_aligned_columns() {
    let long = "trainer-with-a-name-far-longer-than-forty-characters-0";
    let pod = |name: &str, phase: &str| {
        format!(
            r#"{{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"{name}","namespace":"ml","uid":"u-{name}",
              "ownerReferences":[{{"apiVersion":"batch/v1","kind":"Job","name":"j","uid":"uj","controller":true}}],
              "labels":{{"batch.kubernetes.io/job-name":"j"}}}},
              "spec":{{"containers":[{{"name":"c","image":"i","resources":{{"limits":{{"nvidia.com/gpu":"1"}}}}}}]}},
              "status":{{"phase":"{phase}","conditions":[{{"type":"PodScheduled","status":"False","reason":"Unschedulable",
                "message":"0/1 nodes are available: 1 Insufficient nvidia.com/gpu."}}]}}}}"#
        )
    };
    let bundle = format!(
        r#"{{"apiVersion":"v1","kind":"List","items":[
        {{"apiVersion":"batch/v1","kind":"Job","metadata":{{"name":"j","namespace":"ml","uid":"uj"}},"spec":{{"parallelism":2}},"status":{{}}}},
        {},{},
        {{"apiVersion":"v1","kind":"Node","metadata":{{"name":"n1","uid":"un"}},"status":{{"allocatable":{{"nvidia.com/gpu":"1"}},"capacity":{{"nvidia.com/gpu":"1"}}}}}}]}}"#,
        pod(long, "Pending"),
        pod("t-1", "Pending")
    );
    let ix = Index::new(Bundle::parse(bundle).expect("parses"));
    let (d, _) = support::diagnose(&ix, "Job/ml/j");
    let text = render::text(&d, Style { color: false });
    assert!(!text.contains("$['"), "normalized paths in text:\n{text}");
    assert!(
        text.contains(".status.conditions[0].message"),
        "no kubectl-style path:\n{text}"
    );
    let json = serde_json::to_string(&d).expect("json");
    assert!(
        json.contains("$['status']['conditions'][0]['message']"),
        "{json}"
    );
    let rows: Vec<&str> = text
        .split("\nPods:\n")
        .nth(1)
        .unwrap_or_else(|| panic!("no Pods section:\n{text}"))
        .lines()
        .take_while(|l| l.starts_with("  "))
        .collect();
    assert_eq!(rows.len(), 2, "{text}");
    let status_at = |row: &str| row.find("Pending").unwrap_or_else(|| panic!("{row}"));
    assert_eq!(status_at(rows[0]), status_at(rows[1]), "{text}");
    assert!(status_at(rows[0]) > long.len(), "{text}");
}

/// A name kubectl would read as its own flag (`--kubeconfig=…`) is never passed to it: the
/// commands that would name it are left out, the others stay.
#[test]
fn suggested_commands_never_pass_a_flag_from_the_bundle() {
    let bundle = hostile_bundle()
        .replace(
            r#""name":"p","namespace":"ml","uid":"u1""#,
            r#""name":"--kubeconfig=evil","namespace":"ml","uid":"u1""#,
        )
        .replace(
            r#""name":"p","namespace":"ml"}"#,
            r#""name":"--kubeconfig=evil","namespace":"ml"}"#,
        );
    let ix = Index::new(Bundle::parse(bundle).expect("parses"));
    let (d, _) = support::diagnose(&ix, "Pod/ml/--kubeconfig=evil");
    assert!(
        d.findings.iter().any(|f| !f.message.is_empty()),
        "the pod is still diagnosed"
    );
    for n in &d.next {
        assert!(
            !n.contains("--kubeconfig"),
            "a bundle's flag reaches kubectl: {n}"
        );
    }
}

/// A name of any length renders: columns stop at their widest, and a name longer than a
/// formatter's width (65,535) neither stops the rendering nor loses a character.
#[test]
fn very_long_names_render_whole_in_capped_columns() {
    let long = "p".repeat(70_000);
    let bundle = format!(
        r#"{{"apiVersion":"v1","kind":"List","items":[
        {{"apiVersion":"batch/v1","kind":"Job","metadata":{{"name":"j","namespace":"ml","uid":"uj"}},"spec":{{}},"status":{{}}}},
        {{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"{long}","namespace":"ml","uid":"u1",
          "ownerReferences":[{{"apiVersion":"batch/v1","kind":"Job","name":"j","uid":"uj","controller":true}}]}},
          "spec":{{"containers":[{{"name":"c","image":"i"}}]}},"status":{{"phase":"Pending"}}}},
        {{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"short","namespace":"ml","uid":"u2",
          "ownerReferences":[{{"apiVersion":"batch/v1","kind":"Job","name":"j","uid":"uj","controller":true}}]}},
          "spec":{{"containers":[{{"name":"c","image":"i"}}]}},"status":{{"phase":"Pending"}}}}]}}"#
    );
    let ix = Index::new(Bundle::parse(bundle).expect("parses"));
    let (d, _) = support::diagnose(&ix, "Job/ml/j");
    let text = render::text(&d, Style { color: false });
    assert!(text.contains(&long), "the long name is shown whole");
    let short_row = text
        .lines()
        .find(|l| l.trim_start().starts_with("short "))
        .unwrap_or_else(|| {
            panic!(
                "no row for the short pod:\n{}",
                &text[..2000.min(text.len())]
            )
        });
    assert!(
        short_row.len() < 200,
        "a long name pushed the other rows out: {short_row}"
    );
    let scan = render::scan_text(
        &layer_core::target::scan(support::engine(), &ix, &Options::default()),
        Style { color: false },
    );
    assert!(
        scan.contains("job/ml/j"),
        "{}",
        &scan[..500.min(scan.len())]
    );
}
