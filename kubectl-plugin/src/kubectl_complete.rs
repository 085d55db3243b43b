//! `kubectl_complete-layer`: what kubectl runs to complete `kubectl layer …`.
//!
//! kubectl (1.26 or later) finds a plugin's completion program on $PATH by its name,
//! `kubectl_complete-<plugin>`, passes it the words after the plugin's name (the last being
//! the word under the cursor, empty for a new one) and relays its answer in Cobra's
//! `__complete` form: a candidate a line, then `:<directive>`. See `pluginCompletion` in
//! <https://github.com/kubernetes/kubectl/blob/v0.32.4/pkg/cmd/plugin/plugin_completion.go>
//! (kubernetes/kubernetes v1.32.4, staging/src/k8s.io/kubectl/pkg/cmd/plugin/).
//! A separate program rather than a script calling `kubectl-layer`, so it works wherever the
//! plugin does, Windows included, and needs nothing else on $PATH.

use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let answer = kubectl_layer::complete::complete(&args).to_cobra();
    // kubectl discards every candidate when the program fails, so the exit status says only
    // whether the answer was written.
    match std::io::stdout().lock().write_all(answer.as_bytes()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(_) => ExitCode::FAILURE,
    }
}
