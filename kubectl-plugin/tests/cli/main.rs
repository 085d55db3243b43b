//! The CLI's one integration-test binary: `offline` runs the real `kubectl-layer` on bundle
//! files; `live` runs it against the in-process API server, and the real `kubectl` too;
//! `completion` sources its completion scripts in real shells and has the real `kubectl`
//! complete `kubectl layer …` through `kubectl_complete-layer`; `lab` runs it against the real
//! control plane of `cargo xtask lab` when one is up.

#[cfg(unix)]
mod completion;
mod conventions;
mod credentials;
mod failed_reads;
mod fit;
mod inputs;
mod lab;
mod lab_course;
mod lab_describe;
mod lab_doors;
mod lab_faults;
mod lab_kai;
mod lab_replay;
mod live;
mod mcp_client;
mod mcp_limits;
mod metrics;
mod offline;
mod practice;
mod requests;
mod visibility;

use std::path::PathBuf;
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

/// `cmd` run with `text` on its standard input (written from a thread, so a tool that stops
/// reading early cannot leave the test waiting), its output captured.
pub fn with_stdin(cmd: &mut Command, text: &str) -> Output {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs");
    let mut stdin = child.stdin.take().expect("stdin");
    let text = text.to_string();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(text.as_bytes());
    });
    let o = child.wait_with_output().expect("runs");
    writer.join().expect("the writer ends");
    o
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).to_string()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

/// A directory removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static N: AtomicUsize = AtomicUsize::new(0);
        let p = std::env::temp_dir().join(format!(
            "kubectl-layer-test-{}-{tag}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
