//! A cluster for tests written in other languages: the in-process API server serving a bundle
//! file, with a kubeconfig written for it, until standard input closes.
//!
//! ```text
//! cargo build -p kubectl-layer --example test_cluster
//! test_cluster BUNDLE KUBECONFIG [NAMESPACE]
//! ```
//!
//! Prints `ready <url>` on standard output once the kubeconfig is written; the Node MCP test
//! (`tests/mcp/`) points `kubectl layer mcp` at it, as the Rust tests do with the server itself.

use apiserver::{Options, Server};
use layer_core::{Bundle, Index};
use serde_json::Value;
use std::io::Read;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(bundle), Some(kubeconfig)) = (args.first(), args.get(1)) else {
        eprintln!("usage: test_cluster BUNDLE KUBECONFIG [NAMESPACE]");
        std::process::exit(2);
    };
    let namespace = args.get(2).map_or("default", String::as_str);
    let text = std::fs::read_to_string(bundle).unwrap_or_else(|e| fail(bundle, e));
    let ix = Index::new(Bundle::parse(text.as_str()).unwrap_or_else(|e| fail(bundle, e)));
    // The objects as the core reads them (duplicates merged), as the Rust live tests serve them.
    let objects: Vec<Value> = (0..ix.len()).map(|i| ix.value(i)).collect();
    let server =
        Server::start_blocking(objects, Options::default()).unwrap_or_else(|e| fail(bundle, e));
    server
        .write_kubeconfig(std::path::Path::new(kubeconfig), namespace)
        .unwrap_or_else(|e| fail(kubeconfig, e));
    println!("ready {}", server.url());
    // Serve until the test that started it closes our standard input (or exits).
    let _ = std::io::stdin().read_to_end(&mut Vec::new());
}

fn fail(what: &str, e: impl std::fmt::Display) -> ! {
    eprintln!("test_cluster: {what}: {e}");
    std::process::exit(2);
}
