//! No door prints the credentials a URL carries (issue 38): a bundle whose `NATS_SERVER` is
//! `nats://user:password@…` (quoted in a headline, a finding and its evidence) and whose
//! reader could not read the nodes of `https://admin:password@…` (quoted under `missing`),
//! through text, JSON, Markdown, Prometheus, the MCP tools and `bundle`; and a kubeconfig
//! naming its API server with a password, in the error of a cluster that cannot be reached,
//! on the command line and through MCP.

use super::live::{scenario_objects, serve};
use super::{TempDir, mcp_client, run, stderr, stdout};
use serde_json::{Value, json};
use std::ffi::OsStr;

const SECRET: &str = "SECRET-38";

/// The scenario whose headline quotes `NATS_SERVER`, with a password in that URL and a failed
/// read that quotes the API server's URL with one.
fn bundle_with_credentials(dir: &TempDir) -> String {
    let path = scenarios::all()
        .into_iter()
        .find(|s| s.name == "srv-dgd-nats-no-workers")
        .expect("the scenario")
        .bundle_text()
        .replace(
            "nats://dynamo-platform-nats",
            &format!("nats://dynamo:{SECRET}@dynamo-platform-nats"),
        );
    let mut list: Value = serde_json::from_str(&path).expect("a List");
    list["kubectlLayer"] = json!({"unreadable": [{"kind": "Node", "resource": "nodes",
        "why": format!("cannot reach https://admin:{SECRET}@10.0.0.1:6443: connection refused")}]});
    let file = dir.0.join("bundle.json");
    std::fs::write(&file, list.to_string()).unwrap();
    assert!(std::fs::read_to_string(&file).unwrap().contains(SECRET));
    file.to_string_lossy().to_string()
}

/// Each answer holds what the URL named, without its user information.
fn clean(door: &str, shown: &str, quoted: &str) {
    assert!(
        !shown.contains(SECRET),
        "{door} prints the password:\n{shown}"
    );
    assert!(shown.contains(quoted), "{door} lost `{quoted}`:\n{shown}");
}

#[test]
fn no_door_prints_the_password_of_a_url_in_a_bundle() {
    let dir = TempDir::new("credentials");
    let file = bundle_with_credentials(&dir);
    let nats = "nats://dynamo-platform-nats.dynamo-system";
    let server = "https://10.0.0.1:6443";
    let target = ["why", "dgd/llama-agg", "-n", "llm", "-f", file.as_str()];
    for (format, quoted) in [("text", nats), ("json", nats), ("markdown", nats)] {
        let o = run(&[&target[..], &["-o", format]].concat());
        clean(&format!("why -o {format}"), &stdout(&o), quoted);
        clean(&format!("why -o {format}"), &stdout(&o), server);
    }
    for format in ["text", "json", "markdown", "prometheus"] {
        let o = run(&["scan", "-A", "-f", &file, "-o", format]);
        let quoted = if format == "prometheus" { server } else { nats };
        clean(&format!("scan -o {format}"), &stdout(&o), quoted);
    }
    let bundle = std::fs::read_to_string(&file).unwrap();
    let why = mcp_client::call(
        &[],
        "why",
        json!({"target": "dgd/llama-agg", "namespace": "llm", "bundle": bundle}),
    );
    clean("MCP why", &why.to_string(), nats);
    let scan = mcp_client::call(&[], "scan", json!({"bundle": bundle}));
    clean("MCP scan", &scan.to_string(), server);
    let o = run(&["bundle", "dgd/llama-agg", "-n", "llm", "-f", &file]);
    clean("bundle -f", &stdout(&o), server);
}

/// A kubeconfig naming its API server `https://admin:password@host`: the error of a cluster
/// that cannot be reached names the server without them, on stderr and in an MCP answer.
#[test]
fn an_api_server_url_with_a_password_is_printed_without_it() {
    let cluster = serve(
        scenario_objects("healthy-gpu-job"),
        Default::default(),
        "ml",
    );
    let text = std::fs::read_to_string(&cluster.kubeconfig).unwrap();
    let with_password = text.replace(
        "http://127.0.0.1:",
        &format!("http://admin:{SECRET}@127.0.0.1:"),
    );
    assert_ne!(text, with_password, "the kubeconfig names its server");
    std::fs::write(&cluster.kubeconfig, with_password).unwrap();
    let kubeconfig = cluster.kubeconfig.clone();
    drop(cluster.server);
    let kc = kubeconfig.to_string_lossy();
    let o = run(&[
        "why",
        "job/resnet",
        "--request-timeout",
        "5s",
        "--kubeconfig",
        &kc,
    ]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    clean(
        "the error line",
        &stderr(&o),
        "cannot reach the API server at http://127.0.0.1:",
    );
    let args = [OsStr::new("--kubeconfig"), kubeconfig.as_os_str()];
    let result = mcp_client::call(&args, "why", json!({"target": "job/resnet"}));
    clean(
        "MCP's error",
        &mcp_client::text(&result),
        "http://127.0.0.1:",
    );
}
