//! Stamps the commit the binary is built from into `KUBECTL_LAYER_COMMIT`, for `kubectl layer
//! version`: `$KUBECTL_LAYER_COMMIT` when set (a build from a source archive that knows its
//! commit), else what `git` says of the checkout, else `unknown` (no git, or not a checkout).
//! Nothing here reaches the network.

use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=KUBECTL_LAYER_COMMIT");
    let commit = std::env::var("KUBECTL_LAYER_COMMIT")
        .ok()
        .filter(|c| !c.trim().is_empty())
        .or_else(git_commit)
        .unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=KUBECTL_LAYER_COMMIT={}", commit.trim());
}

/// The checkout's commit; rebuilt when HEAD moves (a commit or a checkout writes HEAD's
/// reflog, also in a worktree, whose HEAD lives apart from the shared refs).
fn git_commit() -> Option<String> {
    for path in ["HEAD", "logs/HEAD"] {
        if let Some(p) = git(&["rev-parse", "--git-path", path]) {
            println!("cargo:rerun-if-changed={p}");
        }
    }
    git(&["rev-parse", "--short=12", "HEAD"])
}

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    (out.status.success() && !text.trim().is_empty()).then(|| text.trim().to_string())
}
