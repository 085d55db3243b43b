//! `cargo xtask workflows`: the GitHub Actions workflows in `.github/workflows/`, which run
//! only on a tag and so never ran before a release, checked here: `actionlint` (built from its
//! Go module into the lab's cache, as krew is) with Debian's `shellcheck` on every `run:`
//! script; and every `cargo xtask` task and every repository path a `run:` step or a step's
//! `working-directory` names must exist.

use crate::{lab, root, run, tools};
use serde_yaml_ng::Value;
use std::path::PathBuf;
use std::process::Command;

/// The workflow files, in name order.
fn files() -> Result<Vec<PathBuf>, String> {
    let dir = root().join(".github/workflows");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "yml" || x == "yaml"))
        .collect();
    files.sort();
    Ok(files)
}

/// actionlint on every workflow, shellcheck on their scripts; any finding fails.
pub fn check() -> Result<(), String> {
    tools::ensure(&[tools::Tool::Shellcheck])?;
    let actionlint = lab::build::actionlint()?;
    let shellcheck = tools::shellcheck_path()?;
    let files = files()?;
    if files.is_empty() {
        return Err(".github/workflows holds no workflow".into());
    }
    run(Command::new(actionlint)
        .arg("-no-color")
        .arg(format!("-shellcheck={shellcheck}"))
        .args(&files))?;
    let (calls, problems) = unknown_calls()?;
    if !problems.is_empty() {
        return Err(problems.join("\n"));
    }
    eprintln!(
        "==> workflows: actionlint and shellcheck found nothing in {} files; their {calls} \
         `cargo xtask` calls and the paths they name exist",
        files.len()
    );
    Ok(())
}

/// Every workflow, read as YAML: (file name, parsed).
fn workflows() -> Result<Vec<(String, Value)>, String> {
    files()?
        .iter()
        .map(|f| {
            let name = f
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            let text = std::fs::read_to_string(f).map_err(|e| format!("{name}: {e}"))?;
            let v = serde_yaml_ng::from_str(&text).map_err(|e| format!("{name}: {e}"))?;
            Ok((name, v))
        })
        .collect()
}

/// A task xtask's help lists and its `main` dispatches.
fn is_task(task: &str) -> bool {
    let listed = crate::HELP.lines().any(|l| {
        l.strip_prefix("  ")
            .and_then(|l| l.split_whitespace().next())
            == Some(task)
    });
    let main = std::fs::read_to_string(root().join("xtask/src/main.rs")).unwrap_or_default();
    listed && main.contains(&format!("Some(\"{task}\")"))
}

/// How many `cargo xtask` calls the workflows' `run:` steps make, and each call of a task
/// xtask lacks and each repository path that is not there. What a build leaves (wasm/pkg,
/// web-demo/dist) exists once its task ran: its parent must, and the task is checked.
fn unknown_calls() -> Result<(usize, Vec<String>), String> {
    let (mut calls, mut problems) = (0, Vec::new());
    for (name, w) in workflows()? {
        for (script, dir) in run_steps(&w) {
            for task in xtask_tasks(&script) {
                calls += 1;
                if !is_task(&task) {
                    problems.push(format!("{name}: `cargo xtask {task}` is no xtask task"));
                }
            }
            for p in repo_paths(&script).into_iter().chain(dir) {
                let made = ["wasm/pkg", "web-demo/dist"]
                    .into_iter()
                    .find(|m| p.starts_with(m));
                let at = root().join(made.unwrap_or(&p));
                let exists = match made {
                    Some(_) => at.parent().is_some_and(std::path::Path::exists),
                    None => at.exists(),
                };
                if !exists {
                    problems.push(format!("{name}: `{p}` is not in the repository"));
                }
            }
        }
    }
    Ok((calls, problems))
}

/// Every `run:` script of a workflow, with its step's `working-directory` when it has one.
fn run_steps(workflow: &Value) -> Vec<(String, Option<String>)> {
    let Some(jobs) = workflow.get("jobs").and_then(Value::as_mapping) else {
        return Vec::new();
    };
    let steps = jobs
        .values()
        .filter_map(|j| j.get("steps").and_then(Value::as_sequence))
        .flatten();
    steps
        .filter_map(|s| {
            let script = s.get("run")?.as_str()?.to_string();
            let dir = s
                .get("working-directory")
                .and_then(Value::as_str)
                .map(str::to_string);
            Some((script, dir))
        })
        .collect()
}

/// The tasks a script asks of xtask (`cargo xtask release --plan` gives `release`).
fn xtask_tasks(script: &str) -> Vec<String> {
    let words: Vec<&str> = script.split_whitespace().collect();
    words
        .windows(3)
        .filter(|w| w[0].ends_with("cargo") && w[1] == "xtask")
        .map(|w| w[2].trim_matches(['"', '\'', ')', ';']).to_string())
        .collect()
}

/// Words of a script that name a file or folder of this repository: relative paths with a
/// known top-level folder (`wasm/pkg/package.json`, `./wasm/…`), not the ones built into
/// `target/` or written by the run.
fn repo_paths(script: &str) -> Vec<String> {
    let tops = [
        "wasm/",
        "web-demo/",
        "xtask/",
        "tests/",
        ".ci/",
        "kubectl-plugin/",
        "core/",
    ];
    script
        .split(|c: char| c.is_whitespace() || "\"'()`;,".contains(c))
        .map(|w| w.trim_start_matches("./"))
        .filter(|w| tops.iter().any(|t| w.starts_with(t)) && !w.contains("${"))
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_xtask_task_and_path_a_workflow_runs_exists() {
        let (calls, problems) = unknown_calls().unwrap();
        assert!(problems.is_empty(), "{problems:#?}");
        assert!(
            calls >= 5,
            "{calls} xtask calls found: the reader lost them"
        );
    }

    #[test]
    fn the_readers_find_tasks_and_paths() {
        let s = "echo \"m=$(cargo xtask release --plan --json)\" >> \"$GITHUB_OUTPUT\"\n\
                 cargo xtask web-test --pages\nnode -p 'require(\"./wasm/pkg/package.json\")'";
        assert_eq!(xtask_tasks(s), ["release", "web-test"]);
        assert_eq!(repo_paths(s), ["wasm/pkg/package.json"]);
        assert!(is_task("wasm-test") && !is_task("publish") && !is_task("ci-all"));
    }
}
