//! The MCP server's limits, through its standard input and output: every request is answered,
//! an error where the server refuses it (a line over its limit, arguments nested too deep, a
//! line that is not JSON), every answer stays within its bound with a hint to narrow the call,
//! and the server goes on answering after each.

use super::TempDir;
use super::mcp_client::{Session, text};
use serde_json::{Value, json};

/// The line limit and answer bound the README states (`mcp_lines::MAX_REQUEST_BYTES`,
/// `mcp::ANSWER_MAX_BYTES`).
const LINE_LIMIT: usize = 16 << 20;
const ANSWER_BOUND: usize = 128 << 10;

/// The server still answers: `rules` lists rules.
fn still_answers(s: &mut Session, id: u64) {
    let r = s.call(id, "rules", json!({"layer": "runtime"}));
    let rules = r["result"]["structuredContent"]["rules"]
        .as_array()
        .cloned();
    assert!(rules.is_some_and(|r| !r.is_empty()), "{r}");
}

#[test]
fn a_request_the_server_refuses_is_answered_with_an_error_and_the_next_is_served() {
    let mut s = Session::start(&["--offline"]);
    // A line over the limit, its id first as clients write it.
    let huge = format!(
        r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"scan","arguments":{{"bundle":"{}"}}}}}}"#,
        "x".repeat(LINE_LIMIT)
    );
    s.line(&huge);
    let e = s.next();
    assert_eq!(e["id"], 7, "{e}");
    assert_eq!(e["error"]["code"], -32600, "{e}");
    assert!(
        e["error"]["message"].as_str().unwrap().contains("-f FILE"),
        "{e}"
    );
    still_answers(&mut s, 8);
    // Arguments nested deeper than any tool takes.
    let deep = format!(
        r#"{{"jsonrpc":"2.0","id":"deep","method":"tools/call","params":{{"name":"why","arguments":{{"target":{}1{}}}}}}}"#,
        "[".repeat(200),
        "]".repeat(200)
    );
    s.line(&deep);
    let e = s.next();
    assert_eq!(e["id"], "deep", "{e}");
    assert!(
        e["error"]["message"]
            .as_str()
            .unwrap()
            .contains("deeper than"),
        "{e}"
    );
    // Not JSON: a parse error, with the id where it can be read.
    s.line(r#"{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"#);
    let e = s.next();
    assert_eq!(
        (e["id"].clone(), e["error"]["code"].clone()),
        (json!(11), json!(-32700)),
        "{e}"
    );
    s.line("this is no JSON at all");
    let e = s.next();
    assert_eq!(e["error"]["code"], -32700, "{e}");
    still_answers(&mut s, 12);
}

/// `n` pods Pending in namespace `ns`, each a piece of work `scan` lists.
fn pending_pods(n: usize, ns: &str) -> Vec<Value> {
    (0..n)
        .map(|i| {
            json!({"apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": format!("trainer-{i}"), "namespace": ns,
                             "uid": format!("{ns}-{i}"),
                             "creationTimestamp": "2026-01-01T00:00:00Z"},
                "spec": {"containers": [{"name": "c", "image": "i",
                    "resources": {"limits": {"nvidia.com/gpu": "8"}}}]},
                "status": {"phase": "Pending", "conditions": [{"type": "PodScheduled",
                    "status": "False", "reason": "Unschedulable",
                    "message": "0/3 nodes are available: 3 Insufficient nvidia.com/gpu."}]}})
        })
        .collect()
}

/// The size an answer carries: its JSON and its text.
fn carried(result: &Value) -> usize {
    result["structuredContent"].to_string().len() + text(result).len()
}

#[test]
fn a_huge_answer_is_cut_to_the_bound_with_a_hint_and_the_server_goes_on() {
    let mut items = pending_pods(600, "ml");
    items.extend(pending_pods(3, "small"));
    let bundle = json!({"apiVersion": "v1", "kind": "List", "items": items}).to_string();
    let dir = TempDir::new("mcp-huge");
    let file = dir.0.join("b.json");
    std::fs::write(&file, &bundle).unwrap();
    let mut s = Session::start(&["--offline", "-f", file.to_str().unwrap()]);
    // By default the answer is the summary: the work grouped by cause, small on any backlog,
    // with the hint to narrow.
    let r = s.call(9, "scan", json!({}))["result"].clone();
    let summary = &r["structuredContent"];
    assert!(
        summary.get("diagnoses").is_none() && summary.get("truncated").is_none(),
        "{summary}"
    );
    let counted: u64 = summary["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["count"].as_u64().unwrap())
        .sum();
    assert_eq!(counted, 603, "{summary}");
    assert!(
        summary["hint"].as_str().unwrap().contains("`rule`"),
        "{summary}"
    );
    assert!(carried(&r) < ANSWER_BOUND / 10, "{} bytes", carried(&r));
    let r = s.call(10, "scan", json!({"layer": "admission"}))["result"].clone();
    assert_eq!(r["structuredContent"]["groups"], json!([]), "{r}");
    // Every piece of work, cut to the bound.
    let r = s.call(1, "scan", json!({"summary": false}))["result"].clone();
    assert_ne!(r["isError"], true, "{}", text(&r));
    let cut = &r["structuredContent"]["truncated"];
    assert_eq!(cut["total"], 603, "{cut}");
    let shown = cut["shown"].as_u64().unwrap() as usize;
    assert!(shown > 0 && shown < 603, "{cut}");
    assert_eq!(
        r["structuredContent"]["diagnoses"]
            .as_array()
            .unwrap()
            .len(),
        shown
    );
    assert!(carried(&r) <= ANSWER_BOUND, "{} bytes", carried(&r));
    assert!(
        cut["why"].as_str().unwrap().contains("`namespace`"),
        "{cut}"
    );
    assert!(text(&r).contains("Cut here") && text(&r).contains("`namespace`"));
    // Narrowed as the hint says, the answer is whole.
    let r = s.call(2, "scan", json!({"namespace": "small", "summary": false}))["result"].clone();
    assert!(r["structuredContent"].get("truncated").is_none());
    assert_eq!(
        r["structuredContent"]["diagnoses"]
            .as_array()
            .unwrap()
            .len(),
        3
    );
    let r = s.call(3, "scan", json!({"limit": 5, "summary": false}))["result"].clone();
    assert_eq!(r["structuredContent"]["truncated"]["shown"], 5);
    assert_eq!(r["structuredContent"]["truncated"]["total"], 603);
    assert_eq!(
        r["structuredContent"]["diagnoses"]
            .as_array()
            .unwrap()
            .len(),
        5
    );
    still_answers(&mut s, 4);
}
