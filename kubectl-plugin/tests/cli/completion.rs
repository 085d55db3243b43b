//! Completion as a user meets it. `kubectl-layer completion bash|zsh` is sourced in a real bash
//! and a real zsh and driven at each depth (subcommand, flag, flag value, rule id). The real
//! `kubectl` completes `kubectl layer …` by running `kubectl_complete-layer` from $PATH: asked
//! directly (`kubectl __complete layer …`) and through kubectl's own bash and zsh scripts.
//!
//! A missing bash, zsh, bash-completion or kubectl fails the test when `CI` is set (CI installs
//! them: `cargo xtask ci`) and skips it with a notice otherwise.

use super::{TempDir, stderr, stdout};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const HARNESS_BASH: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/cli/complete-harness.bash"
);
const HARNESS_ZSH: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/cli/complete-harness.zsh"
);
/// Where Debian's bash-completion keeps the library kubectl's bash script calls into.
const BASH_COMPLETION: &str = "/usr/share/bash-completion/bash_completion";

fn in_ci() -> bool {
    std::env::var_os("CI").is_some_and(|v| !v.is_empty())
}

/// Whether a tool the test needs is here; in CI its absence is a failure, since a skipped
/// completion test would pass while completion is broken.
fn require(found: bool, what: &str, install: &str) -> bool {
    if !found {
        assert!(
            !in_ci(),
            "{what} is required in CI ({install}; `cargo xtask ci` installs it)"
        );
        eprintln!("note: {what} not found, skipping this test ({install})");
    }
    found
}

/// `name` on the test's own $PATH.
fn which(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

fn shell(name: &str) -> Option<PathBuf> {
    let found = which(name).filter(|p| {
        Command::new(p)
            .args(["-c", "exit 0"])
            .status()
            .is_ok_and(|s| s.success())
    });
    require(
        found.is_some(),
        name,
        &format!("Debian: apt-get install {name}"),
    );
    found
}

fn kubectl() -> Option<PathBuf> {
    let found = which("kubectl").filter(|p| {
        Command::new(p)
            .args(["version", "--client"])
            .output()
            .is_ok_and(|o| o.status.success())
    });
    require(
        found.is_some(),
        "kubectl",
        "Debian: apt-get install kubernetes-client",
    );
    found
}

/// Run `cmd` to its end, killing it past `limit`: a completion that hangs must fail the test,
/// not the whole run. Output goes through files so a chatty child cannot fill a pipe and stall.
fn bounded(mut cmd: Command, limit: Duration) -> Output {
    let dir = TempDir::new("completion-run");
    let (out, err) = (dir.0.join("stdout"), dir.0.join("stderr"));
    cmd.stdin(Stdio::null())
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::fs::File::create(&err).unwrap());
    let mut child = cmd.spawn().expect("starts");
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "{cmd:?} still running after {limit:?}; stderr:\n{}",
                std::fs::read_to_string(&err).unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output {
        status,
        stdout: std::fs::read(&out).unwrap(),
        stderr: std::fs::read(&err).unwrap(),
    }
}

/// A directory holding only the two binaries (or only the main one), to put first on $PATH:
/// cargo's target directory also holds files kubectl would list as plugins.
struct Bin {
    dir: TempDir,
}

impl Bin {
    fn new(with_helper: bool) -> Bin {
        let dir = TempDir::new("completion-bin");
        let mut bins = vec![("kubectl-layer", env!("CARGO_BIN_EXE_kubectl-layer"))];
        if with_helper {
            bins.push((
                "kubectl_complete-layer",
                env!("CARGO_BIN_EXE_kubectl_complete-layer"),
            ));
        }
        for (name, exe) in bins {
            std::os::unix::fs::symlink(exe, dir.0.join(name)).unwrap();
        }
        Bin { dir }
    }

    /// $PATH for a child: these binaries, kubectl's directory, and the system's, and nothing
    /// else, so a `kubectl_complete-layer` installed on this machine cannot stand in for ours.
    fn path(&self, kubectl: Option<&Path>) -> String {
        let mut dirs = vec![self.dir.0.clone()];
        if let Some(k) = kubectl.and_then(Path::parent) {
            dirs.push(k.to_path_buf());
        }
        dirs.extend(["/usr/bin", "/bin"].map(PathBuf::from));
        std::env::join_paths(dirs)
            .unwrap()
            .to_string_lossy()
            .into_owned()
    }
}

/// The environment for kubectl: no kubeconfig to read (completing a plugin must not need one)
/// and a scratch home, so nothing of this machine's user is read or written.
fn offline_env(cmd: &mut Command, home: &Path) {
    cmd.env("HOME", home)
        .env("KUBECONFIG", home.join("no-such-kubeconfig"))
        .env_remove("BASH_COMPLETION")
        .env_remove("ZDOTDIR");
}

/// What one completion offered: the words, in the shell's order.
type Offered = Vec<String>;

/// The shell's answers, one per line driven, split at the harness's `<<END>>` markers.
fn split_answers(text: &str, lines: &[&str]) -> Vec<Offered> {
    let mut answers = vec![Vec::new()];
    for l in text.lines() {
        if l == "<<END>>" {
            answers.push(Vec::new());
        } else {
            answers.last_mut().unwrap().push(l.to_string());
        }
    }
    answers.pop();
    assert_eq!(
        answers.len(),
        lines.len(),
        "one answer per line driven: {text}"
    );
    answers
}

/// Drive `command`'s completion function from `script` in bash, once per line.
fn in_bash(
    bash: &Path,
    script: &str,
    command: &str,
    lines: &[&str],
    env: impl FnOnce(&mut Command),
) -> Vec<Offered> {
    let dir = TempDir::new("completion-bash");
    let file = dir.0.join("script.bash");
    std::fs::write(&file, script).unwrap();
    let mut cmd = Command::new(bash);
    cmd.args(["--norc", "--noprofile", HARNESS_BASH])
        .arg(&file)
        .arg(command)
        .args(lines)
        .env_remove("BASH_COMPLETION");
    env(&mut cmd);
    let o = bounded(cmd, Duration::from_secs(60));
    assert!(o.status.success(), "bash harness: {}", stderr(&o));
    split_answers(&stdout(&o), lines)
}

/// Type each line and TAB into an interactive zsh on a pseudo-terminal whose compsys has
/// `script` sourced after `compinit` (the setup the help text gives).
fn in_zsh(
    zsh: &Path,
    script: &str,
    lines: &[&str],
    env: impl FnOnce(&mut Command),
) -> Vec<Offered> {
    let dir = TempDir::new("completion-zsh");
    let file = dir.0.join("script.zsh");
    std::fs::write(&file, script).unwrap();
    let out = dir.0.join("offered");
    let mut cmd = Command::new(zsh);
    cmd.args(["-f", HARNESS_ZSH])
        .arg(&file)
        .arg(&out)
        .args(lines)
        .env("HOME", &dir.0)
        .env_remove("ZDOTDIR");
    env(&mut cmd);
    let o = bounded(cmd, Duration::from_secs(90));
    assert!(o.status.success(), "zsh harness: {}", stderr(&o));
    split_answers(&std::fs::read_to_string(&out).unwrap(), lines)
}

fn script(shell: &str) -> String {
    let o = super::run(&["completion", shell]);
    assert!(o.status.success(), "completion {shell}: {}", stderr(&o));
    stdout(&o)
}

fn rule_ids() -> BTreeSet<String> {
    layer_core::Engine::builtin()
        .unwrap()
        .rules()
        .iter()
        .map(|r| r.id.clone())
        .collect()
}

fn set(words: &[&str]) -> BTreeSet<String> {
    words.iter().map(|w| w.to_string()).collect()
}

fn offered_set(o: &Offered) -> BTreeSet<String> {
    o.iter().cloned().collect()
}

const SUBCOMMANDS: &[&str] = &[
    "why",
    "fit",
    "scan",
    "bundle",
    "mcp",
    "exporter",
    "completion",
    "rbac",
    "layers",
    "version",
    "rules",
    "practice",
    "explain",
    "help",
];

/// The lines both shells' static scripts are driven with, after the command word `prefix`, and
/// what each must offer. Depth 1 is a subcommand, 2 a flag, 3 a flag's value.
fn check_static(shell: &str, prefix: &str, answers: &[Offered]) {
    let lines = static_lines(prefix);
    let at = |i: usize| (&lines[i], &answers[i]);
    let (line, top) = at(0);
    for s in SUBCOMMANDS {
        assert!(
            top.contains(&s.to_string()),
            "{shell} `{line}`: {s} in {top:?}"
        );
    }
    let (line, got) = at(1);
    assert_eq!(got, &["scan"], "{shell} `{line}`");
    let (line, flags) = at(2);
    for f in [
        "--namespace",
        "--filename",
        "--output",
        "--kubeconfig",
        "-n",
    ] {
        assert!(
            flags.contains(&f.to_string()),
            "{shell} `{line}`: {f} in {flags:?}"
        );
    }
    assert!(
        !flags.contains(&"--all-namespaces".to_string()),
        "{shell} `{line}`: scan's flag is not why's: {flags:?}"
    );
    let (line, got) = at(3);
    assert_eq!(got, &["--all-namespaces"], "{shell} `{line}`");
    for (i, want) in [
        (4, &["text", "json", "markdown"][..]),
        (5, &["text", "json", "markdown", "prometheus", "wide"]),
        (6, &["text", "json", "markdown"]),
        (7, &["text", "json", "markdown"]),
    ] {
        let (line, got) = at(i);
        assert_eq!(offered_set(got), set(want), "{shell} `{line}`");
    }
    // bash's script offers the subcommand's flags beside its positional's values.
    let (line, got) = at(8);
    let words: BTreeSet<String> = got
        .iter()
        .filter(|w| !w.starts_with('-'))
        .cloned()
        .collect();
    assert_eq!(words, rule_ids(), "{shell} `{line}`: every rule id");
    let (line, got) = at(9);
    assert_eq!(
        got,
        &["placement/insufficient-extended-resource"],
        "{shell} `{line}`"
    );
    let (line, got) = at(10);
    assert_eq!(got, &["why"], "{shell} `{line}`");
    let (line, got) = at(11);
    assert_eq!(got, &["zsh"], "{shell} `{line}`");
}

fn static_lines(prefix: &str) -> Vec<String> {
    [
        " ",
        " sc",
        " why -",
        " scan --all-",
        " why -o ",
        " scan -o ",
        " why trainer-0 -n ml --output ",
        " rules -o ",
        " explain ",
        " explain placement/insufficient-e",
        " help w",
        " completion z",
    ]
    .iter()
    .map(|l| format!("{prefix}{l}"))
    .collect()
}

#[test]
fn the_bash_script_completes_every_level() {
    let Some(bash) = shell("bash") else { return };
    let lines = static_lines("kubectl-layer");
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    let answers = in_bash(&bash, &script("bash"), "kubectl-layer", &lines, |_| {});
    check_static("bash", "kubectl-layer", &answers);
}

#[test]
fn the_zsh_script_completes_every_level() {
    let Some(zsh) = shell("zsh") else { return };
    let lines = static_lines("kubectl-layer");
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    let answers = in_zsh(&zsh, &script("zsh"), &lines, |_| {});
    check_static("zsh", "kubectl-layer", &answers);
}

#[test]
fn the_help_says_how_to_set_each_shell_up() {
    let o = super::run(&["completion", "--help"]);
    let help = stdout(&o);
    for s in [
        "source <(kubectl-layer completion bash)",
        "source <(kubectl-layer completion zsh)",
        "compinit",
        "kubectl_complete-layer",
    ] {
        assert!(help.contains(s), "{s} in:\n{help}");
    }
}

/// `kubectl __complete layer ARGS…`: the candidates kubectl hands its shell scripts, and the
/// directive number from the closing `:N` line.
fn kubectl_complete(kubectl: &Path, bin: &Bin, args: &[&str]) -> (Offered, u32) {
    let home = TempDir::new("completion-home");
    let mut cmd = Command::new(kubectl);
    cmd.arg("__complete")
        .arg("layer")
        .args(args)
        .env("PATH", bin.path(Some(kubectl)));
    offline_env(&mut cmd, &home.0);
    let o = bounded(cmd, Duration::from_secs(60));
    assert!(o.status.success(), "kubectl: {}", stderr(&o));
    let text = stdout(&o);
    let mut lines: Vec<&str> = text.lines().collect();
    let directive = lines
        .pop()
        .and_then(|l| l.strip_prefix(':'))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no closing :directive in {text:?}"));
    let words = lines
        .iter()
        .map(|l| l.split('\t').next().unwrap().to_string())
        .collect();
    (words, directive)
}

#[test]
fn kubectl_relays_the_helper_for_kubectl_layer() {
    let Some(kubectl) = kubectl() else { return };
    let bin = Bin::new(true);
    let (top, d) = kubectl_complete(&kubectl, &bin, &[""]);
    assert_eq!(offered_set(&top), set(SUBCOMMANDS), "depth 1");
    assert_eq!(d, 4, "no file names among subcommands");
    let (flags, _) = kubectl_complete(&kubectl, &bin, &["why", "-"]);
    for f in ["--namespace", "-n", "--filename", "--output", "--context"] {
        assert!(flags.contains(&f.to_string()), "{f} in {flags:?}");
    }
    let (values, d) = kubectl_complete(&kubectl, &bin, &["why", "-o", ""]);
    assert_eq!(values, ["text", "json", "markdown"]);
    assert_eq!(d, 4);
    let (values, _) = kubectl_complete(&kubectl, &bin, &["why", "pod-0", "-n", "ml", "-o", "m"]);
    assert_eq!(values, ["markdown"]);
    let (ids, _) = kubectl_complete(&kubectl, &bin, &["explain", ""]);
    assert_eq!(offered_set(&ids), rule_ids());
    let (kinds, d) = kubectl_complete(&kubectl, &bin, &["why", "j"]);
    assert_eq!(kinds, ["job/", "jobset/"]);
    assert_eq!(d, 2 | 4, "no space after `job/`: the name follows");
    let (none, d) = kubectl_complete(&kubectl, &bin, &["why", "x", "-f", ""]);
    assert!(none.is_empty(), "{none:?}");
    assert_eq!(d, 0, "-f takes a file: the shell completes file names");
}

#[test]
fn without_the_helper_kubectl_offers_nothing_after_the_plugin_name() {
    let Some(kubectl) = kubectl() else { return };
    // The same command as above with only `kubectl-layer` on $PATH: it is the helper's answer
    // that kubectl relays, not one kubectl derives from the plugin.
    let bin = Bin::new(false);
    let (values, d) = kubectl_complete(&kubectl, &bin, &["why", "-o", ""]);
    assert!(values.is_empty(), "{values:?}");
    assert_eq!(d, 0);
    let home = TempDir::new("completion-home");
    let mut cmd = Command::new(&kubectl);
    cmd.args(["__complete", "lay"])
        .env("PATH", bin.path(Some(&kubectl)));
    offline_env(&mut cmd, &home.0);
    let o = bounded(cmd, Duration::from_secs(60));
    assert!(
        stdout(&o).lines().any(|l| l.starts_with("layer\t")),
        "kubectl still finds the plugin itself: {}",
        stdout(&o)
    );
}

/// Lines typed after `kubectl ` in kubectl's own scripts, and what each must offer.
const KUBECTL_LINES: &[&str] = &[
    "kubectl layer ",
    "kubectl layer why -o ",
    "kubectl layer explain placement/insufficient-e",
    "kubectl layer scan -",
];

fn check_through_kubectl(shell: &str, answers: &[Offered]) {
    // bash's script shows descriptions beside several candidates; the word comes first.
    let words = |o: &Offered| -> BTreeSet<String> {
        o.iter()
            .map(|w| w.split_whitespace().next().unwrap_or("").to_string())
            .collect()
    };
    assert_eq!(words(&answers[0]), set(SUBCOMMANDS), "{shell}: depth 1");
    assert_eq!(
        words(&answers[1]),
        set(&["text", "json", "markdown"]),
        "{shell}: -o"
    );
    assert_eq!(
        words(&answers[2]),
        set(&["placement/insufficient-extended-resource"]),
        "{shell}: rule id"
    );
    assert!(
        words(&answers[3]).contains("--all-namespaces"),
        "{shell}: scan's flags: {:?}",
        answers[3]
    );
}

#[test]
fn kubectl_layer_tab_completes_in_bash_through_kubectls_script() {
    let Some(bash) = shell("bash") else { return };
    let Some(kubectl) = kubectl() else { return };
    // kubectl's bash script is built on bash-completion's library, as its docs require.
    if !require(
        Path::new(BASH_COMPLETION).is_file(),
        "bash-completion",
        "Debian: apt-get install bash-completion",
    ) {
        return;
    }
    let o = Command::new(&kubectl)
        .args(["completion", "bash"])
        .output()
        .unwrap();
    let bin = Bin::new(true);
    let home = TempDir::new("completion-home");
    let answers = in_bash(
        &bash,
        &stdout(&o),
        "kubectl",
        KUBECTL_LINES,
        |cmd: &mut Command| {
            offline_env(cmd, &home.0);
            cmd.env("PATH", bin.path(Some(&kubectl)))
                .env("BASH_COMPLETION", BASH_COMPLETION);
        },
    );
    check_through_kubectl("bash", &answers);
}

#[test]
fn kubectl_layer_tab_completes_in_zsh_through_kubectls_script() {
    let Some(zsh) = shell("zsh") else { return };
    let Some(kubectl) = kubectl() else { return };
    let o = Command::new(&kubectl)
        .args(["completion", "zsh"])
        .output()
        .unwrap();
    let bin = Bin::new(true);
    let home = TempDir::new("completion-home");
    let answers = in_zsh(&zsh, &stdout(&o), KUBECTL_LINES, |cmd: &mut Command| {
        offline_env(cmd, &home.0);
        cmd.env("PATH", bin.path(Some(&kubectl)));
    });
    check_through_kubectl("zsh", &answers);
}
