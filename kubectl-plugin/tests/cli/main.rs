//! The CLI's one integration-test binary: `offline` runs the real `kubectl-layer` on bundle
//! files; `live` runs it against the in-process API server, and the real `kubectl` too.

mod conventions;
mod live;
mod offline;

use std::process::{Command, Output};

pub fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_kubectl-layer"));
    c.env_remove("NO_COLOR");
    c.env_remove("KUBECONFIG");
    c
}

pub fn run(args: &[&str]) -> Output {
    bin().args(args).output().expect("runs")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).to_string()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}
