//! The shell completion scripts `kubectl-layer completion SHELL` prints: clap_complete's, from
//! the clap command tree in `cli.rs`, with rule ids after `explain` and two of its bugs worked
//! around.

use crate::cli::Cli;
use clap::CommandFactory;
use clap::builder::PossibleValue;

/// The name the shell scripts complete: the binary a user types, not the `kubectl layer` that
/// `--help` shows (kubectl, not the shell, completes that one).
pub const BIN: &str = "kubectl-layer";

/// One word the shell may put on the line, with the help text shown beside it.
struct Candidate {
    value: String,
    help: String,
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

/// The arguments whose values are not in the tree: rule ids live in the rule files. Named by
/// (subcommand, argument id); a unit test checks that each still names an argument, so renaming
/// one in `cli.rs` fails loudly instead of going quiet.
const RULE_ARGS: &[(&str, &str)] = &[("explain", "rule")];

/// The static script for `shell`, completing `kubectl-layer …` at every depth, with rule ids
/// after `explain` (known when the script is made, since the rules are built in).
pub fn script(shell: clap_complete::Shell) -> String {
    let rules = rule_candidates();
    let mut cmd = Cli::command().bin_name(BIN);
    for (sub, arg) in RULE_ARGS {
        let values: Vec<PossibleValue> = rules
            .iter()
            // zsh's script puts each help in double quotes without escaping them (clap_complete
            // 4.6.12), so a quoted word in a summary would end it and spill the rest out as
            // candidates.
            .map(|c| PossibleValue::new(c.value.clone()).help(one_line(&c.help).replace('"', "'")))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_special_arguments_still_name_arguments_of_the_tree() {
        let cmd = Cli::command();
        for (sub, arg) in RULE_ARGS {
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
    fn help_beside_a_candidate_is_its_first_sentence() {
        assert_eq!(one_line("first\tline\nsecond"), "first line");
        assert_eq!(one_line("Namespace. Live, the default."), "Namespace");
        assert_eq!(
            one_line("A check (e.g. a request) waits."),
            "A check (e.g. a request) waits"
        );
    }
}
