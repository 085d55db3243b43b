//! Shell completion, computed from the clap command tree in `cli.rs`.
//!
//! Two consumers. `kubectl-layer completion SHELL` prints clap_complete's static script for
//! someone typing `kubectl-layer …`. `kubectl layer …` is different: kubectl owns that command
//! line, and since 1.26 it completes a plugin's arguments by running `kubectl_complete-<plugin>`
//! from $PATH and reading Cobra's `__complete` answer. [`complete`] computes that answer by
//! walking the same tree the parser uses, so neither consumer keeps its own list of flags.

use crate::cli::Cli;
use clap::builder::PossibleValue;
use clap::{Arg, ArgAction, Command, CommandFactory, ValueHint};

/// The name the shell scripts complete: the binary a user types, not the `kubectl layer` that
/// `--help` shows (kubectl, not the shell, completes that one).
pub const BIN: &str = "kubectl-layer";

/// Cobra's ShellCompDirective bits, the number after the `:` on the answer's last line
/// (<https://github.com/spf13/cobra/blob/v1.8.1/completions.go>, the cobra that kubectl 1.32
/// vendors).
pub mod directive {
    /// Let the shell do its default, which is to complete file names.
    pub const DEFAULT: u32 = 0;
    /// No space after a single candidate: the word goes on (`job/` is followed by a name).
    pub const NO_SPACE: u32 = 2;
    /// Offer no file names when nothing matched: a flag's name or an enum is never a path.
    pub const NO_FILE_COMP: u32 = 4;
}

/// One word the shell may put on the line, with the help text shown beside it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    pub value: String,
    pub help: String,
}

/// The candidates for one word and how the shell should treat them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Completions {
    pub candidates: Vec<Candidate>,
    pub directive: u32,
}

impl Completions {
    fn none() -> Completions {
        Completions {
            candidates: Vec::new(),
            directive: directive::NO_FILE_COMP,
        }
    }

    /// The answer in Cobra's `__complete` form, which kubectl relays: one `value\thelp` a line,
    /// then `:directive`. Help is cut to one line without tabs, since a newline would start a
    /// bogus candidate and a tab would split one.
    pub fn to_cobra(&self) -> String {
        let mut s = String::new();
        for c in &self.candidates {
            s.push_str(&c.value);
            let help = one_line(&c.help);
            if !help.is_empty() {
                s.push('\t');
                s.push_str(&help);
            }
            s.push('\n');
        }
        s.push_str(&format!(":{}\n", self.directive));
        s
    }

    pub fn values(&self) -> Vec<&str> {
        self.candidates.iter().map(|c| c.value.as_str()).collect()
    }
}

/// A help text's first sentence on one line: shells show it beside the candidate, in a column
/// too narrow for the paragraph `--help` prints.
fn one_line(s: &str) -> String {
    let line = s.lines().next().unwrap_or("");
    // A sentence ends at ". " before a capital, which "e.g. a" does not.
    let end = line
        .match_indices(". ")
        .find(|(i, _)| line[i + 2..].starts_with(|c: char| c.is_uppercase()))
        .map_or(line.len(), |(i, _)| i);
    line[..end].trim().trim_end_matches('.').replace('\t', " ")
}

/// The arguments whose values are not in the tree: rule ids live in the rule files and target
/// kinds in the core. Named by (subcommand, argument id); a unit test checks that each still
/// names an argument, so renaming one in `cli.rs` fails loudly instead of going quiet.
const RULE_ARGS: &[(&str, &str)] = &[("explain", "rule")];
const TARGET_ARGS: &[(&str, &str)] = &[("why", "target"), ("bundle", "target")];

/// The static script for `shell`, completing `kubectl-layer …` at every depth, with rule ids
/// after `explain` (known when the script is made, since the rules are built in).
pub fn script(shell: clap_complete::Shell) -> String {
    let rules = rule_candidates();
    let mut cmd = Cli::command().bin_name(BIN);
    for (sub, arg) in RULE_ARGS {
        let values: Vec<PossibleValue> = rules
            .iter()
            .map(|c| {
                // zsh's script puts each help in double quotes without escaping them
                // (clap_complete 4.6.12), so a quoted word in a summary would end it and spill
                // the rest out as candidates.
                let help = one_line(&c.help).replace('"', "'");
                PossibleValue::new(c.value.clone()).help(help)
            })
            .collect();
        // Only this copy of the tree lists the ids as the argument's values: the parser keeps
        // its own message for an unknown id, which suggests the close ones.
        cmd = cmd.mut_subcommand(sub, |c| {
            c.mut_arg(arg, |a| {
                a.value_parser(clap::builder::PossibleValuesParser::new(values))
            })
        });
    }
    let mut buf = Vec::new();
    if shell != clap_complete::Shell::Bash {
        clap_complete::generate(shell, &mut cmd, BIN, &mut buf);
        return String::from_utf8_lossy(&buf).into_owned();
    }
    // clap_complete's bash script spells a hyphenated bin name two ways: its dispatcher walks
    // to `kubectl__layer__subcmd__why` while the branch is labelled
    // `kubectl__subcmd__layer__subcmd__why`, so nothing below the first word completes
    // (https://github.com/clap-rs/clap/issues/6421, open for clap_complete 4.6.12). Without a
    // hyphen both spellings agree, and the script never matches on the name (it takes the
    // command word as `$1`) except in the `complete` lines that bind it, renamed here.
    const UNHYPHENATED: &str = "kubectl_layer";
    clap_complete::generate(shell, &mut cmd, UNHYPHENATED, &mut buf);
    let text = String::from_utf8_lossy(&buf);
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        match line.strip_suffix(UNHYPHENATED) {
            Some(head) if line.trim_start().starts_with("complete ") => {
                out.push_str(head);
                out.push_str(BIN);
            }
            _ => out.push_str(line),
        }
        out.push('\n');
    }
    out
}

/// Complete `kubectl layer ARGS…`, where the last of `args` is the word being completed (empty
/// for a new word), as kubectl passes them to `kubectl_complete-layer`.
pub fn complete(args: &[String]) -> Completions {
    let mut cmd = Cli::command();
    // Building adds what clap derives (the help subcommand, --help, --version) so they are
    // offered exactly when the parser would take them.
    cmd.build();
    complete_in(&cmd, args)
}

fn complete_in(root: &Command, args: &[String]) -> Completions {
    let (word, before) = match args.split_last() {
        Some((w, b)) => (w.as_str(), b),
        None => ("", &[][..]),
    };
    let mut cur = root;
    let mut positionals = 0usize;
    let mut pending: Option<&Arg> = None;
    let mut seen: Vec<&str> = Vec::new();
    let mut only_positionals = false;
    for tok in before {
        if pending.take().is_some() {
            continue;
        }
        if only_positionals {
            positionals += 1;
            continue;
        }
        if tok == "--" {
            only_positionals = true;
            continue;
        }
        if let Some(long) = tok.strip_prefix("--") {
            let (name, inline) = match long.split_once('=') {
                Some((n, _)) => (n, true),
                None => (long, false),
            };
            if let Some(a) = find_long(cur, name) {
                seen.push(a.get_id().as_str());
                if takes_value(a) && !inline {
                    pending = Some(a);
                }
            }
            continue;
        }
        if let Some(shorts) = tok.strip_prefix('-').filter(|s| !s.is_empty()) {
            for (i, ch) in shorts.char_indices() {
                let Some(a) = find_short(cur, ch) else {
                    continue;
                };
                seen.push(a.get_id().as_str());
                if takes_value(a) {
                    // `-ojson` carries its value; a bare `-o` takes the next word.
                    if shorts[i + ch.len_utf8()..].is_empty() {
                        pending = Some(a);
                    }
                    break;
                }
            }
            continue;
        }
        if positionals == 0
            && let Some(sub) = find_subcommand(cur, tok)
        {
            cur = sub;
            seen.clear();
            continue;
        }
        positionals += 1;
    }

    if let Some(a) = pending {
        return values_of(cur, a, word, "");
    }
    if !only_positionals && word.starts_with('-') {
        if let Some((name, value)) = word.strip_prefix("--").and_then(|w| w.split_once('=')) {
            return match find_long(cur, name).filter(|a| takes_value(a)) {
                Some(a) => values_of(cur, a, value, &word[..word.len() - value.len()]),
                None => Completions::none(),
            };
        }
        return flags(cur, word, &seen);
    }
    let mut out = Completions::none();
    if positionals == 0 && !only_positionals {
        for sub in cur.get_subcommands().filter(|s| !s.is_hide_set()) {
            if sub.get_name().starts_with(word) {
                out.candidates.push(Candidate {
                    value: sub.get_name().to_string(),
                    help: sub.get_about().map(|h| h.to_string()).unwrap_or_default(),
                });
            }
        }
    }
    if let Some(arg) = positional_at(cur, positionals) {
        let more = values_of(cur, arg, word, "");
        out.candidates.extend(more.candidates);
        out.directive = more.directive;
    }
    out
}

fn takes_value(a: &Arg) -> bool {
    a.get_action().takes_values()
}

fn find_long<'a>(cmd: &'a Command, name: &str) -> Option<&'a Arg> {
    cmd.get_arguments().find(|a| {
        a.get_long() == Some(name) || a.get_all_aliases().is_some_and(|v| v.contains(&name))
    })
}

fn find_short(cmd: &Command, ch: char) -> Option<&Arg> {
    cmd.get_arguments().find(|a| {
        a.get_short() == Some(ch) || a.get_all_short_aliases().is_some_and(|v| v.contains(&ch))
    })
}

fn find_subcommand<'a>(cmd: &'a Command, name: &str) -> Option<&'a Command> {
    cmd.get_subcommands()
        .find(|s| s.get_name() == name || s.get_all_aliases().any(|a| a == name))
}

/// The positional argument that word number `n` (from 0, after the subcommand) fills; the last
/// one also takes every later word when it takes many.
fn positional_at(cmd: &Command, n: usize) -> Option<&Arg> {
    let pos: Vec<&Arg> = cmd.get_positionals().collect();
    pos.get(n).copied().or_else(|| {
        pos.last()
            .copied()
            .filter(|a| a.get_num_args().is_some_and(|r| r.max_values() > 1))
    })
}

/// Flag names starting with `word`, long and short as Cobra offers them. A flag already given
/// is left out unless it may be repeated (`-f a -f b`).
fn flags(cmd: &Command, word: &str, seen: &[&str]) -> Completions {
    let mut out = Completions::none();
    for a in cmd.get_arguments() {
        if a.is_positional() || a.is_hide_set() {
            continue;
        }
        let repeatable = matches!(a.get_action(), ArgAction::Append | ArgAction::Count);
        if !repeatable && seen.contains(&a.get_id().as_str()) {
            continue;
        }
        let help = a.get_help().map(|h| h.to_string()).unwrap_or_default();
        let mut names: Vec<String> = Vec::new();
        if let Some(l) = a.get_long() {
            names.push(format!("--{l}"));
        }
        if let Some(s) = a.get_short() {
            names.push(format!("-{s}"));
        }
        for n in names.into_iter().filter(|n| n.starts_with(word)) {
            out.candidates.push(Candidate {
                value: n,
                help: help.clone(),
            });
        }
    }
    out
}

/// Values for `arg` starting with `typed`; `prefix` is put back in front (`--output=`).
fn values_of(cmd: &Command, arg: &Arg, typed: &str, prefix: &str) -> Completions {
    let key = (cmd.get_name(), arg.get_id().as_str());
    let mut out = Completions::none();
    let mut push = |value: &str, help: &str| {
        if value.starts_with(typed) {
            out.candidates.push(Candidate {
                value: format!("{prefix}{value}"),
                help: help.to_string(),
            });
        }
    };
    let possible: Vec<PossibleValue> = arg.get_possible_values();
    if !possible.is_empty() {
        for v in possible.iter().filter(|v| !v.is_hide_set()) {
            let help = v.get_help().map(|h| h.to_string()).unwrap_or_default();
            push(v.get_name(), &help);
        }
    } else if RULE_ARGS.contains(&key) {
        for c in rule_candidates() {
            push(&c.value, &c.help);
        }
    } else if TARGET_ARGS.contains(&key) {
        // A name comes from the cluster, which completion does not read (a TAB must not wait on
        // an API server). The kind before the `/` is ours to offer.
        if !typed.contains('/') {
            for kind in target_kinds() {
                push(&format!("{kind}/"), "");
            }
            out.directive |= directive::NO_SPACE;
        }
    } else if matches!(
        arg.get_value_hint(),
        ValueHint::FilePath | ValueHint::AnyPath | ValueHint::DirPath
    ) {
        out.directive = directive::DEFAULT;
    }
    out
}

/// Every built-in rule's id with its summary. Empty if the rules fail to load: `kubectl layer
/// rules` reports that, and a TAB is no place for the error.
fn rule_candidates() -> Vec<Candidate> {
    layer_core::Engine::builtin()
        .map(|e| {
            e.rules()
                .iter()
                .map(|r| Candidate {
                    value: r.id.clone(),
                    help: r.summary.clone(),
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The kinds a target may name, spelt as the kinds themselves (every spelling the core accepts
/// includes the lowercase kind): a bare name is a pod, and the rest are the work kinds.
fn target_kinds() -> Vec<String> {
    let mut kinds = vec!["pod".to_string()];
    for work in layer_core::kinds::work_kinds() {
        let k = work.kind.to_ascii_lowercase();
        if !kinds.contains(&k) {
            kinds.push(k);
        }
    }
    kinds
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        let mut w: Vec<String> = line.split(' ').map(str::to_string).collect();
        if line.is_empty() {
            w = vec![String::new()];
        }
        w
    }

    fn values(line: &str) -> Vec<String> {
        complete(&words(line))
            .values()
            .into_iter()
            .map(str::to_string)
            .collect()
    }

    #[test]
    fn the_special_arguments_still_name_arguments_of_the_tree() {
        let cmd = Cli::command();
        for (sub, arg) in RULE_ARGS.iter().chain(TARGET_ARGS) {
            let s = cmd
                .find_subcommand(sub)
                .unwrap_or_else(|| panic!("no subcommand {sub}"));
            assert!(
                s.get_positionals().any(|a| a.get_id() == *arg),
                "{sub} has no positional {arg}"
            );
        }
    }

    #[test]
    fn subcommands_then_flags_then_values() {
        let top = values("");
        for s in ["why", "scan", "bundle", "completion", "explain", "help"] {
            assert!(top.contains(&s.to_string()), "{s} in {top:?}");
        }
        assert_eq!(values("sc"), ["scan"]);
        let flags = values("why -");
        assert!(flags.contains(&"--namespace".to_string()), "{flags:?}");
        assert!(flags.contains(&"-n".to_string()), "{flags:?}");
        assert!(
            !flags.contains(&"--all-namespaces".to_string()),
            "{flags:?}"
        );
        assert_eq!(values("why -o "), ["text", "json", "markdown"]);
        assert_eq!(
            values("scan -o "),
            ["text", "wide", "json", "markdown", "prometheus"]
        );
        assert_eq!(values("rules --layer p"), ["placement"]);
        assert_eq!(values("why --output=m"), ["--output=markdown"]);
        assert_eq!(values("why pod-0 -n ml -o j"), ["json"]);
        assert_eq!(values("completion z"), ["zsh"]);
    }

    #[test]
    fn a_flag_given_once_is_not_offered_again_unless_it_repeats() {
        let after = values("why x -n ml --");
        assert!(!after.contains(&"--namespace".to_string()), "{after:?}");
        assert!(after.contains(&"--filename".to_string()), "{after:?}");
        let again = values("why x -f a.json --");
        assert!(again.contains(&"--filename".to_string()), "{again:?}");
    }

    #[test]
    fn fit_completes_a_manifest_file_then_its_flags() {
        assert!(values("").contains(&"fit".to_string()));
        assert_eq!(complete(&words("fit ")).directive, directive::DEFAULT);
        let flags = values("fit train.yaml -");
        for f in [
            "--filename",
            "--namespace",
            "--output",
            "--now",
            "--kubeconfig",
        ] {
            assert!(flags.contains(&f.to_string()), "{f} in {flags:?}");
        }
        assert_eq!(values("fit train.yaml -o "), ["text", "json", "markdown"]);
    }

    #[test]
    fn files_where_a_file_goes_and_nowhere_else() {
        assert_eq!(complete(&words("why x -f ")).directive, directive::DEFAULT);
        assert_eq!(
            complete(&words("why x --kubeconfig ")).directive,
            directive::DEFAULT
        );
        let ns = complete(&words("why x -n "));
        assert!(ns.candidates.is_empty());
        assert_eq!(ns.directive, directive::NO_FILE_COMP);
    }

    #[test]
    fn rule_ids_after_explain_and_kinds_for_a_target() {
        let ids = values("explain placement/");
        assert!(
            ids.contains(&"placement/insufficient-extended-resource".to_string()),
            "{ids:?}"
        );
        assert!(ids.iter().all(|i| i.starts_with("placement/")));
        let kinds = complete(&words("why j"));
        assert_eq!(kinds.values(), ["job/", "jobset/"]);
        assert_eq!(
            kinds.directive,
            directive::NO_SPACE | directive::NO_FILE_COMP
        );
        assert!(values("bundle job/tr").is_empty());
    }

    #[test]
    fn the_cobra_answer_is_one_candidate_a_line_then_the_directive() {
        let c = Completions {
            candidates: vec![
                Candidate {
                    value: "a".into(),
                    help: "first\tline\nsecond".into(),
                },
                Candidate {
                    value: "b".into(),
                    help: String::new(),
                },
            ],
            directive: 6,
        };
        assert_eq!(c.to_cobra(), "a\tfirst line\nb\n:6\n");
        assert_eq!(one_line("Namespace. Live, the default."), "Namespace");
        assert_eq!(
            one_line("A check (e.g. a request) waits."),
            "A check (e.g. a request) waits"
        );
    }
}
