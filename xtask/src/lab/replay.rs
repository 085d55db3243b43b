//! `cargo xtask lab replay`: every bundle of the project (scenarios, incidents, fit clusters)
//! written into a bare lab's real kube-apiserver and read back live (issue 39, point 3). The
//! replay itself is the live test `lab_replay` of the CLI's test binary, which does the writing
//! with the admin's client and the reading with `kubectl-layer` as the least-privileged reader;
//! this starts the bare lab it needs (no controller may change what was written), runs it, says
//! how long it took, and stops the lab if it started it. The same bare lab then runs
//! `lab_describe`: every scenario written again and read back as `kubectl describe` output.

use super::{Tier, down, lab, live_tests, up};
use std::time::Instant;

pub fn replay() -> Result<(), String> {
    let started = up(Tier::Bare, 0, false, false)?;
    let lab = lab();
    let start = Instant::now();
    // One after the other: each writes bundles into the same API server, and the describe
    // test reads every namespace (`kubectl describe … -A`), so the replay's objects must be
    // gone before it starts.
    let result =
        live_tests(&lab, &["lab_replay::"]).and_then(|()| live_tests(&lab, &["lab_describe::"]));
    eprintln!(
        "==> lab replay: {:.0} s (report: {})",
        start.elapsed().as_secs_f64(),
        lab.dir.join("replay.md").display()
    );
    if started {
        down()?;
    }
    result
}
